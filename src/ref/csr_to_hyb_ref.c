/* HYB = ELL of the first `width` entries of each row plus COO of the overflow, in row
 * order (Bell & Garland): ELL serves the typical row, COO the few long ones. */
#include "ref_internal.h"

/* Rows of length >= k, for the width rule. */
static int64_t rows_at_least(const sp_csr_t *csr, int64_t k)
{
    int64_t count = 0;
    for (int64_t r = 0; r < csr->nrows; r++) count += ref_row_length(csr, r) >= k;
    return count;
}

/* Largest k with rows_at_least(k) >= max(ceil(nrows/3), min(nrows, 4096)), found by
 * bisection (rows_at_least falls as k grows); 0 for a matrix without rows. */
int64_t sp__ref_hyb_width(const sp_csr_t *csr)
{
    int64_t n = csr->nrows, need = (n + 2) / 3;
    if (n == 0) return 0;
    if (need < (n < 4096 ? n : 4096)) need = n < 4096 ? n : 4096;
    int64_t lo = 0, hi = ref_longest_row(csr) + 1; /* lo qualifies, hi does not */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (rows_at_least(csr, mid) >= need)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

sp_status_t sp__ref_csr_to_hyb(const sp_csr_t *csr, int64_t width, sp_hyb_t *hyb)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_hyb_t h = {{0}, {0}};
    SP_CHECK_ARG(csr != NULL && hyb != NULL, "csr to hyb: NULL argument");
    if (width < 0) width = sp__ref_hyb_width(csr);
    size_t vs = sp_value_size(csr->value_type);
    SP_TRY(sp__ref_csr_to_ell_width(csr, width, &h.ell));
    h.coo.nrows = csr->nrows;
    h.coo.ncols = csr->ncols;
    h.coo.nnz = csr->nnz - h.ell.nnz;
    h.coo.value_type = csr->value_type;
    SP_ALLOC(h.coo.row, h.coo.nnz);
    SP_ALLOC(h.coo.col, h.coo.nnz);
    SP_TRY(ref_values_calloc(&h.coo.val, h.coo.value_type, h.coo.nnz));
    int64_t p = 0;
    for (int64_t r = 0; r < csr->nrows; r++)
        for (int64_t k = sp__csr_at(csr, r) + width; k < sp__csr_at(csr, r + 1); k++, p++) {
            h.coo.row[p] = (int32_t)r;
            h.coo.col[p] = csr->idx[k];
            ref_value_copy(h.coo.val, p, csr->val, k, vs);
        }
    *hyb = h;
    h = (sp_hyb_t){{0}, {0}};
done:
    sp__hyb_free(&h);
    return st;
}
