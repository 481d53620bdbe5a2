/* Building blocks of the per-level BFS kernels and the graph loop (kernels/bfs/): their
 * arguments, the ways a discovered vertex is recorded (counted, appended to a queue, to a
 * block's shared queue, set in a bitmap) as sinks of the one expansion engine
 * (bfs_expand.cuh), the push bodies over a queue or a bitmap, and the grid-wide "hub
 * pieces" (Merrill, Garland & Grimshaw 2012) the largest degrees are deferred to, push and
 * pull alike. Header-only, everything static or inline. */
#ifndef SP_BFS_LEVEL_COMMON_CUH
#define SP_BFS_LEVEL_COMMON_CUH

#include "bfs/bfs_expand.cuh"
#include "prim/kernel_util.cuh"
#include "sp_kernels_bfs.h"

namespace bfs {

/* Everything a level kernel reads or writes, passed by value; Off is the graph's offset
 * type (int32_t, or int64_t for 64-bit pointers: sp_gpu_bfs_graph_t). */
template <typename Off>
struct level_args {
    int64_t n;
    const Off *out_ptr;
    const int32_t *out_idx;
    const Off *in_ptr;
    const int32_t *in_idx, *coo_row, *coo_col;
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

template <typename Off>
static inline level_args<Off> make_args(const sp_gpu_bfs_graph_t *g,
                                        const sp_gpu_bfs_work_t *w, int32_t cur)
{
    level_args<Off> a;
    a.n = g->n;
    a.nnz = g->nnz;
    a.out_ptr = offsets_of<Off>(g->d_out_ptr, g->d_out_ptr64);
    a.out_idx = g->d_out_idx;
    a.in_ptr = offsets_of<Off>(g->d_in_ptr, g->d_in_ptr64);
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
    return sp_prim::grid_for(env, n, P::block_threads, P::blocks_per_sm);
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
                                      const sp_gpu_bfs_graph_t *g, const sp_gpu_bfs_work_t *w,
                                      bool outputs = true)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && g != NULL && w != NULL, "%s: NULL argument", what);
    SP_CHECK_ARG(g->n >= 1 && g->n <= INT32_MAX && g->nnz >= 0 &&
                     (g->nnz <= INT32_MAX || g->d_out_ptr64 != NULL),
                 "%s: graph of %lld vertices and %lld edges (need 1..2^31-1, and < 2^31 edges "
                 "with 32-bit pointers)",
                 what, (long long)g->n, (long long)g->nnz);
    SP_CHECK_ARG((g->d_out_ptr != NULL) != (g->d_out_ptr64 != NULL) &&
                     (g->d_in_ptr == NULL || g->d_in_ptr64 == NULL) &&
                     ((g->d_in_ptr == NULL && g->d_in_ptr64 == NULL) ||
                      (g->d_in_ptr64 != NULL) == (g->d_out_ptr64 != NULL)),
                 "%s: the CSR needs exactly one of 32- and 64-bit pointers, and a CSC the CSR's "
                 "width", what);
    SP_CHECK_ARG((w->d_level != NULL || !outputs) && w->d_visited != NULL && w->d_counters != NULL,
                 "%s: NULL level, visited or counters", what);
done:
    return st;
}

/* What the level kernel does with a vertex it discovers. */
enum emit_kind {
    EMIT_COUNT = 0,  /* count only (vertex-centric and edge-centric push) */
    EMIT_QUEUE = 1,  /* append to next_queue, one reservation per warp */
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

/* Per-thread tallies of the vertices discovered and their out-edges (the next frontier's
 * size and edges, for Beamer's rule), summed over the warp and added to the counters once
 * at the end of a kernel (one atomic per warp, not per vertex). The engine counts each
 * claim (per_claim). */
struct tally {
    static constexpr bool per_claim = true;
    int32_t vertices;
    unsigned long long edges;
};

/* All 32 lanes of the warp must call it. */
template <typename Off>
__device__ __forceinline__ void flush(const level_args<Off> &a, tally t)
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

/* w was claimed by this thread from parent u, one edge at a time (the edge-centric kernel
 * counts it, the pull's hub pieces also set it in the next bitmap): record it. */
template <int EMIT, typename Off>
__device__ __forceinline__ void discovered(const level_args<Off> &a, int32_t u, int32_t w,
                                           tally &t)
{
    static_assert(EMIT == EMIT_COUNT || EMIT == EMIT_BITMAP, "push levels use the engine");
    a.level[w] = a.cur + 1;
    if (a.parent) a.parent[w] = u;
    t.vertices++;
    t.edges += (unsigned long long)(a.out_ptr[w + 1] - a.out_ptr[w]);
    if (EMIT == EMIT_BITMAP) atomicOr(a.next + (w >> 5), 1u << (w & 31));
}

template <int EMIT, typename Off>
__device__ __forceinline__ void visit(const level_args<Off> &a, int32_t u, int32_t w, tally &t)
{
    if (claim(a.visited, w)) discovered<EMIT>(a, u, w, t);
}

/* Cut vertex v's edge range of deg >= a.hub_min edges into pieces of hub_degree edges for
 * the hub kernel. Within one level each vertex is deferred at most once and its pieces
 * number at most deg / hub_degree + 1, at most 2 * deg / hub_degree when deg >= hub_degree,
 * so max_pieces = 2 * nnz / hub_degree + 1 suffices for hub_min = hub_degree, and
 * small_frontier_hub_min lowers hub_min only where count + nnz / hub_degree + 1 fit; the
 * bound check only guards memory. */
template <typename Off>
__device__ __forceinline__ void defer_hub(const level_args<Off> &a, int32_t v, int32_t deg)
{
    int32_t np = (deg + P::hub_degree - 1) / P::hub_degree;
    int32_t base = atomicAdd(&a.ctr->hub_pieces, np);
    for (int32_t k = 0; k < np && (int64_t)base + k < a.max_pieces; k++) {
        a.piece_vertex[base + k] = v;
        a.piece_start[base + k] = k * P::hub_degree;
    }
}

/* The per-level kernels' sink of the engine: claimed vertices go to the next queue (one
 * reservation per warp) and, for EMIT_QUEUE_BITMAP, to the next bitmap too, or to the
 * block's shared queue (EMIT_SHARED: one shared reservation per warp; what lies past the
 * shared queue's end goes to the global queue, one global reservation per warp);
 * EMIT_COUNT only counts. */
template <int EMIT, typename Off>
struct level_sink {
    static_assert(EMIT != EMIT_BITMAP, "pull levels record through discovered()");
    const level_args<Off> &a;
    shared_queue *sq;
    __device__ int32_t reserve(int k) { return atomicAdd(&a.ctr->queue_tail, (int32_t)k); }
    __device__ void store(int32_t pos, int32_t v) { a.next_queue[pos] = v; }
    template <int K>
    __device__ void push(const bool (&c)[K], const int32_t (&v)[K])
    {
        if (EMIT == EMIT_SHARED) {
            push_shared(c, v);
            return;
        }
        if (EMIT == EMIT_COUNT) return;
        warp_append(*this, c, v);
        if (EMIT == EMIT_QUEUE_BITMAP)
#pragma unroll
            for (int j = 0; j < K; j++)
                if (c[j]) atomicOr(a.next + (v[j] >> 5), 1u << (v[j] & 31));
    }
    /* Slots base.. of the shared queue; those from P::shared_queue on map to the global
     * queue at gbase + slot. */
    template <int K>
    __device__ void push_shared(const bool (&c)[K], const int32_t (&v)[K])
    {
        int cnt, incl;
        int total = warp_claims(c, &cnt, &incl);
        if (total == 0) return;
        int32_t base = 0, gbase = 0;
        if ((threadIdx.x & 31) == 31) {
            base = atomicAdd(&sq->count, (int32_t)total);
            int32_t first_out = base > P::shared_queue ? base : P::shared_queue;
            if (base + total > first_out)
                gbase = atomicAdd(&a.ctr->queue_tail, base + total - first_out) - first_out;
        }
        int32_t pos = __shfl_sync(sp_prim::full_mask, base, 31) + (incl - cnt);
        gbase = __shfl_sync(sp_prim::full_mask, gbase, 31);
#pragma unroll
        for (int j = 0; j < K; j++)
            if (c[j]) {
                if (pos < P::shared_queue)
                    sq->q[pos] = v[j];
                else
                    a.next_queue[gbase + pos] = v[j];
                pos++;
            }
    }
};

/* The level's view for the engine: out-edges, claims for level cur + 1. */
template <typename Off>
__device__ __forceinline__ push_view<Off> view_of(const level_args<Off> &a)
{
    return push_view<Off>{a.out_ptr, a.out_idx, a.level, a.parent, a.visited, a.cur + 1};
}

/* Edges a lane of a push level visits at once: P::batch, except the graph loop's
 * direction-optimized pushes (EMIT_QUEUE_BITMAP), which keep one: batched, their kernel,
 * which holds the pull too, needed 48 registers instead of 40, and it is bounded to 32
 * (bfs_graph_loop.cu). */
template <int EMIT>
__host__ __device__ constexpr int push_batch()
{
    return EMIT == EMIT_QUEUE_BITMAP ? 1 : P::batch;
}

/* Push expansion of one vertex per lane (v < 0: none) by the engine: hubs (a.hub_min
 * edges or more) deferred to the grid-wide pieces, the rest by the warp or the lane. All
 * 32 lanes must call it. */
template <int EMIT, typename Off>
__device__ __forceinline__ void expand_push(const level_args<Off> &a, int32_t v, tally &t,
                                            shared_queue *sq)
{
    Off beg = 0, end = 0;
    if (v >= 0) {
        beg = a.out_ptr[v];
        end = a.out_ptr[v + 1];
    }
    if (end - beg >= a.hub_min) {
        defer_hub(a, v, (int32_t)(end - beg));
        end = beg;
    }
    level_sink<EMIT, Off> sink{a, sq};
    expand_lane<push_batch<EMIT>()>(view_of(a), sink, t, v, beg, end, true);
}

/* The hub pieces deferred in this level (the bound only guards memory: see defer_hub). */
template <typename Off>
__device__ __forceinline__ int64_t hub_pieces(const level_args<Off> &a)
{
    int64_t np = a.ctr->hub_pieces;
    return np < a.max_pieces ? np : a.max_pieces;
}

/* Piece p: its vertex *v and its edge range [*b, *e) in the adjacency ptr (out_ptr for
 * push, in_ptr for pull). */
template <typename Off>
__device__ __forceinline__ void hub_piece(const level_args<Off> &a, const Off *ptr, int64_t p,
                                          int32_t *v, int64_t *b, int64_t *e)
{
    *v = a.piece_vertex[p];
    *b = (int64_t)ptr[*v] + a.piece_start[p];
    int64_t end = ptr[*v + 1];
    *e = *b + P::hub_degree < end ? *b + P::hub_degree : end;
}

/* f(v, b, e) for each hub piece deferred in this level, one block per piece (grid-stride
 * over the pieces counted in the counters by the kernel before it on the stream); ptr is
 * the adjacency the pieces cut (out_ptr for push, in_ptr for pull). */
template <typename Off, typename F>
__device__ __forceinline__ void for_each_hub_piece(const level_args<Off> &a, const Off *ptr,
                                                   F f)
{
    int64_t np = hub_pieces(a);
    for (int64_t p = blockIdx.x; p < np; p += gridDim.x) {
        int32_t v;
        int64_t b, e;
        hub_piece(a, ptr, p, &v, &b, &e);
        f(v, b, e);
    }
}

/* The deferred hub pieces of a push level, each thread visiting batch edges of its
 * block's piece at once. */
template <int EMIT, typename Off>
__device__ __forceinline__ void hub_push_body(const level_args<Off> &a)
{
    static_assert(EMIT != EMIT_SHARED, "hub pieces append to the global queue");
    tally t = {0, 0};
    level_sink<EMIT, Off> sink{a, nullptr};
    const push_view<Off> g = view_of(a);
    for_each_hub_piece(a, a.out_ptr, [&](int32_t v, int64_t b, int64_t e) {
        visit_range<P::batch>(g, sink, t, v, b, e, threadIdx.x, P::block_threads, true);
    });
    flush(a, t);
}

template <int EMIT, typename Off>
__global__ void __launch_bounds__(P::block_threads) hub_push_kernel(level_args<Off> a)
{
    hub_push_body<EMIT>(a);
}

/* A push level over the frontier bitmap a.front (the level after a pull, which leaves no
 * queue): a warp per word of 32 vertices, the lanes of the set bits expanding theirs. */
template <int EMIT, typename Off>
__device__ __forceinline__ void bitmap_push_body(const level_args<Off> &a)
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
template <int EMIT, typename Off>
__device__ __forceinline__ void frontier_body(const level_args<Off> &a, int64_t count)
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
template <int EMIT, typename Off>
static inline sp_status_t launch_hubs_push(const sp_gpu_env_t *env, const level_args<Off> &a)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (a.nnz < a.hub_min) goto done; /* no vertex can be a hub */
    hub_push_kernel<EMIT, Off><<<hub_grid(env),
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

/* Whether g's pointers are 64-bit: each entry point runs its int64_t instance then, else
 * the int32_t one (check_level, inside either, rejects a graph with neither or both). */
static inline bool wide_offsets(const sp_gpu_bfs_graph_t *g)
{
    return g != NULL && g->d_out_ptr64 != NULL;
}

} /* namespace bfs */

#endif /* SP_BFS_LEVEL_COMMON_CUH */
