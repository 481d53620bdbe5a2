/* spbench's pieces: argument parsing, timing, the report, printing and JSON. */
#ifndef SPBENCH_UTIL_H
#define SPBENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "sp.h"

#include "spbench_cusparse.h"

#define SB_WARMUP_CALLS 10 /* untimed samples before the timed ones (BENCHMARKING.md) */
/* On a GPU a sample is `calls` back-to-back calls between two CUDA events, divided by
 * calls, so the figure is the time per call of a stream of calls (a solver's), not the
 * latency of one call on an idle GPU: calls = SB_SAMPLE_ENTRIES / nnz, 1..SB_MAX_CALLS. */
#define SB_SAMPLE_ENTRIES 100000000.0
#define SB_MAX_CALLS 100
/* A kernel far slower than its entries suggest (a thread-per-row kernel on a dense row)
 * would make a sample of that many calls take seconds: one call timed first caps the calls
 * so that a sample holds about SB_SAMPLE_MS of work, and the timed samples of a row to
 * about SB_ROW_MS, never below SB_MIN_REPS samples (BENCHMARKING.md). */
#define SB_SAMPLE_MS 5.0
#define SB_ROW_MS 3000.0
#define SB_MIN_REPS 50
#define SB_BASELINE_MIN_SAMPLES 5 /* a baseline's samples a row before SB_ROW_MS stops it */
#define SB_MAX_ROWS 16 /* rows of the per-format table: formats x algorithms, and AUTO */

/* One row of the SpMV table: a format with one algorithm (or AUTO). speedup[b] is the
 * baseline's median over ours, both measured interleaved in this run (0: n/a). */
typedef struct sb_format_row {
    sp_format_t format; /* SP_FORMAT_AUTO for the AUTO row */
    sp_format_t chosen; /* the format that ran (AUTO's choice) */
    sp_spmv_alg_t alg;
    sp_spmv_alg_t ran_alg; /* the algorithm that ran (AUTO's choice for the AUTO row) */
    char label[32];     /* "csr", "csr/vector", "auto->sell" */
    sp_status_t status;
    char message[512];
    double build_ms;
    double prepare_ms; /* sp_spmv_prepare of the row's (format, alg) after its build: the
                          plan's one-time cost (about 0 where an earlier row made it, and
                          for formats without plans) */
    int64_t bytes;
    double ms_median, ms_min, ms_max; /* per call, over the samples */
    double host_us;                   /* median host time per call inside sp_spmv (GPU) */
    double gflops, gbs, pct_read_bw;
    double max_rel_err; /* < 0: not checked */
    double spmv_equivalents; /* build time / CSR default SpMV time */
    double baseline_ms[SB_BASELINE_COUNT], speedup[SB_BASELINE_COUNT];
    int reps;  /* timed samples */
    int calls; /* calls per sample */
    int value_table;    /* ELL, HYB (or AUTO's choice of them): entries of the ELL's value
                           table, 0: none */
    double table_bytes; /* with a table: the bytes the product reads (table_model) */
} sb_format_row_t;

typedef struct sb_report {
    char input[1024];
    const char *reader;
    char executor[512];
    int on_gpu;
    sp_device_info_t device;
    double load_seconds;
    int64_t file_bytes;
    int64_t nrows, ncols, nnz;
    sp_value_type_t type;
    sp_matrix_info_t info;
    const char *symmetry;
    double read_bw_gbs; /* streaming read measured in this run */
    double working_set_bytes, cache_bytes; /* csr-compulsory bytes; GPU L2 or host LLC */
    const char *baseline_name[SB_BASELINE_COUNT]; /* "cusparse_csr_alg1", ... */
    char baseline_note[SB_BASELINE_COUNT][160];   /* why a baseline is n/a */
    sb_format_row_t rows[SB_MAX_ROWS];
    int nrows_done;
    double gpu_upload_ms; /* GPU: host COO to device, sort and merge */
    /* BFS */
    int bfs_sources;
    double bfs_ms_median, bfs_teps_hmean; /* per sp_bfs call (wall clock), directed edges */
    double bfs_gteps_g500, bfs_gteps_g500_multi, bfs_gteps_g500_kernel; /* per call, amortized
                                             over sp_bfs_multi, kernels alone (0: not run) */
    int64_t bfs_edges_mean;
    int bfs_valid;
    /* GPU: the context allocator's peak bytes in the build and in the run (-1: unknown;
     * spbench.c's device_peak) */
    int64_t peak_device_build, peak_device_run;
} sb_report_t;

/* Where SpMV runs: a host context (wall clock, the baseline is libsp's host CSR), or a
 * CUDA context on gpu's stream (CUDA events, the baselines are cuSPARSE's). */
typedef struct sb_exec {
    sp_context_t *ctx;
    sb_gpu_t *gpu;      /* NULL on the host */
    sb_cusparse_t *cus; /* the current matrix's cuSPARSE baseline, NULL if none */
    double read_bw_gbs;
    sp_device_info_t device;
    char executor[512];
    int64_t long_row_bound; /* --long-row-bound: sp_matrix_options_t.long_row_bound */
    int offset_bits;        /* --offsets: sp_matrix_options_t.offset_bits */
} sb_exec_t;

/* Vectors for SpMV: x (random in [-1, 1), fixed seed), y, and the check's reference in
 * long double with the row sums of |a_ij x_j| that scale its errors. On a GPU d_x and
 * d_y are their device copies, the ones SpMV reads and writes. */
typedef struct sb_vectors {
    const sp_coo_t *coo;
    void *x, *y;
    void *d_x, *d_y;
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
/* A load's progress on a terminal (stderr): start, the loaders' progress callback, end. */
void sb_progress_start(const char *path);
void sb_progress_report(void *user, int64_t bytes_done, int64_t bytes_total);
void sb_progress_end(void);
/* On a terminal, the input a long suite starts (input i of n) and how many are left. */
void sb_suite_status(const char *suite, int i, int n, const char *input);
/* Peak resident set of this process (getrusage ru_maxrss), -1 if unknown. */
int64_t sb_peak_rss_bytes(void);
/* One line on stderr at the end of a stage of the input's way to the device (issue 20's
 * memory model): "progress: WHAT  seconds since the first stage  rss_bytes (now)
 * peak_rss_bytes (the process's peak so far, getrusage)"; with SPBENCH_STAGE_PEAKS=1 the
 * peak of the stage that just ended instead (stage_peak_bytes, Linux's VmHWM reset after
 * each line: the whole run's peak is then lost to getrusage and time -v). */
void sb_stage(const char *what);

int sb_vectors_init(sb_vectors_t *v, const sp_coo_t *coo, int with_reference,
                    const sb_exec_t *ex);
void sb_vectors_free(sb_vectors_t *v, const sb_exec_t *ex);
/* Build format f (timed: host once; GPU median of rebuilds, stream synchronized). */
sp_status_t sb_time_build(const sb_exec_t *ex, sp_matrix_t *A, sp_format_t f, double *ms);
/* Warm-up, then reps timed samples of y = A x, each followed by the baselines' sample. */
sp_status_t sb_time_spmv(const sb_exec_t *ex, sp_matrix_t *A, int reps, const sb_vectors_t *v,
                         sb_format_row_t *row);
/* One more call into a NaN-filled y, compared with the reference (INFINITY on failure). */
double sb_check_spmv(const sb_exec_t *ex, sp_matrix_t *A, const sb_vectors_t *v,
                     const sb_format_row_t *row);
double sb_read_bandwidth(void);

void sb_print_load(const sp_coo_t *coo, sb_report_t *r, int load_only);
/* The executor: a CUDA context on a stream of ours when a GPU is usable, else the host
 * reference; fills ex (read bandwidth measured once here). 0 on success. */
int sb_exec_open(sb_exec_t *ex);
void sb_exec_close(sb_exec_t *ex);
void sb_print_shape(const sp_coo_t *coo, const sp_matrix_t *A, sb_report_t *r);
void sb_print_format_row(sb_format_row_t *row, const sb_report_t *r, int check);
/* row->value_table and row->table_bytes from A's info for the format that ran (ELL, HYB
 * with a value table); zero otherwise. */
void sb_value_table_bytes(const sp_matrix_info_t *info, sb_format_row_t *row);
/* The fastest successful row of format f (SP_FORMAT_AUTO: the AUTO row; SP_FORMAT_COUNT:
 * any row but AUTO); NULL if none. */
const sb_format_row_t *sb_best_row(const sb_report_t *r, sp_format_t f);
/* JSON object of one report (no trailing newline), and a file holding one. */
void sb_json_report(FILE *f, const sb_report_t *r);
void sb_json_string(FILE *f, const char *s);
int sb_write_json(const char *path, const sb_report_t *r);

/* --suite (spbench_suite.c): the benchmark set, one generator spec or file each. */
typedef struct sb_suite_input {
    char gen[64];    /* --gen spec, or "" for a file */
    char path[1024]; /* Matrix Market file, or "" */
} sb_suite_input_t;
/* The sets of --suite: the full set, its quick subset, and the wider set of --suite-wide
 * (shapes nobody tuned on, float and double, and every file of the datasets). */
typedef enum sb_suite_set { SB_SUITE_FULL, SB_SUITE_QUICK, SB_SUITE_WIDE } sb_suite_set_t;
/* The inputs of a set; *list is malloc'ed. 0 on success. */
int sb_suite_inputs(sb_suite_set_t set, sb_suite_input_t **list, int *n);
/* A --gen spec of sp_gen_shape (powerlaw, denselines, rect, banded, blocks, circuit; see
 * spbench --help): 1 if spec names none of them, else 0 with *st the generator's status. */
int sb_gen_shape_spec(const char *spec, uint64_t seed, sp_value_type_t type, sp_coo_t **coo,
                      sp_status_t *st);
/* nrows x ncols, per_row entries per row in uniformly random columns (fixed seed),
 * values in [-1, 1): x far larger than any cache when ncols is large. */
sp_status_t sb_gen_random_columns(int64_t nrows, int64_t ncols, int per_row, uint64_t seed,
                                  sp_value_type_t type, sp_coo_t **coo);
/* A short name for a report's input (generator spec or file name without folder). */
const char *sb_short_name(const sb_report_t *r);
/* One row per matrix, and the geometric mean of AUTO's speedup. */
void sb_print_summary(const sb_report_t *reports, int n);
int sb_write_suite_json(const char *path, const sb_report_t *reports, int n);
/* spbench_plot.c: bars of each format's speedup over the baseline, one group per matrix. */
int sb_write_plot_svg(const char *path, const sb_report_t *reports, int n);

/* BFS: spbench_bfs.h */

#endif /* SPBENCH_UTIL_H */
