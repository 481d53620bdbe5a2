/* JDS on the GPU (PMPP, sparse-format chapter): rows stably sorted by length descending
 * (radix sort of row ids by longest - length); jd_ptr from the histogram of row lengths
 * (diagonal d holds the rows longer than d: nrows minus a scanned count, scanned again);
 * one thread per entry places it at jd_ptr[d] + sorted position. As sp__ref_csr_to_jds: the
 * diagonal pointers take the CSR's width (jd_ptr64, a 64-bit scan of the 32-bit diagonal
 * counts, from a CSR with 64-bit pointers: issue 20). */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* keys[r] = longest - len[r] (ascending is descending length); perm[r] = r. */
__global__ void __launch_bounds__(P::block_threads)
keys_kernel(const int32_t *len, int64_t nrows, int64_t longest, uint32_t *keys, int32_t *perm)
{
    for (int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::block_threads) {
        keys[r] = (uint32_t)(longest - len[r]);
        perm[r] = (int32_t)r;
    }
}

/* count[d] = rows longer than d = nrows - below[d + 1], where below[l] = rows shorter
 * than l (the scanned length histogram); inv[perm[i]] = i. */
__global__ void __launch_bounds__(P::block_threads)
counts_kernel(const int32_t *below, int64_t njd, int64_t nrows, int32_t *count,
              const int32_t *perm, int32_t *inv)
{
    int64_t stride = (int64_t)gridDim.x * P::block_threads;
    int64_t t = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    for (int64_t d = t; d < njd; d += stride) count[d] = (int32_t)(nrows - below[d + 1]);
    for (int64_t i = t; i < nrows; i += stride) inv[perm[i]] = (int32_t)i;
}

/* Entry d of row r goes to jd_ptr[d] + inv[r]. Off: the type of the CSR's and the diagonal
 * pointers. */
template <typename W, typename Off>
__global__ void __launch_bounds__(P::block_threads)
scatter_kernel(const Off *ptr, const int32_t *idx, const W *val, int64_t nrows, int64_t nnz,
               const Off *jd_ptr, const int32_t *inv, int32_t *col_out, W *val_out)
{
    for (int64_t e = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; e < nnz;
         e += (int64_t)gridDim.x * P::block_threads) {
        int64_t r = row_of(ptr, nrows, e);
        int64_t p = (int64_t)jd_ptr[e - ptr[r]] + inv[r];
        col_out[p] = idx[e];
        if (val) val_out[p] = val[e];
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_to_jds(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                          sp_jds_t *jds)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_jds_t j;
    scratch_plan plan;
    void *scratch = NULL;
    int32_t *d_slot = NULL, *len = NULL, *inv = NULL, *below = NULL, *count = NULL;
    uint32_t *keys = NULL;
    size_t temp_bytes = 0, b = 0, vs = 0, o_len, o_keys, o_inv, o_below, o_temp, o_count = 0;
    void *temp = NULL;
    cudaStream_t s = NULL;
    int64_t n = 0;
    bool wide = false;
    memset(&j, 0, sizeof j);
    SP_TRY(check_csr("csr to jds", env, csr, jds, true));
    wide = csr->ptr64 != NULL;
    s = (cudaStream_t)env->stream;
    vs = sp_value_size(csr->value_type);
    n = csr->nrows;
    j.nrows = n;
    j.ncols = csr->ncols;
    j.nnz = csr->nnz;
    j.value_type = csr->value_type;
    SP_TRY(env_alloc_n(env, &d_slot, 1));
    SP_TRY(longest_row(env, csr, d_slot, &j.njd));

    SP_TRY(sort_pairs_temp_bytes(n, &b));
    temp_bytes = b;
    SP_TRY(sp__gpu_histogram(NULL, n, NULL, j.njd + 1, NULL, &b, s));
    temp_bytes = b > temp_bytes ? b : temp_bytes;
    SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, j.njd + 1, NULL, NULL, &b, s));
    temp_bytes = b > temp_bytes ? b : temp_bytes;
    if (wide) {
        SP_TRY(offsets64_of_counts(env, NULL, j.njd, NULL, NULL, &b));
        temp_bytes = b > temp_bytes ? b : temp_bytes;
    }
    o_len = plan.add_n<int32_t>(n);
    o_keys = plan.add_n<uint32_t>(n);
    o_inv = plan.add_n<int32_t>(n);
    o_below = plan.add_n<int32_t>(j.njd + 2);
    if (wide) o_count = plan.add_n<int32_t>(j.njd + 1);
    o_temp = plan.add(temp_bytes);
    SP_TRY(env_alloc(env, &scratch, plan.total));
    len = at<int32_t>(scratch, o_len);
    keys = at<uint32_t>(scratch, o_keys);
    inv = at<int32_t>(scratch, o_inv);
    below = at<int32_t>(scratch, o_below);
    temp = at<void>(scratch, o_temp);
    SP_TRY(env_alloc_n(env, &j.perm, n));
    if (wide) { /* the diagonal counts in scratch, scanned into jd_ptr64 */
        count = at<int32_t>(scratch, o_count);
        SP_TRY(env_alloc_n(env, &j.jd_ptr64, j.njd + 1));
    } else { /* counted and scanned in place */
        SP_TRY(env_alloc_n(env, &j.jd_ptr, j.njd + 1));
        count = j.jd_ptr;
    }
    SP_TRY(env_alloc_n(env, &j.col, j.nnz));
    SP_TRY(env_alloc(env, &j.val, (size_t)j.nnz * vs));

    if (n > 0) {
        SP_TRY(row_lengths<P::block_threads>(env, csr, len));
        keys_kernel<<<grid_for(env, n), P::block_threads, 0, s>>>(len, n, j.njd, keys, j.perm);
        SP_CUDA_LAUNCHED("keys_kernel");
        SP_TRY(sp__gpu_radix_sort_pairs_u32(keys, j.perm, n, key_bits_for((uint64_t)j.njd), temp,
                                            &temp_bytes, s));
    }
    SP_TRY(sp__gpu_histogram(len, n, below, j.njd + 1, temp, &temp_bytes, s));
    SP_TRY(sp__gpu_exclusive_scan_i32(below, below, j.njd + 1, below + j.njd + 1, temp,
                                      &temp_bytes, s));
    if (n > 0) {
        counts_kernel<<<grid_for(env, n > j.njd ? n : j.njd), P::block_threads, 0, s>>>(
            below, j.njd, n, count, j.perm, inv);
        SP_CUDA_LAUNCHED("counts_kernel");
    }
    if (wide)
        SP_TRY(offsets64_of_counts(env, count, j.njd, j.jd_ptr64, temp, &temp_bytes));
    else
        SP_TRY(sp__gpu_exclusive_scan_i32(j.jd_ptr, j.jd_ptr, j.njd, j.jd_ptr + j.njd, temp,
                                          &temp_bytes, s));
    if (j.nnz > 0) {
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            if (wide)
                scatter_kernel<W><<<grid_for(env, j.nnz), P::block_threads, 0, s>>>(
                    csr->ptr64, csr->idx, static_cast<const W *>(csr->val), n, j.nnz,
                    j.jd_ptr64, inv, j.col, static_cast<W *>(j.val));
            else
                scatter_kernel<W><<<grid_for(env, j.nnz), P::block_threads, 0, s>>>(
                    csr->ptr, csr->idx, static_cast<const W *>(csr->val), n, j.nnz, j.jd_ptr,
                    inv, j.col, static_cast<W *>(j.val));
        });
        SP_CUDA_LAUNCHED("scatter_kernel");
    }
    *jds = j;
    memset(&j, 0, sizeof j);
done:
    env_free(env, scratch);
    env_free(env, d_slot);
    if (env) sp__gpu_jds_free(env, &j);
    return st;
}
