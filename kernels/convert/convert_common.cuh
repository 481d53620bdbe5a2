/* Building blocks of the conversions only (kernels/convert/): their grid sizing, key widths,
 * bit-pattern value moves, segment starts (histogram + scan), sort scratch, iota and row
 * lengths, the CSR input checks. The general helpers they use (device memory, scratch
 * plans, read-back; the row of an entry, the longest row) live in kernels/prim/
 * (kernel_util.cuh, csr_rows.cuh). Header-only (no separable compilation): host helpers
 * inline, kernels templates. */
#ifndef SP_CONVERT_COMMON_CUH
#define SP_CONVERT_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#include "convert_policy.h"
#include "prim/csr_rows.cuh"
#include "prim/kernel_util.cuh"
#include "sp_kernels.h"

namespace sp_convert {

using P = sp_convert_policy;

/* The general helpers (kernels/prim/kernel_util.cuh, csr_rows.cuh) by their short names,
 * as the conversions have always called them. */
using sp_prim::at;
using sp_prim::env_alloc;
using sp_prim::env_alloc_n;
using sp_prim::env_free;
using sp_prim::longest_row;
using sp_prim::row_of;
using sp_prim::scratch_plan;
using sp_prim::to_host;

/* Blocks for a grid-stride loop over n items (n > 0) of the conversions' policy. */
static inline unsigned grid_for(const sp_gpu_env_t *env, int64_t n)
{
    return sp_prim::grid_for(env, n, P::block_threads, P::blocks_per_sm);
}

/* Radix-sort key width for keys in [0, max_key]: at least 1 bit. */
static inline int key_bits_for(uint64_t max_key)
{
    int bits = 1;
    while (bits < 64 && (max_key >> bits) != 0) bits++;
    return bits;
}

/* Calls f with a value of the unsigned type whose width is vs bytes (4 or 8; patterns,
 * vs 0, take the 4-byte path with NULL value arrays): values move as bit patterns. */
template <typename F>
static inline void by_word(size_t vs, F f)
{
    if (vs == 8)
        f(uint64_t(0));
    else
        f(uint32_t(0));
}

/* ptr[0..n] = the starts of n segments from the segment key (row or column) of each of
 * nnz entries: histogram, then an exclusive scan in place whose total lands in ptr[n] (the
 * count and scan of every compression). CUB style: with d_temp NULL only *temp_bytes is
 * set. */
static inline sp_status_t segment_starts(const sp_gpu_env_t *env, const int32_t *d_keys,
                                         int64_t nnz, int32_t *d_ptr, int64_t n, void *d_temp,
                                         size_t *temp_bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    size_t hist_bytes = 0, scan_bytes = 0;
    SP_TRY(sp__gpu_histogram(NULL, nnz, NULL, n, NULL, &hist_bytes, s));
    SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, n, NULL, NULL, &scan_bytes, s));
    if (d_temp == NULL) {
        *temp_bytes = hist_bytes > scan_bytes ? hist_bytes : scan_bytes;
        goto done;
    }
    SP_TRY(sp__gpu_histogram(d_keys, nnz, d_ptr, n, d_temp, temp_bytes, s));
    SP_TRY(sp__gpu_exclusive_scan_i32(d_ptr, d_ptr, n, d_ptr + n, d_temp, temp_bytes, s));
done:
    return st;
}

/* Scratch bytes for a radix sort of n (key, value) pairs: the query tells pairs from keys
 * by a non-NULL d_vals, so a placeholder stands in for it (the query reads nothing). */
static inline sp_status_t sort_pairs_temp_bytes(int64_t n, size_t *temp_bytes)
{
    int32_t placeholder = 0;
    return sp__gpu_radix_sort_pairs_u32(NULL, &placeholder, n, 32, NULL, temp_bytes, NULL);
}

/* First i in [0, nnz) with key[i] >= r (nnz when none); keys sorted ascending (a sorted
 * COO's rows, a CSC's sorted columns). */
__device__ __forceinline__ int64_t first_at_least(const int32_t *key, int64_t nnz, int64_t r)
{
    int64_t lo = 0, hi = nnz;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((int64_t)key[mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* d_out[i] = i for i < n. */
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) iota_kernel(int32_t *out, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * BLOCK)
        out[i] = (int32_t)i;
}

/* len[r] = ptr[r + 1] - ptr[r] for r < nrows. Off: the pointers' type (a row holds fewer
 * than 2^31 entries either way). */
template <int BLOCK, typename Off>
__global__ void __launch_bounds__(BLOCK) row_lengths_kernel(const Off *ptr, int64_t nrows,
                                                            int32_t *len)
{
    for (int64_t r = (int64_t)blockIdx.x * BLOCK + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * BLOCK)
        len[r] = (int32_t)(ptr[r + 1] - ptr[r]);
}

/* len[r] = row r's length for every row of csr (nrows > 0), at its pointers' width, BLOCK
 * threads a block (a template, so only the conversions that call it hold the kernels). */
template <int BLOCK>
static inline sp_status_t row_lengths(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                      int32_t *len)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    unsigned grid = sp_prim::grid_for(env, csr->nrows, BLOCK, P::blocks_per_sm);
    if (csr->ptr64)
        row_lengths_kernel<BLOCK><<<grid, BLOCK, 0, s>>>(csr->ptr64, csr->nrows, len);
    else
        row_lengths_kernel<BLOCK><<<grid, BLOCK, 0, s>>>(csr->ptr, csr->nrows, len);
    SP_CUDA_LAUNCHED("row_lengths_kernel");
done:
    return st;
}

/* d_off[0..n] = the starts of n segments of d_counts[i] entries each, in 64 bits (d_off[n]
 * the total): the counts widened, then a 64-bit exclusive scan; for what a CSR with 64-bit
 * offsets is converted into (its entries may pass INT32_MAX). CUB style: with d_temp NULL
 * only *temp_bytes is set. */
static inline sp_status_t offsets64_of_counts(const sp_gpu_env_t *env, const int32_t *d_counts,
                                              int64_t n, int64_t *d_off, void *d_temp,
                                              size_t *temp_bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    if (d_temp == NULL)
        return sp__gpu_exclusive_scan_i64(NULL, NULL, n, NULL, NULL, temp_bytes, s);
    SP_TRY(sp__gpu_offsets_widen(env, d_counts, n, d_off));
    SP_TRY(sp__gpu_exclusive_scan_i64(d_off, d_off, n, d_off + n, d_temp, temp_bytes, s));
done:
    return st;
}

/* The checks every CSR input gets: present, 32-bit sizes, nnz matching. */
/* The checks of a conversion's CSR input; with_ptr64, for a conversion that reads either
 * width (ELL), 64-bit pointers are taken and the entries may pass INT32_MAX. */
static inline sp_status_t check_csr(const char *what, const sp_gpu_env_t *env, const sp_csr_t *csr,
                                    const void *out, bool with_ptr64 = false)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && csr != NULL && out != NULL, "%s: NULL argument", what);
    SP_CHECK_ARG(env->alloc != NULL && env->free != NULL, "%s: environment without allocator",
                 what);
    SP_CHECK_ARG(csr->nrows >= 0 && csr->ncols >= 0 && csr->nnz >= 0,
                 "%s: negative size %lld x %lld with %lld entries", what, (long long)csr->nrows,
                 (long long)csr->ncols, (long long)csr->nnz);
    if (csr->nrows > INT32_MAX || csr->ncols > INT32_MAX ||
        (csr->nnz > INT32_MAX && !(with_ptr64 && csr->ptr64)))
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: %lld x %lld with %lld entries exceeds 32-bit indices",
                what, (long long)csr->nrows, (long long)csr->ncols, (long long)csr->nnz);
    if (csr->ptr64 && !with_ptr64)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: 64-bit offsets are not read here", what);
    SP_CHECK_ARG(csr->ptr != NULL || (with_ptr64 && csr->ptr64 != NULL), "%s: ptr is NULL", what);
    SP_CHECK_ARG(csr->nnz == 0 || csr->idx != NULL, "%s: idx is NULL for %lld entries", what,
                 (long long)csr->nnz);
    SP_CHECK_ARG(csr->nnz == 0 || csr->value_type == SP_VALUE_NONE || csr->val != NULL,
                 "%s: val is NULL for %lld entries", what, (long long)csr->nnz);
done:
    return st;
}

} /* namespace sp_convert */

#endif /* SP_CONVERT_COMMON_CUH */
