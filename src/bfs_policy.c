/* The BFS choices made on the host: what AUTO runs, and Beamer's direction rule for the
 * direction-optimized variant (kept here, apart from the kernels, so they are tested on
 * any machine and tuned in one place). */
#include "sp_api.h"

static const char *const g_variants[] = {"auto",     "push",       "pull",         "edge",
                                         "frontier", "privatized", "direction_opt"};
static const char *const g_loops[] = {"auto", "host", "single_block", "persistent"};

const char *sp_bfs_variant_name(sp_bfs_variant_t variant)
{
    if ((int)variant < 0 || (int)variant > SP_BFS_DIRECTION_OPT) return NULL;
    return g_variants[variant];
}

const char *sp_bfs_loop_name(sp_bfs_loop_t loop)
{
    if ((int)loop < 0 || (int)loop > SP_BFS_LOOP_PERSISTENT) return NULL;
    return g_loops[loop];
}

/* Direction-optimized with the host loop until GPU measurements say otherwise (the
 * issue's targets: within 10% of the best variant on each benchmark graph). */
void sp__bfs_choose(const sp_context_t *ctx, const sp_matrix_t *G, sp_bfs_variant_t *variant,
                    sp_bfs_loop_t *loop)
{
    (void)ctx;
    (void)G;
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
    if (cur == SP_BFS_DIR_PUSH) return (double)m_f > (double)m_u / alpha ? SP_BFS_DIR_PULL : cur;
    return n_f >= n_f_prev || (double)n_f > (double)n / beta ? SP_BFS_DIR_PULL : SP_BFS_DIR_PUSH;
}
