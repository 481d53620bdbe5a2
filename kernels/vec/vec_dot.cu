/* x . y (or the 2-norm, its square root) in double for both value types, deterministic:
 * fixed per-thread shares, block partials, then one block adding them in a fixed tree
 * (vec_common.cuh). */
#include "vec_common.cuh"

using namespace vec;

namespace {

template <typename T>
__global__ void __launch_bounds__(P::block_threads)
dot_kernel(int64_t n, const T *__restrict__ x, const T *__restrict__ y, double *parts)
{
    double xr[P::unroll], yr[P::unroll];
    double sum = 0.0;
    for_chunks(
        n,
        [&](int64_t i, int k) {
            xr[k] = (double)x[i];
            yr[k] = (double)y[i];
        },
        [&](int64_t, int k) { sum += xr[k] * yr[k]; });
    sum = block_sum<P::block_threads>(sum);
    if (threadIdx.x == 0) parts[blockIdx.x] = sum;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_vec_dot(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                                       const void *d_x, const void *d_y, double *d_out,
                                       int root, void *d_temp)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned blocks = 0;
    SP_TRY(check_call("vec dot", env, t, n));
    SP_CHECK_ARG(d_out != NULL && d_temp != NULL, "vec dot: NULL out or d_temp");
    SP_CHECK_ARG(n == 0 || (d_x != NULL && d_y != NULL), "vec dot: x or y is NULL for %lld "
                 "entries", (long long)n);
    if (n > 0) {
        blocks = grid_for(n);
        by_value(t, [&](auto tag) {
            using T = decltype(tag);
            dot_kernel<T><<<blocks, P::block_threads, 0, (cudaStream_t)env->stream>>>(
                n, static_cast<const T *>(d_x), static_cast<const T *>(d_y),
                static_cast<double *>(d_temp));
        });
        SP_CUDA_LAUNCHED("dot_kernel");
    }
    SP_TRY(finish(env, static_cast<const double *>(d_temp), blocks, d_out, root));
done:
    return st;
}
