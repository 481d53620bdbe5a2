/* The dot product of one padded, column-major row with x, shared by ELL (stride nrows;
 * values or value-table codes) and SELL-C-sigma (stride C): the inner loop whose speed is
 * the SpMV's. Header-only, included by spmv_ell.cu and spmv_sell.cu. */
#ifndef SP_SPMV_STRIDED_CUH
#define SP_SPMV_STRIDED_CUH

#include "spmv_common.cuh"

namespace spmv {

/* Where a slot's value comes from: the value array (streamed), or, with ELL's value table
 * (sp_formats.h), a one-byte code streamed and looked up in the table (in shared memory)
 * only where the value is used, so a batch holds a byte a slot in registers, not a value.
 * Either gives the same value bits, so the sums below are the same. load(i) reads slot i's
 * raw_t, value() turns it into the value. */
template <typename T> struct slot_values {
    using raw_t = T;
    const T *val;
    __device__ __forceinline__ T load(int64_t i) const { return __ldcs(val + i); }
    __device__ __forceinline__ T value(T v) const { return v; }
    __device__ __forceinline__ void advance(int64_t n) { val += n; }
};
template <typename T> struct slot_codes {
    using raw_t = uint32_t;
    const uint8_t *code;
    const T *table;
    __device__ __forceinline__ uint32_t load(int64_t i) const { return __ldcs(code + i); }
    __device__ __forceinline__ T value(uint32_t c) const { return table[c]; }
    __device__ __forceinline__ void advance(int64_t n) { code += n; }
};

/* sum over slots k < count of v[k * stride] * x[col[k * stride]], padding (column < 0)
 * skipped, in slot order, the values from vals (a slot_values or slot_codes). Slots are
 * taken U at a time: the batch's column and value loads are all issued before the first x
 * gather, so each thread keeps 2U independent streaming loads and then U gathers in flight
 * instead of one dependent chain per slot (the guard on k + u is uniform across a warp
 * whose rows share count). col and val are read once, so they go through the streaming
 * path (evict-first) and leave L2 to x. The stride is applied to pointers, so k * stride
 * never overflows an int. */
template <int U, typename T, typename V>
__device__ __forceinline__ T strided_row_sum(const int32_t *col, V vals, int64_t stride,
                                             int64_t count, const T *x)
{
    T sum = T(0);
    for (int64_t k = 0; k < count; k += U) {
        int32_t c[U];
        typename V::raw_t v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            c[u] = -1;
            v[u] = 0;
            if (k + u < count) {
                c[u] = __ldcs(col + u * stride);
                v[u] = vals.load(u * stride);
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            if (c[u] >= 0) sum += vals.value(v[u]) * load_x(x, c[u]);
        col += U * stride;
        vals.advance(U * stride);
    }
    return sum;
}

/* The same over a value array. */
template <int U, typename T>
__device__ __forceinline__ T strided_row_sum(const int32_t *col, const T *val, int64_t stride,
                                             int64_t count, const T *x)
{
    return strided_row_sum<U>(col, slot_values<T>{val}, stride, count, x);
}

} /* namespace spmv */

#endif /* SP_SPMV_STRIDED_CUH */
