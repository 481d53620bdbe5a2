/* Concurrency and state on CUDA contexts: two contexts used from two threads at once give
 * the reference's results; a context works again after a failed call, CUDA errors never
 * leak from one call into the next (an error CUDA itself raised inside a call, and one the
 * caller left pending before a call); the caller's stream is honoured and nothing waits
 * for the device as a whole: with the stream blocked by a host function SpMV returns at
 * once, and with another stream blocked SpMV, a build and sp_context_synchronize finish.
 * SP_TEST_SMALL=1 shrinks the inputs. Exits 77 without a GPU. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "testutil_gpu.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- a matrix with x and y on a stream, checked against the dense reference ------------- */

typedef struct job {
    sp_context_t *ctx;
    cudaStream_t stream;
    sp_coo_t *coo;
    sp_matrix_t *A;
    double *d_x, *d_y, *h_x, *h_y, *want;
} job_t;

/* Everything returns a status (no ck_assert): jobs also run on threads other than the
 * runner's, where Check's assertions must not be used. */
static sp_status_t job_open(job_t *j, uint64_t seed, int64_t nrows, cudaStream_t stream,
                            const sp_device_allocator_t *hooks)
{
    sp_context_options_t o = {0};
    memset(j, 0, sizeof *j);
    j->stream = stream;
    o.stream = stream;
    o.allocator = hooks;
    j->coo = sp_test_random_coo(seed, nrows, nrows + 11, 12 * nrows, SP_R_64F,
                                SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS);
    if (!j->coo) return SP_STATUS_ALLOC_FAILED;
    sp_status_t st = sp_context_create(SP_DEVICE_CUDA, &o, &j->ctx);
    /* ELL of a random matrix may pass the default bound of 4 x CSR: allow it */
    const sp_matrix_options_t mo = {.ell_max_bytes = (int64_t)1 << 31};
    if (st == SP_STATUS_SUCCESS) st = sp_matrix_create(j->ctx, j->coo, &mo, &j->A);
    if (st != SP_STATUS_SUCCESS) return st;
    int64_t m = j->coo->nrows, n = j->coo->ncols;
    j->h_x = malloc((size_t)n * sizeof(double));
    j->h_y = malloc((size_t)m * sizeof(double));
    j->want = malloc((size_t)m * sizeof(double));
    if (!j->h_x || !j->h_y || !j->want) return SP_STATUS_ALLOC_FAILED;
    for (int64_t i = 0; i < n; i++) j->h_x[i] = sin((double)(i + seed));
    if (cudaMalloc((void **)&j->d_x, (size_t)n * sizeof(double)) != cudaSuccess ||
        cudaMalloc((void **)&j->d_y, (size_t)m * sizeof(double)) != cudaSuccess ||
        cudaMemcpyAsync(j->d_x, j->h_x, (size_t)n * sizeof(double), cudaMemcpyHostToDevice,
                        stream) != cudaSuccess ||
        cudaStreamSynchronize(stream) != cudaSuccess)
        return SP_STATUS_DEVICE_ERROR;
    return SP_STATUS_SUCCESS;
}

static void job_close(job_t *j)
{
    sp_matrix_destroy(j->A);
    sp_context_destroy(j->ctx);
    cudaFree(j->d_x);
    cudaFree(j->d_y);
    free(j->h_x);
    free(j->h_y);
    free(j->want);
    sp_coo_free(j->coo);
}

/* y = 2 A x - y0 queued (y0[i] = i); returns the status of sp_spmv. */
static sp_status_t job_spmv(job_t *j, sp_format_t f, sp_spmv_alg_t alg)
{
    const double alpha = 2.0, beta = -1.0;
    int64_t m = j->coo->nrows;
    for (int64_t i = 0; i < m; i++) j->h_y[i] = (double)i;
    if (cudaMemcpyAsync(j->d_y, j->h_y, (size_t)m * sizeof(double), cudaMemcpyHostToDevice,
                        j->stream) != cudaSuccess ||
        cudaStreamSynchronize(j->stream) != cudaSuccess)
        return SP_STATUS_DEVICE_ERROR;
    return sp_spmv(j->ctx, f, alg, &alpha, j->A, j->d_x, &beta, j->d_y);
}

/* Waits for the queued SpMV and compares y with the reference; 0 when right, else writes
 * the first difference into msg. */
static int job_wrong(job_t *j, char *msg, size_t len)
{
    int64_t m = j->coo->nrows;
    if (cudaMemcpyAsync(j->h_y, j->d_y, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost,
                        j->stream) != cudaSuccess ||
        cudaStreamSynchronize(j->stream) != cudaSuccess) {
        snprintf(msg, len, "copying y back failed");
        return 1;
    }
    for (int64_t i = 0; i < m; i++) j->want[i] = (double)i;
    sp_test_dense_spmv(j->coo, 2.0, j->h_x, -1.0, j->want);
    for (int64_t i = 0; i < m; i++) {
        if (fabs(j->h_y[i] - j->want[i]) > 1e-11 * (1.0 + fabs(j->want[i]) + 24.0)) {
            snprintf(msg, len, "y[%lld] = %.17g, expected %.17g", (long long)i, j->h_y[i],
                     j->want[i]);
            return 1;
        }
    }
    return 0;
}

static const sp_format_t g_formats[] = {SP_FORMAT_COO, SP_FORMAT_CSR, SP_FORMAT_CSC,
                                        SP_FORMAT_ELL, SP_FORMAT_HYB, SP_FORMAT_JDS,
                                        SP_FORMAT_SELL, SP_FORMAT_AUTO};
#define NFORMATS (sizeof g_formats / sizeof g_formats[0])

/* ---- two contexts, two threads ---------------------------------------------------------- */

typedef struct worker {
    uint64_t seed;
    int64_t nrows;
    int rounds;
    int failures;
    char msg[512];
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    job_t j;
    cudaStream_t stream = NULL;
    sp_status_t st = SP_STATUS_SUCCESS;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        snprintf(w->msg, sizeof w->msg, "cannot create a stream");
        w->failures++;
        return NULL;
    }
    st = job_open(&j, w->seed, w->nrows, stream, NULL);
    for (int r = 0; r < w->rounds && st == SP_STATUS_SUCCESS; r++) {
        for (size_t f = 0; f < NFORMATS && st == SP_STATUS_SUCCESS; f++) {
            char why[256];
            st = job_spmv(&j, g_formats[f], SP_SPMV_ALG_DEFAULT);
            if (st != SP_STATUS_SUCCESS) break;
            if (job_wrong(&j, why, sizeof why)) {
                w->failures++;
                snprintf(w->msg, sizeof w->msg, "seed %llu, %s, round %d: %s",
                         (unsigned long long)w->seed, sp_format_name(g_formats[f]), r, why);
            }
        }
    }
    if (st != SP_STATUS_SUCCESS) {
        w->failures++;
        snprintf(w->msg, sizeof w->msg, "seed %llu: %s: %s", (unsigned long long)w->seed,
                 sp_status_string(st), sp_last_error());
    }
    job_close(&j);
    cudaStreamDestroy(stream);
    return NULL;
}

START_TEST(two_contexts_two_threads)
{
    worker_t w[2] = {{101, 0, 0, 0, ""}, {202, 0, 0, 0, ""}};
    pthread_t t[2];
    w[0].nrows = sp_test_small() ? 3000 : 60000;
    w[1].nrows = sp_test_small() ? 2000 : 45000;
    w[0].rounds = w[1].rounds = sp_test_small() ? 2 : 6;
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 2; i++) ck_assert_msg(w[i].failures == 0, "thread %d: %s", i, w[i].msg);
}
END_TEST

/* ---- errors do not outlive their call --------------------------------------------------- */

START_TEST(context_reused_after_errors)
{
    job_t j;
    char why[256];
    cudaStream_t stream;
    void *p = NULL;
    ck_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ck_assert_ok(job_open(&j, 7, sp_test_small() ? 500 : 5000, stream, sp_test_gpu_allocator()));
    int64_t live = sp_test_gpu_live_allocations();

    /* 1. CUDA fails inside the call: the allocator's cudaMallocAsync runs out of memory
     * (under a sanitizer, which would report that error, the hook fails by itself) */
    sp_test_gpu_fail_through_cuda(!sp_test_under_sanitizer());
    sp_test_gpu_fail_allocations_after(0);
    ck_assert_status(sp_matrix_build(j.ctx, j.A, SP_FORMAT_CSR), SP_STATUS_ALLOC_FAILED);
    sp_test_gpu_fail_allocations_after(-1);
    sp_test_gpu_fail_through_cuda(0);
    ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess); /* cleared at the boundary */
    ck_assert_int_eq(sp_test_gpu_live_allocations(), live);
    ck_assert_str_eq(sp_context_last_error(j.ctx), sp_last_error());
    sp_clear_error();
    ck_assert_ok(job_spmv(&j, SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE));
    ck_assert_msg(!job_wrong(&j, why, sizeof why), "after a CUDA failure: %s", why);
    ck_assert_str_eq(sp_last_error(), ""); /* a success records nothing */

    /* 2. a refused argument, then the same context again */
    const double one = 1.0;
    ck_assert_status(sp_spmv(j.ctx, SP_FORMAT_ELL, SP_SPMV_ALG_CSR_MERGE, &one, j.A, j.d_x, &one,
                             j.d_y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_spmv(j.ctx, SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, &one, j.A, NULL, &one,
                             j.d_y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_ok(job_spmv(&j, SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT));
    ck_assert_msg(!job_wrong(&j, why, sizeof why), "after a refusal: %s", why);

    /* 3. the caller leaves a CUDA error pending: no libsp call reports it as its own */
    for (size_t f = 0; f < NFORMATS && !sp_test_under_sanitizer(); f++) {
        ck_assert_int_ne(cudaMalloc(&p, (size_t)1 << 62), cudaSuccess);
        ck_assert_int_ne(cudaPeekAtLastError(), cudaSuccess);
        ck_assert_ok(job_spmv(&j, g_formats[f], SP_SPMV_ALG_DEFAULT));
        ck_assert_msg(!job_wrong(&j, why, sizeof why), "%s after a pending error: %s",
                      sp_format_name(g_formats[f]), why);
    }
    if (!sp_test_under_sanitizer()) ck_assert_int_ne(cudaMalloc(&p, (size_t)1 << 62), cudaSuccess);
    ck_assert_ok(sp_matrix_release(j.ctx, j.A, SP_FORMAT_SELL));
    ck_assert_ok(sp_matrix_build(j.ctx, j.A, SP_FORMAT_SELL));
    ck_assert_ok(sp_context_synchronize(j.ctx));
    job_close(&j);
    ck_cuda(cudaStreamDestroy(stream));
}
END_TEST

/* ---- the caller's stream, and nobody else's ------------------------------------------------ */

static atomic_int g_release;

/* Blocks its stream until the watchdog releases it (no CUDA calls allowed in here). */
static void CUDART_CB hold_stream(void *arg)
{
    (void)arg;
    struct timespec ms = {0, 1000000};
    while (!atomic_load(&g_release)) nanosleep(&ms, NULL);
}

static void *watchdog(void *arg)
{
    struct timespec t = {2, 0};
    (void)arg;
    nanosleep(&t, NULL);
    atomic_store(&g_release, 1);
    return NULL;
}

START_TEST(user_stream_honoured)
{
    job_t j;
    char why[256];
    cudaStream_t stream, other;
    pthread_t dog;
    ck_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ck_cuda(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    ck_assert_ok(job_open(&j, 9, sp_test_small() ? 2000 : 20000, stream, NULL));
    /* plans made and formats built first: the calls below only launch */
    for (size_t f = 0; f < NFORMATS; f++) ck_assert_ok(job_spmv(&j, g_formats[f], SP_SPMV_ALG_DEFAULT));
    ck_assert_ok(job_spmv(&j, SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE));
    ck_assert_ok(job_spmv(&j, SP_FORMAT_COO, SP_SPMV_ALG_COO_ATOMIC));
    ck_assert_ok(sp_context_synchronize(j.ctx));

    /* 1. the context's own stream is held: each call queues behind it and returns */
    const double alpha = 2.0, beta = -1.0;
    atomic_store(&g_release, 0);
    ck_cuda(cudaLaunchHostFunc(stream, hold_stream, NULL));
    ck_assert_int_eq(pthread_create(&dog, NULL, watchdog, NULL), 0);
    double t0 = now();
    for (size_t f = 0; f < NFORMATS; f++)
        ck_assert_ok(sp_spmv(j.ctx, g_formats[f], SP_SPMV_ALG_DEFAULT, &alpha, j.A, j.d_x, &beta,
                             j.d_y));
    ck_assert_ok(sp_spmv(j.ctx, SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE, &alpha, j.A, j.d_x, &beta,
                         j.d_y));
    double took = now() - t0;
    int released = atomic_load(&g_release);
    ck_assert_int_eq(pthread_join(dog, NULL), 0);
    ck_assert_msg(sp_test_under_sanitizer() || (!released && took < 1.0),
                  "SpMV waited for the held stream (%.3f s; released before return: %d)", took,
                  released);
    ck_cuda(cudaStreamSynchronize(stream));
    ck_assert_ok(job_spmv(&j, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT));
    ck_assert_msg(!job_wrong(&j, why, sizeof why), "after the hold: %s", why);

    /* 2. another stream is held: work on the context's stream (SpMV, a build that reads
     * sizes back, a synchronize) never waits for it */
    atomic_store(&g_release, 0);
    ck_cuda(cudaLaunchHostFunc(other, hold_stream, NULL));
    ck_assert_int_eq(pthread_create(&dog, NULL, watchdog, NULL), 0);
    t0 = now();
    ck_assert_ok(job_spmv(&j, SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT));
    ck_assert_ok(sp_context_synchronize(j.ctx));
    ck_assert_ok(sp_matrix_release(j.ctx, j.A, SP_FORMAT_JDS));
    ck_assert_ok(sp_matrix_build(j.ctx, j.A, SP_FORMAT_JDS));
    ck_assert_ok(job_spmv(&j, SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT));
    ck_assert_msg(!job_wrong(&j, why, sizeof why), "JDS with another stream held: %s", why);
    took = now() - t0;
    released = atomic_load(&g_release);
    ck_assert_int_eq(pthread_join(dog, NULL), 0);
    ck_assert_msg(sp_test_under_sanitizer() || (!released && took < 1.5),
                  "work on the context's stream waited for another stream (%.3f s)", took);
    ck_cuda(cudaStreamSynchronize(other));
    job_close(&j);
    ck_cuda(cudaStreamDestroy(other));
    ck_cuda(cudaStreamDestroy(stream));
}
END_TEST

/* ---- sizes at 2^31 ---------------------------------------------------------------------- */

/* A CUDA context takes more than INT32_MAX entries (issue 20: sorted on the host, then
 * uploaded), so such a COO is checked like any other (here: no arrays); rows past
 * INT32_MAX stay refused. */
START_TEST(entries_above_int32_checked)
{
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    sp_coo_t fake = {4, 4, (int64_t)1 << 31, (int64_t)1 << 31, NULL, NULL, NULL,
                     SP_R_32F, SP_SYMMETRY_GENERAL, 0};
    ck_assert_status(sp_matrix_create(ctx, &fake, NULL, &A), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("no values");
    ck_assert_ptr_null(A);
    fake = (sp_coo_t){(int64_t)1 << 31, 4, 0, 0, NULL, NULL, NULL, SP_R_32F, SP_SYMMETRY_GENERAL, 0};
    ck_assert_status(sp_matrix_create(ctx, &fake, NULL, &A), SP_STATUS_NOT_SUPPORTED);
    ck_assert_ptr_null(A);
    sp_context_destroy(ctx);
}
END_TEST

/* SP_TEST_HUGE=1 only (about 26 GB of host memory and some 90 GB of device memory at the
 * sort's peak, so an H200):
 * 2^31 - 1 entries end to end. n = 2^28 rows of 8 entries at columns (i + j) mod n,
 * ones, the last row one short: with x = 1, y = 8 everywhere but 7 in the last row. */
START_TEST(entries_at_int32_max)
{
    const char *huge = getenv("SP_TEST_HUGE");
    if (!huge || atoi(huge) == 0) {
        printf("entries_at_int32_max: set SP_TEST_HUGE=1 to run it\n");
        return;
    }
    const int64_t n = (int64_t)1 << 28, nnz = INT32_MAX;
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_ok(sp_coo_create(n, n, nnz, SP_R_32F, &a));
    for (int64_t k = 0; k < nnz; k++) {
        int64_t i = k / 8, jj = k % 8;
        a->row[k] = (int32_t)i;
        a->col[k] = (int32_t)((i + jj) % n);
        ((float *)a->val)[k] = 1.0f;
    }
    a->nnz = nnz;
    double t0 = now();
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    sp_coo_free(a);
    ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
    printf("2^31 - 1 entries: created and CSR built in %.1f s\n", now() - t0);
    float *x = NULL, *y = NULL, *h = malloc((size_t)n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    ck_cuda(cudaMalloc((void **)&x, (size_t)n * sizeof *x));
    ck_cuda(cudaMalloc((void **)&y, (size_t)n * sizeof *y));
    for (int64_t i = 0; i < n; i++) h[i] = 1.0f;
    ck_cuda(cudaMemcpy(x, h, (size_t)n * sizeof *x, cudaMemcpyHostToDevice));
    ck_cuda(cudaMemcpy(y, h, (size_t)n * sizeof *y, cudaMemcpyHostToDevice));
    const float one = 1.0f, minus = -1.0f;
    const sp_spmv_alg_t algs[] = {SP_SPMV_ALG_DEFAULT, SP_SPMV_ALG_CSR_VECTOR,
                                  SP_SPMV_ALG_CSR_MERGE};
    for (int a_i = 0; a_i < 3; a_i++) {
        /* y = A x - y with y = 1 going in: 7 (6 in the last row) */
        ck_cuda(cudaMemcpy(y, h, (size_t)n * sizeof *y, cudaMemcpyHostToDevice));
        ck_cuda(cudaDeviceSynchronize());
        ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, algs[a_i], &one, A, x, &minus, y));
        ck_assert_ok(sp_context_synchronize(ctx));
        float *got = malloc((size_t)n * sizeof *got);
        ck_assert_ptr_nonnull(got);
        ck_cuda(cudaMemcpy(got, y, (size_t)n * sizeof *got, cudaMemcpyDeviceToHost));
        int64_t bad = -1;
        for (int64_t i = 0; i < n && bad < 0; i++)
            if (got[i] != (i == n - 1 ? 6.0f : 7.0f)) bad = i;
        ck_assert_msg(bad < 0, "alg %d: y[%lld] = %g", (int)algs[a_i], (long long)bad,
                      bad >= 0 ? got[bad] : 0.0f);
        free(got);
    }
    cudaFree(x);
    cudaFree(y);
    free(h);
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
}
END_TEST
#endif /* SP_HAVE_CUDA */

static Suite *gpu_state_suite(void)
{
    Suite *s = suite_create("gpu_state");
#ifdef SP_HAVE_CUDA
    TCase *t = tcase_create("state");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, two_contexts_two_threads);
    tcase_add_test(t, context_reused_after_errors);
    tcase_add_test(t, user_stream_honoured);
    tcase_add_test(t, entries_above_int32_checked);
    tcase_add_test(t, entries_at_int32_max);
    suite_add_tcase(s, t);
#endif
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_state_suite()); }
