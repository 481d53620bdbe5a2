/* COO = its entries stably sorted by (row, col), duplicates merged (summed in input order,
 * or the first in input order kept). Two stable radix passes over a permutation, column
 * then row, give the order; one walk over equal runs merges. */
#include "ref_internal.h"

/* Entry `out` from a run of equal (row, col) [first, last) of the sorted order (input
 * order within the run): the first value, or the sum taken in double and rounded once. */
static void merge_run(const sp_triplets_t *coo, const int32_t *perm, int64_t first, int64_t last,
                      sp_dup_policy_t policy, void *val_out, int64_t out)
{
    double sum = 0.0;
    if (coo->value_type == SP_VALUE_NONE) return;
    if (policy == SP_DUP_KEEP) {
        ref_value_copy(val_out, out, coo->val, perm[first], sp_value_size(coo->value_type));
        return;
    }
    for (int64_t i = first; i < last; i++) sum += ref_value_get(coo->val, coo->value_type, perm[i]);
    ref_value_set(val_out, coo->value_type, out, sum);
}

static sp_status_t check_entries(const sp_triplets_t *coo)
{
    for (int64_t k = 0; k < coo->nnz; k++)
        if (coo->row[k] < 0 || coo->row[k] >= coo->nrows || coo->col[k] < 0 ||
            coo->col[k] >= coo->ncols)
            return SP_ERROR(SP_STATUS_INVALID_ARGUMENT,
                            "coo sort: entry %lld at (%d, %d) outside %lld x %lld",
                            (long long)k, coo->row[k], coo->col[k], (long long)coo->nrows,
                            (long long)coo->ncols);
    return SP_STATUS_SUCCESS;
}

sp_status_t sp__ref_coo_sort_merge(sp_triplets_t *coo, sp_dup_policy_t policy, int64_t *nmerged)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *perm = NULL, *row = NULL, *col = NULL;
    void *val = NULL;
    SP_CHECK_ARG(coo != NULL, "coo sort: coo is NULL");
    SP_CHECK_ARG(policy == SP_DUP_SUM || policy == SP_DUP_KEEP,
                 "coo sort: unknown duplicate policy %d", (int)policy);
    SP_CHECK_ARG(coo->nnz >= 0 && coo->nnz <= INT32_MAX,
                 "coo sort: nnz %lld outside 0..%d", (long long)coo->nnz, INT32_MAX);
    SP_TRY(check_entries(coo));
    int64_t n = coo->nnz, out = 0;
    SP_ALLOC(perm, n);
    SP_ALLOC(row, n);
    SP_ALLOC(col, n);
    SP_TRY(ref_values_calloc(&val, coo->value_type, n));
    for (int64_t k = 0; k < n; k++) perm[k] = (int32_t)k;
    SP_TRY(sp__ref_sort_perm(coo->col, n, perm));
    SP_TRY(sp__ref_sort_perm(coo->row, n, perm));
    for (int64_t first = 0, last; first < n; first = last, out++) {
        int32_t r = coo->row[perm[first]], c = coo->col[perm[first]];
        for (last = first + 1; last < n; last++)
            if (coo->row[perm[last]] != r || coo->col[perm[last]] != c) break;
        row[out] = r;
        col[out] = c;
        merge_run(coo, perm, first, last, policy, val, out);
    }
    /* Nothing can fail past this point, so the COO changes only on success. */
    if (out > 0) {
        memcpy(coo->row, row, (size_t)out * sizeof *row);
        memcpy(coo->col, col, (size_t)out * sizeof *col);
        if (val) memcpy(coo->val, val, (size_t)out * sp_value_size(coo->value_type));
    }
    coo->nnz = out;
    if (nmerged) *nmerged = n - out;
done:
    sp__free(val);
    sp__free(col);
    sp__free(row);
    sp__free(perm);
    return st;
}
