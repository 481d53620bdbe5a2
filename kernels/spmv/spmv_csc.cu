/* SpMV with A given by its CSC on the GPU (PMPP, sparse-format chapter: the transposed
 * traversal), balanced over entries as CSR split is (a warp per chunk of consecutive
 * entries, whatever columns they belong to, so a long column is shared by as many warps
 * as it fills): y = beta * y first, then each warp loads its chunk's rows and values
 * (coalesced, every step in flight), finds every entry's column in a window of 32 column
 * ends held one a lane, relative to the chunk (one OR of the ends over the warp and a
 * ballot a step where the window covers it; a shuffle search otherwise; the chunk's first
 * column comes from the plan), gathers x for all of them, and adds alpha * a * x[column]
 * into the entry's row with a reduction (an atomic whose result is unused). In square
 * matrices the rows near the chunk's columns are summed in the warp's slots of shared
 * memory first and added once after the chunk. The plan's heavy rows (the longest, at
 * most 64) are summed in each warp's slots of shared memory and added to y once a block
 * at the end. Lanes of one row add first only in matrices with a long row and no heavy
 * rows (the plan's choices), where a row may appear in every column of a step. A
 * symmetric matrix's CSC does not come here: it runs as its CSR (src/spmv_cuda.c). Launch
 * policy in spmv_policy_coo.h. */
#include <type_traits>

#include "spmv_common.cuh"
#include "spmv_policy_coo.h"

namespace {

using P = sp_spmv_csc_policy;
constexpr unsigned full = 0xffffffffu;

/* The window: columns wb .. wb + 31, lane l holding the end of column wb + l relative to
 * the chunk's first entry e0, clamped to -1 .. P::chunk_entries (every entry of the chunk
 * lies in 0 .. chunk_entries - 1, so the clamp keeps each comparison with one; past the
 * last column: chunk_entries). 32-bit whatever the pointers' type: one shuffle and one
 * compare a probe. */
struct window {
    int32_t wb;    /* at most the column of an entry of the step: below ncols */
    int32_t end;   /* lane l: the end of column wb + l, less e0, clamped */
    int32_t last;  /* the end of column wb + 31 (lane 31's), in every lane */
    bool distinct; /* no two columns end at one entry of the chunk (no empty column
                    * among them), in every lane: the step's columns by column_mask */
};

template <typename Off>
__device__ __forceinline__ void window_load(const Off *ptr, int64_t ncols, int64_t wb,
                                            int64_t e0, window *w)
{
    int lane = threadIdx.x & 31;
    int64_t j = wb + 1 + lane;
    int64_t rel = j <= ncols ? (int64_t)__ldg(ptr + j) - e0 : (int64_t)P::chunk_entries;
    w->wb = (int32_t)wb;
    w->end = rel < 0 ? -1 : rel > P::chunk_entries ? P::chunk_entries : (int32_t)rel;
    w->last = __shfl_sync(full, w->end, 31);
    int32_t next = __shfl_down_sync(full, w->end, 1);
    w->distinct = !__any_sync(full, lane < 31 && next == w->end && w->end >= 0 &&
                                        w->end < P::chunk_entries);
}

/* The column of the chunk's entry s + lane for a step s .. s + 31 that the window
 * covers (its last column ends past the step's last valid entry) where its columns end at
 * distinct entries (w->distinct): the count of window columns ending at or before the
 * entry is those ending before the step (a ballot) plus the bits at or below the lane's
 * in the mask of the step's entries where a column ends (one OR over the warp). All lanes
 * call it. */
__device__ __forceinline__ int32_t column_mask(const window *w, int32_t s)
{
    int lane = threadIdx.x & 31;
    int32_t d = w->end - s; /* where the lane's column ends, from the step's first entry */
    unsigned ends = __reduce_or_sync(full, (uint32_t)d < 32u ? 1u << d : 0u);
    int before = __popc(__ballot_sync(full, d < 0));
    return w->wb + before + __popc(ends & (full >> (31 - lane)));
}

/* The first column in [lo, hi] whose end passes e (the column holding entry e), by a
 * 32-way search: every lane probes one column end a round, the count of those at or
 * before e (a ballot) narrows the range 32-fold. All lanes call it with the same
 * arguments; the columns before lo end at or before e, column hi ends past it. */
template <typename Off>
__device__ __forceinline__ int64_t column_search(const Off *ptr, int64_t lo, int64_t hi,
                                                 int64_t e)
{
    int lane = threadIdx.x & 31;
    while (hi > lo) {
        int64_t step = (hi - lo + 31) / 32; /* probes lo, lo + step, ... reach past hi */
        int64_t j = lo + (int64_t)lane * step;
        bool before = j < hi && (int64_t)__ldg(ptr + j + 1) <= e;
        int n = __popc(__ballot_sync(full, before)); /* a prefix of the probes */
        int64_t nhi = lo + (int64_t)n * step;
        if (n > 0) lo += (int64_t)(n - 1) * step + 1; /* past the last probe before e */
        hi = nhi < hi ? nhi : hi;
    }
    return lo;
}

/* The column of the chunk's entry t (e0 + t; valid lanes) from the window, which is
 * moved forward while a valid lane's entry lies past it: by 32 columns, or, when the next
 * window would not reach the first such entry either (runs of empty columns), to the
 * column found by column_search up to hi (at least every valid entry's column). All lanes
 * call it; the window starts at or before every valid entry's column. */
template <typename Off>
__device__ __forceinline__ int32_t column_of(const Off *ptr, int64_t ncols, int64_t hi,
                                             int64_t e0, int32_t t, bool valid, window *w)
{
    int32_t col = 0;
    bool done = !valid;
    for (;;) {
        int cnt = 0;
#pragma unroll
        for (int step = 16; step >= 1; step >>= 1)
            if (__shfl_sync(full, w->end, cnt + step - 1) <= t) cnt += step;
        if (!done && w->last > t) {
            col = w->wb + cnt;
            done = true;
        }
        unsigned left = __ballot_sync(full, !done);
        if (left == 0) break;
        /* the first lane left holds the smallest entry left */
        int32_t first = __shfl_sync(full, t, __ffs((int)left) - 1);
        window_load(ptr, ncols, (int64_t)w->wb + 32, e0, w);
        if (w->last <= first)
            window_load(ptr, ncols, column_search(ptr, (int64_t)w->wb + 32, hi, e0 + first),
                        e0, w);
    }
    return col;
}

/* The block's heavy rows (the plan's, sorted, padded with INT32_MAX to P::heavy_rows), a
 * filter of their hashes (a row is looked up only where its bit is set), and each warp's
 * own sums of them (no other warp writes them). */
template <typename T>
struct heavy_set {
    int32_t row[P::heavy_rows];
    uint32_t bits[P::heavy_bitmap_bits / 32];
    T sum[P::block_threads / 32][P::heavy_rows];
};

__device__ __forceinline__ uint32_t heavy_hash(int32_t r)
{
    static_assert((P::heavy_bitmap_bits & (P::heavy_bitmap_bits - 1)) == 0 &&
                      (P::heavy_rows & (P::heavy_rows - 1)) == 0,
                  "powers of two");
    return ((uint32_t)r * 2654435761u) >> (32 - __builtin_ctz(P::heavy_bitmap_bits));
}

/* The slot of heavy row r in hs (-1: r is not heavy, or r < 0). */
template <typename T>
__device__ __forceinline__ int heavy_slot(const heavy_set<T> *hs, int32_t r)
{
    if (r < 0) return -1;
    uint32_t h = heavy_hash(r);
    if (!((hs->bits[h >> 5] >> (h & 31)) & 1u)) return -1;
    int pos = 0;
#pragma unroll
    for (int step = P::heavy_rows / 2; step >= 1; step >>= 1)
        if (hs->row[pos + step] <= r) pos += step;
    return hs->row[pos] == r ? pos : -1;
}

/* The add of a step's entries into y: a heavy row (HEAVY) into the warp's sums by a
 * shared-memory atomic, a row in the warp's window (WINDOW) into its shared-memory slot,
 * the others by one reduction each, after the lanes holding one row have added
 * (AGGREGATE). All lanes call it. (Summing a step's lanes of one heavy row in the warp
 * first, by ballots and shuffles, measured 1.6-3.7x slower on the large heavy-row inputs,
 * bench/results/h100-csc-2026-11-26.md; it was removed.) */
template <bool AGGREGATE, bool WINDOW, bool HEAVY, typename T>
__device__ __forceinline__ void add_step(int32_t r, T v, int32_t base, T *win,
                                         heavy_set<T> *hs, T *y)
{
    int lane = threadIdx.x & 31;
    /* r - base modulo 2^32: below window_rows exactly where r is in the window (the
     * true difference lies in -2^31 - 1 .. 2^31 + window_before) */
    uint32_t off = (uint32_t)r - (uint32_t)base;
    if (HEAVY) {
        int pos = heavy_slot(hs, r);
        if (pos >= 0) {
            atomicAdd(hs->sum[threadIdx.x >> 5] + pos, v); /* shared memory, the warp's */
            r = -1;
        }
    }
    if (WINDOW && r >= 0 && off < (uint32_t)P::window_rows) {
        atomicAdd(win + off, v); /* shared memory */
        r = -1;
    }
    if (AGGREGATE) {
        unsigned peers = __match_any_sync(full, r);
        if (peers != (1u << lane)) {
            T sum = T(0);
            for (unsigned m = peers; m; m &= m - 1)
                sum += __shfl_sync(peers, v, __ffs((int)m) - 1);
            v = sum;
        }
        if (lane != __ffs((int)peers) - 1) r = -1;
    }
    if (r >= 0) spmv::red_add(y + r, v);
}

/* y += alpha * A * x for the chunks of P::chunk_entries entries, a warp each
 * (grid-stride); chunk_col: the plan's first column of every chunk (ncols at the end).
 * AGGREGATE: lanes of a step holding the same row add before one atomic. WINDOW (square
 * matrices): the rows window_rows from the chunk's first column less window_before (a
 * stencil's or band's rows near the diagonal, which several columns of the chunk share)
 * are summed in the warp's slots of shared memory and added to y after the chunk, one
 * reduction a row, 32 consecutive rows an instruction. HEAVY: the plan's
 * nheavy heavy rows (heavy, sorted) are summed by each warp in its slots of shared memory
 * and added to y once the block is done, one reduction a row a block. Off: the column
 * pointers' type. */
template <bool AGGREGATE, bool WINDOW, bool HEAVY, typename T, typename Off>
__global__ void __launch_bounds__(P::block_threads, P::blocks_per_sm)
csc_kernel(const Off *__restrict__ ptr, const int32_t *__restrict__ idx,
           const T *__restrict__ val, int64_t ncols, int64_t nnz, int64_t nchunks,
           const int32_t *__restrict__ chunk_col, const int32_t *__restrict__ heavy, int nheavy,
           const T *__restrict__ x, T alpha, T *__restrict__ y)
{
    constexpr int K = P::chunk_steps, S = WINDOW ? P::window_rows : 1;
    __shared__ T s_win[P::block_threads / 32][S];
    __shared__ heavy_set<T> s_heavy; /* unused without heavy rows (the compiler drops it) */
    T *win = s_win[threadIdx.x >> 5];
    heavy_set<T> *hs = &s_heavy;
    int lane = threadIdx.x & 31;
    int64_t warps = (int64_t)gridDim.x * (P::block_threads / 32);
    if (HEAVY) {
        for (int q = threadIdx.x; q < P::heavy_rows; q += P::block_threads)
            hs->row[q] = q < nheavy ? __ldg(heavy + q) : INT32_MAX;
        for (int q = threadIdx.x; q < P::block_threads / 32 * P::heavy_rows;
             q += P::block_threads)
            hs->sum[q / P::heavy_rows][q % P::heavy_rows] = T(0);
        for (int q = threadIdx.x; q < P::heavy_bitmap_bits / 32; q += P::block_threads)
            hs->bits[q] = 0;
        __syncthreads();
        for (int q = threadIdx.x; q < nheavy; q += P::block_threads) {
            uint32_t h = heavy_hash(hs->row[q]);
            atomicOr(hs->bits + (h >> 5), 1u << (h & 31));
        }
        __syncthreads();
    }
    if (WINDOW) {
        for (int q = lane; q < S; q += 32) win[q] = T(0);
        __syncwarp();
    }
    for (int64_t c = ((int64_t)blockIdx.x * P::block_threads + threadIdx.x) >> 5; c < nchunks;
         c += warps) {
        /* the chunk's entries e0 + t, t in 0 .. n - 1: 32-bit offsets from here on */
        int64_t e0 = c * P::chunk_entries;
        int32_t n = (int32_t)min((int64_t)P::chunk_entries, nnz - e0);
        const int32_t *lidx = idx + e0 + lane; /* the lane's entries: k * 32 past these */
        const T *lval = val + e0 + lane;
        int64_t c0 = __ldg(chunk_col + c), c1 = __ldg(chunk_col + c + 1);
        int32_t base = (int32_t)c0 - P::window_before;
        int32_t rr[K], cc[K];
        T vv[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            bool in = k * 32 + lane < n;
            rr[k] = in ? __ldcs(lidx + k * 32) : -1;
            vv[k] = in ? __ldcs(lval + k * 32) : T(0);
        }
        window w;
        window_load(ptr, ncols, c0, e0, &w);
#pragma unroll
        for (int k = 0; k < K; k++) {
            int32_t s = k * 32, t = s + lane;
            cc[k] = 0;
            if (s >= n) continue; /* uniform */
            if (w.distinct && w.last > min(s + 31, n - 1)) /* uniform */
                cc[k] = column_mask(&w, s);
            else
                cc[k] = column_of(ptr, ncols, c1 < ncols ? c1 : ncols - 1, e0, t, t < n, &w);
        }
#pragma unroll
        for (int k = 0; k < K; k++)
            if (rr[k] >= 0) vv[k] = alpha * (vv[k] * spmv::load_x(x, cc[k]));
#pragma unroll
        for (int k = 0; k < K; k++) {
            if (k * 32 >= n) break; /* uniform */
            add_step<AGGREGATE, WINDOW, HEAVY>(rr[k], vv[k], base, win, hs, y);
        }
        if (WINDOW) { /* the window's sums into y, the slots zeroed for the next chunk */
            __syncwarp();
            for (int q = lane; q < S; q += 32) {
                T v = win[q];
                if (v != T(0)) { /* a slot of no row stays 0; a NaN goes on */
                    spmv::red_add(y + base + q, v);
                    win[q] = T(0);
                }
            }
            __syncwarp();
        }
    }
    if (HEAVY) { /* every warp's chunks are done: the block's sums into y */
        __syncthreads();
        for (int q = threadIdx.x; q < nheavy; q += P::block_threads) {
            T v = T(0);
#pragma unroll
            for (int w = 0; w < P::block_threads / 32; w++) v += hs->sum[w][q];
            if (v != T(0)) spmv::red_add(y + hs->row[q], v); /* a NaN goes on */
        }
    }
}

template <typename T, typename Off>
sp_status_t launch_csc(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan, const sp_csr_t *a,
                       const Off *ptr, T alpha, const void *d_x, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t nchunks = plan->naux - 1;
    unsigned grid = spmv::grid_for(env, nchunks * 32, P::block_threads, P::blocks_per_sm);
    bool agg = plan->param & SP_GPU_CSC_AGGREGATE, win = plan->param & SP_GPU_CSC_WINDOW;
    const int32_t *heavy = plan->d_aux + plan->naux; /* the heavy rows follow the chunks */
    int nheavy = plan->heavy_rows;
    auto pick = [&](auto heavy_rows) {
        constexpr bool H = decltype(heavy_rows)::value;
        return agg ? (win ? csc_kernel<true, true, H, T, Off> : csc_kernel<true, false, H, T, Off>)
                   : (win ? csc_kernel<false, true, H, T, Off>
                          : csc_kernel<false, false, H, T, Off>);
    };
    auto kernel = nheavy > 0 ? pick(std::true_type()) : pick(std::false_type());
    SP_CUDA_LAUNCH("csc_kernel",
                   sp_prim::launch(kernel, grid, P::block_threads, env->stream, ptr, a->idx,
                                   static_cast<const T *>(a->val), a->ncols, a->nnz, nchunks,
                                   plan->d_aux, heavy, nheavy, static_cast<const T *>(d_x),
                                   alpha, static_cast<T *>(d_y)));
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_spmv_csc(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                                        const sp_csr_t *a, const void *alpha, const void *d_x,
                                        const void *beta, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(a != NULL, "csc spmv: NULL matrix");
    SP_TRY(spmv::check_call("csc spmv", env, a->value_type, a->nrows, a->ncols, alpha, d_x,
                            beta, d_y));
    SP_CHECK_ARG(a->nnz >= 0 && (a->nnz <= INT32_MAX || a->ptr64 != NULL),
                 "csc spmv: entry count %lld outside 0..%d with 32-bit offsets",
                 (long long)a->nnz, INT32_MAX);
    SP_CHECK_ARG(a->ptr != NULL || a->ptr64 != NULL, "csc spmv: ptr is NULL");
    SP_CHECK_ARG(a->nnz == 0 || (a->idx != NULL && a->val != NULL),
                 "csc spmv: NULL arrays for %lld entries", (long long)a->nnz);
    SP_CHECK_ARG(plan != NULL && plan->format == SP_FORMAT_CSC, "csc spmv: not a CSC plan");
    SP_CHECK_ARG(plan->d_aux != NULL &&
                     plan->naux == (a->nnz + P::chunk_entries - 1) / P::chunk_entries + 1,
                 "csc spmv: plan holds %lld chunk columns, %lld entries need %lld (plan made "
                 "for another matrix?)",
                 (long long)plan->naux, (long long)a->nnz,
                 (long long)((a->nnz + P::chunk_entries - 1) / P::chunk_entries + 1));
    SP_TRY(sp__gpu_scale(env, a->value_type, a->nrows, beta, d_y));
    if (a->nnz == 0) goto done;
    spmv::by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        if (a->ptr64)
            st = launch_csc<T>(env, plan, a, a->ptr64, spmv::host_value<T>(alpha), d_x, d_y);
        else
            st = launch_csc<T>(env, plan, a, a->ptr, spmv::host_value<T>(alpha), d_x, d_y);
    });
done:
    return st;
}
