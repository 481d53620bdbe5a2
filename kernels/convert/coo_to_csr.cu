/* CSR of a sorted, merged COO on the GPU (PMPP, sparse-format chapter; cs_compress): a
 * histogram of the rows scanned into row pointers; sorted entries are already in CSR
 * order, so columns and values are copied device to device. As sp__ref_coo_to_csr.
 * 64-bit row pointers (issue 20) come from a binary search instead: the rows are sorted,
 * so ptr[r] is the first entry whose row is at least r, found per row with 64-bit
 * positions (no 32-bit histogram or scan on that path); the same pointers as the count
 * and scan give on sorted input. */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* ptr[r] = first i in [0, nnz) with row[i] >= r (nnz when none), for r = 0..nrows; row
 * sorted ascending. */
__global__ void __launch_bounds__(P::block_threads)
row_starts64_kernel(const int32_t *row, int64_t nnz, int64_t nrows, int64_t *ptr)
{
    for (int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; r <= nrows;
         r += (int64_t)gridDim.x * P::block_threads)
        ptr[r] = first_at_least(row, nnz, r);
}

/* counts[r] = entries in row r of sorted, merged rows: two searches a row, 64-bit
 * positions (a row of a merged COO holds fewer than 2^31 entries: its columns differ). */
__global__ void __launch_bounds__(P::block_threads)
sorted_row_counts_kernel(const int32_t *row, int64_t nnz, int64_t nrows, int32_t *counts)
{
    for (int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::block_threads)
        counts[r] = (int32_t)(first_at_least(row, nnz, r + 1) - first_at_least(row, nnz, r));
}

} /* namespace */

extern "C" sp_status_t sp__gpu_sorted_row_counts(const sp_gpu_env_t *env,
                                                 const sp_triplets_t *coo, int32_t *d_counts)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && coo != NULL, "sorted row counts: NULL argument");
    SP_CHECK_ARG(coo->nrows >= 0 && coo->nrows <= INT32_MAX && coo->nnz >= 0,
                 "sorted row counts: %lld rows, %lld entries", (long long)coo->nrows,
                 (long long)coo->nnz);
    SP_CHECK_ARG(coo->nrows == 0 || d_counts != NULL, "sorted row counts: counts are NULL");
    if (coo->nrows == 0) goto done;
    sorted_row_counts_kernel<<<grid_for(env, coo->nrows), P::block_threads, 0,
                               (cudaStream_t)env->stream>>>(coo->row, coo->nnz, coo->nrows,
                                                            d_counts);
    SP_CUDA_LAUNCHED("sorted_row_counts_kernel");
done:
    return st;
}

extern "C" sp_status_t sp__gpu_coo_to_csr_offsets(const sp_gpu_env_t *env,
                                                  const sp_triplets_t *coo, int offset_bits,
                                                  sp_csr_t *csr)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c = {0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL, NULL};
    void *d_temp = NULL;
    size_t temp_bytes = 0, vs = 0;
    cudaStream_t s = NULL;
    SP_CHECK_ARG(env != NULL && coo != NULL && csr != NULL, "coo to csr: NULL argument");
    SP_CHECK_ARG(env->alloc != NULL && env->free != NULL,
                 "coo to csr: environment without allocator");
    SP_CHECK_ARG(offset_bits == 0 || offset_bits == 32 || offset_bits == 64,
                 "coo to csr: offset_bits %d is not 0, 32 or 64", offset_bits);
    SP_CHECK_ARG(coo->nrows >= 0 && coo->ncols >= 0 && coo->nnz >= 0,
                 "coo to csr: negative size %lld x %lld with %lld entries", (long long)coo->nrows,
                 (long long)coo->ncols, (long long)coo->nnz);
    if (offset_bits == 0) offset_bits = coo->nnz > INT32_MAX ? 64 : 32;
    if (coo->nrows > INT32_MAX || coo->ncols > INT32_MAX ||
        (offset_bits == 32 && coo->nnz > INT32_MAX))
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "coo to csr: %lld x %lld with %lld entries exceeds 32-bit %s",
                (long long)coo->nrows, (long long)coo->ncols, (long long)coo->nnz,
                coo->nnz > INT32_MAX ? "offsets (use 64)" : "indices");
    vs = sp_value_size(coo->value_type);
    SP_CHECK_ARG(coo->nnz == 0 || (coo->row != NULL && coo->col != NULL &&
                                   (vs == 0 || coo->val != NULL)),
                 "coo to csr: NULL arrays for %lld entries", (long long)coo->nnz);
    s = (cudaStream_t)env->stream;
    c.nrows = coo->nrows;
    c.ncols = coo->ncols;
    c.nnz = coo->nnz;
    c.value_type = coo->value_type;
    if (offset_bits == 64) {
        SP_TRY(env_alloc_n(env, &c.ptr64, c.nrows + 1));
    } else {
        SP_TRY(segment_starts(env, coo->row, c.nnz, NULL, c.nrows, NULL, &temp_bytes));
        SP_TRY(env_alloc(env, &d_temp, temp_bytes));
        SP_TRY(env_alloc_n(env, &c.ptr, c.nrows + 1));
    }
    SP_TRY(env_alloc_n(env, &c.idx, c.nnz));
    SP_TRY(env_alloc(env, &c.val, (size_t)c.nnz * vs));
    if (offset_bits == 64) {
        row_starts64_kernel<<<grid_for(env, c.nrows + 1), P::block_threads, 0, s>>>(
            coo->row, c.nnz, c.nrows, c.ptr64);
        SP_CUDA_LAUNCHED("row_starts64_kernel");
    } else {
        SP_TRY(segment_starts(env, coo->row, c.nnz, c.ptr, c.nrows, d_temp, &temp_bytes));
    }
    if (c.nnz > 0) {
        SP_CUDA_TRY(cudaMemcpyAsync(c.idx, coo->col, (size_t)c.nnz * sizeof *c.idx,
                                    cudaMemcpyDeviceToDevice, s));
        if (vs)
            SP_CUDA_TRY(cudaMemcpyAsync(c.val, coo->val, (size_t)c.nnz * vs,
                                        cudaMemcpyDeviceToDevice, s));
    }
    *csr = c;
    c = (sp_csr_t){0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL, NULL};
done:
    env_free(env, d_temp);
    if (env) sp__gpu_csr_free(env, &c);
    return st;
}

extern "C" sp_status_t sp__gpu_coo_to_csr(const sp_gpu_env_t *env, const sp_triplets_t *coo,
                                          sp_csr_t *csr)
{
    return sp__gpu_coo_to_csr_offsets(env, coo, 32, csr);
}
