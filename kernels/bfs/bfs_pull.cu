/* One level of vertex-centric pull BFS over CSC (the step itself: bfs_pull.cuh). */
#include "bfs_pull.cuh"

using namespace bfs;

namespace {

template <typename Off>
__global__ void __launch_bounds__(P::block_threads) pull_kernel(level_args<Off> a)
{
    pull_body(a);
}

template <typename Off>
__global__ void __launch_bounds__(P::block_threads) hub_pull_kernel(level_args<Off> a)
{
    hub_pull_body(a);
}

template <typename Off>
sp_status_t pull_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                       const sp_gpu_bfs_work_t *w, int32_t cur)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    level_args<Off> a;
    cudaStream_t s;
    SP_TRY(check_level("bfs pull", env, g, w));
    SP_CHECK_ARG((g->d_in_ptr != NULL || g->d_in_ptr64 != NULL) &&
                     (g->nnz == 0 || g->d_in_idx != NULL) &&
                     w->d_front != NULL && w->d_next != NULL,
                 "bfs pull: NULL CSC or frontier bitmaps");
    a = make_args<Off>(g, w, cur);
    s = (cudaStream_t)env->stream;
    SP_CUDA_TRY(cudaMemsetAsync(w->d_next, 0, (size_t)bitmap_words(g->n) * sizeof(uint32_t), s));
    pull_kernel<Off><<<grid_for(env, g->n), P::block_threads, 0, s>>>(a);
    SP_CUDA_LAUNCHED("pull_kernel");
    if (g->nnz >= P::hub_degree) {
        hub_pull_kernel<Off><<<hub_grid(env),
                          P::block_threads, 0, s>>>(a);
        SP_CUDA_LAUNCHED("hub_pull_kernel");
    }
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_bfs_pull_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                              const sp_gpu_bfs_work_t *w, int32_t cur)
{
    return wide_offsets(g) ? pull_level<int64_t>(env, g, w, cur)
                           : pull_level<int32_t>(env, g, w, cur);
}
