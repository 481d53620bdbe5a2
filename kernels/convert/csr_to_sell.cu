/* SELL-C-sigma on the GPU (Kreutzer et al.; PMPP, sparse-format chapter): rows stably
 * sorted by (window of sigma rows, descending length) with one radix sort on the key
 * window|(longest - length) when it fits 32 bits, else two stable passes; slice widths by
 * max over each slice's rows, slice_ptr = exclusive scan of width * C (64-bit, checked
 * against 32-bit offsets; kept as slice_ptr64 from a CSR with 64-bit pointers: issue 20);
 * one thread per entry scatters. As sp__ref_csr_to_sell. */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* keys[r] = (r / sigma) << len_bits | (longest - len[r]), or without the window when
 * len_bits is 32 (the first of two passes); perm[r] = r. */
__global__ void __launch_bounds__(P::block_threads)
keys_kernel(const int32_t *len, int64_t nrows, int64_t longest, int64_t sigma, int len_bits,
            uint32_t *keys, int32_t *perm)
{
    for (int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::block_threads) {
        uint32_t k = (uint32_t)(longest - len[r]);
        if (len_bits < 32) k |= (uint32_t)(r / sigma) << len_bits;
        keys[r] = k;
        perm[r] = (int32_t)r;
    }
}

/* keys[i] = window of the row at sorted position i (the second pass). */
__global__ void __launch_bounds__(P::block_threads)
window_keys_kernel(const int32_t *perm, int64_t nrows, int64_t sigma, uint32_t *keys)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < nrows;
         i += (int64_t)gridDim.x * P::block_threads)
        keys[i] = (uint32_t)(perm[i] / sigma);
}

/* slice_width[p / c] = max length of its rows (slice_width zeroed); inv[perm[p]] = p. */
__global__ void __launch_bounds__(P::block_threads)
widths_kernel(const int32_t *len, const int32_t *perm, int64_t nrows, int c, int32_t *slice_width,
              int32_t *inv)
{
    for (int64_t p = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; p < nrows;
         p += (int64_t)gridDim.x * P::block_threads) {
        int32_t r = perm[p];
        inv[r] = (int32_t)p;
        if (len[r] > 0) atomicMax(&slice_width[p / c], len[r]);
    }
}

/* size[s] = slice_width[s] * c, 64-bit. */
__global__ void __launch_bounds__(P::block_threads)
sizes_kernel(const int32_t *slice_width, int64_t nslices, int c, int64_t *size)
{
    for (int64_t s = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; s < nslices;
         s += (int64_t)gridDim.x * P::block_threads)
        size[s] = (int64_t)slice_width[s] * c;
}

/* slice_ptr[s] = offset[s] for s <= nslices (all checked to fit 32 bits). */
__global__ void __launch_bounds__(P::block_threads)
narrow_kernel(const int64_t *offset, int64_t n, int32_t *slice_ptr)
{
    for (int64_t s = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; s < n;
         s += (int64_t)gridDim.x * P::block_threads)
        slice_ptr[s] = (int32_t)offset[s];
}

/* Entry k of the row at sorted position p goes to slice_ptr[p / c] + k * c + p % c. Off:
 * the type of the CSR's pointers and the slice offsets. */
template <typename W, typename Off>
__global__ void __launch_bounds__(P::block_threads)
scatter_kernel(const Off *ptr, const int32_t *idx, const W *val, int64_t nrows, int64_t nnz,
               int c, const Off *slice_ptr, const int32_t *inv, int32_t *col_out, W *val_out)
{
    for (int64_t e = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; e < nnz;
         e += (int64_t)gridDim.x * P::block_threads) {
        int64_t r = row_of(ptr, nrows, e), p = inv[r];
        int64_t q = (int64_t)slice_ptr[p / c] + (e - ptr[r]) * c + p % c;
        col_out[q] = idx[e];
        if (val) val_out[q] = val[e];
    }
}

/* perm = rows ordered by (window, descending length, row). */
sp_status_t sort_rows(const sp_gpu_env_t *env, const int32_t *len, int64_t nrows, int64_t longest,
                      int sigma, uint32_t *keys, int32_t *perm, void *temp, size_t temp_bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    int len_bits = key_bits_for((uint64_t)longest);
    int window_bits = key_bits_for((uint64_t)((nrows - 1) / sigma));
    bool one_pass = len_bits + window_bits <= 32;
    keys_kernel<<<grid_for(env, nrows), P::block_threads, 0, s>>>(
        len, nrows, longest, sigma, one_pass ? len_bits : 32, keys, perm);
    SP_CUDA_LAUNCHED("keys_kernel");
    SP_TRY(sp__gpu_radix_sort_pairs_u32(keys, perm, nrows,
                                        one_pass ? len_bits + window_bits : len_bits, temp,
                                        &temp_bytes, s));
    if (one_pass) goto done;
    window_keys_kernel<<<grid_for(env, nrows), P::block_threads, 0, s>>>(perm, nrows, sigma, keys);
    SP_CUDA_LAUNCHED("window_keys_kernel");
    SP_TRY(sp__gpu_radix_sort_pairs_u32(keys, perm, nrows, window_bits, temp, &temp_bytes, s));
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_to_sell(const sp_gpu_env_t *env, const sp_csr_t *csr, int c,
                                           int sigma, sp_sell_t *sell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_sell_t sl;
    scratch_plan plan;
    void *scratch = NULL, *temp = NULL;
    int32_t *d_slot = NULL, *len = NULL, *inv = NULL;
    uint32_t *keys = NULL;
    int64_t *offset = NULL, longest = 0, n = 0;
    size_t temp_bytes = 0, b = 0, vs = 0, o_len, o_keys, o_inv, o_offset, o_temp;
    cudaStream_t s = NULL;
    bool wide = false;
    memset(&sl, 0, sizeof sl);
    SP_TRY(check_csr("csr to sell", env, csr, sell, true));
    wide = csr->ptr64 != NULL;
    SP_CHECK_ARG(c > 0 && sigma > 0 && sigma % c == 0,
                 "csr to sell: sigma %d is not a positive multiple of C %d", sigma, c);
    s = (cudaStream_t)env->stream;
    vs = sp_value_size(csr->value_type);
    n = csr->nrows;
    sl.nrows = n;
    sl.ncols = csr->ncols;
    sl.nnz = csr->nnz;
    sl.nslices = (n + c - 1) / c;
    sl.c = c;
    sl.sigma = sigma;
    sl.value_type = csr->value_type;
    SP_TRY(env_alloc_n(env, &d_slot, 1));
    SP_TRY(longest_row(env, csr, d_slot, &longest));

    SP_TRY(sort_pairs_temp_bytes(n, &b));
    temp_bytes = b;
    SP_TRY(sp__gpu_exclusive_scan_i64(NULL, NULL, sl.nslices, NULL, NULL, &b, s));
    temp_bytes = b > temp_bytes ? b : temp_bytes;
    o_len = plan.add_n<int32_t>(n);
    o_keys = plan.add_n<uint32_t>(n);
    o_inv = plan.add_n<int32_t>(n);
    o_offset = plan.add_n<int64_t>(sl.nslices + 1);
    o_temp = plan.add(temp_bytes);
    SP_TRY(env_alloc(env, &scratch, plan.total));
    len = at<int32_t>(scratch, o_len);
    keys = at<uint32_t>(scratch, o_keys);
    inv = at<int32_t>(scratch, o_inv);
    offset = at<int64_t>(scratch, o_offset);
    temp = at<void>(scratch, o_temp);
    SP_TRY(env_alloc_n(env, &sl.perm, n));
    if (wide) { /* the offsets scanned straight into slice_ptr64 */
        SP_TRY(env_alloc_n(env, &sl.slice_ptr64, sl.nslices + 1));
        offset = sl.slice_ptr64;
    } else {
        SP_TRY(env_alloc_n(env, &sl.slice_ptr, sl.nslices + 1));
    }
    SP_TRY(env_alloc_n(env, &sl.slice_width, sl.nslices));

    if (n > 0) {
        SP_TRY(row_lengths<P::block_threads>(env, csr, len));
        SP_TRY(sort_rows(env, len, n, longest, sigma, keys, sl.perm, temp, temp_bytes));
        SP_CUDA_TRY(cudaMemsetAsync(sl.slice_width, 0, (size_t)sl.nslices * sizeof(int32_t), s));
        widths_kernel<<<grid_for(env, n), P::block_threads, 0, s>>>(len, sl.perm, n, c,
                                                                     sl.slice_width, inv);
        SP_CUDA_LAUNCHED("widths_kernel");
        sizes_kernel<<<grid_for(env, sl.nslices), P::block_threads, 0, s>>>(
            sl.slice_width, sl.nslices, c, offset);
        SP_CUDA_LAUNCHED("sizes_kernel");
    }
    SP_TRY(sp__gpu_exclusive_scan_i64(offset, offset, sl.nslices, offset + sl.nslices, temp,
                                      &temp_bytes, s));
    SP_TRY(to_host(env, &sl.padded, offset + sl.nslices, sizeof sl.padded));
    if (sl.padded > INT32_MAX && !wide)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "csr to sell: %lld padded slots exceed 32-bit offsets (C %d)",
                (long long)sl.padded, c);
    if (!wide) {
        narrow_kernel<<<grid_for(env, sl.nslices + 1), P::block_threads, 0, s>>>(
            offset, sl.nslices + 1, sl.slice_ptr);
        SP_CUDA_LAUNCHED("narrow_kernel");
    }

    SP_TRY(env_alloc_n(env, &sl.col, sl.padded));
    SP_TRY(env_alloc(env, &sl.val, (size_t)sl.padded * vs));
    if (sl.padded > 0) {
        SP_CUDA_TRY(cudaMemsetAsync(sl.col, 0xff, (size_t)sl.padded * sizeof(int32_t), s));
        if (vs) SP_CUDA_TRY(cudaMemsetAsync(sl.val, 0, (size_t)sl.padded * vs, s));
    }
    if (sl.nnz > 0) {
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            if (wide)
                scatter_kernel<W><<<grid_for(env, sl.nnz), P::block_threads, 0, s>>>(
                    csr->ptr64, csr->idx, static_cast<const W *>(csr->val), n, sl.nnz, c,
                    sl.slice_ptr64, inv, sl.col, static_cast<W *>(sl.val));
            else
                scatter_kernel<W><<<grid_for(env, sl.nnz), P::block_threads, 0, s>>>(
                    csr->ptr, csr->idx, static_cast<const W *>(csr->val), n, sl.nnz, c,
                    sl.slice_ptr, inv, sl.col, static_cast<W *>(sl.val));
        });
        SP_CUDA_LAUNCHED("scatter_kernel");
    }
    *sell = sl;
    memset(&sl, 0, sizeof sl);
done:
    env_free(env, scratch);
    env_free(env, d_slot);
    if (env) sp__gpu_sell_free(env, &sl);
    return st;
}
