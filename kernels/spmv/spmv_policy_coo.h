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
    static constexpr int fixup_block_threads = 256;
    static constexpr int fixup_blocks_per_sm = 4;
};

/* CSC: a warp per chunk of 32 x chunk_steps consecutive entries, a lane per entry of each
 * 32-entry step; a lane finds its column by binary search once a chunk and then walks the
 * column pointers forward (up to walk_max columns a step, else a search again); the lanes
 * of a step holding one row add first (__match_any_sync), then one atomic into y. One
 * search a thread per entry cost each entry log2(ncols) dependent loads. */
struct sp_spmv_csc_policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;
    static constexpr int chunk_steps = 8;
    static constexpr int walk_max = 4;
};

#endif /* SP_SPMV_POLICY_COO_H */
