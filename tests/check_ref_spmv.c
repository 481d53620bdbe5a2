/* CPU reference SpMV, y = alpha*A*x + beta*y, for every format and both value types:
 * hand-checked on the PMPP 4x4 example, then against the dense reference on random
 * matrices with duplicates, empty rows and columns, one long row, and odd shapes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_ref.h"
#include "testutil.h"
#include "testutil_ref.h"

enum { F_COO, F_CSR, F_CSC, F_ELL, F_HYB, F_HYB1, F_JDS, F_SELL4, F_SELL32, F_SELL1, F_COUNT };
static const char *const format_names[F_COUNT] = {"coo",  "csr",  "csc",    "ell",     "hyb",
                                                  "hyb1", "jds", "sell4x8", "sell32x64", "sell1"};

/* Every format of one matrix; coo is the caller's unsorted triplets (duplicates kept). */
typedef struct formats {
    sp_triplets_t coo;
    sp_csr_t csr, csc;
    sp_ell_t ell;
    sp_hyb_t hyb, hyb1;
    sp_jds_t jds;
    sp_sell_t sell4, sell32, sell1;
} formats_t;

static void build_formats(const sp_coo_t *raw, formats_t *f)
{
    sp_coo_t *a = NULL;
    memset(f, 0, sizeof *f);
    f->coo = (sp_triplets_t){raw->nrows, raw->ncols, raw->nnz, raw->value_type,
                             raw->row,   raw->col,   raw->val,   0};
    ck_assert_ok(sp_coo_copy(raw, raw->value_type, &a));
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, NULL));
    ck_assert_ok(sp_test_coo_to_csr(a, &f->csr));
    ck_assert_ok(sp__ref_csr_to_csc(&f->csr, &f->csc));
    ck_assert_ok(sp__ref_csr_to_ell(&f->csr, &f->ell));
    ck_assert_ok(sp__ref_csr_to_hyb(&f->csr, -1, &f->hyb));
    ck_assert_ok(sp__ref_csr_to_hyb(&f->csr, 1, &f->hyb1));
    ck_assert_ok(sp__ref_csr_to_jds(&f->csr, &f->jds));
    ck_assert_ok(sp__ref_csr_to_sell(&f->csr, 4, 8, &f->sell4));
    ck_assert_ok(sp__ref_csr_to_sell(&f->csr, 32, 64, &f->sell32));
    ck_assert_ok(sp__ref_csr_to_sell(&f->csr, 1, 1, &f->sell1));
    sp_coo_free(a);
}

static void free_formats(formats_t *f)
{
    sp__sell_free(&f->sell1);
    sp__sell_free(&f->sell32);
    sp__sell_free(&f->sell4);
    sp__jds_free(&f->jds);
    sp__hyb_free(&f->hyb1);
    sp__hyb_free(&f->hyb);
    sp__ell_free(&f->ell);
    sp__csr_free(&f->csc);
    sp__csr_free(&f->csr);
}

static void spmv(const formats_t *f, int fmt, const void *alpha, const void *x,
                 const void *beta, void *y)
{
    switch (fmt) {
    case F_COO: sp__ref_spmv_coo(&f->coo, alpha, x, beta, y); break;
    case F_CSR: sp__ref_spmv_csr(&f->csr, alpha, x, beta, y); break;
    case F_CSC: sp__ref_spmv_csc(&f->csc, alpha, x, beta, y); break;
    case F_ELL: sp__ref_spmv_ell(&f->ell, alpha, x, beta, y); break;
    case F_HYB: sp__ref_spmv_hyb(&f->hyb, alpha, x, beta, y); break;
    case F_HYB1: sp__ref_spmv_hyb(&f->hyb1, alpha, x, beta, y); break;
    case F_JDS: sp__ref_spmv_jds(&f->jds, alpha, x, beta, y); break;
    case F_SELL4: sp__ref_spmv_sell(&f->sell4, alpha, x, beta, y); break;
    case F_SELL32: sp__ref_spmv_sell(&f->sell32, alpha, x, beta, y); break;
    default: sp__ref_spmv_sell(&f->sell1, alpha, x, beta, y); break;
    }
}

/* Vectors of either type, filled from doubles. */
static void *typed(sp_value_type_t t, const double *v, int64_t n)
{
    size_t vs = sp_value_size(t);
    void *p = malloc((size_t)n * vs + vs);
    for (int64_t i = 0; i < n; i++) {
        if (t == SP_R_32F) ((float *)p)[i] = (float)v[i];
        else ((double *)p)[i] = v[i];
    }
    return p;
}

static double at(sp_value_type_t t, const void *p, int64_t i)
{
    return t == SP_R_32F ? ((const float *)p)[i] : ((const double *)p)[i];
}

START_TEST(pmpp_all_formats)
{
    static const int32_t row[] = {0, 0, 2, 2, 2, 3, 3}, col[] = {0, 2, 1, 2, 3, 0, 3};
    static const double val[] = {3, 1, 2, 4, 1, 1, 1}, xs[] = {1, 2, 3, 4}, ones[] = {1, 1, 1, 1};
    static const double expect[] = {12.5, 0.5, 40.5, 10.5};
    sp_value_type_t t = _i ? SP_R_32F : SP_R_64F;
    sp_coo_t *a = NULL;
    formats_t f;
    ck_assert_ok(sp_coo_create(4, 4, 7, t, &a));
    memcpy(a->row, row, sizeof row);
    memcpy(a->col, col, sizeof col);
    a->nnz = 7;
    for (int k = 0; k < 7; k++) {
        if (t == SP_R_32F) ((float *)a->val)[k] = (float)val[k];
        else ((double *)a->val)[k] = val[k];
    }
    build_formats(a, &f);
    const double ab[2] = {2.0, 0.5};
    void *alpha = typed(t, ab, 1), *beta = typed(t, ab + 1, 1), *x = typed(t, xs, 4);
    for (int fmt = 0; fmt < F_COUNT; fmt++) {
        void *y = typed(t, ones, 4);
        spmv(&f, fmt, alpha, x, beta, y);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(at(t, y, i) == expect[i], "%s: y[%d] = %g, expected %g",
                          format_names[fmt], i, at(t, y, i), expect[i]);
        free(y);
    }
    free(alpha), free(beta), free(x);
    free_formats(&f);
    sp_coo_free(a);
}
END_TEST

/* Check every format of raw against the dense reference for one (alpha, beta); with
 * beta == 0, y starts full of NaN. Bound per row: eps * (len + 2) * (|alpha| sum |a x| +
 * |beta y|), eps tied to the type. */
static void check_case(const sp_coo_t *raw, const formats_t *f, double alpha, double beta,
                       uint64_t seed)
{
    sp_value_type_t t = raw->value_type;
    double eps = t == SP_R_32F ? 1e-6 : 1e-13;
    int64_t m = raw->nrows, n = raw->ncols;
    double *xd = malloc((size_t)(n + 1) * sizeof *xd), *y0 = malloc((size_t)(m + 1) * sizeof *y0);
    double *ref = malloc((size_t)(m + 1) * sizeof *ref), *mag = calloc((size_t)m + 1, sizeof *mag);
    int64_t *len = calloc((size_t)m + 1, sizeof *len);
    for (int64_t j = 0; j < n; j++) xd[j] = 2.0 * sp_test_uniform(&seed) - 1.0;
    for (int64_t i = 0; i < m; i++) y0[i] = beta == 0.0 ? NAN : 2.0 * sp_test_uniform(&seed) - 1.0;
    void *x = typed(t, xd, n), *al = typed(t, &alpha, 1), *be = typed(t, &beta, 1);
    for (int64_t j = 0; j < n; j++) xd[j] = at(t, x, j); /* what the library sees */
    void *ytyped = typed(t, y0, m);
    for (int64_t i = 0; i < m; i++) ref[i] = y0[i] = at(t, ytyped, i);
    sp_test_dense_spmv(raw, alpha, xd, beta, ref);
    for (int64_t k = 0; k < raw->nnz; k++) {
        mag[raw->row[k]] += fabs(alpha * at(t, raw->val, k) * xd[raw->col[k]]);
        len[raw->row[k]]++;
    }
    for (int fmt = 0; fmt < F_COUNT; fmt++) {
        void *y = typed(t, y0, m);
        spmv(f, fmt, al, x, be, y);
        for (int64_t i = 0; i < m; i++) {
            double bound = eps * (double)(len[i] + 2) * (mag[i] + (beta == 0.0 ? 0.0 : fabs(beta * y0[i])));
            ck_assert_msg(fabs(at(t, y, i) - ref[i]) <= bound + 1e-300,
                          "%s %lldx%lld nnz %lld %s alpha %g beta %g: y[%lld] = %.17g, "
                          "expected %.17g (bound %g)", format_names[fmt], (long long)m,
                          (long long)n, (long long)raw->nnz, t == SP_R_32F ? "float" : "double",
                          alpha, beta, (long long)i, at(t, y, i), ref[i], bound);
        }
        free(y);
    }
    free(ytyped), free(x), free(al), free(be);
    free(xd), free(y0), free(ref), free(mag), free(len);
}

START_TEST(random_against_dense)
{
    static const int64_t shapes[][3] = {
        {0, 5, 0},     {5, 0, 0},      {7, 7, 0},       {1, 1, 1},       {1, 1, 4},
        {40, 25, 300}, {25, 40, 300},  {200, 200, 3000}, {1000, 10, 5000}, {3, 1000, 2000},
        {2000, 2000, 20000}};
    static const double ab[][2] = {{1.0, 0.0}, {2.5, -0.5}, {0.0, 1.5}, {-1.0, 1.0}};
    sp_value_type_t t = _i ? SP_R_32F : SP_R_64F;
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
        formats_t f;
        sp_coo_t *raw = sp_test_random_coo(1000 + (uint64_t)s, shapes[s][0], shapes[s][1],
                                           shapes[s][2], t,
                                           SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS |
                                               SP_TEST_LONG_ROW | SP_TEST_EMPTY_COLS);
        ck_assert_ptr_nonnull(raw);
        build_formats(raw, &f);
        for (int c = 0; c < 4; c++) check_case(raw, &f, ab[c][0], ab[c][1], 77 + (uint64_t)c);
        free_formats(&f);
        sp_coo_free(raw);
    }
}
END_TEST

/* beta == 0 must not read y: NaN and infinity in y do not leak into the result. */
START_TEST(beta_zero_ignores_nan)
{
    sp_value_type_t t = _i ? SP_R_32F : SP_R_64F;
    sp_coo_t *raw = sp_test_random_coo(5, 30, 30, 200, t, SP_TEST_EMPTY_ROWS);
    formats_t f;
    build_formats(raw, &f);
    double zero = 0.0, one = 1.0, xs[30], junk[30];
    for (int i = 0; i < 30; i++) xs[i] = 1.0, junk[i] = i % 2 ? NAN : INFINITY;
    void *al = typed(t, &one, 1), *be = typed(t, &zero, 1), *x = typed(t, xs, 30);
    for (int fmt = 0; fmt < F_COUNT; fmt++) {
        void *y = typed(t, junk, 30);
        spmv(&f, fmt, al, x, be, y);
        for (int i = 0; i < 30; i++)
            ck_assert_msg(isfinite(at(t, y, i)), "%s: y[%d] not finite", format_names[fmt], i);
        free(y);
    }
    free(al), free(be), free(x);
    free_formats(&f);
    sp_coo_free(raw);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref_spmv");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, pmpp_all_formats, 0, 2);
    tcase_add_loop_test(tc, random_against_dense, 0, 2);
    tcase_add_loop_test(tc, beta_zero_ignores_nan, 0, 2);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
