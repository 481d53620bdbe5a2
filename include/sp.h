/*
 * libsp: sparse matrices and graphs in C, with CUDA kernels.
 *
 * Conventions that hold for every function below unless its comment says otherwise:
 *  - Every function returns sp_status_t. On failure the detailed message (file and line
 *    for parse errors, the numbers for size errors) is read with sp_last_error(), which
 *    is kept per thread; functions that take a context also keep it in the context
 *    (sp_context_last_error).
 *  - A failed call leaves its outputs untouched and leaks nothing.
 *  - Handles are created and destroyed in pairs; every destroy/free accepts NULL.
 *  - Sizes cross the API as int64_t; indices are 32-bit and 0-based in memory. An input
 *    whose sizes do not fit 32-bit indices is refused with SP_STATUS_NOT_SUPPORTED.
 *  - Host memory is allocated through the hooks set with sp_set_host_allocator (default
 *    malloc/free); memory the library returns to the caller is released with the
 *    matching sp_*_free function, or sp_free for plain arrays.
 *  - Library code never prints, exits or aborts.
 */
#ifndef SP_H
#define SP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_VERSION_MAJOR 0
#define SP_VERSION_MINOR 1
#define SP_VERSION_PATCH 0
#define SP_VERSION_NUMBER (SP_VERSION_MAJOR * 10000 + SP_VERSION_MINOR * 100 + SP_VERSION_PATCH)

/* "MAJOR.MINOR.PATCH" of the library actually linked (the macros give the header's). */
const char *sp_version(void);

/* ------------------------------------------------------------------------------------
 * Status codes. One list, never renumbered; new codes are appended.
 * ---------------------------------------------------------------------------------- */
typedef enum sp_status {
    SP_STATUS_SUCCESS = 0,
    SP_STATUS_INVALID_ARGUMENT = 1, /* a NULL pointer, a size or option out of range */
    SP_STATUS_ALLOC_FAILED = 2,     /* host or device allocation failed */
    SP_STATUS_IO_ERROR = 3,         /* open, read, write or rename failed */
    SP_STATUS_PARSE_ERROR = 4,      /* malformed input file; message names file:line */
    SP_STATUS_NOT_SUPPORTED = 5,    /* valid request libsp does not handle (sizes, fields) */
    SP_STATUS_NOT_COMPILED = 6,     /* the library was built without CUDA */
    SP_STATUS_NO_DEVICE = 7,        /* CUDA compiled in, but no usable GPU present */
    SP_STATUS_DEVICE_ERROR = 8,     /* a CUDA call failed; message holds CUDA's text */
    SP_STATUS_INTERNAL_ERROR = 9    /* a bug in libsp: please report it */
} sp_status_t;

/* Short constant name of a status ("SP_STATUS_PARSE_ERROR"); never NULL. */
const char *sp_status_string(sp_status_t status);

/* Detailed message of the last failure on this thread ("" if none). The pointer stays
 * valid until the next libsp call on this thread. */
const char *sp_last_error(void);

/* Clear this thread's last error. */
void sp_clear_error(void);

/* ------------------------------------------------------------------------------------
 * Host memory hooks (for embedding and for allocation-failure testing).
 * ---------------------------------------------------------------------------------- */
typedef struct sp_allocator {
    void *(*alloc)(size_t bytes, void *user);              /* NULL on failure */
    void *(*realloc)(void *ptr, size_t bytes, void *user); /* NULL on failure, ptr kept */
    void (*free)(void *ptr, void *user);                   /* accepts NULL */
    void *user;
} sp_allocator_t;

/* Set the host allocator used by every later libsp call (NULL restores malloc). Not
 * thread-safe: set it before libsp is used by several threads. */
void sp_set_host_allocator(const sp_allocator_t *allocator);

/* Release an array the library allocated and returned (e.g. an id map). Accepts NULL. */
void sp_free(void *ptr);

/* ------------------------------------------------------------------------------------
 * Values and the host COO.
 * ---------------------------------------------------------------------------------- */
typedef enum sp_value_type {
    SP_VALUE_NONE = 0, /* pattern only: no values stored */
    SP_R_32F = 1,      /* float */
    SP_R_64F = 2       /* double */
} sp_value_type_t;

/* Bytes per value (0 for SP_VALUE_NONE). */
size_t sp_value_size(sp_value_type_t type);

/* How a file stored its entries (informational; the COO is always expanded unless
 * SP_COO_SYMMETRIC_STORED is set). */
typedef enum sp_symmetry {
    SP_SYMMETRY_GENERAL = 0,
    SP_SYMMETRY_SYMMETRIC = 1,
    SP_SYMMETRY_SKEW = 2,
    SP_SYMMETRY_HERMITIAN = 3
} sp_symmetry_t;

/* sp_coo_t.flags */
#define SP_COO_SORTED 0x1u             /* sorted by (row, col) */
#define SP_COO_MERGED 0x2u             /* no two entries share (row, col) */
#define SP_COO_SYMMETRIC_EXPANDED 0x4u /* mirrored entries of a symmetric file added */
#define SP_COO_SYMMETRIC_STORED 0x8u   /* one triangle only, as stored (not expanded) */

/* Host triplets: entry k is A(row[k], col[k]) = val[k], indices 0-based.
 * val is float* or double* per value_type, NULL for SP_VALUE_NONE. Arrays have room
 * for capacity entries (>= nnz). Owned by the struct: release with sp_coo_free. */
typedef struct sp_coo {
    int64_t nrows, ncols, nnz;
    int64_t capacity;
    int32_t *row;
    int32_t *col;
    void *val;
    sp_value_type_t value_type;
    sp_symmetry_t symmetry; /* as the source stored it */
    unsigned flags;
} sp_coo_t;

/* Allocate a COO with room for capacity entries, nnz = 0. */
sp_status_t sp_coo_create(int64_t nrows, int64_t ncols, int64_t capacity,
                          sp_value_type_t value_type, sp_coo_t **coo);
/* Deep copy, optionally converting the value type (SP_VALUE_NONE drops values; from
 * SP_VALUE_NONE to a real type fills ones). */
sp_status_t sp_coo_copy(const sp_coo_t *src, sp_value_type_t value_type, sp_coo_t **dst);
void sp_coo_free(sp_coo_t *coo);

/* What to do with entries that share (row, col). */
typedef enum sp_dup_policy {
    SP_DUP_SUM = 0,  /* matrices: values added */
    SP_DUP_KEEP = 1  /* graphs: the first in input order is kept */
} sp_dup_policy_t;

/* Sort in place by (row, col), stably, and merge duplicates by the policy. Sets
 * SP_COO_SORTED | SP_COO_MERGED. *nmerged (may be NULL) gets the entries removed. */
sp_status_t sp_coo_sort_merge(sp_coo_t *coo, sp_dup_policy_t policy, int64_t *nmerged);

/* Make a square pattern undirected: add (j,i) for every (i,j), optionally drop self
 * loops, then sort and keep one of each edge. Values of mirrored entries are copied. */
sp_status_t sp_coo_symmetrize(sp_coo_t *coo, int drop_self_loops);

/* ------------------------------------------------------------------------------------
 * Loaders: Matrix Market, edge lists, binary cache (loaders/).
 * ---------------------------------------------------------------------------------- */

/* sp_mtx_options_t: zero-initialised (or NULL) means the defaults. */
typedef enum sp_pattern_mode {
    SP_PATTERN_ONES = 0, /* pattern files get value 1 in the requested value type */
    SP_PATTERN_NONE = 1  /* pattern files get no values (value_type SP_VALUE_NONE) */
} sp_pattern_mode_t;

typedef enum sp_complex_mode {
    SP_COMPLEX_REFUSE = 0,   /* complex files: SP_STATUS_NOT_SUPPORTED naming the field */
    SP_COMPLEX_REAL_PART = 1 /* keep the real part only */
} sp_complex_mode_t;

typedef struct sp_mtx_options {
    int nthreads;                   /* parser threads; 0 = all cores */
    sp_pattern_mode_t pattern;      /* default SP_PATTERN_ONES */
    sp_complex_mode_t complex_mode; /* default SP_COMPLEX_REFUSE */
    int keep_symmetric;             /* 1 = do not mirror symmetric files (flags say so) */
} sp_mtx_options_t;

/* Read a Matrix Market file (plain or gzip, detected by magic number) into a new host
 * COO with values of value_type (SP_R_32F or SP_R_64F; SP_VALUE_NONE keeps no values).
 * Symmetric, skew and hermitian files are expanded (diagonal never duplicated). Entries
 * stay in file order (not sorted, duplicates kept). Errors: SP_STATUS_IO_ERROR,
 * SP_STATUS_PARSE_ERROR ("path:line: ..."), SP_STATUS_NOT_SUPPORTED, ALLOC_FAILED. */
sp_status_t sp_mtx_read(const char *path, sp_value_type_t value_type,
                        const sp_mtx_options_t *options, sp_coo_t **coo);

typedef enum sp_mtx_field {
    SP_MTX_FIELD_AUTO = 0, /* real if the COO has values, else pattern */
    SP_MTX_FIELD_REAL = 1,
    SP_MTX_FIELD_INTEGER = 2,
    SP_MTX_FIELD_PATTERN = 3
} sp_mtx_field_t;

typedef struct sp_mtx_write_options {
    sp_mtx_field_t field;
    int symmetric; /* 1: write "symmetric", lower triangle only; the COO must be symmetric */
    const char *comment; /* optional comment line(s) after the banner, without '%' */
} sp_mtx_write_options_t;

/* Write coordinate Matrix Market (1-based), values with %.17g (double) or %.9g (float)
 * so they read back to the same bits. Written to a temporary file in the same folder
 * and renamed, so a failure never leaves a partial file at path. */
sp_status_t sp_mtx_write(const char *path, const sp_coo_t *coo,
                         const sp_mtx_write_options_t *options);

typedef enum sp_edgelist_format {
    SP_EDGELIST_AUTO = 0,   /* by extension: .gr DIMACS, .graph METIS, else SNAP text */
    SP_EDGELIST_SNAP = 1,   /* "u v" or "u v w" lines, '#' and '%' comments */
    SP_EDGELIST_DIMACS = 2, /* DIMACS shortest path: c / p sp n m / a u v w, 1-based */
    SP_EDGELIST_METIS = 3   /* METIS .graph adjacency lists, 1-based */
} sp_edgelist_format_t;

typedef struct sp_edgelist_options {
    sp_edgelist_format_t format;
    int nthreads;         /* 0 = all cores */
    int undirected;       /* add the reverse of every edge */
    int drop_self_loops;  /* remove (v, v) */
    int merge_duplicates; /* keep one of each (u, v); the count is reported */
    int compact_ids;      /* renumber used ids to 0..n-1 in increasing order */
    int one_based;        /* SNAP text only: ids start at 1 (DIMACS, METIS always do) */
    int64_t nvertices;    /* > 0: n given (ids must be below it); 0: max id + 1 */
} sp_edgelist_options_t;

typedef struct sp_edgelist_info {
    int64_t edges_read;         /* edge lines in the file */
    int64_t self_loops_dropped;
    int64_t duplicates_merged;
    int has_weights;            /* the file carried a weight column */
    int64_t *id_map;            /* compact_ids: id_map[new] = id in the file; sp_free it */
    int64_t id_map_len;
} sp_edgelist_info_t;

/* Read an edge list into a new host COO (nrows = ncols = vertices). Weights become
 * values when value_type is real (1 where the file has none). info may be NULL. */
sp_status_t sp_edgelist_read(const char *path, sp_value_type_t value_type,
                             const sp_edgelist_options_t *options, sp_coo_t **coo,
                             sp_edgelist_info_t *info);

/* Binary cache: a small documented format (magic, version, value type, sizes, flags,
 * checksum) that reloads at disk speed. Written via a temporary file and renamed.
 * Corrupt, truncated or foreign files are refused with SP_STATUS_PARSE_ERROR. */
sp_status_t sp_coo_save(const char *path, const sp_coo_t *coo);
sp_status_t sp_coo_load(const char *path, sp_coo_t **coo);

/* ------------------------------------------------------------------------------------
 * Generators (deterministic: the same arguments give the same COO on any machine).
 * ---------------------------------------------------------------------------------- */

/* Graph500 Kronecker graph: 2^scale vertices, edgefactor * 2^scale directed edges drawn
 * with A=.57 B=.19 C=.19, vertex ids permuted, as generated (self loops and duplicates
 * kept; use sp_coo_symmetrize for the undirected graph). Values: uniform in [0,1). */
sp_status_t sp_gen_kronecker(int scale, int edgefactor, uint64_t seed,
                             sp_value_type_t value_type, sp_coo_t **coo);
/* Uniform random (Erdos-Renyi style) graph, 2^scale vertices, edgefactor * 2^scale edges. */
sp_status_t sp_gen_uniform(int scale, int edgefactor, uint64_t seed,
                           sp_value_type_t value_type, sp_coo_t **coo);
/* Poisson matrices on an n x n (x n) grid, Dirichlet boundary: 2D 5-point (4 on the
 * diagonal, -1 off), 3D 7-point (6, -1) and 3D 27-point (26, -1). Sorted, merged. */
sp_status_t sp_gen_poisson2d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo);
sp_status_t sp_gen_poisson3d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo);
sp_status_t sp_gen_poisson3d27(int64_t n, sp_value_type_t value_type, sp_coo_t **coo);
/* 2D n x n grid graph (road-like, 4 neighbours, undirected, diameter 2n-2). */
sp_status_t sp_gen_grid2d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo);

/* ------------------------------------------------------------------------------------
 * Contexts: the executor (host reference or one CUDA device).
 * ---------------------------------------------------------------------------------- */
typedef enum sp_device_kind {
    SP_DEVICE_HOST = 0, /* sequential reference; always available */
    SP_DEVICE_CUDA = 1  /* one CUDA GPU; SP_STATUS_NOT_COMPILED without CUDA */
} sp_device_kind_t;

/* Device memory hooks; alloc returns 0 on success. */
typedef struct sp_device_allocator {
    int (*alloc)(void **ptr, size_t bytes, void *stream, void *user);
    void (*free)(void *ptr, void *stream, void *user);
    void *user;
} sp_device_allocator_t;

typedef struct sp_context_options {
    int device;                             /* CUDA device ordinal */
    void *stream;                           /* a cudaStream_t to use; NULL: own stream */
    const sp_device_allocator_t *allocator; /* NULL: cudaMallocAsync on the stream */
} sp_context_options_t;

typedef struct sp_context sp_context_t;

/* options may be NULL. Errors: NOT_COMPILED, NO_DEVICE, DEVICE_ERROR, ALLOC_FAILED. */
sp_status_t sp_context_create(sp_device_kind_t kind, const sp_context_options_t *options,
                              sp_context_t **ctx);
void sp_context_destroy(sp_context_t *ctx);
sp_device_kind_t sp_context_kind(const sp_context_t *ctx);
/* Last error message recorded on this context ("" if none). */
const char *sp_context_last_error(const sp_context_t *ctx);
/* Wait until all work queued on the context's stream is done (no-op on the host). */
sp_status_t sp_context_synchronize(sp_context_t *ctx);

typedef struct sp_device_info {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    int64_t global_mem_bytes;
    int64_t l2_bytes;
    int64_t shared_mem_per_block;
} sp_device_info_t;
/* Host contexts report name "host" and zero sizes. */
sp_status_t sp_context_device_info(const sp_context_t *ctx, sp_device_info_t *info);

/* ------------------------------------------------------------------------------------
 * Matrices on a context, with a cache of built formats.
 * ---------------------------------------------------------------------------------- */
typedef enum sp_format {
    SP_FORMAT_COO = 0,
    SP_FORMAT_CSR = 1,
    SP_FORMAT_CSC = 2,
    SP_FORMAT_ELL = 3,
    SP_FORMAT_HYB = 4,
    SP_FORMAT_JDS = 5,
    SP_FORMAT_SELL = 6,
    SP_FORMAT_COUNT = 7,
    SP_FORMAT_AUTO = 100 /* sp_spmv: let the library choose */
} sp_format_t;

/* "coo", "csr", ... ("auto"); NULL for an unknown value. */
const char *sp_format_name(sp_format_t format);
/* Inverse of sp_format_name; SP_STATUS_INVALID_ARGUMENT naming the string if unknown. */
sp_status_t sp_format_parse(const char *name, sp_format_t *format);

/* zero-initialised (or NULL) means the defaults. */
typedef struct sp_matrix_options {
    sp_dup_policy_t duplicates; /* default SP_DUP_SUM */
    int64_t ell_max_bytes;      /* ELL refused if larger; 0: 4 x the CSR bytes + 1 MiB */
    int64_t hyb_ell_width;      /* > 0 forces the ELL width of HYB; 0: Bell-Garland rule */
    int sell_c;                 /* SELL slice height; 0: 32 */
    int sell_sigma;             /* SELL sorting window (multiple of C); 0: 32 * C */
} sp_matrix_options_t;

typedef struct sp_matrix sp_matrix_t;

/* Copy a host COO onto the context, sort it by (row, col) and merge duplicates by the
 * policy (on a CUDA context: uploaded, then sorted and merged on the GPU, which
 * synchronizes the context's stream once). The COO is not modified and may be freed
 * afterwards. Pattern COOs give a pattern matrix (BFS only; SpMV refuses it). */
sp_status_t sp_matrix_create(sp_context_t *ctx, const sp_coo_t *coo,
                             const sp_matrix_options_t *options, sp_matrix_t **A);
void sp_matrix_destroy(sp_matrix_t *A);

/* Build a format (if not cached) on A's context. ELL larger than ell_max_bytes is
 * refused with SP_STATUS_NOT_SUPPORTED giving the bytes it would need.
 * On a CUDA context with its own memory pool, an upload (sp_matrix_create) or build that
 * cannot fit in the device's free memory is refused before any work with
 * SP_STATUS_ALLOC_FAILED giving the bytes needed and free. */
sp_status_t sp_matrix_build(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format);
/* Drop a built format (not COO) to free its memory. */
sp_status_t sp_matrix_release(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format);

typedef struct sp_matrix_info {
    int64_t nrows, ncols, nnz; /* after duplicate merging */
    sp_value_type_t value_type;
    int64_t row_min, row_max, empty_rows;
    double row_mean, row_stddev;
    int64_t bytes[SP_FORMAT_COUNT]; /* bytes of each built format, 0 if not built */
    int64_t ell_width;              /* ELL: longest row */
    int64_t hyb_ell_width, hyb_coo_nnz;
    int sell_c, sell_sigma;
    int64_t sell_padded_nnz;        /* stored slots of SELL including padding */
    int64_t duplicates_merged;
} sp_matrix_info_t;

sp_status_t sp_matrix_info(const sp_matrix_t *A, sp_matrix_info_t *info);

/* A built format's arrays in host memory, for inspection and tests. On a host context
 * they point into the matrix; on a CUDA context the format is first copied to a host
 * mirror kept in the matrix (synchronizing the context's stream). Either way they stay
 * valid until the format is released or the matrix destroyed. Which fields are set
 * depends on the format. */
typedef struct sp_format_view {
    sp_format_t format;
    int64_t nrows, ncols, nnz;
    sp_value_type_t value_type;
    const int32_t *ptr;    /* CSR row_ptr / CSC col_ptr (n+1); JDS jd_ptr (width+1); SELL slice_ptr */
    const int32_t *idx;    /* CSR col / CSC row / ELL,JDS,SELL col; COO col */
    const int32_t *idx2;   /* COO row; HYB COO row; JDS perm; SELL perm */
    const int32_t *idx3;   /* HYB COO col; SELL slice widths */
    const void *val;       /* values matching idx */
    const void *val2;      /* HYB COO values */
    int64_t width;         /* ELL / HYB ELL width; JDS longest row; SELL C */
    int64_t nnz2;          /* HYB COO entries; SELL padded slots */
    int64_t sigma;         /* SELL window */
} sp_format_view_t;

sp_status_t sp_matrix_view(sp_matrix_t *A, sp_format_t format, sp_format_view_t *view);

/* ------------------------------------------------------------------------------------
 * SpMV: y = alpha * A * x + beta * y.
 * ---------------------------------------------------------------------------------- */
typedef enum sp_spmv_alg {
    SP_SPMV_ALG_DEFAULT = 0,
    SP_SPMV_ALG_COO_ATOMIC = 1,
    SP_SPMV_ALG_COO_SEGMENTED = 2,
    SP_SPMV_ALG_CSR_SCALAR = 3,
    SP_SPMV_ALG_CSR_VECTOR = 4,
    SP_SPMV_ALG_CSR_MERGE = 5
} sp_spmv_alg_t;

/* alpha and beta: host pointers to one value of A's type. x (ncols) and y (nrows): in
 * the context's memory (host memory on a host context, device memory on CUDA), of A's
 * type. beta == 0 never reads y (NaN in y does not leak). The format is built and cached
 * first if needed. SP_FORMAT_AUTO picks one from row statistics. On failure y is
 * untouched. */
sp_status_t sp_spmv(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg,
                    const void *alpha, sp_matrix_t *A, const void *x, const void *beta,
                    void *y);

/* The format SP_FORMAT_AUTO would choose for A, from its row statistics: ELL when padding
 * to the longest row adds at most 20% to the entries (or A is empty), SELL when the
 * longest row is at most 32 x (mean + 1), CSR otherwise (its DEFAULT algorithm balances
 * skewed rows on a GPU). */
sp_status_t sp_spmv_choose_format(const sp_context_t *ctx, const sp_matrix_t *A,
                                  sp_format_t *format);

/* ------------------------------------------------------------------------------------
 * BFS on a graph stored as a square matrix (edge i -> j is entry (i, j)).
 * ---------------------------------------------------------------------------------- */
typedef enum sp_bfs_variant {
    SP_BFS_AUTO = 0,
    SP_BFS_PUSH = 1,          /* vertex-centric push over CSR */
    SP_BFS_PULL = 2,          /* vertex-centric pull over CSC */
    SP_BFS_EDGE = 3,          /* edge-centric over COO */
    SP_BFS_FRONTIER = 4,      /* frontier queue push */
    SP_BFS_PRIVATIZED = 5,    /* block-private frontier queues */
    SP_BFS_DIRECTION_OPT = 6  /* Beamer's push/pull switching */
} sp_bfs_variant_t;

typedef enum sp_bfs_loop {
    SP_BFS_LOOP_AUTO = 0,
    SP_BFS_LOOP_HOST = 1,        /* one launch per level */
    SP_BFS_LOOP_SINGLE_BLOCK = 2,
    SP_BFS_LOOP_PERSISTENT = 3   /* soft-synchronized single kernel */
} sp_bfs_loop_t;

typedef struct sp_bfs_options {
    sp_bfs_variant_t variant;
    sp_bfs_loop_t loop;
    double alpha, beta; /* direction optimization; 0: 15 and 18 */
} sp_bfs_options_t;

typedef struct sp_bfs_stats {
    int64_t levels;            /* number of non-empty levels, source's included */
    int64_t vertices_visited;  /* reachable vertices, source included */
    int64_t edges_traversed;   /* directed edges examined */
    int64_t *frontier_sizes;   /* optional, caller's host array: size of each level */
    int64_t frontier_capacity; /* entries frontier_sizes can hold */
} sp_bfs_stats_t;

/* Breadth-first search from source. level[v]: hops from source, -1 if unreachable
 * (nrows entries, required). parent[v]: a vertex u with edge (u, v) and level[u] =
 * level[v] - 1, parent[source] = source, -1 if unreachable (optional, may be NULL).
 * level and parent are in the context's memory. stats may be NULL. On a CUDA context this
 * version returns SP_STATUS_NOT_SUPPORTED (the GPU BFS kernels are not in it yet). */
sp_status_t sp_bfs(sp_context_t *ctx, sp_matrix_t *G, int64_t source,
                   const sp_bfs_options_t *options, int32_t *level, int32_t *parent,
                   sp_bfs_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif /* SP_H */
