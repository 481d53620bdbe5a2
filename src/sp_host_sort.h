/* Host sorts on every core (src/coo_sort_host.c). */
#ifndef SP_HOST_SORT_H
#define SP_HOST_SORT_H

#include "sp_ref.h"

/* The reference's sort-merge (sp__ref_coo_sort_merge: entries stably sorted by (row, col),
 * duplicates summed in input order or the first kept, the same bits and the same errors)
 * on up to nthreads threads (<= 0: every core). Below 2^15 entries a task, one thread runs
 * the reference itself. The COO changes only on success. Any nnz memory allows: entry
 * positions are 32-bit up to UINT32_MAX entries (and sp__position32_limit, sp_ref.h), 64-bit
 * above, chosen once per call. */
sp_status_t sp__coo_sort_merge_threads(sp_triplets_t *t, sp_dup_policy_t policy,
                                       int64_t *nmerged, int nthreads);

/* 1 when t's entries stand in strictly increasing (row, col) order with every column inside
 * the matrix and the rows from the first to the last inside it too (so the sort-merge would
 * return them as they are), checked on up to nthreads threads (<= 0: every core); else 0,
 * also for fewer than 2 entries or when threads cannot be had. */
int sp__coo_in_order(const sp_triplets_t *t, int nthreads);

/* sp_coo_symmetrize with its sort on up to nthreads threads (<= 0: every core); a pattern
 * (SP_VALUE_NONE) takes sp__coo_symmetrize_pattern. */
sp_status_t sp__coo_symmetrize_threads(sp_coo_t *coo, int drop_self_loops, int nthreads);

/* sp_coo_symmetrize of a pattern (src/coo_symmetrize_pattern.c): the same entries, order and
 * flags as mirroring and sort-merging, by counting and sorting each row, at 16 bytes an
 * input entry and 8 a row at the peak; coo's capacity becomes its nnz. The caller has
 * checked that coo is square and that twice its entries fit int64_t. */
sp_status_t sp__coo_symmetrize_pattern(sp_coo_t *coo, int drop_self_loops, int nthreads);

#endif /* SP_HOST_SORT_H */
