/* The solvers on a host context: a hand-checked 2x2 system for every method, 3D Poisson
 * from the generator (double and float; SGS needs a quarter fewer iterations than CG, Jacobi
 * no more than plain CG on this constant diagonal), a non-symmetric convection-diffusion
 * system for BiCGSTAB, the initial guess, b = 0, and the statuses MAX_ITERATIONS,
 * BREAKDOWN and DIVERGED; every refusal with its message. */
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

static const sp_solver_type_t all_types[4] = {SP_SOLVER_CG, SP_SOLVER_PCG_JACOBI,
                                              SP_SOLVER_PCG_SGS, SP_SOLVER_BICGSTAB};

/* Solve A x = b (b: ones when h_b is NULL) with one method; x back in h_x (may be NULL). */
static sp_solver_result_t solve(sp_matrix_t *A, sp_solver_type_t type,
                                const sp_solver_options_t *opt, const double *h_b, double *h_x)
{
    sp_matrix_info_t info;
    sp_solver_t *s = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_solver_result_t res;
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_ok(sp_vector_create(ctx, info.value_type, info.nrows, NULL, &b));
    ck_assert_ok(sp_vector_create(ctx, info.value_type, info.nrows, NULL, &x));
    if (h_b) {
        ck_assert_int_eq(info.value_type, SP_R_64F);
        ck_assert_ok(sp_vector_copy_from_host(ctx, b, h_b));
    } else {
        ck_assert_ok(sp_vector_fill(ctx, b, 1.0));
    }
    if (opt && opt->use_initial_guess && h_x) ck_assert_ok(sp_vector_copy_from_host(ctx, x, h_x));
    ck_assert_ok(sp_solver_create(ctx, type, &s));
    ck_assert_ok(sp_solver_set_options(s, opt));
    ck_assert_ok(sp_solver_setup(s, A));
    ck_assert_ok(sp_solver_solve(s, b, x));
    ck_assert_ok(sp_solver_result(s, &res));
    if (h_x) ck_assert_ok(sp_vector_copy_to_host(ctx, x, h_x));
    sp_solver_destroy(s);
    sp_vector_destroy(x);
    sp_vector_destroy(b);
    return res;
}

static sp_matrix_t *matrix_of(sp_coo_t *coo)
{
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_matrix_create(ctx, coo, NULL, &A));
    sp_coo_free(coo);
    return A;
}

/* A = [4 1; 1 3], b = (1, 2): x = (1/11, 7/11). CG is exact in 2 steps. */
START_TEST(two_by_two)
{
    const double a[4] = {4, 1, 1, 3}, b[2] = {1, 2};
    sp_matrix_t *A = matrix_of(sp_test_dense_coo(2, a, SP_R_64F));
    sp_solver_options_t opt = {.rtol = 1e-12};
    for (int i = 0; i < 4; i++) {
        double x[2] = {0};
        sp_solver_result_t r = solve(A, all_types[i], &opt, b, x);
        ck_assert_msg(r.status == SP_SOLVER_CONVERGED, "type %d: %s", i,
                      sp_solver_status_string(r.status));
        ck_assert_int_le(r.iterations, 2);
        ck_assert_msg(fabs(x[0] - 1.0 / 11) < 1e-14 && fabs(x[1] - 7.0 / 11) < 1e-14,
                      "type %d: x = (%.17g, %.17g)", i, x[0], x[1]);
        ck_assert(r.relative_residual < 1e-12 && r.seconds >= 0);
    }
    sp_matrix_destroy(A);
}
END_TEST

START_TEST(poisson3d)
{
    sp_coo_t *coo = NULL;
    sp_solver_options_t opt = {.rtol = 1e-8};
    int64_t its[4];
    ck_assert_ok(sp_gen_poisson3d(12, SP_R_64F, &coo));
    sp_matrix_t *A = matrix_of(coo);
    for (int i = 0; i < 4; i++) {
        sp_solver_result_t r = solve(A, all_types[i], &opt, NULL, NULL);
        ck_assert_msg(r.status == SP_SOLVER_CONVERGED, "type %d: %s after %lld", i,
                      sp_solver_status_string(r.status), (long long)r.iterations);
        ck_assert_msg(r.relative_residual < 1e-7, "type %d: true residual %g", i,
                      r.relative_residual);
        ck_assert(r.recurrence_residual <= 1e-8);
        its[i] = r.iterations;
    }
    /* Jacobi on a constant diagonal is CG up to rounding; SGS saves a quarter or more */
    ck_assert_int_le(llabs(its[1] - its[0]), 1);
    ck_assert_msg(4 * its[2] <= 3 * its[0], "SGS %lld vs CG %lld iterations", (long long)its[2],
                  (long long)its[0]);
    sp_matrix_destroy(A);
}
END_TEST

START_TEST(poisson_float)
{
    sp_coo_t *coo = NULL;
    sp_solver_options_t opt = {.rtol = 1e-5};
    ck_assert_ok(sp_gen_poisson3d(10, SP_R_32F, &coo));
    sp_matrix_t *A = matrix_of(coo);
    for (int i = 0; i < 4; i++) {
        sp_solver_result_t r = solve(A, all_types[i], &opt, NULL, NULL);
        ck_assert_msg(r.status == SP_SOLVER_CONVERGED, "float type %d: %s", i,
                      sp_solver_status_string(r.status));
        ck_assert_msg(r.relative_residual < 1e-4, "float type %d: %g", i, r.relative_residual);
    }
    sp_matrix_destroy(A);
}
END_TEST

/* Non-symmetric: BiCGSTAB converges; the true residual is recomputed. */
START_TEST(convection_diffusion)
{
    sp_matrix_t *A = matrix_of(sp_test_convection_diffusion(24, 0.6, SP_R_64F));
    sp_solver_options_t opt = {.rtol = 1e-10};
    sp_solver_result_t r = solve(A, SP_SOLVER_BICGSTAB, &opt, NULL, NULL);
    ck_assert_msg(r.status == SP_SOLVER_CONVERGED, "%s", sp_solver_status_string(r.status));
    ck_assert(r.iterations > 5 && r.iterations < 200);
    ck_assert_msg(r.relative_residual < 1e-9, "%g", r.relative_residual);
    sp_matrix_destroy(A);
}
END_TEST

START_TEST(initial_guess_and_zero_rhs)
{
    const double a[4] = {4, 1, 1, 3}, b[2] = {1, 2}, zero[2] = {0, 0};
    sp_matrix_t *A = matrix_of(sp_test_dense_coo(2, a, SP_R_64F));
    sp_solver_options_t opt = {.rtol = 1e-10, .use_initial_guess = 1};
    double x[2] = {1.0 / 11, 7.0 / 11};
    sp_solver_result_t r = solve(A, SP_SOLVER_CG, &opt, b, x);
    ck_assert_int_eq(r.status, SP_SOLVER_CONVERGED);
    ck_assert_int_eq(r.iterations, 0);
    x[0] = 5;
    x[1] = -3;
    r = solve(A, SP_SOLVER_BICGSTAB, &opt, zero, x);
    ck_assert_int_eq(r.status, SP_SOLVER_CONVERGED);
    ck_assert_int_eq(r.iterations, 0);
    ck_assert(x[0] == 0 && x[1] == 0 && r.relative_residual == 0);
    sp_matrix_destroy(A);
}
END_TEST

START_TEST(statuses)
{
    sp_coo_t *coo = NULL;
    const double swap[4] = {0, 1, 1, 0}, rot[4] = {0, 1, -1, 0}, nan1[1] = {NAN};
    const double b[2] = {1, 0}, one[1] = {1};
    sp_solver_options_t three = {.max_iterations = 3, .rtol = 1e-14};
    ck_assert_ok(sp_gen_poisson3d(6, SP_R_64F, &coo));
    sp_matrix_t *P = matrix_of(coo);
    sp_solver_result_t r = solve(P, SP_SOLVER_CG, &three, NULL, NULL);
    ck_assert_int_eq(r.status, SP_SOLVER_MAX_ITERATIONS);
    ck_assert_int_eq(r.iterations, 3);
    ck_assert(r.relative_residual > 1e-14 && r.relative_residual < 1);
    r = solve(P, SP_SOLVER_BICGSTAB, &three, NULL, NULL);
    ck_assert_int_eq(r.status, SP_SOLVER_MAX_ITERATIONS);
    ck_assert_int_eq(r.iterations, 3);
    sp_matrix_destroy(P);
    /* CG on [0 1; 1 0], b = e0: p.Ap = 0 at once; x stays finite */
    sp_matrix_t *S = matrix_of(sp_test_dense_coo(2, swap, SP_R_64F));
    double x[2] = {0};
    r = solve(S, SP_SOLVER_CG, NULL, b, x);
    ck_assert_msg(r.status == SP_SOLVER_BREAKDOWN, "%s", sp_solver_status_string(r.status));
    ck_assert_int_eq(r.iterations, 1);
    ck_assert(x[0] == 0 && x[1] == 0 && r.relative_residual == 1);
    sp_matrix_destroy(S);
    /* BiCGSTAB on a rotation, b = e0: r^ . Ap = 0 */
    sp_matrix_t *R = matrix_of(sp_test_dense_coo(2, rot, SP_R_64F));
    r = solve(R, SP_SOLVER_BICGSTAB, NULL, b, NULL);
    ck_assert_msg(r.status == SP_SOLVER_BREAKDOWN, "%s", sp_solver_status_string(r.status));
    sp_matrix_destroy(R);
    /* a NaN in A: diverged, for both families */
    sp_matrix_t *N = matrix_of(sp_test_dense_coo(1, nan1, SP_R_64F));
    r = solve(N, SP_SOLVER_CG, NULL, one, NULL);
    ck_assert_msg(r.status == SP_SOLVER_DIVERGED, "%s", sp_solver_status_string(r.status));
    r = solve(N, SP_SOLVER_BICGSTAB, NULL, one, NULL);
    ck_assert_msg(r.status == SP_SOLVER_DIVERGED, "%s", sp_solver_status_string(r.status));
    sp_matrix_destroy(N);
    ck_assert_str_eq(sp_solver_status_string(SP_SOLVER_MAX_ITERATIONS), "max_iterations");
    ck_assert_str_eq(sp_solver_status_string((sp_solver_status_t)42), "?");
}
END_TEST

START_TEST(refusals)
{
    const double a[4] = {4, 1, 1, 0};
    sp_matrix_t *A = matrix_of(sp_test_dense_coo(2, a, SP_R_64F)), *R = NULL;
    sp_solver_t *s = NULL;
    sp_vector_t *b2 = NULL, *b3 = NULL, *f2 = NULL;
    sp_solver_result_t res;
    sp_solver_options_t bad = {.max_iterations = -1}, badtol = {.rtol = -1};
    sp_coo_t *rect = NULL;
    ck_assert_status(sp_solver_create(ctx, (sp_solver_type_t)9, &s), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown solver type 9");
    ck_assert_ptr_null(s);
    ck_assert_ok(sp_solver_create(ctx, SP_SOLVER_PCG_JACOBI, &s));
    ck_assert_ok(sp_solver_result(s, &res));
    ck_assert_int_eq(res.status, SP_SOLVER_NOT_RUN);
    ck_assert_status(sp_solver_set_options(s, &bad), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("negative max_iterations -1");
    ck_assert_status(sp_solver_set_options(s, &badtol), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("rtol -1 is negative or NaN");
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, 2, NULL, &b2));
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, 3, NULL, &b3));
    ck_assert_ok(sp_vector_create(ctx, SP_R_32F, 2, NULL, &f2));
    ck_assert_status(sp_solver_solve(s, b2, b3), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("no sp_solver_setup before the solve");
    /* Jacobi needs every diagonal entry */
    ck_assert_status(sp_solver_setup(s, A), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row 1 has no non-zero diagonal entry (the Jacobi preconditioner");
    sp_solver_destroy(s);
    s = NULL;
    ck_assert_ok(sp_solver_create(ctx, SP_SOLVER_PCG_SGS, &s));
    ck_assert_status(sp_solver_setup(s, A), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("(the Gauss-Seidel preconditioner");
    sp_solver_destroy(s);
    s = NULL;
    ck_assert_ok(sp_solver_create(ctx, SP_SOLVER_CG, &s));
    ck_assert_ok(sp_coo_create(2, 3, 0, SP_R_64F, &rect));
    ck_assert_ok(sp_matrix_create(ctx, rect, NULL, &R));
    ck_assert_status(sp_solver_setup(s, R), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("matrix is 2 x 3, not square");
    ck_assert_ok(sp_solver_setup(s, A));
    ck_assert_status(sp_solver_solve(s, b3, b2), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("b has 3 values of type 2, the matrix 2 of type 2");
    ck_assert_status(sp_solver_solve(s, b2, f2), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("x has 2 values of type 1");
    ck_assert_status(sp_solver_solve(s, b2, b2), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("b and x are the same vector");
    ck_assert_status(sp_solver_solve(s, NULL, b2), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("b is NULL");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    sp_solver_destroy(s);
    sp_solver_destroy(NULL);
    sp_vector_destroy(f2);
    sp_vector_destroy(b3);
    sp_vector_destroy(b2);
    sp_matrix_destroy(R);
    sp_coo_free(rect);
    sp_matrix_destroy(A);
}
END_TEST

static Suite *solver_suite(void)
{
    Suite *s = suite_create("solver");
    TCase *tc = tcase_create("solver");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, two_by_two);
    tcase_add_test(tc, poisson3d);
    tcase_add_test(tc, poisson_float);
    tcase_add_test(tc, convection_diffusion);
    tcase_add_test(tc, initial_guess_and_zero_rhs);
    tcase_add_test(tc, statuses);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return sp_test_run(solver_suite()); }
