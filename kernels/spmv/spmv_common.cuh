/* Building blocks shared by the SpMV kernels (kernels/spmv/): value-type dispatch, the
 * checks every SpMV entry point makes, x through the read-only path, the y update that
 * never reads y when beta == 0, sub-warp sums and grid sizing. Header-only, all static or
 * inline (no separable compilation). */
#ifndef SP_SPMV_COMMON_CUH
#define SP_SPMV_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#include "prim/prim_common.cuh"
#include "sp_kernels.h"

namespace spmv {

/* Calls f with a value of the C type of t: double for SP_R_64F, float otherwise (the
 * caller has checked t with check_call). Kernels are templates over that type. */
template <typename F>
static inline void by_value(sp_value_type_t t, F f)
{
    if (t == SP_R_64F)
        f(double(0));
    else
        f(float(0));
}

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

/* Sum over aligned groups of W lanes (W a power of two <= 32), in every lane of the
 * group. All 32 lanes of the warp must call it. */
template <int W, typename T>
__device__ __forceinline__ T subwarp_sum(T v)
{
#pragma unroll
    for (int d = W / 2; d > 0; d >>= 1) v += __shfl_xor_sync(sp_prim::full_mask, v, d, W);
    return v;
}

/* Blocks of `block` threads for a grid-stride loop over n > 0 items, capped at
 * blocks_per_sm per SM (the loop strides over the rest). */
static inline unsigned grid_for(const sp_gpu_env_t *env, int64_t n, int block,
                                int blocks_per_sm)
{
    int64_t cap = (int64_t)(env->sm_count > 0 ? env->sm_count : 1) * blocks_per_sm;
    int64_t need = (n + block - 1) / block;
    return (unsigned)(need < cap ? need : cap);
}

} /* namespace spmv */

#endif /* SP_SPMV_COMMON_CUH */
