/* One level of edge-centric BFS over the sorted COO (PMPP ch. 15): a thread per edge
 * (u, v), those with level[u] == cur claim v through the visited bitmap. Every level
 * reads all edges, so the work is balanced whatever the degrees. */
#include "bfs_level_common.cuh"

using namespace bfs;

namespace {

template <typename Off>
__global__ void __launch_bounds__(P::block_threads) edge_kernel(level_args<Off> a)
{
    tally t = {0, 0};
    for (int64_t k = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; k < a.nnz;
         k += (int64_t)gridDim.x * P::block_threads) {
        int32_t u = a.coo_row[k];
        if (a.level[u] == a.cur) visit<EMIT_COUNT>(a, u, a.coo_col[k], t);
    }
    flush(a, t);
}

template <typename Off>
sp_status_t edge_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                       const sp_gpu_bfs_work_t *w, int32_t cur)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(check_level("bfs edge", env, g, w));
    SP_CHECK_ARG(g->nnz == 0 || (g->d_coo_row != NULL && g->d_coo_col != NULL),
                 "bfs edge: NULL COO for %lld edges", (long long)g->nnz);
    if (g->nnz == 0) goto done;
    edge_kernel<Off><<<grid_for(env, g->nnz), P::block_threads, 0, (cudaStream_t)env->stream>>>(
        make_args<Off>(g, w, cur));
    SP_CUDA_LAUNCHED("edge_kernel");
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_bfs_edge_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                              const sp_gpu_bfs_work_t *w, int32_t cur)
{
    return wide_offsets(g) ? edge_level<int64_t>(env, g, w, cur)
                           : edge_level<int32_t>(env, g, w, cur);
}
