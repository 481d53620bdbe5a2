/* y = alpha * A * x + beta * y over JDS (PMPP ch. 14): one thread per sorted row i takes
 * entry d from jagged diagonal d at jd_ptr[d] + i (consecutive rows, coalesced) while the
 * diagonal is longer than i, and writes y[perm[i]], its original row. Rows past the long-
 * row bound are empty here and live in the tail, added after by the COO accumulate. */
#include "spmv_common.cuh"

using namespace spmv;

namespace {

/* Diagonals are taken `unroll` at a time: the batch's jd_ptr reads (the same words for the
 * whole warp, a broadcast) decide which diagonals reach row i, then all its column and
 * value loads are issued before the first x gather. Diagonal lengths never increase, so
 * the diagonals reaching i are a prefix and the loop ends at the first that does not. */
struct jds_policy {
    static constexpr int block_threads = 256;
    static constexpr int unroll = 4;
    static constexpr int min_blocks_per_sm = 8;
};
using P = jds_policy;

/* Off: the diagonal pointers' type (64-bit from a CSR with 64-bit pointers, issue 20). */
template <typename T, typename Off>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks_per_sm)
jds_kernel(const int32_t *__restrict__ perm, const Off *__restrict__ jd_ptr,
           const int32_t *__restrict__ col, const T *__restrict__ val, int64_t nrows,
           int64_t njd, const T *__restrict__ x, T alpha, T beta, T *__restrict__ y)
{
    constexpr int U = P::unroll;
    int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    if (i >= nrows) return;
    T sum = T(0);
    bool more = njd > 0;
    for (int64_t d = 0; more; d += U) {
        int64_t at[U];
        bool in[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            at[u] = 0;
            in[u] = d + u < njd;
            if (in[u]) {
                int64_t start = __ldg(jd_ptr + d + u), end = __ldg(jd_ptr + d + u + 1);
                at[u] = start + i;
                in[u] = at[u] < end;
            }
        }
        int32_t c[U];
        T v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            c[u] = 0;
            v[u] = T(0);
            if (in[u]) {
                c[u] = __ldcs(col + at[u]);
                v[u] = __ldcs(val + at[u]);
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            if (in[u]) sum += v[u] * load_x(x, c[u]);
        more = in[U - 1];
    }
    y_update(y, __ldg(perm + i), alpha, sum, beta);
}

} /* namespace */

extern "C" sp_status_t sp__gpu_spmv_jds(const sp_gpu_env_t *env, const sp_jds_t *a,
                                        const void *alpha, const void *d_x, const void *beta,
                                        void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaError_t e = cudaSuccess;
    SP_CHECK_ARG(a != NULL, "spmv jds: NULL matrix");
    SP_TRY(check_call("spmv jds", env, a->value_type, a->nrows, a->ncols, alpha, d_x, beta,
                      d_y));
    SP_CHECK_ARG(a->njd >= 0 && a->njd <= INT32_MAX && a->nnz >= 0,
                 "spmv jds: %lld diagonals, %lld entries", (long long)a->njd,
                 (long long)a->nnz);
    SP_CHECK_ARG(a->nrows == 0 || a->perm != NULL, "spmv jds: NULL perm for %lld rows",
                 (long long)a->nrows);
    SP_CHECK_ARG(a->njd == 0 || a->jd_ptr != NULL || a->jd_ptr64 != NULL,
                 "spmv jds: NULL jd_ptr for %lld diagonals", (long long)a->njd);
    SP_CHECK_ARG(a->nnz == 0 || (a->col != NULL && a->val != NULL),
                 "spmv jds: NULL col or val for %lld entries", (long long)a->nnz);
    if (a->nrows == 0) goto done;
    by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        unsigned blocks = (unsigned)((a->nrows + P::block_threads - 1) / P::block_threads);
        if (a->jd_ptr64)
            e = sp_prim::launch(jds_kernel<T, int64_t>, blocks, P::block_threads, env->stream,
                                a->perm, a->jd_ptr64, a->col, static_cast<const T *>(a->val),
                                a->nrows, a->njd, static_cast<const T *>(d_x),
                                host_value<T>(alpha), host_value<T>(beta),
                                static_cast<T *>(d_y));
        else
            e = sp_prim::launch(jds_kernel<T, int32_t>, blocks, P::block_threads, env->stream,
                                a->perm, a->jd_ptr, a->col, static_cast<const T *>(a->val),
                                a->nrows, a->njd, static_cast<const T *>(d_x),
                                host_value<T>(alpha), host_value<T>(beta),
                                static_cast<T *>(d_y));
    });
    SP_CUDA_LAUNCH("jds_kernel", e);
    /* the long rows: empty above (y = beta * y there), added on top balanced over entries */
    if (a->tail.nnz > 0) SP_TRY(sp__gpu_spmv_coo_accumulate(env, &a->tail, alpha, d_x, d_y));
done:
    return st;
}
