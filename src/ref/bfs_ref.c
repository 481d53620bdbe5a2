/* Breadth-first search over a CSR adjacency with a FIFO queue: vertices leave the queue in
 * level order, each scans all its out-edges and claims the unvisited heads for the next
 * level (the textbook BFS the GPU variants are checked against). */
#include "ref_internal.h"

static sp_status_t check_bfs_args(const sp_csr_t *g, int32_t source, const int32_t *level,
                                  const int64_t *frontier_sizes, int64_t frontier_capacity)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(g != NULL && level != NULL, "bfs: NULL graph or level");
    SP_CHECK_ARG(g->nrows == g->ncols, "bfs: adjacency is %lld x %lld, not square",
                 (long long)g->nrows, (long long)g->ncols);
    SP_CHECK_ARG(source >= 0 && source < g->nrows, "bfs: source %d outside 0..%lld",
                 source, (long long)g->nrows - 1);
    SP_CHECK_ARG(frontier_capacity >= 0 && (frontier_sizes != NULL || frontier_capacity == 0),
                 "bfs: frontier_capacity %lld without room", (long long)frontier_capacity);
done:
    return st;
}

/* The search with the caller's queue (g->nrows entries): allocates nothing, so a caller
 * running several searches can allocate once and fail before writing any output. level,
 * parent, *levels, *vertices, *edges may be NULL except level; frontier_sizes entries past
 * the last level are set to 0. */
sp_status_t sp__ref_bfs_with_queue(const sp_csr_t *g, int32_t source, int32_t *queue,
                                   int32_t *level, int32_t *parent, int64_t *levels,
                                   int64_t *vertices, int64_t *edges, int64_t *frontier_sizes,
                                   int64_t frontier_capacity)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t head = 0, tail = 0, scanned = 0;
    SP_TRY(check_bfs_args(g, source, level, frontier_sizes, frontier_capacity));
    SP_CHECK_ARG(queue != NULL, "bfs: NULL queue");
    for (int64_t v = 0; v < g->nrows; v++) {
        level[v] = -1;
        if (parent) parent[v] = -1;
    }
    for (int64_t l = 0; l < frontier_capacity; l++) frontier_sizes[l] = 0;
    level[source] = 0;
    if (parent) parent[source] = source;
    queue[tail++] = source;
    while (head < tail) {
        int32_t u = queue[head++];
        if (level[u] < frontier_capacity) frontier_sizes[level[u]]++;
        for (int64_t k = sp__csr_at(g, u); k < sp__csr_at(g, u + 1); k++, scanned++) {
            int32_t v = g->idx[k];
            if (level[v] >= 0) continue;
            level[v] = level[u] + 1;
            if (parent) parent[v] = u;
            queue[tail++] = v;
        }
    }
    if (levels) *levels = (int64_t)level[queue[tail - 1]] + 1;
    if (vertices) *vertices = tail;
    if (edges) *edges = scanned;
done:
    return st;
}

sp_status_t sp__ref_bfs(const sp_csr_t *g, int32_t source, int32_t *level, int32_t *parent,
                        int64_t *levels, int64_t *vertices, int64_t *edges,
                        int64_t *frontier_sizes, int64_t frontier_capacity)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *queue = NULL;
    SP_TRY(check_bfs_args(g, source, level, frontier_sizes, frontier_capacity));
    SP_ALLOC(queue, g->nrows);
    SP_TRY(sp__ref_bfs_with_queue(g, source, queue, level, parent, levels, vertices, edges,
                                  frontier_sizes, frontier_capacity));
done:
    sp__free(queue);
    return st;
}
