/* z = d .* r with an optional z . r in the same pass (a Jacobi step and the rho of
 * preconditioned CG): grid-stride, product in double rounded once, the dot deterministic
 * as in vec_common.cuh. */
#include "vec_common.cuh"

using namespace vec;

namespace {

template <typename T, bool REDUCE>
__global__ void __launch_bounds__(P::block_threads)
pointwise_kernel(int64_t n, const T *__restrict__ d, const T *r, T *z, double *parts)
{
    double dr[P::unroll], rr[P::unroll];
    double sum = 0.0;
    for_chunks(
        n,
        [&](int64_t i, int k) {
            dr[k] = (double)d[i];
            rr[k] = (double)r[i];
        },
        [&](int64_t i, int k) {
            T stored = (T)(dr[k] * rr[k]);
            z[i] = stored;
            if (REDUCE) sum += (double)stored * rr[k];
        });
    if (REDUCE) {
        sum = block_sum<P::block_threads>(sum);
        if (threadIdx.x == 0) parts[blockIdx.x] = sum;
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_vec_pointwise(const sp_gpu_env_t *env, sp_value_type_t t,
                                             int64_t n, const void *d_d, const void *d_r,
                                             void *d_z, double *d_out, void *d_temp)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned blocks = 0;
    SP_TRY(check_call("vec pointwise", env, t, n));
    SP_CHECK_ARG(n == 0 || (d_d != NULL && d_r != NULL && d_z != NULL),
                 "vec pointwise: d, r or z is NULL for %lld entries", (long long)n);
    SP_CHECK_ARG(d_out == NULL || d_temp != NULL, "vec pointwise: a dot product needs d_temp");
    if (n > 0) {
        blocks = grid_for(n);
        by_value(t, [&](auto tag) {
            using T = decltype(tag);
            const T *d = static_cast<const T *>(d_d), *r = static_cast<const T *>(d_r);
            T *z = static_cast<T *>(d_z);
            double *parts = static_cast<double *>(d_temp);
            if (d_out)
                pointwise_kernel<T, true>
                    <<<blocks, P::block_threads, 0, (cudaStream_t)env->stream>>>(n, d, r, z, parts);
            else
                pointwise_kernel<T, false>
                    <<<blocks, P::block_threads, 0, (cudaStream_t)env->stream>>>(n, d, r, z, parts);
        });
        SP_CUDA_LAUNCHED("pointwise_kernel");
    }
    if (d_out) SP_TRY(finish(env, static_cast<const double *>(d_temp), blocks, d_out, 0));
done:
    return st;
}
