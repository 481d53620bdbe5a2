/* y = alpha * A * x + beta * y over column-major ELL (PMPP ch. 14; Bell & Garland 2009):
 * one thread per row walks its width slots at [k * nrows + r], so a warp reads 32
 * consecutive columns and values per slot (coalesced); padding (column -1) is skipped.
 * Rows past the long-row bound are empty here (the width stays within the bound) and live
 * in the tail, added after by the COO accumulate. */
#include "spmv_strided.cuh"

using namespace spmv;

namespace {

/* One thread per row, slots batched by `unroll` (spmv_strided.cuh) for memory-level
 * parallelism rather than two rows per thread: a batch gives the same loads in flight and
 * keeps every warp access one contiguous run for any nrows and alignment, where 16-byte
 * vector loads across rows would need nrows and the arrays aligned to the vector width.
 * min_blocks_per_sm caps registers so that a full SM's 2048 threads stay resident. */
struct ell_policy {
    static constexpr int block_threads = 256;
    static constexpr int unroll = 4;
    static constexpr int min_blocks_per_sm = 8;
};
using P = ell_policy;

template <typename T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks_per_sm)
ell_kernel(const int32_t *__restrict__ col, const T *__restrict__ val, int64_t nrows,
           int64_t width, const T *__restrict__ x, T alpha, T beta, T *__restrict__ y)
{
    int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    if (r >= nrows) return;
    T sum = strided_row_sum<P::unroll>(col + r, val + r, nrows, width, x);
    y_update(y, r, alpha, sum, beta);
}

} /* namespace */

extern "C" sp_status_t sp__gpu_spmv_ell(const sp_gpu_env_t *env, const sp_ell_t *a,
                                        const void *alpha, const void *d_x, const void *beta,
                                        void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaError_t e = cudaSuccess;
    SP_CHECK_ARG(a != NULL, "spmv ell: NULL matrix");
    SP_TRY(check_call("spmv ell", env, a->value_type, a->nrows, a->ncols, alpha, d_x, beta,
                      d_y));
    SP_CHECK_ARG(a->width >= 0 && a->width <= INT32_MAX, "spmv ell: width %lld outside 0..%d",
                 (long long)a->width, INT32_MAX);
    SP_CHECK_ARG(a->nrows == 0 || a->width == 0 || (a->col != NULL && a->val != NULL),
                 "spmv ell: NULL col or val for %lld rows x width %lld", (long long)a->nrows,
                 (long long)a->width);
    if (a->nrows == 0) goto done;
    by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        unsigned blocks = (unsigned)((a->nrows + P::block_threads - 1) / P::block_threads);
        e = sp_prim::launch(ell_kernel<T>, blocks, P::block_threads, env->stream, a->col,
                            static_cast<const T *>(a->val), a->nrows, a->width,
                            static_cast<const T *>(d_x), host_value<T>(alpha),
                            host_value<T>(beta), static_cast<T *>(d_y));
    });
    SP_CUDA_LAUNCH("ell_kernel", e);
    /* the long rows: empty above (y = beta * y there), added on top balanced over entries */
    if (a->tail.nnz > 0) SP_TRY(sp__gpu_spmv_coo_accumulate(env, &a->tail, alpha, d_x, d_y));
done:
    return st;
}
