/* BFS as one persistent kernel (frontier-queue push): every level of the traversal in a
 * single launch, levels separated by counters in global memory (SOFT) or by a
 * cooperative-groups grid barrier (COOP, the benchmark's baseline).
 *
 * SOFT. Work items are frontier chunks (grid_block consecutive queue entries; hubs inside a
 * chunk are expanded by the whole block). Items carry global numbers in traversal order:
 * level L's chunks are base_L .. end_L - 1 with base_0 = 0, end_L = base_L +
 * ceil(size_L / grid_block), base_{L+1} = end_L. A block takes a ticket t from one
 * monotonic counter (tickets are handed out in increasing order), then, while t >= end_L
 * of the level it is at, waits until level L's finished-chunk count, the high half of the
 * word sizes[L+1], reaches end_L - base_L (level L+1's queue and size are then final: the
 * low half of that same word is its queue's tail, so the one polled word also gives the
 * size, with no further read), and moves to level L+1; an empty level ends the traversal.
 * It then expands chunk t - base_L, and afterwards adds 2^32 to sizes[L+1]. Nothing is
 * ever reset, so a block that is slow to observe a level can never misread a later one.
 *
 * Never deadlocks, whatever the graph and however few blocks are resident (even one):
 * (1) a block waits only for chunks whose tickets are below its own, i.e. already handed
 * out; (2) tickets are taken only by running blocks, and a block that has started stays
 * resident until it exits, so every ticket is held by a block that runs; (3) by induction
 * on the level, the holder of a level-L chunk waits at most for chunks of levels < L,
 * which finish, so it finishes too; a waiting block holds no unfinished chunk, and there
 * is no unclaimed chunk below its ticket that it could be expected to take. Hence the
 * level barrier is reached by the blocks that are running; blocks that never become
 * resident take no ticket and are never waited for (a block that becomes resident after
 * the traversal ended finds ctl->over set and leaves without walking the levels). The
 * traversal ends because every vertex enters a queue at most once (the visited bitmap), so
 * some level is empty.
 *
 * Memory ordering: a chunk's writes (levels, parents, queue entries, the atomics on
 * visited and the tail) come before a __syncthreads, then thread 0 issues a device-scope
 * fence and adds its finished chunk with a relaxed atomic (a fence-release: one fence,
 * not a fence and a release atomic); a waiter's thread 0 spins on the word, then issues
 * an acquire fence (what it read follows every chunk's increment in the word's
 * modification order, and every later modification is an atomic add, so each increment's
 * release sequence reaches it), and its block passes a __syncthreads before reading;
 * queue entries and sizes are read
 * through L2 (ld.cg), so no stale L1 line of the buffer two levels back is used (the
 * pattern of the cooperative-groups grid barrier). Double buffering is safe because level
 * L+1's queue (level L-1's) is written only by chunks of level L, which start after every
 * chunk of level L-1 has finished, i.e. after its last read.
 *
 * Safety net (SOFT), not part of the argument above: a waiting block that sees the word
 * it polls stand still for P::stall_ns (20 s; a correct traversal stands still only while
 * one chunk is expanded) records the level in ctl->stalled and leaves; every other waiter
 * sees the flag and leaves too, blocks holding a chunk finish it first, so the kernel ends
 * and the call returns SP_STATUS_INTERNAL_ERROR naming the level instead of hanging the
 * process.
 * It can only fire on a bug, never changes a traversal that completes, and a level's
 * results are never read after it fired.
 *
 * Prefetch (SOFT, levels below P::prefetch_max_level): once thread 0 has added the
 * finished chunk, each thread reads the row pointers of the last vertex it queued and
 * prefetches that vertex's list into L2, so the next level's expansion (two dependent
 * reads, row pointers then list, on the path from one level to the next) finds both in L2
 * on a graph too large for it. Nothing is written, so neither the argument above nor the
 * results depend on it; the block's next ticket lies levels ahead on such levels, so the
 * delay before it takes one costs nothing. Mode 2 (a test knob) also prefetches each
 * queued vertex's row pointers as it is queued.
 *
 * COOP: the same chunk expansion with a static chunk-to-block assignment and grid.sync()
 * between levels; launched with cudaLaunchCooperativeKernel (grid-wide groups need no
 * separable compilation since CUDA 11), which refuses a grid that could not be co-resident
 * (so grid.sync() cannot wait for a block that never runs). */
#include <atomic>
#include <cooperative_groups.h>
#include <cuda/atomic>

#include "bfs/bfs_loop_common.cuh"

namespace {

namespace cg = cooperative_groups;
using bfsk::grid_block;

/* Test knobs: blocks of the persistent grid (0: the policy's count), the safety
 * net's limit (0: P::stall_ns), the waiters' polling (0: P::poll_near_chunks,
 * P::poll_pause_ns). */
std::atomic<int> forced_blocks{0};
std::atomic<unsigned long long> forced_stall_ns{0};
std::atomic<long long> forced_poll_near{0};
std::atomic<unsigned> forced_poll_pause{0};
std::atomic<int> prefetch_mode{1}; /* sp__gpu_bfs_set_persistent_prefetch */
std::atomic<int> loop_gather{1};   /* sp__gpu_bfs_set_loop_gather */

/* How waiting blocks poll their level word (see sp__gpu_bfs_set_persistent_poll). */
struct poll_t {
    unsigned long long near;
    unsigned pause_ns;
};

using counter_ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
using flag_ref = cuda::atomic_ref<int32_t, cuda::thread_scope_device>;

__device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread: wait until the high half of word (sizes[lvl + 1]: level lvl's finished
 * chunks) reaches nchunks and return the word (its low half is then level lvl + 1's final
 * size), or give up (~0ull) when the word has not moved for stall_ns (recording lvl + 1 in
 * stalled, unless a block did first) or another block gave up. Polls every pause ns (0:
 * spins). */
__device__ unsigned long long wait_for_level(counter_ref &word, flag_ref &stalled,
                                             unsigned long long nchunks, unsigned pause,
                                             unsigned long long stall_ns, int32_t lvl)
{
    unsigned long long seen = word.load(cuda::memory_order_relaxed);
    if ((seen >> 32) >= nchunks) return seen;
    unsigned long long since = now_ns();
    for (unsigned polls = 1;; polls++) {
        if (pause) __nanosleep(pause);
        unsigned long long d = word.load(cuda::memory_order_relaxed);
        if ((d >> 32) >= nchunks) return d;
        if (d != seen) {
            seen = d;
            since = now_ns();
        } else if ((polls & 31u) == 0) {
            if (stalled.load(cuda::memory_order_relaxed) != 0) return ~0ull;
            if (now_ns() - since > stall_ns) {
                int32_t none = 0;
                stalled.compare_exchange_strong(none, lvl + 1, cuda::memory_order_relaxed);
                return ~0ull;
            }
        }
    }
}

#ifdef SP_BFS_TRACE /* sp__gpu_bfs_trace_take */
constexpr unsigned trace_cap = 1u << 16;
__device__ sp_gpu_bfs_trace_rec_t trace_buf[trace_cap];
__device__ unsigned trace_n;

__device__ void trace_put(int32_t lvl, int64_t chunk, unsigned long long t0)
{
    unsigned i = atomicAdd(&trace_n, 1u), sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    if (i < trace_cap) trace_buf[i] = {lvl, (int32_t)chunk, (int32_t)sm, 0, t0, now_ns()};
}
#endif

/* The global queue of the next level, remembering the last vertex the thread queued,
 * whose adjacency prefetch() then brings into L2 for the next level's expansion (see
 * P::prefetch_max_level; on a grid a frontier vertex queues about one). A prefetch
 * changes no memory, so it is safe wherever it runs; row pointers never change. */
template <typename Off>
struct prefetching_sink {
    bfsk::global_sink q;
    const Off *early; /* mode 2: the row pointers, prefetched as each vertex is queued */
    int32_t last = -1;
    __device__ __forceinline__ int32_t reserve(int k) { return q.reserve(k); }
    __device__ __forceinline__ void store(int32_t pos, int32_t v)
    {
        q.store(pos, v);
        if (early) asm volatile("prefetch.global.L2 [%0];" ::"l"(early + v));
        last = v;
    }
    template <int K>
    __device__ __forceinline__ void push(const bool (&c)[K], const int32_t (&v)[K])
    {
        bfs::warp_append(*this, c, v);
    }
    /* The row pointers, then the list's first and last entries (a grid vertex's list is
     * 16 bytes, at most two sectors). */
    __device__ __forceinline__ void prefetch(const bfsk::state_t<Off> &s) const
    {
        if (last < 0) return;
        Off b = __ldg(s.ptr + last), e = __ldg(s.ptr + last + 1);
        if (e > b) {
            asm volatile("prefetch.global.L2 [%0];" ::"l"(s.idx + b));
            asm volatile("prefetch.global.L2 [%0];" ::"l"(s.idx + e - 1));
        }
    }
};

template <int BLOCK, typename Sink, typename Off>
__device__ __forceinline__ void expand_chunk(const bfsk::state_t<Off> &s, int32_t lvl,
                                             int32_t size, int64_t chunk,
                                             bfsk::expand_smem_t<BLOCK> &sm,
                                             bfsk::tally_t &tally, Sink &sink)
{
    bfsk::global_cur cur{s.q(lvl)};
    int64_t begin = chunk * BLOCK;
    int count = (int)(size - begin < BLOCK ? size - begin : BLOCK);
    bfsk::expand<BLOCK>(s, cur, begin, count, size, lvl, sink, sm, tally);
}

__host__ __device__ constexpr int64_t chunks_of(int64_t size, int block)
{
    return (size + block - 1) / block;
}

/* (BLOCK, 1): one block an SM is what the grid runs (P::persistent_blocks_per_sm), so
 * ptxas may take the registers the expansion's gather wants (with (BLOCK) alone it kept
 * 48 and spilled 12 bytes in the SOFT kernel). */
template <int BLOCK, bool COOP, typename Off>
__global__ void __launch_bounds__(BLOCK, 1) persistent_kernel(bfsk::state_t<Off> s,
                                                           unsigned long long stall_ns,
                                                           poll_t poll, int prefetch)
{
    __shared__ bfsk::expand_smem_t<BLOCK> sm;
    __shared__ unsigned long long s_ticket;
    __shared__ int32_t s_size;
    bfsk::tally_t tally;
    int32_t lvl = 0, size = 1; /* level 0: the source, queued by init_kernel */
    if (COOP) {
        cg::grid_group grid = cg::this_grid();
        for (;;) {
            bfsk::global_sink sink{s.q(lvl + 1), s.sizes + lvl + 1};
            for (int64_t c = blockIdx.x; c < chunks_of(size, BLOCK); c += gridDim.x) {
#ifdef SP_BFS_TRACE
                unsigned long long tr0 = now_ns();
#endif
                expand_chunk<BLOCK>(s, lvl, size, c, sm, tally, sink);
#ifdef SP_BFS_TRACE
                __syncthreads();
                if (threadIdx.x == 0) trace_put(lvl, c, tr0);
#endif
            }
            grid.sync();
            lvl++;
            size = bfsk::size_of(__ldcg(s.sizes + lvl));
            if (size == 0) break;
        }
        if (blockIdx.x == 0 && threadIdx.x == 0) s.ctl->levels = lvl;
    } else {
        counter_ref ticket(s.ctl->ticket);
        flag_ref stalled(s.ctl->stalled), over(s.ctl->over);
        unsigned long long base = 0, end = (unsigned long long)chunks_of(size, BLOCK);
        /* a block that becomes resident only after others have left (fewer resident than
         * launched) finds the traversal over: it leaves rather than walk every level */
        if (threadIdx.x == 0) s_size = over.load(cuda::memory_order_relaxed);
        __syncthreads();
        bool late = s_size != 0;
        __syncthreads(); /* s_size is rewritten below */
        for (; !late;) {
            if (threadIdx.x == 0) s_ticket = ticket.fetch_add(1ull, cuda::memory_order_relaxed);
            __syncthreads();
            unsigned long long t = s_ticket;
            bool finished = false;
            while (t >= end) { /* a chunk of a later level: wait for level lvl to end */
                if (threadIdx.x == 0) {
                    /* holders of far tickets poll gently, leaving the line to the blocks
                     * next in line and to the increments */
                    unsigned pause = t - end < poll.near ? 0u : poll.pause_ns;
                    counter_ref word(s.sizes[lvl + 1]);
                    unsigned long long w =
                        wait_for_level(word, stalled, end - base, pause, stall_ns, lvl);
                    if (w != ~0ull) {
                        cuda::atomic_thread_fence(cuda::memory_order_acquire,
                                                  cuda::thread_scope_device);
                        s_size = bfsk::size_of(w);
                    } else {
                        s_size = -1; /* the safety net fired: leave */
                    }
                }
                __syncthreads();
                size = s_size;
                __syncthreads(); /* s_size is rewritten in the next round */
                if (size < 0) {
                    finished = true;
                    break;
                }
                lvl++;
                base = end;
                if (size == 0) { /* every finisher records the same count */
                    if (threadIdx.x == 0) {
                        s.ctl->levels = lvl;
                        over.store(1, cuda::memory_order_relaxed);
                    }
                    finished = true;
                    break;
                }
                end = base + (unsigned long long)chunks_of(size, BLOCK);
            }
            if (finished) break;
            const bool pf = prefetch != 0 && size < bfsk::P::prefetch_max_level;
            prefetching_sink<Off> sink{{s.q(lvl + 1), s.sizes + lvl + 1},
                                  pf && prefetch == 2 ? s.ptr : nullptr};
#ifdef SP_BFS_TRACE
            unsigned long long tr0 = now_ns();
#endif
            expand_chunk<BLOCK>(s, lvl, size, (int64_t)(t - base), sm, tally, sink);
            __syncthreads(); /* the whole chunk is written */
            if (threadIdx.x == 0) { /* one more finished chunk of level lvl */
                __threadfence();
                counter_ref(s.sizes[lvl + 1]).fetch_add(1ull << 32, cuda::memory_order_relaxed);
#ifdef SP_BFS_TRACE
                trace_put(lvl, (int64_t)(t - base), tr0);
#endif
            }
            /* after the signal, off the path to the next level (P::prefetch_max_level) */
            if (pf) sink.prefetch(s);
        }
    }
    bfsk::flush_tally(tally, s.ctl);
}

/* Blocks of the persistent grid: the co-resident count, at most persistent_blocks_per_sm
 * an SM (or the test knob, if smaller). */
template <bool COOP, typename Off>
sp_status_t grid_size(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *scratch, int *blocks)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int per_sm = 0, sms = env->sm_count, k = 0;
    if (scratch && scratch->grid_blocks[COOP] > 0) { /* found by an earlier traversal */
        *blocks = scratch->grid_blocks[COOP];
        goto knob;
    }
    if (sms <= 0) {
        sp_prim::device_limits lim;
        SP_CUDA_TRY(sp_prim::get_device_limits(&lim));
        sms = lim.sm_count;
    }
    SP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, persistent_kernel<grid_block, COOP, Off>, grid_block, 0));
    if (per_sm < 1)
        SP_FAIL(SP_STATUS_DEVICE_ERROR, "sp__gpu_bfs_persistent: no block of %d threads fits an SM",
                grid_block);
    if (per_sm > bfsk::P::persistent_blocks_per_sm) per_sm = bfsk::P::persistent_blocks_per_sm;
    *blocks = per_sm * sms;
    if (scratch) scratch->grid_blocks[COOP] = *blocks;
knob:
    k = forced_blocks.load();
    if (k > 0 && k < *blocks) *blocks = k;
done:
    return st;
}

} /* namespace */

extern "C" void sp__gpu_bfs_set_persistent_blocks(int blocks)
{
    forced_blocks.store(blocks > 0 ? blocks : 0);
}

extern "C" void sp__gpu_bfs_set_persistent_stall_ns(uint64_t ns)
{
    forced_stall_ns.store(ns);
}

extern "C" void sp__gpu_bfs_set_persistent_poll(int64_t near, uint32_t pause_ns)
{
    forced_poll_near.store(near > 0 ? (long long)near : 0);
    forced_poll_pause.store(pause_ns);
}

extern "C" void sp__gpu_bfs_set_loop_gather(int on)
{
    loop_gather.store(on != 0);
}

extern "C" int sp__gpu_bfs_loop_gather(void)
{
    return loop_gather.load();
}

extern "C" int sp__gpu_bfs_trace_take(sp_gpu_bfs_trace_rec_t *recs, int max)
{
#ifdef SP_BFS_TRACE
    unsigned n = 0, zero = 0;
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpyFromSymbol(&n, trace_n, sizeof n) != cudaSuccess)
        return -1;
    if (n > trace_cap) n = trace_cap;
    if ((int)n > max) n = (unsigned)max;
    if (n > 0 && cudaMemcpyFromSymbol(recs, trace_buf, n * sizeof *recs) != cudaSuccess) return -1;
    if (cudaMemcpyToSymbol(trace_n, &zero, sizeof zero) != cudaSuccess) return -1;
    return (int)n;
#else
    (void)recs;
    (void)max;
    return -1;
#endif
}

extern "C" void sp__gpu_bfs_set_persistent_prefetch(int mode)
{
    prefetch_mode.store(mode >= 0 && mode <= 2 ? mode : 1);
}

namespace {

template <typename Off>
sp_status_t persistent(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *scratch,
                       const sp_csr_t *g, int32_t source, sp_gpu_bfs_sync_t sync,
                       int32_t *d_level, int32_t *d_parent, int64_t *frontier_sizes,
                       int64_t frontier_capacity, sp_gpu_bfs_result_t *result)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const char *what = "sp__gpu_bfs_persistent";
    sp_gpu_bfs_loop_scratch_t own{};
    const sp_gpu_bfs_loop_scratch_t *sc = NULL;
    bfsk::state_t<Off> s;
    int blocks = 0;
    cudaStream_t strm = NULL;
    unsigned long long stall_ns = forced_stall_ns.load();
    const long long knob_near = forced_poll_near.load(); /* each knob read once */
    const unsigned knob_pause = forced_poll_pause.load();
    int prefetch = prefetch_mode.load();
    poll_t poll = {(unsigned long long)(knob_near > 0 ? knob_near : bfsk::P::poll_near_chunks),
                   knob_pause > 0 ? knob_pause : bfsk::P::poll_pause_ns};
    SP_TRY(bfsk::check_args(what, env, g, source, d_level, frontier_sizes, frontier_capacity));
    SP_CHECK_ARG(sync == SP_GPU_BFS_SYNC_SOFT || sync == SP_GPU_BFS_SYNC_COOP,
                 "%s: unknown sync %d", what, (int)sync);
    strm = (cudaStream_t)env->stream;
    if (stall_ns == 0) stall_ns = bfsk::P::stall_ns;
    if (sync == SP_GPU_BFS_SYNC_COOP) {
        int dev = 0, coop = 0;
        SP_CUDA_TRY(cudaGetDevice(&dev));
        SP_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
        if (!coop)
            SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: the device has no cooperative launch", what);
        SP_TRY((grid_size<true, Off>(env, scratch, &blocks)));
    } else {
        SP_TRY((grid_size<false, Off>(env, scratch, &blocks)));
    }
    SP_TRY(bfsk::use_scratch(what, env, g, frontier_capacity, scratch, &own, &sc));
    s = bfsk::carve<Off>(sc, g, d_level, d_parent);
    SP_TRY(bfsk::start(env, s, source));
    if (sync == SP_GPU_BFS_SYNC_COOP) {
        void *args[] = {&s, &stall_ns, &poll, &prefetch};
        SP_CUDA_TRY(cudaLaunchCooperativeKernel((const void *)persistent_kernel<grid_block, true, Off>,
                                                dim3((unsigned)blocks), dim3(grid_block), args,
                                                0, strm));
    } else {
        persistent_kernel<grid_block, false, Off>
            <<<(unsigned)blocks, grid_block, 0, strm>>>(s, stall_ns, poll, prefetch);
        SP_CUDA_LAUNCHED("bfs persistent_kernel");
    }
    SP_TRY(bfsk::finish(env, s, sc, -1, frontier_sizes, frontier_capacity, result, stall_ns));
done:
    if (env) bfsk::loop_scratch_free(env, &own);
    return st;
}

} /* namespace */

extern "C" sp_status_t
sp__gpu_bfs_persistent(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *scratch,
                       const sp_csr_t *g, int32_t source, sp_gpu_bfs_sync_t sync,
                       int32_t *d_level, int32_t *d_parent, int64_t *frontier_sizes,
                       int64_t frontier_capacity, sp_gpu_bfs_result_t *result)
{
    if (g != NULL && g->ptr64 != NULL)
        return persistent<int64_t>(env, scratch, g, source, sync, d_level, d_parent,
                                   frontier_sizes, frontier_capacity, result);
    return persistent<int32_t>(env, scratch, g, source, sync, d_level, d_parent, frontier_sizes,
                               frontier_capacity, result);
}
