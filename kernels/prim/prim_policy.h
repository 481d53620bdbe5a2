/* Launch policies of the primitives (kernels/prim/): one struct per kernel, the only
 * place their tuning constants live. C++ (compile-time constants feed templates);
 * included by the .cu files only. Values chosen for Hopper (H100), reasonable on Ampere. */
#ifndef SP_PRIM_POLICY_H
#define SP_PRIM_POLICY_H

/* The few values a benchmark retunes with -D at configure time (CMAKE_CUDA_FLAGS). */
#ifndef SP_SCAN_ITEMS_I64
#define SP_SCAN_ITEMS_I64 16
#endif
#ifndef SP_RADIX_ITEMS_U32
#define SP_RADIX_ITEMS_U32 16
#endif
#ifndef SP_RADIX_ITEMS_U64
#define SP_RADIX_ITEMS_U64 12
#endif
#ifndef SP_RADIX_MIN_BLOCKS_U64
#define SP_RADIX_MIN_BLOCKS_U64 3
#endif
#ifndef SP_ONESWEEP_BLOCK
#define SP_ONESWEEP_BLOCK 384
#endif
#ifndef SP_ONESWEEP_ITEMS_U32
#define SP_ONESWEEP_ITEMS_U32 16
#endif
#ifndef SP_ONESWEEP_ITEMS_U64
#define SP_ONESWEEP_ITEMS_U64 12
#endif
#ifndef SP_ONESWEEP_MIN_BLOCKS
#define SP_ONESWEEP_MIN_BLOCKS 2
#endif
#ifndef SP_ONESWEEP_BATCH
#define SP_ONESWEEP_BATCH 1
#endif
#ifndef SP_ONESWEEP_HIST_BLOCKS_PER_SM
#define SP_ONESWEEP_HIST_BLOCKS_PER_SM 8
#endif
#ifndef SP_ONESWEEP_HIST_BYTES
#define SP_ONESWEEP_HIST_BYTES 32
#endif
#ifndef SP_ONESWEEP_HIST_RUNS
#define SP_ONESWEEP_HIST_RUNS 1
#endif
#ifndef SP_ONESWEEP_HIST_PREFETCH
#define SP_ONESWEEP_HIST_PREFETCH 1
#endif
#ifndef SP_ONESWEEP_MIN_KEYS
#define SP_ONESWEEP_MIN_KEYS (1 << 22)
#endif

/* Histogram, thread-local bins in registers for the fewest bins: every key is compared
 * with every bin (cheap ALU work, no atomics at all, immune to skew), then the threads'
 * counts are summed by warp shuffles. */
struct sp_hist_thread_policy {
    static constexpr int block_threads = 256;
    static constexpr int max_bins = 16;
    static constexpr int min_items_per_thread = 64;
};

/* Histogram, warp-private bins: each warp owns a copy of the bins in shared memory and
 * adds a whole group of equal keys at once (one shared atomic per distinct key in a warp
 * step), so even all-equal keys cost one atomic per warp step. */
struct sp_hist_warp_policy {
    static constexpr int block_threads = 256;
    static constexpr int max_bins = 64;       /* nbins up to this use the strategy */
    static constexpr int bin_bits = 6;        /* log2(max_bins): ballots per match */
    static constexpr int min_items_per_thread = 32; /* fewer blocks below this load */
};

/* Histogram, block-private bins in (opt-in, up to ~227 KB) shared memory; one global
 * atomic per non-zero bin at the end. */
struct sp_hist_block_policy {
    static constexpr int block_threads = 512;
    static constexpr int min_items_per_thread = 16;
    /* a block handles at least this many keys per bin, so clearing and committing its
     * private bins never costs more than counting */
    static constexpr int min_items_per_bin = 2;
};

/* Histogram, global atomics (bins beyond shared memory). */
struct sp_hist_global_policy {
    static constexpr int block_threads = 256;
    static constexpr int min_items_per_thread = 16;
};

/* Single-pass scan: one tile of block_threads * items_per_thread per block. */
template <typename T> struct sp_scan_policy;
template <> struct sp_scan_policy<unsigned> {
    static constexpr int block_threads = 256;
    static constexpr int items_per_thread = 16;
};
template <> struct sp_scan_policy<unsigned long long> {
    static constexpr int block_threads = 256;
    static constexpr int items_per_thread = SP_SCAN_ITEMS_I64;
};

/* Radix sort: 8-bit digits (256 buckets: one per thread of the block for the digit
 * scans, 4 passes for 32-bit keys, 8 for 64-bit). Upsweep and downsweep use the same
 * tiles. The downsweep's tile of keys and values sits in static shared memory (48 KB at
 * most), which caps the items of 64-bit keys. min_blocks caps the downsweep's registers
 * so that this many blocks share an SM. Measured on an H200 (bench/results/
 * h200-primitives.md, values loaded after ranking): 32-bit keys fastest at 4 blocks (2 and
 * 3 were 25% and 4% slower), 64-bit keys at 3 blocks of 12 items (4 blocks, or 8 items,
 * 15% slower). */
template <typename K> struct sp_radix_policy;
template <> struct sp_radix_policy<unsigned> {
    static constexpr int digit_bits = 8;
    static constexpr int block_threads = 256; /* must equal 1 << digit_bits */
    static constexpr int items_per_thread = SP_RADIX_ITEMS_U32;
    static constexpr int min_blocks = 4;
};
template <> struct sp_radix_policy<unsigned long long> {
    static constexpr int digit_bits = 8;
    static constexpr int block_threads = 256;
    static constexpr int items_per_thread = SP_RADIX_ITEMS_U64;
    static constexpr int min_blocks = SP_RADIX_MIN_BLOCKS_U64;
};

/* Radix sort, onesweep passes (radix_sort.cu): the look-back's watchdog. A legitimate
 * wait on an earlier tile lasts microseconds (that tile is running and only has to rank
 * its keys); a wait beyond lookback_timeout_ns is a bug or a starved device, and the sort
 * gives up with an error status instead of hanging its caller. Generous enough for
 * compute-sanitizer's slowdown and for time slicing with other processes. The clock is
 * read once every polls_per_clock_read polls of a word not yet published. */
struct sp_radix_onesweep_policy {
    static constexpr long long lookback_timeout_ns = 4000000000LL;
    static constexpr unsigned polls_per_clock_read = 64;
    /* The onesweep pass's tile: larger than the classic downsweep's (CUB's onesweep on
     * Hopper takes 384 threads of 17-23 keys): longer runs of one digit per tile, so
     * fewer partly written 32-byte sectors, and half as many tiles to look back over.
     * Keys and values of a tile sit in dynamic shared memory (over the 48 KB of static
     * memory); min_blocks caps registers so that many blocks share an SM. The look-back
     * reads lookback_batch earlier tiles' words at once (one L2 round trip a batch).
     * Measured on an H100 (2^26 pairs of 32-bit keys, against CUB in the same run,
     * bench/results/h100-onesweep-2026-11-26.md): 16 and 18 keys a thread alike (0.81-0.82x),
     * 20 0.79-0.80x; 256 threads x 24 keys, 3 blocks an SM, 0.67x; 12 keys, 3 blocks,
     * 0.65x; batches of 4 0.79x and of 2 0.79x against 0.82-0.83x for one tile at a time
     * (the walks are short once the look-back follows the key exchange). Later
     * (bench/results/h100-sorthist-2026-11-26.md, 8-bit passes against 615-620 us): CUB's
     * 384 x 23 tile at one block an SM 720 us; peers found by __match_any_sync 750 us, or
     * by a shared-memory mask a digit (the lanes OR their bits in) 620-640 us. */
    static constexpr int block_threads = SP_ONESWEEP_BLOCK;
    static constexpr int min_blocks = SP_ONESWEEP_MIN_BLOCKS;
    static constexpr int lookback_batch = SP_ONESWEEP_BATCH;
    /* Sorts of this many keys on take the onesweep passes. Below it the classic passes,
     * whose launches are more but which need no read-back of the watchdog's word (a host
     * synchronization of some microseconds, a larger share of a small sort). */
    static constexpr long long min_keys = SP_ONESWEEP_MIN_KEYS;
    /* The digit counts' kernel (256 threads of hist_bytes of consecutive keys each a step,
     * grid-stride): this many blocks an SM at most (fewer where fewer fit); runs: each run
     * of equal digits among a thread's keys is one shared atomic (else one a key);
     * prefetch: the next step's keys are loaded before this step's are counted. Measured
     * on an H100 (2^26 keys, Nsight Compute, bench/results/h100-sorthist-2026-11-26.md;
     * CUB's histogram 120 us for 32-bit keys, 233 for 64-bit): this policy 145 / 282 us
     * (the form before it, 8 keys with no prefetch and the passes not unrolled, 168 for
     * 32-bit); 64 bytes a step 157 / 305; no prefetch 149 / 281; one atomic a key 126 /
     * 251, kept off: a warp of equal digits (constant or narrow keys) would make each of
     * its atomics a 32-way conflict on one counter. The whole sort barely moves (0.89-0.90x
     * CUB with any of them). */
    static constexpr int hist_blocks_per_sm = SP_ONESWEEP_HIST_BLOCKS_PER_SM;
    static constexpr int hist_bytes = SP_ONESWEEP_HIST_BYTES;
    static constexpr bool hist_runs = SP_ONESWEEP_HIST_RUNS != 0;
    static constexpr bool hist_prefetch = SP_ONESWEEP_HIST_PREFETCH != 0;
    template <typename K> static constexpr int items_per_thread()
    {
        return sizeof(K) == 4 ? SP_ONESWEEP_ITEMS_U32 : SP_ONESWEEP_ITEMS_U64;
    }
};

/* The longest-row pass (kernel_util.cuh, longest_row): a grid-stride max over the rows,
 * the conversions' launch shape (one load per row, enough resident warps to hide it). */
struct sp_longest_row_policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;
};

#endif /* SP_PRIM_POLICY_H */
