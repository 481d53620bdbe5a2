/* One level of frontier-queue push BFS with privatized queues (PMPP ch. 15.7): each block
 * collects the vertices it discovers in a queue in shared memory (overflowing to the
 * global queue), then reserves its slots in the global queue with one atomic and copies
 * them out coalesced. Hub pieces append to the global queue directly. */
#include "bfs_level_common.cuh"

using namespace bfs;

namespace {

template <typename Off>
__global__ void __launch_bounds__(P::block_threads) privatized_kernel(level_args<Off> a,
                                                                      int32_t count)
{
    __shared__ shared_queue sq;
    tally t = {0, 0};
    if (threadIdx.x == 0) sq.count = 0;
    __syncthreads();
    /* one tile of block_threads queue entries per block (the grid covers the queue) */
    int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    expand_push<EMIT_SHARED>(a, i < count ? a.queue[i] : -1, t, &sq);
    __syncthreads();
    int32_t kept = sq.count < P::shared_queue ? sq.count : P::shared_queue;
    if (threadIdx.x == 0) sq.base = kept ? atomicAdd(&a.ctr->queue_tail, kept) : 0;
    __syncthreads();
    for (int32_t k = threadIdx.x; k < kept; k += P::block_threads)
        a.next_queue[sq.base + k] = sq.q[k];
    flush(a, t);
}

template <typename Off>
sp_status_t privatized_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                             const sp_gpu_bfs_work_t *w, int32_t cur, int32_t count)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    level_args<Off> a;
    unsigned blocks;
    SP_TRY(check_level("bfs privatized", env, g, w));
    SP_CHECK_ARG(count >= 0 && count <= g->n,
                 "bfs privatized: frontier of %d vertices, n = %lld", count, (long long)g->n);
    if (count == 0) goto done;
    a = make_args<Off>(g, w, cur);
    a.hub_min = small_frontier_hub_min(env, g, w, count);
    blocks = (unsigned)(((int64_t)count + P::block_threads - 1) / P::block_threads);
    privatized_kernel<Off><<<blocks, P::block_threads, 0, (cudaStream_t)env->stream>>>(a, count);
    SP_CUDA_LAUNCHED("privatized_kernel");
    SP_TRY(launch_hubs_push<EMIT_QUEUE>(env, a));
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_bfs_privatized_level(const sp_gpu_env_t *env,
                                                    const sp_gpu_bfs_graph_t *g,
                                                    const sp_gpu_bfs_work_t *w, int32_t cur,
                                                    int32_t count)
{
    return wide_offsets(g) ? privatized_level<int64_t>(env, g, w, cur, count)
                           : privatized_level<int32_t>(env, g, w, cur, count);
}
