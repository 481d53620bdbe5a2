/* Building blocks of the per-level BFS kernels (kernels/bfs/): the visited-bitmap claim,
 * the three ways a discovered vertex is recorded (counted, appended to a queue, set in a
 * bitmap), the degree-bucketed expansion of a warp's vertices (Merrill, Garland & Grimshaw
 * 2012: thread, warp, and grid-wide "hub pieces" for the largest degrees) and the kernels
 * that expand the deferred hub pieces. Header-only, everything static or inline. */
#ifndef SP_BFS_LEVEL_COMMON_CUH
#define SP_BFS_LEVEL_COMMON_CUH

#include <cooperative_groups.h>

#include "prim/prim_common.cuh"
#include "sp_kernels_bfs.h"

namespace bfs {

/* Tuning constants shared by the level kernels. A vertex of degree below warp_degree is
 * expanded by its own thread, below hub_degree by its warp; larger ones are cut into
 * pieces of hub_degree edges that a second kernel spreads over the whole grid (one block
 * per piece), so a million-edge hub costs ~1000 block-sized pieces on many SMs instead of
 * a million steps on one thread. Pieces of 1024 edges (4 steps of a block) rather than
 * 4096: the second level of a Kronecker search is a few hubs' pieces, and each step of a
 * piece is a chain of dependent loads and atomics, so shorter pieces on more blocks finish
 * sooner (H200, kron22: see bench/results/h200-bfs.md). */
struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;
    static constexpr int warp_degree = 32;
    static constexpr int hub_degree = 1024;
    static constexpr int shared_queue = 3072; /* privatized: entries per block queue */
    /* pull: in-edges every lane scans first, and at most this many more by the lane
     * before its warp takes the rest */
    static constexpr int pull_probe = 8;
    static constexpr int pull_thread_rest = 24;
    /* edges a thread of a hub piece visits at once (block_threads * hub_batch = one piece
     * of hub_degree edges in one step) */
    static constexpr int hub_batch = 4;
};
using P = policy;

/* Everything a level kernel reads or writes, passed by value. */
struct level_args {
    int64_t n;
    const int32_t *out_ptr, *out_idx, *in_ptr, *in_idx, *coo_row, *coo_col;
    int64_t nnz;
    int32_t *level, *parent;
    uint32_t *visited, *front, *next;
    const int32_t *queue;
    int32_t *next_queue;
    int32_t *piece_vertex, *piece_start;
    int64_t max_pieces;
    sp_gpu_bfs_counters_t *ctr;
    int32_t cur;
    /* push: a vertex of this degree or more is cut into hub pieces (hub_degree, or
     * warp_degree for a small frontier: see small_frontier_hub_min) */
    int32_t hub_min;
};

static inline level_args make_args(const sp_gpu_bfs_graph_t *g, const sp_gpu_bfs_work_t *w,
                                   int32_t cur)
{
    level_args a;
    a.n = g->n;
    a.nnz = g->nnz;
    a.out_ptr = g->d_out_ptr;
    a.out_idx = g->d_out_idx;
    a.in_ptr = g->d_in_ptr;
    a.in_idx = g->d_in_idx;
    a.coo_row = g->d_coo_row;
    a.coo_col = g->d_coo_col;
    a.level = w->d_level;
    a.parent = w->d_parent;
    a.visited = w->d_visited;
    a.front = w->d_front;
    a.next = w->d_next;
    a.queue = w->d_queue;
    a.next_queue = w->d_next_queue;
    a.piece_vertex = w->d_piece_vertex;
    a.piece_start = w->d_piece_start;
    a.max_pieces = w->max_pieces;
    a.ctr = w->d_counters;
    a.cur = cur;
    a.hub_min = P::hub_degree;
    return a;
}

/* The deferral threshold of a push level over a queue of count vertices. A frontier of
 * fewer vertices than the GPU has warps leaves most of it idle when each warp walks its
 * vertices' edges one vertex at a time (the second level of a Kronecker graph: a few
 * hundred vertices of degree up to 4095 took 1.1 ms on one block); then every vertex of
 * warp_degree edges or more goes to the grid-wide hub pieces instead. The piece buffer
 * holds them: a level defers at most count vertices, so it needs at most
 * nnz / hub_degree + count pieces, and max_pieces = 2 nnz / hub_degree + 1. */
__host__ __device__ inline int32_t hub_min_for(int64_t count, int64_t nnz, int64_t max_pieces,
                                               int64_t warps)
{
    bool fits = count + nnz / P::hub_degree + 1 <= max_pieces;
    return fits && count < warps ? P::warp_degree : P::hub_degree;
}

/* Warps of the per-level grid (grid_for's cap). */
static inline int64_t level_warps(const sp_gpu_env_t *env)
{
    return (int64_t)(env->sm_count > 0 ? env->sm_count : 1) * P::blocks_per_sm *
           (P::block_threads / 32);
}

static inline int32_t small_frontier_hub_min(const sp_gpu_env_t *env,
                                             const sp_gpu_bfs_graph_t *g,
                                             const sp_gpu_bfs_work_t *w, int64_t count)
{
    return hub_min_for(count, g->nnz, w->max_pieces, level_warps(env));
}

/* Blocks for a grid-stride loop over n > 0 items, at most blocks_per_sm per SM. */
static inline unsigned grid_for(const sp_gpu_env_t *env, int64_t n)
{
    int64_t cap = (int64_t)(env->sm_count > 0 ? env->sm_count : 1) * P::blocks_per_sm;
    int64_t need = (n + P::block_threads - 1) / P::block_threads;
    if (need < 1) need = 1;
    return (unsigned)(need < cap ? need : cap);
}

__host__ __device__ inline int64_t bitmap_words(int64_t n) { return (n + 31) / 32; }

/* Blocks of a hub-pieces kernel: as many as can be resident (one piece per block at a
 * time; a level's pieces are spread over the whole GPU). */
static inline unsigned hub_grid(const sp_gpu_env_t *env)
{
    return (unsigned)((int64_t)(env->sm_count > 0 ? env->sm_count : 1) * P::blocks_per_sm);
}

/* The checks every level entry point makes. */
static inline sp_status_t check_level(const char *what, const sp_gpu_env_t *env,
                                      const sp_gpu_bfs_graph_t *g, const sp_gpu_bfs_work_t *w)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && g != NULL && w != NULL, "%s: NULL argument", what);
    SP_CHECK_ARG(g->n >= 1 && g->n <= INT32_MAX && g->nnz >= 0 && g->nnz <= INT32_MAX,
                 "%s: graph of %lld vertices and %lld edges (need 1..2^31-1 and < 2^31)", what,
                 (long long)g->n, (long long)g->nnz);
    SP_CHECK_ARG(g->d_out_ptr != NULL && w->d_level != NULL && w->d_visited != NULL &&
                     w->d_counters != NULL,
                 "%s: NULL CSR, level, visited or counters", what);
done:
    return st;
}

/* What the level kernel does with a vertex it discovers. */
enum emit_kind {
    EMIT_COUNT = 0,  /* count only (vertex-centric and edge-centric push) */
    EMIT_QUEUE = 1,  /* append to next_queue, one atomic per coalesced group */
    EMIT_SHARED = 2, /* append to the block's shared queue, the global queue on overflow */
    EMIT_BITMAP = 3, /* set in the next-frontier bitmap (pull) */
    EMIT_QUEUE_BITMAP = 4 /* both queue and bitmap (the graph loop's direction-optimized
                             push levels: a pull may follow) */
};

struct shared_queue {
    int32_t count;
    int32_t base;
    int32_t q[P::shared_queue];
};

/* Per-thread tallies, summed over the warp and added to the counters once at the end of
 * a kernel (one atomic per warp, not per vertex). */
struct tally {
    int32_t vertices;
    unsigned long long edges;
};

/* All 32 lanes of the warp must call it. */
__device__ __forceinline__ void flush(const level_args &a, tally t)
{
    int32_t v = sp_prim::warp_sum(t.vertices);
    unsigned long long e = sp_prim::warp_sum(t.edges);
    if ((threadIdx.x & 31) == 0) {
        if (v) atomicAdd(&a.ctr->next_vertices, v);
        if (e) atomicAdd(&a.ctr->next_edges, e);
    }
}

__device__ __forceinline__ bool bit_of(const uint32_t *bits, int32_t v)
{
    return (__ldcg(bits + (v >> 5)) >> (v & 31)) & 1u;
}

/* True for exactly one caller per vertex over the whole traversal: the one whose atomicOr
 * sets w's visited bit. The plain read first skips the atomic for vertices long visited
 * (a stale read only costs the atomic). */
__device__ __forceinline__ bool claim(uint32_t *visited, int32_t w)
{
    uint32_t bit = 1u << (w & 31);
    uint32_t *word = visited + (w >> 5);
    if (__ldcg(word) & bit) return false;
    return !(atomicOr(word, bit) & bit);
}

/* Append w to next_queue: the coalesced lanes take consecutive slots with one atomic. */
__device__ __forceinline__ void append_global(const level_args &a, int32_t w)
{
    namespace cg = cooperative_groups;
    cg::coalesced_group g = cg::coalesced_threads();
    int32_t base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(&a.ctr->queue_tail, (int32_t)g.size());
    base = g.shfl(base, 0);
    a.next_queue[base + (int32_t)g.thread_rank()] = w;
}

/* The emissions of a claimed w other than the global queue: the block's shared queue
 * (the global one once it is full), the next-frontier bitmap. */
template <int EMIT>
__device__ __forceinline__ void emit_shared_or_bitmap(const level_args &a, int32_t w,
                                                      shared_queue *sq)
{
    if (EMIT == EMIT_SHARED) {
        int32_t pos = atomicAdd(&sq->count, 1);
        if (pos < P::shared_queue)
            sq->q[pos] = w;
        else
            append_global(a, w);
    }
    if (EMIT == EMIT_BITMAP || EMIT == EMIT_QUEUE_BITMAP)
        atomicOr(a.next + (w >> 5), 1u << (w & 31));
}

/* w was claimed by this thread from parent u: record it. */
template <int EMIT>
__device__ __forceinline__ void discovered(const level_args &a, int32_t u, int32_t w,
                                           tally &t, shared_queue *sq)
{
    a.level[w] = a.cur + 1;
    if (a.parent) a.parent[w] = u;
    t.vertices++;
    t.edges += (unsigned long long)(a.out_ptr[w + 1] - a.out_ptr[w]);
    if (EMIT == EMIT_QUEUE || EMIT == EMIT_QUEUE_BITMAP) append_global(a, w);
    emit_shared_or_bitmap<EMIT>(a, w, sq);
}

template <int EMIT>
__device__ __forceinline__ void visit(const level_args &a, int32_t u, int32_t w, tally &t,
                                      shared_queue *sq)
{
    if (claim(a.visited, w)) discovered<EMIT>(a, u, w, t, sq);
}

/* Cut vertex v's edge range of deg >= a.hub_min edges into pieces of hub_degree edges for
 * the hub kernel. Within one level each vertex is deferred at most once and its pieces
 * number at most deg / hub_degree + 1, at most 2 * deg / hub_degree when deg >= hub_degree,
 * so max_pieces = 2 * nnz / hub_degree + 1 suffices for hub_min = hub_degree, and
 * small_frontier_hub_min lowers hub_min only where count + nnz / hub_degree + 1 fit; the
 * bound check only guards memory. */
__device__ __forceinline__ void defer_hub(const level_args &a, int32_t v, int32_t deg)
{
    int32_t np = (deg + P::hub_degree - 1) / P::hub_degree;
    int32_t base = atomicAdd(&a.ctr->hub_pieces, np);
    for (int32_t k = 0; k < np && (int64_t)base + k < a.max_pieces; k++) {
        a.piece_vertex[base + k] = v;
        a.piece_start[base + k] = k * P::hub_degree;
    }
}

/* Visit up to hub_batch heads w[j] (< 0: none) from parent u with their loads, claims and
 * records in flight together: one round of visited reads, one of atomics, one of degree
 * reads and one queue reservation per warp, where visit() makes a chain of them per
 * edge. All 32 lanes of the warp must call it (the queue reservation is a warp scan). */
template <int EMIT>
__device__ __forceinline__ void visit_batch(const level_args &a, int32_t u,
                                            const int32_t (&w)[P::hub_batch], tally &t,
                                            shared_queue *sq = nullptr)
{
    uint32_t word[P::hub_batch], old[P::hub_batch];
    bool won[P::hub_batch];
    int32_t deg[P::hub_batch], mine = 0;
#pragma unroll
    for (int j = 0; j < P::hub_batch; j++)
        word[j] = w[j] >= 0 ? __ldcg(a.visited + (w[j] >> 5)) : ~0u;
#pragma unroll
    for (int j = 0; j < P::hub_batch; j++) {
        bool need = w[j] >= 0 && !((word[j] >> (w[j] & 31)) & 1u);
        old[j] = need ? atomicOr(a.visited + (w[j] >> 5), 1u << (w[j] & 31)) : ~0u;
    }
#pragma unroll
    for (int j = 0; j < P::hub_batch; j++) {
        won[j] = w[j] >= 0 && !((old[j] >> (w[j] & 31)) & 1u);
        deg[j] = won[j] ? a.out_ptr[w[j] + 1] - a.out_ptr[w[j]] : 0;
        mine += won[j];
    }
    int32_t at = 0;
    if (EMIT == EMIT_QUEUE || EMIT == EMIT_QUEUE_BITMAP) {
        int lane = threadIdx.x & 31;
        int32_t incl = sp_prim::warp_inclusive_scan(mine, lane);
        int32_t total = __shfl_sync(sp_prim::full_mask, incl, 31);
        if (lane == 31 && total) at = atomicAdd(&a.ctr->queue_tail, total);
        at = __shfl_sync(sp_prim::full_mask, at, 31) + incl - mine;
    }
#pragma unroll
    for (int j = 0; j < P::hub_batch; j++) {
        if (!won[j]) continue;
        a.level[w[j]] = a.cur + 1;
        if (a.parent) a.parent[w[j]] = u;
        t.vertices++;
        t.edges += (unsigned long long)deg[j];
        if (EMIT == EMIT_QUEUE || EMIT == EMIT_QUEUE_BITMAP) a.next_queue[at++] = w[j];
        emit_shared_or_bitmap<EMIT>(a, w[j], sq);
    }
}

/* Push expansions that visit hub_batch edges per lane at once (visit_batch: their loads,
 * claims and records in flight together) rather than one chain of dependent loads and
 * atomics per edge (Kronecker 22 on an H200: privatized 30.1 -> 34.1 GTEPS, frontier
 * 23.6 -> 29.4). The graph loop's direction-optimized pushes (EMIT_QUEUE_BITMAP) keep one
 * edge at a time: batched, their kernel, which holds the pull too, needed 48 registers
 * instead of 40, and it is bounded to 32 (bfs_graph_loop.cu). */
template <int EMIT>
__host__ __device__ constexpr bool batched_push()
{
    return EMIT == EMIT_QUEUE || EMIT == EMIT_SHARED || EMIT == EMIT_COUNT;
}

/* Push expansion of one vertex per lane (v < 0: none): small degrees by the lane, medium
 * ones by the whole warp one vertex at a time (coalesced reads of the adjacency), hubs
 * (a.hub_min edges or more) deferred. All 32 lanes must call it. */
template <int EMIT>
__device__ __forceinline__ void expand_push(const level_args &a, int32_t v, tally &t,
                                            shared_queue *sq)
{
    constexpr int K = P::hub_batch;
    int lane = threadIdx.x & 31;
    int32_t beg = 0, end = 0;
    if (v >= 0) {
        beg = a.out_ptr[v];
        end = a.out_ptr[v + 1];
    }
    int32_t deg = end - beg;
    if (deg >= a.hub_min) defer_hub(a, v, deg);
    unsigned coop = __ballot_sync(sp_prim::full_mask, deg >= P::warp_degree && deg < a.hub_min);
    while (coop) {
        int leader = __ffs(coop) - 1;
        coop &= coop - 1;
        int32_t u = __shfl_sync(sp_prim::full_mask, v, leader);
        int64_t b = __shfl_sync(sp_prim::full_mask, beg, leader);
        int64_t e = __shfl_sync(sp_prim::full_mask, end, leader);
        if (batched_push<EMIT>()) { /* warp-uniform trips: every lane calls visit_batch */
            for (int64_t k0 = b + lane; k0 - lane < e; k0 += 32 * K) {
                int32_t w[K];
#pragma unroll
                for (int j = 0; j < K; j++)
                    w[j] = k0 + 32 * j < e ? a.out_idx[k0 + 32 * j] : -1;
                visit_batch<EMIT>(a, u, w, t, sq);
            }
        } else {
            for (int64_t k = b + lane; k < e; k += 32) visit<EMIT>(a, u, a.out_idx[k], t, sq);
        }
    }
    if (batched_push<EMIT>()) {
        if (deg >= P::warp_degree) beg = end; /* the warp's or the hub pieces' */
        while (__any_sync(sp_prim::full_mask, beg < end)) {
            int32_t w[K];
#pragma unroll
            for (int j = 0; j < K; j++) w[j] = beg + j < end ? a.out_idx[beg + j] : -1;
            visit_batch<EMIT>(a, v, w, t, sq);
            beg = end - beg > K ? beg + K : end;
        }
    } else if (deg < P::warp_degree) {
        for (int64_t k = beg; k < end; k++) visit<EMIT>(a, v, a.out_idx[k], t, sq);
    }
}

/* The hub pieces deferred in this level (the bound only guards memory: see defer_hub). */
__device__ __forceinline__ int64_t hub_pieces(const level_args &a)
{
    int64_t np = a.ctr->hub_pieces;
    return np < a.max_pieces ? np : a.max_pieces;
}

/* Piece p: its vertex *v and its edge range [*b, *e) in the adjacency ptr (out_ptr for
 * push, in_ptr for pull). */
__device__ __forceinline__ void hub_piece(const level_args &a, const int32_t *ptr, int64_t p,
                                          int32_t *v, int64_t *b, int64_t *e)
{
    *v = a.piece_vertex[p];
    *b = (int64_t)ptr[*v] + a.piece_start[p];
    int64_t end = ptr[*v + 1];
    *e = *b + P::hub_degree < end ? *b + P::hub_degree : end;
}

/* The deferred hub pieces of a push level: one block per piece (grid-stride over the
 * pieces counted in the counters by the kernel before it on the stream), each thread
 * visiting hub_batch edges of it at once. */
template <int EMIT>
__device__ __forceinline__ void hub_push_body(const level_args &a)
{
    static_assert(EMIT != EMIT_SHARED, "hub pieces append to the global queue");
    tally t = {0, 0};
    int64_t np = hub_pieces(a);
    for (int64_t p = blockIdx.x; p < np; p += gridDim.x) {
        int32_t v;
        int64_t b, e;
        hub_piece(a, a.out_ptr, p, &v, &b, &e);
        for (int64_t k0 = b; k0 < e; k0 += (int64_t)P::block_threads * P::hub_batch) {
            int32_t w[P::hub_batch];
#pragma unroll
            for (int j = 0; j < P::hub_batch; j++) {
                int64_t k = k0 + threadIdx.x + (int64_t)j * P::block_threads;
                w[j] = k < e ? a.out_idx[k] : -1;
            }
            visit_batch<EMIT>(a, v, w, t);
        }
    }
    flush(a, t);
}

template <int EMIT>
__global__ void __launch_bounds__(P::block_threads) hub_push_kernel(level_args a)
{
    hub_push_body<EMIT>(a);
}

/* A push level over the frontier bitmap a.front (the level after a pull, which leaves no
 * queue): a warp per word of 32 vertices, the lanes of the set bits expanding theirs. */
template <int EMIT>
__device__ __forceinline__ void bitmap_push_body(const level_args &a)
{
    tally t = {0, 0};
    int lane = threadIdx.x & 31;
    int64_t words = bitmap_words(a.n);
    for (int64_t w = ((int64_t)blockIdx.x * P::block_threads + threadIdx.x) / 32; w < words;
         w += (int64_t)gridDim.x * (P::block_threads / 32)) {
        uint32_t bits = __ldg(a.front + w);
        if (!bits) continue;
        expand_push<EMIT>(a, (bits >> lane) & 1u ? (int32_t)(w * 32 + lane) : -1, t, nullptr);
    }
    flush(a, t);
}

/* A frontier-queue push level: the count vertices of a.queue, a warp's worth at a time,
 * expanded by expand_push (grid-stride; every thread of the grid must call it). */
template <int EMIT>
__device__ __forceinline__ void frontier_body(const level_args &a, int64_t count)
{
    tally t = {0, 0};
    int lane = threadIdx.x & 31;
    for (int64_t base = (int64_t)blockIdx.x * P::block_threads + (threadIdx.x & ~31);
         base < count; base += (int64_t)gridDim.x * P::block_threads) {
        int64_t i = base + lane;
        expand_push<EMIT>(a, i < count ? a.queue[i] : -1, t, nullptr);
    }
    flush(a, t);
}

/* Launch the hub kernel after a push level kernel (it finds no pieces when none were
 * deferred; the launch is the price of not reading the count back). */
template <int EMIT>
static inline sp_status_t launch_hubs_push(const sp_gpu_env_t *env, const level_args &a)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (a.nnz < a.hub_min) goto done; /* no vertex can be a hub */
    hub_push_kernel<EMIT><<<hub_grid(env),
                            P::block_threads, 0, (cudaStream_t)env->stream>>>(a);
    SP_CUDA_LAUNCHED("hub_push_kernel");
done:
    return st;
}

/* Zero the counters (a stream-ordered memset). */
static inline sp_status_t reset_counters(const sp_gpu_env_t *env, sp_gpu_bfs_counters_t *ctr)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CUDA_TRY(cudaMemsetAsync(ctr, 0, sizeof *ctr, (cudaStream_t)env->stream));
done:
    return st;
}

} /* namespace bfs */

#endif /* SP_BFS_LEVEL_COMMON_CUH */
