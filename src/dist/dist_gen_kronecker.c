/* The Kronecker graph of sp_gen_kronecker generated in slices: rank r draws edges
 * [r m / P, (r + 1) m / P) of the same counter-based family (src/gen/gen_kronecker.c),
 * relabels them with the same permutation, and sends each edge (undirected: and its mirror)
 * to the owner of its row, so the edge list never passes through one place. The rows are
 * split by a histogram of 64 P buckets of rows (one all-reduce), balancing entries to
 * within a bucket. Each edge carries its index (and whether it is a mirror), so the owner
 * orders duplicates exactly as the single-process path does: sp_coo_symmetrize keeps the
 * first of the originals-then-mirrors list, sp_matrix_create sums duplicates in input
 * order; the matrices are the same. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"
#include "sp_host_sort.h"
#include "gen/gen_random.h"

/* An edge on its way to its row's owner. With values: its order in the single-process
 * list, so duplicates merge as there (24 bytes). A pattern's duplicates are alike, which
 * one is kept does not matter: row and column alone (8 bytes), a third of the host memory
 * of the routing at scale. Both start with the row (-1: a dropped self loop). */
typedef struct kedge {
    int32_t row, col;
    uint64_t order; /* mirror << 63 | edge index: the single-process list order */
    double val;     /* float values are exact in a double */
} kedge_t;
typedef struct pedge {
    int32_t row, col;
} pedge_t;

static size_t rec_size(sp_value_type_t vt)
{
    return vt == SP_VALUE_NONE ? sizeof(pedge_t) : sizeof(kedge_t);
}

static int32_t rec_row(const void *recs, int64_t k, size_t rs)
{
    int32_t r;
    memcpy(&r, (const char *)recs + (size_t)k * rs, sizeof r);
    return r;
}

/* The slice's edges, drawn by slices on every core: edge e of the slice fills slots
 * 2 (e - e0) and 2 (e - e0) + 1 (undirected: the edge and its mirror, both with row -1 for
 * a self loop, which is dropped) or slot e - e0 (directed). */
typedef struct draw_job {
    uint64_t key;
    int64_t e0;
    int scale, undirected;
    sp_value_type_t vt;
    const int32_t *perm;
    void *w; /* kedge_t, or pedge_t for a pattern */
} draw_job_t;

/* Slot i of the slice: the edge (a, b), its order and value; a < 0: a dropped self loop. */
static void put_slot(const draw_job_t *j, int64_t i, int32_t a, int32_t b, uint64_t order,
                     double val)
{
    if (j->vt == SP_VALUE_NONE)
        ((pedge_t *)j->w)[i] = (pedge_t){a, b};
    else
        ((kedge_t *)j->w)[i] = (kedge_t){a, b, order, val};
}

static void draw_fill(int64_t begin, int64_t end, void *arg)
{
    const draw_job_t *j = arg;
    for (int64_t i = begin; i < end; i++) {
        int64_t e = j->e0 + i;
        uint32_t u, v;
        uint64_t bits;
        double val = 0;
        float f = 0;
        sp__gen_kron_edge(j->key, e, j->scale, &u, &v, &bits);
        if (j->vt == SP_R_64F) sp__rng_store_unit(bits, j->vt, &val, 0);
        if (j->vt == SP_R_32F) sp__rng_store_unit(bits, j->vt, &f, 0), val = f;
        int32_t a = j->perm[u], b = j->perm[v];
        if (!j->undirected) {
            put_slot(j, i, a, b, (uint64_t)e, val);
        } else if (a == b) {
            put_slot(j, 2 * i, -1, -1, 0, 0);
            put_slot(j, 2 * i + 1, -1, -1, 0, 0);
        } else {
            put_slot(j, 2 * i, a, b, (uint64_t)e, val);
            put_slot(j, 2 * i + 1, b, a, (uint64_t)1 << 63 | (uint64_t)e, val);
        }
    }
}

/* This rank's slice of edges, relabelled (undirected: mirrors added, self loops left as
 * slots of row -1, which the routing skips); *nout counts the slots. */
static sp_status_t draw_slice(sp_comm_t *c, int scale, int64_t m, uint64_t seed,
                              sp_value_type_t vt, int undirected, void **out, int64_t *nout)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t n = (int64_t)1 << scale, P = c->size, r = c->rank;
    int64_t e0 = (m / P) * r + (m % P) * r / P, e1 = (m / P) * (r + 1) + (m % P) * (r + 1) / P;
    int32_t *perm = NULL;
    void *w = NULL;
    SP_ALLOC(perm, n);
    if (!(w = sp__malloc_array((size_t)((undirected ? 2 : 1) * (e1 - e0)), rec_size(vt))))
        SP_FAIL(SP_STATUS_ALLOC_FAILED,
                "sp_dist_gen_kronecker: out of host memory for %lld edges of %zu bytes",
                (long long)((undirected ? 2 : 1) * (e1 - e0)), rec_size(vt));
    SP_TRY(sp__gen_kron_permutation(seed, perm, n, 1)); /* ranks may share the host's cores */
    {
        draw_job_t j = {sp__rng_key(seed, SP__RNG_KRON_EDGE), e0, scale, undirected, vt, perm,
                        w};
        SP_TRY(sp__gen_slices(0, e1 - e0, draw_fill, &j));
    }
    *out = w;
    *nout = (undirected ? 2 : 1) * (e1 - e0);
    w = NULL;
done:
    sp__free(w);
    sp__free(perm);
    return st;
}

/* row_begin[0..P]: the first row of the bucket where the entry count reaches r * total / P. */
static sp_status_t split_rows(sp_comm_t *c, int64_t n, const void *w, int64_t nw, size_t rs,
                              int64_t *row_begin)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t B = n < 64 * (int64_t)c->size ? n : 64 * (int64_t)c->size, *cnt = NULL, k, b = 0;
    int64_t total = 0, cum = 0;
    int r, P = c->size;
    SP_CALLOC(cnt, B);
    for (k = 0; k < nw; k++) {
        int32_t row = rec_row(w, k, rs);
        if (row >= 0) cnt[(int64_t)row * B / n]++;
    }
    SP_TRY(sp__comm_allreduce_host(c, cnt, B, SP_COMM_I64, SP_COMM_SUM));
    for (k = 0; k < B; k++)
        total += cnt[k];
    for (r = 0; r < P; r++) {
        int64_t target = (total / P) * r + (total % P) * r / P;
        while (b < B && cum < target)
            cum += cnt[b++];
        row_begin[r] = (b * n + B - 1) / B; /* first row of bucket b */
    }
    row_begin[P] = n;
done:
    sp__free(cnt);
    return st;
}

/* The received edges as this rank's piece, rows renumbered from rb, in the single-process
 * order: the originals by edge index, then (undirected) the mirrors by edge index, which
 * is the order sp_coo_symmetrize sorts stably. The host's parallel stable sort then keeps
 * the first of each undirected duplicate, as symmetrize does, or sums directed duplicates
 * in that order, as sp_matrix_create does: the matrices are the same. Received from rank
 * q = 0, 1, ... in slice order, the edges already come by increasing index. A pattern's
 * records carry no order: its duplicates are alike. *got is freed before the sort (it is
 * the largest buffer). */
static sp_status_t make_piece(void **got, int64_t ngot, int64_t rb, int64_t rows, int64_t n,
                              sp_value_type_t vt, int undirected, sp_coo_t **piece)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *p = NULL;
    int64_t k, orig = 0, mirror = 0;
    SP_TRY(sp_coo_create(rows, n, ngot, vt, &p));
    if (vt == SP_VALUE_NONE) {
        const pedge_t *g = *got;
        for (k = 0; k < ngot; k++) {
            p->row[k] = (int32_t)(g[k].row - rb);
            p->col[k] = g[k].col;
        }
    } else {
        const kedge_t *g = *got;
        for (k = 0; k < ngot; k++)
            orig += !(g[k].order >> 63);
        for (k = 0; k < ngot; k++) {
            int64_t at = g[k].order >> 63 ? orig + mirror++ : k - mirror;
            p->row[at] = (int32_t)(g[k].row - rb);
            p->col[at] = g[k].col;
            if (vt == SP_R_64F) ((double *)p->val)[at] = g[k].val;
            if (vt == SP_R_32F) ((float *)p->val)[at] = (float)g[k].val;
        }
    }
    p->nnz = ngot;
    sp__free(*got);
    *got = NULL;
    {
        sp_triplets_t t = sp__coo_triplets(p);
        SP_TRY(sp__coo_sort_merge_threads(&t, undirected ? SP_DUP_KEEP : SP_DUP_SUM, NULL, 0));
        p->nnz = t.nnz;
    }
    p->flags = SP_COO_SORTED | SP_COO_MERGED;
    *piece = p;
    p = NULL;
done:
    sp_coo_free(p);
    return st;
}

sp_status_t sp_dist_gen_kronecker(sp_comm_t *comm, sp_context_t *ctx, int scale, int edgefactor,
                                  uint64_t seed, sp_value_type_t value_type, int undirected,
                                  const sp_dist_options_t *options, sp_dist_matrix_t **G)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    void *w = NULL, *sorted = NULL, *got = NULL;
    int64_t *rb = NULL, *scount = NULL, *rcount = NULL, *off = NULL, nw = 0, ngot = 0, n, m, k;
    size_t rs = rec_size(value_type);
    sp_coo_t *piece = NULL;
    int P, q;
    if (comm == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_dist_gen_kronecker: comm is NULL");
    P = comm->size;
    SP_CHECK_ARG(scale >= 0 && scale <= 30 && edgefactor >= 1,
                 "sp_dist_gen_kronecker: scale %d (0..30) or edgefactor %d (>= 1) out of range",
                 scale, edgefactor);
    SP_CHECK_ARG(value_type == SP_VALUE_NONE || value_type == SP_R_32F ||
                     value_type == SP_R_64F,
                 "sp_dist_gen_kronecker: unknown value type %d", (int)value_type);
    n = (int64_t)1 << scale;
    m = (int64_t)edgefactor * n;
    /* The whole graph may pass 2^31 entries; each rank's part becomes an sp_matrix_t,
     * which needs 32-bit offsets (sp_matrix_create refuses a part past them, with its
     * count). The split balances entries, so refuse at once where the mean part would
     * not fit, before any edge is drawn. */
    if (m * (undirected ? 2 : 1) / P > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_dist_gen_kronecker: scale %d edgefactor %d gives %lld entries, %lld a "
                "rank over %d ranks, beyond the 32-bit offsets of a rank's matrix (limit %d "
                "a rank: use more ranks)",
                scale, edgefactor, (long long)(m * (undirected ? 2 : 1)),
                (long long)(m * (undirected ? 2 : 1) / P), P, INT32_MAX);
    SP_TRY(draw_slice(comm, scale, m, seed, value_type, undirected, &w, &nw));
    SP_ALLOC(rb, P + 1);
    SP_TRY(split_rows(comm, n, w, nw, rs, rb));
    SP_CALLOC(scount, P);
    SP_CALLOC(rcount, P);
    SP_CALLOC(off, P + 1);
    for (k = 0; k < nw; k++) {
        int32_t row = rec_row(w, k, rs);
        if (row >= 0) scount[sp__dist_owner_in(rb, P, row)]++;
    }
    for (q = 0; q < P; q++)
        off[q + 1] = off[q] + scount[q];
    if (!(sorted = sp__malloc_array((size_t)(off[P] > 0 ? off[P] : 1), rs)))
        SP_FAIL(SP_STATUS_ALLOC_FAILED,
                "sp_dist_gen_kronecker: out of host memory for %lld routed edges of %zu bytes",
                (long long)off[P], rs);
    for (k = 0; k < nw; k++) {
        int32_t row = rec_row(w, k, rs);
        if (row >= 0)
            memcpy((char *)sorted + (size_t)off[sp__dist_owner_in(rb, P, row)]++ * rs,
                   (const char *)w + (size_t)k * rs, rs);
    }
    sp__free(w);
    w = NULL;
    SP_TRY(sp__dist_alltoallv(comm, sorted, scount, rs, &got, rcount));
    sp__free(sorted);
    sorted = NULL;
    for (q = 0; q < P; q++)
        ngot += rcount[q];
    SP_TRY(make_piece(&got, ngot, rb[comm->rank], rb[comm->rank + 1] - rb[comm->rank], n,
                      value_type, undirected, &piece));
    SP_TRY(sp_dist_matrix_create_local(comm, ctx, piece, rb[comm->rank], options, G));
done:
    sp_coo_free(piece);
    sp__free(got);
    sp__free(sorted);
    sp__free(off);
    sp__free(rcount);
    sp__free(scount);
    sp__free(rb);
    sp__free(w);
    return sp__comm_fail(comm, st);
}
