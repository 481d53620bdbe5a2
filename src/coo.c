/* Host COO: create, copy, free, sort-merge and symmetrize (the public wrappers). */
#include <string.h>

#include "sp_base.h"
#include "sp_formats.h"
#include "sp_host_sort.h"
#include "sp_ref.h"

static int valid_type(sp_value_type_t t)
{
    return t == SP_VALUE_NONE || t == SP_R_32F || t == SP_R_64F;
}

sp_status_t sp_coo_create(int64_t nrows, int64_t ncols, int64_t capacity,
                          sp_value_type_t value_type, sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *a = NULL;
    SP_CHECK_ARG(coo != NULL, "sp_coo_create: coo is NULL");
    SP_CHECK_ARG(nrows >= 0 && ncols >= 0 && capacity >= 0,
                 "sp_coo_create: negative size (nrows %lld, ncols %lld, capacity %lld)",
                 (long long)nrows, (long long)ncols, (long long)capacity);
    SP_CHECK_ARG(valid_type(value_type), "sp_coo_create: unknown value type %d",
                 (int)value_type);
    /* Row and column ids are 32-bit; the entry count is bounded only by memory. */
    if (nrows > INT32_MAX || ncols > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_coo_create: %lld x %lld exceeds 32-bit row and column ids (limit %d)",
                (long long)nrows, (long long)ncols, INT32_MAX);
    size_t entry_bytes = 2 * sizeof(int32_t) + sp_value_size(value_type);
    if ((uint64_t)capacity > SIZE_MAX / entry_bytes)
        SP_FAIL(SP_STATUS_ALLOC_FAILED,
                "sp_coo_create: %lld entries of %zu bytes (%.0f bytes) exceed the address "
                "space", (long long)capacity, entry_bytes, (double)capacity * (double)entry_bytes);
    SP_CALLOC(a, 1);
    a->nrows = nrows;
    a->ncols = ncols;
    a->capacity = capacity;
    a->value_type = value_type;
    a->row = sp__malloc_array((size_t)capacity, sizeof *a->row);
    a->col = a->row ? sp__malloc_array((size_t)capacity, sizeof *a->col) : NULL;
    if (a->col && value_type != SP_VALUE_NONE)
        a->val = sp__malloc_array((size_t)capacity, sp_value_size(value_type));
    if (!a->row || !a->col || (value_type != SP_VALUE_NONE && !a->val))
        SP_FAIL(SP_STATUS_ALLOC_FAILED,
                "sp_coo_create: out of host memory for %lld entries of %zu bytes "
                "(%.0f bytes)", (long long)capacity, entry_bytes,
                (double)capacity * (double)entry_bytes);
    /* Left to the default 4 KiB pages, not MADV_HUGEPAGE: on the project's 2-core VMs (free
     * page reporting) a fresh process's first touch of 436 MB of huge pages took 0.3-0.8 s
     * longer; bench/results/c-kernels-loaders.md, 2026-11-24. */
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    return st;
}

void sp_coo_free(sp_coo_t *coo)
{
    if (!coo) return;
    sp__free(coo->row);
    sp__free(coo->col);
    sp__free(coo->val);
    sp__free(coo);
}

sp_status_t sp_coo_copy(const sp_coo_t *src, sp_value_type_t value_type, sp_coo_t **dst)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *a = NULL;
    SP_CHECK_ARG(src != NULL && dst != NULL, "sp_coo_copy: NULL argument");
    SP_TRY(sp_coo_create(src->nrows, src->ncols, src->nnz, value_type, &a));
    memcpy(a->row, src->row, (size_t)src->nnz * sizeof(int32_t));
    memcpy(a->col, src->col, (size_t)src->nnz * sizeof(int32_t));
    for (int64_t k = 0; k < src->nnz && value_type != SP_VALUE_NONE; k++) {
        double v = 1.0;
        if (src->value_type == SP_R_32F) v = ((const float *)src->val)[k];
        if (src->value_type == SP_R_64F) v = ((const double *)src->val)[k];
        if (value_type == SP_R_32F) ((float *)a->val)[k] = (float)v;
        else ((double *)a->val)[k] = v;
    }
    a->nnz = src->nnz;
    a->symmetry = src->symmetry;
    a->flags = src->flags;
    *dst = a;
    a = NULL;
done:
    sp_coo_free(a);
    return st;
}

sp_status_t sp_coo_sort_merge(sp_coo_t *coo, sp_dup_policy_t policy, int64_t *nmerged)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(coo != NULL, "sp_coo_sort_merge: coo is NULL");
    SP_CHECK_ARG(policy == SP_DUP_SUM || policy == SP_DUP_KEEP,
                 "sp_coo_sort_merge: unknown duplicate policy %d", (int)policy);
    SP_CHECK_ARG(coo->nnz >= 0 && coo->nnz <= coo->capacity,
                 "sp_coo_sort_merge: nnz %lld outside 0..capacity %lld", (long long)coo->nnz,
                 (long long)coo->capacity);
    sp_triplets_t t = sp__coo_triplets(coo);
    SP_TRY(sp__coo_sort_merge_threads(&t, policy, nmerged, 0));
    coo->nnz = t.nnz;
    coo->flags |= SP_COO_SORTED | SP_COO_MERGED;
done:
    return st;
}

/* The mirrored entries go to new arrays and are sorted there, so a failure (out of
 * memory in the sort) leaves the caller's COO exactly as it was. A pattern takes the lean
 * path of src/coo_symmetrize_pattern.c (the same result, no sort of the whole list). */
sp_status_t sp_coo_symmetrize(sp_coo_t *coo, int drop_self_loops)
{
    return sp__coo_symmetrize_threads(coo, drop_self_loops, 0);
}

sp_status_t sp__coo_symmetrize_threads(sp_coo_t *coo, int drop_self_loops, int nthreads)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t t = {0};
    SP_CHECK_ARG(coo != NULL, "sp_coo_symmetrize: coo is NULL");
    SP_CHECK_ARG(coo->nrows == coo->ncols,
                 "sp_coo_symmetrize: matrix is %lld x %lld, not square",
                 (long long)coo->nrows, (long long)coo->ncols);
    int64_t n = coo->nnz, keep = 0;
    size_t vs = sp_value_size(coo->value_type);
    if (n > INT64_MAX / 2)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "sp_coo_symmetrize: %lld entries doubled overflow",
                (long long)n);
    if (coo->value_type == SP_VALUE_NONE) /* no values to carry: count, do not sort */
        return sp__coo_symmetrize_pattern(coo, drop_self_loops, nthreads);
    t = *coo;
    t.row = t.col = NULL;
    t.val = NULL;
    t.row = sp__malloc_array((size_t)(2 * n), sizeof *t.row);
    t.col = t.row ? sp__malloc_array((size_t)(2 * n), sizeof *t.col) : NULL;
    if (t.col && vs) t.val = sp__malloc_array((size_t)(2 * n), vs);
    if (!t.row || !t.col || (vs && !t.val))
        SP_FAIL(SP_STATUS_ALLOC_FAILED,
                "sp_coo_symmetrize: out of host memory for %lld mirrored entries of %zu "
                "bytes (%.0f bytes)", (long long)(2 * n), 2 * sizeof(int32_t) + vs,
                (double)(2 * n) * (double)(2 * sizeof(int32_t) + vs));
    t.capacity = 2 * n;
    for (int64_t k = 0; k < n; k++) {
        if (drop_self_loops && coo->row[k] == coo->col[k]) continue;
        t.row[keep] = coo->row[k];
        t.col[keep] = coo->col[k];
        if (vs) memcpy((char *)t.val + keep * vs, (const char *)coo->val + k * vs, vs);
        keep++;
    }
    for (int64_t k = 0; k < keep; k++) {
        t.row[keep + k] = t.col[k];
        t.col[keep + k] = t.row[k];
        if (vs) memcpy((char *)t.val + (keep + k) * vs, (char *)t.val + k * vs, vs);
    }
    t.nnz = 2 * keep;
    t.flags &= ~(SP_COO_SORTED | SP_COO_MERGED);
    {
        sp_triplets_t sorted = sp__coo_triplets(&t);
        SP_TRY(sp__coo_sort_merge_threads(&sorted, SP_DUP_KEEP, NULL, nthreads));
        t.nnz = sorted.nnz;
        t.flags |= SP_COO_SORTED | SP_COO_MERGED | SP_COO_SYMMETRIC_PATTERN;
    }
    sp__free(coo->row);
    sp__free(coo->col);
    sp__free(coo->val);
    *coo = t;
    t.row = t.col = NULL;
    t.val = NULL;
done:
    sp__free(t.val);
    sp__free(t.col);
    sp__free(t.row);
    return st;
}
