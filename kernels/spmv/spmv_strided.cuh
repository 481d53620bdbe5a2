/* The dot product of one padded, column-major row with x, shared by ELL (stride nrows)
 * and SELL-C-sigma (stride C): the inner loop whose speed is the SpMV's. Header-only,
 * included by spmv_ell.cu and spmv_sell.cu. */
#ifndef SP_SPMV_STRIDED_CUH
#define SP_SPMV_STRIDED_CUH

#include "spmv_common.cuh"

namespace spmv {

/* sum over slots k < count of val[k * stride] * x[col[k * stride]], padding (column < 0)
 * skipped, in slot order. Slots are taken U at a time: the batch's column and value loads
 * are all issued before the first x gather, so each thread keeps 2U independent streaming
 * loads and then U gathers in flight instead of one dependent chain per slot (the guard on
 * k + u is uniform across a warp whose rows share count). col and val are read once, so
 * they go through the streaming path (evict-first) and leave L2 to x. The stride is
 * applied to pointers, so k * stride never overflows an int. */
template <int U, typename T>
__device__ __forceinline__ T strided_row_sum(const int32_t *col, const T *val, int64_t stride,
                                             int64_t count, const T *x)
{
    T sum = T(0);
    for (int64_t k = 0; k < count; k += U) {
        int32_t c[U];
        T v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            c[u] = -1;
            v[u] = T(0);
            if (k + u < count) {
                c[u] = __ldcs(col + u * stride);
                v[u] = __ldcs(val + u * stride);
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            if (c[u] >= 0) sum += v[u] * load_x(x, c[u]);
        col += U * stride;
        val += U * stride;
    }
    return sum;
}

} /* namespace spmv */

#endif /* SP_SPMV_STRIDED_CUH */
