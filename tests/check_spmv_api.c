/* The SpMV entry points beside sp_spmv on a host context: sp_spmv_prepare (builds the
 * format, resolves AUTO, refuses what sp_spmv refuses), the typed forms sp_spmv_f64 and
 * sp_spmv_f32 (the same y as sp_spmv; a matrix of the other type refused naming both
 * types) and sp_spmv_vec on vector handles (alpha and beta rounded to A's type; vectors of
 * another type, length or context refused, naming which). */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* A 3 x 4 matrix of type t (hand-checked products below):
 *   [1 0 2 0]
 *   [0 3 0 0]
 *   [4 0 5 6] */
static sp_matrix_t *small_matrix(sp_context_t *ctx, sp_value_type_t t)
{
    static const int32_t row[] = {0, 0, 1, 2, 2, 2}, col[] = {0, 2, 1, 0, 2, 3};
    static const double val[] = {1, 2, 3, 4, 5, 6};
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_coo_create(3, 4, 6, t, &a));
    for (int k = 0; k < 6; k++) {
        a->row[k] = row[k], a->col[k] = col[k];
        if (t == SP_R_32F) ((float *)a->val)[k] = (float)val[k];
        else ((double *)a->val)[k] = val[k];
    }
    a->nnz = 6;
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    sp_coo_free(a);
    return A;
}

static sp_context_t *host(void)
{
    sp_context_t *ctx = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    return ctx;
}

START_TEST(prepare_builds_the_format)
{
    sp_context_t *ctx = host();
    sp_matrix_t *A = small_matrix(ctx, SP_R_64F);
    sp_matrix_info_t info;
    sp_format_t chosen;
    ck_assert_ok(sp_spmv_prepare(ctx, A, SP_FORMAT_SELL, SP_SPMV_ALG_DEFAULT));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_gt(info.bytes[SP_FORMAT_SELL], 0);
    ck_assert_int_gt(info.bytes[SP_FORMAT_CSR], 0); /* every format comes from CSR */
    ck_assert_int_eq(info.bytes[SP_FORMAT_JDS], 0);
    ck_assert_ok(sp_spmv_prepare(ctx, A, SP_FORMAT_CSR, SP_SPMV_ALG_CSR_ADAPTIVE));
    ck_assert_ok(sp_spmv_choose_format(ctx, A, &chosen));
    ck_assert_ok(sp_spmv_prepare(ctx, A, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_gt(info.bytes[chosen], 0);
    /* refusals, each naming the function and the argument */
    ck_assert_status(sp_spmv_prepare(NULL, A, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_prepare: ctx or A is NULL");
    ck_assert_status(sp_spmv_prepare(ctx, A, SP_FORMAT_ELL, SP_SPMV_ALG_CSR_MERGE),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_prepare: algorithm 5 does not apply to format ell");
    ck_assert_status(sp_spmv_prepare(ctx, A, (sp_format_t)42, SP_SPMV_ALG_DEFAULT),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown format 42");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.bytes[SP_FORMAT_ELL], 0); /* a refused call builds nothing */
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(prepare_refuses_a_pattern)
{
    sp_context_t *ctx = host();
    sp_coo_t *g = sp_test_random_coo(1, 10, 10, 20, SP_VALUE_NONE, 0);
    sp_matrix_t *G = NULL;
    ck_assert_ok(sp_matrix_create(ctx, g, NULL, &G));
    ck_assert_status(sp_spmv_prepare(ctx, G, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_prepare: the matrix is a pattern");
    sp_matrix_destroy(G);
    sp_coo_free(g);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(typed_forms)
{
    sp_context_t *ctx = host();
    sp_matrix_t *A = small_matrix(ctx, SP_R_64F), *F = small_matrix(ctx, SP_R_32F);
    const double x[4] = {1, 2, 3, 4};
    const float xf[4] = {1, 2, 3, 4};
    double y[3] = {1, 1, 1}, y0[3] = {1, 1, 1}, alpha = 2, beta = -1;
    float yf[3] = {1, 1, 1};
    /* y = 2 A x - y: A x = (7, 6, 43) */
    ck_assert_ok(sp_spmv_f64(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 2.0, A, x, -1.0, y));
    ck_assert_double_eq(y[0], 13);
    ck_assert_double_eq(y[1], 11);
    ck_assert_double_eq(y[2], 85);
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &alpha, A, x, &beta, y0));
    ck_assert_mem_eq(y, y0, sizeof y);
    ck_assert_ok(sp_spmv_f32(ctx, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT, 2.0f, F, xf, -1.0f, yf));
    ck_assert_float_eq(yf[0], 13);
    ck_assert_float_eq(yf[1], 11);
    ck_assert_float_eq(yf[2], 85);
    /* the other type: refused, y untouched, both types named */
    ck_assert_status(sp_spmv_f64(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1.0, F, x, 0.0, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_str_eq(sp_last_error(), "sp_spmv_f64: A holds float values (SP_R_32F), not double");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    ck_assert_double_eq(y[0], 13);
    ck_assert_status(sp_spmv_f32(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1.0f, A, xf, 0.0f, yf),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_str_eq(sp_last_error(), "sp_spmv_f32: A holds double values (SP_R_64F), not float");
    ck_assert_float_eq(yf[0], 13);
    /* the other checks under the typed name */
    ck_assert_status(sp_spmv_f64(ctx, SP_FORMAT_ELL, SP_SPMV_ALG_CSR_SCALAR, 1.0, A, x, 0.0, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_f64: algorithm 3 does not apply to format ell");
    ck_assert_status(sp_spmv_f64(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1.0, NULL, x, 0, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_f64: A is NULL");
    sp_matrix_destroy(F);
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(typed_form_refuses_a_pattern)
{
    sp_context_t *ctx = host();
    sp_coo_t *g = sp_test_random_coo(1, 4, 3, 5, SP_VALUE_NONE, 0);
    sp_matrix_t *G = NULL;
    double x[3] = {0}, y[4] = {0};
    ck_assert_ok(sp_matrix_create(ctx, g, NULL, &G));
    ck_assert_status(sp_spmv_f64(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1.0, G, x, 0.0, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_str_eq(sp_last_error(),
                     "sp_spmv_f64: A holds no values (SP_VALUE_NONE: a pattern), not double");
    sp_matrix_destroy(G);
    sp_coo_free(g);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(vector_form)
{
    sp_context_t *ctx = host(), *other = host();
    sp_matrix_t *A = small_matrix(ctx, SP_R_64F), *F = small_matrix(ctx, SP_R_32F);
    const double hx[4] = {1, 2, 3, 4}, ones[3] = {1, 1, 1};
    const float hxf[4] = {1, 2, 3, 4};
    double hy[3];
    float hyf[3];
    sp_vector_t *x = NULL, *y = NULL, *xf = NULL, *yf = NULL, *x3 = NULL, *xo = NULL;
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, 4, hx, &x));
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, 3, ones, &y));
    ck_assert_ok(sp_vector_create(ctx, SP_R_32F, 4, hxf, &xf));
    ck_assert_ok(sp_vector_create(ctx, SP_R_32F, 3, NULL, &yf));
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, 3, NULL, &x3));
    ck_assert_ok(sp_vector_create(other, SP_R_64F, 4, hx, &xo));
    ck_assert_ok(sp_spmv_vec(ctx, SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT, 2.0, A, x, -1.0, y));
    ck_assert_ok(sp_vector_copy_to_host(ctx, y, hy));
    ck_assert_double_eq(hy[0], 13);
    ck_assert_double_eq(hy[1], 11);
    ck_assert_double_eq(hy[2], 85);
    /* alpha rounded to float for a float matrix: 0.1f * 7 */
    ck_assert_ok(sp_spmv_vec(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 0.1, F, xf, 0.0, yf));
    ck_assert_ok(sp_vector_copy_to_host(ctx, yf, hyf));
    ck_assert_float_eq(hyf[0], 0.1f * 7.0f);
    /* refusals name the vector and what differs; y untouched */
    ck_assert_status(sp_spmv_vec(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1, A, xf, 0, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_str_eq(sp_last_error(), "sp_spmv_vec: x holds float values (SP_R_32F), "
                                      "A holds double values (SP_R_64F)");
    ck_assert_status(sp_spmv_vec(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1, A, x, 0, yf),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_vec: y holds float values");
    ck_assert_status(sp_spmv_vec(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1, A, x3, 0, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_str_eq(sp_last_error(), "sp_spmv_vec: x has 3 values, A 4 columns");
    ck_assert_status(sp_spmv_vec(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1, A, x, 0, x),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("x and y are the same vector");
    ck_assert_status(sp_spmv_vec(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1, A, xo, 0, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_vec: x belongs to another context");
    ck_assert_status(sp_spmv_vec(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1, A, NULL, 0, y),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_spmv_vec: x or y is NULL");
    ck_assert_ok(sp_vector_copy_to_host(ctx, y, hy));
    ck_assert_double_eq(hy[0], 13);
    sp_vector_destroy(xo);
    sp_vector_destroy(x3);
    sp_vector_destroy(yf);
    sp_vector_destroy(xf);
    sp_vector_destroy(y);
    sp_vector_destroy(x);
    sp_matrix_destroy(F);
    sp_matrix_destroy(A);
    sp_context_destroy(other);
    sp_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("spmv_api");
    TCase *tc = tcase_create("host");
    tcase_add_test(tc, prepare_builds_the_format);
    tcase_add_test(tc, prepare_refuses_a_pattern);
    tcase_add_test(tc, typed_forms);
    tcase_add_test(tc, typed_form_refuses_a_pattern);
    tcase_add_test(tc, vector_form);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
