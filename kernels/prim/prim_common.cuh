/* Building blocks shared by the primitives (kernels/prim/), layered as in CUB:
 * warp-level match and scans, block-level scan, device queries, scratch layout and the
 * CUDA error check. Header-only (the kernels are compiled without separable
 * compilation), every function static or inline. */
#ifndef SP_PRIM_COMMON_CUH
#define SP_PRIM_COMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <utility>

extern "C" {
#include "sp_base.h"
}

/* In a function with `sp_status_t st` and a `done:` label: a failed CUDA call records
 * SP_STATUS_DEVICE_ERROR with CUDA's text; CUDA's last error is cleared so that later
 * calls start clean. SP_CUDA_LAUNCHED checks the <<<>>> launch just queued (it reads
 * CUDA's last error, so the caller must have cleared it: sp__cuda_env does).
 * SP_CUDA_LAUNCH checks a launch by sp_prim::launch, which returns the launch's own
 * status: nothing is read or cleared before or after a launch that succeeds, the path of
 * the per-call SpMV kernels. */
#define SP_CUDA_FAIL(e, ...)                                                             \
    do {                                                                                 \
        (void)cudaGetLastError();                                                        \
        SP_FAIL(SP_STATUS_DEVICE_ERROR, "%s failed: %s (%s)", __VA_ARGS__,               \
                cudaGetErrorString(e), cudaGetErrorName(e));                             \
    } while (0)
#define SP_CUDA_TRY(call)                                                                \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) SP_CUDA_FAIL(e_, #call);                                  \
    } while (0)
#define SP_CUDA_LAUNCHED(kernel_name)                                                    \
    do {                                                                                 \
        cudaError_t e_ = cudaGetLastError();                                             \
        if (e_ != cudaSuccess) SP_CUDA_FAIL(e_, "launch of " kernel_name);               \
    } while (0)
#define SP_CUDA_LAUNCH(kernel_name, call)                                                \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) SP_CUDA_FAIL(e_, "launch of " kernel_name);               \
    } while (0)

namespace sp_prim {

static constexpr unsigned full_mask = 0xffffffffu;
static constexpr size_t temp_align = 256;

/* kernel<<<grid, block, 0, stream>>>(args...), returning the launch's status (the
 * configuration checks and any sticky error of the context), so that no cudaGetLastError
 * is needed around it: one runtime call per launch. */
template <typename... Params, typename... Args>
static inline cudaError_t launch(void (*kernel)(Params...), unsigned grid, unsigned block,
                                 void *stream, Args &&...args)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.stream = (cudaStream_t)stream;
    return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

/* Round a byte count up to the scratch alignment. */
__host__ __device__ constexpr inline size_t align_up(size_t bytes) { return (bytes + temp_align - 1) / temp_align * temp_align; }

/* Lanes of the warp whose `label` (its low `bits` bits) equals this lane's and whose
 * `valid` equals this lane's: one ballot per bit, cheaper than match.any on current
 * GPUs (an H100: a onesweep pass of 2^26 pairs 615 us, 750 with __match_any_sync). Must be called by all 32 lanes. */
template <int BITS>
__device__ __forceinline__ unsigned warp_match(unsigned label, bool valid)
{
    unsigned peers = __ballot_sync(full_mask, valid);
    peers = valid ? peers : ~peers;
#pragma unroll
    for (int b = 0; b < BITS; b++) {
        bool bit = (label >> b) & 1u;
        unsigned m = __ballot_sync(full_mask, bit);
        peers &= bit ? m : ~m;
    }
    return peers;
}

/* Lanes below this one. */
__device__ __forceinline__ unsigned lanemask_lt()
{
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

/* Sum over the warp, in every lane. */
template <typename T>
__device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(full_mask, v, d);
    return v;
}

/* Inclusive scan over the warp. */
template <typename T>
__device__ __forceinline__ T warp_inclusive_scan(T v, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T u = __shfl_up_sync(full_mask, v, d);
        if (lane >= d) v += u;
    }
    return v;
}

/* Exclusive scan of one value per thread over a block of BLOCK threads; *total gets the
 * block's sum in every thread. warp_totals: BLOCK/32 + 1 elements of shared memory.
 * Contains __syncthreads: call from all threads. */
template <int BLOCK, typename T>
__device__ __forceinline__ T block_exclusive_scan(T v, T *warp_totals, T *total)
{
    constexpr int nwarps = BLOCK / 32;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T incl = warp_inclusive_scan(v, lane);
    if (lane == 31) warp_totals[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        T w = lane < nwarps ? warp_totals[lane] : T(0);
        T wi = warp_inclusive_scan(w, lane);
        if (lane < nwarps) warp_totals[lane] = wi - w;
        if (lane == nwarps - 1) warp_totals[nwarps] = wi;
    }
    __syncthreads();
    T excl = warp_totals[warp] + incl - v;
    *total = warp_totals[nwarps];
    return excl;
}

/* Properties of the current device that launch choices depend on. */
struct device_limits {
    int sm_count;
    int smem_optin; /* dynamic shared memory a block may opt in to, bytes */
};

static inline cudaError_t get_device_limits(device_limits *lim)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&lim->sm_count, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&lim->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                   dev);
    return e;
}

/* Lets a kernel launch with up to all the dynamic shared memory a block may opt in to.
 * The limit is one setting per kernel in the process, shared by every thread and context:
 * setting it to the size of the launch at hand would let another thread lower it between
 * this thread's setting and its launch (cudaErrorInvalidValue). Every caller sets the same
 * value, the device's maximum less the kernel's static shared memory, so none can lower
 * it under another; the launch still asks for (and the carveout follows) its own size. */
template <typename K>
static inline cudaError_t allow_max_dynamic_smem(K kernel, const device_limits &lim)
{
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, kernel);
    if (e != cudaSuccess) return e;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                lim.smem_optin - (int)attr.sharedSizeBytes);
}

static inline bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

} /* namespace sp_prim */

#endif /* SP_PRIM_COMMON_CUH */
