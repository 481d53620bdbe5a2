/* Building blocks of the vector kernels (kernels/vec/): the launch policy, device-side
 * coefficients, the grid-stride chunk loop and the deterministic two-pass sum (per-block
 * partials in fixed order, then one block adding them in a fixed tree); value-type dispatch
 * from kernels/prim/kernel_util.cuh. Header-only, all static or inline (no separable
 * compilation). */
#ifndef SP_VEC_COMMON_CUH
#define SP_VEC_COMMON_CUH

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "prim/kernel_util.cuh"
#include "sp_kernels_vec.h"

namespace vec {

/* Grid-stride kernels of block_threads threads, each taking `unroll` elements a stride
 * apart per step with all loads issued before any store (memory-level parallelism); at
 * most SP_GPU_VEC_MAX_BLOCKS blocks, a count that depends on n only, so reductions add in
 * the same order on every device. */
struct policy {
    static constexpr int block_threads = 256;
    static constexpr int unroll = 4;
    static constexpr int finish_threads = 256;
};
using P = policy;

using sp_prim::by_value; /* kernels/prim/kernel_util.cuh */

/* Blocks for n > 0 elements. */
static inline unsigned grid_for(int64_t n)
{
    int64_t need = (n + P::block_threads - 1) / P::block_threads;
    return (unsigned)(need < SP_GPU_VEC_MAX_BLOCKS ? need : SP_GPU_VEC_MAX_BLOCKS);
}

/* The checks every vector entry point makes: an environment, a real type, a length that
 * is not negative, and the named vector present wherever there are entries. */
static inline sp_status_t check_call(const char *what, const sp_gpu_env_t *env,
                                     sp_value_type_t t, int64_t n)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL, "%s: NULL environment", what);
    SP_CHECK_ARG(t == SP_R_32F || t == SP_R_64F, "%s: value type %d is not real", what, (int)t);
    SP_CHECK_ARG(n >= 0, "%s: negative length %lld", what, (long long)n);
done:
    return st;
}

/* sp__vec_coef_value on the device (same operations, same rounding). */
__device__ __forceinline__ double coef_value(const sp_vec_coef_t &c)
{
    double v = c.value;
    if (c.num) v *= *c.num;
    if (c.den) {
        double d = *c.den;
        v = d != 0.0 ? v / d : 0.0;
    }
    return v;
}

/* Sum of one double per thread over a block of BLOCK threads, valid in thread 0: warp
 * butterflies, then warp 0 over the warp sums; fixed order, so deterministic. Contains
 * __syncthreads: call from all threads. */
template <int BLOCK>
__device__ __forceinline__ double block_sum(double v)
{
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "whole warps, at most 32");
    __shared__ double s_warp[BLOCK / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = sp_prim::warp_sum(v);
    if (lane == 0) s_warp[warp] = v;
    __syncthreads();
    v = 0.0;
    if (warp == 0) {
        v = lane < BLOCK / 32 ? s_warp[lane] : 0.0;
        v = sp_prim::warp_sum(v);
    }
    return v;
}

/* out[0] = sum of the nparts block partials (sqrt when root); one block of finish_threads. */
static __global__ void __launch_bounds__(P::finish_threads)
finish_kernel(const double *__restrict__ parts, int nparts, double *__restrict__ out, int root)
{
    double v = 0.0;
    for (int i = threadIdx.x; i < nparts; i += P::finish_threads) v += parts[i];
    v = block_sum<P::finish_threads>(v);
    if (threadIdx.x == 0) out[0] = root ? sqrt(v) : v;
}

/* Queue the second pass over the partials the first pass's `blocks` blocks wrote. */
static inline sp_status_t finish(const sp_gpu_env_t *env, const double *d_parts, unsigned blocks,
                                 double *d_out, int root)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    finish_kernel<<<1, P::finish_threads, 0, (cudaStream_t)env->stream>>>(d_parts, (int)blocks,
                                                                          d_out, root);
    SP_CUDA_LAUNCHED("finish_kernel");
done:
    return st;
}

/* Calls body(i) for every index of this thread's share of [0, n), `unroll` at a time:
 * load(i, k) for the whole chunk first, then store(i, k). k names the register slot. */
template <typename Load, typename Store>
__device__ __forceinline__ void for_chunks(int64_t n, Load load, Store store)
{
    const int64_t stride = (int64_t)gridDim.x * P::block_threads;
    for (int64_t base = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; base < n;
         base += P::unroll * stride) {
#pragma unroll
        for (int k = 0; k < P::unroll; k++) {
            int64_t i = base + k * stride;
            if (i < n) load(i, k);
        }
#pragma unroll
        for (int k = 0; k < P::unroll; k++) {
            int64_t i = base + k * stride;
            if (i < n) store(i, k);
        }
    }
}

} /* namespace vec */

#endif /* SP_VEC_COMMON_CUH */
