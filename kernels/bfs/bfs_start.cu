/* A BFS traversal's state on the GPU: the scratch layout (visited bitmap, frontier queues
 * and bitmaps, hub pieces, counters) and the start of a search from one source. */
#include "bfs_level_common.cuh"

using namespace bfs;

namespace {

/* Byte offsets of the arrays in the scratch block, each 256-byte aligned. */
struct layout {
    size_t visited, front, next, queue, next_queue, piece_vertex, piece_start, counters, total;
};

layout layout_of(int64_t n, int64_t nnz)
{
    using sp_prim::align_up;
    layout l;
    size_t words = align_up((size_t)bitmap_words(n) * sizeof(uint32_t));
    size_t queue = align_up((size_t)n * sizeof(int32_t));
    size_t pieces = align_up((size_t)(2 * nnz / P::hub_degree + 1) * sizeof(int32_t));
    l.visited = 0;
    l.front = l.visited + words;
    l.next = l.front + words;
    l.queue = l.next + words;
    l.next_queue = l.queue + queue;
    l.piece_vertex = l.next_queue + queue;
    l.piece_start = l.piece_vertex + pieces;
    l.counters = l.piece_start + pieces;
    l.total = l.counters + align_up(sizeof(sp_gpu_bfs_counters_t));
    return l;
}

/* A search's first state in one launch (it was four memsets and a one-thread kernel: five
 * launches, each a few microseconds of every call): every level and parent -1, the visited
 * and frontier bitmaps empty, except the source, at level 0, its own parent, in both bitmaps
 * and the queue, with its out-edges counted. Each entry is written once, so no thread's
 * store can land after another's. */
template <typename Off>
__global__ void start_kernel(const Off *out_ptr, int64_t n, int64_t words, int32_t source,
                             int32_t *level, int32_t *parent, uint32_t *visited,
                             uint32_t *front, int32_t *queue, sp_gpu_bfs_counters_t *ctr)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t sw = source >> 5;
    uint32_t bit = 1u << (source & 31);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        level[i] = i == source ? 0 : -1;
        if (parent) parent[i] = i == source ? source : -1;
        if (i < words) {
            visited[i] = i == sw ? bit : 0u;
            front[i] = i == sw ? bit : 0u;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        queue[0] = source;
        ctr->next_vertices = 1;
        ctr->next_edges = (unsigned long long)(out_ptr[source + 1] - out_ptr[source]);
        ctr->queue_tail = 1;
        ctr->hub_pieces = 0;
        ctr->convert_tail = 0;
    }
}

} /* namespace */

extern "C" size_t sp__gpu_bfs_work_bytes(int64_t n, int64_t nnz)
{
    return layout_of(n, nnz).total;
}

extern "C" void sp__gpu_bfs_work_carve(void *d_temp, int64_t n, int64_t nnz, int32_t *d_level,
                                       int32_t *d_parent, sp_gpu_bfs_work_t *w)
{
    layout l = layout_of(n, nnz);
    char *base = static_cast<char *>(d_temp);
    w->d_level = d_level;
    w->d_parent = d_parent;
    w->d_visited = reinterpret_cast<uint32_t *>(base + l.visited);
    w->d_front = reinterpret_cast<uint32_t *>(base + l.front);
    w->d_next = reinterpret_cast<uint32_t *>(base + l.next);
    w->d_queue = reinterpret_cast<int32_t *>(base + l.queue);
    w->d_next_queue = reinterpret_cast<int32_t *>(base + l.next_queue);
    w->d_piece_vertex = reinterpret_cast<int32_t *>(base + l.piece_vertex);
    w->d_piece_start = reinterpret_cast<int32_t *>(base + l.piece_start);
    w->max_pieces = 2 * nnz / P::hub_degree + 1;
    w->d_counters = reinterpret_cast<sp_gpu_bfs_counters_t *>(base + l.counters);
}

extern "C" sp_status_t sp__gpu_bfs_start(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                         const sp_gpu_bfs_work_t *w, int32_t source)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s;
    int64_t words;
    unsigned grid;
    SP_TRY(check_level("bfs start", env, g, w));
    SP_CHECK_ARG(source >= 0 && source < g->n, "bfs start: source %d outside 0..%lld", source,
                 (long long)g->n - 1);
    s = (cudaStream_t)env->stream;
    words = (int64_t)bitmap_words(g->n); /* at most n: bitmap_words rounds n / 32 up */
    grid = grid_for(env, g->n);
    if (wide_offsets(g))
        start_kernel<<<grid, P::block_threads, 0, s>>>(g->d_out_ptr64, g->n, words, source,
                                                       w->d_level, w->d_parent, w->d_visited,
                                                       w->d_front, w->d_queue, w->d_counters);
    else
        start_kernel<<<grid, P::block_threads, 0, s>>>(g->d_out_ptr, g->n, words, source,
                                                       w->d_level, w->d_parent, w->d_visited,
                                                       w->d_front, w->d_queue, w->d_counters);
    SP_CUDA_LAUNCHED("start_kernel");
done:
    return st;
}

extern "C" sp_status_t sp__gpu_bfs_counters_reset(const sp_gpu_env_t *env,
                                                  const sp_gpu_bfs_work_t *w)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && w != NULL && w->d_counters != NULL,
                 "bfs counters reset: NULL argument");
    SP_TRY(reset_counters(env, w->d_counters));
done:
    return st;
}
