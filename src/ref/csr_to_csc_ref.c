/* CSC = compressed-column form of a CSR (the transpose's CSR): count entries per column,
 * exclusive scan into column pointers, scatter in row order so rows increase per column.
 * The CSC's pointers have the CSR's width. */
#include "ref_internal.h"

sp_status_t sp__ref_csr_to_csc(const sp_csr_t *csr, sp_csr_t *csc)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c = {0};
    int64_t *next = NULL;
    SP_CHECK_ARG(csr != NULL && csc != NULL, "csr to csc: NULL argument");
    size_t vs = sp_value_size(csr->value_type);
    SP_TRY(ref_csr_alloc(&c, csr->nrows, csr->ncols, csr->nnz, csr->ncols, csr->value_type,
                         sp__csr_offset_bits(csr)));
    SP_ALLOC(next, c.ncols);
    ref_segment_starts(csr->idx, csr->nnz, &c, c.ncols, next);
    for (int64_t r = 0; r < csr->nrows; r++)
        for (int64_t k = sp__csr_at(csr, r); k < sp__csr_at(csr, r + 1); k++) {
            int64_t p = next[csr->idx[k]]++;
            c.idx[p] = (int32_t)r;
            ref_value_copy(c.val, p, csr->val, k, vs);
        }
    *csc = c;
    c = (sp_csr_t){0};
done:
    sp__free(next);
    sp__csr_free(&c);
    return st;
}
