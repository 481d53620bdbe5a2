/* ELL on the GPU (PMPP, sparse-format chapter; Bell & Garland): the width is the longest
 * row (a max-reduction), padding (column -1, value 0) is set by two memsets, then one
 * thread per entry places it at [k * nrows + r], its row found by binary search, so a row
 * of any length spreads over many threads. As sp__ref_csr_to_ell(_width). The CSR's
 * pointers may be 64-bit (issue 20): ELL itself has none, its slots are 64-bit. */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* Slot k < width of row r gets entry ptr[r] + k; *stored += entries placed. Off: the
 * pointers' type (32- or 64-bit offsets; the slots are 64-bit either way). */
template <typename W, typename Off>
__global__ void __launch_bounds__(P::block_threads)
scatter_kernel(const Off *ptr, const int32_t *idx, const W *val, int64_t nrows, int64_t nnz,
               int64_t width, int32_t *col_out, W *val_out, unsigned long long *stored)
{
    unsigned long long count = 0;
    for (int64_t e = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; e < nnz;
         e += (int64_t)gridDim.x * P::block_threads) {
        int64_t r = row_of(ptr, nrows, e), k = e - ptr[r];
        if (k >= width) continue;
        col_out[k * nrows + r] = idx[e];
        if (val) val_out[k * nrows + r] = val[e];
        count++;
    }
    count = sp_prim::warp_sum(count);
    if ((threadIdx.x & 31) == 0 && count) atomicAdd(stored, count);
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_to_ell_width(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                                int64_t width, sp_ell_t *ell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_ell_t e = {0, 0, 0, 0, SP_VALUE_NONE, NULL, NULL};
    unsigned long long *d_stored = NULL, h_stored = 0;
    cudaStream_t s = NULL;
    size_t vs = 0;
    int64_t slots = 0;
    SP_TRY(check_csr("csr to ell", env, csr, ell, true));
    SP_CHECK_ARG(width >= 0 && width <= INT32_MAX, "csr to ell: width %lld outside 0..%d",
                 (long long)width, INT32_MAX);
    s = (cudaStream_t)env->stream;
    vs = sp_value_size(csr->value_type);
    slots = csr->nrows * width;
    if (slots > ((int64_t)1 << 56))
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "csr to ell: %lld rows x width %lld slots is too large",
                (long long)csr->nrows, (long long)width);
    e.nrows = csr->nrows;
    e.ncols = csr->ncols;
    e.width = width;
    e.value_type = csr->value_type;
    SP_TRY(env_alloc_n(env, &d_stored, 1));
    SP_TRY(env_alloc_n(env, &e.col, slots));
    SP_TRY(env_alloc(env, &e.val, (size_t)slots * vs));
    if (slots > 0) {
        SP_CUDA_TRY(cudaMemsetAsync(e.col, 0xff, (size_t)slots * sizeof *e.col, s));
        if (vs) SP_CUDA_TRY(cudaMemsetAsync(e.val, 0, (size_t)slots * vs, s));
    }
    if (slots > 0 && csr->nnz > 0) {
        SP_CUDA_TRY(cudaMemsetAsync(d_stored, 0, sizeof *d_stored, s));
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            if (csr->ptr64)
                scatter_kernel<W><<<grid_for(env, csr->nnz), P::block_threads, 0, s>>>(
                    csr->ptr64, csr->idx, static_cast<const W *>(csr->val), csr->nrows,
                    csr->nnz, width, e.col, static_cast<W *>(e.val), d_stored);
            else
                scatter_kernel<W><<<grid_for(env, csr->nnz), P::block_threads, 0, s>>>(
                    csr->ptr, csr->idx, static_cast<const W *>(csr->val), csr->nrows, csr->nnz,
                    width, e.col, static_cast<W *>(e.val), d_stored);
        });
        SP_CUDA_LAUNCHED("scatter_kernel");
        SP_TRY(to_host(env, &h_stored, d_stored, sizeof h_stored));
    }
    e.nnz = (int64_t)h_stored;
    *ell = e;
    e = (sp_ell_t){0, 0, 0, 0, SP_VALUE_NONE, NULL, NULL};
done:
    env_free(env, d_stored);
    if (env) sp__gpu_ell_free(env, &e);
    return st;
}

extern "C" sp_status_t sp__gpu_csr_to_ell(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                          sp_ell_t *ell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *d_slot = NULL;
    int64_t longest = 0;
    SP_TRY(check_csr("csr to ell", env, csr, ell, true));
    SP_TRY(env_alloc_n(env, &d_slot, 1));
    SP_TRY(longest_row(env, csr, d_slot, &longest));
    SP_TRY(sp__gpu_csr_to_ell_width(env, csr, longest, ell));
done:
    env_free(env, d_slot);
    return st;
}
