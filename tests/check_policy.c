/* The policy module (src/policy.c): the table keyed by SM version, and the AUTO decisions
 * pinned on row statistics, so a change of any rule or constant shows here. Every
 * expectation is what the rule gave before it moved into the module (sp_spmv_choose_format
 * in src/spmv.c, CSR DEFAULT in kernels/spmv/spmv_plan.cu, SpTRSV AUTO in
 * src/sptrsv_cuda.c); the BFS pins are in check_bfs_api.c. */
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "testutil.h"

START_TEST(table_by_sm_version)
{
    const sp__policy_t *d = sp__policy_for_sm(90);
    static sp_context_t gpu; /* zeroed: only kind and the compute capability are read */
    ck_assert_int_eq(d->sm, 90);
    ck_assert_ptr_eq(sp__policy_for_sm(80), d); /* unmeasured architectures: the default */
    ck_assert_ptr_eq(sp__policy_for_sm(0), d);
    ck_assert_ptr_eq(sp__policy_for(NULL), d);
    gpu.kind = SP_DEVICE_CUDA;
    gpu.info.cc_major = 9, gpu.info.cc_minor = 0;
    ck_assert_ptr_eq(sp__policy_for(&gpu), d);
    gpu.info.cc_major = 12;
    ck_assert_ptr_eq(sp__policy_for(&gpu), d);
    ck_assert_ptr_nonnull(d->spmv_format);
    ck_assert_ptr_nonnull(d->spmv_csr);
    ck_assert_ptr_nonnull(d->bfs);
    ck_assert_ptr_nonnull(d->sptrsv);
    ck_assert_ptr_nonnull(d->matrix);
}
END_TEST

/* The cost model's input for a matrix of these statistics, of doubles, on an H100 (132 SMs),
 * without a histogram (the tail is then the longest row alone). */
static sp__spmv_stats_t stats(int64_t nrows, int64_t nnz, int64_t row_max, double near)
{
    const sp__policy_t *p = sp__policy_for_sm(90);
    sp__spmv_stats_t s = {0};
    s.nrows = s.ncols = nrows;
    s.nnz = nnz;
    s.row_max = row_max;
    s.row_mean = nrows ? (double)nnz / (double)nrows : 0.0;
    s.col_near = near;
    s.value_bytes = 8;
    s.sm_count = 132;
    s.long_row_bound = sp__policy_long_row_bound(p, SP_FORMAT_SELL, nrows, nnz, row_max, 132);
    s.ell_long_row_bound = sp__policy_long_row_bound(p, SP_FORMAT_ELL, nrows, nnz, row_max, 132);
    return s;
}

static sp__spmv_choice_t choose(sp__spmv_stats_t s)
{
    return sp__policy_spmv_choose(sp__policy_for_sm(90), &s);
}

/* The choice for `many` rows of length a and `few` of length b, with their histogram. */
static sp__spmv_choice_t two_lengths(int64_t many, int64_t a, int64_t few, int64_t b, double near)
{
    static int64_t hist[SP_ROW_HIST_BINS], hist_nnz[SP_ROW_HIST_BINS];
    int bin_a = 0, bin_b = 0;
    while (bin_a < SP_ROW_HIST_BINS - 1 && (a >> bin_a)) bin_a++;
    while (bin_b < SP_ROW_HIST_BINS - 1 && (b >> bin_b)) bin_b++;
    memset(hist, 0, sizeof hist);
    memset(hist_nnz, 0, sizeof hist_nnz);
    hist[bin_a] += many, hist_nnz[bin_a] += many * a;
    hist[bin_b] += few, hist_nnz[bin_b] += few * b;
    sp__spmv_stats_t s = stats(many + few, many * a + few * b, b, near);
    s.hist = hist;
    s.hist_nnz = hist_nnz;
    return choose(s);
}

START_TEST(spmv_format_pins)
{
    const sp__policy_t *p = sp__policy_for_sm(90);
    sp__spmv_choice_t c;
    /* the long-row bound: 4 x mean + 32 (ELL 2 x mean) while the longest row is not known
       or within it */
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_SELL, 100, 1000, 0, 0), 72);
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_JDS, 100, 1000, 72, 132), 72);
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_ELL, 100, 1000, 0, 0), 20);
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_ELL, 100, 1000, 500, 132), 20);
    /* a tail anyway and one wave of rows (at most 132 x 2048): JDS and SELL take ELL's bound
       (email-Eu-core: 1005 rows, 25571 entries, longest 334) */
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_SELL, 100, 1000, 73, 132), 20);
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_JDS, 1005, 25571, 334, 132), 50);
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_SELL, 270336, 2703360, 73, 132), 20);
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_SELL, 270336, 2703360, 73, 0), 20);
    /* more rows than one wave (or than a smaller GPU's): the walks overlap, 4 x mean + 32 */
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_SELL, 270337, 2703370, 73, 132), 72);
    ck_assert_int_eq(sp__policy_long_row_bound(p, SP_FORMAT_SELL, 270336, 2703360, 73, 100), 72);
    ck_assert_int_eq(choose(stats(0, 0, 0, 1.0)).format, SP_FORMAT_ELL);
    /* 7-point Poisson 160^3: ELL (99.7% of the read bandwidth on the H100) */
    ck_assert_int_eq(choose(stats(4096000, 28518400, 7, 1.0)).format, SP_FORMAT_ELL);
    /* uniform 22 (gathers spread over x): CSR adaptive, where SELL ran 0.93x of it */
    c = choose(stats(4194304, 134217194, 66, 0.03));
    ck_assert_int_eq(c.format, SP_FORMAT_CSR);
    ck_assert_int_eq(c.alg, SP_SPMV_ALG_CSR_ADAPTIVE);
    /* Kronecker 22: CSR adaptive */
    c = choose(stats(4194304, 128308646, 163568, 0.1));
    ck_assert_int_eq(c.format, SP_FORMAT_CSR);
    ck_assert_int_eq(c.alg, SP_SPMV_ALG_CSR_ADAPTIVE);
    /* issue 23: a 5k-row matrix whose longest row is 24x its mean must not get SELL (it
     * ran 11x slower than CSR vector): one thread would walk the 480-entry row */
    c = choose(stats(5000, 100000, 480, 1.0));
    ck_assert_int_eq(c.format, SP_FORMAT_CSR);
    ck_assert(c.us[SP_FORMAT_SELL] > c.us[SP_FORMAT_CSR]);
    /* and rows of 10-95 entries (mean 40) on 20k rows: CSR (SELL ran 2.6x slower there) */
    ck_assert_int_eq(choose(stats(20000, 800000, 95, 1.0)).format, SP_FORMAT_CSR);
    /* an arrow (one dense row and column, mean 3): ELL with its tail or COO atomic (H100,
     * 2026-11-26: 7.5-8.0 and 7.5-7.8 us against CSR adaptive's 8.3-8.4, whose row of 91
     * pieces waits on a fence), never CSR adaptive, SELL or JDS */
    c = choose(stats(46500, 139498, 46500, 1.0));
    ck_assert(c.format == SP_FORMAT_ELL || c.format == SP_FORMAT_COO);
    /* mostly empty rows: CSR's best is merge (rows counted as work), and SELL, whose
     * sorted slices of empty rows hold no slots, models cheaper still */
    c = choose(stats(1000000, 100000, 5, 1.0));
    ck_assert_int_eq(c.format, SP_FORMAT_SELL);
    ck_assert(c.us[SP_FORMAT_CSR] > c.us[SP_FORMAT_SELL]);
    /* the wider set's shapes (statistics of spbench --suite-wide's inputs): circuit (mean
     * 4.9, rows of 470k) and dense rows (mean 16, rows of 2M) CSR; FEM blocks of 6x6 (mean
     * 52, longest 54, near the diagonal) ELL */
    ck_assert_int_eq(two_lengths(3999984, 3, 16, 500000, 0.9).format, SP_FORMAT_CSR);
    ck_assert_int_eq(two_lengths(1999996, 12, 4, 2000000, 0.1).format, SP_FORMAT_CSR);
    ck_assert_int_eq(choose(stats(600000, 31404000, 54, 1.0)).format, SP_FORMAT_ELL);
    /* a padded format is never picked where the model prices it slower than CSR */
    for (int64_t rmax = 8; rmax <= 65536; rmax *= 2) {
        c = choose(stats(200000, 2000000, rmax, 0.5));
        if (c.format != SP_FORMAT_CSR) ck_assert(c.us[c.format] < c.us[SP_FORMAT_CSR]);
    }
}
END_TEST

/* The mechanisms the model names (issue 23, bench/results/h100-spmv-2026-11-26-model.md):
 * a small matrix whose longest row spans several of adaptive's pieces pays the fence of the
 * last piece, where COO atomic pays a second launch; CSR vector and scalar pay a second
 * launch for rows past their bound; adaptive's stream blocks walk up to 1024 mostly empty
 * rows in passes; thread-per-row formats sweep an x larger than the L2 in a window. */
START_TEST(spmv_model_mechanisms)
{
    sp__spmv_choice_t c;
    sp__spmv_stats_t s;
    /* hangGlider_2 (1647 rows, longest 1463): COO atomic (6.8 us against adaptive's 8.1) */
    c = choose(stats(1647, 14754, 1463, 1.0));
    ck_assert_int_eq(c.format, SP_FORMAT_COO);
    ck_assert_int_eq(c.alg, SP_SPMV_ALG_COO_ATOMIC);
    ck_assert(c.cand[SP__CAND_CSR_ADAPTIVE] > c.cand[SP__CAND_COO_ATOMIC]);
    /* email-Eu-core (mean 25, longest 334 past vector's bound 235): vector's second launch
     * prices it behind binned and adaptive (measured 8.5 against 5.1 and 5.4) */
    c = choose(stats(1005, 25571, 334, 1.0));
    ck_assert_int_eq(c.format, SP_FORMAT_CSR);
    ck_assert(c.alg == SP_SPMV_ALG_CSR_BINNED || c.alg == SP_SPMV_ALG_CSR_ADAPTIVE);
    ck_assert(c.cand[SP__CAND_CSR_VECTOR] > c.cand[SP__CAND_CSR_BINNED]);
    /* CA-HepTh (mean 0.76, longest 65): binned, adaptive's blocks of 1024 rows take 4
     * passes (measured 4.1 against 5.8) */
    c = choose(stats(68746, 51971, 65, 0.13));
    ck_assert_int_eq(c.format, SP_FORMAT_CSR);
    ck_assert_int_eq(c.alg, SP_SPMV_ALG_CSR_BINNED);
    /* rect 250000 x 8000000, 64 uniform sorted columns a row (x 64 MB past the 50 MB L2):
     * SELL, whose slices keep the window of x (191 us against CSR adaptive's 363); ELL and
     * JDS, a row's slots nrows apart, gather as widely as CSR (569 and 557 MB of DRAM
     * against SELL's 383: 250 us) ... */
    s = stats(250000, 16000000, 64, 0.03);
    s.ncols = 8000000;
    s.row_stddev = 0.0;
    c = choose(s);
    ck_assert_int_eq(c.format, SP_FORMAT_SELL);
    ck_assert(c.cand_bytes[SP__CAND_CSR_ADAPTIVE] > c.cand_bytes[SP__CAND_SELL] + 64e6);
    ck_assert(c.cand_bytes[SP__CAND_ELL] > c.cand_bytes[SP__CAND_SELL] + 64e6);
    ck_assert(c.cand_bytes[SP__CAND_JDS] > c.cand_bytes[SP__CAND_SELL] + 64e6);
    /* ... where with x in the L2 (4M columns, 32 MB) the gathers cost both alike: the two
     * differ by CSR's row pointers alone */
    s.ncols = 4000000;
    c = choose(s);
    ck_assert(c.cand_bytes[SP__CAND_CSR_ADAPTIVE] - c.cand_bytes[SP__CAND_ELL] <= 4.0 * 250001);
    /* and rows of unequal length drift apart: no window (Kronecker 23, x 67 MB) */
    s = stats(8388608, 258671170, 258629, 0.1);
    s.row_stddev = 300.0;
    c = choose(s);
    ck_assert_int_eq(c.format, SP_FORMAT_CSR);
    ck_assert_int_eq(c.alg, SP_SPMV_ALG_CSR_ADAPTIVE);
}
END_TEST

/* AUTO's COO atomic runs on the matrix's own COO: once it is released, CSR instead. */
START_TEST(spmv_auto_coo_needs_its_coo)
{
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_coo_t *a = NULL;
    sp_format_t f = SP_FORMAT_AUTO;
    const int64_t n = 2000, hub = 1500;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_coo_create(n, n, hub + 7 * (n - 1), SP_R_64F, &a));
    for (int64_t j = 0; j < hub; j++) /* row 0: 1500 entries, the others 7 near the diagonal */
        a->row[a->nnz] = 0, a->col[a->nnz] = (int32_t)j, ((double *)a->val)[a->nnz++] = 1.0;
    for (int64_t i = 1; i < n; i++)
        for (int64_t d = -3; d <= 3; d++) {
            int64_t j = (i + d + n) % n;
            a->row[a->nnz] = (int32_t)i, a->col[a->nnz] = (int32_t)j;
            ((double *)a->val)[a->nnz++] = 1.0;
        }
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_spmv_choose_format(ctx, A, &f));
    ck_assert_int_eq(f, SP_FORMAT_COO);
    /* the pick (built: the matrix's own COO) is kept in A for later calls, with the
       formats it was made with (the release below makes it again) */
    ck_assert(A->auto_pick && A->auto_pick->valid && A->auto_pick->built == A->built &&
              A->auto_pick->format == SP_FORMAT_COO);
    {
        /* a solver runs CSR with the model's CSR algorithm instead (COO atomic's sums are
           added in no fixed order) */
        sp_spmv_alg_t alg = SP_SPMV_ALG_DEFAULT;
        sp__spmv_stats_t s;
        f = SP_FORMAT_AUTO;
        sp__spmv_auto_solver(ctx, A, &f, &alg);
        sp__spmv_stats_of(ctx, A, &s);
        ck_assert_int_eq(f, SP_FORMAT_CSR);
        ck_assert_int_eq(alg, sp__policy_spmv_choose(sp__policy_for(ctx), &s).csr_alg);
        ck_assert_int_ne(alg, SP_SPMV_ALG_DEFAULT);
    }
    ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_release(ctx, A, SP_FORMAT_COO));
    ck_assert_ok(sp_spmv_choose_format(ctx, A, &f));
    ck_assert_int_eq(f, SP_FORMAT_CSR);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

/* 64-bit offsets (issue 20): below the narrow limit a matrix is priced as at 32 bits; past
 * it (wide) only CSR scalar/vector and, with no row for ELL's tail (ell_wide), ELL serve
 * it: 3D Poisson 700^3 (2.4G entries) gets ELL (0.99 of the read bandwidth against CSR's
 * 0.55 on an H200), CSR where ELL would need a tail; Kronecker (hub rows) CSR. */
START_TEST(spmv_offsets64_pins)
{
    sp__spmv_stats_t s = stats(343000000, 2398060000, 7, 1.0);
    sp__spmv_choice_t c;
    s.offset_bits = 64;
    s.wide = 1, s.ell_wide = 1;
    c = choose(s);
    ck_assert_int_eq(c.format, SP_FORMAT_ELL);
    ck_assert(c.us[SP_FORMAT_SELL] < 0 && c.us[SP_FORMAT_JDS] < 0);
    s.ell_wide = 0;
    c = choose(s);
    ck_assert_int_eq(c.format, SP_FORMAT_CSR);
    ck_assert(c.alg == SP_SPMV_ALG_CSR_SCALAR || c.alg == SP_SPMV_ALG_CSR_VECTOR);
    /* Kronecker 27 (symmetrized, 4.2G entries): CSR scalar or vector */
    s = stats(134217728, 4200000000, 1000000, 0.1);
    s.offset_bits = 64, s.wide = 1;
    c = choose(s);
    ck_assert_int_eq(c.format, SP_FORMAT_CSR);
    ck_assert(c.alg == SP_SPMV_ALG_CSR_SCALAR || c.alg == SP_SPMV_ALG_CSR_VECTOR);
    /* narrowed (64 bits below the limit): the 32-bit choice, algorithm and times */
    sp__spmv_stats_t a = stats(4194304, 128308646, 163568, 0.1), b = a;
    b.offset_bits = 64;
    sp__spmv_choice_t ca = choose(a), cb = choose(b);
    ck_assert_int_eq(ca.format, cb.format);
    ck_assert_int_eq(ca.alg, cb.alg);
    ck_assert_mem_eq(ca.us, cb.us, sizeof ca.us);
}
END_TEST

/* The histogram's share of long rows: the tail the model prices. */
START_TEST(spmv_model_tail_from_histogram)
{
    int64_t hist[SP_ROW_HIST_BINS] = {0}, hist_nnz[SP_ROW_HIST_BINS] = {0};
    sp__spmv_stats_t s = stats(100000, 2000000, 50000, 0.0);
    sp__spmv_choice_t with_tail, without;
    /* 99990 rows of ~16 entries (bin 5: 16..31) and 10 rows of ~50000 (bin 16) */
    hist[5] = 99990, hist_nnz[5] = 1500000;
    hist[16] = 10, hist_nnz[16] = 500000;
    s.hist = hist;
    s.hist_nnz = hist_nnz;
    with_tail = choose(s);
    s.long_row_bound = INT64_MAX; /* no tail: SELL's thread walks 50000 entries */
    without = choose(s);
    ck_assert(without.us[SP_FORMAT_SELL] > 10.0 * with_tail.us[SP_FORMAT_SELL]);
    ck_assert_int_eq(with_tail.format, SP_FORMAT_CSR);
}
END_TEST

/* The CSR algorithm DEFAULT resolves to for (nrows, nnz, row_max), and the width. */
static sp_spmv_alg_t csr_default(int64_t nrows, int64_t nnz, int64_t row_max, int *width)
{
    return sp__policy_spmv_csr_alg(sp__policy_for_sm(90), SP_SPMV_ALG_DEFAULT, nrows, nnz,
                                   row_max, width);
}

START_TEST(spmv_csr_default_pins)
{
    int w = -1;
    /* empty */
    ck_assert_int_eq(csr_default(0, 0, 0, &w), SP_SPMV_ALG_CSR_SCALAR);
    ck_assert_int_eq(w, 0);
    /* Poisson 7-point (mean below 8, regular): scalar */
    ck_assert_int_eq(csr_default(4096000, 28147200, 7, &w), SP_SPMV_ALG_CSR_SCALAR);
    ck_assert_int_eq(csr_default(1000, 8000, 8, &w), SP_SPMV_ALG_CSR_SCALAR); /* mean 8 */
    /* regular, longer rows: vector with the smallest power of two >= the mean */
    ck_assert_int_eq(csr_default(1000, 27000, 27, &w), SP_SPMV_ALG_CSR_VECTOR);
    ck_assert_int_eq(w, 32);
    ck_assert_int_eq(csr_default(1000, 12000, 20, &w), SP_SPMV_ALG_CSR_VECTOR);
    ck_assert_int_eq(w, 16);
    ck_assert_int_eq(csr_default(1000, 90000, 100, &w), SP_SPMV_ALG_CSR_VECTOR);
    ck_assert_int_eq(w, 32); /* at most a warp */
    /* regular up to a longest row of 8 mean + 32 exactly: mean 1 gives 40 */
    ck_assert_int_eq(csr_default(100, 100, 40, &w), SP_SPMV_ALG_CSR_SCALAR);
    ck_assert_int_eq(csr_default(100, 100, 41, &w), SP_SPMV_ALG_CSR_ADAPTIVE);
    ck_assert_int_eq(w, 0);
    /* Kronecker 22-like (power law): adaptive */
    ck_assert_int_eq(csr_default(1 << 22, (int64_t)64 << 22, 100000, &w),
                     SP_SPMV_ALG_CSR_ADAPTIVE);
    /* irregular with rows outnumbering entries 2:1: merge path */
    ck_assert_int_eq(csr_default(1000, 500, 100, &w), SP_SPMV_ALG_CSR_ADAPTIVE);
    ck_assert_int_eq(csr_default(1001, 500, 100, &w), SP_SPMV_ALG_CSR_MERGE);
}
END_TEST

START_TEST(spmv_explicit_algorithms_kept)
{
    const sp__policy_t *p = sp__policy_for_sm(90);
    int w = -1;
    ck_assert_int_eq(sp__policy_spmv_csr_alg(p, SP_SPMV_ALG_CSR_SPLIT, 10, 10, 1, &w),
                     SP_SPMV_ALG_CSR_SPLIT);
    ck_assert_int_eq(w, 0);
    /* CSR vector chosen by the caller: width from the mean, 2..32 */
    ck_assert_int_eq(sp__policy_spmv_csr_alg(p, SP_SPMV_ALG_CSR_VECTOR, 10, 10, 1, &w),
                     SP_SPMV_ALG_CSR_VECTOR);
    ck_assert_int_eq(w, 2);
    sp__policy_spmv_csr_alg(p, SP_SPMV_ALG_CSR_VECTOR, 10, 30, 5, &w);
    ck_assert_int_eq(w, 4);
    sp__policy_spmv_csr_alg(p, SP_SPMV_ALG_CSR_VECTOR, 10, 1000, 100, &w);
    ck_assert_int_eq(w, 32);
    sp__policy_spmv_csr_alg(p, SP_SPMV_ALG_CSR_VECTOR, 0, 0, 0, &w);
    ck_assert_int_eq(w, 2);
    ck_assert_int_eq(sp__policy_spmv_coo_alg(SP_SPMV_ALG_DEFAULT), SP_SPMV_ALG_COO_SEGMENTED);
    ck_assert_int_eq(sp__policy_spmv_coo_alg(SP_SPMV_ALG_COO_ATOMIC), SP_SPMV_ALG_COO_ATOMIC);
}
END_TEST

START_TEST(sptrsv_auto_pins)
{
    const sp__policy_t *p = sp__policy_for_sm(90);
    ck_assert_int_eq(sp__policy_sptrsv_use_levels(p, 1000, 2), 1); /* arrow: 2 levels */
    ck_assert_int_eq(sp__policy_sptrsv_use_levels(p, 1000, 3), 0);
    ck_assert_int_eq(sp__policy_sptrsv_use_levels(p, 24, 3), 0);   /* 8 rows a level */
    ck_assert_int_eq(sp__policy_sptrsv_use_levels(p, 23, 3), 1);
    ck_assert_int_eq(sp__policy_sptrsv_use_levels(p, 1000000, 1000000), 1); /* a chain */
    ck_assert_int_eq(p->sptrsv->soft_kernel, 5); /* SP_GPU_SPTRSV_SOFT_BLOCK */
    /* the single-block kernel is not an AUTO choice (policy.c says why) */
    ck_assert_int_eq(sp__policy_sptrsv_use_small(p, 1138, 4054, 8), 0);     /* 1138_bus */
    ck_assert_int_eq(sp__policy_sptrsv_use_small(p, 841, 4089, 8), 0);      /* young1c */
    ck_assert_int_eq(sp__policy_sptrsv_use_small(p, 0, 0, 8), 0);
}
END_TEST

/* Issue 23: CSR scalar and vector hand rows past CSR DEFAULT's regular bound (8 x mean +
 * 32, beyond the tails' 4 x mean + 32) to warp pieces, or the matrix option's bound; none
 * when the longest row is within it or the option is < 0. CSC aggregates equal rows only
 * with a row of more than 1024 entries, and sums rows near the diagonal in shared memory
 * on square matrices. */
START_TEST(spmv_long_rows_pins)
{
    const sp__policy_t *p = sp__policy_for_sm(90);
    int w = 0;
    /* 100 rows, 1000 entries: mean 10, bound 112; DEFAULT's scalar or vector up to it */
    ck_assert_int_eq(sp__policy_spmv_csr_long_bound(p, 100, 1000, 112, 0), -1);
    ck_assert_int_ne(sp__policy_spmv_csr_alg(p, SP_SPMV_ALG_DEFAULT, 100, 1000, 112, &w),
                     SP_SPMV_ALG_CSR_ADAPTIVE);
    ck_assert_int_eq(sp__policy_spmv_csr_long_bound(p, 100, 1000, 113, 0), 112);
    ck_assert_int_eq(sp__policy_spmv_csr_alg(p, SP_SPMV_ALG_DEFAULT, 100, 1000, 113, &w),
                     SP_SPMV_ALG_CSR_ADAPTIVE);
    ck_assert_int_eq(sp__policy_spmv_csr_long_bound(p, 100, 1000, 73, 72), 72);
    ck_assert_int_eq(sp__policy_spmv_csr_long_bound(p, 100, 1000, 73, 500), -1);
    ck_assert_int_eq(sp__policy_spmv_csr_long_bound(p, 100, 1000, 501, 500), 500);
    ck_assert_int_eq(sp__policy_spmv_csr_long_bound(p, 100, 1000, 100000, -1), -1);
    /* a 7-point stencil (mean 7, longest 7) keeps its plan: no second launch */
    ck_assert_int_eq(sp__policy_spmv_csr_long_bound(p, 4096000, 28518400, 7, 0), -1);
    ck_assert_int_eq(sp__policy_spmv_csc_aggregate(p, 1442, -1), 0); /* rajat01 */
    ck_assert_int_eq(sp__policy_spmv_csc_aggregate(p, 2047, -1), 0);
    ck_assert_int_eq(sp__policy_spmv_csc_aggregate(p, 2048, -1), 1);
    ck_assert_int_eq(sp__policy_spmv_csc_aggregate(p, 1000000, 2048), 0); /* heavy rows */
    /* heavy rows: 2048 entries and 16x the mean at least, raised past all but 4096 rows */
    {
        int64_t hist[SP_ROW_HIST_BINS] = {0};
        ck_assert_int_eq(sp__policy_spmv_csc_heavy_bound(p, 1000000, 8000000, 2047, NULL), -1);
        ck_assert_int_eq(sp__policy_spmv_csc_heavy_bound(p, 1000000, 8000000, 2048, NULL), 2048);
        ck_assert_int_eq(sp__policy_spmv_csc_heavy_bound(p, 1000, 1000000, 100000, NULL), 16000);
        ck_assert_int_eq(sp__policy_spmv_csc_heavy_bound(p, 1000, 1000000, 15999, NULL), -1);
        hist[4] = 990000;         /* rows of 8..15 entries */
        hist[12] = 3000;          /* 2048..4095 */
        hist[13] = 2000;          /* 4096..8191: with the bins above, 2100 rows */
        hist[20] = 100;           /* 524288.. */
        ck_assert_int_eq(sp__policy_spmv_csc_heavy_bound(p, 1000000, 30000000, 600000, hist),
                         4096);
        hist[13] = 5000;          /* 5100 rows from 4096: from 8192 only the 100 */
        ck_assert_int_eq(sp__policy_spmv_csc_heavy_bound(p, 1000000, 30000000, 600000, hist),
                         8192);
    }
    ck_assert_int_eq(sp__policy_spmv_csc_try_symmetric(p, 100, 100), 1);
    ck_assert_int_eq(sp__policy_spmv_csc_try_symmetric(p, 100, 101), 0);
    ck_assert_int_eq(sp__policy_spmv_csc_try_symmetric(p, 0, 0), 0);
    /* square and of 2^23 entries or more */
    ck_assert_int_eq(sp__policy_spmv_csc_window(p, 4096000, 4096000, 28518400, -1), 1);
    ck_assert_int_eq(sp__policy_spmv_csc_window(p, 1000000, 1000000, 1 << 23, -1), 1);
    ck_assert_int_eq(sp__policy_spmv_csc_window(p, 1000000, 1000000, (1 << 23) - 1, -1), 0);
    ck_assert_int_eq(sp__policy_spmv_csc_window(p, 1000000, 1000000, 5749963, -1), 0); /* band 8 */
    ck_assert_int_eq(sp__policy_spmv_csc_window(p, 3081, 3081, 20971, -1), 0); /* ani4 */
    ck_assert_int_eq(sp__policy_spmv_csc_window(p, 3000, 3000000, 30000000, -1), 0);
    /* heavy rows: off */
    ck_assert_int_eq(sp__policy_spmv_csc_window(p, 4194304, 4194304, 128308646, 4096), 0);
}
END_TEST

/* The CSR plan reads the longest row from the matrix's statistics (A->row_max) instead of
 * the GPU: they agree with the built CSR, duplicates merged. */
START_TEST(row_max_is_the_csr_longest_row)
{
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_coo_t *a = sp_test_random_coo(3, 500, 400, 6000, SP_R_64F, SP_TEST_DUPLICATES);
    sp_format_view_t v;
    sp_matrix_info_t info;
    int64_t longest = 0;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &A));
    ck_assert_ok(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
    ck_assert_ok(sp_matrix_view(A, SP_FORMAT_CSR, &v));
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int64_t i = 0; i < v.nrows; i++) {
        int64_t len = sp_test_view_pointer(&v, SP_FORMAT_CSR, i + 1) -
                      sp_test_view_pointer(&v, SP_FORMAT_CSR, i);
        if (len > longest) longest = len;
    }
    ck_assert_int_eq(A->row_max, longest);
    ck_assert_int_eq(info.row_max, longest);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, table_by_sm_version);
    tcase_add_test(tc, spmv_format_pins);
    tcase_add_test(tc, spmv_model_mechanisms);
    tcase_add_test(tc, spmv_auto_coo_needs_its_coo);
    tcase_add_test(tc, spmv_offsets64_pins);
    tcase_add_test(tc, spmv_model_tail_from_histogram);
    tcase_add_test(tc, spmv_csr_default_pins);
    tcase_add_test(tc, spmv_explicit_algorithms_kept);
    tcase_add_test(tc, sptrsv_auto_pins);
    tcase_add_test(tc, spmv_long_rows_pins);
    tcase_add_test(tc, row_max_is_the_csr_longest_row);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
