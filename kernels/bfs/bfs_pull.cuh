/* The bottom-up (pull) step of BFS over CSC (PMPP ch. 15; Beamer's bottom-up step) as
 * device functions: the per-level pull kernel (bfs_pull.cu) and the graph level loop
 * (bfs_graph_loop.cu) call them. Every unvisited vertex scans its in-edges for a vertex of
 * the frontier bitmap and stops at the first, which becomes its parent; correct on directed
 * graphs because it reads the in-edges. In-degrees bucketed like push: thread, warp (32
 * in-edges per step, stopping on a ballot), and grid-wide hub pieces that stop once any
 * piece has found a parent. QUEUE: the vertices found are also appended to next_queue
 * (one atomic per warp), so the next level can push without a bitmap -> queue pass. */
#ifndef SP_BFS_PULL_CUH
#define SP_BFS_PULL_CUH

#include "bfs_level_common.cuh"

namespace bfs {

/* d_front is not written during a pull level: read it through the read-only path. */
__device__ __forceinline__ bool in_front(const level_args &a, int32_t u)
{
    return (__ldg(a.front + (u >> 5)) >> (u & 31)) & 1u;
}

/* The first vertex of frontier among u[0..3] (-1 for none; u < 0 is no edge). */
__device__ __forceinline__ int32_t first_in_front(const level_args &a, const int32_t (&u)[4])
{
    bool f[4];
#pragma unroll
    for (int j = 0; j < 4; j++) f[j] = u[j] >= 0 && in_front(a, u[j]);
#pragma unroll
    for (int j = 0; j < 4; j++)
        if (f[j]) return u[j];
    return -1;
}

/* A warp owns 32 consecutive vertices, hence one word of visited and of next: nothing
 * else in this kernel writes those words (hub vertices are left to hub_pull_kernel, which
 * runs after it), so the warp finds the parents of its unvisited vertices, then one lane
 * stores both words without atomics. Short in-edge lists are scanned four edges at a time
 * (four independent loads in flight instead of a chain of dependent ones). */
template <bool QUEUE>
__device__ __forceinline__ void pull_body(const level_args &a)
{
    tally t = {0, 0};
    int lane = threadIdx.x & 31;
    for (int64_t base = (int64_t)blockIdx.x * P::block_threads + (threadIdx.x & ~31); base < a.n;
         base += (int64_t)gridDim.x * P::block_threads) {
        int64_t vv = base + lane;
        int32_t v = vv < a.n ? (int32_t)vv : -1;
        int32_t beg = 0, end = 0, found = -1;
        /* base is a multiple of 32: the warp's vertices share one visited word */
        uint32_t seen = __ldcg(a.visited + (base >> 5));
        if (v >= 0 && !((seen >> lane) & 1u)) {
            beg = a.in_ptr[v];
            end = a.in_ptr[v + 1];
        }
        int32_t deg = end - beg;
        if (deg >= P::hub_degree) defer_hub(a, v, deg);
        unsigned coop = __ballot_sync(sp_prim::full_mask,
                                      deg >= P::warp_degree && deg < P::hub_degree);
        while (coop) {
            int leader = __ffs(coop) - 1;
            coop &= coop - 1;
            int64_t b = __shfl_sync(sp_prim::full_mask, beg, leader);
            int64_t e = __shfl_sync(sp_prim::full_mask, end, leader);
            for (int64_t k0 = b; k0 < e; k0 += 32) {
                int32_t u = k0 + lane < e ? a.in_idx[k0 + lane] : -1;
                unsigned hit = __ballot_sync(sp_prim::full_mask, u >= 0 && in_front(a, u));
                if (hit) {
                    u = __shfl_sync(sp_prim::full_mask, u, __ffs(hit) - 1);
                    if (lane == leader) found = u;
                    break;
                }
            }
        }
        if (deg < P::warp_degree)
            for (int64_t k = beg; k < end && found < 0; k += 4) {
                int32_t u[4];
#pragma unroll
                for (int j = 0; j < 4; j++) u[j] = k + j < end ? a.in_idx[k + j] : -1;
                found = first_in_front(a, u);
            }
        unsigned mask = __ballot_sync(sp_prim::full_mask, found >= 0);
        if (found >= 0) {
            a.level[v] = a.cur + 1;
            if (a.parent) a.parent[v] = found;
            t.vertices++;
            t.edges += (unsigned long long)(a.out_ptr[v + 1] - a.out_ptr[v]);
        }
        if (lane == 0 && mask) {
            a.visited[base >> 5] = seen | mask;
            a.next[base >> 5] = mask;
        }
        if (QUEUE && mask) {
            int32_t at = 0;
            if (lane == 0) at = atomicAdd(&a.ctr->queue_tail, __popc(mask));
            at = __shfl_sync(sp_prim::full_mask, at, 0);
            if (found >= 0) a.next_queue[at + __popc(mask & ((1u << lane) - 1u))] = v;
        }
    }
    flush(a, t);
}

/* One block per piece of a deferred vertex's in-edges; every piece stops as soon as the
 * vertex is visited (found by any piece), and the claim lets exactly one finder record. */
template <bool QUEUE>
__device__ __forceinline__ void hub_pull_body(const level_args &a)
{
    tally t = {0, 0};
    int64_t np = a.ctr->hub_pieces;
    if (np > a.max_pieces) np = a.max_pieces;
    for (int64_t p = blockIdx.x; p < np; p += gridDim.x) {
        int32_t v = a.piece_vertex[p];
        int64_t b = (int64_t)a.in_ptr[v] + a.piece_start[p];
        int64_t e = b + P::hub_degree < a.in_ptr[v + 1] ? b + P::hub_degree : a.in_ptr[v + 1];
        for (int64_t k = b + threadIdx.x; k < e && !bit_of(a.visited, v); k += P::block_threads) {
            int32_t u = a.in_idx[k];
            if (in_front(a, u) && claim(a.visited, v))
                discovered<(QUEUE ? EMIT_QUEUE_BITMAP : EMIT_BITMAP)>(a, u, v, t, nullptr);
        }
    }
    flush(a, t);
}

} /* namespace bfs */

#endif /* SP_BFS_PULL_CUH */
