/* Helpers private to the CPU reference (src/ref/): typed value access, value arrays,
 * and the two building blocks several conversions share. */
#ifndef SP_REF_INTERNAL_H
#define SP_REF_INTERNAL_H

#include <string.h>

#include "sp_base.h"
#include "sp_ref.h"

/* val[k] as a double; val holds floats or doubles per t (never SP_VALUE_NONE here). */
static inline double ref_value_get(const void *val, sp_value_type_t t, int64_t k)
{
    return t == SP_R_32F ? (double)((const float *)val)[k] : ((const double *)val)[k];
}

/* val[k] = v, rounded to t. */
static inline void ref_value_set(void *val, sp_value_type_t t, int64_t k, double v)
{
    if (t == SP_R_32F)
        ((float *)val)[k] = (float)v;
    else
        ((double *)val)[k] = v;
}

/* dst[dk] = src[sk] for values of vs bytes (no-op for patterns, vs == 0). */
static inline void ref_value_copy(void *dst, int64_t dk, const void *src, int64_t sk, size_t vs)
{
    if (vs) memcpy((char *)dst + (size_t)dk * vs, (const char *)src + (size_t)sk * vs, vs);
}

/* y[i] = alpha * sum + beta * y[i] in double, stored as t; beta == 0 never reads y[i]. */
static inline void ref_y_update(void *y, sp_value_type_t t, int64_t i, double alpha,
                                double sum, double beta)
{
    double v = alpha * sum;
    if (beta != 0.0) v += beta * ref_value_get(y, t, i);
    ref_value_set(y, t, i, v);
}

/* *val = n zeroed values of type t (NULL for SP_VALUE_NONE); records ALLOC_FAILED. */
static inline sp_status_t ref_values_calloc(void **val, sp_value_type_t t, int64_t n)
{
    size_t vs = sp_value_size(t);
    *val = NULL;
    if (vs == 0) return SP_STATUS_SUCCESS;
    *val = sp__calloc_array((size_t)n, vs);
    if (*val == NULL)
        return SP_ERROR(SP_STATUS_ALLOC_FAILED,
                        "out of host memory allocating %lld values of %zu bytes",
                        (long long)n, vs);
    return SP_STATUS_SUCCESS;
}

/* Empty compressed arrays for a nrows x ncols matrix with nnz entries and npointers
 * compressed rows (nrows for CSR, ncols for CSC), with 32- or 64-bit pointers
 * (offset_bits, sp_formats.h); c is all-NULL again on failure. */
static inline sp_status_t ref_csr_alloc(sp_csr_t *c, int64_t nrows, int64_t ncols,
                                        int64_t nnz, int64_t npointers, sp_value_type_t t,
                                        int offset_bits)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    *c = (sp_csr_t){.nrows = nrows, .ncols = ncols, .nnz = nnz, .value_type = t};
    if (offset_bits == 64)
        SP_ALLOC(c->ptr64, npointers + 1);
    else
        SP_ALLOC(c->ptr, npointers + 1);
    SP_ALLOC(c->idx, nnz);
    SP_TRY(ref_values_calloc(&c->val, t, nnz));
done:
    if (st != SP_STATUS_SUCCESS) sp__csr_free(c);
    return st;
}

/* c's pointers [0..n] = start of each of n segments, from the segment key of each of nnz
 * entries, and next[0..n) = the same starts, the scatter's cursors (count, then exclusive
 * scan: the first two steps of every compression; 64-bit counts serve both widths). Keys
 * outside [0, n) are the caller's bug; they are skipped rather than counted out of bounds. */
static inline void ref_segment_starts(const int32_t *keys, int64_t nnz, sp_csr_t *c, int64_t n,
                                      int64_t *next)
{
    for (int64_t s = 0; s < n; s++) next[s] = 0;
    for (int64_t k = 0; k < nnz; k++)
        if (keys[k] >= 0 && keys[k] < n) next[keys[k]]++;
    sp__csr_set(c, n, sp__ref_exclusive_scan_i64(next, next, n));
    for (int64_t s = 0; s < n; s++) sp__csr_set(c, s, next[s]);
}

/* Entries in row r of a CSR (column r of a CSC). */
static inline int64_t ref_row_length(const sp_csr_t *a, int64_t r)
{
    return (int64_t)sp__csr_at(a, r + 1) - sp__csr_at(a, r);
}

/* Longest row of a CSR (0 when it has no rows). */
static inline int64_t ref_longest_row(const sp_csr_t *a)
{
    int64_t longest = 0;
    for (int64_t r = 0; r < a->nrows; r++)
        if (ref_row_length(a, r) > longest) longest = ref_row_length(a, r);
    return longest;
}

/* Reorder perm[0..n) stably so that keys[perm[i]] ascends (keys >= 0): one radix sort by
 * the gathered keys. Two calls, minor key first, give a stable two-key sort. */
sp_status_t sp__ref_sort_perm(const int32_t *keys, int64_t n, int32_t *perm);
/* The same with a 64-bit permutation (any n). */
sp_status_t sp__ref_sort_perm64(const int32_t *keys, int64_t n, int64_t *perm);

/* ELL of width `width` holding the first min(length, width) entries of each row (the ELL
 * half of HYB; sp__ref_csr_to_ell uses the longest row). ell->nnz = entries stored. */
sp_status_t sp__ref_csr_to_ell_width(const sp_csr_t *csr, int64_t width, sp_ell_t *ell);

#endif /* SP_REF_INTERNAL_H */
