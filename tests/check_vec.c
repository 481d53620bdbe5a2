/* Vectors and their steps on a host context (the reference the GPU suite compares with):
 * create / copy / fill, axpby, scale, dot, nrm2 and the fused axpby + nrm2 on hand-checked
 * values, results on the host and in device-side slots, float and double; sp_sptrsv on
 * hand-checked triangles of a full matrix; every refusal with its message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static sp_context_t *ctx;

static void setup(void) { ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx)); }
static void teardown(void)
{
    sp_context_destroy(ctx);
    ctx = NULL;
}

static sp_vector_t *vec_d(int64_t n, const double *h)
{
    sp_vector_t *v = NULL;
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, n, h, &v));
    return v;
}

START_TEST(create_copy_fill)
{
    double h[3] = {1, -2, 3.5}, got[3] = {0};
    sp_vector_t *v = vec_d(3, h), *z = vec_d(3, NULL), *w = NULL;
    ck_assert_int_eq(sp_vector_length(v), 3);
    ck_assert_int_eq(sp_vector_value_type(v), SP_R_64F);
    ck_assert_ok(sp_vector_copy_to_host(ctx, z, got));
    ck_assert(got[0] == 0 && got[1] == 0 && got[2] == 0);
    ck_assert_ok(sp_vector_copy(ctx, v, z));
    ck_assert_ok(sp_vector_copy_to_host(ctx, z, got));
    ck_assert(memcmp(got, h, sizeof h) == 0);
    ck_assert(((double *)sp_vector_data(z))[2] == 3.5);
    ck_assert_ok(sp_vector_fill(ctx, z, 0.25));
    ck_assert_ok(sp_vector_copy_to_host(ctx, z, got));
    ck_assert(got[0] == 0.25 && got[2] == 0.25);
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, 0, NULL, &w)); /* empty is valid */
    ck_assert_int_eq(sp_vector_length(w), 0);
    sp_vector_destroy(w);
    sp_vector_destroy(z);
    sp_vector_destroy(v);
    sp_vector_destroy(NULL);
    ck_assert_int_eq(sp_vector_length(NULL), 0);
}
END_TEST

START_TEST(axpby_scale_hand)
{
    double hx[3] = {1, 2, 3}, hy[3] = {4, 5, 6}, got[3];
    sp_vector_t *x = vec_d(3, hx), *y = vec_d(3, hy);
    ck_assert_ok(sp_vector_axpby(ctx, 2.0, x, -1.0, y));
    ck_assert_ok(sp_vector_copy_to_host(ctx, y, got)); /* y = 2x - y */
    ck_assert(got[0] == -2 && got[1] == -1 && got[2] == 0);
    ck_assert_ok(sp_vector_scale(ctx, -0.5, y));
    ck_assert_ok(sp_vector_copy_to_host(ctx, y, got));
    ck_assert(got[0] == 1 && got[1] == 0.5 && got[2] == 0);
    /* beta = 0 never reads y: NaN does not leak; alpha = 0 scaling stores zeros */
    ck_assert_ok(sp_vector_fill(ctx, y, NAN));
    ck_assert_ok(sp_vector_axpby(ctx, 3.0, x, 0.0, y));
    ck_assert_ok(sp_vector_copy_to_host(ctx, y, got));
    ck_assert(got[0] == 3 && got[1] == 6 && got[2] == 9);
    ck_assert_ok(sp_vector_fill(ctx, y, NAN));
    ck_assert_ok(sp_vector_scale(ctx, 0.0, y));
    ck_assert_ok(sp_vector_copy_to_host(ctx, y, got));
    ck_assert(got[0] == 0 && got[1] == 0 && got[2] == 0);
    /* x may be y: y = y + y */
    ck_assert_ok(sp_vector_axpby(ctx, 1.0, x, 1.0, x));
    ck_assert_ok(sp_vector_copy_to_host(ctx, x, got));
    ck_assert(got[0] == 2 && got[1] == 4 && got[2] == 6);
    sp_vector_destroy(y);
    sp_vector_destroy(x);
}
END_TEST

START_TEST(reductions_hand)
{
    double hx[3] = {1, 2, 3}, hy[3] = {4, 5, 6}, r = 0, slots[3];
    sp_vector_t *x = vec_d(3, hx), *y = vec_d(3, hy), *res = vec_d(3, NULL);
    ck_assert_ok(sp_vector_dot(ctx, x, y, &r));
    ck_assert(r == 32);
    ck_assert_ok(sp_vector_nrm2(ctx, x, &r));
    ck_assert(r == sqrt(14.0));
    ck_assert_ok(sp_vector_dot_async(ctx, x, y, res, 0));
    ck_assert_ok(sp_vector_nrm2_async(ctx, y, res, 2));
    ck_assert_ok(sp_vector_copy_to_host(ctx, res, slots));
    ck_assert(slots[0] == 32 && slots[1] == 0 && slots[2] == sqrt(77.0));
    /* y = x - y = (-3, -3, -3), ||y|| = sqrt(27) in the same pass */
    ck_assert_ok(sp_vector_axpby_nrm2(ctx, 1.0, x, -1.0, y, &r));
    ck_assert(r == sqrt(27.0));
    ck_assert_ok(sp_vector_axpby_nrm2_async(ctx, 0.0, x, 2.0, y, res, 1)); /* y = 2y */
    ck_assert_ok(sp_vector_copy_to_host(ctx, res, slots));
    ck_assert(slots[1] == sqrt(108.0));
    sp_vector_destroy(res);
    sp_vector_destroy(y);
    sp_vector_destroy(x);
}
END_TEST

/* float vectors: values rounded once to float, sums in double */
START_TEST(float_vectors)
{
    float hx[4] = {1.5f, -2, 0.1f, 4}, hy[4] = {2, 2, 2, 2}, got[4];
    double r = 0, want = 0;
    sp_vector_t *x = NULL, *y = NULL;
    ck_assert_ok(sp_vector_create(ctx, SP_R_32F, 4, hx, &x));
    ck_assert_ok(sp_vector_create(ctx, SP_R_32F, 4, hy, &y));
    for (int i = 0; i < 4; i++) want += (double)hx[i] * 2.0;
    ck_assert_ok(sp_vector_dot(ctx, x, y, &r));
    ck_assert(r == want);
    ck_assert_ok(sp_vector_axpby(ctx, 0.5, x, 1.0, y));
    ck_assert_ok(sp_vector_copy_to_host(ctx, y, got));
    for (int i = 0; i < 4; i++) ck_assert(got[i] == (float)(0.5 * (double)hx[i] + 2.0));
    sp_vector_destroy(y);
    sp_vector_destroy(x);
}
END_TEST

/* A larger random dot equals the plain sequential sum in double exactly. */
START_TEST(random_dot)
{
    enum { N = 10007 };
    double *hx = malloc(N * sizeof *hx), *hy = malloc(N * sizeof *hy), want = 0, r = 0;
    uint64_t seed = 7;
    for (int i = 0; i < N; i++) {
        hx[i] = 2 * sp_test_uniform(&seed) - 1;
        hy[i] = 2 * sp_test_uniform(&seed) - 1;
        want += hx[i] * hy[i];
    }
    sp_vector_t *x = vec_d(N, hx), *y = vec_d(N, hy);
    ck_assert_ok(sp_vector_dot(ctx, x, y, &r));
    ck_assert(r == want);
    sp_vector_destroy(y);
    sp_vector_destroy(x);
    free(hy);
    free(hx);
}
END_TEST

START_TEST(vector_refusals)
{
    double h[2] = {1, 2}, r;
    sp_vector_t *x = vec_d(2, h), *y3 = vec_d(3, NULL), *f = NULL, *v = NULL, *res = vec_d(1, NULL);
    sp_context_t *other = NULL;
    ck_assert_ok(sp_vector_create(ctx, SP_R_32F, 2, NULL, &f));
    ck_assert_status(sp_vector_create(ctx, SP_VALUE_NONE, 2, NULL, &v), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("not SP_R_32F or SP_R_64F");
    ck_assert_status(sp_vector_create(ctx, SP_R_64F, -1, NULL, &v), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("negative length -1");
    ck_assert_status(sp_vector_create(ctx, SP_R_64F, (int64_t)1 << 32, NULL, &v),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("exceeds 32-bit");
    ck_assert_ptr_null(v);
    ck_assert_status(sp_vector_axpby(ctx, 1, x, 1, y3), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("x has 2 values of type 2, y 3 of type 2");
    ck_assert_status(sp_vector_dot(ctx, x, f, &r), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("y 2 of type 1");
    ck_assert_status(sp_vector_dot(ctx, x, x, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_vector_dot: result is NULL");
    ck_assert_status(sp_vector_nrm2_async(ctx, x, f, 0), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("result vector must be SP_R_64F");
    ck_assert_status(sp_vector_dot_async(ctx, x, x, res, 1), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("index 1 outside the result's 0..0");
    ck_assert_status(sp_vector_copy(ctx, x, y3), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_vector_copy: source has 2 values");
    ck_assert_status(sp_vector_copy_to_host(ctx, x, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("h_values is NULL");
    ck_assert_status(sp_vector_fill(ctx, NULL, 0), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_vector_fill: ctx or vector is NULL");
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &other));
    ck_assert_status(sp_vector_scale(other, 2, x), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("vector belongs to another context");
    ck_assert_str_eq(sp_context_last_error(other), sp_last_error());
    sp_context_destroy(other);
    sp_vector_destroy(res);
    sp_vector_destroy(f);
    sp_vector_destroy(y3);
    sp_vector_destroy(x);
}
END_TEST

static sp_status_t create_op(void *arg)
{
    double h[5] = {1, 2, 3, 4, 5};
    sp_vector_t **v = arg;
    return sp_vector_create(ctx, SP_R_64F, 5, h, v);
}

START_TEST(vector_allocation_failures)
{
    sp_vector_t *v = NULL;
    int64_t failing = 0;
    ck_assert_ok(sp_test_fail_each_allocation("sp_vector_create", create_op, NULL, &v, &failing));
    ck_assert_int_ge(failing, 2);
    sp_vector_destroy(v);
}
END_TEST

/* ---- sp_sptrsv on the triangles of one full matrix ------------------------------------ */

/* A = [2 1 0; 1 4 -1; 3 0 5]: lower L = [2 0 0; 1 4 0; 3 0 5], upper U = [2 1 0; 0 4 -1;
 * 0 0 5]. */
static const double g_a[9] = {2, 1, 0, 1, 4, -1, 3, 0, 5};

START_TEST(sptrsv_hand)
{
    sp_coo_t *coo = sp_test_dense_coo(3, g_a, SP_R_64F);
    sp_matrix_t *A = NULL;
    double b[3] = {2, 9, 13}, x[3], alpha = 1, two = 2;
    ck_assert_ok(sp_matrix_create(ctx, coo, NULL, &A));
    /* L x = b: x0 = 1, x1 = (9 - 1) / 4 = 2, x2 = (13 - 3) / 5 = 2 */
    ck_assert_ok(sp_sptrsv(ctx, A, SP_UPLO_LOWER, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO, &alpha,
                           b, x));
    ck_assert(x[0] == 1 && x[1] == 2 && x[2] == 2);
    /* U x = b: x2 = 13/5, x1 = (9 + 2.6) / 4 = 2.9, x0 = (2 - 2.9) / 2 = -0.45 */
    ck_assert_ok(sp_sptrsv(ctx, A, SP_UPLO_UPPER, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_LEVELS,
                           &alpha, b, x));
    ck_assert(fabs(x[2] - 2.6) < 1e-15 && fabs(x[1] - 2.9) < 1e-15 && fabs(x[0] + 0.45) < 1e-15);
    /* unit lower, alpha 2: x0 = 4, x1 = 18 - 4 = 14, x2 = 26 - 12 = 14 */
    ck_assert_ok(sp_sptrsv(ctx, A, SP_UPLO_LOWER, SP_DIAG_UNIT, SP_SPTRSV_ALG_SOFT_SYNC, &two, b,
                           x));
    ck_assert(x[0] == 4 && x[1] == 14 && x[2] == 14);
    sp_matrix_destroy(A);
    sp_coo_free(coo);
}
END_TEST

START_TEST(sptrsv_refusals)
{
    double singular[9] = {2, 0, 0, 1, 0, 0, 0, 0, 1}, buf[6] = {0}, alpha = 1;
    sp_coo_t *coo = sp_test_dense_coo(3, singular, SP_R_64F), *rect = NULL;
    sp_matrix_t *A = NULL, *R = NULL;
    ck_assert_ok(sp_matrix_create(ctx, coo, NULL, &A));
    ck_assert_status(sp_sptrsv(ctx, A, SP_UPLO_LOWER, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO,
                               &alpha, buf, buf + 3),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row 1 has no non-zero diagonal");
    ck_assert_ok(sp_sptrsv(ctx, A, SP_UPLO_LOWER, SP_DIAG_UNIT, SP_SPTRSV_ALG_AUTO, &alpha, buf,
                           buf + 3));
    ck_assert_status(sp_sptrsv(ctx, A, SP_UPLO_LOWER, SP_DIAG_UNIT, SP_SPTRSV_ALG_AUTO, &alpha,
                               buf, buf + 1),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("b and x overlap");
    ck_assert_status(sp_sptrsv(ctx, A, (sp_uplo_t)7, SP_DIAG_UNIT, SP_SPTRSV_ALG_AUTO, &alpha,
                               buf, buf + 3),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown uplo 7");
    ck_assert_status(sp_sptrsv(ctx, A, SP_UPLO_UPPER, SP_DIAG_UNIT, (sp_sptrsv_alg_t)9, &alpha,
                               buf, buf + 3),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown algorithm 9");
    ck_assert_status(sp_sptrsv(ctx, A, SP_UPLO_UPPER, SP_DIAG_UNIT, SP_SPTRSV_ALG_AUTO, NULL, buf,
                               buf + 3),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("alpha is NULL");
    ck_assert_ok(sp_coo_create(2, 3, 0, SP_R_64F, &rect));
    ck_assert_ok(sp_matrix_create(ctx, rect, NULL, &R));
    ck_assert_status(sp_sptrsv(ctx, R, SP_UPLO_UPPER, SP_DIAG_UNIT, SP_SPTRSV_ALG_AUTO, &alpha,
                               buf, buf + 3),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("matrix is 2 x 3, not square");
    sp_matrix_destroy(R);
    sp_coo_free(rect);
    sp_matrix_destroy(A);
    sp_coo_free(coo);
}
END_TEST

static Suite *vec_suite(void)
{
    Suite *s = suite_create("vec");
    TCase *tc = tcase_create("vec");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, create_copy_fill);
    tcase_add_test(tc, axpby_scale_hand);
    tcase_add_test(tc, reductions_hand);
    tcase_add_test(tc, float_vectors);
    tcase_add_test(tc, random_dot);
    tcase_add_test(tc, vector_refusals);
    tcase_add_test(tc, vector_allocation_failures);
    tcase_add_test(tc, sptrsv_hand);
    tcase_add_test(tc, sptrsv_refusals);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return sp_test_run(vec_suite()); }
