/* Launch policy of the BFS level loops (kernels/bfs/bfs_single_block.cu,
 * bfs_persistent.cu, bfs_common.cuh): the one place their tuning constants live. C++,
 * included by the .cu files and bfs_loops_bench only. */
#ifndef SP_BFS_LOOPS_POLICY_H
#define SP_BFS_LOOPS_POLICY_H

#include <stdint.h>

struct sp_bfs_loops_policy {
    /* threads of the grid-wide level kernel and of the persistent kernel; a frontier chunk
     * (one ticket) is one vertex per thread */
    static constexpr int grid_block = 256;
    /* grid cap of the per-level launch: blocks per SM (the loop strides over the rest) */
    static constexpr int grid_blocks_per_sm = 8;
    /* adjacency lists at least this long are scanned by a warp (at least a block: by the
     * block) */
    static constexpr int warp_degree = 32;
    /* edges per lane in flight per round: their loads and claims overlap */
    static constexpr int batch = 4;
    /* levels of at least this many vertices read the visited bits before the claiming
     * atomics (bfs_common.cuh, preread_for): above a 4096 x 4096 grid's frontiers, below
     * the large levels of a Kronecker graph */
    static constexpr int64_t preread_min_level = 16384;
    /* persistent (SOFT and COOP): blocks an SM at most, below what the occupancy allows
     * (5 of 256 threads). Fewer blocks mean fewer waiters walking the level words and a
     * shorter barrier; on the H200 one block an SM ran the 4096 x 4096 grid at 5.17 us a
     * level against 5.57 with all 5, and Kronecker 20 in 1552 against 1578 us
     * (bfs_loops_bench --blocks 132, same run). The price: levels of millions of vertices
     * have too few threads (the suite's Kronecker 24 in the persistent loop 19.0 against
     * 24.9 GTEPS, uniform 22 15.3 against 31.1); AUTO sends such dense graphs to the
     * direction-optimized loops */
    static constexpr int persistent_blocks_per_sm = 1;
    /* persistent SOFT: a block waiting with a ticket at least poll_near_chunks past the
     * current level's end polls every poll_pause_ns (far from the front, it only needs to
     * see the level end eventually); the others spin */
    static constexpr int poll_near_chunks = 64;
    static constexpr unsigned poll_pause_ns = 256;
    /* persistent SOFT safety net: a block that sees the level word it polls stand still
     * this long while it waits gives up and the call fails with SP_STATUS_INTERNAL_ERROR.
     * A correct traversal never comes near it: the word stands still only while one chunk
     * (at most 256 vertices, < 2^31 edges, hubs scanned by the whole block) is expanded,
     * milliseconds for the largest hub of the test graphs and a few seconds at the
     * 2^31-edge limit. */
    static constexpr unsigned long long stall_ns = 20ull * 1000 * 1000 * 1000;
    /* the single block: threads, and the most vertices per shared queue buffer (two
     * buffers: 128 KiB at most, less where the device's shared memory is smaller) */
    static constexpr int single_block_threads = 1024;
    static constexpr int64_t single_block_max_capacity = 16384;
};

#endif /* SP_BFS_LOOPS_POLICY_H */
