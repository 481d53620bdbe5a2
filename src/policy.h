/* The policy module: every AUTO decision of libsp and the thresholds it uses, in one place
 * (src/policy.c). Like CUB's tuning files, each algorithm has one tuning struct, and a
 * table gives a row of them per GPU architecture (SM version = compute capability major *
 * 10 + minor); an architecture without a row, and a host context, get the sm_90 row, the
 * one every constant was measured on (H100 and H200). The kernel layer never decides: it
 * receives the resolved algorithm and its parameters from here. The rules are functions of
 * the row statistics a matrix keeps on the host (sp_matrix_t.row_max, row_mean), so they
 * are pinned by host tests (tests/check_api.c, tests/check_bfs_api.c). */
#ifndef SP_POLICY_H
#define SP_POLICY_H

#include "sp_api.h"

/* The kernels the SpMV cost model prices (SP_FORMAT_AUTO, sp_spmv_choose_format). */
typedef enum sp__spmv_kind {
    SP__KIND_CSR_SCALAR,
    SP__KIND_CSR_VECTOR,
    SP__KIND_CSR_BINNED,
    SP__KIND_CSR_ADAPTIVE,
    SP__KIND_ELL,
    SP__KIND_SELL,
    SP__KIND_JDS,
    SP__KIND_TAIL, /* the long-row tail of ELL/JDS/SELL (COO, atomic accumulate) */
    SP__KIND_COUNT
} sp__spmv_kind_t;

/* SP_FORMAT_AUTO: a cost model (src/policy.c says how each constant was measured). A
 * kernel's modeled time is launches * launch_us + max(bytes / (bandwidth * eff), chain)
 * (+ what runs after it: a second launch, the tail, the finish of a row of several
 * pieces), where eff blends eff_near and eff_far by the fraction of entries near the
 * diagonal, bandwidth is l2_gbs for bytes within the L2 and read_gbs past it, bytes count
 * the sectors gathers of an x past the L2 miss, and chain = step_us x the dependent steps
 * of the slowest thread or warp past its launch's first x the waves of resident threads
 * the rows need. */
typedef struct sp__spmv_format_policy {
    double read_gbs;           /* streaming read bandwidth, GB/s */
    double launch_us;          /* one launch of a call */
    double step_us;            /* one dependent step: a batch of loads, then the gathers */
    int threads_per_sm;        /* resident threads of an SM */
    int default_sms;           /* SMs assumed for a host context */
    double eff_near[SP__KIND_COUNT]; /* fraction of read_gbs, gathers near the diagonal */
    double eff_far[SP__KIND_COUNT];  /* the same, gathers spread over x */
    double fence_us;           /* a row of several pieces finished by its last piece */
    double l2_bytes;           /* the L2: gathers of an x larger than it miss */
    double l2_gbs;             /* read bandwidth of a working set within the L2, GB/s */
    double sector_bytes;       /* what a missed gather brings from DRAM */
    double padded_margin;      /* ELL/SELL/JDS must model this fraction faster than CSR */
    double long_row_factor, long_row_slack; /* the tail: rows > factor * mean + slack */
    double ell_long_row_factor;             /* ELL's tail also takes rows > this * mean */
} sp__spmv_format_policy_t;

/* The matrix statistics the model reads (sp__spmv_stats_of fills them from a matrix). */
typedef struct sp__spmv_stats {
    int64_t nrows, ncols, nnz, row_max;
    double row_mean, row_stddev;
    double col_near;             /* sp__coo_col_near */
    const int64_t *hist, *hist_nnz; /* SP_ROW_HIST_BINS each (sp_matrix_t.row_hist) or NULL */
    int value_bytes;
    int sm_count;                /* 0: the policy's default_sms */
    int64_t long_row_bound;      /* JDS, SELL (INT64_MAX: no tail) */
    int64_t row_max_kept;        /* the longest row within it (0: min(row_max, bound)) */
    int64_t ell_long_row_bound, ell_row_max_kept; /* the same for ELL (0: as JDS, SELL) */
    int offset_bits;             /* 32 or 64 (issue 20) */
    /* 64-bit offsets past the narrow limit (below it the narrowed pointers serve every
     * format and algorithm as at 32 bits): every format serves the matrix there, but of
     * CSR's algorithms only scalar and vector, and AUTO keeps to CSR scalar and vector and,
     * where ell_wide is set (no row for ELL's tail), ELL: the choices measured at that size
     * (issue 20; ELL with a tail, HYB, JDS and SELL past it are served by name and by
     * sp_spmv_tune, not yet priced for AUTO) */
    int wide, ell_wide;
} sp__spmv_stats_t;

/* The candidates the model prices one by one (each CSR algorithm apart), for the choice's
 * per-candidate table (bench/spmv_model_replay.c prints it beside the measured times). */
typedef enum sp__spmv_cand {
    SP__CAND_CSR_SCALAR,
    SP__CAND_CSR_VECTOR,
    SP__CAND_CSR_MERGE,
    SP__CAND_CSR_BINNED,
    SP__CAND_CSR_ADAPTIVE,
    SP__CAND_ELL,
    SP__CAND_SELL,
    SP__CAND_JDS,
    SP__CAND_COO_ATOMIC,
    SP__CAND_COUNT
} sp__spmv_cand_t;

/* What AUTO picks, and the model's time of each candidate (microseconds; < 0 when not a
 * candidate): us indexed by sp_format_t (ELL, JDS, SELL, COO atomic, and CSR's best
 * algorithm), cand by sp__spmv_cand_t, with the bytes each was priced at. */
typedef struct sp__spmv_choice {
    sp_format_t format;
    sp_spmv_alg_t alg; /* CSR, COO: the algorithm; else SP_SPMV_ALG_DEFAULT */
    sp_spmv_alg_t csr_alg; /* CSR's best algorithm, whichever format won */
    double us[SP_FORMAT_COUNT];
    double cand[SP__CAND_COUNT], cand_bytes[SP__CAND_COUNT];
} sp__spmv_choice_t;

/* CSR with SP_SPMV_ALG_DEFAULT, and the sub-warp width of CSR vector. */
typedef struct sp__spmv_csr_policy {
    double regular_factor, regular_slack; /* regular: longest <= factor * mean + slack */
    double scalar_max_mean;               /* regular rows: scalar up to this mean, else vector */
    double merge_min_rows_per_entry;      /* irregular: merge when nrows > this * nnz */
    sp_spmv_alg_t irregular_alg;          /* irregular rows otherwise */
    int vector_min_width, vector_max_width;
} sp__spmv_csr_policy_t;

/* SP_BFS_AUTO / SP_BFS_LOOP_AUTO on a CUDA context, and the direction rule's defaults. */
typedef struct sp__bfs_policy {
    int64_t dense_min_nnz;       /* dense: mean >= dense_min_mean with >= this many entries */
    double dense_min_mean;
    int64_t dense_small_min_n;   /* or mean >= dense_small_min_mean from this many vertices */
    double dense_small_min_mean;
    int64_t hub_min_row;         /* a row this long makes direction-optimized worth it */
    double hub_mean_factor, hub_slack; /* a hub: longest row > factor * mean + slack */
    int64_t host_loop_min_nnz;   /* direction-optimized on the host loop from here */
    int64_t host_loop_nohub_min_nnz; /* and from here when there is no hub */
    int64_t single_block_min_n, single_block_max_n;
    double alpha, beta;          /* Beamer's rule when sp_bfs_options_t leaves them 0 */
    double pull_vertex_weight;   /* a pull's unvisited vertex in edges (bfs_direction_rule.h) */
} sp__bfs_policy_t;

/* SP_SPTRSV_ALG_AUTO and the kernel behind SP_SPTRSV_ALG_SOFT_SYNC. */
typedef struct sp__sptrsv_policy {
    int64_t auto_min_levels;         /* AUTO: level scheduling below this many levels */
    int64_t auto_min_rows_per_level; /* or below this many rows per level on average */
    int soft_kernel;                 /* sp_gpu_sptrsv_alg_t behind SOFT_SYNC */
    int64_t small_max_bytes;         /* AUTO: the single-block kernel when x (n values) is at */
    int64_t small_max_nnz;           /* most this many bytes and A at most this many entries */
} sp__sptrsv_policy_t;

/* Defaults of the format builds (sp_matrix_options_t fields left 0). */
typedef struct sp__matrix_policy {
    int64_t ell_bound_factor; /* ELL refused above factor * CSR bytes + slack */
    int64_t ell_bound_slack;
    int sell_c;               /* SELL slice height */
    int sell_sigma_factor;    /* SELL sorting window = this * C */
} sp__matrix_policy_t;

/* One architecture's row of the table. */
typedef struct sp__policy {
    int sm; /* compute capability major * 10 + minor */
    const sp__spmv_format_policy_t *spmv_format;
    const sp__spmv_csr_policy_t *spmv_csr;
    const sp__bfs_policy_t *bfs;
    const sp__sptrsv_policy_t *sptrsv;
    const sp__matrix_policy_t *matrix;
} sp__policy_t;

/* The row for an SM version (the default row when the table has none for it). */
const sp__policy_t *sp__policy_for_sm(int sm);
/* The row for ctx's device (the default row for a host context or NULL). */
const sp__policy_t *sp__policy_for(const sp_context_t *ctx);

/* SP_FORMAT_AUTO for a matrix of these statistics: the cheapest modeled format (and CSR
 * algorithm); CSR unless a padded format models padded_margin faster, or COO atomic
 * faster. */
sp__spmv_choice_t sp__policy_spmv_choose(const sp__policy_t *p, const sp__spmv_stats_t *s);
/* The long-row bound of ELL, JDS and SELL (rows longer go to the tail) for a matrix whose
 * longest row is row_max (0: not known yet; the bound then ignores it) on sm_count SMs (0:
 * the policy's default_sms). */
int64_t sp__policy_long_row_bound(const sp__policy_t *p, sp_format_t f, int64_t nrows,
                                  int64_t nnz, int64_t row_max, int sm_count);
/* The statistics of A as the model takes them (src/spmv_model.c). */
void sp__spmv_stats_of(const sp_context_t *ctx, const sp_matrix_t *A, sp__spmv_stats_t *s);
/* AUTO's format and algorithm for A (sp_spmv_tune's choice when A has one; src/spmv.c). */
void sp__spmv_auto(const sp_context_t *ctx, const sp_matrix_t *A, sp_format_t *format,
                   sp_spmv_alg_t *alg);
/* The same for a solver: a pick of COO atomic, whose sums are added in no fixed order,
 * gives way to CSR with the model's CSR algorithm, so a solve repeats its bits. */
void sp__spmv_auto_solver(const sp_context_t *ctx, const sp_matrix_t *A, sp_format_t *format,
                          sp_spmv_alg_t *alg);
/* The CSR algorithm for alg (DEFAULT resolved from the statistics, others kept) and, for
 * CSR vector, the sub-warp width in *width (0 for the others). */
sp_spmv_alg_t sp__policy_spmv_csr_alg(const sp__policy_t *p, sp_spmv_alg_t alg, int64_t nrows,
                                      int64_t nnz, int64_t row_max, int *width);
/* CSR scalar and vector: the rows longer than this go to warp pieces in a second launch
 * (src/policy.c; -1: none, when no row is longer). option: the matrix's long_row_bound
 * option (> 0 the bound, < 0 none, 0 the policy's). */
int64_t sp__policy_spmv_csr_long_bound(const sp__policy_t *p, int64_t nrows, int64_t nnz,
                                       int64_t row_max, int64_t option);
/* CSC: 1 when the lanes of a step holding one row should add before their atomic (the
 * matrix has a row long enough that its atomics would queue on one address, and no heavy
 * rows: heavy_bound, sp__policy_spmv_csc_heavy_bound's answer, is -1). */
int sp__policy_spmv_csc_aggregate(const sp__policy_t *p, int64_t row_max, int64_t heavy_bound);
/* CSC: 1 when the rows near a chunk's columns should be summed in shared memory first
 * (square matrices, whose diagonal runs through the chunks, of enough entries that the
 * window's flush after each chunk costs less than the reductions it saves, and without
 * heavy rows: heavy_bound, sp__policy_spmv_csc_heavy_bound's answer, is -1). */
int sp__policy_spmv_csc_window(const sp__policy_t *p, int64_t nrows, int64_t ncols,
                               int64_t nnz, int64_t heavy_bound);
/* CSC: the entry count from which a row is heavy, summed a block at a time in shared
 * memory by the kernel (its longest such rows, at most 64), or -1 when no row is. hist:
 * the matrix's row-length histogram (SP_ROW_HIST_BINS bins, sp_matrix_t.row_hist) or
 * NULL; it raises the bound so that at most 4096 rows pass it (the plan's candidates). */
int64_t sp__policy_spmv_csc_heavy_bound(const sp__policy_t *p, int64_t nrows, int64_t nnz,
                                        int64_t row_max, const int64_t *hist);
/* CSC: 1 when the plan should check whether the matrix equals its transpose (square), so
 * that its CSC can run as its CSR. */
int sp__policy_spmv_csc_try_symmetric(const sp__policy_t *p, int64_t nrows, int64_t ncols);
/* The COO algorithm for alg (DEFAULT: segmented). */
sp_spmv_alg_t sp__policy_spmv_coo_alg(sp_spmv_alg_t alg);

/* What SP_BFS_AUTO / SP_BFS_LOOP_AUTO resolve to for G on ctx (either may be NULL: the
 * host rule). */
void sp__bfs_choose(const sp_context_t *ctx, const sp_matrix_t *G, sp_bfs_variant_t *variant,
                    sp_bfs_loop_t *loop);
/* The direction rule (bfs_direction_rule.h) for the step after one in direction cur: from
 * push, pull when the frontier's out-edges m_f exceed (m_u + w * n_u) / alpha (m_u:
 * out-edges of the n_u unvisited vertices); from pull, stay while the frontier grows
 * (n_f >= n_f_prev) or n_f > n / beta. */
sp_bfs_direction_t sp__bfs_next_direction(sp_bfs_direction_t cur, int64_t m_f, int64_t m_u,
                                          int64_t n_u, int64_t n_f, int64_t n_f_prev,
                                          int64_t n, double alpha, double beta, double w);
/* Beamer's rule as published (a pull's vertices not priced: weight 0) while on is set, for
 * the benchmarks' comparison (spbench --bfs-beamer-rule); caches made before keep theirs. */
void sp__bfs_beamer_rule_set(int on);
int sp__bfs_beamer_rule(void);

/* SP_SPTRSV_ALG_AUTO for a triangle of nrows rows in levels dependency levels: 1 when level
 * scheduling should run, 0 for the soft-synchronized kernel. */
int sp__policy_sptrsv_use_levels(const sp__policy_t *p, int64_t nrows, int64_t levels);

/* The loop SP_SOLVER_LOOP_AUTO means for a solver type on a context (policy.c). */
sp_solver_loop_t sp__policy_solver_loop(const sp_context_t *ctx, sp_solver_type_t type);
/* SP_SPTRSV_ALG_AUTO: 1 when the single-block kernel (x in shared memory) should run on a
 * matrix of nrows rows and nnz entries of value_size bytes each (decided before analysis). */
int sp__policy_sptrsv_use_small(const sp__policy_t *p, int64_t nrows, int64_t nnz,
                                size_t value_size);

#endif /* SP_POLICY_H */
