/* BFS level loop for small frontiers (frontier-queue push): one block of 1024 threads runs
 * consecutive levels with block barriers while the frontier fits its shared-memory queue;
 * a larger frontier is handed to a grid-wide launch per level, and back to the single
 * block once it fits again.
 *
 * The block keeps the current and next frontier in shared memory (2 x cap vertices);
 * positions of the next frontier past cap go straight to the global queue, so an
 * overflowing level is complete in global memory once the block copies its first cap
 * entries there, and the grid takes over at that level. The host reads back two integers
 * per hand-over and one per grid-wide level (the next frontier's size decides the next
 * launch), then the counters once at the end. */
#include <atomic>

#include "bfs/bfs_loop_common.cuh"

namespace {

constexpr int sb_block = bfsk::P::single_block_threads;
constexpr int64_t sb_max_capacity = bfsk::P::single_block_max_capacity;

/* Test knob: the shared queue's capacity (0: the largest that fits). */
std::atomic<long long> forced_capacity{0};

/* Reads the block's frontier in shared memory. */
struct shared_cur {
    const int32_t *q;
    __device__ int32_t operator()(int64_t i) const { return q[i]; }
};

/* Appends to the shared next queue, positions >= cap to the global queue of that level. */
struct shared_sink {
    int32_t *s_q, *g_q;
    int *tail;
    int cap;
    __device__ int32_t reserve(int k) { return atomicAdd(tail, k); }
    __device__ void store(int32_t pos, int32_t v)
    {
        if (pos < cap)
            s_q[pos] = v;
        else
            g_q[pos] = v;
    }
    template <int K>
    __device__ void push(const bool (&c)[K], const int32_t (&v)[K])
    {
        bfs::warp_append(*this, c, v);
    }
};

/* Levels lvl, lvl + 1, ... from the frontier of level lvl (size <= cap vertices in
 * queue[lvl & 1]) until a level is empty (the traversal ends) or outgrows cap; records
 * where it stopped in ctl (sb_level, sb_size) and the sizes of the levels it produced. */
template <int BLOCK, typename Off>
__global__ void __launch_bounds__(BLOCK) single_block_kernel(bfsk::state_t<Off> s, int32_t lvl,
                                                             int32_t size, int cap)
{
    extern __shared__ int32_t s_queues[]; /* 2 * cap */
    __shared__ bfsk::expand_smem_t<BLOCK> sm;
    __shared__ int s_tail;
    bfsk::tally_t tally;
    {
        const int32_t *g_cur = s.q(lvl);
        int32_t *cur = s_queues + (lvl & 1) * cap;
        for (int i = threadIdx.x; i < size; i += BLOCK) cur[i] = __ldcg(g_cur + i);
    }
    for (;;) {
        const int32_t *cur = s_queues + (lvl & 1) * cap;
        int32_t *next = s_queues + ((lvl + 1) & 1) * cap;
        if (threadIdx.x == 0) s_tail = 0;
        __syncthreads(); /* the frontier is in place, the tail cleared */
        shared_sink sink{next, s.q(lvl + 1), &s_tail, cap};
        for (int32_t begin = 0; begin < size; begin += BLOCK) {
            int count = size - begin < BLOCK ? size - begin : BLOCK;
            bfsk::expand<BLOCK>(s, shared_cur{cur}, begin, count, size, lvl, sink, sm,
                                tally);
        }
        __syncthreads();
        int32_t nsize = s_tail;
        lvl++;
        if (threadIdx.x == 0) s.sizes[lvl] = (unsigned long long)nsize;
        if (nsize == 0 || nsize > cap) {
            if (nsize > cap) {
                int32_t *g_next = s.q(lvl);
                for (int i = threadIdx.x; i < cap; i += BLOCK) g_next[i] = next[i];
            }
            if (threadIdx.x == 0) {
                s.ctl->sb_level = lvl;
                s.ctl->sb_size = nsize;
            }
            break;
        }
        size = nsize;
        __syncthreads(); /* every thread has read s_tail before it is cleared */
    }
    bfsk::flush_tally(tally, s.ctl);
}

/* Vertices per shared buffer: what the device's opt-in shared memory leaves beside the
 * kernel's static shared memory, at most sb_max_capacity, or the test knob if smaller. */
template <typename Off>
sp_status_t capacity(sp_gpu_bfs_loop_scratch_t *scratch, int *cap)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_prim::device_limits lim;
    cudaFuncAttributes attr;
    int64_t c = 0, found = 0;
    if (scratch && scratch->sb_capacity > 0) { /* found (and the attribute set) before */
        c = scratch->sb_capacity;
        if (forced_capacity.load() > 0 && forced_capacity.load() < c) c = forced_capacity.load();
        *cap = (int)c;
        goto done;
    }
    SP_CUDA_TRY(sp_prim::get_device_limits(&lim));
    SP_CUDA_TRY(cudaFuncGetAttributes(&attr, single_block_kernel<sb_block, Off>));
    c = ((int64_t)lim.smem_optin - (int64_t)attr.sharedSizeBytes) / (2 * (int64_t)sizeof(int32_t));
    if (c > sb_max_capacity) c = sb_max_capacity;
    found = c;
    if (forced_capacity.load() > 0 && forced_capacity.load() < c) c = forced_capacity.load();
    if (c < 1)
        SP_FAIL(SP_STATUS_DEVICE_ERROR, "sp__gpu_bfs_single_block: no room for a shared queue (%d bytes of shared memory)",
                lim.smem_optin);
    *cap = (int)c;
    SP_CUDA_TRY(sp_prim::allow_max_dynamic_smem(single_block_kernel<sb_block, Off>, lim));
    if (scratch && found >= 1) scratch->sb_capacity = (int)found;
done:
    return st;
}

template <typename Off>
sp_status_t single_block(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *scratch,
                         const sp_csr_t *g, int32_t source, int32_t *d_level, int32_t *d_parent,
                         int64_t *frontier_sizes, int64_t frontier_capacity,
                         sp_gpu_bfs_result_t *result)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const char *what = "sp__gpu_bfs_single_block";
    sp_gpu_bfs_loop_scratch_t own{};
    const sp_gpu_bfs_loop_scratch_t *sc = NULL;
    bfsk::state_t<Off> s;
    int cap = 0;
    int32_t lvl = 0, size = 1; /* level 0: the source */
    SP_TRY(bfsk::check_args(what, env, g, source, d_level, frontier_sizes, frontier_capacity));
    SP_TRY(capacity<Off>(scratch, &cap));
    SP_TRY(bfsk::use_scratch(what, env, g, frontier_capacity, scratch, &own, &sc));
    s = bfsk::carve<Off>(sc, g, d_level, d_parent);
    SP_TRY(bfsk::start(env, s, source));
    for (;;) {
        if (size <= cap) {
            int32_t stop[2];
            single_block_kernel<sb_block, Off>
                <<<1, sb_block, (size_t)2 * cap * sizeof(int32_t), (cudaStream_t)env->stream>>>(
                    s, lvl, size, cap);
            SP_CUDA_LAUNCHED("bfs single_block_kernel");
            SP_TRY(sp_prim::to_host(env, stop, &s.ctl->sb_level, sizeof stop));
            lvl = stop[0];
            size = stop[1];
        } else {
            SP_TRY(bfsk::launch_level(env, s, lvl, size));
            lvl++;
            SP_TRY(bfsk::read_size(env, s.sizes + lvl, &size));
        }
        if (size == 0) break;
    }
    SP_TRY(bfsk::finish(env, s, sc, lvl, frontier_sizes, frontier_capacity, result));
done:
    if (env) bfsk::loop_scratch_free(env, &own);
    return st;
}

} /* namespace */

extern "C" void sp__gpu_bfs_set_single_block_capacity(int64_t cap)
{
    forced_capacity.store(cap > 0 ? (long long)cap : 0);
}

extern "C" sp_status_t
sp__gpu_bfs_single_block(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *scratch,
                         const sp_csr_t *g, int32_t source, int32_t *d_level, int32_t *d_parent,
                         int64_t *frontier_sizes, int64_t frontier_capacity,
                         sp_gpu_bfs_result_t *result)
{
    if (g != NULL && g->ptr64 != NULL)
        return single_block<int64_t>(env, scratch, g, source, d_level, d_parent, frontier_sizes,
                                     frontier_capacity, result);
    return single_block<int32_t>(env, scratch, g, source, d_level, d_parent, frontier_sizes,
                                 frontier_capacity, result);
}
