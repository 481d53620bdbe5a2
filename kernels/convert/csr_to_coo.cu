/* A COO made again on the GPU from its matrix's CSR (sp_matrix_build(COO) after
 * sp_matrix_release(COO), issue 20: past 2^31 entries the device COO is as large as the
 * CSR, and a user who keeps only the CSR gets that memory back). Every entry's row written
 * by a warp per row (its lanes stride over the row, so a row of a million entries is one
 * warp's, not one thread's, walk), column ids and values copied on the stream. The entries
 * come out in the CSR's order, row-major with columns in order: the order the upload's sort
 * left the COO in, so the made COO is the released one. Either pointer width. Host twin:
 * sp__ref_csr_to_coo (src/ref/csr_to_coo_ref.c). */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* row[k] = r for every entry k of row r. */
template <typename Off>
__global__ void __launch_bounds__(P::block_threads)
row_ids_kernel(const Off *ptr, int64_t nrows, int32_t *row)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (P::block_threads / 32);
    for (int64_t r = ((int64_t)blockIdx.x * P::block_threads + threadIdx.x) / 32; r < nrows;
         r += warps) {
        const int64_t end = (int64_t)ptr[r + 1];
        for (int64_t k = (int64_t)ptr[r] + lane; k < end; k += 32) row[k] = (int32_t)r;
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_to_coo(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                          sp_triplets_t *coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_triplets_t t = {0};
    size_t vs = 0;
    cudaStream_t s = NULL;
    SP_CHECK_ARG(env != NULL && csr != NULL && coo != NULL, "csr to coo: NULL argument");
    SP_CHECK_ARG(csr->nnz == 0 || ((csr->ptr != NULL || csr->ptr64 != NULL) && csr->idx != NULL),
                 "csr to coo: a CSR of %lld entries without arrays", (long long)csr->nnz);
    s = (cudaStream_t)env->stream;
    vs = sp_value_size(csr->value_type);
    t.nrows = csr->nrows;
    t.ncols = csr->ncols;
    t.nnz = csr->nnz;
    t.value_type = csr->value_type;
    if (csr->nnz > 0) {
        SP_TRY(env_alloc_n(env, &t.row, csr->nnz));
        SP_TRY(env_alloc_n(env, &t.col, csr->nnz));
        if (vs > 0) SP_TRY(env_alloc(env, &t.val, (size_t)csr->nnz * vs));
        const unsigned grid = grid_for(env, csr->nrows * 32);
        if (csr->ptr64)
            row_ids_kernel<int64_t><<<grid, P::block_threads, 0, s>>>(csr->ptr64, csr->nrows,
                                                                      t.row);
        else
            row_ids_kernel<int32_t><<<grid, P::block_threads, 0, s>>>(csr->ptr, csr->nrows,
                                                                      t.row);
        SP_CUDA_LAUNCHED("row_ids_kernel");
        SP_CUDA_TRY(cudaMemcpyAsync(t.col, csr->idx, (size_t)csr->nnz * sizeof(int32_t),
                                    cudaMemcpyDeviceToDevice, s));
        if (vs > 0)
            SP_CUDA_TRY(cudaMemcpyAsync(t.val, csr->val, (size_t)csr->nnz * vs,
                                        cudaMemcpyDeviceToDevice, s));
    }
    *coo = t;
    t = (sp_triplets_t){0};
done:
    sp__gpu_triplets_free(env, &t);
    return st;
}
