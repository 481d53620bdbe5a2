/* The CPU reference (src/ref/): one operation per file, the plain obviously-correct
 * version, the oracle for tests and the host executor's backend. It works on the format
 * structs of the core (src/core/sp_formats.h), the same ones the kernels take.
 *
 * Conventions: outputs are allocated with sp__malloc and released with the core's
 * sp__<format>_free. Builders take inputs that are sorted by (row, col) and merged unless
 * said otherwise, and leave their output untouched on failure. */
#ifndef SP_REF_H
#define SP_REF_H

#include <stddef.h>
#include <stdint.h>

#include "sp.h"
#include "sp_formats.h"

#ifdef __cplusplus
extern "C" { /* C linkage for the C++ benchmarks and tests that call the reference */
#endif

/* ---- primitives' references (src/ref/histogram_ref.c, scan_ref.c, radix_sort_ref.c) ---- */

/* counts[b] = #{i : keys[i] == b}, b < nbins; every key must be in [0, nbins). */
void sp__ref_histogram(const int32_t *keys, int64_t n, int32_t *counts, int64_t nbins);
/* out[i] = sum of in[0..i-1] (out[0] = 0); returns the total. out may alias in. */
int64_t sp__ref_exclusive_scan_i32(const int32_t *in, int32_t *out, int64_t n);
int64_t sp__ref_exclusive_scan_i64(const int64_t *in, int64_t *out, int64_t n);
/* Stable LSD radix sort of (keys, vals) by the low key_bits bits of keys, ascending;
 * vals may be NULL. Uses histogram and scan with 8-bit digits. */
sp_status_t sp__ref_radix_sort_u32(uint32_t *keys, int32_t *vals, int64_t n, int key_bits);

/* ---- conversions (src/ref/<op>_ref.c) ---- */

/* Sort entries by (row, col), stably, and merge duplicates (SP_DUP_SUM adds values,
 * SP_DUP_KEEP keeps the first in input order). In place: coo->nnz becomes the merged
 * count (the arrays keep their size). The twin of sp__gpu_coo_sort_merge, same input type. */
sp_status_t sp__ref_coo_sort_merge(sp_triplets_t *coo, sp_dup_policy_t policy, int64_t *nmerged);
/* Entry positions in the host sorts (this one and sp__coo_sort_merge_threads) are 32-bit
 * while nnz fits them and nnz <= sp__position32_limit(), 64-bit above (issue 20). The
 * limit is INT64_MAX unless a test lowers it (0 forces the 64-bit paths at any size); set
 * it only while no sort runs. */
void sp__test_set_position32_limit(int64_t limit);
int64_t sp__position32_limit(void);
/* CSR of sorted, merged triplets: count per row, exclusive scan, scatter. Its pointers are
 * 32-bit up to INT32_MAX entries, else 64-bit (sp_formats.h); the _offsets form takes the
 * width (32 or 64; 0 chooses so), 32 refusing more than INT32_MAX entries. */
sp_status_t sp__ref_coo_to_csr(const sp_triplets_t *coo, sp_csr_t *csr);
sp_status_t sp__ref_coo_to_csr_offsets(const sp_triplets_t *coo, int offset_bits, sp_csr_t *csr);
/* CSC (transpose) of a CSR. */
sp_status_t sp__ref_csr_to_csc(const sp_csr_t *csr, sp_csr_t *csc);
/* *coo = the entries of csr (either pointer width) as triplets in its order. */
sp_status_t sp__ref_csr_to_coo(const sp_csr_t *csr, sp_triplets_t *coo);
/* ELL of a CSR, padded to the longest row. */
sp_status_t sp__ref_csr_to_ell(const sp_csr_t *csr, sp_ell_t *ell);
/* The ELL width HYB uses by default (Bell & Garland): the largest k such that at least
 * max(ceil(nrows/3), min(nrows, 4096)) rows have length >= k. */
int64_t sp__ref_hyb_width(const sp_csr_t *csr);
/* HYB with ELL width `width` (< 0: sp__ref_hyb_width). */
sp_status_t sp__ref_csr_to_hyb(const sp_csr_t *csr, int64_t width, sp_hyb_t *hyb);
sp_status_t sp__ref_csr_to_jds(const sp_csr_t *csr, sp_jds_t *jds);
/* SELL-C-sigma; sigma must be a positive multiple of c, c > 0. */
sp_status_t sp__ref_csr_to_sell(const sp_csr_t *csr, int c, int sigma, sp_sell_t *sell);
/* The long-row split (sp_formats.h, the tail of ELL, JDS, SELL): *short_rows = csr with the
 * rows longer than bound emptied, *tail = those rows whole, row-sorted. */
sp_status_t sp__ref_csr_split_long(const sp_csr_t *csr, int64_t bound, sp_csr_t *short_rows,
                                   sp_triplets_t *tail);

/* ---- SpMV: y = alpha*A*x + beta*y, alpha/beta point to one value of A's type; beta == 0
 * never reads y. Products accumulate in double for both value types. ---- */
void sp__ref_spmv_coo(const sp_triplets_t *a, const void *alpha, const void *x,
                      const void *beta, void *y);
void sp__ref_spmv_csr(const sp_csr_t *a, const void *alpha, const void *x, const void *beta,
                      void *y);
/* A given by its CSC: y = alpha * A * x + beta * y (A is nrows x ncols). */
void sp__ref_spmv_csc(const sp_csr_t *a, const void *alpha, const void *x, const void *beta,
                      void *y);
void sp__ref_spmv_ell(const sp_ell_t *a, const void *alpha, const void *x, const void *beta,
                      void *y);
/* y += alpha * tail * x: a padded format's long-row tail (nothing when tail->nnz is 0). */
void sp__ref_spmv_tail(const sp_triplets_t *tail, const void *alpha, const void *x, void *y);
void sp__ref_spmv_hyb(const sp_hyb_t *a, const void *alpha, const void *x, const void *beta,
                      void *y);
void sp__ref_spmv_jds(const sp_jds_t *a, const void *alpha, const void *x, const void *beta,
                      void *y);
void sp__ref_spmv_sell(const sp_sell_t *a, const void *alpha, const void *x,
                       const void *beta, void *y);

/* ---- BFS over a CSR adjacency (row u lists the heads of u's out-edges): plain queue.
 * level[v] = hops (-1 unreachable); parent may be NULL (parent[source] = source, -1 for
 * unreachable); frontier_sizes (may be NULL) gets the size of each level up to
 * frontier_capacity (0 past the last level); *levels = number of non-empty levels;
 * *edges = adjacency entries scanned. levels, vertices and edges may be NULL. */
sp_status_t sp__ref_bfs(const sp_csr_t *g, int32_t source, int32_t *level, int32_t *parent,
                        int64_t *levels, int64_t *vertices, int64_t *edges,
                        int64_t *frontier_sizes, int64_t frontier_capacity);
/* The same with the caller's queue of g->nrows entries: allocates nothing. */
sp_status_t sp__ref_bfs_with_queue(const sp_csr_t *g, int32_t source, int32_t *queue,
                                   int32_t *level, int32_t *parent, int64_t *levels,
                                   int64_t *vertices, int64_t *edges, int64_t *frontier_sizes,
                                   int64_t frontier_capacity);

/* ---- BFS validation (bfs-a; src/ref/bfs_validate_ref.c): 1 when level (and parent, may
 * be NULL) from source on the CSR g pass the Graph500 rules: parent[source] = source at
 * level 0; ranges; parents set exactly for the reached vertices; parent chains reach the
 * source without cycles; tree edges join levels differing by one; parent edges exist in g;
 * every edge (u, v) from a reached u reaches v at level <= level[u] + 1 (so the source's
 * component is reached; directed graphs: what source reaches); and level == ref_level
 * when ref_level is not NULL. Else 0, with "rule <name>: ..." naming the rule and the
 * vertex in why (why_len bytes, may be NULL). ---- */
int sp__ref_bfs_validate(const sp_csr_t *g, int32_t source, const int32_t *level,
                         const int32_t *parent, const int32_t *ref_level, char *why,
                         size_t why_len);
/* Its steps, in its order, for callers that split the rows among threads
 * (sp__bfs_validate_threads, src/bfs_validate.c): the arguments, ranges, parents and parent
 * chains (whole); rule 0 (tree and parent edges, of vertices lo..hi-1) or rule 1 (the
 * out-edges of vertices lo..hi-1); the reference's levels. The first failure of a step in
 * row order is the one sp__ref_bfs_validate reports. */
int sp__ref_bfs_validate_start(const sp_csr_t *g, int32_t source, const int32_t *level,
                               const int32_t *parent, char *why, size_t why_len);
int sp__ref_bfs_validate_rows(const sp_csr_t *g, int32_t source, const int32_t *level,
                              const int32_t *parent, int rule, int64_t lo, int64_t hi,
                              char *why, size_t why_len);
int sp__ref_bfs_validate_reference(const sp_csr_t *g, const int32_t *level,
                                   const int32_t *ref_level, char *why, size_t why_len);

/* ---- sparse triangular solve: x = alpha * T^-1 b, T the lower (upper == 0: entries with
 * col <= row) or upper (col >= row) triangle of the square CSR a; the other triangle is
 * ignored. unit_diag takes the diagonal as 1; otherwise a row without a non-zero diagonal
 * is refused (SP_STATUS_INVALID_ARGUMENT naming the row). Sums in double, x and b of
 * a->value_type, not overlapping. */
sp_status_t sp__ref_sptrsv(const sp_csr_t *a, int upper, int unit_diag, const void *alpha,
                           const void *b, void *x);

#ifdef __cplusplus
}
#endif

#endif /* SP_REF_H */
