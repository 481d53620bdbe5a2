/* Beamer's direction rule for direction-optimized BFS (Beamer, Asanovic & Patterson,
 * SC'12), in one place for the host level loop (src/bfs_policy.c) and the graph level loop
 * that decides on the GPU (kernels/bfs/bfs_graph_loop.cu). C and CUDA. */
#ifndef SP_BFS_DIRECTION_RULE_H
#define SP_BFS_DIRECTION_RULE_H

#include <stdint.h>

#ifdef __CUDACC__
#define SP_BFS_RULE_QUALIFIERS __host__ __device__ static inline
#else
#define SP_BFS_RULE_QUALIFIERS static inline
#endif

/* The direction of the step after one in direction pull (0: push, 1: pull): a push turns
 * to pull once the frontier's out-edges m_f exceed the unvisited vertices' m_u / alpha; a
 * pull stays while the frontier (n_f vertices) grows or holds more than n / beta vertices. */
SP_BFS_RULE_QUALIFIERS int sp_bfs_rule_next(int pull, int64_t m_f, int64_t m_u, int64_t n_f,
                                            int64_t n_f_prev, int64_t n, double alpha,
                                            double beta)
{
    if (!pull) return (double)m_f > (double)m_u / alpha;
    return n_f >= n_f_prev || (double)n_f > (double)n / beta;
}

#endif /* SP_BFS_DIRECTION_RULE_H */
