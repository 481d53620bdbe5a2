/* The GPU BFS kernels' C-callable entry points (kernels/bfs/). Internal: used by
 * src/bfs_cuda.c, the GPU test suites and bench/. Conventions as in sp_kernels.h: d_
 * pointers are device memory, work is queued on env->stream, scratch comes from env,
 * nothing synchronizes the device (a call may synchronize env->stream to read back a few
 * counters), nothing prints. */
#ifndef SP_KERNELS_BFS_H
#define SP_KERNELS_BFS_H

#include "sp_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a traversal reached, counted as sp__ref_bfs counts it. */
typedef struct sp_gpu_bfs_result {
    int64_t levels;   /* non-empty levels (1 when only the source is reached) */
    int64_t vertices; /* vertices reached, the source included */
    int64_t edges;    /* adjacency entries scanned: sum of out-degrees of reached vertices */
} sp_gpu_bfs_result_t;

/* How the persistent kernel separates levels. */
typedef enum sp_gpu_bfs_sync {
    SP_GPU_BFS_SYNC_SOFT = 0, /* counters in global memory, work from an atomic ticket */
    SP_GPU_BFS_SYNC_COOP = 1  /* cooperative-groups grid barrier (the benchmark baseline) */
} sp_gpu_bfs_sync_t;

/* ---- level loops of the frontier-queue push BFS (kernels/bfs/bfs_single_block.cu,
 * kernels/bfs/bfs_persistent.cu) ----
 * BFS from source over the device CSR g (square, n = g->nrows >= 1; row u lists the heads
 * of u's out-edges; duplicates and self-loops allowed). Writes all n entries of d_level
 * (hops from source, -1 unreachable; equal to sp__ref_bfs) and, when d_parent != NULL, of
 * d_parent (a vertex one level up with an edge to v; parent[source] = source; -1
 * unreachable). frontier_sizes (HOST memory, may be NULL) gets the number of vertices of
 * each level for the first frontier_capacity levels, 0 past the last. *result gets the
 * counts. Synchronizes env->stream once at the end (to read the counters), never the device.
 * Returns SP_STATUS_INVALID_ARGUMENT for a bad source or a non-square g. */

/* Consecutive levels inside one block with block barriers while the frontier fits the
 * block's shared-memory queue; hands over to a grid-wide launch per level when it outgrows
 * it, and back to the single block when it shrinks again. */
sp_status_t sp__gpu_bfs_single_block(const sp_gpu_env_t *env, const sp_csr_t *g, int32_t source,
                                     int32_t *d_level, int32_t *d_parent,
                                     int64_t *frontier_sizes, int64_t frontier_capacity,
                                     sp_gpu_bfs_result_t *result);

/* One persistent kernel for the whole traversal: as many blocks as can be co-resident
 * (occupancy API), no host round trip until it ends. sync picks the level barrier;
 * SP_GPU_BFS_SYNC_COOP returns SP_STATUS_NOT_SUPPORTED on a device without cooperative
 * launch. */
sp_status_t sp__gpu_bfs_persistent(const sp_gpu_env_t *env, const sp_csr_t *g, int32_t source,
                                   sp_gpu_bfs_sync_t sync, int32_t *d_level, int32_t *d_parent,
                                   int64_t *frontier_sizes, int64_t frontier_capacity,
                                   sp_gpu_bfs_result_t *result);

/* ---- test and benchmark knobs of the level loops (bfs-b; not for library callers) ----
 * Process-wide, read at each call; set them before the calls they affect, not while a
 * traversal runs on another thread. 0 restores the default. */
/* Blocks of the persistent grid: min(blocks, the co-resident count). The GPU suite runs
 * the kernel with 1 and 2 blocks to show it completes with any number resident. */
void sp__gpu_bfs_set_persistent_blocks(int blocks);
/* Vertices the single block's shared-memory queue holds before it hands a level over to
 * the grid: min(capacity, what the device's shared memory allows). Small values force
 * many hand-overs both ways. */
void sp__gpu_bfs_set_single_block_capacity(int64_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* SP_KERNELS_BFS_H */
