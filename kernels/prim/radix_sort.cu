/* Stable LSD radix sort of 32- or 64-bit keys (with optional 32-bit values), reduce-then-scan
 * per 8-bit digit (Merrill & Grimshaw, "High Performance and Scalable Radix Sorting",
 * 2011): an upsweep counts each tile's digits, the single-pass scan of scan.cu turns
 * the digit-major count matrix into global offsets, and a downsweep ranks each tile's
 * keys stably in shared memory (warp-private counters, equal digits matched by ballots)
 * and scatters them. 8-bit digits: 4 passes for 32-bit keys, 8 for 64-bit, and 256
 * buckets, one per thread of a block for the digit scans; wider digits would cut passes
 * but make the count matrix and the per-warp counters outgrow shared memory and cache.
 * Both key widths share the kernels through templates on the key type.
 *
 * Onesweep (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
 * GPUs", 2022; issue 22; off by default, sp__gpu_radix_sort_set_onesweep turns it on until
 * a device run shows it equal and faster): the digit counts of every pass come from one
 * read of the keys up front; then each pass is one kernel, whose blocks take their tiles by
 * ticket, rank them as the downsweep does, publish their per-digit counts and find the
 * counts of all earlier tiles by decoupled look-back (each digit's thread walks back until
 * a tile that has published its inclusive prefix), so a pass reads the keys once and needs
 * no count matrix or scan. No block waits on a tile whose ticket came after its own, and
 * every earlier ticket is held by a running block that publishes its counts before it
 * looks back, so the look-back cannot deadlock. Library code must not hang its caller even
 * so: a wait longer than sp_radix_onesweep_policy::lookback_timeout_ns (or any wait once
 * another tile gave up) gives up, marks the sort failed in a device word, and the tile
 * writes nothing; later passes see the mark and return at once, and the host reads the
 * word after the last pass and returns SP_STATUS_DEVICE_ERROR. */
#include <atomic>
#include <cuda/atomic>

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

/* counts[d * nblocks + tile] = keys of the tile with digit d. Counting needs no ranks, so
 * each key is one shared atomic on its warp's counters, after all the tile's loads are in
 * flight; a warp whose 32 keys share one digit (keys narrower than key_bits, sorted or
 * constant input) adds them with one atomic instead of 32 on one address. On an H100 the
 * ranked form (warp_count, nine ballots a key) ran at 0.98 TB/s, instruction-bound, a
 * quarter of the sort's time (bench/results/h100-sort-2026-11-26.md). */
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
    K k[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int64_t e = base + striped<ITEMS>(warp, i, lane);
        k[i] = e < n ? __ldg(keys + e) : K(0);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        bool valid = base + striped<ITEMS>(warp, i, lane) < n;
        unsigned d = digit_of(k[i], shift, mask);
        unsigned d0 = __shfl_sync(full_mask, d, 0);
        if (__all_sync(full_mask, valid && d == d0)) {
            if (lane == 0) atomicAdd(&hist[warp][d0], 32);
        } else if (valid) {
            atomicAdd(&hist[warp][d], 1);
        }
    }
    __syncthreads();
    if (t <= (int)mask) {
        int s = 0;
        for (int w = 0; w < NWARPS; w++) s += hist[w][t];
        counts[(int64_t)t * nblocks + blockIdx.x] = s;
    }
}

/* A tile's published count of one digit in the onesweep passes: (flag << 32) | count, flag
 * 2 * pass + 1 for the tile's own count, 2 * pass + 2 for the sum over it and every earlier
 * tile; older passes' flags (smaller) read as "not yet", so the words are zeroed once per
 * sort. */
using status_ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

using error_ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

/* Where the onesweep passes find the counts before a tile (unused by the classic ones). */
struct lookback_t {
    const int *off;              /* the pass's digit offsets over all keys */
    unsigned long long *status;  /* nblocks * RADIX words */
    unsigned *ticket;            /* the pass's tile counter */
    unsigned *error;             /* 0, or 1 + the first pass whose look-back gave up */
    unsigned pass;
    long long timeout_ns;        /* the longest wait on one earlier tile */
    int withheld_tile;           /* test hook: this tile of pass 0 never publishes; else -1 */
};

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Digit d's count in the tiles before `tile` (thread d, d <= mask), by decoupled look-back:
 * publish the tile's own count, walk back adding the earlier tiles' counts until one that
 * has published its inclusive sum, publish this tile's. Returns -1 (publishing nothing
 * more) when a wait outlasts lb.timeout_ns or the sort is already marked failed; the
 * first such wait marks it. */
__device__ __forceinline__ int look_back(const lookback_t &lb, int tile, int d, int run)
{
    using OP = sp_radix_onesweep_policy;
    const unsigned long long agg = 2ull * lb.pass + 1, prefix = agg + 1;
    const bool publish = !(lb.pass == 0 && tile == lb.withheld_tile);
    status_ref mine(lb.status[(int64_t)tile * RADIX + d]);
    int before = 0;
    if (tile > 0) {
        if (publish) mine.store((agg << 32) | (unsigned)run, cuda::memory_order_relaxed);
        unsigned polls = 0;
        unsigned long long since = 0;
        for (int j = tile - 1;;) {
            unsigned long long w =
                status_ref(lb.status[(int64_t)j * RADIX + d]).load(cuda::memory_order_relaxed);
            unsigned long long flag = w >> 32;
            if (flag < agg) { /* tile j has not published yet */
                if (++polls % OP::polls_per_clock_read != 0) continue;
                unsigned long long now = global_ns();
                if (since == 0) since = now;
                bool failed = error_ref(*lb.error).load(cuda::memory_order_relaxed) != 0;
                if (!failed && now - since < (unsigned long long)lb.timeout_ns) continue;
                unsigned expected = 0;
                error_ref(*lb.error).compare_exchange_strong(expected, lb.pass + 1,
                                                             cuda::memory_order_relaxed);
                return -1;
            }
            before += (int)(unsigned)w;
            if (flag == prefix) break;
            j--;
            polls = 0;
            since = 0;
        }
    }
    if (publish)
        mine.store((prefix << 32) | (unsigned)(before + run), cuda::memory_order_relaxed);
    return before;
}

/* Ranks the tile's keys stably by digit and writes each to the digit's position of the tile
 * + its rank within the tile's keys of that digit. Values are loaded only once their keys'
 * slots are known, so they hold no registers during the ranking. The digit's position of
 * the tile: classic passes read it from offsets[digit, tile] (the scanned count matrix;
 * tile = the block's index), onesweep passes (ONESWEEP) take the tile by ticket and add
 * lb.off[digit] and the look-back's count of the tiles before. */
template <typename K, bool PAIRS, bool ONESWEEP>
__global__ void __launch_bounds__(BLOCK, sp_radix_policy<K>::min_blocks)
downsweep_kernel(const K *keys_in, const int *vals_in, K *keys_out, int *vals_out, int64_t n,
                 int shift, unsigned mask, const int *offsets, int nblocks, lookback_t lb)
{
    constexpr int ITEMS = sp_radix_policy<K>::items_per_thread;
    constexpr int TILE = tile_of<K>();
    __shared__ int hist[NWARPS][RADIX]; /* per warp, then the tile slot of its first key */
    __shared__ int digit_shift[RADIX];  /* output position of a slot of the digit - the slot */
    __shared__ int warp_totals[BLOCK / 32 + 1];
    __shared__ K sorted_keys[TILE];
    __shared__ int sorted_vals[PAIRS ? TILE : 1];
    __shared__ int s_tile;
    __shared__ int s_failed; /* onesweep: the sort is marked failed, or this tile gave up */

    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    if (ONESWEEP && t == 0) {
        s_tile = (int)atomicAdd(lb.ticket, 1u); /* in start order */
        s_failed = error_ref(*lb.error).load(cuda::memory_order_relaxed) != 0;
    }
    for (int w = 0; w < NWARPS; w++) hist[w][t] = 0;
    __syncthreads();
    if (ONESWEEP && s_failed) return; /* an earlier pass or tile gave up: write nothing */
    const int tile = ONESWEEP ? s_tile : (int)blockIdx.x;
    int64_t base = (int64_t)tile * TILE;
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

    /* thread t owns digit t: warps' offsets within it, the digit's first tile slot, then
     * each warp's first slot of the digit */
    int run = 0;
    for (int w = 0; w < NWARPS; w++) {
        int c = hist[w][t];
        hist[w][t] = run;
        run += c;
    }
    int tile_keys;
    const int start = block_exclusive_scan<BLOCK>(run, warp_totals, &tile_keys);
    for (int w = 0; w < NWARPS; w++) hist[w][t] += start;
    if (t > (int)mask) {
        digit_shift[t] = 0;
    } else if (ONESWEEP) {
        int before = look_back(lb, tile, t, run);
        if (before < 0) s_failed = 1;
        digit_shift[t] = lb.off[t] + before - start;
    } else {
        digit_shift[t] = offsets[(int64_t)t * nblocks + blockIdx.x] - start;
    }
    __syncthreads();
    if (ONESWEEP && s_failed) return; /* a digit's look-back gave up: its offsets are unknown */

#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        if (striped<ITEMS>(warp, i, lane) < count) {
            unsigned d = digit_of(k[i], shift, mask);
            slot[i] += hist[warp][d];
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
        int dst = digit_shift[d] + s; /* n <= INT32_MAX */
        keys_out[dst] = key;
        if (PAIRS) vals_out[dst] = sorted_vals[s];
    }
}

/* ---- onesweep ---- */

std::atomic<int> onesweep_on{0};
std::atomic<int> withheld_tile{-1};        /* test hook (sp__gpu_radix_sort_onesweep_fault) */
std::atomic<long long> timeout_override_ns{0};

constexpr int MAX_PASSES = 8; /* 64-bit keys */

/* hist[p * RADIX + d] += keys whose digit of pass p is d, for the passes of key_bits. */
template <typename K>
__global__ void __launch_bounds__(BLOCK)
digit_hist_kernel(const K *keys, int64_t n, int key_bits, int *hist)
{
    __shared__ int h[MAX_PASSES][RADIX];
    const int t = threadIdx.x, passes = (key_bits + DIGIT_BITS - 1) / DIGIT_BITS;
    const unsigned below = lanemask_lt();
    for (int p = 0; p < passes; p++) h[p][t] = 0;
    __syncthreads();
    /* the block steps together, so every lane of a warp joins warp_count */
    for (int64_t b = (int64_t)blockIdx.x * BLOCK; b < n; b += (int64_t)gridDim.x * BLOCK) {
        int64_t e = b + t;
        bool valid = e < n;
        K k = valid ? __ldg(keys + e) : K(0);
        for (int p = 0; p < passes; p++) {
            int shift = p * DIGIT_BITS;
            int bits = key_bits - shift < DIGIT_BITS ? key_bits - shift : DIGIT_BITS;
            unsigned d = valid ? digit_of(k, shift, (1u << bits) - 1u) : 0u;
            (void)warp_count(d, valid, h[p], below);
        }
    }
    __syncthreads();
    for (int p = 0; p < passes; p++)
        if (h[p][t] != 0) atomicAdd(&hist[p * RADIX + t], h[p][t]);
}

/* off[p * RADIX + d] = keys whose digit of pass p is below d (a block of RADIX threads). */
__global__ void __launch_bounds__(BLOCK) digit_offsets_kernel(const int *hist, int passes, int *off)
{
    __shared__ int warp_totals[BLOCK / 32 + 1];
    for (int p = 0; p < passes; p++) {
        int total;
        off[p * RADIX + threadIdx.x] =
            block_exclusive_scan<BLOCK>(hist[p * RADIX + threadIdx.x], warp_totals, &total);
        __syncthreads(); /* warp_totals is reused by the next pass */
    }
}

/* Scratch: the other key (and value) buffer, the count matrix and the scan's scratch; with
 * onesweep, instead of the last two, the look-back words, the digit totals and offsets, the
 * tickets and the error word (status .. the error word zeroed by one memset). */
struct layout {
    size_t keys_alt, vals_alt, counts, scan_temp, scan_bytes, total;
    size_t status, hist, off, tickets, zeroed;
    bool onesweep;
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
    L->onesweep = onesweep_on.load() != 0;
    if (L->onesweep) {
        L->status = L->counts;
        L->hist = L->status + align_up((size_t)ncounts * sizeof(unsigned long long));
        L->tickets = L->hist + align_up((size_t)MAX_PASSES * RADIX * 4);
        L->zeroed = L->tickets + (MAX_PASSES + 1) * sizeof(unsigned) - L->status;
        L->off = L->hist + align_up((size_t)MAX_PASSES * RADIX * 4) +
                 align_up((MAX_PASSES + 1) * sizeof(unsigned));
        L->total = L->off + align_up((size_t)MAX_PASSES * RADIX * 4);
        L->scan_temp = L->scan_bytes = 0;
        goto done;
    }
    L->scan_temp = L->counts + align_up((size_t)ncounts * 4);
    SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, ncounts, NULL, NULL, &L->scan_bytes, NULL));
    L->total = L->scan_temp + L->scan_bytes;
done:
    return st;
}

/* The passes of the onesweep sort (L planned for it, n > 0); the result ends where the
 * classic loop's would. */
template <typename K>
sp_status_t onesweep_passes(const layout &L, K **kin, K **kout, int **vin, int **vout, bool pairs,
                            int64_t n, int key_bits, char *tmp, cudaStream_t s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const int nblocks = (int)((n + tile_of<K>() - 1) / tile_of<K>());
    const int passes = (key_bits + DIGIT_BITS - 1) / DIGIT_BITS;
    int *hist = reinterpret_cast<int *>(tmp + L.hist), *off = reinterpret_cast<int *>(tmp + L.off);
    unsigned long long *status = reinterpret_cast<unsigned long long *>(tmp + L.status);
    unsigned *tickets = reinterpret_cast<unsigned *>(tmp + L.tickets);
    unsigned *error = tickets + MAX_PASSES, h_error = 0;
    const long long override_ns = timeout_override_ns.load();
    const long long timeout_ns =
        override_ns > 0 ? override_ns : sp_radix_onesweep_policy::lookback_timeout_ns;
    const int withheld = withheld_tile.load();
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    SP_CUDA_TRY(cudaMemsetAsync(tmp + L.status, 0, L.zeroed, s));
    digit_hist_kernel<K><<<nblocks < 1024 ? nblocks : 1024, BLOCK, 0, s>>>(*kin, n, key_bits, hist);
    SP_CUDA_LAUNCHED("radix digit_hist_kernel");
    digit_offsets_kernel<<<1, BLOCK, 0, s>>>(hist, passes, off);
    SP_CUDA_LAUNCHED("radix digit_offsets_kernel");
    for (int p = 0; p < passes; p++) {
        int shift = p * DIGIT_BITS;
        int bits = key_bits - shift < DIGIT_BITS ? key_bits - shift : DIGIT_BITS;
        unsigned mask = (1u << bits) - 1u;
        lookback_t lb = {off + p * RADIX, status, tickets + p, error, (unsigned)p,
                         timeout_ns, withheld};
        if (pairs)
            downsweep_kernel<K, true, true><<<nblocks, BLOCK, 0, s>>>(
                *kin, *vin, *kout, *vout, n, shift, mask, NULL, nblocks, lb);
        else
            downsweep_kernel<K, false, true><<<nblocks, BLOCK, 0, s>>>(
                *kin, NULL, *kout, NULL, n, shift, mask, NULL, nblocks, lb);
        SP_CUDA_LAUNCHED("radix onesweep downsweep_kernel");
        K *ks = *kin;
        *kin = *kout;
        *kout = ks;
        int *vs = *vin;
        *vin = *vout;
        *vout = vs;
    }
    /* the watchdog's verdict (not readable while the stream is being captured into a graph) */
    SP_CUDA_TRY(cudaStreamIsCapturing(s, &capture));
    if (capture != cudaStreamCaptureStatusNone) goto done;
    SP_CUDA_TRY(cudaMemcpyAsync(&h_error, error, sizeof h_error, cudaMemcpyDeviceToHost, s));
    SP_CUDA_TRY(cudaStreamSynchronize(s));
    if (h_error != 0)
        SP_FAIL(SP_STATUS_DEVICE_ERROR,
                "radix sort (onesweep): the look-back of pass %u of %d waited over %lld ms for "
                "an earlier tile of %d and gave up; the keys and values are undefined",
                h_error, passes, timeout_ns / 1000000, nblocks);
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
    layout L = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false};
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
    if (L.onesweep) {
        SP_TRY(onesweep_passes<K>(L, &kin, &kout, &vin, &vout, pairs, n, key_bits, tmp, s));
        goto copy_back;
    }
    for (int shift = 0; shift < key_bits; shift += DIGIT_BITS) {
        int bits = key_bits - shift < DIGIT_BITS ? key_bits - shift : DIGIT_BITS;
        unsigned mask = (1u << bits) - 1u;
        size_t scan_bytes = L.scan_bytes;
        upsweep_kernel<K><<<nblocks, BLOCK, 0, s>>>(kin, n, shift, mask, counts, nblocks);
        SP_CUDA_LAUNCHED("radix upsweep_kernel");
        SP_TRY(sp__gpu_exclusive_scan_i32(counts, counts, (int64_t)(mask + 1) * nblocks, NULL,
                                          tmp + L.scan_temp, &scan_bytes, s));
        const lookback_t none = {NULL, NULL, NULL, NULL, 0, 0, -1};
        if (pairs)
            downsweep_kernel<K, true, false><<<nblocks, BLOCK, 0, s>>>(
                kin, vin, kout, vout, n, shift, mask, counts, nblocks, none);
        else
            downsweep_kernel<K, false, false><<<nblocks, BLOCK, 0, s>>>(
                kin, NULL, kout, NULL, n, shift, mask, counts, nblocks, none);
        SP_CUDA_LAUNCHED("radix downsweep_kernel");
        K *ks = kin;
        kin = kout;
        kout = ks;
        int *vs = vin;
        vin = vout;
        vout = vs;
    }
copy_back:
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

extern "C" void sp__gpu_radix_sort_set_onesweep(int on) { onesweep_on.store(on ? 1 : 0); }

extern "C" void sp__gpu_radix_sort_onesweep_fault(int64_t withheld, int64_t timeout_ms)
{
    withheld_tile.store(withheld >= 0 && withheld <= INT32_MAX ? (int)withheld : -1);
    timeout_override_ns.store(timeout_ms > 0 ? (long long)timeout_ms * 1000000 : 0);
}
