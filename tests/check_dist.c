/* The distributed layer on the host-simulated communicator: P ranks as threads, P = 1, 2, 3,
 * 4 and 7 (check_gpu_dist.c builds this file again with SP_DIST_TEST_GPU: NCCL ranks on the
 * visible GPUs, CUDA contexts, the single CUDA context as reference). The communicator's
 * collectives against hand-computed results (sums in rank order, so every rank gets the same
 * bits); a rank that aborts, times out, fails an argument check or mismatches an exchange makes
 * every rank return an error (no hang); distributed SpMV, CG, PCG-Jacobi and BFS against the
 * single-context calls on matrices and graphs with ranks of no rows, a row owning every column,
 * empty rows and a disconnected graph; BFS also checked by the Graph500 validator. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_internal.h" /* sp__dist_bfs_set_route_own */
#include "sp_ref.h"
#include "testutil.h"
#ifdef SP_DIST_TEST_GPU
#include <cuda_runtime.h>
#endif

#define MAXP 8
/* The rank counts every test walks (main sets them: GPU builds take 1 and every GPU). */
static int rank_counts[MAXP] = {1, 2, 3, 4, 7};
static int ncounts = 5;
#define NCOUNTS ncounts
#ifdef SP_DIST_TEST_GPU
#define RANK_DEVICE SP_DEVICE_CUDA
#else
#define RANK_DEVICE SP_DEVICE_HOST
#endif

/* A context of the suite's kind: rank r's (a CUDA one on device r), or the single one. */
static sp_status_t test_context(int r, sp_context_t **ctx)
{
    sp_context_options_t o = {0};
    o.device = r;
    return sp_context_create(RANK_DEVICE, &o, ctx);
}

/* ---- the harness: one thread, host context and communicator per rank ---------------- */
typedef struct job job_t;
typedef sp_status_t (*rank_fn)(job_t *j, int rank, sp_comm_t *comm, sp_context_t *ctx);
struct job {
    int P;
    rank_fn fn;
    void *arg;
    sp_comm_t *comms[MAXP];
    sp_status_t st[MAXP];
    char msg[MAXP][512];
};
typedef struct rank_arg {
    job_t *j;
    int rank;
} rank_arg_t;

static void *rank_main(void *p)
{
    rank_arg_t *a = p;
    sp_context_t *ctx = NULL;
    sp_status_t st = test_context(a->rank, &ctx);
    if (st != SP_STATUS_SUCCESS) sp_comm_abort(a->j->comms[a->rank], "no context");
    if (st == SP_STATUS_SUCCESS) st = a->j->fn(a->j, a->rank, a->j->comms[a->rank], ctx);
    a->j->st[a->rank] = st;
    snprintf(a->j->msg[a->rank], sizeof a->j->msg[a->rank], "%s", sp_last_error());
    sp_context_destroy(ctx);
    return NULL;
}

/* Run fn on P ranks (timeout_s: the communicator's, 0: 60 s); the statuses are in j. */
static void run_ranks(job_t *j, int P, rank_fn fn, void *arg, double timeout_s)
{
    pthread_t t[MAXP];
    rank_arg_t a[MAXP];
    sp_comm_host_options_t o = {timeout_s > 0 ? timeout_s : 60.0};
    int r;
    memset(j, 0, sizeof *j);
    j->P = P;
    j->fn = fn;
    j->arg = arg;
#ifdef SP_DIST_TEST_GPU
    (void)o;
    ck_assert_ok(sp_comm_create_nccl_all(P, NULL, j->comms));
#else
    ck_assert_ok(sp_comm_create_host(P, &o, j->comms));
#endif
    for (r = 0; r < P; r++) {
        a[r].j = j;
        a[r].rank = r;
        ck_assert_int_eq(pthread_create(&t[r], NULL, rank_main, &a[r]), 0);
    }
    for (r = 0; r < P; r++)
        pthread_join(t[r], NULL);
    for (r = 0; r < P; r++)
        sp_comm_destroy(j->comms[r]);
}

static void assert_all_ok(const job_t *j)
{
    int r;
    for (r = 0; r < j->P; r++)
        ck_assert_msg(j->st[r] == SP_STATUS_SUCCESS, "P=%d rank %d: %s: %s", j->P, r,
                      sp_status_string(j->st[r]), j->msg[r]);
}

/* Every rank but `dead` returned SP_STATUS_DEVICE_ERROR with a message holding text. */
static void assert_all_failed(const job_t *j, int dead, const char *text)
{
    int r;
    for (r = 0; r < j->P; r++) {
        if (r == dead) continue;
        ck_assert_msg(j->st[r] == SP_STATUS_DEVICE_ERROR, "P=%d rank %d: %s: %s", j->P, r,
                      sp_status_string(j->st[r]), j->msg[r]);
        ck_assert_msg(strstr(j->msg[r], text) != NULL, "P=%d rank %d: \"%s\" lacks \"%s\"",
                      j->P, r, j->msg[r], text);
    }
}

/* ---- communicator ------------------------------------------------------------------ */
#ifndef SP_DIST_TEST_GPU
typedef struct coll_out {
    double sum[MAXP][3];
    int64_t max[MAXP][2];
    int64_t gathered[MAXP][MAXP];
    int64_t ring[MAXP][2];
} coll_out_t;

static double contribution(int r, int i)
{
    return i == 0 ? (r % 2 ? -1e16 : 1e16) + r : 0.1 * (r + 1) + i;
}

static sp_status_t collectives(job_t *j, int r, sp_comm_t *c, sp_context_t *ctx)
{
    sp_status_t st;
    coll_out_t *o = j->arg;
    int P = j->P, i, right = (r + 1) % P, left = (r + P - 1) % P;
    int64_t mine = 10 * r + 1, tome[2] = {-1, -1}, out[2] = {r, 100 + r};
    sp_comm_msg_t s[2] = {{right, 8, &out[0]}, {right, 8, &out[1]}};
    sp_comm_msg_t rv[2] = {{left, 8, &tome[0]}, {left, 8, &tome[1]}};
    (void)ctx;
    for (i = 0; i < 3; i++)
        o->sum[r][i] = contribution(r, i);
    o->max[r][0] = r == P / 2 ? 1000 : r;
    o->max[r][1] = -r;
    if ((st = sp_comm_allreduce(c, o->sum[r], 3, SP_COMM_F64, SP_COMM_SUM))) return st;
    if ((st = sp_comm_allreduce(c, o->max[r], 2, SP_COMM_I64, SP_COMM_MAX))) return st;
    if ((st = sp_comm_allgather(c, &mine, o->gathered[r], 8))) return st;
    if ((st = sp_comm_exchange(c, 2, s, 2, rv))) return st;
    o->ring[r][0] = tome[0];
    o->ring[r][1] = tome[1];
    if ((st = sp_comm_barrier(c))) return st;
    if (sp_comm_rank(c) != r || sp_comm_size(c) != P || sp_comm_backend(c) != SP_COMM_HOST)
        return SP_STATUS_INTERNAL_ERROR;
    return sp_comm_allreduce(c, NULL, 0, SP_COMM_F64, SP_COMM_SUM);
}

START_TEST(comm_collectives)
{
    int k, r, q, i;
    for (k = 0; k < NCOUNTS; k++) {
        int P = rank_counts[k];
        coll_out_t o;
        job_t j;
        double expect[3];
        run_ranks(&j, P, collectives, &o, 0);
        assert_all_ok(&j);
        for (i = 0; i < 3; i++) { /* in rank order, as documented */
            expect[i] = contribution(0, i);
            for (q = 1; q < P; q++)
                expect[i] += contribution(q, i);
        }
        for (r = 0; r < P; r++) {
            for (i = 0; i < 3; i++)
                ck_assert_msg(memcmp(&o.sum[r][i], &expect[i], sizeof(double)) == 0,
                              "P=%d rank %d sum %d: %.17g, expected %.17g", P, r, i,
                              o.sum[r][i], expect[i]);
            ck_assert_int_eq(o.max[r][0], P > 1 || r == 0 ? 1000 : 0);
            ck_assert_int_eq(o.max[r][1], 0);
            for (q = 0; q < P; q++)
                ck_assert_int_eq(o.gathered[r][q], 10 * q + 1);
            ck_assert_int_eq(o.ring[r][0], (r + P - 1) % P);
            ck_assert_int_eq(o.ring[r][1], 100 + (r + P - 1) % P);
        }
    }
}
END_TEST

START_TEST(comm_refusals)
{
    sp_comm_t *c[2];
    int64_t v = 1;
    sp_comm_msg_t bad = {5, 8, &v};
    sp_comm_host_options_t neg = {-1};
    ck_assert_status(sp_comm_create_host(0, NULL, c), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("nranks 0");
    ck_assert_status(sp_comm_create_host(2, &neg, c), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_comm_create_host(2, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_comm_allreduce(NULL, &v, 1, SP_COMM_I64, SP_COMM_SUM),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_ok(sp_comm_create_host(2, NULL, c));
    /* a refused argument aborts the group: the peer would wait for it otherwise */
    ck_assert_status(sp_comm_exchange(c[0], 1, &bad, 0, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("peer 5 of 2 ranks");
    ck_assert_status(sp_comm_barrier(c[1]), SP_STATUS_DEVICE_ERROR);
    ck_assert_error_has("rank 0 aborted");
    sp_comm_destroy(c[0]);
    sp_comm_destroy(c[1]);
    sp_comm_destroy(NULL);
    ck_assert_int_eq(sp_comm_rank(NULL), -1);
    ck_assert_int_eq(sp_comm_size(NULL), 0);
}
END_TEST

START_TEST(comm_nccl_not_built)
{
    sp_comm_t *c[1];
    sp_comm_nccl_id_t id;
    sp_status_t st = sp_comm_create_nccl_all(1, NULL, c);
    /* built with NCCL this needs a GPU: the device script covers that */
    if (st == SP_STATUS_NOT_COMPILED) {
        ck_assert_error_has("NCCL");
        ck_assert_status(sp_comm_nccl_unique_id(&id), SP_STATUS_NOT_COMPILED);
        ck_assert_status(sp_comm_create_nccl_rank(&id, 1, 0, 0, c), SP_STATUS_NOT_COMPILED);
        ck_assert_status(sp_comm_wrap_nccl(NULL, 0, c), SP_STATUS_NOT_COMPILED);
    } else if (st == SP_STATUS_SUCCESS) {
        sp_comm_destroy(c[0]);
    }
}
END_TEST

/* ---- failures: every rank returns, none hangs ------------------------------------- */
static sp_status_t abort_midway(job_t *j, int r, sp_comm_t *c, sp_context_t *ctx)
{
    sp_status_t st;
    double v = 1;
    int i;
    (void)ctx;
    if ((st = sp_comm_allreduce(c, &v, 1, SP_COMM_F64, SP_COMM_SUM))) return st;
    if (r == j->P / 2) {
        sp_comm_abort(c, "the test kills this rank");
        return SP_STATUS_INTERNAL_ERROR; /* this rank "died" */
    }
    for (i = 0; i < 5; i++)
        if ((st = sp_comm_allreduce(c, &v, 1, SP_COMM_F64, SP_COMM_SUM))) return st;
    return SP_STATUS_SUCCESS;
}

static sp_status_t silent_rank(job_t *j, int r, sp_comm_t *c, sp_context_t *ctx)
{
    (void)j;
    (void)ctx;
    if (r == 1) return SP_STATUS_SUCCESS; /* never comes to the barrier */
    return sp_comm_barrier(c);
}

static sp_status_t mismatch(job_t *j, int r, sp_comm_t *c, sp_context_t *ctx)
{
    double buf[2] = {1, 2};
    sp_comm_msg_t m = {1 - r, r == 0 ? 8 : 16, buf};
    (void)j;
    (void)ctx;
    return sp_comm_exchange(c, 1, &m, 1, &m);
}

START_TEST(failures_end_every_rank)
{
    job_t j;
    int k;
    char text[64];
    for (k = 1; k < NCOUNTS; k++) {
        run_ranks(&j, rank_counts[k], abort_midway, NULL, 0);
        ck_assert_int_eq(j.st[j.P / 2], SP_STATUS_INTERNAL_ERROR);
        snprintf(text, sizeof text, "rank %d aborted: the test kills this rank", j.P / 2);
        assert_all_failed(&j, j.P / 2, text);
    }
    run_ranks(&j, 3, silent_rank, NULL, 0.3);
    ck_assert_int_eq(j.st[1], SP_STATUS_SUCCESS);
    assert_all_failed(&j, 1, "timed out after 0.3 s");
    run_ranks(&j, 2, mismatch, NULL, 0);
    assert_all_failed(&j, -1, "expects");
}
END_TEST

#endif /* the host communicator's own tests */

#ifdef SP_DIST_TEST_GPU
/* ---- the NCCL communicator on device buffers ----------------------------------------- */
typedef struct dev_out {
    double sum[MAXP][2];
    int64_t max[MAXP], gathered[MAXP][MAXP], ring[MAXP];
} dev_out_t;

static sp_status_t device_collectives(job_t *j, int r, sp_comm_t *c, sp_context_t *ctx)
{
    dev_out_t *o = j->arg;
    int P = j->P, q;
    double h[2] = {r + 1.0, 2.0 * r};
    int64_t m = 10 * r + 1, out = r, in = -1, *d_i = NULL;
    double *d_f = NULL;
    sp_comm_msg_t s = {(r + 1) % P, 8, NULL}, v = {(r + P - 1) % P, 8, NULL};
    sp_status_t st = SP_STATUS_INTERNAL_ERROR;
    (void)ctx;
    if (cudaSetDevice(r) != cudaSuccess || cudaMalloc((void **)&d_f, 16) != cudaSuccess ||
        cudaMalloc((void **)&d_i, (size_t)(P + 3) * 8) != cudaSuccess)
        goto done;
    cudaMemcpy(d_f, h, 16, cudaMemcpyHostToDevice);
    cudaMemcpy(d_i, &m, 8, cudaMemcpyHostToDevice);
    cudaMemcpy(d_i + P + 1, &out, 8, cudaMemcpyHostToDevice);
    if ((st = sp_comm_allreduce(c, d_f, 2, SP_COMM_F64, SP_COMM_SUM))) goto done;
    if ((st = sp_comm_allgather(c, d_i, d_i + 1, 8))) goto done;
    s.ptr = d_i + P + 1;
    v.ptr = d_i + P + 2;
    if ((st = sp_comm_exchange(c, 1, &s, 1, &v))) goto done;
    if ((st = sp_comm_allreduce(c, d_i, 1, SP_COMM_I64, SP_COMM_MAX))) goto done;
    if ((st = sp_comm_barrier(c))) goto done;
    cudaMemcpy(o->sum[r], d_f, 16, cudaMemcpyDeviceToHost);
    cudaMemcpy(o->gathered[r], d_i + 1, (size_t)P * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(&o->max[r], d_i, 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(&in, d_i + P + 2, 8, cudaMemcpyDeviceToHost);
    o->ring[r] = in;
    /* then rank 0 aborts: every rank's next call fails (rank 0's own too) */
    if (r == 0)
        sp_comm_abort(c, "the test kills rank 0");
    else
        (void)sp_comm_barrier(c);
    for (q = 0; q < 2 && st == SP_STATUS_SUCCESS; q++)
        st = sp_comm_barrier(c);
    st = st == SP_STATUS_DEVICE_ERROR ? SP_STATUS_SUCCESS : SP_STATUS_INTERNAL_ERROR;
done:
    cudaFree(d_f);
    cudaFree(d_i);
    return st;
}

START_TEST(comm_device_collectives)
{
    int k, r, q;
    for (k = 0; k < NCOUNTS; k++) {
        int P = rank_counts[k];
        dev_out_t o;
        job_t j;
        run_ranks(&j, P, device_collectives, &o, 0);
        assert_all_ok(&j);
        for (r = 0; r < P; r++) {
            ck_assert_double_eq(o.sum[r][0], P * (P + 1) / 2.0);
            ck_assert_double_eq(o.sum[r][1], (double)P * (P - 1));
            ck_assert_int_eq(o.max[r], 10 * (P - 1) + 1);
            for (q = 0; q < P; q++)
                ck_assert_int_eq(o.gathered[r][q], 10 * q + 1);
            ck_assert_int_eq(o.ring[r], (r + P - 1) % P);
        }
    }
}
END_TEST
#endif

/* ---- test matrices ------------------------------------------------------------------ */
static sp_coo_t *random_matrix(int64_t n, int per_row, uint64_t seed)
{
    sp_coo_t *a = NULL;
    int64_t i, k;
    ck_assert_ok(sp_coo_create(n, n, n * (per_row + 1), SP_R_64F, &a));
    for (i = 0; i < n; i++) {
        int m = i % 7 == 3 ? 0 : (int)(sp_test_rand(&seed) % (uint64_t)per_row) + 1;
        for (k = 0; k < m; k++) { /* unsorted, with duplicates */
            a->row[a->nnz] = (int32_t)i;
            a->col[a->nnz] = (int32_t)(sp_test_rand(&seed) % (uint64_t)n);
            ((double *)a->val)[a->nnz++] = sp_test_uniform(&seed) - 0.5;
        }
    }
    return a;
}

/* Row 0 holds every column; a diagonal everywhere (symmetric positive definite). */
static sp_coo_t *arrow_matrix(int64_t n)
{
    sp_coo_t *a = NULL;
    int64_t i;
    ck_assert_ok(sp_coo_create(n, n, 3 * n, SP_R_64F, &a));
    for (i = 0; i < n; i++) {
        a->row[a->nnz] = (int32_t)i;
        a->col[a->nnz] = (int32_t)i;
        ((double *)a->val)[a->nnz++] = i == 0 ? (double)n : 2.0;
        if (i == 0) continue;
        a->row[a->nnz] = 0;
        a->col[a->nnz] = (int32_t)i;
        ((double *)a->val)[a->nnz++] = 0.5;
        a->row[a->nnz] = (int32_t)i;
        a->col[a->nnz] = 0;
        ((double *)a->val)[a->nnz++] = 0.5;
    }
    return a;
}

/* A band (i-1, i, i+1) and, on every 37th row, an entry n/2 rows away: on P ranks a
 * rank's ghost rows are its edge rows and a few lone rows between them (ghost runs). */
static sp_coo_t *band_far_matrix(int64_t n)
{
    sp_coo_t *a = NULL;
    int64_t i, d;
    ck_assert_ok(sp_coo_create(n, n, 4 * n, SP_R_64F, &a));
    for (i = 0; i < n; i++) {
        for (d = -1; d <= 1; d++) {
            if (i + d < 0 || i + d >= n) continue;
            a->row[a->nnz] = (int32_t)i;
            a->col[a->nnz] = (int32_t)(i + d);
            ((double *)a->val)[a->nnz++] = d == 0 ? 4.0 : -1.0 - 0.01 * (double)(i % 5);
        }
        if (i % 37 != 0) continue;
        a->row[a->nnz] = (int32_t)i;
        a->col[a->nnz] = (int32_t)((i + n / 2) % n);
        ((double *)a->val)[a->nnz++] = 0.25 + 0.001 * (double)i;
    }
    return a;
}

static sp_coo_t *tiny_matrix(void)
{
    const double d[9] = {4, -1, 0, -1, 4, -1, 0, -1, 4};
    return sp_test_dense_coo(3, d, SP_R_64F);
}

/* ---- distributed SpMV -------------------------------------------------------------- */
typedef struct spmv_case {
    const sp_coo_t *a;
    const double *x, *y0;
    double *y;     /* whole result; rank r writes its rows */
    int by_pieces; /* 1: sp_dist_matrix_create_local with equal row counts; 2: with the
                      rows of sp_dist_partition's split read from path by each rank */
    const char *path;                /* by_pieces 2: a Matrix Market file, or */
    const sp_edgelist_options_t *el; /* (not NULL) an edge list read with these */
    int kron;      /* 1, 2: sp_dist_gen_kronecker(KRON_SCALE, 4, 11), directed, undirected */
    sp_dist_info_t info[MAXP];
} spmv_case_t;
#define KRON_SCALE 9

/* This rank's rows [b, e) of a, as a piece (rows renumbered from 0, columns global). */
static sp_coo_t *piece_of(const sp_coo_t *a, int64_t b, int64_t e)
{
    sp_coo_t *p = NULL;
    size_t vs = sp_value_size(a->value_type);
    int64_t k;
    if (sp_coo_create(e - b, a->ncols, a->nnz, a->value_type, &p)) return NULL;
    for (k = 0; k < a->nnz; k++) {
        if (a->row[k] < b || a->row[k] >= e) continue;
        p->row[p->nnz] = (int32_t)(a->row[k] - b);
        p->col[p->nnz] = a->col[k];
        memcpy((char *)p->val + (size_t)p->nnz++ * vs, (const char *)a->val + (size_t)k * vs,
               vs);
    }
    return p;
}

/* A vector of type t on ctx holding h[0..n) (rounded to float for SP_R_32F), and back. */
static sp_status_t vector_of(sp_context_t *ctx, sp_value_type_t t, int64_t n, const double *h,
                             sp_vector_t **v)
{
    float *f = NULL;
    sp_status_t st;
    int64_t i;
    if (t == SP_R_64F) return sp_vector_create(ctx, t, n, h, v);
    if ((f = malloc((size_t)(n + 1) * sizeof *f)) == NULL) return SP_STATUS_ALLOC_FAILED;
    for (i = 0; i < n; i++)
        f[i] = (float)h[i];
    st = sp_vector_create(ctx, t, n, f, v);
    free(f);
    return st;
}

static sp_status_t vector_to(sp_context_t *ctx, sp_vector_t *v, double *h)
{
    int64_t i, n = sp_vector_length(v);
    float *f = NULL;
    sp_status_t st;
    if (sp_vector_value_type(v) == SP_R_64F) return sp_vector_copy_to_host(ctx, v, h);
    if ((f = malloc((size_t)(n + 1) * sizeof *f)) == NULL) return SP_STATUS_ALLOC_FAILED;
    st = sp_vector_copy_to_host(ctx, v, f);
    for (i = 0; i < n && st == SP_STATUS_SUCCESS; i++)
        h[i] = f[i];
    free(f);
    return st;
}

static sp_status_t create_dist(const spmv_case_t *c, int P, int r, sp_comm_t *comm,
                               sp_context_t *ctx, sp_dist_matrix_t **A)
{
    sp_status_t st;
    int64_t n = c->a->nrows, b = n * r / P, e = n * (r + 1) / P;
    sp_coo_t *p;
    if (c->kron)
        return sp_dist_gen_kronecker(comm, ctx, KRON_SCALE, 4, 11, SP_R_64F, c->kron == 2, NULL,
                                     A);
    if (!c->by_pieces) return sp_dist_matrix_create(comm, ctx, c->a, NULL, A);
    if (c->by_pieces == 2) { /* this rank's rows only, from the file */
        int64_t part[MAXP + 1];
        sp_mtx_options_t mo = {.nthreads = 1 + r % 2};
        if ((st = sp_dist_partition(c->a, P, part))) return st;
        b = part[r];
        e = part[r + 1];
        st = c->el ? sp_edgelist_read_rows(c->path, c->a->value_type, c->el, b, e, &p, NULL)
                   : sp_mtx_read_rows(c->path, c->a->value_type, &mo, b, e, &p);
        if (st) return st;
    } else if ((p = piece_of(c->a, b, e)) == NULL) {
        return SP_STATUS_ALLOC_FAILED;
    }
    st = sp_dist_matrix_create_local(comm, ctx, p, b, NULL, A);
    sp_coo_free(p);
    return st;
}

static sp_status_t spmv_rank(job_t *j, int r, sp_comm_t *comm, sp_context_t *ctx)
{
    spmv_case_t *c = j->arg;
    sp_dist_matrix_t *A = NULL;
    sp_vector_t *x = NULL, *y = NULL;
    sp_dist_info_t *in = &c->info[r];
    sp_status_t st = create_dist(c, j->P, r, comm, ctx, &A);
    int64_t nl;
    if (st) return st;
    if ((st = sp_dist_matrix_info(A, in))) goto done;
    nl = in->row_end - in->row_begin;
    if ((st = vector_of(ctx, c->a->value_type, nl, c->x + in->row_begin, &x))) goto done;
    if ((st = vector_of(ctx, c->a->value_type, nl, c->y0 + in->row_begin, &y))) goto done;
    if ((st = sp_dist_spmv(A, 2.0, x, -0.5, y))) goto done;
    /* twice: the plan is reused, and y keeps beta's part right */
    if ((st = sp_dist_spmv(A, 2.0, x, 0.0, y))) goto done;
    st = vector_to(ctx, y, c->y + in->row_begin);
done:
    sp_vector_destroy(x);
    sp_vector_destroy(y);
    sp_dist_matrix_destroy(A);
    return st;
}

/* kron: 0 (a distributed by sp_dist_matrix_create and by pieces), or 1, 2 (the matrix
 * made by sp_dist_gen_kronecker, directed or undirected; a: the single generator's).
 * path (not NULL): a is the whole read of it (el: an edge list read with those options),
 * distributed by sp_dist_matrix_create and by per-rank reads of the same split, which
 * must give the same blocks and halo. */
static void check_spmv_of(const char *name, const sp_coo_t *a, int kron, const char *path,
                          const sp_edgelist_options_t *el)
{
    int64_t n = a->nrows, i;
    double *x = malloc((size_t)(n + 1) * sizeof *x), *y0 = malloc((size_t)(n + 1) * sizeof *y0);
    double *ys = malloc((size_t)(n + 1) * sizeof *ys),
           *yd = malloc((size_t)(n + 1) * sizeof *yd);
    uint64_t seed = 7;
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_vector_t *vx = NULL, *vy = NULL;
    sp_matrix_info_t mi;
    double tol = a->value_type == SP_R_32F ? 1e-5 : 1e-12;
    int k, pieces, r;
    sp_dist_info_t whole[MAXP];
    for (i = 0; i < n; i++) {
        x[i] = sp_test_uniform(&seed) - 0.3;
        y0[i] = sp_test_uniform(&seed);
    }
    ck_assert_ok(test_context(0, &ctx));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_matrix_info(A, &mi));
    ck_assert_ok(vector_of(ctx, a->value_type, n, x, &vx));
    ck_assert_ok(vector_of(ctx, a->value_type, n, y0, &vy));
    ck_assert_ok(sp_spmv_vec(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 2.0, A, vx, 0.0, vy));
    ck_assert_ok(vector_to(ctx, vy, ys));
    for (k = 0; k < NCOUNTS; k++)
        for (pieces = 0; pieces < (kron ? 1 : 2); pieces++) {
            spmv_case_t c = {a, x, y0, yd, path && pieces ? 2 : pieces, path, el, kron, {{0}}};
            job_t j;
            int64_t halo = 0, rows = 0, nnz = 0;
            for (i = 0; i < n; i++)
                yd[i] = NAN;
            run_ranks(&j, rank_counts[k], spmv_rank, &c, 0);
            assert_all_ok(&j);
            for (i = 0; i < n; i++)
                ck_assert_msg(fabs(yd[i] - ys[i]) <= tol * (1.0 + fabs(ys[i])),
                              "%s P=%d pieces=%d row %lld: %.17g vs single %.17g", name, j.P,
                              pieces, (long long)i, yd[i], ys[i]);
            for (r = 0; r < j.P; r++) {
                rows += c.info[r].row_end - c.info[r].row_begin;
                nnz += c.info[r].local_nnz + c.info[r].ghost_nnz;
                halo += c.info[r].halo_recv - c.info[r].halo_send;
                ck_assert_int_eq(c.info[r].nnz, c.info[0].nnz);
            }
            ck_assert_int_eq(rows, n);
            ck_assert_int_eq(nnz, c.info[0].nnz);
            ck_assert_int_eq(c.info[0].nnz, mi.nnz); /* merged as the single context */
            ck_assert_int_eq(halo, 0);               /* every entry received was sent */
            if (j.P == 1) ck_assert_int_eq(c.info[0].halo_recv, 0);
            for (r = 0; path && r < j.P; r++) {
                const sp_dist_info_t *u = &whole[r], *v = &c.info[r];
                if (!pieces) {
                    whole[r] = *v;
                    continue;
                }
                ck_assert_msg(u->row_begin == v->row_begin && u->row_end == v->row_end &&
                                  u->local_nnz == v->local_nnz &&
                                  u->ghost_nnz == v->ghost_nnz &&
                                  u->halo_recv == v->halo_recv && u->halo_send == v->halo_send,
                              "%s P=%d rank %d: the per-rank read differs from the whole's",
                              name, j.P, r);
            }
        }
    sp_vector_destroy(vx);
    sp_vector_destroy(vy);
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    free(x);
    free(y0);
    free(ys);
    free(yd);
}

static void check_spmv(const char *name, const sp_coo_t *a, int kron)
{
    check_spmv_of(name, a, kron, NULL, NULL);
}

START_TEST(spmv_matches_single)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(5, SP_R_64F, &a));
    check_spmv("poisson3d(5)", a, 0);
    sp_coo_free(a);
    a = random_matrix(301, 9, 42);
    check_spmv("random(301)", a, 0);
    sp_coo_free(a);
    a = arrow_matrix(60);
    check_spmv("arrow(60)", a, 0);
    sp_coo_free(a);
    a = tiny_matrix(); /* 3 rows: P = 4 and 7 leave ranks without rows */
    check_spmv("tiny(3)", a, 0);
    sp_coo_free(a);
    ck_assert_ok(sp_coo_create(10, 10, 0, SP_R_64F, &a)); /* no entries at all */
    check_spmv("empty(10)", a, 0);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d(5, SP_R_32F, &a)); /* float values and halo */
    check_spmv("poisson3d(5) float", a, 0);
    sp_coo_free(a);
}
END_TEST

/* The ghost block cut into row runs (any gap splits, here): each run's product lands on its
 * rows of y only, the others' untouched; the same results as one run of every row. */
START_TEST(spmv_ghost_runs_match_single)
{
    sp_coo_t *a = NULL;
    sp__dist_set_ghost_gap(1);
    a = band_far_matrix(400); /* up to 8 runs a rank, a few rows each */
    check_spmv("band_far(400) runs", a, 0);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d(5, SP_R_64F, &a)); /* a middle rank: a run at each end */
    check_spmv("poisson3d(5) runs", a, 0);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d(5, SP_R_32F, &a));
    check_spmv("poisson3d(5) float runs", a, 0);
    sp_coo_free(a);
    a = random_matrix(301, 9, 42); /* scattered: one run of every row */
    check_spmv("random(301) runs", a, 0);
    sp_coo_free(a);
    sp__dist_set_ghost_gap(0);
}
END_TEST

/* The distributed generator makes the single generator's matrix (entries, values and the
 * merging of duplicates): the same products, the same entry count. */
START_TEST(gen_kronecker_matches_single)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_kronecker(KRON_SCALE, 4, 11, SP_R_64F, &a));
    check_spmv("kronecker directed", a, 1);
    ck_assert_ok(sp_coo_symmetrize(a, 1));
    check_spmv("kronecker undirected", a, 2);
    sp_coo_free(a);
}
END_TEST

START_TEST(partition_by_entries)
{
    sp_coo_t *a = arrow_matrix(60);
    int64_t rb[5];
    ck_assert_ok(sp_dist_partition(a, 4, rb));
    /* row 0 holds 60 of 178 entries: part 0 is row 0 alone, the rest split the others */
    ck_assert_int_eq(rb[0], 0);
    ck_assert_int_eq(rb[1], 1);
    ck_assert_int_eq(rb[4], 60);
    ck_assert(rb[2] > 1 && rb[3] > rb[2] && rb[3] < 60);
    ck_assert_status(sp_dist_partition(a, 0, rb), SP_STATUS_INVALID_ARGUMENT);
    sp_coo_free(a);
}
END_TEST

/* ---- per-part reads ------------------------------------------------------------------ */

/* Each rank reads only its rows of a file (sp_mtx_read_rows, sp_edgelist_read_rows): the
 * same blocks, halo and products as the whole read distributed by sp_dist_matrix_create. */
START_TEST(file_parts_match_whole)
{
    sp_coo_t *a = NULL, *w = NULL;
    sp_mtx_write_options_t sym = {.symmetric = 1}, gen = {0};
    sp_edgelist_options_t el = {.undirected = 1, .nthreads = 2};
    char *mtx = sp_test_temp_path("poisson.mtx"), *rnd = sp_test_temp_path("random.mtx");
    char *edges = sp_test_temp_path("kron.el");
    FILE *f;
    int64_t k;
    ck_assert_ok(sp_gen_poisson3d(5, SP_R_64F, &a)); /* symmetric: mirrors land in parts */
    ck_assert_ok(sp_mtx_write(mtx, a, &sym));
    sp_coo_free(a);
    ck_assert_ok(sp_mtx_read(mtx, SP_R_64F, NULL, &w));
    check_spmv_of("poisson3d(5) file", w, 0, mtx, NULL);
    sp_coo_free(w);
    a = random_matrix(301, 9, 42); /* general, empty rows, duplicates */
    ck_assert_ok(sp_mtx_write(rnd, a, &gen));
    sp_coo_free(a);
    ck_assert_ok(sp_mtx_read(rnd, SP_R_64F, NULL, &w));
    check_spmv_of("random(301) file", w, 0, rnd, NULL);
    sp_coo_free(w);
    ck_assert_ok(sp_gen_kronecker(7, 4, 3, SP_VALUE_NONE, &a)); /* an undirected edge list */
    ck_assert((f = fopen(edges, "w")) != NULL);
    fprintf(f, "# kronecker(7)\n");
    for (k = 0; k < a->nnz; k++)
        fprintf(f, "%d\t%d\n", a->row[k], a->col[k]);
    ck_assert_int_eq(fclose(f), 0);
    el.nvertices = a->nrows;
    sp_coo_free(a);
    ck_assert_ok(sp_edgelist_read(edges, SP_R_64F, &el, &w, NULL));
    check_spmv_of("kronecker(7) edge list", w, 0, edges, &el);
    sp_coo_free(w);
}
END_TEST

static int cmp_entry(const void *x, const void *y)
{
    const double *a = x, *b = y;
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The entries of a (rows moved by shift) as sorted (row, col, value) triples appended at
 * t + 3 * *n. */
static void add_entries(const sp_coo_t *a, int64_t shift, double *t, int64_t *n)
{
    for (int64_t k = 0; k < a->nnz; k++, (*n)++) {
        t[3 * *n] = (double)(a->row[k] + shift);
        t[3 * *n + 1] = a->col[k];
        t[3 * *n + 2] = a->value_type == SP_R_64F ? ((const double *)a->val)[k] : 0.0;
    }
}

#ifndef SP_DIST_TEST_GPU
/* path read whole, then in P parts of equal rows (one part over every row for P = 1) on
 * 1 and 2 threads with 64-byte chunks: the parts hold the whole's entries, each once. */
static void check_parts(const char *path, const sp_edgelist_options_t *el, sp_value_type_t vt)
{
    static const int counts[4] = {1, 2, 3, 7};
    sp_coo_t *whole = NULL, *part = NULL;
    sp_mtx_options_t mo = {.complex_mode = SP_COMPLEX_REAL_PART};
    sp_edgelist_options_t eo = el ? *el : (sp_edgelist_options_t){0};
    setenv("SP_TEST_CHUNK_BYTES", "64", 1);
    ck_assert_ok(el ? sp_edgelist_read(path, vt, el, &whole, NULL)
                    : sp_mtx_read(path, vt, &mo, &whole));
    int64_t n = whole->nrows, nw = 0;
    double *tw = malloc((size_t)(3 * whole->nnz + 3) * sizeof *tw);
    double *tp = malloc((size_t)(3 * whole->nnz + 3) * sizeof *tp);
    add_entries(whole, 0, tw, &nw);
    qsort(tw, (size_t)nw, 3 * sizeof *tw, cmp_entry);
    for (int th = 1; th <= 2; th++)
        for (int c = 0; c < 4; c++) {
            int64_t np = 0;
            mo.nthreads = eo.nthreads = th;
            for (int r = 0; r < counts[c]; r++) {
                int64_t b = n * r / counts[c], e = n * (r + 1) / counts[c];
                ck_assert_ok(el ? sp_edgelist_read_rows(path, vt, &eo, b, e, &part, NULL)
                                : sp_mtx_read_rows(path, vt, &mo, b, e, &part));
                ck_assert_int_eq(part->nrows, e - b);
                ck_assert_int_eq(part->ncols, whole->ncols);
                ck_assert_msg(np + part->nnz <= nw, "%s: parts hold more than the whole", path);
                for (int64_t k = 0; k < part->nnz; k++)
                    ck_assert(part->row[k] >= 0 && part->row[k] < e - b);
                add_entries(part, b, tp, &np);
                sp_coo_free(part);
                part = NULL;
            }
            qsort(tp, (size_t)np, 3 * sizeof *tp, cmp_entry);
            ck_assert_msg(np == nw && memcmp(tp, tw, (size_t)(3 * nw) * sizeof *tw) == 0,
                          "%s: %d parts on %d threads: %lld entries, whole %lld", path,
                          counts[c], th, (long long)np, (long long)nw);
        }
    unsetenv("SP_TEST_CHUNK_BYTES");
    free(tw);
    free(tp);
    sp_coo_free(whole);
}

START_TEST(read_rows_cover_the_file)
{
    static const char *mtx[] = {"good_symmetric.mtx", "good_skew.mtx", "good_hermitian.mtx",
                                "good_array_general.mtx", "good_array_symmetric.mtx",
                                "good_array_skew.mtx", "good_rect.mtx", "good_empty.mtx",
                                "good_tricky.mtx", "good_integer_big.mtx", "good_gzip.mtx.gz",
                                "good_no_newline.mtx"};
    static const char *els[] = {"tiny.el", "tiny.gr", "tiny.graph", "weighted.graph",
                                "weighted.wel", "isolated.graph"};
    char rel[256];
    sp_edgelist_options_t plain = {0}, und = {.undirected = 1, .drop_self_loops = 1};
    for (size_t i = 0; i < sizeof mtx / sizeof *mtx; i++) {
        snprintf(rel, sizeof rel, "tests/fixtures/mtx/%s", mtx[i]);
        check_parts(sp_test_path(rel), NULL, SP_R_64F);
        check_parts(sp_test_path(rel), NULL, SP_VALUE_NONE);
    }
    for (size_t i = 0; i < sizeof els / sizeof *els; i++) {
        snprintf(rel, sizeof rel, "tests/fixtures/edgelist/%s", els[i]);
        check_parts(sp_test_path(rel), &plain, SP_R_64F);
        check_parts(sp_test_path(rel), &und, SP_R_64F);
    }
}
END_TEST

/* A bad range is refused naming the argument; an error in the file names file:line
 * whichever rows the reader keeps. */
/* A Kronecker graph whose mean part would not fit a rank's 32-bit offsets is refused at
 * once on every rank, with the counts and the way out (more ranks), before any edge is
 * drawn: scale 27, edge factor 16, undirected is 2^32 entries, 2^31 a rank on two. */
static sp_status_t kron_too_big_rank(job_t *j, int r, sp_comm_t *comm, sp_context_t *ctx)
{
    sp_dist_matrix_t *G = NULL;
    sp_status_t st;
    (void)j;
    (void)r;
    st = sp_dist_gen_kronecker(comm, ctx, 27, 16, 1, SP_VALUE_NONE, 1, NULL, &G);
    sp_dist_matrix_destroy(G);
    return st;
}

START_TEST(gen_kronecker_refuses_big_parts)
{
    for (int P = 1; P <= 2; P++) {
        job_t j;
        run_ranks(&j, P, kron_too_big_rank, NULL, 0);
        for (int r = 0; r < P; r++) {
            ck_assert_int_eq(j.st[r], SP_STATUS_NOT_SUPPORTED);
            ck_assert_msg(strstr(j.msg[r], "4294967296 entries") &&
                              strstr(j.msg[r], "use more ranks"),
                          "rank %d: %s", r, j.msg[r]);
        }
    }
}
END_TEST

START_TEST(read_rows_refusals)
{
    const char *sym = sp_test_path("tests/fixtures/mtx/good_symmetric.mtx");
    const char *el = sp_test_path("tests/fixtures/edgelist/tiny.el");
    const char *bad = sp_test_path("tests/fixtures/mtx/bad_row_beyond.mtx");
    sp_mtx_options_t keep = {.keep_symmetric = 1};
    sp_edgelist_options_t compact = {.compact_ids = 1};
    sp_coo_t *a = NULL;
    ck_assert_status(sp_mtx_read_rows(sym, SP_R_64F, NULL, -1, 2, &a),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert(strstr(sp_last_error(), "sp_mtx_read_rows") && strstr(sp_last_error(), "row_begin -1"));
    ck_assert_status(sp_mtx_read_rows(sym, SP_R_64F, NULL, 3, 2, &a),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert(strstr(sp_last_error(), "row_end 2"));
    ck_assert_status(sp_mtx_read_rows(sym, SP_R_64F, NULL, 0, 1000000, &a),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert(strstr(sp_last_error(), "row_end 1000000 beyond") &&
              strstr(sp_last_error(), "good_symmetric.mtx"));
    ck_assert_status(sp_mtx_read_rows(sym, SP_R_64F, &keep, 0, 1, &a),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert(strstr(sp_last_error(), "keep_symmetric"));
    ck_assert_status(sp_edgelist_read_rows(el, SP_R_64F, NULL, 2, 1, &a, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert(strstr(sp_last_error(), "sp_edgelist_read_rows") && strstr(sp_last_error(), "row_end 1"));
    ck_assert_status(sp_edgelist_read_rows(el, SP_R_64F, NULL, 0, 1000000, &a, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert(strstr(sp_last_error(), "row_end 1000000 beyond") &&
              strstr(sp_last_error(), "tiny.el"));
    ck_assert_status(sp_edgelist_read_rows(el, SP_R_64F, &compact, 0, 1, &a, NULL),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert(strstr(sp_last_error(), "compact_ids"));
    ck_assert_status(sp_mtx_read_rows(NULL, SP_R_64F, NULL, 0, 1, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_mtx_read_rows(bad, SP_R_64F, NULL, 0, 1, &a), SP_STATUS_PARSE_ERROR);
    ck_assert_msg(strstr(sp_last_error(), "bad_row_beyond.mtx:"), "%s", sp_last_error());
    ck_assert(a == NULL);
}
END_TEST
#endif /* the readers' own tests */

/* ---- the split from the file alone (sp_dist_partition_file) ------------------------- */
/* (also on NCCL ranks: its collectives are staged through the device) */

typedef struct pfile {
    const char *path;
    const sp_edgelist_options_t *el; /* NULL: Matrix Market */
    int64_t nbuckets;
    int64_t rb[MAXP][MAXP + 1];      /* every rank's split */
    sp_coo_t *part[MAXP];            /* every rank's rows read with it */
} pfile_t;

static sp_status_t pfile_rank(job_t *j, int rank, sp_comm_t *comm, sp_context_t *ctx)
{
    pfile_t *p = j->arg;
    sp_mtx_options_t mo = {.nthreads = 2};
    sp_dist_file_options_t o = {.edgelist = p->el != NULL, .mtx = &mo,
                                .edgelist_options = p->el, .nbuckets = p->nbuckets};
    int64_t *rb = p->rb[rank];
    (void)ctx;
    sp_status_t st = sp_dist_partition_file(comm, p->path, &o, rb);
    if (st != SP_STATUS_SUCCESS) return st;
    return p->el ? sp_edgelist_read_rows(p->path, SP_R_64F, p->el, rb[rank], rb[rank + 1],
                                         &p->part[rank], NULL)
                 : sp_mtx_read_rows(p->path, SP_R_64F, &mo, rb[rank], rb[rank + 1],
                                    &p->part[rank]);
}

/* The entries of the largest bucket of 2^k rows (k the least with nrows in B buckets). */
static int64_t largest_bucket(const sp_coo_t *a, int64_t B)
{
    int k = 0;
    while (a->nrows > 0 && ((a->nrows - 1) >> k) >= B) k++;
    int64_t *c = calloc((size_t)B, sizeof *c), top = 0;
    for (int64_t e = 0; e < a->nnz; e++) c[a->row[e] >> k]++;
    for (int64_t b = 0; b < B; b++) top = c[b] > top ? c[b] : top;
    free(c);
    return top;
}

/* On P = 1, 2, 3, 4, 7 ranks (chunks of 128 bytes, so every rank counts a share): every
 * rank gets the same split; with one row per bucket it is sp_dist_partition's of the whole,
 * else each part starts within one bucket of its share; the parts read with it hold the
 * whole's entries, each once. */
static void check_partition_file(const char *path, const sp_edgelist_options_t *el,
                                 int64_t nbuckets)
{
    sp_coo_t *whole = NULL;
    sp_mtx_options_t mo = {0};
    ck_assert_ok(el ? sp_edgelist_read(path, SP_R_64F, el, &whole, NULL)
                    : sp_mtx_read(path, SP_R_64F, &mo, &whole));
    int64_t nw = 0, *cum = calloc((size_t)whole->nrows + 1, sizeof *cum);
    double *tw = malloc((size_t)(3 * whole->nnz + 3) * sizeof *tw);
    double *tp = malloc((size_t)(3 * whole->nnz + 3) * sizeof *tp);
    add_entries(whole, 0, tw, &nw);
    qsort(tw, (size_t)nw, 3 * sizeof *tw, cmp_entry);
    for (int64_t k = 0; k < whole->nnz; k++) cum[whole->row[k] + 1]++;
    for (int64_t i = 0; i < whole->nrows; i++) cum[i + 1] += cum[i];
    setenv("SP_TEST_CHUNK_BYTES", "128", 1);
    for (int c = 0; c < NCOUNTS; c++) {
        int P = rank_counts[c];
        int64_t B = nbuckets > 0 ? nbuckets : 64 * (int64_t)P, want[MAXP + 1], np = 0;
        pfile_t p = {.path = path, .el = el, .nbuckets = nbuckets};
        job_t j;
        run_ranks(&j, P, pfile_rank, &p, 0);
        assert_all_ok(&j);
        ck_assert_ok(sp_dist_partition(whole, P, want));
        int64_t slack = largest_bucket(whole, B);
        for (int r = 0; r < P; r++) {
            ck_assert_msg(memcmp(p.rb[r], p.rb[0], (size_t)(P + 1) * sizeof(int64_t)) == 0,
                          "%s P=%d: rank %d's split differs from rank 0's", path, P, r);
            int64_t target = (whole->nnz / P) * r + (whole->nnz % P) * r / P;
            int64_t before = cum[p.rb[0][r]];
            if (whole->nrows <= B)
                ck_assert_msg(p.rb[0][r] == want[r], "%s P=%d: part %d starts at %lld, "
                              "sp_dist_partition %lld", path, P, r, (long long)p.rb[0][r],
                              (long long)want[r]);
            else if (p.rb[0][r] < whole->nrows)
                ck_assert_msg(before >= target && before < target + slack + (target == 0),
                              "%s P=%d: part %d starts after %lld entries, share %lld, "
                              "bucket %lld", path, P, r, (long long)before,
                              (long long)target, (long long)slack);
            add_entries(p.part[r], p.rb[0][r], tp, &np);
            sp_coo_free(p.part[r]);
        }
        ck_assert_int_eq(p.rb[0][P], whole->nrows);
        qsort(tp, (size_t)np, 3 * sizeof *tp, cmp_entry);
        ck_assert_msg(np == nw && memcmp(tp, tw, (size_t)(3 * nw) * sizeof *tw) == 0,
                      "%s P=%d: the parts hold %lld entries, the whole %lld", path, P,
                      (long long)np, (long long)nw);
    }
    unsetenv("SP_TEST_CHUNK_BYTES");
    free(cum);
    free(tw);
    free(tp);
    sp_coo_free(whole);
}

START_TEST(partition_file_matches_whole)
{
    static const char *mtx[] = {"west0067_jumbled.mtx", "1138_bus.mtx", "Erdos971.mtx",
                                "karate.mtx", "BentPipe2D100.mtx", "skew_fp64.mtx",
                                "gko_text_2d.mtx"};
    char rel[256];
    sp_coo_t *a = NULL;
    sp_edgelist_options_t und = {.undirected = 1, .nthreads = 2}, dir = {.nthreads = 2};
    char *edges = sp_test_temp_path("kron-split.el");
    FILE *f;
    for (size_t i = 0; i < sizeof mtx / sizeof *mtx; i++) {
        snprintf(rel, sizeof rel, "datasets/mtx/%s", mtx[i]);
        check_partition_file(sp_test_path(rel), NULL, 0);          /* 64 P buckets */
        check_partition_file(sp_test_path(rel), NULL, 1 << 14);    /* a row each (most) */
    }
    /* an edge list whose vertex count only the whole file knows (ids up to 2^8) */
    ck_assert_ok(sp_gen_kronecker(8, 4, 5, SP_VALUE_NONE, &a));
    ck_assert((f = fopen(edges, "w")) != NULL);
    fprintf(f, "# kronecker(8)\n");
    for (int64_t k = 0; k < a->nnz; k++)
        fprintf(f, "%d %d\n", a->row[k], a->col[k]);
    ck_assert_int_eq(fclose(f), 0);
    sp_coo_free(a);
    check_partition_file(edges, &und, 0);
    check_partition_file(edges, &und, 1 << 10);
    check_partition_file(edges, &dir, 0);
    check_partition_file(edges, &dir, 1 << 10);
    check_partition_file(sp_test_path("tests/fixtures/edgelist/tiny.el"), &und, 0);
    /* counted by rank 0 alone: METIS (vertex lines), gzip (no middle to enter), arrays */
    check_partition_file(sp_test_path("tests/fixtures/edgelist/tiny.graph"), &dir, 0);
    check_partition_file(sp_test_path("tests/fixtures/edgelist/isolated.graph"), &dir, 0);
    check_partition_file(sp_test_path("tests/fixtures/edgelist/tiny.gr"), &und, 0);
    static const char *fix[] = {"good_gzip.mtx.gz", "good_array_symmetric.mtx",
                                "good_rect.mtx", "good_empty.mtx", "good_no_newline.mtx"};
    for (size_t i = 0; i < sizeof fix / sizeof *fix; i++) {
        snprintf(rel, sizeof rel, "tests/fixtures/mtx/%s", fix[i]);
        check_partition_file(sp_test_path(rel), NULL, 0);
    }
}
END_TEST

static void write_text(const char *path, const char *head, int64_t lines, int64_t bad_at)
{
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs(head, f);
    for (int64_t k = 0; k < lines; k++) {
        if (k == bad_at) fputs("7 x 1.0\n", f);
        else fprintf(f, "%lld %lld 1.5\n", (long long)(k % 50 + 1), (long long)(k * 7 % 50 + 1));
    }
    ck_assert_int_eq(fclose(f), 0);
}

/* A bad line in any rank's share, or fewer entries than declared, ends every rank with the
 * same error (no hang); the communicator is not aborted (a later collective works). */
static sp_status_t pfile_then_barrier(job_t *j, int rank, sp_comm_t *comm, sp_context_t *ctx)
{
    sp_status_t st = pfile_rank(j, rank, comm, ctx);
    if (st == SP_STATUS_SUCCESS) return SP_STATUS_INTERNAL_ERROR;
    char why[512];
    snprintf(why, sizeof why, "%s", sp_last_error());
    if (sp_comm_barrier(comm) != SP_STATUS_SUCCESS) return SP_STATUS_INTERNAL_ERROR;
    return SP_ERROR(st, "%s", why);
}

START_TEST(partition_file_errors_reach_every_rank)
{
    char *bad = sp_test_temp_path("split-bad.mtx"), *short_ = sp_test_temp_path("split-short.mtx");
    const char *head = "%%MatrixMarket matrix coordinate real general\n50 50 400\n";
    write_text(bad, head, 400, 390); /* line 393: the last rank's share */
    write_text(short_, head, 399, -1);
    setenv("SP_TEST_CHUNK_BYTES", "128", 1);
    for (int c = 0; c < NCOUNTS; c++) {
        int P = rank_counts[c];
        pfile_t p = {.path = bad};
        job_t j;
        run_ranks(&j, P, pfile_then_barrier, &p, 0);
        for (int r = 0; r < P; r++) {
            ck_assert_msg(j.st[r] == SP_STATUS_PARSE_ERROR, "P=%d rank %d: %s: %s", P, r,
                          sp_status_string(j.st[r]), j.msg[r]);
            ck_assert_msg(strstr(j.msg[r], "split-bad.mtx:393:") && strstr(j.msg[r], "rank "),
                          "P=%d rank %d: %s", P, r, j.msg[r]);
        }
        p.path = short_;
        run_ranks(&j, P, pfile_then_barrier, &p, 0);
        for (int r = 0; r < P; r++)
            ck_assert_msg(j.st[r] == SP_STATUS_PARSE_ERROR && strstr(j.msg[r], "399 entries"),
                          "P=%d rank %d: %s: %s", P, r, sp_status_string(j.st[r]), j.msg[r]);
    }
    unsetenv("SP_TEST_CHUNK_BYTES");
    int64_t rb[2];
    ck_assert_status(sp_dist_partition_file(NULL, bad, NULL, rb), SP_STATUS_INVALID_ARGUMENT);
}
END_TEST

/* ---- distributed CG and PCG-Jacobi ------------------------------------------------ */
typedef struct cg_case {
    const sp_coo_t *a;
    sp_solver_type_t type;
    double *x; /* whole solution */
    sp_solver_result_t res[MAXP];
} cg_case_t;

/* a distributed on this rank (*in its rows), b = 1 and x there, of a's type; the caller
 * destroys what was made, on failure too. */
static sp_status_t solve_setup(sp_comm_t *comm, sp_context_t *ctx, const sp_coo_t *a,
                               sp_dist_matrix_t **A, sp_dist_info_t *in, sp_vector_t **b,
                               sp_vector_t **x)
{
    sp_status_t st = sp_dist_matrix_create(comm, ctx, a, NULL, A);
    int64_t nl;
    if (st || (st = sp_dist_matrix_info(*A, in))) return st;
    nl = in->row_end - in->row_begin;
    if ((st = sp_vector_create(ctx, a->value_type, nl, NULL, b))) return st;
    if ((st = sp_vector_create(ctx, a->value_type, nl, NULL, x))) return st;
    return sp_vector_fill(ctx, *b, 1.0);
}

static sp_status_t cg_rank(job_t *j, int r, sp_comm_t *comm, sp_context_t *ctx)
{
    cg_case_t *c = j->arg;
    sp_dist_matrix_t *A = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_dist_info_t in;
    sp_solver_options_t o = {.rtol = c->a->value_type == SP_R_32F ? 1e-5 : 1e-10};
    sp_status_t st = solve_setup(comm, ctx, c->a, &A, &in, &b, &x);
    if (st) goto done;
    if ((st = sp_dist_solve(A, c->type, &o, b, x, &c->res[r]))) goto done;
    st = vector_to(ctx, x, c->x + in.row_begin);
done:
    sp_vector_destroy(b);
    sp_vector_destroy(x);
    sp_dist_matrix_destroy(A);
    (void)r;
    return st;
}

static void check_cg(const char *name, const sp_coo_t *a, sp_solver_type_t type)
{
    int64_t n = a->nrows, i;
    double *xs = malloc((size_t)n * sizeof *xs), *xd = malloc((size_t)n * sizeof *xd);
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_solver_t *s = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_value_type_t t = a->value_type;
    /* float: a looser stop and x; iterations within one of one context's all the same */
    double rtol = t == SP_R_32F ? 1e-5 : 1e-10, xtol = t == SP_R_32F ? 1e-3 : 1e-7;
    sp_solver_options_t o = {.rtol = rtol};
    sp_solver_result_t single;
    int k, r;
    ck_assert_ok(test_context(0, &ctx));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_solver_create(ctx, type, &s));
    ck_assert_ok(sp_solver_set_options(s, &o));
    ck_assert_ok(sp_solver_setup(s, A));
    ck_assert_ok(sp_vector_create(ctx, t, n, NULL, &b));
    ck_assert_ok(sp_vector_create(ctx, t, n, NULL, &x));
    ck_assert_ok(sp_vector_fill(ctx, b, 1.0));
    ck_assert_ok(sp_solver_solve(s, b, x));
    ck_assert_ok(sp_solver_result(s, &single));
    ck_assert_int_eq(single.status, SP_SOLVER_CONVERGED);
    ck_assert_ok(vector_to(ctx, x, xs));
    for (k = 0; k < NCOUNTS; k++) {
        cg_case_t c = {a, type, xd, {{0}}};
        job_t j;
        run_ranks(&j, rank_counts[k], cg_rank, &c, 0);
        assert_all_ok(&j);
        for (r = 0; r < j.P; r++) {
            ck_assert_int_eq(c.res[r].status, SP_SOLVER_CONVERGED);
            ck_assert_msg(llabs(c.res[r].iterations - single.iterations) <= 1,
                          "%s P=%d: %lld iterations, single context %lld", name, j.P,
                          (long long)c.res[r].iterations, (long long)single.iterations);
            ck_assert_int_eq(c.res[r].iterations, c.res[0].iterations);
            ck_assert_msg(c.res[r].relative_residual <= 10 * rtol, "%s P=%d: residual %g", name,
                          j.P, c.res[r].relative_residual);
        }
        for (i = 0; i < n; i++)
            ck_assert_msg(fabs(xd[i] - xs[i]) <= xtol * (1.0 + fabs(xs[i])),
                          "%s P=%d x[%lld] %.17g vs %.17g", name, j.P, (long long)i, xd[i],
                          xs[i]);
    }
    sp_vector_destroy(b);
    sp_vector_destroy(x);
    sp_solver_destroy(s);
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    free(xs);
    free(xd);
}

START_TEST(cg_matches_single)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(8, SP_R_64F, &a));
    check_cg("poisson3d(8) CG", a, SP_SOLVER_CG);
    check_cg("poisson3d(8) PCG-Jacobi", a, SP_SOLVER_PCG_JACOBI);
    sp_coo_free(a);
    a = arrow_matrix(40); /* a row owning every column, varying diagonal */
    check_cg("arrow(40) CG", a, SP_SOLVER_CG);
    check_cg("arrow(40) PCG-Jacobi", a, SP_SOLVER_PCG_JACOBI);
    sp_coo_free(a);
    a = tiny_matrix();
    check_cg("tiny(3) CG", a, SP_SOLVER_CG);
    sp_coo_free(a);
}
END_TEST

/* Float matrices and vectors: the same solver loop in single precision. */
START_TEST(cg_float_matches_single)
{
    sp_coo_t *a = NULL, *f = NULL;
    ck_assert_ok(sp_gen_poisson3d(8, SP_R_32F, &a));
    check_cg("poisson3d(8) float CG", a, SP_SOLVER_CG);
    check_cg("poisson3d(8) float PCG-Jacobi", a, SP_SOLVER_PCG_JACOBI);
    sp_coo_free(a);
    a = arrow_matrix(40); /* a varying diagonal: Jacobi matters */
    ck_assert_ok(sp_coo_copy(a, SP_R_32F, &f));
    check_cg("arrow(40) float PCG-Jacobi", f, SP_SOLVER_PCG_JACOBI);
    sp_coo_free(f);
    sp_coo_free(a);
}
END_TEST

/* Solves one after another on the same matrix (CG, PCG-Jacobi, CG, PCG-Jacobi): the same
 * iterations and bits as the first of each kind; the work vectors are made by the first
 * solve that needs them, so the later ones allocate no host memory at all (counted between
 * barriers, every rank's allocations together). */
#ifndef SP_DIST_TEST_GPU
static int64_t host_allocs;
static void *count_alloc(size_t n, void *u)
{
    (void)u;
    __atomic_add_fetch(&host_allocs, 1, __ATOMIC_RELAXED);
    return malloc(n);
}
static void *count_realloc(void *p, size_t n, void *u)
{
    (void)u;
    __atomic_add_fetch(&host_allocs, 1, __ATOMIC_RELAXED);
    return realloc(p, n);
}
static void count_free(void *p, void *u)
{
    (void)u;
    free(p);
}

typedef struct repeat_case {
    const sp_coo_t *a;
    sp_value_type_t t;
    double *x[4];   /* whole solution of each solve */
    int64_t it[MAXP][4];
    int64_t allocs[4]; /* during each solve, every rank */
} repeat_case_t;

static sp_status_t repeat_rank(job_t *j, int r, sp_comm_t *comm, sp_context_t *ctx)
{
    repeat_case_t *c = j->arg;
    sp_dist_matrix_t *A = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_dist_info_t in;
    sp_solver_options_t o = {.rtol = c->t == SP_R_32F ? 1e-5 : 1e-10};
    sp_solver_result_t res;
    sp_status_t st = solve_setup(comm, ctx, c->a, &A, &in, &b, &x);
    int s;
    if (st) goto done;
    for (s = 0; s < 4; s++) {
        int64_t before;
        if ((st = sp_comm_barrier(comm))) goto done;
        before = __atomic_load_n(&host_allocs, __ATOMIC_RELAXED);
        if ((st = sp_comm_barrier(comm))) goto done;
        st = sp_dist_solve(A, s % 2 ? SP_SOLVER_PCG_JACOBI : SP_SOLVER_CG, &o, b, x, &res);
        if (st) goto done;
        if ((st = sp_comm_barrier(comm))) goto done;
        if (r == 0) c->allocs[s] = __atomic_load_n(&host_allocs, __ATOMIC_RELAXED) - before;
        if ((st = sp_comm_barrier(comm))) goto done;
        c->it[r][s] = res.status == SP_SOLVER_CONVERGED ? res.iterations : -1;
        if ((st = vector_to(ctx, x, c->x[s] + in.row_begin))) goto done;
    }
done:
    sp_vector_destroy(b);
    sp_vector_destroy(x);
    sp_dist_matrix_destroy(A);
    return st;
}

static void check_repeated(const char *name, const sp_coo_t *a)
{
    const sp_allocator_t counting = {count_alloc, count_realloc, count_free, NULL};
    int64_t n = a->nrows, i;
    repeat_case_t c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.t = a->value_type;
    for (int s = 0; s < 4; s++)
        c.x[s] = malloc((size_t)n * sizeof(double));
    for (int k = 0; k < NCOUNTS; k++) {
        job_t j;
        sp_set_host_allocator(&counting);
        run_ranks(&j, rank_counts[k], repeat_rank, &c, 0);
        sp_set_host_allocator(NULL);
        assert_all_ok(&j);
        for (int r = 0; r < j.P; r++)
            for (int s = 0; s < 4; s++) {
                ck_assert_msg(c.it[r][s] > 0, "%s P=%d solve %d did not converge", name, j.P, s);
                ck_assert_int_eq(c.it[r][s], c.it[0][s % 2]);
            }
        for (i = 0; i < n; i++) /* the same bits as the first solve of the kind */
            ck_assert_msg(c.x[2][i] == c.x[0][i] && c.x[3][i] == c.x[1][i],
                          "%s P=%d x[%lld] differs on a repeated solve", name, j.P, (long long)i);
        ck_assert_msg(c.allocs[0] > 0 && c.allocs[2] == 0 && c.allocs[3] == 0,
                      "%s P=%d: host allocations per solve %lld %lld %lld %lld", name, j.P,
                      (long long)c.allocs[0], (long long)c.allocs[1], (long long)c.allocs[2],
                      (long long)c.allocs[3]);
    }
    for (int s = 0; s < 4; s++)
        free(c.x[s]);
}

START_TEST(repeated_solves_reuse_work)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(6, SP_R_64F, &a));
    check_repeated("poisson3d(6)", a);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d(6, SP_R_32F, &a));
    check_repeated("poisson3d(6) float", a);
    sp_coo_free(a);
}
END_TEST
#endif

/* The last rank passes a wrong vector: it fails, and so does every other rank, none hangs. */
static sp_status_t bad_vector_rank(job_t *j, int r, sp_comm_t *comm, sp_context_t *ctx)
{
    sp_dist_matrix_t *A = NULL;
    sp_vector_t *x = NULL, *y = NULL;
    sp_dist_info_t in;
    sp_status_t st = sp_dist_matrix_create(comm, ctx, j->arg, NULL, &A);
    int64_t nl;
    if (st) return st;
    sp_dist_matrix_info(A, &in);
    nl = in.row_end - in.row_begin;
    if ((st = sp_vector_create(ctx, SP_R_64F, nl + (r == j->P - 1), NULL, &x))) goto done;
    if ((st = sp_vector_create(ctx, SP_R_64F, nl, NULL, &y))) goto done;
    st = sp_dist_spmv(A, 1.0, x, 0.0, y);
done:
    sp_vector_destroy(x);
    sp_vector_destroy(y);
    sp_dist_matrix_destroy(A);
    return st;
}

START_TEST(failing_rank_in_spmv)
{
    sp_coo_t *a = NULL;
    job_t j;
    char text[64];
    int P = rank_counts[NCOUNTS - 1] < 3 ? rank_counts[NCOUNTS - 1] : 3;
    ck_assert_ok(sp_gen_poisson3d(4, SP_R_64F, &a));
    run_ranks(&j, P, bad_vector_rank, a, 0);
    ck_assert_int_eq(j.st[P - 1], SP_STATUS_INVALID_ARGUMENT);
    snprintf(text, sizeof text, "rank %d owns", P - 1);
    ck_assert_msg(strstr(j.msg[P - 1], text) != NULL, "%s", j.msg[P - 1]);
    snprintf(text, sizeof text, "rank %d aborted", P - 1);
    assert_all_failed(&j, P - 1, text);
    sp_coo_free(a);
}
END_TEST

/* Refusals: every rank passes the same bad argument and gets the argument's status and a
 * message naming it (a rank refusing aborts the others' collectives, which then fail). */
typedef struct refusal {
    int what; /* 0: parts with a gap, 1: BiCGSTAB, 2: BFS source, 3: SpMV on a pattern */
    const sp_coo_t *a;
} refusal_t;

static sp_status_t refusal_rank(job_t *j, int r, sp_comm_t *comm, sp_context_t *ctx)
{
    const refusal_t *f = j->arg;
    sp_dist_matrix_t *A = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_solver_result_t res;
    sp_dist_info_t in;
    int32_t level[64];
    sp_status_t st;
    if (f->what == 0) {
        sp_coo_t *p = piece_of(f->a, r * 10, r * 10 + 9); /* rows 9, 19, ... missing */
        st = sp_dist_matrix_create_local(comm, ctx, p, r * 10, NULL, &A);
        sp_coo_free(p);
        return st;
    }
    if ((st = sp_dist_matrix_create(comm, ctx, f->a, NULL, &A))) return st;
    sp_dist_matrix_info(A, &in);
    sp_vector_create(ctx, SP_R_64F, in.row_end - in.row_begin, NULL, &b);
    sp_vector_create(ctx, SP_R_64F, in.row_end - in.row_begin, NULL, &x);
    if (f->what == 1) st = sp_dist_solve(A, SP_SOLVER_BICGSTAB, NULL, b, x, &res);
    if (f->what == 2) st = sp_dist_bfs(A, in.nrows, NULL, level, NULL, NULL);
    if (f->what == 3) st = sp_dist_spmv(A, 1.0, b, 0.0, x);
    sp_vector_destroy(b);
    sp_vector_destroy(x);
    sp_dist_matrix_destroy(A);
    return st;
}

START_TEST(refusals_name_the_argument)
{
    static const char *const text[4] = {"rank 1 has rows 10..19", "solver type 3",
                                        "source 36 is not a vertex", "pattern matrix"};
    const sp_status_t want[4] = {SP_STATUS_INVALID_ARGUMENT, SP_STATUS_NOT_SUPPORTED,
                                 SP_STATUS_INVALID_ARGUMENT, SP_STATUS_INVALID_ARGUMENT};
    sp_coo_t *a = NULL, *g = NULL;
    int what, r, P = rank_counts[NCOUNTS - 1] < 2 ? 1 : 2;
    ck_assert_ok(sp_gen_poisson2d(5, SP_R_64F, &a));   /* 25 rows */
    ck_assert_ok(sp_gen_grid2d(6, SP_VALUE_NONE, &g)); /* 36 vertices, no values */
    for (what = P == 1; what < 4; what++) {            /* a gap needs two ranks */
        refusal_t f = {what, what >= 2 ? g : a};
        job_t j;
        run_ranks(&j, P, refusal_rank, &f, 0);
        for (r = 0; r < P; r++) {
            ck_assert_msg(j.st[r] == want[what], "case %d rank %d: %s: %s", what, r,
                          sp_status_string(j.st[r]), j.msg[r]);
            ck_assert_msg(strstr(j.msg[r], text[what]) != NULL,
                          "case %d rank %d: \"%s\" lacks \"%s\"", what, r, j.msg[r],
                          text[what]);
        }
    }
    sp_coo_free(a);
    sp_coo_free(g);
}
END_TEST

/* ---- distributed BFS --------------------------------------------------------------- */
typedef struct bfs_case {
    const sp_coo_t *g;
    const int64_t *sources;
    int nsources;
    sp_bfs_variant_t variant;
    int32_t *level, *parent; /* nsources x n, gathered by every rank; rank 0's kept */
    sp_bfs_stats_t stats[MAXP];
    int32_t *level_r1;       /* rank P-1's gathered levels of the last source */
    int64_t sizes[MAXP][64]; /* each rank's frontier sizes of the last source */
} bfs_case_t;

static sp_status_t bfs_rank(job_t *j, int r, sp_comm_t *comm, sp_context_t *ctx)
{
    bfs_case_t *c = j->arg;
    sp_dist_matrix_t *A = NULL;
    sp_dist_info_t in;
    sp_bfs_options_t o;
    int32_t *lv = NULL, *pa = NULL, *wl = NULL, *wp = NULL;
    int64_t n = c->g->nrows;
    int s;
    sp_status_t st = sp_dist_matrix_create(comm, ctx, c->g, NULL, &A);
    if (st) return st;
    memset(&o, 0, sizeof o);
    o.variant = c->variant;
    o.frontier_capacity = 64;
    o.frontier_sizes = c->sizes[r];
    sp_dist_matrix_info(A, &in);
    lv = malloc((size_t)(in.row_end - in.row_begin + 1) * sizeof *lv);
    pa = malloc((size_t)(in.row_end - in.row_begin + 1) * sizeof *pa);
    wl = malloc((size_t)n * sizeof *wl);
    wp = malloc((size_t)n * sizeof *wp);
    for (s = 0; s < c->nsources; s++) { /* one after another, the same matrix */
        if ((st = sp_dist_bfs(A, c->sources[s], &o, lv, pa, &c->stats[r]))) break;
        if ((st = sp_dist_gather_i32(A, lv, wl))) break;
        if ((st = sp_dist_gather_i32(A, pa, wp))) break;
        if (r == 0) {
            memcpy(c->level + (size_t)s * (size_t)n, wl, (size_t)n * sizeof *wl);
            memcpy(c->parent + (size_t)s * (size_t)n, wp, (size_t)n * sizeof *wp);
        }
        if (r == j->P - 1) memcpy(c->level_r1, wl, (size_t)n * sizeof *wl);
    }
    free(lv);
    free(pa);
    free(wl);
    free(wp);
    sp_dist_matrix_destroy(A);
    return st;
}

#ifdef SP_DIST_TEST_GPU
/* The single CUDA context's sp_bfs gives the reference's levels (ref: ns x n), so the
 * distributed levels compared with ref below equal the single GPU's too. */
static void single_gpu_levels(const char *name, const sp_coo_t *g, const int64_t *sources,
                              int ns, const int32_t *ref)
{
    int64_t n = g->nrows;
    int32_t *d_lv = NULL, *h_lv = malloc((size_t)n * sizeof *h_lv);
    sp_context_t *ctx = NULL;
    sp_matrix_t *G = NULL;
    int s;
    ck_assert_ok(test_context(0, &ctx));
    ck_assert_ok(sp_matrix_create(ctx, g, NULL, &G));
    ck_assert_int_eq(cudaMalloc((void **)&d_lv, (size_t)n * sizeof *d_lv), cudaSuccess);
    for (s = 0; s < ns; s++) {
        ck_assert_ok(sp_bfs(ctx, G, sources[s], NULL, d_lv, NULL, NULL));
        ck_assert_ok(sp_context_synchronize(ctx));
        ck_assert_int_eq(cudaMemcpy(h_lv, d_lv, (size_t)n * sizeof *h_lv, cudaMemcpyDeviceToHost),
                         cudaSuccess);
        ck_assert_msg(memcmp(h_lv, ref + (size_t)s * (size_t)n, (size_t)n * sizeof *h_lv) == 0,
                      "%s source %lld: the single GPU's levels differ from the reference", name,
                      (long long)sources[s]);
    }
    cudaFree(d_lv);
    free(h_lv);
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
}
#endif

static void check_bfs(const char *name, const sp_coo_t *g, const int64_t *sources, int ns)
{
    int64_t n = g->nrows;
    int32_t *ref = malloc((size_t)n * ns * sizeof *ref),
            *lv = malloc((size_t)n * ns * sizeof *lv);
    int32_t *pa = malloc((size_t)n * ns * sizeof *pa), *last = malloc((size_t)n * sizeof *last);
    sp_bfs_stats_t rs[8];
    int64_t sizes[64];
    sp_bfs_options_t ro;
    sp_context_t *ctx = NULL;
    sp_matrix_t *G = NULL;
    sp_format_view_t v;
    sp_csr_t csr;
    char why[256];
    const sp_bfs_variant_t variants[3] = {SP_BFS_AUTO, SP_BFS_PUSH, SP_BFS_PULL};
    int k, s, vi, r;
    ck_assert_int_le(ns, 8);
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_matrix_create(ctx, g, NULL, &G));
    memset(&ro, 0, sizeof ro);
    ro.frontier_capacity = 64;
    ro.frontier_sizes = sizes; /* the last source's are kept */
    for (s = 0; s < ns; s++)
        ck_assert_ok(
            sp_bfs(ctx, G, sources[s], &ro, ref + (size_t)s * (size_t)n, NULL, &rs[s]));
    ck_assert_ok(sp_matrix_view(G, SP_FORMAT_CSR, &v));
    memset(&csr, 0, sizeof csr);
    csr.nrows = csr.ncols = n;
    csr.nnz = v.nnz;
    csr.value_type = SP_VALUE_NONE;
    memcpy(&csr.ptr, &v.csr.row_ptr, sizeof csr.ptr); /* the validator only reads them */
    memcpy(&csr.ptr64, &v.row_ptr64, sizeof csr.ptr64); /* (whichever width G holds) */
    memcpy(&csr.idx, &v.csr.col, sizeof csr.idx);
#ifdef SP_DIST_TEST_GPU
    single_gpu_levels(name, g, sources, ns, ref);
#endif
    for (vi = 0; vi < 3; vi++)
        for (k = 0; k < NCOUNTS; k++) {
            bfs_case_t c = {g, sources, ns, variants[vi], lv, pa, {{0}}, last, {{0}}};
            job_t j;
            run_ranks(&j, rank_counts[k], bfs_rank, &c, 0);
            assert_all_ok(&j);
            for (s = 0; s < ns; s++) {
                size_t off = (size_t)s * (size_t)n;
                ck_assert_msg(memcmp(lv + off, ref + off, (size_t)n * sizeof *lv) == 0,
                              "%s %s P=%d source %lld: levels differ from sp_bfs", name,
                              sp_bfs_variant_name(variants[vi]), j.P, (long long)sources[s]);
                ck_assert_msg(sp__ref_bfs_validate(&csr, (int32_t)sources[s], lv + off,
                                                   pa + off, ref + off, why, sizeof why),
                              "%s %s P=%d source %lld: %s", name,
                              sp_bfs_variant_name(variants[vi]), j.P, (long long)sources[s],
                              why);
            }
            ck_assert(memcmp(last, lv + (size_t)(ns - 1) * (size_t)n, (size_t)n * sizeof *lv) ==
                      0);
            for (r = 0; r < j.P; r++) { /* the last source's stats, global on every rank */
                ck_assert_int_eq(c.stats[r].levels, rs[ns - 1].levels);
                ck_assert_int_eq(c.stats[r].vertices_visited, rs[ns - 1].vertices_visited);
                ck_assert_int_eq(c.stats[r].edges_traversed, rs[ns - 1].edges_traversed);
                ck_assert(memcmp(c.sizes[r], sizes, sizeof sizes) == 0);
                if (variants[vi] != SP_BFS_AUTO)
                    ck_assert_int_eq(c.stats[r].direction_switches, 0);
            }
        }
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
    free(ref);
    free(lv);
    free(pa);
    free(last);
}

/* Two components (a path and a cycle) and isolated vertices. */
static sp_coo_t *disconnected_graph(void)
{
    sp_coo_t *g = NULL;
    int64_t i;
    ck_assert_ok(sp_coo_create(150, 150, 400, SP_VALUE_NONE, &g));
    for (i = 0; i < 49; i++) {
        g->row[g->nnz] = (int32_t)i;
        g->col[g->nnz++] = (int32_t)(i + 1);
    }
    for (i = 60; i < 100; i++) {
        g->row[g->nnz] = (int32_t)i;
        g->col[g->nnz++] = (int32_t)(i == 99 ? 60 : i + 1);
    }
    ck_assert_ok(sp_coo_symmetrize(g, 1));
    return g;
}

START_TEST(bfs_matches_single)
{
    sp_coo_t *g = NULL;
    const int64_t kron_src[3] = {0, 17, 200}, grid_src[2] = {0, 77}, dis_src[3] = {5, 75, 120};
    ck_assert_ok(sp_gen_kronecker(8, 8, 3, SP_VALUE_NONE, &g));
    ck_assert_ok(sp_coo_symmetrize(g, 1));
    check_bfs("kronecker(8)", g, kron_src, 3);
    sp_coo_free(g);
    ck_assert_ok(sp_gen_kronecker(8, 4, 5, SP_VALUE_NONE, &g)); /* directed */
    ck_assert_ok(sp_coo_sort_merge(g, SP_DUP_KEEP, NULL));
    check_bfs("kronecker(8) directed", g, kron_src, 3);
    sp_coo_free(g);
    ck_assert_ok(sp_gen_grid2d(12, SP_VALUE_NONE, &g));
    check_bfs("grid2d(12)", g, grid_src, 2);
    sp_coo_free(g);
    g = disconnected_graph();
    check_bfs("disconnected(150)", g, dis_src, 3);
    sp_coo_free(g);
}
END_TEST

/* Graphs carrying float values (a float matrix used as a graph): the same searches. */
START_TEST(bfs_float_matches_single)
{
    sp_coo_t *g = NULL, *f = NULL;
    const int64_t kron_src[3] = {0, 17, 200}, dis_src[3] = {5, 75, 120};
    ck_assert_ok(sp_gen_kronecker(8, 8, 3, SP_R_32F, &g));
    ck_assert_ok(sp_coo_symmetrize(g, 1));
    check_bfs("kronecker(8) float", g, kron_src, 3);
    sp_coo_free(g);
    g = disconnected_graph();
    ck_assert_ok(sp_coo_copy(g, SP_R_32F, &f));
    check_bfs("disconnected(150) float", f, dis_src, 3);
    sp_coo_free(f);
    sp_coo_free(g);
}
END_TEST

/* GPU runs: 16K vertices and 500K entries, many blocks of every kernel (SP_TEST_SMALL, the
 * sanitizer runs: the host sizes) */
static int large_scale(void)
{
#ifdef SP_DIST_TEST_GPU
    if (getenv("SP_TEST_SMALL") == NULL) return 14;
#endif
    return 11;
}
static int64_t large_grid(void)
{
#ifdef SP_DIST_TEST_GPU
    if (getenv("SP_TEST_SMALL") == NULL) return 150;
#endif
    return 60;
}

/* Larger graphs (a Kronecker graph; a grid, whose searches take hundreds of levels), and
 * the queues of every rank count: with route_own even one rank sends the targets it owns
 * through the exchange (to itself), so the count / scatter / exchange / receive path of a
 * top-down level runs on one GPU as on several. */
START_TEST(bfs_large_and_routed)
{
    sp_coo_t *g = NULL;
    const int64_t kron_src[2] = {1, 1000}, grid_src[2] = {0, large_grid() * large_grid() / 2 + 7};
    ck_assert_ok(sp_gen_kronecker(large_scale(), 16, 11, SP_VALUE_NONE, &g));
    ck_assert_ok(sp_coo_symmetrize(g, 1));
    check_bfs("kronecker(large)", g, kron_src, 2);
    sp__dist_bfs_set_route_own(1);
    check_bfs("kronecker(large) routed", g, kron_src, 2);
    sp__dist_bfs_set_route_own(0);
    sp_coo_free(g);
    ck_assert_ok(sp_gen_grid2d(large_grid(), SP_R_32F, &g));
    check_bfs("grid2d(large)", g, grid_src, 2);
    sp__dist_bfs_set_route_own(1);
    check_bfs("grid2d(large) routed", g, grid_src, 2);
    sp__dist_bfs_set_route_own(0);
    sp_coo_free(g);
    g = disconnected_graph();
    sp__dist_bfs_set_route_own(1);
    check_bfs("disconnected(150) routed", g, (const int64_t[3]){5, 75, 120}, 3);
    sp__dist_bfs_set_route_own(0);
    sp_coo_free(g);
}
END_TEST

static Suite *dist_suite(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = sp_test_add_case(s, "comm", NULL, NULL);
#ifdef SP_DIST_TEST_GPU
    tcase_add_test(tc, comm_device_collectives);
#else
    tcase_add_test(tc, comm_collectives);
    tcase_add_test(tc, comm_refusals);
    tcase_add_test(tc, comm_nccl_not_built);
    tcase_add_test(tc, failures_end_every_rank);
#endif
    tc = sp_test_add_case(s, "matrix", NULL, NULL);
    tcase_add_test(tc, partition_by_entries);
    tcase_add_test(tc, spmv_matches_single);
    tcase_add_test(tc, spmv_ghost_runs_match_single);
    tcase_add_test(tc, gen_kronecker_matches_single);
    tcase_add_test(tc, failing_rank_in_spmv);
    tcase_add_test(tc, refusals_name_the_argument);
    tcase_add_test(tc, cg_matches_single);
    tcase_add_test(tc, cg_float_matches_single);
#ifndef SP_DIST_TEST_GPU
    tcase_add_test(tc, repeated_solves_reuse_work);
#endif
    tc = sp_test_add_case(s, "files", sp_test_temp_setup, sp_test_temp_teardown);
    tcase_add_test(tc, file_parts_match_whole);
#ifndef SP_DIST_TEST_GPU
    tcase_add_test(tc, read_rows_cover_the_file);
    tcase_add_test(tc, read_rows_refusals);
    tcase_add_test(tc, gen_kronecker_refuses_big_parts);
#endif
    tcase_add_test(tc, partition_file_matches_whole);
    tcase_add_test(tc, partition_file_errors_reach_every_rank);
    tc = sp_test_add_case(s, "bfs", NULL, NULL);
    tcase_add_test(tc, bfs_matches_single);
    tcase_add_test(tc, bfs_float_matches_single);
    tcase_add_test(tc, bfs_large_and_routed);
    return s;
}

#ifdef SP_DIST_TEST_GPU
int main(void)
{
    sp_comm_t *c = NULL;
    sp_status_t st;
    int n = 0, k;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return 77;
    st = sp_comm_create_nccl_all(1, NULL, &c);
    if (st == SP_STATUS_NOT_COMPILED) {
        printf("check_gpu_dist: skipped: %s\n", sp_last_error());
        return 77;
    }
    sp_comm_destroy(c);
    /* 1 GPU, then every GPU (at most MAXP) */
    ncounts = n > 1 ? 2 : 1;
    rank_counts[0] = 1;
    rank_counts[1] = n < MAXP ? n : MAXP;
    for (k = 0; k < ncounts; k++)
        printf("check_gpu_dist: NCCL ranks %d\n", rank_counts[k]);
    return sp_test_run_gpu(dist_suite());
}
#else
int main(void)
{
    return sp_test_run(dist_suite());
}
#endif
