/* Launch policies of the CSR SpMV kernels (kernels/spmv/spmv_csr.cu) and of the plan that
 * picks among them (spmv_plan.cu): the one place their tuning constants live. C++,
 * included by .cu files only. */
#ifndef SP_SPMV_POLICY_CSR_H
#define SP_SPMV_POLICY_CSR_H

/* CSR scalar: a thread per row, grid-stride. */
struct sp_spmv_csr_scalar_policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8; /* 2048 threads: a full SM */
};

/* CSR vector: a sub-warp of 2..32 lanes per row (the plan's param), grid-stride. */
struct sp_spmv_csr_vector_policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;
    static constexpr int min_width = 2, max_width = 32;
};

/* CSR merge: each block one tile of block_threads * items_per_thread merge items (row
 * ends + entries); the plan stores each tile's start row. 7 items per thread as in CUB's
 * SpMV agent; shared memory per block is ~9 bytes (float) or ~21 bytes (double) per
 * item, 16 to 37 KB. */
struct sp_spmv_csr_merge_policy {
    static constexpr int block_threads = 256;
    static constexpr int items_per_thread = 7;
    static constexpr int tile_items = block_threads * items_per_thread;
    static constexpr int partition_block_threads = 256;
    static constexpr int partition_blocks_per_sm = 4;
    static constexpr int fixup_block_threads = 256;
    static constexpr int fixup_blocks_per_sm = 4;
};

/* CSR split: the entries cut into chunks of 32 * chunk_iters, a warp per chunk; every
 * warp loads its chunk's columns and values and issues all of its gathers from x before
 * it reduces any row, so chunk_iters gathers per lane are in flight (the latency of
 * random gathers is what power-law and random-column matrices are bound by). */
struct sp_spmv_csr_split_policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 4; /* 64 registers: the chunk's 8 products and
                                               columns stay in registers (at 8, 32 spill) */
    static constexpr int chunk_iters = 8;
    static constexpr int chunk_entries = 32 * chunk_iters;
    static constexpr int partition_block_threads = 256;
    static constexpr int partition_blocks_per_sm = 4;
    static constexpr int fixup_block_threads = 256;
    static constexpr int fixup_blocks_per_sm = 4;
};

/* CSR binned: rows binned once (the plan) by length; bin b < row_bins holds rows of at
 * most lane_entries << b entries and gives each a sub-warp of 1 << b lanes (a thread per
 * row for bin 0, a warp for bin 5), every lane loading its at most lane_entries entries
 * before any gather; longer rows are cut into pieces of piece_entries, a warp each,
 * long_lane_entries gathers in flight per lane. A block takes block_threads / lanes rows
 * of one bin, or block_threads / 32 pieces; blocks of all bins are interleaved in
 * proportion, so every bin walks the rows at the same pace and the bins share the L2
 * lines of the matrix. min_blocks_per_sm 8 caps registers at 32: the short bins, most of
 * the rows of a power-law matrix, need a full SM of threads to keep enough gathers in
 * flight.
 * The plan's d_aux (int32): header[header_ints] = bin starts in the row list (bins + 1
 * entries: row bins, the long bin, the end), the piece count and the row count;
 * schedule[2 * blocks] = (bin, index of the block in its bin); rows[nrows] = the row
 * list, grouped by bin, rows in order within a bin; first_piece[nlong + 1] over the long
 * rows; piece_row[pieces] = the long row (index in the long bin) of each piece. d_temp: a
 * counter per long row (0 between calls), then a partial sum (double slot) per piece. */
struct sp_spmv_csr_binned_policy {
    static constexpr int block_threads = 256;
    static constexpr int min_blocks_per_sm = 8;
    static constexpr int lane_entries = 4;
    static constexpr int row_bins = 6; /* 1, 2, 4, 8, 16, 32 lanes: rows up to 128 */
    static constexpr int bins = row_bins + 1;
    static constexpr int long_lane_entries = 4;
    static constexpr int piece_entries = 1024;
    static constexpr int header_ints = 16;
    static constexpr int plan_block_threads = 256;
    static constexpr int plan_blocks_per_sm = 4;
};

/* CSR adaptive (CSR-Adaptive's stream blocks, Greathouse & Daga SC 2014): the plan cuts
 * the rows of at most short_max entries, in their order, into stream blocks: consecutive
 * rows whose first entries fall in the same stream_entries-aligned window of the entries,
 * at most stream_rows rows, never across a longer row. A block's rows span fewer than
 * stream_entries + short_max entries, which its threads load in order from the multiple
 * of align_entries below the first (as the entries lie in memory: whole L2 lines, no
 * request shared by several rows; stream_slots of shared memory), each
 * issuing all of its gathers from x (at most stream_loads) before storing the products in
 * shared memory; then sub-warps of 1..32 lanes (from the block's mean row length, lanes
 * for rows of about lane_entries entries each) add up the rows. Rows longer than
 * short_max are cut into pieces of piece_entries (small_piece_entries in a matrix of
 * fewer than small_nnz entries), a warp each (spmv_long_rows.cuh); the
 * two kinds of blocks are interleaved in one launch. The sums of the pieces of a row of
 * several pieces are added by the row's last piece to finish (a fence per piece), or,
 * when there are at least deferred_min_pieces pieces beyond each row's first, by a second
 * launch, a warp per 32 long rows (no fences: on Kronecker 22 they were 1.5% of all L2
 * requests, and the L2's request rate is what bounds the kernel there).
 * The plan's d_aux (int32): header[header_ints] = (stream blocks, long rows, pieces,
 * entries a piece, deferred finish);
 * schedule[2 * blocks] = (kind: 0 stream, 1 pieces; index among its kind's blocks);
 * stream[2 * stream blocks] = (first row, end row); then the long-row tables of
 * spmv_long_rows.cuh: long_rows[nlong], first_piece[nlong + 1], piece_row[pieces].
 * d_temp: as spmv_long_rows.cuh says.
 * Tuned on the H200 (bench/results/h200-spmv-suite.md, 2026-11-24 tuning table: Kronecker
 * 20, 22, 23 and uniform 22): short_max 256 rather than 64 or 128, 8 gathers in flight a
 * lane in the pieces rather than 4, pieces of 2048 entries rather than 512 or 1024; the
 * window (512 or 1024 entries) made no difference beyond noise. Pieces of 2048 made
 * arrow.mtx (one row of 46,500 entries in 139,498) a fifth slower than pieces of 1024:
 * a small matrix's call waits on one piece's chain of loads, hence small_piece_entries. */
struct sp_spmv_csr_adaptive_policy {
    static constexpr int block_threads = 256;
    static constexpr int min_blocks_per_sm = 8;
    static constexpr int stream_entries = 1024;
    static constexpr int stream_rows = 1024;
    static constexpr int short_max = 256;
    static constexpr int align_entries = 32; /* loads start at a multiple of this entry */
    static constexpr int stream_slots = stream_entries + short_max + align_entries;
    static constexpr int stream_loads = (stream_slots + block_threads - 1) / block_threads;
    static constexpr int lane_entries = 4;
    static constexpr int kinds = 2;
    static constexpr int long_lane_entries = 8;
    static constexpr int piece_entries = 2048;
    static constexpr int small_piece_entries = 512;
    static constexpr int64_t small_nnz = (int64_t)1 << 22;
    /* long rows finished by a second kernel (no fence per piece) when they have at least
     * this many pieces beyond the first of each row */
    static constexpr int64_t deferred_min_pieces = 4096;
    static constexpr int header_ints = 8;
    static constexpr int plan_block_threads = 256;
    static constexpr int plan_blocks_per_sm = 4;
};

/* CSR scalar and vector with long rows (issue 23): rows longer than the plan's bound (the
 * caller's: src/policy.c's sp__policy_spmv_csr_long_bound, 8 x mean + 32)
 * are skipped by the thread or sub-warp of the fixed-width kernel and cut into pieces of
 * piece_entries (small_piece_entries in matrices of fewer than small_nnz entries), a warp
 * each, in a second launch (spmv_long_rows.cuh, the pieces of binned and adaptive; the
 * last piece of a row to finish adds the row's pieces in order, so the product stays
 * deterministic). Piece sizes and gathers in flight are adaptive's, tuned on the H200.
 * A matrix without such rows gets the plan it had before: no table, no second launch.
 * The plan's d_aux (int32): header[header_ints] = (long rows, pieces, entries a piece);
 * then long_rows[nlong], first_piece[nlong + 1], piece_row[pieces] (spmv_long_rows.cuh).
 * d_temp: as spmv_long_rows.cuh says. */
struct sp_spmv_csr_long_policy {
    using pieces = sp_spmv_csr_adaptive_policy;
    static constexpr int block_threads = pieces::block_threads;
    static constexpr int long_lane_entries = pieces::long_lane_entries;
    static constexpr int piece_entries = pieces::piece_entries;
    static constexpr int small_piece_entries = pieces::small_piece_entries;
    static constexpr int64_t small_nnz = pieces::small_nnz;
    static constexpr int header_ints = 4;
    static constexpr int plan_block_threads = pieces::plan_block_threads;
    static constexpr int plan_blocks_per_sm = pieces::plan_blocks_per_sm;
};

/* The DEFAULT rule (which CSR kernel, and CSR vector's width) is not here: the kernels
 * take a resolved algorithm; src/policy.c decides it from the matrix's host statistics. */

#endif /* SP_SPMV_POLICY_CSR_H */
