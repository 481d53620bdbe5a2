/* The GPU sparse triangular solve's C-callable entry points (kernels/solve/). Internal:
 * used by src/, the GPU test suites and bench/. Conventions as in sp_kernels.h. */
#ifndef SP_KERNELS_SOLVE_H
#define SP_KERNELS_SOLVE_H

#include "sp_cg_fused.h"
#include "sp_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sp_gpu_sptrsv_alg {
    SP_GPU_SPTRSV_LEVELS = 1, /* level scheduling: one launch per level */
    SP_GPU_SPTRSV_SOFT = 2,   /* one kernel, rows by atomic ticket, waits on ready flags */
    SP_GPU_SPTRSV_SOFT_NATURAL = 3, /* SOFT always in the natural row order (never the level
                                       order), for benchmarks comparing the two orders */
    SP_GPU_SPTRSV_SOFT_VALUE = 4,   /* SOFT with x as its own ready flag (one load per
                                       dependency), a warp's 32 rows handing over in-warp */
    SP_GPU_SPTRSV_SOFT_BLOCK = 5,   /* SOFT_VALUE with a block's 256 consecutive rows per
                                       ticket, handing over through shared memory */
    SP_GPU_SPTRSV_WAVE = 6,         /* one kernel, units of 32 rows (or a row per warp) of
                                       one level by atomic ticket in the level order; a unit
                                       waits once, on the previous level's counter of
                                       finished units */
    SP_GPU_SPTRSV_SMALL = 7         /* one block, level after level, x in shared memory: n
                                       values of the type at most SP_GPU_SPTRSV_SMALL_MAX_BYTES
                                       (else SP_STATUS_NOT_SUPPORTED) */
} sp_gpu_sptrsv_alg_t;

/* The most x bytes (n * value size) SP_GPU_SPTRSV_SMALL takes. */
#define SP_GPU_SPTRSV_SMALL_MAX_BYTES (96 * 1024)

/* The analysis of one triangle of one matrix for one algorithm (levels, ready-flag
 * storage, ...), made once and reused by every solve. Opaque; kernels/solve/ defines it. */
typedef struct sp_gpu_sptrsv_plan sp_gpu_sptrsv_plan_t;

/* Analyses the triangle of the square device CSR a (sorted columns, no duplicates, as
 * libsp builds it; row pointers 32-bit, ptr, or 64-bit, ptr64: the plan keeps the width
 * and its solves take a CSR of the same width) that the solve uses: upper == 0 takes the entries with col <= row,
 * upper != 0 those with col >= row; entries of the other triangle are ignored, so a full
 * matrix A gives D+L or D+U without a copy. unit_diag != 0 takes the diagonal as 1 and
 * ignores stored diagonal entries; otherwise a row without a non-zero stored diagonal is
 * refused with SP_STATUS_INVALID_ARGUMENT naming the row. *plan is allocated (host struct
 * through sp__malloc, device parts through env); on failure nothing is left allocated. */
sp_status_t sp__gpu_sptrsv_analyse(const sp_gpu_env_t *env, const sp_csr_t *a, int upper,
                                   int unit_diag, sp_gpu_sptrsv_alg_t alg,
                                   sp_gpu_sptrsv_plan_t **plan);

/* Whether a triangle of n rows and nlevels levels wants the level-scheduling plan too
 * (arg: the caller's, e.g. its policy). */
typedef int (*sp_gpu_sptrsv_levels_wanted_t)(const void *arg, int64_t n, int64_t nlevels);

/* As sp__gpu_sptrsv_analyse for alg, and where wanted(arg, n, nlevels) says so once the
 * levels are counted (wanted NULL: never), *levels_plan = the SP_GPU_SPTRSV_LEVELS plan of
 * the same triangle made from the same level pass, with its own copy of every array; else
 * *levels_plan = NULL (also when alg is LEVELS). For AUTO, which learns whether a triangle
 * suits level scheduling only from the soft plan's level count: one analysis instead of
 * two. On failure neither plan is left allocated and *plan, *levels_plan are untouched. */
sp_status_t sp__gpu_sptrsv_analyse_both(const sp_gpu_env_t *env, const sp_csr_t *a, int upper,
                                        int unit_diag, sp_gpu_sptrsv_alg_t alg,
                                        sp_gpu_sptrsv_levels_wanted_t wanted, const void *arg,
                                        sp_gpu_sptrsv_plan_t **plan,
                                        sp_gpu_sptrsv_plan_t **levels_plan);

/* x = alpha * T^-1 b with T the analysed triangle of a (a must be the matrix analysed).
 * alpha is a host scalar of a->value_type; d_b and d_x hold n values of a->value_type and
 * must not overlap. Float accumulates in float, double in double. */
sp_status_t sp__gpu_sptrsv_solve(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                                 const sp_csr_t *a, const void *alpha, const void *d_b,
                                 void *d_x);

/* Number of dependency levels of the analysed triangle (1 for a diagonal matrix). */
int64_t sp__gpu_sptrsv_plan_levels(const sp_gpu_sptrsv_plan_t *plan);

/* The dependencies the plan's level-merged triangle substituted, over all its rows
 * (SOFT_VALUE and SOFT_BLOCK in the level order, sptrsv_merge.cu); 0: the solve reads the
 * CSR. */
int64_t sp__gpu_sptrsv_plan_merged(const sp_gpu_sptrsv_plan_t *plan);

/* Frees a plan (NULL accepted). */
void sp__gpu_sptrsv_plan_free(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan);

/* ---- the analysis's phases, timed (a measurement hook for bench/sptrsv_bench) ----------
 * Off by default, and then it costs one branch per phase. While on, every
 * sp__gpu_sptrsv_analyse (the public sp_sptrsv_analyse and first solve included) records
 * a CUDA event on env's stream and the host clock at the end of each phase, synchronizes
 * the stream once at its end and appends its phases to a process-wide record (at most
 * SP_GPU_SPTRSV_PHASES_MAX, later ones dropped). Not thread-safe: for one measuring
 * thread. Phases, in order: setup (plan, device arrays, memsets), bound (the triangle's
 * row bounds and the diagonal check), level_pass, readback (the scalars: one stream
 * synchronization), group_by_level (histogram, scan, radix sort and the level offsets'
 * read-back: LEVELS, ordered SOFT, WAVE, SMALL), prepare (the kernel's own part: rank,
 * flags, grid; units for WAVE), merge (SOFT_VALUE and SOFT_BLOCK: the level-merged
 * triangle, where made), levels_plan (sp__gpu_sptrsv_analyse_both's second plan,
 * where made), release (the analysis's temporaries freed). */
#define SP_GPU_SPTRSV_PHASES_MAX 32
typedef struct sp_gpu_sptrsv_phase {
    const char *name; /* static string */
    int analysis;     /* 0 for the first analysis since the record was reset, 1 ... */
    double gpu_ms;    /* stream time from the previous phase's end to this one's (events) */
    double host_ms;   /* host time in the phase: launches, host calls, synchronizations */
} sp_gpu_sptrsv_phase_t;

/* on != 0: record the phases of the analyses that follow; 0: stop. Either empties the
 * record. */
void sp__gpu_sptrsv_phase_timing(int on);

/* Benchmark hook: the value-as-flag lane-per-row solves' longest sleep between polls
 * (backoff_max_ns; 0: no sleep; negative: the default) and the level-order grid's floor of
 * warps an SM (warps_per_sm; 0 or less: the default). Plans made after the call use it. */
void sp__gpu_sptrsv_set_value_tuning(int warps_per_sm, int backoff_max_ns);

/* Test and benchmark hook for value-as-flag plans made after the call (sptrsv_merge.cu): 0,
 * never level-merged; 1, merged wherever the plan qualifies, whatever its row count; any
 * other value restores the default (merged where the plan qualifies and has at least
 * sptrsv::policy::merge_min_rows rows). */
void sp__gpu_sptrsv_set_merge(int mode);

/* Test hook: the level pass takes units (1, 2, 4 or 8) units of 32 rows a ticket; any
 * other value restores the choice (the fewest that put every unit in flight at once). */
void sp__gpu_sptrsv_set_level_units(int units);

/* Copies up to max recorded phases into out (out may be NULL when max is 0); returns how
 * many are recorded. A phase whose event failed has gpu_ms < 0. */
int sp__gpu_sptrsv_phases(sp_gpu_sptrsv_phase_t *out, int max);

/* ---- the fused Krylov iterations (kernels/solve/cg_fused.cu; src/core/sp_cg_fused.h) -- */

/* Benchmark hook: the classic CG's ELL spmv step built for at least blocks (1: no cap, 5,
 * 6 or 8) resident blocks an SM; any other value restores the default (4: 64 registers). */
void sp__gpu_cg_set_spmv_min_blocks(int blocks);

/* Queues step `step` (0 .. sp__cg_steps - 1; the last is the update step) of the method
 * that h_args describes, on the block d_blk (context memory; h_args: a host copy of its
 * args, read for the launch shape only). A step whose state's verdict is set does nothing. */
sp_status_t sp__gpu_cg_step(const sp_gpu_env_t *env, sp_cg_block_t *d_blk,
                            const sp_cg_args_t *h_args, int step);

/* The iteration loop on the device: a CUDA graph whose while node repeats the steps
 * until the verdict is set or check_every iterations more are done (CUDA 12.4+: else
 * SP_STATUS_NOT_SUPPORTED). Made once per block; every launch runs the block's state on. */
typedef struct sp_gpu_cg_loop {
    void *graph, *exec;
} sp_gpu_cg_loop_t;

sp_status_t sp__gpu_cg_loop_create(const sp_gpu_env_t *env, sp_cg_block_t *d_blk,
                                   const sp_cg_args_t *h_args, sp_gpu_cg_loop_t *loop);
/* Queues one launch of the loop on env's stream. */
sp_status_t sp__gpu_cg_loop_run(const sp_gpu_env_t *env, const sp_gpu_cg_loop_t *loop);
/* Accepts NULL and an empty loop. */
void sp__gpu_cg_loop_free(sp_gpu_cg_loop_t *loop);

#ifdef __cplusplus
}
#endif

#endif /* SP_KERNELS_SOLVE_H */
