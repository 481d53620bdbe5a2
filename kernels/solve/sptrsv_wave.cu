/* x = alpha * T^-1 b in one kernel, a level at a time without a launch per level (level
 * scheduling, Anderson & Saad 1989, run as a soft-synchronized wave in the spirit of
 * Funasaka et al.): rows sorted by level are cut into units of at most 32 rows (a lane
 * each) of one level, or one row (a warp, on long rows), handed out by an atomic ticket in
 * level order. A unit loads everything its rows need but the dependencies' values, waits
 * once (one lane polling one counter: the previous level's finished units), then reads the
 * values, computes and stores its rows and counts itself finished. The per-row ready flags
 * of sptrsv_soft.cu / sptrsv_value.cu cost a poll per dependency of every waiting row (tens
 * of scattered L2 loads per warp and poll, thousands of warps polling on a 3D stencil);
 * here a waiting warp polls one word, and x needs no sentinel fill.
 *
 * Why waiting on level L-1 suffices: a unit of level L-1 finishes only after its own wait
 * on level L-2 succeeded, so by induction a finished level L-1 means every level below it
 * is finished. Memory model: a unit's rows are stored, the warp synchronized, then lane 0
 * adds to its level's counter with release semantics; a waiter's lane 0 polls with relaxed
 * loads and fences (acquire) once it sees the count, the warp synchronizes, and its lanes
 * read x through L2 (__ldcg): the pattern of a cooperative grid sync, at warp scope.
 *
 * Why it cannot deadlock, whatever the scheduler does: tickets come from one atomic
 * counter in the level order, so a unit of level L waits only on units of smaller tickets,
 * claimed by warps already running that finish them without waiting on anything later;
 * the unit with the smallest unfinished ticket always completes (sptrsv_soft.cu).
 *
 * Reuse without a memset: the counters are never reset. Every launch of a plan claims the
 * same window of tickets (units + warps), so a warp learns the solve's epoch e (1, 2, ...)
 * from its first ticket; in solve e a level of U units is finished when its counter
 * reaches e * U (64-bit: no wrap in practice). Rows are summed in entry order (a thread per
 * row) or by a fixed lane stride and shuffle tree (a warp per row): the same bits on every
 * run. */
#include <string.h>

#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace
{

/* Off: the type of entry positions (strict_range). */
template <typename T, typename Off> struct wave_args {
    const Off *ptr;
    const int32_t *idx;
    const Off *bound;
    const int32_t *order, *unit_begin, *unit_level, *unit_ptr;
    const T *val, *b;
    T *x;
    T alpha;
    int64_t units, stride; /* stride: words between two levels' counters */
    bool unit;
    unsigned long long *done, *ticket, window;
};

__device__ __forceinline__ unsigned long long load_relaxed_u64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
/* After a relaxed load that saw the release's sum: together an acquire (PTX's fence-based
 * acquire pattern), paid once per wait instead of on every poll. */
__device__ __forceinline__ void fence_acquire()
{
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
}
/* *p += v with release semantics: every write ordered before it (this thread's, and the
 * warp's through the __syncwarp before it) is visible to whoever acquires the sum. */
__device__ __forceinline__ void add_release_u64(unsigned long long *p, unsigned long long v)
{
    asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* A lane's entries k, k + S, ... below k1 (S = 1 a thread per row, 32 a warp per row), E of
 * them in registers: c[e] the column (-1: none, or outside the strict triangle, possible
 * only in unsorted input), w[e] the coefficient. */
template <typename T, bool UPPER, int S, typename Off> struct wave_entries {
    static constexpr int E = P::row_window;
    int64_t k, k1;
    int32_t c[E];
    T w[E];

    __device__ __forceinline__ void load(const wave_args<T, Off> &a, int64_t r)
    {
#pragma unroll
        for (int e = 0; e < E; e++) {
            c[e] = -1;
            w[e] = T(0);
            int64_t q = k + (int64_t)e * S;
            if (q < k1) {
                int32_t col = __ldg(a.idx + q);
                if (UPPER ? col > r : col < r) {
                    c[e] = col;
                    w[e] = __ldg(a.val + q);
                }
            }
        }
    }
    /* acc plus the entries' products, in entry order; the values of a window are loaded
     * together */
    __device__ __forceinline__ T sum(const wave_args<T, Off> &a, int64_t r, T acc)
    {
        for (;;) {
            T v[E];
#pragma unroll
            for (int e = 0; e < E; e++)
                v[e] = c[e] >= 0 ? __ldcg(a.x + c[e]) : T(0);
#pragma unroll
            for (int e = 0; e < E; e++)
                if (c[e] >= 0) acc = acc + w[e] * v[e];
            k += (int64_t)E * S;
            if (k >= k1) return acc;
            load(a, r);
        }
    }
};

template <typename T, bool UPPER, bool WARP, typename Off>
__global__ void __launch_bounds__(P::block_threads) wave_kernel(wave_args<T, Off> a)
{
    constexpr int S = WARP ? 32 : 1;
    const int lane = threadIdx.x & 31;
    bool first_claim = true;
    unsigned long long base = 0;
    for (;;) {
        const int64_t u = claim_warp(a.ticket, a.window, &first_claim, &base);
        if (u >= a.units) break;
        const unsigned long long epoch = base / a.window + 1;
        const int64_t b0 = __ldg(a.unit_begin + u), b1 = __ldg(a.unit_begin + u + 1);
        const int32_t lev = __ldg(a.unit_level + u);
        const bool live = WARP || b0 + lane < b1;
        int64_t r = 0;
        T rhs = T(0), diag = T(1);
        wave_entries<T, UPPER, S, Off> ent;
        ent.k = ent.k1 = 0;
        if (live) {
            r = __ldg(a.order + (WARP ? b0 : b0 + lane));
            strict_range(a.ptr, a.bound, r, UPPER, &ent.k, &ent.k1);
            ent.k += WARP ? lane : 0;
            rhs = a.alpha * __ldg(a.b + r);
            if (!a.unit) diag = __ldg(a.val + diag_pos(a.bound, r, UPPER));
            ent.load(a, r);
        }
        if (lev > 0) {
            /* lane 0 polls the previous level's count, then acquires (fence); the
             * __syncwarp orders the other lanes' reads of x after it (the pattern of a
             * cooperative grid sync) */
            const unsigned long long *cnt = a.done + (int64_t)(lev - 1) * a.stride;
            const unsigned long long target =
                epoch *
                (unsigned long long)(__ldg(a.unit_ptr + lev) - __ldg(a.unit_ptr + lev - 1));
            if (lane == 0) {
                spin_upto<P::wave_backoff_max_ns> sp;
                while (load_relaxed_u64(cnt) < target)
                    sp.pause();
                fence_acquire();
            }
            __syncwarp();
        }
        T acc = T(0);
        if (live) acc = ent.sum(a, r, acc);
        if (WARP) acc = warp_reduce<solve_op<T>>(acc);
        if (live && (!WARP || lane == 0)) {
            T s = rhs - acc;
            a.x[r] = a.unit ? s : s / diag;
        }
        __syncwarp();
        if (lane == 0) add_release_u64(a.done + (int64_t)lev * a.stride, 1ull);
    }
}

template <typename T, bool UPPER, typename Off> const void *kernel_of(bool warp_per_row)
{
    return warp_per_row ? (const void *)wave_kernel<T, UPPER, true, Off>
                        : (const void *)wave_kernel<T, UPPER, false, Off>;
}

/* unit_ptr[l] = the first unit of level l (units of rows_per_unit rows, none spanning two
 * levels; unit_ptr[nl] = all units), from the host level offsets; *widest: the most units
 * of a level. */
sp_status_t unit_offsets(const sp_gpu_sptrsv_plan_t *plan, int64_t rows_per_unit,
                         int32_t **h_unit_ptr, int64_t *widest)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const int64_t nl = plan->nlevels, *lp = plan->h_level_ptr;
    int64_t count = 0;
    *widest = 0;
    SP_TRY(host_array(h_unit_ptr, nl + 1));
    for (int64_t l = 0; l < nl; l++) {
        int64_t lu = ceil_div(lp[l + 1] - lp[l], rows_per_unit);
        (*h_unit_ptr)[l] = (int32_t)count;
        count += lu;
        if (lu > *widest) *widest = lu;
    }
    (*h_unit_ptr)[nl] = (int32_t)count;
done:
    return st;
}

/* Per unit its first position in the level order and its level (level by binary search in
 * unit_ptr); unit_begin[units] = n. */
__global__ void unit_table_kernel(const int32_t *__restrict__ unit_ptr,
                                  const int32_t *__restrict__ level_ptr, int64_t nl, int64_t n,
                                  int64_t units, int rows_per_unit, int32_t *__restrict__ begin,
                                  int32_t *__restrict__ level)
{
    int64_t u = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    if (u == units) begin[u] = (int32_t)n;
    if (u >= units) return;
    int64_t lo = 0, hi = nl - 1; /* the last l with unit_ptr[l] <= u */
    while (lo < hi) {
        int64_t m = (lo + hi + 1) / 2;
        if (unit_ptr[m] <= u)
            lo = m;
        else
            hi = m - 1;
    }
    begin[u] = (int32_t)(level_ptr[lo] + (u - unit_ptr[lo]) * rows_per_unit);
    level[u] = (int32_t)lo;
}

template <typename T, bool UPPER, typename Off>
void launch(const sp_gpu_sptrsv_plan_t *plan, const wave_args<T, Off> &a, cudaStream_t s)
{
    if (plan->warp_per_row)
        wave_kernel<T, UPPER, true, Off><<<plan->grid, P::block_threads, 0, s>>>(a);
    else
        wave_kernel<T, UPPER, false, Off><<<plan->grid, P::block_threads, 0, s>>>(a);
}

} /* namespace */

sp_status_t sp__gpu_sptrsv_wave_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    int32_t *h_unit_ptr = NULL;
    int64_t widest = 0, sms = 0, resident = 0, warps;
    const void *kernel = NULL;
    const int64_t nl = plan->nlevels;
    const int rows_per_unit = plan->warp_per_row ? 1 : 32;
    /* a line per counter where levels are wide (many warps poll one level's counter while
     * the next level's units add to theirs); packed on narrow levels (a chain would pay
     * 128 bytes a row) */
    plan->counter_stride =
        plan->n >= (int64_t)P::ordered_min_width * nl ? P::wave_counter_stride : 1;
    const size_t done_bytes =
        (size_t)nl * (size_t)plan->counter_stride * sizeof(unsigned long long);
    SP_TRY(unit_offsets(plan, rows_per_unit, &h_unit_ptr, &widest));
    plan->units = h_unit_ptr[nl];
    SP_TRY(
        env->alloc(env->self, (void **)&plan->d_unit_ptr, (size_t)(nl + 1) * sizeof(int32_t)));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_unit_begin,
                      (size_t)(plan->units + 1) * sizeof(int32_t)));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_unit_level,
                      (size_t)plan->units * sizeof(int32_t)));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_done, done_bytes));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_ticket, sizeof(unsigned long long)));
    /* from pageable memory: the call returns once h_unit_ptr is read (freed below) */
    SP_CUDA_TRY(cudaMemcpyAsync(plan->d_unit_ptr, h_unit_ptr,
                                (size_t)(nl + 1) * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    unit_table_kernel<<<(unsigned)ceil_div(plan->units + 1, P::block_threads), P::block_threads,
                        0, s>>>(plan->d_unit_ptr, plan->d_level_ptr, nl, plan->n, plan->units,
                                rows_per_unit, plan->d_unit_begin, plan->d_unit_level);
    SP_CUDA_LAUNCHED("sptrsv wave unit table");
    SP_CUDA_TRY(cudaMemsetAsync(plan->d_done, 0, done_bytes, s));
    SP_CUDA_TRY(cudaMemsetAsync(plan->d_ticket, 0, sizeof(unsigned long long), s));
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        bool w = plan->warp_per_row != 0;
        if (plan->d_bound64)
            kernel = plan->upper ? kernel_of<T, true, int64_t>(w)
                                 : kernel_of<T, false, int64_t>(w);
        else
            kernel = plan->upper ? kernel_of<T, true, int32_t>(w)
                                 : kernel_of<T, false, int32_t>(w);
    });
    SP_TRY(resident_blocks(env, kernel, P::block_threads, &sms, &resident));
    /* warps for the widest level and the next one claimed behind it; more only poll */
    warps = 2 * widest;
    if (warps < sms * P::warps_per_sm_min) warps = sms * P::warps_per_sm_min;
    if (warps > plan->units) warps = plan->units;
    plan->grid = (unsigned)ceil_div(warps, P::warps);
    if ((int64_t)plan->grid > resident) plan->grid = (unsigned)resident;
    plan->window = (unsigned long long)plan->units + (unsigned long long)plan->grid * P::warps;
done:
    sp__free(h_unit_ptr);
    return st; /* on failure the caller frees the plan and its device parts */
}

sp_status_t sp__gpu_sptrsv_wave_solve(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                                      const sp_csr_t *a, const void *alpha, const void *d_b,
                                      void *d_x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        by_offset(a, [&](auto otag) {
            using Off = decltype(otag);
            wave_args<T, Off> w = {row_ptr<Off>(a),
                                   a->idx,
                                   plan_bound<Off>(plan),
                                   plan->d_order,
                                   plan->d_unit_begin,
                                   plan->d_unit_level,
                                   plan->d_unit_ptr,
                                   static_cast<const T *>(a->val),
                                   static_cast<const T *>(d_b),
                                   static_cast<T *>(d_x),
                                   *static_cast<const T *>(alpha),
                                   plan->units,
                                   plan->counter_stride,
                                   plan->unit_diag != 0,
                                   plan->d_done,
                                   plan->d_ticket,
                                   plan->window};
            if (plan->upper)
                launch<T, true, Off>(plan, w, s);
            else
                launch<T, false, Off>(plan, w, s);
        });
    });
    SP_CUDA_LAUNCHED("sptrsv wave kernel");
done:
    return st;
}
