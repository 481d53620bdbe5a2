/* The one BFS push expansion (kernels/bfs/), used by every level loop and variant: the
 * per-level kernels and the graph loop (bfs_level_common.cuh) and the single-block and
 * persistent loops (bfs_loop_common.cuh). Degree-bucketed as in Merrill, Garland &
 * Grimshaw 2012: a lane's short list by the lane, a medium one by its warp, K edges per lane
 * in flight per round; the largest lists are the caller's (grid-wide hub pieces, or the
 * block's hub list), scanned with visit_range. Header-only, everything inline.
 *
 * Parameters the callers choose:
 *   K       edges per lane in flight (P::batch; 1 where registers are scarce);
 *   I       the index type of a lane's own edge range (int32_t or int64_t: what the caller
 *           holds, so neither family widens its registers);
 *   Sink    where claimed vertices go: push(c, v) is warp-collective; warp_append gives
 *           one reservation per warp to a sink with reserve(k) and store(pos, v), and
 *           warp_claims the slots for a sink that reserves its own way;
 *   Tally   counters of the caller; Tally::per_claim says whether the claimed vertices
 *           and their out-edges are counted here (the per-level kernels: the next
 *           frontier's size and edges feed Beamer's rule) or by the caller (the loops count
 *           what they expand);
 *   preread whether the visited words are read before the claiming atomics. */
#ifndef SP_BFS_EXPAND_CUH
#define SP_BFS_EXPAND_CUH

#include <stdint.h>

#include "bfs/bfs_policy.h"
#include "prim/prim_common.cuh"

namespace bfs {

using P = sp_bfs_policy;

/* The pointers of offset type Off among a graph's 32- and 64-bit ones. */
template <typename Off> const Off *offsets_of(const int32_t *p32, const int64_t *p64);
template <> inline const int32_t *offsets_of<int32_t>(const int32_t *p32, const int64_t *)
{
    return p32;
}
template <> inline const int64_t *offsets_of<int64_t>(const int32_t *, const int64_t *p64)
{
    return p64;
}

/* What an expansion reads and writes: out-edges (ptr, idx; ptr of the graph's offset type
 * Off, int32_t or int64_t), the level and parent arrays (parent may be NULL), the visited
 * bitmap, and the level its claims get. */
template <typename Off>
struct push_view {
    const Off *ptr;
    const int32_t *idx;
    int32_t *level, *parent;
    uint32_t *visited;
    int32_t next_level;
};

/* The warp's claimed vertices (c[j] set): in *cnt the lane's, in *incl those of the lanes
 * up to this one; returns the warp's total. All 32 lanes must call it. */
template <int K>
__device__ __forceinline__ int warp_claims(const bool (&c)[K], int *cnt, int *incl)
{
    int n = 0;
#pragma unroll
    for (int j = 0; j < K; j++) n += c[j];
    *cnt = n;
    *incl = sp_prim::warp_inclusive_scan(n, threadIdx.x & 31);
    return __shfl_sync(sp_prim::full_mask, *incl, 31);
}

/* Append each lane's claimed vertices v[j] (c[j] set) to sink with one reservation per
 * warp. All 32 lanes must call it. */
template <int K, typename Sink>
__device__ __forceinline__ void warp_append(Sink &sink, const bool (&c)[K],
                                            const int32_t (&v)[K])
{
    int cnt, incl;
    int total = warp_claims(c, &cnt, &incl);
    if (total == 0) return;
    int32_t base = 0;
    if ((threadIdx.x & 31) == 31) base = sink.reserve(total);
    int32_t pos = __shfl_sync(sp_prim::full_mask, base, 31) + (incl - cnt);
#pragma unroll
    for (int j = 0; j < K; j++)
        if (c[j]) sink.store(pos++, v[j]);
}

/* The heads v[j] (j < K; -1: none) of edges out of src[j]: claim each unvisited head
 * (exactly one claimer per vertex per traversal: the atomicOr on the visited bit decides;
 * the L2-only pre-read, made when preread is set, only skips the atomic for bits seen set,
 * and a stale read can only miss a bit, never invent one), record its level and parent,
 * count it when the tally counts claims, and hand the claimed heads to sink. Each step is
 * one round for all K edges (loads, visited reads, atomics, degree reads), where one edge
 * at a time makes a chain of dependent loads and atomics per edge. All 32 lanes must call
 * it (the sink may reserve per warp). */
template <int K, typename Sink, typename Tally, typename Off>
__device__ __forceinline__ void claim_heads(const push_view<Off> &g, Sink &sink, Tally &t,
                                            const int32_t (&src)[K], const int32_t (&v)[K],
                                            bool preread)
{
    uint32_t w[K];
    bool c[K];
#pragma unroll
    for (int j = 0; j < K; j++)
        w[j] = v[j] < 0 ? ~0u : (preread ? __ldcg(g.visited + (v[j] >> 5)) : 0u);
#pragma unroll
    for (int j = 0; j < K; j++) {
        uint32_t bit = 1u << (v[j] & 31);
        c[j] = !(w[j] & bit) && !(atomicOr(g.visited + (v[j] >> 5), bit) & bit);
    }
    if (Tally::per_claim) {
        int32_t deg[K];
#pragma unroll
        for (int j = 0; j < K; j++)
            deg[j] = c[j] ? (int32_t)(__ldg(g.ptr + v[j] + 1) - __ldg(g.ptr + v[j])) : 0;
#pragma unroll
        for (int j = 0; j < K; j++) {
            t.vertices += c[j];
            t.edges += deg[j];
        }
    }
#pragma unroll
    for (int j = 0; j < K; j++)
        if (c[j]) {
            g.level[v[j]] = g.next_level;
            if (g.parent) g.parent[v[j]] = src[j];
        }
    sink.push(c, v);
}

/* The lane's edges k0 + j * stride < kend (j < K) out of u (claim_heads). */
template <int K, typename I, typename Sink, typename Tally, typename Off>
__device__ __forceinline__ void visit_batch(const push_view<Off> &g, Sink &sink, Tally &t,
                                            int32_t u, I k0, I stride, I kend, bool preread)
{
    int32_t src[K], v[K];
#pragma unroll
    for (int j = 0; j < K; j++) {
        I k = k0 + j * stride;
        v[j] = k < kend ? __ldg(g.idx + k) : -1;
        src[j] = u;
    }
    claim_heads<K>(g, sink, t, src, v, preread);
}

/* The lanes' short lists [b, e) (each under warp_degree edges; b == e: none) as one list:
 * the warp's edges in lane order, K a lane a round, slot j of lane l taking position
 * r + l + 32 j, whose owner is the first lane with an inclusive degree sum past it (a
 * binary search of 5 shuffles). ceil(sum / (32 K)) rounds of claim_heads, where each lane
 * walking its own list takes ceil(longest / K): a list of 31 among lists of 2 is 1 round
 * instead of 8 dependent ones (Merrill, Garland & Grimshaw 2012, scan-based gathering).
 * All 32 lanes must call it. */
template <int K, typename I, typename Sink, typename Tally, typename Off>
__device__ __forceinline__ void gather_short(const push_view<Off> &g, Sink &sink, Tally &t,
                                             int32_t u, I b, int deg, int incl, int total,
                                             bool preread)
{
    const int lane = threadIdx.x & 31;
#pragma unroll 1
    for (int r = 0; r < total; r += 32 * K) {
        int32_t src[K], v[K];
#pragma unroll
        for (int j = 0; j < K; j++) {
            const int p = r + lane + 32 * j;
            int o = 0; /* lanes whose inclusive sum is at most p (31 at most) */
#pragma unroll
            for (int step = 16; step > 0; step >>= 1)
                if (__shfl_sync(sp_prim::full_mask, incl, o + step - 1) <= p) o += step;
            const int oincl = __shfl_sync(sp_prim::full_mask, incl, o);
            const int odeg = __shfl_sync(sp_prim::full_mask, deg, o);
            const I ob = __shfl_sync(sp_prim::full_mask, b, o);
            src[j] = __shfl_sync(sp_prim::full_mask, u, o);
            v[j] = p < total ? __ldg(g.idx + ob + (I)(p - (oincl - odeg))) : -1;
        }
        claim_heads<K>(g, sink, t, src, v, preread);
    }
}

/* Edges [b, e) of u by a group of threads: the caller's thread at offset `first` of the
 * group, `stride` threads (a warp: lane and 32; a block: threadIdx.x and its size). The
 * trip count is the group's, so every lane calls visit_batch in every trip. */
template <int K, typename Sink, typename Tally, typename Off>
__device__ __forceinline__ void visit_range(const push_view<Off> &g, Sink &sink, Tally &t,
                                            int32_t u, int64_t b, int64_t e, int64_t first,
                                            int64_t stride, bool preread)
{
    for (int64_t k0 = b; k0 < e; k0 += stride * K)
        visit_batch<K>(g, sink, t, u, k0 + first, stride, e, preread);
}

/* Expand the lane's vertex u over its edges [b, e) (b == e: none; the caller has taken the
 * hubs out): lists of warp_degree edges or more by the whole warp, one list at a time
 * (coalesced reads of the adjacency), the rest by the lane, K edges a round, or, with
 * gather, where some lane has more than K of them left and one list takes fewer rounds
 * than the longest lane's walk, by the warp as one list (gather_short). All 32 lanes must
 * call it. */
template <int K, typename I, typename Sink, typename Tally, typename Off>
__device__ __forceinline__ void expand_lane(const push_view<Off> &g, Sink &sink, Tally &t,
                                            int32_t u, I b, I e, bool preread,
                                            bool gather = false)
{
    const int lane = threadIdx.x & 31;
    unsigned mid = __ballot_sync(sp_prim::full_mask, e - b >= P::warp_degree);
    while (mid) {
        int src = __ffs(mid) - 1;
        mid &= mid - 1;
        int32_t wu = __shfl_sync(sp_prim::full_mask, u, src);
        int64_t wb = __shfl_sync(sp_prim::full_mask, (int64_t)b, src);
        int64_t we = __shfl_sync(sp_prim::full_mask, (int64_t)e, src);
        visit_range<K>(g, sink, t, wu, wb, we, lane, 32, preread);
    }
    if (e - b >= P::warp_degree) e = b;
    if (gather && __any_sync(sp_prim::full_mask, e - b > K)) {
        /* gather only where it takes fewer rounds than the longest lane's walk: a warp of
         * lists of like length (a mesh's) keeps the walk, which needs no shuffles */
        const int deg = (int)(e - b); /* < warp_degree: the warp's sum fits an int */
        const int incl = sp_prim::warp_inclusive_scan(deg, lane);
        const int total = __shfl_sync(sp_prim::full_mask, incl, 31);
        int longest = deg;
#pragma unroll
        for (int d = 16; d > 0; d >>= 1)
            longest = max(longest, __shfl_xor_sync(sp_prim::full_mask, longest, d));
        if ((total + 32 * K - 1) / (32 * K) < (longest + K - 1) / K) {
            gather_short<K>(g, sink, t, u, b, deg, incl, total, preread);
            return;
        }
    }
    while (__any_sync(sp_prim::full_mask, b < e)) {
        visit_batch<K>(g, sink, t, u, b, I(1), e, preread);
        b = e - b < K ? e : b + K;
    }
}

} /* namespace bfs */

#endif /* SP_BFS_EXPAND_CUH */
