/* A CSR cut by row length, the long-row tail of ELL, JDS and SELL: the rows of at most
 * `bound` entries stay in a CSR of the same shape (longer rows left empty there), the longer
 * rows go whole, in row order, to triplets. */
#include "ref_internal.h"

sp_status_t sp__ref_csr_split_long(const sp_csr_t *csr, int64_t bound, sp_csr_t *short_rows,
                                   sp_triplets_t *tail)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t s = {0};
    sp_triplets_t t = {0};
    int64_t nlong = 0, q = 0;
    size_t vs = 0;
    SP_CHECK_ARG(csr != NULL && short_rows != NULL && tail != NULL,
                 "csr split long: NULL argument");
    SP_CHECK_ARG(bound >= 0, "csr split long: bound %lld is negative", (long long)bound);
    vs = sp_value_size(csr->value_type);
    for (int64_t r = 0; r < csr->nrows; r++)
        if (ref_row_length(csr, r) > bound) nlong += ref_row_length(csr, r);
    SP_TRY(ref_csr_alloc(&s, csr->nrows, csr->ncols, csr->nnz - nlong, csr->nrows,
                         csr->value_type, sp__csr_offset_bits(csr)));
    t = (sp_triplets_t){csr->nrows, csr->ncols, nlong, csr->value_type, NULL, NULL, NULL, 0};
    SP_ALLOC(t.row, nlong);
    SP_ALLOC(t.col, nlong);
    SP_TRY(ref_values_calloc(&t.val, t.value_type, nlong));
    sp__csr_set(&s, 0, 0);
    for (int64_t r = 0; r < csr->nrows; r++) {
        int64_t len = ref_row_length(csr, r), at = sp__csr_at(&s, r);
        for (int64_t k = 0; k < len; k++) {
            int64_t e = sp__csr_at(csr, r) + k;
            if (len > bound) {
                t.row[q] = (int32_t)r;
                t.col[q] = csr->idx[e];
                ref_value_copy(t.val, q++, csr->val, e, vs);
            } else {
                s.idx[at + k] = csr->idx[e];
                ref_value_copy(s.val, at + k, csr->val, e, vs);
            }
        }
        sp__csr_set(&s, r + 1, at + (len > bound ? 0 : len));
    }
    *short_rows = s;
    *tail = t;
    s = (sp_csr_t){0};
    t = (sp_triplets_t){0};
done:
    sp__csr_free(&s);
    sp__triplets_free(&t);
    return st;
}

/* y += alpha * tail * x (beta 1): the long-row tail of a padded format, on top of its
 * padded part, whose rows of the tail are empty. */
void sp__ref_spmv_tail(const sp_triplets_t *tail, const void *alpha, const void *x, void *y)
{
    const float one_f = 1.0f;
    const double one_d = 1.0;
    if (tail->nnz == 0) return;
    sp__ref_spmv_coo(tail, alpha, x,
                     tail->value_type == SP_R_32F ? (const void *)&one_f : (const void *)&one_d,
                     y);
}
