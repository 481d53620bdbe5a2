/* y = alpha * A * x + beta * y over triplets in any order: y = beta * y first, then each
 * entry adds alpha * a * x[col] to its row (rounded to A's type after every entry). */
#include "ref_internal.h"

/* Scale y by beta; beta == 0 writes zeros without reading y. */
static void scale_y(void *y, sp_value_type_t t, int64_t n, double beta)
{
    for (int64_t i = 0; i < n; i++) ref_y_update(y, t, i, 1.0, 0.0, beta);
}

/* A holds values (the API refuses SpMV on patterns before it gets here). */
void sp__ref_spmv_coo(const sp_triplets_t *a, const void *alpha, const void *x,
                      const void *beta, void *y)
{
    sp_value_type_t t = a->value_type;
    double al = ref_value_get(alpha, t, 0);
    scale_y(y, t, a->nrows, ref_value_get(beta, t, 0));
    for (int64_t k = 0; k < a->nnz; k++) {
        double prod = ref_value_get(a->val, t, k) * ref_value_get(x, t, a->col[k]);
        ref_y_update(y, t, a->row[k], al, prod, 1.0);
    }
}
