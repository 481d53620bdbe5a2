/* Internal state behind the public handles (contexts, matrices) of the API layer. */
#ifndef SP_API_H
#define SP_API_H

#include "sp.h"
#include "sp_base.h"
#include "sp_ref.h"

enum { SP_CONTEXT_MESSAGE_MAX = 1024, SP_ROW_HIST_BINS = 33 };
/* A bit of sp_matrix_t.built past the formats': the CSR's pointers narrowed to 32 bits are
 * kept (csr_ptr32), so sp__matrix_drop_formats_since drops them as it drops formats. */
#define SP__BUILT_CSR32 (1u << SP_FORMAT_COUNT)

struct sp_context {
    sp_device_kind_t kind;
    sp_device_info_t info;
    void *cuda; /* the CUDA executor's state (src/context_cuda.c), NULL on the host */
    char last_error[SP_CONTEXT_MESSAGE_MAX];
};

/* One of each format; which are set is told by a bit mask (1u << sp_format_t). */
typedef struct sp_format_set {
    sp_triplets_t coo; /* sorted by (row, col), merged */
    sp_csr_t csr, csc;
    sp_ell_t ell;
    sp_hyb_t hyb;
    sp_jds_t jds;
    sp_sell_t sell;
} sp_format_set_t;

/* A matrix and its cache of built formats, in the context's memory (host or device). */
struct sp_matrix {
    sp_context_t *ctx; /* borrowed: the context it was created on */
    sp_matrix_options_t options;
    int offset_bits; /* 32 or 64: the width of CSR and CSC pointers (options.offset_bits
                        resolved, issue 20) */
    int pattern_symmetric; /* (i,j) present iff (j,i): the COO's flags or the option, taken
                              at sp_matrix_create; BFS pulls through the CSR (issue 20) */
    sp_format_set_t f;
    int32_t *csr_ptr32; /* 64-bit offsets: the CSR's pointers narrowed for what reads 32-bit
                           pointers only, in the context's memory (host, or device on a CUDA
                           context: sp__matrix_csr32, SP__BUILT_CSR32), or NULL */
    unsigned built;          /* bit f set when format f is built (and SP__BUILT_CSR32) */
    sp_format_set_t *mirror; /* CUDA: host copies made for sp_matrix_view, else NULL */
    void *gpu_plans;         /* CUDA: SpMV plans per format and algorithm (spmv_cuda.c) */
    void *sptrsv_plans;      /* CUDA: triangular-solve plans of the CSR (sptrsv_cuda.c) */
    struct sp__bfs_cache *bfs_cache; /* what a BFS needs beyond its outputs (bfs.c), or NULL */
    unsigned mirrored;       /* bit f set when mirror holds format f */
    int64_t duplicates_merged;
    int64_t row_min, row_max, empty_rows;
    double row_mean, row_stddev;
    /* rows and entries by row length: bin 0 the empty rows, bin b the rows of
     * 2^(b-1) .. 2^b - 1 entries (the SpMV cost model's input, src/policy.c) */
    int64_t row_hist[SP_ROW_HIST_BINS], row_hist_nnz[SP_ROW_HIST_BINS];
    double col_near; /* fraction of entries near the diagonal (sp__coo_col_near) */
    double upload_ms[5]; /* CUDA: wall-clock ms of the upload's phases (sp__test_upload_phases) */
    /* the longest rows of at most sp__matrix_long_row_bound entries (JDS, SELL; ELL) */
    int64_t row_max_kept, ell_row_max_kept;
    /* sp_spmv_tune's choice, used by SP_FORMAT_AUTO once set (src/spmv_tune.c) */
    int tuned;
    sp_format_t tuned_format;
    sp_spmv_alg_t tuned_alg;
    /* the cost model's pick (sp__spmv_auto, src/spmv.c), once built kept while A's built
     * formats are those it was made with, so AUTO costs a call no model (0.3-0.6 us of
     * host time a call on small matrices); allocated with A, so a const A can keep it;
     * NULL: not kept */
    struct sp__auto_pick *auto_pick;
};
typedef struct sp__auto_pick {
    int valid;
    unsigned built;
    sp_format_t format;
    sp_spmv_alg_t alg;
} sp__auto_pick_t;

/* Record the thread's last error on the context too when status is a failure; returns
 * status. Every public function taking a context ends with it. */
sp_status_t sp__context_record(sp_context_t *ctx, sp_status_t status);

/* CUDA executor (src/context_cuda.c when built with CUDA, else NOT_COMPILED stubs). */
sp_status_t sp__cuda_context_init(sp_context_t *ctx, const sp_context_options_t *options);
void sp__cuda_context_fini(sp_context_t *ctx);
sp_status_t sp__cuda_synchronize(sp_context_t *ctx);
/* sp_context_memory and sp_context_memory_reset_peak on a CUDA context (reset != 0:
 * the reset; out NULL then). src/context_cuda.c. */
sp_status_t sp__cuda_memory(sp_context_t *ctx, int reset, sp_memory_stats_t *out);

/* Live blocks of an allocator whose free has no size, and what they add up to (a CUDA
 * context with allocator hooks; src/size_table.c). Zero-initialised: empty. */
typedef struct sp__size_table {
    void **key;      /* cap slots, NULL: empty */
    size_t *bytes;
    int64_t cap, count;
    int64_t current, peak; /* bytes live now; the most since the last reset (peak = current) */
} sp__size_table_t;
/* Room for blocks live blocks without growing (so an operation's allocations need no host
 * memory for the table until then). SP_STATUS_ALLOC_FAILED, table unchanged, on failure. */
sp_status_t sp__size_table_reserve(sp__size_table_t *t, int64_t blocks);
/* Record ptr's bytes (the same pointer again: replaced). SP_STATUS_ALLOC_FAILED naming the
 * bytes when the table cannot grow; the table is then unchanged. */
sp_status_t sp__size_table_add(sp__size_table_t *t, void *ptr, size_t bytes);
/* Forget ptr (NULL or unknown: nothing). Never allocates. */
void sp__size_table_remove(sp__size_table_t *t, const void *ptr);
void sp__size_table_free(sp__size_table_t *t);

#ifdef SP_HAVE_CUDA
#include "sp_kernels.h"
/* The kernel layer's view of a CUDA context: stream and device memory, the context's
 * device made current. sp__cuda_env also clears CUDA's last error, for code that checks
 * <<<>>> launches with SP_CUDA_LAUNCHED; sp__cuda_env_keep_error leaves it alone, for
 * paths whose every CUDA call returns its own status (the per-call SpMV), so that they
 * make no runtime call besides their launches and one cudaGetDevice. */
void sp__cuda_env(const sp_context_t *ctx, sp_gpu_env_t *env);
void sp__cuda_env_keep_error(const sp_context_t *ctx, sp_gpu_env_t *env);
#endif

/* The CUDA side of matrices (src/matrix_cuda.c): upload and sort-merge a host COO, build a
 * format on the GPU, free one, and copy one to the host mirror. */
sp_status_t sp__cuda_matrix_upload(sp_matrix_t *A, const sp_coo_t *coo, int32_t **h_row_counts);
/* ELL, JDS and SELL keep the rows longer than long_bound in their tail (sp_formats.h). */
sp_status_t sp__cuda_matrix_build(sp_matrix_t *A, sp_format_t format, int sell_c, int sell_sigma,
                                  int64_t long_bound);
void sp__cuda_matrix_free_format(sp_matrix_t *A, sp_format_t format);
/* 1 when format is built or its build's bytes fit what the device can still give A's
 * context (the build's own check, sp__cuda_check_room, without an error), else 0. */
int sp__cuda_matrix_fits(const sp_matrix_t *A, sp_format_t format);
sp_status_t sp__cuda_matrix_mirror(sp_matrix_t *A, sp_format_t format);
/* A->csr_ptr32 = A's device CSR pointers (ptr64) narrowed to int32_t on the device
 * (kernels/convert/csr_offsets_width.cu), and its free (issue 20; sp__matrix_csr32). */
sp_status_t sp__cuda_matrix_csr32(sp_matrix_t *A);
void sp__cuda_matrix_free_csr32(sp_matrix_t *A);

/* SpMV on a CUDA context (src/spmv_cuda.c): the format is built; plans are made on first
 * use and cached in the matrix until the format is released. */
sp_status_t sp__cuda_spmv(sp_matrix_t *A, sp_format_t format, sp_spmv_alg_t alg,
                          const void *alpha, const void *x, const void *beta, void *y);
/* The plan of (format, alg) made now if it is not cached (sp_spmv_prepare; format built). */
sp_status_t sp__cuda_spmv_prepare(sp_matrix_t *A, sp_format_t format, sp_spmv_alg_t alg);
/* *ms = the median of `timed` calls of (format, alg) on A (built and prepared) after `warm`
 * calls, each between CUDA events on the context's stream, x zeros and y in scratch of
 * the context's allocator (sp_spmv_tune). */
sp_status_t sp__cuda_spmv_time(sp_matrix_t *A, sp_format_t format, sp_spmv_alg_t alg, int warm,
                               int timed, double *ms);
/* Free the plans of one format (SP_FORMAT_COUNT: all of them, and the plan table). */
void sp__cuda_spmv_free_plans(sp_matrix_t *A, sp_format_t format);
/* TEST ONLY: how A's CSC SpMV runs once its plan is made (sp_spmv_prepare(CSC)): *as_csr 1
 * when the plan found A equal to its transpose and runs the CSC's arrays as A's CSR,
 * *heavy_rows the rows the CSC kernel sums in shared memory, *variant (may be NULL) the
 * kernel's variant bits (SP_TEST_CSC_AGGREGATE, SP_TEST_CSC_WINDOW; 0 as a CSR).
 * SP_STATUS_INVALID_ARGUMENT when A has no CSC plan yet. */
sp_status_t sp__cuda_test_csc_route(const sp_matrix_t *A, int *as_csr, int *heavy_rows,
                                    int *variant);
/* TEST ONLY: the CSC kernel's variants forced for the plans made after it, process-wide:
 * the bits of set turned on and those of clear off over the policy's choice
 * (SP_TEST_CSC_AGGREGATE: a step's lanes of one row add first; SP_TEST_CSC_WINDOW: the rows
 * near the chunk's columns summed in shared memory). (0, 0): the policy's. */
enum { SP_TEST_CSC_AGGREGATE = 1, SP_TEST_CSC_WINDOW = 2 };
void sp__cuda_test_csc_variant(int set, int clear);

/* ---- BFS (src/bfs.c, src/bfs_cuda.c; bfs-a) ---- */
/* The AUTO choice and the direction rule: src/policy.h. */
/* One search's per-level records: the record arrays of sp_bfs_options_t at that search's
 * offset (NULL where not given, capacity 0 when none), and whether the search is timed. */
typedef struct sp__bfs_record {
    int64_t *frontier_sizes;
    int32_t *directions;
    double *level_times_ms;
    int64_t frontier_capacity;
    int measure_time;
} sp__bfs_record_t;
/* Search i's record in options (checked; NULL: no records, not timed). */
sp__bfs_record_t sp__bfs_record(const sp_bfs_options_t *options, int64_t i);
/* The options a BFS cache was made for, resolved (never AUTO; alpha and beta > 0) and the
 * level records it keeps room for (min(frontier_capacity, n + 1)). */
typedef struct sp__bfs_key {
    sp_bfs_variant_t variant;
    sp_bfs_loop_t loop;
    double alpha, beta;
    double pull_vertex_weight; /* the direction rule's (bfs_direction_rule.h) */
    int64_t capacity;
} sp__bfs_key_t;
/* Everything a search needs beyond its outputs, made once per matrix and key and kept in
 * G->bfs_cache until the key changes or G's CSR or CSC is released (sp_bfs_prepare, or the
 * first sp_bfs / sp_bfs_multi): on a host context the reference's queue, on a CUDA context
 * the level loops' scratch, the graph loop's instantiated graph and the timing events
 * (src/bfs_cuda.c). builds counts how often it was made for this matrix (the tests read
 * it). */
typedef struct sp__bfs_cache {
    sp__bfs_key_t key;
    int64_t builds;
    int32_t *h_queue; /* host context: n entries */
    void *cuda;       /* CUDA context: src/bfs_cuda.c's part */
} sp__bfs_cache_t;
/* G's cache made for key, made now (the old one freed first) when there is none or it was
 * made for other options; the formats the key needs are built. NULL *cache on failure. */
sp_status_t sp__bfs_cache_get(sp_matrix_t *G, const sp__bfs_key_t *key, sp__bfs_cache_t **cache);
/* Frees G's cache (none: no-op). Called when G's CSR or CSC is released and by
 * sp_matrix_destroy. */
void sp__bfs_cache_free(sp_matrix_t *G);
/* The CUDA part of a cache for key on G (CSR, and CSC where the key needs it, built). */
sp_status_t sp__cuda_bfs_cache_make(sp_matrix_t *G, const sp__bfs_key_t *key, void **cuda);
void sp__cuda_bfs_cache_free(sp_matrix_t *G, void *cuda);
/* The searches of sp_bfs_multi on a CUDA context with cache c (made for the resolved
 * variant and loop), arguments checked; options (may be NULL) give the records and
 * measure_time, their variant, loop, alpha and beta are not read; sync picks the persistent
 * loop's barrier (0 soft, 1 cooperative groups, for the benchmark's comparison). With
 * measure_time, stats[i].time_ms is the host wall clock from *t_ms (then from the end of
 * the search before) to the end of search i, and *t_ms moves to that end. */
sp_status_t sp__cuda_bfs(sp_matrix_t *G, const sp__bfs_cache_t *c, int64_t nsources,
                         const int64_t *sources, int sync, const sp_bfs_options_t *options,
                         int32_t *level, int32_t *parent, sp_bfs_stats_t *stats, double *t_ms);
/* sp_bfs with the persistent loop and its cooperative-groups grid barrier (the baseline
 * spbench compares the soft-synchronized barrier with); options (may be NULL) give the
 * records and measure_time, their variant and loop are not read (FRONTIER, PERSISTENT). */
sp_status_t sp__bfs_persistent_coop(sp_context_t *ctx, sp_matrix_t *G, int64_t source,
                                    const sp_bfs_options_t *options, int32_t *level,
                                    int32_t *parent, sp_bfs_stats_t *stats);

/* Triangular solve on a CUDA context (src/sptrsv_cuda.c): CSR is built; the analysis of
 * each (triangle, diagonal, algorithm) is made on first use and cached in the matrix until
 * its CSR is released. alg is LEVELS or SOFT_SYNC (AUTO resolved by the caller). */
sp_status_t sp__cuda_sptrsv(sp_matrix_t *A, int upper, int unit_diag, int alg,
                            const void *alpha, const void *b, void *x);
/* The plan sp__cuda_sptrsv would use for (upper, unit_diag, alg), made now if missing. */
sp_status_t sp__cuda_sptrsv_analyse(sp_matrix_t *A, int upper, int unit_diag, int alg);
/* Free every cached triangular-solve plan of A (NULL table accepted). */
void sp__cuda_sptrsv_free_plans(sp_matrix_t *A);

/* ---- device room (src/context_cuda.c; no-ops without CUDA) ---- */
/* SP_STATUS_ALLOC_FAILED "<what> needs N bytes on the device, M free" when need exceeds
 * what the device can still give the context (free memory plus the unused part of the
 * context's pool); success when it fits, when the figure is unknown, or when the context
 * uses the caller's allocator hooks. Called before a step launches anything. */
sp_status_t sp__cuda_check_room(const sp_context_t *ctx, int64_t need, const char *what);
/* The same test without an error: 1 when need fits (or the figure is unknown, or the
 * context uses allocator hooks), else 0. */
int sp__cuda_has_room(const sp_context_t *ctx, int64_t need);
/* Pinned host memory of at least bytes kept by a CUDA context for its uploads (allocated on
 * first use, freed with the context); NULL when it cannot be pinned. */
void *sp__cuda_staging(sp_context_t *ctx, size_t bytes);
/* TEST ONLY: cap the room figure of sp__cuda_check_room at bytes (> 0; 0 removes the
 * cap), and apply the check even with allocator hooks, so tests can provoke the refusal
 * without filling the device. */
void sp__cuda_test_cap_room(sp_context_t *ctx, int64_t bytes);

/* Free format f of a host format set (the reference's *_free). */
void sp__format_set_free(sp_format_set_t *set, sp_format_t format);

/* The row-length histogram bin of a row of len entries (sp_matrix_t.row_hist). */
static inline int sp__row_hist_bin(int64_t len)
{
    int b = 0;
    while (len > 0 && b < SP_ROW_HIST_BINS - 1) len >>= 1, b++;
    return b;
}

/* The long-row tail of format f in set (ELL, JDS, SELL), else NULL. */
static inline sp_triplets_t *sp__format_tail(sp_format_set_t *set, sp_format_t f)
{
    return f == SP_FORMAT_ELL ? &set->ell.tail
           : f == SP_FORMAT_JDS ? &set->jds.tail
           : f == SP_FORMAT_SELL ? &set->sell.tail
                                 : NULL;
}

/* The fraction of coo's entries whose column lies within max(4096, ncols / 64) of the
 * diagonal's (row * ncols / nrows), from at most 2^20 entries taken at an even stride: how
 * local the gathers of x are (stencils, bands, FEM near 1; random and Kronecker near 0).
 * 1 for an empty matrix. src/spmv_model.c. */
double sp__coo_col_near(const sp_coo_t *coo);

/* Whether coo's flags say that (i,j) is present iff (j,i) is: SP_COO_SYMMETRIC_PATTERN, or
 * a symmetric file expanded (SP_COO_SYMMETRIC_EXPANDED, set by readers and caches older
 * than the pattern flag), never one triangle as stored; square only. */
static inline int sp__coo_pattern_symmetric(const sp_coo_t *coo)
{
    unsigned f = coo->flags;
    return coo->nrows == coo->ncols && !(f & SP_COO_SYMMETRIC_STORED) &&
           (f & (SP_COO_SYMMETRIC_PATTERN | SP_COO_SYMMETRIC_EXPANDED)) != 0;
}

/* Rows of A longer than this go to the tail of format f (ELL, JDS, SELL): the matrix option
 * long_row_bound, else the policy's (src/policy.c); INT64_MAX when there is no tail. */
int64_t sp__matrix_long_row_bound(const sp_matrix_t *A, sp_format_t f);
/* The same refusal only when A has 64-bit offsets and more entries than the narrow limit
 * (2^31 - 1; sp__test_set_narrow_limit lowers it), on any context: the guard of every
 * operation served below the limit only through sp__matrix_csr32 on a CUDA context (CSR
 * binned and adaptive asked for by name). Every format is built past it, and SpTRSV and
 * the solvers' fused steps read the 64-bit pointers past it: sp__matrix_csr_either
 * (issue 20). */
sp_status_t sp__matrix_narrowable(const sp_matrix_t *A, const char *what);
/* 1 when A has 64-bit offsets and at most the narrow limit's entries (its pointers can be
 * narrowed: sp__matrix_narrowable passes), else 0; sets no error. */
int sp__matrix_narrows(const sp_matrix_t *A);
/* A's CSR (built, sp__matrix_narrowable passed) with 32-bit pointers: the CSR itself at 32
 * bits; at 64 its column ids and values with the pointers narrowed once (kept with the
 * CSR, counted in its bytes, in the context's memory: narrowed on the device on a CUDA
 * context). */
sp_status_t sp__matrix_csr32(sp_matrix_t *A, sp_csr_t *csr);
/* A's CSR (built) for a reader that takes either pointer width (SpTRSV, the solvers' fused
 * steps): below the narrow limit with 32-bit pointers (sp__matrix_csr32: so the 32-bit
 * matrix's plans and bits), past it A's own with its 64-bit pointers (nothing narrowed). */
sp_status_t sp__matrix_csr_either(sp_matrix_t *A, sp_csr_t *csr);
/* sp__ref_bfs_validate with its row-wise rules on up to nthreads threads (<= 0: every
 * core; graphs below 2^16 vertices take one): the same verdict and message
 * (src/bfs_validate.c). */
int sp__bfs_validate_threads(const sp_csr_t *g, int32_t source, const int32_t *level,
                             const int32_t *parent, const int32_t *ref_level, char *why,
                             size_t why_len, int nthreads);
/* Test hooks (src/matrix.c; the Check suites, never the library): what offset_bits 0 gives
 * below 2^31 entries on a host or CUDA context (64, or anything else for 32: SP_TEST_OFFSET_BITS=64
 * in tests/testutil.c runs whole suites with 64-bit offsets), and the most entries a host
 * matrix with 64-bit offsets narrows its pointers for, host or CUDA (sp__matrix_csr32; INT32_MAX, and
 * never above; lowered, the guard's refusal runs at small sizes). */
void sp__test_set_default_offset_bits(int bits);
void sp__test_set_narrow_limit(int64_t limit);
/* Test hook (src/matrix_cuda.c): the most entries a CUDA context sorts and merges on the
 * device (INT32_MAX, its 32-bit counts; never above). A COO with more is put in order on
 * the host and uploaded sorted; lowered, that path runs at small sizes. */
void sp__test_set_device_sort_limit(int64_t limit);
/* Test hooks of the upload (src/matrix_cuda.c; benchmarks and tests, never the library):
 * its staging's lanes (0: plain pageable copies; at most 32, and the cores) and chunk bytes
 * (at least 64 KiB; default 8 lanes of 4 MiB), and the wall-clock milliseconds of A's
 * upload's phases (kept in A, no state shared between calls): host ordering, transfer, the
 * device's check/sort/merge, row counts, the diagonal-nearness sample. */
void sp__test_set_upload_shape(int lanes, size_t chunk_bytes);
void sp__test_upload_phases(const sp_matrix_t *A, double ms[5]);
/* Frees every format of A (never COO) that is built now and was not in built_before (a
 * mask of A->built): a call that failed after building formats leaves A as it was. */
void sp__matrix_drop_formats_since(sp_matrix_t *A, unsigned built_before);

#endif /* SP_API_H */
