/* Launch policies of the COO, CSC and scaling SpMV kernels (kernels/spmv/spmv_coo.cu,
 * spmv_csc.cu, spmv_scale.cu) and of the COO plan: the one place their tuning constants
 * live. C++, included by .cu files only. */
#ifndef SP_SPMV_POLICY_COO_H
#define SP_SPMV_POLICY_COO_H

/* y = beta * y: a thread per entry, grid-stride. */
struct sp_spmv_scale_policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;
};

/* COO atomic and the accumulate: a warp per 32 consecutive entries, runs of one row
 * summed in the warp, one atomic per run; grid-stride. */
struct sp_spmv_coo_atomic_policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;
};

/* COO segmented: each block one tile of block_threads * items_per_thread entries, staged
 * in shared memory (row + product per entry, 12 or 16 KB), each thread a run of
 * items_per_thread consecutive entries; carries fixed up by a second kernel. */
struct sp_spmv_coo_segmented_policy {
    static constexpr int block_threads = 256;
    static constexpr int items_per_thread = 8;
    static constexpr int tile_items = block_threads * items_per_thread;
    /* the tiles apply beta themselves (no separate beta pass: one launch for one tile, two
     * past it) while nrows <= this x nnz + tile_items; beyond, a thread's run could pass
     * long stretches of empty rows, scaled one by one, and the beta pass runs first */
    static constexpr int scale_in_tiles_rows_per_entry = 2;
    static constexpr int fixup_block_threads = 256;
    static constexpr int fixup_blocks_per_sm = 4;
    /* The long-row tails of ELL, JDS, SELL and HYB's overflow (sp__gpu_spmv_coo_accumulate)
     * go through this kernel (ADD mode: a reduction a tile's part of a row) when their
     * longest row has at least tail_min_row entries (or is not known), else through COO
     * atomic's kernel (one atomic a warp-run). The atomics of one row serialize on its
     * address, row / 32 of them: 62,500 a dense row of denselines:2000000:4:8 (3.2x CSR in
     * float); but on tails of shorter rows the warp kernel's single pass is the faster one
     * (H100, bench/results/h100-session22-2026-11-27.md, ELL's time a call, warp kernel ->
     * this one): longest tail row 334 (email-Eu-core) 9.1 -> 11.0 us, 11,768
     * (circuit:100000:4) 8.2 -> 8.8, 50,000 (denselines:50000:2:8) 13.5 -> 10.9, 235,144
     * (circuit:2000000:8) 82.5 -> 73.0: the crossover lies near 19,000 entries; 16384. */
    static constexpr long long tail_min_row = 16384;
};

/* CSC (issue 23): the entries cut into chunks of 32 x chunk_steps, a warp each (grid-
 * stride), the chunk's first column from the plan (the column holding entry c x
 * chunk_entries, found once per matrix). The warp loads the chunk's rows and values
 * (coalesced, all steps in flight), finds every entry's column in a window of 32 column
 * ends held one a lane, 32-bit offsets from the chunk's first entry (where the window
 * covers the step and no two of its columns end at one entry: the step's entries where a
 * column ends as one OR over the warp, each lane's column a popcount of it; otherwise a
 * shuffle search, the window moving on by 32 columns, or by a 32-way search of the column
 * pointers when that is not enough: runs of empty columns),
 * gathers x for all steps, then adds alpha * a * x[column] into y[row] with one reduction
 * (an atomic whose result is unused) per entry. With a row longer than the policy's
 * aggregation bound (src/policy.c) the lanes of a step holding one row add first
 * (__match_any_sync), so a dense row costs an atomic per step, not per entry; without,
 * no match (it costs each step a match and a shuffle loop). In square matrices the rows
 * from window_before below the chunk's first column to window_rows past that (the rows
 * near the diagonal, which several columns of a chunk share: a 7-point stencil's row i
 * in columns i - 1, i, i + 1, 3 of its 7 entries; a band's) are added in shared memory
 * first and go to y after the chunk, one reduction a row, 32 consecutive rows an
 * instruction: a 7-point stencil's row takes 5 reductions instead of 7, and the one for
 * its 3 entries near the diagonal is coalesced with its neighbours'. blocks_per_sm 4: 64
 * registers, the chunk's rows, values and columns stay in registers (as CSR split's). The
 * previous kernel searched each lane's column by walking up to 4 column pointers a step,
 * then a binary search over all columns (log2(ncols) dependent loads) whenever a step
 * spanned more than 4 columns: every step of a 7-point stencil (32 entries over ~4.6
 * columns). */
/* SP_CSC_BLOCKS_PER_SM, SP_CSC_CHUNK_STEPS: benchmark knobs (-D at build time) for the
 * variants scripts/device-csc-occupancy.sh measures; the defaults below are the policy.
 * The default reaches 42% achieved occupancy (56-64 registers; Nsight Compute on
 * banded:2000000:64 in float), yet 6 blocks of 4 steps (40 registers, no spill in float)
 * and 5 blocks of 6 steps (48) were slower on all six inputs measured: 1-5% on bands and
 * blocks, 7-8% on Kronecker 22 (H100, bench/results/h100-session20-2026-11-27.md, call 7). */
#ifndef SP_CSC_BLOCKS_PER_SM
#define SP_CSC_BLOCKS_PER_SM 4
#endif
#ifndef SP_CSC_CHUNK_STEPS
#define SP_CSC_CHUNK_STEPS 8
#endif
struct sp_spmv_csc_policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = SP_CSC_BLOCKS_PER_SM;
    static constexpr int chunk_steps = SP_CSC_CHUNK_STEPS;
    static constexpr int chunk_entries = 32 * chunk_steps;
    static constexpr int partition_block_threads = 256;
    static constexpr int partition_blocks_per_sm = 4;
    /* square matrices: a warp's window of rows in shared memory (2 or 1 KiB a warp) */
    static constexpr int window_rows = 256;
    static constexpr int window_before = 64;
    /* the rows longest past the policy's bound (src/policy.c), at most heavy_rows, summed
     * by each warp in its slots of shared memory and added to y once a block at the end: a
     * dense row's entries otherwise queue on one address, one reduction a step (8.9x the
     * fastest libsp format on denselines:2000000:4:8, H100). heavy_rows a power of two (the
     * search is unrolled); a row is looked up only where its bit of a heavy_bitmap_bits
     * filter (a multiplicative hash) is set. The plan lists at most heavy_candidates rows at
     * or past the bound and keeps the longest heavy_rows of them. */
    static constexpr int heavy_rows = 64;
    static constexpr int heavy_bitmap_bits = 1024;
    static constexpr int heavy_candidates = 4096;
    /* the plan's symmetry check: a thread an entry, grid-stride, check_steps entries a
     * thread between reads of the flag that ends it (a mismatch found) */
    static constexpr int check_block_threads = 256;
    static constexpr int check_blocks_per_sm = 8;
    static constexpr int check_steps = 16;
};

#endif /* SP_SPMV_POLICY_COO_H */
