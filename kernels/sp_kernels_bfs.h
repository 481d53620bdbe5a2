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
 * Returns SP_STATUS_INVALID_ARGUMENT for a bad source or a non-square g.
 * scratch: made by sp__gpu_bfs_loop_scratch_alloc for g's n vertices and at least
 * min(frontier_capacity, n + 1) sizes, reused by any number of traversals; NULL: the call
 * makes and frees its own. With a scratch the call allocates nothing, so a batch of
 * traversals (sp_bfs_multi) that made its scratch first cannot fail for memory after an
 * earlier traversal has written its outputs. */

/* Scratch of the level loops for graphs of n vertices: one device block from env (the
 * traversal's queues, visited bits, sizes and counters) and a host buffer for up to
 * min(frontier_capacity, n + 1) level sizes (none when frontier_capacity is 0). */
typedef struct sp_gpu_bfs_loop_scratch {
    void *d_base;
    unsigned long long *h_sizes; /* the device's size words (bfs_common.cuh) */
    int64_t n, h_capacity;
    /* launch shapes found on the first traversal (0: not yet), so later ones query no
     * occupancy or attributes: the persistent grid (soft, cooperative), the single
     * block's queue capacity (before the test knobs, which apply at every call) */
    int grid_blocks[2];
    int sb_capacity;
} sp_gpu_bfs_loop_scratch_t;

/* *scratch zeroed first; on failure nothing is left allocated. */
sp_status_t sp__gpu_bfs_loop_scratch_alloc(const sp_gpu_env_t *env, int64_t n,
                                           int64_t frontier_capacity,
                                           sp_gpu_bfs_loop_scratch_t *scratch);
/* Frees both parts and zeroes *scratch; a zeroed scratch is a no-op. */
void sp__gpu_bfs_loop_scratch_free(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *scratch);

/* Consecutive levels inside one block with block barriers while the frontier fits the
 * block's shared-memory queue; hands over to a grid-wide launch per level when it outgrows
 * it, and back to the single block when it shrinks again. */
sp_status_t sp__gpu_bfs_single_block(const sp_gpu_env_t *env,
                                     sp_gpu_bfs_loop_scratch_t *scratch, const sp_csr_t *g,
                                     int32_t source, int32_t *d_level, int32_t *d_parent,
                                     int64_t *frontier_sizes, int64_t frontier_capacity,
                                     sp_gpu_bfs_result_t *result);

/* One persistent kernel for the whole traversal: blocks that can be co-resident (occupancy
 * API), at most P::persistent_blocks_per_sm an SM (bfs_loops_policy.h), no host round trip
 * until it ends. sync picks the level barrier;
 * SP_GPU_BFS_SYNC_COOP returns SP_STATUS_NOT_SUPPORTED on a device without cooperative
 * launch. */
sp_status_t sp__gpu_bfs_persistent(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *scratch,
                                   const sp_csr_t *g, int32_t source, sp_gpu_bfs_sync_t sync,
                                   int32_t *d_level, int32_t *d_parent, int64_t *frontier_sizes,
                                   int64_t frontier_capacity, sp_gpu_bfs_result_t *result);

/* ---- test and benchmark knobs of the level loops (bfs-b; not for library callers) ----
 * Process-wide, read at each call; set them before the calls they affect, not while a
 * traversal runs on another thread. 0 restores the default. */
/* Blocks of the persistent grid: min(blocks, the policy's count). The GPU suite runs
 * the kernel with 1 and 2 blocks to show it completes with any number resident. */
void sp__gpu_bfs_set_persistent_blocks(int blocks);
/* Vertices the single block's shared-memory queue holds before it hands a level over to
 * the grid: min(capacity, what the device's shared memory allows). Small values force
 * many hand-overs both ways. */
void sp__gpu_bfs_set_single_block_capacity(int64_t capacity);
/* The persistent SOFT kernel's safety net (kernels/bfs/bfs_persistent.cu): nanoseconds a
 * waiting block lets the finished-chunk counter stand still before the call gives up with
 * SP_STATUS_INTERNAL_ERROR naming the level (default 20 s; only a bug reaches it). The
 * suite sets a tiny limit once to see the net end a traversal cleanly. */
void sp__gpu_bfs_set_persistent_stall_ns(uint64_t ns);
/* How the persistent SOFT kernel's waiting blocks poll the finished-chunk counter: a block
 * whose ticket lies at least near chunks past the end of the level it waits on sleeps
 * pause_ns between polls, the others spin (defaults: bfs_loops_policy.h). For
 * bfs_loops_bench's sweeps. */
void sp__gpu_bfs_set_persistent_poll(int64_t near, uint32_t pause_ns);
/* The persistent SOFT kernel's adjacency prefetch on small levels (P::prefetch_max_level):
 * 0 none; 1 (the default) each block, once its chunk is counted finished, prefetches into
 * L2 the list of the last vertex each thread queued; 2 also the row pointers of every
 * vertex as it is queued (prefetch.global.L2). Any other value restores the default. For
 * the suite's runs in every mode and bfs_loops_bench's A/B. */
void sp__gpu_bfs_set_persistent_prefetch(int mode);
/* Whether the single-block and persistent loops (and bfs_loops_bench's host loop) expand
 * a warp's short adjacency lists as one list when some lane has more than a batch of them
 * (bfs::gather_short; 1, the default) or each lane its own (0), for A/B runs. Read when a
 * traversal starts. */
void sp__gpu_bfs_set_loop_gather(int on);
int sp__gpu_bfs_loop_gather(void);
/* A trace of the persistent kernels' chunks (built only with -DSP_BFS_TRACE, an
 * experiment; without it the kernels record nothing): per expanded chunk its level, its
 * index in the level, the SM, and the global timer (ns) when its expansion began and when
 * the block had finished it (SOFT: after its finished-chunk add). take copies at most max
 * records of the traversals since the last take into recs and clears the trace; it
 * returns the number copied, or -1 when the build has no trace. */
typedef struct {
    int32_t level, chunk, sm, pad;
    uint64_t t0_ns, t1_ns;
} sp_gpu_bfs_trace_rec_t;
int sp__gpu_bfs_trace_take(sp_gpu_bfs_trace_rec_t *recs, int max);

/* ---- bfs-a: one level at a time, for the host level loop (src/bfs_cuda.c) ----
 * A traversal keeps its state in an sp_gpu_bfs_work_t carved from one scratch block
 * (sp__gpu_bfs_work_bytes / sp__gpu_bfs_work_carve): the visited bitmap (1 bit per
 * vertex, apart from the level array so that it stays in L2), two frontier queues, two
 * frontier bitmaps, the pieces of deferred hubs and the per-level counters. Every level
 * call expands the frontier of level `cur` into level cur + 1: for each vertex w it
 * reaches for the first time it sets w's visited bit, level[w] = cur + 1 and, when
 * d_parent is set, parent[w] = a vertex of level cur with an edge to w; it adds to
 * d_counters (which the caller zeroes before the level with sp__gpu_bfs_counters_reset
 * and reads back once after it). No level call synchronizes. The graph arrays are
 * square (n x n, 1 <= n < 2^31; nnz < 2^31 with 32-bit pointers, any with 64-bit ones);
 * duplicates and self-loops are allowed. */

/* The graph as the level kernels see it: out-edges (CSR, always: degrees come from it),
 * in-edges (CSC: pull and direction-optimized) and the sorted COO (edge-centric). The
 * pointers are 32-bit (d_out_ptr, d_in_ptr) or 64-bit (d_out_ptr64, d_in_ptr64; issue 20:
 * a graph of 2^31 edges or more, or 64-bit offsets forced), exactly one of each pair set
 * and both pairs of one width; every kernel is a template on the offset type, chosen once a
 * call from d_out_ptr64 (the int32_t instances are the kernels as they were). Vertex ids,
 * queues and degrees stay 32-bit: a vertex of 2^31 - hub_degree edges or more is refused. */
typedef struct sp_gpu_bfs_graph {
    int64_t n, nnz;
    const int32_t *d_out_ptr, *d_out_idx; /* CSR */
    const int32_t *d_in_ptr, *d_in_idx;   /* CSC, or NULL */
    const int32_t *d_coo_row, *d_coo_col; /* COO, or NULL */
    const int64_t *d_out_ptr64, *d_in_ptr64; /* the 64-bit pointers instead, or NULL */
} sp_gpu_bfs_graph_t;

/* Per-level counters in device memory. */
typedef struct sp_gpu_bfs_counters {
    unsigned long long next_edges; /* sum of the out-degrees of the vertices claimed */
    int32_t next_vertices;         /* vertices claimed this level */
    int32_t queue_tail;            /* entries appended to d_next_queue */
    int32_t hub_pieces;            /* pieces of deferred high-degree vertices */
    int32_t convert_tail;          /* entries written by a bitmap -> queue conversion */
} sp_gpu_bfs_counters_t;

typedef struct sp_gpu_bfs_work {
    int32_t *d_level, *d_parent;  /* the caller's outputs (d_parent may be NULL) */
    uint32_t *d_visited;          /* ceil(n / 32) words */
    uint32_t *d_front, *d_next;   /* frontier bitmaps (pull), ceil(n / 32) words each */
    int32_t *d_queue, *d_next_queue; /* frontier queues (push), n entries each */
    int32_t *d_piece_vertex, *d_piece_start; /* max_pieces entries each */
    int64_t max_pieces;
    sp_gpu_bfs_counters_t *d_counters;
} sp_gpu_bfs_work_t;

/* Bytes of scratch for a graph of n vertices and nnz edges (a multiple of 256). */
size_t sp__gpu_bfs_work_bytes(int64_t n, int64_t nnz);
/* Point w's arrays into d_temp (at least sp__gpu_bfs_work_bytes, 256-byte aligned); the
 * outputs are set from d_level and d_parent. */
void sp__gpu_bfs_work_carve(void *d_temp, int64_t n, int64_t nnz, int32_t *d_level,
                            int32_t *d_parent, sp_gpu_bfs_work_t *w);
/* Start a traversal: level = -1 and parent = -1 everywhere, then the source at level 0
 * (its own parent), visited = front = {source}, queue = [source], counters = {1 vertex,
 * deg(source) edges} so that the caller reads level 0's counts like any level's. */
sp_status_t sp__gpu_bfs_start(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                              const sp_gpu_bfs_work_t *w, int32_t source);
/* Zero d_counters (queued on the stream). */
sp_status_t sp__gpu_bfs_counters_reset(const sp_gpu_env_t *env, const sp_gpu_bfs_work_t *w);

/* Vertex-centric push (kernels/bfs/bfs_push.cu): every vertex with level == cur
 * expands its out-edges. */
sp_status_t sp__gpu_bfs_push_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                   const sp_gpu_bfs_work_t *w, int32_t cur);
/* Vertex-centric pull (bfs_pull.cu): every unvisited vertex scans its in-edges for a
 * vertex of the frontier bitmap d_front, stopping at the first; the vertices found are
 * also set in d_next, which the call clears first. */
sp_status_t sp__gpu_bfs_pull_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                   const sp_gpu_bfs_work_t *w, int32_t cur);
/* Edge-centric (bfs_edge.cu): every COO edge (u, v) with level[u] == cur. */
sp_status_t sp__gpu_bfs_edge_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                   const sp_gpu_bfs_work_t *w, int32_t cur);
/* Frontier-queue push (bfs_frontier.cu): the count vertices of d_queue expand into
 * d_next_queue (queue_tail entries, in no particular order). */
sp_status_t sp__gpu_bfs_frontier_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                       const sp_gpu_bfs_work_t *w, int32_t cur,
                                       int32_t count);
/* The same with block-private queues in shared memory (bfs_privatized.cu). */
sp_status_t sp__gpu_bfs_privatized_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                         const sp_gpu_bfs_work_t *w, int32_t cur,
                                         int32_t count);

/* Direction-optimized BFS (bfs_direction_opt.cu, Beamer et al. SC'12). */
typedef enum sp_gpu_bfs_dir { SP_GPU_BFS_DIR_PUSH = 0, SP_GPU_BFS_DIR_PULL = 1 } sp_gpu_bfs_dir_t;
/* One level in direction dir. prev says where the frontier of `count` vertices is:
 * d_queue (PUSH) or d_front (PULL); sp__gpu_bfs_start fills both. When dir differs from
 * prev the frontier is converted on the GPU first (queue -> bitmap into d_front, bitmap
 * -> queue into d_queue). The output is d_next_queue after a push, d_next after a pull. */
sp_status_t sp__gpu_bfs_direction_opt_level(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                            const sp_gpu_bfs_work_t *w, int32_t cur,
                                            int32_t count, sp_gpu_bfs_dir_t prev,
                                            sp_gpu_bfs_dir_t dir);

/* ---- the graph level loop (kernels/bfs/bfs_graph_loop.cu) ----
 * A whole traversal as one CUDA graph launch: a device-side while node runs the level
 * step of the mode (the frontier push, the pull, or direction-optimized switching by
 * Beamer's rule decided on the GPU) until a level finds nothing. Built once for a graph
 * and a scratch (sp_gpu_bfs_work_t: its arrays are baked into the graph; only the
 * outputs may change between runs), run for any number of sources. */
typedef enum sp_gpu_bfs_graph_mode {
    SP_GPU_BFS_GRAPH_PUSH = 0,  /* frontier-queue push every level */
    SP_GPU_BFS_GRAPH_PULL = 1,  /* pull every level (needs the CSC) */
    SP_GPU_BFS_GRAPH_DIROPT = 2 /* direction-optimized (needs the CSC) */
} sp_gpu_bfs_graph_mode_t;

typedef struct sp_gpu_bfs_graph_loop {
    void *graph, *exec;          /* cudaGraph_t, cudaGraphExec_t */
    void *d_base;                /* the loop's state and per-level records (env memory) */
    unsigned long long *h_stamps; /* host copy of the level start times */
    int64_t capacity;            /* levels recorded */
    int mode;
} sp_gpu_bfs_graph_loop_t;

/* What a run found, counted as the host loop counts it. */
typedef struct sp_gpu_bfs_graph_log {
    int64_t levels, vertices, edges, switches;
} sp_gpu_bfs_graph_log_t;

/* Build the graph for g and w (alpha, beta > 0 and pull_vertex_weight >= 0: the direction
 * rule's parameters, bfs/bfs_direction_rule.h; capacity levels of
 * records, 0..n + 1); w's outputs may be NULL (each run sets them). SP_STATUS_NOT_SUPPORTED
 * where the driver has no conditional nodes. On failure nothing is left allocated and *loop
 * is zeroed. */
sp_status_t sp__gpu_bfs_graph_loop_create(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                                          const sp_gpu_bfs_work_t *w,
                                          sp_gpu_bfs_graph_mode_t mode, double alpha,
                                          double beta, double pull_vertex_weight,
                                          int64_t capacity, sp_gpu_bfs_graph_loop_t *loop);
/* One traversal from source into w's outputs (w carved from the scratch the loop was built
 * for). sizes (int64), dirs (int32) and times_ms, host arrays of capacity entries (at most
 * the loop's) or NULL, get each level's size (0 past the last), the direction of the step
 * that expanded it (-1 past) and that step's GPU time (-1 past). end_event (a cudaEvent_t,
 * or NULL) is recorded on the stream when the traversal's last kernel has run, before the
 * read-back of the counts. Synchronizes env->stream once. */
sp_status_t sp__gpu_bfs_graph_loop_run(const sp_gpu_env_t *env,
                                       const sp_gpu_bfs_graph_loop_t *loop,
                                       const sp_gpu_bfs_graph_t *g, const sp_gpu_bfs_work_t *w,
                                       int32_t source, int64_t *sizes, int32_t *dirs,
                                       double *times_ms, int64_t capacity, void *end_event,
                                       sp_gpu_bfs_graph_log_t *log);
/* Frees everything and zeroes *loop; a zeroed loop is a no-op. */
void sp__gpu_bfs_graph_loop_destroy(const sp_gpu_env_t *env, sp_gpu_bfs_graph_loop_t *loop);

#ifdef __cplusplus
}
#endif

#endif /* SP_KERNELS_BFS_H */
