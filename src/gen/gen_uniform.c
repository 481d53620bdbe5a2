/* Uniform random directed graph (Erdos-Renyi G(n, m) style, with replacement): both ends
 * of every edge uniform over the 2^scale vertices; self loops and duplicates kept. */
#include "gen_random.h"

#include "sp_base.h"

typedef struct uniform_fill {
    sp_coo_t *a;
    uint64_t key;
    int scale;
} uniform_fill_t;

/* Edge k's ends are the high `scale` bits of the two halves of one draw from stream k of
 * the seed's uniform family; the next draw gives its value. */
static void uniform_fill(int64_t begin, int64_t end, void *opaque)
{
    const uniform_fill_t *f = opaque;
    sp_coo_t *a = f->a;
    int scale = f->scale;
    for (int64_t e = begin; e < end; e++) {
        sp__rng_t g = sp__rng_at(f->key, (uint64_t)e);
        uint64_t r = sp__rng_next(&g);
        uint64_t hi = r >> 32, lo = r & 0xffffffffu;
        a->row[e] = scale == 0 ? 0 : (int32_t)(hi >> (32 - scale));
        a->col[e] = scale == 0 ? 0 : (int32_t)(lo >> (32 - scale));
        sp__rng_store_unit(sp__rng_next(&g), a->value_type, a->val, e);
    }
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
    uniform_fill_t f = {a, sp__rng_key(seed, SP__RNG_UNIFORM_EDGE), scale};
    SP_TRY(sp__gen_slices(nthreads, a->nnz, uniform_fill, &f));
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
