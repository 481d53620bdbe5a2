/* z[i] = value: a grid-stride store (solvers' zero initial guess, workspace resets). */
#include "vec_common.cuh"

using namespace vec;

namespace {

template <typename T>
__global__ void __launch_bounds__(P::block_threads) fill_kernel(int64_t n, T value, T *z)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads)
        z[i] = value;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_vec_fill(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                                        double value, void *d_z)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(check_call("vec fill", env, t, n));
    SP_CHECK_ARG(n == 0 || d_z != NULL, "vec fill: z is NULL for %lld entries", (long long)n);
    if (n == 0) goto done;
    by_value(t, [&](auto tag) {
        using T = decltype(tag);
        fill_kernel<T><<<grid_for(n), P::block_threads, 0, (cudaStream_t)env->stream>>>(
            n, (T)value, static_cast<T *>(d_z));
    });
    SP_CUDA_LAUNCHED("fill_kernel");
done:
    return st;
}
