/* COO SpMV on the GPU (PMPP, sparse-format chapter; Bell & Garland 2009). Atomic: y = beta*y,
 * then each warp takes 32 consecutive entries, sums runs of one row by a shuffle scan and
 * adds each run with one atomic. Segmented (row-sorted entries, no atomics in the main
 * pass): each block reduces a tile of entries staged in shared memory, each thread a run
 * of them, a block-wide segmented scan carrying partial rows between threads; rows ending
 * in the tile are written once (beta applied there, and to the empty rows the tile passes
 * over, so no beta pass runs first), a row running past the tile leaves a carry-out that a
 * second kernel adds (the reduce-by-key of Merrill's CUB); one tile needs no second. */
#include "spmv_common.cuh"
#include "spmv_policy_coo.h"

namespace {

using A = sp_spmv_coo_atomic_policy;
using S = sp_spmv_coo_segmented_policy;

/* y[row[e]] += alpha * val[e] * x[col[e]] for every entry, any order. */
template <typename T>
__global__ void __launch_bounds__(A::block_threads)
accumulate_kernel(const int32_t *row, const int32_t *col, const T *val, int64_t nnz,
                  const T *x, T alpha, T *y)
{
    int lane = threadIdx.x & 31;
    for (int64_t base = (int64_t)blockIdx.x * A::block_threads + (threadIdx.x & ~31);
         base < nnz; base += (int64_t)gridDim.x * A::block_threads) {
        int64_t e = base + lane;
        int32_t r = -1;
        T v = T(0);
        if (e < nnz) {
            r = row[e];
            v = val[e] * spmv::load_x(x, col[e]);
        }
        bool tail = false;
        T sum = spmv::warp_run_sum(r, v, &tail);
        if (tail && r >= 0) atomicAdd(y + r, alpha * sum);
    }
}

/* Shared-memory slot of tile item q: one pad word per 32 items, so the blocked reads
 * (thread t reads items t*items_per_thread + k) hit distinct banks. */
__device__ __forceinline__ int padded(int q) { return q + (q >> 5); }

/* y[r] with beta applied: beta * y[r] (0 without reading y when beta is 0, y[r] when it is
 * 1), rounded before anything is added, as the separate beta pass (spmv_scale.cu) gives it. */
template <typename T>
__device__ __forceinline__ T scaled(const T *y, int64_t r, T beta)
{
    if (beta == T(0)) return T(0);
    if (beta == T(1)) return y[r];
    return spmv::mul_rn(beta, y[r]);
}

/* How segmented_kernel writes a row's sum v into y: SCALE, y[r] = beta y[r] + v (the tile
 * applies beta; no beta pass ran); PLAIN, y[r] += v (y scaled by the beta pass); ADD, a
 * reduction y[r] += v, for a tail added after another kernel wrote beta y (any entry order:
 * every run of one row, whole or a tile's part, is added on its own; no carries). */
enum { SEG_SCALE, SEG_PLAIN, SEG_ADD };

template <int MODE, typename T>
__device__ __forceinline__ void write_row(T *y, int64_t r, T beta, T v)
{
    if (MODE == SEG_ADD)
        spmv::red_add(y + r, v);
    else
        y[r] = (MODE == SEG_SCALE ? scaled(y, r, beta) : y[r]) + v;
}

/* y = beta y on rows lo .. hi - 1 (rows with no entries), by one thread. */
template <typename T>
__device__ __forceinline__ void scale_rows(T *y, int64_t lo, int64_t hi, T beta)
{
    for (int64_t r = lo; r < hi; r++) y[r] = scaled(y, r, beta);
}

/* y += alpha * A * x for tile blockIdx.x of the row-sorted entries (ADD: of entries in
 * any order, every write a reduction, no carry: below). SCALE: the tile also applies
 * beta, so no beta pass runs before it: each row with entries gets beta y + its sum from
 * the tile that writes it, and each row without entries is scaled by the tile whose
 * entries pass over it (the gap before its first entry's row and between two of its rows;
 * the last tile also the rows after the last entry's). Without SCALE, y was already
 * scaled by the beta pass. Tile items past nnz repeat the tile's last row with product 0,
 * so they only extend the last run. Each row with entries is written here by the one tile
 * holding its last entry; every earlier tile it crosses leaves its part as the tile's
 * carry-out (added after, by the fix-up). ADD adds each tile's part of a row with one
 * reduction instead (carry_row and carry_val unused): a dense row of the padded formats'
 * tails costs a reduction a tile, not one a warp on one address. */
template <int MODE, typename T>
__global__ void __launch_bounds__(S::block_threads)
segmented_kernel(const int32_t *row, const int32_t *col, const T *val, int64_t nnz,
                 int64_t nrows, const T *x, T alpha, T beta, T *y, int32_t *carry_row,
                 T *carry_val)
{
    constexpr int B = S::block_threads, I = S::items_per_thread;
    constexpr int slots = S::tile_items + S::tile_items / 32;
    __shared__ int32_t s_row[slots];
    __shared__ T s_prod[slots];
    __shared__ int s_flag[B / 32];
    __shared__ T s_v[B / 32];
    int tid = threadIdx.x;
    int64_t base = (int64_t)blockIdx.x * S::tile_items;
    int64_t end = min(base + (int64_t)S::tile_items, nnz);
    int32_t last_row = row[end - 1];

    /* striped (coalesced) loads, all issued before the gathers from x */
    int32_t rr[I], cc[I];
    T vv[I];
#pragma unroll
    for (int k = 0; k < I; k++) {
        int64_t e = base + k * B + tid;
        rr[k] = last_row;
        cc[k] = 0;
        vv[k] = T(0);
        if (e < end) {
            rr[k] = row[e];
            cc[k] = col[e];
            vv[k] = val[e];
        }
    }
#pragma unroll
    for (int k = 0; k < I; k++) {
        int q = k * B + tid;
        s_row[padded(q)] = rr[k];
        s_prod[padded(q)] = base + q < end ? vv[k] * spmv::load_x(x, cc[k]) : T(0);
    }
    __syncthreads();

    /* this thread's run: rows ending inside it are complete except the first, which
     * earlier threads may share (it gets the scan's carry-in) */
    int p0 = tid * I;
    int32_t prev = s_row[padded(p0 > 0 ? p0 - 1 : 0)];
    if (MODE == SEG_SCALE && beta != T(1)) { /* the rows without entries this run passes */
        int32_t before = p0 > 0 ? prev : base > 0 ? row[base - 1] : -1;
#pragma unroll
        for (int k = 0; k < I; k++) {
            int32_t r = s_row[padded(p0 + k)];
            if (r > before + 1) scale_rows(y, (int64_t)before + 1, (int64_t)r, beta);
            before = r;
        }
        if (end >= nnz) /* the last tile: the rows after the last entry's, the block's */
            for (int64_t r = (int64_t)last_row + 1 + tid; r < nrows; r += B)
                y[r] = scaled(y, r, beta);
    }
    T run = T(0), first_val = T(0);
    int32_t first_row = -1;
    bool ended = false;
#pragma unroll
    for (int k = 0; k < I; k++) {
        int32_t r = s_row[padded(p0 + k)];
        if (r != prev) {
            if (!ended) {
                ended = true;
                first_row = prev;
                first_val = run;
            } else {
                write_row<MODE>(y, prev, beta, alpha * run);
            }
            run = T(0);
        }
        run += s_prod[padded(p0 + k)];
        prev = r;
    }
    T carry_in = spmv::block_segmented_exclusive_scan<B>(ended, run, s_flag, s_v);
    if (ended) write_row<MODE>(y, first_row, beta, alpha * (first_val + carry_in));
    if (tid == B - 1) {
        T total = ended ? run : carry_in + run;
        if (MODE == SEG_ADD) {
            write_row<MODE>(y, last_row, beta, alpha * total); /* the tile's part */
        } else {
            bool complete = end >= nnz || row[end] != last_row;
            if (complete) write_row<MODE>(y, last_row, beta, alpha * total);
            carry_row[blockIdx.x] = complete ? -1 : last_row;
            carry_val[blockIdx.x] = complete ? T(0) : total;
        }
    }
}

/* The checks every COO call makes. */
sp_status_t check_coo(const char *what, const sp_gpu_env_t *env, const sp_triplets_t *a,
                      const void *alpha, const void *d_x, const void *beta, const void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(a != NULL, "%s: NULL matrix", what);
    SP_TRY(spmv::check_call(what, env, a->value_type, a->nrows, a->ncols, alpha, d_x, beta, d_y));
    SP_CHECK_ARG(a->nnz >= 0, "%s: negative entry count %lld", what, (long long)a->nnz);
    if (a->nnz > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: %lld entries exceed 32-bit indices", what,
                (long long)a->nnz);
    SP_CHECK_ARG(a->nnz == 0 || (a->row != NULL && a->col != NULL && a->val != NULL),
                 "%s: NULL arrays for %lld entries", what, (long long)a->nnz);
done:
    return st;
}

/* y += alpha * A * x by accumulate_kernel (a->nnz > 0, arguments checked). */
template <typename T>
sp_status_t launch_accumulate(const sp_gpu_env_t *env, const sp_triplets_t *a, T alpha,
                              const void *d_x, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = spmv::grid_for(env, a->nnz, A::block_threads, A::blocks_per_sm);
    SP_CUDA_LAUNCH("accumulate_kernel",
                   sp_prim::launch(accumulate_kernel<T>, grid, A::block_threads, env->stream,
                                   a->row, a->col, static_cast<const T *>(a->val), a->nnz,
                                   static_cast<const T *>(d_x), alpha, static_cast<T *>(d_y)));
done:
    return st;
}

/* y = alpha * A * x + beta * y by segmented_kernel and, past one tile, the carry fix-up
 * (a->nnz > 0). The tiles apply beta themselves (no beta pass) unless the matrix has far
 * more rows than entries (sp_spmv_coo_segmented_policy::scale_in_tiles_rows_per_entry),
 * where the threads would walk long runs of empty rows alone. */
template <typename T>
sp_status_t launch_segmented(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                             const sp_triplets_t *a, T alpha, T beta, const void *d_x,
                             void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t ntiles = (a->nnz + S::tile_items - 1) / S::tile_items;
    bool in_tiles = a->nrows <= S::scale_in_tiles_rows_per_entry * a->nnz + S::tile_items;
    int32_t *d_carry_row = NULL;
    T *d_carry_val = NULL;
    spmv::carry_arrays(plan->d_temp, ntiles, &d_carry_row, &d_carry_val);
    if (!in_tiles) SP_TRY(sp__gpu_scale(env, a->value_type, a->nrows, &beta, d_y));
    SP_CUDA_LAUNCH("segmented_kernel",
                   sp_prim::launch(in_tiles ? segmented_kernel<SEG_SCALE, T>
                                            : segmented_kernel<SEG_PLAIN, T>,
                                   (unsigned)ntiles, S::block_threads, env->stream, a->row,
                                   a->col, static_cast<const T *>(a->val), a->nnz, a->nrows,
                                   static_cast<const T *>(d_x), alpha, beta,
                                   static_cast<T *>(d_y), d_carry_row, d_carry_val));
    if (ntiles > 1) /* one tile holds every row's last entry: no carry */
        SP_TRY(spmv::launch_carry_fixup<S>(env, d_carry_row, d_carry_val, ntiles, alpha,
                                            static_cast<T *>(d_y)));
done:
    return st;
}

/* y += alpha * A * x by segmented_kernel<SEG_ADD>, one launch, a block a tile (a->nnz > 0,
 * arguments checked). */
template <typename T>
sp_status_t launch_tail(const sp_gpu_env_t *env, const sp_triplets_t *a, T alpha,
                        const void *d_x, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t ntiles = (a->nnz + S::tile_items - 1) / S::tile_items;
    SP_CUDA_LAUNCH("segmented_kernel (add)",
                   sp_prim::launch(segmented_kernel<SEG_ADD, T>, (unsigned)ntiles,
                                   S::block_threads, env->stream, a->row, a->col,
                                   static_cast<const T *>(a->val), a->nnz, a->nrows,
                                   static_cast<const T *>(d_x), alpha, T(1),
                                   static_cast<T *>(d_y), (int32_t *)NULL, (T *)NULL));
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_spmv_coo_accumulate(const sp_gpu_env_t *env,
                                                   const sp_triplets_t *a, const void *alpha,
                                                   const void *d_x, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(check_coo("coo accumulate", env, a, alpha, d_x, alpha, d_y));
    if (a->nnz == 0) goto done;
    spmv::by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        T al = spmv::host_value<T>(alpha);
        if (a->row_max > 0 && a->row_max < S::tail_min_row) /* short rows: spmv_policy_coo.h */
            st = launch_accumulate<T>(env, a, al, d_x, d_y);
        else
            st = launch_tail<T>(env, a, al, d_x, d_y);
    });
done:
    return st;
}

/* y = beta * y first (every row, empty ones included, exactly once), then the entries
 * are added; the segmented pass writes rows without atomics, only carry-outs of rows
 * crossing tiles are added by atomics, one per warp-run, in the fix-up. */
extern "C" sp_status_t sp__gpu_spmv_coo(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                                        const sp_triplets_t *a, const void *alpha,
                                        const void *d_x, const void *beta, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t ntiles = 0;
    SP_TRY(check_coo("coo spmv", env, a, alpha, d_x, beta, d_y));
    SP_CHECK_ARG(plan != NULL && plan->format == SP_FORMAT_COO &&
                     (plan->alg == SP_SPMV_ALG_COO_ATOMIC ||
                      plan->alg == SP_SPMV_ALG_COO_SEGMENTED),
                 "coo spmv: not a COO plan");
    ntiles = (a->nnz + S::tile_items - 1) / S::tile_items;
    if (plan->alg == SP_SPMV_ALG_COO_SEGMENTED && ntiles > 0)
        SP_CHECK_ARG(plan->d_temp != NULL && plan->temp_bytes >= spmv::carry_bytes(ntiles),
                     "coo spmv: plan has %zu scratch bytes, %lld entries need %zu (plan made "
                     "for another matrix?)",
                     plan->temp_bytes, (long long)a->nnz, spmv::carry_bytes(ntiles));
    if (a->nnz == 0 || plan->alg != SP_SPMV_ALG_COO_SEGMENTED)
        SP_TRY(sp__gpu_scale(env, a->value_type, a->nrows, beta, d_y));
    if (a->nnz == 0) goto done;
    spmv::by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        T al = spmv::host_value<T>(alpha);
        if (plan->alg == SP_SPMV_ALG_COO_SEGMENTED)
            st = launch_segmented<T>(env, plan, a, al, spmv::host_value<T>(beta), d_x, d_y);
        else
            st = launch_accumulate<T>(env, a, al, d_x, d_y);
    });
done:
    return st;
}
