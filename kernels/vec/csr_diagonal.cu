/* The diagonal of a square CSR (0 where a row stores none): one thread per row, a binary
 * search for column r in the row's sorted columns. For the Jacobi and Gauss-Seidel
 * preconditioners, made once at solver setup. */
#include "vec_common.cuh"

using namespace vec;

namespace {

/* Off: the row pointers' type, int32_t or int64_t (a CSR's ptr64: issue 20). */
template <typename T, typename Off>
__global__ void __launch_bounds__(P::block_threads)
diagonal_kernel(int64_t nrows, const Off *__restrict__ ptr, const int32_t *__restrict__ idx,
                const T *__restrict__ val, T *diag)
{
    for (int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::block_threads) {
        Off lo = ptr[r], hi = ptr[r + 1];
        while (lo < hi) {
            Off mid = lo + (hi - lo) / 2;
            if (idx[mid] < r) lo = mid + 1;
            else hi = mid;
        }
        diag[r] = lo < ptr[r + 1] && idx[lo] == r ? val[lo] : T(0);
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_diagonal(const sp_gpu_env_t *env, const sp_csr_t *a,
                                            void *d_diag)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(a != NULL, "csr diagonal: NULL matrix");
    SP_TRY(check_call("csr diagonal", env, a->value_type, a->nrows));
    SP_CHECK_ARG(a->nrows == a->ncols, "csr diagonal: matrix is %lld x %lld, not square",
                 (long long)a->nrows, (long long)a->ncols);
    SP_CHECK_ARG(a->nrows == 0 || (d_diag != NULL && (a->ptr != NULL || a->ptr64 != NULL)),
                 "csr diagonal: NULL diag or row pointers for %lld rows", (long long)a->nrows);
    if (a->nrows == 0) goto done;
    by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        const unsigned grid = grid_for(a->nrows);
        cudaStream_t s = (cudaStream_t)env->stream;
        if (a->ptr64)
            diagonal_kernel<T, int64_t><<<grid, P::block_threads, 0, s>>>(
                a->nrows, a->ptr64, a->idx, static_cast<const T *>(a->val),
                static_cast<T *>(d_diag));
        else
            diagonal_kernel<T, int32_t><<<grid, P::block_threads, 0, s>>>(
                a->nrows, a->ptr, a->idx, static_cast<const T *>(a->val),
                static_cast<T *>(d_diag));
    });
    SP_CUDA_LAUNCHED("diagonal_kernel");
done:
    return st;
}
