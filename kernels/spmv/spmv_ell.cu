/* y = alpha * A * x + beta * y over column-major ELL (PMPP ch. 14; Bell & Garland 2009):
 * one thread per row walks its width slots at [k * nrows + r], so a warp reads 32
 * consecutive columns and values per slot (coalesced); padding (column -1) is skipped.
 * With a value table (few distinct values: stencils, Laplacians, 0/1 matrices; CSR-VI,
 * Kourtis, Goumas & Koziris 2008) the values come from one-byte codes and the table in
 * shared memory, the same bits in the same order.
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

/* CODED: the ELL has a value table (sp_formats.h): the block copies it to shared memory
 * once and each slot streams a one-byte code instead of its value (CSR-VI, Kourtis,
 * Goumas & Koziris 2008): 5 bytes a slot instead of 12 in double, 8 in float. The same
 * values in the same order, so y is the plain kernel's bit for bit. */
template <typename T, bool CODED>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks_per_sm)
ell_kernel(const int32_t *__restrict__ col, const T *__restrict__ val,
           const uint8_t *__restrict__ code, const T *__restrict__ table, int ntable,
           int64_t nrows, int64_t width, const T *__restrict__ x, T alpha, T beta,
           T *__restrict__ y)
{
    int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    T sum;
    if constexpr (CODED) {
        __shared__ T s_table[SP_ELL_TABLE_MAX];
        for (int i = threadIdx.x; i < ntable; i += P::block_threads) s_table[i] = table[i];
        __syncthreads();
        if (r >= nrows) return;
        sum = strided_row_sum<P::unroll>(col + r, slot_codes<T>{code + r, s_table}, nrows,
                                         width, x);
    } else {
        if (r >= nrows) return;
        sum = strided_row_sum<P::unroll>(col + r, val + r, nrows, width, x);
    }
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
    SP_CHECK_ARG(a->ntable >= 0 && a->ntable <= SP_ELL_TABLE_MAX &&
                     (a->ntable == 0 || (a->code != NULL && a->table != NULL)),
                 "spmv ell: value table of %d entries (code %p, table %p) is not valid",
                 (int)a->ntable, (const void *)a->code, a->table);
    if (a->nrows == 0) goto done;
    by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        unsigned blocks = (unsigned)((a->nrows + P::block_threads - 1) / P::block_threads);
        auto kernel = a->ntable > 0 ? ell_kernel<T, true> : ell_kernel<T, false>;
        e = sp_prim::launch(kernel, blocks, P::block_threads, env->stream, a->col,
                            static_cast<const T *>(a->val), a->code,
                            static_cast<const T *>(a->table), (int)a->ntable, a->nrows,
                            a->width, static_cast<const T *>(d_x), host_value<T>(alpha),
                            host_value<T>(beta), static_cast<T *>(d_y));
    });
    SP_CUDA_LAUNCH("ell_kernel", e);
    /* the long rows: empty above (y = beta * y there), added on top balanced over entries */
    if (a->tail.nnz > 0) SP_TRY(sp__gpu_spmv_coo_accumulate(env, &a->tail, alpha, d_x, d_y));
done:
    return st;
}
