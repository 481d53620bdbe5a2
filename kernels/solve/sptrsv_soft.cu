/* x = alpha * T^-1 b in one kernel, soft-synchronized (after the sync-free SpTRSV of Liu et
 * al. 2016 and the single-kernel soft synchronization / grid-level task progression of
 * Funasaka et al.): warps take rows from an atomic ticket counter in a topological order
 * and wait on per-row ready flags in global memory for the rows they depend on. The order
 * is the level order (rows sorted by dependency level) when levels are wide, so the 32
 * rows of a warp are mostly independent, else the natural one (ticket i = row i for lower,
 * row n-1-i for upper).
 *
 * Why it cannot deadlock, whatever the scheduler does: tickets are handed out by one
 * atomic counter, so when ticket t has been handed out, every smaller ticket was handed out
 * before it to a warp that was already running (it executed the atomic) and that does not
 * exit before finishing its rows. Both orders are topological (a row's dependencies have
 * strictly smaller levels, hence smaller tickets in the level order), and a warp only ever
 * waits on smaller tickets, never on one not yet claimed; blocks not yet resident hold no
 * ticket. So the unfinished row with the smallest ticket has all its dependencies finished,
 * and published within a bounded number of steps of their (running) warps (see the thread
 * kernel), and its warp completes it; by induction every row completes. Inside a warp that
 * holds 32 rows (thread per row), a lane waits on an earlier lane of its own warp only
 * through the warp-wide loop below, where every pass lets each lane advance as far as it
 * can, so the earliest unfinished lane always advances; no lane spins alone.
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
    bool was_first = *first;
    int64_t u = claim_warp(ticket, window, first, base);
    if (was_first) op->set_epoch((uint32_t)(*base / window) + 1u);
    return u;
}

/* Row c through its flag; poll: the lane already found it unfinished, so it is polled
 * with a relaxed load first (no acquire per failed poll). */
template <typename Op>
__device__ __forceinline__ bool get_flagged(const Op &op, int64_t c, bool poll, typename Op::V *v)
{
    if (poll && !op.seen(c)) return false;
    return op.try_get(c, v);
}

/* The value of dependency c (ticket tc_nat in the natural order) of the lane holding
 * ticket first + lane, or false while it is not available. A row of an earlier lane of
 * this warp is read from shared memory once that lane's done bit is in done_mask (it may
 * not be published yet), any other row through its flag. In the level order the ticket of
 * c needs a load (rank), so the flag is tried first: a dependency inside the warp is rare
 * there (only where the warp spans a level boundary). */
template <typename Op, bool ORDERED>
__device__ __forceinline__ bool take(const Op &op, int64_t c, int64_t tc_nat, int64_t first,
                                     unsigned done_mask, const typename Op::V *s_warp,
                                     const int32_t *__restrict__ rank, bool poll,
                                     typename Op::V *v)
{
    if (ORDERED) {
        if (get_flagged(op, c, poll, v)) return true;
        int64_t d = (int64_t)__ldg(rank + c) - first;
        if (d < 0 || d >= 32 || !((done_mask >> (unsigned)d) & 1u)) return false;
        *v = s_warp[d];
        return true;
    }
    int64_t d = tc_nat - first;
    if (d < 0) return get_flagged(op, c, poll, v);
    if (!((done_mask >> (unsigned)d) & 1u)) return false;
    *v = s_warp[d];
    return true;
}

/* A thread per row: a ticket is a unit of 32 consecutive tickets' rows, one per lane.
 * The warp loops until all its lanes are done; in each pass a lane consumes its entries in
 * order until one is not available (take). An entry outside the strict triangle (possible
 * only in unsorted input) is skipped, so no lane can ever wait on itself or a later
 * ticket. A finished row's value is stored at once and its flag (a release store, i.e. a
 * fence per warp instruction) in the same pass in the level order; in the natural order
 * when a pass finishes no row of the warp, when publish_batch rows wait or when the warp
 * is done: rows handed from lane to lane inside the warp (a chain) then share a fence, and
 * a flag is still published within publish_batch passes, so other warps are not held up
 * by a whole unit (in the level order, where lanes rarely feed each other, a late flag
 * would only delay other warps). A pass that finishes no row publishes first, then sleeps
 * (backoff). The loop is convergent (no lane spins alone), so it needs no independent
 * thread scheduling. */
template <typename Op, bool UPPER, bool ORDERED>
__global__ void __launch_bounds__(P::block_threads)
soft_thread_kernel(Op op, const typename Op::Offset *__restrict__ ptr,
                   const int32_t *__restrict__ idx,
                   const typename Op::Offset *__restrict__ bound,
                   const int32_t *__restrict__ order,
                   const int32_t *__restrict__ rank, int64_t n, unsigned long long *ticket,
                   unsigned long long window)
{
    using V = typename Op::V;
    __shared__ V s_val[P::block_threads];
    const int lane = threadIdx.x & 31;
    V *s_warp = s_val + (threadIdx.x & ~31);
    const int64_t units = ceil_div(n, 32);
    bool first_claim = true;
    unsigned long long base = 0;
    for (;;) {
        int64_t u = claim(ticket, window, &first_claim, &base, &op);
        if (u >= units) break;
        int64_t first = u * 32, i = first + lane, r = 0, k = 0, k1 = 0, stuck = -1;
        backoff bo;
        bool done = i >= n, pending = false;
        V acc = op.identity(), xr = op.identity();
        typename Op::pre_t pre{};
        if (!done) {
            r = ORDERED ? (int64_t)order[i] : row_of(i, n, UPPER);
            strict_range(ptr, bound, r, UPPER, &k, &k1);
            pre = op.prepare(r, k, k1);
        }
        unsigned done_mask = __ballot_sync(sp_prim::full_mask, done);
        while (done_mask != sp_prim::full_mask) {
            if (!done) {
                for (; k < k1; k++) {
                    int64_t c = idx[k];
                    if (UPPER ? c <= r : c >= r) continue;
                    V v;
                    if (!take<Op, ORDERED>(op, c, UPPER ? n - 1 - c : c, first, done_mask,
                                           s_warp, rank, k == stuck, &v)) {
                        stuck = k;
                        break;
                    }
                    acc = op.combine(acc, k, v);
                }
                if (k == k1) {
                    xr = op.finish(r, acc, pre);
                    op.store_value(r, xr);
                    s_warp[lane] = xr;
                    done = pending = true;
                }
            }
            __syncwarp();
            unsigned now = __ballot_sync(sp_prim::full_mask, done);
            unsigned waiting = __ballot_sync(sp_prim::full_mask, pending);
            if (pending && (ORDERED || now == done_mask || now == sp_prim::full_mask ||
                            __popc(waiting) >= P::publish_batch)) {
                op.publish(r, xr);
                pending = false;
            }
            if (now == done_mask)
                bo.pause();
            else
                bo.reset();
            done_mask = now;
        }
    }
}

/* A warp per row: the lanes stride over the row's entries, each waiting on the flags of
 * its own entries (rows of other warps only), then a warp reduction; lane 0 finishes and
 * publishes the row. */
template <typename Op, bool UPPER, bool ORDERED>
__global__ void __launch_bounds__(P::block_threads)
soft_warp_kernel(Op op, const typename Op::Offset *__restrict__ ptr,
                 const int32_t *__restrict__ idx,
                 const typename Op::Offset *__restrict__ bound,
                 const int32_t *__restrict__ order,
                 const int32_t *__restrict__, int64_t n, unsigned long long *ticket,
                 unsigned long long window)
{
    using V = typename Op::V;
    const int lane = threadIdx.x & 31;
    bool first_claim = true;
    unsigned long long base = 0;
    for (;;) {
        int64_t u = claim(ticket, window, &first_claim, &base, &op);
        if (u >= n) break;
        int64_t r = ORDERED ? (int64_t)order[u] : row_of(u, n, UPPER), k0, k1;
        strict_range(ptr, bound, r, UPPER, &k0, &k1);
        typename Op::pre_t pre = op.prepare(r, k0, k0); /* used by lane 0 */
        V acc = op.identity();
        for (int64_t k = k0 + lane; k < k1; k += 32) {
            int64_t c = idx[k];
            if (UPPER ? c <= r : c >= r) continue;
            V v;
            if (!op.try_get(c, &v)) {
                backoff bo;
                do {
                    while (!op.seen(c)) bo.pause();
                } while (!op.try_get(c, &v));
            }
            acc = op.combine(acc, k, v);
        }
        acc = warp_reduce<Op>(acc);
        if (lane == 0) {
            V xr = op.finish(r, acc, pre);
            op.store_value(r, xr);
            op.publish(r, xr);
        }
        __syncwarp();
    }
}

/* Units of work of one launch: rows (warp per row) or groups of 32 rows. */
int64_t units_of(int64_t n, bool warp_per_row) { return warp_per_row ? n : ceil_div(n, 32); }

/* The kernel of one launch shape. */
template <typename Op, bool UPPER, bool ORDERED>
const void *kernel_of(bool warp_per_row)
{
    return warp_per_row ? (const void *)soft_warp_kernel<Op, UPPER, ORDERED>
                        : (const void *)soft_thread_kernel<Op, UPPER, ORDERED>;
}

/* Blocks of a soft launch: as many as are resident at once, at most enough warps for every
 * unit (more would only make extra claims) and, where want_warps > 0, at most
 * max(want_warps, warps_per_sm_min per SM) warps. */
sp_status_t soft_grid(const sp_gpu_env_t *env, const void *kernel, bool warp_per_row, int64_t n,
                      int64_t want_warps, unsigned *grid)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t sms = 0, resident = 0;
    SP_TRY(resident_blocks(env, kernel, P::block_threads, &sms, &resident));
    {
        int64_t need = ceil_div(units_of(n, warp_per_row), P::warps);
        if (want_warps > 0) {
            int64_t floor_warps = (int64_t)sms * P::warps_per_sm_min;
            int64_t want = ceil_div(want_warps > floor_warps ? want_warps : floor_warps, P::warps);
            if (want < need) need = want;
        }
        *grid = (unsigned)(need < resident ? need : resident);
    }
done:
    return st;
}

template <typename Op, bool UPPER, bool ORDERED>
void soft_launch(const sp_gpu_env_t *env, bool warp_per_row, unsigned grid, const Op &op,
                 const sp_csr_t *a, const sp_gpu_sptrsv_plan_t *plan, unsigned long long *d_ticket,
                 unsigned long long window)
{
    using Off = typename Op::Offset;
    cudaStream_t s = (cudaStream_t)env->stream;
    const int32_t *order = ORDERED ? plan->d_order : nullptr, *rank = ORDERED ? plan->d_rank : nullptr;
    if (warp_per_row)
        soft_warp_kernel<Op, UPPER, ORDERED><<<grid, P::block_threads, 0, s>>>(
            op, row_ptr<Off>(a), a->idx, plan_bound<Off>(plan), order, rank, a->nrows, d_ticket,
            window);
    else
        soft_thread_kernel<Op, UPPER, ORDERED><<<grid, P::block_threads, 0, s>>>(
            op, row_ptr<Off>(a), a->idx, plan_bound<Off>(plan), order, rank, a->nrows, d_ticket,
            window);
}

/* Both triangles and both orders of one operation: ordered != 0 takes the level order
 * (the plan's d_order and d_rank), else the natural one. */
template <typename Op>
sp_status_t soft_run(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan, bool ordered,
                     const Op &op, const sp_csr_t *a, unsigned long long *d_ticket, unsigned grid,
                     unsigned long long window)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    bool w = plan->warp_per_row != 0;
    if (plan->upper && ordered)
        soft_launch<Op, true, true>(env, w, grid, op, a, plan, d_ticket, window);
    else if (plan->upper)
        soft_launch<Op, true, false>(env, w, grid, op, a, plan, d_ticket, window);
    else if (ordered)
        soft_launch<Op, false, true>(env, w, grid, op, a, plan, d_ticket, window);
    else
        soft_launch<Op, false, false>(env, w, grid, op, a, plan, d_ticket, window);
    SP_CUDA_LAUNCHED("sptrsv soft kernel");
done:
    return st;
}

template <typename Op>
sp_status_t grid_of(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan, bool ordered,
                    int64_t want_warps, unsigned *grid)
{
    bool w = plan->warp_per_row != 0;
    const void *k = plan->upper ? (ordered ? kernel_of<Op, true, true>(w) : kernel_of<Op, true, false>(w))
                                : (ordered ? kernel_of<Op, false, true>(w) : kernel_of<Op, false, false>(w));
    return soft_grid(env, k, w, plan->n, want_warps, grid);
}

/* Warps the soft solve wants (soft_grid, which raises it to the per-SM floor): twice what
 * the widest level needs in the level order. In the natural order 0 (every resident warp):
 * there the rows in flight must span a level from its first row to its last, which can be
 * most of the matrix (a 3D grid's level crosses every plane), whatever its width. */
int64_t solve_warps(const sp_gpu_sptrsv_plan_t *plan)
{
    int64_t widest = 0;
    if (!plan->ordered) return 0;
    for (int64_t l = 0; l < plan->nlevels; l++) {
        int64_t w = plan->h_level_ptr[l + 1] - plan->h_level_ptr[l];
        if (w > widest) widest = w;
    }
    return 2 * units_of(widest, plan->warp_per_row != 0);
}

/* rank[order[i]] = i. */
__global__ void rank_kernel(const int32_t *__restrict__ order, int64_t n, int32_t *__restrict__ rank)
{
    int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    if (i < n) rank[order[i]] = (int32_t)i;
}

} /* namespace */

sp_status_t sp__gpu_sptrsv_soft_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    if (plan->ordered) {
        SP_TRY(env->alloc(env->self, (void **)&plan->d_rank, (size_t)plan->n * sizeof(int32_t)));
        rank_kernel<<<(unsigned)ceil_div(plan->n, P::block_threads), P::block_threads, 0, s>>>(
            plan->d_order, plan->n, plan->d_rank);
        SP_CUDA_LAUNCHED("sptrsv rank kernel");
    }
    SP_TRY(env->alloc(env->self, (void **)&plan->d_ticket, sizeof(unsigned long long)));
    SP_CUDA_TRY(cudaMemsetAsync(plan->d_ticket, 0, sizeof(unsigned long long), s));
    if (sp__gpu_sptrsv_value_alg(plan->alg)) {
        SP_TRY(sp__gpu_sptrsv_value_grid(env, plan));
        goto done;
    }
    SP_TRY(env->alloc(env->self, (void **)&plan->d_flags, (size_t)plan->n * sizeof(uint32_t)));
    SP_CUDA_TRY(cudaMemsetAsync(plan->d_flags, 0, (size_t)plan->n * sizeof(uint32_t), s));
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        if (plan->d_bound64)
            st = grid_of<solve_op<T, int64_t>>(env, plan, plan->ordered != 0, solve_warps(plan),
                                               &plan->grid);
        else
            st = grid_of<solve_op<T, int32_t>>(env, plan, plan->ordered != 0, solve_warps(plan),
                                               &plan->grid);
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
    if (sp__gpu_sptrsv_value_alg(plan->alg))
        return sp__gpu_sptrsv_value_solve(env, plan, a, alpha, d_b, d_x);
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        by_offset(a, [&](auto otag) {
            using Off = decltype(otag);
            solve_op<T, Off> op = {plan_bound<Off>(plan), static_cast<const T *>(a->val),
                                   static_cast<const T *>(d_b), static_cast<T *>(d_x),
                                   *static_cast<const T *>(alpha), plan->upper != 0,
                                   plan->unit_diag != 0, plan->d_flags, 0u};
            st = soft_run(env, plan, plan->ordered != 0, op, a, plan->d_ticket, plan->grid,
                          plan->window);
        });
    });
    return st;
}
