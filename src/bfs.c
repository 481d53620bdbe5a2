/* sp_bfs: argument checks and dispatch; on a host context every variant runs the
 * reference queue BFS over CSR (the variants differ only in how a GPU does the work). */
#include "sp_api.h"

sp_status_t sp_bfs(sp_context_t *ctx, sp_matrix_t *G, int64_t source,
                   const sp_bfs_options_t *options, int32_t *level, int32_t *parent,
                   sp_bfs_stats_t *stats)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t levels = 0, vertices = 0, edges = 0;
    SP_CHECK_ARG(ctx != NULL && G != NULL, "sp_bfs: ctx or G is NULL");
    SP_CHECK_ARG(G->ctx == ctx, "sp_bfs: graph belongs to another context");
    SP_CHECK_ARG(G->f.coo.nrows == G->f.coo.ncols, "sp_bfs: graph matrix is %lld x %lld, not square",
                 (long long)G->f.coo.nrows, (long long)G->f.coo.ncols);
    SP_CHECK_ARG(source >= 0 && source < G->f.coo.nrows, "sp_bfs: source %lld outside 0..%lld",
                 (long long)source, (long long)G->f.coo.nrows - 1);
    SP_CHECK_ARG(level != NULL, "sp_bfs: level is NULL");
    if (options) {
        SP_CHECK_ARG((int)options->variant >= SP_BFS_AUTO &&
                         options->variant <= SP_BFS_DIRECTION_OPT,
                     "sp_bfs: unknown variant %d", (int)options->variant);
        SP_CHECK_ARG((int)options->loop >= SP_BFS_LOOP_AUTO &&
                         options->loop <= SP_BFS_LOOP_PERSISTENT,
                     "sp_bfs: unknown loop %d", (int)options->loop);
        SP_CHECK_ARG(options->alpha >= 0 && options->beta >= 0,
                     "sp_bfs: negative alpha %g or beta %g", options->alpha, options->beta);
    }
    if (stats)
        SP_CHECK_ARG(stats->frontier_capacity == 0 || stats->frontier_sizes != NULL,
                     "sp_bfs: stats->frontier_sizes is NULL with capacity %lld",
                     (long long)stats->frontier_capacity);
    if (ctx->kind == SP_DEVICE_CUDA)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s on a CUDA context: the GPU kernels are not in this "
                "version of libsp (use a host context)", "sp_bfs");
    SP_TRY(sp_matrix_build(ctx, G, SP_FORMAT_CSR));
    SP_TRY(sp__ref_bfs(&G->f.csr, (int32_t)source, level, parent, &levels, &vertices, &edges,
                       stats ? stats->frontier_sizes : NULL,
                       stats ? stats->frontier_capacity : 0));
    if (stats) {
        stats->levels = levels;
        stats->vertices_visited = vertices;
        stats->edges_traversed = edges;
    }
done:
    return sp__context_record(ctx, st);
}
