/* Every AUTO rule of libsp, with the measurement that chose each constant (policy.h says
 * how the table is keyed). Today's constants form the sm_90 row, measured on H100 and
 * H200; other architectures get it too until they are measured. */
#include "policy.h"

#include <math.h>
#include <stdatomic.h>

#include "bfs/bfs_direction_rule.h"
#include "sp_kernels_solve.h"

/* ---- SpMV format (SP_FORMAT_AUTO): the cost model of policy.h ----
 * Constants measured on an H100 (bench/results/h100-spmv-suite.json, 2026-11-25, one run,
 * read bandwidth 3071 GB/s): eff = the kernel's GB/s under the CSR byte model / 3071.
 * - eff_near: the mean over poisson3d:160, poisson3d:224 and poisson3d27:160 (gathers
 *   near the diagonal): CSR scalar 0.70 (7-point only; its chain prices the 27-point),
 *   vector 0.67, binned 0.83, adaptive 0.75, ELL 0.98, SELL 0.93, JDS 0.91, COO atomic
 *   (the tail's kernel) 0.67.
 * - eff_far: gathers spread over x (L2-bound): CSR adaptive 0.30 (0.33, 0.19 and 0.42 of
 *   the read bandwidth on uniform:22, randcol and kron:22), each other kernel at its mean
 *   ratio to adaptive: binned 0.889 and COO atomic 0.824 over the three; the thread-per-
 *   row kernels over uniform:22 and randcol only, since on kron:22 they measured their
 *   walks of long rows, which the chain term prices (and the tails now remove): scalar
 *   0.51, vector 0.78, SELL 0.97, JDS 0.90, ELL 1.0 (randcol, no padding; uniform's ELL
 *   padding is in its bytes).
 * - step_us 0.45: one thread's dependent walk of a long row: SELL on arrow (one row of
 *   46500 entries, 11625 batches of 4) took 7.5 ms, 0.65 us a batch; hangGlider_2
 *   (longest row 1463) 164 us, 0.45 us a batch; JDS on arrow 0.40.
 * - launch_us 3.25: one launch with its first step (a round of loads and gathers), the
 *   chain terms count the steps past it: half the per-call time of the two-launch rows
 *   (csr/merge, coo/atomic) on the suite's inputs of at most 1000 entries (skew_fp64,
 *   west0067: 6.4-6.6 us a call; the wide set's five such inputs give 3.50).
 * - padded_margin 0.05: ELL/SELL/JDS must model 5% faster than CSR's best algorithm, on
 *   the part of CSR's time past its launch: CSR has no padding to misjudge and no thread
 *   walking a row alone. COO atomic (neither) needs only to model faster.
 * Issue 23 (bench/results/h100-spmv-2026-11-26-model.md: bench/spmv_model_replay replays
 * this model over both sets, scripts/spmv-model-replay.py joins it with the measured times
 * and derives the three constants below on one set to check them on the other):
 * - each candidate is priced from how its kernel runs: its launches (CSR scalar and vector
 *   a second one for rows past their bound, adaptive one for its deferred finish, COO
 *   atomic the beta pass), the dependent steps of its slowest warp (scalar and vector
 *   walk the rows within their bound, binned and adaptive the longest piece of a long row
 *   and adaptive's stream blocks a pass per 256 rows, up to 4 for mostly empty rows), and
 *   the finish of a row of several pieces (fence_us);
 * - fence_us 3.6: that finish (partial sum, fence, counter atomic, fence, the partial sums
 *   read): CSR adaptive on the suite's hangGlider_2 (3 pieces) and arrow (91) less a launch
 *   and the piece's 3 steps (the wide set's nine such inputs give 3.36);
 * - l2_bytes 50 MB (the H100's L2; 60 MB on an H200) and l2_gbs 6950: a kernel whose bytes
 *   fit in the L2 streams them from it on repeated calls: CSR binned on poisson3d:40 (its
 *   CSR bytes over its time less a launch and over its efficiency; the wide set's banded,
 *   blocks and rect inputs of 0.8-1.6M entries give 6070);
 * - sector_bytes 32: past the L2 (x larger than l2_bytes) a gather far from the diagonal
 *   misses with the odds 1 - l2 / x and brings a sector from DRAM, except in the window a
 *   thread-per-row walk of sorted columns keeps (l2_miss_bytes): rect:250000:8000000:64
 *   (x 64 MB) ran ELL, JDS, SELL at 191-252 us against CSR adaptive's 363; ELL and JDS
 *   (a row's slots nrows apart) keep no window there: from the same L2 requests they read
 *   569 and 557 MB of DRAM against SELL's 383 (compulsory 258), priced as spread gathers
 *   (bench/results/h100-session22-2026-11-27.md; with x in the L2 they read the same).
 * - long rows: rows longer than 4 x mean + 32 go to the tail of ELL, JDS, SELL (a
 *   sigma-window of SELL then spans at most ~4x its mean; 32 keeps short-row matrices,
 *   mean 1-8, tail-free up to 36-64 entries a row); ELL's tail also takes the rows
 *   longer than 2 x mean, so its padded slots stay within 2 x nnz (never refused by the
 *   4 x CSR bound; stencils, whose rows are within 2 x mean, keep no tail). JDS's and
 *   SELL's do too where a tail exists anyway and the rows fit one wave of resident
 *   threads (sp__policy_long_row_bound).
 * To re-measure (a new GPU, or new kernels): scripts/device-spmv23.sh runs both sets,
 * scripts/spmv-model-replay.py (holdout: launch_us, fence_us, l2_gbs from each set, each
 * checked on the other) and scripts/spmv-model-constants.py, which prints eff_near and
 * eff_far from their JSON (the
 * mean of each kernel's GB/s over the read bandwidth on the near and far inputs of >= 1M
 * entries) and step_us from a SELL/JDS run without tails (--long-row-bound -1) on a
 * circuit matrix (its time over the longest row / 4); put them in a row for that SM
 * version in the table below (bench/results/h100-spmv23.md keeps the derivation). */
static const sp__spmv_format_policy_t spmv_format_sm90 = {
    .read_gbs = 3071.0,
    .launch_us = 3.25,
    .step_us = 0.45,
    .threads_per_sm = 2048,
    .default_sms = 132,
    .eff_near = {0.70, 0.67, 0.83, 0.75, 0.98, 0.93, 0.91, 0.67},
    .eff_far = {0.153, 0.233, 0.267, 0.30, 0.30, 0.291, 0.271, 0.247},
    .fence_us = 3.6,
    .l2_bytes = 50.0 * 1024 * 1024,
    .l2_gbs = 6950.0,
    .sector_bytes = 32.0,
    .padded_margin = 0.05,
    .long_row_factor = 4.0,
    .long_row_slack = 32.0,
    .ell_long_row_factor = 2.0,
};

/* ---- CSR DEFAULT ----
 * Rows are regular when the longest row is at most regular_factor * mean + regular_slack
 * entries; otherwise one long row would hold its thread or sub-warp (and the SM slot) for
 * the whole launch, and a load-balanced algorithm spreads it. Regular rows of at most
 * scalar_max_mean entries on average go to CSR scalar, longer ones to vector: on the
 * 7-point Poisson 160^3 (mean 7) scalar ran 1.46x faster than 2-lane vector on an H200
 * (bench/results/h200-spmv.md). Irregular rows go to CSR adaptive, measured faster than
 * CSR binned and CSR split on the H200 (bench/results/h200-spmv-suite.md, 2026-11-24:
 * Kronecker 22 1.144 against 1.192 and 1.292 ms, uniform 22 1.287 against 1.441 and
 * 1.605 ms, in one run), unless rows outnumber entries 2:1 (mostly empty rows, whose walk
 * would unbalance adaptive's warps; the merge path counts rows as work). CSR vector's
 * sub-warp is the smallest power of two >= the mean row length within 2..32 lanes (Bell &
 * Garland 2009). */
static const sp__spmv_csr_policy_t spmv_csr_sm90 = {
    .regular_factor = 8.0,
    .regular_slack = 32.0,
    .scalar_max_mean = 8.0,
    .merge_min_rows_per_entry = 2.0,
    .irregular_alg = SP_SPMV_ALG_CSR_ADAPTIVE,
    .vector_min_width = 2,
    .vector_max_width = 32,
};

/* ---- BFS AUTO on a CUDA context ----
 * From the graph's size and degrees (rule derived from the H200 runs in
 * bench/results/h200-bfs.md, 23 graphs, every variant and loop):
 * - dense (mean degree >= 8 with >= 2^22 adjacency entries: Kronecker, uniform; or mean
 *   degree >= 20 from 256 vertices: Wiki-Vote, email-Eu-core, facebook), or with a hub of
 *   >= 16384 edges (arrow): direction-optimized, with the graph loop (no host round trip
 *   per level: 155 against 127 GTEPS on Kronecker 22) except on large graphs, where the
 *   host loop's level kernels win: from 2^28 entries (Kronecker 24: 213 against 203
 *   GTEPS), and from 2^22 entries without a hub (uniform 22, longest row 8 mean + 16 at
 *   most: 93 against 83 GTEPS, its many push levels run the host loop's batched
 *   frontier kernel);
 * - small (256..2^16 vertices) without a hub (longest row <= 8 mean + 16: meshes, roads,
 *   1138_bus, Erdos971): many levels of small frontiers, which one block runs fastest
 *   (p2p-Gnutella08, longest row 97 at mean 6.6, and the graphs with rows of over a
 *   thousand run faster on the persistent grid);
 * - everything else (small skewed graphs, large sparse ones such as grids): the
 *   soft-synchronized persistent frontier loop, no launch or round trip per level.
 * alpha 15 and beta 18 are Beamer's values (Beamer, Asanovic & Patterson, SC'12).
 * Per call (issue 22): these were chosen on CUDA-event times of the searches alone, which
 * left out each call's scratch and, for the graph loop, its graph build (0.25-0.41 ms on an
 * H100, which made direction-optimized/graph slower per call than /host on Kronecker 22).
 * The matrix now caches both (sp_bfs_prepare), so what a repeated call pays beyond the
 * search is the same few launches and one read-back on every loop, the host loop adding a
 * round trip per level: the ordering above holds per call. scripts/device-bfs22.sh
 * prints the per-call table to confirm it (AUTO within 10% of the best row). */
static const sp__bfs_policy_t bfs_sm90 = {
    .dense_min_nnz = (int64_t)1 << 22,
    .dense_min_mean = 8.0,
    .dense_small_min_n = 256,
    .dense_small_min_mean = 20.0,
    .hub_min_row = 16384,
    .hub_mean_factor = 8.0,
    .hub_slack = 16.0,
    .host_loop_min_nnz = (int64_t)1 << 28,
    .host_loop_nohub_min_nnz = (int64_t)1 << 22,
    .single_block_min_n = 256,
    .single_block_max_n = (int64_t)1 << 16,
    .alpha = 15.0,
    .beta = 18.0,
    .pull_vertex_weight = 1.0,
};

/* ---- SpTRSV ----
 * SOFT_SYNC runs the value-as-flag block kernel (SOFT_BLOCK: 256 consecutive rows a block,
 * x its own ready flag). Measured against the wave kernel (SP_GPU_SPTRSV_WAVE: a warp a
 * group of one level's rows, one wait on the previous level's counter) on an H200 in one
 * run (bench/results/h200x2-run-2026-11-25b.md, sptrsv_bench --internal, solve us):
 * poisson3d100 651.6 against 703.2, poisson3d128 884.0 / 978.6, poisson2d1000 2907.9 /
 * 4164.3, ani4 168.8 / 302.4, BentPipe2D100 228.5 / 342.0, young1c 56.2 / 96.9, 1138_bus
 * 51.4 / 53.3; the wave kernel only on arrow (2 levels, which AUTO gives level scheduling).
 * AUTO: the soft kernel unless the triangle's levels are few (arrow, 2 levels: level
 * scheduling 12.5 us against 10.4 for the block kernel) or narrow (a chain hands every
 * row over: chain1M 664 ms against 584 for level scheduling, which runs consecutive small
 * levels in one block), from the levels the soft plan's analysis counts (H200,
 * bench/results/h200-solvers.md). The single-block kernel (SP_GPU_SPTRSV_SMALL) is not an
 * AUTO choice (small_max_nnz 0): in the same run it beat the block kernel on 1138_bus (21
 * levels: 34.6 against 51.4 us) but lost on young1c (57 levels: 68.4 / 56.2), BentPipe2D100
 * (199: 248.6 / 228.5) and ani4 (183: 248.7 / 168.8); its rule (sizes known before the
 * analysis) cannot see the levels that separate them. */
static const sp__sptrsv_policy_t sptrsv_sm90 = {
    .auto_min_levels = 3,
    .auto_min_rows_per_level = 8,
    .soft_kernel = SP_GPU_SPTRSV_SOFT_BLOCK,
    .small_max_bytes = SP_GPU_SPTRSV_SMALL_MAX_BYTES,
    .small_max_nnz = 0,
};

/* ---- format builds ----
 * ELL is refused above 4 x the CSR bytes + 1 MiB (a matrix with one long row would pad
 * every row to it); SELL slices of 32 rows (a warp) sorted in windows of 32 slices. */
static const sp__matrix_policy_t matrix_sm90 = {
    .ell_bound_factor = 4,
    .ell_bound_slack = (int64_t)1 << 20,
    .sell_c = 32,
    .sell_sigma_factor = 32,
};

/* The table: the first row is the default. */
static const sp__policy_t g_policies[] = {
    {90, &spmv_format_sm90, &spmv_csr_sm90, &bfs_sm90, &sptrsv_sm90, &matrix_sm90},
};

const sp__policy_t *sp__policy_for_sm(int sm)
{
    for (size_t i = 0; i < sizeof g_policies / sizeof g_policies[0]; i++)
        if (g_policies[i].sm == sm) return &g_policies[i];
    return &g_policies[0];
}

const sp__policy_t *sp__policy_for(const sp_context_t *ctx)
{
    if (ctx == NULL || ctx->kind != SP_DEVICE_CUDA) return &g_policies[0];
    return sp__policy_for_sm(ctx->info.cc_major * 10 + ctx->info.cc_minor);
}

/* The smallest power of two >= mean within the policy's bounds. */
static int vector_width(const sp__spmv_csr_policy_t *c, double mean)
{
    int w = c->vector_min_width;
    while (w < c->vector_max_width && (double)w < mean) w *= 2;
    return w;
}

sp_spmv_alg_t sp__policy_spmv_csr_alg(const sp__policy_t *p, sp_spmv_alg_t alg, int64_t nrows,
                                      int64_t nnz, int64_t row_max, int *width)
{
    const sp__spmv_csr_policy_t *c = p->spmv_csr;
    double mean = nrows > 0 ? (double)nnz / (double)nrows : 0.0;
    if (alg == SP_SPMV_ALG_DEFAULT) {
        if ((double)row_max > c->regular_factor * mean + c->regular_slack)
            alg = (double)nrows > c->merge_min_rows_per_entry * (double)nnz
                      ? SP_SPMV_ALG_CSR_MERGE
                      : c->irregular_alg;
        else
            alg = mean <= c->scalar_max_mean ? SP_SPMV_ALG_CSR_SCALAR : SP_SPMV_ALG_CSR_VECTOR;
    }
    *width = alg == SP_SPMV_ALG_CSR_VECTOR ? vector_width(c, mean) : 0;
    return alg;
}

int64_t sp__policy_long_row_bound(const sp__policy_t *p, sp_format_t fmt, int64_t nrows,
                                  int64_t nnz, int64_t row_max, int sm_count)
{
    const sp__spmv_format_policy_t *f = p->spmv_format;
    double mean = nrows > 0 ? (double)nnz / (double)nrows : 0.0;
    double resident = (double)(sm_count > 0 ? sm_count : f->default_sms) * f->threads_per_sm;
    int64_t bound = (int64_t)(f->long_row_factor * mean + f->long_row_slack);
    int64_t ell = (int64_t)(f->ell_long_row_factor * mean);
    ell = ell < 1 ? 1 : ell < bound ? ell : bound;
    /* one wave (every row's thread resident at once) with a tail anyway: the longest kept
       row's walk sets the time, not the bytes, and the tail's launch is paid already, so
       JDS and SELL keep ELL's shorter rows (email-Eu-core, 1005 rows of mean 25, longest
       334: SELL 3.8x and JDS 3.5x the best row at 134 entries a walk, ELL 1.9x at 51) */
    if (fmt == SP_FORMAT_ELL || (row_max > bound && (double)nrows <= resident)) return ell;
    return bound;
}

/* Rows longer than bound and their entries, from the histogram (a bin cut by the bound
 * counts the share of its length range above it); without one, the longest row alone. */
static void rows_above(const sp__spmv_stats_t *s, double bound, double *rows, double *entries)
{
    *rows = *entries = 0.0;
    if ((double)s->row_max <= bound) return;
    if (!s->hist_nnz) {
        *rows = 1.0, *entries = (double)s->row_max;
        return;
    }
    for (int b = 1; b < SP_ROW_HIST_BINS; b++) {
        double lo = (double)((int64_t)1 << (b - 1)), hi = 2.0 * lo - 1.0;
        double share = lo > bound ? 1.0 : (hi - bound) / (hi - lo + 1.0);
        if (hi <= bound) continue;
        *rows += (double)s->hist[b] * share;
        *entries += (double)s->hist_nnz[b] * share;
    }
}

/* Entries in the tail of ELL, JDS, SELL (rows longer than s->long_row_bound). */
static double tail_entries(const sp__spmv_stats_t *s)
{
    double rows, entries;
    rows_above(s, (double)s->long_row_bound, &rows, &entries);
    return entries;
}

/* ceil(a / b) for positive b, at least 1. */
static double steps(double a, double b)
{
    double q = ceil(a / b);
    return q < 1.0 ? 1.0 : q;
}

static double at_most(double a, double b) { return a < b ? a : b; }
static double at_least(double a, double b) { return a > b ? a : b; }

/* The fraction of entries near the diagonal, within 0..1. */
static double near_of(const sp__spmv_stats_t *s)
{
    return s->col_near < 0.0 ? 0.0 : s->col_near > 1.0 ? 1.0 : s->col_near;
}

/* The model's time of kind k moving `bytes` with a dependent chain of `chain` steps and
 * `launches` launches (policy.h). */
static double kind_us(const sp__spmv_format_policy_t *f, const sp__spmv_stats_t *s,
                      sp__spmv_kind_t k, double bytes, double chain, int launches)
{
    double near = near_of(s);
    double eff = near * f->eff_near[k] + (1.0 - near) * f->eff_far[k];
    double gbs = bytes <= f->l2_bytes ? f->l2_gbs : f->read_gbs; /* repeated calls: in L2 */
    double stream = bytes / (gbs * eff * 1e3); /* GB/s = 1e3 bytes per us */
    /* launch_us was measured with each launch's first step in it (the smallest inputs) */
    double walk = (chain > launches ? chain - launches : 0.0) * f->step_us;
    return launches * f->launch_us + (stream > walk ? stream : walk);
}

/* The DRAM bytes the gathers of x add when x is larger than the L2 (x_bytes > l2_bytes): a
 * gather far from the diagonal misses the L2 with the odds 1 - l2 / x and brings a sector
 * from DRAM. A kernel whose resident threads each walk one row's sorted columns (walk:
 * SELL, CSR scalar) sweeps x in a window instead: its rows step through their columns
 * together, the j-th entries of rows of mean length L spread over about 2 / sqrt(L + 1) of
 * x (twice the spread of the j-th of L uniform columns) plus the drift between rows of
 * unequal length (stddev / mean); where that window fits in the L2 its gathers hit, and x
 * comes from DRAM once (the compulsory bytes). A warp or block that gathers a whole row at
 * once (CSR vector, binned, adaptive, COO) spreads its gathers over all of x, and so, as
 * measured, do ELL and JDS, whose row's slots lie nrows apart: on rect:250000:8000000:64
 * they read 569 and 557 MB of DRAM against SELL's 383 from the same L2 requests (and the
 * same 208-209 MB with x in the L2), 250 against 190 us; on rect:300000:7000000:48 (x 56 MB)
 * ELL took 223 us, SELL 186 (bench/results/h100-session22-2026-11-27.md). */
static double l2_miss_bytes(const sp__spmv_format_policy_t *f, const sp__spmv_stats_t *s,
                            double x_bytes, int walk)
{
    double window = x_bytes;
    if (x_bytes <= f->l2_bytes) return 0.0;
    if (walk && s->row_mean > 0.0)
        window = x_bytes * at_most(1.0, 2.0 / sqrt(s->row_mean + 1.0) +
                                            s->row_stddev / s->row_mean);
    if (window <= f->l2_bytes) return 0.0;
    return (1.0 - near_of(s)) * (double)s->nnz * (1.0 - f->l2_bytes / window) * f->sector_bytes;
}

/* The long-row pieces (kernels/spmv/spmv_long_rows.cuh): a warp per piece of pe entries,
 * lane_loads loads in flight a lane, after two dependent reads of the piece tables; the
 * longest piece's rounds (steps). */
static double piece_steps(double longest, double pe, double lane_loads)
{
    return 2.0 + steps(at_most(longest, pe), 32.0 * lane_loads);
}

/* And where a row spans several pieces, the finish of the row by its last piece (fence,
 * counter atomic, fence, the partial sums read), unless a second launch finishes the rows
 * (deferred). */
static double finish_us(const sp__spmv_format_policy_t *f, double longest, double pe,
                        int deferred)
{
    return !deferred && longest > pe ? f->fence_us : 0.0;
}

/* CSR adaptive's stream blocks (kernels/spmv/spmv_csr_adaptive.cu): a block takes the rows
 * whose entries start within a window of 1024 entries, at most 1024 rows, and adds them up
 * with sub-warps of g lanes (the smallest power of two with 4 g entries a row, up to 32), a
 * pass of 256 / g rows at a time, each pass a dependent read of the row pointers: rows of
 * mean length below 4 (mostly empty rows) take up to 4 passes where longer ones take one.
 * The steps of a block: the row range, the loads, the gathers, then its passes. */
static double stream_block_steps(double mean)
{
    double rows = mean > 1.0 ? at_most(1024.0, 1024.0 / mean) : 1024.0, g = 1.0;
    while (g < 32.0 && mean > 4.0 * g) g *= 2.0;
    return 2.0 + steps(rows * g, 256.0);
}

/* CSR's algorithms, each priced from how it runs (src/policy.c's SpMV comment): the time of
 * each in out->cand, the best in out->us[SP_FORMAT_CSR] and out->alg. */
static void price_csr(const sp__policy_t *p, const sp__spmv_stats_t *s, double csr_bytes,
                      double x_bytes, sp__spmv_choice_t *out)
{
    const sp__spmv_format_policy_t *f = p->spmv_format;
    const sp__spmv_csr_policy_t *c = p->spmv_csr;
    double m = (double)s->nrows, nnz = (double)s->nnz, longest = (double)s->row_max;
    double resident = (double)(s->sm_count > 0 ? s->sm_count : f->default_sms) * f->threads_per_sm;
    double gather = csr_bytes + l2_miss_bytes(f, s, x_bytes, 0);
    double walk = csr_bytes + l2_miss_bytes(f, s, x_bytes, 1);
    double vw = 2, pe = nnz < 4194304.0 ? 512.0 : 2048.0, long_rows, long_entries;
    /* scalar and vector: rows past their bound go to adaptive's pieces in a second launch
       (none past the narrow limit with 64-bit offsets, issue 20); their threads walk the
       rows within it */
    int64_t bound = s->wide ? -1
                            : sp__policy_spmv_csr_long_bound(p, s->nrows, s->nnz, s->row_max, 0);
    double kept = bound > 0 ? (double)bound : longest;
    /* scalar and vector's second launch: adaptive's pieces, after the first launch */
    double pieces = bound > 0 ? f->launch_us + piece_steps(longest, pe, 8.0) * f->step_us +
                                    finish_us(f, longest, pe, 0)
                              : 0.0;
    int deferred;
    out->us[SP_FORMAT_CSR] = -1.0;
    if (m > c->merge_min_rows_per_entry * nnz && !s->wide) {
        out->alg = SP_SPMV_ALG_CSR_MERGE;
        out->us[SP_FORMAT_CSR] = kind_us(f, s, SP__KIND_CSR_ADAPTIVE, gather, 2.0, 2);
        out->cand[SP__CAND_CSR_MERGE] = out->us[SP_FORMAT_CSR];
        out->cand_bytes[SP__CAND_CSR_MERGE] = gather;
        return;
    }
    while (vw < c->vector_max_width && vw < s->row_mean) vw *= 2;
    /* adaptive finishes its long rows in a second launch when they have at least 4096
       pieces beyond each row's first (kernels/spmv/spmv_policy_csr.h) */
    rows_above(s, 256.0, &long_rows, &long_entries);
    deferred = long_entries / pe - long_rows >= 4096.0;
    {
        struct { sp__spmv_cand_t c; sp_spmv_alg_t alg; sp__spmv_kind_t k; double bytes, chain;
                 int launches; double extra_us; } cand[] = {
            /* binned first: a tie (small inputs, launch-bound) goes to it, measured ahead of
               adaptive on 1138_bus, ani4 and BentPipe2D100; rows of up to 128 entries in one
               sub-warp pass, longer ones in warp pieces of 1024, 4 loads in flight a lane */
            {SP__CAND_CSR_BINNED, SP_SPMV_ALG_CSR_BINNED, SP__KIND_CSR_BINNED, gather,
             longest <= 128 ? 3.0 : piece_steps(longest, 1024.0, 4.0), 1,
             finish_us(f, longest, 1024.0, 0)},
            /* adaptive: rows of up to 256 in its stream blocks, longer ones in pieces of pe,
               8 loads in flight a lane, in the same launch (a second one when deferred) */
            {SP__CAND_CSR_ADAPTIVE, SP_SPMV_ALG_CSR_ADAPTIVE, SP__KIND_CSR_ADAPTIVE, gather,
             longest <= 256 ? stream_block_steps(s->row_mean)
                            : at_least(piece_steps(longest, pe, 8.0),
                                       stream_block_steps(s->row_mean)),
             deferred ? 2 : 1, finish_us(f, longest, pe, deferred)},
            /* scalar: a thread walks its row, 8 entries a step, a wave of resident threads
               after another */
            {SP__CAND_CSR_SCALAR, SP_SPMV_ALG_CSR_SCALAR, SP__KIND_CSR_SCALAR, walk,
             steps(kept, 8) * steps(m, resident), 1, pieces},
            /* vector: a sub-warp of vw lanes walks its row, 4 loads in flight a lane */
            {SP__CAND_CSR_VECTOR, SP_SPMV_ALG_CSR_VECTOR, SP__KIND_CSR_VECTOR, gather,
             steps(kept, 4 * vw) * steps(m * vw, resident), 1, pieces},
        };
        for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
            double t = kind_us(f, s, cand[i].k, cand[i].bytes, cand[i].chain, cand[i].launches) +
                       cand[i].extra_us;
            if (s->wide && cand[i].alg != SP_SPMV_ALG_CSR_SCALAR &&
                cand[i].alg != SP_SPMV_ALG_CSR_VECTOR)
                continue;
            out->cand[cand[i].c] = t;
            out->cand_bytes[cand[i].c] = cand[i].bytes;
            if (out->us[SP_FORMAT_CSR] < 0.0 || t < out->us[SP_FORMAT_CSR]) {
                out->us[SP_FORMAT_CSR] = t;
                out->alg = cand[i].alg;
            }
        }
    }
}

sp__spmv_choice_t sp__policy_spmv_choose(const sp__policy_t *p, const sp__spmv_stats_t *s)
{
    const sp__spmv_format_policy_t *f = p->spmv_format;
    sp__spmv_choice_t out;
    double v = s->value_bytes > 0 ? s->value_bytes : 8, m = (double)s->nrows;
    double nnz = (double)s->nnz, xy = (m + (double)s->ncols) * v, x_bytes = (double)s->ncols * v;
    double resident = (double)(s->sm_count > 0 ? s->sm_count : f->default_sms) * f->threads_per_sm;
    double waves = steps(m, resident), tail = tail_entries(s), kept = nnz - tail;
    double width = s->row_max_kept > 0 ? (double)s->row_max_kept
                   : (double)(s->row_max < s->long_row_bound ? s->row_max : s->long_row_bound);
    double tail_us = 0.0, best, walk_miss = l2_miss_bytes(f, s, x_bytes, 1);
    double spread_miss = l2_miss_bytes(f, s, x_bytes, 0); /* ELL, JDS: no window (above) */
    double csr_bytes = nnz * (4 + v) + (m + 1) * (s->wide ? 8 : 4) + xy;
    for (int g = 0; g < SP_FORMAT_COUNT; g++) out.us[g] = -1.0;
    for (int k = 0; k < SP__CAND_COUNT; k++) out.cand[k] = out.cand_bytes[k] = -1.0;
    out.format = SP_FORMAT_CSR;
    out.alg = SP_SPMV_ALG_CSR_ADAPTIVE;
    out.csr_alg = SP_SPMV_ALG_DEFAULT;
    if (s->nnz == 0) {
        out.format = s->wide && !s->ell_wide ? SP_FORMAT_CSR : SP_FORMAT_ELL;
        out.alg = SP_SPMV_ALG_DEFAULT;
        return out;
    }
    price_csr(p, s, csr_bytes, x_bytes, &out);
    out.csr_alg = out.alg;
    /* 64-bit offsets past the narrow limit (issue 20): of the padded formats only ELL with no
       row for its tail */
    if (s->wide && !s->ell_wide) return out;
    /* the padded formats: one thread per row walks up to `width` slots, 4 at a time */
    if (tail > 0.0) tail_us = kind_us(f, s, SP__KIND_TAIL, tail * (8 + v), 1.0, 1);
    {
        sp__spmv_stats_t e = *s;
        double ell_tail, ell_width, ell_tail_us = 0.0, ell_bytes;
        if (s->ell_long_row_bound > 0) e.long_row_bound = s->ell_long_row_bound;
        ell_tail = tail_entries(&e);
        ell_width = s->ell_row_max_kept > 0 ? (double)s->ell_row_max_kept
                    : (double)(s->row_max < e.long_row_bound ? s->row_max : e.long_row_bound);
        if (ell_tail > 0.0) ell_tail_us = kind_us(f, s, SP__KIND_TAIL, ell_tail * (8 + v), 1.0, 1);
        /* ELL at its plain bytes, 4 + v a slot, even where the build will make a value table
           (5 bytes a slot; whether it does is known only after the build, from the count of
           distinct values): the table leaves AUTO's choices as they were and only makes the
           ELL it picks cheaper (docs/ARCHITECTURE.md, "ELL's value table") */
        ell_bytes = m * ell_width * (4 + v) + xy + spread_miss;
        if (m * ell_width * (4 + v) <= (double)p->matrix->ell_bound_factor * csr_bytes) {
            out.us[SP_FORMAT_ELL] = kind_us(f, s, SP__KIND_ELL, ell_bytes,
                                            steps(ell_width, 4) * waves, 1) + ell_tail_us;
            out.cand_bytes[SP__CAND_ELL] = ell_bytes;
        }
    }
    if (!s->wide) {
        double sell_bytes = 1.05 * kept * (4 + v) + 4 * m + xy + walk_miss;
        double jds_bytes = kept * (4 + v) + 4 * m + xy + spread_miss;
        /* COO atomic: y = beta * y, then a warp per 32 entries adds each run of one row with
           an atomic (two launches; y read and written by both; row, column and value an
           entry); the matrix's own COO, always there. Priced on the CSR byte model, the
           unit its efficiencies were measured in (the kernel's GB/s counted as CSR bytes:
           spmv-model-constants.py); its own 16 bytes an entry against that unit made it
           a third dearer than measured (Wiki-Vote: 6.3 us measured, binned chosen at 9.5) */
        double coo_bytes = csr_bytes + l2_miss_bytes(f, s, x_bytes, 0);
        out.us[SP_FORMAT_SELL] = kind_us(f, s, SP__KIND_SELL, sell_bytes,
                                         steps(width, 4) * waves, 1) + tail_us;
        out.us[SP_FORMAT_JDS] = kind_us(f, s, SP__KIND_JDS, jds_bytes,
                                        steps(width, 4) * waves, 1) + tail_us;
        out.us[SP_FORMAT_COO] = kind_us(f, s, SP__KIND_TAIL, coo_bytes, 2.0, 2);
        out.cand_bytes[SP__CAND_SELL] = sell_bytes;
        out.cand_bytes[SP__CAND_JDS] = jds_bytes;
        out.cand_bytes[SP__CAND_COO_ATOMIC] = coo_bytes;
    }
    out.cand[SP__CAND_ELL] = out.us[SP_FORMAT_ELL];
    out.cand[SP__CAND_SELL] = out.us[SP_FORMAT_SELL];
    out.cand[SP__CAND_JDS] = out.us[SP_FORMAT_JDS];
    out.cand[SP__CAND_COO_ATOMIC] = out.us[SP_FORMAT_COO];
    /* a padded format must model padded_margin faster than CSR's best algorithm, on the
       part of CSR's time beyond its one launch (the margin covers a misjudged padding or
       walk, which the launch does not have); COO atomic, with neither, need only be
       faster */
    best = out.us[SP_FORMAT_CSR] - f->padded_margin * (out.us[SP_FORMAT_CSR] - f->launch_us);
    {
        sp_format_t padded[] = {SP_FORMAT_ELL, SP_FORMAT_SELL, SP_FORMAT_JDS};
        for (size_t i = 0; i < sizeof padded / sizeof padded[0]; i++)
            if (out.us[padded[i]] >= 0.0 && out.us[padded[i]] < best) {
                best = out.us[padded[i]];
                out.format = padded[i];
                out.alg = SP_SPMV_ALG_DEFAULT;
            }
    }
    if (out.us[SP_FORMAT_COO] >= 0.0 && out.us[SP_FORMAT_COO] < out.us[SP_FORMAT_CSR] &&
        (out.format == SP_FORMAT_CSR || out.us[SP_FORMAT_COO] < out.us[out.format])) {
        out.format = SP_FORMAT_COO;
        out.alg = SP_SPMV_ALG_COO_ATOMIC;
    }
    return out;
}

/* ---- CSR scalar and vector with long rows (issue 23) ----
 * A thread (scalar) or sub-warp (vector) per row walks its row alone: one row of 10^6
 * entries held the whole launch (a power-law matrix of 2M rows, exponent 1.5: scalar
 * 0.001x and vector 0.004x cuSPARSE on an H100; Kronecker 22: 21.4 and 3.48 ms against
 * 1.26 for CSR adaptive). Rows longer than the larger of the bound of ELL/JDS/SELL's tails
 * (4 x mean + 32) and CSR DEFAULT's regular bound (8 x mean + 32) go to warp pieces
 * instead, or those longer than the matrix's long_row_bound option (< 0: none, as for the
 * tails). A matrix whose longest row is within it keeps the plan it had, so every matrix
 * CSR DEFAULT gives scalar or vector keeps its one launch (a second costs a small
 * matrix's call about half its time). */
int64_t sp__policy_spmv_csr_long_bound(const sp__policy_t *p, int64_t nrows, int64_t nnz,
                                       int64_t row_max, int64_t option)
{
    const sp__spmv_csr_policy_t *c = p->spmv_csr;
    double mean = nrows > 0 ? (double)nnz / (double)nrows : 0.0;
    int64_t tails = sp__policy_long_row_bound(p, SP_FORMAT_CSR, nrows, nnz, 0, 0);
    int64_t regular = (int64_t)(c->regular_factor * mean + c->regular_slack);
    int64_t bound = option > 0 ? option : tails > regular ? tails : regular;
    if (option < 0 || row_max <= bound) return -1;
    return bound;
}

/* ---- CSC ----
 * The lanes of a step that hold one row add first (a match and a shuffle loop each step)
 * only when a row is long enough that its atomics, one per column it appears in, would
 * queue on one address: a dense row of 2M entries did (denselines), rows of a few hundred
 * entries do not. Below that the match is pure cost: a stencil's steps hold 27 distinct
 * rows in 32 entries. From 2048 entries, as the heavy rows' bound: a row of fewer queues
 * at most about 2048 reductions, a few microseconds spread over the call, and the match
 * cost more than that on rajat01 (longest row 1442: 20.2 us with it, 16.1 without; H100,
 * bench/results/h100-session20-2026-11-27.md, call 2; the bound was 1024 before). */
static const int64_t csc_aggregate_min_row_sm90 = 2048;

/* With heavy rows summed in shared memory (below) the match only costs: on an H100
 * (bench/csc_bench, bench/results/h100-csc-2026-11-26.md, call 1, the heavy rows' first
 * kernel) heavy rows alone took 0.32 ms on denselines:2000000:4:8, 0.32 on
 * circuit:4000000:16 and 0.17 on powerlaw:2000000:1.5:8, with the match as well 0.54, 0.39
 * and 0.33 (without heavy rows, the match: 1.97, 1.44, 0.78). So it is kept for matrices
 * whose long rows are below the heavy bound. */
int sp__policy_spmv_csc_aggregate(const sp__policy_t *p, int64_t row_max, int64_t heavy_bound)
{
    (void)p; /* one row today: sm_90's */
    return row_max >= csc_aggregate_min_row_sm90 && heavy_bound < 0;
}

/* The window of rows near the chunk's columns (kernels/spmv/spmv_policy_coo.h), for square
 * matrices, where the diagonal runs through every chunk: a stencil's or a band's rows near
 * it recur in several columns of a chunk and the window adds them once, 32 consecutive
 * rows an instruction; it costs a flush of its 256 slots after every chunk. Timed on an
 * H100 against the kernel without it (bench/csc_bench, the same run;
 * bench/results/h100-session20-2026-11-27.md, call 2, and h100-csc-2026-11-26.md, call 4):
 * - below 2^21 entries it lost on 11 of 12 inputs: 3D Poisson 20..40 and ani4,
 *   BentPipe2D100, rajat01, west0067 by 0.5-4 us a call (a flush on a call of 13-16 us),
 *   banded:200000:8 by 15%; it gained 2% on Poisson 60^3;
 * - from 2^21 to 2^23 it was mixed: Poisson 80^3 (3.5M entries) -3%, 100^3 +1%,
 *   banded:1000000:8 -7.5%, banded:200000:64 +9%;
 * - from 2^23 entries it gained or tied on every input measured: Poisson 160^3 +5%,
 *   banded:2000000:64 +8%, blocks:1500000:3:6 +27%, Kronecker 22 -0.3%.
 * So it is on from 2^23 entries. With heavy rows it is off: there it lost on every input
 * measured, 2-5% in the nineteenth session (call 6), then Kronecker 22 with its values
 * 8% (2.360 ms against 2.181), circuit:4000000:16 11% (0.362 against 0.326), in float 10%,
 * powerlaw:2000000:3:16 3% (calls 5 and 7). In float it was mixed without heavy rows too
 * (banded:2000000:64 -15%, blocks:1500000:3:6 +20%, blocks:600000:6:9 +4%, Poisson 160^3
 * -4%); it stays on there, one rule for both types. (An earlier kernel lost 8% with it on
 * Poisson 160^3 on an H200, bench/results/h200x2-run-2026-11-25b.md.) */
static const int64_t csc_window_min_nnz_sm90 = (int64_t)1 << 23;

int sp__policy_spmv_csc_window(const sp__policy_t *p, int64_t nrows, int64_t ncols,
                               int64_t nnz, int64_t heavy_bound)
{
    (void)p; /* one row today: sm_90's */
    return nrows == ncols && nrows > 0 && nnz >= csc_window_min_nnz_sm90 && heavy_bound < 0;
}

/* Heavy rows: a row in most columns queues its atomics on one address (one reduction a
 * step even with the lanes added first): denselines:2000000:4:8's CSC took 8.9x the
 * fastest libsp format, circuit:4000000:16's 6.5x, powerlaw:2000000:1.5:8's 7.8x (H100,
 * bench/results/h100-spmv-auto-2026-11-26). The kernel sums its longest rows in shared
 * memory, one reduction a row a block at the end, so a row of R entries costs the grid's
 * blocks (about 500) in reductions instead of R / 3 or so: 1.47-1.49x the fastest libsp
 * format on those three now (bench/results/h100-csc-2026-11-26.md). A row is heavy from 2048
 * entries and 16x the mean: a few thousand reductions on one address, serialised at the
 * L2 at a few ns each, are microseconds, which a product of 2^20 entries or more hides;
 * below that, and in matrices of rows all alike, the lookup (a bit of a shared filter an
 * entry) would be the only effect. */
static const int64_t csc_heavy_min_row_sm90 = 2048;
static const double csc_heavy_mean_factor = 16.0;
static const int64_t csc_heavy_candidates = 4096; /* sp_spmv_csc_policy::heavy_candidates */

int64_t sp__policy_spmv_csc_heavy_bound(const sp__policy_t *p, int64_t nrows, int64_t nnz,
                                        int64_t row_max, const int64_t *hist)
{
    double mean = nrows > 0 ? (double)nnz / (double)nrows : 0.0;
    int64_t bound = (int64_t)(csc_heavy_mean_factor * mean);
    (void)p; /* one row today: sm_90's */
    if (bound < csc_heavy_min_row_sm90) bound = csc_heavy_min_row_sm90;
    if (row_max < bound) return -1;
    if (hist) { /* bin b: rows of 2^(b-1) .. 2^b - 1 entries */
        int64_t rows = 0;
        for (int b = SP_ROW_HIST_BINS - 1; b >= 1; b--) {
            rows += hist[b];
            if (rows > csc_heavy_candidates) {
                int64_t edge = b < 62 ? (int64_t)1 << b : INT64_MAX; /* bin b + 1's first */
                if (edge > bound) bound = edge;
                break;
            }
        }
    }
    return row_max < bound ? -1 : bound;
}

/* A matrix equal to its transpose (bit for bit, values included) has its CSC equal to its
 * CSR, which the CSR kernels run without atomics: Poisson 160^3's CSC took 0.270 ms (3.5x
 * its ELL, 0.98x cuSPARSE's CSC SpMV), its CSR 0.174 ms (H100, the same run). The check is
 * a plan's, once per matrix (a thread an entry, two short binary searches; a mismatch ends
 * it early), so every square matrix is checked. */
int sp__policy_spmv_csc_try_symmetric(const sp__policy_t *p, int64_t nrows, int64_t ncols)
{
    (void)p;
    return nrows == ncols && nrows > 0;
}

/* Segmented: no atomics in the main pass and one write per row. */
sp_spmv_alg_t sp__policy_spmv_coo_alg(sp_spmv_alg_t alg)
{
    return alg == SP_SPMV_ALG_DEFAULT ? SP_SPMV_ALG_COO_SEGMENTED : alg;
}

/* The CUDA rule (bfs_sm90's comment) for a graph of n vertices and nnz entries. */
static void bfs_choose_cuda(const sp__bfs_policy_t *b, int64_t n, int64_t nnz, int64_t row_max,
                            sp_bfs_variant_t *variant, sp_bfs_loop_t *loop)
{
    double mean = n > 0 ? (double)nnz / (double)n : 0.0;
    int hub = (double)row_max > b->hub_mean_factor * mean + b->hub_slack;
    if ((nnz >= b->dense_min_nnz && mean >= b->dense_min_mean) ||
        (n >= b->dense_small_min_n && mean >= b->dense_small_min_mean) ||
        row_max >= b->hub_min_row) {
        int large = nnz >= b->host_loop_min_nnz || (nnz >= b->host_loop_nohub_min_nnz && !hub);
        *variant = SP_BFS_DIRECTION_OPT;
        *loop = large ? SP_BFS_LOOP_HOST : SP_BFS_LOOP_GRAPH;
    } else if (n >= b->single_block_min_n && n <= b->single_block_max_n && !hub) {
        *variant = SP_BFS_FRONTIER;
        *loop = SP_BFS_LOOP_SINGLE_BLOCK;
    } else {
        *variant = SP_BFS_FRONTIER;
        *loop = SP_BFS_LOOP_PERSISTENT;
    }
}

/* A host context, or a caller that fixes one of the two, gets direction-optimized with the
 * host loop (the frontier variant for the two device-side loops, direction-optimized for
 * the graph loop). */
void sp__bfs_choose(const sp_context_t *ctx, const sp_matrix_t *G, sp_bfs_variant_t *variant,
                    sp_bfs_loop_t *loop)
{
    if (*variant == SP_BFS_AUTO && *loop == SP_BFS_LOOP_AUTO && ctx != NULL && G != NULL &&
        ctx->kind == SP_DEVICE_CUDA) {
        bfs_choose_cuda(sp__policy_for(ctx)->bfs, G->f.coo.nrows, G->f.coo.nnz, G->row_max,
                        variant, loop);
        return;
    }
    if (*variant == SP_BFS_AUTO)
        *variant = *loop == SP_BFS_LOOP_SINGLE_BLOCK || *loop == SP_BFS_LOOP_PERSISTENT
                       ? SP_BFS_FRONTIER
                       : SP_BFS_DIRECTION_OPT;
    if (*loop == SP_BFS_LOOP_AUTO) *loop = SP_BFS_LOOP_HOST;
}

sp_bfs_direction_t sp__bfs_next_direction(sp_bfs_direction_t cur, int64_t m_f, int64_t m_u,
                                          int64_t n_u, int64_t n_f, int64_t n_f_prev,
                                          int64_t n, double alpha, double beta, double w)
{
    return sp_bfs_rule_next(cur == SP_BFS_DIR_PULL, m_f, m_u, n_u, n_f, n_f_prev, n, alpha,
                            beta, w)
               ? SP_BFS_DIR_PULL
               : SP_BFS_DIR_PUSH;
}

static atomic_int beamer_rule;

void sp__bfs_beamer_rule_set(int on) { atomic_store(&beamer_rule, on ? 1 : 0); }

int sp__bfs_beamer_rule(void) { return atomic_load(&beamer_rule); }

int sp__policy_sptrsv_use_small(const sp__policy_t *p, int64_t nrows, int64_t nnz,
                                size_t value_size)
{
    const sp__sptrsv_policy_t *s = p->sptrsv;
    return s->small_max_nnz > 0 && nrows > 0 &&
           nrows * (int64_t)value_size <= s->small_max_bytes && nnz <= s->small_max_nnz;
}

int sp__policy_sptrsv_use_levels(const sp__policy_t *p, int64_t nrows, int64_t levels)
{
    const sp__sptrsv_policy_t *s = p->sptrsv;
    return levels < s->auto_min_levels || nrows < s->auto_min_rows_per_level * levels;
}

/* ---- Solver loop (SP_SOLVER_LOOP_AUTO) ----
 * On a CUDA context the device loop (the fused iteration repeated by a CUDA graph's while
 * node, no host round trip an iteration), measured on an H200 against the step loop in one
 * run (bench/results/h200x2-run-2026-11-25b.md, cg_bench, b = ones, rtol 1e-8): CG Poisson
 * 100^3 0.0704 against 0.0744 ms an iteration, 160^3 0.2247 against 0.2226 (1% behind),
 * PCG-Jacobi 0.0758 / 0.0890 and 0.2410 / 0.2533, CG on 1138_bus (2.6k iterations of a
 * launch-bound size) 0.0168 / 0.0376, PCG 0.0169 / 0.0578. PCG-SGS keeps the step loop (its
 * triangular solves are queued from the host between fused kernels, no gain measured); a
 * host context keeps the step loop (the fused host twins exist for testing, not speed). */
sp_solver_loop_t sp__policy_solver_loop(const sp_context_t *ctx, sp_solver_type_t type)
{
    if (ctx == NULL || ctx->kind != SP_DEVICE_CUDA || type == SP_SOLVER_PCG_SGS)
        return SP_SOLVER_LOOP_STEPS;
    return SP_SOLVER_LOOP_DEVICE;
}
