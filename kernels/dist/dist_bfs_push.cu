/* The distributed BFS's top-down level on one rank's GPU (Buluc & Madduri, SC'11, 1D):
 * the frontier's out-edges, spread evenly over the threads (edge e belongs to the frontier
 * vertex whose scanned-degree range holds it: a load-balanced search, as in moderngpu),
 * are expanded twice. The first pass claims the targets owned here and counts the others
 * per owner; the caller scans the counts into each destination's queue; the second pass
 * writes the (target, parent) pairs into the queues; after the exchange the owners claim
 * what they received. Counts and queue slots are taken by warp-aggregated atomics (lanes
 * with the same destination add once, __match_any_sync), the counts privatized per block
 * in shared memory. */
#include "dist/dist_bfs_common.cuh"

using P = sp_dist_bfs_policy;
using namespace sp_dbfs;

namespace
{

/* Lane's edge e = e0 + lane of the level (ok: e < m): the frontier vertex u (local) it
 * leaves, its target v (global), and the target's destination q (-1 when there is none: e
 * past m, or a target claimed here). */
struct level_edge {
    bool ok;
    int q;
    int64_t u;
    int32_t v;
};

__device__ __forceinline__ level_edge edge_at(const sp_gpu_dist_bfs_t &b, int64_t ncur,
                                              const int64_t *off, int64_t m, int64_t e0)
{
    level_edge x = {false, -1, 0, 0};
    int64_t e = e0 + lane();
    if (e >= m) return x;
    int64_t f = last_at_most(off, ncur, e);
    x.ok = true;
    x.u = b.d_cur[f];
    x.v = b.d_out_idx[b.d_out_ptr[x.u] + (e - off[f])];
    x.q = owner(b.d_row_begin, b.nranks, x.v);
    if (x.q == b.rank && !b.route_own) x.q = -1;
    return x;
}

__global__ void push_count(sp_gpu_dist_bfs_t b, int64_t ncur, const int64_t *off, int64_t m,
                           int32_t next_level, unsigned long long *scount)
{
    extern __shared__ unsigned long long s_count[]; /* nranks */
    for (int q = threadIdx.x; q < b.nranks; q += blockDim.x)
        s_count[q] = 0;
    __syncthreads();
    for (int64_t e0 = first(); e0 < m; e0 += stride()) {
        level_edge x = edge_at(b, ncur, off, m, e0);
        bool mine = x.ok && x.q < 0;
        claim_warp(b, mine, mine ? x.v - b.rb : 0, (int32_t)(b.rb + x.u), next_level);
        unsigned peers = __match_any_sync(full_mask, x.q);
        if (x.q >= 0 && lane() == __ffs(peers) - 1)
            atomicAdd(s_count + x.q, (unsigned long long)__popc(peers));
    }
    __syncthreads();
    for (int q = threadIdx.x; q < b.nranks; q += blockDim.x)
        if (s_count[q]) atomicAdd(scount + q, s_count[q]);
}

__global__ void push_scatter(sp_gpu_dist_bfs_t b, int64_t ncur, const int64_t *off, int64_t m,
                             unsigned long long *cursor, int32_t *pairs)
{
    for (int64_t e0 = first(); e0 < m; e0 += stride()) {
        level_edge x = edge_at(b, ncur, off, m, e0);
        unsigned peers = __match_any_sync(full_mask, x.q);
        int leader = __ffs(peers) - 1;
        unsigned long long base = 0;
        if (x.q >= 0 && lane() == leader)
            base = atomicAdd(cursor + x.q, (unsigned long long)__popc(peers));
        base = __shfl_sync(full_mask, base, leader);
        if (x.q >= 0) {
            unsigned long long at =
                base + (unsigned long long)__popc(peers & ((1u << lane()) - 1u));
            pairs[2 * at] = x.v;
            pairs[2 * at + 1] = (int32_t)(b.rb + x.u);
        }
    }
}

__global__ void push_receive(sp_gpu_dist_bfs_t b, const int32_t *pairs, int64_t npairs,
                             int32_t next_level)
{
    for (int64_t k0 = first(); k0 < npairs; k0 += stride()) {
        int64_t k = k0 + lane();
        bool ok = k < npairs;
        int64_t v = ok ? pairs[2 * k] - b.rb : 0;
        int32_t parent = ok ? pairs[2 * k + 1] : 0;
        claim_warp(b, ok, v, parent, next_level);
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_dist_bfs_push_count(const sp_gpu_env_t *env,
                                                   const sp_gpu_dist_bfs_t *b, int64_t ncur,
                                                   const int64_t *d_off, int64_t m,
                                                   int64_t depth, unsigned long long *d_scount)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    unsigned grid = sp_prim::grid_for(env, m, P::block_threads, P::blocks_per_sm);
    size_t shared = (size_t)b->nranks * sizeof(unsigned long long);
    SP_CUDA_TRY(cudaMemsetAsync(d_scount, 0, shared, s));
    if (m == 0) goto done;
    if (shared > 48 * 1024)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_dist_bfs: %d ranks need %zu bytes of shared counters (at most 6144 ranks)",
                b->nranks, shared);
    push_count<<<grid, P::block_threads, shared, s>>>(*b, ncur, d_off, m, (int32_t)(depth + 1),
                                                      d_scount);
    SP_CUDA_LAUNCHED("push_count");
done:
    return st;
}

extern "C" sp_status_t sp__gpu_dist_bfs_push_scatter(const sp_gpu_env_t *env,
                                                     const sp_gpu_dist_bfs_t *b, int64_t ncur,
                                                     const int64_t *d_off, int64_t m,
                                                     unsigned long long *d_cursor,
                                                     int32_t *d_pairs)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = sp_prim::grid_for(env, m, P::block_threads, P::blocks_per_sm);
    if (m == 0) goto done;
    push_scatter<<<grid, P::block_threads, 0, (cudaStream_t)env->stream>>>(*b, ncur, d_off, m,
                                                                           d_cursor, d_pairs);
    SP_CUDA_LAUNCHED("push_scatter");
done:
    return st;
}

extern "C" sp_status_t sp__gpu_dist_bfs_push_receive(const sp_gpu_env_t *env,
                                                     const sp_gpu_dist_bfs_t *b,
                                                     const int32_t *d_pairs, int64_t npairs,
                                                     int64_t depth)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = sp_prim::grid_for(env, npairs, P::block_threads, P::blocks_per_sm);
    if (npairs == 0) goto done;
    push_receive<<<grid, P::block_threads, 0, (cudaStream_t)env->stream>>>(
        *b, d_pairs, npairs, (int32_t)(depth + 1));
    SP_CUDA_LAUNCHED("push_receive");
done:
    return st;
}
