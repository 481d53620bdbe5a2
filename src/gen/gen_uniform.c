/* Uniform random directed graph (Erdos-Renyi G(n, m) style, with replacement): both ends
 * of every edge uniform over the 2^scale vertices; self loops and duplicates kept. */
#include "gen_random.h"

#include "sp_base.h"

/* Edge k's ends are the high `scale` bits of the two halves of one draw from stream k of
 * the seed's uniform family; the next draw gives its value. Edges in index order. */
sp_status_t sp_gen_uniform(int scale, int edgefactor, uint64_t seed,
                           sp_value_type_t value_type, sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *a = NULL;
    SP_CHECK_ARG(coo != NULL, "sp_gen_uniform: coo is NULL");
    SP_TRY(sp__gen_graph_create("sp_gen_uniform", scale, edgefactor, value_type, &a));
    uint64_t key = sp__rng_key(seed, SP__RNG_UNIFORM_EDGE);
    for (int64_t e = 0; e < a->nnz; e++) {
        sp__rng_t g = sp__rng_at(key, (uint64_t)e);
        uint64_t r = sp__rng_next(&g);
        uint64_t hi = r >> 32, lo = r & 0xffffffffu;
        a->row[e] = scale == 0 ? 0 : (int32_t)(hi >> (32 - scale));
        a->col[e] = scale == 0 ? 0 : (int32_t)(lo >> (32 - scale));
        sp__rng_store_unit(sp__rng_next(&g), value_type, a->val, e);
    }
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    return st;
}
