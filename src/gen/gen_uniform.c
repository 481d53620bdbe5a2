/* Uniform random directed graph (Erdos-Renyi G(n, m) style, with replacement): both ends
 * of every edge uniform over the 2^scale vertices; self loops and duplicates kept. */
#include "gen_random.h"

#include "sp_base.h"

typedef struct uniform_family {
    uint64_t key;
    int scale;
} uniform_family_t;

/* Edge e's ends are the high `scale` bits of the two halves of one draw from stream e of
 * the seed's uniform family; the next draw gives its value. */
static void uniform_edge(const void *family, int64_t e, int32_t *row, int32_t *col,
                         uint64_t *value_bits)
{
    const uniform_family_t *f = family;
    sp__rng_t g = sp__rng_at(f->key, (uint64_t)e);
    uint64_t r = sp__rng_next(&g);
    *row = f->scale == 0 ? 0 : (int32_t)((r >> 32) >> (32 - f->scale));
    *col = f->scale == 0 ? 0 : (int32_t)((r & 0xffffffffu) >> (32 - f->scale));
    *value_bits = sp__rng_next(&g);
}

/* Edges in index order, slices of them drawn in parallel: the same list for any thread
 * count. */
sp_status_t sp__gen_uniform_threads(int scale, int edgefactor, uint64_t seed,
                                    sp_value_type_t value_type, int nthreads, sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *a = NULL;
    SP_CHECK_ARG(coo != NULL, "sp_gen_uniform: coo is NULL");
    SP_TRY(sp__gen_graph_create("sp_gen_uniform", scale, edgefactor, value_type, &a));
    uniform_family_t f = {sp__rng_key(seed, SP__RNG_UNIFORM_EDGE), scale};
    SP_TRY(sp__gen_edges(nthreads, a, uniform_edge, &f));
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    return st;
}

sp_status_t sp_gen_uniform(int scale, int edgefactor, uint64_t seed,
                           sp_value_type_t value_type, sp_coo_t **coo)
{
    return sp__gen_uniform_threads(scale, edgefactor, seed, value_type, 0, coo);
}
