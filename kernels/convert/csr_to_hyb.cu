/* HYB on the GPU (Bell & Garland; PMPP, sparse-format chapter): the default ELL width by
 * their rule from a histogram of row lengths (small, read back and walked on the host),
 * the ELL part as csr_to_ell, the overflow counted per row, scanned into COO offsets and
 * scattered one thread per entry, row-sorted as sp__ref_csr_to_hyb. A CSR with 64-bit
 * offsets (issue 20) is read at that width, its overflow's offsets a 64-bit scan. */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* over[r] = entries of row r past the ELL width. Off: the pointers' type. */
template <typename Off>
__global__ void __launch_bounds__(P::block_threads)
overflow_kernel(const Off *ptr, int64_t nrows, int64_t width, int32_t *over)
{
    for (int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::block_threads) {
        int64_t len = ptr[r + 1] - ptr[r];
        over[r] = (int32_t)(len > width ? len - width : 0);
    }
}

/* Entry k >= width of row r goes to COO slot off[r] + k - width. Off: the type of the
 * pointers and the offsets. */
template <typename W, typename Off>
__global__ void __launch_bounds__(P::block_threads)
scatter_kernel(const Off *ptr, const int32_t *idx, const W *val, int64_t nrows, int64_t nnz,
               int64_t width, const Off *off, int32_t *row_out, int32_t *col_out, W *val_out)
{
    for (int64_t e = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; e < nnz;
         e += (int64_t)gridDim.x * P::block_threads) {
        int64_t r = row_of(ptr, nrows, e), k = e - ptr[r];
        if (k < width) continue;
        int64_t p = off[r] + k - width;
        row_out[p] = (int32_t)r;
        col_out[p] = idx[e];
        if (val) val_out[p] = val[e];
    }
}

/* Bell & Garland's width (sp__ref_hyb_width): the largest k such that at least
 * max(ceil(nrows/3), min(nrows, 4096)) rows have length >= k, from the histogram of row
 * lengths, walked down from the longest row on the host. */
sp_status_t rule_width(const sp_gpu_env_t *env, const sp_csr_t *csr, int32_t *d_len,
                       int32_t *d_slot, int64_t *width)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    scratch_plan plan;
    void *scratch = NULL;
    int32_t *h_hist = NULL;
    size_t temp_bytes = 0, o_hist, o_temp;
    int64_t n = csr->nrows, need = (n + 2) / 3, longest = 0, at_least = 0;
    *width = 0;
    if (n == 0) goto done;
    if (need < (n < 4096 ? n : 4096)) need = n < 4096 ? n : 4096;
    SP_TRY(longest_row(env, csr, d_slot, &longest));
    SP_TRY(sp__gpu_histogram(NULL, n, NULL, longest + 1, NULL, &temp_bytes, s));
    o_hist = plan.add_n<int32_t>(longest + 1);
    o_temp = plan.add(temp_bytes);
    SP_TRY(env_alloc(env, &scratch, plan.total));
    h_hist = static_cast<int32_t *>(sp__malloc_array((size_t)(longest + 1), sizeof *h_hist));
    if (h_hist == NULL)
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "csr to hyb: out of host memory allocating %lld x 4 bytes",
                (long long)(longest + 1));
    SP_TRY(row_lengths<P::block_threads>(env, csr, d_len));
    SP_TRY(sp__gpu_histogram(d_len, n, at<int32_t>(scratch, o_hist), longest + 1,
                             at<void>(scratch, o_temp), &temp_bytes, s));
    SP_TRY(to_host(env, h_hist, at<int32_t>(scratch, o_hist),
                   (size_t)(longest + 1) * sizeof *h_hist));
    for (int64_t k = longest; k >= 0; k--) {
        at_least += h_hist[k];
        if (at_least >= need) {
            *width = k;
            break;
        }
    }
done:
    sp__free(h_hist);
    env_free(env, scratch);
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_to_hyb(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                          int64_t width, sp_hyb_t *hyb)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_hyb_t h;
    sp_triplets_t *coo = &h.coo;
    scratch_plan plan;
    void *scratch = NULL;
    size_t scan_bytes = 0, vs = 0, o_len, o_slot, o_temp, o_off64 = 0;
    int32_t h_total = 0;
    int64_t h_total64 = 0, *off64 = NULL;
    cudaStream_t s = NULL;
    memset(&h, 0, sizeof h);
    SP_TRY(check_csr("csr to hyb", env, csr, hyb, true));
    s = (cudaStream_t)env->stream;
    vs = sp_value_size(csr->value_type);
    if (csr->ptr64)
        SP_TRY(offsets64_of_counts(env, NULL, csr->nrows, NULL, NULL, &scan_bytes));
    else
        SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, csr->nrows, NULL, NULL, &scan_bytes, s));
    o_len = plan.add_n<int32_t>(csr->nrows);
    o_slot = plan.add_n<int32_t>(1);
    o_temp = plan.add(scan_bytes);
    if (csr->ptr64) o_off64 = plan.add_n<int64_t>(csr->nrows + 1);
    SP_TRY(env_alloc(env, &scratch, plan.total));
    if (csr->ptr64) off64 = at<int64_t>(scratch, o_off64);
    if (width < 0)
        SP_TRY(rule_width(env, csr, at<int32_t>(scratch, o_len), at<int32_t>(scratch, o_slot),
                          &width));
    SP_TRY(sp__gpu_csr_to_ell_width(env, csr, width, &h.ell));

    /* the overflow: count per row, scan into offsets (in place; at 64 bits into off64),
       scatter */
    if (csr->nrows > 0) {
        if (csr->ptr64)
            overflow_kernel<<<grid_for(env, csr->nrows), P::block_threads, 0, s>>>(
                csr->ptr64, csr->nrows, width, at<int32_t>(scratch, o_len));
        else
            overflow_kernel<<<grid_for(env, csr->nrows), P::block_threads, 0, s>>>(
                csr->ptr, csr->nrows, width, at<int32_t>(scratch, o_len));
        SP_CUDA_LAUNCHED("overflow_kernel");
    }
    if (csr->ptr64) {
        SP_TRY(offsets64_of_counts(env, at<int32_t>(scratch, o_len), csr->nrows, off64,
                                   at<void>(scratch, o_temp), &scan_bytes));
        SP_TRY(to_host(env, &h_total64, off64 + csr->nrows, sizeof h_total64));
    } else {
        SP_TRY(sp__gpu_exclusive_scan_i32(at<int32_t>(scratch, o_len),
                                          at<int32_t>(scratch, o_len), csr->nrows,
                                          at<int32_t>(scratch, o_slot),
                                          at<void>(scratch, o_temp), &scan_bytes, s));
        SP_TRY(to_host(env, &h_total, at<int32_t>(scratch, o_slot), sizeof h_total));
        h_total64 = h_total;
    }
    coo->nrows = csr->nrows;
    coo->ncols = csr->ncols;
    coo->nnz = h_total64;
    coo->value_type = csr->value_type;
    SP_TRY(env_alloc_n(env, &coo->row, coo->nnz));
    SP_TRY(env_alloc_n(env, &coo->col, coo->nnz));
    SP_TRY(env_alloc(env, &coo->val, (size_t)coo->nnz * vs));
    if (coo->nnz > 0) {
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            if (csr->ptr64)
                scatter_kernel<W><<<grid_for(env, csr->nnz), P::block_threads, 0, s>>>(
                    csr->ptr64, csr->idx, static_cast<const W *>(csr->val), csr->nrows,
                    csr->nnz, width, off64, coo->row, coo->col, static_cast<W *>(coo->val));
            else
                scatter_kernel<W><<<grid_for(env, csr->nnz), P::block_threads, 0, s>>>(
                    csr->ptr, csr->idx, static_cast<const W *>(csr->val), csr->nrows, csr->nnz,
                    width, at<int32_t>(scratch, o_len), coo->row, coo->col,
                    static_cast<W *>(coo->val));
        });
        SP_CUDA_LAUNCHED("scatter_kernel");
    }
    *hyb = h;
    memset(&h, 0, sizeof h);
done:
    env_free(env, scratch);
    if (env) sp__gpu_hyb_free(env, &h);
    return st;
}
