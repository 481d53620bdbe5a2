/* SpMV with A given by its CSC on the GPU (PMPP, sparse-format chapter: the transposed
 * traversal): y = beta * y, then each warp takes chunks of consecutive entries (balanced
 * whatever the column lengths; a dense column is spread over many warps), lane l the
 * entries l, l + 32, ... of its chunk, finds the first one's column by binary search over
 * the column pointers and follows the later ones by walking the pointers forward, and adds
 * alpha * a * x[column] to the entry's row with an atomic. */
#include "prim/csr_rows.cuh"
#include "spmv_common.cuh"
#include "spmv_policy_coo.h"

namespace {

using P = sp_spmv_csc_policy;

/* The column of entry e, at or after column j whose end is *next (updated): a walk of at
 * most walk_max columns, else a binary search over the columns after j. */
__device__ __forceinline__ int64_t column_from(const int32_t *ptr, int64_t ncols, int64_t e,
                                               int64_t j, int32_t *next)
{
    for (int w = 0; w < P::walk_max && e >= *next; w++) *next = __ldg(ptr + ++j + 1);
    if (e >= *next) {
        j += 1 + sp_prim::row_of(ptr + j + 1, ncols - j - 1, e);
        *next = __ldg(ptr + j + 1);
    }
    return j;
}

template <typename T>
__global__ void __launch_bounds__(P::block_threads)
csc_kernel(const int32_t *ptr, const int32_t *idx, const T *val, int64_t ncols, int64_t nnz,
           const T *x, T alpha, T *y)
{
    constexpr int64_t chunk = 32 * P::chunk_steps;
    int lane = threadIdx.x & 31;
    int64_t warp = ((int64_t)blockIdx.x * P::block_threads + threadIdx.x) >> 5;
    int64_t nwarps = ((int64_t)gridDim.x * P::block_threads) >> 5;
    /* the loops are uniform across the warp (base per warp, s to chunk_steps) so that
     * every lane takes part in the row matching */
    for (int64_t base = warp * chunk; base < nnz; base += nwarps * chunk) {
        int64_t e = base + lane, j = 0;
        int32_t next = 0;
        if (e < nnz) {
            j = sp_prim::row_of(ptr, ncols, e);
            next = __ldg(ptr + j + 1);
        }
        for (int s = 0; s < P::chunk_steps; s++, e += 32) {
            bool ok = e < nnz;
            if (!__any_sync(sp_prim::full_mask, ok)) break;
            int32_t r = -1;
            T v = T(0);
            if (ok) {
                j = column_from(ptr, ncols, e, j, &next);
                r = __ldg(idx + e);
                v = alpha * (__ldg(val + e) * spmv::load_x(x, j));
            }
            /* lanes of one row add theirs first, so a row found in every column (a dense
             * row) costs an atomic per step's group, not per entry */
            unsigned peers = __match_any_sync(sp_prim::full_mask, r);
            if (peers != (1u << lane)) {
                T sum = T(0);
                for (unsigned m = peers; m; m &= m - 1)
                    sum += __shfl_sync(peers, v, __ffs(m) - 1);
                v = sum;
            }
            if (ok && lane == __ffs(peers) - 1) atomicAdd(y + r, v);
        }
    }
}

template <typename T>
sp_status_t launch_csc(const sp_gpu_env_t *env, const sp_csr_t *a, T alpha, const void *d_x,
                       void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = spmv::grid_for(env, (a->nnz + P::chunk_steps - 1) / P::chunk_steps,
                                   P::block_threads, P::blocks_per_sm);
    SP_CUDA_LAUNCH("csc_kernel",
                   sp_prim::launch(csc_kernel<T>, grid, P::block_threads, env->stream, a->ptr,
                                   a->idx, static_cast<const T *>(a->val), a->ncols, a->nnz,
                                   static_cast<const T *>(d_x), alpha, static_cast<T *>(d_y)));
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_spmv_csc(const sp_gpu_env_t *env, const sp_csr_t *a,
                                        const void *alpha, const void *d_x, const void *beta,
                                        void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(a != NULL, "csc spmv: NULL matrix");
    SP_TRY(spmv::check_call("csc spmv", env, a->value_type, a->nrows, a->ncols, alpha, d_x,
                            beta, d_y));
    SP_CHECK_ARG(a->nnz >= 0 && a->nnz <= INT32_MAX, "csc spmv: entry count %lld outside 0..%d",
                 (long long)a->nnz, INT32_MAX);
    SP_CHECK_ARG(a->ptr != NULL, "csc spmv: ptr is NULL");
    SP_CHECK_ARG(a->nnz == 0 || (a->idx != NULL && a->val != NULL),
                 "csc spmv: NULL arrays for %lld entries", (long long)a->nnz);
    SP_TRY(sp__gpu_scale(env, a->value_type, a->nrows, beta, d_y));
    if (a->nnz == 0) goto done;
    spmv::by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        st = launch_csc<T>(env, a, spmv::host_value<T>(alpha), d_x, d_y);
    });
done:
    return st;
}
