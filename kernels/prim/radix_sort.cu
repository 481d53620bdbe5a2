/* Stable LSD radix sort of 32- or 64-bit keys (with optional 32-bit values), 8-bit digits:
 * 4 passes for 32-bit keys, 8 for 64-bit, and 256 buckets, one per thread of a block for
 * the digit scans. Both key widths share the kernels through templates on the key type.
 * Two kinds of passes, chosen by the number of keys (sp_radix_onesweep_policy::min_keys;
 * sp__gpu_radix_sort_set_onesweep forces one); the scratch asked for fits either.
 *
 * Classic (reduce-then-scan, Merrill & Grimshaw, "High Performance and Scalable Radix
 * Sorting", 2011): an upsweep counts each tile's digits, the single-pass scan of scan.cu
 * turns the digit-major count matrix into global offsets, and a downsweep ranks each
 * tile's keys stably in shared memory (warp-private counters, equal digits matched by
 * ballots) and scatters them.
 *
 * Onesweep (Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
 * GPUs", 2022; issue 22): the digit counts of every pass come from one read of the keys
 * up front; then each pass is one kernel, whose blocks take their tiles by ticket, rank
 * them as the downsweep does, publish their per-digit counts, exchange the keys in shared
 * memory and then find the counts of all earlier tiles by decoupled look-back (each
 * digit's thread walks back until a tile that has published its inclusive prefix), so a
 * pass reads the keys once and needs no count matrix or scan. Its tiles are larger than
 * the classic ones (sp_radix_onesweep_policy). No block waits on a tile whose ticket came
 * after its own, and every earlier ticket is held by a running block that publishes its
 * counts before it looks back, so the look-back cannot deadlock. Library code must not
 * hang its caller even so: a wait longer than sp_radix_onesweep_policy::lookback_timeout_ns
 * (or any wait once another tile gave up) gives up, marks the sort failed in a device
 * word, and the tile writes nothing; later passes see the mark and return at once, and
 * the host reads the word after the last pass and returns SP_STATUS_DEVICE_ERROR (a
 * synchronization, which is why small sorts take the classic passes).
 *
 * In place, the passes alternate between the keys and the scratch, and an odd number of
 * passes ends with a copy back; sorted "into" separate outputs, the first pass reads the
 * inputs and the last writes the outputs, with no copy either way. */
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

/* warp_count for a warp whose 32 keys are all valid: a ballot for each of the pass's
 * BITS digit bits (a whole digit's eight, or with BITS 0 as many as mask has: six in the
 * last pass of 22-bit keys), and none for validity. */
template <int BITS>
__device__ __forceinline__ int warp_count_full(unsigned d, unsigned mask, int *counters,
                                               unsigned below)
{
    unsigned peers = full_mask;
#pragma unroll
    for (int b = 0; b < DIGIT_BITS; b++) {
        if (BITS == 0 && !((mask >> b) & 1u)) break; /* the same in every lane */
        bool bit = (d >> b) & 1u;
        unsigned m = __ballot_sync(full_mask, bit);
        peers &= bit ? m : ~m;
    }
    int leader = __ffs(peers) - 1;
    int old = 0;
    if ((peers & below) == 0) old = atomicAdd(&counters[d], __popc(peers));
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
 * walk back adding the earlier tiles' counts until one that has published its inclusive
 * sum, then publish this tile's (its own count, `run`, was published before, by
 * publish_count). The words of lookback_batch earlier tiles are read at once, so a walk
 * over many tiles that have only counts costs one L2 round trip a batch. Returns -1
 * (publishing nothing more) when a wait outlasts lb.timeout_ns or the sort is already
 * marked failed; the first such wait marks it. */
__device__ __forceinline__ int look_back(const lookback_t &lb, int tile, int d, int run)
{
    using OP = sp_radix_onesweep_policy;
    constexpr int B = OP::lookback_batch;
    const unsigned long long agg = 2ull * lb.pass + 1, prefix = agg + 1;
    const bool publish = !(lb.pass == 0 && tile == lb.withheld_tile);
    int before = 0;
    unsigned polls = 0;
    unsigned long long since = 0;
    for (int j = tile - 1; j >= 0;) {
        unsigned long long w[B];
#pragma unroll
        for (int b = 0; b < B; b++) /* below tile 0: never reached past its inclusive sum */
            w[b] = j - b >= 0 ? status_ref(lb.status[(int64_t)(j - b) * RADIX + d])
                                    .load(cuda::memory_order_relaxed)
                              : (prefix << 32);
        int used = 0;
        bool done = false, waiting = false;
#pragma unroll
        for (int b = 0; b < B; b++) {
            if (done || waiting) continue;
            unsigned long long flag = w[b] >> 32;
            if (flag < agg) { /* tile j - b has not published yet */
                waiting = true;
                continue;
            }
            before += (int)(unsigned)w[b];
            used++;
            done = flag == prefix;
        }
        if (done) break;
        j -= used;
        if (used > 0) {
            polls = 0;
            since = 0;
            continue;
        }
        if (++polls % OP::polls_per_clock_read != 0) continue;
        unsigned long long now = global_ns();
        if (since == 0) since = now;
        bool failed = error_ref(*lb.error).load(cuda::memory_order_relaxed) != 0;
        if (!failed && now - since < (unsigned long long)lb.timeout_ns) continue;
        unsigned expected = 0;
        error_ref(*lb.error).compare_exchange_strong(expected, lb.pass + 1, cuda::memory_order_relaxed);
        return -1;
    }
    if (publish)
        status_ref(lb.status[(int64_t)tile * RADIX + d])
            .store((prefix << 32) | (unsigned)(before + run), cuda::memory_order_relaxed);
    return before;
}

/* Publishes a tile's own count of digit d for the look-back of later tiles (tile 0 has
 * nothing before it and publishes its inclusive sum at once). */
__device__ __forceinline__ void publish_count(const lookback_t &lb, int tile, int d, int run)
{
    const unsigned long long agg = 2ull * lb.pass + 1;
    if (lb.pass == 0 && tile == lb.withheld_tile) return;
    status_ref(lb.status[(int64_t)tile * RADIX + d])
        .store(((tile == 0 ? agg + 1 : agg) << 32) | (unsigned)run, cuda::memory_order_relaxed);
}

/* Ranks the tile's keys stably by digit and writes each to the digit's position of the tile
 * (offsets[digit, tile], the scanned count matrix) + its rank within the tile's keys of
 * that digit. Values are loaded only once their keys' slots are known, so they hold no
 * registers during the ranking. */
template <typename K, bool PAIRS>
__global__ void __launch_bounds__(BLOCK, sp_radix_policy<K>::min_blocks)
downsweep_kernel(const K *keys_in, const int *vals_in, K *keys_out, int *vals_out, int64_t n,
                 int shift, unsigned mask, const int *offsets, int nblocks)
{
    constexpr int ITEMS = sp_radix_policy<K>::items_per_thread;
    constexpr int TILE = tile_of<K>();
    __shared__ int hist[NWARPS][RADIX]; /* per warp, then the tile slot of its first key */
    __shared__ int digit_shift[RADIX];  /* output position of a slot of the digit - the slot */
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
    digit_shift[t] = t > (int)mask ? 0 : offsets[(int64_t)t * nblocks + blockIdx.x] - start;
    __syncthreads();

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
            if (e < count) sorted_vals[slot[i]] = vals_in ? __ldcs(vals_in + base + e) : (int)(base + e);
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

std::atomic<int> onesweep_mode{-1}; /* sp__gpu_radix_sort_set_onesweep: -1 by size, 0 never, 1 always */
std::atomic<int> withheld_tile{-1};        /* test hook (sp__gpu_radix_sort_onesweep_fault) */
std::atomic<long long> timeout_override_ns{0};

constexpr int MAX_PASSES = 8; /* 64-bit keys */

using OSP = sp_radix_onesweep_policy;
constexpr int OS_BLOCK = OSP::block_threads;
constexpr int OS_WARPS = OS_BLOCK / 32;
static_assert(OS_BLOCK % 32 == 0 && OS_BLOCK >= RADIX, "a thread for every digit");
template <typename K> constexpr int os_tile_of() { return OS_BLOCK * OSP::items_per_thread<K>(); }

/* Dynamic shared memory of a onesweep tile: its keys (the warps' digit counters before
 * them, in the same bytes), then its values. */
template <typename K> constexpr size_t os_keys_bytes()
{
    return ((size_t)os_tile_of<K>() * sizeof(K) + 15) / 16 * 16;
}
template <typename K> constexpr size_t os_smem_bytes(bool pairs)
{
    return os_keys_bytes<K>() + (pairs ? (size_t)os_tile_of<K>() * 4 : 0);
}
static_assert(os_tile_of<unsigned>() * 4 >= OS_WARPS * RADIX * 4 &&
                  os_tile_of<unsigned long long>() * 8 >= OS_WARPS * RADIX * 4,
              "the warps' counters fit in the keys' bytes");

/* One tile of a onesweep pass: count (count == TILE when FULL: no bounds checks and a
 * ballot for each digit bit, eight when WHOLE_DIGITS, none for validity). */
template <typename K, bool PAIRS, bool FULL, bool WHOLE_DIGITS>
__device__ __forceinline__ void onesweep_tile(const K *keys_in, const int *vals_in, K *keys_out,
                                              int *vals_out, int shift, unsigned mask,
                                              const lookback_t &lb, int tile, int64_t base,
                                              int count, unsigned char *smem, int *digit_shift,
                                              int *warp_totals, int *s_failed)
{
    constexpr int ITEMS = OSP::items_per_thread<K>();
    int *hist = reinterpret_cast<int *>(smem); /* [OS_WARPS][RADIX], then the keys' bytes */
    K *sorted_keys = reinterpret_cast<K *>(smem);
    int *sorted_vals = reinterpret_cast<int *>(smem + os_keys_bytes<K>());
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const unsigned below = lanemask_lt();

    K k[ITEMS];
    int slot[ITEMS]; /* rank within the warp's keys of its digit, then the tile slot */
    int v[PAIRS ? ITEMS : 1];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int e = striped<ITEMS>(warp, i, lane);
        k[i] = FULL || e < count ? __ldcs(keys_in + base + e) : K(0);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        unsigned d = digit_of(k[i], shift, mask);
        slot[i] = FULL ? warp_count_full<WHOLE_DIGITS ? DIGIT_BITS : 0>(d, mask, hist + warp * RADIX,
                                                                        below)
                       : warp_count(d, striped<ITEMS>(warp, i, lane) < count, hist + warp * RADIX,
                                    below);
    }
    __syncthreads();

    /* thread t < RADIX owns digit t: publish the tile's count, the warps' offsets within the
     * digit, the digit's first tile slot */
    int run = 0;
    if (t < RADIX) {
#pragma unroll
        for (int w = 0; w < OS_WARPS; w++) run += hist[w * RADIX + t];
        if (t <= (int)mask) publish_count(lb, tile, t, run);
    }
    int tile_keys;
    const int start = block_exclusive_scan<OS_BLOCK>(run, warp_totals, &tile_keys);
    if (t < RADIX) {
        int off = start;
#pragma unroll
        for (int w = 0; w < OS_WARPS; w++) {
            int c = hist[w * RADIX + t];
            hist[w * RADIX + t] = off;
            off += c;
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) slot[i] += hist[warp * RADIX + digit_of(k[i], shift, mask)];
    __syncthreads(); /* the counters' bytes now take the keys */
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (FULL || striped<ITEMS>(warp, i, lane) < count) sorted_keys[slot[i]] = k[i];
    /* the values' loads in flight during the look-back (the keys' registers are free now) */
    if (PAIRS) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            int e = striped<ITEMS>(warp, i, lane);
            v[i] = !(FULL || e < count) ? 0 : vals_in ? __ldcs(vals_in + base + e) : (int)(base + e);
        }
    }
    /* the earlier tiles have had the exchange's time to publish: look back now */
    if (t < RADIX) {
        if (t > (int)mask) {
            digit_shift[t] = 0;
        } else {
            int before = look_back(lb, tile, t, run);
            if (before < 0) *s_failed = 1;
            digit_shift[t] = lb.off[t] + before - start;
        }
    }
    if (PAIRS) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (FULL || striped<ITEMS>(warp, i, lane) < count) sorted_vals[slot[i]] = v[i];
    }
    __syncthreads();
    if (*s_failed) return; /* a digit's look-back gave up: its offsets are unknown */

    /* consecutive slots of one digit go to consecutive output positions */
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int s = t + i * OS_BLOCK;
        if (FULL || s < count) {
            K key = sorted_keys[s];
            int dst = digit_shift[digit_of(key, shift, mask)] + s; /* n <= INT32_MAX */
            keys_out[dst] = key;
            if (PAIRS) vals_out[dst] = sorted_vals[s];
        }
    }
}

/* A onesweep pass: each block takes a tile by ticket, ranks its keys stably by digit as the
 * classic downsweep does, publishes its digit counts, finds the counts of the tiles before
 * it by look-back and scatters the tile. Writes nothing once the sort is marked failed. */
template <typename K, bool PAIRS>
__global__ void __launch_bounds__(OS_BLOCK, OSP::min_blocks)
onesweep_kernel(const K *keys_in, const int *vals_in, K *keys_out, int *vals_out, int64_t n,
                int shift, unsigned mask, lookback_t lb)
{
    constexpr int TILE = os_tile_of<K>();
    extern __shared__ __align__(16) unsigned char os_smem[];
    __shared__ int digit_shift[RADIX]; /* output position of a slot of the digit - the slot */
    __shared__ int warp_totals[OS_WARPS + 1];
    __shared__ int s_tile;
    __shared__ int s_failed; /* the sort is marked failed, or this tile gave up */
    const int t = threadIdx.x;
    int *hist = reinterpret_cast<int *>(os_smem);
    if (t == 0) {
        s_tile = (int)atomicAdd(lb.ticket, 1u); /* in start order */
        s_failed = error_ref(*lb.error).load(cuda::memory_order_relaxed) != 0;
    }
    for (int i = t; i < OS_WARPS * RADIX; i += OS_BLOCK) hist[i] = 0;
    __syncthreads();
    if (s_failed) return; /* an earlier pass or tile gave up: write nothing */
    const int tile = s_tile;
    const int64_t base = (int64_t)tile * TILE;
    const int count = n - base < TILE ? (int)(n - base) : TILE;
    if (count == TILE && mask == RADIX - 1)
        onesweep_tile<K, PAIRS, true, true>(keys_in, vals_in, keys_out, vals_out, shift, mask, lb,
                                            tile, base, count, os_smem, digit_shift, warp_totals,
                                            &s_failed);
    else if (count == TILE)
        onesweep_tile<K, PAIRS, true, false>(keys_in, vals_in, keys_out, vals_out, shift, mask, lb,
                                             tile, base, count, os_smem, digit_shift, warp_totals,
                                             &s_failed);
    else
        onesweep_tile<K, PAIRS, false, false>(keys_in, vals_in, keys_out, vals_out, shift, mask,
                                              lb, tile, base, count, os_smem, digit_shift,
                                              warp_totals, &s_failed);
}

/* hist[p * RADIX + d] += keys whose digit of pass p is d, for the passes of key_bits. Each
 * thread reads OSP::hist_bytes of consecutive keys a step (16-byte loads where the keys are
 * aligned), the next step's loads in flight while it counts (OSP::hist_prefetch), and,
 * pass by pass, adds its keys' digits with shared atomics: with OSP::hist_runs one atomic
 * for each run of equal digits among its keys (as many atomics as keys on random keys, one
 * per thread and pass on sorted ones, whose high digits repeat), else one a key. On an
 * H100 the earlier form (a vote per key and pass, to catch a warp of equal digits) took
 * 337 us for 2^26 keys against CUB's 120. */
template <typename K> constexpr int hist_items_of() { return OSP::hist_bytes / (int)sizeof(K); }

/* A thread's keys of one step: the first `valid` of them are keys (<= 0: none). */
template <typename K> union hist_keys {
    uint4 v[hist_items_of<K>() * sizeof(K) / 16];
    K k[hist_items_of<K>()];
};

template <typename K, bool VEC>
__device__ __forceinline__ int hist_load(const K *keys, int64_t n, int64_t first, hist_keys<K> &u)
{
    if (first >= n) return 0;
    const int valid = n - first < hist_items_of<K>() ? (int)(n - first) : hist_items_of<K>();
    if (VEC && valid == hist_items_of<K>()) {
        const uint4 *src = reinterpret_cast<const uint4 *>(keys + first);
#pragma unroll
        for (int i = 0; i < (int)(hist_items_of<K>() * sizeof(K) / 16); i++) u.v[i] = __ldcs(src + i);
    } else {
#pragma unroll
        for (int i = 0; i < hist_items_of<K>(); i++) u.k[i] = i < valid ? __ldcs(keys + first + i) : K(0);
    }
    return valid;
}

/* Adds the digits of pass p of a thread's first `valid` keys (all of them when FULL). */
template <typename K, bool FULL>
__device__ __forceinline__ void hist_count(const hist_keys<K> &u, int valid, int shift,
                                           unsigned mask, int *h)
{
    if (!OSP::hist_runs) {
#pragma unroll
        for (int i = 0; i < hist_items_of<K>(); i++)
            if (FULL || i < valid) atomicAdd(&h[digit_of(u.k[i], shift, mask)], 1);
        return;
    }
    unsigned cur = digit_of(u.k[0], shift, mask);
    int run = 1;
#pragma unroll
    for (int i = 1; i < hist_items_of<K>(); i++) {
        if (!FULL && i >= valid) break;
        unsigned d = digit_of(u.k[i], shift, mask);
        if (d == cur) {
            run++;
        } else {
            atomicAdd(&h[cur], run);
            cur = d;
            run = 1;
        }
    }
    atomicAdd(&h[cur], run);
}

template <typename K, bool FULL>
__device__ __forceinline__ void hist_count_passes(const hist_keys<K> &u, int valid, int key_bits,
                                                  int (*h)[RADIX])
{
    constexpr int KEY_PASSES = 8 * (int)sizeof(K) / DIGIT_BITS;
#pragma unroll
    for (int p = 0; p < KEY_PASSES; p++) {
        const int shift = p * DIGIT_BITS;
        if (shift >= key_bits) break; /* the same in every thread */
        const int bits = key_bits - shift < DIGIT_BITS ? key_bits - shift : DIGIT_BITS;
        hist_count<K, FULL>(u, valid, shift, (1u << bits) - 1u, h[p]);
    }
}

template <typename K, bool VEC>
__global__ void __launch_bounds__(BLOCK)
digit_hist_kernel(const K *keys, int64_t n, int key_bits, int *hist)
{
    static_assert(hist_items_of<K>() * sizeof(K) % 16 == 0, "whole 16-byte loads");
    constexpr int KEY_PASSES = 8 * (int)sizeof(K) / DIGIT_BITS;
    __shared__ int h[KEY_PASSES][RADIX];
    const int t = threadIdx.x, passes = (key_bits + DIGIT_BITS - 1) / DIGIT_BITS;
    for (int p = 0; p < passes; p++) h[p][t] = 0;
    __syncthreads();
    const int64_t chunk = (int64_t)BLOCK * hist_items_of<K>(), stride = (int64_t)gridDim.x * chunk;
    int64_t first = (int64_t)blockIdx.x * chunk + (int64_t)t * hist_items_of<K>();
    hist_keys<K> u, next;
    int valid = hist_load<K, VEC>(keys, n, first, u);
    for (int64_t b = (int64_t)blockIdx.x * chunk; b < n; b += stride, first += stride) {
        if (!OSP::hist_prefetch && b > (int64_t)blockIdx.x * chunk)
            valid = hist_load<K, VEC>(keys, n, first, u);
        int next_valid = OSP::hist_prefetch ? hist_load<K, VEC>(keys, n, first + stride, next) : 0;
        if (valid == hist_items_of<K>())
            hist_count_passes<K, true>(u, valid, key_bits, h);
        else if (valid > 0)
            hist_count_passes<K, false>(u, valid, key_bits, h);
        if (OSP::hist_prefetch) {
            u = next;
            valid = next_valid;
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

/* The passes a sort of n keys takes: the knob's choice (sp__gpu_radix_sort_set_onesweep),
 * else onesweep from sp_radix_onesweep_policy::min_keys keys on; never onesweep where a
 * block cannot have a tile's shared memory. */
template <typename K>
sp_status_t use_onesweep(int64_t n, bool pairs, bool *on)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const int mode = onesweep_mode.load();
    device_limits lim = {0, 0};
    *on = mode > 0 || (mode < 0 && n >= OSP::min_keys);
    if (!*on) goto done;
    SP_CUDA_TRY(get_device_limits(&lim));
    *on = os_smem_bytes<K>(pairs) + 4096 <= (size_t)lim.smem_optin;
done:
    return st;
}

/* The scratch of either kind of pass (onesweep or not); its total is what the sort asks
 * for, the larger of the two, so a caller that asked for n keys may sort fewer (n chooses
 * the kind). */
template <typename K>
sp_status_t plan(int64_t n, bool pairs, bool onesweep, layout *L)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t tile, nblocks, ncounts;
    L->onesweep = onesweep;
    tile = L->onesweep ? os_tile_of<K>() : tile_of<K>();
    nblocks = (n + tile - 1) / tile;
    ncounts = (int64_t)RADIX * nblocks;
    L->keys_alt = 0;
    L->vals_alt = align_up((size_t)n * sizeof(K));
    L->counts = L->vals_alt + (pairs ? align_up((size_t)n * 4) : 0);
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

/* The buffers of a sort's passes: pass p reads keys[p & 1] (pass 0: the input) and writes
 * keys[(p + 1) & 1]; values alike (pass 0 reads vals_in, NULL for the entry numbers). */
template <typename K> struct pass_buffers {
    const K *keys_in;
    const int *vals_in;
    K *keys[2];
    int *vals[2];
    const K *src(int p) const { return p == 0 ? keys_in : keys[p & 1]; }
    const int *vsrc(int p) const { return p == 0 ? vals_in : vals[p & 1]; }
    K *dst(int p) const { return keys[(p + 1) & 1]; }
    int *vdst(int p) const { return vals[(p + 1) & 1]; }
};

/* The passes of the onesweep sort (L planned for it, n > 0). */
template <typename K>
sp_status_t onesweep_passes(const layout &L, const pass_buffers<K> &pb, bool pairs, int64_t n,
                            int key_bits, char *tmp, cudaStream_t s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const int nblocks = (int)((n + os_tile_of<K>() - 1) / os_tile_of<K>());
    const int passes = (key_bits + DIGIT_BITS - 1) / DIGIT_BITS;
    const size_t smem = os_smem_bytes<K>(pairs);
    const int64_t hist_chunk = (int64_t)BLOCK * hist_items_of<K>();
    const int hist_blocks = (int)((n + hist_chunk - 1) / hist_chunk);
    void (*const hist_kernel)(const K *, int64_t, int, int *) =
        aligned16(pb.keys_in) ? digit_hist_kernel<K, true> : digit_hist_kernel<K, false>;
    device_limits lim = {0, 0};
    int hist_grid = 1, hist_fit = 0;
    int *hist = reinterpret_cast<int *>(tmp + L.hist), *off = reinterpret_cast<int *>(tmp + L.off);
    unsigned long long *status = reinterpret_cast<unsigned long long *>(tmp + L.status);
    unsigned *tickets = reinterpret_cast<unsigned *>(tmp + L.tickets);
    unsigned *error = tickets + MAX_PASSES, h_error = 0;
    const long long override_ns = timeout_override_ns.load();
    const long long timeout_ns =
        override_ns > 0 ? override_ns : sp_radix_onesweep_policy::lookback_timeout_ns;
    const int withheld = withheld_tile.load();
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    SP_CUDA_TRY(get_device_limits(&lim));
    SP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&hist_fit, hist_kernel, BLOCK, 0));
    hist_fit = hist_fit < 1 ? 1 : hist_fit > OSP::hist_blocks_per_sm ? OSP::hist_blocks_per_sm : hist_fit;
    hist_grid = hist_blocks < hist_fit * lim.sm_count ? hist_blocks : hist_fit * lim.sm_count;
    if (pairs)
        SP_CUDA_TRY(allow_max_dynamic_smem(onesweep_kernel<K, true>, lim));
    else
        SP_CUDA_TRY(allow_max_dynamic_smem(onesweep_kernel<K, false>, lim));
    SP_CUDA_TRY(cudaMemsetAsync(tmp + L.status, 0, L.zeroed, s));
    hist_kernel<<<hist_grid, BLOCK, 0, s>>>(pb.keys_in, n, key_bits, hist);
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
            onesweep_kernel<K, true><<<nblocks, OS_BLOCK, smem, s>>>(
                pb.src(p), pb.vsrc(p), pb.dst(p), pb.vdst(p), n, shift, mask, lb);
        else
            onesweep_kernel<K, false><<<nblocks, OS_BLOCK, smem, s>>>(pb.src(p), NULL, pb.dst(p),
                                                                     NULL, n, shift, mask, lb);
        SP_CUDA_LAUNCHED("radix onesweep_kernel");
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

/* Sorts keys_in (and vals_in, or the entry numbers where vals_in is NULL and vals_out is
 * not) into keys_out and vals_out. In place when keys_in == keys_out (and vals_in ==
 * vals_out): the passes alternate between them and the scratch, and an odd number of
 * passes ends with a copy back. Otherwise the inputs are only read, the first pass writes
 * the output (odd passes) or the scratch (even), and the last pass lands in the output:
 * no copy. */
template <typename K>
sp_status_t radix_sort(const K *keys_in, const int *vals_in, K *keys_out, int *vals_out, int64_t n,
                       int key_bits, void *d_temp, size_t *temp_bytes, cudaStream_t s)
{
    constexpr int TILE = tile_of<K>();
    constexpr int max_bits = 8 * (int)sizeof(K);
    sp_status_t st = SP_STATUS_SUCCESS;
    layout L = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false}, other = L;
    size_t need = 0;
    const bool pairs = vals_out != NULL, in_place = keys_in == keys_out;
    bool onesweep = false;
    int nblocks = 0, passes = 0;
    char *tmp = static_cast<char *>(d_temp);
    int *counts = NULL;
    pass_buffers<K> pb;
    K *alt = NULL;
    int *valt = NULL;
    SP_CHECK_ARG(temp_bytes != NULL, "radix sort: temp_bytes is NULL");
    SP_CHECK_ARG(key_bits >= 1 && key_bits <= max_bits, "radix sort: key_bits %d outside 1..%d",
                 key_bits, max_bits);
    SP_CHECK_ARG(n >= 0, "radix sort: n %lld is negative", (long long)n);
    if (n > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "radix sort: n %lld exceeds the 32-bit positions (at most %d)",
                (long long)n, INT32_MAX);
    SP_TRY(plan<K>(n, pairs, false, &other));
    SP_TRY(plan<K>(n, pairs, true, &L));
    need = L.total > other.total ? L.total : other.total;
    if (d_temp == NULL) {
        *temp_bytes = need;
        goto done;
    }
    SP_CHECK_ARG(*temp_bytes >= need, "radix sort: temp_bytes %zu below the %zu needed for n %lld",
                 *temp_bytes, need, (long long)n);
    SP_CHECK_ARG(n == 0 || keys_in != NULL, "radix sort: d_keys%s is NULL for n %lld",
                 in_place ? "" : "_in", (long long)n);
    SP_CHECK_ARG(n == 0 || keys_out != NULL, "radix sort: d_keys_out is NULL for n %lld",
                 (long long)n);
    SP_CHECK_ARG(in_place ? vals_in == vals_out : (vals_in == NULL || vals_in != vals_out),
                 "radix sort: values in place only with the keys in place");
    SP_TRY(use_onesweep<K>(n, pairs, &onesweep));
    if (!onesweep) L = other;
    if (n == 0) goto done;
    nblocks = (int)((n + TILE - 1) / TILE);
    passes = (key_bits + DIGIT_BITS - 1) / DIGIT_BITS;
    alt = reinterpret_cast<K *>(tmp + L.keys_alt);
    valt = pairs ? reinterpret_cast<int *>(tmp + L.vals_alt) : NULL;
    counts = reinterpret_cast<int *>(tmp + L.counts);
    pb.keys_in = keys_in;
    pb.vals_in = vals_in;
    /* the pass writing keys[1] is the last one when passes is odd and the input is not the
     * output, so keys[1] is the output then; else the scratch */
    if (!in_place && passes % 2 == 1) {
        pb.keys[0] = alt, pb.keys[1] = keys_out;
        pb.vals[0] = valt, pb.vals[1] = vals_out;
    } else {
        pb.keys[0] = keys_out, pb.keys[1] = alt;
        pb.vals[0] = vals_out, pb.vals[1] = valt;
    }
    if (L.onesweep) {
        SP_TRY(onesweep_passes<K>(L, pb, pairs, n, key_bits, tmp, s));
    } else {
        for (int p = 0; p < passes; p++) {
            int shift = p * DIGIT_BITS;
            int bits = key_bits - shift < DIGIT_BITS ? key_bits - shift : DIGIT_BITS;
            unsigned mask = (1u << bits) - 1u;
            size_t scan_bytes = L.scan_bytes;
            upsweep_kernel<K><<<nblocks, BLOCK, 0, s>>>(pb.src(p), n, shift, mask, counts, nblocks);
            SP_CUDA_LAUNCHED("radix upsweep_kernel");
            SP_TRY(sp__gpu_exclusive_scan_i32(counts, counts, (int64_t)(mask + 1) * nblocks, NULL,
                                              tmp + L.scan_temp, &scan_bytes, s));
            if (pairs)
                downsweep_kernel<K, true><<<nblocks, BLOCK, 0, s>>>(
                    pb.src(p), pb.vsrc(p), pb.dst(p), pb.vdst(p), n, shift, mask, counts, nblocks);
            else
                downsweep_kernel<K, false><<<nblocks, BLOCK, 0, s>>>(
                    pb.src(p), NULL, pb.dst(p), NULL, n, shift, mask, counts, nblocks);
            SP_CUDA_LAUNCHED("radix downsweep_kernel");
        }
    }
    /* in place, after an odd number of passes the result sits in the scratch buffers */
    if (pb.dst(passes - 1) != keys_out) {
        SP_CUDA_TRY(cudaMemcpyAsync(keys_out, pb.dst(passes - 1), (size_t)n * sizeof(K),
                                    cudaMemcpyDeviceToDevice, s));
        if (pairs)
            SP_CUDA_TRY(cudaMemcpyAsync(vals_out, pb.vdst(passes - 1), (size_t)n * 4,
                                        cudaMemcpyDeviceToDevice, s));
    }
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_radix_sort_pairs_u32(uint32_t *d_keys, int32_t *d_vals, int64_t n,
                                                    int key_bits, void *d_temp, size_t *temp_bytes,
                                                    void *stream)
{
    return radix_sort<unsigned>(reinterpret_cast<unsigned *>(d_keys), d_vals,
                                reinterpret_cast<unsigned *>(d_keys), d_vals, n, key_bits, d_temp,
                                temp_bytes, (cudaStream_t)stream);
}

extern "C" sp_status_t sp__gpu_radix_sort_pairs_u32_into(const uint32_t *d_keys_in,
                                                         const int32_t *d_vals_in,
                                                         uint32_t *d_keys_out, int32_t *d_vals_out,
                                                         int64_t n, int key_bits, void *d_temp,
                                                         size_t *temp_bytes, void *stream)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(d_temp == NULL || n == 0 || d_keys_in != d_keys_out,
                 "radix sort into: the input keys are the output (use the in-place sort)");
    st = radix_sort<unsigned>(reinterpret_cast<const unsigned *>(d_keys_in), d_vals_in,
                              reinterpret_cast<unsigned *>(d_keys_out), d_vals_out, n, key_bits,
                              d_temp, temp_bytes, (cudaStream_t)stream);
done:
    return st;
}

extern "C" sp_status_t sp__gpu_radix_sort_pairs_u64(uint64_t *d_keys, int32_t *d_vals, int64_t n,
                                                    int key_bits, void *d_temp, size_t *temp_bytes,
                                                    void *stream)
{
    return radix_sort<unsigned long long>(reinterpret_cast<unsigned long long *>(d_keys), d_vals,
                                          reinterpret_cast<unsigned long long *>(d_keys), d_vals, n,
                                          key_bits, d_temp, temp_bytes, (cudaStream_t)stream);
}

extern "C" void sp__gpu_radix_sort_set_onesweep(int mode) { onesweep_mode.store(mode < 0 ? -1 : mode > 0 ? 1 : 0); }

extern "C" void sp__gpu_radix_sort_onesweep_fault(int64_t withheld, int64_t timeout_ms)
{
    withheld_tile.store(withheld >= 0 && withheld <= INT32_MAX ? (int)withheld : -1);
    timeout_override_ns.store(timeout_ms > 0 ? (long long)timeout_ms * 1000000 : 0);
}
