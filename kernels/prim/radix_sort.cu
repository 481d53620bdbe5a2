/* Stable LSD radix sort of 32- or 64-bit keys (with optional 32-bit values), reduce-then-scan
 * per 8-bit digit (Merrill & Grimshaw, "High Performance and Scalable Radix Sorting",
 * 2011): an upsweep counts each tile's digits, the single-pass scan of scan.cu turns
 * the digit-major count matrix into global offsets, and a downsweep ranks each tile's
 * keys stably in shared memory (warp-private counters, equal digits matched by ballots)
 * and scatters them. 8-bit digits: 4 passes for 32-bit keys, 8 for 64-bit, and 256
 * buckets, one per thread of a block for the digit scans; wider digits would cut passes
 * but make the count matrix and the per-warp counters outgrow shared memory and cache.
 * Both key widths share the kernels through templates on the key type. */
#include "prim_common.cuh"
#include "prim_policy.h"
#include "sp_kernels.h"

using namespace sp_prim;

namespace {

constexpr int DIGIT_BITS = sp_radix_policy<unsigned>::digit_bits;
constexpr int BLOCK = sp_radix_policy<unsigned>::block_threads;
constexpr int NWARPS = BLOCK / 32;
constexpr int RADIX = 1 << DIGIT_BITS;
static_assert(RADIX == BLOCK, "one thread per digit bucket");
static_assert(sp_radix_policy<unsigned long long>::digit_bits == DIGIT_BITS &&
                  sp_radix_policy<unsigned long long>::block_threads == BLOCK,
              "both key widths share the digit and block shape");

template <typename K> constexpr int tile_of() { return BLOCK * sp_radix_policy<K>::items_per_thread; }

/* Item i of lane l in warp w sits at w * 32 * ITEMS + i * 32 + l of the tile: coalesced
 * loads, and a warp step i visits its keys in tile order, which keeps ranking stable. */
template <int ITEMS>
__device__ __forceinline__ int striped(int warp, int i, int lane) { return warp * 32 * ITEMS + i * 32 + lane; }

template <typename K>
__device__ __forceinline__ unsigned digit_of(K key, int shift, unsigned mask) { return (unsigned)(key >> shift) & mask; }

/* Adds each valid key's digit to the warp's counters; returns for each the number of
 * earlier keys of the warp with the same digit (its rank among them). */
__device__ __forceinline__ int warp_count(unsigned d, bool valid, int *counters, unsigned below)
{
    unsigned peers = warp_match<DIGIT_BITS>(d, valid);
    int leader = __ffs(peers) - 1;
    int old = 0;
    if (valid && (peers & below) == 0) old = atomicAdd(&counters[d], __popc(peers));
    old = __shfl_sync(full_mask, old, leader);
    return old + __popc(peers & below);
}

/* counts[d * nblocks + tile] = keys of the tile with digit d. */
template <typename K>
__global__ void __launch_bounds__(BLOCK)
upsweep_kernel(const K *keys, int64_t n, int shift, unsigned mask, int *counts, int nblocks)
{
    constexpr int ITEMS = sp_radix_policy<K>::items_per_thread;
    __shared__ int hist[NWARPS][RADIX];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    for (int w = 0; w < NWARPS; w++) hist[w][t] = 0;
    __syncthreads();
    int64_t base = (int64_t)blockIdx.x * tile_of<K>();
    unsigned below = lanemask_lt();
#pragma unroll 4
    for (int i = 0; i < ITEMS; i++) {
        int64_t e = base + striped<ITEMS>(warp, i, lane);
        bool valid = e < n;
        unsigned d = valid ? digit_of(__ldg(keys + e), shift, mask) : 0;
        (void)warp_count(d, valid, hist[warp], below);
    }
    __syncthreads();
    if (t <= (int)mask) {
        int s = 0;
        for (int w = 0; w < NWARPS; w++) s += hist[w][t];
        counts[(int64_t)t * nblocks + blockIdx.x] = s;
    }
}

/* Ranks the tile's keys stably by digit and writes each to offsets[digit, tile] + its
 * rank within the tile's keys of that digit. Values are loaded only once their keys'
 * slots are known, so they hold no registers during the ranking. */
template <typename K, bool PAIRS>
__global__ void __launch_bounds__(BLOCK, sp_radix_policy<K>::min_blocks)
downsweep_kernel(const K *keys_in, const int *vals_in, K *keys_out, int *vals_out, int64_t n,
                 int shift, unsigned mask, const int *offsets, int nblocks)
{
    constexpr int ITEMS = sp_radix_policy<K>::items_per_thread;
    constexpr int TILE = tile_of<K>();
    __shared__ int hist[NWARPS][RADIX]; /* per warp, then its offset within the digit */
    __shared__ int digit_start[RADIX];  /* first tile slot of each digit */
    __shared__ int digit_global[RADIX]; /* output position of the digit's first key */
    __shared__ int warp_totals[BLOCK / 32 + 1];
    __shared__ K sorted_keys[TILE];
    __shared__ int sorted_vals[PAIRS ? TILE : 1];

    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    for (int w = 0; w < NWARPS; w++) hist[w][t] = 0;
    __syncthreads();
    int64_t base = (int64_t)blockIdx.x * TILE;
    int count = n - base < TILE ? (int)(n - base) : TILE;
    unsigned below = lanemask_lt();

    K k[ITEMS];
    int slot[ITEMS]; /* rank within the warp's keys of its digit, then the tile slot */
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int e = striped<ITEMS>(warp, i, lane);
        k[i] = e < count ? __ldcs(keys_in + base + e) : K(0);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        bool valid = striped<ITEMS>(warp, i, lane) < count;
        slot[i] = warp_count(digit_of(k[i], shift, mask), valid, hist[warp], below);
    }
    __syncthreads();

    /* thread t owns digit t: warps' offsets within it, then the digits' starts */
    int run = 0;
    for (int w = 0; w < NWARPS; w++) {
        int c = hist[w][t];
        hist[w][t] = run;
        run += c;
    }
    int tile_keys;
    digit_start[t] = block_exclusive_scan<BLOCK>(run, warp_totals, &tile_keys);
    digit_global[t] = t <= (int)mask ? offsets[(int64_t)t * nblocks + blockIdx.x] : 0;
    __syncthreads();

#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        if (striped<ITEMS>(warp, i, lane) < count) {
            unsigned d = digit_of(k[i], shift, mask);
            slot[i] += digit_start[d] + hist[warp][d];
            sorted_keys[slot[i]] = k[i];
        }
    }
    if (PAIRS) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            int e = striped<ITEMS>(warp, i, lane);
            if (e < count) sorted_vals[slot[i]] = __ldcs(vals_in + base + e);
        }
    }
    __syncthreads();

    /* consecutive slots of one digit go to consecutive output positions */
    for (int s = t; s < count; s += BLOCK) {
        K key = sorted_keys[s];
        unsigned d = digit_of(key, shift, mask);
        int64_t dst = (int64_t)digit_global[d] + (s - digit_start[d]);
        keys_out[dst] = key;
        if (PAIRS) vals_out[dst] = sorted_vals[s];
    }
}

/* Scratch: the other key (and value) buffer, the count matrix and the scan's scratch. */
struct layout {
    size_t keys_alt, vals_alt, counts, scan_temp, scan_bytes, total;
};

template <typename K>
sp_status_t plan(int64_t n, bool pairs, layout *L)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t nblocks = (n + tile_of<K>() - 1) / tile_of<K>();
    int64_t ncounts = (int64_t)RADIX * nblocks;
    L->keys_alt = 0;
    L->vals_alt = align_up((size_t)n * sizeof(K));
    L->counts = L->vals_alt + (pairs ? align_up((size_t)n * 4) : 0);
    L->scan_temp = L->counts + align_up((size_t)ncounts * 4);
    SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, ncounts, NULL, NULL, &L->scan_bytes, NULL));
    L->total = L->scan_temp + L->scan_bytes;
done:
    return st;
}

template <typename K>
sp_status_t radix_sort(K *d_keys, int *d_vals, int64_t n, int key_bits, void *d_temp,
                       size_t *temp_bytes, cudaStream_t s)
{
    constexpr int TILE = tile_of<K>();
    constexpr int max_bits = 8 * (int)sizeof(K);
    sp_status_t st = SP_STATUS_SUCCESS;
    layout L = {0, 0, 0, 0, 0, 0};
    bool pairs = d_vals != NULL;
    int nblocks = 0;
    char *tmp = static_cast<char *>(d_temp);
    K *kin = d_keys, *kout = NULL;
    int *vin = d_vals, *vout = NULL, *counts = NULL;
    SP_CHECK_ARG(temp_bytes != NULL, "radix sort: temp_bytes is NULL");
    SP_CHECK_ARG(key_bits >= 1 && key_bits <= max_bits, "radix sort: key_bits %d outside 1..%d",
                 key_bits, max_bits);
    SP_CHECK_ARG(n >= 0, "radix sort: n %lld is negative", (long long)n);
    if (n > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "radix sort: n %lld exceeds the 32-bit positions (at most %d)",
                (long long)n, INT32_MAX);
    SP_TRY(plan<K>(n, pairs, &L));
    if (d_temp == NULL) {
        *temp_bytes = L.total;
        goto done;
    }
    SP_CHECK_ARG(*temp_bytes >= L.total, "radix sort: temp_bytes %zu below the %zu needed for n %lld",
                 *temp_bytes, L.total, (long long)n);
    SP_CHECK_ARG(n == 0 || d_keys != NULL, "radix sort: d_keys is NULL for n %lld", (long long)n);
    if (n == 0) goto done;
    nblocks = (int)((n + TILE - 1) / TILE);
    kout = reinterpret_cast<K *>(tmp + L.keys_alt);
    vout = pairs ? reinterpret_cast<int *>(tmp + L.vals_alt) : NULL;
    counts = reinterpret_cast<int *>(tmp + L.counts);
    for (int shift = 0; shift < key_bits; shift += DIGIT_BITS) {
        int bits = key_bits - shift < DIGIT_BITS ? key_bits - shift : DIGIT_BITS;
        unsigned mask = (1u << bits) - 1u;
        size_t scan_bytes = L.scan_bytes;
        upsweep_kernel<K><<<nblocks, BLOCK, 0, s>>>(kin, n, shift, mask, counts, nblocks);
        SP_CUDA_LAUNCHED("radix upsweep_kernel");
        SP_TRY(sp__gpu_exclusive_scan_i32(counts, counts, (int64_t)(mask + 1) * nblocks, NULL,
                                          tmp + L.scan_temp, &scan_bytes, s));
        if (pairs)
            downsweep_kernel<K, true><<<nblocks, BLOCK, 0, s>>>(kin, vin, kout, vout, n, shift,
                                                                mask, counts, nblocks);
        else
            downsweep_kernel<K, false><<<nblocks, BLOCK, 0, s>>>(kin, NULL, kout, NULL, n, shift,
                                                                 mask, counts, nblocks);
        SP_CUDA_LAUNCHED("radix downsweep_kernel");
        K *ks = kin;
        kin = kout;
        kout = ks;
        int *vs = vin;
        vin = vout;
        vout = vs;
    }
    /* after an odd number of passes the result sits in the scratch buffers */
    if (kin != d_keys) {
        SP_CUDA_TRY(cudaMemcpyAsync(d_keys, kin, (size_t)n * sizeof(K), cudaMemcpyDeviceToDevice, s));
        if (pairs)
            SP_CUDA_TRY(cudaMemcpyAsync(d_vals, vin, (size_t)n * 4, cudaMemcpyDeviceToDevice, s));
    }
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_radix_sort_pairs_u32(uint32_t *d_keys, int32_t *d_vals, int64_t n,
                                                    int key_bits, void *d_temp, size_t *temp_bytes,
                                                    void *stream)
{
    return radix_sort<unsigned>(reinterpret_cast<unsigned *>(d_keys), reinterpret_cast<int *>(d_vals),
                                n, key_bits, d_temp, temp_bytes, (cudaStream_t)stream);
}

extern "C" sp_status_t sp__gpu_radix_sort_pairs_u64(uint64_t *d_keys, int32_t *d_vals, int64_t n,
                                                    int key_bits, void *d_temp, size_t *temp_bytes,
                                                    void *stream)
{
    return radix_sort<unsigned long long>(reinterpret_cast<unsigned long long *>(d_keys),
                                          reinterpret_cast<int *>(d_vals), n, key_bits, d_temp,
                                          temp_bytes, (cudaStream_t)stream);
}
