/* Building blocks shared by the conversions (kernels/convert/): device memory through the
 * environment, one scratch block carved into aligned arrays, scalars read back on the
 * stream, the row of a CSR entry by binary search, and the longest row. Header-only (no
 * separable compilation): host helpers inline, kernels templates. */
#ifndef SP_CONVERT_COMMON_CUH
#define SP_CONVERT_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#include "convert_policy.h"
#include "prim/prim_common.cuh"
#include "sp_kernels.h"

namespace sp_convert {

using P = sp_convert_policy;

/* *d_ptr = bytes of device memory from the environment; zero bytes give NULL without
 * asking (every *_free accepts NULL), so empty formats hold NULL arrays. */
static inline sp_status_t env_alloc(const sp_gpu_env_t *env, void **d_ptr, size_t bytes)
{
    *d_ptr = NULL;
    if (bytes == 0) return SP_STATUS_SUCCESS;
    return env->alloc(env->self, d_ptr, bytes);
}

/* *d_ptr = n elements of T (n >= 0). */
template <typename T>
static inline sp_status_t env_alloc_n(const sp_gpu_env_t *env, T **d_ptr, int64_t n)
{
    void *p = NULL;
    sp_status_t st = env_alloc(env, &p, (size_t)n * sizeof(T));
    *d_ptr = static_cast<T *>(p);
    return st;
}

static inline void env_free(const sp_gpu_env_t *env, void *d_ptr)
{
    if (d_ptr) env->free(env->self, d_ptr);
}

/* Byte offsets of several arrays in one scratch allocation, each 256-byte aligned (the
 * primitives' temp alignment), so a conversion asks the environment once for all of its
 * temporaries. */
struct scratch_plan {
    size_t total = 0;
    size_t add(size_t bytes)
    {
        size_t at = total;
        total += sp_prim::align_up(bytes);
        return at;
    }
    template <typename T>
    size_t add_n(int64_t n) { return add((size_t)n * sizeof(T)); }
};

template <typename T>
static inline T *at(void *base, size_t offset)
{
    return reinterpret_cast<T *>(static_cast<char *>(base) + offset);
}

/* h_dst = bytes at d_src, after the work queued on the stream: the one way conversions
 * synchronize (the stream, never the device). */
static inline sp_status_t to_host(const sp_gpu_env_t *env, void *h_dst, const void *d_src,
                                  size_t bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    SP_CUDA_TRY(cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, s));
    SP_CUDA_TRY(cudaStreamSynchronize(s));
done:
    return st;
}

/* Blocks for a grid-stride loop over n items (n > 0). */
static inline unsigned grid_for(const sp_gpu_env_t *env, int64_t n)
{
    int64_t cap = (int64_t)(env->sm_count > 0 ? env->sm_count : 1) * P::blocks_per_sm;
    int64_t need = (n + P::block_threads - 1) / P::block_threads;
    return (unsigned)(need < cap ? need : cap);
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

/* The row r of a CSR entry e < nnz: ptr[r] <= e < ptr[r + 1], by binary search, so a
 * thread per entry is balanced whatever the row lengths. */
__device__ __forceinline__ int64_t row_of(const int32_t *ptr, int64_t nrows, int64_t e)
{
    int64_t lo = 0, hi = nrows;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ptr[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* *longest = max over rows of ptr[r + 1] - ptr[r]; *longest must start at 0. */
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) longest_row_kernel(const int32_t *ptr, int64_t nrows,
                                                            int32_t *longest)
{
    int32_t m = 0;
    for (int64_t r = (int64_t)blockIdx.x * BLOCK + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * BLOCK)
        m = max(m, ptr[r + 1] - ptr[r]);
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) m = max(m, __shfl_xor_sync(sp_prim::full_mask, m, d));
    if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(longest, m);
}

/* *h_longest = the CSR's longest row (0 without rows), using 4 bytes at d_slot. */
static inline sp_status_t longest_row(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                      int32_t *d_slot, int64_t *h_longest)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t h = 0;
    cudaStream_t s = (cudaStream_t)env->stream;
    *h_longest = 0;
    if (csr->nrows == 0) goto done;
    SP_CUDA_TRY(cudaMemsetAsync(d_slot, 0, sizeof *d_slot, s));
    longest_row_kernel<P::block_threads>
        <<<grid_for(env, csr->nrows), P::block_threads, 0, s>>>(csr->ptr, csr->nrows, d_slot);
    SP_CUDA_LAUNCHED("longest_row_kernel");
    SP_TRY(to_host(env, &h, d_slot, sizeof h));
    *h_longest = h;
done:
    return st;
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

/* d_out[i] = i for i < n. */
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) iota_kernel(int32_t *out, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * BLOCK)
        out[i] = (int32_t)i;
}

/* len[r] = ptr[r + 1] - ptr[r] for r < nrows. */
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) row_lengths_kernel(const int32_t *ptr, int64_t nrows,
                                                            int32_t *len)
{
    for (int64_t r = (int64_t)blockIdx.x * BLOCK + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * BLOCK)
        len[r] = ptr[r + 1] - ptr[r];
}

/* The checks every CSR input gets: present, 32-bit sizes, nnz matching. */
static inline sp_status_t check_csr(const char *what, const sp_gpu_env_t *env, const sp_csr_t *csr,
                                    const void *out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && csr != NULL && out != NULL, "%s: NULL argument", what);
    SP_CHECK_ARG(env->alloc != NULL && env->free != NULL, "%s: environment without allocator",
                 what);
    SP_CHECK_ARG(csr->nrows >= 0 && csr->ncols >= 0 && csr->nnz >= 0,
                 "%s: negative size %lld x %lld with %lld entries", what, (long long)csr->nrows,
                 (long long)csr->ncols, (long long)csr->nnz);
    if (csr->nrows > INT32_MAX || csr->ncols > INT32_MAX || csr->nnz > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: %lld x %lld with %lld entries exceeds 32-bit indices",
                what, (long long)csr->nrows, (long long)csr->ncols, (long long)csr->nnz);
    SP_CHECK_ARG(csr->ptr != NULL, "%s: ptr is NULL", what);
    SP_CHECK_ARG(csr->nnz == 0 || csr->idx != NULL, "%s: idx is NULL for %lld entries", what,
                 (long long)csr->nnz);
    SP_CHECK_ARG(csr->nnz == 0 || csr->value_type == SP_VALUE_NONE || csr->val != NULL,
                 "%s: val is NULL for %lld entries", what, (long long)csr->nnz);
done:
    return st;
}

} /* namespace sp_convert */

#endif /* SP_CONVERT_COMMON_CUH */
