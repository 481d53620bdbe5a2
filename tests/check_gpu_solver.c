/* Vectors, sp_sptrsv and the solvers on a CUDA context against a host context: reductions
 * within rounding of the host's sequential sums and bit-identical across two runs, at
 * lengths around the block and grid sizes; every solver on 3D Poisson (double and float)
 * and BiCGSTAB on convection-diffusion with the same status, iteration counts within 1
 * and x within the tolerance; whole solves repeated bit for bit; the fused, device-loop
 * and pipelined forms of CG and PCG-Jacobi, and BiCGSTAB's fused forms, against their host
 * twins and the step loop. sptrsv and PCG-SGS need
 * kernels/solve/: while it refuses (NOT_SUPPORTED) those cases print a note and are
 * skipped. SP_TEST_SMALL=1 shrinks the inputs. Exits 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    sp_test_gpu_host_contexts_destroy(&gpu, &host);
}

static void *random_values(sp_value_type_t t, int64_t n, uint64_t seed)
{
    size_t vs = sp_value_size(t);
    void *h = malloc((size_t)(n > 0 ? n : 1) * vs);
    ck_assert_ptr_nonnull(h);
    for (int64_t i = 0; i < n; i++) {
        double v = 2 * sp_test_uniform(&seed) - 1;
        if (t == SP_R_32F) ((float *)h)[i] = (float)v;
        else ((double *)h)[i] = v;
    }
    return h;
}

/* The same values on both contexts. */
static void pair(sp_value_type_t t, int64_t n, const void *h, sp_vector_t **vg, sp_vector_t **vh)
{
    ck_assert_ok(sp_vector_create(gpu, t, n, h, vg));
    ck_assert_ok(sp_vector_create(host, t, n, h, vh));
}

static void assert_close(double got, double want, double scale, double tol, const char *what,
                         int64_t n)
{
    ck_assert_msg(fabs(got - want) <= tol * scale, "%s n=%lld: gpu %.17g host %.17g", what,
                  (long long)n, got, want);
}

START_TEST(reductions_vs_host)
{
    const int64_t sizes[] = {0, 1, 255, 256, 257, 1000, 262143, 262145, 1 << 20};
    int nsizes = small ? 6 : (int)(sizeof sizes / sizeof sizes[0]);
    for (int ti = 0; ti < 2; ti++) {
        sp_value_type_t t = ti ? SP_R_32F : SP_R_64F;
        for (int k = 0; k < nsizes; k++) {
            int64_t n = sizes[k];
            void *hx = random_values(t, n, 11 + (uint64_t)k), *hy = random_values(t, n, 99);
            sp_vector_t *xg, *xh, *yg, *yh, *res = NULL;
            double dg, dh, dg2, ng, nh, scale;
            pair(t, n, hx, &xg, &xh);
            pair(t, n, hy, &yg, &yh);
            scale = 1e-300;
            ck_assert_ok(sp_vector_nrm2(host, xh, &nh));
            ck_assert_ok(sp_vector_nrm2(host, yh, &dh));
            scale += nh * dh; /* >= sum |x_i y_i| */
            ck_assert_ok(sp_vector_dot(gpu, xg, yg, &dg));
            ck_assert_ok(sp_vector_dot(gpu, xg, yg, &dg2));
            ck_assert_ok(sp_vector_dot(host, xh, yh, &dh));
            ck_assert_msg(memcmp(&dg, &dg2, sizeof dg) == 0, "dot n=%lld not deterministic",
                          (long long)n);
            assert_close(dg, dh, scale, 1e-11, "dot", n);
            ck_assert_ok(sp_vector_nrm2(gpu, xg, &ng));
            assert_close(ng, nh, nh, 1e-11, "nrm2", n);
            /* async into a slot, read with the others later */
            ck_assert_ok(sp_vector_create(gpu, SP_R_64F, 2, NULL, &res));
            ck_assert_ok(sp_vector_dot_async(gpu, xg, yg, res, 1));
            double slots[2];
            ck_assert_ok(sp_vector_copy_to_host(gpu, res, slots));
            ck_assert(slots[0] == 0 && memcmp(&slots[1], &dg, sizeof dg) == 0);
            /* y = 0.5 x - 2 y and its norm, fused; then the vectors themselves */
            ck_assert_ok(sp_vector_axpby_nrm2(gpu, 0.5, xg, -2.0, yg, &ng));
            ck_assert_ok(sp_vector_axpby_nrm2(host, 0.5, xh, -2.0, yh, &nh));
            assert_close(ng, nh, nh, 1e-11, "axpby_nrm2", n);
            size_t bytes = (size_t)(n > 0 ? n : 1) * sp_value_size(t);
            void *a = malloc(bytes), *b = malloc(bytes);
            ck_assert_ok(sp_vector_copy_to_host(gpu, yg, a));
            ck_assert_ok(sp_vector_copy_to_host(host, yh, b));
            for (int64_t i = 0; i < n; i++) {
                double u = t == SP_R_32F ? ((float *)a)[i] : ((double *)a)[i];
                double v = t == SP_R_32F ? ((float *)b)[i] : ((double *)b)[i];
                ck_assert_msg(fabs(u - v) <= (t == SP_R_32F ? 2.4e-7 : 1e-15) * (fabs(v) + 2.5),
                              "axpby n=%lld [%lld]: %.17g vs %.17g", (long long)n, (long long)i,
                              u, v);
            }
            /* scale by 0 and fill leave exact values */
            ck_assert_ok(sp_vector_scale(gpu, 0.0, yg));
            ck_assert_ok(sp_vector_nrm2(gpu, yg, &ng));
            ck_assert(ng == 0);
            ck_assert_ok(sp_vector_fill(gpu, yg, 2.0));
            ck_assert_ok(sp_vector_dot(gpu, yg, yg, &ng));
            ck_assert(ng == 4.0 * (double)n);
            free(b);
            free(a);
            sp_vector_destroy(res);
            sp_vector_destroy(yh);
            sp_vector_destroy(yg);
            sp_vector_destroy(xh);
            sp_vector_destroy(xg);
            free(hy);
            free(hx);
        }
    }
}
END_TEST

/* ---- solvers -------------------------------------------------------------------------- */

typedef struct run {
    sp_status_t setup;
    sp_solver_result_t res;
    void *x; /* host copy */
} run_t;

static run_t run_solver(sp_context_t *ctx, const sp_coo_t *coo, sp_solver_type_t type,
                        const sp_solver_options_t *opt)
{
    run_t r;
    sp_matrix_t *A = NULL;
    sp_solver_t *s = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_solver_options_t o = *opt;
    /* under racecheck, which crashes on CUDA graphs with a while node, the device loop (the
     * CUDA context's default, PCG-SGS's aside) runs as the fused loop it repeats */
    if (ctx == gpu && sp_test_skip_graph_loop() &&
        (o.loop == SP_SOLVER_LOOP_DEVICE ||
         (o.loop == SP_SOLVER_LOOP_AUTO && type != SP_SOLVER_PCG_SGS)))
        o.loop = SP_SOLVER_LOOP_FUSED;
    memset(&r, 0, sizeof r);
    r.x = malloc((size_t)coo->nrows * sp_value_size(coo->value_type));
    ck_assert_ok(sp_matrix_create(ctx, coo, NULL, &A));
    ck_assert_ok(sp_vector_create(ctx, coo->value_type, coo->nrows, NULL, &b));
    ck_assert_ok(sp_vector_create(ctx, coo->value_type, coo->nrows, NULL, &x));
    ck_assert_ok(sp_vector_fill(ctx, b, 1.0));
    ck_assert_ok(sp_solver_create(ctx, type, &s));
    ck_assert_ok(sp_solver_set_options(s, &o));
    r.setup = sp_solver_setup(s, A);
    if (r.setup == SP_STATUS_SUCCESS) {
        ck_assert_ok(sp_solver_solve(s, b, x));
        ck_assert_ok(sp_solver_result(s, &r.res));
        ck_assert_ok(sp_vector_copy_to_host(ctx, x, r.x));
    }
    sp_solver_destroy(s);
    sp_vector_destroy(x);
    sp_vector_destroy(b);
    sp_matrix_destroy(A);
    return r;
}

/* GPU and host: same status, iterations within 1, x within tol relative to max |x|; the GPU
 * solve repeated bit for bit. Returns the GPU's iterations, or -1 when the GPU refused
 * (NOT_SUPPORTED) the setup. */
static int64_t compare_with(const char *name, const sp_coo_t *coo, sp_solver_type_t type,
                            const sp_solver_options_t *opt, double xtol)
{
    double rtol = opt->rtol;
    run_t g = run_solver(gpu, coo, type, opt), h = run_solver(host, coo, type, opt), g2;
    int64_t n = coo->nrows;
    double xmax = 0, dmax = 0;
    int f = coo->value_type == SP_R_32F;
    ck_assert_msg(h.setup == SP_STATUS_SUCCESS, "%s: host setup failed", name);
    if (g.setup == SP_STATUS_NOT_SUPPORTED) {
        printf("note: %s skipped on the GPU: %s\n", name, sp_last_error());
        free(g.x);
        free(h.x);
        return -1;
    }
    ck_assert_msg(g.setup == SP_STATUS_SUCCESS, "%s: GPU setup: %s", name, sp_last_error());
    ck_assert_msg(g.res.status == SP_SOLVER_CONVERGED && h.res.status == SP_SOLVER_CONVERGED,
                  "%s: gpu %s host %s", name, sp_solver_status_string(g.res.status),
                  sp_solver_status_string(h.res.status));
    /* CG's residuals fall monotonically in exact arithmetic, so rounding moves its count by
     * at most one here; BiCGSTAB's do not, and a different summation order in SpMV and dot
     * moves its count by a few percent (seen: 71 vs 69, 159 vs 164 on an H200) */
    int64_t slack = type == SP_SOLVER_BICGSTAB ? 2 + h.res.iterations / 10 : 1;
    ck_assert_msg(llabs(g.res.iterations - h.res.iterations) <= slack,
                  "%s: gpu %lld host %lld iterations (slack %lld)", name,
                  (long long)g.res.iterations, (long long)h.res.iterations, (long long)slack);
    for (int64_t i = 0; i < n; i++) {
        double u = f ? ((float *)g.x)[i] : ((double *)g.x)[i];
        double v = f ? ((float *)h.x)[i] : ((double *)h.x)[i];
        if (fabs(v) > xmax) xmax = fabs(v);
        if (fabs(u - v) > dmax) dmax = fabs(u - v);
    }
    ck_assert_msg(dmax <= xtol * xmax, "%s: max |x_gpu - x_host| %g, max |x| %g", name, dmax,
                  xmax);
    ck_assert_msg(g.res.relative_residual <= 10 * rtol, "%s: GPU true residual %g", name,
                  g.res.relative_residual);
    g2 = run_solver(gpu, coo, type, opt);
    ck_assert_msg(g2.res.iterations == g.res.iterations &&
                      memcmp(g2.x, g.x, (size_t)n * sp_value_size(coo->value_type)) == 0,
                  "%s: two GPU solves differ", name);
    free(g2.x);
    free(g.x);
    free(h.x);
    return g.res.iterations;
}

static int64_t compare_solver(const char *name, const sp_coo_t *coo, sp_solver_type_t type,
                              double rtol, double xtol)
{
    sp_solver_options_t opt = {.rtol = rtol};
    return compare_with(name, coo, type, &opt, xtol);
}

START_TEST(solvers_poisson)
{
    sp_coo_t *coo = NULL;
    static const char *const names[4] = {"cg", "pcg-jacobi", "pcg-sgs", "bicgstab"};
    ck_assert_ok(sp_gen_poisson3d(small ? 10 : 40, SP_R_64F, &coo));
    for (int t = 0; t < 4; t++) {
        char name[64];
        snprintf(name, sizeof name, "%s poisson3d double", names[t]);
        compare_solver(name, coo, (sp_solver_type_t)t, 1e-9, 1e-6);
    }
    sp_coo_free(coo);
    ck_assert_ok(sp_gen_poisson3d(small ? 8 : 24, SP_R_32F, &coo));
    compare_solver("cg poisson3d float", coo, SP_SOLVER_CG, 1e-5, 1e-3);
    compare_solver("pcg-jacobi poisson3d float", coo, SP_SOLVER_PCG_JACOBI, 1e-5, 1e-3);
    sp_coo_free(coo);
}
END_TEST

START_TEST(bicgstab_convection_diffusion)
{
    sp_coo_t *coo = sp_test_convection_diffusion(small ? 20 : 96, 0.6, SP_R_64F);
    compare_solver("bicgstab convection-diffusion", coo, SP_SOLVER_BICGSTAB, 1e-9, 1e-6);
    sp_coo_free(coo);
}
END_TEST

/* An SPD matrix with irregular rows: every 97th row holds 300 neighbours, the others 2 to
 * 6, off-diagonals -1 (symmetric), the diagonal 1 + the row's off-diagonal count. ELL's
 * padding bound refuses it, so the fused product runs its CSR path. */
static sp_coo_t *irregular_spd(int64_t n, uint64_t seed)
{
    sp_coo_t *coo = NULL;
    int64_t cap = 0;
    for (int64_t i = 0; i < n; i++)
        cap += 2 * (i % 97 == 0 ? 300 : 6) + 1;
    ck_assert_ok(sp_coo_create(n, n, cap, SP_R_64F, &coo));
    double *val = coo->val, *diag = calloc((size_t)n, sizeof *diag);
    ck_assert_ptr_nonnull(diag);
    for (int64_t i = 0; i < n; i++) {
        int64_t deg = i % 97 == 0 ? 300 : 2 + (int64_t)(sp_test_rand(&seed) % 5);
        for (int64_t k = 0; k < deg; k++) {
            int64_t j = (int64_t)(sp_test_rand(&seed) % (uint64_t)n);
            if (j == i) continue;
            coo->row[coo->nnz] = (int32_t)i, coo->col[coo->nnz] = (int32_t)j;
            val[coo->nnz++] = -1.0;
            coo->row[coo->nnz] = (int32_t)j, coo->col[coo->nnz] = (int32_t)i;
            val[coo->nnz++] = -1.0;
            diag[i] += 1.0, diag[j] += 1.0;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        coo->row[coo->nnz] = (int32_t)i, coo->col[coo->nnz] = (int32_t)i;
        val[coo->nnz++] = 1.0 + diag[i];
    }
    free(diag);
    return coo;
}

/* The fused iteration (LOOP_FUSED, LOOP_DEVICE with and without check_every, pipelined;
 * PCG-SGS runs all of them as LOOP_FUSED, classic) on the GPU against its host twin
 * (compare_with: status, iterations within one, x, the repeat bit for bit) and against
 * the GPU's step loop (iterations within one), on ELL (Poisson, double and float) and
 * CSR (irregular rows); BiCGSTAB's forms; pipelined CG on an ill-conditioned system. */
static const struct {
    const char *name;
    sp_solver_loop_t loop;
    int64_t every;
    int pipelined;
} fused_forms[] = {{"fused", SP_SOLVER_LOOP_FUSED, 0, 0},
                   {"device", SP_SOLVER_LOOP_DEVICE, 0, 0},
                   {"device/16", SP_SOLVER_LOOP_DEVICE, 16, 0},
                   {"pipelined", SP_SOLVER_LOOP_FUSED, 0, 1},
                   {"pipelined device/8", SP_SOLVER_LOOP_DEVICE, 8, 1}};

/* Every fused form against the GPU step loop at rtol; the pipelined forms at pipe_rtol
 * (pipelined CG's true residual stalls earlier: in float on Poisson 24^3 at about 2e-4,
 * where at rtol 1e-5 both the GPU and the host twin end in breakdown). */
static void fused_on(const char *matrix, const sp_coo_t *coo, double rtol, double pipe_rtol,
                     double xtol)
{
    static const sp_solver_type_t types[3] = {SP_SOLVER_CG, SP_SOLVER_PCG_JACOBI,
                                              SP_SOLVER_PCG_SGS};
    static const char *const names[3] = {"cg", "pcg-jacobi", "pcg-sgs"};
    for (int t = 0; t < 3; t++) {
        sp_solver_type_t type = types[t];
        sp_solver_options_t steps = {.rtol = rtol, .loop = SP_SOLVER_LOOP_STEPS};
        sp_solver_options_t steps_pipe = {.rtol = pipe_rtol, .loop = SP_SOLVER_LOOP_STEPS};
        run_t base = run_solver(gpu, coo, type, &steps);
        run_t base_pipe = run_solver(gpu, coo, type, &steps_pipe);
        ck_assert_int_eq(base.setup, SP_STATUS_SUCCESS);
        ck_assert_int_eq(base_pipe.setup, SP_STATUS_SUCCESS);
        for (size_t f = 0; f < sizeof fused_forms / sizeof fused_forms[0]; f++) {
            int pipe = fused_forms[f].pipelined;
            const run_t *b = pipe ? &base_pipe : &base;
            sp_solver_options_t opt = {.rtol = pipe ? pipe_rtol : rtol};
            char name[128];
            if (fused_forms[f].loop == SP_SOLVER_LOOP_DEVICE && sp_test_skip_graph_loop())
                continue;
            opt.loop = fused_forms[f].loop;
            opt.check_every = fused_forms[f].every;
            opt.pipelined = pipe;
            snprintf(name, sizeof name, "%s %s %s", names[t], fused_forms[f].name, matrix);
            int64_t its = compare_with(name, coo, type, &opt, xtol);
            ck_assert_msg(its >= 0, "%s: refused", name);
            ck_assert_msg(llabs(its - b->res.iterations) <= 1,
                          "%s: %lld iterations, the GPU step loop %lld", name, (long long)its,
                          (long long)b->res.iterations);
            printf("%s: %lld iterations (step loop %lld)\n", name, (long long)its,
                   (long long)b->res.iterations);
        }
        free(base.x);
        free(base_pipe.x);
    }
}

START_TEST(fused_vs_host)
{
    sp_coo_t *coo = NULL;
    ck_assert_ok(sp_gen_poisson3d(small ? 10 : 40, SP_R_64F, &coo));
    fused_on("poisson3d double", coo, 1e-9, 1e-9, 1e-6);
    sp_coo_free(coo);
    ck_assert_ok(sp_gen_poisson3d(small ? 8 : 24, SP_R_32F, &coo));
    fused_on("poisson3d float", coo, 1e-5, 1e-3, 1e-3);
    sp_coo_free(coo);
    coo = irregular_spd(small ? 3000 : 40000, 7);
    fused_on("irregular csr double", coo, 1e-9, 1e-9, 1e-6);
    sp_coo_free(coo);
    /* BiCGSTAB: its three-kernel iteration in the non-pipelined forms */
    coo = sp_test_convection_diffusion(small ? 20 : 96, 0.6, SP_R_64F);
    sp_solver_options_t steps = {.rtol = 1e-9, .loop = SP_SOLVER_LOOP_STEPS};
    run_t base = run_solver(gpu, coo, SP_SOLVER_BICGSTAB, &steps);
    for (size_t f = 0; f < 3; f++) {
        sp_solver_options_t opt = {.rtol = 1e-9};
        char name[128];
        if (fused_forms[f].loop == SP_SOLVER_LOOP_DEVICE && sp_test_skip_graph_loop()) continue;
        opt.loop = fused_forms[f].loop;
        opt.check_every = fused_forms[f].every;
        snprintf(name, sizeof name, "bicgstab %s convection-diffusion", fused_forms[f].name);
        int64_t its = compare_with(name, coo, SP_SOLVER_BICGSTAB, &opt, 1e-6);
        ck_assert_msg(llabs(its - base.res.iterations) <= 2 + base.res.iterations / 10,
                      "%s: %lld iterations, the GPU step loop %lld", name, (long long)its,
                      (long long)base.res.iterations);
        printf("%s: %lld iterations (step loop %lld)\n", name, (long long)its,
               (long long)base.res.iterations);
    }
    free(base.x);
    sp_coo_free(coo);
    /* pipelined CG on the ill-conditioned scaled Laplacian (check_solver's case fused):
     * the GPU's iterations near the host twin's, its residual gap as bounded there. Left
     * out of small runs (thousands of iterations: slow under compute-sanitizer). */
    if (small) return;
    coo = sp_test_scaled_laplacian(200, 2.0);
    sp_solver_options_t classic = {.rtol = 1e-6, .max_iterations = 20000,
                                   .loop = SP_SOLVER_LOOP_FUSED};
    sp_solver_options_t pipe = classic;
    pipe.pipelined = 1;
    run_t gc = run_solver(gpu, coo, SP_SOLVER_CG, &classic);
    run_t gp = run_solver(gpu, coo, SP_SOLVER_CG, &pipe);
    run_t hp = run_solver(host, coo, SP_SOLVER_CG, &pipe);
    printf("ill-conditioned: GPU classic %lld iterations (true %.3e), GPU pipelined %lld (true "
           "%.3e, recurrence %.3e), host pipelined %lld (true %.3e)\n",
           (long long)gc.res.iterations, gc.res.relative_residual,
           (long long)gp.res.iterations, gp.res.relative_residual,
           gp.res.recurrence_residual, (long long)hp.res.iterations,
           hp.res.relative_residual);
    ck_assert(gc.res.status == SP_SOLVER_CONVERGED && gp.res.status == SP_SOLVER_CONVERGED);
    ck_assert_msg(llabs(gp.res.iterations - hp.res.iterations) <= 2 + hp.res.iterations / 10,
                  "pipelined: GPU %lld, host %lld iterations", (long long)gp.res.iterations,
                  (long long)hp.res.iterations);
    ck_assert_msg(4 * gp.res.iterations <= 6 * gc.res.iterations,
                  "pipelined %lld, classic %lld iterations", (long long)gp.res.iterations,
                  (long long)gc.res.iterations);
    ck_assert_msg(gc.res.relative_residual <= 1e-5, "classic true residual %g",
                  gc.res.relative_residual);
    ck_assert_msg(gp.res.relative_residual <= 1e-3, "pipelined true residual %g",
                  gp.res.relative_residual);
    free(hp.x);
    free(gp.x);
    free(gc.x);
    sp_coo_free(coo);
}
END_TEST

/* sp_sptrsv against the host on both triangles of Poisson (many levels) and a diagonal
 * matrix (one level), every algorithm. */
START_TEST(sptrsv_vs_host)
{
    sp_coo_t *coo = NULL;
    ck_assert_ok(sp_gen_poisson3d(small ? 8 : 32, SP_R_64F, &coo));
    int64_t n = coo->nrows;
    double *hb = random_values(SP_R_64F, n, 5), *xg = malloc((size_t)n * 8),
           *xh = malloc((size_t)n * 8), alpha = 1.5;
    sp_matrix_t *G = NULL, *H = NULL;
    sp_vector_t *bg, *bh, *vg, *vh;
    ck_assert_ok(sp_matrix_create(gpu, coo, NULL, &G));
    ck_assert_ok(sp_matrix_create(host, coo, NULL, &H));
    pair(SP_R_64F, n, hb, &bg, &bh);
    pair(SP_R_64F, n, NULL, &vg, &vh);
    for (int u = 0; u < 2; u++)
        for (int alg = 0; alg < 3; alg++) {
            sp_status_t st = sp_sptrsv(gpu, G, (sp_uplo_t)u, SP_DIAG_NON_UNIT,
                                       (sp_sptrsv_alg_t)alg, &alpha, sp_vector_data(bg),
                                       sp_vector_data(vg));
            if (st == SP_STATUS_NOT_SUPPORTED) {
                printf("note: sptrsv uplo %d alg %d skipped on the GPU: %s\n", u, alg,
                       sp_last_error());
                continue;
            }
            ck_assert_msg(st == SP_STATUS_SUCCESS, "sptrsv: %s", sp_last_error());
            ck_assert_ok(sp_sptrsv(host, H, (sp_uplo_t)u, SP_DIAG_NON_UNIT, (sp_sptrsv_alg_t)alg,
                                   &alpha, sp_vector_data(bh), sp_vector_data(vh)));
            ck_assert_ok(sp_vector_copy_to_host(gpu, vg, xg));
            ck_assert_ok(sp_vector_copy_to_host(host, vh, xh));
            for (int64_t i = 0; i < n; i++)
                ck_assert_msg(fabs(xg[i] - xh[i]) <= 1e-12 * (1 + fabs(xh[i])),
                              "sptrsv uplo %d alg %d [%lld]: %.17g vs %.17g", u, alg,
                              (long long)i, xg[i], xh[i]);
        }
    sp_vector_destroy(vh);
    sp_vector_destroy(vg);
    sp_vector_destroy(bh);
    sp_vector_destroy(bg);
    sp_matrix_destroy(H);
    sp_matrix_destroy(G);
    free(xh);
    free(xg);
    free(hb);
    sp_coo_free(coo);
}
END_TEST

START_TEST(gpu_refusals)
{
    sp_vector_t *v = NULL, *hv = NULL;
    double r;
    ck_assert_ok(sp_vector_create(gpu, SP_R_64F, 4, NULL, &v));
    ck_assert_ok(sp_vector_create(host, SP_R_64F, 4, NULL, &hv));
    ck_assert_status(sp_vector_dot(gpu, v, hv, &r), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("vector belongs to another context");
    ck_assert_status(sp_vector_nrm2_async(gpu, v, v, 9), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("index 9 outside");
    sp_vector_destroy(hv);
    sp_vector_destroy(v);
}
END_TEST

static Suite *gpu_solver_suite(void)
{
    Suite *s = suite_create("gpu_solver");
    TCase *tc = tcase_create("gpu_solver");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, reductions_vs_host);
    tcase_add_test(tc, solvers_poisson);
    tcase_add_test(tc, bicgstab_convection_diffusion);
    tcase_add_test(tc, sptrsv_vs_host);
    tcase_add_test(tc, gpu_refusals);
    suite_add_tcase(s, tc);
    /* its own case, so that scripts/device-solve26.sh can run it alone under memcheck */
    tc = tcase_create("fused");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, fused_vs_host);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_solver_suite()); }
