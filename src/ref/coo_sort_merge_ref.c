/* COO = its entries stably sorted by (row, col), duplicates merged (summed in input order,
 * or the first in input order kept). Two stable radix passes over a permutation, column
 * then row, give the order; one walk over equal runs merges. The permutation is 32-bit
 * while nnz fits (nnz <= INT32_MAX and sp__position32_limit), 64-bit above. */
#include "ref_internal.h"

static int64_t g_position32_limit = INT64_MAX;

void sp__test_set_position32_limit(int64_t limit)
{
    g_position32_limit = limit;
}

int64_t sp__position32_limit(void)
{
    return g_position32_limit;
}

/* The sorted order: input position of sorted entry i, from whichever permutation the
 * call uses (the other is NULL). */
typedef struct order {
    const int32_t *p32;
    const int64_t *p64;
} order_t;

static inline int64_t order_at(const order_t *o, int64_t i)
{
    return o->p64 ? o->p64[i] : o->p32[i];
}

/* Entry `out` from a run of equal (row, col) [first, last) of the sorted order (input
 * order within the run): the first value, or the sum taken in double and rounded once. */
static void merge_run(const sp_triplets_t *coo, const order_t *perm, int64_t first,
                      int64_t last, sp_dup_policy_t policy, void *val_out, int64_t out)
{
    double sum = 0.0;
    if (coo->value_type == SP_VALUE_NONE) return;
    if (policy == SP_DUP_KEEP) {
        ref_value_copy(val_out, out, coo->val, order_at(perm, first),
                       sp_value_size(coo->value_type));
        return;
    }
    for (int64_t i = first; i < last; i++)
        sum += ref_value_get(coo->val, coo->value_type, order_at(perm, i));
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

/* perm = the stable (row, col) order of the entries, 32- or 64-bit. */
static sp_status_t sort_order(const sp_triplets_t *coo, int32_t *p32, int64_t *p64)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t n = coo->nnz;
    for (int64_t k = 0; k < n; k++) {
        if (p64) p64[k] = k;
        else p32[k] = (int32_t)k;
    }
    if (p64) {
        SP_TRY(sp__ref_sort_perm64(coo->col, n, p64));
        SP_TRY(sp__ref_sort_perm64(coo->row, n, p64));
    } else {
        SP_TRY(sp__ref_sort_perm(coo->col, n, p32));
        SP_TRY(sp__ref_sort_perm(coo->row, n, p32));
    }
done:
    return st;
}

sp_status_t sp__ref_coo_sort_merge(sp_triplets_t *coo, sp_dup_policy_t policy, int64_t *nmerged)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *p32 = NULL, *row = NULL, *col = NULL;
    int64_t *p64 = NULL;
    void *val = NULL;
    SP_CHECK_ARG(coo != NULL, "coo sort: coo is NULL");
    SP_CHECK_ARG(policy == SP_DUP_SUM || policy == SP_DUP_KEEP,
                 "coo sort: unknown duplicate policy %d", (int)policy);
    SP_CHECK_ARG(coo->nnz >= 0, "coo sort: nnz %lld is negative", (long long)coo->nnz);
    SP_TRY(check_entries(coo));
    int64_t n = coo->nnz, out = 0;
    if (n > INT32_MAX || n > sp__position32_limit()) SP_ALLOC(p64, n);
    else SP_ALLOC(p32, n);
    SP_ALLOC(row, n);
    SP_ALLOC(col, n);
    SP_TRY(ref_values_calloc(&val, coo->value_type, n));
    SP_TRY(sort_order(coo, p32, p64));
    order_t perm = {p32, p64};
    for (int64_t first = 0, last; first < n; first = last, out++) {
        int64_t head = order_at(&perm, first);
        int32_t r = coo->row[head], c = coo->col[head];
        for (last = first + 1; last < n; last++) {
            int64_t k = order_at(&perm, last);
            if (coo->row[k] != r || coo->col[k] != c) break;
        }
        row[out] = r;
        col[out] = c;
        merge_run(coo, &perm, first, last, policy, val, out);
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
    sp__free(p64);
    sp__free(p32);
    return st;
}
