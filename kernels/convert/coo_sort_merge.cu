/* COO sorted by (row, col) with duplicates merged, on the GPU: a stable LSD radix sort of
 * an index permutation (one pass on the key row|col when both fit 32 bits, else col then
 * row), head flags scanned into output positions, one thread per output entry merging its
 * run in input order (PMPP, sorting and sparse-format chapters), as sp__ref_coo_sort_merge.
 * One pass first checks the range and the order: entries already in strictly increasing
 * (row, col) order are the sort's and the merge's result as they are, so they are kept
 * without the sort's scratch (24 bytes an entry) or a second copy: the input of a sorted
 * upload, and the only way past 2^31 entries, where the sort and the merge count in 32
 * bits (issue 20). */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* What the check pass finds: the smallest index of an entry outside the matrix (~0 if
 * none), and whether some entry does not come strictly after the one before it. */
struct check_result {
    unsigned long long first_bad;
    unsigned unordered;
};

/* out->first_bad = smallest index of an entry outside nrows x ncols; out->unordered = 1
 * if some entry i > 0 is not strictly after entry i - 1 in (row, col) order. */
__global__ void __launch_bounds__(P::block_threads)
check_kernel(const int32_t *row, const int32_t *col, int64_t n, int64_t nrows, int64_t ncols,
             check_result *out)
{
    bool unordered = false;
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads) {
        int32_t r = row[i], c = col[i];
        if (r < 0 || r >= nrows || c < 0 || c >= ncols)
            atomicMin(&out->first_bad, (unsigned long long)i);
        if (i > 0) {
            int32_t pr = row[i - 1];
            unordered |= pr > r || (pr == r && col[i - 1] >= c);
        }
    }
    if (__syncthreads_or(unordered) && threadIdx.x == 0) out->unordered = 1;
}

/* keys[i] = (row << col_bits) | col of entry i, or col alone (col_bits 0 asks for col
 * only: the first of two passes); perm[i] = i. */
__global__ void __launch_bounds__(P::block_threads)
keys_kernel(const int32_t *row, const int32_t *col, int64_t n, int col_bits, bool with_row,
            uint32_t *keys, int32_t *perm)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads) {
        uint32_t k = (uint32_t)col[i];
        if (with_row) k |= (uint32_t)row[i] << col_bits;
        keys[i] = k;
        perm[i] = (int32_t)i;
    }
}

/* keys[i] = row of the i-th entry in the order perm (the second pass). */
__global__ void __launch_bounds__(P::block_threads)
gather_rows_kernel(const int32_t *row, const int32_t *perm, int64_t n, uint32_t *keys)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads)
        keys[i] = (uint32_t)row[perm[i]];
}

/* head[i] = 1 where sorted entry i starts a run of equal (row, col). */
__global__ void __launch_bounds__(P::block_threads)
heads_kernel(const int32_t *row, const int32_t *col, const int32_t *perm, int64_t n, int32_t *head)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads) {
        int32_t a = perm[i];
        int32_t h = 1;
        if (i > 0) {
            int32_t b = perm[i - 1];
            h = row[a] != row[b] || col[a] != col[b];
        }
        head[i] = h;
    }
}

/* start[o] = first sorted position of output entry o, from the scanned heads
 * (pos[i + 1] - pos[i] is head i; the last head compares with the total nout). */
__global__ void __launch_bounds__(P::block_threads)
starts_kernel(const int32_t *pos, int64_t n, int64_t nout, int32_t *start)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads) {
        int64_t next = i + 1 < n ? pos[i + 1] : nout;
        if (next != pos[i]) start[pos[i]] = (int32_t)i;
    }
}

/* Output entry o from its run [start[o], start[o + 1]) of the sorted order: the first
 * value, or the sum in double in input order (perm ascends within a run: the sort is
 * stable), rounded once to V, the reference's arithmetic exactly. */
template <typename V, bool SUM>
__global__ void __launch_bounds__(P::block_threads)
merge_kernel(const int32_t *row, const int32_t *col, const V *val, const int32_t *perm,
             const int32_t *start, int64_t n, int64_t nout, int32_t *row_out, int32_t *col_out,
             V *val_out)
{
    for (int64_t o = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; o < nout;
         o += (int64_t)gridDim.x * P::block_threads) {
        int64_t first = start[o], last = o + 1 < nout ? start[o + 1] : n;
        int32_t p = perm[first];
        row_out[o] = row[p];
        col_out[o] = col[p];
        if (val == NULL) continue;
        if (SUM) {
            double sum = 0.0;
            for (int64_t i = first; i < last; i++) sum += (double)val[perm[i]];
            val_out[o] = (V)sum;
        } else {
            val_out[o] = val[p];
        }
    }
}

template <typename V>
void launch_merge(const sp_gpu_env_t *env, const sp_triplets_t *coo, sp_dup_policy_t policy,
                  const int32_t *perm, const int32_t *start, int64_t nout, int32_t *row_out,
                  int32_t *col_out, void *val_out)
{
    cudaStream_t s = (cudaStream_t)env->stream;
    const V *val = static_cast<const V *>(coo->val);
    V *vout = static_cast<V *>(val_out);
    if (policy == SP_DUP_SUM)
        merge_kernel<V, true><<<grid_for(env, nout), P::block_threads, 0, s>>>(
            coo->row, coo->col, val, perm, start, coo->nnz, nout, row_out, col_out, vout);
    else
        merge_kernel<V, false><<<grid_for(env, nout), P::block_threads, 0, s>>>(
            coo->row, coo->col, val, perm, start, coo->nnz, nout, row_out, col_out, vout);
}

/* Fails with the reference's message if an entry lies outside the matrix; else
 * *ordered = 1 when the entries are in strictly increasing (row, col) order (sorted, no
 * two alike: nothing to sort or merge). */
sp_status_t check_entries(const sp_gpu_env_t *env, const sp_triplets_t *coo, int *ordered)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    check_result h = {~0ull, 0}, *d = NULL;
    int32_t rc[2] = {0, 0};
    SP_TRY(env_alloc(env, (void **)&d, sizeof *d));
    SP_CUDA_TRY(cudaMemcpyAsync(d, &h, sizeof h, cudaMemcpyHostToDevice, s));
    check_kernel<<<grid_for(env, coo->nnz), P::block_threads, 0, s>>>(
        coo->row, coo->col, coo->nnz, coo->nrows, coo->ncols, d);
    SP_CUDA_LAUNCHED("check_kernel");
    SP_TRY(to_host(env, &h, d, sizeof h));
    *ordered = !h.unordered;
    if (h.first_bad == ~0ull) goto done;
    SP_TRY(to_host(env, &rc[0], coo->row + h.first_bad, sizeof rc[0]));
    SP_TRY(to_host(env, &rc[1], coo->col + h.first_bad, sizeof rc[1]));
    SP_FAIL(SP_STATUS_INVALID_ARGUMENT, "coo sort: entry %lld at (%d, %d) outside %lld x %lld",
            (long long)h.first_bad, rc[0], rc[1], (long long)coo->nrows, (long long)coo->ncols);
done:
    env_free(env, d);
    return st;
}

/* perm = the entries' order stably sorted by (row, col). */
sp_status_t sort_entries(const sp_gpu_env_t *env, const sp_triplets_t *coo, uint32_t *keys,
                         int32_t *perm, void *d_temp, size_t temp_bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    int64_t n = coo->nnz;
    int row_bits = key_bits_for((uint64_t)(coo->nrows > 0 ? coo->nrows - 1 : 0));
    int col_bits = key_bits_for((uint64_t)(coo->ncols > 0 ? coo->ncols - 1 : 0));
    bool one_pass = row_bits + col_bits <= 32;
    keys_kernel<<<grid_for(env, n), P::block_threads, 0, s>>>(coo->row, coo->col, n, col_bits,
                                                              one_pass, keys, perm);
    SP_CUDA_LAUNCHED("keys_kernel");
    SP_TRY(sp__gpu_radix_sort_pairs_u32(keys, perm, n, one_pass ? row_bits + col_bits : col_bits,
                                        d_temp, &temp_bytes, s));
    if (one_pass) goto done;
    gather_rows_kernel<<<grid_for(env, n), P::block_threads, 0, s>>>(coo->row, perm, n, keys);
    SP_CUDA_LAUNCHED("gather_rows_kernel");
    SP_TRY(sp__gpu_radix_sort_pairs_u32(keys, perm, n, row_bits, d_temp, &temp_bytes, s));
done:
    return st;
}

/* *near += the samples k = s * step (s < taken) whose column lies within window of the
 * row's diagonal position row * scale: sp__coo_col_near's arithmetic, rounded the same
 * (no fused multiply-add). */
__global__ void __launch_bounds__(P::block_threads)
col_near_kernel(const int32_t *row, const int32_t *col, int64_t taken, int64_t step,
                double scale, double window, unsigned long long *near)
{
    unsigned long long mine = 0;
    for (int64_t s = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; s < taken;
         s += (int64_t)gridDim.x * P::block_threads) {
        int64_t k = s * step;
        double d = __dsub_rn((double)col[k], __dmul_rn((double)row[k], scale));
        mine += d <= window && d >= -window;
    }
    for (int o = 16; o > 0; o >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, o);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(near, mine);
}

} /* namespace */

extern "C" sp_status_t sp__gpu_coo_col_near(const sp_gpu_env_t *env, const sp_triplets_t *coo,
                                           double *out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    const int64_t n = coo->nnz, step = n > ((int64_t)1 << 20) ? n >> 20 : 1;
    const int64_t taken = n > 0 ? (n - 1) / step + 1 : 0;
    const double scale = coo->nrows > 0 ? (double)coo->ncols / (double)coo->nrows : 1.0;
    const double window = coo->ncols / 64 > 4096 ? (double)(coo->ncols / 64) : 4096.0;
    unsigned long long near = 0, *d = NULL;
    *out = 1.0;
    if (n == 0) goto done;
    SP_TRY(env_alloc(env, (void **)&d, sizeof *d));
    SP_CUDA_TRY(cudaMemsetAsync(d, 0, sizeof *d, s));
    col_near_kernel<<<grid_for(env, taken), P::block_threads, 0, s>>>(coo->row, coo->col, taken,
                                                                      step, scale, window, d);
    SP_CUDA_LAUNCHED("col_near_kernel");
    SP_TRY(to_host(env, &near, d, sizeof near));
    *out = (double)near / (double)taken;
done:
    env_free(env, d);
    return st;
}

extern "C" sp_status_t sp__gpu_coo_sort_merge(const sp_gpu_env_t *env, sp_triplets_t *coo,
                                              sp_dup_policy_t policy, int64_t *nmerged)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    void *scratch = NULL, *val_out = NULL;
    int32_t *row_out = NULL, *col_out = NULL;
    size_t sort_bytes = 0, scan_bytes = 0, temp_bytes = 0;
    scratch_plan plan;
    size_t o_perm, o_keys, o_pos, o_start, o_slot, o_temp;
    int32_t h_nout = 0;
    int64_t n = 0, nout = 0;
    int ordered = 0;
    size_t vs = 0;
    cudaStream_t s = NULL;
    SP_CHECK_ARG(env != NULL && coo != NULL, "coo sort: NULL argument");
    SP_CHECK_ARG(env->alloc != NULL && env->free != NULL,
                 "coo sort: environment without allocator");
    SP_CHECK_ARG(policy == SP_DUP_SUM || policy == SP_DUP_KEEP,
                 "coo sort: unknown duplicate policy %d", (int)policy);
    SP_CHECK_ARG(coo->nrows >= 0 && coo->ncols >= 0 && coo->nnz >= 0,
                 "coo sort: negative size %lld x %lld with %lld entries", (long long)coo->nrows,
                 (long long)coo->ncols, (long long)coo->nnz);
    if (coo->nrows > INT32_MAX || coo->ncols > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "coo sort: %lld x %lld with %lld entries exceeds 32-bit indices",
                (long long)coo->nrows, (long long)coo->ncols, (long long)coo->nnz);
    vs = sp_value_size(coo->value_type);
    SP_CHECK_ARG(coo->nnz == 0 || (coo->row != NULL && coo->col != NULL &&
                                   (vs == 0 || coo->val != NULL)),
                 "coo sort: NULL arrays for %lld entries", (long long)coo->nnz);
    n = coo->nnz;
    s = (cudaStream_t)env->stream;
    if (n == 0) goto finish;
    SP_TRY(check_entries(env, coo, &ordered));
    if (ordered) goto finish; /* sorted and merged already: kept as they are */
    if (n > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "coo sort: %lld entries out of (row, col) order: the device sort and merge "
                "count entries in 32 bits (at most %d; sort them on the host first, as "
                "sp_matrix_create does)", (long long)n, INT32_MAX);

    SP_TRY(sort_pairs_temp_bytes(n, &sort_bytes));
    SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, n, NULL, NULL, &scan_bytes, s));
    temp_bytes = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
    o_perm = plan.add_n<int32_t>(n);
    o_keys = plan.add_n<uint32_t>(n);
    o_pos = plan.add_n<int32_t>(n);
    o_start = plan.add_n<int32_t>(n);
    o_slot = plan.add_n<int32_t>(1);
    o_temp = plan.add(temp_bytes);
    SP_TRY(env_alloc(env, &scratch, plan.total));

    SP_TRY(sort_entries(env, coo, at<uint32_t>(scratch, o_keys), at<int32_t>(scratch, o_perm),
                        at<void>(scratch, o_temp), temp_bytes));
    heads_kernel<<<grid_for(env, n), P::block_threads, 0, s>>>(
        coo->row, coo->col, at<int32_t>(scratch, o_perm), n, at<int32_t>(scratch, o_pos));
    SP_CUDA_LAUNCHED("heads_kernel");
    SP_TRY(sp__gpu_exclusive_scan_i32(at<int32_t>(scratch, o_pos), at<int32_t>(scratch, o_pos), n,
                                      at<int32_t>(scratch, o_slot), at<void>(scratch, o_temp),
                                      &temp_bytes, s));
    SP_TRY(to_host(env, &h_nout, at<int32_t>(scratch, o_slot), sizeof h_nout));
    nout = h_nout;
    starts_kernel<<<grid_for(env, n), P::block_threads, 0, s>>>(
        at<int32_t>(scratch, o_pos), n, nout, at<int32_t>(scratch, o_start));
    SP_CUDA_LAUNCHED("starts_kernel");

    SP_TRY(env_alloc_n(env, &row_out, nout));
    SP_TRY(env_alloc_n(env, &col_out, nout));
    SP_TRY(env_alloc(env, &val_out, (size_t)nout * vs));
    if (coo->value_type == SP_R_64F)
        launch_merge<double>(env, coo, policy, at<int32_t>(scratch, o_perm),
                             at<int32_t>(scratch, o_start), nout, row_out, col_out, val_out);
    else
        launch_merge<float>(env, coo, policy, at<int32_t>(scratch, o_perm),
                            at<int32_t>(scratch, o_start), nout, row_out, col_out, val_out);
    SP_CUDA_LAUNCHED("merge_kernel");

    /* env's free is ordered on the stream, after the merge that reads the old arrays. */
    env_free(env, coo->val);
    env_free(env, coo->col);
    env_free(env, coo->row);
    coo->row = row_out;
    coo->col = col_out;
    coo->val = val_out;
    coo->nnz = nout;
    row_out = col_out = NULL;
    val_out = NULL;
finish:
    if (nmerged) *nmerged = ordered ? 0 : n - nout;
done:
    env_free(env, val_out);
    env_free(env, col_out);
    env_free(env, row_out);
    env_free(env, scratch);
    return st;
}
