/* spbench's pieces: argument parsing, timing, the report, printing and JSON. */
#ifndef SPBENCH_UTIL_H
#define SPBENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "sp.h"

typedef struct sb_format_row {
    sp_format_t format;
    sp_status_t status;
    char message[512];
    double build_ms;
    int64_t bytes;
    double ms_median, ms_min, ms_max;
    double gflops, gbs, pct_read_bw;
    double max_rel_err; /* < 0: not checked */
    double spmv_equivalents; /* build time / CSR SpMV time */
    int reps;
} sb_format_row_t;

typedef struct sb_report {
    const char *input, *reader;
    char executor[512];
    double load_seconds;
    int64_t file_bytes;
    int64_t nrows, ncols, nnz;
    sp_value_type_t type;
    sp_matrix_info_t info;
    const char *symmetry;
    double read_bw_gbs; /* streaming read measured in this run */
    sb_format_row_t rows[SP_FORMAT_COUNT];
    int nrows_done;
    /* GPU builds: upload + sort-merge, then each format (ms, median of the rebuilds) */
    int gpu_done;
    double gpu_upload_ms, gpu_build_ms[SP_FORMAT_COUNT];
    int64_t gpu_bytes[SP_FORMAT_COUNT];
    sp_status_t gpu_status[SP_FORMAT_COUNT];
    /* BFS */
    int bfs_sources;
    double bfs_ms_median, bfs_teps_hmean;
    int64_t bfs_edges_mean;
    int bfs_valid;
} sb_report_t;

/* Vectors for SpMV: x (random in [-1, 1), fixed seed), y, and the check's reference in
 * long double with the row sums of |a_ij x_j| that scale its errors. */
typedef struct sb_vectors {
    const sp_coo_t *coo;
    void *x, *y;
    double *yref, *absref;
} sb_vectors_t;

/* splitmix64: the fixed-seed stream for x and BFS sources. */
uint64_t sb_splitmix(uint64_t *state);

int sb_parse_u64(const char *s, uint64_t *out);
int sb_parse_int(const char *s, int lo, int hi, int *out);
int sb_bad_value(const char *option, const char *value);
const char *sb_reader_for_path(const char *path);
double sb_now(void);
int64_t sb_file_size(const char *path);
void sb_progress_start(const char *path);
void sb_progress_end(void);

int sb_vectors_init(sb_vectors_t *v, const sp_coo_t *coo, int with_reference);
void sb_vectors_free(sb_vectors_t *v);
sp_status_t sb_time_spmv(sp_context_t *ctx, sp_matrix_t *A, sp_format_t f, int reps,
                         const sb_vectors_t *v, sb_format_row_t *row);
double sb_max_rel_err(const sb_vectors_t *v, sp_value_type_t type);
double sb_read_bandwidth(void);

void sb_print_load(const sp_coo_t *coo, sb_report_t *r, int load_only);
/* A CUDA context when a GPU is usable (NULL otherwise); prints the executor line. */
sp_context_t *sb_open_gpu(sb_report_t *r);
/* Upload, sort and build every format on the GPU, timed; prints gpu_build lines. */
int sb_gpu_builds(sp_context_t *gpu, const sp_coo_t *coo, sb_report_t *r);
void sb_print_shape(const sp_coo_t *coo, const sp_matrix_t *A, sb_report_t *r);
void sb_print_format_row(sb_format_row_t *row, const sb_report_t *r, int check);
int sb_write_json(const char *path, const sb_report_t *r);

int sb_run_bfs(sp_context_t *ctx, sp_matrix_t *A, int64_t source, int nsources,
               uint64_t seed, sb_report_t *r);

#endif /* SPBENCH_UTIL_H */
