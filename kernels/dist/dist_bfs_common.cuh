/* What the distributed BFS's kernels share (kernels/dist/): their launch policy, the owner
 * of a global vertex (the binary search of src/dist's sp__dist_owner_in), and the claim of
 * a vertex by a whole warp, whose successful lanes append their vertices to the next
 * frontier with one atomic per warp (warp-aggregated atomics). Every loop walks its items
 * a warp at a time (all 32 lanes take the same trips), so the warp-wide intrinsics see
 * the full mask. Header-only. */
#ifndef SP_DIST_BFS_COMMON_CUH
#define SP_DIST_BFS_COMMON_CUH

#include "dist/dist_bfs_kernels.h"
#include "prim/kernel_util.cuh"

struct sp_dist_bfs_policy {
    /* threads of every kernel (a multiple of the warp) and the grid cap in blocks per SM
     * (the loops stride over the rest) */
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;
};

namespace sp_dbfs
{

static constexpr unsigned full_mask = 0xffffffffu;

/* The first item of this thread's warp and the stride of a warp-uniform grid-stride loop:
 * for (i0 = first(); i0 < n; i0 += stride()) { i = i0 + lane(); ... i < n ... } */
__device__ __forceinline__ int lane()
{
    return (int)(threadIdx.x & 31u);
}
__device__ __forceinline__ int64_t first()
{
    return (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
}
__device__ __forceinline__ int64_t stride()
{
    return (int64_t)gridDim.x * blockDim.x;
}

/* The last i in [0, n) with a[i] <= x (a nondecreasing, a[0] <= x), by binary search: the
 * owner of a vertex in the split, the frontier vertex of an edge in the scanned degrees. */
__device__ __forceinline__ int64_t last_at_most(const int64_t *a, int64_t n, int64_t x)
{
    int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (__ldg(a + mid) <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The rank owning global vertex j: the last r with row_begin[r] <= j (empty parts skipped;
 * sp__dist_owner_in's rule). */
__device__ __forceinline__ int owner(const int64_t *row_begin, int nranks, int64_t j)
{
    return (int)last_at_most(row_begin, nranks, j);
}

/* Called by all 32 lanes: each lane with want claims local vertex i with parent at level
 * lvl if nobody has; the winners' vertices go to d_next and the counters. */
__device__ __forceinline__ void claim_warp(const sp_gpu_dist_bfs_t &b, bool want, int64_t i,
                                           int32_t parent, int32_t lvl)
{
    bool won = false;
    unsigned long long deg = 0;
    if (want) {
        unsigned long long bit = 1ull << (i & 63);
        won = !(atomicOr(b.d_visited + (i >> 6), bit) & bit);
    }
    if (won) {
        b.d_level[i] = lvl;
        b.d_parent[i] = parent;
        deg = (unsigned long long)(b.d_out_ptr[i + 1] - b.d_out_ptr[i]);
    }
    unsigned winners = __ballot_sync(full_mask, won);
    if (winners == 0) return;
    for (int off = 16; off > 0; off >>= 1)
        deg += __shfl_xor_sync(full_mask, deg, off);
    int leader = __ffs(winners) - 1;
    unsigned long long base = 0;
    if (lane() == leader) {
        base = atomicAdd(b.d_counters, (unsigned long long)__popc(winners));
        atomicAdd(b.d_counters + 1, deg);
    }
    base = __shfl_sync(full_mask, base, leader);
    if (won) b.d_next[base + __popc(winners & ((1u << lane()) - 1u))] = (int32_t)i;
}

} /* namespace sp_dbfs */

#endif /* SP_DIST_BFS_COMMON_CUH */
