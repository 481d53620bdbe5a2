/* The BFS choices made on the host: what AUTO runs, and Beamer's direction rule for the
 * direction-optimized variant (kept here, apart from the kernels, so they are tested on
 * any machine and tuned in one place). */
#include "sp_api.h"

#include "bfs/bfs_direction_rule.h"

static const char *const g_variants[] = {"auto",     "push",       "pull",         "edge",
                                         "frontier", "privatized", "direction_opt"};
static const char *const g_loops[] = {"auto", "host", "single_block", "persistent", "graph"};

const char *sp_bfs_variant_name(sp_bfs_variant_t variant)
{
    if ((int)variant < 0 || (int)variant > SP_BFS_DIRECTION_OPT) return NULL;
    return g_variants[variant];
}

const char *sp_bfs_loop_name(sp_bfs_loop_t loop)
{
    if ((int)loop < 0 || (int)loop > SP_BFS_LOOP_GRAPH) return NULL;
    return g_loops[loop];
}

/* AUTO on a CUDA context, from the graph's size and degrees (rule derived from the H200
 * runs in bench/results/h200-bfs.md, 23 graphs, every variant and loop):
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
 * A host context, or a caller that fixes one of the two, gets direction-optimized with
 * the host loop (the frontier variant for the two device-side loops, direction-optimized
 * for the graph loop). */
void sp__bfs_choose(const sp_context_t *ctx, const sp_matrix_t *G, sp_bfs_variant_t *variant,
                    sp_bfs_loop_t *loop)
{
    if (*variant == SP_BFS_AUTO && *loop == SP_BFS_LOOP_AUTO && ctx != NULL && G != NULL &&
        ctx->kind == SP_DEVICE_CUDA) {
        int64_t n = G->f.coo.nrows, nnz = G->f.coo.nnz;
        double mean = n > 0 ? (double)nnz / (double)n : 0.0;
        int hub = (double)G->row_max > 8.0 * mean + 16.0;
        if ((nnz >= ((int64_t)1 << 22) && mean >= 8.0) || (n >= 256 && mean >= 20.0) ||
            G->row_max >= 16384) {
            int large = nnz >= ((int64_t)1 << 28) || (nnz >= ((int64_t)1 << 22) && !hub);
            *variant = SP_BFS_DIRECTION_OPT;
            *loop = large ? SP_BFS_LOOP_HOST : SP_BFS_LOOP_GRAPH;
        } else if (n >= 256 && n <= ((int64_t)1 << 16) && !hub) {
            *variant = SP_BFS_FRONTIER;
            *loop = SP_BFS_LOOP_SINGLE_BLOCK;
        } else {
            *variant = SP_BFS_FRONTIER;
            *loop = SP_BFS_LOOP_PERSISTENT;
        }
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
