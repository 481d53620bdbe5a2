/* CSR of a sorted, merged COO on the GPU (PMPP, sparse-format chapter; cs_compress): a
 * histogram of the rows scanned into row pointers; sorted entries are already in CSR
 * order, so columns and values are copied device to device. As sp__ref_coo_to_csr. */
#include "convert_common.cuh"

using namespace sp_convert;

extern "C" sp_status_t sp__gpu_coo_to_csr(const sp_gpu_env_t *env, const sp_triplets_t *coo,
                                          sp_csr_t *csr)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c = {0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL};
    void *d_temp = NULL;
    size_t temp_bytes = 0, vs = 0;
    cudaStream_t s = NULL;
    SP_CHECK_ARG(env != NULL && coo != NULL && csr != NULL, "coo to csr: NULL argument");
    SP_CHECK_ARG(env->alloc != NULL && env->free != NULL,
                 "coo to csr: environment without allocator");
    SP_CHECK_ARG(coo->nrows >= 0 && coo->ncols >= 0 && coo->nnz >= 0,
                 "coo to csr: negative size %lld x %lld with %lld entries", (long long)coo->nrows,
                 (long long)coo->ncols, (long long)coo->nnz);
    if (coo->nrows > INT32_MAX || coo->ncols > INT32_MAX || coo->nnz > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "coo to csr: %lld x %lld with %lld entries exceeds 32-bit indices",
                (long long)coo->nrows, (long long)coo->ncols, (long long)coo->nnz);
    vs = sp_value_size(coo->value_type);
    SP_CHECK_ARG(coo->nnz == 0 || (coo->row != NULL && coo->col != NULL &&
                                   (vs == 0 || coo->val != NULL)),
                 "coo to csr: NULL arrays for %lld entries", (long long)coo->nnz);
    s = (cudaStream_t)env->stream;
    c.nrows = coo->nrows;
    c.ncols = coo->ncols;
    c.nnz = coo->nnz;
    c.value_type = coo->value_type;
    SP_TRY(segment_starts(env, coo->row, c.nnz, NULL, c.nrows, NULL, &temp_bytes));
    SP_TRY(env_alloc(env, &d_temp, temp_bytes));
    SP_TRY(env_alloc_n(env, &c.ptr, c.nrows + 1));
    SP_TRY(env_alloc_n(env, &c.idx, c.nnz));
    SP_TRY(env_alloc(env, &c.val, (size_t)c.nnz * vs));
    SP_TRY(segment_starts(env, coo->row, c.nnz, c.ptr, c.nrows, d_temp, &temp_bytes));
    if (c.nnz > 0) {
        SP_CUDA_TRY(cudaMemcpyAsync(c.idx, coo->col, (size_t)c.nnz * sizeof *c.idx,
                                    cudaMemcpyDeviceToDevice, s));
        if (vs)
            SP_CUDA_TRY(cudaMemcpyAsync(c.val, coo->val, (size_t)c.nnz * vs,
                                        cudaMemcpyDeviceToDevice, s));
    }
    *csr = c;
    c = (sp_csr_t){0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL};
done:
    env_free(env, d_temp);
    if (env) sp__gpu_csr_free(env, &c);
    return st;
}
