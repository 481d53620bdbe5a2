/* Long rows cut into pieces of pe entries (the plan's choice), a warp each, shared by the CSR
 * kernels that treat short and long rows apart (binned, adaptive): the piece kernel, the
 * plan's piece tables and the block schedule that interleaves the kinds of blocks of one
 * launch. P gives long_lane_entries, plan_block_threads and
 * plan_blocks_per_sm. Tables, in the plan's d_aux: long_rows[nlong] (row numbers),
 * first_piece[nlong + 1] (the last entry the piece count), piece_row[pieces] (the index in
 * long_rows of each piece's row). d_temp: a counter per long row (0 between calls), then a
 * partial sum (a double slot) per piece. Header-only, static or inline. */
#ifndef SP_SPMV_LONG_ROWS_CUH
#define SP_SPMV_LONG_ROWS_CUH

#include "prim/kernel_util.cuh"
#include "spmv_common.cuh"

namespace spmv {

/* The partial sums in the long rows' d_temp: after the nlong counters (long_rows_temp). */
__host__ __device__ inline size_t long_partials_offset(int64_t nlong)
{
    return sp_prim::align_up((size_t)nlong * 4);
}

/* The row of pieces f0 .. f1 - 1 from their partial sums, added in piece order (so the
 * result does not depend on timing), one warp (all 32 lanes). */
template <typename T>
__device__ __forceinline__ void finish_row(const T *partial, int32_t f0, int32_t f1, int32_t r,
                                           T alpha, T beta, T *y)
{
    int lane = threadIdx.x & 31;
    T total = T(0);
    for (int32_t q = f0 + lane; q < f1; q += 32) total += __ldcg(partial + q);
    total = subwarp_sum<32>(total);
    if (lane == 0) y_update(y, r, alpha, total, beta);
}

/* Piece p of the long rows, one warp (all 32 lanes call it with the same p): the sum of
 * its entries, long_lane_entries gathers in flight per lane; a row of one piece is
 * written at once, otherwise the sum goes to partial[p]. Then, when deferred, a later
 * kernel of the same stream finishes the row (finish_row, no fence); otherwise the warp
 * that brings the row's counter to its piece count finishes it (finish_row) and sets the
 * counter back to 0 for the next call, at the price of a fence per piece (on Kronecker 22
 * the fences were 1.5% of all L2 requests, and the L2's request rate is the limit there). */
template <typename P, typename T>
__device__ __forceinline__ void long_piece(const int32_t *ptr, const int32_t *idx, const T *val,
                                           const int32_t *long_rows, const int32_t *first_piece,
                                           const int32_t *piece_row, int64_t p, int32_t pe,
                                           bool deferred, int32_t *counter, T *partial,
                                           const T *x, T alpha, T beta, T *y)
{
    constexpr int K = P::long_lane_entries;
    int lane = threadIdx.x & 31;
    int32_t k = __ldg(piece_row + p);
    int32_t r = __ldg(long_rows + k);
    int32_t f0 = __ldg(first_piece + k), f1 = __ldg(first_piece + k + 1);
    int64_t start = (int64_t)__ldg(ptr + r) + (p - f0) * (int64_t)pe;
    int64_t end = min(start + pe, (int64_t)__ldg(ptr + r + 1));
    T sum = T(0);
    /* lanes walk from the multiple of 32 entries below start, so a warp's loads fill whole
     * L2 lines; entries before start (another piece's) are skipped */
    for (int64_t base = (start & ~(int64_t)31) + lane; base < end; base += 32 * K) {
        int32_t c[K];
        T v[K];
#pragma unroll
        for (int u = 0; u < K; u++) {
            int64_t e = base + u * 32;
            c[u] = 0;
            v[u] = T(0);
            if (e >= start && e < end) {
                c[u] = __ldcs(idx + e);
                v[u] = __ldcs(val + e);
            }
        }
#pragma unroll
        for (int u = 0; u < K; u++) {
            int64_t e = base + u * 32;
            if (e >= start && e < end) sum += v[u] * load_x(x, c[u]);
        }
    }
    sum = subwarp_sum<32>(sum);
    if (f1 - f0 == 1) {
        if (lane == 0) y_update(y, r, alpha, sum, beta);
        return;
    }
    if (deferred) {
        if (lane == 0) partial[p] = sum;
        return;
    }
    int last = 0;
    if (lane == 0) {
        partial[p] = sum;
        __threadfence(); /* the partial is visible before the count says so */
        last = atomicAdd(counter + k, 1) == f1 - f0 - 1;
    }
    if (!__shfl_sync(sp_prim::full_mask, last, 0)) return;
    __threadfence();
    finish_row(partial, f0, f1, r, alpha, beta, y);
    if (lane == 0) counter[k] = 0;
}

/* pieces[k] = pieces of long row long_rows[k]. */
template <typename P>
__global__ void __launch_bounds__(P::plan_block_threads)
piece_count_kernel(const int32_t *ptr, const int32_t *long_rows, int64_t nlong, int32_t pe,
                   int32_t *pieces)
{
    for (int64_t k = (int64_t)blockIdx.x * P::plan_block_threads + threadIdx.x; k < nlong;
         k += (int64_t)gridDim.x * P::plan_block_threads) {
        int32_t r = long_rows[k];
        pieces[k] = (ptr[r + 1] - ptr[r] + pe - 1) / pe;
    }
}

/* piece_row[q] = k for q in [first_piece[k], first_piece[k + 1]). */
template <typename P>
__global__ void __launch_bounds__(P::plan_block_threads)
piece_row_kernel(const int32_t *first_piece, int64_t nlong, int32_t *piece_row)
{
    for (int64_t k = (int64_t)blockIdx.x * P::plan_block_threads + threadIdx.x; k < nlong;
         k += (int64_t)gridDim.x * P::plan_block_threads)
        for (int32_t q = first_piece[k]; q < first_piece[k + 1]; q++) piece_row[q] = (int32_t)k;
}

template <typename P>
static inline unsigned plan_grid(const sp_gpu_env_t *env, int64_t n)
{
    return grid_for(env, n, P::plan_block_threads, P::plan_blocks_per_sm);
}

/* d_first = the first piece (of pe entries) of each of the nlong rows at d_long (nlong + 1
 * entries, the last the piece count, also in *npieces). */
template <typename P>
static inline sp_status_t count_pieces(const sp_gpu_env_t *env, const sp_csr_t *a,
                                       const int32_t *d_long, int64_t nlong, int32_t pe,
                                       int32_t *d_first, int64_t *npieces)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    void *d_temp = NULL;
    size_t bytes = 0;
    int32_t total = 0;
    *npieces = 0;
    if (nlong == 0) {
        SP_CUDA_TRY(cudaMemsetAsync(d_first, 0, sizeof *d_first, (cudaStream_t)env->stream));
        goto done;
    }
    piece_count_kernel<P><<<plan_grid<P>(env, nlong), P::plan_block_threads, 0,
                            (cudaStream_t)env->stream>>>(a->ptr, d_long, nlong, pe, d_first);
    SP_CUDA_LAUNCHED("piece_count_kernel");
    SP_TRY(sp__gpu_exclusive_scan_i32(d_first, d_first, nlong, d_first + nlong, NULL, &bytes,
                                      env->stream));
    SP_TRY(sp_prim::env_alloc(env, &d_temp, bytes));
    SP_TRY(sp__gpu_exclusive_scan_i32(d_first, d_first, nlong, d_first + nlong, d_temp, &bytes,
                                      env->stream));
    SP_TRY(sp_prim::to_host(env, &total, d_first + nlong, sizeof total));
    *npieces = total;
done:
    sp_prim::env_free(env, d_temp);
    return st;
}

/* Queues piece_row_kernel: piece_row from first_piece (both in d_aux), when there are
 * pieces. */
template <typename P>
static inline sp_status_t fill_piece_rows(const sp_gpu_env_t *env, const int32_t *first_piece,
                                          int64_t nlong, int64_t npieces, int32_t *piece_row)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (npieces == 0) goto done;
    piece_row_kernel<P><<<plan_grid<P>(env, nlong), P::plan_block_threads, 0,
                          (cudaStream_t)env->stream>>>(first_piece, nlong, piece_row);
    SP_CUDA_LAUNCHED("piece_row_kernel");
done:
    return st;
}

/* flags[r] = 1 when row r holds more than bound entries, else 0. */
template <typename P>
__global__ void __launch_bounds__(P::plan_block_threads)
long_flag_kernel(const int32_t *ptr, int64_t nrows, int64_t bound, int32_t *flags)
{
    for (int64_t r = (int64_t)blockIdx.x * P::plan_block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::plan_block_threads)
        flags[r] = ptr[r + 1] - ptr[r] > bound;
}

/* long_rows[index[r]] = r for the rows of more than bound entries (index: the exclusive
 * scan of long_flag_kernel's flags), in row order. */
template <typename P>
__global__ void __launch_bounds__(P::plan_block_threads)
long_list_kernel(const int32_t *ptr, int64_t nrows, int64_t bound, const int32_t *index,
                 int32_t *long_rows)
{
    for (int64_t r = (int64_t)blockIdx.x * P::plan_block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::plan_block_threads)
        if (ptr[r + 1] - ptr[r] > bound) long_rows[index[r]] = (int32_t)r;
}

/* The rows of a longer than bound, for the plans that take only those apart (CSR scalar
 * and vector): count_long_rows flags them, scans the flags in d_index (nrows + 1 ints of
 * the caller's; the last gets the count, also in *nlong), list_long_rows writes them in
 * order at d_long (nlong ints). */
template <typename P>
static inline sp_status_t count_long_rows(const sp_gpu_env_t *env, const sp_csr_t *a,
                                          int64_t bound, int32_t *d_index, int64_t *nlong)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    void *d_temp = NULL;
    size_t bytes = 0;
    int32_t total = 0;
    *nlong = 0;
    long_flag_kernel<P><<<plan_grid<P>(env, a->nrows), P::plan_block_threads, 0,
                          (cudaStream_t)env->stream>>>(a->ptr, a->nrows, bound, d_index);
    SP_CUDA_LAUNCHED("long_flag_kernel");
    SP_TRY(sp__gpu_exclusive_scan_i32(d_index, d_index, a->nrows, d_index + a->nrows, NULL,
                                      &bytes, env->stream));
    SP_TRY(sp_prim::env_alloc(env, &d_temp, bytes));
    SP_TRY(sp__gpu_exclusive_scan_i32(d_index, d_index, a->nrows, d_index + a->nrows, d_temp,
                                      &bytes, env->stream));
    SP_TRY(sp_prim::to_host(env, &total, d_index + a->nrows, sizeof total));
    *nlong = total;
done:
    sp_prim::env_free(env, d_temp);
    return st;
}

template <typename P>
static inline sp_status_t list_long_rows(const sp_gpu_env_t *env, const sp_csr_t *a,
                                         int64_t bound, const int32_t *d_index, int32_t *d_long)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    long_list_kernel<P><<<plan_grid<P>(env, a->nrows), P::plan_block_threads, 0,
                          (cudaStream_t)env->stream>>>(a->ptr, a->nrows, bound, d_index, d_long);
    SP_CUDA_LAUNCHED("long_list_kernel");
done:
    return st;
}

/* The per-call scratch of the long rows: counters (zeroed here) and partial sums. */
static inline sp_status_t long_rows_temp(const sp_gpu_env_t *env, int64_t nlong,
                                         int64_t npieces, sp_gpu_spmv_plan_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    p->temp_bytes = long_partials_offset(nlong) + (size_t)npieces * sizeof(double);
    SP_TRY(sp_prim::env_alloc(env, &p->d_temp, p->temp_bytes));
    if (nlong > 0)
        SP_CUDA_TRY(cudaMemsetAsync(p->d_temp, 0, (size_t)nlong * 4, (cudaStream_t)env->stream));
done:
    return st;
}

/* schedule[2 g], schedule[2 g + 1] = (kind, index of the block among its kind's blocks)
 * for the launch's blocks g: the blocks of kind b are due at (j + 1/2) / nblocks[b] of the
 * sweep and are taken in that order (ties to the lower kind), so that all kinds walk the
 * matrix together and share the L2 lines of x. */
static inline void interleave_schedule(int kinds, const int64_t *nblocks, int32_t *schedule)
{
    int64_t done[8] = {0}, total = 0;
    for (int b = 0; b < kinds; b++) total += nblocks[b];
    for (int64_t g = 0; g < total; g++) {
        int best = -1;
        for (int b = 0; b < kinds; b++) {
            if (done[b] == nblocks[b]) continue;
            /* (2 done[b] + 1) / nblocks[b] < (2 done[best] + 1) / nblocks[best] */
            if (best < 0 || (double)(2 * done[b] + 1) * (double)nblocks[best] <
                                (double)(2 * done[best] + 1) * (double)nblocks[b])
                best = b;
        }
        schedule[2 * g] = best;
        schedule[2 * g + 1] = (int32_t)done[best]++;
    }
}

/* Launches the one-kernel CSR plans (binned, adaptive): plan->param blocks of `threads`,
 * pick(T()) the kernel for A's value type T, called as
 * kernel(ptr, idx, val, aux, temp, x, alpha, beta, y). Returns the launch's error. */
template <int threads, typename Pick>
static inline cudaError_t launch_planned(Pick pick, const sp_gpu_env_t *env,
                                         const sp_gpu_spmv_plan_t *plan, const sp_csr_t *a,
                                         const void *alpha, const void *d_x, const void *beta,
                                         void *d_y)
{
    cudaError_t e = cudaSuccess;
    by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        e = sp_prim::launch(pick(tag), (unsigned)plan->param, threads, env->stream, a->ptr,
                            a->idx, static_cast<const T *>(a->val), plan->d_aux,
                            static_cast<char *>(plan->d_temp), static_cast<const T *>(d_x),
                            host_value<T>(alpha), host_value<T>(beta), static_cast<T *>(d_y));
    });
    return e;
}

} /* namespace spmv */

#endif /* SP_SPMV_LONG_ROWS_CUH */
