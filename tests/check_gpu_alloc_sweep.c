/* Allocation failure on a CUDA context, through the public API: every device allocation
 * (the context's allocator hooks) and, separately, every host allocation of the upload,
 * each format's build, each SpMV plan (every format and algorithm) and sp_spmv itself fails
 * in turn: SP_STATUS_ALLOC_FAILED, outputs untouched (the matrix handle, the formats built,
 * y), nothing leaked (host blocks 0, device blocks back to the baseline), and the next
 * call works. A step that would not fit in device memory is refused before any work with
 * the bytes needed and free: by a test cap on the room (upload, builds) and for real (ELL
 * of a 10M-row matrix with one long row, while HYB and SELL multiply it). SP_TEST_SMALL=1
 * shrinks the inputs. Exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "sp_api.h"
#include "testutil_gpu.h"

#define SENTINEL_MATRIX ((sp_matrix_t *)(uintptr_t)0x5)
#define MARKER (-7.25)

static sp_context_t *g_ctx;
static cudaStream_t g_stream;
static sp_coo_t *g_coo;
static const sp_matrix_options_t g_opt = {.ell_max_bytes = (int64_t)1 << 34, .sell_c = 8,
                                          .sell_sigma = 64};

static void setup(void)
{
    sp_context_options_t o = {0};
    int64_t nrows = sp_test_small() ? 150 : 700, ncols = nrows - 37;
    ck_cuda(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    o.stream = g_stream;
    o.allocator = sp_test_gpu_allocator();
    sp_test_gpu_fail_allocations_after(-1);
    sp_test_gpu_fail_through_cuda(0);
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, &o, &g_ctx));
    g_coo = sp_test_random_coo(21, nrows, ncols, 10 * nrows, SP_R_64F,
                               SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS | SP_TEST_LONG_ROW);
    ck_assert_ptr_nonnull(g_coo);
}

static void teardown(void)
{
    sp_coo_free(g_coo);
    sp_context_destroy(g_ctx);
    ck_cuda(cudaStreamDestroy(g_stream));
    ck_assert_int_eq(sp_test_gpu_live_allocations(), 0);
}

/* ---- one operation, run again and again ---------------------------------------------- */

enum kind { OP_CREATE, OP_BUILD, OP_SPMV };

typedef struct run {
    enum kind kind;
    sp_format_t format;
    sp_spmv_alg_t alg;
    sp_matrix_t *A;       /* OP_CREATE: the output; else the matrix worked on */
    unsigned built;       /* formats built before the run */
    double *d_x, *d_y;    /* device vectors */
    double *h_y;          /* host copy of y after a run */
    int64_t device_base;  /* live device blocks before the run */
} run_t;

static unsigned built_mask(const sp_matrix_t *A)
{
    sp_matrix_info_t info;
    unsigned m = 1u << SP_FORMAT_COO;
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int f = 1; f < SP_FORMAT_COUNT; f++)
        if (info.bytes[f] > 0) m |= 1u << f;
    return m;
}

static void fill_y(run_t *r, double v)
{
    int64_t n = g_coo->nrows;
    for (int64_t i = 0; i < n; i++) r->h_y[i] = v;
    ck_cuda(cudaMemcpyAsync(r->d_y, r->h_y, (size_t)n * sizeof(double), cudaMemcpyHostToDevice,
                            g_stream));
    ck_cuda(cudaStreamSynchronize(g_stream));
}

static void read_y(run_t *r)
{
    ck_cuda(cudaMemcpyAsync(r->h_y, r->d_y, (size_t)g_coo->nrows * sizeof(double),
                            cudaMemcpyDeviceToHost, g_stream));
    ck_cuda(cudaStreamSynchronize(g_stream));
}

static sp_status_t run_op(void *arg)
{
    run_t *r = arg;
    const double alpha = 1.5, beta = 0.5;
    switch (r->kind) {
    case OP_CREATE: {
        r->A = SENTINEL_MATRIX;
        sp_status_t st = sp_matrix_create(g_ctx, g_coo, &g_opt, &r->A);
        if (st == SP_STATUS_SUCCESS) sp_matrix_destroy(r->A);
        return st;
    }
    case OP_BUILD: return sp_matrix_build(g_ctx, r->A, r->format);
    case OP_SPMV:
        return sp_spmv(g_ctx, r->format, r->alg, &alpha, r->A, r->d_x, &beta, r->d_y);
    }
    return SP_STATUS_INTERNAL_ERROR;
}

/* After a failed run: outputs as they were, device blocks back to the baseline, CUDA's
 * error state clean. */
static void untouched(void *arg)
{
    run_t *r = arg;
    ck_assert_int_eq(sp_test_gpu_live_allocations(), r->device_base);
    ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
    if (r->kind == OP_CREATE) {
        ck_assert_ptr_eq(r->A, SENTINEL_MATRIX);
        return;
    }
    ck_assert_uint_eq(built_mask(r->A), r->built);
    if (r->kind == OP_SPMV) {
        read_y(r);
        for (int64_t i = 0; i < g_coo->nrows; i++)
            ck_assert_msg(r->h_y[i] == MARKER, "y[%lld] = %g changed on failure", (long long)i,
                          r->h_y[i]);
    }
}

/* y = 1.5 A x + 0.5 MARKER, against the dense reference. */
static void assert_spmv_result(run_t *r)
{
    int64_t m = g_coo->nrows, n = g_coo->ncols;
    double *x = malloc((size_t)n * sizeof *x), *want = malloc((size_t)m * sizeof *want);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(want);
    ck_cuda(cudaMemcpy(x, r->d_x, (size_t)n * sizeof *x, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < m; i++) want[i] = MARKER;
    sp_test_dense_spmv(g_coo, 1.5, x, 0.5, want);
    read_y(r);
    for (int64_t i = 0; i < m; i++)
        ck_assert_msg(r->h_y[i] == want[i] || (r->h_y[i] - want[i]) * (r->h_y[i] - want[i]) <
                                                  1e-20 * (1 + want[i] * want[i]),
                      "%s/%d: y[%lld] = %.17g, expected %.17g", sp_format_name(r->format),
                      (int)r->alg, (long long)i, r->h_y[i], want[i]);
    free(want);
    free(x);
}

/* Every device allocation of the run failing in turn; returns the failing runs. */
static int64_t device_sweep(const char *what, run_t *r)
{
    int64_t k = 0;
    for (;; k++) {
        if (r->kind == OP_SPMV) fill_y(r, MARKER);
        r->device_base = sp_test_gpu_live_allocations();
        if (r->A && r->kind != OP_CREATE) r->built = built_mask(r->A);
        sp_test_gpu_fail_allocations_after(k);
        sp_status_t st = run_op(r);
        int64_t calls = sp_test_gpu_allocations();
        sp_test_gpu_fail_allocations_after(-1);
        if (calls <= k) {
            ck_assert_msg(st == SP_STATUS_SUCCESS, "%s: %s with no failed allocation: %s", what,
                          sp_status_string(st), sp_last_error());
            break;
        }
        ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "%s, device allocation %lld failing: %s (%s)",
                      what, (long long)k, sp_status_string(st), sp_last_error());
        ck_assert_str_eq(sp_context_last_error(g_ctx), sp_last_error());
        untouched(r);
    }
    return k;
}

/* Every host allocation of the run failing in turn (the device never fails). */
static int64_t host_sweep(const char *what, run_t *r)
{
    int64_t failing = 0;
    if (r->kind == OP_SPMV) fill_y(r, MARKER);
    r->device_base = sp_test_gpu_live_allocations();
    if (r->A && r->kind != OP_CREATE) r->built = built_mask(r->A);
    ck_assert_ok(sp_test_fail_each_allocation(what, run_op, untouched, r, &failing));
    return failing;
}

static run_t new_run(enum kind kind, sp_format_t f, sp_spmv_alg_t alg)
{
    run_t r = {kind, f, alg, NULL, 0, NULL, NULL, NULL, 0};
    int64_t m = g_coo->nrows, n = g_coo->ncols;
    double *x = malloc((size_t)n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (int64_t j = 0; j < n; j++) x[j] = 1.0 / (double)(j + 3);
    ck_cuda(cudaMalloc((void **)&r.d_x, (size_t)n * sizeof(double)));
    ck_cuda(cudaMalloc((void **)&r.d_y, (size_t)m * sizeof(double)));
    ck_cuda(cudaMemcpy(r.d_x, x, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
    ck_cuda(cudaDeviceSynchronize()); /* a pageable copy may still be in flight */
    r.h_y = malloc((size_t)m * sizeof(double));
    ck_assert_ptr_nonnull(r.h_y);
    free(x);
    if (kind != OP_CREATE) {
        ck_assert_ok(sp_matrix_create(g_ctx, g_coo, &g_opt, &r.A));
        if (f != SP_FORMAT_CSR && f != SP_FORMAT_COO) ck_assert_ok(sp_matrix_build(g_ctx, r.A, SP_FORMAT_CSR));
    }
    return r;
}

static void free_run(run_t *r)
{
    if (r->kind != OP_CREATE) sp_matrix_destroy(r->A);
    ck_cuda(cudaFree(r->d_x));
    ck_cuda(cudaFree(r->d_y));
    free(r->h_y);
}

/* ---- the sweeps ------------------------------------------------------------------------- */

START_TEST(create_device_and_host)
{
    run_t r = new_run(OP_CREATE, SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT);
    ck_assert_int_ge(device_sweep("create", &r), 3);
    ck_assert_int_ge(host_sweep("create", &r), 2);
    free_run(&r);
}
END_TEST

START_TEST(build_device_and_host)
{
    for (int f = SP_FORMAT_CSR; f < SP_FORMAT_COUNT; f++) {
        const char *name = sp_format_name((sp_format_t)f);
        run_t r = new_run(OP_BUILD, (sp_format_t)f, SP_SPMV_ALG_DEFAULT);
        ck_assert_int_ge(device_sweep(name, &r), 2);
        ck_assert_ok(sp_matrix_release(g_ctx, r.A, (sp_format_t)f));
        host_sweep(name, &r); /* the GPU builds may need no host memory at all */
        ck_assert_uint_eq(built_mask(r.A), r.built | (1u << f));
        free_run(&r);
    }
}
END_TEST

/* The first SpMV of a (format, algorithm) makes its plan; later ones allocate nothing. */
START_TEST(spmv_plans_device_and_host)
{
    static const struct {
        sp_format_t f;
        sp_spmv_alg_t alg;
        int plans; /* the first call allocates on the device */
    } cases[] = {
        {SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT, 1},     {SP_FORMAT_COO, SP_SPMV_ALG_COO_ATOMIC, 0},
        {SP_FORMAT_COO, SP_SPMV_ALG_COO_SEGMENTED, 1}, {SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1},
        {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SCALAR, 0},  {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_VECTOR, 0},
        {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE, 1},   {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SPLIT, 1},
        {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_BINNED, 1},  {SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT, 0},
        {SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, 0},     {SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT, 0},
        {SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT, 0},     {SP_FORMAT_SELL, SP_SPMV_ALG_DEFAULT, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "spmv %s alg %d", sp_format_name(cases[i].f),
                 (int)cases[i].alg);
        /* the host sweep first: its last run makes the plan, so the device sweep needs a
         * fresh matrix */
        run_t r = new_run(OP_SPMV, cases[i].f, cases[i].alg);
        ck_assert_ok(sp_matrix_build(g_ctx, r.A, cases[i].f));
        host_sweep(what, &r);
        assert_spmv_result(&r);
        free_run(&r);
        r = new_run(OP_SPMV, cases[i].f, cases[i].alg);
        ck_assert_ok(sp_matrix_build(g_ctx, r.A, cases[i].f));
        int64_t failing = device_sweep(what, &r);
        if (cases[i].plans)
            ck_assert_msg(failing >= 1, "%s: the plan allocated nothing", what);
        assert_spmv_result(&r);
        /* a later call allocates nothing, host or device */
        fill_y(&r, MARKER);
        sp_test_gpu_fail_allocations_after(0);
        sp_test_fail_allocations_after(0);
        const double alpha = 1.5, beta = 0.5;
        sp_status_t st = sp_spmv(g_ctx, r.format, r.alg, &alpha, r.A, r.d_x, &beta, r.d_y);
        sp_test_restore_allocator();
        sp_test_gpu_fail_allocations_after(-1);
        ck_assert_msg(st == SP_STATUS_SUCCESS, "%s: a repeated call allocated: %s", what,
                      sp_last_error());
        assert_spmv_result(&r);
        free_run(&r);
    }
}
END_TEST

/* sp_spmv that builds its format (AUTO, HYB, SELL from CSR) and plans in one call. */
START_TEST(spmv_building_device_and_host)
{
    const sp_format_t formats[] = {SP_FORMAT_AUTO, SP_FORMAT_HYB, SP_FORMAT_SELL, SP_FORMAT_COO};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        run_t r = new_run(OP_SPMV, formats[i], SP_SPMV_ALG_DEFAULT);
        ck_assert_int_ge(device_sweep("spmv building", &r), 1);
        assert_spmv_result(&r);
        free_run(&r);
        r = new_run(OP_SPMV, formats[i], SP_SPMV_ALG_DEFAULT);
        host_sweep("spmv building", &r);
        assert_spmv_result(&r);
        free_run(&r);
    }
}
END_TEST

/* Errors that surface through CUDA itself (the hook's cudaMallocAsync failing leaves
 * CUDA's last error set): the same contract, and CUDA's error state is clean after. */
START_TEST(failures_through_cuda)
{
    if (sp_test_under_sanitizer()) return; /* the provoked CUDA errors would count */
    sp_test_gpu_fail_through_cuda(1);
    run_t r = new_run(OP_CREATE, SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT);
    ck_assert_int_ge(device_sweep("create, failing in CUDA", &r), 3);
    free_run(&r);
    r = new_run(OP_SPMV, SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE);
    ck_assert_int_ge(device_sweep("csr merge, failing in CUDA", &r), 1);
    assert_spmv_result(&r);
    free_run(&r);
    sp_test_gpu_fail_through_cuda(0);
}
END_TEST

/* ---- refused before any work when it cannot fit -------------------------------------------- */

START_TEST(room_refused_before_work)
{
    sp_matrix_t *A = SENTINEL_MATRIX;
    int64_t nnz = g_coo->nnz, live = sp_test_gpu_live_allocations();
    char want[96];
    sp__cuda_test_cap_room(g_ctx, 4096);
    sp_test_gpu_fail_allocations_after(-1);
    sp_test_fail_allocations_after(-1);
    ck_assert_status(sp_matrix_create(g_ctx, g_coo, &g_opt, &A), SP_STATUS_ALLOC_FAILED);
    sp_test_restore_allocator();
    snprintf(want, sizeof want, "uploading and sorting the COO needs %lld bytes on the device, 4096 free",
             (long long)(nnz * (2 * 16 + 8) + 4 * g_coo->nrows));
    ck_assert_error_has(want);
    ck_assert_int_eq(sp_test_gpu_allocations(), 0); /* no device memory asked for */
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_ptr_eq(A, SENTINEL_MATRIX);

    sp__cuda_test_cap_room(g_ctx, 0);
    ck_assert_ok(sp_matrix_create(g_ctx, g_coo, &g_opt, &A));
    ck_assert_ok(sp_matrix_build(g_ctx, A, SP_FORMAT_CSR));
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int f = SP_FORMAT_CSC; f < SP_FORMAT_COUNT; f++) {
        sp__cuda_test_cap_room(g_ctx, 100);
        sp_test_gpu_fail_allocations_after(-1);
        ck_assert_status(sp_matrix_build(g_ctx, A, (sp_format_t)f), SP_STATUS_ALLOC_FAILED);
        snprintf(want, sizeof want, "building %s needs ", sp_format_name((sp_format_t)f));
        ck_assert_error_has(want);
        ck_assert_error_has("bytes on the device, 100 free");
        ck_assert_int_eq(sp_test_gpu_allocations(), 0);
        sp__cuda_test_cap_room(g_ctx, 0);
        ck_assert_ok(sp_matrix_build(g_ctx, A, (sp_format_t)f));
    }
    sp_matrix_destroy(A);
    ck_assert_int_eq(sp_test_gpu_live_allocations(), live);
}
END_TEST

/* A real refusal, on a context with its own memory pool: ELL of one long row among 10M rows
 * is larger than any GPU; HYB and SELL of the same matrix build and multiply. */
START_TEST(ell_larger_than_the_device)
{
    const int64_t n = sp_test_small() ? 1000000 : 10000000, len = 100000;
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_options_t o = {.ell_max_bytes = INT64_MAX};
    char want[80];
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_ok(sp_coo_create(n, n, len + n / 64, SP_R_32F, &a));
    for (int64_t k = 0; k < len; k++) {
        a->row[k] = (int32_t)(n / 2);
        a->col[k] = (int32_t)(k * 7);
        ((float *)a->val)[k] = 1.0f;
    }
    for (int64_t k = 0; k < n / 64; k++) {
        a->row[len + k] = a->col[len + k] = (int32_t)(64 * k + 1);
        ((float *)a->val)[len + k] = 2.0f;
    }
    a->nnz = len + n / 64;
    ck_assert_ok(sp_matrix_create(ctx, a, &o, &A));
    ck_assert_status(sp_matrix_build(ctx, A, SP_FORMAT_ELL), SP_STATUS_ALLOC_FAILED);
    snprintf(want, sizeof want, "building ell needs %lld bytes on the device", (long long)(n * len * 8));
    ck_assert_error_has(want);
    ck_assert_error_has("free");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    float *x = NULL, *y = NULL, *h = malloc((size_t)n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    for (int64_t i = 0; i < n; i++) h[i] = 1.0f;
    ck_cuda(cudaMalloc((void **)&x, (size_t)n * sizeof *x));
    ck_cuda(cudaMalloc((void **)&y, (size_t)n * sizeof *y));
    ck_cuda(cudaMemcpy(x, h, (size_t)n * sizeof *x, cudaMemcpyHostToDevice));
    const float one = 1.0f, zero = 0.0f;
    const sp_format_t formats[] = {SP_FORMAT_HYB, SP_FORMAT_SELL};
    for (int f = 0; f < 2; f++) {
        ck_cuda(cudaMemset(y, 0xff, (size_t)n * sizeof *y));
        ck_cuda(cudaDeviceSynchronize());
        ck_assert_ok(sp_spmv(ctx, formats[f], SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
        ck_assert_ok(sp_context_synchronize(ctx));
        ck_cuda(cudaMemcpy(h, y, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i < n; i++) {
            float want_i = (i % 64 == 1 ? 2.0f : 0.0f) + (i == n / 2 ? (float)len : 0.0f);
            ck_assert_msg(h[i] == want_i, "%s: y[%lld] = %g, expected %g",
                          sp_format_name(formats[f]), (long long)i, h[i], want_i);
        }
    }
    cudaFree(y);
    cudaFree(x);
    free(h);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST
#endif /* SP_HAVE_CUDA */

static Suite *gpu_alloc_sweep_suite(void)
{
    Suite *s = suite_create("gpu_alloc_sweep");
#ifdef SP_HAVE_CUDA
    TCase *t = tcase_create("sweep");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 600);
    tcase_add_test(t, create_device_and_host);
    tcase_add_test(t, build_device_and_host);
    tcase_add_test(t, spmv_plans_device_and_host);
    tcase_add_test(t, spmv_building_device_and_host);
    tcase_add_test(t, failures_through_cuda);
    tcase_add_test(t, room_refused_before_work);
    tcase_add_test(t, ell_larger_than_the_device);
    suite_add_tcase(s, t);
#endif
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_alloc_sweep_suite()); }
