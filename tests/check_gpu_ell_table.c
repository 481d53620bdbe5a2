/* ELL's value table on a CUDA context, over the public API: the device's table and codes
 * byte for byte the host's (ELL and HYB); the product with the table bit for bit the one
 * without it (the switch off at the build) where the product is deterministic (no tail,
 * no overflow), and within rounding of the host's everywhere; the fused CG family on
 * Poisson with the table: the same iterations, residual and x bits as without it. The
 * conversion itself against the reference: check_gpu_convert's test_value_table. Exits
 * 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_formats.h" /* sp__ell_value_table_set */
#include "testutil.h"

static sp_context_t *gpu, *host;
static int small;

static void setup(void)
{
    small = sp_test_small();
    sp_test_gpu_host_contexts(&gpu, &host);
}
static void teardown(void)
{
    sp__ell_value_table_set(1);
    sp_test_gpu_host_contexts_destroy(&gpu, &host);
}

/* Format f of coo on the GPU and the host: the same table and codes; returns ntable. */
static int same_tables(const sp_coo_t *coo, sp_format_t f, int expect)
{
    sp_matrix_t *G = sp_test_table_matrix(gpu, coo, f, 1);
    sp_matrix_t *H = sp_test_table_matrix(host, coo, f, 1);
    sp_format_view_t g, h;
    int hyb = f == SP_FORMAT_HYB;
    ck_assert_ok(sp_matrix_view(G, f, &g));
    ck_assert_ok(sp_matrix_view(H, f, &h));
    int n = sp_test_check_value_table(&g, hyb, expect);
    ck_assert_int_eq(sp_test_check_value_table(&h, hyb, expect), n);
    if (n > 0) {
        size_t vs = sp_value_size(coo->value_type);
        int64_t slots = coo->nrows * (hyb ? g.hyb.ell_width : g.ell.width);
        ck_assert_int_eq(hyb ? g.hyb.ell_width : g.ell.width, hyb ? h.hyb.ell_width : h.ell.width);
        ck_assert(memcmp(hyb ? g.hyb.ell_table : g.ell.table,
                         hyb ? h.hyb.ell_table : h.ell.table, (size_t)n * vs) == 0);
        ck_assert(memcmp(hyb ? g.hyb.ell_code : g.ell.code, hyb ? h.hyb.ell_code : h.ell.code,
                         (size_t)slots) == 0);
    }
    sp_matrix_destroy(H);
    sp_matrix_destroy(G);
    return n;
}

/* The GPU product in format f with the table and without: bit for bit when `exact`;
 * both within rounding of the host's. */
static void same_products(const sp_coo_t *coo, sp_format_t f, int exact)
{
    size_t vs = sp_value_size(coo->value_type), bytes = (size_t)coo->nrows * vs + 1;
    void *y1 = calloc(1, bytes), *y0 = calloc(1, bytes), *yh = calloc(1, bytes);
    sp_matrix_t *A1 = sp_test_table_matrix(gpu, coo, f, 1);
    sp_matrix_t *A0 = sp_test_table_matrix(gpu, coo, f, 0);
    sp_matrix_t *H = sp_test_table_matrix(host, coo, f, 1);
    sp_test_table_product(gpu, A1, f, coo, y1);
    sp_test_table_product(gpu, A0, f, coo, y0);
    sp_test_table_product(host, H, f, coo, yh);
    if (exact)
        ck_assert_msg(memcmp(y1, y0, bytes - 1) == 0, "%s: the product with the table differs",
                      sp_format_name(f));
    double tol = vs == 4 ? 1e-5 : 1e-12;
    for (int64_t i = 0; i < coo->nrows; i++) {
        double a = vs == 4 ? ((float *)y1)[i] : ((double *)y1)[i];
        double b = vs == 4 ? ((float *)y0)[i] : ((double *)y0)[i];
        double c = vs == 4 ? ((float *)yh)[i] : ((double *)yh)[i];
        ck_assert_msg(fabs(a - c) <= tol * (fabs(c) + 1) && fabs(b - c) <= tol * (fabs(c) + 1),
                      "%s row %lld: %.17g / %.17g, host %.17g", sp_format_name(f),
                      (long long)i, a, b, c);
    }
    sp_matrix_destroy(H);
    sp_matrix_destroy(A0);
    sp_matrix_destroy(A1);
    free(yh);
    free(y0);
    free(y1);
}

START_TEST(stencils)
{
    static const sp_value_type_t types[2] = {SP_R_64F, SP_R_32F};
    for (int t = 0; t < 2; t++) {
        sp_coo_t *coo = NULL;
        ck_assert_ok(sp_gen_poisson3d(small ? 12 : 48, types[t], &coo));
        ck_assert_int_eq(same_tables(coo, SP_FORMAT_ELL, 2), 2);
        same_products(coo, SP_FORMAT_ELL, 1);
        sp_coo_free(coo);
        ck_assert_ok(sp_gen_poisson3d27(small ? 10 : 32, types[t], &coo));
        same_tables(coo, SP_FORMAT_ELL, 2);
        same_products(coo, SP_FORMAT_ELL, 1);
        sp_coo_free(coo);
    }
}
END_TEST

/* 256 and 257 distinct values over many blocks, spread or by row blocks; the specials that
 * survive sp_matrix_create (0.0, NaN payloads, the all-ones pattern); an empty matrix. */
START_TEST(limits)
{
    uint64_t bits[257];
    static const uint64_t specials[5] = {0x0ull, 0x3ff0000000000000ull, 0x7ff8000000000001ull,
                                         0x7ff8000000000002ull, 0xffffffffffffffffull};
    int64_t n = small ? 4000 : 300000;
    for (int i = 0; i < 257; i++) {
        double d = (1.0 + i / 512.0) * (i % 2 ? -1.0 : 1.0);
        memcpy(&bits[i], &d, 8);
    }
    for (int spread = 0; spread < 2; spread++) {
        sp_coo_t *c256 = sp_test_patterned_coo(n, 5, 0, bits, 256, spread, SP_R_64F);
        sp_coo_t *c257 = sp_test_patterned_coo(n, 5, 0, bits, 257, spread, SP_R_64F);
        ck_assert_int_eq(same_tables(c256, SP_FORMAT_ELL, 256), 256);
        same_products(c256, SP_FORMAT_ELL, 1);
        ck_assert_int_eq(same_tables(c257, SP_FORMAT_ELL, 0), 0);
        sp_coo_free(c257);
        sp_coo_free(c256);
    }
    sp_coo_t *sp = sp_test_patterned_coo(n, 4, 0, specials, 5, 1, SP_R_64F);
    same_tables(sp, SP_FORMAT_ELL, 5);
    sp_coo_free(sp);
    sp_coo_t *empty = NULL;
    ck_assert_ok(sp_coo_create(7, 7, 0, SP_R_64F, &empty));
    same_tables(empty, SP_FORMAT_ELL, 0);
    same_products(empty, SP_FORMAT_ELL, 1);
    sp_coo_free(empty);
}
END_TEST

/* Long rows: ELL's tail and HYB's overflow keep their own values, the padded part its
 * table (products within rounding: the tail's atomics make them non-deterministic). */
START_TEST(tail_and_hyb)
{
    static const uint64_t three[3] = {0x3ff0000000000000ull, 0xbff0000000000000ull,
                                      0x4010000000000000ull};
    sp_coo_t *coo = sp_test_patterned_coo(small ? 3000 : 100000, 4, 600, three, 3, 1, SP_R_64F);
    same_tables(coo, SP_FORMAT_ELL, 3);
    same_tables(coo, SP_FORMAT_HYB, 3);
    same_products(coo, SP_FORMAT_ELL, 0);
    same_products(coo, SP_FORMAT_HYB, 0);
    sp_coo_free(coo);
}
END_TEST

typedef struct run {
    sp_solver_result_t res;
    int ntable;
    void *x;
} run_t;

/* A solve of A x = ones on the GPU, A's ELL built with the table switch as given. */
static run_t solve(const sp_coo_t *coo, sp_solver_type_t type, const sp_solver_options_t *opt,
                   int table)
{
    run_t r;
    sp_matrix_t *A = NULL;
    sp_solver_t *s = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_format_view_t v;
    memset(&r, 0, sizeof r);
    r.x = malloc((size_t)coo->nrows * sp_value_size(coo->value_type));
    ck_assert_ok(sp_matrix_create(gpu, coo, NULL, &A));
    ck_assert_ok(sp_vector_create(gpu, coo->value_type, coo->nrows, NULL, &b));
    ck_assert_ok(sp_vector_create(gpu, coo->value_type, coo->nrows, NULL, &x));
    ck_assert_ok(sp_vector_fill(gpu, b, 1.0));
    ck_assert_ok(sp_solver_create(gpu, type, &s));
    ck_assert_ok(sp_solver_set_options(s, opt));
    sp__ell_value_table_set(table);
    ck_assert_ok(sp_solver_setup(s, A));
    sp__ell_value_table_set(1);
    ck_assert_ok(sp_solver_solve(s, b, x));
    ck_assert_ok(sp_solver_result(s, &r.res));
    ck_assert_ok(sp_vector_copy_to_host(gpu, x, r.x));
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(A, &info));
    r.ntable = -1; /* the solver took another format (small matrices may) */
    if (info.bytes[SP_FORMAT_ELL] > 0) {
        ck_assert_ok(sp_matrix_view(A, SP_FORMAT_ELL, &v));
        r.ntable = v.ell.ntable;
    }
    sp_solver_destroy(s);
    sp_vector_destroy(x);
    sp_vector_destroy(b);
    sp_matrix_destroy(A);
    return r;
}

START_TEST(fused_cg)
{
    static const struct {
        const char *name;
        sp_solver_type_t type;
        sp_solver_loop_t loop;
        int pipelined;
    } forms[] = {{"cg fused", SP_SOLVER_CG, SP_SOLVER_LOOP_FUSED, 0},
                 {"cg device", SP_SOLVER_CG, SP_SOLVER_LOOP_DEVICE, 0},
                 {"pcg-jacobi device", SP_SOLVER_PCG_JACOBI, SP_SOLVER_LOOP_DEVICE, 0},
                 {"cg pipelined", SP_SOLVER_CG, SP_SOLVER_LOOP_FUSED, 1},
                 {"bicgstab fused", SP_SOLVER_BICGSTAB, SP_SOLVER_LOOP_FUSED, 0}};
    static const sp_value_type_t types[2] = {SP_R_64F, SP_R_32F};
    for (int t = 0; t < 2; t++) {
        sp_coo_t *coo = NULL;
        ck_assert_ok(sp_gen_poisson3d(small ? 10 : 40, types[t], &coo));
        size_t bytes = (size_t)coo->nrows * sp_value_size(types[t]);
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            sp_solver_options_t opt = {.rtol = types[t] == SP_R_64F ? 1e-9 : 1e-5};
            if (forms[f].loop == SP_SOLVER_LOOP_DEVICE && sp_test_skip_graph_loop()) continue;
            opt.loop = forms[f].loop;
            opt.pipelined = forms[f].pipelined;
            run_t with = solve(coo, forms[f].type, &opt, 1);
            run_t without = solve(coo, forms[f].type, &opt, 0);
            ck_assert_msg(with.ntable == 2 || (small && with.ntable == -1),
                          "%s: the solver's ELL has %d table entries", forms[f].name,
                          with.ntable);
            ck_assert_int_eq(without.ntable, with.ntable == -1 ? -1 : 0);
            ck_assert_msg(with.res.iterations == without.res.iterations &&
                              memcmp(&with.res.recurrence_residual,
                                     &without.res.recurrence_residual, sizeof(double)) == 0 &&
                              memcmp(with.x, without.x, bytes) == 0,
                          "%s (%s): %lld iterations, residual %.17g with the table; %lld, %.17g "
                          "without",
                          forms[f].name, t ? "float" : "double",
                          (long long)with.res.iterations, with.res.recurrence_residual,
                          (long long)without.res.iterations, without.res.recurrence_residual);
            printf("%s (%s): %lld iterations, the same bits with and without the table\n",
                   forms[f].name, t ? "float" : "double", (long long)with.res.iterations);
            free(without.x);
            free(with.x);
        }
        sp_coo_free(coo);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu_ell_table");
    TCase *tc = tcase_create("gpu");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, stencils);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, tail_and_hyb);
    tcase_add_test(tc, fused_cg);
    suite_add_tcase(s, tc);
    return sp_test_run_gpu(s);
}
