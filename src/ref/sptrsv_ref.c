/* x = alpha * T^-1 b for the lower (col <= row) or upper (col >= row) triangle T of a
 * square CSR, by forward or backward substitution in row order, summed in double. */
#include "ref_internal.h"

/* The diagonal of row r within the used triangle, or 0 when none is stored. */
static double row_diag(const sp_csr_t *a, int64_t r)
{
    for (int64_t k = sp__csr_at(a, r); k < sp__csr_at(a, r + 1); k++)
        if (a->idx[k] == r) return ref_value_get(a->val, a->value_type, k);
    return 0.0;
}

sp_status_t sp__ref_sptrsv(const sp_csr_t *a, int upper, int unit_diag, const void *alpha,
                           const void *b, void *x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_value_type_t t;
    double al;
    SP_CHECK_ARG(a != NULL && alpha != NULL && b != NULL && x != NULL,
                 "sptrsv: NULL matrix, alpha, b or x");
    SP_CHECK_ARG(a->nrows == a->ncols, "sptrsv: matrix is %lld x %lld, not square",
                 (long long)a->nrows, (long long)a->ncols);
    SP_CHECK_ARG(a->value_type == SP_R_32F || a->value_type == SP_R_64F,
                 "sptrsv: the matrix has no values (pattern)");
    t = a->value_type;
    if (!unit_diag)
        for (int64_t r = 0; r < a->nrows; r++)
            SP_CHECK_ARG(row_diag(a, r) != 0.0,
                         "sptrsv: row %lld has no non-zero diagonal entry (singular triangle)",
                         (long long)r);
    al = ref_value_get(alpha, t, 0);
    for (int64_t i = 0; i < a->nrows; i++) {
        int64_t r = upper ? a->nrows - 1 - i : i;
        double sum = al * ref_value_get(b, t, r);
        for (int64_t k = sp__csr_at(a, r); k < sp__csr_at(a, r + 1); k++) {
            int64_t c = a->idx[k];
            if (upper ? c > r : c < r) sum -= ref_value_get(a->val, t, k) * ref_value_get(x, t, c);
        }
        ref_value_set(x, t, r, unit_diag ? sum : sum / row_diag(a, r));
    }
done:
    return st;
}
