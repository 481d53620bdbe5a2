/* z = a*x + b*y + c*z with an optional dot product of the new z with w in the same pass
 * (a solver's "update the residual and take its norm", one read of each vector instead of
 * two): grid-stride, values computed in double and rounded once, the dot summed in double
 * per thread, per block, then over blocks in fixed order (vec_common.cuh). */
#include "vec_common.cuh"

using namespace vec;

namespace {

/* REDUCE: also sum z_new[i] * w[i] (w may be z: then z_new squared) into parts[block]. */
template <typename T, bool REDUCE>
__global__ void __launch_bounds__(P::block_threads)
update_kernel(int64_t n, sp_vec_coef_t a, const T *x, sp_vec_coef_t b, const T *y,
              sp_vec_coef_t c, T *z, const T *w, double *parts)
{
    const double av = coef_value(a), bv = coef_value(b), cv = coef_value(c);
    const bool w_is_z = (const void *)w == (const void *)z;
    double xr[P::unroll], yr[P::unroll], zr[P::unroll], wr[P::unroll];
    double sum = 0.0;
    for_chunks(
        n,
        [&](int64_t i, int k) {
            xr[k] = x ? (double)x[i] : 0.0;
            yr[k] = y ? (double)y[i] : 0.0;
            zr[k] = cv != 0.0 ? (double)z[i] : 0.0;
            if (REDUCE) wr[k] = w_is_z ? 0.0 : (double)w[i];
        },
        [&](int64_t i, int k) {
            double v = 0.0;
            if (x) v += av * xr[k];
            if (y) v += bv * yr[k];
            if (cv != 0.0) v += cv * zr[k];
            T stored = (T)v;
            z[i] = stored;
            if (REDUCE) sum += (double)stored * (w_is_z ? (double)stored : wr[k]);
        });
    if (REDUCE) {
        sum = block_sum<P::block_threads>(sum);
        if (threadIdx.x == 0) parts[blockIdx.x] = sum;
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_vec_update(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                                          sp_vec_coef_t a, const void *d_x, sp_vec_coef_t b,
                                          const void *d_y, sp_vec_coef_t c, void *d_z,
                                          const void *d_w, double *d_out, int root,
                                          void *d_temp)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned blocks;
    SP_TRY(check_call("vec update", env, t, n));
    SP_CHECK_ARG(n == 0 || d_z != NULL, "vec update: z is NULL for %lld entries", (long long)n);
    SP_CHECK_ARG(d_out == NULL || (d_temp != NULL && (n == 0 || d_w != NULL)),
                 "vec update: a dot product needs w and d_temp");
    if (n == 0) {
        if (d_out) SP_TRY(finish(env, (const double *)d_temp, 0, d_out, root));
        goto done;
    }
    blocks = grid_for(n);
    by_value(t, [&](auto tag) {
        using T = decltype(tag);
        const T *x = static_cast<const T *>(d_x), *y = static_cast<const T *>(d_y);
        const T *w = static_cast<const T *>(d_w);
        T *z = static_cast<T *>(d_z);
        double *parts = static_cast<double *>(d_temp);
        if (d_out)
            update_kernel<T, true><<<blocks, P::block_threads, 0, (cudaStream_t)env->stream>>>(
                n, a, x, b, y, c, z, w, parts);
        else
            update_kernel<T, false><<<blocks, P::block_threads, 0, (cudaStream_t)env->stream>>>(
                n, a, x, b, y, c, z, w, parts);
    });
    SP_CUDA_LAUNCHED("update_kernel");
    if (d_out) SP_TRY(finish(env, static_cast<const double *>(d_temp), blocks, d_out, root));
done:
    return st;
}
