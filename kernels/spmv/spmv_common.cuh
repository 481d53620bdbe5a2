/* Building blocks shared by the SpMV kernels (kernels/spmv/): the checks every SpMV entry
 * point makes, x through the read-only path, the y update that never reads y when
 * beta == 0, sub-warp sums, the carry fix-up; value-type dispatch and grid sizing come from
 * kernels/prim/kernel_util.cuh. Header-only, all static or inline (no separable
 * compilation). */
#ifndef SP_SPMV_COMMON_CUH
#define SP_SPMV_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#include "prim/kernel_util.cuh"
#include "sp_kernels.h"

namespace spmv {

using sp_prim::by_value; /* kernels/prim/kernel_util.cuh */
using sp_prim::grid_for;

/* Past every row (column) end of pointers of type Off (32- or 64-bit offsets, issue 20):
 * the sentinel of a window of ends that runs past the last row. */
__device__ __forceinline__ int32_t past_end(int32_t) { return INT32_MAX; }
__device__ __forceinline__ int64_t past_end(int64_t) { return INT64_MAX; }

/* The host scalar (alpha or beta) at p, of A's value type. */
template <typename T>
static inline T host_value(const void *p)
{
    return *static_cast<const T *>(p);
}

/* The checks every SpMV entry point makes before touching the device: an environment,
 * host alpha and beta, values of a real type, 32-bit sizes, and vectors wherever they
 * have entries. `what` names the call in the message. */
static inline sp_status_t check_call(const char *what, const sp_gpu_env_t *env,
                                     sp_value_type_t t, int64_t nrows, int64_t ncols,
                                     const void *alpha, const void *d_x, const void *beta,
                                     const void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && alpha != NULL && beta != NULL, "%s: NULL argument", what);
    SP_CHECK_ARG(t == SP_R_32F || t == SP_R_64F, "%s: matrix has no values (value type %d)",
                 what, (int)t);
    SP_CHECK_ARG(nrows >= 0 && ncols >= 0, "%s: negative size %lld x %lld", what,
                 (long long)nrows, (long long)ncols);
    if (nrows > INT32_MAX || ncols > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: %lld x %lld exceeds 32-bit indices", what,
                (long long)nrows, (long long)ncols);
    SP_CHECK_ARG(ncols == 0 || d_x != NULL, "%s: x is NULL for %lld columns", what,
                 (long long)ncols);
    SP_CHECK_ARG(nrows == 0 || d_y != NULL, "%s: y is NULL for %lld rows", what,
                 (long long)nrows);
done:
    return st;
}

/* a * b rounded once, never fused into a later add (the same bits as a product stored by
 * one kernel and added by another). */
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

/* x[j] through the read-only (non-coherent) cache: x is never written by an SpMV. */
template <typename T>
__device__ __forceinline__ T load_x(const T *x, int64_t j)
{
    return __ldg(x + j);
}

/* y[i] = alpha * sum + beta * y[i], in T; beta == 0 stores alpha * sum without reading
 * y[i], so NaN or garbage in y does not leak. */
template <typename T>
__device__ __forceinline__ void y_update(T *y, int64_t i, T alpha, T sum, T beta)
{
    T v = alpha * sum;
    if (beta != T(0)) v += beta * y[i];
    y[i] = v;
}

/* *p += v in global memory as a reduction (PTX red: no value comes back, so the SM does
 * not wait on the L2), for the kernels that add into y with atomics. */
__device__ __forceinline__ void red_add(float *p, float v)
{
    asm volatile("red.global.add.f32 [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "f"(v)
                 : "memory");
}
__device__ __forceinline__ void red_add(double *p, double v)
{
    asm volatile("red.global.add.f64 [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "d"(v)
                 : "memory");
}

/* Sum over aligned groups of W lanes (W a power of two <= 32), in every lane of the
 * group. All 32 lanes of the warp must call it. */
template <int W, typename T>
__device__ __forceinline__ T subwarp_sum(T v)
{
#pragma unroll
    for (int d = W / 2; d > 0; d >>= 1) v += __shfl_xor_sync(sp_prim::full_mask, v, d, W);
    return v;
}

/* Inclusive segmented scan over the warp of (*flag, *v), flag marking a segment start
 * (or, in block_segmented_exclusive_scan, an end inside the thread): afterwards *v is the
 * sum from the last flagged lane at or before this one, *flag whether there is one. All
 * 32 lanes must call it. */
template <typename T>
__device__ __forceinline__ void warp_segmented_scan(bool *flag, T *v)
{
    int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T u = __shfl_up_sync(sp_prim::full_mask, *v, d);
        bool uf = __shfl_up_sync(sp_prim::full_mask, (int)*flag, d) != 0;
        if (lane >= d) {
            if (!*flag) *v += u;
            *flag = *flag || uf;
        }
    }
}

/* Inclusive sum over runs of equal adjacent keys in the warp: the last lane of each run
 * gets its run's sum and *is_tail set. Used where entries are (mostly) grouped by row, so
 * one atomic per run replaces one per entry. All 32 lanes must call it. */
template <typename T>
__device__ __forceinline__ T warp_run_sum(int32_t key, T v, bool *is_tail)
{
    int lane = threadIdx.x & 31;
    int32_t prev = __shfl_up_sync(sp_prim::full_mask, key, 1);
    int32_t next = __shfl_down_sync(sp_prim::full_mask, key, 1);
    bool head = lane == 0 || prev != key;
    warp_segmented_scan(&head, &v);
    *is_tail = lane == 31 || next != key;
    return v;
}

/* Exclusive segmented scan over the BLOCK threads of a block, one (flag, v) per thread:
 * the result for thread i is the sum of v over threads h..i-1, where h is the last thread
 * before i with flag set (thread 0 if none). A thread sets flag when a segment
 * (a row) ends inside it and v is then the sum after its last segment end, so the result
 * is the part of the row running into thread i that earlier threads hold. s_flag and s_v:
 * BLOCK/32 elements of shared memory. Contains __syncthreads: call from all threads. */
template <int BLOCK, typename T>
__device__ __forceinline__ T block_segmented_exclusive_scan(bool flag, T v, int *s_flag, T *s_v)
{
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "whole warps, at most 32 of them");
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    bool f = flag;
    T s = v;
    warp_segmented_scan(&f, &s);
    if (lane == 31) {
        s_flag[warp] = f;
        s_v[warp] = s;
    }
    /* exclusive within the warp: the inclusive value of the lane before */
    T ex = __shfl_up_sync(sp_prim::full_mask, s, 1);
    bool exf = __shfl_up_sync(sp_prim::full_mask, (int)f, 1) != 0;
    if (lane == 0) {
        ex = T(0);
        exf = false;
    }
    __syncthreads();
    T prefix = T(0);
    for (int w = 0; w < warp; w++) prefix = s_flag[w] ? s_v[w] : prefix + s_v[w];
    __syncthreads(); /* s_flag and s_v may be reused after the call */
    return exf ? ex : prefix + ex;
}

/* Carry-outs of rows that cross tile boundaries (CSR merge, COO segmented): per tile the
 * row its tail belongs to (-1: none) and that row's partial sum, always stored as double
 * slots so one plan size serves both value types. */
static inline size_t carry_bytes(int64_t ntiles)
{
    return sp_prim::align_up((size_t)ntiles * sizeof(int32_t)) +
           sp_prim::align_up((size_t)ntiles * sizeof(double));
}
template <typename T>
static inline void carry_arrays(void *d_temp, int64_t ntiles, int32_t **rows, T **vals)
{
    *rows = static_cast<int32_t *>(d_temp);
    *vals = reinterpret_cast<T *>(static_cast<char *>(d_temp) +
                                  sp_prim::align_up((size_t)ntiles * sizeof(int32_t)));
}

/* y[carry_row[t]] += alpha * carry_val[t] for the n carries, after the tile kernel has
 * completed (and applied beta to) every row: runs of equal rows are summed in the warp
 * first, so a row spanning many tiles costs one atomic per warp, not one per tile. */
template <int BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK)
carry_fixup_kernel(const int32_t *carry_row, const T *carry_val, int64_t n, T alpha, T *y)
{
    int lane = threadIdx.x & 31;
    for (int64_t base = (int64_t)blockIdx.x * BLOCK + (threadIdx.x & ~31); base < n;
         base += (int64_t)gridDim.x * BLOCK) {
        int64_t t = base + lane;
        int32_t row = t < n ? carry_row[t] : -1;
        T v = t < n ? carry_val[t] : T(0);
        bool tail = false;
        T sum = warp_run_sum(row, v, &tail);
        if (tail && row >= 0) atomicAdd(y + row, alpha * sum);
    }
}

/* Merge path (Merrill & Garland 2016): at diagonal d of the merge of the row ends
 * row_end(0..nrows-1) with the entry indices b0 + 0..nnz-1, the number of row ends
 * consumed (the entries consumed are d minus that). A row end equal to an entry index
 * comes first, so a row ends before the next row's first entry. I: the index type (int
 * inside a tile, int64_t across the matrix). */
template <typename I, typename RowEnd>
__device__ __forceinline__ I merge_path_rows(I d, RowEnd row_end, I nrows, I nnz, int64_t b0)
{
    I lo = d > nnz ? d - nnz : I(0), hi = d < nrows ? d : nrows;
    while (lo < hi) {
        I mid = lo + (hi - lo) / 2;
        if ((int64_t)row_end(mid) <= b0 + (int64_t)(d - mid - 1))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Queues carry_fixup_kernel for n carries with P's fixup_block_threads and
 * fixup_blocks_per_sm (the policy of the tile kernel that left them); n > 0. */
template <typename P, typename T>
static inline sp_status_t launch_carry_fixup(const sp_gpu_env_t *env, const int32_t *carry_row,
                                             const T *carry_val, int64_t n, T alpha, T *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CUDA_LAUNCH("carry_fixup_kernel",
                   sp_prim::launch(carry_fixup_kernel<P::fixup_block_threads, T>,
                                   grid_for(env, n, P::fixup_block_threads,
                                            P::fixup_blocks_per_sm),
                                   P::fixup_block_threads, env->stream, carry_row, carry_val,
                                   n, alpha, y));
done:
    return st;
}

/* The last i in [lo, hi] with ptr[i] <= e: the row (or column) holding entry e, given
 * pointers ptr where empty rows share their start with the next (binary search; lo when
 * none passes). CSR split's and CSC's chunk partitions and the CSC plan's symmetry check. */
template <typename Off, typename I>
__device__ __forceinline__ I last_start_at_or_before(const Off *ptr, I lo, I hi, int64_t e)
{
    while (lo < hi) {
        I mid = hi - (hi - lo) / 2;
        if ((int64_t)__ldg(ptr + mid) <= e)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

} /* namespace spmv */

#endif /* SP_SPMV_COMMON_CUH */
