/* y = alpha * A * x + beta * y over SELL-C-sigma (Kreutzer et al. 2014; PMPP ch. 14): one
 * thread per sorted row p, lane p % C of slice p / C, walks the slice's width slots at
 * slice_ptr[s] + k * C + lane (coalesced across the lanes of a slice), skips padding
 * (column -1) and writes y[perm[p]]. Rows past the long-row bound are empty here (so no
 * slice is padded to them) and live in the tail, added after by the COO accumulate. */
#include "spmv_strided.cuh"

using namespace spmv;

namespace {

/* Threads are numbered by sorted row, not by (slice, lane) blocks, so any C works (1 to
 * beyond a block; a warp may span several slices or part of one) and the padding rows of
 * the last slice get no thread. Slots batched as in ELL (spmv_strided.cuh). */
struct sell_policy {
    static constexpr int block_threads = 256;
    static constexpr int unroll = 4;
    static constexpr int min_blocks_per_sm = 8;
};
using P = sell_policy;

/* Off: the slice offsets' type (64-bit from a CSR with 64-bit pointers, issue 20). */
template <typename T, typename Off>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks_per_sm)
sell_kernel(const int32_t *__restrict__ perm, const Off *__restrict__ slice_ptr,
            const int32_t *__restrict__ slice_width, const int32_t *__restrict__ col,
            const T *__restrict__ val, int64_t nrows, int c, const T *__restrict__ x, T alpha,
            T beta, T *__restrict__ y)
{
    int64_t p = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    if (p >= nrows) return;
    /* p < 2^31 (nrows is checked), so the division is 32-bit */
    uint32_t s = (uint32_t)p / (uint32_t)c, lane = (uint32_t)p - s * (uint32_t)c;
    int64_t at = (int64_t)__ldg(slice_ptr + s) + lane;
    T sum = strided_row_sum<P::unroll>(col + at, val + at, c, __ldg(slice_width + s), x);
    y_update(y, __ldg(perm + p), alpha, sum, beta);
}

} /* namespace */

extern "C" sp_status_t sp__gpu_spmv_sell(const sp_gpu_env_t *env, const sp_sell_t *a,
                                         const void *alpha, const void *d_x, const void *beta,
                                         void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaError_t e = cudaSuccess;
    SP_CHECK_ARG(a != NULL, "spmv sell: NULL matrix");
    SP_TRY(check_call("spmv sell", env, a->value_type, a->nrows, a->ncols, alpha, d_x, beta,
                      d_y));
    SP_CHECK_ARG(a->c > 0, "spmv sell: slice height C %d is not positive", a->c);
    SP_CHECK_ARG(a->nslices == (a->nrows + a->c - 1) / a->c,
                 "spmv sell: %lld slices for %lld rows of C %d", (long long)a->nslices,
                 (long long)a->nrows, a->c);
    SP_CHECK_ARG(a->padded >= 0 && (a->padded <= INT32_MAX || a->slice_ptr64 != NULL),
                 "spmv sell: %lld padded slots outside 0..%d with 32-bit offsets",
                 (long long)a->padded, INT32_MAX);
    SP_CHECK_ARG(a->nrows == 0 || (a->perm != NULL &&
                                   (a->slice_ptr != NULL || a->slice_ptr64 != NULL) &&
                                   a->slice_width != NULL),
                 "spmv sell: NULL perm, slice_ptr or slice_width for %lld rows",
                 (long long)a->nrows);
    SP_CHECK_ARG(a->padded == 0 || (a->col != NULL && a->val != NULL),
                 "spmv sell: NULL col or val for %lld padded slots", (long long)a->padded);
    if (a->nrows == 0) goto done;
    by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        unsigned blocks = (unsigned)((a->nrows + P::block_threads - 1) / P::block_threads);
        if (a->slice_ptr64)
            e = sp_prim::launch(sell_kernel<T, int64_t>, blocks, P::block_threads, env->stream,
                                a->perm, a->slice_ptr64, a->slice_width, a->col,
                                static_cast<const T *>(a->val), a->nrows, a->c,
                                static_cast<const T *>(d_x), host_value<T>(alpha),
                                host_value<T>(beta), static_cast<T *>(d_y));
        else
            e = sp_prim::launch(sell_kernel<T, int32_t>, blocks, P::block_threads, env->stream,
                                a->perm, a->slice_ptr, a->slice_width, a->col,
                                static_cast<const T *>(a->val), a->nrows, a->c,
                                static_cast<const T *>(d_x), host_value<T>(alpha),
                                host_value<T>(beta), static_cast<T *>(d_y));
    });
    SP_CUDA_LAUNCH("sell_kernel", e);
    /* the long rows: empty above (y = beta * y there), added on top balanced over entries */
    if (a->tail.nnz > 0) SP_TRY(sp__gpu_spmv_coo_accumulate(env, &a->tail, alpha, d_x, d_y));
done:
    return st;
}
