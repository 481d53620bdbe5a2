/* Graph500 Kronecker (R-MAT) graph: each edge descends `scale` levels of the adjacency
 * matrix, picking a quadrant with probabilities A=.57 B=.19 C=.19 D=.05, then vertex ids
 * are relabelled by a seeded random permutation (Graph500 specification, section 3). */
#include "gen_random.h"

#include "sp_base.h"

/* Quadrant thresholds on a 32-bit uniform draw x: A if x < T_A, B if x < T_AB, C if
 * x < T_ABC, else D. Integers, so the choice is the same on every machine. */
#define KRON_T_A ((uint32_t)(((uint64_t)57 << 32) / 100))
#define KRON_T_AB ((uint32_t)(((uint64_t)76 << 32) / 100))
#define KRON_T_ABC ((uint32_t)(((uint64_t)95 << 32) / 100))

/* Edge e of the seed's edge family, before relabelling; each 64-bit draw serves two
 * levels. The draw after the last level gives the value. */
void sp__gen_kron_edge(uint64_t key, int64_t e, int scale, uint32_t *u, uint32_t *v,
                       uint64_t *value_bits)
{
    sp__rng_t g = sp__rng_at(key, (uint64_t)e);
    uint32_t row = 0, col = 0;
    uint64_t r = 0;
    for (int level = 0; level < scale; level++) {
        uint32_t x;
        if (level % 2 == 0) {
            r = sp__rng_next(&g);
            x = (uint32_t)r;
        } else {
            x = (uint32_t)(r >> 32);
        }
        /* Comparisons, not branches: the quadrant is random, so a branch on it would be
         * mispredicted about every other level. */
        uint32_t row_bit = x >= KRON_T_AB;                                   /* C or D */
        uint32_t col_bit = (x >= KRON_T_A) ^ (x >= KRON_T_AB) ^ (x >= KRON_T_ABC); /* B or D */
        row = row << 1 | row_bit;
        col = col << 1 | col_bit;
    }
    *u = row;
    *v = col;
    *value_bits = sp__rng_next(&g);
}

typedef struct kron_family {
    const int32_t *perm;
    uint64_t key;
    int scale;
} kron_family_t;

/* Edge e, relabelled. */
static void kron_edge_relabelled(const void *family, int64_t e, int32_t *row, int32_t *col,
                                 uint64_t *value_bits)
{
    const kron_family_t *f = family;
    uint32_t u, v;
    sp__gen_kron_edge(f->key, e, f->scale, &u, &v, value_bits);
    *row = f->perm[u];
    *col = f->perm[v];
}

/* Edges are stored in index order, not shuffled as the Graph500 reference does: edge k
 * depends only on (seed, k) and the permutation, so slices of edges are drawn in parallel
 * and the list is the same for any thread count; the relabelling already hides the
 * structure the order would reveal. */
sp_status_t sp__gen_kronecker_threads(int scale, int edgefactor, uint64_t seed,
                                      sp_value_type_t value_type, int nthreads,
                                      sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *a = NULL;
    int32_t *perm = NULL;
    SP_CHECK_ARG(coo != NULL, "sp_gen_kronecker: coo is NULL");
    SP_TRY(sp__gen_graph_create("sp_gen_kronecker", scale, edgefactor, value_type, &a));
    SP_ALLOC(perm, a->nrows);
    SP_TRY(sp__gen_kron_permutation(seed, perm, a->nrows, nthreads));
    kron_family_t f = {perm, sp__rng_key(seed, SP__RNG_KRON_EDGE), scale};
    SP_TRY(sp__gen_edges(nthreads, a, kron_edge_relabelled, &f));
    *coo = a;
    a = NULL;
done:
    sp__free(perm);
    sp_coo_free(a);
    return st;
}

sp_status_t sp_gen_kronecker(int scale, int edgefactor, uint64_t seed,
                             sp_value_type_t value_type, sp_coo_t **coo)
{
    return sp__gen_kronecker_threads(scale, edgefactor, seed, value_type, 0, coo);
}
