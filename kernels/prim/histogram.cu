/* Histogram of int32 keys with privatized counters (Kirk & Hwu, PMPP, the parallel
 * histogram chapter): the private copy lives where the bins fit, thread-local registers
 * for the fewest bins, warp-private in shared memory for a few more, block-private in shared memory while they fit, global
 * memory beyond; private copies are committed with one atomicAdd per non-zero bin. */
#include "prim_common.cuh"
#include "prim_policy.h"
#include "sp_kernels.h"

using namespace sp_prim;

namespace {

/* Calls f(key, valid) for every key of the grid-stride share of this thread, in
 * warp-uniform steps (all 32 lanes call f together, lanes past n with valid = false),
 * so f may use warp collectives. VEC: keys 16-byte aligned, read four at a time. */
template <bool VEC, typename F>
__device__ __forceinline__ void for_each_key(const int *keys, int64_t n, F f)
{
    constexpr int64_t per = VEC ? 4 : 1;
    int64_t nchunks = (n + per - 1) / per;
    int64_t lane = threadIdx.x & 31;
    int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t base = warp * 32; base < nchunks; base += stride) {
        int64_t c = base + lane;
        if (VEC) {
            int k[4];
            bool v[4];
            if (c * 4 + 3 < n) {
                int4 q = __ldcs(reinterpret_cast<const int4 *>(keys) + c);
                k[0] = q.x, k[1] = q.y, k[2] = q.z, k[3] = q.w;
                v[0] = v[1] = v[2] = v[3] = true;
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    v[j] = c * 4 + j < n;
                    k[j] = v[j] ? keys[c * 4 + j] : 0;
                }
            }
#pragma unroll
            for (int j = 0; j < 4; j++) f(k[j], v[j]);
        } else {
            bool v = c < n;
            f(v ? __ldcs(keys + c) : 0, v);
        }
    }
}

__device__ __forceinline__ bool in_range(int key, int nbins) { return (unsigned)key < (unsigned)nbins; }

/* Adds the block's private bins (nwarps copies of stride `stride`) to counts. */
__device__ __forceinline__ void commit(const int *bins, int ncopies, int stride, int *counts,
                                       int nbins)
{
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) {
        int s = 0;
        for (int w = 0; w < ncopies; w++) s += bins[w * stride + b];
        if (s != 0) atomicAdd(&counts[b], s);
    }
}

/* The fewest bins: each thread counts into registers, warps sum them by shuffles. */
template <bool VEC>
__global__ void __launch_bounds__(sp_hist_thread_policy::block_threads)
hist_thread_kernel(const int *keys, int64_t n, int *counts, int nbins)
{
    using P = sp_hist_thread_policy;
    __shared__ int bins[P::max_bins];
    int c[P::max_bins];
#pragma unroll
    for (int b = 0; b < P::max_bins; b++) c[b] = 0;
    if (threadIdx.x < P::max_bins) bins[threadIdx.x] = 0;
    for_each_key<VEC>(keys, n, [&](int k, bool valid) {
        valid = valid && in_range(k, nbins);
#pragma unroll
        for (int b = 0; b < P::max_bins; b++) c[b] += valid && k == b;
    });
    __syncthreads();
#pragma unroll
    for (int b = 0; b < P::max_bins; b++) {
        int sum = warp_sum(c[b]);
        if ((threadIdx.x & 31) == 0 && sum != 0) atomicAdd(&bins[b], sum);
    }
    __syncthreads();
    commit(bins, 1, P::max_bins, counts, nbins);
}

/* Few bins: equal keys of a warp step are matched by ballots and added by their lowest
 * lane at once, into the warp's own copy, so heavy contention costs nothing extra. */
template <bool VEC>
__global__ void __launch_bounds__(sp_hist_warp_policy::block_threads)
hist_warp_kernel(const int *keys, int64_t n, int *counts, int nbins)
{
    using P = sp_hist_warp_policy;
    constexpr int nwarps = P::block_threads / 32;
    __shared__ int bins[nwarps * P::max_bins];
    for (int i = threadIdx.x; i < nwarps * P::max_bins; i += P::block_threads) bins[i] = 0;
    __syncthreads();
    int *mine = bins + (threadIdx.x >> 5) * P::max_bins;
    unsigned below = lanemask_lt();
    for_each_key<VEC>(keys, n, [&](int k, bool valid) {
        valid = valid && in_range(k, nbins);
        unsigned peers = warp_match<P::bin_bits>((unsigned)k, valid);
        if (valid && (peers & below) == 0) atomicAdd(&mine[k], __popc(peers));
    });
    __syncthreads();
    commit(bins, nwarps, P::max_bins, counts, nbins);
}

/* Bins that fit in shared memory: one private copy per block. */
template <bool VEC>
__global__ void __launch_bounds__(sp_hist_block_policy::block_threads)
hist_block_kernel(const int *keys, int64_t n, int *counts, int nbins)
{
    extern __shared__ int sbins[];
    for (int i = threadIdx.x; i < nbins; i += blockDim.x) sbins[i] = 0;
    __syncthreads();
    for_each_key<VEC>(keys, n, [&](int k, bool valid) {
        if (valid && in_range(k, nbins)) atomicAdd(&sbins[k], 1);
    });
    __syncthreads();
    commit(sbins, 1, nbins, counts, nbins);
}

/* Bins beyond shared memory: straight to the global counters (spread over many bins,
 * so contention is low where this is chosen). */
template <bool VEC>
__global__ void __launch_bounds__(sp_hist_global_policy::block_threads)
hist_global_kernel(const int *keys, int64_t n, int *counts, int nbins)
{
    for_each_key<VEC>(keys, n, [&](int k, bool valid) {
        if (valid && in_range(k, nbins)) atomicAdd(&counts[k], 1);
    });
}

/* Blocks for a grid-stride kernel: all that fit on the device at once, fewer when each
 * would get under min_items keys, and at most max_blocks. */
template <typename K>
cudaError_t grid_size(K kernel, int threads, size_t smem, int64_t n, int64_t min_items,
                      int64_t max_blocks, const device_limits &lim, int *grid)
{
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
    if (e != cudaSuccess) return e;
    int64_t g = (int64_t)(per_sm > 0 ? per_sm : 1) * lim.sm_count;
    int64_t by_work = (n + (int64_t)threads * min_items - 1) / ((int64_t)threads * min_items);
    if (by_work < g) g = by_work;
    if (max_blocks < g) g = max_blocks;
    *grid = g > 0 ? (int)g : 1;
    return cudaSuccess;
}

template <bool VEC>
sp_status_t launch(const int *keys, int64_t n, int *counts, int nbins,
                   const device_limits &lim, cudaStream_t s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int grid = 1;
    size_t smem = (size_t)nbins * sizeof(int);
    if (nbins <= sp_hist_thread_policy::max_bins) {
        using P = sp_hist_thread_policy;
        SP_CUDA_TRY(grid_size(hist_thread_kernel<VEC>, P::block_threads, 0, n,
                              P::min_items_per_thread, INT32_MAX, lim, &grid));
        hist_thread_kernel<VEC><<<grid, P::block_threads, 0, s>>>(keys, n, counts, nbins);
        SP_CUDA_LAUNCHED("hist_thread_kernel");
    } else if (nbins <= sp_hist_warp_policy::max_bins) {
        using P = sp_hist_warp_policy;
        SP_CUDA_TRY(grid_size(hist_warp_kernel<VEC>, P::block_threads, 0, n,
                              P::min_items_per_thread, INT32_MAX, lim, &grid));
        hist_warp_kernel<VEC><<<grid, P::block_threads, 0, s>>>(keys, n, counts, nbins);
        SP_CUDA_LAUNCHED("hist_warp_kernel");
    } else if (smem <= (size_t)lim.smem_optin) {
        using P = sp_hist_block_policy;
        int64_t max_blocks = n / ((int64_t)nbins * P::min_items_per_bin);
        SP_CUDA_TRY(allow_max_dynamic_smem(hist_block_kernel<VEC>, lim));
        SP_CUDA_TRY(grid_size(hist_block_kernel<VEC>, P::block_threads, smem, n,
                              P::min_items_per_thread, max_blocks, lim, &grid));
        hist_block_kernel<VEC><<<grid, P::block_threads, smem, s>>>(keys, n, counts, nbins);
        SP_CUDA_LAUNCHED("hist_block_kernel");
    } else {
        using P = sp_hist_global_policy;
        SP_CUDA_TRY(grid_size(hist_global_kernel<VEC>, P::block_threads, 0, n,
                              P::min_items_per_thread, INT32_MAX, lim, &grid));
        hist_global_kernel<VEC><<<grid, P::block_threads, 0, s>>>(keys, n, counts, nbins);
        SP_CUDA_LAUNCHED("hist_global_kernel");
    }
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_histogram(const int32_t *d_keys, int64_t n, int32_t *d_counts,
                                         int64_t nbins, void *d_temp, size_t *temp_bytes,
                                         void *stream)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)stream;
    device_limits lim = {0, 0};
    SP_CHECK_ARG(temp_bytes != NULL, "histogram: temp_bytes is NULL");
    SP_CHECK_ARG(n >= 0, "histogram: n %lld is negative", (long long)n);
    SP_CHECK_ARG(nbins >= 0, "histogram: nbins %lld is negative", (long long)nbins);
    if (n > INT32_MAX || nbins > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "histogram: n %lld or nbins %lld exceeds the 32-bit counts (at most %d)",
                (long long)n, (long long)nbins, INT32_MAX);
    if (d_temp == NULL) {
        *temp_bytes = temp_align;
        goto done;
    }
    SP_CHECK_ARG(*temp_bytes >= temp_align, "histogram: temp_bytes %zu below the %zu needed",
                 *temp_bytes, temp_align);
    SP_CHECK_ARG(n == 0 || d_keys != NULL, "histogram: d_keys is NULL for n %lld", (long long)n);
    SP_CHECK_ARG(nbins == 0 || d_counts != NULL, "histogram: d_counts is NULL for nbins %lld",
                 (long long)nbins);
    if (nbins == 0) goto done;
    SP_CUDA_TRY(cudaMemsetAsync(d_counts, 0, (size_t)nbins * sizeof *d_counts, s));
    if (n == 0) goto done;
    SP_CUDA_TRY(get_device_limits(&lim));
    if (aligned16(d_keys))
        st = launch<true>(d_keys, n, d_counts, (int)nbins, lim, s);
    else
        st = launch<false>(d_keys, n, d_counts, (int)nbins, lim, s);
done:
    return st;
}
