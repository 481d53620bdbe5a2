/* 64-bit offsets on a CUDA context (issue 20): the matrices of check_offsets64 made on
 * the GPU with sp_matrix_options_t.offset_bits 32 and 64 give the same CSR pointers (the
 * 64-bit ones in sp_matrix_view's row_ptr64, equal to the host context's), SpMV in
 * csr/scalar and csr/vector equal bit for bit between the widths (the same kernel order: no
 * long-row pieces on either, long_row_bound -1), and SpMV in CSR (DEFAULT and each served
 * algorithm), COO and AUTO within rounding of the host reference; sp_matrix_info reports
 * the width and the pointer bytes. Below the narrow limit (2^31 entries) everything that
 * reads 32-bit pointers runs on the CSR's pointers narrowed on the device, so a 64-bit
 * matrix gives the 32-bit matrix's arrays and results bit for bit: ELL with a tail, HYB,
 * JDS, SELL (their arrays and SpMV), csr/merge, split, binned and adaptive, CSC (its
 * pointers widened to 64 bits, equal to the host's), SpTRSV, the solvers (the diagonal
 * with PCG-Jacobi), tune. Past the narrow limit (lowered by a test hook) every format is
 * converted from the 64-bit CSR itself (wide_catalogue: CSC, ELL with a tail, HYB, JDS and
 * SELL hold the 32-bit matrix's arrays, JDS's and SELL's offsets 64-bit, SpMV within
 * rounding of the host, csr/merge and split too; tune times what serves), SpTRSV and the
 * solvers read the 64-bit pointers there (the 32-bit matrix's results bit for bit, nothing
 * narrowed), and csr/binned and adaptive refuse before any work with
 * SP_STATUS_NOT_SUPPORTED naming the operation and "64-bit offsets"; BFS runs its 64-bit
 * kernels at any size (the 32-bit matrix's levels). Past the device sort's limit
 * (INT32_MAX entries, lowered by a test hook) the COO is uploaded in order and gives the
 * same matrix. Under SP_TEST_OFFSET_BITS=64 (the offsets64gpu run) default_width asserts
 * that offset_bits 0 gives 64 on the GPU. Vectors go through the public sp_vector API.
 * Exits 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_api.h" /* the test hook sp__test_set_device_sort_limit */
#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h> /* bfs_at_64's device level array */

#include "sp_kernels_solve.h" /* sptrsv_past_narrow_limit: every kernel by name */
#endif

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
    sp_matrix_t *A = sp_test_matrix_bound(on, coo, bits, -1);
    sp_matrix_info_t info;
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

/* Format f (CSR or CSC) of G32 and G64 (GPU) and of H (host, 64-bit offsets), built here:
 * the 64-bit ones hold 64-bit pointers (a CSC takes its CSR's width, on both contexts), the
 * same numbers as the 32-bit ones; indices and values the same bits; 4 bytes more a
 * pointer in the 64-bit matrix's bytes. */
static void same_compressed(sp_matrix_t *G32, sp_matrix_t *G64, sp_matrix_t *H, sp_format_t f)
{
    sp_format_view_t v32, v64, vh;
    sp_matrix_info_t i32, i64;
    int csr = f == SP_FORMAT_CSR;
    ck_assert_ok(sp_matrix_build(g_gpu, G32, f));
    ck_assert_ok(sp_matrix_build(g_gpu, G64, f));
    ck_assert_ok(sp_matrix_build(g_host, H, f));
    ck_assert_ok(sp_matrix_view(G32, f, &v32));
    ck_assert_ok(sp_matrix_view(G64, f, &v64));
    ck_assert_ok(sp_matrix_view(H, f, &vh));
    size_t vs = sp_value_size(v32.value_type);
    int64_t n = csr ? v32.nrows : v32.ncols;
    ck_assert_ptr_nonnull(csr ? (const void *)v32.csr.row_ptr : (const void *)v32.csc.col_ptr);
    ck_assert_ptr_nonnull(csr ? v64.row_ptr64 : v64.col_ptr64);
    ck_assert_ptr_nonnull(csr ? vh.row_ptr64 : vh.col_ptr64);
    for (int64_t i = 0; i <= n; i++) { /* each view holds exactly one width (asserted) */
        ck_assert_int_eq(sp_test_view_pointer(&v32, f, i), sp_test_view_pointer(&v64, f, i));
        ck_assert_int_eq(sp_test_view_pointer(&vh, f, i), sp_test_view_pointer(&v64, f, i));
    }
    ck_assert_int_eq(sp_test_view_pointer(&v64, f, n), v64.nnz);
    sp_test_same_array(csr ? v32.csr.col : v32.csc.row, csr ? v64.csr.col : v64.csc.row,
                       v32.nnz, 4, "indices");
    sp_test_same_array(csr ? v32.csr.val : v32.csc.val, csr ? v64.csr.val : v64.csc.val,
                       v32.nnz, vs, "values");
    sp_test_same_array(csr ? vh.csr.col : vh.csc.row, csr ? v64.csr.col : v64.csc.row, v32.nnz,
                       4, "indices (host)");
    sp_test_same_array(csr ? vh.csr.val : vh.csc.val, csr ? v64.csr.val : v64.csc.val, v32.nnz,
                       vs, "values (host)");
    ck_assert_ok(sp_matrix_info(G32, &i32));
    ck_assert_ok(sp_matrix_info(G64, &i64));
    ck_assert_int_eq(i32.offset_bits, 32);
    ck_assert_int_eq(i64.offset_bits, 64);
    ck_assert_int_eq(i64.bytes[f],
                     i32.bytes[f] + 4 * (n + 1) + (csr && G64->csr_ptr32 ? 4 * (n + 1) : 0));
}

/* The CSR pointers of G32 and G64 as same_compressed says; the diagonal-nearness sample
 * taken on the device is the host's fraction exactly. */
static void same_pointers(sp_matrix_t *G32, sp_matrix_t *G64, const sp_coo_t *coo)
{
    sp_matrix_t *H = make(g_host, coo, 64);
    same_compressed(G32, G64, H, SP_FORMAT_CSR);
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
    /* below the narrow limit AUTO sees the matrix as at 32 bits (every format serves it) */
    sp_format_t chosen32 = SP_FORMAT_AUTO;
    ck_assert_ok(sp_spmv_choose_format(g_gpu, G32, &chosen32));
    ck_assert_ok(sp_spmv_choose_format(g_gpu, G64, &chosen));
    ck_assert_msg(chosen == chosen32,
                  "AUTO chose %s for 64-bit offsets on a CUDA context, %s for 32",
                  sp_format_name(chosen), sp_format_name(chosen32));
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

/* n offsets of a 32-bit view (p32) and of a 64-bit matrix's view, which holds them at 32
 * bits (q32, narrowed below the limit) or 64 (q64, past it): the same numbers. */
static void same_offsets(const int32_t *p32, const int32_t *q32, const int64_t *q64, int64_t n,
                         const char *what)
{
    if (!q64) {
        sp_test_same_array(p32, q32, n, 4, what);
        return;
    }
    ck_assert_msg(p32 != NULL && q32 == NULL, "%s: not exactly one width", what);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(p32[i] == q64[i], "%s[%lld]: %d at 32 bits, %lld at 64", what,
                      (long long)i, p32[i], (long long)q64[i]);
}

/* Format f (ELL, HYB, JDS or SELL; built on both) of G32 and G64: every array the same
 * bits (JDS's and SELL's offsets the same numbers, 64-bit past the narrow limit) and the
 * same bytes (4 more an offset at 64 bits). Returns the entries in its tail or overflow
 * (added by atomics: SpMV is then the same within rounding, not bit for bit). */
static int64_t same_padded(sp_matrix_t *G32, sp_matrix_t *G64, sp_format_t f, size_t vs)
{
    sp_format_view_t a, b;
    sp_matrix_info_t i32, i64;
    int64_t m, tails, wider = 0;
    ck_assert_ok(sp_matrix_view(G32, f, &a));
    ck_assert_ok(sp_matrix_view(G64, f, &b));
    m = a.nrows;
    ck_assert_int_eq(a.nnz, b.nnz);
    switch (f) {
    case SP_FORMAT_ELL:
        ck_assert_int_eq(a.ell.width, b.ell.width);
        sp_test_same_array(a.ell.col, b.ell.col, m * a.ell.width, 4, "ELL columns");
        sp_test_same_array(a.ell.val, b.ell.val, m * a.ell.width, vs, "ELL values");
        break;
    case SP_FORMAT_HYB:
        ck_assert_int_eq(a.hyb.ell_width, b.hyb.ell_width);
        ck_assert_int_eq(a.hyb.coo_nnz, b.hyb.coo_nnz);
        sp_test_same_array(a.hyb.ell_col, b.hyb.ell_col, m * a.hyb.ell_width, 4,
                           "HYB ELL columns");
        sp_test_same_array(a.hyb.ell_val, b.hyb.ell_val, m * a.hyb.ell_width, vs,
                           "HYB ELL values");
        sp_test_same_array(a.hyb.coo_row, b.hyb.coo_row, a.hyb.coo_nnz, 4, "HYB overflow rows");
        sp_test_same_array(a.hyb.coo_col, b.hyb.coo_col, a.hyb.coo_nnz, 4,
                           "HYB overflow columns");
        sp_test_same_array(a.hyb.coo_val, b.hyb.coo_val, a.hyb.coo_nnz, vs,
                           "HYB overflow values");
        break;
    case SP_FORMAT_JDS:
        ck_assert_int_eq(a.jds.njd, b.jds.njd);
        same_offsets(a.jds.jd_ptr, b.jds.jd_ptr, b.jd_ptr64, a.jds.njd + 1,
                     "JDS diagonal pointers");
        wider = b.jd_ptr64 ? 4 * (a.jds.njd + 1) : 0;
        sp_test_same_array(a.jds.perm, b.jds.perm, m, 4, "JDS permutation");
        sp_test_same_array(a.jds.col, b.jds.col, a.nnz - a.tail.nnz, 4, "JDS columns");
        sp_test_same_array(a.jds.val, b.jds.val, a.nnz - a.tail.nnz, vs, "JDS values");
        break;
    default:
        ck_assert_int_eq(a.sell.c, b.sell.c);
        ck_assert_int_eq(a.sell.sigma, b.sell.sigma);
        ck_assert_int_eq(a.sell.nslices, b.sell.nslices);
        ck_assert_int_eq(a.sell.padded, b.sell.padded);
        same_offsets(a.sell.slice_ptr, b.sell.slice_ptr, b.slice_ptr64, a.sell.nslices + 1,
                     "SELL slices");
        wider = b.slice_ptr64 ? 4 * (a.sell.nslices + 1) : 0;
        sp_test_same_array(a.sell.slice_width, b.sell.slice_width, a.sell.nslices, 4,
                           "SELL widths");
        sp_test_same_array(a.sell.perm, b.sell.perm, m, 4, "SELL permutation");
        sp_test_same_array(a.sell.col, b.sell.col, a.sell.padded, 4, "SELL columns");
        sp_test_same_array(a.sell.val, b.sell.val, a.sell.padded, vs, "SELL values");
        break;
    }
    ck_assert_int_eq(a.tail.nnz, b.tail.nnz);
    sp_test_same_array(a.tail.row, b.tail.row, a.tail.nnz, 4, "tail rows");
    sp_test_same_array(a.tail.col, b.tail.col, a.tail.nnz, 4, "tail columns");
    sp_test_same_array(a.tail.val, b.tail.val, a.tail.nnz, vs, "tail values");
    ck_assert_ok(sp_matrix_info(G32, &i32));
    ck_assert_ok(sp_matrix_info(G64, &i64));
    ck_assert_int_eq(i32.bytes[f] + wider, i64.bytes[f]);
    tails = a.tail.nnz + (f == SP_FORMAT_HYB ? a.hyb.coo_nnz : 0);
    return tails;
}

/* Format f (ELL, HYB, JDS or SELL) built on G32 and G64 with the same status (ELL may be
 * over its bound at both widths: nothing more then), the same arrays (same_padded), and
 * SpMV in it within rounding of the host at both widths and, with no tail or overflow (added
 * by atomics), the same bits. */
static void same_padded_spmv(sp_matrix_t *G32, sp_matrix_t *G64, sp_format_t f,
                             const spmv_inputs_t *in, void *y32, void *y64, const char *what)
{
    sp_status_t s32 = sp_matrix_build(g_gpu, G32, f);
    sp_status_t s64 = sp_matrix_build(g_gpu, G64, f);
    ck_assert_msg(s32 == s64, "%s: built with status %d at 32 bits, %d at 64 (%s)", what,
                  (int)s32, (int)s64, sp_last_error());
    if (s32 != SP_STATUS_SUCCESS) { /* ELL over its bound, at both widths */
        ck_assert_int_eq(f, SP_FORMAT_ELL);
        return;
    }
    int64_t tails = same_padded(G32, G64, f, in->vs);
    gpu_spmv(G32, in, f, SP_SPMV_ALG_DEFAULT, y32);
    gpu_spmv(G64, in, f, SP_SPMV_ALG_DEFAULT, y64);
    if (tails == 0)
        ck_assert_msg(memcmp(y32, y64, (size_t)in->coo->nrows * in->vs) == 0,
                      "%s: SpMV differs", what);
    near_reference(in, y32, what);
    near_reference(in, y64, what);
}

/* Below the narrow limit, what reads 32-bit pointers takes the narrowed ones: matrix _i of
 * the catalogue with no tails (long_row_bound -1) and with the policy's and a bound of 3
 * (long rows in the tails): ELL, HYB, JDS, SELL the same arrays at both widths and their
 * SpMV the same bits (within rounding where a tail's atomics add), csr/merge, split, binned
 * and adaptive the same bits, csr/scalar and vector too (their long-row pieces, where rows
 * pass the bound, run on the narrowed pointers as at 32 bits), CSC as same_compressed says and its SpMV within rounding; the
 * narrowed pointers kept with the CSR count 4 bytes a pointer. */
START_TEST(narrowed_catalogue)
{
    sp_coo_t *coo = sp_test_offsets64_matrix((int)_i);
    const sp_format_t padded[] = {SP_FORMAT_ELL, SP_FORMAT_HYB, SP_FORMAT_JDS, SP_FORMAT_SELL};
    const sp_spmv_alg_t algs[] = {SP_SPMV_ALG_CSR_SCALAR, SP_SPMV_ALG_CSR_VECTOR,
                                  SP_SPMV_ALG_CSR_MERGE,  SP_SPMV_ALG_CSR_SPLIT,
                                  SP_SPMV_ALG_CSR_BINNED, SP_SPMV_ALG_CSR_ADAPTIVE};
    const int64_t bounds[] = {-1, 0, 3};
    spmv_inputs_t in;
    char what[160];
    ck_assert_ptr_nonnull(coo);
    inputs_make(coo, (uint64_t)_i + 31, &in);
    void *y32 = alloc_or_fail((size_t)coo->nrows * in.vs);
    void *y64 = alloc_or_fail((size_t)coo->nrows * in.vs);
    size_t ybytes = (size_t)coo->nrows * in.vs;
    for (size_t bi = 0; bi < sizeof bounds / sizeof bounds[0]; bi++) {
        if (sp_test_under_sanitizer() && bounds[bi] != 3) continue; /* the tails: enough */
        sp_matrix_t *G32 = sp_test_matrix_bound(g_gpu, coo, 32, bounds[bi]);
        sp_matrix_t *G64 = sp_test_matrix_bound(g_gpu, coo, 64, bounds[bi]);
        sp_matrix_info_t i32, i64;
        for (size_t k = 0; k < sizeof padded / sizeof padded[0]; k++) {
            snprintf(what, sizeof what, "matrix %d, bound %lld, format %s", (int)_i,
                     (long long)bounds[bi], sp_format_name(padded[k]));
            same_padded_spmv(G32, G64, padded[k], &in, y32, y64, what);
        }
        for (size_t k = 0; k < sizeof algs / sizeof algs[0]; k++) {
            snprintf(what, sizeof what, "matrix %d, bound %lld, csr alg %d", (int)_i,
                     (long long)bounds[bi], (int)algs[k]);
            gpu_spmv(G32, &in, SP_FORMAT_CSR, algs[k], y32);
            gpu_spmv(G64, &in, SP_FORMAT_CSR, algs[k], y64);
            ck_assert_msg(memcmp(y32, y64, ybytes) == 0, "%s: SpMV differs", what);
            near_reference(&in, y64, what);
        }
        ck_assert_ok(sp_matrix_info(G32, &i32));
        ck_assert_ok(sp_matrix_info(G64, &i64));
        ck_assert_int_eq(i64.bytes[SP_FORMAT_CSR],
                         i32.bytes[SP_FORMAT_CSR] +
                             (G64->csr_ptr32 ? 8 : 4) * (coo->nrows + 1));
        ck_assert_msg(G64->csr_ptr32 != NULL || coo->nnz == 0 || coo->nrows == 0,
                      "matrix %d: the narrowed pointers are not kept", (int)_i);
        {
            sp_matrix_t *H = make(g_host, coo, 64);
            same_compressed(G32, G64, H, SP_FORMAT_CSC);
            sp_matrix_destroy(H);
        }
        snprintf(what, sizeof what, "matrix %d, bound %lld, CSC", (int)_i,
                 (long long)bounds[bi]);
        gpu_spmv(G32, &in, SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT, y32);
        gpu_spmv(G64, &in, SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT, y64);
        near_reference(&in, y32, what);
        near_reference(&in, y64, what);
        /* releasing the CSR frees the narrowed pointers with it */
        ck_assert_ok(sp_matrix_release(g_gpu, G64, SP_FORMAT_CSR));
        ck_assert_ptr_null(G64->csr_ptr32);
        ck_assert_int_eq(G64->built & SP__BUILT_CSR32, 0);
        sp_matrix_destroy(G32);
        sp_matrix_destroy(G64);
    }
    free(y32);
    free(y64);
    inputs_free(&in);
    sp_coo_free(coo);
}
END_TEST

/* SpTRSV (both triangles, each algorithm) and the solvers on their fused steps (CG on the
 * device loop, PCG-Jacobi with the diagonal, PCG-SGS with its triangular solves, BiCGSTAB)
 * give the 32-bit matrix's bits at 64 bits: the same solutions and iterations. Both
 * matrices are tuned to CSR scalar (the format AUTO would give differs between the widths),
 * so the steps read the same 32-bit arrays. */
START_TEST(sptrsv_and_solvers)
{
    enum { N = 400, SOLVES = 4, TRSV = 6 };
    static const sp_solver_type_t types[SOLVES] = {SP_SOLVER_CG, SP_SOLVER_PCG_JACOBI,
                                                   SP_SOLVER_PCG_SGS, SP_SOLVER_BICGSTAB};
    static const sp_solver_loop_t loops[SOLVES] = {SP_SOLVER_LOOP_DEVICE, SP_SOLVER_LOOP_FUSED,
                                                   SP_SOLVER_LOOP_FUSED, SP_SOLVER_LOOP_FUSED};
    static const sp_sptrsv_alg_t talgs[3] = {SP_SPTRSV_ALG_AUTO, SP_SPTRSV_ALG_LEVELS,
                                             SP_SPTRSV_ALG_SOFT_SYNC};
    static double b[N], y[2][TRSV][N], x[2][SOLVES][N];
    int64_t iterations[2][SOLVES], nnz = 0;
    double alpha = 1.5;
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson2d(20, SP_R_64F, &a));
    nnz = a->nnz;
    sp_matrix_t *A[2] = {make(g_gpu, a, 32), make(g_gpu, a, 64)};
    for (int i = 0; i < N; i++) b[i] = 1.0 + (i % 7);
    for (int w = 0; w < 2; w++) {
        sp_vector_t *vb = NULL, *vx = NULL;
        sp_matrix_info_t info;
        A[w]->tuned = 1;
        A[w]->tuned_format = SP_FORMAT_CSR;
        A[w]->tuned_alg = SP_SPMV_ALG_CSR_SCALAR;
        ck_assert_ok(sp_vector_create(g_gpu, SP_R_64F, N, b, &vb));
        ck_assert_ok(sp_vector_create(g_gpu, SP_R_64F, N, NULL, &vx));
        for (int t = 0; t < TRSV; t++) {
            sp_uplo_t uplo = t < 3 ? SP_UPLO_LOWER : SP_UPLO_UPPER;
            ck_assert_ok(sp_sptrsv_analyse(g_gpu, A[w], uplo, SP_DIAG_NON_UNIT, talgs[t % 3]));
            ck_assert_ok(sp_sptrsv(g_gpu, A[w], uplo, SP_DIAG_NON_UNIT, talgs[t % 3], &alpha,
                                   sp_vector_data(vb), sp_vector_data(vx)));
            ck_assert_ok(sp_vector_copy_to_host(g_gpu, vx, y[w][t]));
        }
        for (int k = 0; k < SOLVES; k++) {
            sp_solver_t *s = NULL;
            sp_solver_result_t res;
            sp_solver_options_t o = {.max_iterations = 30, .loop = loops[k]};
            ck_assert_ok(sp_solver_create(g_gpu, types[k], &s));
            ck_assert_ok(sp_solver_set_options(s, &o));
            ck_assert_ok(sp_solver_setup(s, A[w]));
            ck_assert_ok(sp_vector_fill(g_gpu, vx, 0.0));
            ck_assert_ok(sp_solver_solve(s, vb, vx));
            ck_assert_ok(sp_solver_result(s, &res));
            iterations[w][k] = res.iterations;
            ck_assert_ok(sp_vector_copy_to_host(g_gpu, vx, x[w][k]));
            sp_solver_destroy(s);
        }
        ck_assert_ok(sp_matrix_info(A[w], &info));
        /* at 64 bits the narrowed pointers stay with the CSR */
        ck_assert_int_eq(info.bytes[SP_FORMAT_CSR], (N + 1) * (w ? 12 : 4) + nnz * 12);
        sp_vector_destroy(vx);
        sp_vector_destroy(vb);
    }
    for (int t = 0; t < TRSV; t++)
        ck_assert_msg(memcmp(y[0][t], y[1][t], sizeof y[0][t]) == 0,
                      "sptrsv %d differs between the widths", t);
    for (int k = 0; k < SOLVES; k++) {
        ck_assert_msg(memcmp(x[0][k], x[1][k], sizeof x[0][k]) == 0,
                      "solver %d differs between the widths", (int)types[k]);
        ck_assert_int_eq(iterations[0][k], iterations[1][k]);
        ck_assert_int_gt(iterations[0][k], 1);
    }
    sp_matrix_destroy(A[0]);
    sp_matrix_destroy(A[1]);
    sp_coo_free(a);
}
END_TEST

/* sp_spmv_tune at 64 bits times every candidate (the padded formats and CSR's algorithms
 * through the narrowed pointers) and keeps one; SpMV in AUTO then runs it, within rounding
 * of the host. */
START_TEST(tune_at_64)
{
    sp_coo_t *a = NULL;
    spmv_inputs_t in;
    sp_format_t f = SP_FORMAT_COUNT;
    sp_spmv_alg_t alg = SP_SPMV_ALG_DEFAULT;
    ck_assert_ok(sp_gen_poisson3d(12, SP_R_64F, &a));
    sp_matrix_t *A = sp_test_matrix_bound(g_gpu, a, 64, 0);
    inputs_make(a, 5, &in);
    void *y = alloc_or_fail((size_t)a->nrows * in.vs);
    ck_assert_ok(sp_spmv_tune(g_gpu, A, &f, &alg));
    ck_assert_int_lt((int)f, SP_FORMAT_COUNT);
    gpu_spmv(A, &in, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT, y);
    near_reference(&in, y, "AUTO after sp_spmv_tune at 64 bits");
    gpu_spmv(A, &in, f, alg, y);
    near_reference(&in, y, "the tuned choice at 64 bits");
    free(y);
    inputs_free(&in);
    sp_matrix_destroy(A);
    sp_coo_free(a);
}
END_TEST

/* offset_bits 0 on a CUDA context: 32, or 64 in the offsets64gpu run (SP_TEST_OFFSET_BITS=64:
 * asserted here, so that run cannot pass with the mode off). */
START_TEST(default_width)
{
    const char *env = getenv("SP_TEST_OFFSET_BITS");
    int want = env && strcmp(env, "64") == 0 ? 64 : 32;
    sp_coo_t *a = NULL;
    sp_matrix_t *G = NULL, *H = NULL;
    sp_matrix_info_t ig, ih;
    ck_assert_int_eq(sp_test_default_offset_bits(), want);
    ck_assert_ok(sp_gen_poisson2d(8, SP_R_64F, &a));
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &G));
    ck_assert_ok(sp_matrix_create(g_host, a, NULL, &H));
    ck_assert_ok(sp_matrix_info(G, &ig));
    ck_assert_ok(sp_matrix_info(H, &ih));
    ck_assert_int_eq(ig.offset_bits, want);
    ck_assert_int_eq(ih.offset_bits, want);
    sp_matrix_destroy(G);
    sp_matrix_destroy(H);
    sp_coo_free(a);
}
END_TEST

/* The narrow limit lowered to 1000 entries for a case (and put back after it, failed or
 * not: the GPU suites run without fork). */
static void narrow_limit_setup(void)
{
    setup();
    sp__test_set_narrow_limit(1000);
}

static void narrow_limit_teardown(void)
{
    sp__test_set_narrow_limit(INT64_MAX);
    teardown();
}

/* Past the narrow limit what reads 32-bit pointers (CSR binned and adaptive) refuses a
 * 64-bit matrix before any work, naming it and the limit; A is left usable: CSR (DEFAULT,
 * scalar, vector), COO and ELL still run; at the limit the rest is served again. */
START_TEST(refusals_past_narrow_limit)
{
    sp_coo_t *a = NULL;
    sp_vector_t *x = NULL, *y = NULL;
    double alpha = 1, beta = 0, h_y[400];
    ck_assert_ok(sp_gen_poisson2d(20, SP_R_64F, &a));
    sp_matrix_t *A = make(g_gpu, a, 64), *T = sp_test_matrix_bound(g_gpu, a, 64, 3);
    ck_assert_ok(sp_vector_create(g_gpu, SP_R_64F, 400, NULL, &x));
    ck_assert_ok(sp_vector_create(g_gpu, SP_R_64F, 400, NULL, &y));
    const struct {
        sp_spmv_alg_t alg;
        const char *name;
    } algs[] = {{SP_SPMV_ALG_CSR_BINNED, "csr/binned"},
                {SP_SPMV_ALG_CSR_ADAPTIVE, "csr/adaptive"}};
    for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
        ck_refused(sp_spmv_vec(g_gpu, SP_FORMAT_CSR, algs[i].alg, alpha, A, x, beta, y),
                   algs[i].name);
        ck_assert_error_has("400 x 400 matrix with 1920 entries");
        ck_assert_error_has("up to 1000 entries");
        ck_refused(sp_spmv_prepare(g_gpu, A, SP_FORMAT_CSR, algs[i].alg), algs[i].name);
        ck_assert_str_eq(sp_context_last_error(g_gpu), sp_last_error());
    }
    /* nothing refused was built, nothing narrowed; what reads 64-bit pointers still runs */
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int f = SP_FORMAT_CSC; f < SP_FORMAT_COUNT; f++)
        if (f != SP_FORMAT_ELL) ck_assert_int_eq(info.bytes[f], 0);
    ck_assert_ptr_null(A->csr_ptr32);
    ck_assert_ok(sp_vector_fill(g_gpu, x, 1.0));
    const sp_spmv_alg_t served[] = {SP_SPMV_ALG_DEFAULT, SP_SPMV_ALG_CSR_SCALAR,
                                    SP_SPMV_ALG_CSR_VECTOR};
    for (size_t i = 0; i < sizeof served / sizeof served[0]; i++) {
        ck_assert_ok(sp_spmv_vec(g_gpu, SP_FORMAT_CSR, served[i], alpha, A, x, beta, y));
        ck_assert_ok(sp_vector_copy_to_host(g_gpu, y, h_y));
        ck_assert(h_y[0] == 2.0 && h_y[21] == 0.0); /* corner: 4 - 2; inside: 4 - 4 */
    }
    ck_assert_ok(sp_spmv_vec(g_gpu, SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, alpha, A, x, beta, y));
    ck_assert_ok(sp_vector_copy_to_host(g_gpu, y, h_y));
    ck_assert(h_y[0] == 2.0 && h_y[21] == 0.0);
    /* at the limit: served through the narrowed pointers */
    sp__test_set_narrow_limit(1920);
    ck_assert_ok(sp_spmv_vec(g_gpu, SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT, alpha, A, x, beta, y));
    ck_assert_ok(sp_vector_copy_to_host(g_gpu, y, h_y));
    ck_assert(h_y[0] == 2.0 && h_y[21] == 0.0);
    ck_assert_ok(
        sp_spmv_vec(g_gpu, SP_FORMAT_CSR, SP_SPMV_ALG_CSR_BINNED, alpha, A, x, beta, y));
    ck_assert_ok(sp_vector_copy_to_host(g_gpu, y, h_y));
    ck_assert(h_y[0] == 2.0 && h_y[21] == 0.0);
    ck_assert_ok(sp_matrix_build(g_gpu, T, SP_FORMAT_ELL));
    sp_vector_destroy(x);
    sp_vector_destroy(y);
    sp_matrix_destroy(A);
    sp_matrix_destroy(T);
    sp_coo_free(a);
}
END_TEST

/* The wide catalogue: the matrices of sp_test_offsets64_matrix, then two with long columns
 * (transposes of random matrices): one of about 12000 entries in a column (past the
 * transpose's block sort: a radix sort of its own) and one of about 300 entries a column
 * (the block sort). */
enum { WIDE_MATRICES = SP_TEST_OFFSETS64_MATRICES + 2 };

static sp_coo_t *wide_matrix(int i)
{
    sp_coo_t *a = NULL;
    if (i < SP_TEST_OFFSETS64_MATRICES) return sp_test_offsets64_matrix(i);
    if (i == SP_TEST_OFFSETS64_MATRICES)
        a = sp_test_random_coo(41, 3000, 30000, 40000, SP_R_64F, SP_TEST_LONG_ROW);
    else
        a = sp_test_random_coo(42, 100, 20000, 30000, SP_R_32F, 0);
    ck_assert_ptr_nonnull(a);
    int64_t n = a->nrows;
    int32_t *r = a->row;
    a->nrows = a->ncols, a->ncols = n; /* the transpose: rows and columns swapped */
    a->row = a->col, a->col = r;
    return a;
}

/* Past the narrow limit (lowered to 0 here: every matrix with entries is past it) a 64-bit
 * matrix on a CUDA context converts its own 64-bit CSR, nothing narrowed (csr_ptr32 stays
 * NULL): for matrix _i of the wide catalogue, CSC (the transpose's 64-bit path) holds the
 * 32-bit matrix's arrays with its pointers widened, as the host's (same_compressed); ELL
 * (with and without a tail), HYB, JDS and SELL with no tail bound (-1), the policy's (0)
 * and 3 hold the 32-bit matrix's arrays, JDS's and SELL's offsets the same numbers in 64
 * bits (same_padded); their SpMV is within rounding of the host and, with no tail or
 * overflow, the 32-bit matrix's bits (the same arrays, the same per-row order); csr/merge
 * and csr/split (their kernels' 64-bit instances) within rounding of the host (rows cut
 * between tiles or chunks are finished by atomics). CSC SpMV and the tails add by atomics,
 * whose order differs from call to call, so those are compared within rounding only.
 * sp_spmv_tune times only what serves there and keeps one; its pick runs. */
START_TEST(wide_catalogue)
{
    sp_coo_t *coo = wide_matrix((int)_i);
    const sp_format_t padded[] = {SP_FORMAT_ELL, SP_FORMAT_HYB, SP_FORMAT_JDS, SP_FORMAT_SELL};
    const int64_t bounds[] = {-1, 0, 3};
    spmv_inputs_t in;
    char what[160];
    sp__test_set_narrow_limit(0);
    inputs_make(coo, (uint64_t)_i + 61, &in);
    void *y32 = alloc_or_fail((size_t)coo->nrows * in.vs);
    void *y64 = alloc_or_fail((size_t)coo->nrows * in.vs);
    for (size_t bi = 0; bi < sizeof bounds / sizeof bounds[0]; bi++) {
        if (sp_test_under_sanitizer() && bounds[bi] == 0) continue; /* -1 and 3: enough */
        sp_matrix_t *G32 = sp_test_matrix_bound(g_gpu, coo, 32, bounds[bi]);
        sp_matrix_t *G64 = sp_test_matrix_bound(g_gpu, coo, 64, bounds[bi]);
        for (size_t k = 0; k < sizeof padded / sizeof padded[0]; k++) {
            snprintf(what, sizeof what, "wide matrix %d, bound %lld, format %s", (int)_i,
                     (long long)bounds[bi], sp_format_name(padded[k]));
            same_padded_spmv(G32, G64, padded[k], &in, y32, y64, what);
        }
        if (bi == 0) {
            sp_matrix_t *H = make(g_host, coo, 64);
            same_compressed(G32, G64, H, SP_FORMAT_CSC);
            sp_matrix_destroy(H);
            snprintf(what, sizeof what, "wide matrix %d, CSC", (int)_i);
            gpu_spmv(G64, &in, SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT, y64);
            near_reference(&in, y64, what);
            const sp_spmv_alg_t wide_algs[] = {SP_SPMV_ALG_CSR_MERGE, SP_SPMV_ALG_CSR_SPLIT};
            for (size_t k = 0; k < 2; k++) {
                snprintf(what, sizeof what, "wide matrix %d, csr alg %d", (int)_i,
                         (int)wide_algs[k]);
                gpu_spmv(G64, &in, SP_FORMAT_CSR, wide_algs[k], y64);
                near_reference(&in, y64, what);
            }
        }
        /* a matrix without entries is at the limit (0 of 0), not past it: it may narrow */
        ck_assert_msg(G64->csr_ptr32 == NULL || sp__matrix_narrows(G64),
                      "wide matrix %d: pointers narrowed", (int)_i);
        sp_matrix_destroy(G32);
        sp_matrix_destroy(G64);
    }
    {
        sp_matrix_t *T = sp_test_matrix_bound(g_gpu, coo, 64, 3);
        sp_format_t f = SP_FORMAT_COUNT;
        sp_spmv_alg_t alg = SP_SPMV_ALG_DEFAULT;
        ck_assert_ok(sp_spmv_tune(g_gpu, T, &f, &alg));
        int past = !sp__matrix_narrows(T); /* a matrix without entries is not past it */
        ck_assert_int_lt((int)f, SP_FORMAT_COUNT);
        ck_assert_msg(!past ||
                          (alg != SP_SPMV_ALG_CSR_BINNED && alg != SP_SPMV_ALG_CSR_ADAPTIVE),
                      "tune past the limit chose %s alg %d", sp_format_name(f), (int)alg);
        snprintf(what, sizeof what, "wide matrix %d, tuned %s", (int)_i, sp_format_name(f));
        gpu_spmv(T, &in, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT, y64);
        near_reference(&in, y64, what);
        if (past) ck_assert_ptr_null(T->csr_ptr32);
        sp_matrix_destroy(T);
    }
    free(y32);
    free(y64);
    inputs_free(&in);
    sp_coo_free(coo);
}
END_TEST

/* ---- SpTRSV and the solvers past the narrow limit (issue 20) ---------------------------
 * Past the limit (1000 entries here) SpTRSV's analysis and kernels and the solvers' steps
 * read the CSR's own 64-bit pointers (the kernels' int64_t instances; nothing narrowed):
 * the 32-bit matrix's results bit for bit, since each kernel sums a row's entries in the
 * same order whatever the width of the positions it reads them at. */

enum { TRSV_MATRICES = 8 }; /* sptrsv_past_narrow_limit's loop */

#ifdef SP_HAVE_CUDA
/* A banded matrix with long rows (n rows, `half` entries each side of the diagonal, their
 * magnitudes summing below 1/2 a side, so unit-diagonal solves stay bounded too): the
 * triangle's rows average more than the warp-per-row threshold (12), so the kernels take a
 * warp per row; its levels are a chain (natural order). */
static sp_coo_t *band_coo(int64_t n, int64_t half, sp_value_type_t t)
{
    sp_coo_t *c = NULL;
    ck_assert_ok(sp_coo_create(n, n, n * (2 * half + 1), t, &c));
    for (int64_t r = 0; r < n; r++)
        for (int64_t j = r - half; j <= r + half; j++) {
            if (j < 0 || j >= n) continue;
            double v = j == r ? 2.0 + (double)(r % 3)
                              : -0.5 / ((double)half * (double)(1 + (r + 2 * j) % 5));
            c->row[c->nnz] = (int32_t)r;
            c->col[c->nnz] = (int32_t)j;
            put(c->val, sp_value_size(t), (size_t)c->nnz, v);
            c->nnz++;
        }
    return c;
}

/* Two levels of long rows: rows below n/2 hold their diagonal only, each row above it 40
 * entries among them; the levels are wide (level order) and rows long (warp per row). */
static sp_coo_t *two_level_coo(int64_t n, sp_value_type_t t)
{
    const int64_t h = n / 2, deps = 40;
    sp_coo_t *c = NULL;
    ck_assert_ok(sp_coo_create(n, n, n + (n - h) * deps, t, &c));
    for (int64_t r = 0; r < n; r++) {
        for (int64_t j = 0; r >= h && j < deps; j++) {
            c->row[c->nnz] = (int32_t)r;
            c->col[c->nnz] = (int32_t)((j * (h / deps) + r % (h / deps)) % h);
            put(c->val, sp_value_size(t), (size_t)c->nnz, 0.5 / (double)(1 + (r + j) % 3));
            c->nnz++;
        }
        c->row[c->nnz] = (int32_t)r;
        c->col[c->nnz] = (int32_t)r;
        put(c->val, sp_value_size(t), (size_t)c->nnz, 2.0 + (double)(r % 3));
        c->nnz++;
    }
    ck_assert_ok(sp_coo_sort_merge(c, SP_DUP_SUM, NULL));
    return c;
}

/* The matrices of sptrsv_past_narrow_limit, all past 1000 entries: a 2D stencil (narrow
 * levels: natural order, a thread per row), a 3D stencil (wide levels: level order), the
 * band (a warp per row, natural order), two levels (a warp per row, level order); each in
 * double and float. */
static sp_coo_t *trsv_matrix(int i)
{
    sp_value_type_t t = i % 2 ? SP_R_32F : SP_R_64F;
    sp_coo_t *c = NULL;
    switch (i / 2) {
    case 0: ck_assert_ok(sp_gen_poisson2d(20, t, &c)); break;
    case 1: ck_assert_ok(sp_gen_poisson3d(16, t, &c)); break;
    case 2: c = band_coo(600, 20, t); break;
    default: c = two_level_coo(2048, t); break;
    }
    ck_assert_int_gt(c->nnz, 1000);
    return c;
}

/* x for b (1 + i % 7) by every public algorithm and every kernel by name (both triangles,
 * non-unit and unit diagonals) on A: into out[case][row]. */
enum { TRSV_PUBLIC = 3, TRSV_KERNELS = 7, TRSV_CASES = 2 * 2 * (TRSV_PUBLIC + TRSV_KERNELS) };
static void trsv_all(sp_matrix_t *A, const sp_coo_t *c, void *out)
{
    static const sp_sptrsv_alg_t pub[TRSV_PUBLIC] = {SP_SPTRSV_ALG_AUTO, SP_SPTRSV_ALG_LEVELS,
                                                      SP_SPTRSV_ALG_SOFT_SYNC};
    static const sp_gpu_sptrsv_alg_t kern[TRSV_KERNELS] = {
        SP_GPU_SPTRSV_LEVELS,     SP_GPU_SPTRSV_SOFT,       SP_GPU_SPTRSV_SOFT_NATURAL,
        SP_GPU_SPTRSV_SOFT_VALUE, SP_GPU_SPTRSV_SOFT_BLOCK, SP_GPU_SPTRSV_WAVE,
        SP_GPU_SPTRSV_SMALL};
    const int64_t n = c->nrows;
    const size_t vs = sp_value_size(c->value_type);
    const double alpha = 1.5;
    const float alphaf = 1.5f;
    const void *ap = c->value_type == SP_R_32F ? (const void *)&alphaf : (const void *)&alpha;
    void *hb = alloc_or_fail((size_t)n * vs);
    sp_vector_t *vb = NULL, *vx = NULL;
    sp_gpu_env_t env;
    int k = 0;
    for (int64_t i = 0; i < n; i++) put(hb, vs, (size_t)i, 1.0 + (double)(i % 7));
    ck_assert_ok(sp_vector_create(g_gpu, c->value_type, n, hb, &vb));
    ck_assert_ok(sp_vector_create(g_gpu, c->value_type, n, NULL, &vx));
    ck_assert_ok(sp_matrix_build(g_gpu, A, SP_FORMAT_CSR));
    sp__cuda_env(g_gpu, &env);
    for (int u = 0; u < 2; u++)
        for (int d = 0; d < 2; d++) {
            sp_uplo_t uplo = u ? SP_UPLO_UPPER : SP_UPLO_LOWER;
            sp_diag_t diag = d ? SP_DIAG_UNIT : SP_DIAG_NON_UNIT;
            for (int g = 0; g < TRSV_PUBLIC; g++, k++) {
                ck_assert_ok(sp_sptrsv_analyse(g_gpu, A, uplo, diag, pub[g]));
                ck_assert_ok(sp_sptrsv(g_gpu, A, uplo, diag, pub[g], ap, sp_vector_data(vb),
                                       sp_vector_data(vx)));
                ck_assert_ok(sp_vector_copy_to_host(g_gpu, vx,
                                                    (char *)out + (size_t)k * (size_t)n * vs));
            }
            for (int g = 0; g < TRSV_KERNELS; g++, k++) {
                sp_gpu_sptrsv_plan_t *plan = NULL;
                /* the device CSR as the matrix holds it: ptr64 past the limit at 64 bits */
                ck_assert_ok(sp__gpu_sptrsv_analyse(&env, &A->f.csr, u, d, kern[g], &plan));
                ck_assert_ok(sp__gpu_sptrsv_solve(&env, plan, &A->f.csr, ap, sp_vector_data(vb),
                                                  sp_vector_data(vx)));
                sp__gpu_sptrsv_plan_free(&env, plan);
                ck_assert_ok(sp_vector_copy_to_host(g_gpu, vx,
                                                    (char *)out + (size_t)k * (size_t)n * vs));
            }
        }
    sp_vector_destroy(vx);
    sp_vector_destroy(vb);
    free(hb);
}
#endif /* SP_HAVE_CUDA */

/* Every public SpTRSV algorithm and every kernel by name, both triangles, both diagonal
 * kinds, double and float: the 64-bit matrix past the narrow limit reads its own pointers
 * (nothing narrowed, plans from the int64_t instances) and gives the 32-bit matrix's x bit
 * for bit; the public solves within rounding of the host context's substitution (same
 * 64-bit matrix; double, non-unit: the warp-per-row kernels sum in another order). The
 * value solves' level merging (32-bit offsets only, kernels/solve/sptrsv_merge.cu) is off
 * here: a merged row sums in another order, so the widths are compared unmerged. */
START_TEST(sptrsv_past_narrow_limit)
{
#ifdef SP_HAVE_CUDA
    sp_coo_t *c = trsv_matrix(_i);
    const int64_t n = c->nrows;
    const size_t vs = sp_value_size(c->value_type), bytes = (size_t)TRSV_CASES * (size_t)n * vs;
    void *x[2] = {alloc_or_fail(bytes), alloc_or_fail(bytes)};
    sp_matrix_t *A[2] = {make(g_gpu, c, 32), make(g_gpu, c, 64)};
    sp__gpu_sptrsv_set_merge(0);
    for (int w = 0; w < 2; w++) trsv_all(A[w], c, x[w]);
    sp__gpu_sptrsv_set_merge(-1);
    ck_assert_ptr_nonnull(A[1]->f.csr.ptr64);
    ck_assert_ptr_null(A[1]->csr_ptr32); /* nothing narrowed */
    for (int k = 0; k < TRSV_CASES; k++)
        ck_assert_msg(memcmp((char *)x[0] + (size_t)k * (size_t)n * vs,
                             (char *)x[1] + (size_t)k * (size_t)n * vs, (size_t)n * vs) == 0,
                      "matrix %d, case %d (triangle %d, unit %d, alg %d): x differs between "
                      "the widths",
                      _i, k, k / (2 * (TRSV_PUBLIC + TRSV_KERNELS)),
                      k / (TRSV_PUBLIC + TRSV_KERNELS) % 2, k % (TRSV_PUBLIC + TRSV_KERNELS));
    if (c->value_type == SP_R_64F) {
        sp_matrix_t *H = make(g_host, c, 64);
        double *b = alloc_or_fail((size_t)n * sizeof(double)),
               *xh = alloc_or_fail((size_t)n * sizeof(double)), alpha = 1.5;
        for (int64_t i = 0; i < n; i++) b[i] = 1.0 + (double)(i % 7);
        for (int u = 0; u < 2; u++) {
            const double *xg =
                (const double *)x[1] + (size_t)u * 2 * (TRSV_PUBLIC + TRSV_KERNELS) * (size_t)n;
            ck_assert_ok(sp_sptrsv(g_host, H, u ? SP_UPLO_UPPER : SP_UPLO_LOWER,
                                   SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO, &alpha, b, xh));
            for (int g = 0; g < TRSV_PUBLIC; g++)
                for (int64_t i = 0; i < n; i++)
                    ck_assert_msg(fabs(xg[(size_t)g * (size_t)n + (size_t)i] - xh[i]) <=
                                      1e-12 * (1.0 + fabs(xh[i])),
                                  "matrix %d, triangle %d, alg %d, x[%lld]: %.17g, host %.17g",
                                  _i, u, g, (long long)i, xg[(size_t)g * (size_t)n + (size_t)i],
                                  xh[i]);
        }
        free(xh);
        free(b);
        sp_matrix_destroy(H);
    }
    sp_matrix_destroy(A[0]);
    sp_matrix_destroy(A[1]);
    free(x[0]);
    free(x[1]);
    sp_coo_free(c);
#endif
}
END_TEST

/* The solvers past the narrow limit, each loop: the step loop (SpMV, the diagonal, the
 * triangular solves: all reading 64-bit pointers), the fused loop and the device loop (the
 * spmv step's int64_t instance, SP_CG_MAT_CSR64): CG, pipelined CG, PCG-Jacobi, PCG-SGS and
 * BiCGSTAB give the 32-bit matrix's iterations and x bit for bit, converged. Both matrices
 * are tuned to CSR scalar (AUTO's format differs between the widths past the limit), so
 * every product sums each row in the same order; nothing is narrowed. */
START_TEST(solvers_past_narrow_limit)
{
    enum { N = 400, RUNS = 11 };
    static const struct {
        sp_solver_type_t type;
        sp_solver_loop_t loop;
        int pipelined;
    } runs[RUNS] = {{SP_SOLVER_CG, SP_SOLVER_LOOP_AUTO, 0},
                    {SP_SOLVER_CG, SP_SOLVER_LOOP_STEPS, 0},
                    {SP_SOLVER_CG, SP_SOLVER_LOOP_FUSED, 0},
                    {SP_SOLVER_CG, SP_SOLVER_LOOP_FUSED, 1},
                    {SP_SOLVER_PCG_JACOBI, SP_SOLVER_LOOP_STEPS, 0},
                    {SP_SOLVER_PCG_JACOBI, SP_SOLVER_LOOP_DEVICE, 0},
                    {SP_SOLVER_PCG_SGS, SP_SOLVER_LOOP_STEPS, 0},
                    {SP_SOLVER_PCG_SGS, SP_SOLVER_LOOP_FUSED, 0},
                    {SP_SOLVER_BICGSTAB, SP_SOLVER_LOOP_STEPS, 0},
                    {SP_SOLVER_BICGSTAB, SP_SOLVER_LOOP_FUSED, 0},
                    {SP_SOLVER_BICGSTAB, SP_SOLVER_LOOP_DEVICE, 0}};
    static double b[N], x[2][RUNS][N];
    int64_t iterations[2][RUNS];
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson2d(20, SP_R_64F, &a));
    sp_matrix_t *A[2] = {make(g_gpu, a, 32), make(g_gpu, a, 64)};
    for (int i = 0; i < N; i++) b[i] = 1.0 + (i % 7);
    for (int w = 0; w < 2; w++) {
        sp_vector_t *vb = NULL, *vx = NULL;
        A[w]->tuned = 1;
        A[w]->tuned_format = SP_FORMAT_CSR;
        A[w]->tuned_alg = SP_SPMV_ALG_CSR_SCALAR;
        ck_assert_ok(sp_vector_create(g_gpu, SP_R_64F, N, b, &vb));
        ck_assert_ok(sp_vector_create(g_gpu, SP_R_64F, N, NULL, &vx));
        for (int k = 0; k < RUNS; k++) {
            sp_solver_t *s = NULL;
            sp_solver_result_t res;
            sp_solver_options_t o = {.rtol = 1e-8, .max_iterations = 1000,
                                     .loop = runs[k].loop, .pipelined = runs[k].pipelined};
            ck_assert_ok(sp_solver_create(g_gpu, runs[k].type, &s));
            ck_assert_ok(sp_solver_set_options(s, &o));
            ck_assert_ok(sp_solver_setup(s, A[w]));
            ck_assert_ok(sp_solver_solve(s, vb, vx));
            ck_assert_ok(sp_solver_result(s, &res));
            ck_assert_msg(res.status == SP_SOLVER_CONVERGED, "run %d at %d bits: status %d", k,
                          w ? 64 : 32, (int)res.status);
            iterations[w][k] = res.iterations;
            ck_assert_ok(sp_vector_copy_to_host(g_gpu, vx, x[w][k]));
            sp_solver_destroy(s);
        }
        sp_vector_destroy(vx);
        sp_vector_destroy(vb);
    }
    ck_assert_ptr_null(A[1]->csr_ptr32); /* nothing narrowed */
    for (int k = 0; k < RUNS; k++) {
        ck_assert_msg(iterations[0][k] == iterations[1][k],
                      "run %d: %lld iterations at 32 bits, %lld at 64", k,
                      (long long)iterations[0][k], (long long)iterations[1][k]);
        ck_assert_int_gt(iterations[0][k], 1);
        ck_assert_msg(memcmp(x[0][k], x[1][k], sizeof x[0][k]) == 0,
                      "run %d (solver %d, loop %d, pipelined %d): x differs between the widths",
                      k, (int)runs[k].type, (int)runs[k].loop, runs[k].pipelined);
    }
    sp_matrix_destroy(A[0]);
    sp_matrix_destroy(A[1]);
    sp_coo_free(a);
}
END_TEST

/* BFS at 64 bits on the GPU (its kernels' int64_t instances): every variant on the host
 * loop gives the 32-bit matrix's levels (check_gpu_bfs's offsets64 case runs every loop
 * against the reference and the validator). */
START_TEST(bfs_at_64)
{
#ifdef SP_HAVE_CUDA
    sp_coo_t *a = NULL;
    int32_t *d_level = NULL, l32[400], l64[400];
    ck_assert_ok(sp_gen_poisson2d(20, SP_R_64F, &a));
    sp_matrix_t *A32 = make(g_gpu, a, 32), *A64 = make(g_gpu, a, 64);
    ck_assert_int_eq(cudaMalloc((void **)&d_level, sizeof l32), cudaSuccess);
    for (int v = SP_BFS_PUSH; v <= SP_BFS_DIRECTION_OPT; v++) {
        sp_bfs_options_t o = {.variant = (sp_bfs_variant_t)v, .loop = SP_BFS_LOOP_HOST};
        ck_assert_ok(sp_bfs(g_gpu, A32, 7, &o, d_level, NULL, NULL));
        ck_assert_int_eq(cudaMemcpy(l32, d_level, sizeof l32, cudaMemcpyDeviceToHost),
                         cudaSuccess);
        ck_assert_ok(sp_bfs(g_gpu, A64, 7, &o, d_level, NULL, NULL));
        ck_assert_int_eq(cudaMemcpy(l64, d_level, sizeof l64, cudaMemcpyDeviceToHost),
                         cudaSuccess);
        ck_assert_msg(memcmp(l32, l64, sizeof l32) == 0, "%s: levels differ at 64 bits",
                      sp_bfs_variant_name((sp_bfs_variant_t)v));
    }
    cudaFree(d_level);
    sp_matrix_destroy(A64);
    sp_matrix_destroy(A32);
    sp_coo_free(a);
#endif
}
END_TEST

/* ELL from a 64-bit CSR on a CUDA context (no row in its tail: read at 64 bits, at any
 * size): the same slots as from the 32-bit CSR, SpMV in it the same bits and within
 * rounding of the host; with rows for the tail (a long-row bound below the longest row) it
 * is converted from the narrowed pointers, the same arrays as at 32 bits. */
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
    /* rows over the long-row bound go to the tail (the stencil's inner rows hold 5) */
    sp_matrix_t *T32 = sp_test_matrix_bound(g_gpu, m[0], 32, 3), *T64 = sp_test_matrix_bound(g_gpu, m[0], 64, 3);
    ck_assert_ok(sp_matrix_build(g_gpu, T32, SP_FORMAT_ELL));
    ck_assert_ok(sp_matrix_build(g_gpu, T64, SP_FORMAT_ELL));
    ck_assert_int_gt(same_padded(T32, T64, SP_FORMAT_ELL, sizeof(double)), 0);
    ck_assert_ptr_null(T64->csr_ptr32); /* made for the build only */
    sp_matrix_destroy(T32);
    sp_matrix_destroy(T64);
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
    for (int64_t i = 0; i <= va.nrows; i++) /* either width: the offsets64gpu run makes 64 */
        ck_assert_int_eq(sp_test_view_pointer(&va, SP_FORMAT_CSR, i),
                         sp_test_view_pointer(&vb, SP_FORMAT_CSR, i));
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
    tcase_add_test(t, default_width);
    tcase_add_test(t, in_order_kept);
    tcase_add_test(t, col_near_sampled);
    tcase_add_test(t, ell_at_64);
    tcase_add_test(t, bfs_at_64);
    t = sp_test_add_case(s, "narrowed", setup, teardown);
    tcase_add_loop_test(t, narrowed_catalogue, 0, SP_TEST_OFFSETS64_MATRICES);
    tcase_add_test(t, sptrsv_and_solvers);
    tcase_add_test(t, tune_at_64);
    t = sp_test_add_case(s, "past_narrow_limit", narrow_limit_setup, narrow_limit_teardown);
    tcase_add_test(t, refusals_past_narrow_limit);
    tcase_add_loop_test(t, wide_catalogue, 0, WIDE_MATRICES);
    tcase_add_loop_test(t, sptrsv_past_narrow_limit, 0, TRSV_MATRICES);
    tcase_add_test(t, solvers_past_narrow_limit);
    t = sp_test_add_case(s, "past_sort_limit", sort_limit_setup, sort_limit_teardown);
    tcase_add_loop_test(t, past_sort_limit_catalogue, 0, SP_TEST_OFFSETS64_MATRICES);
    tcase_add_test(t, past_sort_limit_duplicates_and_errors);
    return s;
}

int main(void)
{
    return sp_test_run_gpu(gpu_offsets64_suite());
}
