/* Launch policy of every BFS kernel (kernels/bfs/): the per-level kernels and the graph
 * loop (bfs_level_common.cuh), the single-block and persistent loops (bfs_loop_common.cuh)
 * and the expansion engine they share (bfs_expand.cuh). The one place their tuning
 * constants live. C++, included by the .cu files and bfs_loops_bench only. */
#ifndef SP_BFS_POLICY_H
#define SP_BFS_POLICY_H

#include <stdint.h>

struct sp_bfs_policy {
    /* threads of every grid kernel: the level kernels, the hub pieces, the loops'
     * grid-wide level and the persistent kernel (a frontier chunk, one ticket, is one
     * vertex per thread) */
    static constexpr int block_threads = 256;
    /* grid cap of the per-level launches: blocks per SM (the kernels stride over the rest) */
    static constexpr int blocks_per_sm = 8;
    /* Degree buckets (Merrill, Garland & Grimshaw 2012). A vertex of degree below
     * warp_degree is expanded by its own thread, below hub_degree by its warp (in the
     * single-block and persistent loops: below their block size); larger ones are cut into
     * pieces of hub_degree edges that a second kernel spreads over the whole grid (one
     * block per piece), so a million-edge hub costs ~1000 block-sized pieces on many SMs
     * instead of a million steps on one thread. Pieces of 1024 edges (4 steps of a block)
     * rather than 4096: the second level of a Kronecker search is a few hubs' pieces, and
     * each step of a piece is a chain of dependent loads and atomics, so shorter pieces on
     * more blocks finish sooner (H200, kron22: see bench/results/h200-bfs.md). In the
     * single-block and persistent loops a warp whose lanes' lists below warp_degree differ
     * (one lane past a batch of edges) walks them as one list instead
     * (bfs::gather_short; bench/results/h100-gather22-2026-11-27.md). */
    static constexpr int warp_degree = 32;
    static constexpr int hub_degree = 1024;
    /* edges per lane in flight per round of the expansion (visit_batch: their loads,
     * claims and records overlap) rather than one chain of dependent loads and atomics per
     * edge (Kronecker 22 on an H200: privatized 30.1 -> 34.1 GTEPS, frontier 23.6 -> 29.4);
     * block_threads * batch = one hub piece of hub_degree edges in one step */
    static constexpr int batch = 4;
    /* privatized: entries per block queue */
    static constexpr int shared_queue = 3072;
    /* pull: in-edges every lane scans first, and at most this many more by the lane
     * before its warp takes the rest */
    static constexpr int pull_probe = 8;
    static constexpr int pull_thread_rest = 24;
    /* the single-block and persistent loops: levels of at least this many vertices read
     * the visited bits before the claiming atomics (bfs_loop_common.cuh, preread_for):
     * above a 4096 x 4096 grid's frontiers, below the large levels of a Kronecker graph
     * (the per-level kernels always read them first) */
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
    /* persistent SOFT: on levels of fewer vertices than this (latency-bound: a 4096 x 4096
     * grid's frontiers are a few thousand), a block that has signalled its chunk done reads
     * the row pointers of the last vertex each thread queued and prefetches its adjacency
     * list into L2 (prefetch.global.L2), while it waits for a later level anyway (the last
     * two cost the SOFT kernel a 24-byte spill at its 40 registers; one does not). A large
     * graph's row pointers and lists are not in L2 (the grid's: 64 + 256 MiB), so the next
     * level's expansion otherwise starts with two dependent DRAM reads (row pointer, then
     * list) on the path from one level to the next. Off the path: the chunk is counted
     * finished first, and the block's next ticket lies levels ahead. Chosen by reasoning,
     * not yet measured (scripts/device-grid22.sh times modes 0, 1, 2). */
    static constexpr int64_t prefetch_max_level = 16384;
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
static_assert(sp_bfs_policy::hub_degree <= 65536,
              "src/bfs.c's SP__BFS_DEGREE_MARGIN bounds a 64-bit graph's degrees by it");

#endif /* SP_BFS_POLICY_H */
