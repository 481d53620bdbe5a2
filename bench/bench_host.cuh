/* What the GPU benchmarks share on the host side (convert_bench, upload_bench,
 * spmv64_bench): the wall clock, a fixed-seed shuffle of COO entries, a device-memory
 * check that refuses a request before allocating, with the bytes needed and free, and the
 * GPU banner.
 * Header-only; each benchmark is one translation unit. */
#ifndef SP_BENCH_HOST_CUH
#define SP_BENCH_HOST_CUH

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <utility>

/* Milliseconds on the host's steady clock. */
static inline double wall_ms()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

/* splitmix64: the benchmarks' fixed-seed random stream. */
static inline uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Fisher-Yates over the entries (row[k], col[k], val[k]) together, from a fixed seed, so
 * every run and every benchmark sees the same order. (Swapping a permutation instead and
 * gathering the arrays on every core was no faster: the serial swaps' random accesses and
 * divisions dominate either way.) */
template <typename V>
static inline void shuffle_entries(int32_t *row, int32_t *col, V *val, int64_t nnz, uint64_t seed)
{
    for (int64_t i = nnz - 1; i > 0; i--) {
        int64_t j = (int64_t)(splitmix(&seed) % (uint64_t)(i + 1));
        std::swap(row[i], row[j]);
        std::swap(col[i], col[j]);
        std::swap(val[i], val[j]);
    }
}

/* The device's free and total memory in bytes (cudaMemGetInfo); 0 and 0 on failure. */
static inline void device_memory(double *free_bytes, double *total_bytes)
{
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) (void)cudaGetLastError();
    *free_bytes = (double)f;
    *total_bytes = (double)t;
}

/* True when `bytes` more fit in the device's free memory with `reserve` to spare; else
 * prints "<what>: refused: needs N bytes (X GB), the device has F bytes free of T" on
 * stdout and returns false. */
static inline bool device_fits(const char *what, double bytes, double reserve = 256.0 * (1 << 20))
{
    double free_b = 0, total_b = 0;
    device_memory(&free_b, &total_b);
    if (bytes + reserve <= free_b) return true;
    std::printf("%s: refused: needs %.0f bytes (%.2f GB, plus %.2f GB spare), the device has "
                "%.0f bytes (%.2f GB) free of %.0f\n",
                what, bytes, bytes / 1e9, reserve / 1e9, free_b, free_b / 1e9, total_b);
    return false;
}

/* Prints the GPU (name, SMs, compute capability, L2, free and total memory), the CUDA
 * driver and runtime versions; returns the device ordinal, or -1 (said why) without one. */
static inline int gpu_banner()
{
    cudaDeviceProp prop;
    int dev = 0, driver = 0, runtime = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
    if (e == cudaSuccess) e = cudaDriverGetVersion(&driver);
    if (e == cudaSuccess) e = cudaRuntimeGetVersion(&runtime);
    if (e != cudaSuccess) {
        std::printf("no usable GPU: %s\n", cudaGetErrorString(e));
        return -1;
    }
    double free_b = 0, total_b = 0;
    device_memory(&free_b, &total_b);
    std::printf("GPU: %s (%d SMs, cc %d.%d, L2 %d MB), %.2f GB free of %.2f\nCUDA driver: %d\n"
                "CUDA runtime: %d\n",
                prop.name, prop.multiProcessorCount, prop.major, prop.minor,
                prop.l2CacheSize >> 20, free_b / 1e9, total_b / 1e9, driver, runtime);
    return dev;
}

#endif /* SP_BENCH_HOST_CUH */
