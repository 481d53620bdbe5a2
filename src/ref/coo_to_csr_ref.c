/* CSR = compressed-row form of a sorted, merged COO (cs_compress): count entries per row,
 * exclusive scan into row pointers, scatter each entry to its row's next slot. */
#include "ref_internal.h"

sp_status_t sp__ref_coo_to_csr(const sp_triplets_t *coo, sp_csr_t *csr)
{
    return sp__ref_coo_to_csr_offsets(coo, 0, csr);
}

sp_status_t sp__ref_coo_to_csr_offsets(const sp_triplets_t *coo, int offset_bits, sp_csr_t *csr)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c = {0};
    int64_t *next = NULL;
    SP_CHECK_ARG(coo != NULL && csr != NULL, "coo to csr: NULL argument");
    SP_CHECK_ARG(offset_bits == 0 || offset_bits == 32 || offset_bits == 64,
                 "coo to csr: offset_bits %d is not 0, 32 or 64", offset_bits);
    if (offset_bits == 0) offset_bits = coo->nnz > INT32_MAX ? 64 : 32;
    SP_CHECK_ARG(coo->nrows <= INT32_MAX && coo->ncols <= INT32_MAX,
                 "coo to csr: %lld x %lld exceeds 32-bit indices", (long long)coo->nrows,
                 (long long)coo->ncols);
    SP_CHECK_ARG(offset_bits == 64 || coo->nnz <= INT32_MAX,
                 "coo to csr: %lld entries exceed 32-bit offsets", (long long)coo->nnz);
    for (int64_t k = 1; k < coo->nnz; k++)
        if (coo->row[k] < coo->row[k - 1] ||
            (coo->row[k] == coo->row[k - 1] && coo->col[k] <= coo->col[k - 1]))
            SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
                    "coo to csr: entries not sorted and merged: entry %lld at (%d, %d) "
                    "follows (%d, %d)", (long long)k, coo->row[k], coo->col[k],
                    coo->row[k - 1], coo->col[k - 1]);
    size_t vs = sp_value_size(coo->value_type);
    SP_TRY(ref_csr_alloc(&c, coo->nrows, coo->ncols, coo->nnz, coo->nrows, coo->value_type,
                         offset_bits));
    SP_ALLOC(next, c.nrows);
    ref_segment_starts(coo->row, coo->nnz, &c, c.nrows, next);
    for (int64_t k = 0; k < coo->nnz; k++) {
        int64_t p = next[coo->row[k]]++;
        c.idx[p] = coo->col[k];
        ref_value_copy(c.val, p, coo->val, k, vs);
    }
    *csr = c;
    c = (sp_csr_t){0};
done:
    sp__free(next);
    sp__csr_free(&c);
    return st;
}
