/* The long-row split on the GPU (the tail of ELL, JDS and SELL; sp_formats.h): per row its
 * length in one of two count arrays (at most bound: the kept CSR; longer: the tail), an
 * exclusive scan of each, then one thread per entry copies it to its side. As
 * sp__ref_csr_split_long. A CSR with 64-bit offsets (issue 20) is split at that width: the
 * kept CSR's pointers and the tail's offsets are 64-bit scans of the 32-bit row counts. */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* keep[r], cut[r] = row r's length on its side, 0 on the other. Off: the pointers' type. */
template <typename Off>
__global__ void __launch_bounds__(P::block_threads)
split_counts_kernel(const Off *ptr, int64_t nrows, int64_t bound, int32_t *keep, int32_t *cut)
{
    for (int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::block_threads) {
        int32_t len = (int32_t)(ptr[r + 1] - ptr[r]);
        bool is_long = len > bound;
        keep[r] = is_long ? 0 : len;
        cut[r] = is_long ? len : 0;
    }
}

/* Entry e of row r goes to keep_ptr[r] + k (kept row) or cut_at[r] + k (tail, with its row).
 * Off: the type of the pointers and of both sides' offsets. */
template <typename W, typename Off>
__global__ void __launch_bounds__(P::block_threads)
split_scatter_kernel(const Off *ptr, const int32_t *idx, const W *val, int64_t nrows,
                     int64_t nnz, int64_t bound, const Off *keep_ptr, const Off *cut_at,
                     int32_t *keep_idx, W *keep_val, int32_t *tail_row, int32_t *tail_col,
                     W *tail_val)
{
    for (int64_t e = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; e < nnz;
         e += (int64_t)gridDim.x * P::block_threads) {
        int64_t r = row_of(ptr, nrows, e), k = e - ptr[r];
        if (ptr[r + 1] - ptr[r] > bound) {
            int64_t q = cut_at[r] + k;
            tail_row[q] = (int32_t)r;
            tail_col[q] = idx[e];
            if (val) tail_val[q] = val[e];
        } else {
            int64_t q = keep_ptr[r] + k;
            keep_idx[q] = idx[e];
            if (val) keep_val[q] = val[e];
        }
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_split_long(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                              int64_t bound, sp_csr_t *short_rows,
                                              sp_triplets_t *tail)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t s;
    sp_triplets_t t;
    int32_t *cut = NULL, *keep = NULL, ntail = 0;
    int64_t *cut64 = NULL, ntail64 = 0;
    void *temp = NULL;
    size_t temp_bytes = 0, vs = 0;
    int64_t n = 0;
    cudaStream_t stream = NULL;
    bool wide = false;
    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    SP_TRY(check_csr("csr split long", env, csr, short_rows, true));
    SP_CHECK_ARG(tail != NULL, "csr split long: NULL tail");
    SP_CHECK_ARG(bound >= 0, "csr split long: bound %lld is negative", (long long)bound);
    stream = (cudaStream_t)env->stream;
    n = csr->nrows;
    vs = sp_value_size(csr->value_type);
    s.nrows = t.nrows = n;
    s.ncols = t.ncols = csr->ncols;
    s.value_type = t.value_type = csr->value_type;
    wide = csr->ptr64 != NULL;
    if (wide) { /* 32-bit row counts, scanned into 64-bit pointers and offsets */
        SP_TRY(env_alloc_n(env, &s.ptr64, n + 1));
        SP_TRY(env_alloc_n(env, &cut64, n + 1));
        SP_TRY(env_alloc_n(env, &keep, n + 1));
        SP_TRY(offsets64_of_counts(env, NULL, n, NULL, NULL, &temp_bytes));
    } else { /* counted and scanned in place */
        SP_TRY(env_alloc_n(env, &s.ptr, n + 1));
        keep = s.ptr;
        SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, n, NULL, NULL, &temp_bytes, stream));
    }
    SP_TRY(env_alloc_n(env, &cut, n + 1));
    SP_TRY(env_alloc(env, &temp, temp_bytes));
    if (n > 0) {
        if (wide)
            split_counts_kernel<<<grid_for(env, n), P::block_threads, 0, stream>>>(
                csr->ptr64, n, bound, keep, cut);
        else
            split_counts_kernel<<<grid_for(env, n), P::block_threads, 0, stream>>>(
                csr->ptr, n, bound, keep, cut);
        SP_CUDA_LAUNCHED("split_counts_kernel");
    }
    if (wide) {
        SP_TRY(offsets64_of_counts(env, keep, n, s.ptr64, temp, &temp_bytes));
        SP_TRY(offsets64_of_counts(env, cut, n, cut64, temp, &temp_bytes));
        SP_TRY(to_host(env, &ntail64, cut64 + n, sizeof ntail64));
        t.nnz = ntail64;
    } else {
        SP_TRY(sp__gpu_exclusive_scan_i32(s.ptr, s.ptr, n, s.ptr + n, temp, &temp_bytes,
                                          stream));
        SP_TRY(sp__gpu_exclusive_scan_i32(cut, cut, n, cut + n, temp, &temp_bytes, stream));
        SP_TRY(to_host(env, &ntail, cut + n, sizeof ntail));
        t.nnz = ntail;
    }
    s.nnz = csr->nnz - t.nnz;
    SP_TRY(env_alloc_n(env, &s.idx, s.nnz));
    SP_TRY(env_alloc(env, &s.val, (size_t)s.nnz * vs));
    SP_TRY(env_alloc_n(env, &t.row, t.nnz));
    SP_TRY(env_alloc_n(env, &t.col, t.nnz));
    SP_TRY(env_alloc(env, &t.val, (size_t)t.nnz * vs));
    if (csr->nnz > 0) {
        unsigned grid = grid_for(env, csr->nnz);
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            if (wide)
                split_scatter_kernel<W><<<grid, P::block_threads, 0, stream>>>(
                    csr->ptr64, csr->idx, static_cast<const W *>(csr->val), n, csr->nnz, bound,
                    s.ptr64, cut64, s.idx, static_cast<W *>(s.val), t.row, t.col,
                    static_cast<W *>(t.val));
            else
                split_scatter_kernel<W><<<grid, P::block_threads, 0, stream>>>(
                    csr->ptr, csr->idx, static_cast<const W *>(csr->val), n, csr->nnz, bound,
                    s.ptr, cut, s.idx, static_cast<W *>(s.val), t.row, t.col,
                    static_cast<W *>(t.val));
        });
        SP_CUDA_LAUNCHED("split_scatter_kernel");
    }
    *short_rows = s;
    *tail = t;
    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
done:
    env_free(env, temp);
    env_free(env, cut);
    env_free(env, cut64);
    if (wide) env_free(env, keep);
    if (env) {
        sp__gpu_csr_free(env, &s);
        sp__gpu_triplets_free(env, &t);
    }
    return st;
}
