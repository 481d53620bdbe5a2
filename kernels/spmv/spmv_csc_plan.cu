/* What a CSC plan learns about its matrix beyond the chunk columns (issue 23):
 *
 * - Whether the CSC equals its transpose bit for bit (a symmetric matrix: every entry
 *   (i, j) has its mirror (j, i) with the same value bits). Then column i of the CSC is
 *   row i of A, and the CSC's arrays are A's CSR: the product runs as a CSR gather, one
 *   write a row, no atomics (src/spmv_cuda.c routes it). A thread an entry finds the entry's
 *   column from the plan's chunk columns and its mirror by a binary search of the column of
 *   its row; the first mismatch ends the check everywhere (a flag read every few entries).
 *   Rows need not be sorted within a column for the answer to be safe: an unsorted column
 *   can only hide a mirror, which says "not symmetric", the atomic kernel's case.
 * - The heavy rows: the rows of at least a bound's entries (src/policy.c), at most
 *   P::heavy_rows of the longest, which the CSC kernel sums in shared memory. Their lengths
 *   come from A's CSR pointers where the caller has them, else from a count of the CSC's
 *   rows (one atomic a run of a row in a step).
 * Both read back to the host once: plans may synchronize (the stream), calls never. */
#include <algorithm>

#include "spmv_common.cuh"
#include "spmv_policy_coo.h"

namespace {

using P = sp_spmv_csc_policy;
using sp_prim::full_mask;

/* *asym = 1 when some entry e (row i, column j) has no entry (j, i) of the same value bits
 * U (uint32_t or uint64_t; NULL val: the pattern alone). chunk_col: the plan's first column
 * of every chunk of P::chunk_entries entries (ncols at the end). */
template <typename U>
__global__ void __launch_bounds__(P::check_block_threads)
csc_symmetric_kernel(const int32_t *__restrict__ ptr, const int32_t *__restrict__ idx,
                     const U *__restrict__ val, int64_t ncols, int64_t nnz,
                     const int32_t *__restrict__ chunk_col, int *asym)
{
    int64_t threads = (int64_t)gridDim.x * P::check_block_threads;
    for (int64_t e0 = (int64_t)blockIdx.x * P::check_block_threads; e0 < nnz;
         e0 += threads * P::check_steps) {
        if (*(volatile int *)asym) return; /* a mismatch found: the answer is known */
        for (int k = 0; k < P::check_steps; k++) {
            int64_t q = e0 + threadIdx.x + (int64_t)k * threads;
            if (q >= nnz) break;
            int64_t c = q / P::chunk_entries;
            int32_t hi = __ldg(chunk_col + c + 1);
            int32_t j = spmv::last_start_at_or_before(ptr, __ldg(chunk_col + c),
                                                      hi < ncols ? hi : (int32_t)(ncols - 1), q);
            int32_t i = __ldg(idx + q);
            int32_t lo = __ldg(ptr + i), end = __ldg(ptr + i + 1) - 1;
            while (lo < end) { /* the first row at or past j in column i */
                int32_t mid = lo + (end - lo) / 2;
                if (__ldg(idx + mid) < j)
                    lo = mid + 1;
                else
                    end = mid;
            }
            bool ok = lo <= end && __ldg(idx + lo) == j &&
                      (val == NULL || __ldg(val + lo) == __ldg(val + q));
            if (!ok) *asym = 1;
        }
    }
}

/* count[r] += the entries of row r among the CSC's (the lanes of a step holding one row
 * add first). */
__global__ void __launch_bounds__(P::check_block_threads)
row_count_kernel(const int32_t *__restrict__ idx, int64_t nnz, int32_t *count)
{
    int64_t warps = (int64_t)gridDim.x * (P::check_block_threads / 32);
    int lane = threadIdx.x & 31;
    for (int64_t w = ((int64_t)blockIdx.x * P::check_block_threads + threadIdx.x) >> 5;
         w * 32 < nnz; w += warps) {
        int64_t q = w * 32 + lane;
        int32_t r = q < nnz ? __ldg(idx + q) : -1;
        unsigned peers = __match_any_sync(full_mask, r);
        if (r >= 0 && lane == __ffs((int)peers) - 1) atomicAdd(count + r, __popc(peers));
    }
}

/* The rows of at least bound entries (row_ptr: A's CSR pointers, else count[r]): up to
 * cap of them into list (row, length), *n counting them all. */
__global__ void __launch_bounds__(P::check_block_threads)
list_long_rows_kernel(const int32_t *__restrict__ row_ptr, const int32_t *__restrict__ count,
                      int64_t nrows, int64_t bound, int cap, int2 *list, int *n)
{
    for (int64_t r = (int64_t)blockIdx.x * P::check_block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::check_block_threads) {
        int64_t len = row_ptr ? (int64_t)__ldg(row_ptr + r + 1) - __ldg(row_ptr + r)
                              : (int64_t)__ldg(count + r);
        if (len < bound) continue;
        int slot = atomicAdd(n, 1);
        if (slot < cap) list[slot] = make_int2((int)r, (int)len);
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csc_symmetric(const sp_gpu_env_t *env, const sp_csr_t *a,
                                             const int32_t *d_chunk_col, int *symmetric)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int *d_flag = NULL, h = 0;
    cudaStream_t s = NULL;
    SP_CHECK_ARG(env != NULL && a != NULL && symmetric != NULL, "csc symmetry: NULL argument");
    *symmetric = 0;
    /* 64-bit pointers (past the narrow limit) and rectangles: not asked, not symmetric */
    if (a->nrows != a->ncols || a->ptr == NULL || a->ptr64 != NULL) goto done;
    SP_CHECK_ARG(a->nnz == 0 || (a->idx != NULL && d_chunk_col != NULL),
                 "csc symmetry: NULL arrays for %lld entries", (long long)a->nnz);
    *symmetric = 1;
    if (a->nnz == 0) goto done;
    s = (cudaStream_t)env->stream;
    SP_TRY(sp_prim::env_alloc_n(env, &d_flag, 1));
    SP_CUDA_TRY(cudaMemsetAsync(d_flag, 0, sizeof *d_flag, s));
    {
        unsigned grid = spmv::grid_for(env, a->nnz, P::check_block_threads,
                                       P::check_blocks_per_sm);
        if (a->value_type == SP_R_64F)
            csc_symmetric_kernel<uint64_t><<<grid, P::check_block_threads, 0, s>>>(
                a->ptr, a->idx, static_cast<const uint64_t *>(a->val), a->ncols, a->nnz,
                d_chunk_col, d_flag);
        else if (a->value_type == SP_R_32F)
            csc_symmetric_kernel<uint32_t><<<grid, P::check_block_threads, 0, s>>>(
                a->ptr, a->idx, static_cast<const uint32_t *>(a->val), a->ncols, a->nnz,
                d_chunk_col, d_flag);
        else
            csc_symmetric_kernel<uint32_t><<<grid, P::check_block_threads, 0, s>>>(
                a->ptr, a->idx, NULL, a->ncols, a->nnz, d_chunk_col, d_flag);
        SP_CUDA_LAUNCHED("csc_symmetric_kernel");
    }
    SP_TRY(sp_prim::to_host(env, &h, d_flag, sizeof h));
    *symmetric = h == 0;
done:
    sp_prim::env_free(env, d_flag);
    return st;
}

extern "C" sp_status_t sp__gpu_csc_heavy_rows(const sp_gpu_env_t *env, const sp_csr_t *a,
                                              const int32_t *d_row_ptr, int64_t bound,
                                              int32_t *d_rows, int *nheavy)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_prim::scratch_plan sp;
    size_t at_n = sp.add_n<int>(1), at_list = sp.add_n<int2>(P::heavy_candidates),
           at_count = sp.add_n<int32_t>(d_row_ptr ? 0 : a->nrows);
    void *d_scratch = NULL;
    int2 *h_list = NULL;
    int32_t h_rows[P::heavy_rows];
    int h_n = 0, keep = 0;
    cudaStream_t s = NULL;
    SP_CHECK_ARG(env != NULL && a != NULL && nheavy != NULL, "csc heavy rows: NULL argument");
    *nheavy = 0;
    if (bound < 0 || a->nrows == 0 || a->nnz == 0) goto done;
    SP_CHECK_ARG(d_rows != NULL && a->idx != NULL, "csc heavy rows: NULL arrays");
    s = (cudaStream_t)env->stream;
    SP_TRY(sp_prim::env_alloc(env, &d_scratch, sp.total));
    SP_CUDA_TRY(cudaMemsetAsync(d_scratch, 0, sp.total, s)); /* the count, the rows' counts */
    if (!d_row_ptr) {
        row_count_kernel<<<spmv::grid_for(env, (a->nnz + 31) / 32 * 32, P::check_block_threads,
                                          P::check_blocks_per_sm),
                           P::check_block_threads, 0, s>>>(
            a->idx, a->nnz, sp_prim::at<int32_t>(d_scratch, at_count));
        SP_CUDA_LAUNCHED("row_count_kernel");
    }
    list_long_rows_kernel<<<spmv::grid_for(env, a->nrows, P::check_block_threads,
                                           P::check_blocks_per_sm),
                            P::check_block_threads, 0, s>>>(
        d_row_ptr, d_row_ptr ? NULL : sp_prim::at<int32_t>(d_scratch, at_count), a->nrows,
        bound, P::heavy_candidates, sp_prim::at<int2>(d_scratch, at_list),
        sp_prim::at<int>(d_scratch, at_n));
    SP_CUDA_LAUNCHED("list_long_rows_kernel");
    SP_TRY(sp_prim::to_host(env, &h_n, sp_prim::at<int>(d_scratch, at_n), sizeof h_n));
    if (h_n == 0) goto done;
    h_n = h_n < P::heavy_candidates ? h_n : P::heavy_candidates;
    h_list = static_cast<int2 *>(sp__malloc_array((size_t)h_n, sizeof *h_list));
    if (!h_list)
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "csc heavy rows: %d candidates on the host", h_n);
    SP_TRY(sp_prim::to_host(env, h_list, sp_prim::at<int2>(d_scratch, at_list),
                            (size_t)h_n * sizeof *h_list));
    /* the longest first (ties: the lower row), then the kept rows in row order */
    std::sort(h_list, h_list + h_n, [](int2 p, int2 q) {
        return p.y != q.y ? p.y > q.y : p.x < q.x;
    });
    keep = h_n < P::heavy_rows ? h_n : P::heavy_rows;
    for (int k = 0; k < keep; k++)
        h_rows[k] = h_list[k].x;
    std::sort(h_rows, h_rows + keep);
    SP_CUDA_TRY(cudaMemcpyAsync(d_rows, h_rows, (size_t)keep * sizeof *h_rows,
                                cudaMemcpyHostToDevice, s));
    SP_CUDA_TRY(cudaStreamSynchronize(s)); /* h_rows is on this stack */
    *nheavy = keep;
done:
    sp__free(h_list);
    sp_prim::env_free(env, d_scratch);
    return st;
}
