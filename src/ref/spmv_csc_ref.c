/* y = alpha * A * x + beta * y with A given by its CSC: y = beta * y first, then column j
 * adds alpha * x[j] * A(:, j) (rounded to A's type after every entry). */
#include "ref_internal.h"

/* A holds values (the API refuses SpMV on patterns before it gets here). */
void sp__ref_spmv_csc(const sp_csr_t *a, const void *alpha, const void *x, const void *beta,
                      void *y)
{
    sp_value_type_t t = a->value_type;
    double al = ref_value_get(alpha, t, 0), be = ref_value_get(beta, t, 0);
    for (int64_t i = 0; i < a->nrows; i++) ref_y_update(y, t, i, 1.0, 0.0, be);
    for (int64_t j = 0; j < a->ncols; j++) {
        double xj = ref_value_get(x, t, j);
        for (int64_t k = sp__csr_at(a, j); k < sp__csr_at(a, j + 1); k++)
            ref_y_update(y, t, a->idx[k], al, ref_value_get(a->val, t, k) * xj, 1.0);
    }
}
