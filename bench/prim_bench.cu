/* prim_bench: libsp's GPU primitives (histogram, exclusive scan, radix sort) against CUB
 * in the same process, calls interleaved, timed with CUDA events; prints a markdown
 * table with median/min/max times, GB/s under the byte model stated in the header, and
 * the ratio of libsp's median time to CUB's. Each libsp result is checked against CUB's.
 * The sort rows take the default passes (chosen by size); with SP_BENCH_ONESWEEP=1 they
 * end with each kind forced (sp__gpu_radix_sort_set_onesweep): "classic", "onesweep".
 *
 *   prim_bench [--reps N] [--warmup N] [--quick] [--only hist|scan|sort|sort26]
 *
 * N timed calls each (default 50, after 10 warm-up ones); --quick: small sizes; --only: one
 * primitive's rows (sort26: only the targets' rows, 2^26 pairs of 32-bit keys, of 22-bit
 * keys and of 64-bit keys, for a profiler; with SP_BENCH_ONESWEEP=1 also each kind of pass
 * forced on the same three).
 * "of copy" is libsp's GB/s over a device-to-device copy's, measured in the same run.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu_timing.cuh"
#include "sp_kernels.h"

static int warmup = 10;
static int reps = 50;
static double copy_gbs = 0; /* measured device-to-device copy bandwidth, GB/s */
static int sort_mode = -1; /* sp__gpu_radix_sort_set_onesweep: -1 by size, 0 classic, 1 onesweep */

static void set_sort_mode(int mode)
{
    sort_mode = mode;
    sp__gpu_radix_sort_set_onesweep(mode);
}
static cudaStream_t stream;

static void time_pair(const std::function<void()> &prep, const std::function<void()> &a,
                      const std::function<void()> &b, stats *sa, stats *sb)
{
    time_pair(stream, warmup, reps, prep, a, b, sa, sb);
}

static void row(const char *prim, long long n, const char *param, double bytes, stats a, stats b,
                bool ok)
{
    double gbs = bytes / a.median / 1e6;
    if (b.median == 0) { /* libsp alone */
        std::printf("| %s | %lld | %s | %.3f / %.3f / %.3f | - | %.0f | - | %.2f | - | - | - |\n",
                    prim, n, param, a.median, a.min, a.max, gbs, gbs / copy_gbs);
        std::fflush(stdout);
        return;
    }
    std::printf("| %s | %lld | %s | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.0f | %.0f | %.2f | "
                "%.2f | %.2f | %s |\n",
                prim, n, param, a.median, a.min, a.max, b.median, b.min, b.max, gbs,
                bytes / b.median / 1e6, gbs / copy_gbs, a.median / b.median,
                b.median / a.median, ok ? "ok" : "MISMATCH");
    std::fflush(stdout);
    /* the same on stderr, one line a row as it comes, for scripts (the table stays whole on
     * stdout) */
    char line[256];
    std::snprintf(line, sizeof line,
                  "CHECK %s, n %lld, %s: libsp %.3f ms, CUB %.3f ms, libsp/CUB throughput "
                  "%.2fx, bit-exact %s",
                  prim, n, param, a.median, b.median, b.median / a.median,
                  ok ? "ok" : "MISMATCH");
    std::fprintf(stderr, "%s\n", line);
}

/* Deterministic pseudo-random fill on the device (a 32-bit integer hash of the index). */
__device__ unsigned hash32(unsigned long long i)
{
    unsigned long long z = i * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (unsigned)(z ^ (z >> 31));
}

/* Values below modulo, or (modulo 0) the full width of T: 64-bit types get two hashes. */
template <typename T>
__global__ void fill_kernel(T *a, long long n, unsigned modulo, unsigned long long seed)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned h = hash32(i + seed * 0x100000000ull);
        if (modulo)
            a[i] = (T)(h % modulo);
        else if (sizeof(T) == 8)
            a[i] = (T)((unsigned long long)hash32(i + (seed + 77) * 0x100000000ull) << 32 | h);
        else
            a[i] = (T)h;
    }
}

/* Kronecker-like skewed keys in [0, 2^bits): bit b of a key is 1 with probability 0.24
 * (R-MAT's C + D of Graph500, a = 0.57, b = 0.19), so key 0 is the most frequent and the
 * counts follow a power law over the number of 1 bits, as the row degrees of a Kronecker
 * graph before its vertex permutation. */
__global__ void powerlaw_kernel(int *a, long long n, int bits)
{
    const unsigned p1 = (unsigned)(0.24 * 4294967296.0);
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        int k = 0;
        for (int b = 0; b < bits; b++) k |= (hash32(i * 64 + b + 0x7000000000ull) < p1) << b;
        a[i] = k;
    }
}

__global__ void iota_kernel(int *a, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        a[i] = (int)i;
}

template <typename T>
__global__ void count_diff_kernel(const T *a, const T *b, long long n, unsigned long long *diff)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        if (a[i] != b[i]) atomicAdd(diff, 1ull);
}

template <typename T>
static void fill(T *a, long long n, unsigned modulo, unsigned long long seed)
{
    fill_kernel<<<1024, 256, 0, stream>>>(a, n, modulo, seed);
    CUDA_OK(cudaGetLastError());
}

template <typename T>
static bool same(const T *a, const T *b, long long n)
{
    static unsigned long long *d_diff = nullptr;
    unsigned long long diff = 0;
    if (!d_diff) CUDA_OK(cudaMalloc(&d_diff, sizeof *d_diff));
    CUDA_OK(cudaMemsetAsync(d_diff, 0, sizeof *d_diff, stream));
    count_diff_kernel<<<1024, 256, 0, stream>>>(a, b, n, d_diff);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpyAsync(&diff, d_diff, sizeof diff, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    return diff == 0;
}

static void *dmalloc(size_t bytes)
{
    void *p = nullptr;
    CUDA_OK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
    return p;
}

/* Byte model: n keys read once, nbins counters written once. with_cub false: libsp
 * alone (CUB's HistogramEven failed with an illegal address at 8M bins on 64M keys). */
static void bench_histogram(long long n, long long nbins, const char *label, bool with_cub = true,
                            bool powerlaw = false)
{
    int *d_keys = (int *)dmalloc(n * 4), *d_a = (int *)dmalloc(nbins * 4),
        *d_b = (int *)dmalloc(nbins * 4);
    if (powerlaw) { /* nbins a power of two */
        int bits = 0;
        while ((1ll << bits) < nbins) bits++;
        powerlaw_kernel<<<1024, 256, 0, stream>>>(d_keys, n, bits);
        CUDA_OK(cudaGetLastError());
    } else {
        fill(d_keys, n, (unsigned)nbins, 1);
    }
    size_t ta = 0, tb = 0;
    SP_OK(sp__gpu_histogram(d_keys, n, d_a, nbins, nullptr, &ta, stream));
    if (with_cub)
        CUDA_OK(cub::DeviceHistogram::HistogramEven(nullptr, tb, d_keys, d_b, (int)nbins + 1, 0,
                                                    (int)nbins, (int)n, stream));
    void *d_ta = dmalloc(ta), *d_tb = dmalloc(tb);
    stats sa, sb;
    std::function<void()> cub_call = [&] {
        CUDA_OK(cub::DeviceHistogram::HistogramEven(d_tb, tb, d_keys, d_b, (int)nbins + 1, 0,
                                                    (int)nbins, (int)n, stream));
    };
    time_pair(nullptr,
              [&] { SP_OK(sp__gpu_histogram(d_keys, n, d_a, nbins, d_ta, &ta, stream)); },
              with_cub ? cub_call : std::function<void()>(), &sa, &sb);
    char param[64];
    std::snprintf(param, sizeof param, "%lld bins (%s)", nbins, label);
    row("histogram", n, param, 4.0 * n + 4.0 * nbins, sa, sb, !with_cub || same(d_a, d_b, nbins));
    CUDA_OK(cudaFree(d_tb));
    CUDA_OK(cudaFree(d_ta));
    CUDA_OK(cudaFree(d_b));
    CUDA_OK(cudaFree(d_a));
    CUDA_OK(cudaFree(d_keys));
}

static sp_status_t sp_scan(const int *in, int *out, long long n, void *t, size_t *tb)
{
    return sp__gpu_exclusive_scan_i32(in, out, n, nullptr, t, tb, stream);
}
static sp_status_t sp_scan(const long long *in, long long *out, long long n, void *t, size_t *tb)
{
    return sp__gpu_exclusive_scan_i64(reinterpret_cast<const int64_t *>(in),
                                      reinterpret_cast<int64_t *>(out), n, nullptr, t, tb, stream);
}

/* Byte model: n values read once and written once. */
template <typename T>
static void bench_scan(long long n, const char *type)
{
    T *d_in = (T *)dmalloc(n * sizeof(T)), *d_a = (T *)dmalloc(n * sizeof(T)),
      *d_b = (T *)dmalloc(n * sizeof(T));
    fill(d_in, n, 16, 2);
    size_t ta = 0, tb = 0;
    SP_OK(sp_scan(d_in, d_a, n, nullptr, &ta));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(nullptr, tb, d_in, d_b, n, stream));
    void *d_ta = dmalloc(ta), *d_tb = dmalloc(tb);
    stats sa, sb;
    time_pair(nullptr, [&] { SP_OK(sp_scan(d_in, d_a, n, d_ta, &ta)); },
              [&] { CUDA_OK(cub::DeviceScan::ExclusiveSum(d_tb, tb, d_in, d_b, n, stream)); },
              &sa, &sb);
    row("exclusive scan", n, type, 2.0 * n * sizeof(T), sa, sb, same(d_a, d_b, n));
    CUDA_OK(cudaFree(d_tb));
    CUDA_OK(cudaFree(d_ta));
    CUDA_OK(cudaFree(d_b));
    CUDA_OK(cudaFree(d_a));
    CUDA_OK(cudaFree(d_in));
}

/* Byte model: per pass of 8 bits, keys (and values) read once and written once. libsp
 * sorts in place, so its input is restored from a pristine copy before each call
 * (untimed); CUB reads the pristine copy and writes separate outputs. */
static sp_status_t sp_sort(unsigned *k, int *v, long long n, int bits, void *t, size_t *tb)
{
    return sp__gpu_radix_sort_pairs_u32(k, v, n, bits, t, tb, stream);
}
static sp_status_t sp_sort(unsigned long long *k, int *v, long long n, int bits, void *t, size_t *tb)
{
    return sp__gpu_radix_sort_pairs_u64(reinterpret_cast<uint64_t *>(k), v, n, bits, t, tb, stream);
}

template <typename K>
static void bench_sort(long long n, int key_bits, bool pairs)
{
    const size_t kb = sizeof(K);
    K *d_k0 = (K *)dmalloc(n * kb), *d_ka = (K *)dmalloc(n * kb), *d_kb = (K *)dmalloc(n * kb);
    int *d_v0 = nullptr, *d_va = nullptr, *d_vb = nullptr;
    fill(d_k0, n, 0, 3);
    if (pairs) {
        d_v0 = (int *)dmalloc(n * 4);
        d_va = (int *)dmalloc(n * 4);
        d_vb = (int *)dmalloc(n * 4);
        iota_kernel<<<1024, 256, 0, stream>>>(d_v0, n);
        CUDA_OK(cudaGetLastError());
    }
    size_t ta = 0, tb = 0;
    SP_OK(sp_sort(d_ka, d_va, n, key_bits, nullptr, &ta));
    if (pairs)
        CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, tb, d_k0, d_kb, d_v0, d_vb, n, 0,
                                                key_bits, stream));
    else
        CUDA_OK(cub::DeviceRadixSort::SortKeys(nullptr, tb, d_k0, d_kb, n, 0, key_bits, stream));
    void *d_ta = dmalloc(ta), *d_tb = dmalloc(tb);
    stats sa, sb;
    time_pair(
        [&] {
            CUDA_OK(cudaMemcpyAsync(d_ka, d_k0, n * kb, cudaMemcpyDeviceToDevice, stream));
            if (pairs)
                CUDA_OK(cudaMemcpyAsync(d_va, d_v0, n * 4, cudaMemcpyDeviceToDevice, stream));
        },
        [&] { SP_OK(sp_sort(d_ka, d_va, n, key_bits, d_ta, &ta)); },
        [&] {
            if (pairs)
                CUDA_OK(cub::DeviceRadixSort::SortPairs(d_tb, tb, d_k0, d_kb, d_v0, d_vb, n, 0,
                                                        key_bits, stream));
            else
                CUDA_OK(cub::DeviceRadixSort::SortKeys(d_tb, tb, d_k0, d_kb, n, 0, key_bits,
                                                       stream));
        },
        &sa, &sb);
    int passes = (key_bits + 7) / 8;
    double bytes = 2.0 * passes * n * (kb + (pairs ? 4 : 0));
    bool ok = same(d_ka, d_kb, n) && (!pairs || same(d_va, d_vb, n));
    char param[64];
    std::snprintf(param, sizeof param, "u%d keys, %d bits, %s", (int)(8 * kb), key_bits,
                  pairs ? "pairs" : "keys only");
    row(sort_mode > 0 ? "radix sort onesweep" : sort_mode == 0 ? "radix sort classic" : "radix sort",
        n, param, bytes, sa, sb, ok);
    CUDA_OK(cudaFree(d_tb));
    CUDA_OK(cudaFree(d_ta));
    if (pairs) {
        CUDA_OK(cudaFree(d_vb));
        CUDA_OK(cudaFree(d_va));
        CUDA_OK(cudaFree(d_v0));
    }
    CUDA_OK(cudaFree(d_kb));
    CUDA_OK(cudaFree(d_ka));
    CUDA_OK(cudaFree(d_k0));
}

/* Device-to-device copy of 1 GiB (bytes read + written): the bandwidth to compare with. */
static double copy_bandwidth()
{
    size_t bytes = (size_t)1 << 30;
    void *a = dmalloc(bytes), *b = dmalloc(bytes);
    CUDA_OK(cudaMemsetAsync(a, 1, bytes, stream));
    stats s, s2;
    time_pair(nullptr, [&] { CUDA_OK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream)); },
              [&] { CUDA_OK(cudaMemcpyAsync(a, b, bytes, cudaMemcpyDeviceToDevice, stream)); }, &s,
              &s2);
    CUDA_OK(cudaFree(b));
    CUDA_OK(cudaFree(a));
    return 2.0 * bytes / std::min(s.median, s2.median) / 1e6;
}

int main(int argc, char **argv)
{
    bool quick = false;
    const char *only = "";
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--warmup") && i + 1 < argc)
            warmup = std::max(0, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--quick"))
            quick = true;
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            std::fprintf(stderr,
                         "usage: %s [--reps N] [--warmup N] [--quick] [--only hist|scan|sort|sort26]\n",
                         argv[0]);
            return 2;
        }
    }
    bool hist = !*only || !std::strcmp(only, "hist"), scan = !*only || !std::strcmp(only, "scan"),
         sort = !*only || !std::strcmp(only, "sort"), sort26 = !std::strcmp(only, "sort26");
    cudaDeviceProp prop;
    int dev = 0, driver = 0, runtime = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    CUDA_OK(cudaDriverGetVersion(&driver));
    CUDA_OK(cudaRuntimeGetVersion(&runtime));
    CUDA_OK(cudaStreamCreate(&stream));
    std::printf("GPU: %s (%d SMs, cc %d.%d)\n", prop.name, prop.multiProcessorCount, prop.major,
                prop.minor);
    std::printf("CUDA driver: %d\nCUDA runtime: %d\nCUB: %d.%d.%d\n", driver, runtime,
                CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    std::printf("Timed calls: %d (after %d warm-up), libsp and CUB interleaved\n", reps, warmup);
    copy_gbs = copy_bandwidth();
    std::printf("Copy bandwidth (1 GiB D2D, read+write): %.0f GB/s\n", copy_gbs);
    std::printf("Byte models: histogram 4n + 4 nbins; scan 2 n sizeof(T); sort 2 x passes x n x "
                "(key bytes + 4 per value), passes = ceil(bits / 8)\n\n");
    std::printf("| primitive | n | parameters | libsp ms med / min / max | CUB ms med / min / max "
                "| libsp GB/s | CUB GB/s | libsp of copy | libsp/CUB time | libsp/CUB throughput "
                "| check |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");

    if (sort26) { /* the targets' rows (32- and 64-bit keys) and a transpose's 22-bit column
                   * keys; with SP_BENCH_ONESWEEP=1 each kind of pass forced after them */
        const long long n26 = quick ? 1 << 20 : 1 << 26;
        bench_sort<unsigned>(n26, 32, true);
        bench_sort<unsigned>(n26, 22, true);
        bench_sort<unsigned long long>(n26, 64, true);
        const char *os = getenv("SP_BENCH_ONESWEEP");
        if (os && atoi(os) != 0) {
            for (int mode = 0; mode <= 1; mode++) {
                set_sort_mode(mode);
                bench_sort<unsigned>(n26, 32, true);
                bench_sort<unsigned>(n26, 22, true);
                bench_sort<unsigned long long>(n26, 64, true);
            }
            set_sort_mode(-1);
        }
        CUDA_OK(cudaStreamDestroy(stream));
        return 0;
    }
    long long hn = quick ? 1 << 20 : 1 << 26;
    if (hist) {
        bench_histogram(hn, 16, "few");
        bench_histogram(hn, 256, "byte");
        bench_histogram(hn, 256, "byte, power-law keys", true, true);
        bench_histogram(hn, 65536, "64k");
        bench_histogram(hn, hn / 8, "n/8, row counts", false);
        bench_histogram(hn, hn / 8, "n/8, power-law row counts", false, true);
    }
    const long long sizes[] = {1 << 20, 1 << 24, 1 << 27, 1 << 28};
    for (long long n : sizes) {
        if (!scan || (quick && n > (1 << 20))) break;
        bench_scan<int>(n, "int32");
        bench_scan<long long>(n, "int64");
    }
    for (long long n : sizes) {
        if (!sort || n > (1 << 27) || (quick && n > (1 << 20))) break;
        bench_sort<unsigned>(n, 32, true);
    }
    if (sort) {
        long long mid = quick ? 1 << 20 : 1 << 24;
        bench_sort<unsigned>(mid, 32, false);
        bench_sort<unsigned>(mid, 20, true);
        bench_sort<unsigned long long>(mid, 64, true);
        bench_sort<unsigned long long>(quick ? 1 << 20 : 1 << 26, 64, true);
        bench_sort<unsigned long long>(quick ? 1 << 20 : 1 << 26, 40, true);
        /* each kind of pass forced, where the default's choice by size changes and at the
         * targets' sizes: 2^26 pairs of 32- and 64-bit keys */
        long long big = quick ? 1 << 20 : 1 << 26;
        bench_sort<unsigned>(big, 32, true);
        const char *os = getenv("SP_BENCH_ONESWEEP");
        if (os && atoi(os) != 0) {
            for (int mode = 0; mode <= 1; mode++) {
                set_sort_mode(mode);
                for (long long m = 1 << 18; m <= (quick ? 1 << 20 : 1 << 24); m *= 4)
                    bench_sort<unsigned>(m, 32, true);
                bench_sort<unsigned>(big, 32, true);
                bench_sort<unsigned>(big, 22, true);
                bench_sort<unsigned>(mid, 32, false);
                bench_sort<unsigned long long>(big, 64, true);
            }
            set_sort_mode(-1);
        }
    }
    /* last, since a failure inside CUB ends the process: row counts with CUB */
    if (hist) {
        bench_histogram(1 << 20, (1 << 20) / 8, "n/8, row counts");
        bench_histogram(1 << 24, (1 << 24) / 8, "n/8, row counts");
        bench_histogram(1 << 24, (1 << 24) / 8, "n/8, power-law row counts", true, true);
    }
    CUDA_OK(cudaStreamDestroy(stream));
    return 0;
}
