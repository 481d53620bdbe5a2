/* Deterministic counter-based random numbers for the generators, and the argument checks
 * and allocation shared by the random graphs (Kronecker, uniform). */
#include "gen_random.h"

#include <limits.h>

#include "sp_base.h"
#include "sp_text.h" /* sp__parallel_for, the loaders' thread pool */

uint64_t sp__rng_key(uint64_t seed, uint64_t purpose)
{
    return sp__rng_mix(sp__rng_mix(seed) ^ (purpose * SP__RNG_GAMMA));
}

sp__rng_t sp__rng_at(uint64_t key, uint64_t index)
{
    /* Distinct indices start at unrelated points of the splitmix sequence, so streams
     * overlap only with negligible probability for the few draws each item makes. */
    sp__rng_t g = {sp__rng_mix(key + index * SP__RNG_GAMMA) ^ key};
    return g;
}

uint64_t sp__rng_below(sp__rng_t *g, uint64_t bound)
{
    uint64_t r;
    do {
        r = sp__rng_next(g);
    } while (sp__rng_rejected(r, bound));
    return r % bound;
}

void sp__rng_store_unit(uint64_t r, sp_value_type_t type, void *val, int64_t k)
{
    if (type == SP_R_64F) ((double *)val)[k] = (double)(r >> 11) * 0x1.0p-53;
    if (type == SP_R_32F) ((float *)val)[k] = (float)(r >> 40) * 0x1.0p-24f;
}

sp_status_t sp__gen_graph_create(const char *fn, int scale, int edgefactor,
                                 sp_value_type_t value_type, sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(scale >= 0, "%s: scale %d is negative", fn, scale);
    SP_CHECK_ARG(edgefactor >= 1, "%s: edgefactor %d is below 1", fn, edgefactor);
    SP_CHECK_ARG(value_type == SP_VALUE_NONE || value_type == SP_R_32F ||
                     value_type == SP_R_64F,
                 "%s: unknown value type %d", fn, (int)value_type);
    if (scale > 30)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s: scale %d gives 2^%d vertices, beyond 32-bit indices (scale <= 30)", fn,
                scale, scale);
    int64_t nvertices = (int64_t)1 << scale;
    /* At most 2^31 x 2^30 edges: any count fits int64, and memory is the only bound
     * (sp_coo_create refuses with the bytes it would need). */
    int64_t nedges = (int64_t)edgefactor * nvertices;
    SP_TRY(sp_coo_create(nvertices, nvertices, nedges, value_type, coo));
    (*coo)->nnz = nedges;
    (*coo)->symmetry = SP_SYMMETRY_GENERAL;
    (*coo)->flags = 0;
done:
    return st;
}

typedef struct gen_slices {
    void (*fill)(int64_t begin, int64_t end, void *arg);
    void *arg;
    int64_t n, slice;
} gen_slices_t;

static sp_status_t gen_slice_task(int i, void *opaque)
{
    const gen_slices_t *s = opaque;
    int64_t begin = (int64_t)i * s->slice;
    int64_t end = begin + s->slice < s->n ? begin + s->slice : s->n;
    s->fill(begin, end, s->arg);
    return SP_STATUS_SUCCESS;
}

sp_status_t sp__gen_slices(int nthreads, int64_t n,
                           void (*fill)(int64_t begin, int64_t end, void *arg), void *arg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    gen_slices_t s = {fill, arg, n, SP__GEN_SLICE};
    if (n <= 0) return SP_STATUS_SUCCESS;
    if ((n - 1) / s.slice + 1 > INT_MAX) /* task ids are int */
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "sp__gen_slices: %lld items exceed 2^47",
                (long long)n);
    st = sp__parallel_for(nthreads, (int)((n - 1) / s.slice + 1), gen_slice_task, &s);
done:
    return st;
}

typedef struct gen_edges {
    sp_coo_t *a;
    sp__gen_edge_fn edge;
    const void *family;
} gen_edges_t;

static void gen_edges_fill(int64_t begin, int64_t end, void *opaque)
{
    const gen_edges_t *g = opaque;
    sp_coo_t *a = g->a;
    for (int64_t e = begin; e < end; e++) {
        uint64_t value_bits;
        g->edge(g->family, e, &a->row[e], &a->col[e], &value_bits);
        sp__rng_store_unit(value_bits, a->value_type, a->val, e);
    }
}

sp_status_t sp__gen_edges(int nthreads, sp_coo_t *a, sp__gen_edge_fn edge, const void *family)
{
    gen_edges_t g = {a, edge, family};
    return sp__gen_slices(nthreads, a->nnz, gen_edges_fill, &g);
}
