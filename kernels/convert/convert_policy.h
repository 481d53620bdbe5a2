/* Launch policy of the conversions (kernels/convert/): the one place their tuning
 * constants live. C++ (the values feed launch configurations); included by the .cu files
 * only. The kernels are grid-stride loops over rows, entries or slices. */
#ifndef SP_CONVERT_POLICY_H
#define SP_CONVERT_POLICY_H

/* The one value a benchmark retunes with -D at configure time (CMAKE_CUDA_FLAGS): the
 * longest row of a matrix whose transpose takes the scatter path (0: none does). */
#ifndef SP_TRANSPOSE_SCATTER_MAX_ROW
#define SP_TRANSPOSE_SCATTER_MAX_ROW 0
#endif

struct sp_convert_policy {
    /* threads per block of every conversion kernel */
    static constexpr int block_threads = 256;
    /* grid cap: blocks per SM (the loops stride over the rest); enough resident warps
     * to hide the latency of the gathers and scatters */
    static constexpr int blocks_per_sm = 8;

    /* CSR -> CSC by count, scan and stable scatter (csr_to_csc.cu, issue 22): taken for
     * every matrix when transpose_scatter is set, else where its columns are short and
     * even, judged from what is cheap to know: the longest row at most
     * transpose_scatter_max_row and the mean column at most transpose_scatter_max_mean (a
     * stencil). With 32 it took Poisson 160^3 on an H100 while the sort path was 0.67-0.76x
     * cuSPARSE (bench/results/h100-sort-2026-11-26.md). Since the onesweep sort the sort
     * path is ahead wherever both were measured (bench/results/h100-onesweep-2026-11-26.md,
     * call 8): Poisson 160^3 1.04x against the scatter path's 1.00x (patterns 0.91x against
     * 0.83x), BentPipe2D100 1.19x against 1.08x, Kronecker 22 1.05x against 0.33x, the
     * other datasets alike within the run's spread: so 0, the sort path for every matrix
     * (and no pass for the longest row). sp__gpu_csr_to_csc_scatter always takes the
     * scatter path. */
    static constexpr bool transpose_scatter = false;
    static constexpr int transpose_scatter_max_row = SP_TRANSPOSE_SCATTER_MAX_ROW;
    static constexpr int transpose_scatter_max_mean = 32;
    /* the transposes' gathers (rows, then values, of the entries in column order): outputs
     * a thread holds in flight */
    static constexpr int gather_items = 4;
    /* the CSC's column pointers from the sorted columns: a run of empty columns longer
     * than this is filled by a binary search each, not walked by one thread */
    static constexpr int sorted_starts_run = 32;
    /* columns of up to thread_max entries are put in order by a thread (a sorting network
     * in registers: a 7-point stencil's columns, most of a power-law graph's), up to
     * warp_max by a warp (a rank count), up to block_max by a block (bitonic in shared
     * memory: block_max ints of it) */
    static constexpr int transpose_thread_max = 8;
    static constexpr int transpose_warp_max = 32;
    static constexpr int transpose_block_max = 8192;
    /* longer columns ("hubs") are placed in order from per-chunk counts kept in shared
     * memory (4 bytes a hub, beside 1 KiB of the kernel's own, under the 48 KiB a block
     * gets without opting in); more hubs than this: the sort path */
    static constexpr int transpose_max_hubs = 11264;
    /* the scatter's ordered chunks: at most this many blocks an SM, at least this many
     * entries a chunk */
    static constexpr int transpose_chunks_per_sm = 8;
    static constexpr int transpose_min_chunk = 4096;

    /* ELL's value table (csr_to_ell.cu): each block gathers the distinct bit patterns of
     * its values in an open-addressing set of table_block_slots in shared memory (8 bytes
     * a slot; twice the table's 256 entries, so probes stay short until the count passes
     * 256 and the build gives up), table_per_thread values a thread between two looks at
     * the global give-up flag; the blocks' sets merge into one of table_global_slots. */
    static constexpr int table_block_slots = 512;
    static constexpr int table_global_slots = 1024;
    static constexpr int table_per_thread = 8;
};

#endif /* SP_CONVERT_POLICY_H */
