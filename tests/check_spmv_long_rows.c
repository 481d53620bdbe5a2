/* Issue 23 on a host context: the long-row tails of ELL, JDS and SELL (hand-checked on a
 * tiny matrix, and against CSR on every shape of sp_gen_shape), the shapes themselves
 * (sizes and structure, refusals naming the argument), and sp_spmv_tune (the cost model's
 * pick, cached, used by AUTO). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static sp_context_t *host(void)
{
    sp_context_t *ctx = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    return ctx;
}

/* [1 0 2 0; 0 3 0 0; 4 0 5 6] with rows longer than 2 in the tails: y = A * ones. */
START_TEST(tail_hand_checked)
{
    static const int32_t row[] = {0, 0, 1, 2, 2, 2}, col[] = {0, 2, 1, 0, 2, 3};
    static const double val[] = {1, 2, 3, 4, 5, 6};
    static const sp_format_t fmts[] = {SP_FORMAT_ELL, SP_FORMAT_JDS, SP_FORMAT_SELL};
    sp_context_t *ctx = host();
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_options_t opt = {0};
    sp_matrix_info_t info;
    double x[4] = {1, 1, 1, 1};
    ck_assert_ok(sp_coo_create(3, 4, 6, SP_R_64F, &a));
    for (int k = 0; k < 6; k++) a->row[k] = row[k], a->col[k] = col[k], ((double *)a->val)[k] = val[k];
    a->nnz = 6;
    opt.long_row_bound = 2;
    ck_assert_ok(sp_matrix_create(ctx, a, &opt, &A));
    for (int i = 0; i < 3; i++) {
        double y[3] = {7, 7, 7};
        ck_assert_ok(sp_spmv_f64(ctx, fmts[i], SP_SPMV_ALG_DEFAULT, 2.0, A, x, 0.5, y));
        ck_assert_double_eq(y[0], 2 * 3 + 3.5);
        ck_assert_double_eq(y[1], 2 * 3 + 3.5);
        ck_assert_double_eq(y[2], 2 * 15 + 3.5); /* the tail's row, beta applied once */
    }
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.long_row_bound, 2);
    ck_assert_int_eq(info.ell_tail_nnz, 3);
    ck_assert_int_eq(info.jds_tail_nnz, 3);
    ck_assert_int_eq(info.sell_tail_nnz, 3);
    ck_assert_int_eq(info.ell_width, 2);
    for (int i = 0; i < 3; i++) { /* the views show the tail: row 2 whole, in column order */
        static const int32_t tail_row[] = {2, 2, 2}, tail_col[] = {0, 2, 3};
        static const double tail_val[] = {4, 5, 6};
        sp_format_view_t v;
        ck_assert_ok(sp_matrix_view(A, fmts[i], &v));
        ck_assert_int_eq(v.tail.nnz, 3);
        ck_assert_mem_eq(v.tail.row, tail_row, sizeof tail_row);
        ck_assert_mem_eq(v.tail.col, tail_col, sizeof tail_col);
        ck_assert_mem_eq(v.tail.val, tail_val, sizeof tail_val);
    }
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

/* y of every format against CSR's on the shape g, double and float (relative to the row's
 * sum of |a x|, the bound of a reordered sum). Returns the matrix's info with ELL, JDS and
 * SELL built. */
static sp_matrix_info_t check_formats(const sp_gen_shape_t *g)
{
    static const sp_value_type_t types[] = {SP_R_64F, SP_R_32F};
    sp_matrix_info_t info;
    memset(&info, 0, sizeof info);
    for (int t = 0; t < 2; t++) {
        sp_context_t *ctx = host();
        sp_coo_t *a = NULL;
        sp_matrix_t *A = NULL;
        ck_assert_ok(sp_gen_shape(g, types[t], &a));
        ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
        int64_t m = a->nrows, n = a->ncols;
        size_t vs = types[t] == SP_R_32F ? 4 : 8;
        void *x = malloc((size_t)n * vs), *want = malloc((size_t)m * vs), *y = malloc((size_t)m * vs);
        ck_assert_ptr_nonnull(x);
        ck_assert_ptr_nonnull(want);
        ck_assert_ptr_nonnull(y);
        for (int64_t j = 0; j < n; j++) {
            double v = 1.0 / (double)(1 + j % 13);
            if (vs == 4) ((float *)x)[j] = (float)v;
            else ((double *)x)[j] = v;
        }
        double one = 1, zero = 0;
        float one_f = 1, zero_f = 0;
        const void *al = vs == 4 ? (const void *)&one_f : (const void *)&one;
        const void *be = vs == 4 ? (const void *)&zero_f : (const void *)&zero;
        ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, al, A, x, be, want));
        /* every format, then CSR scalar and vector (whose GPU plans take long rows apart) */
        for (int f = 0; f <= SP_FORMAT_COUNT + 2; f++) {
            sp_format_t fmt = f == SP_FORMAT_COUNT ? SP_FORMAT_AUTO
                              : f > SP_FORMAT_COUNT ? SP_FORMAT_CSR
                                                    : (sp_format_t)f;
            sp_spmv_alg_t alg = f == SP_FORMAT_COUNT + 1 ? SP_SPMV_ALG_CSR_SCALAR
                                : f == SP_FORMAT_COUNT + 2 ? SP_SPMV_ALG_CSR_VECTOR
                                                           : SP_SPMV_ALG_DEFAULT;
            ck_assert_msg(sp_spmv(ctx, fmt, alg, al, A, x, be, y) == SP_STATUS_SUCCESS,
                          "shape %d format %d: %s", (int)g->kind, (int)fmt, sp_last_error());
            for (int64_t i = 0; i < m; i++) {
                double w = vs == 4 ? ((float *)want)[i] : ((double *)want)[i];
                double got = vs == 4 ? ((float *)y)[i] : ((double *)y)[i];
                double tol = (vs == 4 ? 1e-4 : 1e-11) * (1.0 + fabs(w)) * 64;
                ck_assert_msg(fabs(got - w) <= tol, "shape %d %s %s row %lld: %.17g vs %.17g",
                              (int)g->kind, vs == 4 ? "float" : "double",
                              sp_format_name(fmt), (long long)i, got, w);
            }
        }
        ck_assert_ok(sp_matrix_info(A, &info));
        free(y);
        free(want);
        free(x);
        sp_matrix_destroy(A);
        sp_coo_free(a);
        sp_context_destroy(ctx);
    }
    return info;
}

START_TEST(every_shape_every_format)
{
    sp_gen_shape_t g = {.kind = SP_GEN_POWERLAW, .nrows = 3000, .ncols = 3000, .mean = 8,
                        .exponent = 1.5, .seed = 1};
    sp_matrix_info_t info = check_formats(&g);
    ck_assert_int_gt(info.sell_tail_nnz, 0);
    ck_assert_int_gt(info.jds_tail_nnz, 0);
    ck_assert_int_gt(info.ell_tail_nnz, 0);
    g.exponent = 2.5;
    check_formats(&g);
    g = (sp_gen_shape_t){.kind = SP_GEN_DENSE_LINES, .nrows = 2000, .ncols = 2000, .mean = 5,
                         .dense = 2, .seed = 2};
    info = check_formats(&g);
    ck_assert_int_ge(info.sell_tail_nnz, 2 * 2000);
    g = (sp_gen_shape_t){.kind = SP_GEN_RECT, .nrows = 5000, .ncols = 300, .mean = 6, .seed = 3};
    check_formats(&g);
    g.nrows = 300, g.ncols = 5000, g.mean = 40;
    check_formats(&g);
    g = (sp_gen_shape_t){.kind = SP_GEN_BANDED, .nrows = 2000, .ncols = 2000, .band = 30, .seed = 4};
    info = check_formats(&g);
    ck_assert_int_eq(info.sell_tail_nnz, 0); /* bands within 4 x mean + 32 */
    g = (sp_gen_shape_t){.kind = SP_GEN_BLOCKS, .nrows = 1800, .ncols = 1800, .block = 6,
                         .mean = 5, .seed = 5};
    check_formats(&g);
    g = (sp_gen_shape_t){.kind = SP_GEN_CIRCUIT, .nrows = 4000, .ncols = 4000, .dense = 3, .seed = 6};
    info = check_formats(&g);
    ck_assert_int_gt(info.sell_tail_nnz, 3 * 400);
}
END_TEST

/* Row lengths of a shape (after no merging: the generator's own rows). */
static int64_t *row_lengths(const sp_coo_t *a)
{
    int64_t *len = calloc((size_t)a->nrows + 1, sizeof *len);
    ck_assert_ptr_nonnull(len);
    for (int64_t k = 0; k < a->nnz; k++) len[a->row[k]]++;
    return len;
}

START_TEST(shapes_have_their_structure)
{
    sp_coo_t *a = NULL, *b = NULL;
    int64_t *len = NULL;
    /* power law: mean near the asked one, a longest row far beyond it, deterministic */
    sp_gen_shape_t g = {.kind = SP_GEN_POWERLAW, .nrows = 100000, .ncols = 100000, .mean = 10,
                        .exponent = 2.1, .seed = 7};
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &b));
    ck_assert_int_eq(a->nnz, b->nnz);
    ck_assert_mem_eq(a->col, b->col, (size_t)a->nnz * sizeof *a->col);
    ck_assert_double_le(fabs((double)a->nnz / 100000.0 - 10.0), 2.0);
    len = row_lengths(a);
    int64_t longest = 0;
    for (int64_t r = 0; r < a->nrows; r++) longest = len[r] > longest ? len[r] : longest;
    ck_assert_int_gt(longest, 500);
    free(len);
    sp_coo_free(b);
    sp_coo_free(a);
    /* dense lines: row 0 full, the last column in every row */
    g = (sp_gen_shape_t){.kind = SP_GEN_DENSE_LINES, .nrows = 1000, .ncols = 800, .mean = 4,
                         .dense = 2, .seed = 8};
    ck_assert_ok(sp_gen_shape(&g, SP_R_32F, &a));
    len = row_lengths(a);
    ck_assert_int_eq(len[0], 800);
    ck_assert_int_eq(len[999], 6);
    free(len);
    sp_coo_free(a);
    /* banded: every entry within its section's half-bandwidth of the diagonal */
    g = (sp_gen_shape_t){.kind = SP_GEN_BANDED, .nrows = 800, .ncols = 800, .band = 16, .seed = 9};
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    for (int64_t k = 0; k < a->nnz; k++) {
        int64_t h = 16 >> (a->row[k] * 8 / 800);
        h = h < 1 ? 1 : h;
        ck_assert_int_le(llabs((long long)a->col[k] - a->row[k]), h);
    }
    sp_coo_free(a);
    /* blocks: block * mean entries a row, columns in whole blocks */
    g = (sp_gen_shape_t){.kind = SP_GEN_BLOCKS, .nrows = 600, .ncols = 600, .block = 3, .mean = 4,
                         .seed = 10};
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    ck_assert_int_eq(a->nnz, 600 * 12);
    sp_coo_free(a);
    /* circuit: the diagonal everywhere, `dense` rows of ncols / 8 + 3 */
    g = (sp_gen_shape_t){.kind = SP_GEN_CIRCUIT, .nrows = 8000, .ncols = 8000, .dense = 4, .seed = 11};
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    len = row_lengths(a);
    int nlong = 0;
    for (int64_t r = 0; r < a->nrows; r++) nlong += len[r] == 1000 + 3;
    ck_assert_int_eq(nlong, 4);
    ck_assert_int_eq(a->nnz, 8000 * 3 + 4 * 1000);
    free(len);
    sp_coo_free(a);
}
END_TEST

START_TEST(shapes_refuse_bad_arguments)
{
    sp_coo_t *a = NULL;
    sp_gen_shape_t g = {.kind = SP_GEN_POWERLAW, .nrows = 10, .ncols = 10, .mean = 2,
                        .exponent = 1.0};
    ck_assert_status(sp_gen_shape(&g, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("exponent 1");
    g = (sp_gen_shape_t){.kind = SP_GEN_BLOCKS, .nrows = 10, .ncols = 10, .mean = 2, .block = 0};
    ck_assert_status(sp_gen_shape(&g, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("block 0");
    g = (sp_gen_shape_t){.kind = SP_GEN_RECT, .nrows = 10, .ncols = 0, .mean = 2};
    ck_assert_status(sp_gen_shape(&g, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("10 x 0");
    /* 5 x 10^9 entries: only memory refuses (issue 20), here a 1 GiB cap */
    g = (sp_gen_shape_t){.kind = SP_GEN_RECT, .nrows = 100000, .ncols = 100000, .mean = 50000};
    sp_test_fail_allocations_above((size_t)1 << 30);
    ck_assert_status(sp_gen_shape(&g, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    sp_test_restore_allocator();
    ck_assert_error_has("entries of 16 bytes");
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_status(sp_gen_shape(NULL, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_ptr_null(a);
}
END_TEST

START_TEST(tune_on_the_host)
{
    sp_context_t *ctx = host();
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_format_t f = SP_FORMAT_AUTO, chosen = SP_FORMAT_AUTO;
    sp_spmv_alg_t alg = SP_SPMV_ALG_DEFAULT;
    sp_gen_shape_t g = {.kind = SP_GEN_CIRCUIT, .nrows = 5000, .ncols = 5000, .dense = 2, .seed = 1};
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_spmv_choose_format(ctx, A, &chosen));
    ck_assert_ok(sp_spmv_tune(ctx, A, &f, &alg));
    ck_assert_int_eq(f, chosen); /* the model's pick on a host */
    ck_assert_int_eq(f, SP_FORMAT_CSR); /* long rows: not SELL */
    ck_assert_ok(sp_spmv_tune(ctx, A, NULL, NULL));
    ck_assert_ok(sp_spmv_choose_format(ctx, A, &chosen));
    ck_assert_int_eq(chosen, f);
    ck_assert_status(sp_spmv_tune(ctx, NULL, &f, &alg), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_tune: ctx or A is NULL");
    sp_matrix_destroy(A);
    { /* a pattern has no product to tune */
        sp_coo_t *p = NULL;
        ck_assert_ok(sp_coo_copy(a, SP_VALUE_NONE, &p));
        ck_assert_ok(sp_matrix_create(ctx, p, NULL, &A));
        ck_assert_status(sp_spmv_tune(ctx, A, &f, &alg), SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has("pattern");
        sp_matrix_destroy(A);
        sp_coo_free(p);
    }
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

static Suite *long_rows_suite(void)
{
    Suite *s = suite_create("spmv_long_rows");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tail_hand_checked);
    tcase_add_test(tc, every_shape_every_format);
    tcase_add_test(tc, shapes_have_their_structure);
    tcase_add_test(tc, shapes_refuse_bad_arguments);
    tcase_add_test(tc, tune_on_the_host);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sp_test_run(long_rows_suite());
}
