/* The distributed BFS's frontier bookkeeping on one rank's GPU: a search's start (outputs
 * reset, the source claimed), the frontier's out-degrees (scanned by the caller into each
 * vertex's first edge, the load-balanced expansion's offsets, as in moderngpu's BFS), and
 * the frontier as a bitmap for the bottom-up all-gather (Beamer et al., SC'12). */
#include "dist/dist_bfs_common.cuh"

using P = sp_dist_bfs_policy;

namespace
{

__global__ void claim_source(sp_gpu_dist_bfs_t b, int64_t s)
{
    b.d_visited[s >> 6] |= 1ull << (s & 63);
    b.d_level[s] = 0;
    b.d_parent[s] = (int32_t)(b.rb + s);
    b.d_next[0] = (int32_t)s;
    b.d_counters[0] = 1;
    b.d_counters[1] = (unsigned long long)(b.d_out_ptr[s + 1] - b.d_out_ptr[s]);
}

__global__ void frontier_degrees(sp_gpu_dist_bfs_t b, int64_t ncur, int64_t *off)
{
    for (int64_t f = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; f <= ncur;
         f += (int64_t)gridDim.x * blockDim.x) {
        int64_t u = f < ncur ? b.d_cur[f] : 0;
        off[f] = f < ncur ? b.d_out_ptr[u + 1] - b.d_out_ptr[u] : 0;
    }
}

__global__ void frontier_bits(sp_gpu_dist_bfs_t b, int64_t ncur, unsigned long long *mine)
{
    for (int64_t f = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; f < ncur;
         f += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = b.d_cur[f];
        atomicOr(mine + (i >> 6), 1ull << (i & 63));
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_dist_bfs_start(const sp_gpu_env_t *env,
                                              const sp_gpu_dist_bfs_t *b, int64_t source_local)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    size_t n = (size_t)b->nloc;
    if (n > 0) {
        SP_CUDA_TRY(cudaMemsetAsync(b->d_level, 0xff, n * sizeof(int32_t), s));
        SP_CUDA_TRY(cudaMemsetAsync(b->d_parent, 0xff, n * sizeof(int32_t), s));
        SP_CUDA_TRY(cudaMemsetAsync(b->d_visited, 0, (n + 63) / 64 * 8, s));
    }
    SP_CUDA_TRY(cudaMemsetAsync(b->d_counters, 0, 2 * sizeof(unsigned long long), s));
    if (source_local >= 0) {
        claim_source<<<1, 1, 0, s>>>(*b, source_local);
        SP_CUDA_LAUNCHED("claim_source");
    }
done:
    return st;
}

extern "C" sp_status_t sp__gpu_dist_bfs_degrees(const sp_gpu_env_t *env,
                                                const sp_gpu_dist_bfs_t *b, int64_t ncur,
                                                int64_t *d_off)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = sp_prim::grid_for(env, ncur + 1, P::block_threads, P::blocks_per_sm);
    frontier_degrees<<<grid, P::block_threads, 0, (cudaStream_t)env->stream>>>(*b, ncur, d_off);
    SP_CUDA_LAUNCHED("frontier_degrees");
done:
    return st;
}

extern "C" sp_status_t
sp__gpu_dist_bfs_frontier_bitmap(const sp_gpu_env_t *env, const sp_gpu_dist_bfs_t *b,
                                 int64_t ncur, unsigned long long *d_mine, int64_t words)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    unsigned grid = sp_prim::grid_for(env, ncur, P::block_threads, P::blocks_per_sm);
    if (words > 0) SP_CUDA_TRY(cudaMemsetAsync(d_mine, 0, (size_t)words * 8, s));
    if (ncur == 0) goto done;
    frontier_bits<<<grid, P::block_threads, 0, s>>>(*b, ncur, d_mine);
    SP_CUDA_LAUNCHED("frontier_bits");
done:
    return st;
}
