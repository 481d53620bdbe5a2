/* GPU conversions (kernels/convert/) against their CPU twins in src/ref/, bit for bit:
 * sort-merge, CSR, CSC (by sort; by scatter in the transpose_scatter case), ELL, HYB (forced widths and the rule), JDS
 * and SELL (several C and sigma) on tiny hand-checked inputs, columns of every length class
 * of the scatter transpose, random COOs, the bundled datasets and a catalogue
 * of edge cases; refused arguments; every allocation failing in turn without a leak.
 * SP_TEST_SMALL=1 shrinks the sizes (for compute-sanitizer). Exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "testutil_ref.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "sp_base.h"
#include "sp_kernels.h"
#include "sp_ref.h"
#include "testutil_gpu.h"

/* cudaMalloc/cudaFree through T.env, counting live blocks, failing on demand */
static sp_test_env_t T;
static int small; /* SP_TEST_SMALL */
static int g_scatter; /* also the scatter transpose (the transpose_scatter case) */

static void setup(void)
{
    g_scatter = 0;
    small = sp_test_small();
    sp_test_env_setup(&T);
}

static void teardown(void)
{
    sp_test_env_teardown(&T);
}

/* ---- moving and comparing arrays ------------------------------------------------- */

/* Download bytes from d and compare with want bit for bit, naming the first difference. */
static void assert_same(const void *d, const void *want, int64_t n, size_t size, const char *what)
{
    size_t bytes = (size_t)n * size;
    if (bytes == 0) return;
    ck_assert_msg(d != NULL, "%s: NULL device array for %lld elements", what, (long long)n);
    unsigned char *got = malloc(bytes);
    ck_assert_ptr_nonnull(got);
    ck_cuda(cudaStreamSynchronize(T.stream));
    ck_cuda(cudaMemcpy(got, d, bytes, cudaMemcpyDeviceToHost));
    if (memcmp(got, want, bytes) != 0) {
        int64_t i = 0;
        while (memcmp(got + (size_t)i * size, (const char *)want + (size_t)i * size, size) == 0) i++;
        long long g = 0, w = 0;
        memcpy(&g, got + (size_t)i * size, size < 8 ? size : 8);
        memcpy(&w, (const char *)want + (size_t)i * size, size < 8 ? size : 8);
        free(got);
        ck_abort_msg("%s: element %lld of %lld differs (bits 0x%llx, expected 0x%llx)", what,
                     (long long)i, (long long)n, g, w);
    }
    free(got);
}

static void assert_same_values(const void *d, const void *want, int64_t n, sp_value_type_t t,
                               const char *what)
{
    size_t vs = sp_value_size(t);
    if (vs == 0) {
        ck_assert_msg(d == NULL, "%s: values present for a pattern", what);
        return;
    }
    assert_same(d, want, n, vs, what);
}

/* Device triplets holding a copy of a host COO, allocated through the test env. */
static sp_triplets_t upload_coo(const sp_coo_t *a)
{
    sp_triplets_t t = {a->nrows, a->ncols, a->nnz, a->value_type, NULL, NULL, NULL, 0};
    t.row = sp_test_env_upload(&T, a->row, (size_t)a->nnz * 4);
    t.col = sp_test_env_upload(&T, a->col, (size_t)a->nnz * 4);
    t.val = sp_test_env_upload(&T, a->val, (size_t)a->nnz * sp_value_size(a->value_type));
    return t;
}

static void compare_csr(const sp_csr_t *d, const sp_csr_t *h, int64_t npointers, const char *what)
{
    ck_assert_msg(d->nrows == h->nrows && d->ncols == h->ncols && d->nnz == h->nnz,
                  "%s: %lld x %lld nnz %lld, expected %lld x %lld nnz %lld", what,
                  (long long)d->nrows, (long long)d->ncols, (long long)d->nnz,
                  (long long)h->nrows, (long long)h->ncols, (long long)h->nnz);
    ck_assert_int_eq(d->value_type, h->value_type);
    assert_same(d->ptr, h->ptr, npointers + 1, 4, what);
    assert_same(d->idx, h->idx, h->nnz, 4, what);
    assert_same_values(d->val, h->val, h->nnz, h->value_type, what);
}

static void compare_ell(const sp_ell_t *d, const sp_ell_t *h, const char *what)
{
    ck_assert_msg(d->nrows == h->nrows && d->ncols == h->ncols && d->nnz == h->nnz &&
                      d->width == h->width,
                  "%s: nnz %lld width %lld, expected nnz %lld width %lld", what,
                  (long long)d->nnz, (long long)d->width, (long long)h->nnz,
                  (long long)h->width);
    assert_same(d->col, h->col, h->nrows * h->width, 4, what);
    assert_same_values(d->val, h->val, h->nrows * h->width, h->value_type, what);
    /* the value table (sp_formats.h): the same entries and codes, byte for byte */
    ck_assert_msg(d->ntable == h->ntable, "%s: value table of %d entries, expected %d", what,
                  (int)d->ntable, (int)h->ntable);
    if (h->ntable > 0) {
        assert_same(d->table, h->table, h->ntable, sp_value_size(h->value_type), what);
        assert_same(d->code, h->code, h->nrows * h->width, 1, what);
    }
}

static void compare_triplets(const sp_triplets_t *d, const sp_triplets_t *h, const char *what)
{
    ck_assert_msg(d->nrows == h->nrows && d->ncols == h->ncols && d->nnz == h->nnz,
                  "%s: nnz %lld, expected %lld", what, (long long)d->nnz, (long long)h->nnz);
    assert_same(d->row, h->row, h->nnz, 4, what);
    assert_same(d->col, h->col, h->nnz, 4, what);
    assert_same_values(d->val, h->val, h->nnz, h->value_type, what);
}

/* ---- the whole chain against the reference ----------------------------------------- */

static const int sell_params[][2] = {{32, 1024}, {32, 32}, {4, 8}, {1, 1}, {8, 64}};
static const int64_t hyb_widths[] = {-1, 0, 1, 3};

static void check_ell_hyb(const sp_csr_t *d_csr, const sp_csr_t *h_csr)
{
    int64_t longest = 0;
    for (int64_t r = 0; r < h_csr->nrows; r++)
        if (h_csr->ptr[r + 1] - h_csr->ptr[r] > longest) longest = h_csr->ptr[r + 1] - h_csr->ptr[r];
    if (h_csr->nrows * longest <= ((int64_t)1 << 26)) { /* ELL of a very long row: too big */
        sp_ell_t want = {0}, got = {0};
        ck_assert_ok(sp__ref_csr_to_ell(h_csr, &want));
        ck_assert_ok(sp__gpu_csr_to_ell(&T.env, d_csr, &got));
        compare_ell(&got, &want, "ell");
        sp__gpu_ell_free(&T.env, &got);
        sp__ell_free(&want);
    }
    for (size_t i = 0; i < sizeof hyb_widths / sizeof hyb_widths[0]; i++) {
        sp_hyb_t want = {{0}, {0}}, got = {{0}, {0}};
        ck_assert_ok(sp__ref_csr_to_hyb(h_csr, hyb_widths[i], &want));
        ck_assert_ok(sp__gpu_csr_to_hyb(&T.env, d_csr, hyb_widths[i], &got));
        compare_ell(&got.ell, &want.ell, "hyb ell");
        compare_triplets(&got.coo, &want.coo, "hyb coo");
        sp__gpu_hyb_free(&T.env, &got);
        sp__hyb_free(&want);
    }
}

static void check_jds_sell(const sp_csr_t *d_csr, const sp_csr_t *h_csr)
{
    sp_jds_t jw = {0}, jg = {0};
    ck_assert_ok(sp__ref_csr_to_jds(h_csr, &jw));
    ck_assert_ok(sp__gpu_csr_to_jds(&T.env, d_csr, &jg));
    ck_assert_int_eq(jg.njd, jw.njd);
    ck_assert_int_eq(jg.nnz, jw.nnz);
    assert_same(jg.perm, jw.perm, jw.nrows, 4, "jds perm");
    assert_same(jg.jd_ptr, jw.jd_ptr, jw.njd + 1, 4, "jds jd_ptr");
    assert_same(jg.col, jw.col, jw.nnz, 4, "jds col");
    assert_same_values(jg.val, jw.val, jw.nnz, jw.value_type, "jds val");
    sp__gpu_jds_free(&T.env, &jg);
    sp__jds_free(&jw);
    for (size_t i = 0; i < sizeof sell_params / sizeof sell_params[0]; i++) {
        sp_sell_t w = {0}, g = {0};
        int c = sell_params[i][0], sigma = sell_params[i][1];
        ck_assert_ok(sp__ref_csr_to_sell(h_csr, c, sigma, &w));
        ck_assert_ok(sp__gpu_csr_to_sell(&T.env, d_csr, c, sigma, &g));
        ck_assert_msg(g.nslices == w.nslices && g.padded == w.padded && g.c == c &&
                          g.sigma == sigma && g.nnz == w.nnz,
                      "sell C %d sigma %d: %lld slices %lld padded, expected %lld %lld", c, sigma,
                      (long long)g.nslices, (long long)g.padded, (long long)w.nslices,
                      (long long)w.padded);
        assert_same(g.perm, w.perm, w.nrows, 4, "sell perm");
        assert_same(g.slice_ptr, w.slice_ptr, w.nslices + 1, 4, "sell slice_ptr");
        assert_same(g.slice_width, w.slice_width, w.nslices, 4, "sell slice_width");
        assert_same(g.col, w.col, w.padded, 4, "sell col");
        assert_same_values(g.val, w.val, w.padded, w.value_type, "sell val");
        sp__gpu_sell_free(&T.env, &g);
        sp__sell_free(&w);
    }
}

/* The long-row split (the tail of ELL, JDS, SELL) at bounds from 0 (every non-empty row in
 * the tail) to past the longest row (no tail), kept CSR and tail compared bit for bit. */
static void check_split(const sp_csr_t *d_csr, const sp_csr_t *h_csr)
{
    int64_t mean = h_csr->nrows > 0 ? h_csr->nnz / h_csr->nrows : 0;
    const int64_t bounds[] = {0, 1, 4 * mean + 32, (int64_t)1 << 40};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        sp_csr_t hk = {0}, dk = {0};
        sp_triplets_t ht = {0}, dt = {0};
        ck_assert_ok(sp__ref_csr_split_long(h_csr, bounds[i], &hk, &ht));
        ck_assert_ok(sp__gpu_csr_split_long(&T.env, d_csr, bounds[i], &dk, &dt));
        ck_assert_int_eq(hk.nnz + ht.nnz, h_csr->nnz);
        compare_csr(&dk, &hk, hk.nrows, "split kept");
        compare_triplets(&dt, &ht, "split tail");
        sp__gpu_csr_free(&T.env, &dk);
        sp__gpu_triplets_free(&T.env, &dt);
        sp__csr_free(&hk);
        sp__triplets_free(&ht);
    }
}

/* Sort-merge a copy of a on both sides, then every conversion, all compared bit for bit. */
static void check_chain(const sp_coo_t *a, sp_dup_policy_t policy)
{
    sp_coo_t *ref = NULL;
    sp_csr_t h_csr = {0}, h_csc = {0}, d_csr = {0}, d_csc = {0};
    int64_t want_merged = -1, got_merged = -2;
    ck_assert_ok(sp_coo_copy(a, a->value_type, &ref));
    ck_assert_ok(sp_coo_sort_merge(ref, policy, &want_merged));
    sp_triplets_t d = upload_coo(a);
    ck_assert_ok(sp__gpu_coo_sort_merge(&T.env, &d, policy, &got_merged));
    ck_assert_int_eq(got_merged, want_merged);
    sp_triplets_t want = {ref->nrows, ref->ncols, ref->nnz, ref->value_type, ref->row, ref->col,
                          ref->val, 0};
    compare_triplets(&d, &want, "sort merge");

    ck_assert_ok(sp_test_coo_to_csr(ref, &h_csr));
    ck_assert_ok(sp__gpu_coo_to_csr(&T.env, &d, &d_csr));
    compare_csr(&d_csr, &h_csr, h_csr.nrows, "csr");
    sp__gpu_triplets_free(&T.env, &d);
    sp_coo_free(ref);

    ck_assert_ok(sp__ref_csr_to_csc(&h_csr, &h_csc));
    ck_assert_ok(sp__gpu_csr_to_csc(&T.env, &d_csr, &d_csc));
    compare_csr(&d_csc, &h_csc, h_csc.ncols, "csc");
    sp__gpu_csr_free(&T.env, &d_csc);
    if (g_scatter) {
        int scattered = -1;
        ck_assert_ok(sp__gpu_csr_to_csc_scatter(&T.env, &d_csr, &d_csc, &scattered));
        ck_assert_int_eq(scattered, 1);
        compare_csr(&d_csc, &h_csc, h_csc.ncols, "csc by scatter");
        sp__gpu_csr_free(&T.env, &d_csc);
    }
    sp__csr_free(&h_csc);

    check_ell_hyb(&d_csr, &h_csr);
    check_jds_sell(&d_csr, &h_csr);
    check_split(&d_csr, &h_csr);
    sp__gpu_csr_free(&T.env, &d_csr);
    sp__csr_free(&h_csr);
    ck_assert_int_eq(T.live, 0);
}

/* check_chain for the value types float, double and pattern, both duplicate policies. */
static void check_all_types(const sp_coo_t *a)
{
    const sp_value_type_t types[] = {SP_R_32F, SP_R_64F, SP_VALUE_NONE};
    for (size_t i = 0; i < 3; i++) {
        sp_coo_t *b = NULL;
        ck_assert_ok(sp_coo_copy(a, types[i], &b));
        check_chain(b, SP_DUP_SUM);
        if (types[i] != SP_VALUE_NONE) check_chain(b, SP_DUP_KEEP);
        sp_coo_free(b);
    }
}

static sp_coo_t *coo_of(int64_t nrows, int64_t ncols, int64_t nnz, const int32_t *row,
                        const int32_t *col, const double *val)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(nrows, ncols, nnz, SP_R_64F, &a));
    for (int64_t k = 0; k < nnz; k++) {
        a->row[k] = row[k];
        a->col[k] = col[k];
        ((double *)a->val)[k] = val[k];
    }
    a->nnz = nnz;
    return a;
}

/* ---- tiny, hand-checked ------------------------------------------------------------- */

START_TEST(test_tiny)
{
    /* 3 x 4, unsorted, (1, 2) twice; row 2 empty */
    const int32_t row[] = {1, 0, 1, 0};
    const int32_t col[] = {2, 1, 2, 0};
    const double val[] = {1.0, 2.0, 0.5, 3.0};
    sp_coo_t *a = coo_of(3, 4, 4, row, col, val);
    sp_triplets_t d = upload_coo(a);
    sp_csr_t csr = {0}, csc = {0};
    int64_t merged = 0;
    ck_assert_ok(sp__gpu_coo_sort_merge(&T.env, &d, SP_DUP_SUM, &merged));
    ck_assert_int_eq(merged, 1);
    ck_assert_int_eq(d.nnz, 3);
    ck_assert_ok(sp__gpu_coo_to_csr(&T.env, &d, &csr));
    const int32_t ptr[] = {0, 2, 3, 3}, idx[] = {0, 1, 2};
    const double v[] = {3.0, 2.0, 1.5};
    assert_same(csr.ptr, ptr, 4, 4, "tiny ptr");
    assert_same(csr.idx, idx, 3, 4, "tiny idx");
    assert_same(csr.val, v, 3, 8, "tiny val");
    ck_assert_ok(sp__gpu_csr_to_csc(&T.env, &csr, &csc));
    const int32_t cptr[] = {0, 1, 2, 3, 3}, cidx[] = {0, 0, 1};
    assert_same(csc.ptr, cptr, 5, 4, "tiny csc ptr");
    assert_same(csc.idx, cidx, 3, 4, "tiny csc idx");
    sp_ell_t ell = {0};
    ck_assert_ok(sp__gpu_csr_to_ell(&T.env, &csr, &ell));
    ck_assert_int_eq(ell.width, 2);
    ck_assert_int_eq(ell.nnz, 3);
    const int32_t ecol[] = {0, 2, -1, 1, -1, -1}; /* column-major [k * 3 + r] */
    assert_same(ell.col, ecol, 6, 4, "tiny ell col");
    sp_jds_t jds = {0};
    ck_assert_ok(sp__gpu_csr_to_jds(&T.env, &csr, &jds));
    const int32_t perm[] = {0, 1, 2}, jd_ptr[] = {0, 2, 3}, jcol[] = {0, 2, 1};
    assert_same(jds.perm, perm, 3, 4, "tiny jds perm");
    assert_same(jds.jd_ptr, jd_ptr, 3, 4, "tiny jds jd_ptr");
    assert_same(jds.col, jcol, 3, 4, "tiny jds col");
    sp__gpu_jds_free(&T.env, &jds);
    sp__gpu_ell_free(&T.env, &ell);
    sp__gpu_csr_free(&T.env, &csc);
    sp__gpu_csr_free(&T.env, &csr);
    sp__gpu_triplets_free(&T.env, &d);
    /* KEEP keeps the first in input order: 1.0 */
    d = upload_coo(a);
    ck_assert_ok(sp__gpu_coo_sort_merge(&T.env, &d, SP_DUP_KEEP, NULL));
    const double kv[] = {3.0, 2.0, 1.0};
    assert_same(d.val, kv, 3, 8, "tiny keep");
    sp__gpu_triplets_free(&T.env, &d);
    check_all_types(a);
    sp_coo_free(a);
}
END_TEST

/* ---- ELL's value table ------------------------------------------------------------ */

/* Matrices of few distinct values through the whole chain (compare_ell holds the device's
 * table and codes to the reference's): a stencil; 256 and 257 patterns spread over the
 * entries or by row blocks (so that only the merge of the blocks' sets sees all of them);
 * 0.0 and -0.0 (kept apart by SP_DUP_KEEP's merge), NaN payloads and the all-ones pattern
 * (the device hash set's empty slot); long rows, for HYB's widths. */
START_TEST(test_value_table)
{
    uint64_t bits[257];
    static const uint64_t specials[6] = {0x0ull, 0x3ff0000000000000ull, 0x7ff8000000000001ull,
                                         0x7ff8000000000002ull, 0x8000000000000000ull,
                                         0xffffffffffffffffull};
    int64_t n = small ? 3000 : 200000;
    for (int i = 0; i < 257; i++) {
        double d = (1.0 + i / 512.0) * (i % 2 ? -1.0 : 1.0);
        memcpy(&bits[i], &d, 8);
    }
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(small ? 10 : 40, SP_R_64F, &a));
    check_all_types(a);
    sp_coo_free(a);
    for (int spread = 0; spread < 2; spread++)
        for (int nb = 256; nb <= 257; nb++) {
            a = sp_test_patterned_coo(n, 5, 0, bits, nb, spread, SP_R_64F);
            check_all_types(a);
            sp_coo_free(a);
        }
    a = sp_test_patterned_coo(n, 4, 0, specials, 6, 1, SP_R_64F);
    check_chain(a, SP_DUP_KEEP);
    sp_coo_free(a);
    a = sp_test_patterned_coo(small ? 2000 : 20000, 4, 600, bits, 3, 1, SP_R_64F);
    check_all_types(a);
    sp_coo_free(a);
}
END_TEST

/* ---- random inputs -------------------------------------------------------------------- */

START_TEST(test_random)
{
    const struct {
        int64_t nrows, ncols, nnz;
        unsigned features;
    } cases[] = {
        {1, 1, 1, 0},
        {1, 1, 50, SP_TEST_DUPLICATES},
        {10, 7, 40, SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS},
        {100, 3000, 2000, SP_TEST_EMPTY_COLS},
        {3000, 100, 20000, SP_TEST_DUPLICATES | SP_TEST_LONG_ROW},
        {1001, 1001, 30000, SP_TEST_EMPTY_ROWS | SP_TEST_DUPLICATES},
        {20011, 5003, 300000, SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS | SP_TEST_LONG_ROW},
        {65537, 65536, 400000, SP_TEST_DUPLICATES}, /* row and column bits beyond 32 */
    };
    size_t ncases = sizeof cases / sizeof cases[0];
    if (small) ncases = 6;
    for (size_t i = 0; i < ncases; i++) {
        sp_coo_t *a = sp_test_random_coo(1000 + i, cases[i].nrows, cases[i].ncols, cases[i].nnz,
                                         SP_R_64F, cases[i].features);
        ck_assert_ptr_nonnull(a);
        check_all_types(a);
        sp_coo_free(a);
    }
}
END_TEST

/* ---- the bundled datasets ------------------------------------------------------------- */

START_TEST(test_datasets)
{
    const char *mtx[] = {"1138_bus", "BentPipe2D100", "Erdos971", "ani4", "arrow",
                         "chesapeake", "gko_text_2d", "hangGlider_2", "karate", "rajat01",
                         "skew_fp64", "west0067_jumbled", "young1c"};
    size_t n = small ? 4 : sizeof mtx / sizeof mtx[0];
    sp_mtx_options_t opt = {0};
    char rel[256];
    opt.complex_mode = SP_COMPLEX_REAL_PART; /* young1c is complex */
    for (size_t i = 0; i < n; i++) {
        sp_coo_t *a = NULL;
        snprintf(rel, sizeof rel, "datasets/mtx/%s.mtx", mtx[i]);
        ck_assert_ok(sp_mtx_read(sp_test_path(rel), SP_R_64F, &opt, &a));
        check_all_types(a);
        sp_coo_free(a);
    }
    sp_coo_t *g = NULL;
    ck_assert_ok(sp_edgelist_read(sp_test_path("datasets/graphs/facebook_combined.txt"), SP_R_32F,
                                  NULL, &g, NULL));
    check_chain(g, SP_DUP_KEEP);
    sp_coo_free(g);
}
END_TEST

/* ---- the edge-case catalogue ---------------------------------------------------------- */

START_TEST(test_empty)
{
    const int64_t shapes[][2] = {{0, 0}, {0, 5}, {5, 0}, {10, 10}};
    for (size_t i = 0; i < 4; i++) {
        sp_coo_t *a = sp_test_random_coo(7, shapes[i][0], shapes[i][1], 0, SP_R_64F, 0);
        ck_assert_ptr_nonnull(a);
        check_all_types(a);
        sp_coo_free(a);
    }
}
END_TEST

/* One row of `len` entries (all columns 0..len-1, shuffled) among nrows rows holding a
 * few random entries each. */
static sp_coo_t *long_row_coo(int64_t nrows, int64_t len, uint64_t seed)
{
    int64_t extra = nrows, nnz = len + extra;
    sp_coo_t *a = NULL;
    uint64_t s = seed;
    ck_assert_ok(sp_coo_create(nrows, len > nrows ? len : nrows, nnz, SP_R_64F, &a));
    for (int64_t k = 0; k < len; k++) {
        a->row[k] = (int32_t)(nrows / 2);
        a->col[k] = (int32_t)k;
    }
    for (int64_t k = len - 1; k > 0; k--) { /* shuffle the long row's columns */
        int64_t j = (int64_t)(sp_test_rand(&s) % (uint64_t)(k + 1));
        int32_t t = a->col[k];
        a->col[k] = a->col[j];
        a->col[j] = t;
    }
    for (int64_t k = len; k < nnz; k++) {
        a->row[k] = (int32_t)(sp_test_rand(&s) % (uint64_t)nrows);
        a->col[k] = (int32_t)(sp_test_rand(&s) % (uint64_t)a->ncols);
    }
    for (int64_t k = 0; k < nnz; k++) ((double *)a->val)[k] = sp_test_uniform(&s) - 0.5;
    a->nnz = nnz;
    return a;
}

START_TEST(test_long_rows)
{
    sp_coo_t *a = long_row_coo(300, 5000, 11); /* a row longer than a block */
    check_all_types(a);
    sp_coo_free(a);
    int64_t n = small ? 20000 : 200000; /* a row of length n in an n-row matrix */
    a = long_row_coo(n, n, 12);
    check_chain(a, SP_DUP_SUM);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_all_duplicates)
{
    int64_t n = small ? 5000 : 200000;
    sp_coo_t *a = NULL;
    uint64_t s = 5;
    ck_assert_ok(sp_coo_create(40, 30, n, SP_R_64F, &a));
    for (int64_t k = 0; k < n; k++) {
        a->row[k] = 17;
        a->col[k] = 23;
        ((double *)a->val)[k] = sp_test_uniform(&s) * 1e6 - 1e-3; /* rounding-sensitive sum */
    }
    a->nnz = n;
    check_all_types(a);
    sp_coo_free(a);
}
END_TEST

/* Columns far apart: the CSC's pointers over runs of empty columns longer than the sort
 * path's walk (P::sorted_starts_run = 32), before the first column, between columns and
 * after the last, filled by the binary search; and a matrix whose only entries sit in
 * its last column. */
START_TEST(test_sparse_columns)
{
    const int64_t ncols = 100000, cols[] = {40, 41, 41 + 33, 5000, 5001, 5002, 70000, 99990};
    const int ncol = (int)(sizeof cols / sizeof cols[0]);
    sp_coo_t *a = NULL;
    uint64_t s = 9;
    ck_assert_ok(sp_coo_create(60, ncols, 60 * ncol, SP_R_64F, &a));
    for (int64_t r = 0; r < 60; r++)
        for (int j = 0; j < ncol; j++) {
            int64_t k = r * ncol + j;
            a->row[k] = (int32_t)r;
            a->col[k] = (int32_t)cols[(j + r) % ncol];
            ((double *)a->val)[k] = sp_test_uniform(&s) - 0.5;
        }
    a->nnz = 60 * ncol;
    check_all_types(a);
    sp_coo_free(a);
    ck_assert_ok(sp_coo_create(3, ncols, 2, SP_R_64F, &a));
    a->row[0] = 2, a->col[0] = (int32_t)(ncols - 1), ((double *)a->val)[0] = 1.5;
    a->row[1] = 0, a->col[1] = (int32_t)(ncols - 1), ((double *)a->val)[1] = -2.5;
    a->nnz = 2;
    check_all_types(a);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_large)
{
    int64_t nnz = small ? 300000 : 5000000; /* beyond one grid wave of every kernel */
    sp_coo_t *a = sp_test_random_coo(77, nnz / 5, nnz / 4, nnz, SP_R_64F,
                                     SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS);
    ck_assert_ptr_nonnull(a);
    check_chain(a, SP_DUP_SUM);
    sp_coo_free(a);
}
END_TEST

/* ---- refused arguments ------------------------------------------------------------------ */

/* The transpose's column classes: tiny (2..8 entries, a thread puts them in order), short
 * (9..32, a warp), medium (33..8192, a block's bitonic sort; 8192 exactly too), long (8193
 * and more, placed in order from per-chunk counts; one, beside the small runs, spans every
 * chunk), empty and single ones, and repeated entries (merged by both policies): both
 * paths bit for bit against the reference, through check_chain (the scatter one in its own
 * case). */
START_TEST(test_transpose_columns)
{
    static const int64_t lengths[] = {0,  1,   2,    7,    8,    9,    32,   33,
                                      40, 100, 1000, 4097, 8192, 8193, 20000};
    enum { NCLASS = sizeof lengths / sizeof lengths[0] };
    int64_t nrows = 30011, nnz = 0, big = small ? 0 : 200000;
    uint64_t seed = 9;
    for (int c = 0; c < NCLASS; c++) nnz += lengths[c];
    nnz += big + 500; /* the longest column, and 500 duplicates */
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(nrows > big ? nrows : big + 7, NCLASS + 3, nnz, SP_R_64F, &a));
    int64_t k = 0;
    for (int c = 0; c < NCLASS; c++)
        for (int64_t i = 0; i < lengths[c]; i++, k++) {
            a->row[k] = (int32_t)(sp_test_rand(&seed) % (uint64_t)a->nrows);
            a->col[k] = c;
            ((double *)a->val)[k] = sp_test_uniform(&seed);
        }
    for (int64_t i = 0; i < big; i++, k++) { /* every row once, in a shuffled order */
        a->row[k] = (int32_t)((i * 7919) % a->nrows);
        a->col[k] = NCLASS + 1;
        ((double *)a->val)[k] = (double)i;
    }
    for (int64_t i = 0; i < 500; i++, k++) { /* repeats of earlier entries */
        int64_t j = (int64_t)(sp_test_rand(&seed) % (uint64_t)k);
        a->row[k] = a->row[j];
        a->col[k] = a->col[j];
        ((double *)a->val)[k] = -(double)i;
    }
    a->nnz = k;
    check_all_types(a);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_errors)
{
    const int32_t row[] = {0, 3, 1}, col[] = {0, 1, 1};
    const double val[] = {1, 2, 3};
    sp_coo_t *a = coo_of(3, 2, 3, row, col, val); /* row 3 outside 3 rows */
    sp_triplets_t d = upload_coo(a);
    sp_csr_t csr = {0};
    sp_ell_t ell = {0};
    sp_hyb_t hyb = {{0}, {0}};
    sp_sell_t sell = {0};
    ck_assert_status(sp__gpu_coo_sort_merge(&T.env, &d, SP_DUP_SUM, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("entry 1 at (3, 1) outside 3 x 2");
    ck_assert_int_eq(d.nnz, 3); /* untouched */
    ck_assert_status(sp__gpu_coo_sort_merge(&T.env, &d, (sp_dup_policy_t)7, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown duplicate policy 7");
    ck_assert_status(sp__gpu_coo_sort_merge(&T.env, NULL, SP_DUP_SUM, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("coo sort: NULL argument");
    ck_assert_status(sp__gpu_coo_to_csr(&T.env, &d, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("coo to csr: NULL argument");
    sp__gpu_triplets_free(&T.env, &d);
    sp_coo_free(a);

    a = coo_of(3, 2, 2, row, col, val);
    a->row[1] = 2;
    d = upload_coo(a);
    ck_assert_ok(sp__gpu_coo_sort_merge(&T.env, &d, SP_DUP_SUM, NULL));
    ck_assert_ok(sp__gpu_coo_to_csr(&T.env, &d, &csr));
    ck_assert_status(sp__gpu_csr_to_sell(&T.env, &csr, 4, 6, &sell), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sigma 6 is not a positive multiple of C 4");
    ck_assert_status(sp__gpu_csr_to_sell(&T.env, &csr, 0, 4, &sell), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp__gpu_csr_to_ell_width(&T.env, &csr, -2, &ell), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("width -2 outside");
    ck_assert_status(sp__gpu_csr_to_csc(&T.env, &csr, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("csr to csc: NULL argument");
    ck_assert_status(sp__gpu_csr_to_jds(NULL, &csr, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("csr to jds: NULL argument");
    csr.nrows = (int64_t)INT32_MAX + 1;
    ck_assert_status(sp__gpu_csr_to_hyb(&T.env, &csr, -1, &hyb), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("exceeds 32-bit indices");
    csr.nrows = 3;
    ck_assert_ptr_null(hyb.ell.col);
    ck_assert_ptr_null(sell.perm);
    ck_assert_ptr_null(ell.col);
    sp__gpu_csr_free(&T.env, &csr);
    sp__gpu_triplets_free(&T.env, &d);
    sp__gpu_csr_free(&T.env, NULL);
    sp__gpu_sell_free(&T.env, &sell); /* zeroed: accepted */
    sp_coo_free(a);
}
END_TEST

/* ---- allocation failure --------------------------------------------------------------- */

enum op { OP_SORT, OP_CSR, OP_CSC, OP_CSC_SCATTER, OP_ELL, OP_HYB, OP_JDS, OP_SELL, OP_COUNT };
static const char *op_names[] = {"sort", "csr", "csc", "csc scatter", "ell", "hyb", "jds", "sell"};

/* Run one conversion with outputs pre-filled by a marker; returns its status and, on
 * failure, asserts the output untouched. */
static sp_status_t run_op(enum op o, const sp_coo_t *a, const sp_csr_t *d_csr)
{
    union {
        sp_csr_t csr;
        sp_ell_t ell;
        sp_hyb_t hyb;
        sp_jds_t jds;
        sp_sell_t sell;
        unsigned char bytes[sizeof(sp_hyb_t) + sizeof(sp_sell_t)];
    } out, marker;
    sp_status_t st = SP_STATUS_SUCCESS;
    memset(&marker, 0x5c, sizeof marker);
    out = marker;
    if (o == OP_SORT) {
        int64_t before = T.fail_at;
        T.fail_at = -1;
        sp_triplets_t d = upload_coo(a), copy;
        T.fail_at = before;
        copy = d;
        st = sp__gpu_coo_sort_merge(&T.env, &d, SP_DUP_SUM, NULL);
        if (st != SP_STATUS_SUCCESS)
            ck_assert_msg(memcmp(&d, &copy, sizeof d) == 0, "sort: COO changed on failure");
        sp__gpu_triplets_free(&T.env, &d);
        return st;
    }
    switch (o) {
    case OP_CSR: {
        int64_t before = T.fail_at;
        T.fail_at = -1;
        sp_coo_t *b = NULL;
        ck_assert_ok(sp_coo_copy(a, a->value_type, &b));
        ck_assert_ok(sp_coo_sort_merge(b, SP_DUP_SUM, NULL));
        sp_triplets_t d = upload_coo(b);
        sp_coo_free(b);
        T.fail_at = before;
        st = sp__gpu_coo_to_csr(&T.env, &d, &out.csr);
        T.fail_at = -1;
        sp__gpu_triplets_free(&T.env, &d);
        T.fail_at = before;
        break;
    }
    case OP_CSC: st = sp__gpu_csr_to_csc(&T.env, d_csr, &out.csr); break;
    case OP_CSC_SCATTER: st = sp__gpu_csr_to_csc_scatter(&T.env, d_csr, &out.csr, NULL); break;
    case OP_ELL: st = sp__gpu_csr_to_ell(&T.env, d_csr, &out.ell); break;
    case OP_HYB: st = sp__gpu_csr_to_hyb(&T.env, d_csr, -1, &out.hyb); break;
    case OP_JDS: st = sp__gpu_csr_to_jds(&T.env, d_csr, &out.jds); break;
    case OP_SELL: st = sp__gpu_csr_to_sell(&T.env, d_csr, 4, 8, &out.sell); break;
    default: break;
    }
    if (st != SP_STATUS_SUCCESS) {
        ck_assert_msg(memcmp(&out, &marker, sizeof out) == 0, "%s: output changed on failure",
                      op_names[o]);
        return st;
    }
    switch (o) {
    case OP_CSR:
    case OP_CSC:
    case OP_CSC_SCATTER: sp__gpu_csr_free(&T.env, &out.csr); break;
    case OP_ELL: sp__gpu_ell_free(&T.env, &out.ell); break;
    case OP_HYB: sp__gpu_hyb_free(&T.env, &out.hyb); break;
    case OP_JDS: sp__gpu_jds_free(&T.env, &out.jds); break;
    case OP_SELL: sp__gpu_sell_free(&T.env, &out.sell); break;
    default: break;
    }
    return st;
}

START_TEST(test_alloc_failure)
{
    sp_coo_t *a = sp_test_random_coo(3, 500, 400, 6000, SP_R_32F,
                                     SP_TEST_DUPLICATES | SP_TEST_LONG_ROW | SP_TEST_EMPTY_ROWS);
    sp_coo_t *b = NULL;
    sp_csr_t h_csr = {0}, d_csr = {0};
    ck_assert_ptr_nonnull(a);
    ck_assert_ok(sp_coo_copy(a, SP_R_32F, &b));
    ck_assert_ok(sp_coo_sort_merge(b, SP_DUP_SUM, NULL));
    ck_assert_ok(sp_test_coo_to_csr(b, &h_csr));
    sp_triplets_t d = upload_coo(b);
    ck_assert_ok(sp__gpu_coo_to_csr(&T.env, &d, &d_csr));
    sp__gpu_triplets_free(&T.env, &d);
    int64_t base = T.live;
    for (int o = 0; o < OP_COUNT; o++) {
        int64_t failing = 0;
        if (o == OP_CSC_SCATTER && !g_scatter) continue;
        for (int64_t k = 0;; k++) {
            sp_test_env_arm(&T, k);
            sp_status_t st = run_op((enum op)o, a, &d_csr);
            int64_t calls = T.calls;
            T.fail_at = -1;
            ck_assert_msg(T.live == base, "%s: %lld blocks leaked with allocation %lld failing",
                          op_names[o], (long long)(T.live - base), (long long)k);
            if (calls <= k) {
                ck_assert_msg(st == SP_STATUS_SUCCESS, "%s: %s with no failed allocation: %s",
                              op_names[o], sp_status_string(st), sp_last_error());
                break;
            }
            ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "%s: %s with allocation %lld failing",
                          op_names[o], sp_status_string(st), (long long)k);
            ck_assert_error_has("test env: refused");
            failing++;
        }
        ck_assert_int_ge(failing, 1);
    }
    sp__gpu_csr_free(&T.env, &d_csr);
    sp__csr_free(&h_csr);
    sp_coo_free(b);
    sp_coo_free(a);
}
END_TEST
#endif /* SP_HAVE_CUDA */

#ifdef SP_HAVE_CUDA
static void scatter_setup(void)
{
    setup();
    g_scatter = 1;
}
#endif

static Suite *gpu_convert_suite(void)
{
    Suite *s = suite_create("gpu_convert");
#ifdef SP_HAVE_CUDA
    TCase *t = tcase_create("convert");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_tiny);
    tcase_add_test(t, test_value_table);
    tcase_add_test(t, test_random);
    tcase_add_test(t, test_datasets);
    tcase_add_test(t, test_empty);
    tcase_add_test(t, test_long_rows);
    tcase_add_test(t, test_all_duplicates);
    tcase_add_test(t, test_sparse_columns);
    tcase_add_test(t, test_large);
    tcase_add_test(t, test_transpose_columns);
    tcase_add_test(t, test_errors);
    tcase_add_test(t, test_alloc_failure);
    suite_add_tcase(s, t);
    /* the same with the scatter transpose beside the default one (off by default) */
    TCase *x = tcase_create("transpose_scatter");
    tcase_add_checked_fixture(x, scatter_setup, teardown);
    tcase_set_timeout(x, 600);
    tcase_add_test(x, test_random);
    tcase_add_test(x, test_datasets);
    tcase_add_test(x, test_empty);
    tcase_add_test(x, test_long_rows);
    tcase_add_test(x, test_all_duplicates);
    tcase_add_test(x, test_sparse_columns);
    tcase_add_test(x, test_large);
    tcase_add_test(x, test_transpose_columns);
    tcase_add_test(x, test_alloc_failure);
    suite_add_tcase(s, x);
#endif
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_convert_suite()); }
