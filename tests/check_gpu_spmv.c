/* GPU SpMV through the public API: every format and algorithm, float and double, beta zero
 * (NaN in y must not leak) and not, against a host context's SpMV of the same COO within
 * rounding bounds tied to the type and row length, and against cuSPARSE (CSR, COO, SELL);
 * a catalogue of edge cases, generated and bundled matrices, SELL and HYB options; repeated
 * calls bit for bit where the algorithm is deterministic; refusals on a CUDA context.
 * SP_TEST_SMALL=1 shrinks the largest inputs (for compute-sanitizer). Exits 77 without a
 * GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "testutil_ref.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "sp_ref.h"
#include "testutil_gpu.h"
#include "sp_api.h" /* the test hook sp__cuda_test_csc_route */

#define ck_sparse(call)                                                                        \
    do {                                                                                       \
        cusparseStatus_t s_ = (call);                                                          \
        ck_assert_msg(s_ == CUSPARSE_STATUS_SUCCESS, "%s: %s", #call,                          \
                      cusparseGetErrorString(s_));                                             \
    } while (0)

/* The bound on |y_gpu - y_ref| per row is BOUND_C * eps * (row length + 2) * (sum_j
 * |alpha a_ij x_j| + |beta y_i|): a dot product of n terms in any order, then the alpha and
 * beta steps, each rounding by at most eps relative to the sum of magnitudes. */
#define BOUND_C 4.0
#define EPS_FLOAT 1.2e-7
#define EPS_DOUBLE 2.3e-16

/* flags of check_matrix */
#define WITH_CUSPARSE 0x1u /* cross-check with cuSPARSE CSR, COO and SELL */
#define ELL_REFUSED 0x2u   /* ELL must be refused with SP_STATUS_NOT_SUPPORTED */

/* formats mask of check_matrix: bit f for sp_format_t f, AUTO_BIT for SP_FORMAT_AUTO */
#define AUTO_BIT (1u << SP_FORMAT_COUNT)
#define ALL_FORMATS ((AUTO_BIT << 1) - 1)

/* Every matrix is multiplied with this alpha and each of these betas. */
static const double g_alpha = -1.25;
static const double g_betas[2] = {0.0, -0.75};

static sp_context_t *g_gpu, *g_host;
static cusparseHandle_t g_sparse;
static int small; /* SP_TEST_SMALL */

static void setup(void)
{
    small = sp_test_small();
    sp_test_gpu_host_contexts(&g_gpu, &g_host);
    ck_sparse(cusparseCreate(&g_sparse));
}

static void teardown(void)
{
    cusparseDestroy(g_sparse);
    g_sparse = NULL;
    sp_test_gpu_host_contexts_destroy(&g_gpu, &g_host);
}

/* ---- values of either type ------------------------------------------------------------ */

typedef union scalar {
    float f;
    double d;
} scalar_t;

static scalar_t scalar(sp_value_type_t t, double v)
{
    scalar_t s;
    if (t == SP_R_32F)
        s.f = (float)v;
    else
        s.d = v;
    return s;
}

static double get(const void *v, sp_value_type_t t, int64_t i)
{
    return t == SP_R_32F ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static void put(void *v, sp_value_type_t t, int64_t i, double x)
{
    if (t == SP_R_32F)
        ((float *)v)[i] = (float)x;
    else
        ((double *)v)[i] = x;
}

static const char *type_name(sp_value_type_t t)
{
    return t == SP_R_32F ? "float" : "double";
}

static const char *alg_name(sp_spmv_alg_t alg)
{
    static const char *const names[] = {"default",    "coo_atomic", "coo_segmented",
                                        "csr_scalar", "csr_vector", "csr_merge",
                                        "csr_split",  "csr_binned", "csr_adaptive"};
    return (unsigned)alg < sizeof names / sizeof names[0] ? names[alg] : "?";
}

/* Host and device buffers of at least 8 bytes, so empty vectors are still valid pointers. */
static void *host_alloc(size_t bytes)
{
    void *p = calloc(1, bytes > 8 ? bytes : 8);
    ck_assert_ptr_nonnull(p);
    return p;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    ck_cuda(cudaMalloc(&p, bytes > 8 ? bytes : 8));
    return p;
}

static void *dev_upload(const void *h, size_t bytes)
{
    void *d = dev_alloc(bytes);
    sp_test_to_device(d, h, bytes, NULL);
    return d;
}

/* ---- one matrix of one value type on both contexts, with its inputs and reference ---- */

typedef struct spmv_case {
    char name[128]; /* matrix and value type, for messages */
    sp_value_type_t type;
    size_t vs;
    int64_t nrows, ncols;
    sp_matrix_t *H, *G; /* the same COO on the host and on the GPU context */
    int64_t *row_len;   /* entries per row after duplicate merging */
    double *row_abs;    /* sum_j |a_ij x_j| */
    double *bound;      /* per row, for the current alpha and beta */
    scalar_t alpha, beta;
    double beta_d;
    void *h_x, *h_y0;      /* inputs */
    void *h_fill;          /* y as uploaded before each call: NaN when beta = 0, else y0 */
    void *h_ref;           /* the host context's y */
    void *h_got, *h_first; /* this call's y; the first call's */
    void *d_x, *d_y;
} spmv_case_t;

static void case_open(spmv_case_t *c, const char *name, const sp_coo_t *a, sp_value_type_t t,
                      const sp_matrix_options_t *opt)
{
    sp_coo_t *b = NULL;
    sp_matrix_info_t info;
    sp_format_view_t csr;
    uint64_t seed = 12345;
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s %s", name, type_name(t));
    c->type = t;
    c->vs = sp_value_size(t);
    ck_assert_ok(sp_coo_copy(a, t, &b));
    ck_assert_ok(sp_matrix_create(g_host, b, opt, &c->H));
    ck_assert_ok(sp_matrix_create(g_gpu, b, opt, &c->G));
    sp_coo_free(b);
    ck_assert_ok(sp_matrix_info(c->H, &info));
    c->nrows = info.nrows;
    c->ncols = info.ncols;
    size_t m = (size_t)c->nrows, n = (size_t)c->ncols;
    c->h_x = host_alloc(n * c->vs);
    c->h_y0 = host_alloc(m * c->vs);
    c->h_fill = host_alloc(m * c->vs);
    c->h_ref = host_alloc(m * c->vs);
    c->h_got = host_alloc(m * c->vs);
    c->h_first = host_alloc(m * c->vs);
    c->row_len = host_alloc(m * sizeof *c->row_len);
    c->row_abs = host_alloc(m * sizeof *c->row_abs);
    c->bound = host_alloc(m * sizeof *c->bound);
    for (size_t j = 0; j < n; j++)
        put(c->h_x, t, (int64_t)j, 2 * sp_test_uniform(&seed) - 1);
    for (size_t i = 0; i < m; i++)
        put(c->h_y0, t, (int64_t)i, 2 * sp_test_uniform(&seed) - 1);
    ck_assert_ok(sp_matrix_build(g_host, c->H, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_view(c->H, SP_FORMAT_CSR, &csr));
    for (size_t i = 0; i < m; i++) { /* either width (64 in the offsets64gpu run) */
        int64_t k0 = sp_test_view_pointer(&csr, SP_FORMAT_CSR, (int64_t)i);
        int64_t k1 = sp_test_view_pointer(&csr, SP_FORMAT_CSR, (int64_t)i + 1);
        c->row_len[i] = k1 - k0;
        for (int64_t k = k0; k < k1; k++)
            c->row_abs[i] += fabs(get(csr.csr.val, t, k) * get(c->h_x, t, csr.csr.col[k]));
    }
    c->d_x = dev_upload(c->h_x, n * c->vs);
    c->d_y = dev_alloc(m * c->vs);
}

static void case_close(spmv_case_t *c)
{
    cudaFree(c->d_y);
    cudaFree(c->d_x);
    free(c->bound);
    free(c->row_abs);
    free(c->row_len);
    free(c->h_first);
    free(c->h_got);
    free(c->h_ref);
    free(c->h_fill);
    free(c->h_y0);
    free(c->h_x);
    sp_matrix_destroy(c->G);
    sp_matrix_destroy(c->H);
}

/* Set alpha and beta, the y every call starts from, the host reference and the bounds. */
static void case_reference(spmv_case_t *c, double alpha, double beta)
{
    sp_value_type_t t = c->type;
    double eps = t == SP_R_32F ? EPS_FLOAT : EPS_DOUBLE;
    c->alpha = scalar(t, alpha);
    c->beta = scalar(t, beta);
    c->beta_d = beta;
    for (int64_t i = 0; i < c->nrows; i++) {
        put(c->h_fill, t, i, beta == 0 ? NAN : get(c->h_y0, t, i));
        c->bound[i] = BOUND_C * eps * (double)(c->row_len[i] + 2) *
                      (fabs(alpha) * c->row_abs[i] + fabs(beta * get(c->h_y0, t, i)));
    }
    memcpy(c->h_ref, c->h_fill, (size_t)c->nrows * c->vs);
    ck_assert_ok(sp_spmv(g_host, SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT, &c->alpha, c->H, c->h_x,
                         &c->beta, c->h_ref));
    for (int64_t i = 0; i < c->nrows; i++)
        ck_assert_msg(!isnan(get(c->h_ref, t, i)), "%s: host reference row %lld is NaN",
                      c->name, (long long)i);
}

static void load_y(const spmv_case_t *c, void *d_y)
{
    sp_test_to_device(d_y, c->h_fill, (size_t)c->nrows * c->vs, NULL);
}

static void fetch_y(const spmv_case_t *c, const void *d_y, void *h_y)
{
    ck_cuda(cudaMemcpy(h_y, d_y, (size_t)c->nrows * c->vs, cudaMemcpyDeviceToHost));
}

/* got within the bound of want on every row; NaN never passes unless the reference is NaN
 * too (an infinite matrix entry), infinities must match exactly. what names the call. */
static void compare(const spmv_case_t *c, const char *what, const void *got, const void *want)
{
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < c->nrows; i++) {
        double g = get(got, c->type, i), w = get(want, c->type, i);
        double d = fabs(g - w);
        /* an infinite reference (an inf in the matrix) must be met exactly */
        int ok = isfinite(w) ? d <= c->bound[i] : (g == w || (isnan(g) && isnan(w)));
        if (!ok) {
            if (first < 0) first = i;
            bad++;
        }
    }
    if (bad == 0) return;
    ck_abort_msg("%s %s beta=%g: row %lld got %.17g, expected %.17g (|diff| %.3g > bound %.3g, "
                 "row length %lld); %lld of %lld rows off",
                 c->name, what, c->beta_d, (long long)first, get(got, c->type, first),
                 get(want, c->type, first),
                 fabs(get(got, c->type, first) - get(want, c->type, first)), c->bound[first],
                 (long long)c->row_len[first], (long long)bad, (long long)c->nrows);
}

/* ---- libsp on the GPU -------------------------------------------------------------------- */

/* Whether (format, alg) gives the same bits on every call: no atomics in the summation.
 * CSR merge and split (and DEFAULT, which may resolve to them) and COO segmented add the
 * carry-outs of rows longer than a tile with atomics in their fix-up pass, so they are
 * held to the bound only. CSR binned adds the pieces of a long row in piece order. ELL,
 * JDS and SELL are deterministic unless they keep a long-row tail (added with atomics). */
static int deterministic(const spmv_case_t *c, sp_format_t f, sp_spmv_alg_t alg)
{
    sp_matrix_info_t info;
    switch (f) {
    case SP_FORMAT_CSR:
        return alg == SP_SPMV_ALG_CSR_SCALAR || alg == SP_SPMV_ALG_CSR_VECTOR ||
               alg == SP_SPMV_ALG_CSR_BINNED || alg == SP_SPMV_ALG_CSR_ADAPTIVE;
    case SP_FORMAT_ELL:
    case SP_FORMAT_JDS:
    case SP_FORMAT_SELL:
        ck_assert_ok(sp_matrix_info(c->G, &info));
        return (f == SP_FORMAT_ELL   ? info.ell_tail_nnz
                : f == SP_FORMAT_JDS ? info.jds_tail_nnz
                                     : info.sell_tail_nnz) == 0;
    default:
        return 0; /* COO, CSC and HYB's overflow accumulate with atomics */
    }
}

/* every (format, algorithm) pair: tests/testutil.c */
#define combos sp_test_spmv_combos
#define NCOMBOS ((size_t)sp_test_spmv_ncombos)

/* ELL refused for its padding: by the API's bound, the same on both contexts; y untouched. */
static void check_ell_refused(const spmv_case_t *c, const char *what)
{
    ck_assert_msg(strstr(sp_last_error(), "ELL") != NULL,
                  "%s %s: message \"%s\" does not name ELL", c->name, what, sp_last_error());
    ck_assert_status(sp_matrix_build(g_host, c->H, SP_FORMAT_ELL), SP_STATUS_NOT_SUPPORTED);
    fetch_y(c, c->d_y, c->h_got);
    ck_assert_msg(memcmp(c->h_got, c->h_fill, (size_t)c->nrows * c->vs) == 0,
                  "%s %s: y changed by a refused call", c->name, what);
}

/* Three consecutive calls, each within the bound of the reference; deterministic ones
 * give the same bits every time. */
static void run_combo(spmv_case_t *c, const sp_test_spmv_combo_t *k, unsigned flags)
{
    sp_format_t f = k->format;
    char what[96];
    if (f == SP_FORMAT_AUTO) ck_assert_ok(sp_spmv_choose_format(g_gpu, c->G, &f));
    snprintf(what, sizeof what, "%s%s%s/%s", sp_format_name(k->format),
             k->format == SP_FORMAT_AUTO ? "=" : "",
             k->format == SP_FORMAT_AUTO ? sp_format_name(f) : "", alg_name(k->alg));
    for (int call = 0; call < 3; call++) {
        load_y(c, c->d_y);
        sp_status_t st =
            sp_spmv(g_gpu, k->format, k->alg, &c->alpha, c->G, c->d_x, &c->beta, c->d_y);
        if (k->format == SP_FORMAT_ELL &&
            (st == SP_STATUS_NOT_SUPPORTED || (flags & ELL_REFUSED))) {
            ck_assert_msg(st == SP_STATUS_NOT_SUPPORTED, "%s %s: %s, expected ELL refused: %s",
                          c->name, what, sp_status_string(st), sp_last_error());
            check_ell_refused(c, what);
            return;
        }
        ck_assert_msg(st == SP_STATUS_SUCCESS, "%s %s beta=%g: %s: %s", c->name, what,
                      c->beta_d, sp_status_string(st), sp_last_error());
        ck_assert_ok(sp_context_synchronize(g_gpu));
        fetch_y(c, c->d_y, c->h_got);
        compare(c, what, c->h_got, c->h_ref);
        if (call == 0) {
            memcpy(c->h_first, c->h_got, (size_t)c->nrows * c->vs);
            continue;
        }
        if (!deterministic(c, f, k->alg)) continue;
        for (int64_t i = 0; i < c->nrows; i++)
            ck_assert_msg(
                memcmp((char *)c->h_got + i * c->vs, (char *)c->h_first + i * c->vs, c->vs) ==
                    0,
                "%s %s beta=%g: call %d differs from call 1 at row %lld (%.17g vs %.17g)",
                c->name, what, c->beta_d, call + 1, (long long)i, get(c->h_got, c->type, i),
                get(c->h_first, c->type, i));
    }
}

/* ---- cuSPARSE on the same inputs ----------------------------------------------------------
 */

/* Sliced ELL with the rows in their own order (cuSPARSE has no row permutation): slices of
 * sc consecutive rows, column-major, padded to the slice's longest row (column -1, value 0),
 * the last slice padded to sc rows too. */
typedef struct sell_host {
    int64_t nslices, slots;
    int32_t *offsets, *col;
    void *val;
} sell_host_t;

/* Row pointer r of the view `csr`, either width. */
#define ROW_PTR(r) sp_test_view_pointer(csr, SP_FORMAT_CSR, (r))

static sell_host_t sell_unsorted(const sp_format_view_t *csr, int64_t sc, size_t vs)
{
    sell_host_t s = {0};
    int64_t m = csr->nrows;
    s.nslices = (m + sc - 1) / sc;
    s.offsets = host_alloc((size_t)(s.nslices + 1) * sizeof *s.offsets);
    for (int64_t sl = 0; sl < s.nslices; sl++) {
        int64_t width = 0;
        for (int64_t r = sl * sc; r < (sl + 1) * sc && r < m; r++)
            if (ROW_PTR(r + 1) - ROW_PTR(r) > width) width = ROW_PTR(r + 1) - ROW_PTR(r);
        s.offsets[sl + 1] = (int32_t)(s.offsets[sl] + width * sc);
    }
    s.slots = s.offsets[s.nslices];
    s.col = host_alloc((size_t)s.slots * sizeof *s.col);
    s.val = host_alloc((size_t)s.slots * vs);
    for (int64_t p = 0; p < s.slots; p++)
        s.col[p] = -1;
    for (int64_t r = 0; r < m; r++) {
        int64_t base = s.offsets[r / sc] + r % sc;
        for (int64_t k = ROW_PTR(r); k < ROW_PTR(r + 1); k++) {
            int64_t p = base + (k - ROW_PTR(r)) * sc;
            s.col[p] = csr->csr.col[k];
            memcpy((char *)s.val + p * vs, (const char *)csr->csr.val + k * vs, vs);
        }
    }
    return s;
}
#undef ROW_PTR

/* y = alpha A x + beta y by cuSPARSE into d_y (loaded with y0, or zeros when beta = 0:
 * cuSPARSE's treatment of NaN is not under test). Returns its status from SpMV. */
static cusparseStatus_t cusparse_spmv(const spmv_case_t *c, cusparseSpMatDescr_t mat,
                                      cusparseSpMVAlg_t alg, void *d_y)
{
    cudaDataType vt = c->type == SP_R_32F ? CUDA_R_32F : CUDA_R_64F;
    cusparseDnVecDescr_t x = NULL, y = NULL;
    size_t bytes = 0;
    void *d_buf = NULL;
    if (c->beta_d == 0)
        ck_cuda(cudaMemset(d_y, 0, (size_t)c->nrows * c->vs));
    else
        load_y(c, d_y);
    ck_sparse(cusparseCreateDnVec(&x, c->ncols, c->d_x, vt));
    ck_sparse(cusparseCreateDnVec(&y, c->nrows, d_y, vt));
    cusparseStatus_t st =
        cusparseSpMV_bufferSize(g_sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &c->alpha, mat, x,
                                &c->beta, y, vt, alg, &bytes);
    if (st == CUSPARSE_STATUS_SUCCESS) {
        d_buf = dev_alloc(bytes);
        st = cusparseSpMV(g_sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &c->alpha, mat, x,
                          &c->beta, y, vt, alg, d_buf);
        ck_cuda(cudaDeviceSynchronize());
        ck_cuda(cudaFree(d_buf));
    }
    cusparseDestroyDnVec(y);
    cusparseDestroyDnVec(x);
    return st;
}

/* cuSPARSE's y against the reference, and libsp's format (default algorithm) against
 * cuSPARSE's y, both within the bound. */
static void cross_check_one(spmv_case_t *c, cusparseSpMatDescr_t mat, cusparseSpMVAlg_t alg,
                            sp_format_t format, const char *what)
{
    char libsp_what[96];
    void *d_y = dev_alloc((size_t)c->nrows * c->vs);
    cusparseStatus_t st = cusparse_spmv(c, mat, alg, d_y);
    if (st == CUSPARSE_STATUS_NOT_SUPPORTED && format == SP_FORMAT_SELL) {
        printf("%s: cuSPARSE %s not supported here, skipped\n", c->name, what);
        ck_cuda(cudaFree(d_y));
        return;
    }
    ck_assert_msg(st == CUSPARSE_STATUS_SUCCESS, "%s %s: %s", c->name, what,
                  cusparseGetErrorString(st));
    fetch_y(c, d_y, c->h_got);
    compare(c, what, c->h_got, c->h_ref);
    load_y(c, d_y);
    ck_assert_ok(
        sp_spmv(g_gpu, format, SP_SPMV_ALG_DEFAULT, &c->alpha, c->G, c->d_x, &c->beta, d_y));
    ck_assert_ok(sp_context_synchronize(g_gpu));
    fetch_y(c, d_y, c->h_first);
    snprintf(libsp_what, sizeof libsp_what, "libsp %s vs %s", sp_format_name(format), what);
    compare(c, libsp_what, c->h_first, c->h_got);
    ck_cuda(cudaFree(d_y));
}

static void cross_check_betas(spmv_case_t *c, cusparseSpMatDescr_t mat, cusparseSpMVAlg_t alg,
                              sp_format_t format, const char *what)
{
    for (size_t b = 0; b < 2; b++) {
        case_reference(c, g_alpha, g_betas[b]);
        cross_check_one(c, mat, alg, format, what);
    }
}

/* CSR and COO from the host matrix's views, SELL of the unsorted rows with libsp's C. */
static void cross_check_cusparse(spmv_case_t *c, int sell_c)
{
    sp_format_view_t csr, coo;
    cudaDataType vt = c->type == SP_R_32F ? CUDA_R_32F : CUDA_R_64F;
    cusparseSpMatDescr_t mat = NULL;
    ck_assert_ok(sp_matrix_view(c->H, SP_FORMAT_CSR, &csr));
    ck_assert_ok(sp_matrix_view(c->H, SP_FORMAT_COO, &coo));
    if (c->nrows == 0 || c->ncols == 0 || csr.nnz == 0) return; /* nothing cuSPARSE must do */
    size_t nnz = (size_t)csr.nnz;
    int32_t *h_ptr = host_alloc((size_t)(c->nrows + 1) * 4); /* cuSPARSE takes 32-bit here */
    for (int64_t i = 0; i <= c->nrows; i++)
        h_ptr[i] = (int32_t)sp_test_view_pointer(&csr, SP_FORMAT_CSR, i);
    int32_t *d_ptr = dev_upload(h_ptr, (size_t)(c->nrows + 1) * 4);
    free(h_ptr);
    int32_t *d_idx = dev_upload(csr.csr.col, nnz * 4);
    void *d_val = dev_upload(csr.csr.val, nnz * c->vs);
    ck_sparse(cusparseCreateCsr(&mat, c->nrows, c->ncols, csr.nnz, d_ptr, d_idx, d_val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, vt));
    cross_check_betas(c, mat, CUSPARSE_SPMV_CSR_ALG1, SP_FORMAT_CSR, "cusparse csr_alg1");
    cusparseDestroySpMat(mat);

    int32_t *d_row = dev_upload(coo.coo.row, nnz * 4);
    int32_t *d_col = dev_upload(coo.coo.col, nnz * 4);
    void *d_cval = dev_upload(coo.coo.val, nnz * c->vs);
    ck_sparse(cusparseCreateCoo(&mat, c->nrows, c->ncols, csr.nnz, d_row, d_col, d_cval,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
    cross_check_betas(c, mat, CUSPARSE_SPMV_COO_ALG1, SP_FORMAT_COO, "cusparse coo_alg1");
    cusparseDestroySpMat(mat);

    sell_host_t s = sell_unsorted(&csr, sell_c > 0 ? sell_c : 32, c->vs);
    int32_t *d_off = dev_upload(s.offsets, (size_t)(s.nslices + 1) * 4);
    int32_t *d_scol = dev_upload(s.col, (size_t)s.slots * 4);
    void *d_sval = dev_upload(s.val, (size_t)s.slots * c->vs);
    cusparseStatus_t st = cusparseCreateSlicedEll(
        &mat, c->nrows, c->ncols, csr.nnz, s.slots, sell_c > 0 ? sell_c : 32, d_off, d_scol,
        d_sval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt);
    if (st == CUSPARSE_STATUS_SUCCESS) {
        cross_check_betas(c, mat, CUSPARSE_SPMV_SELL_ALG1, SP_FORMAT_SELL,
                          "cusparse sell_alg1");
        cusparseDestroySpMat(mat);
    } else {
        ck_assert_msg(st == CUSPARSE_STATUS_NOT_SUPPORTED, "%s: cusparseCreateSlicedEll: %s",
                      c->name, cusparseGetErrorString(st));
        printf("%s: cuSPARSE sliced ELL not supported here, skipped\n", c->name);
    }
    cudaFree(d_sval);
    cudaFree(d_scol);
    cudaFree(d_off);
    free(s.val);
    free(s.col);
    free(s.offsets);
    cudaFree(d_cval);
    cudaFree(d_col);
    cudaFree(d_row);
    cudaFree(d_val);
    cudaFree(d_idx);
    cudaFree(d_ptr);
}

/* ---- the driver ----------------------------------------------------------------------------
 */

/* Every combination of the formats in the mask, float and double, beta = 0 and beta != 0
 * (alpha != 1 in both), against the host reference; cuSPARSE too if the flags say so. */
static void check_matrix(const char *name, const sp_coo_t *a, const sp_matrix_options_t *opt,
                         unsigned formats, unsigned flags)
{
    static const sp_value_type_t types[] = {SP_R_32F, SP_R_64F};
    for (size_t t = 0; t < 2; t++) {
        spmv_case_t c;
        case_open(&c, name, a, types[t], opt);
        for (size_t b = 0; b < 2; b++) {
            case_reference(&c, g_alpha, g_betas[b]);
            for (size_t k = 0; k < NCOMBOS; k++) {
                unsigned bit =
                    combos[k].format == SP_FORMAT_AUTO ? AUTO_BIT : 1u << combos[k].format;
                if (formats & bit) run_combo(&c, &combos[k], flags);
            }
        }
        /* SP_TEST_NO_CUSPARSE=1 leaves cuSPARSE out: under racecheck its own kernels report
         * hazards that are not libsp's */
        if ((flags & WITH_CUSPARSE) && !getenv("SP_TEST_NO_CUSPARSE"))
            cross_check_cusparse(&c, opt ? opt->sell_c : 0);
        case_close(&c);
    }
}

/* A COO under construction: room for cap entries. */
static sp_coo_t *coo_new(int64_t nrows, int64_t ncols, int64_t cap)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(nrows, ncols, cap, SP_R_64F, &a));
    return a;
}

static void coo_push(sp_coo_t *a, int64_t r, int64_t c, double v)
{
    ck_assert_int_lt(a->nnz, a->capacity);
    a->row[a->nnz] = (int32_t)r;
    a->col[a->nnz] = (int32_t)c;
    ((double *)a->val)[a->nnz] = v;
    a->nnz++;
}

/* a (sorted and merged in place) as a host CSR and its copy on a kernel-layer environment,
 * for the tests that call the plans themselves. */
typedef struct kernel_csr {
    sp_test_env_t t;
    sp_csr_t h, d;
} kernel_csr_t;

static void kernel_csr_open(kernel_csr_t *k, sp_coo_t *a)
{
    memset(k, 0, sizeof *k);
    sp_test_env_setup(&k->t);
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, NULL));
    ck_assert_ok(sp_test_coo_to_csr(a, &k->h));
    k->d = sp_test_env_upload_csr(&k->t, &k->h);
}

static void kernel_csr_close(kernel_csr_t *k)
{
    sp__gpu_csr_free(&k->t.env, &k->d);
    sp__csr_free(&k->h);
    sp_test_env_teardown(&k->t);
}

/* coo_push on a COO that grows as needed. */
static void coo_push_grow(sp_coo_t **a, int64_t r, int64_t c, double v)
{
    if ((*a)->nnz == (*a)->capacity) {
        sp_coo_t *b = coo_new((*a)->nrows, (*a)->ncols, 2 * (*a)->capacity + 16);
        for (int64_t k = 0; k < (*a)->nnz; k++)
            coo_push(b, (*a)->row[k], (*a)->col[k], ((const double *)(*a)->val)[k]);
        sp_coo_free(*a);
        *a = b;
    }
    coo_push(*a, r, c, v);
}

static void check_random(const char *name, uint64_t seed, int64_t nrows, int64_t ncols,
                         int64_t nnz, unsigned features, unsigned flags)
{
    sp_coo_t *a = sp_test_random_coo(seed, nrows, ncols, nnz, SP_R_64F, features);
    ck_assert_ptr_nonnull(a);
    check_matrix(name, a, NULL, ALL_FORMATS, flags);
    sp_coo_free(a);
}

/* ---- the tests ------------------------------------------------------------------------------
 */

START_TEST(test_tiny)
{
    /* [2 0 -1; 0 0 0; 0 3 0] x (1, 2, 3) = (-1, 0, 6); alpha = 2, beta = 0.5 over y = 10 */
    sp_coo_t *a = coo_new(3, 3, 3);
    coo_push(a, 2, 1, 3);
    coo_push(a, 0, 2, -1);
    coo_push(a, 0, 0, 2);
    const double h_x[3] = {1, 2, 3}, expect[3] = {3, 5, 17};
    double alpha = 2, beta = 0.5, h_y[3];
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &A));
    double *d_x = dev_upload(h_x, sizeof h_x), *d_y = dev_alloc(sizeof h_y);
    for (size_t k = 0; k < NCOMBOS; k++) {
        for (int i = 0; i < 3; i++)
            h_y[i] = 10;
        sp_test_to_device(d_y, h_y, sizeof h_y, NULL);
        ck_assert_ok(
            sp_spmv(g_gpu, combos[k].format, combos[k].alg, &alpha, A, d_x, &beta, d_y));
        ck_assert_ok(sp_context_synchronize(g_gpu));
        ck_cuda(cudaMemcpy(h_y, d_y, sizeof h_y, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 3; i++)
            ck_assert_msg(h_y[i] == expect[i], "tiny %s/%s: row %d got %.17g, expected %g",
                          sp_format_name(combos[k].format), alg_name(combos[k].alg), i, h_y[i],
                          expect[i]);
    }
    cudaFree(d_y);
    cudaFree(d_x);
    sp_matrix_destroy(A);
    check_matrix("tiny 3x3", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_empty_shapes)
{
    const int64_t shapes[][2] = {{0, 5}, {0, 0}, {5, 0}, {50, 40}};
    const char *names[] = {"0 rows", "0x0", "0 columns", "0 nnz"};
    for (size_t i = 0; i < 4; i++) {
        sp_coo_t *a = coo_new(shapes[i][0], shapes[i][1], 0);
        check_matrix(names[i], a, NULL, ALL_FORMATS, WITH_CUSPARSE);
        sp_coo_free(a);
    }
}
END_TEST

START_TEST(test_one_by_one)
{
    sp_coo_t *a = coo_new(1, 1, 1);
    coo_push(a, 0, 0, 2.5);
    check_matrix("1x1", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_random_catalogue)
{
    check_random("empty rows", 1, 3000, 2000, 20000, SP_TEST_EMPTY_ROWS, WITH_CUSPARSE);
    check_random("duplicates", 2, 2000, 2000, 30000, SP_TEST_DUPLICATES, WITH_CUSPARSE);
    check_random("unsorted, empty columns", 3, 1500, 4000, 25000, SP_TEST_EMPTY_COLS,
                 WITH_CUSPARSE);
    check_random("long row", 4, 4000, 3000, 40000,
                 SP_TEST_LONG_ROW | SP_TEST_EMPTY_ROWS | SP_TEST_DUPLICATES, WITH_CUSPARSE);
    check_random("wide 300x5000", 5, 300, 5000, 20000, 0, WITH_CUSPARSE);
    check_random("tall 5000x300", 6, 5000, 300, 20000, 0, WITH_CUSPARSE);
    /* COO segmented applies beta in its tiles, empty rows included, up to nrows = 2 nnz +
     * 2048; past that a beta pass runs first: one matrix each side */
    check_random("mostly empty rows, beta in the tiles", 7, 19000, 700, 9000, 0,
                 WITH_CUSPARSE);
    check_random("hypersparse, a beta pass first", 8, 200000, 700, 3000, 0, WITH_CUSPARSE);
}
END_TEST

START_TEST(test_all_one_entry)
{
    /* 1000 copies of one entry merge into one; every other row empty */
    sp_coo_t *a = coo_new(64, 64, 1000);
    uint64_t s = 9;
    for (int k = 0; k < 1000; k++)
        coo_push(a, 17, 40, 2 * sp_test_uniform(&s) - 1);
    check_matrix("one entry repeated", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_row_longer_than_block)
{
    /* row 777 holds 5000 entries, in descending column order; the others 3 each */
    sp_coo_t *a = coo_new(2000, 6000, 5000 + 3 * 2000);
    uint64_t s = 11;
    for (int64_t k = 4999; k >= 0; k--)
        coo_push(a, 777, k, 2 * sp_test_uniform(&s) - 1);
    for (int64_t r = 0; r < 2000; r++)
        for (int k = 0; k < 3; k++)
            coo_push(a, r, (int64_t)(sp_test_rand(&s) % 6000), 2 * sp_test_uniform(&s) - 1);
    check_matrix("row of 5000", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_row_of_length_n)
{
    /* a diagonal plus one full row: ELL, JDS and SELL keep the row in their tail (ELL
     * without one would pad every row to n: tests/check_api.c pins that refusal) */
    int64_t n = small ? 10000 : 100000, full = n / 3;
    sp_coo_t *a = coo_new(n, n, 2 * n);
    uint64_t s = 13;
    for (int64_t j = n - 1; j >= 0; j--)
        coo_push(a, full, j, 2 * sp_test_uniform(&s) - 1);
    for (int64_t r = 0; r < n; r++)
        if (r != full) coo_push(a, r, r, 2 * sp_test_uniform(&s) - 1);
    check_matrix("row of length n", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_row_length_boundaries)
{
    /* rows whose lengths straddle the limits of the binned bins (4 << b), the adaptive
     * stream blocks (256 entries a short row, windows of 1024 entries, 1024 rows) and the
     * long-row pieces (1024 binned, 2048 adaptive), in runs: 3000 empty rows, 2000 rows of
     * one entry, then the lengths below in turn, `rounds` times (fewer under SP_TEST_SMALL,
     * which the sanitizer runs use) */
    static const int lens[] = {0,   1,    2,    3,    4,    5,    8,    9,    16,  17,
                               31,  32,   33,   64,   65,   127,  128,  129,  0,   255,
                               256, 257,  511,  512,  513,  0,    0,    1023, 1024, 1025,
                               2047, 2048, 2049, 3,   4095, 4096, 4097, 6000, 1};
    const int64_t nlens = (int64_t)(sizeof lens / sizeof lens[0]), ncols = 8000;
    const int64_t rounds = small ? 3 : 40;
    int64_t nrows = 3000 + 2000 + rounds * nlens, nnz = 2000;
    for (int64_t r = 0; r < rounds * nlens; r++) nnz += lens[r % nlens];
    sp_coo_t *a = coo_new(nrows, ncols, nnz);
    uint64_t s = 17;
    for (int64_t r = 3000; r < 5000; r++)
        coo_push(a, r, (int64_t)(sp_test_rand(&s) % ncols), 2 * sp_test_uniform(&s) - 1);
    for (int64_t r = 0; r < rounds * nlens; r++)
        for (int k = 0; k < lens[r % nlens]; k++) /* distinct columns, a random start */
            coo_push(a, 5000 + r, (int64_t)((sp_test_rand(&s) % ncols + (uint64_t)k) % ncols),
                     2 * sp_test_uniform(&s) - 1);
    check_matrix("row length boundaries", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_large_with_long_rows)
{
    /* past 2^22 entries (the adaptive plan's long pieces, 2048 entries; shorter below, as
     * in the tests above): 2^20 rows of 4 entries and 64 rows of 3000 to 40000, spread
     * over the rows (under SP_TEST_SMALL a sixteenth of it, the short-piece plan) */
    int64_t n = small ? (1 << 16) : (1 << 20), nlong = 64, nnz = 4 * n;
    for (int64_t k = 0; k < nlong; k++) nnz += 3000 + (k * 577) % 37000;
    sp_coo_t *a = coo_new(n, n, nnz);
    uint64_t s = 23;
    for (int64_t r = 0; r < n; r++)
        for (int k = 0; k < 4; k++)
            coo_push(a, r, (int64_t)((r * 7919 + (uint64_t)k * 104729) % (uint64_t)n),
                     2 * sp_test_uniform(&s) - 1);
    for (int64_t k = 0; k < nlong; k++) {
        int64_t row = (k * 16411 + 5) % n, len = 3000 + (k * 577) % 37000;
        uint64_t start = sp_test_rand(&s) % (uint64_t)n;
        for (int64_t j = 0; j < len; j++) /* distinct columns from a random start */
            coo_push(a, row, (int64_t)((start + (uint64_t)j) % (uint64_t)n),
                     2 * sp_test_uniform(&s) - 1);
    }
    check_matrix("large with long rows", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_many_long_row_pieces)
{
    /* just enough long-row pieces (4096 beyond the first of each row) that the adaptive
     * plan finishes the long rows in a second kernel instead of by the last piece: 2048
     * runs of a row of 1025 entries (3 pieces of 512), a row of 300 (one piece, written
     * at once) and three short rows; CSR only (ELL would pad every row) */
    const int64_t runs = 2048, ncols = 50000;
    sp_coo_t *a = coo_new(5 * runs, ncols, runs * (1025 + 300 + 9));
    uint64_t s = 29;
    for (int64_t k = 0; k < runs; k++) {
        static const int lens[5] = {1025, 2, 300, 0, 7};
        for (int i = 0; i < 5; i++) {
            uint64_t start = sp_test_rand(&s) % (uint64_t)ncols;
            for (int j = 0; j < lens[i]; j++) /* distinct columns from a random start */
                coo_push(a, 5 * k + i, (int64_t)((start + (uint64_t)j) % (uint64_t)ncols),
                         2 * sp_test_uniform(&s) - 1);
        }
    }
    check_matrix("many long-row pieces", a, NULL, 1u << SP_FORMAT_CSR, WITH_CUSPARSE);
    { /* and the adaptive plan of this matrix does defer: all 4096 long rows */
        kernel_csr_t k;
        sp_gpu_spmv_plan_t plan = {0};
        kernel_csr_open(&k, a);
        ck_assert_ok(
            sp__gpu_spmv_csr_plan(&k.t.env, &k.d, SP_SPMV_ALG_CSR_ADAPTIVE, 0, -1, &plan));
        ck_assert_int_eq(plan.finish_rows, 2 * runs);
        sp__gpu_spmv_plan_free(&k.t.env, &plan);
        kernel_csr_close(&k);
    }
    sp_coo_free(a);
}
END_TEST

/* Issue 23: the plans of CSR scalar and vector cut the rows past the long-row bound into
 * pieces (512 entries below 2^22 entries) and keep the plan they had without such rows (no
 * table, no second launch); the products against the reference with every row of the
 * power-law matrix's tail in play: one row of half the columns and rows at the bound. */
START_TEST(test_fixed_width_long_rows)
{
    int64_t n = small ? 20000 : 200000, bound = 4 * 8 + 32, want = 0;
    sp_gen_shape_t g = {.kind = SP_GEN_POWERLAW, .nrows = n, .ncols = n, .mean = 8,
                        .exponent = 1.5, .seed = 11};
    sp_coo_t *a = NULL;
    kernel_csr_t k;
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    for (int64_t j = 0; j < n / 2; j++) /* a row of n / 2 entries */
        coo_push_grow(&a, 5, (j * 7) % n, 0.5);
    check_matrix("fixed width, long rows", a, NULL,
                 (1u << SP_FORMAT_CSR) | (1u << SP_FORMAT_CSC), WITH_CUSPARSE);
    kernel_csr_open(&k, a);
    for (int64_t r = 0; r < k.h.nrows; r++) {
        int64_t len = k.h.ptr[r + 1] - k.h.ptr[r];
        if (len > bound) want += (len + 511) / 512;
    }
    ck_assert_int_gt(want, 1);
    for (int i = 0; i < 2; i++) {
        sp_spmv_alg_t alg = i ? SP_SPMV_ALG_CSR_VECTOR : SP_SPMV_ALG_CSR_SCALAR;
        sp_gpu_spmv_plan_t plan = {0};
        ck_assert_ok(sp__gpu_spmv_csr_plan(&k.t.env, &k.d, alg, 8, bound, &plan));
        ck_assert_int_eq(plan.long_pieces, want);
        ck_assert_int_eq(plan.long_bound, bound);
        sp__gpu_spmv_plan_free(&k.t.env, &plan);
        ck_assert_ok(sp__gpu_spmv_csr_plan(&k.t.env, &k.d, alg, 8, -1, &plan));
        ck_assert_int_eq(plan.long_pieces, 0);
        ck_assert_ptr_null(plan.d_aux);
        ck_assert_ptr_null(plan.d_temp);
        sp__gpu_spmv_plan_free(&k.t.env, &plan);
    }
    kernel_csr_close(&k);
    sp_coo_free(a);
}
END_TEST

/* Issue 23: CSC over columns in long empty runs (3 million columns, 30000 entries: a
 * 32-entry step spans about 3000 columns, so the column search leaves the window), with
 * and without a dense row (the aggregated kernel). */
START_TEST(test_csc_sparse_columns)
{
    int64_t ncols = small ? 300000 : 3000000;
    sp_coo_t *a = sp_test_random_coo(31, 3000, ncols, 30000, SP_R_64F, SP_TEST_DUPLICATES);
    ck_assert_ptr_nonnull(a);
    check_matrix("sparse columns", a, NULL, (1u << SP_FORMAT_CSC) | (1u << SP_FORMAT_CSR), 0);
    for (int64_t k = 0; k < 5000; k++) /* row 7: 5000 entries, past the aggregation bound */
        coo_push_grow(&a, 7, (k * 599) % ncols, -0.25);
    check_matrix("sparse columns, a dense row", a, NULL,
                 (1u << SP_FORMAT_CSC) | (1u << SP_FORMAT_CSR), 0);
    sp_coo_free(a);
}
END_TEST

/* How sp_spmv(CSC) runs a, after its plan: sp__cuda_test_csc_route's answers. */
static void csc_route(const sp_coo_t *a, int *as_csr, int *heavy, int *variant)
{
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &A));
    ck_assert_ok(sp_matrix_build(g_gpu, A, SP_FORMAT_CSC));
    ck_assert_ok(sp_spmv_prepare(g_gpu, A, SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT));
    ck_assert_ok(sp__cuda_test_csc_route(A, as_csr, heavy, variant));
    sp_matrix_destroy(A);
}

/* csc_route of the shape g (double values). */
static void shape_route(sp_gen_shape_t g, int *as_csr, int *heavy)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    csc_route(a, as_csr, heavy, NULL);
    sp_coo_free(a);
}

/* y = A x by (f, alg) on the GPU (x[j] = 1 / (1 + j % 13), y filled with 7 first, beta 0)
 * into host y. */
static void gpu_product(const sp_coo_t *a, sp_format_t f, sp_spmv_alg_t alg, double *y)
{
    sp_matrix_t *A = NULL;
    double *x = malloc((size_t)a->ncols * sizeof *x), *d_x = NULL, *d_y = NULL;
    ck_assert_ptr_nonnull(x);
    for (int64_t j = 0; j < a->ncols; j++) x[j] = 1.0 / (double)(1 + j % 13);
    for (int64_t i = 0; i < a->nrows; i++) y[i] = 7.0;
    d_x = dev_alloc((size_t)a->ncols * sizeof *x);
    d_y = dev_alloc((size_t)a->nrows * sizeof *y);
    ck_cuda(cudaMemcpy(d_x, x, (size_t)a->ncols * sizeof *x, cudaMemcpyHostToDevice));
    ck_cuda(cudaMemcpy(d_y, y, (size_t)a->nrows * sizeof *y, cudaMemcpyHostToDevice));
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &A));
    ck_assert_ok(sp_matrix_build(g_gpu, A, f));
    ck_assert_ok(sp_spmv_f64(g_gpu, f, alg, 1.0, A, d_x, 0.0, d_y));
    ck_assert_ok(sp_context_synchronize(g_gpu));
    ck_cuda(cudaMemcpy(y, d_y, (size_t)a->nrows * sizeof *y, cudaMemcpyDeviceToHost));
    sp_matrix_destroy(A);
    ck_cuda(cudaFree(d_x));
    ck_cuda(cudaFree(d_y));
    free(x);
}

/* Issue 23: each of the CSC kernel's four variants (the lanes of a row adding first, the
 * window of rows near the chunk's columns, both, neither) matches the reference whatever
 * the policy would pick (sp__cuda_test_csc_variant forces them): on a band and 3x3 blocks
 * (square, the window's case), a rectangle (the window forced where the policy never puts
 * it: its slots past the last row stay empty), a circuit with heavy rows (the window and
 * the heavy rows' sums together) and one with a long row below the heavy bound. */
START_TEST(test_csc_kernel_variants)
{
    int64_t n = small ? 20000 : 60000;
    const sp_gen_shape_t shapes[] = {
        {.kind = SP_GEN_BANDED, .nrows = n, .ncols = n, .band = 8, .seed = 2},
        {.kind = SP_GEN_BLOCKS, .nrows = n, .ncols = n, .block = 3, .mean = 6, .seed = 3},
        {.kind = SP_GEN_RECT, .nrows = n, .ncols = n / 7 + 3, .mean = 5, .seed = 4},
        {.kind = SP_GEN_CIRCUIT, .nrows = n, .ncols = n, .dense = 4, .seed = 5},
        {.kind = SP_GEN_DENSE_LINES, .nrows = 3000, .ncols = 3000, .mean = 200, .dense = 1,
         .seed = 6}};
    const char *names[] = {"band", "3x3 blocks", "rectangle", "circuit",
                           "a row of 3000 among rows of 200"};
    static const int variants[] = {0, SP_TEST_CSC_AGGREGATE, SP_TEST_CSC_WINDOW,
                                   SP_TEST_CSC_AGGREGATE | SP_TEST_CSC_WINDOW};
    const int all = SP_TEST_CSC_AGGREGATE | SP_TEST_CSC_WINDOW;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        sp_coo_t *a = NULL;
        ck_assert_ok(sp_gen_shape(&shapes[i], SP_R_64F, &a));
        for (size_t v = 0; v < 4; v++) {
            int as_csr = -1, heavy = -1, variant = -1;
            char name[96];
            if (i == 4 && v == 0) { /* the policy's own pick there: the lanes add first */
                csc_route(a, &as_csr, &heavy, &variant);
                ck_assert_int_eq(variant, SP_TEST_CSC_AGGREGATE);
            }
            sp__cuda_test_csc_variant(variants[v], all & ~variants[v]);
            csc_route(a, &as_csr, &heavy, &variant);
            ck_assert_int_eq(as_csr, 0);
            ck_assert_int_eq(variant, variants[v]);
            if (i == 3) ck_assert_int_gt(heavy, 0); /* the circuit's dense rows */
            if (i == 4) ck_assert_int_eq(heavy, 0); /* 3000 entries: below 16x the mean (3200) */
            snprintf(name, sizeof name, "%s, CSC variant %d", names[i], variants[v]);
            check_matrix(name, a, NULL, 1u << SP_FORMAT_CSC, 0);
        }
        sp__cuda_test_csc_variant(0, 0);
        sp_coo_free(a);
    }
}
END_TEST

/* Issue 23: a CSC equal to its transpose runs as its CSR: the same bits every call, those
 * of a CSR algorithm; one value or one entry away from it the CSC kernel runs (and matches the
 * reference); rectangles are not checked. The longest rows of matrices with dense rows are
 * summed in shared memory: as many as the dense rows, at most 64 of a power law's. */
START_TEST(test_csc_routes)
{
    int64_t n = small ? 20000 : 100000;
    int as_csr = -1, heavy = -1;
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(small ? 12 : 30, SP_R_64F, &a));
    csc_route(a, &as_csr, &heavy, NULL);
    ck_assert_int_eq(as_csr, 1);
    ck_assert_int_eq(heavy, 0);
    { /* the bits of a CSR algorithm (the cost model's), the same on a second call */
        static const sp_spmv_alg_t algs[] = {
            SP_SPMV_ALG_CSR_SCALAR, SP_SPMV_ALG_CSR_VECTOR, SP_SPMV_ALG_CSR_MERGE,
            SP_SPMV_ALG_CSR_SPLIT,  SP_SPMV_ALG_CSR_BINNED, SP_SPMV_ALG_CSR_ADAPTIVE};
        size_t bytes = (size_t)a->nrows * sizeof(double);
        double *y_csc = malloc(bytes), *y_again = malloc(bytes), *y_csr = malloc(bytes);
        int same = 0;
        ck_assert_ptr_nonnull(y_csc);
        ck_assert_ptr_nonnull(y_again);
        ck_assert_ptr_nonnull(y_csr);
        gpu_product(a, SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT, y_csc);
        gpu_product(a, SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT, y_again);
        ck_assert_msg(memcmp(y_csc, y_again, bytes) == 0, "symmetric CSC: two calls differ");
        for (size_t k = 0; k < sizeof algs / sizeof algs[0] && !same; k++) {
            gpu_product(a, SP_FORMAT_CSR, algs[k], y_csr);
            same = memcmp(y_csc, y_csr, bytes) == 0;
        }
        ck_assert_msg(same, "symmetric CSC: the bits of no CSR algorithm");
        free(y_csc);
        free(y_again);
        free(y_csr);
    }
    for (int64_t k = 0; k < a->nnz; k++) /* the first entry off the diagonal, changed */
        if (a->row[k] != a->col[k]) {
            ((double *)a->val)[k] *= 1.0 + 0x1p-40;
            break;
        }
    csc_route(a, &as_csr, &heavy, NULL);
    ck_assert_int_eq(as_csr, 0);
    check_matrix("poisson, one value off symmetry", a, NULL, 1u << SP_FORMAT_CSC, 0);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d(small ? 12 : 30, SP_R_64F, &a));
    coo_push_grow(&a, 0, a->ncols - 1, 2.0); /* (0, n-1) without (n-1, 0) */
    a->flags = 0;                             /* no longer sorted, nor symmetric */
    csc_route(a, &as_csr, &heavy, NULL);
    ck_assert_int_eq(as_csr, 0);
    check_matrix("poisson, one entry off symmetry", a, NULL, 1u << SP_FORMAT_CSC, 0);
    sp_coo_free(a);

    shape_route((sp_gen_shape_t){.kind = SP_GEN_DENSE_LINES, .nrows = n, .ncols = n,
                                 .mean = 6, .dense = 3, .seed = 4},
                &as_csr, &heavy);
    ck_assert_int_eq(as_csr, 0);
    ck_assert_int_eq(heavy, 3);
    shape_route((sp_gen_shape_t){.kind = SP_GEN_CIRCUIT, .nrows = n, .ncols = n, .dense = 8,
                                 .seed = 5},
                &as_csr, &heavy);
    ck_assert_int_eq(heavy, 8);
    shape_route((sp_gen_shape_t){.kind = SP_GEN_POWERLAW, .nrows = n, .ncols = n, .mean = 12,
                                 .exponent = 1.5, .seed = 3},
                &as_csr, &heavy);
    ck_assert_int_gt(heavy, 0);
    ck_assert_int_le(heavy, 64);
    shape_route((sp_gen_shape_t){.kind = SP_GEN_RECT, .nrows = n, .ncols = n / 4, .mean = 8,
                                 .seed = 6},
                &as_csr, &heavy);
    ck_assert_int_eq(as_csr, 0);
    ck_assert_int_eq(heavy, 0);
}
END_TEST

START_TEST(test_beyond_a_grid_wave)
{
    int64_t nnz = small ? 300000 : 5000000;
    check_random("5M entries", 21, nnz / 12, nnz / 12, nnz, 0, WITH_CUSPARSE);
}
END_TEST

START_TEST(test_generated)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(small ? 16 : 40, SP_R_64F, &a));
    check_matrix("poisson3d", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d27(small ? 10 : 20, SP_R_64F, &a));
    check_matrix("poisson3d27", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_kronecker(small ? 12 : 16, 16, 1, SP_R_64F, &a));
    ck_assert_ok(sp_coo_symmetrize(a, 0));
    check_matrix("kronecker symmetrized", a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    sp_coo_free(a);
}
END_TEST

static int check_dataset(const char *name, sp_coo_t *a, void *arg)
{
    (void)arg;
    check_matrix(name, a, NULL, ALL_FORMATS, WITH_CUSPARSE);
    return 1;
}

START_TEST(test_datasets)
{
    int count = sp_test_each_dataset(small ? 4 : -1, check_dataset, NULL);
    ck_assert_int_ge(count, small ? 4 : 10);
}
END_TEST

START_TEST(test_sell_and_hyb_options)
{
    static const int sell[][2] = {{32, 1024}, {4, 8}, {1, 1}, {8, 64}};
    static const int64_t hyb_width[] = {1, 3};
    char name[96];
    sp_coo_t *m[2] = {NULL, NULL};
    const char *names[2] = {"long row, empty rows", "kronecker symmetrized"};
    m[0] = sp_test_random_coo(31, 3000, 2500, 30000, SP_R_64F,
                              SP_TEST_LONG_ROW | SP_TEST_EMPTY_ROWS | SP_TEST_DUPLICATES);
    ck_assert_ptr_nonnull(m[0]);
    ck_assert_ok(sp_gen_kronecker(small ? 9 : 12, 8, 2, SP_R_64F, &m[1]));
    ck_assert_ok(sp_coo_symmetrize(m[1], 1));
    for (int i = 0; i < 2; i++) {
        for (size_t k = 0; k < 4; k++) {
            sp_matrix_options_t o = {0};
            o.sell_c = sell[k][0];
            o.sell_sigma = sell[k][1];
            snprintf(name, sizeof name, "%s, SELL C=%d sigma=%d", names[i], o.sell_c,
                     o.sell_sigma);
            check_matrix(name, m[i], &o, (1u << SP_FORMAT_SELL), WITH_CUSPARSE);
        }
        for (size_t k = 0; k < 2; k++) {
            sp_matrix_options_t o = {0};
            o.hyb_ell_width = hyb_width[k];
            snprintf(name, sizeof name, "%s, HYB width %lld", names[i],
                     (long long)o.hyb_ell_width);
            check_matrix(name, m[i], &o, (1u << SP_FORMAT_HYB), 0);
        }
        sp_coo_free(m[i]);
    }
}
END_TEST

/* A refused call returns the status, names sp_spmv, records it on the context, and
 * leaves y as it was. */
static void assert_refused(sp_status_t st, const char *text, const void *d_y,
                           const double *h_y0, size_t n)
{
    double h_y[16];
    ck_assert_msg(st == SP_STATUS_INVALID_ARGUMENT,
                  "returned %s, expected INVALID_ARGUMENT: %s", sp_status_string(st),
                  sp_last_error());
    ck_assert_error_has("sp_spmv");
    ck_assert_error_has(text);
    ck_assert_str_eq(sp_context_last_error(g_gpu), sp_last_error());
    ck_cuda(cudaMemcpy(h_y, d_y, n * sizeof *h_y, cudaMemcpyDeviceToHost));
    ck_assert_mem_eq(h_y, h_y0, n * sizeof *h_y);
}

START_TEST(test_refusals)
{
    sp_coo_t *a = NULL, *p = NULL, *z = NULL;
    sp_matrix_t *A = NULL, *P = NULL, *Hm = NULL, *Z = NULL;
    double alpha = 1.5, beta = 0.5, h_y0[16], h_x[16];
    ck_assert_ok(sp_gen_poisson2d(4, SP_R_64F, &a)); /* 16 x 16 */
    for (int i = 0; i < 16; i++)
        h_y0[i] = h_x[i] = i + 0.25;
    double *d_x = dev_upload(h_x, sizeof h_x), *d_y = dev_upload(h_y0, sizeof h_y0);
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &A));

    /* a pattern matrix has no values to multiply */
    ck_assert_ok(sp_coo_copy(a, SP_VALUE_NONE, &p));
    ck_assert_ok(sp_matrix_create(g_gpu, p, NULL, &P));
    assert_refused(
        sp_spmv(g_gpu, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &alpha, P, d_x, &beta, d_y),
        "pattern", d_y, h_y0, 16);

    /* algorithms of another format */
    static const sp_test_spmv_combo_t misfits[] = {
        {SP_FORMAT_CSR, SP_SPMV_ALG_COO_ATOMIC},  {SP_FORMAT_CSR, SP_SPMV_ALG_COO_SEGMENTED},
        {SP_FORMAT_COO, SP_SPMV_ALG_CSR_MERGE},   {SP_FORMAT_ELL, SP_SPMV_ALG_CSR_VECTOR},
        {SP_FORMAT_SELL, SP_SPMV_ALG_CSR_SCALAR}, {SP_FORMAT_HYB, SP_SPMV_ALG_COO_ATOMIC},
    };
    for (size_t k = 0; k < sizeof misfits / sizeof misfits[0]; k++)
        assert_refused(
            sp_spmv(g_gpu, misfits[k].format, misfits[k].alg, &alpha, A, d_x, &beta, d_y),
            "algorithm", d_y, h_y0, 16);

    /* missing vectors and scalars, a matrix of another context */
    assert_refused(
        sp_spmv(g_gpu, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &alpha, A, NULL, &beta, d_y), "NULL",
        d_y, h_y0, 16);
    assert_refused(sp_spmv(g_gpu, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, NULL, A, d_x, &beta, d_y),
                   "NULL", d_y, h_y0, 16);
    ck_assert_ok(sp_matrix_create(g_host, a, NULL, &Hm));
    assert_refused(
        sp_spmv(g_gpu, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &alpha, Hm, d_x, &beta, d_y),
        "context", d_y, h_y0, 16);

    /* no columns: x may be NULL, y = beta y */
    ck_assert_ok(sp_coo_create(16, 0, 0, SP_R_64F, &z));
    ck_assert_ok(sp_matrix_create(g_gpu, z, NULL, &Z));
    ck_assert_ok(
        sp_spmv(g_gpu, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &alpha, Z, NULL, &beta, d_y));
    ck_assert_ok(sp_context_synchronize(g_gpu));
    double h_y[16];
    ck_cuda(cudaMemcpy(h_y, d_y, sizeof h_y, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; i++)
        ck_assert_double_eq(h_y[i], 0.5 * h_y0[i]);

    sp_matrix_destroy(Z);
    sp_matrix_destroy(Hm);
    sp_matrix_destroy(P);
    sp_matrix_destroy(A);
    cudaFree(d_y);
    cudaFree(d_x);
    sp_coo_free(z);
    sp_coo_free(p);
    sp_coo_free(a);
}
END_TEST
/* ---- the shapes of sp_gen_shape (issue 23): every format against the reference ---------- */

/* Matrix name of sp_gen_shape g, every format and algorithm in float and double; with
 * `tails`, the long-row tails of ELL, JDS and SELL are checked to exist. */
static void check_shape(const char *name, sp_gen_shape_t g, int tails)
{
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    check_matrix(name, a, NULL, ALL_FORMATS, 0);
    if (tails) {
        ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &A));
        ck_assert_ok(sp_matrix_build(g_gpu, A, SP_FORMAT_ELL));
        ck_assert_ok(sp_matrix_build(g_gpu, A, SP_FORMAT_JDS));
        ck_assert_ok(sp_matrix_build(g_gpu, A, SP_FORMAT_SELL));
        ck_assert_ok(sp_matrix_info(A, &info));
        ck_assert_msg(info.ell_tail_nnz > 0 && info.jds_tail_nnz > 0 && info.sell_tail_nnz > 0,
                      "%s: tails ell %lld jds %lld sell %lld", name,
                      (long long)info.ell_tail_nnz, (long long)info.jds_tail_nnz,
                      (long long)info.sell_tail_nnz);
        ck_assert_int_le(info.ell_width, info.ell_long_row_bound);
        sp_matrix_destroy(A);
    }
    sp_coo_free(a);
}

START_TEST(test_shapes_long_rows)
{
    int64_t n = small ? 20000 : 100000;
    sp_gen_shape_t g = {.kind = SP_GEN_POWERLAW, .nrows = n, .ncols = n, .seed = 3};
    static const double exponents[] = {1.5, 2.1, 3.0};
    for (int i = 0; i < 3; i++) {
        char name[64];
        g.exponent = exponents[i];
        g.mean = 12;
        snprintf(name, sizeof name, "powerlaw %.1f", exponents[i]);
        check_shape(name, g, i < 2);
    }
    g = (sp_gen_shape_t){.kind = SP_GEN_DENSE_LINES, .nrows = n, .ncols = n, .mean = 6,
                         .dense = 3, .seed = 4};
    check_shape("dense rows and columns", g, 1);
    g = (sp_gen_shape_t){.kind = SP_GEN_CIRCUIT, .nrows = n, .ncols = n, .dense = 8, .seed = 5};
    check_shape("circuit", g, 1);
}
END_TEST

START_TEST(test_shapes_regular)
{
    int64_t n = small ? 20000 : 100000;
    sp_gen_shape_t g = {.kind = SP_GEN_RECT, .nrows = 4 * n, .ncols = n / 4, .mean = 8,
                        .seed = 6};
    check_shape("tall", g, 0);
    g.nrows = n / 8, g.ncols = 4 * n, g.mean = 40;
    check_shape("wide", g, 0);
    g = (sp_gen_shape_t){.kind = SP_GEN_BANDED, .nrows = n, .ncols = n, .band = 40, .seed = 7};
    check_shape("banded", g, 0);
    g = (sp_gen_shape_t){.kind = SP_GEN_BLOCKS, .nrows = n, .ncols = n, .block = 3, .mean = 9,
                         .seed = 8};
    check_shape("blocks 3x3", g, 0);
    g.block = 6;
    check_shape("blocks 6x6", g, 0);
}
END_TEST

/* sp_spmv_tune on the GPU: times the candidates, caches one, and AUTO then takes it (and
 * the host's tune the cost model's pick); the tuned product matches the host reference. */
START_TEST(test_tune)
{
    sp_gen_shape_t g = {.kind = SP_GEN_POWERLAW, .nrows = 50000, .ncols = 50000, .mean = 10,
                        .exponent = 2.1, .seed = 9};
    const double alpha = 1.5, beta = 0.0;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL, *H = NULL;
    sp_format_t f = SP_FORMAT_AUTO, chosen = SP_FORMAT_AUTO;
    sp_spmv_alg_t alg = SP_SPMV_ALG_DEFAULT;
    double *x = malloc(50000 * sizeof *x), *y = malloc(50000 * sizeof *y);
    double *want = malloc(50000 * sizeof *want), *d_x = NULL, *d_y = NULL;
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_ptr_nonnull(want);
    for (int i = 0; i < 50000; i++) x[i] = 1.0 / (1 + i % 97);
    ck_assert_ok(sp_gen_shape(&g, SP_R_64F, &a));
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &A));
    ck_assert_ok(sp_matrix_create(g_host, a, NULL, &H));
    ck_assert_ok(sp_spmv_tune(g_gpu, A, &f, &alg));
    ck_assert_int_ne(f, SP_FORMAT_AUTO);
    ck_assert_ok(sp_spmv_choose_format(g_gpu, A, &chosen));
    ck_assert_int_eq(chosen, f);
    ck_assert_ok(sp_spmv_tune(g_host, H, &chosen, NULL));
    ck_assert_ok(sp_spmv_f64(g_host, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, alpha, H, x, beta, want));
    ck_cuda(cudaMalloc((void **)&d_x, 50000 * sizeof *d_x));
    ck_cuda(cudaMalloc((void **)&d_y, 50000 * sizeof *d_y));
    ck_cuda(cudaMemcpy(d_x, x, 50000 * sizeof *x, cudaMemcpyHostToDevice));
    ck_assert_ok(sp_spmv_f64(g_gpu, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT, alpha, A, d_x, beta, d_y));
    ck_assert_ok(sp_context_synchronize(g_gpu));
    ck_cuda(cudaMemcpy(y, d_y, 50000 * sizeof *y, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 50000; i++)
        ck_assert_msg(fabs(y[i] - want[i]) <= 1e-12 * (1 + fabs(want[i])) * 1e3,
                      "tuned %s: row %d got %.17g, expected %.17g", sp_format_name(f), i, y[i],
                      want[i]);
    cudaFree(d_y);
    cudaFree(d_x);
    sp_matrix_destroy(H);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    free(want);
    free(y);
    free(x);
}
END_TEST
#endif /* SP_HAVE_CUDA */

static Suite *gpu_spmv_suite(void)
{
    Suite *s = suite_create("gpu_spmv");
#ifdef SP_HAVE_CUDA
    /* two cases of about equal time, which ctest runs side by side (tests/CMakeLists.txt,
     * SP_TEST_CASES_check_gpu_spmv: keep the names in step) */
    TCase *shapes = sp_test_add_case(s, "shapes", setup, teardown);
    TCase *large = sp_test_add_case(s, "large", setup, teardown);
    TCase *wide = sp_test_add_case(s, "wide", setup, teardown);
    tcase_add_test(shapes, test_tiny);
    tcase_add_test(shapes, test_empty_shapes);
    tcase_add_test(shapes, test_one_by_one);
    tcase_add_test(shapes, test_random_catalogue);
    tcase_add_test(shapes, test_all_one_entry);
    tcase_add_test(shapes, test_row_longer_than_block);
    tcase_add_test(shapes, test_row_of_length_n);
    tcase_add_test(shapes, test_row_length_boundaries);
    tcase_add_test(large, test_large_with_long_rows);
    tcase_add_test(large, test_many_long_row_pieces);
    tcase_add_test(shapes, test_fixed_width_long_rows);
    tcase_add_test(shapes, test_csc_sparse_columns);
    tcase_add_test(shapes, test_csc_routes);
    tcase_add_test(shapes, test_csc_kernel_variants);
    tcase_add_test(shapes, test_beyond_a_grid_wave);
    tcase_add_test(large, test_generated);
    tcase_add_test(shapes, test_datasets);
    tcase_add_test(shapes, test_sell_and_hyb_options);
    tcase_add_test(shapes, test_refusals);
    tcase_add_test(wide, test_shapes_long_rows);
    tcase_add_test(wide, test_shapes_regular);
    tcase_add_test(wide, test_tune);
#endif
    return s;
}

int main(void)
{
    return sp_test_run_gpu(gpu_spmv_suite());
}
