/* The bottom-up (pull) step of BFS over CSC (PMPP ch. 15; Beamer's bottom-up step) as
 * device functions: the per-level pull kernel (bfs_pull.cu) and the graph level loop
 * (bfs_graph_loop.cu) call them. Every unvisited vertex scans its in-edges for a vertex of
 * the frontier bitmap and stops at the first, which becomes its parent; correct on directed
 * graphs because it reads the in-edges. In-degrees bucketed like push: thread, warp (32
 * in-edges per step, stopping on a ballot), and grid-wide hub pieces that stop once any
 * piece has found a parent. The vertices found are set in the next bitmap only (a queue
 * append would put one atomic per warp on a single counter: on the H200 it doubled the
 * big pull levels of a Kronecker search); a push after a pull reads that bitmap. */
#ifndef SP_BFS_PULL_CUH
#define SP_BFS_PULL_CUH

#include "bfs_level_common.cuh"

namespace bfs {

/* d_front is not written during a pull level: read it through the read-only path. */
template <typename Off>
__device__ __forceinline__ bool in_front(const level_args<Off> &a, int32_t u)
{
    return (__ldg(a.front + (u >> 5)) >> (u & 31)) & 1u;
}

/* The first vertex of frontier among u[0..3] (-1 for none; u < 0 is no edge). */
template <typename Off>
__device__ __forceinline__ int32_t first_in_front(const level_args<Off> &a,
                                                  const int32_t (&u)[4])
{
    bool f[4];
#pragma unroll
    for (int j = 0; j < 4; j++) f[j] = u[j] >= 0 && in_front(a, u[j]);
#pragma unroll
    for (int j = 0; j < 4; j++)
        if (f[j]) return u[j];
    return -1;
}

/* Scan in-edges [k, lim) of the lane's vertex four at a time (four independent loads in
 * flight instead of a chain of dependent ones) until one is in the frontier. */
template <typename Off>
__device__ __forceinline__ int32_t scan_in_edges(const level_args<Off> &a, int64_t k,
                                                 int64_t lim)
{
    int32_t found = -1;
    for (; k < lim && found < 0; k += 4) {
        int32_t u[4];
#pragma unroll
        for (int j = 0; j < 4; j++) u[j] = k + j < lim ? a.in_idx[k + j] : -1;
        found = first_in_front(a, u);
    }
    return found;
}

/* A warp owns 32 consecutive vertices, hence one word of visited and of next: nothing
 * else in this kernel writes those words (hub vertices are left to hub_pull_kernel, which
 * runs after it), so the warp finds the parents of its unvisited vertices, then one lane
 * stores both words without atomics. Every lane first probes the first pull_probe in-edges
 * of its vertex: on a power-law graph most vertices have a frontier neighbour among them
 * at the big pull levels, so the warp rarely falls back to walking one vertex's list at a
 * time. What is left after the probe is walked by the lane (up to pull_thread_rest more),
 * by the whole warp, 32 in-edges a step (medium lists), or by the grid (hubs, deferred). */
template <typename Off>
__device__ __forceinline__ void pull_body(const level_args<Off> &a)
{
    tally t = {0, 0};
    int lane = threadIdx.x & 31;
    for (int64_t base = (int64_t)blockIdx.x * P::block_threads + (threadIdx.x & ~31);
         base < a.n; base += (int64_t)gridDim.x * P::block_threads) {
        int64_t vv = base + lane;
        int32_t v = vv < a.n ? (int32_t)vv : -1;
        Off beg = 0, end = 0, obeg = 0, oend = 0;
        int32_t found = -1;
        /* base is a multiple of 32: the warp's vertices share one visited word (bits past
         * n are never set, so a full word has 32 vertices, all visited). The word, both
         * degrees (in: to scan; out: counted if found) load together: one round trip. */
        uint32_t seen = __ldcg(a.visited + (base >> 5));
        if (v >= 0) {
            beg = a.in_ptr[v];
            end = a.in_ptr[v + 1];
            obeg = a.out_ptr[v];
            oend = a.out_ptr[v + 1];
        }
        if (seen == 0xffffffffu) continue;
        if ((seen >> lane) & 1u) end = beg;
        int32_t deg = (int32_t)(end - beg);
        /* the probe: its in-edge loads in one round, its frontier tests in the next */
        int64_t lim = beg + P::pull_probe < end ? beg + P::pull_probe : end;
        int32_t u[P::pull_probe];
#pragma unroll
        for (int j = 0; j < P::pull_probe; j++) u[j] = beg + j < lim ? a.in_idx[beg + j] : -1;
        bool f[P::pull_probe];
#pragma unroll
        for (int j = 0; j < P::pull_probe; j++) f[j] = u[j] >= 0 && in_front(a, u[j]);
#pragma unroll
        for (int j = P::pull_probe - 1; j >= 0; j--)
            if (f[j]) found = u[j];
        int64_t rest = found < 0 ? end - lim : 0;
        if (rest > 0 && deg >= P::hub_degree) defer_hub(a, v, deg);
        unsigned coop = __ballot_sync(sp_prim::full_mask, rest > P::pull_thread_rest &&
                                                              deg < P::hub_degree);
        while (coop) {
            int leader = __ffs(coop) - 1;
            coop &= coop - 1;
            int64_t b = __shfl_sync(sp_prim::full_mask, lim, leader);
            int64_t e = __shfl_sync(sp_prim::full_mask, end, leader);
            for (int64_t k0 = b; k0 < e; k0 += 32) {
                int32_t x = k0 + lane < e ? a.in_idx[k0 + lane] : -1;
                unsigned hit = __ballot_sync(sp_prim::full_mask, x >= 0 && in_front(a, x));
                if (hit) {
                    x = __shfl_sync(sp_prim::full_mask, x, __ffs(hit) - 1);
                    if (lane == leader) found = x;
                    break;
                }
            }
        }
        if (rest > 0 && rest <= P::pull_thread_rest) found = scan_in_edges(a, lim, end);
        unsigned mask = __ballot_sync(sp_prim::full_mask, found >= 0);
        if (found >= 0) {
            a.level[v] = a.cur + 1;
            if (a.parent) a.parent[v] = found;
            t.vertices++;
            t.edges += (unsigned long long)(oend - obeg);
        }
        if (lane == 0 && mask) {
            a.visited[base >> 5] = seen | mask;
            a.next[base >> 5] = mask;
        }
    }
    flush(a, t);
}

/* One block per piece of a deferred vertex's in-edges; every piece stops as soon as the
 * vertex is visited (found by any piece), and the claim lets exactly one finder record. */
template <typename Off>
__device__ __forceinline__ void hub_pull_body(const level_args<Off> &a)
{
    tally t = {0, 0};
    for_each_hub_piece(a, a.in_ptr, [&](int32_t v, int64_t b, int64_t e) {
        for (int64_t k = b + threadIdx.x; k < e && !bit_of(a.visited, v);
             k += P::block_threads) {
            int32_t u = a.in_idx[k];
            if (in_front(a, u) && claim(a.visited, v))
                discovered<EMIT_BITMAP>(a, u, v, t);
        }
    });
    flush(a, t);
}

} /* namespace bfs */

#endif /* SP_BFS_PULL_CUH */
