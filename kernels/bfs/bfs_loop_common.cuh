/* Building blocks shared by the GPU BFS level loops (kernels/bfs/) and bfs_loops_bench:
 * argument checks, the traversal's device state, the block-cooperative expansion of a
 * frontier chunk (hubs by the block, the rest by the one engine of bfs_expand.cuh) and the
 * grid-wide launch of one level. Header-only, all static or inline (no separable
 * compilation). */
#ifndef SP_BFS_LOOP_COMMON_CUH
#define SP_BFS_LOOP_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#include "bfs/bfs_expand.cuh"
#include "prim/kernel_util.cuh"
#include "prim/prim_common.cuh"
#include "sp_kernels_bfs.h"

namespace bfsk {

using P = sp_bfs_policy;
static constexpr int grid_block = P::block_threads;

/* Counters of a traversal in device memory. ticket is the persistent kernel's work
 * counter, on its own 128-byte line so the waiters' polls do not slow the ticket atomics;
 * stalled (on the next line, which waiters poll now and then) is 1 + the level
 * at which the persistent kernel's safety net gave up waiting (0: never), over is set once
 * a persistent block has seen the empty level (a block starting later leaves at once
 * instead of walking every level); levels is the
 * number of non-empty levels; sb_level / sb_size are where the single block stopped (the
 * level it hands over and its frontier size, 0: finished). */
struct alignas(128) ctl_t {
    unsigned long long ticket;
    char pad0[120];
    int32_t stalled, over;
    char pad1[120];
    unsigned long long edges, vertices;
    int32_t levels, sb_level, sb_size;
};

/* The arrays one traversal works on. visited: one bit per vertex, kept apart from level
 * so the claims touch n/8 bytes (L2-resident) rather than the level array. queue[L & 1]
 * holds the frontier of level L. sizes has n + 1 words, zero past the last level: the low
 * 32 bits of sizes[L] are level L's size (during level L - 1 the tail of its queue), the
 * high 32 bits count the chunks of level L - 1 the persistent kernel has finished, so
 * that one word read tells a waiting block both that a level has ended and how large the
 * next one is (the other loops leave the high half zero). */
template <typename Off>
struct state_t {
    const Off *ptr; /* the CSR's pointers: int32_t, or int64_t (64-bit offsets) */
    const int32_t *idx;
    int32_t *level, *parent; /* parent may be NULL */
    uint32_t *visited;
    int32_t *queue[2];
    unsigned long long *sizes;
    ctl_t *ctl;
    int64_t n;
    int32_t gather; /* expand_lane's gather of the short lists (sp__gpu_bfs_set_loop_gather) */
    /* queue[L & 1] without indexing the array (that would copy the kernel parameter to
     * local memory) */
    __device__ int32_t *q(int32_t L) const { return (L & 1) ? queue[1] : queue[0]; }
};

/* Per-thread tallies of the vertices expanded and their out-edges, flushed once per kernel;
 * calls counts expand() calls (the same in every thread of a block). The engine leaves
 * them to expand() (per_claim false). */
struct tally_t {
    static constexpr bool per_claim = false;
    long long edges = 0, vertices = 0;
    unsigned calls = 0;
};

/* Shared memory of expand(): the block's hub list. Call k counts its hubs in
 * nhub[k & 1] and clears the other counter once every thread has passed call k's second
 * barrier, i.e. after the last read of it in call k - 1 and before the first increment in
 * call k + 1 (one barrier per call saved over clearing one counter between barriers). */
template <int BLOCK>
struct expand_smem_t {
    int32_t hub[BLOCK];
    int nhub[2];
};

/* The checks both loops make before touching the device. */
static inline sp_status_t check_args(const char *what, const sp_gpu_env_t *env,
                                     const sp_csr_t *g, int32_t source, const int32_t *d_level,
                                     const int64_t *frontier_sizes, int64_t frontier_capacity)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && g != NULL && d_level != NULL, "%s: NULL argument", what);
    SP_CHECK_ARG(g->nrows == g->ncols, "%s: adjacency is %lld x %lld, not square", what,
                 (long long)g->nrows, (long long)g->ncols);
    SP_CHECK_ARG(g->nrows >= 1, "%s: graph without vertices", what);
    if (g->nrows > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: %lld vertices exceed 32-bit indices", what,
                (long long)g->nrows);
    SP_CHECK_ARG((g->ptr != NULL || g->ptr64 != NULL) && (g->nnz == 0 || g->idx != NULL),
                 "%s: graph has no arrays", what);
    if (g->ptr64 == NULL && g->nnz > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: %lld edges need 64-bit pointers", what,
                (long long)g->nnz);
    SP_CHECK_ARG(source >= 0 && source < g->nrows, "%s: source %d outside 0..%lld", what,
                 source, (long long)g->nrows - 1);
    SP_CHECK_ARG(frontier_capacity >= 0 && (frontier_sizes != NULL || frontier_capacity == 0),
                 "%s: frontier_capacity %lld without room", what, (long long)frontier_capacity);
done:
    return st;
}

/* Whether a level of size vertices reads the visited bits before claiming: a large level
 * (where most heads of a dense graph are visited already) spares the atomics' throughput
 * with the loads; a small one is latency-bound, and the pre-read would add a round trip
 * to every claim (a grid graph's level: one more L2 round trip on the persistent kernel's
 * path from one level to the next). */
__device__ __forceinline__ bool preread_for(int64_t size)
{
    return size >= P::preread_min_level;
}

/* Expand the frontier vertices cur(begin .. begin + count - 1) (count <= BLOCK) of level
 * `lvl` (size vertices) into sink: adjacency lists of at least BLOCK entries by the whole
 * block, the rest by the engine (their warp from warp_degree, else their own thread), so a
 * hub does not stall one thread. Every thread of the block must call it (it contains
 * __syncthreads); cur(i) reads queue entry i. */
template <int BLOCK, typename Cur, typename Sink, typename Off>
__device__ __forceinline__ void expand(const state_t<Off> &s, Cur cur, int64_t begin, int count,
                                       int64_t size, int32_t lvl, Sink &sink,
                                       expand_smem_t<BLOCK> &sm, tally_t &tally)
{
    const bool pre = preread_for(size);
    static_assert(BLOCK % 32 == 0 && BLOCK >= P::warp_degree, "whole warps");
    const int tid = threadIdx.x;
    const bfs::push_view<Off> g{s.ptr, s.idx, s.level, s.parent, s.visited, lvl + 1};
    const int p = tally.calls & 1;
    if (tid == 0 && tally.calls == 0) sm.nhub[0] = 0;
    tally.calls++;
    __syncthreads(); /* the previous call's readers of sm.hub are done */
    int32_t u = -1;
    int64_t b = 0, e = 0;
    if (tid < count) {
        u = cur(begin + tid);
        b = __ldg(s.ptr + u);
        e = __ldg(s.ptr + u + 1);
        tally.edges += e - b;
        tally.vertices += 1;
        if (e - b >= BLOCK) {
            sm.hub[atomicAdd(&sm.nhub[p], 1)] = u;
            e = b;
        }
    }
    __syncthreads();
    const int nhub = sm.nhub[p];
    if (tid == 0) sm.nhub[p ^ 1] = 0;
    for (int h = 0; h < nhub; h++) {
        int32_t hu = sm.hub[h];
        bfs::visit_range<P::batch>(g, sink, tally, hu, __ldg(s.ptr + hu), __ldg(s.ptr + hu + 1),
                                   tid, BLOCK, pre);
    }
    bfs::expand_lane<P::batch>(g, sink, tally, u, b, e, pre, s.gather != 0);
}

/* Reads a frontier entry written by other blocks: through L2, never a stale L1 line of
 * the same buffer two levels ago. */
struct global_cur {
    const int32_t *q;
    __device__ int32_t operator()(int64_t i) const { return __ldcg(q + i); }
};

/* The size in a word of sizes (its low half). */
__host__ __device__ inline int32_t size_of(unsigned long long word)
{
    return (int32_t)(uint32_t)word;
}

/* Appends to a global queue; the tail is the low half of sizes[L + 1] (a level holds fewer
 * than 2^31 vertices, so the additions never carry into the high half). */
struct global_sink {
    int32_t *q;
    unsigned long long *tail;
    __device__ int32_t reserve(int k)
    {
        return size_of(atomicAdd(tail, (unsigned long long)k));
    }
    __device__ void store(int32_t pos, int32_t v) { q[pos] = v; }
    template <int K>
    __device__ void push(const bool (&c)[K], const int32_t (&v)[K])
    {
        bfs::warp_append(*this, c, v);
    }
};

/* The block's tallies into ctl (one atomic per warp). All threads call it. */
__device__ __forceinline__ void flush_tally(const tally_t &t, ctl_t *ctl)
{
    long long e = sp_prim::warp_sum(t.edges), v = sp_prim::warp_sum(t.vertices);
    if ((threadIdx.x & 31) == 0 && (e != 0 || v != 0)) {
        atomicAdd(&ctl->edges, (unsigned long long)e);
        atomicAdd(&ctl->vertices, (unsigned long long)v);
    }
}

/* Everything unvisited, the source as level 0's only vertex, counters zero. */
template <typename Off>
static __global__ void init_kernel(state_t<Off> s, int32_t source)
{
    int64_t words = (s.n + 31) / 32;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= s.n;
         i += (int64_t)gridDim.x * blockDim.x) {
        if (i < s.n) {
            s.level[i] = i == source ? 0 : -1;
            if (s.parent) s.parent[i] = i == source ? source : -1;
        }
        if (i < words) s.visited[i] = i == (source >> 5) ? 1u << (source & 31) : 0u;
        s.sizes[i] = i == 0 ? 1ull : 0ull;
        if (i == 0) s.queue[0][0] = source;
    }
    /* every field of ctl starts at zero: block 0 zeroes the whole struct, padding included,
     * so the copy of it to the host after the traversal reads no uninitialised byte */
    if (blockIdx.x == 0)
        for (unsigned j = threadIdx.x; j < sizeof(ctl_t) / sizeof(unsigned long long);
             j += blockDim.x)
            reinterpret_cast<unsigned long long *>(s.ctl)[j] = 0;
}

/* One level, grid-wide: blocks stride over the chunks of the frontier of level lvl
 * (size vertices in queue[lvl & 1]), the next frontier goes to queue[(lvl + 1) & 1]. */
template <int BLOCK, typename Off>
__global__ void __launch_bounds__(BLOCK) level_kernel(state_t<Off> s, int32_t lvl, int32_t size)
{
    __shared__ expand_smem_t<BLOCK> sm;
    tally_t tally;
    global_cur cur{s.q(lvl)};
    global_sink sink{s.q(lvl + 1), s.sizes + lvl + 1};
    int64_t nchunks = ((int64_t)size + BLOCK - 1) / BLOCK;
    for (int64_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
        int64_t begin = c * BLOCK;
        int count = (int)(size - begin < BLOCK ? size - begin : BLOCK);
        expand<BLOCK>(s, cur, begin, count, size, lvl, sink, sm, tally);
    }
    flush_tally(tally, s.ctl);
}

/* Where a traversal's arrays lie in the device block of a loop scratch. */
struct layout_t {
    size_t ctl, visited, q0, q1, sizes, total;
};

static inline layout_t layout_of(int64_t n)
{
    sp_prim::scratch_plan plan;
    layout_t l;
    l.ctl = plan.add(sizeof(ctl_t));
    l.visited = plan.add_n<uint32_t>((n + 31) / 32);
    l.q0 = plan.add_n<int32_t>(n);
    l.q1 = plan.add_n<int32_t>(n);
    l.sizes = plan.add_n<unsigned long long>(n + 1);
    l.total = plan.total;
    return l;
}

/* Level sizes a call copies back: frontier_capacity, at most n + 1. */
static inline int64_t sizes_to_copy(int64_t n, int64_t frontier_capacity)
{
    return frontier_capacity < n + 1 ? frontier_capacity : n + 1;
}

static inline void loop_scratch_free(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *sc)
{
    if (sc->d_base) env->free(env->self, sc->d_base);
    sp__free(sc->h_sizes);
    *sc = sp_gpu_bfs_loop_scratch_t{};
}

/* See sp__gpu_bfs_loop_scratch_alloc. */
static inline sp_status_t loop_scratch_alloc(const sp_gpu_env_t *env, int64_t n,
                                             int64_t frontier_capacity,
                                             sp_gpu_bfs_loop_scratch_t *sc)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t ncopy = sizes_to_copy(n, frontier_capacity);
    *sc = sp_gpu_bfs_loop_scratch_t{};
    SP_TRY(sp_prim::env_alloc(env, &sc->d_base, layout_of(n).total));
    if (ncopy > 0) {
        sc->h_sizes = static_cast<unsigned long long *>(
            sp__malloc_array((size_t)ncopy, sizeof(unsigned long long)));
        if (sc->h_sizes == NULL)
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory allocating %lld frontier sizes",
                    (long long)ncopy);
    }
    sc->n = n;
    sc->h_capacity = ncopy;
done:
    if (st != SP_STATUS_SUCCESS) loop_scratch_free(env, sc);
    return st;
}

/* The scratch a loop works with: the caller's, checked against g and the sizes asked for,
 * or (given == NULL) its own, made in *own (which the caller frees with
 * loop_scratch_free whatever happens). */
static inline sp_status_t use_scratch(const char *what, const sp_gpu_env_t *env,
                                      const sp_csr_t *g, int64_t frontier_capacity,
                                      sp_gpu_bfs_loop_scratch_t *given,
                                      sp_gpu_bfs_loop_scratch_t *own,
                                      const sp_gpu_bfs_loop_scratch_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t ncopy = sizes_to_copy(g->nrows, frontier_capacity);
    if (given == NULL) {
        SP_TRY(loop_scratch_alloc(env, g->nrows, frontier_capacity, own));
        *out = own;
        goto done;
    }
    SP_CHECK_ARG(given->d_base != NULL && given->n == g->nrows && given->h_capacity >= ncopy,
                 "%s: scratch made for %lld vertices and %lld sizes, the call needs %lld and "
                 "%lld",
                 what, (long long)given->n, (long long)given->h_capacity, (long long)g->nrows,
                 (long long)ncopy);
    *out = given;
done:
    return st;
}

/* The state of one traversal over the scratch's device block; d_level and d_parent are
 * the caller's; Off the width of g's pointers (g->ptr64 set: int64_t). */
template <typename Off>
static inline state_t<Off> carve(const sp_gpu_bfs_loop_scratch_t *sc, const sp_csr_t *g,
                                 int32_t *d_level, int32_t *d_parent)
{
    layout_t l = layout_of(g->nrows);
    state_t<Off> s{};
    s.ptr = bfs::offsets_of<Off>(g->ptr, g->ptr64);
    s.idx = g->idx;
    s.level = d_level;
    s.parent = d_parent;
    s.ctl = sp_prim::at<ctl_t>(sc->d_base, l.ctl);
    s.visited = sp_prim::at<uint32_t>(sc->d_base, l.visited);
    s.queue[0] = sp_prim::at<int32_t>(sc->d_base, l.q0);
    s.queue[1] = sp_prim::at<int32_t>(sc->d_base, l.q1);
    s.sizes = sp_prim::at<unsigned long long>(sc->d_base, l.sizes);
    s.n = g->nrows;
    s.gather = sp__gpu_bfs_loop_gather();
    return s;
}

/* Queue the initialisation of a traversal from source. */
template <typename Off>
static inline sp_status_t start(const sp_gpu_env_t *env, const state_t<Off> &s, int32_t source)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    init_kernel<Off><<<sp_prim::grid_for(env, s.n + 1, grid_block, P::blocks_per_sm), grid_block, 0,
                  (cudaStream_t)env->stream>>>(s, source);
    SP_CUDA_LAUNCHED("bfs init_kernel");
done:
    return st;
}

/* Queue one grid-wide level (size > 0 vertices at level lvl). */
template <typename Off>
static inline sp_status_t launch_level(const sp_gpu_env_t *env, const state_t<Off> &s,
                                       int32_t lvl, int32_t size)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    level_kernel<grid_block, Off><<<sp_prim::grid_for(env, size, grid_block, P::blocks_per_sm),
                               grid_block, 0, (cudaStream_t)env->stream>>>(s, lvl, size);
    SP_CUDA_LAUNCHED("bfs level_kernel");
done:
    return st;
}

/* After the traversal: ctl and the first frontier_capacity sizes to the host (through the
 * scratch's host buffer) in one stream synchronization; sizes past the last level are zero
 * on the device already. levels >= 0 is the level count when the host knows it (else
 * ctl's). A traversal the persistent kernel's safety net aborted (ctl->stalled; stall_ns:
 * its limit) is SP_STATUS_INTERNAL_ERROR, frontier_sizes and *result untouched (the level
 * and parent arrays are partly written). Allocates nothing. */
template <typename Off>
static inline sp_status_t finish(const sp_gpu_env_t *env, const state_t<Off> &s,
                                 const sp_gpu_bfs_loop_scratch_t *sc, int64_t levels,
                                 int64_t *frontier_sizes, int64_t frontier_capacity,
                                 sp_gpu_bfs_result_t *result, uint64_t stall_ns = 0)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t strm = (cudaStream_t)env->stream;
    int64_t ncopy = sizes_to_copy(s.n, frontier_capacity);
    ctl_t h_ctl;
    SP_CUDA_TRY(cudaMemcpyAsync(&h_ctl, s.ctl, sizeof h_ctl, cudaMemcpyDeviceToHost, strm));
    if (ncopy > 0)
        SP_CUDA_TRY(cudaMemcpyAsync(sc->h_sizes, s.sizes,
                                    (size_t)ncopy * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, strm));
    SP_CUDA_TRY(cudaStreamSynchronize(strm));
    if (h_ctl.stalled != 0)
        SP_FAIL(SP_STATUS_INTERNAL_ERROR,
                "BFS persistent kernel: no level progress for %.1f s while waiting for level %d "
                "to end; aborted (a bug in libsp: please report it)",
                (double)stall_ns * 1e-9, h_ctl.stalled - 1);
    for (int64_t l = 0; l < frontier_capacity; l++)
        frontier_sizes[l] = l < ncopy ? size_of(sc->h_sizes[l]) : 0;
    if (result) {
        result->levels = levels >= 0 ? levels : h_ctl.levels;
        result->vertices = (int64_t)h_ctl.vertices;
        result->edges = (int64_t)h_ctl.edges;
    }
done:
    return st;
}

/* The size in a word of sizes, from the device after the work queued so far (a hand-over
 * decision). */
static inline sp_status_t read_size(const sp_gpu_env_t *env, const unsigned long long *d,
                                    int32_t *h)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned long long word = 0;
    SP_TRY(sp_prim::to_host(env, &word, d, sizeof word));
    *h = size_of(word);
done:
    return st;
}

} /* namespace bfsk */

#endif /* SP_BFS_LOOP_COMMON_CUH */
