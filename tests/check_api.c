/* The public API on a host context: status strings, contexts, matrix handles and their
 * format cache, SpMV in every format against a dense product, BFS by properties, and the
 * failure paths (status plus a message naming the argument or size). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_api.h"
#include "testutil.h"

static sp_context_t *host(void)
{
    sp_context_t *ctx = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    return ctx;
}

START_TEST(test_status_and_version)
{
    ck_assert_str_eq(sp_status_string(SP_STATUS_SUCCESS), "SP_STATUS_SUCCESS");
    ck_assert_str_eq(sp_status_string(SP_STATUS_PARSE_ERROR), "SP_STATUS_PARSE_ERROR");
    ck_assert_str_eq(sp_status_string((sp_status_t)999), "SP_STATUS_UNKNOWN");
    ck_assert_int_eq(SP_STATUS_INTERNAL_ERROR, 9); /* codes are never renumbered */
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", SP_VERSION_MAJOR, SP_VERSION_MINOR,
             SP_VERSION_PATCH);
    ck_assert_str_eq(sp_version(), expected);
    ck_assert_str_eq(sp_format_name(SP_FORMAT_SELL), "sell");
    ck_assert_ptr_null(sp_format_name((sp_format_t)42));
    sp_format_t f;
    ck_assert_ok(sp_format_parse("jds", &f));
    ck_assert_int_eq(f, SP_FORMAT_JDS);
    ck_assert_status(sp_format_parse("dia", &f), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("\"dia\"");
    sp_clear_error();
    ck_assert_str_eq(sp_last_error(), "");
}
END_TEST

START_TEST(test_context)
{
    sp_context_t *ctx = host();
    sp_device_info_t info;
    ck_assert_int_eq(sp_context_kind(ctx), SP_DEVICE_HOST);
    ck_assert_ok(sp_context_device_info(ctx, &info));
    ck_assert_str_eq(info.name, "host");
    ck_assert_ok(sp_context_synchronize(ctx));
    ck_assert_status(sp_context_create((sp_device_kind_t)7, NULL, &ctx), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("device kind 7");
    sp_context_destroy(ctx);
    sp_context_destroy(NULL);
    sp_matrix_destroy(NULL);
    sp_coo_free(NULL);
    sp_free(NULL);
}
END_TEST

/* Memory accounting: a host context refuses it, saying why, and leaves out as it was;
 * missing arguments are named. The CUDA figures are tested in check_gpu_context. */
START_TEST(test_context_memory_on_host)
{
    sp_context_t *ctx = host();
    sp_memory_stats_t m = {.current_bytes = -7, .peak_bytes = -7};
    ck_assert_status(sp_context_memory(ctx, &m), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("sp_context_memory: a host context does not count its memory");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    ck_assert_int_eq(m.current_bytes, -7);
    ck_assert_int_eq(m.peak_bytes, -7);
    ck_assert_status(sp_context_memory_reset_peak(ctx), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("sp_context_memory_reset_peak: a host context");
    ck_assert_status(sp_context_memory(ctx, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_context_memory: out is NULL");
    ck_assert_status(sp_context_memory(NULL, &m), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_context_memory: ctx is NULL");
    ck_assert_status(sp_context_memory_reset_peak(NULL), SP_STATUS_INVALID_ARGUMENT);
    sp_context_destroy(ctx);
}
END_TEST

/* The size table behind a CUDA context's accounting with allocator hooks (src/size_table.c):
 * current and peak through adds and removes in several orders, growth far past the first
 * size with every entry still found, a re-added pointer, unknown pointers ignored, and a
 * growth that fails leaving the table as it was. */
START_TEST(test_size_table)
{
    enum { N = 5000 };
    sp__size_table_t t = {0};
    static char blocks[N * 256]; /* distinct 256-aligned-ish addresses to stand for blocks */
    int64_t want = 0, peak = 0;
    for (int i = 0; i < N; i++) {
        ck_assert_ok(sp__size_table_add(&t, blocks + 256 * (size_t)i, (size_t)(i + 1)));
        want += i + 1;
    }
    peak = want;
    ck_assert_int_eq(t.count, N);
    ck_assert_int_eq(t.current, want);
    ck_assert_int_eq(t.peak, peak);
    /* remove every third, then every other one left, checking the sum as it goes */
    for (int i = 0; i < N; i += 3) {
        sp__size_table_remove(&t, blocks + 256 * (size_t)i);
        want -= i + 1;
    }
    ck_assert_int_eq(t.current, want);
    sp__size_table_remove(&t, blocks + 256 * 3); /* already gone: nothing */
    sp__size_table_remove(&t, NULL);
    sp__size_table_remove(&t, blocks + 1);       /* never added */
    ck_assert_int_eq(t.current, want);
    t.peak = t.current; /* what sp_context_memory_reset_peak does */
    ck_assert_ok(sp__size_table_add(&t, blocks + 256 * 1, 1000)); /* re-added: new size */
    want += 1000 - 2;
    ck_assert_int_eq(t.current, want);
    ck_assert_int_eq(t.peak, want);
    for (int i = 0; i < N; i++)
        if (i % 3) sp__size_table_remove(&t, blocks + 256 * (size_t)i);
    ck_assert_int_eq(t.count, 0);
    ck_assert_int_eq(t.current, 0);
    ck_assert_int_lt(t.peak, peak);
    /* the table still finds what it holds after all that shifting */
    ck_assert_ok(sp__size_table_add(&t, blocks, 7));
    sp__size_table_remove(&t, blocks);
    ck_assert_int_eq(t.current, 0);
    sp__size_table_free(&t);
    ck_assert_ptr_null(t.key);
    /* a growth that fails: the table as it was */
    ck_assert_ok(sp__size_table_reserve(&t, 10));
    int64_t cap = t.cap;
    for (int64_t i = 0; i * 4 < cap * 3; i++)
        ck_assert_ok(sp__size_table_add(&t, blocks + 256 * (size_t)i, 1));
    int64_t count = t.count;
    sp_test_fail_allocations_after(0);
    sp_status_t st = sp__size_table_add(&t, blocks + 256 * (size_t)count, 5);
    sp_test_restore_allocator();
    ck_assert_int_eq(st, SP_STATUS_ALLOC_FAILED);
    ck_assert_int_eq(t.cap, cap);
    ck_assert_int_eq(t.count, count);
    ck_assert_int_eq(t.current, count);
    for (int64_t i = 0; i < count; i++) sp__size_table_remove(&t, blocks + 256 * (size_t)i);
    ck_assert_int_eq(t.count, 0);
    ck_assert_int_eq(t.current, 0);
    sp__size_table_free(&t);
}
END_TEST

START_TEST(test_cuda_context_without_gpu_is_clean)
{
    sp_context_t *ctx = NULL;
    sp_status_t st = sp_context_create(SP_DEVICE_CUDA, NULL, &ctx);
    if (st == SP_STATUS_SUCCESS) {
        sp_context_destroy(ctx); /* a GPU machine: covered by check_gpu_context */
        return;
    }
    ck_assert(st == SP_STATUS_NOT_COMPILED || st == SP_STATUS_NO_DEVICE);
    ck_assert_ptr_null(ctx);
    ck_assert(strlen(sp_last_error()) > 0);
}
END_TEST

/* The 4x4 example of the sparse-formats chapter: rows {3,0,1,0} {0,0,0,0} {0,2,4,1} {1,0,0,1}. */
static sp_coo_t *pmpp4(sp_value_type_t t)
{
    static const int32_t r[] = {0, 0, 2, 2, 2, 3, 3}, c[] = {0, 2, 1, 2, 3, 0, 3};
    static const double v[] = {3, 1, 2, 4, 1, 1, 1};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(4, 4, 7, t, &a));
    for (int k = 6; k >= 0; k--) { /* reversed: the matrix must sort */
        a->row[6 - k] = r[k];
        a->col[6 - k] = c[k];
        if (t == SP_R_64F) ((double *)a->val)[6 - k] = v[k];
        if (t == SP_R_32F) ((float *)a->val)[6 - k] = (float)v[k];
    }
    a->nnz = 7;
    return a;
}

START_TEST(test_matrix_info_and_views)
{
    sp_context_t *ctx = host();
    sp_coo_t *a = pmpp4(SP_R_64F);
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    sp_format_view_t v;
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.nnz, 7);
    ck_assert_int_eq(info.row_min, 0);
    ck_assert_int_eq(info.row_max, 3);
    ck_assert_int_eq(info.empty_rows, 1);
    ck_assert_double_eq_tol(info.row_mean, 1.75, 1e-12);
    ck_assert_int_eq(info.bytes[SP_FORMAT_CSR], 0);
    ck_assert_status(sp_matrix_view(A, SP_FORMAT_CSR, &v), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("not built");
    for (int f = 0; f < SP_FORMAT_COUNT; f++) ck_assert_ok(sp_matrix_build(ctx, A, (sp_format_t)f));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.bytes[SP_FORMAT_CSR], 5 * (sp_test_default_offset_bits() / 8) + 7 * 12);
    /* slots of 12 bytes, and the value table: a code a slot and 4 distinct values */
    ck_assert_int_eq(info.bytes[SP_FORMAT_ELL], 4 * 3 * 12 + 4 * 3 + 4 * 8);
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_CSR, &v));
    static const int32_t ptr[] = {0, 2, 2, 5, 7}, idx[] = {0, 2, 1, 2, 3, 0, 3};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(sp_test_view_pointer(&v, SP_FORMAT_CSR, i), ptr[i]);
    ck_assert_mem_eq(v.csr.col, idx, sizeof idx);
    ck_assert_ptr_null(v.coo.row); /* only the member of the format is set */
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_ELL, &v));
    ck_assert_int_eq(v.ell.width, 3);
    static const int32_t ell_col[] = {0, -1, 1, 0, 2, -1, 2, 3, -1, -1, 3, -1};
    ck_assert_mem_eq(v.ell.col, ell_col, sizeof ell_col);
    /* the value table: 1, 2, 3, 4 (ascending bit patterns); a stored slot's code is its
       value's place there (value - 1 here), padding code 0 */
    static const double table[] = {1, 2, 3, 4};
    static const int codes[] = {2, -1, 1, 0, 0, -1, 3, 0, -1, -1, 0, -1};
    ck_assert_int_eq(v.ell.ntable, 4);
    ck_assert_mem_eq(v.ell.table, table, sizeof table);
    for (int s = 0; s < 12; s++) ck_assert_int_eq(v.ell.code[s], codes[s] >= 0 ? codes[s] : 0);
    /* the named fields of the other formats */
    static const int32_t coo_row[] = {0, 0, 2, 2, 2, 3, 3};
    static const int32_t col_ptr[] = {0, 2, 3, 5, 7}, csc_row[] = {0, 3, 2, 0, 2, 2, 3};
    static const int32_t perm[] = {2, 0, 3, 1}, jd_ptr[] = {0, 3, 6, 7}, widths[] = {3};
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_COO, &v));
    ck_assert_mem_eq(v.coo.row, coo_row, sizeof coo_row);
    ck_assert_mem_eq(v.coo.col, idx, sizeof idx);
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_CSC, &v));
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(sp_test_view_pointer(&v, SP_FORMAT_CSC, i), col_ptr[i]);
    ck_assert_mem_eq(v.csc.row, csc_row, sizeof csc_row);
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_JDS, &v));
    ck_assert_int_eq(v.jds.njd, 3);
    ck_assert_mem_eq(v.jds.perm, perm, sizeof perm);
    ck_assert_mem_eq(v.jds.jd_ptr, jd_ptr, sizeof jd_ptr);
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_SELL, &v));
    ck_assert_int_eq(v.sell.c, 32);
    ck_assert_int_eq(v.sell.sigma, 32 * 32);
    ck_assert_int_eq(v.sell.nslices, 1);
    ck_assert_int_eq(v.sell.padded, 32 * 3);
    ck_assert_mem_eq(v.sell.slice_width, widths, sizeof widths);
    ck_assert_mem_eq(v.sell.perm, perm, sizeof perm);
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_HYB, &v));
    ck_assert_int_eq(v.hyb.ell_width, info.hyb_ell_width);
    ck_assert_int_eq(v.hyb.coo_nnz, info.hyb_coo_nnz);
    int64_t stored = v.hyb.coo_nnz;
    for (int64_t k = 0; k < 4 * v.hyb.ell_width; k++) stored += v.hyb.ell_col[k] >= 0;
    ck_assert_int_eq(stored, 7); /* every entry once, in the ELL part or the overflow */
    ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_ELL));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.bytes[SP_FORMAT_ELL], 0);
    ck_assert_status(sp_matrix_build(ctx, A, (sp_format_t)9), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

/* sp_matrix_release(COO) once the CSR holds the entries (issue 20): refused while the COO
 * is the only copy, then freed with the counts kept; the CSR is refused release while the
 * COO is gone; a COO product or build makes it again from the CSR, the same arrays and y
 * as before; after that the CSR can go and come back. */
START_TEST(test_matrix_release_coo)
{
    enum { M = 300, N = 280 };
    sp_context_t *ctx = host();
    sp_coo_t *a = sp_test_random_coo(11, M, N, 4000, SP_R_64F,
                                     SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS);
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    sp_format_view_t v;
    static double x[N], y_coo[M], y_csr[M], y[M];
    const double one = 1.0, zero = 0.0;
    for (int i = 0; i < N; i++) x[i] = 0.5 + (double)(i % 7);
    ck_assert_ptr_nonnull(a);
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_matrix_info(A, &info));
    const int64_t nnz = info.nnz;
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_COO, &v));
    int32_t *row0 = malloc((size_t)nnz * 4), *col0 = malloc((size_t)nnz * 4);
    double *val0 = malloc((size_t)nnz * 8);
    ck_assert(row0 && col0 && val0);
    memcpy(row0, v.coo.row, (size_t)nnz * 4);
    memcpy(col0, v.coo.col, (size_t)nnz * 4);
    memcpy(val0, v.coo.val, (size_t)nnz * 8);
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y_coo));
    ck_assert_status(sp_matrix_release(ctx, A, SP_FORMAT_COO), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("COO is the matrix's only copy");
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y_csr));
    ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_COO));
    ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_COO)); /* not built: nothing to free */
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.bytes[SP_FORMAT_COO], 0);
    ck_assert_int_eq(info.nrows, M);
    ck_assert_int_eq(info.ncols, N);
    ck_assert_int_eq(info.nnz, nnz);
    ck_assert_int_eq(info.value_type, SP_R_64F);
    ck_assert_status(sp_matrix_view(A, SP_FORMAT_COO, &v), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_matrix_release(ctx, A, SP_FORMAT_CSR), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("CSR is the matrix's only copy");
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
    ck_assert_mem_eq(y, y_csr, sizeof y);
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
    for (int i = 0; i < M; i++) ck_assert_double_eq_tol(y[i], y_csr[i], 1e-12 * (1 + fabs(y_csr[i])));
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
    ck_assert_mem_eq(y, y_coo, sizeof y); /* made again from the CSR */
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_COO, &v));
    ck_assert_int_eq(v.nnz, nnz);
    ck_assert_mem_eq(v.coo.row, row0, (size_t)nnz * 4);
    ck_assert_mem_eq(v.coo.col, col0, (size_t)nnz * 4);
    ck_assert_mem_eq(v.coo.val, val0, (size_t)nnz * 8);
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.bytes[SP_FORMAT_COO], nnz * 16);
    ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
    ck_assert_mem_eq(y, y_csr, sizeof y);
    free(row0);
    free(col0);
    free(val0);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(test_matrix_create_refuses_bad_coo)
{
    sp_context_t *ctx = host();
    sp_coo_t *a = pmpp4(SP_R_32F);
    sp_matrix_t *A = NULL;
    a->col[3] = 4;
    ck_assert_status(sp_matrix_create(ctx, a, NULL, &A), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("outside the 4 x 4 matrix");
    ck_assert_ptr_null(A);
    a->col[3] = 1;
    a->nrows = (int64_t)1 << 33;
    ck_assert_status(sp_matrix_create(ctx, a, NULL, &A), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("8589934592");
    a->nrows = 4;
    sp_matrix_options_t o = {.duplicates = (sp_dup_policy_t)5};
    ck_assert_status(sp_matrix_create(ctx, a, &o, &A), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_matrix_create(ctx, NULL, NULL, &A), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_coo_create(-1, 2, 0, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("nrows -1");
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(test_duplicates_policy)
{
    sp_context_t *ctx = host();
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    ck_assert_ok(sp_coo_create(2, 2, 3, SP_R_64F, &a));
    int32_t r[] = {1, 0, 1}, c[] = {1, 0, 1};
    double v[] = {2.0, 5.0, 3.0}, x[] = {1.0, 1.0}, y[2], one = 1.0, zero = 0.0;
    memcpy(a->row, r, sizeof r);
    memcpy(a->col, c, sizeof c);
    memcpy(a->val, v, sizeof v);
    a->nnz = 3;
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.duplicates_merged, 1);
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
    ck_assert_double_eq(y[0], 5.0);
    ck_assert_double_eq(y[1], 5.0);
    sp_matrix_destroy(A);
    sp_matrix_options_t keep = {.duplicates = SP_DUP_KEEP};
    ck_assert_ok(sp_matrix_create(ctx, a, &keep, &A));
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
    ck_assert_double_eq(y[1], 2.0); /* the first in input order */
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

/* Every format and applicable algorithm against the dense product, on matrices with
 * empty rows and columns, a long row and duplicates, float and double, beta 0 and not. */
static void spmv_all_formats(int64_t nrows, int64_t ncols, int64_t nnz, sp_value_type_t t,
                             uint64_t seed)
{
    sp_context_t *ctx = host();
    sp_coo_t *a = sp_test_random_coo(seed, nrows, ncols, nnz, t,
                                     SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS |
                                         SP_TEST_LONG_ROW | SP_TEST_EMPTY_COLS);
    sp_matrix_t *A = NULL;
    size_t vs = sp_value_size(t);
    double *xd = calloc((size_t)ncols + 1, sizeof *xd), *yd = calloc((size_t)nrows + 1, 8);
    double *y0 = calloc((size_t)nrows + 1, sizeof *y0);
    char *x = calloc((size_t)ncols + 1, vs), *y = calloc((size_t)nrows + 1, vs);
    uint64_t s = seed ^ 77;
    ck_assert_ptr_nonnull(a);
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    for (int64_t j = 0; j < ncols; j++) {
        xd[j] = 2 * sp_test_uniform(&s) - 1;
        if (t == SP_R_32F) { ((float *)x)[j] = (float)xd[j]; xd[j] = ((float *)x)[j]; }
        else ((double *)x)[j] = xd[j];
    }
    for (int64_t i = 0; i < nrows; i++) y0[i] = 2 * sp_test_uniform(&s) - 1;
    const sp_test_spmv_combo_t *cases = sp_test_spmv_combos; /* every pair */
    double tol = t == SP_R_32F ? 1e-5 : 1e-13;
    for (int c = 0; c < sp_test_spmv_ncombos; c++) {
        for (int use_beta = 0; use_beta < 2; use_beta++) {
            double alpha = 1.5, beta = use_beta ? -0.5 : 0.0;
            float af = (float)alpha, bf = (float)beta;
            for (int64_t i = 0; i < nrows; i++) {
                yd[i] = y0[i];
                double init = use_beta ? y0[i] : NAN; /* beta = 0 must not read y */
                if (t == SP_R_32F) { ((float *)y)[i] = (float)init; yd[i] = (float)y0[i]; }
                else ((double *)y)[i] = init;
            }
            sp_test_dense_spmv(a, alpha, xd, beta, yd);
            ck_assert_ok(sp_spmv(ctx, cases[c].format, cases[c].alg,
                                 t == SP_R_32F ? (const void *)&af : (const void *)&alpha, A, x,
                                 t == SP_R_32F ? (const void *)&bf : (const void *)&beta, y));
            for (int64_t i = 0; i < nrows; i++) {
                double got = t == SP_R_32F ? ((float *)y)[i] : ((double *)y)[i];
                ck_assert_msg(fabs(got - yd[i]) <= tol * (1 + fabs(yd[i])) * (1 + nnz / 64.0),
                              "format %d alg %d row %lld: %.17g vs %.17g",
                              (int)cases[c].format, (int)cases[c].alg, (long long)i, got, yd[i]);
            }
        }
    }
    sp_matrix_destroy(A);
    sp_coo_free(a);
    free(xd); free(yd); free(y0); free(x); free(y);
    sp_context_destroy(ctx);
}

START_TEST(test_spmv_random_double) { spmv_all_formats(300, 200, 2500, SP_R_64F, 1); }
END_TEST
START_TEST(test_spmv_random_float) { spmv_all_formats(257, 513, 4000, SP_R_32F, 2); }
END_TEST
START_TEST(test_spmv_tall_and_wide) {
    spmv_all_formats(1000, 3, 50, SP_R_64F, 3);
    spmv_all_formats(3, 1000, 900, SP_R_64F, 4);
    spmv_all_formats(1, 1, 1, SP_R_32F, 5);
}
END_TEST

START_TEST(test_spmv_empty_matrices)
{
    sp_context_t *ctx = host();
    double one = 1, zero = 0, y[3] = {NAN, NAN, NAN}, x[1] = {1};
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_coo_create(3, 1, 0, SP_R_64F, &a)); /* 3 x 1, no entries */
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    for (int f = 0; f < SP_FORMAT_COUNT; f++) {
        y[0] = y[1] = y[2] = NAN;
        ck_assert_ok(sp_spmv(ctx, (sp_format_t)f, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
        ck_assert(y[0] == 0 && y[1] == 0 && y[2] == 0);
    }
    sp_matrix_destroy(A);
    sp_coo_free(a);
    ck_assert_ok(sp_coo_create(0, 0, 0, SP_R_64F, &a));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    for (int f = 0; f < SP_FORMAT_COUNT; f++)
        ck_assert_ok(sp_spmv(ctx, (sp_format_t)f, SP_SPMV_ALG_DEFAULT, &one, A, NULL, &zero, NULL));
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(test_spmv_refusals)
{
    sp_context_t *ctx = host(), *other = host();
    sp_coo_t *a = pmpp4(SP_R_64F), *p = NULL;
    sp_matrix_t *A = NULL, *P = NULL;
    double one = 1, zero = 0, x[4] = {1, 1, 1, 1}, y[4] = {7, 7, 7, 7};
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_status(sp_spmv(ctx, SP_FORMAT_ELL, SP_SPMV_ALG_CSR_MERGE, &one, A, x, &zero, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("does not apply to format ell");
    ck_assert(y[0] == 7); /* untouched on failure */
    ck_assert_status(sp_spmv(other, SP_FORMAT_CSR, 0, &one, A, x, &zero, y), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("another context");
    ck_assert_status(sp_spmv(ctx, SP_FORMAT_CSR, 0, NULL, A, x, &zero, y), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_spmv(ctx, SP_FORMAT_CSR, 0, &one, A, NULL, &zero, y), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_spmv(ctx, (sp_format_t)-3, 0, &one, A, x, &zero, y), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_ok(sp_coo_copy(a, SP_VALUE_NONE, &p));
    ck_assert_ok(sp_matrix_create(ctx, p, NULL, &P));
    ck_assert_status(sp_spmv(ctx, SP_FORMAT_CSR, 0, &one, P, x, &zero, y), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("pattern");
    sp_matrix_destroy(P);
    sp_matrix_destroy(A);
    sp_coo_free(p);
    sp_coo_free(a);
    sp_context_destroy(other);
    sp_context_destroy(ctx);
}
END_TEST

/* A star: row 0 holds `len` entries, every other row its diagonal. */
static sp_coo_t *star_coo(int64_t n, int64_t len)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(n, n, n + len, SP_R_64F, &a));
    for (int64_t k = 0; k < n; k++) {
        a->row[k] = (int32_t)k; a->col[k] = (int32_t)k; ((double *)a->val)[k] = 1.0;
    }
    for (int64_t k = 1; k <= len; k++) {
        a->row[n + k - 1] = 0; a->col[n + k - 1] = (int32_t)k; ((double *)a->val)[n + k - 1] = 2.0;
    }
    a->nnz = n + len;
    return a;
}

START_TEST(test_long_row_bound_one_wave)
{
    /* With a row past 4 x mean + 32 and every row's thread resident at once (at most
     * 132 x 2048 rows on a host context, the policy's default GPU), JDS and SELL keep ELL's
     * rows (2 x mean): the tail's launch is paid anyway and the walk sets the time. */
    sp_context_t *ctx = host();
    struct { int64_t n, len; } c[] = {
        {1000, 500},   /* mean 1.5: bound 38, row 0 of 501: ELL's 3 */
        {1000, 30},    /* row 0 of 31 within 4 x mean + 32 = 36: no tail */
        {270336, 100}, /* one wave exactly: ELL's 2 */
        {270337, 100}, /* a row more than one wave: 36, row 0's 101 entries in the tail */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        sp_coo_t *a = star_coo(c[i].n, c[i].len);
        sp_matrix_t *A = NULL;
        sp_matrix_info_t info;
        double mean = (double)(c[i].n + c[i].len) / (double)c[i].n;
        int64_t wide = (int64_t)(4.0 * mean + 32.0), ell = (int64_t)(2.0 * mean);
        int64_t row0 = c[i].len + 1, want = row0 > wide && c[i].n <= 132 * 2048 ? ell : wide;
        ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
        ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_SELL));
        ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_JDS));
        ck_assert_ok(sp_matrix_info(A, &info));
        ck_assert_int_eq(info.ell_long_row_bound, ell);
        ck_assert_int_eq(info.long_row_bound, want);
        ck_assert_int_eq(info.sell_tail_nnz, row0 > want ? row0 : 0);
        ck_assert_int_eq(info.jds_tail_nnz, row0 > want ? row0 : 0);
        sp_matrix_destroy(A);
        sp_coo_free(a);
    }
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(test_ell_refused_when_padding_explodes)
{
    /* One row of length n in an n-row matrix: ELL without its long-row tail (the option
     * long_row_bound < 0) would be n^2 slots; HYB and SELL cope, and so does ELL with its
     * tail (the default). */
    sp_context_t *ctx = host();
    const int64_t n = 3000;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL, *B = NULL;
    sp_matrix_options_t no_tail = {0};
    sp_matrix_info_t info;
    no_tail.long_row_bound = -1;
    ck_assert_ok(sp_coo_create(n, n, 2 * n, SP_R_32F, &a));
    for (int64_t k = 0; k < n; k++) {
        a->row[k] = 0; a->col[k] = (int32_t)k; ((float *)a->val)[k] = 1;
        a->row[n + k] = (int32_t)k; a->col[n + k] = (int32_t)k; ((float *)a->val)[n + k] = 1;
    }
    a->nnz = 2 * n;
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &B));
    ck_assert_ok(sp_matrix_build(ctx, B, SP_FORMAT_ELL));
    ck_assert_ok(sp_matrix_info(B, &info));
    ck_assert_int_eq(info.ell_tail_nnz, n);
    ck_assert_int_le(info.ell_width, info.ell_long_row_bound);
    sp_matrix_destroy(B);
    ck_assert_ok(sp_matrix_create(ctx, a, &no_tail, &A));
    ck_assert_status(sp_matrix_build(ctx, A, SP_FORMAT_ELL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("72000000 bytes");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_HYB));
    ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_SELL));
    sp_format_t f;
    ck_assert_ok(sp_spmv_choose_format(ctx, A, &f));
    ck_assert_int_ne(f, SP_FORMAT_ELL);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

/* BFS on a random directed graph, checked by properties against an independent BFS. */
START_TEST(test_bfs_properties)
{
    sp_context_t *ctx = host();
    const int64_t n = 2000;
    sp_coo_t *g = sp_test_random_coo(9, n, n, 3000, SP_VALUE_NONE, SP_TEST_DUPLICATES);
    sp_matrix_t *G = NULL;
    int32_t *level = malloc(n * sizeof *level), *parent = malloc(n * sizeof *parent);
    int32_t *expect = malloc(n * sizeof *expect), *queue = malloc(n * sizeof *queue);
    int64_t sizes[64] = {0};
    const sp_bfs_options_t rec = {.frontier_sizes = sizes, .frontier_capacity = 64};
    sp_bfs_stats_t stats = {0};
    ck_assert_ok(sp_matrix_create(ctx, g, NULL, &G));
    ck_assert_ok(sp_bfs(ctx, G, 5, &rec, level, parent, &stats));
    /* independent BFS by repeated relaxation over the triplets */
    for (int64_t v = 0; v < n; v++) expect[v] = -1;
    expect[5] = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int64_t k = 0; k < g->nnz; k++) {
            int32_t u = g->row[k], v = g->col[k];
            if (expect[u] >= 0 && (expect[v] < 0 || expect[v] > expect[u] + 1)) {
                expect[v] = expect[u] + 1;
                changed = 1;
            }
        }
    }
    int64_t reached = 0, count_per_level[64] = {0};
    for (int64_t v = 0; v < n; v++) {
        ck_assert_int_eq(level[v], expect[v]);
        if (level[v] < 0) { ck_assert_int_eq(parent[v], -1); continue; }
        reached++;
        if (level[v] < 64) count_per_level[level[v]]++;
        if (v == 5) { ck_assert_int_eq(parent[v], 5); continue; }
        int found = 0;
        for (int64_t k = 0; k < g->nnz; k++) found |= g->row[k] == parent[v] && g->col[k] == v;
        ck_assert(found);
        ck_assert_int_eq(level[parent[v]], level[v] - 1);
    }
    ck_assert_int_eq(stats.vertices_visited, reached);
    for (int64_t l = 0; l < stats.levels && l < 64; l++) ck_assert_int_eq(sizes[l], count_per_level[l]);
    ck_assert_status(sp_bfs(ctx, G, n, NULL, level, parent, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("source 2000 outside 0..1999");
    sp_bfs_options_t bad = {.variant = (sp_bfs_variant_t)77};
    ck_assert_status(sp_bfs(ctx, G, 0, &bad, level, parent, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_bfs(ctx, G, 0, NULL, NULL, parent, NULL), SP_STATUS_INVALID_ARGUMENT);
    for (int v = SP_BFS_AUTO; v <= SP_BFS_DIRECTION_OPT; v++) {
        sp_bfs_options_t o = {.variant = (sp_bfs_variant_t)v};
        ck_assert_ok(sp_bfs(ctx, G, 5, &o, level, NULL, NULL));
        for (int64_t u = 0; u < n; u++) ck_assert_int_eq(level[u], expect[u]);
    }
    sp_matrix_destroy(G);
    sp_coo_free(g);
    free(level); free(parent); free(expect); free(queue);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(test_symmetrize)
{
    sp_coo_t *g = NULL;
    ck_assert_ok(sp_coo_create(3, 3, 4, SP_VALUE_NONE, &g));
    int32_t r[] = {0, 1, 2, 0}, c[] = {1, 0, 2, 2};
    memcpy(g->row, r, sizeof r);
    memcpy(g->col, c, sizeof c);
    g->nnz = 4;
    ck_assert_ok(sp_coo_symmetrize(g, 1));
    static const int32_t er[] = {0, 0, 1, 2}, ec[] = {1, 2, 0, 0};
    ck_assert_int_eq(g->nnz, 4);
    ck_assert_mem_eq(g->row, er, sizeof er);
    ck_assert_mem_eq(g->col, ec, sizeof ec);
    g->ncols = 4;
    ck_assert_status(sp_coo_symmetrize(g, 1), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("3 x 4");
    sp_coo_free(g);
}
END_TEST

/* Two host contexts used from two threads at once: each gets the right result, and each
 * thread's error stays its own (sp_last_error is per thread, the context's per context). */
typedef struct worker {
    int id;
    int ok;
    char error[256];
} worker_t;

static void *spmv_worker(void *arg)
{
    worker_t *w = arg;
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    double x[4096], y[4096], one = 1, zero = 0;
    w->ok = 0;
    if (sp_context_create(SP_DEVICE_HOST, NULL, &ctx) || sp_gen_poisson2d(64, SP_R_64F, &a) ||
        sp_matrix_create(ctx, a, NULL, &A))
        goto done;
    for (int i = 0; i < 4096; i++) x[i] = 1;
    for (int rep = 0; rep < 200; rep++) {
        sp_format_t f = (sp_format_t)((rep + w->id) % SP_FORMAT_COUNT);
        if (sp_spmv(ctx, f, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y)) goto done;
        double sum = 0;
        for (int i = 0; i < 4096; i++) sum += y[i];
        if (sum != 4 * 64) goto done; /* boundary rows: 2 x 64 x 2 sides */
        /* a failure on this thread only: the other thread's message must not change */
        if (w->id == 1 && sp_spmv(ctx, f, (sp_spmv_alg_t)99, &one, A, x, &zero, y) == 0) goto done;
    }
    snprintf(w->error, sizeof w->error, "%s", sp_last_error());
    w->ok = 1;
done:
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
    return NULL;
}

START_TEST(test_two_threads)
{
    pthread_t t[2];
    worker_t w[2] = {{0, 0, ""}, {1, 0, ""}};
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, spmv_worker, &w[i]), 0);
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    ck_assert(w[0].ok && w[1].ok);
    ck_assert_str_eq(w[0].error, "");                  /* thread 0 never failed */
    ck_assert_ptr_nonnull(strstr(w[1].error, "algorithm 99"));
}
END_TEST

/* A context keeps working after a failed call, and its last error is the failed call's. */
START_TEST(test_context_reused_after_error)
{
    sp_context_t *ctx = host();
    sp_coo_t *a = pmpp4(SP_R_64F);
    sp_matrix_t *A = NULL;
    double one = 1, zero = 0, x[4] = {1, 1, 1, 1}, y[4];
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_status(sp_bfs(ctx, A, 9, NULL, (int32_t *)y, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(sp_context_last_error(ctx), "source 9"));
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
    ck_assert_double_eq(y[0], 4.0);
    ck_assert_double_eq(y[2], 7.0);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_status_and_version);
    tcase_add_test(tc, test_context);
    tcase_add_test(tc, test_cuda_context_without_gpu_is_clean);
    tcase_add_test(tc, test_context_memory_on_host);
    tcase_add_test(tc, test_size_table);
    tcase_add_test(tc, test_matrix_info_and_views);
    tcase_add_test(tc, test_matrix_create_refuses_bad_coo);
    tcase_add_test(tc, test_matrix_release_coo);
    tcase_add_test(tc, test_duplicates_policy);
    tcase_add_test(tc, test_spmv_random_double);
    tcase_add_test(tc, test_spmv_random_float);
    tcase_add_test(tc, test_spmv_tall_and_wide);
    tcase_add_test(tc, test_spmv_empty_matrices);
    tcase_add_test(tc, test_spmv_refusals);
    tcase_add_test(tc, test_long_row_bound_one_wave);
    tcase_add_test(tc, test_ell_refused_when_padding_explodes);
    tcase_add_test(tc, test_bfs_properties);
    tcase_add_test(tc, test_symmetrize);
    tcase_add_test(tc, test_two_threads);
    tcase_add_test(tc, test_context_reused_after_error);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return sp_test_run(api_suite()); }
