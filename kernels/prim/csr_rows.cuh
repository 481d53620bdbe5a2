/* Two CSR helpers the conversions and the SpMV kernels share: the row of an entry by
 * binary search (a thread per entry, balanced whatever the row lengths) and the longest
 * row (a grid-stride max, read back). Header-only: host helpers inline, the kernel a
 * template. */
#ifndef SP_CSR_ROWS_CUH
#define SP_CSR_ROWS_CUH

#include <stdint.h>

#include "prim/kernel_util.cuh"
#include "prim/prim_policy.h"

namespace sp_prim {

/* The row r of a CSR entry e < nnz: ptr[r] <= e < ptr[r + 1], by binary search, so a
 * thread per entry is balanced whatever the row lengths. */
template <typename Off>
__device__ __forceinline__ int64_t row_of(const Off *ptr, int64_t nrows, int64_t e)
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

/* *longest = max over rows of ptr[r + 1] - ptr[r]; *longest must start at 0. Off: the
 * pointers' type (a row holds fewer than 2^31 entries either way: its columns differ). */
template <int BLOCK, typename Off>
__global__ void __launch_bounds__(BLOCK) longest_row_kernel(const Off *ptr, int64_t nrows,
                                                            int32_t *longest)
{
    int32_t m = 0;
    for (int64_t r = (int64_t)blockIdx.x * BLOCK + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * BLOCK)
        m = max(m, (int32_t)(ptr[r + 1] - ptr[r]));
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) m = max(m, __shfl_xor_sync(full_mask, m, d));
    if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(longest, m);
}

/* *h_longest = the CSR's longest row (0 without rows), using 4 bytes at d_slot. */
static inline sp_status_t longest_row(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                      int32_t *d_slot, int64_t *h_longest)
{
    using LP = sp_longest_row_policy;
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t h = 0;
    cudaStream_t s = (cudaStream_t)env->stream;
    *h_longest = 0;
    if (csr->nrows == 0) goto done;
    SP_CUDA_TRY(cudaMemsetAsync(d_slot, 0, sizeof *d_slot, s));
    if (csr->ptr64)
        longest_row_kernel<LP::block_threads>
            <<<grid_for(env, csr->nrows, LP::block_threads, LP::blocks_per_sm),
               LP::block_threads, 0, s>>>(csr->ptr64, csr->nrows, d_slot);
    else
        longest_row_kernel<LP::block_threads>
            <<<grid_for(env, csr->nrows, LP::block_threads, LP::blocks_per_sm),
               LP::block_threads, 0, s>>>(csr->ptr, csr->nrows, d_slot);
    SP_CUDA_LAUNCHED("longest_row_kernel");
    SP_TRY(to_host(env, &h, d_slot, sizeof h));
    *h_longest = h;
done:
    return st;
}

} /* namespace sp_prim */

#endif /* SP_CSR_ROWS_CUH */
