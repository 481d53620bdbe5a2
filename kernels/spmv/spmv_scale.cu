/* y = beta * y on the GPU: a grid-stride loop, the first step of every SpMV that adds into
 * y with atomics (COO, CSC, HYB's overflow). beta == 0 stores zeros without reading y
 * (the BLAS convention), beta == 1 launches nothing. */
#include "spmv_common.cuh"
#include "spmv_policy_coo.h"

namespace {

using P = sp_spmv_scale_policy;

template <typename T>
__global__ void __launch_bounds__(P::block_threads) scale_kernel(T *y, int64_t n, T beta)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads)
        y[i] = beta == T(0) ? T(0) : beta * y[i];
}

} /* namespace */

extern "C" sp_status_t sp__gpu_scale(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                                     const void *beta, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaError_t e = cudaSuccess;
    SP_CHECK_ARG(env != NULL && beta != NULL, "scale: NULL argument");
    SP_CHECK_ARG(t == SP_R_32F || t == SP_R_64F, "scale: value type %d is not real", (int)t);
    SP_CHECK_ARG(n >= 0, "scale: negative length %lld", (long long)n);
    SP_CHECK_ARG(n == 0 || d_y != NULL, "scale: y is NULL for %lld entries", (long long)n);
    if (n == 0) goto done;
    spmv::by_value(t, [&](auto tag) {
        using T = decltype(tag);
        T b = spmv::host_value<T>(beta);
        if (b == T(1)) return;
        unsigned grid = spmv::grid_for(env, n, P::block_threads, P::blocks_per_sm);
        e = sp_prim::launch(scale_kernel<T>, grid, P::block_threads, env->stream,
                            static_cast<T *>(d_y), n, b);
    });
    SP_CUDA_LAUNCH("scale_kernel", e);
done:
    return st;
}
