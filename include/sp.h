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
 *    Entry counts: the host COO layer (sp_coo_*, the generators, loaders and cache)
 *    takes any count memory allows, past 2^31 (an allocation that fails gives
 *    SP_STATUS_ALLOC_FAILED with the bytes); rows and columns stay below 2^31. A matrix
 *    of 2^31 entries or more gets 64-bit CSR/CSC offsets (sp_matrix_options_t.offset_bits):
 *    on either context every format (JDS and SELL with 64-bit offsets of their own), SpMV
 *    in it (CSR: csr/scalar, vector, merge and split), sp_spmv_tune (timing what serves),
 *    BFS (every variant and loop), sp_sptrsv and sp_sptrsv_analyse (every algorithm) and
 *    the solvers (every type and loop). A matrix with 64-bit offsets forced below 2^31
 *    entries is served everywhere (the pointers narrowed to 32 bits where a reader needs
 *    them). Past 2^31 entries only CSR binned and adaptive, asked for by name on a CUDA
 *    context, refuse it: SP_STATUS_NOT_SUPPORTED naming the algorithm and "64-bit offsets".
 *  - Host memory is allocated through the hooks set with sp_set_host_allocator (default
 *    malloc/free); memory the library returns to the caller is released with the
 *    matching sp_*_free function, or sp_free for plain arrays.
 *  - Library code never prints, exits or aborts.
 *  - Threads: a context and everything created on it (matrices, vectors, solvers) belong
 *    to one thread at a time; use one context per thread. Different contexts may be used
 *    from different threads at once (CUDA contexts on one device included: each has its
 *    own stream). Functions without a context (loaders, generators, COO helpers) are safe
 *    on different objects from several threads; sp_set_host_allocator is not.
 *  - Streams: a CUDA context queues its work on its own stream (or the one given in
 *    sp_context_options_t). A function synchronizes that stream only where its comment
 *    says so (results copied to the host, uploads from host memory); no function ever
 *    synchronizes the device. Pointers "in the context's memory" are host memory on a
 *    host context and device memory on a CUDA context.
 */
#ifndef SP_H
#define SP_H

#include <stddef.h>
#include <stdint.h>

/* SP_API marks the public functions: the shared library exports them and nothing else
 * (the library is compiled with hidden visibility; internal sp__ functions stay inside). */
#ifndef SP_API
#if defined(__GNUC__) || defined(__clang__)
#define SP_API __attribute__((visibility("default")))
#else
#define SP_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SP_VERSION_MAJOR 0
#define SP_VERSION_MINOR 1
#define SP_VERSION_PATCH 0
#define SP_VERSION_NUMBER (SP_VERSION_MAJOR * 10000 + SP_VERSION_MINOR * 100 + SP_VERSION_PATCH)

/* "MAJOR.MINOR.PATCH" of the library actually linked (the macros give the header's). */
SP_API const char *sp_version(void);

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
    SP_STATUS_NOT_COMPILED = 6,     /* a part the library was built without: CUDA (a CUDA
                                       context), zlib (gzip input) */
    SP_STATUS_NO_DEVICE = 7,        /* CUDA compiled in, but no usable GPU present */
    SP_STATUS_DEVICE_ERROR = 8,     /* a CUDA call failed; message holds CUDA's text */
    SP_STATUS_INTERNAL_ERROR = 9    /* a bug in libsp: please report it */
} sp_status_t;

/* Short constant name of a status ("SP_STATUS_PARSE_ERROR"); never NULL. */
SP_API const char *sp_status_string(sp_status_t status);

/* Detailed message of the last failure on this thread ("" if none). The pointer stays
 * valid until the next libsp call on this thread. */
SP_API const char *sp_last_error(void);

/* Clear this thread's last error. */
SP_API void sp_clear_error(void);

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
SP_API void sp_set_host_allocator(const sp_allocator_t *allocator);

/* Release an array the library allocated and returned (e.g. an id map). Accepts NULL. */
SP_API void sp_free(void *ptr);

/* ------------------------------------------------------------------------------------
 * Values and the host COO.
 * ---------------------------------------------------------------------------------- */
typedef enum sp_value_type {
    SP_VALUE_NONE = 0, /* pattern only: no values stored */
    SP_R_32F = 1,      /* float */
    SP_R_64F = 2       /* double */
} sp_value_type_t;

/* Bytes per value (0 for SP_VALUE_NONE). */
SP_API size_t sp_value_size(sp_value_type_t type);

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
/* (i,j) is present iff (j,i) is (values may differ): set by sp_coo_symmetrize, by the
 * readers where they expand a symmetric file or an undirected edge list (with
 * SP_COO_SYMMETRIC_EXPANDED, which sp_matrix_create takes to imply it) and by the stencil
 * generators; kept by sp_coo_sort_merge, sp_coo_drop_self_loops, sp_coo_copy and the
 * binary cache. A caller that edits the arrays clears it. sp_matrix_create records it
 * (issue 20): BFS on a CUDA context then pulls through the CSR instead of building a CSC. */
#define SP_COO_SYMMETRIC_PATTERN 0x10u

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

/* Allocate a COO with room for capacity entries, nnz = 0. nrows, ncols up to INT32_MAX
 * (above: SP_STATUS_NOT_SUPPORTED); capacity as memory allows (SP_STATUS_ALLOC_FAILED
 * naming the bytes when it does not, also past 2^31 entries). */
SP_API sp_status_t sp_coo_create(int64_t nrows, int64_t ncols, int64_t capacity,
                                 sp_value_type_t value_type, sp_coo_t **coo);
/* Deep copy, optionally converting the value type (SP_VALUE_NONE drops values; from
 * SP_VALUE_NONE to a real type fills ones). */
SP_API sp_status_t sp_coo_copy(const sp_coo_t *src, sp_value_type_t value_type, sp_coo_t **dst);
SP_API void sp_coo_free(sp_coo_t *coo);

/* What to do with entries that share (row, col). */
typedef enum sp_dup_policy {
    SP_DUP_SUM = 0,  /* matrices: values added */
    SP_DUP_KEEP = 1  /* graphs: the first in input order is kept */
} sp_dup_policy_t;

/* Sort in place by (row, col), stably, and merge duplicates by the policy. Sets
 * SP_COO_SORTED | SP_COO_MERGED. *nmerged (may be NULL) gets the entries removed. */
SP_API sp_status_t sp_coo_sort_merge(sp_coo_t *coo, sp_dup_policy_t policy, int64_t *nmerged);

/* Make a square pattern undirected: add (j,i) for every (i,j), optionally drop self
 * loops, then sort and keep one of each edge. Values of mirrored entries are copied.
 * Sets SP_COO_SORTED | SP_COO_MERGED | SP_COO_SYMMETRIC_PATTERN. */
SP_API sp_status_t sp_coo_symmetrize(sp_coo_t *coo, int drop_self_loops);

/* Remove the entries (v, v) in place, keeping the others in order (flags kept).
 * *ndropped (may be NULL) gets the entries removed. With sp_coo_symmetrize (undirected)
 * and sp_coo_sort_merge(SP_DUP_KEEP) (duplicate edges) this prepares a graph read by
 * sp_mtx_read for BFS; sp_edgelist_read has the same three as options. */
SP_API sp_status_t sp_coo_drop_self_loops(sp_coo_t *coo, int64_t *ndropped);

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
    /* Called as the file is parsed, with the bytes parsed so far of the text's total (after
     * gunzip for .gz): once with 0 at the start, after each piece the reading threads
     * finish (the current readers: 4 pieces per thread, one with one thread), and with
     * bytes_done == bytes_total at the end. Called from a reading thread, one call at a
     * time; it must return quickly and not call the loader. NULL: no reports. */
    void (*progress)(void *user, int64_t bytes_done, int64_t bytes_total);
    void *progress_user; /* passed to progress */
} sp_mtx_options_t;

/* Read a Matrix Market file (plain or gzip, detected by magic number) into a new host
 * COO with values of value_type (SP_R_32F or SP_R_64F; SP_VALUE_NONE keeps no values).
 * Symmetric, skew and hermitian files are expanded (diagonal never duplicated). Entries
 * stay in file order (not sorted, duplicates kept). Errors: SP_STATUS_IO_ERROR,
 * SP_STATUS_PARSE_ERROR ("path:line: ..."), SP_STATUS_NOT_SUPPORTED, ALLOC_FAILED. */
SP_API sp_status_t sp_mtx_read(const char *path, sp_value_type_t value_type,
                               const sp_mtx_options_t *options, sp_coo_t **coo);

/* Per-part read (one rank's rows of a distributed matrix; issue 24): rows
 * [row_begin, row_end) of the matrix sp_mtx_read gives, as a (row_end - row_begin) x ncols
 * COO whose row i is the file's row row_begin + i (columns global), ready for
 * sp_dist_matrix_create_local. Every line is parsed and checked as by sp_mtx_read (errors
 * name path:line); only the entries in the rows are kept (of symmetric, skew and hermitian
 * files also the mirrors that land in them), so memory follows the part, not the file.
 * Array files are read on one thread. INVALID_ARGUMENT naming the argument for a range
 * outside 0 <= row_begin <= row_end <= the file's rows, or with keep_symmetric. */
SP_API sp_status_t sp_mtx_read_rows(const char *path, sp_value_type_t value_type,
                                    const sp_mtx_options_t *options, int64_t row_begin,
                                    int64_t row_end, sp_coo_t **coo);

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
    int nthreads;        /* formatting threads; 0 = all cores (the file is the same) */
} sp_mtx_write_options_t;

/* Write coordinate Matrix Market (1-based), each value with the fewest significant digits
 * that read back (strtod / strtof, sp_mtx_read) to the same bits, in %g's layout
 * (0.1, 1e-300, -2); integer fields as integers. Entries are formatted in chunks on
 * nthreads threads and written in order: any thread count gives the same bytes. Written
 * to a temporary file in the same folder and renamed, so a failure never leaves a partial
 * file at path. */
SP_API sp_status_t sp_mtx_write(const char *path, const sp_coo_t *coo,
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
    /* as sp_mtx_options_t.progress */
    void (*progress)(void *user, int64_t bytes_done, int64_t bytes_total);
    void *progress_user;
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
SP_API sp_status_t sp_edgelist_read(const char *path, sp_value_type_t value_type,
                                    const sp_edgelist_options_t *options, sp_coo_t **coo,
                                    sp_edgelist_info_t *info);

/* Per-part read: the rows (source vertices) [row_begin, row_end) of the graph
 * sp_edgelist_read gives, as a (row_end - row_begin) x n COO whose row i is vertex
 * row_begin + i, as sp_mtx_read_rows (undirected: the reverses that land in the rows kept
 * too). The vertex count n still comes from the whole file; info->edges_read counts the
 * file's edge lines. METIS files are read on one thread. INVALID_ARGUMENT naming the
 * argument for a range outside 0 <= row_begin <= row_end <= n; NOT_SUPPORTED with
 * compact_ids (renumbering needs every rank's ids). */
SP_API sp_status_t sp_edgelist_read_rows(const char *path, sp_value_type_t value_type,
                                         const sp_edgelist_options_t *options,
                                         int64_t row_begin, int64_t row_end, sp_coo_t **coo,
                                         sp_edgelist_info_t *info);

/* Binary cache: a small documented format (magic, version, value type, sizes, flags,
 * checksum) that reloads at disk speed. Written via a temporary file and renamed.
 * Corrupt, truncated or foreign files are refused with SP_STATUS_PARSE_ERROR. */
SP_API sp_status_t sp_coo_save(const char *path, const sp_coo_t *coo);
SP_API sp_status_t sp_coo_load(const char *path, sp_coo_t **coo);

/* ------------------------------------------------------------------------------------
 * Generators (deterministic: the same arguments give the same COO on any machine).
 * ---------------------------------------------------------------------------------- */

/* Graph500 Kronecker graph: 2^scale vertices, edgefactor * 2^scale directed edges drawn
 * with A=.57 B=.19 C=.19, vertex ids permuted, as generated (self loops and duplicates
 * kept; use sp_coo_symmetrize for the undirected graph). Values: uniform in [0,1). */
SP_API sp_status_t sp_gen_kronecker(int scale, int edgefactor, uint64_t seed,
                                    sp_value_type_t value_type, sp_coo_t **coo);
/* Uniform random (Erdos-Renyi style) graph, 2^scale vertices, edgefactor * 2^scale edges.
 * Both: scale up to 30; the edge count only as memory allows (scale 30 with edge factor
 * 16 is 2^34 entries); SP_STATUS_ALLOC_FAILED names the bytes when it does not. */
SP_API sp_status_t sp_gen_uniform(int scale, int edgefactor, uint64_t seed,
                                  sp_value_type_t value_type, sp_coo_t **coo);
/* Poisson matrices on an n x n (x n) grid, Dirichlet boundary: 2D 5-point (4 on the
 * diagonal, -1 off), 3D 7-point (6, -1) and 3D 27-point (26, -1). Sorted, merged. Rows
 * below 2^31 (above: SP_STATUS_NOT_SUPPORTED); entries as memory allows (3D 7-point 700^3
 * has 2.4 x 10^9), SP_STATUS_ALLOC_FAILED naming the bytes when it does not. */
SP_API sp_status_t sp_gen_poisson2d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo);
SP_API sp_status_t sp_gen_poisson3d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo);
SP_API sp_status_t sp_gen_poisson3d27(int64_t n, sp_value_type_t value_type, sp_coo_t **coo);
/* 2D n x n grid graph (road-like, 4 neighbours, undirected, diameter 2n-2). */
SP_API sp_status_t sp_gen_grid2d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo);

/* Shapes real matrices have (sp_gen_shape; entries in row order, values uniform in [0,1),
 * duplicates of random columns possible: sp_matrix_create merges them). */
typedef enum sp_gen_kind {
    SP_GEN_POWERLAW = 0, /* row lengths Pareto with the given exponent (1.5-3 typical),
                            scaled to mean when it is finite; uniform columns */
    SP_GEN_DENSE_LINES,  /* `dense` full rows and `dense` full columns over rows of
                            about `mean` uniform columns */
    SP_GEN_RECT,         /* nrows x ncols (tall or wide), `mean` uniform columns a row */
    SP_GEN_BANDED,       /* bands centred on the diagonal, in 8 sections of rows with
                            half-bandwidths band, band/2, ..., 1 */
    SP_GEN_BLOCKS,       /* FEM-like: dense block x block blocks, `mean` blocks a block row
                            (its own and neighbours within 64 blocks) */
    SP_GEN_CIRCUIT       /* the diagonal, 2 random entries a row, and `dense` evenly spaced
                            rows of ncols / 8 random entries */
} sp_gen_kind_t;

typedef struct sp_gen_shape {
    sp_gen_kind_t kind;
    int64_t nrows, ncols;
    double mean;     /* entries a row (POWERLAW, DENSE_LINES, RECT), blocks a row (BLOCKS) */
    double exponent; /* POWERLAW */
    int64_t dense;   /* DENSE_LINES: dense rows and columns; CIRCUIT: long rows */
    int64_t block;   /* BLOCKS: 3, 6, ... (1..64) */
    int64_t band;    /* BANDED: the widest half-bandwidth */
    uint64_t seed;
} sp_gen_shape_t;

/* A matrix of shape g (deterministic in g). Rows or columns beyond 32-bit indices are
 * refused with SP_STATUS_NOT_SUPPORTED naming the count; entries past 2^31 are made as
 * memory allows (SP_STATUS_ALLOC_FAILED naming the bytes when it does not). */
SP_API sp_status_t sp_gen_shape(const sp_gen_shape_t *g, sp_value_type_t value_type,
                                sp_coo_t **coo);

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
SP_API sp_status_t sp_context_create(sp_device_kind_t kind, const sp_context_options_t *options,
                                     sp_context_t **ctx);
SP_API void sp_context_destroy(sp_context_t *ctx);
SP_API sp_device_kind_t sp_context_kind(const sp_context_t *ctx);
/* Last error message recorded on this context ("" if none). */
SP_API const char *sp_context_last_error(const sp_context_t *ctx);
/* Wait until all work queued on the context's stream is done (no-op on the host). */
SP_API sp_status_t sp_context_synchronize(sp_context_t *ctx);

typedef struct sp_device_info {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    int64_t global_mem_bytes;
    int64_t l2_bytes;
    int64_t shared_mem_per_block;
} sp_device_info_t;
/* Host contexts report name "host" and zero sizes. */
SP_API sp_status_t sp_context_device_info(const sp_context_t *ctx, sp_device_info_t *info);

/* ---- Device memory accounting (issue 20: lean device memory) ---------------------
 * What the context's own allocator holds for libsp (formats, plans, caches, scratch of a
 * call), so a caller can measure a phase: reset the peak, run the phase, read the peak.
 * Memory the caller allocated itself (vectors made with cudaMalloc, for example) is not
 * counted; sp_vector_t vectors on the context are. */
typedef struct sp_memory_stats {
    int64_t current_bytes; /* held now */
    int64_t peak_bytes;    /* the most held at once since the context was created or since
                              the last sp_context_memory_reset_peak (>= current_bytes) */
} sp_memory_stats_t;

/* The context's figures. A CUDA context with its own memory pool (no allocator hooks in
 * sp_context_options_t) reads the pool's used-memory counters (cudaMemPoolAttrUsedMemCurrent
 * and UsedMemHigh; sizes as the pool rounds them) after synchronizing the context's stream,
 * so frees queued on it are counted. With the caller's allocator hooks the context counts
 * the bytes it asks them for and gives back, as it calls them (a table of its live blocks,
 * kept in host memory; no synchronization). SP_STATUS_NOT_SUPPORTED, with the reason in the
 * message, on a host context (host arrays come from the process-wide sp_set_host_allocator
 * hooks, shared by every context and every function without one). out is untouched on
 * failure. */
SP_API sp_status_t sp_context_memory(sp_context_t *ctx, sp_memory_stats_t *out);
/* Start a new peak: afterwards peak_bytes counts from what is held now. Synchronizes the
 * context's stream (with its own pool). The same refusal as sp_context_memory. */
SP_API sp_status_t sp_context_memory_reset_peak(sp_context_t *ctx);

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
SP_API const char *sp_format_name(sp_format_t format);
/* Inverse of sp_format_name; SP_STATUS_INVALID_ARGUMENT naming the string if unknown. */
SP_API sp_status_t sp_format_parse(const char *name, sp_format_t *format);

/* zero-initialised (or NULL) means the defaults. */
typedef struct sp_matrix_options {
    sp_dup_policy_t duplicates; /* default SP_DUP_SUM */
    int64_t ell_max_bytes;      /* ELL refused if larger; 0: a multiple of the CSR bytes
                                   (src/policy.c: 4 x + 1 MiB) */
    int64_t hyb_ell_width;      /* > 0 forces the ELL width of HYB; 0: Bell-Garland rule */
    int sell_c;                 /* SELL slice height; 0: src/policy.c's (32) */
    int sell_sigma;             /* SELL sorting window (multiple of C); 0: src/policy.c's
                                   multiple of C (32 * C) */
    int64_t long_row_bound;     /* ELL, JDS, SELL: rows longer than this are kept whole in
                                   the format's tail (COO, added by a kernel balanced over
                                   entries), so no slice, diagonal or ELL width is padded
                                   to them; 0: src/policy.c's (4 x mean + 32; ELL: also
                                   at most 2 x mean, and JDS/SELL too when a row is longer
                                   than 4 x mean + 32 and all rows' threads fit the GPU at
                                   once, 2048 an SM); < 0: none. CSR scalar and vector
                                   hand the rows longer than it (0: 8 x mean + 32) to
                                   warp pieces */
    int offset_bits;            /* width of CSR/CSC row (column) pointers: 0 chooses (32
                                   below 2^31 entries, else 64), 32 or 64 forces it (32 with
                                   more entries: SP_STATUS_NOT_SUPPORTED; other values:
                                   SP_STATUS_INVALID_ARGUMENT). 64-bit offsets run below
                                   2^31 entries in everything (the pointers narrowed to 32
                                   bits where a reader needs them); past it in every format
                                   and SpMV in it (CSR: csr/scalar, vector, merge, split;
                                   JDS and SELL with 64-bit offsets of their own),
                                   sp_spmv_tune (it times what serves), BFS, sp_sptrsv and
                                   the solvers (every loop);
                                   the rest refuses them there with
                                   SP_STATUS_NOT_SUPPORTED (issue 20) */
    int pattern_symmetric;      /* nonzero: the caller asserts that entry (i,j) is present
                                   iff (j,i) is (square; values may differ), as the COO flag
                                   SP_COO_SYMMETRIC_PATTERN (or SP_COO_SYMMETRIC_EXPANDED)
                                   says, which is taken as well. Trusted, not checked: BFS
                                   on a CUDA context pulls through the CSR (in-edges equal
                                   out-edges) and builds no CSC; a wrong assertion gives
                                   wrong pull levels (issue 20) */
} sp_matrix_options_t;

typedef struct sp_matrix sp_matrix_t;

/* Copy a host COO onto the context, sort it by (row, col) and merge duplicates by the
 * policy (on a CUDA context: uploaded, then sorted and merged on the GPU, which
 * synchronizes the context's stream once). The COO is not modified and may be freed
 * afterwards. Pattern COOs give a pattern matrix (BFS only; SpMV refuses it). */
SP_API sp_status_t sp_matrix_create(sp_context_t *ctx, const sp_coo_t *coo,
                                    const sp_matrix_options_t *options, sp_matrix_t **A);
SP_API void sp_matrix_destroy(sp_matrix_t *A);

/* Build a format (if not cached) on A's context. ELL larger than ell_max_bytes is
 * refused with SP_STATUS_NOT_SUPPORTED giving the bytes it would need.
 * On a CUDA context with its own memory pool, an upload (sp_matrix_create) or build that
 * cannot fit in the device's free memory is refused before any work with
 * SP_STATUS_ALLOC_FAILED giving the bytes needed and free. */
SP_API sp_status_t sp_matrix_build(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format);
/* Drop a built format to free its memory. The COO too once the CSR is built (issue 20: past
 * 2^31 entries the device COO is as large as the CSR): the matrix keeps its counts, the CSR
 * may then not go until the COO is built again (SP_STATUS_INVALID_ARGUMENT naming which is
 * the only copy), and whatever reads the COO (a COO product, the edge-centric BFS,
 * sp_matrix_build(COO), its view) makes it again from the CSR, the same arrays. */
SP_API sp_status_t sp_matrix_release(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format);

typedef struct sp_matrix_info {
    int64_t nrows, ncols, nnz; /* after duplicate merging */
    sp_value_type_t value_type;
    int64_t row_min, row_max, empty_rows;
    double row_mean, row_stddev;
    int64_t bytes[SP_FORMAT_COUNT]; /* bytes of each built format, 0 if not built */
    int64_t ell_width;              /* ELL: its width (longest row outside its tail) */
    int64_t hyb_ell_width, hyb_coo_nnz;
    int sell_c, sell_sigma;
    int64_t sell_padded_nnz;        /* stored slots of SELL including padding */
    int64_t duplicates_merged;
    int64_t long_row_bound;         /* rows longer go to the tail of JDS/SELL (INT64_MAX:
                                       none) */
    int64_t ell_long_row_bound;     /* and of ELL */
    int64_t ell_tail_nnz, jds_tail_nnz, sell_tail_nnz; /* entries in each built tail */
    int offset_bits;                /* 32 or 64: the width of CSR/CSC pointers
                                       (sp_matrix_options_t.offset_bits resolved) */
    int pattern_symmetric;          /* 1: recorded as pattern-symmetric at sp_matrix_create
                                       (the COO's flag or the option), so BFS pulls through
                                       the CSR (bytes[SP_FORMAT_CSC] stays 0) */
    int ell_value_table, hyb_value_table; /* entries of the built ELL's (HYB's ELL part's)
                                       value table (sp_format_view_t.ell), 0: none */
} sp_matrix_info_t;

SP_API sp_status_t sp_matrix_info(const sp_matrix_t *A, sp_matrix_info_t *info);

/* A built format's arrays in host memory, for inspection and tests. On a host context
 * they point into the matrix; on a CUDA context the format is first copied to a host
 * mirror kept in the matrix (synchronizing the context's stream). Either way they stay
 * valid until the format is released or the matrix destroyed. Only the member named for
 * `format` is set (the others are zero). Values (`val`) are float or double per value_type,
 * one per index of the array beside them. */
typedef struct sp_format_view {
    sp_format_t format;
    int64_t nrows, ncols, nnz;
    sp_value_type_t value_type;
    struct { /* nnz entries sorted by (row, col) */
        const int32_t *row, *col;
        const void *val;
    } coo;
    struct { /* row_ptr: nrows + 1; col, val: nnz */
        const int32_t *row_ptr, *col;
        const void *val;
    } csr;
    struct { /* col_ptr: ncols + 1; row, val: nnz */
        const int32_t *col_ptr, *row;
        const void *val;
    } csc;
    struct { /* nrows x width slots, column-major, padding col -1 */
        int64_t width;
        const int32_t *col;
        const void *val;
        /* the value table, when the matrix has at most 256 distinct values (compared by
           bit pattern; the SpMV then reads a byte a slot instead of a value): ntable
           values (1..256; 0: no table, code and table NULL) ascending by bit pattern, and
           code, nrows x width bytes laid out as col, with val[s] == table[code[s]] at
           every stored slot (padding: code 0). Built on both contexts alike. */
        const unsigned char *code;
        const void *table;
        int ntable;
    } ell;
    struct { /* an ELL part (nrows x ell_width, as ell) and the overflow as row-sorted COO */
        int64_t ell_width;
        const int32_t *ell_col;
        const void *ell_val;
        int64_t coo_nnz;
        const int32_t *coo_row, *coo_col;
        const void *coo_val;
        /* the ELL part's value table, as ell's (its count covers the overflow's values) */
        const unsigned char *ell_code;
        const void *ell_table;
        int ell_ntable;
    } hyb;
    struct { /* rows sorted by length (perm[i]: the original row of sorted row i), stored by
                jagged diagonal: jd_ptr (njd + 1), col and val (jd_ptr[njd] = nnz - tail.nnz) */
        int64_t njd;
        const int32_t *jd_ptr, *perm, *col;
        const void *val;
    } jds;
    struct { /* slices of c rows (sorted by length in windows of sigma rows; perm as JDS's),
                each padded to its slice_width, column-major: slice_ptr (nslices + 1) into
                col and val (padded slots) */
        int64_t c, sigma, nslices, padded;
        const int32_t *slice_ptr, *slice_width, *perm, *col;
        const void *val;
    } sell;
    struct { /* ELL, JDS, SELL: the rows longer than the long-row bound (sp_matrix_info_t),
                whole, as row-sorted COO (tail.nnz entries); they are empty rows above */
        int64_t nnz;
        const int32_t *row, *col;
        const void *val;
    } tail;
    /* CSR, CSC of a matrix with 64-bit offsets (sp_matrix_info_t.offset_bits): the
       pointers, with csr.row_ptr (csc.col_ptr) NULL; NULL for 32-bit offsets */
    const int64_t *row_ptr64, *col_ptr64;
    /* JDS, SELL built with 64-bit offsets of their own (a matrix with 64-bit offsets past
       the narrow limit of 2^31 - 1 entries, issue 20): the diagonal pointers (slice
       offsets), with jds.jd_ptr (sell.slice_ptr) NULL; else NULL */
    const int64_t *jd_ptr64, *slice_ptr64;
} sp_format_view_t;

SP_API sp_status_t sp_matrix_view(sp_matrix_t *A, sp_format_t format, sp_format_view_t *view);

/* ------------------------------------------------------------------------------------
 * SpMV: y = alpha * A * x + beta * y.
 * ---------------------------------------------------------------------------------- */
typedef enum sp_spmv_alg {
    SP_SPMV_ALG_DEFAULT = 0,
    SP_SPMV_ALG_COO_ATOMIC = 1,
    SP_SPMV_ALG_COO_SEGMENTED = 2,
    SP_SPMV_ALG_CSR_SCALAR = 3,
    SP_SPMV_ALG_CSR_VECTOR = 4,
    SP_SPMV_ALG_CSR_MERGE = 5,
    SP_SPMV_ALG_CSR_SPLIT = 6,  /* load-balanced by equal chunks of entries, a warp each */
    SP_SPMV_ALG_CSR_BINNED = 7, /* rows binned by length: a thread, sub-warp or warp per row,
                                   warps sharing the longest rows (one launch) */
    SP_SPMV_ALG_CSR_ADAPTIVE = 8 /* blocks of consecutive short rows loaded in memory order
                                    through shared memory, warps sharing the longest rows
                                    (one launch) */
} sp_spmv_alg_t;

/* The untyped form. alpha and beta: host pointers to one value of A's type. x (ncols) and
 * y (nrows): in the context's memory (host memory on a host context, device memory on
 * CUDA), of A's type. beta == 0 never reads y (NaN in y does not leak). The format is
 * built and cached first if needed. SP_FORMAT_AUTO: see sp_spmv_choose_format; DEFAULT on
 * CSR: the rule in src/policy.c (from A's row statistics, per GPU architecture). On
 * failure y is untouched. Nothing checks that the pointers hold A's type: the typed forms
 * below do. */
SP_API sp_status_t sp_spmv(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg,
                           const void *alpha, sp_matrix_t *A, const void *x, const void *beta,
                           void *y);

/* Typed forms of sp_spmv: alpha and beta by value. A whose values are of another type is
 * refused with SP_STATUS_INVALID_ARGUMENT naming both ("sp_spmv_f64: A holds float values
 * (SP_R_32F), not double"). */
SP_API sp_status_t sp_spmv_f64(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg,
                               double alpha, sp_matrix_t *A, const double *x, double beta,
                               double *y);
SP_API sp_status_t sp_spmv_f32(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg,
                               float alpha, sp_matrix_t *A, const float *x, float beta, float *y);

typedef struct sp_vector sp_vector_t; /* vectors on a context: see below */

/* sp_spmv on vectors: y = alpha * A * x + beta * y, alpha and beta rounded to A's type. x
 * (ncols values) and y (nrows), distinct, on ctx and of A's type, else
 * SP_STATUS_INVALID_ARGUMENT naming the vector and both types or lengths. */
SP_API sp_status_t sp_spmv_vec(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg,
                               double alpha, sp_matrix_t *A, const sp_vector_t *x, double beta,
                               sp_vector_t *y);

/* Everything sp_spmv with this format and algorithm needs, made now (cf.
 * cusparseSpMV_preprocess): the format is built (SP_FORMAT_AUTO resolved) and, on a CUDA
 * context, the algorithm's plan and scratch are made and cached in A. After it, until the
 * format is released or A destroyed, sp_spmv (and the typed forms) with the same format
 * and alg neither allocates nor synchronizes: one cudaGetDevice and its kernel launches.
 * May synchronize the stream itself. On a host context it builds the format. A failed
 * call leaves A's formats as they were. */
SP_API sp_status_t sp_spmv_prepare(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format,
                                   sp_spmv_alg_t alg);

/* Pick A's SpMV format and algorithm once, for repeated products (a solver's): on a CUDA
 * context each candidate (CSR scalar, vector, merge, binned, adaptive; ELL, HYB, JDS, SELL)
 * is built, prepared and timed on A (3 warm-up and 10 timed calls between CUDA events, x
 * and y in scratch of the context's allocator), the fastest is kept and the formats built
 * only for the timing are released; on a host context the cost model's pick
 * (sp_spmv_choose_format's, deterministic). The choice is cached in A: from then on
 * SP_FORMAT_AUTO (sp_spmv*, sp_spmv_prepare, sp_spmv_choose_format) means it, with its
 * algorithm where alg is SP_SPMV_ALG_DEFAULT, prepared (sp_spmv_prepare). It costs the
 * builds of every format plus about 13 products each, once; CSR plans made before it are
 * made again on their next use. With 64-bit offsets past 2^31 entries only the candidates
 * that serve there are timed (CSR binned and adaptive are left out). format and alg
 * may be NULL. */
SP_API sp_status_t sp_spmv_tune(sp_context_t *ctx, sp_matrix_t *A, sp_format_t *format,
                                sp_spmv_alg_t *alg);
/* The format SP_FORMAT_AUTO would choose for A: sp_spmv_tune's choice once A has one, else
 * a cost model over A's statistics (row lengths and their histogram, the bytes each format
 * would move with its padding and long-row tail, one thread's longest walk, how local the
 * gathers of x are), with per-architecture constants: sp__policy_spmv_choose in
 * src/policy.c, which also picks CSR's algorithm for SP_SPMV_ALG_DEFAULT under AUTO. The
 * pick is CSR, ELL, SELL, JDS or, while A keeps its COO (not released), COO with
 * SP_SPMV_ALG_COO_ATOMIC under AUTO (small matrices with rows of several warp pieces; its
 * sums are added by atomics, so their rounding may differ from call to call, as with the
 * long-row tails of ELL, SELL and JDS; a solver set up on A runs CSR instead). On a
 * CUDA context a format not yet built whose build would not fit what the device can still
 * give the context gives way to CSR (with the model's CSR algorithm): AUTO never fails a
 * product CSR can do for want of room for a faster format (at 2.4G entries ELL beside the
 * CSR is tens of GB). The pick can so depend on the room at the time of the call. Once the
 * pick is built (and not for want of room), it is kept in A, so AUTO costs a call nothing,
 * until a format of A is built or released. */
SP_API sp_status_t sp_spmv_choose_format(const sp_context_t *ctx, const sp_matrix_t *A,
                                         sp_format_t *format);

/* ------------------------------------------------------------------------------------
 * BFS on a graph stored as a square matrix (edge i -> j is entry (i, j)).
 * ---------------------------------------------------------------------------------- */
typedef enum sp_bfs_variant {
    SP_BFS_AUTO = 0,
    SP_BFS_PUSH = 1,          /* vertex-centric push over CSR */
    SP_BFS_PULL = 2,          /* vertex-centric pull over CSC (the CSR where the pattern
                                 is symmetric: sp_matrix_info_t.pattern_symmetric) */
    SP_BFS_EDGE = 3,          /* edge-centric over COO */
    SP_BFS_FRONTIER = 4,      /* frontier queue push */
    SP_BFS_PRIVATIZED = 5,    /* block-private frontier queues */
    SP_BFS_DIRECTION_OPT = 6  /* Beamer's push/pull switching */
} sp_bfs_variant_t;

typedef enum sp_bfs_loop {
    SP_BFS_LOOP_AUTO = 0,
    SP_BFS_LOOP_HOST = 1,        /* one launch per level */
    SP_BFS_LOOP_SINGLE_BLOCK = 2,
    SP_BFS_LOOP_PERSISTENT = 3,  /* soft-synchronized single kernel */
    SP_BFS_LOOP_GRAPH = 4        /* a CUDA graph whose device-side while node runs the
                                    levels: one launch per search, decisions on the GPU */
} sp_bfs_loop_t;

/* "auto", "push", "pull", "edge", "frontier", "privatized", "direction_opt" and "auto",
 * "host", "single_block", "persistent", "graph"; NULL for an unknown value. */
SP_API const char *sp_bfs_variant_name(sp_bfs_variant_t variant);
SP_API const char *sp_bfs_loop_name(sp_bfs_loop_t loop);

/* What the caller asks of a search (in; sp_bfs never writes the struct). Zero-initialise
 * it: all zeros is the defaults (AUTO, AUTO, Beamer's 15 and 18, no timing, no records).
 * The per-level records are optional host arrays the caller owns; each given one holds
 * frontier_capacity entries per search, and sp_bfs_multi's search i writes its records at
 * entry i * frontier_capacity (so nsources * frontier_capacity entries in all). Entry l
 * describes level l (the source's is 0); a capacity above the number of levels leaves the
 * rest at 0 (sizes) or -1 (directions, times). frontier_capacity > 0 needs at least one
 * array, and a given array needs frontier_capacity > 0. */
typedef struct sp_bfs_options {
    sp_bfs_variant_t variant;
    sp_bfs_loop_t loop;
    double alpha, beta;        /* direction optimization; 0: 15 and 18 */
    int measure_time;          /* 1: time each search into stats->time_ms and search_ms
                                  (and the levels into level_times_ms) */
    int64_t frontier_capacity; /* entries per search in each array below (0: no records) */
    int64_t *frontier_sizes;   /* optional: the number of vertices of each level */
    int32_t *directions;       /* optional: SP_BFS_DIR_PUSH or _PULL for the step that
                                  expanded each level (the last level's step included) */
    double *level_times_ms;    /* optional: GPU time of the step that expanded each level,
                                  with measure_time, on loops HOST and GRAPH; -1 where not
                                  measured (no measure_time, host context, other loops) */
} sp_bfs_options_t;

/* What a search found (out only: sp_bfs writes every field of each search's stats and
 * reads none). On a GPU, edges_traversed counts the out-edges of the reached vertices
 * (what a push BFS scans), whatever the variant examined, so it is the same on every
 * executor. */
typedef struct sp_bfs_stats {
    int64_t levels;                /* number of non-empty levels, source's included */
    int64_t vertices_visited;      /* reachable vertices, source included */
    int64_t edges_traversed;       /* directed edges examined */
    int64_t direction_switches;    /* push <-> pull changes */
    double time_ms;                /* with options->measure_time: host wall clock of the
                                      search as the caller pays it, results on the host: in
                                      sp_bfs the whole call (checks, AUTO, any build not
                                      cached yet, the search, every read-back); in
                                      sp_bfs_multi search i from the end of search i - 1
                                      (search 0 from the call's start), so the times add up
                                      to the call; 0 without */
    sp_bfs_variant_t variant_used; /* the variant that ran (never SP_BFS_AUTO) */
    sp_bfs_loop_t loop_used;       /* the level loop that ran (never _AUTO) */
    double search_ms;              /* with options->measure_time: the traversal alone, CUDA
                                      events on the context's stream from its first kernel
                                      to its last (the host loop's per-level round trips
                                      inside; setup and the final read-back outside); the
                                      reference's wall clock on a host context; 0 without */
} sp_bfs_stats_t;

typedef enum sp_bfs_direction {
    SP_BFS_DIR_PUSH = 0, /* top-down: the frontier's out-edges */
    SP_BFS_DIR_PULL = 1  /* bottom-up: the unvisited vertices' in-edges */
} sp_bfs_direction_t;

/* Breadth-first search from source. level[v]: hops from source, -1 if unreachable
 * (nrows entries, required). parent[v]: a vertex u with edge (u, v) and level[u] =
 * level[v] - 1, parent[source] = source, -1 if unreachable (optional, may be NULL).
 * level and parent are in the context's memory. stats (out, may be NULL) gets what the
 * search found; options (in, NULL: all defaults) pick the variant, the level loop, timing
 * and the per-level record arrays (sp_bfs_options_t says what each receives):
 *  - on a host context every variant runs the reference queue BFS (loop HOST);
 *  - on a CUDA context with loop HOST (a few launches and one 24-byte read-back per level)
 *    every variant runs; the formats it needs are built and cached in G (CSR always, CSC
 *    for PULL and DIRECTION_OPT unless G is pattern-symmetric, whose CSR serves as its
 *    in-edges: sp_matrix_options_t.pattern_symmetric). DIRECTION_OPT pushes while the
 *    frontier's out-edges m_f <= m_u / alpha (m_u: out-edges of unvisited vertices), then
 *    pulls while the frontier grows or holds more than n / beta vertices;
 *  - loops SINGLE_BLOCK and PERSISTENT run the frontier-queue push inside the GPU (no
 *    host round trip per level) and take variant FRONTIER or AUTO only (other
 *    combinations: SP_STATUS_NOT_SUPPORTED naming both);
 *  - loop GRAPH runs FRONTIER, PULL or DIRECTION_OPT (the same kernels and rule as the
 *    host loop, the direction decided on the GPU) as one CUDA graph launch per search,
 *    whose while node repeats the level step until the frontier is empty (needs a driver
 *    of CUDA 12.4 or later); the graph is built once per matrix and options (cached);
 *  - AUTO picks from the graph's size and degrees (stats->variant_used and loop_used say
 *    what ran).
 * The call synchronizes the context's stream once per level on the host loop, once per
 * search on the others (the graph loop also twice while its graph is built). What a search
 * needs beyond its outputs is made once and cached in G (sp_bfs_prepare says what and for
 * how long), so repeated calls with the same options pay only the search. Everything it
 * allocates (formats, scratch) is allocated before the first search writes an output, so a
 * call failing for memory leaves level, parent, stats, the record arrays and G's formats as
 * they were. */
SP_API sp_status_t sp_bfs(sp_context_t *ctx, sp_matrix_t *G, int64_t source,
                          const sp_bfs_options_t *options, int32_t *level, int32_t *parent,
                          sp_bfs_stats_t *stats);

/* Make now what sp_bfs and sp_bfs_multi with these options (NULL: defaults) need beyond
 * their outputs, so that those calls pay only the search (cf. cusparseSpMV_preprocess):
 * AUTO resolved, the formats built (CSR; CSC for PULL and DIRECTION_OPT on a GPU unless G
 * is pattern-symmetric), and a
 * cache kept in G: the level loops' scratch, the graph loop's instantiated CUDA graph and
 * the timing events on a CUDA context, the reference's queue on a host context. G keeps
 * one such cache, for the last options it was used with (variant, loop, alpha, beta, and
 * room for frontier_capacity records); a search with other options makes it anew, and
 * releasing G's CSR or CSC, or destroying G, frees it. sp_bfs makes it on its first call
 * too, so prepare only moves that cost out of the first search. After a successful
 * prepare, a search with the same options allocates nothing. Arguments are checked as
 * sp_bfs checks them; on failure G's formats are as they were and no cache is left. */
SP_API sp_status_t sp_bfs_prepare(sp_context_t *ctx, sp_matrix_t *G,
                                  const sp_bfs_options_t *options);

/* nsources independent searches, one after the other with the same scratch: search i
 * from sources[i] (host array) writes level + i * n and, when parent is not NULL,
 * parent + i * n (n = G's rows; context memory), stats[i] when stats is not NULL, and
 * entries i * frontier_capacity on of each record array options gives (one options for
 * all searches). Arguments are checked for every source before any search runs. */
SP_API sp_status_t sp_bfs_multi(sp_context_t *ctx, sp_matrix_t *G, int64_t nsources,
                                const int64_t *sources, const sp_bfs_options_t *options,
                                int32_t *level, int32_t *parent, sp_bfs_stats_t *stats);

/* ------------------------------------------------------------------------------------
 * Vectors on a context, and the vector steps of iterative solvers.
 *
 * A vector holds n values of one real type (SP_R_32F or SP_R_64F) in the context's
 * memory. Steps compute in double and round each stored value once to the vector's type;
 * reductions (dot, nrm2) sum in double for both types. On a CUDA context reductions are
 * deterministic: the same inputs give the same bits on every run (fixed block count and
 * order), and equal the host context's result within rounding. A reduction returns its
 * result either on the host (the "h_result" forms: one synchronization of the context's
 * stream) or into a slot of an SP_R_64F vector on the context (the "_async" forms: no
 * synchronization; read the slots later with sp_vector_copy_to_host, several at once).
 * Vectors of one call must be on the given context and, except result vectors, share
 * type and length. On failure the outputs are untouched.
 * ---------------------------------------------------------------------------------- */
/* A vector of n values of type (SP_R_32F or SP_R_64F) on ctx: a copy of the n values at
 * h_values (host memory, the vector's type), or zeros when h_values is NULL. With
 * h_values on a CUDA context the stream is synchronized once (h_values may be reused
 * when the call returns). n above INT32_MAX: SP_STATUS_NOT_SUPPORTED. */
SP_API sp_status_t sp_vector_create(sp_context_t *ctx, sp_value_type_t type, int64_t n,
                                    const void *h_values, sp_vector_t **v);
/* Accepts NULL. Work queued on the vector stays valid (memory is freed in stream order). */
SP_API void sp_vector_destroy(sp_vector_t *v);
/* Length and value type (0 and SP_VALUE_NONE for NULL). */
SP_API int64_t sp_vector_length(const sp_vector_t *v);
SP_API sp_value_type_t sp_vector_value_type(const sp_vector_t *v);
/* The values in the context's memory (device memory on CUDA), e.g. for sp_spmv or
 * sp_sptrsv; valid until the vector is destroyed. Work on them must be queued on the
 * context's stream (or ordered with it by the caller). */
SP_API void *sp_vector_data(sp_vector_t *v);
/* Copy n values between host memory and the vector; on CUDA both synchronize the
 * context's stream once (so every earlier step on it is finished). */
SP_API sp_status_t sp_vector_copy_from_host(sp_context_t *ctx, sp_vector_t *v,
                                            const void *h_values);
SP_API sp_status_t sp_vector_copy_to_host(sp_context_t *ctx, const sp_vector_t *v, void *h_values);
/* v[i] = value (rounded to v's type). No synchronization. */
SP_API sp_status_t sp_vector_fill(sp_context_t *ctx, sp_vector_t *v, double value);
/* dst = src (same type and length). No synchronization. */
SP_API sp_status_t sp_vector_copy(sp_context_t *ctx, const sp_vector_t *src, sp_vector_t *dst);
/* x = alpha * x; alpha == 0 stores zeros without reading x. No synchronization. */
SP_API sp_status_t sp_vector_scale(sp_context_t *ctx, double alpha, sp_vector_t *x);
/* y = alpha * x + beta * y; beta == 0 never reads y (NaN in y does not leak); x may be y.
 * No synchronization. */
SP_API sp_status_t sp_vector_axpby(sp_context_t *ctx, double alpha, const sp_vector_t *x,
                                   double beta, sp_vector_t *y);
/* *h_result = x . y, or ||x||_2; the host result synchronizes the stream once. */
SP_API sp_status_t sp_vector_dot(sp_context_t *ctx, const sp_vector_t *x, const sp_vector_t *y,
                                 double *h_result);
SP_API sp_status_t sp_vector_nrm2(sp_context_t *ctx, const sp_vector_t *x, double *h_result);
/* y = alpha * x + beta * y and *h_result = ||y||_2 of the new y, in one pass over the
 * vectors (a solver's residual update); synchronizes the stream once. */
SP_API sp_status_t sp_vector_axpby_nrm2(sp_context_t *ctx, double alpha, const sp_vector_t *x,
                                        double beta, sp_vector_t *y, double *h_result);
/* The same three with the result written to result[index] (an SP_R_64F vector on ctx)
 * instead: no synchronization; the value is there for any later step on the stream. */
SP_API sp_status_t sp_vector_dot_async(sp_context_t *ctx, const sp_vector_t *x,
                                       const sp_vector_t *y,
                                       sp_vector_t *result, int64_t index);
SP_API sp_status_t sp_vector_nrm2_async(sp_context_t *ctx, const sp_vector_t *x,
                                        sp_vector_t *result,
                                        int64_t index);
SP_API sp_status_t sp_vector_axpby_nrm2_async(sp_context_t *ctx, double alpha, const sp_vector_t *x,
                                              double beta, sp_vector_t *y, sp_vector_t *result,
                                              int64_t index);

/* ------------------------------------------------------------------------------------
 * Sparse triangular solve on one triangle of a square matrix's own CSR.
 * ---------------------------------------------------------------------------------- */
typedef enum sp_uplo {
    SP_UPLO_LOWER = 0, /* entries with col <= row */
    SP_UPLO_UPPER = 1  /* entries with col >= row */
} sp_uplo_t;

typedef enum sp_diag {
    SP_DIAG_NON_UNIT = 0, /* the stored diagonal; every row must have a non-zero one */
    SP_DIAG_UNIT = 1      /* the diagonal taken as 1, stored diagonal entries ignored */
} sp_diag_t;

typedef enum sp_sptrsv_alg {
    SP_SPTRSV_ALG_AUTO = 0,     /* CUDA: SOFT_SYNC, or LEVELS for a triangle of few or
                                   narrow levels (chains); the rule and its thresholds:
                                   src/policy.c */
    SP_SPTRSV_ALG_LEVELS = 1,   /* level scheduling, one launch per dependency level */
    SP_SPTRSV_ALG_SOFT_SYNC = 2 /* one kernel, no relaunch per level: blocks of rows in
                                   level order by ticket, each row waiting on the rows it
                                   needs (src/policy.c names the kernel) */
} sp_sptrsv_alg_t;

/* x = alpha * T^-1 * b, T the uplo triangle of A (the other triangle's entries ignored, so
 * a full A gives D+L or D+U without a copy). alpha: host pointer to one value of A's type.
 * b and x: n values of A's type in the context's memory, not overlapping. A row of a
 * non-unit triangle without a non-zero diagonal entry is refused with
 * SP_STATUS_INVALID_ARGUMENT naming the row. On a CUDA context the analysis of (uplo,
 * diag, alg) is made on the first call and cached in A until its CSR is released or A
 * destroyed; solves queue on the stream without synchronizing (the analysis may
 * synchronize once). A failed call leaves x and A's formats as they were. Host contexts
 * run the sequential substitution whatever alg says. */
SP_API sp_status_t sp_sptrsv(sp_context_t *ctx, sp_matrix_t *A, sp_uplo_t uplo, sp_diag_t diag,
                             sp_sptrsv_alg_t alg, const void *alpha, const void *b, void *x);
/* The analysis sp_sptrsv makes on its first call with (uplo, diag, alg), made now and
 * cached in A (cuSPARSE's SpSV_analysis step), so that every sp_sptrsv with the same
 * arguments only solves. Refusals as sp_sptrsv's (a missing diagonal names the row). May
 * synchronize the context's stream. On a host context: the checks and A's CSR only. */
SP_API sp_status_t sp_sptrsv_analyse(sp_context_t *ctx, sp_matrix_t *A, sp_uplo_t uplo,
                                     sp_diag_t diag, sp_sptrsv_alg_t alg);

/* ------------------------------------------------------------------------------------
 * Iterative solvers: create -> (options) -> setup(A) -> solve(b, x) ... -> result ->
 * destroy. The iteration runs the library's steps on the solver's context (driven from
 * the host, or looped on the device: sp_solver_options_t.loop), so a solver gives the
 * same answer (within rounding) on a host and a CUDA context. Not converging is not an
 * error: sp_solver_solve returns SP_STATUS_SUCCESS and sp_solver_result says what
 * happened.
 * ---------------------------------------------------------------------------------- */
typedef enum sp_solver_type {
    SP_SOLVER_CG = 0,          /* conjugate gradient (A symmetric positive definite) */
    SP_SOLVER_PCG_JACOBI = 1,  /* CG preconditioned by the diagonal */
    SP_SOLVER_PCG_SGS = 2,     /* CG preconditioned by symmetric Gauss-Seidel:
                                  M = (D+L) D^-1 (D+U) applied by two triangular solves on
                                  A's own triangles (no factorization, no copies) */
    SP_SOLVER_BICGSTAB = 3     /* BiCGSTAB (van der Vorst) for non-symmetric A */
} sp_solver_type_t;

/* How the iteration loop runs. Every form gives the step loop's iterations on
 * well-conditioned systems (CG family within one; BiCGSTAB, whose residuals are not
 * monotone, within a few percent; on an ill-conditioned one rounding moves CG's count too:
 * 1138_bus, 2615 fused against 2601 in steps, the same rtol met) and runs
 * on host contexts too (there the fused steps run as their host twins,
 * src/ref/cg_fused_ref.c). PCG-SGS takes LOOP_DEVICE as LOOP_FUSED: its two triangular
 * solves are queued from the host between the fused kernels. */
typedef enum sp_solver_loop {
    SP_SOLVER_LOOP_AUTO = 0,   /* CUDA context: DEVICE (PCG-SGS: STEPS); host: STEPS */
    SP_SOLVER_LOOP_STEPS = 1,  /* the host loop over the library's vector steps: five
                                  kernels an iteration, one synchronization */
    SP_SOLVER_LOOP_FUSED = 2,  /* fused kernels, one synchronization an iteration. CG: two
                                  kernels (the direction update and p.Ap in the product,
                                  every other recurrence and dot in one pass); BiCGSTAB:
                                  three (each product with its operand's update and dots,
                                  then the x and r updates with r.r and r^.r) */
    SP_SOLVER_LOOP_DEVICE = 3  /* the fused iteration looped on the device (a CUDA graph
                                  with a while node, CUDA 12.4+): the host synchronizes
                                  every check_every iterations, or once at the end */
} sp_solver_loop_t;

/* Zero-initialised (or never set) means the defaults. */
typedef struct sp_solver_options {
    int64_t max_iterations; /* 0: 10000 */
    double rtol;            /* stop when ||r|| <= rtol * ||b||; 0: 1e-8 */
    int use_initial_guess;  /* 1: start from x as given; 0: from x = 0 */
    sp_solver_loop_t loop;  /* how the loop runs (set before setup) */
    int64_t check_every;    /* LOOP_DEVICE: the host sees the state every this many
                               iterations (0: only at the end; negative: refused) */
    int pipelined;          /* CG, PCG-Jacobi: 1 runs pipelined CG (Ghysels & Vanroose
                               2014: one global reduction an iteration, in the fused
                               kernels; LOOP_AUTO/STEPS then mean FUSED). Same iterations
                               as CG in exact arithmetic; in rounding its recurrence
                               residual drifts further from the true one on
                               ill-conditioned systems (docs/ARCHITECTURE.md, Solvers) */
} sp_solver_options_t;

typedef enum sp_solver_status {
    SP_SOLVER_CONVERGED = 0,      /* the recurrence residual met rtol */
    SP_SOLVER_MAX_ITERATIONS = 1, /* max_iterations done without meeting it */
    SP_SOLVER_BREAKDOWN = 2,      /* a division by zero in the method (CG: p.Ap <= 0, A not
                                     positive definite; BiCGSTAB: rho or omega = 0) */
    SP_SOLVER_DIVERGED = 3,       /* a NaN or infinity appeared */
    SP_SOLVER_NOT_RUN = 4         /* no solve yet */
} sp_solver_status_t;

typedef struct sp_solver_result {
    sp_solver_status_t status;
    int64_t iterations;         /* iterations carried out (a breaking one included) */
    double relative_residual;   /* ||b - A x|| / ||b||, recomputed from x at the end */
    double recurrence_residual; /* the method's own ||r|| / ||b|| when it stopped */
    double seconds;             /* wall time of the solve, its final synchronization included */
} sp_solver_result_t;

/* "converged", "max_iterations", "breakdown", "diverged", "not_run"; "?" if unknown. */
SP_API const char *sp_solver_status_string(sp_solver_status_t status);

typedef struct sp_solver sp_solver_t;

/* A solver of the given type on ctx (nothing allocated on the device yet). */
SP_API sp_status_t sp_solver_create(sp_context_t *ctx, sp_solver_type_t type, sp_solver_t **solver);
/* Accepts NULL. */
SP_API void sp_solver_destroy(sp_solver_t *solver);
/* Options for the following solves (NULL: the defaults). Negative max_iterations or a
 * negative or NaN rtol: SP_STATUS_INVALID_ARGUMENT. */
SP_API sp_status_t sp_solver_set_options(sp_solver_t *solver, const sp_solver_options_t *options);
/* Analysis for A (square, real, on the solver's context; borrowed: it must outlive the
 * solves): the SpMV format is chosen once (SP_FORMAT_AUTO's rule) and built, the
 * preconditioner made (Jacobi: the inverted diagonal; SGS: the diagonal and the
 * triangular-solve analyses), and the workspace vectors allocated. A zero diagonal entry
 * (Jacobi, SGS) is refused with SP_STATUS_INVALID_ARGUMENT naming the row. May
 * synchronize the stream. A later setup replaces the previous one; a setup that fails
 * leaves the solver (its previous setup included) and A's formats as they were. Every
 * allocation of the solves is made here (the SpMV plan too), so a solve allocates
 * nothing. */
SP_API sp_status_t sp_solver_setup(sp_solver_t *solver, sp_matrix_t *A);
/* Solve A x = b (b and x: vectors on the context of A's type and length, distinct). x is
 * the initial guess with use_initial_guess, else overwritten from zero. Returns
 * SP_STATUS_SUCCESS whether or not the method converged (see sp_solver_result); an error
 * status only for bad arguments or a failed step. On CUDA the step loop synchronizes the
 * stream once per iteration (CG family: the scalars of an iteration read together;
 * BiCGSTAB: at each of its dot products) and once at the end, the fused loop once per
 * iteration, the device loop once per check_every iterations; x is complete on return.
 * A solve whose options ask for a loop or method that the setup did not prepare (the
 * options changed after sp_solver_setup) is refused with SP_STATUS_INVALID_ARGUMENT. */
SP_API sp_status_t sp_solver_solve(sp_solver_t *solver, const sp_vector_t *b, sp_vector_t *x);
/* The outcome of the last solve (status SP_SOLVER_NOT_RUN before the first). */
SP_API sp_status_t sp_solver_result(const sp_solver_t *solver, sp_solver_result_t *result);

#ifdef __cplusplus
}
#endif

#include "sp_dist.h" /* the distributed layer: communicators, distributed SpMV, CG, BFS */

#endif /* SP_H */
