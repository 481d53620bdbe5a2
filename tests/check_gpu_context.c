/* The CUDA context on a GPU machine: creation on the default and a given device, device
 * properties, synchronisation, allocator hooks, device matrices whose every format equals
 * the host build bit for bit, and clean refusals. Exits 77 (ctest:
 * skipped) where no GPU is usable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "testutil_gpu.h"
#endif

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

/* n indices (and n values of vs bytes when val_a is not NULL) equal bit for bit. */
static void same(const int32_t *a, const int32_t *b, const void *val_a, const void *val_b,
                 int64_t n, size_t vs)
{
    if (n > 0 && a) ck_assert_mem_eq(a, b, (size_t)n * 4);
    if (n > 0 && vs && val_a) ck_assert_mem_eq(val_a, val_b, (size_t)n * vs);
}

/* Compare every array of a format view, bit for bit. */
static void assert_same_view(const sp_format_view_t *g, const sp_format_view_t *h)
{
    size_t vs = sp_value_size(h->value_type);
    int64_t m = h->nrows, n = h->ncols, nnz = h->nnz;
    switch (h->format) {
    case SP_FORMAT_COO:
        same(g->coo.row, h->coo.row, NULL, NULL, nnz, 0);
        same(g->coo.col, h->coo.col, g->coo.val, h->coo.val, nnz, vs);
        break;
    case SP_FORMAT_CSR:
        same(g->csr.row_ptr, h->csr.row_ptr, NULL, NULL, m + 1, 0);
        same(g->csr.col, h->csr.col, g->csr.val, h->csr.val, nnz, vs);
        break;
    case SP_FORMAT_CSC:
        same(g->csc.col_ptr, h->csc.col_ptr, NULL, NULL, n + 1, 0);
        same(g->csc.row, h->csc.row, g->csc.val, h->csc.val, nnz, vs);
        break;
    case SP_FORMAT_ELL:
        ck_assert_int_eq(g->ell.width, h->ell.width);
        same(g->ell.col, h->ell.col, g->ell.val, h->ell.val, m * h->ell.width, vs);
        break;
    case SP_FORMAT_HYB:
        ck_assert_int_eq(g->hyb.ell_width, h->hyb.ell_width);
        ck_assert_int_eq(g->hyb.coo_nnz, h->hyb.coo_nnz);
        same(g->hyb.ell_col, h->hyb.ell_col, g->hyb.ell_val, h->hyb.ell_val,
             m * h->hyb.ell_width, vs);
        same(g->hyb.coo_row, h->hyb.coo_row, NULL, NULL, h->hyb.coo_nnz, 0);
        same(g->hyb.coo_col, h->hyb.coo_col, g->hyb.coo_val, h->hyb.coo_val, h->hyb.coo_nnz,
             vs);
        break;
    case SP_FORMAT_JDS:
        ck_assert_int_eq(g->jds.njd, h->jds.njd);
        same(g->jds.jd_ptr, h->jds.jd_ptr, NULL, NULL, h->jds.njd + 1, 0);
        same(g->jds.perm, h->jds.perm, NULL, NULL, m, 0);
        same(g->jds.col, h->jds.col, g->jds.val, h->jds.val, nnz - h->tail.nnz, vs);
        break;
    case SP_FORMAT_SELL:
        ck_assert_int_eq(g->sell.c, h->sell.c);
        ck_assert_int_eq(g->sell.sigma, h->sell.sigma);
        ck_assert_int_eq(g->sell.nslices, h->sell.nslices);
        ck_assert_int_eq(g->sell.padded, h->sell.padded);
        same(g->sell.slice_ptr, h->sell.slice_ptr, NULL, NULL, h->sell.nslices + 1, 0);
        same(g->sell.slice_width, h->sell.slice_width, NULL, NULL, h->sell.nslices, 0);
        same(g->sell.perm, h->sell.perm, NULL, NULL, m, 0);
        same(g->sell.col, h->sell.col, g->sell.val, h->sell.val, h->sell.padded, vs);
        break;
    default: break;
    }
    /* ELL, JDS, SELL: the long-row tail */
    ck_assert_int_eq(g->tail.nnz, h->tail.nnz);
    same(g->tail.row, h->tail.row, NULL, NULL, h->tail.nnz, 0);
    same(g->tail.col, h->tail.col, g->tail.val, h->tail.val, h->tail.nnz, vs);
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
        assert_same_view(&g, &h);
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
    sp_bfs_options_t o = {.variant = SP_BFS_PUSH, .loop = SP_BFS_LOOP_PERSISTENT};
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

/* The pool's accounting: creating a matrix and building its CSR holds at least the CSR's
 * bytes (sp_matrix_info) at the peak; releasing the CSR and destroying the matrix brings
 * the current figure back down; a reset starts the peak from what is held now, and a
 * later build raises it again. With allocator hooks the context counts the blocks it asks
 * them for: the same figures, exactly the bytes sp_matrix_info reports held. */
START_TEST(test_memory_accounting)
{
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    sp_memory_stats_t m0, m1, m2, m3, m4;
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_ok(sp_context_memory(ctx, &m0));
    ck_assert_int_eq(m0.current_bytes, 0);
    ck_assert_int_ge(m0.peak_bytes, 0);
    ck_assert_ok(sp_gen_poisson3d(40, SP_R_64F, &a)); /* 64000 rows, 438400 entries */
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_ge(info.bytes[SP_FORMAT_CSR], 438400 * 12);
    ck_assert_ok(sp_context_memory(ctx, &m1));
    ck_assert_int_ge(m1.current_bytes, info.bytes[SP_FORMAT_COO] + info.bytes[SP_FORMAT_CSR]);
    ck_assert_int_ge(m1.peak_bytes, m1.current_bytes);
    ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_context_memory(ctx, &m2));
    ck_assert_int_le(m2.current_bytes, m1.current_bytes - info.bytes[SP_FORMAT_CSR]);
    ck_assert_int_eq(m2.peak_bytes, m1.peak_bytes);
    /* a new phase: its peak starts from what is held now and the CSR's rebuild raises it */
    ck_assert_ok(sp_context_memory_reset_peak(ctx));
    ck_assert_ok(sp_context_memory(ctx, &m3));
    ck_assert_int_eq(m3.current_bytes, m2.current_bytes);
    ck_assert_int_lt(m3.peak_bytes, m1.peak_bytes);
    ck_assert_int_ge(m3.peak_bytes, m3.current_bytes);
    ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_context_memory(ctx, &m4));
    ck_assert_int_ge(m4.peak_bytes, m3.current_bytes + info.bytes[SP_FORMAT_CSR]);
    printf("memory: csr %lld bytes, build peak %lld, rebuild peak %lld\n",
           (long long)info.bytes[SP_FORMAT_CSR], (long long)m1.peak_bytes,
           (long long)m4.peak_bytes);
    fflush(stdout);
    sp_matrix_destroy(A);
    A = NULL;
    ck_assert_ok(sp_context_memory(ctx, &m4));
    ck_assert_int_eq(m4.current_bytes, 0);
    sp_context_destroy(ctx);
    ctx = NULL;
    /* the caller's hooks: counted by the context as it calls them */
    {
        sp_device_allocator_t hooks = {hook_alloc, hook_free, NULL};
        sp_context_options_t o = {.allocator = &hooks};
        ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, &o, &ctx));
        ck_assert_ok(sp_context_memory(ctx, &m0));
        ck_assert_int_eq(m0.current_bytes, 0);
        ck_assert_int_eq(m0.peak_bytes, 0);
        ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
        ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
        ck_assert_ok(sp_matrix_info(A, &info));
        ck_assert_ok(sp_context_memory(ctx, &m1));
        /* exactly the arrays the matrix holds (COO and CSR with doubles: none empty) */
        ck_assert_int_eq(m1.current_bytes,
                         info.bytes[SP_FORMAT_COO] + info.bytes[SP_FORMAT_CSR]);
        /* the build's scratch, gone (a 64-bit CSR's pointers come from searches in the
           sorted rows: no scratch, SP_TEST_OFFSET_BITS=64) */
        if (info.offset_bits == 32)
            ck_assert_int_gt(m1.peak_bytes, m1.current_bytes);
        else
            ck_assert_int_ge(m1.peak_bytes, m1.current_bytes);
        ck_assert_ok(sp_context_memory_reset_peak(ctx));
        ck_assert_ok(sp_context_memory(ctx, &m2));
        ck_assert_int_eq(m2.peak_bytes, m1.current_bytes);
        ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_CSR));
        ck_assert_ok(sp_context_memory(ctx, &m3));
        ck_assert_int_eq(m3.current_bytes, info.bytes[SP_FORMAT_COO]);
        ck_assert_int_eq(m3.peak_bytes, m1.current_bytes);
        sp_matrix_destroy(A);
        A = NULL;
        ck_assert_ok(sp_context_memory(ctx, &m4));
        ck_assert_int_eq(m4.current_bytes, 0);
        ck_assert_int_eq(g_live, 0);
        sp_context_destroy(ctx);
    }
    sp_coo_free(a);
}
END_TEST

/* sp_matrix_release(COO) on a CUDA context (issue 20): refused while the COO is A's only
 * copy; once the CSR is built the device COO's bytes go back (counted through the caller's
 * hooks), the counts stay, the CSR may not go; the edge-centric BFS (it walks the COO) makes
 * it again from the CSR with the levels of before, and the view shows the arrays of before.
 * With SP_TEST_OFFSET_BITS=64 (the .offsets64 run) it is made from 64-bit pointers. */
START_TEST(test_release_coo)
{
    sp_device_allocator_t hooks = {hook_alloc, hook_free, NULL};
    sp_context_options_t o = {.allocator = &hooks};
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info, after;
    sp_memory_stats_t m1, m2;
    sp_format_view_t v;
    int32_t *d_level = NULL;
    sp_bfs_options_t bo = {.variant = SP_BFS_EDGE, .loop = SP_BFS_LOOP_HOST};
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, &o, &ctx));
    ck_assert_ok(sp_gen_poisson3d(24, SP_R_64F, &a));
    const int64_t n = a->nrows;
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_status(sp_matrix_release(ctx, A, SP_FORMAT_COO), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_ok(sp_matrix_info(A, &info));
    const int64_t nnz = info.nnz;
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_COO, &v));
    int32_t *row0 = malloc((size_t)nnz * 4), *col0 = malloc((size_t)nnz * 4);
    int32_t *lev0 = malloc((size_t)n * 4), *lev = malloc((size_t)n * 4);
    double *val0 = malloc((size_t)nnz * 8), *x = malloc((size_t)n * 8);
    double *y0 = malloc((size_t)n * 8), *y = malloc((size_t)n * 8);
    ck_assert(row0 && col0 && lev0 && lev && val0 && x && y0 && y);
    memcpy(row0, v.coo.row, (size_t)nnz * 4);
    memcpy(col0, v.coo.col, (size_t)nnz * 4);
    memcpy(val0, v.coo.val, (size_t)nnz * 8);
    for (int64_t i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 5) / 4.0;
    ck_assert_int_eq(cudaMalloc((void **)&d_level, (size_t)n * 4), cudaSuccess);
    ck_assert_ok(sp_bfs(ctx, A, 5, &bo, d_level, NULL, NULL));
    ck_assert_int_eq(cudaMemcpy(lev0, d_level, (size_t)n * 4, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    sp_test_spmv_to_host(ctx, A, SP_FORMAT_CSR, x, n, y0);
    ck_assert_ok(sp_context_memory(ctx, &m1));
    ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_COO));
    ck_assert_ok(sp_context_memory(ctx, &m2));
    ck_assert_int_ge(m1.current_bytes - m2.current_bytes, nnz * 16); /* and the BFS cache */
    ck_assert_ok(sp_matrix_info(A, &after));
    ck_assert_int_eq(after.bytes[SP_FORMAT_COO], 0);
    ck_assert_int_eq(after.nnz, nnz);
    ck_assert_int_eq(after.nrows, n);
    ck_assert_status(sp_matrix_release(ctx, A, SP_FORMAT_CSR), SP_STATUS_INVALID_ARGUMENT);
    sp_test_spmv_to_host(ctx, A, SP_FORMAT_CSR, x, n, y);
    ck_assert_mem_eq(y, y0, (size_t)n * 8);
    ck_assert_int_eq(cudaMemset(d_level, 0xff, (size_t)n * 4), cudaSuccess);
    ck_assert_ok(sp_bfs(ctx, A, 5, &bo, d_level, NULL, NULL)); /* makes the COO again */
    ck_assert_int_eq(cudaMemcpy(lev, d_level, (size_t)n * 4, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    ck_assert_mem_eq(lev, lev0, (size_t)n * 4);
    ck_assert_ok(sp_matrix_info(A, &after));
    ck_assert_int_eq(after.bytes[SP_FORMAT_COO], info.bytes[SP_FORMAT_COO]);
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_COO, &v));
    ck_assert_mem_eq(v.coo.row, row0, (size_t)nnz * 4);
    ck_assert_mem_eq(v.coo.col, col0, (size_t)nnz * 4);
    ck_assert_mem_eq(v.coo.val, val0, (size_t)nnz * 8);
    ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_CSR)); /* the COO holds it again */
    sp_test_spmv_to_host(ctx, A, SP_FORMAT_CSR, x, n, y);
    ck_assert_mem_eq(y, y0, (size_t)n * 8);
    cudaFree(d_level);
    free(row0), free(col0), free(lev0), free(lev), free(val0), free(x), free(y0), free(y);
    sp_matrix_destroy(A);
    ck_assert_int_eq(g_live, 0);
    sp_context_destroy(ctx);
    sp_coo_free(a);
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
    tcase_add_test(tc, test_memory_accounting);
    tcase_add_test(tc, test_release_coo);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_context_suite()); }
