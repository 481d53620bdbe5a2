/* CSC (the transpose's CSR) on the GPU (PMPP, sparse-format chapter): a histogram of the
 * columns scanned into column pointers; a stable radix sort of the entry indices by column
 * keeps rows increasing within each column, as sp__ref_csr_to_csc's scatter in row order.
 * Each output entry then finds its row by binary search in ptr, balanced for any row. */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* Output entry p is input entry k = perm[p]: its row and its value. */
template <typename W>
__global__ void __launch_bounds__(P::block_threads)
gather_kernel(const int32_t *ptr, int64_t nrows, const W *val, const int32_t *perm, int64_t nnz,
              int32_t *idx_out, W *val_out)
{
    for (int64_t p = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; p < nnz;
         p += (int64_t)gridDim.x * P::block_threads) {
        int64_t k = perm[p];
        idx_out[p] = (int32_t)row_of(ptr, nrows, k);
        if (val) val_out[p] = val[k];
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_to_csc(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                          sp_csr_t *csc)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c = {0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL};
    void *scratch = NULL;
    scratch_plan plan;
    size_t seg_bytes = 0, sort_bytes = 0, temp_bytes = 0, vs = 0, o_keys, o_perm, o_temp;
    uint32_t *keys = NULL;
    int32_t *perm = NULL;
    cudaStream_t s = NULL;
    int64_t nnz = 0;
    SP_TRY(check_csr("csr to csc", env, csr, csc));
    s = (cudaStream_t)env->stream;
    vs = sp_value_size(csr->value_type);
    nnz = csr->nnz;
    c.nrows = csr->nrows;
    c.ncols = csr->ncols;
    c.nnz = nnz;
    c.value_type = csr->value_type;
    SP_TRY(segment_starts(env, csr->idx, nnz, NULL, c.ncols, NULL, &seg_bytes));
    SP_TRY(sort_pairs_temp_bytes(nnz, &sort_bytes));
    temp_bytes = seg_bytes > sort_bytes ? seg_bytes : sort_bytes;
    o_keys = plan.add_n<uint32_t>(nnz);
    o_perm = plan.add_n<int32_t>(nnz);
    o_temp = plan.add(temp_bytes);
    SP_TRY(env_alloc(env, &scratch, plan.total));
    keys = at<uint32_t>(scratch, o_keys);
    perm = at<int32_t>(scratch, o_perm);
    SP_TRY(env_alloc_n(env, &c.ptr, c.ncols + 1));
    SP_TRY(env_alloc_n(env, &c.idx, nnz));
    SP_TRY(env_alloc(env, &c.val, (size_t)nnz * vs));
    SP_TRY(segment_starts(env, csr->idx, nnz, c.ptr, c.ncols, at<void>(scratch, o_temp),
                          &temp_bytes));
    if (nnz > 0) {
        SP_CUDA_TRY(cudaMemcpyAsync(keys, csr->idx, (size_t)nnz * sizeof *keys,
                                    cudaMemcpyDeviceToDevice, s));
        iota_kernel<P::block_threads><<<grid_for(env, nnz), P::block_threads, 0, s>>>(perm, nnz);
        SP_CUDA_LAUNCHED("iota_kernel");
        SP_TRY(sp__gpu_radix_sort_pairs_u32(keys, perm, nnz,
                                            key_bits_for((uint64_t)(c.ncols > 0 ? c.ncols - 1 : 0)),
                                            at<void>(scratch, o_temp), &temp_bytes, s));
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            gather_kernel<W><<<grid_for(env, nnz), P::block_threads, 0, s>>>(
                csr->ptr, csr->nrows, static_cast<const W *>(csr->val), perm, nnz, c.idx,
                static_cast<W *>(c.val));
        });
        SP_CUDA_LAUNCHED("gather_kernel");
    }
    *csc = c;
    c = (sp_csr_t){0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL};
done:
    env_free(env, scratch);
    if (env) sp__gpu_csr_free(env, &c);
    return st;
}
