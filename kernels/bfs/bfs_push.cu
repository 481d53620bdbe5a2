/* One level of vertex-centric push BFS over CSR (PMPP ch. 15): a thread per vertex, those
 * with level == cur expand their out-edges and claim unvisited heads through the visited
 * bitmap; degrees bucketed to thread, warp and grid-wide hub pieces (bfs_expand.cuh,
 * bfs_level_common.cuh). */
#include "bfs_level_common.cuh"

using namespace bfs;

namespace {

template <typename Off>
__global__ void __launch_bounds__(P::block_threads) push_kernel(level_args<Off> a)
{
    tally t = {0, 0};
    int lane = threadIdx.x & 31;
    /* base is the same in all lanes of a warp, so every lane runs every iteration */
    for (int64_t base = (int64_t)blockIdx.x * P::block_threads + (threadIdx.x & ~31); base < a.n;
         base += (int64_t)gridDim.x * P::block_threads) {
        int64_t v = base + lane;
        bool in = v < a.n && a.level[v] == a.cur;
        expand_push<EMIT_COUNT>(a, in ? (int32_t)v : -1, t, nullptr);
    }
    flush(a, t);
}

template <typename Off>
sp_status_t push_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                       const sp_gpu_bfs_work_t *w, int32_t cur)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    level_args<Off> a;
    SP_TRY(check_level("bfs push", env, g, w));
    a = make_args<Off>(g, w, cur);
    push_kernel<Off><<<grid_for(env, g->n), P::block_threads, 0, (cudaStream_t)env->stream>>>(a);
    SP_CUDA_LAUNCHED("push_kernel");
    SP_TRY(launch_hubs_push<EMIT_COUNT>(env, a));
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_bfs_push_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                              const sp_gpu_bfs_work_t *w, int32_t cur)
{
    return wide_offsets(g) ? push_level<int64_t>(env, g, w, cur)
                           : push_level<int32_t>(env, g, w, cur);
}
