/* The CUDA context on a GPU machine: creation on the default and a given device, device
 * properties, synchronisation, allocator hooks, device matrices whose every format equals
 * the host build bit for bit, and clean refusals. Exits 77 (ctest:
 * skipped) where no GPU is usable. */
#include <stdio.h>
#include <string.h>

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "testutil.h"

START_TEST(test_create_and_describe)
{
    sp_context_t *ctx = NULL;
    sp_device_info_t info;
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_int_eq(sp_context_kind(ctx), SP_DEVICE_CUDA);
    ck_assert_ok(sp_context_device_info(ctx, &info));
    ck_assert(strlen(info.name) > 0);
    ck_assert_int_gt(info.sm_count, 0);
    ck_assert_int_ge(info.cc_major, 7);
    ck_assert_int_gt(info.global_mem_bytes, (int64_t)1 << 30);
    ck_assert_int_gt(info.l2_bytes, 0);
    ck_assert_int_ge(info.shared_mem_per_block, 48 * 1024);
    ck_assert_ok(sp_context_synchronize(ctx));
    printf("device: %s, %d SMs, cc %d.%d, %.1f GiB, L2 %.0f MB\n", info.name, info.sm_count,
           info.cc_major, info.cc_minor, info.global_mem_bytes / 1073741824.0,
           info.l2_bytes / 1e6);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(test_bad_device_ordinal)
{
    sp_context_t *ctx = NULL;
    sp_context_options_t o = {.device = 4096};
    ck_assert_status(sp_context_create(SP_DEVICE_CUDA, &o, &ctx), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("device 4096 outside");
    ck_assert_ptr_null(ctx);
    /* the failure leaves no CUDA error behind: the next context works */
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    sp_context_destroy(ctx);
}
END_TEST

/* Compare every array of a format view, bit for bit. */
static void assert_same_view(const sp_format_view_t *a, const sp_format_view_t *b,
                             int64_t n_ptr, int64_t n_idx, int64_t n_idx2, int64_t n_idx3,
                             int64_t n_val2)
{
    size_t vs = sp_value_size(a->value_type);
    ck_assert_int_eq(a->width, b->width);
    ck_assert_int_eq(a->nnz2, b->nnz2);
    if (n_ptr) ck_assert_mem_eq(a->ptr, b->ptr, (size_t)n_ptr * 4);
    if (n_idx) ck_assert_mem_eq(a->idx, b->idx, (size_t)n_idx * 4);
    if (n_idx && vs) ck_assert_mem_eq(a->val, b->val, (size_t)n_idx * vs);
    if (n_idx2) ck_assert_mem_eq(a->idx2, b->idx2, (size_t)n_idx2 * 4);
    if (n_idx3) ck_assert_mem_eq(a->idx3, b->idx3, (size_t)n_idx3 * 4);
    if (n_val2 && vs) ck_assert_mem_eq(a->val2, b->val2, (size_t)n_val2 * vs);
}

/* Every format built on the GPU through the public API equals the host build. */
static void gpu_equals_host(const sp_coo_t *a)
{
    sp_context_t *gpu = NULL, *host = NULL;
    sp_matrix_t *G = NULL, *H = NULL;
    sp_matrix_info_t gi, hi;
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &gpu));
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &host));
    ck_assert_ok(sp_matrix_create(gpu, a, NULL, &G));
    ck_assert_ok(sp_matrix_create(host, a, NULL, &H));
    for (int f = 0; f < SP_FORMAT_COUNT; f++) {
        sp_format_view_t g, h;
        sp_status_t sg = sp_matrix_build(gpu, G, (sp_format_t)f);
        sp_status_t sh = sp_matrix_build(host, H, (sp_format_t)f);
        ck_assert_int_eq(sg, sh); /* ELL may be refused: then by both */
        if (sg != SP_STATUS_SUCCESS) continue;
        ck_assert_ok(sp_matrix_view(G, (sp_format_t)f, &g));
        ck_assert_ok(sp_matrix_view(H, (sp_format_t)f, &h));
        int64_t m = h.nrows, n = h.ncols, nnz = h.nnz;
        switch (f) {
        case SP_FORMAT_COO: assert_same_view(&g, &h, 0, nnz, nnz, 0, 0); break;
        case SP_FORMAT_CSR: assert_same_view(&g, &h, m + 1, nnz, 0, 0, 0); break;
        case SP_FORMAT_CSC: assert_same_view(&g, &h, n + 1, nnz, 0, 0, 0); break;
        case SP_FORMAT_ELL: assert_same_view(&g, &h, 0, m * h.width, 0, 0, 0); break;
        case SP_FORMAT_HYB:
            assert_same_view(&g, &h, 0, m * h.width, h.nnz2, h.nnz2, h.nnz2);
            break;
        case SP_FORMAT_JDS: assert_same_view(&g, &h, h.width + 1, nnz, m, 0, 0); break;
        case SP_FORMAT_SELL: {
            int64_t slices = (m + h.width - 1) / h.width;
            assert_same_view(&g, &h, slices + 1, h.nnz2, m, slices, 0);
            break;
        }
        }
    }
    ck_assert_ok(sp_matrix_info(G, &gi));
    ck_assert_ok(sp_matrix_info(H, &hi));
    ck_assert_int_eq(gi.nnz, hi.nnz);
    ck_assert_int_eq(gi.duplicates_merged, hi.duplicates_merged);
    ck_assert_int_eq(gi.row_max, hi.row_max);
    ck_assert_int_eq(gi.empty_rows, hi.empty_rows);
    for (int f = 0; f < SP_FORMAT_COUNT; f++) ck_assert_int_eq(gi.bytes[f], hi.bytes[f]);
    sp_matrix_destroy(G);
    sp_matrix_destroy(H);
    sp_context_destroy(host);
    sp_context_destroy(gpu);
}

START_TEST(test_device_matrices_equal_host)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(20, SP_R_64F, &a));
    gpu_equals_host(a);
    sp_coo_free(a);
    a = sp_test_random_coo(3, 20000, 15000, 300000, SP_R_32F,
                           SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS | SP_TEST_LONG_ROW);
    gpu_equals_host(a);
    sp_coo_free(a);
    ck_assert_ok(sp_mtx_read(sp_test_path("datasets/mtx/arrow.mtx"), SP_R_64F, NULL, &a));
    gpu_equals_host(a);
    sp_coo_free(a);
    ck_assert_ok(sp_coo_create(5, 0, 0, SP_R_64F, &a)); /* no columns, no entries */
    gpu_equals_host(a);
    sp_coo_free(a);
}
END_TEST

#ifdef SP_HAVE_CUDA
/* BFS runs on a CUDA context (check_gpu_bfs tests it in depth); a refused combination is
 * recorded on the context. */
START_TEST(test_gpu_bfs_runs)
{
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    int32_t *d_level = NULL, h_level[64];
    sp_bfs_options_t o = {SP_BFS_PUSH, SP_BFS_LOOP_PERSISTENT, 0, 0};
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_ok(sp_gen_grid2d(8, SP_VALUE_NONE, &a));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_int_eq(cudaMalloc((void **)&d_level, 64 * sizeof(int32_t)), cudaSuccess);
    ck_assert_ok(sp_bfs(ctx, A, 0, NULL, d_level, NULL, NULL));
    ck_assert_int_eq(cudaMemcpy(h_level, d_level, sizeof h_level, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    for (int v = 0; v < 64; v++) ck_assert_int_eq(h_level[v], v / 8 + v % 8);
    ck_assert_status(sp_bfs(ctx, A, 0, &o, d_level, NULL, NULL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    cudaFree(d_level);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

/* The caller's allocator hooks are used for every device allocation, and everything is
 * given back by the time the matrix is destroyed. */
static int64_t g_live, g_calls;
static int hook_alloc(void **ptr, size_t bytes, void *stream, void *user)
{
    (void)user;
    if (cudaMallocAsync(ptr, bytes, (cudaStream_t)stream) != cudaSuccess) return 1;
    g_live++;
    g_calls++;
    return 0;
}
static void hook_free(void *ptr, void *stream, void *user)
{
    (void)user;
    cudaFreeAsync(ptr, (cudaStream_t)stream);
    g_live--;
}

START_TEST(test_allocator_hooks)
{
    sp_device_allocator_t hooks = {hook_alloc, hook_free, NULL};
    sp_context_options_t o = {.allocator = &hooks};
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, &o, &ctx));
    ck_assert_ok(sp_gen_poisson2d(50, SP_R_32F, &a));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    for (int f = 0; f < SP_FORMAT_COUNT; f++) ck_assert_ok(sp_matrix_build(ctx, A, (sp_format_t)f));
    ck_assert_int_gt(g_calls, 7);
    sp_matrix_destroy(A);
    ck_assert_int_eq(g_live, 0);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST
#endif

static Suite *gpu_context_suite(void)
{
    Suite *s = suite_create("gpu_context");
    TCase *tc = tcase_create("cuda");
    tcase_add_test(tc, test_create_and_describe);
    tcase_add_test(tc, test_bad_device_ordinal);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_device_matrices_equal_host);
#ifdef SP_HAVE_CUDA
    tcase_add_test(tc, test_gpu_bfs_runs);
    tcase_add_test(tc, test_allocator_hooks);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_context_suite()); }
