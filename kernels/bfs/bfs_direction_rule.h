/* Beamer's direction rule for direction-optimized BFS (Beamer, Asanovic & Patterson,
 * SC'12), with the pull's scan of unvisited vertices priced, in one place for the host level
 * loop (src/bfs_cuda.c), the graph level loop that decides on the GPU
 * (kernels/bfs/bfs_graph_loop.cu) and the distributed search (src/dist/dist_bfs.c). C and
 * CUDA. */
#ifndef SP_BFS_DIRECTION_RULE_H
#define SP_BFS_DIRECTION_RULE_H

#include <stdint.h>

#ifdef __CUDACC__
#define SP_BFS_RULE_QUALIFIERS __host__ __device__ static inline
#else
#define SP_BFS_RULE_QUALIFIERS static inline
#endif

/* The direction of the step after one in direction pull (0: push, 1: pull).
 * From push: pull once the frontier's out-edges m_f exceed the pull's items over alpha,
 * (m_u + w * n_u) / alpha. Beamer's rule counts m_u, the in-edges of the unvisited
 * vertices, which a pull tests until each finds a parent; w * n_u adds the n_u unvisited
 * vertices themselves, whose offsets and status the pull reads whether they have edges or
 * not (w = 1: a vertex costs about what one of its in-edges does; w = 0: Beamer's rule).
 * Late in a search of a graph with many isolated vertices (Kronecker: 47% of Kronecker 24)
 * the unvisited vertices have almost no edges left, m_u is small, and Beamer's rule pulls
 * from a frontier of a thousand vertices at the price of a scan of every vertex: on an H100
 * 0.151 ms for such a level of Kronecker 24, where the push after it took 0.016
 * (bench/results/h100-sort-2026-11-26.md).
 * From pull: stay while the frontier (n_f vertices) grows or holds more than n / beta. */
SP_BFS_RULE_QUALIFIERS int sp_bfs_rule_next(int pull, int64_t m_f, int64_t m_u, int64_t n_u,
                                            int64_t n_f, int64_t n_f_prev, int64_t n,
                                            double alpha, double beta, double w)
{
    if (!pull) return (double)m_f > ((double)m_u + w * (double)n_u) / alpha;
    return n_f >= n_f_prev || (double)n_f > (double)n / beta;
}

#endif /* SP_BFS_DIRECTION_RULE_H */
