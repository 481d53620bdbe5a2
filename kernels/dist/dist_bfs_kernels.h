/* The distributed BFS's device kernels (kernels/dist/): one rank's share of a level of
 * src/dist/dist_bfs.c on its GPU. Internal: used by src/dist/dist_bfs_cuda.c. Conventions
 * as in sp_kernels.h: d_ pointers are device memory, work is queued on env->stream,
 * nothing allocates, synchronizes or prints; a failed launch returns
 * SP_STATUS_DEVICE_ERROR with CUDA's text.
 *
 * A rank owns the vertices [rb, rb + nloc) (its rows); vertex ids in the graph arrays and
 * in the exchanged pairs are global, those of the frontier queues local (v - rb). Claiming
 * a vertex (first writer wins, by an atomicOr on its visited bit) sets its level and
 * parent, appends it to d_next and adds 1 and its out-degree to d_counters[0] and [1]. */
#ifndef SP_DIST_BFS_KERNELS_H
#define SP_DIST_BFS_KERNELS_H

#include "sp_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_gpu_dist_bfs {
    int nranks, rank;
    int route_own;                  /* 1: own targets go through the queues too (tests) */
    int64_t nloc, rb;               /* the owned vertices */
    const int64_t *d_row_begin;     /* nranks + 1: the split (owner lookups) */
    const int64_t *d_out_ptr;       /* nloc + 1 */
    const int32_t *d_out_idx;       /* out-edges of the owned vertices, global targets */
    const int64_t *d_in_ptr;        /* nloc + 1 */
    const int32_t *d_in_idx;        /* in-edges of the owned vertices, global sources */
    int32_t *d_level, *d_parent;    /* nloc each: -1 until claimed; parents global */
    unsigned long long *d_visited;  /* ceil(nloc / 64) words */
    int32_t *d_cur, *d_next;        /* frontier queues, nloc local ids each */
    unsigned long long *d_counters; /* [0] vertices claimed, [1] their out-degrees */
} sp_gpu_dist_bfs_t;

/* A new search: levels and parents -1, nothing visited, counters 0; then, when
 * source_local >= 0, the source claimed at level 0 with itself as parent. */
sp_status_t sp__gpu_dist_bfs_start(const sp_gpu_env_t *env, const sp_gpu_dist_bfs_t *b,
                                   int64_t source_local);

/* d_off[f] = out-degree of d_cur[f] for f < ncur, d_off[ncur] = 0: scanned in place
 * (exclusive) by the caller, it gives each frontier vertex's first edge among the level's
 * edges and their total. */
sp_status_t sp__gpu_dist_bfs_degrees(const sp_gpu_env_t *env, const sp_gpu_dist_bfs_t *b,
                                     int64_t ncur, int64_t *d_off);

/* Top-down, first pass over the m edges of the frontier (d_off: the scanned degrees):
 * a target owned here is claimed at level depth + 1 (unless route_own); the others are
 * counted by owner into d_scount (nranks words, overwritten). */
sp_status_t sp__gpu_dist_bfs_push_count(const sp_gpu_env_t *env, const sp_gpu_dist_bfs_t *b,
                                        int64_t ncur, const int64_t *d_off, int64_t m,
                                        int64_t depth, unsigned long long *d_scount);
/* Second pass over the same edges: each target counted above is written as the pair
 * (target, its parent: the frontier vertex, global ids) at d_pairs[2 * d_cursor[owner]++]
 * (d_cursor: nranks words, each destination's first slot; order within a destination
 * unspecified). */
sp_status_t sp__gpu_dist_bfs_push_scatter(const sp_gpu_env_t *env, const sp_gpu_dist_bfs_t *b,
                                          int64_t ncur, const int64_t *d_off, int64_t m,
                                          unsigned long long *d_cursor, int32_t *d_pairs);
/* The npairs received pairs (targets owned here) claimed at level depth + 1. */
sp_status_t sp__gpu_dist_bfs_push_receive(const sp_gpu_env_t *env, const sp_gpu_dist_bfs_t *b,
                                          const int32_t *d_pairs, int64_t npairs,
                                          int64_t depth);

/* Bottom-up. d_mine[0..words) = the bitmap of the frontier d_cur[0..ncur) (bit i: local
 * vertex i; words >= ceil(nloc / 64)). */
sp_status_t sp__gpu_dist_bfs_frontier_bitmap(const sp_gpu_env_t *env,
                                             const sp_gpu_dist_bfs_t *b, int64_t ncur,
                                             unsigned long long *d_mine, int64_t words);
/* Each unvisited owned vertex scans its in-edges and claims itself at level depth + 1
 * with the first source in the global frontier (d_all: nranks slices of words words, rank
 * p's bit i for vertex row_begin[p] + i) as parent. */
sp_status_t sp__gpu_dist_bfs_pull(const sp_gpu_env_t *env, const sp_gpu_dist_bfs_t *b,
                                  const unsigned long long *d_all, int64_t words,
                                  int64_t depth);

#ifdef __cplusplus
}
#endif

#endif /* SP_DIST_BFS_KERNELS_H */
