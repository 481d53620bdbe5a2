/* spbench's BFS table (spbench_bfs.c) and the --bfs-suite (spbench_bfs_suite.c). */
#ifndef SPBENCH_BFS_H
#define SPBENCH_BFS_H

#include "spbench_util.h"

#define SB_BFS_WARMUP 10 /* untimed calls per combination before the timed ones */
#define SB_BFS_WARMUP_MIN 2 /* ... but only this many once they have taken: */
#define SB_BFS_WARMUP_SECONDS 1.0
#define SB_BFS_LEVEL_LINES 24 /* --bfs-levels: levels listed before the last */

typedef struct sb_bfs_request {
    int64_t source;      /* >= 0: only this source */
    int nsources;        /* else this many of non-zero degree from seed */
    uint64_t seed;
    int check;           /* also compare levels with the reference */
    const char *variant; /* NULL: all; else a sp_bfs_variant_name */
    const char *loop;    /* NULL: all; else a sp_bfs_loop_name or "persistent_coop" */
    int undirected;      /* graph is symmetric: 1, 0, or -1 to find out */
    int validate_all;    /* validate every search, else the first validate_first ones */
    int validate_first;
    int levels;          /* print each row's per-level table (first source) */
    sb_gpu_t *gpu;       /* the GPU the context runs on (NULL: host context) */
} sb_bfs_request_t;

/* One variant x loop over all sources. */
typedef struct sb_bfs_row {
    sp_bfs_variant_t variant, variant_used;
    sp_bfs_loop_t loop, loop_used;
    int coop;
    sp_status_t status; /* not SUCCESS: n/a, message says why */
    char message[600];
    int sources, validated, valid;
    double ms_mean, ms_hmean, gteps_g500, gteps_directed, levels_mean, us_per_level; /* per call */
    double gteps_g500_kernel;               /* the traversal alone (stats.search_ms) */
    double ms_multi_mean, gteps_g500_multi; /* amortized over sp_bfs_multi (0: not run) */
    int64_t switches;
} sb_bfs_row_t;

enum { SB_BFS_MAX_ROWS = 16 };

const char *sb_bfs_loop_label(sp_bfs_loop_t loop, int coop);
/* Whether every name of a comma-separated list is a variant (loop) name spbench knows. */
int sb_bfs_known_variant(const char *list);
int sb_bfs_known_loop(const char *list);
void sb_print_bfs_header(void);
void sb_print_bfs_row(const char *graph, const sb_bfs_row_t *row);
/* Every selected combination on A from the request's sources, a row each (printed as it
 * completes); 0 when every search that ran was valid. */
int sb_bfs_table(sp_context_t *ctx, sp_matrix_t *A, const sb_bfs_request_t *q,
                 const char *graph, sb_bfs_row_t *rows, int *nrows);
/* Rows ra and rb of a table again, their calls interleaved (the side that goes first
 * alternating call by call) over the request's sources, `rounds` times, after warm-up:
 * the mean per-call time of each (stats.time_ms) in *ms_a, *ms_b. ra runs on A, rb on B
 * (B may be A): a matrix keeps one search's cache, so two configurations that would
 * replace each other's scratch on every call run on two handles of the same graph. A drift
 * of the machine between two rows of the table moves both sides alike here. 0 on success. */
int sb_bfs_interleaved(sp_context_t *ctx, sp_matrix_t *A, sp_matrix_t *B,
                       const sb_bfs_request_t *q, const sb_bfs_row_t *ra,
                       const sb_bfs_row_t *rb, int rounds, double *ms_a, double *ms_b);
/* spbench --bfs on one input: the table and the summary lines; 0 when valid. */
int sb_run_bfs(sp_context_t *ctx, sp_matrix_t *A, const sb_bfs_request_t *q, sb_report_t *r);
/* spbench --bfs-suite: the benchmark graphs, a table row per graph x variant x loop. */
int sb_run_bfs_suite(sp_context_t *ctx, const sb_bfs_request_t *q);

#endif /* SPBENCH_BFS_H */
