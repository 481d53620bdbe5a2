/* One level of frontier-queue push BFS (PMPP ch. 15; Merrill, Garland & Grimshaw 2012):
 * a thread per queue entry expands its out-edges (degree-bucketed), each head is claimed
 * once through the visited bitmap and appended to the next queue, one atomic per
 * coalesced group of lanes. */
#include "bfs_level_common.cuh"

using namespace bfs;

namespace {

template <typename Off>
__global__ void __launch_bounds__(P::block_threads, P::blocks_per_sm)
frontier_kernel(level_args<Off> a, int32_t count)
{
    frontier_body<EMIT_QUEUE>(a, count);
}

template <typename Off>
sp_status_t frontier_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                           const sp_gpu_bfs_work_t *w, int32_t cur, int32_t count)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    level_args<Off> a;
    SP_TRY(check_level("bfs frontier", env, g, w));
    SP_CHECK_ARG(count >= 0 && count <= g->n, "bfs frontier: frontier of %d vertices, n = %lld",
                 count, (long long)g->n);
    if (count == 0) goto done;
    a = make_args<Off>(g, w, cur);
    a.hub_min = small_frontier_hub_min(env, g, w, count);
    frontier_kernel<Off><<<grid_for(env, count), P::block_threads, 0, (cudaStream_t)env->stream>>>(
        a, count);
    SP_CUDA_LAUNCHED("frontier_kernel");
    SP_TRY(launch_hubs_push<EMIT_QUEUE>(env, a));
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_bfs_frontier_level(const sp_gpu_env_t *env,
                                                  const sp_gpu_bfs_graph_t *g,
                                                  const sp_gpu_bfs_work_t *w, int32_t cur,
                                                  int32_t count)
{
    return wide_offsets(g) ? frontier_level<int64_t>(env, g, w, cur, count)
                           : frontier_level<int32_t>(env, g, w, cur, count);
}
