/* CPU reference triangular solve, x = alpha * T^-1 b: hand-checked 3x3 and 4x4 cases for
 * lower, upper, unit and non-unit in both value types, the other triangle ignored (NaN
 * there must not leak), a random diagonally dominant matrix checked by its residual, and
 * the refusals (missing or zero diagonal naming the first such row, non-square, pattern);
 * the public sp_sptrsv_analyse on a host context (its checks, then a solve). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_ref.h"
#include "testutil.h"

/* A CSR over the caller's arrays (values converted to t into vbuf). */
static sp_csr_t csr_of(int64_t n, int32_t *ptr, int32_t *idx, const double *val,
                       sp_value_type_t t, void *vbuf)
{
    sp_csr_t a = {n, n, ptr[n], t, ptr, idx, vbuf, NULL};
    for (int64_t k = 0; k < ptr[n]; k++) {
        if (t == SP_R_32F)
            ((float *)vbuf)[k] = (float)val[k];
        else
            ((double *)vbuf)[k] = val[k];
    }
    return a;
}

/* Solve with a (upper, unit) and compare with want exactly (every case is exact). */
static void expect_solve(const sp_csr_t *a, int upper, int unit, double alpha, const double *b,
                         const double *want, const char *what)
{
    double xd[8], bd[8];
    float xf[8], bf[8], af = (float)alpha;
    int64_t n = a->nrows;
    for (int64_t i = 0; i < n; i++) {
        bd[i] = b[i];
        bf[i] = (float)b[i];
        xd[i] = xf[i] = -99;
    }
    if (a->value_type == SP_R_32F)
        ck_assert_ok(sp__ref_sptrsv(a, upper, unit, &af, bf, xf));
    else
        ck_assert_ok(sp__ref_sptrsv(a, upper, unit, &alpha, bd, xd));
    for (int64_t i = 0; i < n; i++) {
        double got = a->value_type == SP_R_32F ? (double)xf[i] : xd[i];
        ck_assert_msg(got == want[i], "%s (%s): x[%lld] = %.17g, expected %g", what,
                      a->value_type == SP_R_32F ? "float" : "double", (long long)i, got, want[i]);
    }
}

START_TEST(hand_3x3)
{
    /* A = [2 1 3; 4 5 6; 7 8 10], x = (1, 2, 3) in every case */
    int32_t ptr[] = {0, 3, 6, 9}, idx[] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
    const double val[] = {2, 1, 3, 4, 5, 6, 7, 8, 10}, x[] = {1, 2, 3};
    const double b_lower[] = {1, 7, 26.5};      /* (D+L) x / 2, solved with alpha = 2 */
    const double b_upper[] = {13, 28, 30};      /* (D+U) x */
    const double b_unit_lower[] = {1, 6, 26};   /* (I+L) x */
    const double b_unit_upper[] = {12, 20, 3};  /* (I+U) x */
    double vbuf[9];
    sp_value_type_t t = _i ? SP_R_32F : SP_R_64F;
    sp_csr_t a = csr_of(3, ptr, idx, val, t, vbuf);
    expect_solve(&a, 0, 0, 2.0, b_lower, x, "3x3 lower, alpha 2");
    expect_solve(&a, 1, 0, 1.0, b_upper, x, "3x3 upper");
    expect_solve(&a, 0, 1, 1.0, b_unit_lower, x, "3x3 unit lower");
    expect_solve(&a, 1, 1, 1.0, b_unit_upper, x, "3x3 unit upper");
}
END_TEST

START_TEST(hand_4x4)
{
    /* A = [4 0 1 0; 2 2 0 0; 0 0 1 -1; 1 0 3 2], x = (1, -1, 2, 0.5); row 1 has no strict
     * upper entries, row 0 no strict lower ones */
    int32_t ptr[] = {0, 2, 4, 6, 9}, idx[] = {0, 2, 0, 1, 2, 3, 0, 2, 3};
    const double val[] = {4, 1, 2, 2, 1, -1, 1, 3, 2}, x[] = {1, -1, 2, 0.5};
    const double b_lower[] = {4, 0, 2, 8}, b_upper[] = {6, -2, 1.5, 1};
    const double b_unit_lower[] = {1, 1, 2, 7.5}, b_unit_upper[] = {3, -1, 1.5, 0.5};
    const double neg[] = {-1, 1, -2, -0.5};
    double vbuf[9];
    sp_value_type_t t = _i ? SP_R_32F : SP_R_64F;
    sp_csr_t a = csr_of(4, ptr, idx, val, t, vbuf);
    expect_solve(&a, 0, 0, 1.0, b_lower, x, "4x4 lower");
    expect_solve(&a, 1, 0, 1.0, b_upper, x, "4x4 upper");
    expect_solve(&a, 0, 1, 1.0, b_unit_lower, x, "4x4 unit lower");
    expect_solve(&a, 1, 1, 1.0, b_unit_upper, x, "4x4 unit upper");
    expect_solve(&a, 1, 1, -1.0, b_unit_upper, neg, "4x4 unit upper, alpha -1");
}
END_TEST

START_TEST(other_triangle_ignored)
{
    /* [2 NaN; 1 4]: the lower solve never reads the NaN; [2 1; NaN 4] the same for upper */
    int32_t ptr[] = {0, 2, 4}, idx[] = {0, 1, 0, 1};
    double lo[] = {2, NAN, 1, 4}, up[] = {2, 1, NAN, 4};
    double b[] = {2, 9}, x[2], alpha = 1;
    sp_csr_t a = {2, 2, 4, SP_R_64F, ptr, idx, lo, NULL};
    ck_assert_ok(sp__ref_sptrsv(&a, 0, 0, &alpha, b, x));
    ck_assert(x[0] == 1 && x[1] == 2);
    a.val = up;
    b[0] = 4;
    b[1] = 8;
    ck_assert_ok(sp__ref_sptrsv(&a, 1, 0, &alpha, b, x));
    ck_assert(x[0] == 1 && x[1] == 2);
}
END_TEST

START_TEST(random_residual)
{
    /* 60 x 60, about 8 entries per row, diagonal = 1 + sum of |off-diagonals| of the row */
    enum { N = 60, PER = 8 };
    int32_t ptr[N + 1], idx[N * (PER + 1)];
    double val[N * (PER + 1)], b[N], x[N], alpha = -0.5;
    uint64_t s = 42;
    int32_t nnz = 0;
    for (int r = 0; r < N; r++) {
        int used[N] = {0};
        double off = 0;
        ptr[r] = nnz;
        for (int k = 0; k < PER; k++) used[sp_test_rand(&s) % N] = 1;
        used[r] = 1;
        int32_t dpos = -1;
        for (int c = 0; c < N; c++) {
            if (!used[c]) continue;
            idx[nnz] = c;
            val[nnz] = 2 * sp_test_uniform(&s) - 1;
            if (c == r) dpos = nnz;
            else off += fabs(val[nnz]);
            nnz++;
        }
        val[dpos] = (r % 2 ? -1 : 1) * (1 + off);
        b[r] = 2 * sp_test_uniform(&s) - 1;
    }
    ptr[N] = nnz;
    sp_csr_t a = {N, N, nnz, SP_R_64F, ptr, idx, val, NULL};
    for (int upper = 0; upper < 2; upper++) {
        ck_assert_ok(sp__ref_sptrsv(&a, upper, 0, &alpha, b, x));
        for (int r = 0; r < N; r++) {
            long double res = (long double)alpha * b[r], mag = fabsl(res);
            for (int32_t k = ptr[r]; k < ptr[r + 1]; k++) {
                int c = idx[k];
                if (upper ? c < r : c > r) continue;
                res -= (long double)val[k] * x[c];
                mag += fabsl((long double)val[k] * x[c]);
            }
            ck_assert_msg(fabsl(res) <= 1e-14L * mag, "upper %d row %d: residual %Lg of %Lg",
                          upper, r, res, mag);
        }
    }
}
END_TEST

START_TEST(refusals)
{
    /* row 1 has no diagonal, row 2 a zero one: the first (row 1) is named */
    int32_t ptr[] = {0, 1, 2, 4}, idx[] = {0, 0, 1, 2};
    double val[] = {1, 2, 1, 0}, b[3] = {1, 1, 1}, x[3] = {7, 7, 7}, alpha = 1;
    sp_csr_t a = {3, 3, 4, SP_R_64F, ptr, idx, val, NULL};
    ck_assert_status(sp__ref_sptrsv(&a, 0, 0, &alpha, b, x), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row 1 has no non-zero diagonal entry");
    ck_assert(x[0] == 7 && x[1] == 7 && x[2] == 7); /* untouched */
    ck_assert_status(sp__ref_sptrsv(&a, 1, 0, &alpha, b, x), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row 1 has no non-zero diagonal entry");
    idx[1] = 1; /* now row 1 has its diagonal: row 2's zero is named */
    ck_assert_status(sp__ref_sptrsv(&a, 0, 0, &alpha, b, x), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row 2 has no non-zero diagonal entry");
    idx[1] = 0;
    ck_assert_ok(sp__ref_sptrsv(&a, 0, 1, &alpha, b, x)); /* unit: diagonals not needed */
    ck_assert(x[0] == 1 && x[1] == -1 && x[2] == 2);

    a.ncols = 4;
    ck_assert_status(sp__ref_sptrsv(&a, 0, 1, &alpha, b, x), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("3 x 4, not square");
    a.ncols = 3;
    a.value_type = SP_VALUE_NONE;
    ck_assert_status(sp__ref_sptrsv(&a, 0, 1, &alpha, b, x), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("no values (pattern)");
    a.value_type = SP_R_64F;
    ck_assert_status(sp__ref_sptrsv(&a, 0, 1, NULL, b, x), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("NULL");
}
END_TEST

/* sp_sptrsv_analyse on a host context: the checks (each naming the function) and the CSR;
 * a solve after it gives the reference's answer. */
START_TEST(public_analyse_host)
{
    sp_context_t *ctx = NULL, *other = NULL;
    sp_coo_t *coo = NULL;
    sp_matrix_t *A = NULL, *B = NULL;
    double b[3] = {2, 5, 9}, x[3] = {0, 0, 0}, alpha = 1;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &other));
    ck_assert_ok(sp_coo_create(3, 3, 5, SP_R_64F, &coo));
    const int32_t r[5] = {0, 1, 1, 2, 2}, c[5] = {0, 0, 1, 1, 2};
    const double v[5] = {2, 1, 2, 1, 3};
    for (int k = 0; k < 5; k++) {
        coo->row[k] = r[k];
        coo->col[k] = c[k];
        ((double *)coo->val)[k] = v[k];
    }
    coo->nnz = 5;
    ck_assert_ok(sp_matrix_create(ctx, coo, NULL, &A));
    for (int alg = 0; alg < 3; alg++)
        ck_assert_ok(sp_sptrsv_analyse(ctx, A, SP_UPLO_LOWER, SP_DIAG_NON_UNIT,
                                       (sp_sptrsv_alg_t)alg));
    ck_assert_ok(sp_sptrsv(ctx, A, SP_UPLO_LOWER, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO, &alpha, b,
                           x));
    ck_assert(x[0] == 1 && x[1] == 2 && x[2] == 7.0 / 3); /* 2x0 = 2, x0 + 2x1 = 5, x1 + 3x2 = 9 */
    ck_assert_status(sp_sptrsv_analyse(NULL, A, SP_UPLO_LOWER, SP_DIAG_NON_UNIT,
                                       SP_SPTRSV_ALG_AUTO),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_sptrsv_analyse: ctx or A is NULL");
    ck_assert_status(sp_sptrsv_analyse(other, A, SP_UPLO_LOWER, SP_DIAG_NON_UNIT,
                                       SP_SPTRSV_ALG_AUTO),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_sptrsv_analyse: matrix belongs to another context");
    ck_assert_status(sp_sptrsv_analyse(ctx, A, (sp_uplo_t)2, SP_DIAG_NON_UNIT,
                                       SP_SPTRSV_ALG_AUTO),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_sptrsv_analyse: unknown uplo 2");
    ck_assert_status(sp_sptrsv_analyse(ctx, A, SP_UPLO_LOWER, (sp_diag_t)5, SP_SPTRSV_ALG_AUTO),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_sptrsv_analyse: unknown diag 5");
    ck_assert_status(sp_sptrsv_analyse(ctx, A, SP_UPLO_LOWER, SP_DIAG_NON_UNIT,
                                       (sp_sptrsv_alg_t)7),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_sptrsv_analyse: unknown algorithm 7");
    coo->ncols = 4;
    ck_assert_ok(sp_matrix_create(ctx, coo, NULL, &B));
    ck_assert_status(sp_sptrsv_analyse(ctx, B, SP_UPLO_LOWER, SP_DIAG_NON_UNIT,
                                       SP_SPTRSV_ALG_AUTO),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_sptrsv_analyse: matrix is 3 x 4, not square");
    sp_matrix_destroy(B);
    sp_matrix_destroy(A);
    sp_coo_free(coo);
    sp_context_destroy(other);
    sp_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref_sptrsv");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, hand_3x3, 0, 2);
    tcase_add_loop_test(tc, hand_4x4, 0, 2);
    tcase_add_test(tc, other_triangle_ignored);
    tcase_add_test(tc, random_residual);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, public_analyse_host);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
