/* One level of direction-optimized BFS (Beamer, Asanovic & Patterson, SC'12): the level
 * runs as a frontier-queue push (top-down) or as a bitmap pull (bottom-up), as the host
 * loop decides from the frontier's edges and size; the frontier is converted between the
 * queue and the bitmap on the GPU when the direction changes. */
#include "bfs_level_common.cuh"

using namespace bfs;

namespace {

/* front = the set of the count vertices of queue (front zeroed before, on the stream). */
__global__ void __launch_bounds__(P::block_threads)
queue_to_bitmap_kernel(const int32_t *queue, int32_t count, uint32_t *front)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * P::block_threads) {
        int32_t v = queue[i];
        atomicOr(front + (v >> 5), 1u << (v & 31));
    }
}

/* queue = the vertices set in front (increasing within each warp's words): each lane takes
 * one word, a warp scan of the popcounts gives the offsets, one atomic per warp reserves
 * them. */
__global__ void __launch_bounds__(P::block_threads)
bitmap_to_queue_kernel(const uint32_t *front, int64_t words, int32_t *queue,
                       sp_gpu_bfs_counters_t *ctr)
{
    int lane = threadIdx.x & 31;
    for (int64_t base = (int64_t)blockIdx.x * P::block_threads + (threadIdx.x & ~31);
         base < words; base += (int64_t)gridDim.x * P::block_threads) {
        int64_t i = base + lane;
        uint32_t bits = i < words ? front[i] : 0u;
        int32_t pop = __popc(bits);
        int32_t incl = sp_prim::warp_inclusive_scan(pop, lane);
        int32_t total = __shfl_sync(sp_prim::full_mask, incl, 31);
        int32_t start = 0;
        if (lane == 31 && total) start = atomicAdd(&ctr->convert_tail, total);
        start = __shfl_sync(sp_prim::full_mask, start, 31) + incl - pop;
        while (bits) {
            int b = __ffs(bits) - 1;
            bits &= bits - 1;
            queue[start++] = (int32_t)(i * 32 + b);
        }
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_bfs_direction_opt_level(const sp_gpu_env_t *env,
                                                       const sp_gpu_bfs_graph_t *g,
                                                       const sp_gpu_bfs_work_t *w, int32_t cur,
                                                       int32_t count, sp_gpu_bfs_dir_t prev,
                                                       sp_gpu_bfs_dir_t dir)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s;
    int64_t words;
    SP_TRY(check_level("bfs direction-optimized", env, g, w));
    SP_CHECK_ARG((prev == SP_GPU_BFS_DIR_PUSH || prev == SP_GPU_BFS_DIR_PULL) &&
                     (dir == SP_GPU_BFS_DIR_PUSH || dir == SP_GPU_BFS_DIR_PULL),
                 "bfs direction-optimized: unknown direction %d -> %d", (int)prev, (int)dir);
    SP_CHECK_ARG(count >= 0 && count <= g->n,
                 "bfs direction-optimized: frontier of %d vertices, n = %lld", count,
                 (long long)g->n);
    if (count == 0) goto done;
    s = (cudaStream_t)env->stream;
    words = bitmap_words(g->n);
    if (prev == SP_GPU_BFS_DIR_PUSH && dir == SP_GPU_BFS_DIR_PULL) {
        SP_CUDA_TRY(cudaMemsetAsync(w->d_front, 0, (size_t)words * sizeof(uint32_t), s));
        queue_to_bitmap_kernel<<<grid_for(env, count), P::block_threads, 0, s>>>(
            w->d_queue, count, w->d_front);
        SP_CUDA_LAUNCHED("queue_to_bitmap_kernel");
    } else if (prev == SP_GPU_BFS_DIR_PULL && dir == SP_GPU_BFS_DIR_PUSH) {
        bitmap_to_queue_kernel<<<grid_for(env, words), P::block_threads, 0, s>>>(
            w->d_front, words, w->d_queue, w->d_counters);
        SP_CUDA_LAUNCHED("bitmap_to_queue_kernel");
    }
    if (dir == SP_GPU_BFS_DIR_PUSH)
        SP_TRY(sp__gpu_bfs_frontier_level(env, g, w, cur, count));
    else
        SP_TRY(sp__gpu_bfs_pull_level(env, g, w, cur));
done:
    return st;
}
