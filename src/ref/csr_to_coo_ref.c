/* A COO made again from its matrix's CSR (sp_matrix_build(COO) after sp_matrix_release(COO),
 * issue 20: the CSR holds the entries, the COO's memory went back): every entry's row
 * written out, columns and values copied, in the CSR's order (row-major, columns in order:
 * the order the COO was left in when the CSR was made from it). Either pointer width. */
#include <string.h>

#include "ref_internal.h"

sp_status_t sp__ref_csr_to_coo(const sp_csr_t *csr, sp_triplets_t *coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_triplets_t t = {0};
    size_t vs = 0;
    SP_CHECK_ARG(csr != NULL && coo != NULL, "csr to coo: NULL argument");
    vs = sp_value_size(csr->value_type);
    t = (sp_triplets_t){csr->nrows, csr->ncols, csr->nnz, csr->value_type, NULL, NULL, NULL, 0};
    SP_ALLOC(t.row, csr->nnz);
    SP_ALLOC(t.col, csr->nnz);
    SP_TRY(ref_values_calloc(&t.val, t.value_type, csr->nnz));
    for (int64_t r = 0; r < csr->nrows; r++)
        for (int64_t k = sp__csr_at(csr, r); k < sp__csr_at(csr, r + 1); k++) t.row[k] = (int32_t)r;
    if (csr->nnz > 0) {
        memcpy(t.col, csr->idx, (size_t)csr->nnz * sizeof *t.col);
        if (vs > 0) memcpy(t.val, csr->val, (size_t)csr->nnz * vs);
    }
    *coo = t;
    t = (sp_triplets_t){0};
done:
    sp__triplets_free(&t);
    return st;
}
