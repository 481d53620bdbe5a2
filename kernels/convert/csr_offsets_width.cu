/* CSR or CSC pointers of one width copied into the other on the GPU (issue 20): narrowed
 * from int64_t to int32_t for what reads 32-bit pointers only, on a matrix with 64-bit
 * offsets and fewer entries than the narrow limit (so every pointer fits), and widened back
 * for a CSC that takes its CSR's 64-bit width. A grid-stride copy with a cast; the host
 * twin is the narrowing loop of sp__matrix_csr32 (src/matrix.c) and the reads of
 * sp__csr_at (src/core/sp_formats.h). */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* out[i] = (To)in[i] for i < n. */
template <typename From, typename To>
__global__ void __launch_bounds__(P::block_threads)
offsets_cast_kernel(const From *in, int64_t n, To *out)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads)
        out[i] = (To)in[i];
}

template <typename From, typename To>
sp_status_t offsets_cast(const sp_gpu_env_t *env, const From *d_in, int64_t n, To *d_out,
                         const char *what)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && n >= 0, "%s: no environment or %lld pointers", what,
                 (long long)n);
    SP_CHECK_ARG(n == 0 || (d_in != NULL && d_out != NULL), "%s: NULL arrays for %lld pointers",
                 what, (long long)n);
    if (n == 0) goto done;
    offsets_cast_kernel<From, To><<<grid_for(env, n), P::block_threads, 0,
                                    (cudaStream_t)env->stream>>>(d_in, n, d_out);
    SP_CUDA_LAUNCHED("offsets_cast_kernel");
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_offsets_narrow(const sp_gpu_env_t *env, const int64_t *d_ptr64,
                                              int64_t n, int32_t *d_ptr)
{
    return offsets_cast(env, d_ptr64, n, d_ptr, "narrowing offsets");
}

extern "C" sp_status_t sp__gpu_offsets_widen(const sp_gpu_env_t *env, const int32_t *d_ptr,
                                             int64_t n, int64_t *d_ptr64)
{
    return offsets_cast(env, d_ptr, n, d_ptr64, "widening offsets");
}
