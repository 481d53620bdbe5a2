/* The distributed BFS's bottom-up level on one rank's GPU (Beamer, Asanovic & Patterson,
 * SC'12): the frontier bitmap of every rank has been all-gathered; each unvisited owned
 * vertex (a thread each) scans its in-edges and stops at the first source in the frontier,
 * which becomes its parent (early exit: most vertices of a large level find one in a few
 * edges). */
#include "dist/dist_bfs_common.cuh"

using P = sp_dist_bfs_policy;
using namespace sp_dbfs;

namespace
{

/* Global vertex u in the gathered frontier: rank p's slice, bit u - row_begin[p]. */
__device__ __forceinline__ bool
in_frontier(const sp_gpu_dist_bfs_t &b, const unsigned long long *all, int64_t words, int64_t u)
{
    int p = owner(b.d_row_begin, b.nranks, u);
    int64_t j = u - __ldg(b.d_row_begin + p);
    return (__ldg(all + (int64_t)p * words + (j >> 6)) >> (j & 63)) & 1ull;
}

__global__ void pull(sp_gpu_dist_bfs_t b, const unsigned long long *all, int64_t words,
                     int32_t next_level)
{
    for (int64_t i0 = first(); i0 < b.nloc; i0 += stride()) {
        int64_t i = i0 + lane();
        int64_t parent = -1;
        if (i < b.nloc && !((b.d_visited[i >> 6] >> (i & 63)) & 1ull))
            for (int64_t k = b.d_in_ptr[i]; k < b.d_in_ptr[i + 1]; k++) {
                int64_t u = b.d_in_idx[k];
                if (in_frontier(b, all, words, u)) {
                    parent = u;
                    break;
                }
            }
        claim_warp(b, parent >= 0, i, (int32_t)parent, next_level);
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_dist_bfs_pull(const sp_gpu_env_t *env,
                                             const sp_gpu_dist_bfs_t *b,
                                             const unsigned long long *d_all, int64_t words,
                                             int64_t depth)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = sp_prim::grid_for(env, b->nloc, P::block_threads, P::blocks_per_sm);
    if (b->nloc == 0) goto done;
    pull<<<grid, P::block_threads, 0, (cudaStream_t)env->stream>>>(*b, d_all, words,
                                                                   (int32_t)(depth + 1));
    SP_CUDA_LAUNCHED("pull");
done:
    return st;
}
