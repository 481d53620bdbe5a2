/* 64-bit offsets on a CUDA context (issue 20, second slice): the matrices of
 * check_offsets64 made on the GPU with sp_matrix_options_t.offset_bits 32 and 64 give
 * the same CSR pointers (the 64-bit ones in sp_matrix_view's row_ptr64, equal to the host
 * context's), SpMV in csr/scalar and csr/vector equal bit for bit between the widths (the
 * same kernel order: no long-row pieces on either, long_row_bound -1), and SpMV in CSR
 * (DEFAULT and each served algorithm), COO and AUTO within rounding of the host
 * reference; sp_matrix_info reports the width and the pointer bytes. Everything a CUDA
 * context does not serve with 64-bit offsets yet refuses before any work with
 * SP_STATUS_NOT_SUPPORTED naming the operation and "64-bit offsets": CSC, ELL, HYB, JDS,
 * SELL, csr/merge, split, binned, adaptive, BFS, SpTRSV, solvers, tune. Past the device
 * sort's limit (INT32_MAX entries, lowered by a test hook) the COO is uploaded in order and
 * gives the same matrix. Vectors go through the public sp_vector API. Exits 77 without a
 * GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_api.h" /* the test hook sp__test_set_device_sort_limit */
#include "testutil.h"

/* |y_gpu - y_ref| per row within BOUND_C * eps * (row length + 2) * (sum_j |alpha a_ij
 * x_j| + |beta y_i|), as check_gpu_spmv bounds it. */
#define BOUND_C 4.0
#define EPS_FLOAT 1.2e-7
#define EPS_DOUBLE 2.3e-16

static sp_context_t *g_gpu, *g_host;
static void setup(void) { sp_test_gpu_host_contexts(&g_gpu, &g_host); }
static void teardown(void) { sp_test_gpu_host_contexts_destroy(&g_gpu, &g_host); }

/* A on context `on` from coo with offset_bits bits and no long-row pieces (so scalar and
 * vector sum each row in the same order at both widths), its info's width checked. */
static sp_matrix_t *make(sp_context_t *on, const sp_coo_t *coo, int bits)
{
    sp_matrix_options_t o = {0};
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    o.offset_bits = bits;
    o.long_row_bound = -1;
    ck_assert_ok(sp_matrix_create(on, coo, &o, &A));
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.offset_bits, bits);
    return A;
}

static double get(const void *v, size_t vs, size_t i)
{
    return vs == 4 ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static void put(void *v, size_t vs, size_t i, double x)
{
    if (vs == 4) ((float *)v)[i] = (float)x;
    else ((double *)v)[i] = x;
}

/* One COO's inputs: x, y0 and the host context's y = alpha A x + beta y0 (64-bit offsets),
 * with each row's bound on the rounding of a GPU result. */
typedef struct spmv_inputs {
    const sp_coo_t *coo;
    size_t vs;
    sp_value_type_t type;
    double alpha, beta;
    void *x, *y0, *y_ref;
    double *bound;
} spmv_inputs_t;

static void *alloc_or_fail(size_t bytes)
{
    void *p = calloc(1, bytes > 8 ? bytes : 8);
    ck_assert_ptr_nonnull(p);
    return p;
}

static void inputs_make(const sp_coo_t *coo, uint64_t seed, spmv_inputs_t *in)
{
    sp_matrix_t *H = make(g_host, coo, 64);
    size_t nx = (size_t)coo->ncols, ny = (size_t)coo->nrows;
    double eps;
    int64_t *len = alloc_or_fail(ny * sizeof *len);
    in->coo = coo;
    in->type = coo->value_type;
    in->vs = coo->value_type == SP_R_32F ? 4 : 8;
    eps = in->vs == 4 ? EPS_FLOAT : EPS_DOUBLE;
    in->alpha = 1.5;
    in->beta = -0.5;
    in->x = alloc_or_fail(nx * in->vs);
    in->y0 = alloc_or_fail(ny * in->vs);
    in->y_ref = alloc_or_fail(ny * in->vs);
    in->bound = alloc_or_fail(ny * sizeof *in->bound);
    for (size_t i = 0; i < nx; i++) put(in->x, in->vs, i, sp_test_uniform(&seed) * 2.0 - 1.0);
    for (size_t i = 0; i < ny; i++) put(in->y0, in->vs, i, sp_test_uniform(&seed));
    memcpy(in->y_ref, in->y0, ny * in->vs);
    if (in->vs == 4) {
        float a = (float)in->alpha, b = (float)in->beta;
        ck_assert_ok(sp_spmv(g_host, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &a, H, in->x, &b,
                             in->y_ref));
    } else {
        ck_assert_ok(sp_spmv(g_host, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &in->alpha, H, in->x,
                             &in->beta, in->y_ref));
    }
    for (int64_t k = 0; k < coo->nnz; k++) { /* duplicates count apart: a looser bound */
        double v = in->vs == 4 ? ((const float *)coo->val)[k] : ((const double *)coo->val)[k];
        in->bound[coo->row[k]] += fabs(in->alpha * v * get(in->x, in->vs, (size_t)coo->col[k]));
        len[coo->row[k]]++;
    }
    for (size_t r = 0; r < ny; r++)
        in->bound[r] = BOUND_C * eps * (double)(len[r] + 2) *
                       (in->bound[r] + fabs(in->beta * get(in->y0, in->vs, r)));
    free(len);
    sp_matrix_destroy(H);
}

static void inputs_free(spmv_inputs_t *in)
{
    free(in->x);
    free(in->y0);
    free(in->y_ref);
    free(in->bound);
}

/* y (host, nrows values) = alpha A x + beta y0 on the GPU in (format, alg). */
static void gpu_spmv(sp_matrix_t *A, const spmv_inputs_t *in, sp_format_t f, sp_spmv_alg_t alg,
                     void *y)
{
    sp_vector_t *x = NULL, *yv = NULL;
    ck_assert_ok(sp_vector_create(g_gpu, in->type, in->coo->ncols, in->x, &x));
    ck_assert_ok(sp_vector_create(g_gpu, in->type, in->coo->nrows, in->y0, &yv));
    ck_assert_ok(sp_spmv_vec(g_gpu, f, alg, in->alpha, A, x, in->beta, yv));
    ck_assert_ok(sp_vector_copy_to_host(g_gpu, yv, y));
    sp_vector_destroy(yv);
    sp_vector_destroy(x);
}

static void near_reference(const spmv_inputs_t *in, const void *y, const char *what)
{
    for (int64_t r = 0; r < in->coo->nrows; r++) {
        double got = get(y, in->vs, (size_t)r), want = get(in->y_ref, in->vs, (size_t)r);
        ck_assert_msg(fabs(got - want) <= in->bound[r],
                      "%s: row %lld is %.17g, the host gives %.17g (bound %.3g)", what,
                      (long long)r, got, want, in->bound[r]);
    }
}

/* The CSR pointers of G32 and G64 (GPU) and of the host's 64-bit CSR: the same numbers;
 * the 64-bit CSR's bytes are 4 more a pointer. */
static void same_pointers(sp_matrix_t *G32, sp_matrix_t *G64, const sp_coo_t *coo)
{
    sp_matrix_t *H = make(g_host, coo, 64);
    sp_format_view_t v32, v64, vh;
    sp_matrix_info_t i32, i64;
    ck_assert_ok(sp_matrix_build(g_gpu, G32, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_build(g_gpu, G64, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_build(g_host, H, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_view(G32, SP_FORMAT_CSR, &v32));
    ck_assert_ok(sp_matrix_view(G64, SP_FORMAT_CSR, &v64));
    ck_assert_ok(sp_matrix_view(H, SP_FORMAT_CSR, &vh));
    ck_assert_ptr_null(v32.row_ptr64);
    ck_assert_ptr_null(v64.csr.row_ptr);
    ck_assert_ptr_nonnull(v32.csr.row_ptr);
    ck_assert_ptr_nonnull(v64.row_ptr64);
    ck_assert_ptr_nonnull(vh.row_ptr64);
    for (int64_t i = 0; i <= v32.nrows; i++) {
        ck_assert_int_eq(v32.csr.row_ptr[i], v64.row_ptr64[i]);
        ck_assert_int_eq(vh.row_ptr64[i], v64.row_ptr64[i]);
    }
    ck_assert_int_eq(v64.row_ptr64[v64.nrows], v64.nnz);
    if (v32.nnz > 0) {
        ck_assert_mem_eq(v32.csr.col, v64.csr.col, (size_t)v32.nnz * sizeof(int32_t));
        ck_assert_mem_eq(vh.csr.col, v64.csr.col, (size_t)v32.nnz * sizeof(int32_t));
    }
    ck_assert_ok(sp_matrix_info(G32, &i32));
    ck_assert_ok(sp_matrix_info(G64, &i64));
    ck_assert_int_eq(i32.offset_bits, 32);
    ck_assert_int_eq(i64.offset_bits, 64);
    ck_assert_int_eq(i64.bytes[SP_FORMAT_CSR], i32.bytes[SP_FORMAT_CSR] + 4 * (v32.nrows + 1));
    /* the diagonal-nearness sample taken on the device: the host's fraction exactly */
    ck_assert_msg(G32->col_near == H->col_near && G64->col_near == H->col_near,
                  "col_near %.17g / %.17g on the GPU, %.17g on the host", G32->col_near,
                  G64->col_near, H->col_near);
    sp_matrix_destroy(H);
}

/* The whole comparison for one COO (consumed). */
static void compare(sp_coo_t *coo, uint64_t seed)
{
    spmv_inputs_t in;
    sp_matrix_t *G32 = make(g_gpu, coo, 32), *G64 = make(g_gpu, coo, 64);
    const sp_spmv_alg_t same_order[] = {SP_SPMV_ALG_CSR_SCALAR, SP_SPMV_ALG_CSR_VECTOR};
    const struct {
        sp_format_t f;
        sp_spmv_alg_t alg;
    } served[] = {{SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT},
                  {SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT},
                  {SP_FORMAT_COO, SP_SPMV_ALG_COO_ATOMIC},
                  {SP_FORMAT_COO, SP_SPMV_ALG_COO_SEGMENTED},
                  {SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT}};
    sp_format_t chosen = SP_FORMAT_COUNT;
    char what[160];
    inputs_make(coo, seed, &in);
    void *y32 = alloc_or_fail((size_t)coo->nrows * in.vs);
    void *y64 = alloc_or_fail((size_t)coo->nrows * in.vs);
    same_pointers(G32, G64, coo);
    for (size_t i = 0; i < sizeof same_order / sizeof same_order[0]; i++) {
        snprintf(what, sizeof what, "%lld x %lld, %lld entries, csr alg %d",
                 (long long)coo->nrows, (long long)coo->ncols, (long long)coo->nnz,
                 (int)same_order[i]);
        gpu_spmv(G32, &in, SP_FORMAT_CSR, same_order[i], y32);
        gpu_spmv(G64, &in, SP_FORMAT_CSR, same_order[i], y64);
        ck_assert_msg(memcmp(y32, y64, (size_t)coo->nrows * in.vs) == 0,
                      "%s: 32- and 64-bit offsets differ", what);
        near_reference(&in, y64, what);
        gpu_spmv(G64, &in, SP_FORMAT_CSR, same_order[i], y32); /* again: the same bits */
        ck_assert_msg(memcmp(y32, y64, (size_t)coo->nrows * in.vs) == 0,
                      "%s: a repeated call differs", what);
    }
    for (size_t i = 0; i < sizeof served / sizeof served[0]; i++) {
        snprintf(what, sizeof what, "%lld x %lld, %lld entries, 64-bit, format %d alg %d",
                 (long long)coo->nrows, (long long)coo->ncols, (long long)coo->nnz,
                 (int)served[i].f, (int)served[i].alg);
        gpu_spmv(G64, &in, served[i].f, served[i].alg, y64);
        near_reference(&in, y64, what);
    }
    ck_assert_ok(sp_spmv_choose_format(g_gpu, G64, &chosen));
    ck_assert_msg(chosen == SP_FORMAT_CSR || chosen == SP_FORMAT_COO,
                  "AUTO chose %s for 64-bit offsets on a CUDA context", sp_format_name(chosen));
    free(y32);
    free(y64);
    inputs_free(&in);
    sp_matrix_destroy(G32);
    sp_matrix_destroy(G64);
    sp_coo_free(coo);
}

/* Matrix _i of the catalogue (sp_test_offsets64_matrix), a loop test. */
START_TEST(spmv_catalogue)
{
    sp_coo_t *a = sp_test_offsets64_matrix((int)_i);
    ck_assert_ptr_nonnull(a);
    compare(a, (uint64_t)_i + 1);
}
END_TEST

/* status NOT_SUPPORTED and a message holding `name` and "64-bit offsets". */
#define ck_refused(call, name)                                \
    do {                                                      \
        ck_assert_status((call), SP_STATUS_NOT_SUPPORTED);    \
        ck_assert_error_has(name);                            \
        ck_assert_error_has("64-bit offsets");                \
    } while (0)

/* Formats, algorithms and operations a CUDA context serves with 32-bit offsets only:
 * refused before any work, A left usable. */
START_TEST(refusals)
{
    sp_coo_t *a = NULL;
    sp_solver_t *solver = NULL;
    sp_vector_t *x = NULL, *y = NULL;
    double alpha = 1, beta = 0, h_y[400];
    int32_t level[400], parent[400];
    ck_assert_ok(sp_gen_poisson2d(20, SP_R_64F, &a));
    sp_matrix_t *A = make(g_gpu, a, 64);
    ck_assert_ok(sp_vector_create(g_gpu, SP_R_64F, 400, NULL, &x));
    ck_assert_ok(sp_vector_create(g_gpu, SP_R_64F, 400, NULL, &y));
    const struct {
        sp_format_t f;
        const char *name;
    } formats[] = {{SP_FORMAT_CSC, "format csc on a CUDA context"},
                   {SP_FORMAT_HYB, "format hyb"},
                   {SP_FORMAT_JDS, "format jds"},
                   {SP_FORMAT_SELL, "format sell"}};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        ck_refused(sp_matrix_build(g_gpu, A, formats[i].f), formats[i].name);
        ck_assert_error_has("400 x 400 matrix with 1920 entries");
        ck_refused(sp_spmv_vec(g_gpu, formats[i].f, SP_SPMV_ALG_DEFAULT, alpha, A, x, beta, y),
                   formats[i].name);
        ck_refused(sp_spmv_prepare(g_gpu, A, formats[i].f, SP_SPMV_ALG_DEFAULT),
                   formats[i].name);
        ck_assert_str_eq(sp_context_last_error(g_gpu), sp_last_error());
    }
    const struct {
        sp_spmv_alg_t alg;
        const char *name;
    } algs[] = {{SP_SPMV_ALG_CSR_MERGE, "csr/merge"},
                {SP_SPMV_ALG_CSR_SPLIT, "csr/split"},
                {SP_SPMV_ALG_CSR_BINNED, "csr/binned"},
                {SP_SPMV_ALG_CSR_ADAPTIVE, "csr/adaptive"}};
    for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
        ck_refused(sp_spmv_vec(g_gpu, SP_FORMAT_CSR, algs[i].alg, alpha, A, x, beta, y),
                   algs[i].name);
        ck_refused(sp_spmv_prepare(g_gpu, A, SP_FORMAT_CSR, algs[i].alg), algs[i].name);
    }
    ck_refused(sp_bfs(g_gpu, A, 0, NULL, level, parent, NULL), "sp_bfs on a CUDA context");
    ck_refused(sp_sptrsv(g_gpu, A, SP_UPLO_LOWER, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO, &alpha,
                         sp_vector_data(x), sp_vector_data(y)),
               "sp_sptrsv");
    ck_refused(sp_sptrsv_analyse(g_gpu, A, SP_UPLO_UPPER, SP_DIAG_UNIT, SP_SPTRSV_ALG_AUTO),
               "sp_sptrsv_analyse");
    ck_refused(sp_spmv_tune(g_gpu, A, NULL, NULL), "sp_spmv_tune on a CUDA context");
    ck_assert_ok(sp_solver_create(g_gpu, SP_SOLVER_CG, &solver));
    ck_refused(sp_solver_setup(solver, A), "sp_solver_setup");
    sp_solver_destroy(solver);
    /* nothing refused was built; CSR SpMV still runs */
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int f = SP_FORMAT_CSC; f < SP_FORMAT_COUNT; f++)
        if (f != SP_FORMAT_ELL) ck_assert_int_eq(info.bytes[f], 0);
    ck_assert_ok(sp_vector_fill(g_gpu, x, 1.0));
    ck_assert_ok(sp_spmv_vec(g_gpu, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, alpha, A, x, beta, y));
    ck_assert_ok(sp_vector_copy_to_host(g_gpu, y, h_y));
    ck_assert(h_y[0] == 2.0 && h_y[21] == 0.0); /* corner: 4 - 2; inside: 4 - 4 */
    sp_vector_destroy(x);
    sp_vector_destroy(y);
    sp_matrix_destroy(A);
    sp_coo_free(a);
}
END_TEST

/* ELL from a 64-bit CSR on a CUDA context (no row in its tail): the same slots as from
 * the 32-bit CSR, SpMV in it the same bits and within rounding of the host; with rows for
 * the tail (a long-row bound below the longest row) it is refused as before. */
START_TEST(ell_at_64)
{
    sp_coo_t *m[2] = {NULL, NULL};
    ck_assert_ok(sp_gen_poisson2d(30, SP_R_64F, &m[0]));
    ck_assert_ok(sp_gen_poisson3d(11, SP_R_32F, &m[1]));
    for (int i = 0; i < 2; i++) {
        sp_coo_t *coo = m[i];
        spmv_inputs_t in;
        sp_matrix_t *G32 = make(g_gpu, coo, 32), *G64 = make(g_gpu, coo, 64);
        sp_format_view_t v32, v64;
        sp_matrix_info_t i32, i64;
        inputs_make(coo, (uint64_t)i + 7, &in);
        void *y32 = alloc_or_fail((size_t)coo->nrows * in.vs);
        void *y64 = alloc_or_fail((size_t)coo->nrows * in.vs);
        ck_assert_ok(sp_matrix_build(g_gpu, G32, SP_FORMAT_ELL));
        ck_assert_ok(sp_matrix_build(g_gpu, G64, SP_FORMAT_ELL));
        ck_assert_ok(sp_matrix_view(G32, SP_FORMAT_ELL, &v32));
        ck_assert_ok(sp_matrix_view(G64, SP_FORMAT_ELL, &v64));
        ck_assert_int_eq(v32.ell.width, v64.ell.width);
        size_t slots = (size_t)coo->nrows * (size_t)v32.ell.width;
        ck_assert_mem_eq(v32.ell.col, v64.ell.col, slots * sizeof(int32_t));
        ck_assert_mem_eq(v32.ell.val, v64.ell.val, slots * in.vs);
        ck_assert_ok(sp_matrix_info(G32, &i32));
        ck_assert_ok(sp_matrix_info(G64, &i64));
        ck_assert_int_eq(i32.bytes[SP_FORMAT_ELL], i64.bytes[SP_FORMAT_ELL]);
        gpu_spmv(G32, &in, SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, y32);
        gpu_spmv(G64, &in, SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, y64);
        ck_assert_msg(memcmp(y32, y64, (size_t)coo->nrows * in.vs) == 0,
                      "ELL SpMV differs between 32- and 64-bit offsets");
        near_reference(&in, y64, "ELL at 64-bit offsets");
        free(y32);
        free(y64);
        inputs_free(&in);
        sp_matrix_destroy(G32);
        sp_matrix_destroy(G64);
    }
    /* rows over the long-row bound would go to the tail: refused at 64 bits */
    sp_matrix_options_t o = {0};
    sp_matrix_t *A = NULL;
    o.offset_bits = 64;
    o.long_row_bound = 3; /* the stencil's inner rows hold 5 */
    ck_assert_ok(sp_matrix_create(g_gpu, m[0], &o, &A));
    ck_assert_status(sp_matrix_build(g_gpu, A, SP_FORMAT_ELL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("format ell");
    ck_assert_error_has("64-bit offsets");
    sp_matrix_destroy(A);
    sp_coo_free(m[0]);
    sp_coo_free(m[1]);
}
END_TEST

/* More than INT32_MAX entries go to a CUDA context sorted (the device sort counts in 32
 * bits): put in order on the host unless they are, then uploaded and kept as they are.
 * The test hook lowers that limit, so the path runs at small sizes: every matrix of the
 * catalogue, as given (unsorted, duplicates) and sorted beforehand, gives the pointers,
 * columns and SpMV results of compare() against the host. */
static void sort_limit_setup(void)
{
    setup();
    sp__test_set_device_sort_limit(16);
}

static void sort_limit_teardown(void)
{
    sp__test_set_device_sort_limit(INT32_MAX);
    teardown();
}

START_TEST(past_sort_limit_catalogue)
{
    sp_coo_t *a = sp_test_offsets64_matrix((int)_i), *b = NULL;
    ck_assert_ptr_nonnull(a);
    ck_assert_ok(sp_coo_copy(a, a->value_type, &b));
    ck_assert_ok(sp_coo_sort_merge(b, SP_DUP_SUM, NULL));
    compare(a, (uint64_t)_i + 1);
    compare(b, (uint64_t)_i + 101);
}
END_TEST

/* Past the limit: duplicates merged as on the host (their count too), an entry outside the
 * matrix refused with its place, the caller's COO unchanged. */
START_TEST(past_sort_limit_duplicates_and_errors)
{
    sp_coo_t *a = NULL, *keep = NULL;
    sp_matrix_t *G = NULL, *H = NULL;
    sp_matrix_info_t ig, ih;
    sp_format_view_t vg, vh;
    sp_coo_t *p = NULL;
    ck_assert_ok(sp_gen_poisson2d(12, SP_R_64F, &p));
    /* every entry twice (the copy's value differs), in reverse order: unsorted, duplicates */
    ck_assert_ok(sp_coo_create(p->nrows, p->ncols, 2 * p->nnz, SP_R_64F, &a));
    for (int64_t k = 0; k < 2 * p->nnz; k++) {
        int64_t from = (2 * p->nnz - 1 - k) % p->nnz;
        a->row[k] = p->row[from];
        a->col[k] = p->col[from];
        ((double *)a->val)[k] = ((const double *)p->val)[from] + (k < p->nnz ? 0.25 : 0.0);
    }
    a->nnz = 2 * p->nnz;
    sp_coo_free(p);
    ck_assert_ok(sp_coo_copy(a, a->value_type, &keep));
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &G));
    ck_assert_ok(sp_matrix_create(g_host, a, NULL, &H));
    ck_assert_ok(sp_matrix_info(G, &ig));
    ck_assert_ok(sp_matrix_info(H, &ih));
    ck_assert_int_eq(ig.nnz, ih.nnz);
    ck_assert_int_eq(ig.duplicates_merged, ih.duplicates_merged);
    ck_assert_int_eq(ig.duplicates_merged, a->nnz / 2);
    ck_assert_int_eq(ig.row_max, ih.row_max);
    ck_assert_int_eq(ig.empty_rows, ih.empty_rows);
    ck_assert_ok(sp_matrix_view(G, SP_FORMAT_COO, &vg));
    ck_assert_ok(sp_matrix_view(H, SP_FORMAT_COO, &vh));
    ck_assert_mem_eq(vg.coo.row, vh.coo.row, (size_t)ih.nnz * sizeof(int32_t));
    ck_assert_mem_eq(vg.coo.col, vh.coo.col, (size_t)ih.nnz * sizeof(int32_t));
    ck_assert_mem_eq(vg.coo.val, vh.coo.val, (size_t)ih.nnz * sizeof(double));
    ck_assert_mem_eq(a->row, keep->row, (size_t)a->nnz * sizeof(int32_t)); /* untouched */
    ck_assert_mem_eq(a->val, keep->val, (size_t)a->nnz * sizeof(double));
    sp_matrix_destroy(G);
    sp_matrix_destroy(H);
    G = NULL;
    a->col[a->nnz - 3] = (int32_t)a->ncols; /* outside, unsorted input */
    ck_assert_status(sp_matrix_create(g_gpu, a, NULL, &G), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("outside");
    ck_assert_ptr_null(G);
    ck_assert_ok(sp_coo_sort_merge(keep, SP_DUP_SUM, NULL));
    keep->col[keep->nnz - 1] = (int32_t)keep->ncols; /* outside, sorted input */
    ck_assert_status(sp_matrix_create(g_gpu, keep, NULL, &G), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("outside");
    ck_assert_ptr_null(G);
    sp_coo_free(a);
    sp_coo_free(keep);
}
END_TEST

/* Below the limit, a COO in strictly increasing order is kept as uploaded (the device
 * sort skipped): the same matrix as from its shuffled entries. */
START_TEST(in_order_kept)
{
    sp_coo_t *a = NULL, *b = NULL;
    sp_matrix_t *A = NULL, *B = NULL;
    sp_format_view_t va, vb;
    ck_assert_ok(sp_gen_poisson3d(20, SP_R_32F, &a));
    ck_assert_ok(sp_coo_copy(a, a->value_type, &b));
    for (int64_t k = b->nnz - 1, r = 7; k > 0; k--) { /* shuffled (an LCG's Fisher-Yates) */
        int64_t j;
        r = (r * 6364136223846793005LL + 1442695040888963407LL) & INT64_MAX;
        j = (r >> 16) % (k + 1);
        int32_t tr = b->row[k], tc = b->col[k];
        float tv = ((float *)b->val)[k];
        b->row[k] = b->row[j], b->col[k] = b->col[j], ((float *)b->val)[k] = ((float *)b->val)[j];
        b->row[j] = tr, b->col[j] = tc, ((float *)b->val)[j] = tv;
    }
    b->flags &= ~(SP_COO_SORTED | SP_COO_MERGED);
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &A));
    ck_assert_ok(sp_matrix_create(g_gpu, b, NULL, &B));
    ck_assert_ok(sp_matrix_build(g_gpu, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_build(g_gpu, B, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_CSR, &va));
    ck_assert_ok(sp_matrix_view(B, SP_FORMAT_CSR, &vb));
    ck_assert_int_eq(va.nnz, vb.nnz);
    ck_assert_mem_eq(va.csr.row_ptr, vb.csr.row_ptr, (size_t)(va.nrows + 1) * sizeof(int32_t));
    ck_assert_mem_eq(va.csr.col, vb.csr.col, (size_t)va.nnz * sizeof(int32_t));
    ck_assert_mem_eq(va.csr.val, vb.csr.val, (size_t)va.nnz * sizeof(float));
    sp_matrix_destroy(A);
    sp_matrix_destroy(B);
    sp_coo_free(a);
    sp_coo_free(b);
}
END_TEST

/* Past 2^20 entries the diagonal-nearness fraction is a strided sample, taken on the
 * device from the entries as uploaded: the host's fraction exactly, shuffled or not. */
START_TEST(col_near_sampled)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_kronecker(18, 12, 3, SP_R_32F, &a));
    ck_assert_int_gt(a->nnz, 1 << 21); /* a stride of 2 at least */
    for (int pass = 0; pass < 2; pass++) {
        sp_matrix_t *G = NULL, *H = NULL;
        ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &G));
        ck_assert_ok(sp_matrix_create(g_host, a, NULL, &H));
        ck_assert_msg(G->col_near == H->col_near, "col_near %.17g on the GPU, %.17g on the host",
                      G->col_near, H->col_near);
        ck_assert(G->col_near > 0.0 && G->col_near < 1.0);
        sp_matrix_destroy(G);
        sp_matrix_destroy(H);
        ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, NULL)); /* then in order */
    }
    sp_coo_free(a);
}
END_TEST

static Suite *gpu_offsets64_suite(void)
{
    Suite *s = suite_create("gpu_offsets64");
    TCase *t = sp_test_add_case(s, "gpu_offsets64", setup, teardown);
    tcase_add_loop_test(t, spmv_catalogue, 0, SP_TEST_OFFSETS64_MATRICES);
    tcase_add_test(t, refusals);
    tcase_add_test(t, in_order_kept);
    tcase_add_test(t, col_near_sampled);
    tcase_add_test(t, ell_at_64);
    t = sp_test_add_case(s, "past_sort_limit", sort_limit_setup, sort_limit_teardown);
    tcase_add_loop_test(t, past_sort_limit_catalogue, 0, SP_TEST_OFFSETS64_MATRICES);
    tcase_add_test(t, past_sort_limit_duplicates_and_errors);
    return s;
}

int main(void)
{
    return sp_test_run_gpu(gpu_offsets64_suite());
}
