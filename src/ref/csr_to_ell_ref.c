/* ELL = the CSR's rows padded to a common width, stored column-major (slot k of row r at
 * k * nrows + r) so consecutive rows' k-th entries are adjacent; padding column -1, value 0. */
#include "ref_internal.h"

sp_status_t sp__ref_csr_to_ell_width(const sp_csr_t *csr, int64_t width, sp_ell_t *ell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_ell_t e = {0};
    SP_CHECK_ARG(csr != NULL && ell != NULL, "csr to ell: NULL argument");
    SP_CHECK_ARG(width >= 0 && width <= INT32_MAX, "csr to ell: width %lld outside 0..%d",
                 (long long)width, INT32_MAX);
    size_t vs = sp_value_size(csr->value_type);
    int64_t slots = csr->nrows * width;
    e.nrows = csr->nrows;
    e.ncols = csr->ncols;
    e.width = width;
    e.value_type = csr->value_type;
    SP_ALLOC(e.col, slots);
    SP_TRY(ref_values_calloc(&e.val, e.value_type, slots));
    for (int64_t s = 0; s < slots; s++) e.col[s] = -1;
    for (int64_t r = 0; r < e.nrows; r++) {
        int64_t len = ref_row_length(csr, r), stored = len < width ? len : width;
        for (int64_t k = 0; k < stored; k++) {
            e.col[k * e.nrows + r] = csr->idx[sp__csr_at(csr, r) + k];
            ref_value_copy(e.val, k * e.nrows + r, csr->val, sp__csr_at(csr, r) + k, vs);
        }
        e.nnz += stored;
    }
    *ell = e;
    e = (sp_ell_t){0};
done:
    sp__ell_free(&e);
    return st;
}

sp_status_t sp__ref_csr_to_ell(const sp_csr_t *csr, sp_ell_t *ell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(csr != NULL && ell != NULL, "csr to ell: NULL argument");
    st = sp__ref_csr_to_ell_width(csr, ref_longest_row(csr), ell);
done:
    return st;
}
