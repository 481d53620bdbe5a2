/* x = alpha * T^-1 b in one kernel, soft-synchronized (after the sync-free SpTRSV of Liu et
 * al. 2016 and the single-kernel soft synchronization / grid-level task progression of
 * Funasaka et al.): warps take rows from an atomic ticket counter in a topological order
 * (ticket i = row i for lower, row n-1-i for upper) and wait on per-row ready flags in
 * global memory for the rows they depend on. The same pass, with max instead of sum,
 * computes the dependency levels for the analysis.
 *
 * Why it cannot deadlock, whatever the scheduler does: tickets are handed out by one
 * atomic counter, so when ticket t has been handed out, every smaller ticket was handed out
 * before it to a warp that was already running (it executed the atomic) and that does not
 * exit before finishing its rows. A row depends only on rows of smaller tickets, and a
 * warp only ever waits on those, never on a ticket not yet claimed; blocks not yet
 * resident hold no ticket. So the unfinished row with the smallest ticket has all its
 * dependencies finished and its (running) warp completes it; by induction every row
 * completes. Inside a warp that holds 32 rows (thread per row), a lane waits on an earlier
 * lane of its own warp only through the warp-wide loop below, where every iteration lets
 * each lane advance as far as it can, so the earliest unfinished lane always advances.
 *
 * Reuse without a memset: every launch of one plan has the same grid, so a solve claims
 * exactly window = units + warps tickets (each warp makes one claim past the last unit).
 * Solve s claims [s * window, (s + 1) * window); a warp learns s from its first ticket,
 * and a row is ready in solve s when its flag holds the epoch s + 1 (32-bit, compared for
 * equality: the flags hold s or s + 1, never equal across consecutive solves). */
#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace {

/* Claims the next ticket for the warp (lane 0's atomic, broadcast). The first claim of a
 * launch fixes the launch's ticket base and tells op its epoch. Returns the unit index
 * within this launch. */
template <typename Op>
__device__ __forceinline__ int64_t claim(unsigned long long *ticket, unsigned long long window,
                                         bool *first, unsigned long long *base, Op *op)
{
    unsigned long long t = 0;
    if ((threadIdx.x & 31) == 0) t = atomicAdd(ticket, 1ull);
    t = __shfl_sync(sp_prim::full_mask, t, 0);
    if (*first) {
        *first = false;
        *base = t - t % window;
        op->set_epoch((uint32_t)(t / window) + 1u);
    }
    return (int64_t)(t - *base);
}

/* The level pass's count: the warp's largest published level into *op.max_level. */
template <typename Op>
__device__ __forceinline__ void fold_levels(const Op &op, typename Op::V mine)
{
    if constexpr (Op::counts_levels) {
        typename Op::V m = warp_reduce<Op>(mine);
        if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(op.max_level, (unsigned)m);
    }
}

/* A thread per row: a ticket is a unit of 32 consecutive tickets' rows, one per lane.
 * The warp loops until all its lanes are done; in each pass a lane consumes its entries in
 * order until one is not ready: a row of an earlier lane of this warp is read from shared
 * memory once that lane's done bit is in done_mask, any other row through its flag. An
 * entry outside the strict triangle (possible only in unsorted input) is skipped, so no
 * lane can ever wait on itself or a later ticket. */
template <typename Op, bool UPPER>
__global__ void __launch_bounds__(P::block_threads)
soft_thread_kernel(Op op, const int32_t *__restrict__ ptr, const int32_t *__restrict__ idx,
                   const int32_t *__restrict__ bound, int64_t n, unsigned long long *ticket,
                   unsigned long long window)
{
    using V = typename Op::V;
    __shared__ V s_val[P::block_threads];
    const int lane = threadIdx.x & 31;
    V *s_warp = s_val + (threadIdx.x & ~31);
    const int64_t units = ceil_div(n, 32);
    bool first_claim = true;
    unsigned long long base = 0;
    V published_max = op.identity();
    for (;;) {
        int64_t u = claim(ticket, window, &first_claim, &base, &op);
        if (u >= units) break;
        int64_t first = u * 32, i = first + lane, r = 0, k = 0, k1 = 0;
        bool done = i >= n;
        V acc = op.identity();
        if (!done) {
            r = row_of(i, n, UPPER);
            strict_range(ptr, bound, r, UPPER, &k, &k1);
        }
        unsigned done_mask = __ballot_sync(sp_prim::full_mask, done);
        while (done_mask != sp_prim::full_mask) {
            if (!done) {
                for (; k < k1; k++) {
                    int64_t c = idx[k];
                    if (UPPER ? c <= r : c >= r) continue;
                    int64_t tc = UPPER ? n - 1 - c : c;
                    V v;
                    if (tc >= first) {
                        if (!((done_mask >> (unsigned)(tc - first)) & 1u)) break;
                        v = s_warp[tc - first];
                    } else if (!op.try_get(c, &v)) {
                        break;
                    }
                    acc = op.combine(acc, k, v);
                }
                if (k == k1) {
                    V xr = op.finish(r, acc);
                    op.publish(r, xr);
                    s_warp[lane] = xr;
                    published_max = Op::reduce(published_max, xr);
                    done = true;
                }
            }
            __syncwarp();
            done_mask = __ballot_sync(sp_prim::full_mask, done);
        }
    }
    fold_levels(op, published_max);
}

/* A warp per row: the lanes stride over the row's entries, each waiting on the flags of
 * its own entries (rows of other warps only), then a warp reduction; lane 0 finishes and
 * publishes the row. */
template <typename Op, bool UPPER>
__global__ void __launch_bounds__(P::block_threads)
soft_warp_kernel(Op op, const int32_t *__restrict__ ptr, const int32_t *__restrict__ idx,
                 const int32_t *__restrict__ bound, int64_t n, unsigned long long *ticket,
                 unsigned long long window)
{
    using V = typename Op::V;
    const int lane = threadIdx.x & 31;
    bool first_claim = true;
    unsigned long long base = 0;
    V published_max = op.identity();
    for (;;) {
        int64_t u = claim(ticket, window, &first_claim, &base, &op);
        if (u >= n) break;
        int64_t r = row_of(u, n, UPPER), k0, k1;
        strict_range(ptr, bound, r, UPPER, &k0, &k1);
        V acc = op.identity();
        for (int64_t k = k0 + lane; k < k1; k += 32) {
            int64_t c = idx[k];
            if (UPPER ? c <= r : c >= r) continue;
            V v;
            while (!op.try_get(c, &v)) {
            }
            acc = op.combine(acc, k, v);
        }
        acc = warp_reduce<Op>(acc);
        if (lane == 0) {
            V xr = op.finish(r, acc);
            op.publish(r, xr);
            published_max = Op::reduce(published_max, xr);
        }
        __syncwarp();
    }
    fold_levels(op, published_max);
}

/* Units of work of one launch: rows (warp per row) or groups of 32 rows. */
int64_t units_of(int64_t n, bool warp_per_row) { return warp_per_row ? n : ceil_div(n, 32); }

/* Blocks of a soft launch: as many as are resident at once, at most enough warps for every
 * unit (more would only make extra claims). */
template <typename Op, bool UPPER>
sp_status_t soft_grid(const sp_gpu_env_t *env, bool warp_per_row, int64_t n, unsigned *grid)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int per_sm = 0, sms = env->sm_count;
    const void *kernel = warp_per_row ? (const void *)soft_warp_kernel<Op, UPPER>
                                      : (const void *)soft_thread_kernel<Op, UPPER>;
    if (sms <= 0) {
        int dev = 0;
        SP_CUDA_TRY(cudaGetDevice(&dev));
        SP_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    }
    SP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, P::block_threads, 0));
    {
        int64_t resident = (int64_t)sms * (per_sm > 0 ? per_sm : 1);
        int64_t need = ceil_div(units_of(n, warp_per_row), P::warps);
        *grid = (unsigned)(need < resident ? need : resident);
    }
done:
    return st;
}

template <typename Op, bool UPPER>
void soft_launch(const sp_gpu_env_t *env, bool warp_per_row, unsigned grid, const Op &op,
                 const sp_csr_t *a, const int32_t *d_bound, unsigned long long *d_ticket,
                 unsigned long long window)
{
    cudaStream_t s = (cudaStream_t)env->stream;
    if (warp_per_row)
        soft_warp_kernel<Op, UPPER><<<grid, P::block_threads, 0, s>>>(op, a->ptr, a->idx, d_bound,
                                                                     a->nrows, d_ticket, window);
    else
        soft_thread_kernel<Op, UPPER><<<grid, P::block_threads, 0, s>>>(
            op, a->ptr, a->idx, d_bound, a->nrows, d_ticket, window);
}

/* Both triangles of one operation: grid, then launch. */
template <typename Op>
sp_status_t soft_run(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan, const Op &op,
                     const sp_csr_t *a, unsigned long long *d_ticket, unsigned grid,
                     unsigned long long window)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    bool w = plan->warp_per_row != 0;
    if (plan->upper)
        soft_launch<Op, true>(env, w, grid, op, a, plan->d_bound, d_ticket, window);
    else
        soft_launch<Op, false>(env, w, grid, op, a, plan->d_bound, d_ticket, window);
    SP_CUDA_LAUNCHED("sptrsv soft kernel");
done:
    return st;
}

template <typename Op>
sp_status_t grid_of(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan, unsigned *grid)
{
    return plan->upper ? soft_grid<Op, true>(env, plan->warp_per_row != 0, plan->n, grid)
                       : soft_grid<Op, false>(env, plan->warp_per_row != 0, plan->n, grid);
}

} /* namespace */

sp_status_t sp__gpu_sptrsv_soft_levels(const sp_gpu_env_t *env, const sp_csr_t *a,
                                       const sp_gpu_sptrsv_plan_t *plan, int32_t *d_level,
                                       unsigned *d_max_level, unsigned long long *d_ticket)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = 0;
    level_op op = {d_level, d_max_level};
    SP_TRY(grid_of<level_op>(env, plan, &grid));
    SP_TRY(soft_run(env, plan, op, a, d_ticket, grid,
                    (unsigned long long)units_of(plan->n, plan->warp_per_row != 0) +
                        (unsigned long long)grid * P::warps));
done:
    return st;
}

sp_status_t sp__gpu_sptrsv_soft_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    SP_TRY(env->alloc(env->self, (void **)&plan->d_flags, (size_t)plan->n * sizeof(uint32_t)));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_ticket, sizeof(unsigned long long)));
    SP_CUDA_TRY(cudaMemsetAsync(plan->d_flags, 0, (size_t)plan->n * sizeof(uint32_t), s));
    SP_CUDA_TRY(cudaMemsetAsync(plan->d_ticket, 0, sizeof(unsigned long long), s));
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        st = grid_of<solve_op<T>>(env, plan, &plan->grid);
    });
    if (st != SP_STATUS_SUCCESS) goto done;
    plan->window = (unsigned long long)units_of(plan->n, plan->warp_per_row != 0) +
                   (unsigned long long)plan->grid * P::warps;
done:
    return st; /* on failure the caller frees the plan, flags and ticket included */
}

sp_status_t sp__gpu_sptrsv_soft_solve(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                                      const sp_csr_t *a, const void *alpha, const void *d_b,
                                      void *d_x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        solve_op<T> op = {plan->d_bound, static_cast<const T *>(a->val), static_cast<const T *>(d_b),
                          static_cast<T *>(d_x), *static_cast<const T *>(alpha), plan->upper != 0,
                          plan->unit_diag != 0, plan->d_flags, 0u, nullptr};
        st = soft_run(env, plan, op, a, plan->d_ticket, plan->grid, plan->window);
    });
    return st;
}
