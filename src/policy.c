/* Every AUTO rule of libsp, with the measurement that chose each constant (policy.h says
 * how the table is keyed). Today's constants form the sm_90 row, measured on H100 and
 * H200; other architectures get it too until they are measured. */
#include "policy.h"

#include "bfs/bfs_direction_rule.h"
#include "sp_kernels_solve.h"

/* ---- SpMV format (SP_FORMAT_AUTO) ----
 * ELL when padding to the longest row adds at most 20% to the entries (or A is empty), SELL
 * when rows vary but no row dwarfs the slice (longest row at most 32 x (mean + 1)), CSR
 * otherwise (its DEFAULT algorithm balances skewed rows on a GPU). */
static const sp__spmv_format_policy_t spmv_format_sm90 = {
    .ell_max_padding = 1.2,
    .sell_max_row_factor = 32.0,
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
};

/* ---- SpTRSV ----
 * SOFT_SYNC runs the value-as-flag kernel with 256-row block units (SOFT_BLOCK), the
 * fastest soft kernel on every matrix measured on an H200 (bench/sptrsv_bench, 2026-11-22:
 * poisson3d128 847 us against 1825 for the flag kernel SOFT and 878 for SOFT_VALUE;
 * poisson2d1000 2647 / 6746 / 3218).
 * AUTO: the soft kernel unless the triangle's levels are few (the soft kernel's sentinel
 * fill is a second launch: arrow, 2 levels, 12.5 us against 10.4) or narrow (a chain
 * hands every row over: chain1M 664 ms against 584 for level scheduling, which runs
 * consecutive small levels in one block). Measured on an H200, same run: the soft block
 * kernel was faster than level scheduling on poisson3d128 (2.98x), poisson2d1000 (4.13x),
 * BentPipe2D100 (1.30x), ani4 (2.15x), young1c (1.39x) and even on 1138_bus
 * (bench/results/h200-solvers.md). */
static const sp__sptrsv_policy_t sptrsv_sm90 = {
    .auto_min_levels = 3,
    .auto_min_rows_per_level = 8,
    .soft_kernel = SP_GPU_SPTRSV_SOFT_BLOCK,
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

sp_format_t sp__policy_spmv_format(const sp__policy_t *p, int64_t nrows, int64_t nnz,
                                   int64_t row_max, double row_mean)
{
    const sp__spmv_format_policy_t *f = p->spmv_format;
    double padded = (double)nrows * (double)row_max;
    if (nnz == 0 || padded <= f->ell_max_padding * (double)nnz) return SP_FORMAT_ELL;
    if ((double)row_max <= f->sell_max_row_factor * (row_mean + 1.0)) return SP_FORMAT_SELL;
    return SP_FORMAT_CSR;
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
                                          int64_t n_f, int64_t n_f_prev, int64_t n,
                                          double alpha, double beta)
{
    return sp_bfs_rule_next(cur == SP_BFS_DIR_PULL, m_f, m_u, n_f, n_f_prev, n, alpha, beta)
               ? SP_BFS_DIR_PULL
               : SP_BFS_DIR_PUSH;
}

int sp__policy_sptrsv_use_levels(const sp__policy_t *p, int64_t nrows, int64_t levels)
{
    const sp__sptrsv_policy_t *s = p->sptrsv;
    return levels < s->auto_min_levels || nrows < s->auto_min_rows_per_level * levels;
}
