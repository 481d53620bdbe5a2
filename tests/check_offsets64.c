/* 64-bit offsets per matrix on a host context (issue 20): the same COO made with
 * sp_matrix_options_t.offset_bits 32 and 64 gives the same CSR and CSC pointers (one array
 * 32-bit, the other 64-bit, as sp_matrix_view and sp_matrix_info show them), the same SpMV
 * in every format and AUTO bit for bit (Poisson, random with empty rows, duplicates and a
 * long row, rectangular, empty; float and double: ELL, HYB, JDS and SELL built from the
 * CSR's pointers narrowed to 32 bits), the same BFS levels, parents and stats in every
 * variant, the same triangular solves and solver iterates; above the narrow limit (2^31
 * entries, lowered by sp__test_set_narrow_limit) JDS and SELL are built with 64-bit offsets
 * of their own and the solvers' loops read the 64-bit pointers (the 32-bit matrix's arrays,
 * SpMV bits and iterates), a bad offset_bits value gets SP_STATUS_INVALID_ARGUMENT. offset_bits 0 gives 64 under
 * SP_TEST_OFFSET_BITS=64 (the forced run of the suites labelled offsets64), which
 * default_width asserts so that run cannot pass with the mode off. A CUDA context (where
 * one exists) takes a 64-bit matrix; check_gpu_offsets64 tests what it does with it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_api.h" /* the test hooks sp__test_set_default_offset_bits, _narrow_limit */
#include "testutil.h"

/* The host context of every case (a checked fixture). */
static sp_context_t *ctx;
static void host_setup(void) { ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx)); }
static void host_teardown(void)
{
    sp_context_destroy(ctx);
    ctx = NULL;
}

/* A on context `on` from coo with offset_bits bits, asserted, and its info's width checked. */
static sp_matrix_t *make(sp_context_t *on, const sp_coo_t *coo, int bits)
{
    sp_matrix_options_t o = {0};
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    o.offset_bits = bits;
    ck_assert_ok(sp_matrix_create(on, coo, &o, &A));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.offset_bits, bits == 0 ? sp_test_default_offset_bits() : bits);
    return A;
}

/* The pointers of format f (CSR or CSC) of A32 and A64: the same numbers, one array each;
 * and the 64-bit one's bytes are 4 more a pointer. */
static void same_pointers(sp_matrix_t *A32, sp_matrix_t *A64, sp_format_t f)
{
    sp_format_view_t v32, v64;
    sp_matrix_info_t i32, i64;
    ck_assert_ok(sp_matrix_build(ctx, A32, f));
    ck_assert_ok(sp_matrix_build(ctx, A64, f));
    ck_assert_ok(sp_matrix_view(A32, f, &v32));
    ck_assert_ok(sp_matrix_view(A64, f, &v64));
    const int32_t *p32 = f == SP_FORMAT_CSR ? v32.csr.row_ptr : v32.csc.col_ptr;
    const int32_t *none = f == SP_FORMAT_CSR ? v64.csr.row_ptr : v64.csc.col_ptr;
    const int64_t *p64 = f == SP_FORMAT_CSR ? v64.row_ptr64 : v64.col_ptr64;
    const int32_t *idx32 = f == SP_FORMAT_CSR ? v32.csr.col : v32.csc.row;
    const int32_t *idx64 = f == SP_FORMAT_CSR ? v64.csr.col : v64.csc.row;
    int64_t n = f == SP_FORMAT_CSR ? v32.nrows : v32.ncols;
    ck_assert_ptr_null(none);
    ck_assert_ptr_null(f == SP_FORMAT_CSR ? v32.row_ptr64 : v32.col_ptr64);
    ck_assert_ptr_nonnull(p32);
    ck_assert_ptr_nonnull(p64);
    for (int64_t i = 0; i <= n; i++) ck_assert_int_eq(p32[i], p64[i]);
    ck_assert_int_eq(p64[n], v64.nnz);
    if (v32.nnz > 0) ck_assert_mem_eq(idx32, idx64, (size_t)v32.nnz * sizeof *idx32);
    ck_assert_ok(sp_matrix_info(A32, &i32));
    ck_assert_ok(sp_matrix_info(A64, &i64));
    ck_assert_int_eq(i64.bytes[f], i32.bytes[f] + 4 * (n + 1));
}

/* y = 1.5 A x - 0.5 y in format f on A32 and A64 from the same x and y: equal bit for bit. */
static void same_spmv(sp_matrix_t *A32, sp_matrix_t *A64, sp_format_t f, uint64_t seed)
{
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(A32, &info));
    size_t vs = info.value_type == SP_R_32F ? 4 : 8;
    size_t nx = (size_t)info.ncols + 1, ny = (size_t)info.nrows + 1;
    unsigned char *x = malloc(nx * vs), *y32 = malloc(ny * vs), *y64 = malloc(ny * vs);
    double a64 = 1.5, b64 = -0.5;
    float a32 = 1.5f, b32 = -0.5f;
    const void *alpha = vs == 4 ? (const void *)&a32 : (const void *)&a64;
    const void *beta = vs == 4 ? (const void *)&b32 : (const void *)&b64;
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y32);
    ck_assert_ptr_nonnull(y64);
    for (size_t i = 0; i < nx; i++) {
        double v = sp_test_uniform(&seed) * 2.0 - 1.0;
        if (vs == 4) ((float *)x)[i] = (float)v;
        else ((double *)x)[i] = v;
    }
    for (size_t i = 0; i < ny; i++) {
        double v = sp_test_uniform(&seed);
        if (vs == 4) ((float *)y32)[i] = (float)v;
        else ((double *)y32)[i] = v;
    }
    memcpy(y64, y32, ny * vs);
    sp_status_t st32 = sp_spmv(ctx, f, SP_SPMV_ALG_DEFAULT, alpha, A32, x, beta, y32);
    sp_status_t st64 = sp_spmv(ctx, f, SP_SPMV_ALG_DEFAULT, alpha, A64, x, beta, y64);
    ck_assert_msg(st32 == st64 && (st32 == SP_STATUS_SUCCESS || f == SP_FORMAT_ELL),
                  "SpMV %s: %s at 32 bits, %s at 64: %s", sp_format_name(f),
                  sp_status_string(st32), sp_status_string(st64), sp_last_error());
    ck_assert_msg(memcmp(y32, y64, ny * vs) == 0, "SpMV %s differs between 32- and 64-bit offsets",
                  f == SP_FORMAT_AUTO ? "auto" : sp_format_name(f));
    free(x);
    free(y32);
    free(y64);
}

/* The whole comparison for one COO (consumed). */
static void compare_spmv(sp_coo_t *coo, uint64_t seed)
{
    sp_format_t chosen = SP_FORMAT_AUTO;
    sp_matrix_t *A32 = make(ctx, coo, 32), *A64 = make(ctx, coo, 64);
    sp_format_t formats[] = {SP_FORMAT_CSR, SP_FORMAT_COO, SP_FORMAT_CSC, SP_FORMAT_ELL,
                             SP_FORMAT_HYB, SP_FORMAT_JDS, SP_FORMAT_SELL, SP_FORMAT_AUTO};
    sp_matrix_info_t i32, i64;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        same_spmv(A32, A64, formats[i], seed + i);
    ck_assert_ok(sp_matrix_info(A32, &i32));
    ck_assert_ok(sp_matrix_info(A64, &i64));
    for (int f = SP_FORMAT_ELL; f < SP_FORMAT_COUNT; f++) /* the same padded formats */
        ck_assert_int_eq(i32.bytes[f], i64.bytes[f]);
    same_pointers(A32, A64, SP_FORMAT_CSR); /* (its bytes: no narrowed pointers kept) */
    same_pointers(A32, A64, SP_FORMAT_CSC);
    /* below the narrow limit AUTO sees the matrix as at 32 bits (every format serves it) */
    sp_format_t chosen32 = SP_FORMAT_AUTO;
    ck_assert_ok(sp_spmv_choose_format(ctx, A32, &chosen32));
    ck_assert_ok(sp_spmv_choose_format(ctx, A64, &chosen));
    ck_assert_msg(chosen == chosen32, "AUTO chose %s for 64-bit offsets, %s for 32",
                  sp_format_name(chosen), sp_format_name(chosen32));
    ck_assert_ok(sp_spmv_tune(ctx, A64, &chosen, NULL));
    ck_assert_int_ne(chosen, SP_FORMAT_AUTO);
    same_spmv(A32, A64, SP_FORMAT_AUTO, seed + 7);
    sp_matrix_destroy(A32);
    sp_matrix_destroy(A64);
    sp_coo_free(coo);
}

/* Matrix _i of the catalogue (sp_test_offsets64_matrix), a loop test. */
START_TEST(spmv_catalogue)
{
    sp_coo_t *a = sp_test_offsets64_matrix((int)_i);
    ck_assert_ptr_nonnull(a);
    compare_spmv(a, (uint64_t)_i + 1);
}
END_TEST

/* Every host BFS variant on a symmetrized Kronecker pattern graph: the same levels,
 * parents and stats with 32- and 64-bit offsets. */
START_TEST(bfs_same_results)
{
    enum { NSRC = 4 };
    sp_coo_t *g = NULL;
    ck_assert_ok(sp_gen_kronecker(11, 8, 5, SP_VALUE_NONE, &g));
    ck_assert_ok(sp_coo_symmetrize(g, 1));
    sp_matrix_t *G32 = make(ctx, g, 32), *G64 = make(ctx, g, 64);
    int64_t n = g->nrows, m = g->nnz; /* sources with an edge (Graph500's rule) */
    int64_t sources[NSRC] = {g->row[0], g->row[m / 3], g->row[m / 2], g->row[m - 1]};
    sp_bfs_variant_t variants[] = {SP_BFS_AUTO,     SP_BFS_PUSH,       SP_BFS_PULL,
                                   SP_BFS_EDGE,     SP_BFS_FRONTIER,   SP_BFS_PRIVATIZED,
                                   SP_BFS_DIRECTION_OPT};
    size_t bytes = (size_t)(NSRC * n) * sizeof(int32_t);
    int32_t *l32 = malloc(bytes), *l64 = malloc(bytes), *p32 = malloc(bytes), *p64 = malloc(bytes);
    ck_assert_ptr_nonnull(l32);
    ck_assert_ptr_nonnull(l64);
    ck_assert_ptr_nonnull(p32);
    ck_assert_ptr_nonnull(p64);
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        sp_bfs_options_t o = {0};
        sp_bfs_stats_t s32[NSRC], s64[NSRC];
        o.variant = variants[v];
        ck_assert_ok(sp_bfs_multi(ctx, G32, NSRC, sources, &o, l32, p32, s32));
        ck_assert_ok(sp_bfs_multi(ctx, G64, NSRC, sources, &o, l64, p64, s64));
        ck_assert_mem_eq(l32, l64, bytes);
        ck_assert_mem_eq(p32, p64, bytes);
        for (int i = 0; i < NSRC; i++) {
            ck_assert_int_eq(s32[i].levels, s64[i].levels);
            ck_assert_int_eq(s32[i].vertices_visited, s64[i].vertices_visited);
            ck_assert_int_eq(s32[i].edges_traversed, s64[i].edges_traversed);
            ck_assert_int_gt(s64[i].vertices_visited, 1);
        }
    }
    /* a level checked by hand: every neighbour of the source is at level 1 */
    ck_assert_ok(sp_bfs(ctx, G64, sources[0], NULL, l64, p64, NULL));
    for (int64_t k = 0; k < g->nnz; k++)
        if (g->row[k] == sources[0] && g->col[k] != sources[0]) {
            ck_assert_int_eq(l64[g->col[k]], 1);
            ck_assert_int_eq(p64[g->col[k]], sources[0]);
        }
    free(l32);
    free(l64);
    free(p32);
    free(p64);
    sp_matrix_destroy(G32);
    sp_matrix_destroy(G64);
    sp_coo_free(g);
}
END_TEST

/* y = alpha L^-1 b from the lower triangle, then x from PCG with symmetric Gauss-Seidel and
 * from CG in fused steps (20 iterations each) on A32 and A64: the same bits. The fused steps
 * read the CSR's pointers narrowed to 32 bits, kept with A64's CSR (its bytes: 4 more a
 * pointer) until the CSR goes. */
START_TEST(sptrsv_and_solver_same_results)
{
    enum { N = 400, SOLVES = 2 };
    static const sp_solver_type_t types[SOLVES] = {SP_SOLVER_PCG_SGS, SP_SOLVER_CG};
    static const sp_solver_loop_t loops[SOLVES] = {SP_SOLVER_LOOP_AUTO, SP_SOLVER_LOOP_DEVICE};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson2d(20, SP_R_64F, &a));
    sp_matrix_t *A[2] = {make(ctx, a, 32), make(ctx, a, 64)};
    double alpha = 1.5, b[N], y[2][N], x[2][SOLVES][N];
    int64_t iterations[2][SOLVES];
    for (int i = 0; i < N; i++) b[i] = 1.0 + (i % 7);
    for (int w = 0; w < 2; w++) {
        sp_vector_t *vb = NULL, *vx = NULL;
        sp_matrix_info_t info;
        ck_assert_ok(sp_sptrsv(ctx, A[w], SP_UPLO_LOWER, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO,
                               &alpha, b, y[w]));
        ck_assert_ok(sp_vector_create(ctx, SP_R_64F, N, b, &vb));
        ck_assert_ok(sp_vector_create(ctx, SP_R_64F, N, NULL, &vx));
        for (int k = 0; k < SOLVES; k++) {
            sp_solver_t *s = NULL;
            sp_solver_result_t res;
            sp_solver_options_t o = {.max_iterations = 20, .loop = loops[k]};
            ck_assert_ok(sp_solver_create(ctx, types[k], &s));
            ck_assert_ok(sp_solver_set_options(s, &o));
            ck_assert_ok(sp_solver_setup(s, A[w]));
            ck_assert_ok(sp_vector_fill(ctx, vx, 0.0));
            ck_assert_ok(sp_solver_solve(s, vb, vx));
            ck_assert_ok(sp_solver_result(s, &res));
            iterations[w][k] = res.iterations;
            ck_assert_ok(sp_vector_copy_to_host(ctx, vx, x[w][k]));
            sp_solver_destroy(s);
        }
        ck_assert_ok(sp_matrix_info(A[w], &info));
        ck_assert_int_eq(info.bytes[SP_FORMAT_CSR], (N + 1) * (w ? 12 : 4) + 1920 * 12);
        sp_vector_destroy(vx);
        sp_vector_destroy(vb);
    }
    ck_assert_mem_eq(y[0], y[1], sizeof y[0]);
    ck_assert_mem_eq(x[0], x[1], sizeof x[0]);
    for (int k = 0; k < SOLVES; k++) {
        ck_assert_int_eq(iterations[0][k], iterations[1][k]);
        ck_assert_int_gt(iterations[0][k], 1);
    }
    ck_assert_ok(sp_matrix_release(ctx, A[1], SP_FORMAT_CSR)); /* the narrowed copy with it */
    sp_matrix_destroy(A[0]);
    sp_matrix_destroy(A[1]);
    sp_coo_free(a);
}
END_TEST

/* The fused loops past the narrow limit (set by the caller below a's entries), on the host
 * twins of the GPU's steps: the spmv step reads A64's own 64-bit pointers (SP_CG_MAT_CSR64,
 * nothing narrowed), and every method gives the 32-bit matrix's iterations and x bit for bit
 * (the same entries summed in the same order): CG on the device loop, pipelined CG,
 * PCG-Jacobi, PCG-SGS and BiCGSTAB on the fused one. */
static void fused_loops_past_limit(const sp_coo_t *a, sp_matrix_t *A64)
{
    enum { K = 5, N = 400 };
    static const sp_solver_type_t types[K] = {SP_SOLVER_CG, SP_SOLVER_CG, SP_SOLVER_PCG_JACOBI,
                                              SP_SOLVER_PCG_SGS, SP_SOLVER_BICGSTAB};
    static const sp_solver_loop_t loops[K] = {SP_SOLVER_LOOP_DEVICE, SP_SOLVER_LOOP_FUSED,
                                              SP_SOLVER_LOOP_FUSED, SP_SOLVER_LOOP_FUSED,
                                              SP_SOLVER_LOOP_FUSED};
    static const int pipelined[K] = {0, 1, 0, 0, 0};
    static double b[N], xs[2][N];
    sp_matrix_t *A[2] = {make(ctx, a, 32), A64};
    ck_assert_int_eq(a->nrows, N);
    for (int i = 0; i < N; i++) b[i] = 1.0 + (i % 7);
    for (int k = 0; k < K; k++) {
        int64_t iterations[2];
        for (int w = 0; w < 2; w++) {
            sp_solver_t *solver = NULL;
            sp_vector_t *vb = NULL, *vx = NULL;
            sp_solver_result_t res;
            sp_solver_options_t o = {.rtol = 1e-10, .max_iterations = 2000, .loop = loops[k],
                                     .pipelined = pipelined[k]};
            ck_assert_ok(sp_solver_create(ctx, types[k], &solver));
            ck_assert_ok(sp_solver_set_options(solver, &o));
            ck_assert_ok(sp_solver_setup(solver, A[w]));
            ck_assert_ok(sp_vector_create(ctx, SP_R_64F, N, b, &vb));
            ck_assert_ok(sp_vector_create(ctx, SP_R_64F, N, NULL, &vx));
            ck_assert_ok(sp_solver_solve(solver, vb, vx));
            ck_assert_ok(sp_solver_result(solver, &res));
            ck_assert_int_eq(res.status, SP_SOLVER_CONVERGED);
            iterations[w] = res.iterations;
            ck_assert_ok(sp_vector_copy_to_host(ctx, vx, xs[w]));
            sp_vector_destroy(vx);
            sp_vector_destroy(vb);
            sp_solver_destroy(solver);
        }
        ck_assert_int_eq(iterations[0], iterations[1]);
        ck_assert_int_gt(iterations[0], 1);
        ck_assert_msg(memcmp(xs[0], xs[1], sizeof xs[0]) == 0,
                      "fused solver %d (pipelined %d) differs between the widths",
                      (int)types[k], pipelined[k]);
    }
    ck_assert_ptr_null(A64->csr_ptr32); /* nothing narrowed */
    sp_matrix_destroy(A[0]);
}

/* Above the narrow limit (2^31 entries; lowered here to 1000) what reads 32-bit offsets
 * only refuses a 64-bit matrix before any work, naming it; A is left usable. */
START_TEST(refusals_above_narrow_limit)
{
    sp_coo_t *a = NULL;
    sp_solver_t *solver = NULL;
    ck_assert_ok(sp_gen_poisson2d(20, SP_R_64F, &a));
    sp_matrix_t *A = make(ctx, a, 64);
    double alpha = 1, beta = 0, x[400] = {0}, y[400] = {0};
    sp__test_set_narrow_limit(1000);
    /* the host's substitution reads 64-bit pointers past the limit too: the 32-bit
       matrix's solution bit for bit, both triangles */
    {
        sp_matrix_t *A32 = make(ctx, a, 32);
        double b[400], x32[400], x64[400];
        for (int i = 0; i < 400; i++) b[i] = 1.0 + (i % 7);
        for (int u = 0; u < 2; u++) {
            sp_uplo_t uplo = u ? SP_UPLO_UPPER : SP_UPLO_LOWER;
            ck_assert_ok(sp_sptrsv_analyse(ctx, A, uplo, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO));
            ck_assert_ok(sp_sptrsv(ctx, A32, uplo, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO, &alpha,
                                   b, x32));
            ck_assert_ok(sp_sptrsv(ctx, A, uplo, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO, &alpha,
                                   b, x64));
            ck_assert_mem_eq(x32, x64, sizeof x32);
        }
        sp_matrix_destroy(A32);
    }
    /* the step loop (a host context's) reads 64-bit pointers past the limit: CG and PCG-SGS
       (its substitutions) converge to the 32-bit matrix's solution (the fused loops: below) */
    {
        static const sp_solver_type_t types[2] = {SP_SOLVER_CG, SP_SOLVER_PCG_SGS};
        sp_matrix_t *A32 = make(ctx, a, 32);
        double b[400], xs[2][400];
        for (int i = 0; i < 400; i++) b[i] = 1.0 + (i % 7);
        for (int k = 0; k < 2; k++) {
            for (int w = 0; w < 2; w++) {
                sp_vector_t *vb = NULL, *vx = NULL;
                sp_solver_result_t res;
                sp_solver_options_t o = {.rtol = 1e-10, .max_iterations = 2000};
                ck_assert_ok(sp_solver_create(ctx, types[k], &solver));
                ck_assert_ok(sp_solver_set_options(solver, &o));
                ck_assert_ok(sp_solver_setup(solver, w ? A : A32));
                ck_assert_ok(sp_vector_create(ctx, SP_R_64F, 400, b, &vb));
                ck_assert_ok(sp_vector_create(ctx, SP_R_64F, 400, NULL, &vx));
                ck_assert_ok(sp_vector_fill(ctx, vx, 0.0));
                ck_assert_ok(sp_solver_solve(solver, vb, vx));
                ck_assert_ok(sp_solver_result(solver, &res));
                ck_assert_int_eq(res.status, SP_SOLVER_CONVERGED);
                ck_assert_ok(sp_vector_copy_to_host(ctx, vx, xs[w]));
                sp_vector_destroy(vx);
                sp_vector_destroy(vb);
                sp_solver_destroy(solver);
                solver = NULL;
            }
            for (int i = 0; i < 400; i++)
                ck_assert_msg(fabs(xs[0][i] - xs[1][i]) <= 1e-8 * (1.0 + fabs(xs[0][i])),
                              "solver %d, x[%d]: %.17g at 64 bits, %.17g at 32", (int)types[k],
                              i, xs[1][i], xs[0][i]);
        }
        sp_matrix_destroy(A32);
    }
    fused_loops_past_limit(a, A);
    /* nothing refused was built; what is supported still runs: CSR, ELL (with or without a
       tail) and HYB, read at either width */
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int f = SP_FORMAT_ELL; f < SP_FORMAT_COUNT; f++) ck_assert_int_eq(info.bytes[f], 0);
    for (int i = 0; i < 400; i++) x[i] = 1;
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &alpha, A, x, &beta, y));
    ck_assert(y[0] == 2.0 && y[21] == 0.0); /* corner: 4 - 2; inside: 4 - 4 */
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, &alpha, A, x, &beta, y));
    ck_assert(y[0] == 2.0 && y[21] == 0.0);
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT, &alpha, A, x, &beta, y));
    ck_assert(y[0] == 2.0 && y[21] == 0.0);
    {
        /* ELL and HYB with rows in their tails (a long-row bound of 3, an ELL width of 2):
           the 32-bit matrix's arrays and products */
        sp_matrix_options_t o64 = {.offset_bits = 64, .long_row_bound = 3, .hyb_ell_width = 2};
        sp_matrix_options_t o32 = o64;
        sp_matrix_t *T[2] = {NULL, NULL};
        double yt[2][400];
        o32.offset_bits = 32;
        ck_assert_ok(sp_matrix_create(ctx, a, &o32, &T[0]));
        ck_assert_ok(sp_matrix_create(ctx, a, &o64, &T[1]));
        for (int i = 0; i < 400; i++) x[i] = 1.0 + (i % 5);
        sp_format_t tailed[] = {SP_FORMAT_ELL, SP_FORMAT_HYB};
        for (size_t i = 0; i < 2; i++) {
            for (int w = 0; w < 2; w++)
                ck_assert_ok(sp_spmv(ctx, tailed[i], SP_SPMV_ALG_DEFAULT, &alpha, T[w], x,
                                     &beta, yt[w]));
            ck_assert_mem_eq(yt[0], yt[1], sizeof yt[0]);
        }
        sp_matrix_info_t i32, i64;
        ck_assert_ok(sp_matrix_info(T[0], &i32));
        ck_assert_ok(sp_matrix_info(T[1], &i64));
        ck_assert_int_eq(i32.bytes[SP_FORMAT_ELL], i64.bytes[SP_FORMAT_ELL]);
        ck_assert_int_eq(i32.bytes[SP_FORMAT_HYB], i64.bytes[SP_FORMAT_HYB]);
        ck_assert_int_gt(i64.bytes[SP_FORMAT_HYB], 0);
        sp_matrix_destroy(T[1]);
        sp_matrix_destroy(T[0]);
    }
    sp__test_set_narrow_limit(1920);
    ck_assert_ok(sp_spmv(ctx, SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT, &alpha, A, x, &beta, y));
    sp__test_set_narrow_limit(INT64_MAX); /* back to 2^31 - 1 */
    sp_matrix_destroy(A);
    sp_coo_free(a);
}
END_TEST

/* n 32-bit offsets at p32 and 64-bit ones at p64: the same numbers. */
static void same_offsets(const int32_t *p32, const int64_t *p64, int64_t n, const char *what)
{
    ck_assert_msg(p32 != NULL && p64 != NULL, "%s: missing offsets", what);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(p32[i] == p64[i], "%s[%lld]: %d at 32 bits, %lld at 64", what,
                      (long long)i, p32[i], (long long)p64[i]);
}

/* Past the narrow limit (lowered to 0 here: every matrix with entries is past it) the host
 * converts JDS and SELL from the 64-bit CSR itself, nothing narrowed (csr_ptr32 stays NULL),
 * with 64-bit offsets of their own (the view's jd_ptr64 / slice_ptr64, jd_ptr / slice_ptr
 * NULL): for matrix _i of the catalogue with no tail bound, the policy's and 3, the same
 * numbers and arrays as the 32-bit matrix's (its JDS and SELL, from 32-bit pointers), 4 bytes
 * more an offset, and SpMV in them the same bits (the same arrays summed in the same order). */
START_TEST(jds_sell_above_narrow_limit)
{
    sp_coo_t *coo = sp_test_offsets64_matrix((int)_i);
    const int64_t bounds[] = {-1, 0, 3};
    ck_assert_ptr_nonnull(coo);
    sp__test_set_narrow_limit(0);
    for (size_t bi = 0; bi < sizeof bounds / sizeof bounds[0]; bi++) {
        sp_matrix_t *A32 = sp_test_matrix_bound(ctx, coo, 32, bounds[bi]);
        sp_matrix_t *A64 = sp_test_matrix_bound(ctx, coo, 64, bounds[bi]);
        sp_format_t formats[] = {SP_FORMAT_JDS, SP_FORMAT_SELL};
        /* no entries: at the limit, not past it (compare_spmv covers it) */
        for (size_t k = 0; k < 2 && !sp__matrix_narrows(A64); k++) {
            sp_format_t f = formats[k];
            sp_format_view_t a, b;
            sp_matrix_info_t i32, i64;
            size_t vs = coo->value_type == SP_R_32F ? 4 : 8;
            ck_assert_ok(sp_matrix_build(ctx, A32, f));
            ck_assert_ok(sp_matrix_build(ctx, A64, f));
            ck_assert_ok(sp_matrix_view(A32, f, &a));
            ck_assert_ok(sp_matrix_view(A64, f, &b));
            ck_assert_int_eq(a.nnz, b.nnz);
            if (f == SP_FORMAT_JDS) {
                ck_assert_int_eq(a.jds.njd, b.jds.njd);
                ck_assert_ptr_null(b.jds.jd_ptr);
                ck_assert_ptr_null(a.jd_ptr64);
                same_offsets(a.jds.jd_ptr, b.jd_ptr64, a.jds.njd + 1, "JDS diagonal pointers");
                sp_test_same_array(a.jds.perm, b.jds.perm, a.nrows, 4, "JDS permutation");
                sp_test_same_array(a.jds.col, b.jds.col, a.nnz - a.tail.nnz, 4, "JDS columns");
                sp_test_same_array(a.jds.val, b.jds.val, a.nnz - a.tail.nnz, vs, "JDS values");
            } else {
                ck_assert_int_eq(a.sell.nslices, b.sell.nslices);
                ck_assert_int_eq(a.sell.padded, b.sell.padded);
                ck_assert_ptr_null(b.sell.slice_ptr);
                ck_assert_ptr_null(a.slice_ptr64);
                same_offsets(a.sell.slice_ptr, b.slice_ptr64, a.sell.nslices + 1,
                             "SELL slices");
                sp_test_same_array(a.sell.slice_width, b.sell.slice_width, a.sell.nslices, 4,
                                   "SELL widths");
                sp_test_same_array(a.sell.perm, b.sell.perm, a.nrows, 4, "SELL permutation");
                sp_test_same_array(a.sell.col, b.sell.col, a.sell.padded, 4, "SELL columns");
                sp_test_same_array(a.sell.val, b.sell.val, a.sell.padded, vs, "SELL values");
            }
            ck_assert_int_eq(a.tail.nnz, b.tail.nnz);
            sp_test_same_array(a.tail.row, b.tail.row, a.tail.nnz, 4, "tail rows");
            sp_test_same_array(a.tail.col, b.tail.col, a.tail.nnz, 4, "tail columns");
            sp_test_same_array(a.tail.val, b.tail.val, a.tail.nnz, vs, "tail values");
            ck_assert_ok(sp_matrix_info(A32, &i32));
            ck_assert_ok(sp_matrix_info(A64, &i64));
            ck_assert_int_eq(i64.bytes[f], i32.bytes[f] +
                                               4 * ((f == SP_FORMAT_JDS ? a.jds.njd
                                                                        : a.sell.nslices) + 1));
            same_spmv(A32, A64, f, (uint64_t)_i * 10 + bi);
        }
        ck_assert_ptr_null(A64->csr_ptr32);
        sp_matrix_destroy(A32);
        sp_matrix_destroy(A64);
    }
    sp__test_set_narrow_limit(INT64_MAX); /* back to 2^31 - 1 */
    sp_coo_free(coo);
}
END_TEST

/* offset_bits 0 below 2^31 entries: 32, or 64 under the test hook (SP_TEST_OFFSET_BITS=64,
 * set by sp_test_run: asserted here, so the forced run cannot pass with the mode off); the
 * hook leaves an explicit 32 alone, and applies to a CUDA context (where one exists) too. */
START_TEST(default_width)
{
    const char *env = getenv("SP_TEST_OFFSET_BITS");
    sp_context_t *gpu = NULL;
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson2d(8, SP_R_64F, &a));
    ck_assert_int_eq(sp_test_default_offset_bits(), env && strcmp(env, "64") == 0 ? 64 : 32);
    sp_matrix_destroy(make(ctx, a, 0)); /* asserts sp_test_default_offset_bits() */
    for (int bits = 32; bits <= 64; bits += 32) {
        sp_matrix_t *A = NULL;
        sp_matrix_info_t info;
        sp__test_set_default_offset_bits(bits);
        ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
        ck_assert_ok(sp_matrix_info(A, &info));
        ck_assert_int_eq(info.offset_bits, bits);
        sp_matrix_destroy(A);
        sp_matrix_destroy(make(ctx, a, 32));
        if (sp_context_create(SP_DEVICE_CUDA, NULL, &gpu) == SP_STATUS_SUCCESS) {
            ck_assert_ok(sp_matrix_create(gpu, a, NULL, &A));
            ck_assert_ok(sp_matrix_info(A, &info));
            ck_assert_int_eq(info.offset_bits, bits); /* a CUDA context narrows too */
            sp_matrix_destroy(A);
            sp_context_destroy(gpu);
        }
    }
    sp__test_set_default_offset_bits(sp_test_default_offset_bits());
    sp_coo_free(a);
}
END_TEST

/* offset_bits: 0 (the run's default) and 32 are taken, other values are refused naming the
 * field. */
START_TEST(offset_bits_option)
{
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    ck_assert_ok(sp_gen_poisson2d(8, SP_R_32F, &a));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.offset_bits, sp_test_default_offset_bits());
    sp_matrix_destroy(A);
    A = NULL;
    sp_matrix_destroy(make(ctx, a, 0));
    sp_matrix_destroy(make(ctx, a, 32));
    int bad[] = {16, 33, -1, 1, 128};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sp_matrix_options_t o = {0};
        char want[96];
        o.offset_bits = bad[i];
        ck_assert_status(sp_matrix_create(ctx, a, &o, &A), SP_STATUS_INVALID_ARGUMENT);
        snprintf(want, sizeof want, "options->offset_bits %d is not 0", bad[i]);
        ck_assert_error_has(want);
        ck_assert_ptr_null(A);
    }
    sp_coo_free(a);
}
END_TEST

/* A CUDA context takes 64-bit offsets below 2^31 entries (issue 20, second slice; needs a
 * GPU: else nothing to test, the context cannot be made; check_gpu_offsets64 tests the
 * rest). */
START_TEST(cuda_accepts)
{
    sp_context_t *gpu = NULL;
    sp_coo_t *a = NULL;
    sp_format_view_t v;
    if (sp_context_create(SP_DEVICE_CUDA, NULL, &gpu) != SP_STATUS_SUCCESS) return;
    ck_assert_ok(sp_gen_poisson2d(8, SP_R_64F, &a));
    sp_matrix_t *A = make(gpu, a, 64);
    ck_assert_ok(sp_matrix_build(gpu, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_CSR, &v));
    ck_assert_ptr_null(v.csr.row_ptr);
    ck_assert_ptr_nonnull(v.row_ptr64);
    ck_assert_int_eq(v.row_ptr64[64], 288);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(gpu);
}
END_TEST

static Suite *offsets64_suite(void)
{
    Suite *s = suite_create("offsets64");
    TCase *t = tcase_create("offsets64");
    tcase_set_timeout(t, 300);
    tcase_add_checked_fixture(t, host_setup, host_teardown);
    tcase_add_loop_test(t, spmv_catalogue, 0, SP_TEST_OFFSETS64_MATRICES);
    tcase_add_test(t, bfs_same_results);
    tcase_add_test(t, sptrsv_and_solver_same_results);
    tcase_add_test(t, refusals_above_narrow_limit);
    tcase_add_loop_test(t, jds_sell_above_narrow_limit, 0, SP_TEST_OFFSETS64_MATRICES);
    tcase_add_test(t, default_width);
    tcase_add_test(t, offset_bits_option);
    tcase_add_test(t, cuda_accepts);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return sp_test_run(offsets64_suite());
}
