/* Distributed matrix: the row split, the local and ghost blocks of each rank, and the halo
 * plan (which x entries each rank sends to which), built once from the column pattern. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

int sp__dist_owner_in(const int64_t *row_begin, int nranks, int64_t j)
{
    int lo = 0, hi = nranks; /* last r with row_begin[r] <= j */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (row_begin[mid] <= j)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int sp__dist_owner(const sp_dist_matrix_t *A, int64_t j)
{
    return sp__dist_owner_in(A->row_begin, A->comm->size, j);
}

sp_status_t sp_dist_partition(const sp_coo_t *coo, int nranks, int64_t *row_begin)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t *cum = NULL, i, k;
    int r;
    SP_CHECK_ARG(coo != NULL && row_begin != NULL,
                 "sp_dist_partition: coo or row_begin is NULL");
    SP_CHECK_ARG(nranks >= 1, "sp_dist_partition: nranks %d < 1", nranks);
    SP_CALLOC(cum, coo->nrows + 1);
    for (k = 0; k < coo->nnz; k++)
        cum[coo->row[k] + 1]++;
    for (i = 0; i < coo->nrows; i++)
        cum[i + 1] += cum[i];
    /* part r starts at the first row whose preceding entries reach r * nnz / P */
    for (r = 0, i = 0; r < nranks; r++) {
        int64_t target = (coo->nnz / nranks) * r + (coo->nnz % nranks) * r / nranks;
        while (i < coo->nrows && cum[i] < target)
            i++;
        row_begin[r] = i;
    }
    row_begin[nranks] = coo->nrows;
done:
    sp__free(cum);
    return st;
}

void sp_dist_matrix_destroy(sp_dist_matrix_t *A)
{
    if (A == NULL) return;
    sp__dist_bfs_gpu_free(A);
    sp_matrix_destroy(A->local);
    for (int k = 0; k < A->nghost_runs; k++)
        sp_matrix_destroy(A->ghost_runs[k].m);
    sp_matrix_destroy(A->pack);
    sp_vector_destroy(A->jacobi);
    sp_vector_destroy(A->sendbuf);
    sp_vector_destroy(A->ghostbuf);
    sp_vector_destroy(A->cg_r);
    sp_vector_destroy(A->cg_z);
    sp_vector_destroy(A->cg_p);
    sp_vector_destroy(A->cg_q);
    sp_vector_destroy(A->cg_slots);
    sp__free(A->halo_sends);
    sp__free(A->halo_recvs);
    sp__free(A->halo.send_peer);
    sp__free(A->halo.recv_peer);
    sp__free(A->halo.send_off);
    sp__free(A->halo.recv_off);
    sp__free(A->halo.send_idx);
    sp__free(A->halo.ghost_col);
    sp__free(A->h_row_ptr);
    sp__free(A->h_col);
    sp__free(A->h_diag);
    sp__free(A->h_in_ptr);
    sp__free(A->h_in);
    sp__free(A->row_begin);
    sp__free(A);
}

/* Every rank's (row_begin, rows, ncols, value type) agree: parts follow each other from 0
 * to ncols, square, one value type. Fills A->row_begin, A->n. */
static sp_status_t agree_on_split(sp_dist_matrix_t *A, const sp_coo_t *rows, int64_t rb)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int P = A->comm->size, r;
    int64_t mine[4] = {rb, rows->nrows, rows->ncols, (int64_t)rows->value_type}, *all = NULL;
    SP_ALLOC(all, (size_t)P * 4);
    SP_TRY(sp__comm_allgather_host(A->comm, mine, all, 4 * 8));
    A->n = all[2];
    for (r = 0; r < P; r++) {
        const int64_t *a = all + 4 * r;
        int64_t expect = r == 0 ? 0 : all[4 * (r - 1)] + all[4 * (r - 1) + 1];
        SP_CHECK_ARG(
            a[0] == expect && a[2] == A->n && a[3] == all[3],
            "sp_dist_matrix_create_local: rank %d has rows %lld..%lld of %lld columns"
            " (value type %d); expected them to start at %lld of %lld columns (type %d)",
            r, (long long)a[0], (long long)(a[0] + a[1]), (long long)a[2], (int)a[3],
            (long long)expect, (long long)A->n, (int)all[3]);
        A->row_begin[r] = a[0];
    }
    A->row_begin[P] = all[4 * (P - 1)] + all[4 * (P - 1) + 1];
    SP_CHECK_ARG(A->row_begin[P] == A->n,
                 "sp_dist_matrix_create_local: the parts cover %lld rows of a square matrix of"
                 " %lld",
                 (long long)A->row_begin[P], (long long)A->n);
done:
    sp__free(all);
    return st;
}

/* The ghost list: the sorted distinct columns of the merged piece outside this rank's rows
 * (so grouped by owner), read off a bitmap of the columns (linear in entries and columns,
 * where a sort of the ghost entries was not), and the receive side of the halo plan. */
static sp_status_t find_ghosts(sp_dist_matrix_t *A, const sp_coo_t *m)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_halo_t *h = &A->halo;
    int64_t k, w, n = 0, words = (A->n + 63) / 64, *g = NULL;
    uint64_t *seen = NULL;
    int p;
    SP_CALLOC(seen, words);
    for (k = 0, A->ghost_nnz = 0; k < m->nnz; k++)
        if (m->col[k] < A->rb || m->col[k] >= A->rb + A->nloc) {
            seen[m->col[k] >> 6] |= (uint64_t)1 << (m->col[k] & 63);
            A->ghost_nnz++;
        }
    for (w = 0; w < words; w++)
        n += __builtin_popcountll(seen[w]);
    SP_ALLOC(g, n);
    for (w = 0, n = 0; w < words; w++)
        for (uint64_t b = seen[w]; b; b &= b - 1)
            g[n++] = 64 * w + __builtin_ctzll(b);
    h->ghost_col = g;
    g = NULL;
    SP_ALLOC(h->recv_peer, A->comm->size);
    SP_ALLOC(h->recv_off, A->comm->size + 1);
    h->recv_off[0] = 0;
    for (k = 0; k < n; k++) {
        p = sp__dist_owner(A, h->ghost_col[k]);
        if (h->nrecv_peers == 0 || h->recv_peer[h->nrecv_peers - 1] != p) {
            h->recv_peer[h->nrecv_peers++] = p;
            h->recv_off[h->nrecv_peers] = h->recv_off[h->nrecv_peers - 1];
        }
        h->recv_off[h->nrecv_peers]++;
    }
done:
    sp__free(g);
    sp__free(seen);
    return st;
}

/* The send side: each rank tells the owners which of their x entries it needs. */
static sp_status_t plan_sends(sp_dist_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_halo_t *h = &A->halo;
    int P = A->comm->size, q, i;
    int64_t *scount = NULL, *rcount = NULL, *want = NULL, k, total = 0;
    SP_CALLOC(scount, P);
    SP_CALLOC(rcount, P);
    for (i = 0; i < h->nrecv_peers; i++)
        scount[h->recv_peer[i]] = h->recv_off[i + 1] - h->recv_off[i];
    SP_TRY(sp__dist_alltoallv(A->comm, h->ghost_col, scount, sizeof(int64_t), (void **)&want,
                              rcount));
    SP_ALLOC(h->send_peer, P);
    SP_ALLOC(h->send_off, P + 1);
    h->send_off[0] = 0;
    for (q = 0; q < P; q++) {
        if (rcount[q] == 0) continue;
        h->send_peer[h->nsend_peers++] = q;
        total += rcount[q];
        h->send_off[h->nsend_peers] = total;
    }
    SP_ALLOC(h->send_idx, total);
    for (k = 0; k < total; k++) {
        if (want[k] < A->rb || want[k] >= A->rb + A->nloc)
            SP_FAIL(SP_STATUS_INTERNAL_ERROR,
                    "sp_dist_matrix: rank %d asked for column %lld,"
                    " outside its rows",
                    A->comm->rank, (long long)want[k]);
        h->send_idx[k] = (int32_t)(want[k] - A->rb);
    }
done:
    sp__free(want);
    sp__free(rcount);
    sp__free(scount);
    return st;
}

/* The ghost list's index of a global column, in constant time: a bitmap of the ghost
 * columns and, per 64-column word, how many ghosts come before it (the rank of c among
 * the set bits). A binary search per ghost entry was the host's largest cost of building
 * a rank's part of a large graph. */
typedef struct ghost_rank {
    uint64_t *bits;
    int64_t *before;
} ghost_rank_t;

static sp_status_t ghost_rank_build(const sp_dist_halo_t *h, int64_t nghost, int64_t ncols,
                                    ghost_rank_t *g)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t words = (ncols + 63) / 64, k, w, run = 0;
    SP_CALLOC(g->bits, words + 1);
    SP_ALLOC(g->before, words + 1);
    for (k = 0; k < nghost; k++)
        g->bits[h->ghost_col[k] >> 6] |= (uint64_t)1 << (h->ghost_col[k] & 63);
    for (w = 0; w <= words; w++) {
        g->before[w] = run;
        run += __builtin_popcountll(g->bits[w]);
    }
done:
    return st;
}

static int64_t ghost_index(const ghost_rank_t *g, int64_t c)
{
    uint64_t below = ((uint64_t)1 << (c & 63)) - 1;
    return g->before[c >> 6] + __builtin_popcountll(g->bits[c >> 6] & below);
}

/* A matrix on A's context from a COO made by fill; the SpMV format resolved and prepared. */
static sp_status_t make_block(sp_dist_matrix_t *A, const sp_coo_t *coo,
                              const sp_dist_options_t *o, sp_matrix_t **M, sp_format_t *fmt)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_matrix_t *m = NULL;
    sp_format_t f = o && o->format != SP_FORMAT_COO ? o->format : SP_FORMAT_AUTO;
    SP_TRY(sp_matrix_create(A->ctx, coo, o ? &o->matrix : NULL, &m));
    if (coo->value_type != SP_VALUE_NONE) {
        if (f == SP_FORMAT_AUTO) SP_TRY(sp_spmv_choose_format(A->ctx, m, &f));
        SP_TRY(sp_spmv_prepare(A->ctx, m, f, SP_SPMV_ALG_DEFAULT));
    }
    *M = m;
    *fmt = f;
    m = NULL;
done:
    sp_matrix_destroy(m);
    return st;
}

/* Gaps of ghost-free rows shorter than this stay inside a run: a y row costs about 24 bytes
 * read and written (a few ns at HBM rates per thousand rows), a separate launch microseconds. */
#define GHOST_GAP_KEEP 65536
static int64_t ghost_gap_keep = GHOST_GAP_KEEP;

void sp__dist_set_ghost_gap(int64_t rows)
{
    ghost_gap_keep = rows > 0 ? rows : GHOST_GAP_KEEP;
}

/* Cut the ghost rows (has[i]: row i holds a ghost entry) into at most SP_DIST_GHOST_RUNS
 * runs: split at the largest gaps between ghost rows, those of ghost_gap_keep rows or more.
 * Several runs covering more than half the rows anyway become one run of every row. */
static int ghost_runs(const unsigned char *has, int64_t nloc, int64_t *row0, int64_t *nrows)
{
    int64_t gap_at[SP_DIST_GHOST_RUNS - 1], gap_len[SP_DIST_GHOST_RUNS - 1];
    int64_t first = -1, last = -1, i, covered = 0;
    int ngaps = 0, k, j, runs;
    for (i = 0; i < nloc; i++) {
        if (!has[i]) continue;
        if (last >= 0 && i - last - 1 >= ghost_gap_keep) { /* a gap: keep the largest */
            int64_t len = i - last - 1;
            if (ngaps < SP_DIST_GHOST_RUNS - 1) {
                gap_at[ngaps] = last + 1;
                gap_len[ngaps++] = len;
            } else {
                for (k = 0, j = 1; j < ngaps; j++)
                    if (gap_len[j] < gap_len[k]) k = j;
                if (len > gap_len[k]) gap_at[k] = last + 1, gap_len[k] = len;
            }
        }
        if (first < 0) first = i;
        last = i;
    }
    if (first < 0) return 0;
    for (k = 1; k < ngaps; k++) /* by position */
        for (j = k; j > 0 && gap_at[j - 1] > gap_at[j]; j--) {
            int64_t t = gap_at[j];
            gap_at[j] = gap_at[j - 1], gap_at[j - 1] = t;
            t = gap_len[j], gap_len[j] = gap_len[j - 1], gap_len[j - 1] = t;
        }
    row0[0] = first;
    for (k = 0; k < ngaps; k++) {
        nrows[k] = gap_at[k] - row0[k];
        row0[k + 1] = gap_at[k] + gap_len[k];
    }
    nrows[ngaps] = last + 1 - row0[ngaps];
    runs = ngaps + 1;
    for (k = 0; k < runs; k++)
        covered += nrows[k];
    if (runs > 1 && covered > nloc / 2) runs = 1, row0[0] = 0, nrows[0] = nloc;
    return runs;
}

/* The ghost block gh (nloc x nghost) as row runs, each a prepared matrix. */
static sp_status_t build_ghost_runs(sp_dist_matrix_t *A, const sp_coo_t *gh,
                                    const sp_dist_options_t *o)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned char *has = NULL;
    int64_t row0[SP_DIST_GHOST_RUNS], nrows[SP_DIST_GHOST_RUNS], k;
    size_t vs = sp_value_size(gh->value_type);
    sp_coo_t *piece = NULL;
    int runs, r;
    SP_CALLOC(has, A->nloc > 0 ? A->nloc : 1);
    for (k = 0; k < gh->nnz; k++)
        has[gh->row[k]] = 1;
    runs = ghost_runs(has, A->nloc, row0, nrows);
    for (r = 0; r < runs; r++) {
        int64_t n = 0, lo = row0[r], hi = row0[r] + nrows[r];
        for (k = 0; k < gh->nnz; k++)
            n += gh->row[k] >= lo && gh->row[k] < hi;
        SP_TRY(sp_coo_create(nrows[r], gh->ncols, n, gh->value_type, &piece));
        for (k = 0; k < gh->nnz; k++) {
            if (gh->row[k] < lo || gh->row[k] >= hi) continue;
            piece->row[piece->nnz] = (int32_t)(gh->row[k] - lo);
            piece->col[piece->nnz] = gh->col[k];
            if (vs)
                memcpy((char *)piece->val + (size_t)piece->nnz * vs,
                       (const char *)gh->val + (size_t)k * vs, vs);
            piece->nnz++;
        }
        piece->flags = gh->flags;
        A->ghost_runs[r].row0 = lo;
        A->ghost_runs[r].nrows = nrows[r];
        SP_TRY(make_block(A, piece, o, &A->ghost_runs[r].m, &A->ghost_runs[r].format));
        A->nghost_runs = r + 1;
        sp_coo_free(piece);
        piece = NULL;
    }
done:
    sp_coo_free(piece);
    sp__free(has);
    return st;
}

/* Split the merged piece m into the local block (own columns renumbered), the ghost block
 * (columns renumbered into the ghost list) and the halo packing matrix; keep the host CSR. */
static sp_status_t build_blocks(sp_dist_matrix_t *A, const sp_coo_t *m,
                                const sp_dist_options_t *o)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_halo_t *h = &A->halo;
    sp_coo_t *loc = NULL, *gh = NULL, *pk = NULL, *ones = NULL;
    int64_t nghost = h->recv_off[h->nrecv_peers], nsend = h->send_off[h->nsend_peers], k;
    size_t vs = sp_value_size(m->value_type);
    ghost_rank_t gr = {NULL, NULL};
    SP_TRY(ghost_rank_build(h, nghost, A->n, &gr));
    SP_TRY(sp_coo_create(A->nloc, A->nloc, m->nnz - A->ghost_nnz, m->value_type, &loc));
    SP_TRY(sp_coo_create(A->nloc, nghost, A->ghost_nnz, m->value_type, &gh));
    SP_CALLOC(A->h_row_ptr, A->nloc + 1);
    SP_ALLOC(A->h_col, m->nnz);
    SP_CALLOC(A->h_diag, A->nloc);
    for (k = 0; k < m->nnz; k++) {
        int64_t c = m->col[k];
        int own = c >= A->rb && c < A->rb + A->nloc;
        sp_coo_t *t = own ? loc : gh;
        t->row[t->nnz] = m->row[k];
        t->col[t->nnz] = (int32_t)(own ? c - A->rb : ghost_index(&gr, c));
        if (vs)
            memcpy((char *)t->val + (size_t)t->nnz * vs, (const char *)m->val + (size_t)k * vs,
                   vs);
        t->nnz++;
        A->h_row_ptr[m->row[k] + 1]++;
        A->h_col[k] = m->col[k];
        if (c == A->rb + m->row[k] && vs)
            A->h_diag[m->row[k]] =
                vs == sizeof(double) ? ((const double *)m->val)[k] : ((const float *)m->val)[k];
    }
    for (k = 0; k < A->nloc; k++)
        A->h_row_ptr[k + 1] += A->h_row_ptr[k];
    sp__free(gr.bits);
    sp__free(gr.before);
    gr.bits = NULL;
    gr.before = NULL;
    A->local_nnz = loc->nnz;
    if (A->nloc > 0) SP_TRY(make_block(A, loc, o, &A->local, &A->local_format));
    if (gh->nnz > 0) SP_TRY(build_ghost_runs(A, gh, o));
    if (m->value_type != SP_VALUE_NONE) {
        SP_TRY(sp_vector_create(A->ctx, m->value_type, nsend, NULL, &A->sendbuf));
        SP_TRY(sp_vector_create(A->ctx, m->value_type, nghost, NULL, &A->ghostbuf));
    }
    if (m->value_type != SP_VALUE_NONE && nsend > 0) {
        /* packed = pack * x: row k picks x[send_idx[k]] (exact: one product by 1) */
        SP_TRY(sp_coo_create(nsend, A->nloc, nsend, SP_VALUE_NONE, &pk));
        for (k = 0; k < nsend; k++) {
            pk->row[k] = (int32_t)k;
            pk->col[k] = h->send_idx[k];
        }
        pk->nnz = nsend;
        SP_TRY(sp_coo_copy(pk, m->value_type, &ones));
        SP_TRY(make_block(A, ones, NULL, &A->pack, &A->pack_format));
    }
done:
    sp__free(gr.before);
    sp__free(gr.bits);
    sp_coo_free(ones);
    sp_coo_free(pk);
    sp_coo_free(gh);
    sp_coo_free(loc);
    return st;
}

sp_status_t sp_dist_matrix_create_local(sp_comm_t *comm, sp_context_t *ctx,
                                        const sp_coo_t *rows, int64_t row_begin,
                                        const sp_dist_options_t *options, sp_dist_matrix_t **A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_matrix_t *a = NULL;
    sp_coo_t *m = NULL;
    if (comm == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT,
                        "sp_dist_matrix_create_local: comm is NULL");
    SP_CHECK_ARG(ctx != NULL && rows != NULL && A != NULL,
                 "sp_dist_matrix_create_local: ctx, rows or A is NULL");
    if (comm->backend == SP_COMM_HOST && sp_context_kind(ctx) != SP_DEVICE_HOST)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_dist_matrix_create_local: a host communicator "
                "needs host contexts (the rank's context is a CUDA one)");
    if (comm->backend == SP_COMM_NCCL && sp_context_kind(ctx) != SP_DEVICE_CUDA)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "sp_dist_matrix_create_local: an NCCL communicator "
                                         "needs CUDA contexts");
    SP_CALLOC(a, 1);
    a->comm = comm;
    a->ctx = ctx;
    a->rb = row_begin;
    a->nloc = rows->nrows;
    a->value_type = rows->value_type;
    SP_ALLOC(a->row_begin, comm->size + 1);
    SP_TRY(agree_on_split(a, rows, row_begin));
    SP_TRY(sp_coo_copy(rows, rows->value_type, &m));
    if ((m->flags & (SP_COO_SORTED | SP_COO_MERGED)) != (SP_COO_SORTED | SP_COO_MERGED))
        SP_TRY(sp_coo_sort_merge(m, options ? options->matrix.duplicates : SP_DUP_SUM, NULL));
    a->nnz = m->nnz;
    SP_TRY(sp__comm_allreduce_host(comm, &a->nnz, 1, SP_COMM_I64, SP_COMM_SUM));
    SP_TRY(find_ghosts(a, m));
    SP_TRY(plan_sends(a));
    SP_TRY(build_blocks(a, m, options));
    *A = a;
    a = NULL;
done:
    sp_coo_free(m);
    sp_dist_matrix_destroy(a);
    return sp__comm_fail(comm, st);
}

sp_status_t sp_dist_matrix_create(sp_comm_t *comm, sp_context_t *ctx, const sp_coo_t *coo,
                                  const sp_dist_options_t *options, sp_dist_matrix_t **A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t *rb = NULL, k, n = 0;
    sp_coo_t *piece = NULL;
    size_t vs;
    int r;
    if (comm == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_dist_matrix_create: comm is NULL");
    SP_CHECK_ARG(coo != NULL, "sp_dist_matrix_create: coo is NULL");
    SP_CHECK_ARG(coo->nrows == coo->ncols,
                 "sp_dist_matrix_create: the matrix is %lld x %lld;"
                 " the distributed layer takes square matrices",
                 (long long)coo->nrows, (long long)coo->ncols);
    r = comm->rank;
    vs = sp_value_size(coo->value_type);
    SP_ALLOC(rb, comm->size + 1);
    SP_TRY(sp_dist_partition(coo, comm->size, rb));
    for (k = 0; k < coo->nnz; k++)
        n += coo->row[k] >= rb[r] && coo->row[k] < rb[r + 1];
    SP_TRY(sp_coo_create(rb[r + 1] - rb[r], coo->ncols, n, coo->value_type, &piece));
    for (k = 0; k < coo->nnz; k++) {
        if (coo->row[k] < rb[r] || coo->row[k] >= rb[r + 1]) continue;
        piece->row[piece->nnz] = (int32_t)(coo->row[k] - rb[r]);
        piece->col[piece->nnz] = coo->col[k];
        if (vs)
            memcpy((char *)piece->val + (size_t)piece->nnz * vs,
                   (const char *)coo->val + (size_t)k * vs, vs);
        piece->nnz++;
    }
    piece->flags = coo->flags & (SP_COO_SORTED | SP_COO_MERGED); /* rows taken in order */
    st = sp_dist_matrix_create_local(comm, ctx, piece, rb[r], options, A);
done:
    sp_coo_free(piece);
    sp__free(rb);
    return sp__comm_fail(comm, st);
}

sp_status_t sp_dist_matrix_info(const sp_dist_matrix_t *A, sp_dist_info_t *info)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(A != NULL && info != NULL, "sp_dist_matrix_info: A or info is NULL");
    memset(info, 0, sizeof *info);
    info->rank = A->comm->rank;
    info->nranks = A->comm->size;
    info->nrows = A->n;
    info->nnz = A->nnz;
    info->row_begin = A->rb;
    info->row_end = A->rb + A->nloc;
    info->local_nnz = A->local_nnz;
    info->ghost_nnz = A->ghost_nnz;
    info->halo_recv = A->halo.recv_off ? A->halo.recv_off[A->halo.nrecv_peers] : 0;
    info->halo_send = A->halo.send_off ? A->halo.send_off[A->halo.nsend_peers] : 0;
    info->recv_peers = A->halo.nrecv_peers;
    info->send_peers = A->halo.nsend_peers;
    info->value_type = A->value_type;
done:
    return st;
}
