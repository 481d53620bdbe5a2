/* sp_spmv_prepare on a CUDA context: after it, sp_spmv with the same format and algorithm
 * (every format, every algorithm, SP_FORMAT_AUTO; the typed and vector forms too) asks the
 * context's allocator for nothing (every request would fail) and neither synchronizes nor
 * allocates through CUDA: the call is captured into a CUDA graph in global capture mode,
 * where a stream synchronization or cudaMalloc fails, and the graph's replay gives the
 * host context's y. Without prepare, the first CSR and COO product does allocate (the test
 * has teeth). AUTO gives way to CSR where the device has no room for its padded pick.
 * Exits 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "sp_api.h"
#include "testutil_gpu.h"

static sp_context_t *g_ctx, *g_host;
static cudaStream_t g_stream;
static sp_coo_t *g_coo;

static void setup(void)
{
    sp_context_options_t o = {0};
    ck_cuda(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    o.stream = g_stream;
    o.allocator = sp_test_gpu_allocator();
    sp_test_gpu_fail_allocations_after(-1);
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, &o, &g_ctx));
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &g_host));
    g_coo = sp_test_random_coo(5, 3000, 2900, 40000, SP_R_64F,
                               SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS | SP_TEST_LONG_ROW);
    ck_assert_ptr_nonnull(g_coo);
}

static void teardown(void)
{
    sp_test_gpu_fail_allocations_after(-1);
    sp_coo_free(g_coo);
    sp_context_destroy(g_host);
    sp_context_destroy(g_ctx);
    ck_cuda(cudaStreamDestroy(g_stream));
    ck_assert_int_eq(sp_test_gpu_live_allocations(), 0);
}

typedef struct run {
    sp_format_t format;
    sp_spmv_alg_t alg;
} run_t;

static const run_t g_runs[] = {
    {SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT},      {SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_COO, SP_SPMV_ALG_COO_ATOMIC},    {SP_FORMAT_COO, SP_SPMV_ALG_COO_SEGMENTED},
    {SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT},       {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SCALAR},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_VECTOR},    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SPLIT},     {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_BINNED},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_ADAPTIVE},  {SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT},       {SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT},       {SP_FORMAT_SELL, SP_SPMV_ALG_DEFAULT},
};
enum { NRUNS = sizeof g_runs / sizeof g_runs[0] };

/* y = A x on the host context (the reference). */
static void host_product(const double *x, double *y)
{
    sp_matrix_t *H = NULL;
    ck_assert_ok(sp_matrix_create(g_host, g_coo, NULL, &H));
    ck_assert_ok(sp_spmv_f64(g_host, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1.0, H, x, 0.0, y));
    sp_matrix_destroy(H);
}

/* One product of run r captured into a graph (global mode), then replayed; the capture
 * fails if the call synchronizes or allocates through CUDA. form 0: sp_spmv, 1: the typed
 * form, 2: the vector form. */
static void captured_product(const run_t *r, sp_matrix_t *A, int form, sp_vector_t *vx,
                             sp_vector_t *vy)
{
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    double one = 1.0, zero = 0.0;
    sp_status_t st;
    void *x = sp_vector_data(vx), *y = sp_vector_data(vy);
    ck_cuda(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
    if (form == 0) st = sp_spmv(g_ctx, r->format, r->alg, &one, A, x, &zero, y);
    else if (form == 1) st = sp_spmv_f64(g_ctx, r->format, r->alg, 1.0, A, x, 0.0, y);
    else st = sp_spmv_vec(g_ctx, r->format, r->alg, 1.0, A, vx, 0.0, vy);
    ck_cuda(cudaStreamEndCapture(g_stream, &graph));
    ck_assert_msg(st == SP_STATUS_SUCCESS, "format %s alg %d form %d: %s",
                  sp_format_name(r->format), (int)r->alg, form, sp_last_error());
    ck_cuda(cudaGraphInstantiate(&exec, graph, 0));
    ck_cuda(cudaGraphLaunch(exec, g_stream));
    ck_cuda(cudaStreamSynchronize(g_stream));
    ck_cuda(cudaGraphExecDestroy(exec));
    ck_cuda(cudaGraphDestroy(graph));
}

START_TEST(prepared_product_neither_allocates_nor_synchronizes)
{
    const run_t *r = &g_runs[_i];
    int64_t m = g_coo->nrows, n = g_coo->ncols;
    double *hx = malloc((size_t)n * sizeof *hx), *want = malloc((size_t)m * sizeof *want);
    double *got = malloc((size_t)m * sizeof *got);
    sp_matrix_t *A = NULL;
    sp_vector_t *vx = NULL, *vy = NULL;
    uint64_t seed = 11;
    sp_matrix_options_t opt = {.ell_max_bytes = (int64_t)1 << 34};
    for (int64_t j = 0; j < n; j++) hx[j] = 2 * sp_test_uniform(&seed) - 1;
    host_product(hx, want);
    ck_assert_ok(sp_matrix_create(g_ctx, g_coo, &opt, &A));
    ck_assert_ok(sp_vector_create(g_ctx, SP_R_64F, n, hx, &vx));
    ck_assert_ok(sp_vector_create(g_ctx, SP_R_64F, m, NULL, &vy));
    ck_assert_ok(sp_spmv_prepare(g_ctx, A, r->format, r->alg));
    sp_test_gpu_fail_allocations_after(0); /* any request from here on fails */
    for (int form = 0; form < 3; form++) {
        captured_product(r, A, form, vx, vy);
        ck_assert_ok(sp_vector_copy_to_host(g_ctx, vy, got));
        for (int64_t i = 0; i < m; i++)
            ck_assert_msg(fabs(got[i] - want[i]) <= 1e-12 * (1 + fabs(want[i])),
                          "format %s alg %d form %d: y[%lld] %.17g, host %.17g",
                          sp_format_name(r->format), (int)r->alg, form, (long long)i, got[i],
                          want[i]);
    }
    ck_assert_int_eq(sp_test_gpu_allocations(), 0);
    sp_test_gpu_fail_allocations_after(-1);
    sp_vector_destroy(vy);
    sp_vector_destroy(vx);
    sp_matrix_destroy(A);
    free(got);
    free(want);
    free(hx);
}
END_TEST

/* Without prepare the first CSR DEFAULT and COO DEFAULT products make their plans. */
START_TEST(unprepared_first_product_allocates)
{
    static const sp_format_t formats[] = {SP_FORMAT_CSR, SP_FORMAT_COO};
    for (int f = 0; f < 2; f++) {
        sp_matrix_t *A = NULL;
        sp_vector_t *vx = NULL, *vy = NULL;
        ck_assert_ok(sp_matrix_create(g_ctx, g_coo, NULL, &A));
        ck_assert_ok(sp_vector_create(g_ctx, SP_R_64F, g_coo->ncols, NULL, &vx));
        ck_assert_ok(sp_vector_create(g_ctx, SP_R_64F, g_coo->nrows, NULL, &vy));
        ck_assert_ok(sp_matrix_build(g_ctx, A, formats[f]));
        sp_test_gpu_fail_allocations_after(-1);
        ck_assert_ok(sp_spmv_vec(g_ctx, formats[f], SP_SPMV_ALG_DEFAULT, 1.0, A, vx, 0.0, vy));
        ck_assert_int_gt(sp_test_gpu_allocations(), 0);
        sp_vector_destroy(vy);
        sp_vector_destroy(vx);
        sp_matrix_destroy(A);
    }
}
END_TEST

/* A failed prepare (its plan's allocation refused) leaves A's formats as they were. */
START_TEST(failed_prepare_leaves_the_matrix)
{
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_create(g_ctx, g_coo, NULL, &A));
    sp_test_gpu_fail_allocations_after(0);
    ck_assert_status(sp_spmv_prepare(g_ctx, A, SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE),
                     SP_STATUS_ALLOC_FAILED);
    sp_test_gpu_fail_allocations_after(-1);
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.bytes[SP_FORMAT_CSR], 0);
    sp_matrix_destroy(A);
}
END_TEST

/* AUTO on a CUDA context never picks a format the device has no room left to build: with
 * the room capped below the padded format AUTO models fastest (ELL on a 3D stencil: 5.4 MB),
 * it
 * gives way to CSR, builds nothing else and gives the host's y; with room it builds and
 * takes that format; once built the format is AUTO's again whatever the room. */
START_TEST(auto_gives_way_without_room)
{
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL, *H = NULL;
    sp_format_t free_pick = SP_FORMAT_AUTO, f = SP_FORMAT_AUTO;
    sp_matrix_info_t info;
    ck_assert_ok(sp_gen_poisson3d(40, SP_R_64F, &a));
    const int64_t n = a->nrows;
    double *h_x = malloc((size_t)n * sizeof *h_x), *want = malloc((size_t)n * sizeof *want),
           *got = malloc((size_t)n * sizeof *got);
    ck_assert(h_x && want && got);
    for (int64_t i = 0; i < n; i++) h_x[i] = 1.0 + (double)(i % 13) / 8.0;
    ck_assert_ok(sp_matrix_create(g_host, a, NULL, &H));
    sp_test_spmv_to_host(g_host, H, SP_FORMAT_CSR, h_x, n, want);
    ck_assert_ok(sp_matrix_create(g_ctx, a, NULL, &A));
    ck_assert_ok(sp_matrix_build(g_ctx, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_spmv_choose_format(g_ctx, A, &free_pick));
    ck_assert_msg(free_pick != SP_FORMAT_CSR && free_pick != SP_FORMAT_AUTO,
                  "AUTO picks %s on Poisson 40^3: the test needs a padded pick",
                  sp_format_name(free_pick));
    for (int round = 0; round < 3; round++) {
        /* 1 MiB: the padded pick (64000 rows x 7 slots x 12 bytes) does not fit; a 64-bit
           CSR's narrowed pointers (4 bytes a row, SP_TEST_OFFSET_BITS=64) do */
        sp__cuda_test_cap_room(g_ctx, round == 1 ? 0 : (int64_t)1 << 20);
        ck_assert_ok(sp_spmv_choose_format(g_ctx, A, &f));
        /* round 0: no room, nothing built: CSR; 1: room: the free pick; 2: built: kept */
        ck_assert_int_eq(f, round == 0 ? SP_FORMAT_CSR : free_pick);
        sp_test_spmv_to_host(g_ctx, A, SP_FORMAT_AUTO, h_x, n, got);
        for (int64_t i = 0; i < n; i++)
            ck_assert_msg(fabs(got[i] - want[i]) <= 1e-12 * fabs(want[i]) + 1e-300,
                          "round %d row %lld: %.17g, host %.17g", round, (long long)i, got[i],
                          want[i]);
        ck_assert_ok(sp_matrix_info(A, &info));
        if (round == 0) ck_assert_int_eq(info.bytes[free_pick], 0);
        else ck_assert_int_gt(info.bytes[free_pick], 0);
    }
    sp__cuda_test_cap_room(g_ctx, 0);
    sp_matrix_destroy(A);
    sp_matrix_destroy(H);
    sp_coo_free(a);
    free(h_x);
    free(want);
    free(got);
}
END_TEST
#endif /* SP_HAVE_CUDA */

static Suite *gpu_spmv_prepare_suite(void)
{
    Suite *s = suite_create("gpu_spmv_prepare");
#ifdef SP_HAVE_CUDA
    TCase *tc = sp_test_add_case(s, "prepare", setup, teardown);
    tcase_add_loop_test(tc, prepared_product_neither_allocates_nor_synchronizes, 0, NRUNS);
    tcase_add_test(tc, unprepared_first_product_allocates);
    tcase_add_test(tc, failed_prepare_leaves_the_matrix);
    tcase_add_test(tc, auto_gives_way_without_room);
#endif
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_spmv_prepare_suite()); }
