/* The kernel layer's C-callable entry points (kernels/): device-wide primitives now,
 * conversions, SpMV plans and products. Internal: used by src/ and the GPU test suites.
 *
 * Conventions (CUB style): d_ pointers hold device memory; all work is queued on the
 * given cudaStream_t, passed as `void *stream` (NULL: the legacy default stream), and
 * nothing synchronizes the device, allocates device memory or prints. A call that needs
 * scratch memory has two forms: with d_temp == NULL it only stores the bytes it needs in
 * *temp_bytes (always >= 256, so a non-NULL d_temp marks the compute call); with d_temp
 * pointing to at least *temp_bytes device bytes (256-byte aligned, as cudaMalloc gives)
 * it computes. A failed launch returns SP_STATUS_DEVICE_ERROR with CUDA's text in
 * sp_last_error(). n = 0 is valid everywhere. */
#ifndef SP_KERNELS_H
#define SP_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "sp.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "sp_formats.h" /* the core's format structs; here their pointers hold device memory */

/* What a kernel-layer call that allocates needs from its context: the stream, and device
 * memory through the context's allocator (its hooks, or stream-ordered cudaMallocAsync
 * from a pool that keeps its memory, so repeated builds pay no cudaMalloc). alloc returns
 * SP_STATUS_ALLOC_FAILED with the bytes in the message when it cannot; free accepts NULL.
 * Conversions allocate their outputs and temporaries through it, free the temporaries
 * before returning, and on failure free everything they allocated. They may copy a few
 * scalars to the host, synchronizing the stream (never the device). */
typedef struct sp_gpu_env {
    void *stream;
    sp_status_t (*alloc)(void *self, void **d_ptr, size_t bytes);
    void (*free)(void *self, void *d_ptr);
    void *self;
    int sm_count;
    int64_t l2_bytes;
} sp_gpu_env_t;

/* ---- primitives (kernels/prim/) ---- */

/* counts[b] = #{i : keys[i] == b} for b < nbins; keys outside [0, nbins) are ignored
 * (counted nowhere). counts is overwritten (not accumulated). The strategy follows
 * nbins: thread-local bins for the fewest, warp-private bins for a few more,
 * block-private bins in shared memory while they fit, global atomics beyond. n <= INT32_MAX (counts are 32-bit). */
sp_status_t sp__gpu_histogram(const int32_t *d_keys, int64_t n, int32_t *d_counts,
                              int64_t nbins, void *d_temp, size_t *temp_bytes, void *stream);

/* out[i] = in[0] + ... + in[i-1] (out[0] = 0), one pass with decoupled look-back.
 * d_out may equal d_in (in place). d_total (may be NULL) gets the sum of all n inputs
 * (0 for n = 0). The 32-bit variant wraps modulo 2^32 like 32-bit integer addition. */
sp_status_t sp__gpu_exclusive_scan_i32(const int32_t *d_in, int32_t *d_out, int64_t n,
                                       int32_t *d_total, void *d_temp, size_t *temp_bytes,
                                       void *stream);
sp_status_t sp__gpu_exclusive_scan_i64(const int64_t *d_in, int64_t *d_out, int64_t n,
                                       int64_t *d_total, void *d_temp, size_t *temp_bytes,
                                       void *stream);

/* Stable LSD radix sort, ascending, of (keys, vals) by the low key_bits bits of keys
 * (1..32; higher bits are carried along but not compared); result in place. d_vals may
 * be NULL (keys only). n <= INT32_MAX. */
sp_status_t sp__gpu_radix_sort_pairs_u32(uint32_t *d_keys, int32_t *d_vals, int64_t n,
                                         int key_bits, void *d_temp, size_t *temp_bytes,
                                         void *stream);
/* The same from separate inputs, which are only read: keys_in (and vals_in, or where vals_in
 * is NULL and vals_out is not, the entry numbers 0..n-1) sorted into keys_out (and
 * vals_out). No output may overlap an input. Saves the copy of the keys into place and,
 * after an odd number of passes, the copy back; the scratch is the in-place sort's. */
sp_status_t sp__gpu_radix_sort_pairs_u32_into(const uint32_t *d_keys_in, const int32_t *d_vals_in,
                                              uint32_t *d_keys_out, int32_t *d_vals_out,
                                              int64_t n, int key_bits, void *d_temp,
                                              size_t *temp_bytes, void *stream);
/* The same for 64-bit keys: key_bits 1..64, one pass per 8 bits (8 for full keys). */
sp_status_t sp__gpu_radix_sort_pairs_u64(uint64_t *d_keys, int32_t *d_vals, int64_t n,
                                         int key_bits, void *d_temp, size_t *temp_bytes,
                                         void *stream);
/* Test and benchmark knob (process-wide; not for library callers): 1 makes the sorts above
 * take the onesweep passes (radix_sort.cu's header), 0 the reduce-then-scan ones, -1 (the
 * default) chooses by the number of keys (sp_radix_onesweep_policy::min_keys). The scratch
 * asked for fits either, so the knob may change between the size query and the sort. */
void sp__gpu_radix_sort_set_onesweep(int mode);
/* Test knob of the onesweep look-back's watchdog (process-wide): tile `withheld_tile` of the
 * first pass never publishes its counts (-1: every tile does), and a look-back gives up after
 * timeout_ms (<= 0: the policy's timeout), so the sort must return SP_STATUS_DEVICE_ERROR
 * instead of hanging. */
void sp__gpu_radix_sort_onesweep_fault(int64_t withheld_tile, int64_t timeout_ms);

/* ---- conversions (kernels/convert/) ----
 * Each is the GPU twin of sp__ref_<op> (src/ref/), identical bit for bit: count -> scan
 * -> scatter on the primitives above. Inputs and outputs are device formats (the sp_ref.h
 * structs holding device pointers). Outputs and temporaries come from env; a failed call
 * frees all it allocated and leaves the output untouched. Empty arrays are NULL. */

/* coo = its entries stably sorted by (row, col), each run of equal (row, col) merged:
 * SP_DUP_SUM adds the run's values in input order in double, rounded once to the value
 * type; SP_DUP_KEEP keeps the first in input order. coo's arrays must come from env: on
 * success they are replaced by new ones (the old freed through env) and coo->nnz updated;
 * *nmerged (may be NULL) = entries removed. Entries outside nrows x ncols are refused. */
sp_status_t sp__gpu_coo_sort_merge(const sp_gpu_env_t *env, sp_triplets_t *coo,
                                   sp_dup_policy_t policy, int64_t *nmerged);
/* *out = sp__coo_col_near of coo in its order as given (the same samples and arithmetic,
 * so the same fraction): read where the entries already are, instead of a second strided
 * pass over the caller's host arrays. */
sp_status_t sp__gpu_coo_col_near(const sp_gpu_env_t *env, const sp_triplets_t *coo, double *out);
/* csr = compressed rows of a sorted, merged coo: ptr = exclusive scan of the row
 * histogram, idx and val = coo's col and val. */
sp_status_t sp__gpu_coo_to_csr(const sp_gpu_env_t *env, const sp_triplets_t *coo,
                               sp_csr_t *csr);
/* The same with the pointers' width chosen (as sp__ref_coo_to_csr_offsets): 32 (ptr; the
 * call above), 64 (ptr64, from a per-row binary search over the sorted rows, all positions
 * 64-bit: issue 20) or 0 (64 past INT32_MAX entries, else 32). */
sp_status_t sp__gpu_coo_to_csr_offsets(const sp_gpu_env_t *env, const sp_triplets_t *coo,
                                       int offset_bits, sp_csr_t *csr);
/* d_counts[r] = the entries of row r of a sorted, merged coo (any nnz: two 64-bit binary
 * searches a row, where the histogram counts at most INT32_MAX entries). */
sp_status_t sp__gpu_sorted_row_counts(const sp_gpu_env_t *env, const sp_triplets_t *coo,
                                      int32_t *d_counts);
/* csc = the transpose's CSR (rows increasing within each column). */
sp_status_t sp__gpu_csr_to_csc(const sp_gpu_env_t *env, const sp_csr_t *csr, sp_csr_t *csc);
/* The same by count, scan and stable scatter, no general sort (csr_to_csc.cu's header);
 * sp__gpu_csr_to_csc takes it when the convert policy says so. *scattered (may be NULL) =
 * 0 when the matrix had more long columns than that path keeps counters for and the
 * sort path ran instead, else 1. */
sp_status_t sp__gpu_csr_to_csc_scatter(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                       sp_csr_t *csc, int *scattered);
/* d_ptr[i] = d_ptr64[i] for i < n (the caller knows every value fits: a matrix with
 * 64-bit offsets below the narrow limit, issue 20), and the widening back; both queued on
 * env's stream. */
sp_status_t sp__gpu_offsets_narrow(const sp_gpu_env_t *env, const int64_t *d_ptr64, int64_t n,
                                   int32_t *d_ptr);
sp_status_t sp__gpu_offsets_widen(const sp_gpu_env_t *env, const int32_t *d_ptr, int64_t n,
                                  int64_t *d_ptr64);
/* *coo = csr's entries as device triplets in its order (either pointer width; the COO made
 * again after sp_matrix_release(COO), issue 20); queued on env's stream. */
sp_status_t sp__gpu_csr_to_coo(const sp_gpu_env_t *env, const sp_csr_t *csr, sp_triplets_t *coo);
/* ell = csr padded to its longest row, column-major. */
sp_status_t sp__gpu_csr_to_ell(const sp_gpu_env_t *env, const sp_csr_t *csr, sp_ell_t *ell);
/* ell = the first min(length, width) entries of each row, padded to width (HYB's ELL). */
sp_status_t sp__gpu_csr_to_ell_width(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                     int64_t width, sp_ell_t *ell);
/* hyb = ELL of width `width` (< 0: the rule of sp__ref_hyb_width) plus the overflow as
 * row-sorted COO. */
sp_status_t sp__gpu_csr_to_hyb(const sp_gpu_env_t *env, const sp_csr_t *csr, int64_t width,
                               sp_hyb_t *hyb);
/* jds = rows stably sorted by length descending, stored by jagged diagonal. */
sp_status_t sp__gpu_csr_to_jds(const sp_gpu_env_t *env, const sp_csr_t *csr, sp_jds_t *jds);
/* sell = SELL-C-sigma (sigma a positive multiple of c). */
sp_status_t sp__gpu_csr_to_sell(const sp_gpu_env_t *env, const sp_csr_t *csr, int c, int sigma,
                                sp_sell_t *sell);

/* The long-row split (sp_formats.h): *short_rows = csr with the rows longer than bound
 * emptied, *tail = those rows whole, row-sorted (as sp__ref_csr_split_long). */
sp_status_t sp__gpu_csr_split_long(const sp_gpu_env_t *env, const sp_csr_t *csr, int64_t bound,
                                   sp_csr_t *short_rows, sp_triplets_t *tail);

/* Release of device formats through env: free every array, zero the struct (a zeroed
 * struct or NULL is accepted). */
void sp__gpu_csr_free(const sp_gpu_env_t *env, sp_csr_t *a);
void sp__gpu_ell_free(const sp_gpu_env_t *env, sp_ell_t *a);
void sp__gpu_triplets_free(const sp_gpu_env_t *env, sp_triplets_t *a);
void sp__gpu_hyb_free(const sp_gpu_env_t *env, sp_hyb_t *a);
void sp__gpu_jds_free(const sp_gpu_env_t *env, sp_jds_t *a);
void sp__gpu_sell_free(const sp_gpu_env_t *env, sp_sell_t *a);

/* ---- SpMV (kernels/spmv/): y = alpha * A * x + beta * y ----
 * alpha and beta point to one host value of A's value type (float or double); d_x and
 * d_y are device vectors of that type (ncols and nrows entries). beta == 0 never reads y
 * (NaN in y does not leak). Float matrices accumulate in float, double in double. Work
 * is queued on env->stream; no call allocates (plans do, once) or synchronizes. */

/* What an algorithm needs to know about its matrix, worked out once (the analyse step of
 * an iterative solver) in device memory from env: e.g. the merge-path partition of CSR,
 * the sub-warp width of CSR vector, carry-out scratch of the segmented COO. */
typedef struct sp_gpu_spmv_plan {
    sp_format_t format;
    sp_spmv_alg_t alg; /* resolved, never SP_SPMV_ALG_DEFAULT */
    int param;         /* CSR vector: threads per row; else algorithm-specific */
    int64_t naux;
    int32_t *d_aux;    /* algorithm-specific index data (e.g. partition start rows) */
    void *d_temp;      /* per-call scratch reused by every call (e.g. carry-outs) */
    size_t temp_bytes;
    int64_t finish_rows; /* CSR adaptive: long rows a second kernel finishes (0: none) */
    int64_t long_pieces; /* CSR scalar, vector: pieces of the rows longer than long_bound,
                            a warp each in a second launch (0: no such rows, no launch) */
    int32_t long_bound;  /* CSR scalar, vector: the fixed-width kernel skips rows longer */
    int32_t heavy_rows;  /* CSC: rows summed a block at a time in shared memory (at most
                            sp_spmv_csc_policy::heavy_rows), sorted, in d_aux after its naux
                            chunk columns (0: none) */
} sp_gpu_spmv_plan_t;

/* Plans for CSR (alg resolved: CSR_SCALAR, CSR_VECTOR, CSR_MERGE, CSR_SPLIT, CSR_BINNED,
 * CSR_ADAPTIVE; width: CSR vector's lanes per row, 2..32, ignored by the others;
 * long_bound: CSR scalar and vector hand the rows longer than it to warp pieces in a
 * second launch, < 0 or at least the longest row: none, no work in the plan; the others
 * ignore it) and COO (COO_ATOMIC, COO_SEGMENTED). DEFAULT is resolved by the caller
 * (src/policy.c), never here. On failure plan is untouched. */
sp_status_t sp__gpu_spmv_csr_plan(const sp_gpu_env_t *env, const sp_csr_t *a, sp_spmv_alg_t alg,
                                  int width, int64_t long_bound, sp_gpu_spmv_plan_t *plan);
sp_status_t sp__gpu_spmv_coo_plan(const sp_gpu_env_t *env, const sp_triplets_t *a,
                                  sp_spmv_alg_t alg, sp_gpu_spmv_plan_t *plan);
void sp__gpu_spmv_plan_free(const sp_gpu_env_t *env, sp_gpu_spmv_plan_t *plan);
/* The CSR_SPLIT kernels (spmv_csr_split.cu), called by sp__gpu_spmv_csr after its checks. */
sp_status_t sp__gpu_spmv_csr_split(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                                   const sp_csr_t *a, const void *alpha, const void *d_x,
                                   const void *beta, void *d_y);
/* CSR_BINNED (spmv_csr_binned.cu): its plan (spmv_csr_binned_plan.cu, for nrows > 0; on
 * failure the caller frees what plan holds) and its kernel, called like split's. */
sp_status_t sp__gpu_spmv_csr_binned_plan(const sp_gpu_env_t *env, const sp_csr_t *a,
                                         sp_gpu_spmv_plan_t *plan);
sp_status_t sp__gpu_spmv_csr_binned(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                                    const sp_csr_t *a, const void *alpha, const void *d_x,
                                    const void *beta, void *d_y);
/* CSR_ADAPTIVE (spmv_csr_adaptive.cu): its plan (spmv_csr_adaptive_plan.cu, for nrows > 0;
 * on failure the caller frees what plan holds) and its kernel, called like binned's. */
sp_status_t sp__gpu_spmv_csr_adaptive_plan(const sp_gpu_env_t *env, const sp_csr_t *a,
                                           sp_gpu_spmv_plan_t *plan);
sp_status_t sp__gpu_spmv_csr_adaptive(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                                      const sp_csr_t *a, const void *alpha, const void *d_x,
                                      const void *beta, void *d_y);

sp_status_t sp__gpu_spmv_csr(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                             const sp_csr_t *a, const void *alpha, const void *d_x,
                             const void *beta, void *d_y);
/* COO triplets sorted by (row, col). */
sp_status_t sp__gpu_spmv_coo(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                             const sp_triplets_t *a, const void *alpha, const void *d_x,
                             const void *beta, void *d_y);
/* y += alpha * A * x with reductions, entries in any order: the padded formats' tails and
 * HYB's overflow. Rows of at least the policy's tail_min_row entries (a->row_max; 0: not
 * known) go a block a tile of 2048 entries, each tile's part of a row added once; shorter
 * ones a warp per 32 entries, one atomic a run (kernels/spmv/spmv_policy_coo.h). */
sp_status_t sp__gpu_spmv_coo_accumulate(const sp_gpu_env_t *env, const sp_triplets_t *a,
                                        const void *alpha, const void *d_x, void *d_y);
/* y = beta * y (y = 0 when beta == 0, without reading y), n entries of type t. */
sp_status_t sp__gpu_scale(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                          const void *beta, void *d_y);
/* A given by its CSC (a->ptr over columns): y = beta*y, then a warp per chunk of entries
 * adds them into y with atomics. The plan (once per matrix) holds each chunk's first
 * column; flags (from src/policy.c): SP_GPU_CSC_AGGREGATE (the matrix has a long row)
 * makes the lanes of one row add before their atomic, SP_GPU_CSC_WINDOW (square) sums the
 * rows near the chunk's columns in shared memory first, SP_GPU_CSC_TRY_SYMMETRIC has the
 * plan check whether the CSC equals its transpose bit for bit (square, 32-bit pointers)
 * and, where it does, set SP_GPU_CSC_SYMMETRIC in plan->param and look for nothing else:
 * the caller then runs the CSC's arrays as A's CSR (src/spmv_cuda.c). heavy_bound >= 0:
 * the longest rows of at least heavy_bound entries (at most sp_spmv_csc_policy::heavy_rows)
 * are summed a block at a time in shared memory (plan->heavy_rows), each lane adding to
 * its warp's slot by a shared atomic; their lengths come from d_row_ptr (A's CSR pointers,
 * 32-bit) where given, else from a count of the CSC's rows. */
enum {
    SP_GPU_CSC_AGGREGATE = 1,
    SP_GPU_CSC_WINDOW = 2,
    SP_GPU_CSC_TRY_SYMMETRIC = 4,
    SP_GPU_CSC_SYMMETRIC = 8
};
sp_status_t sp__gpu_spmv_csc_plan(const sp_gpu_env_t *env, const sp_csr_t *a, int flags,
                                  int64_t heavy_bound, const int32_t *d_row_ptr,
                                  sp_gpu_spmv_plan_t *plan);
/* The plan's two analyses (spmv_csc_plan.cu), each reading back once. *symmetric: whether
 * the CSC a (square, 32-bit pointers; else 0) equals its transpose bit for bit, values
 * included, given its chunk columns (the plan's d_aux). d_rows (room for
 * sp_spmv_csc_policy::heavy_rows) and *nheavy: the longest rows of at least bound entries
 * (bound < 0: none), sorted by row. */
sp_status_t sp__gpu_csc_symmetric(const sp_gpu_env_t *env, const sp_csr_t *a,
                                  const int32_t *d_chunk_col, int *symmetric);
sp_status_t sp__gpu_csc_heavy_rows(const sp_gpu_env_t *env, const sp_csr_t *a,
                                   const int32_t *d_row_ptr, int64_t bound, int32_t *d_rows,
                                   int *nheavy);
sp_status_t sp__gpu_spmv_csc(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                             const sp_csr_t *a, const void *alpha, const void *d_x,
                             const void *beta, void *d_y);
sp_status_t sp__gpu_spmv_ell(const sp_gpu_env_t *env, const sp_ell_t *a, const void *alpha,
                             const void *d_x, const void *beta, void *d_y);
sp_status_t sp__gpu_spmv_hyb(const sp_gpu_env_t *env, const sp_hyb_t *a, const void *alpha,
                             const void *d_x, const void *beta, void *d_y);
sp_status_t sp__gpu_spmv_jds(const sp_gpu_env_t *env, const sp_jds_t *a, const void *alpha,
                             const void *d_x, const void *beta, void *d_y);
sp_status_t sp__gpu_spmv_sell(const sp_gpu_env_t *env, const sp_sell_t *a, const void *alpha,
                              const void *d_x, const void *beta, void *d_y);

#ifdef __cplusplus
}
#endif

#endif /* SP_KERNELS_H */
