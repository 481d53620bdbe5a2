/* y = alpha * A * x + beta * y over JDS: sorted row i takes entry d from diagonal d while
 * the diagonal is longer than i, and writes y[perm[i]]; summed in double. */
#include "ref_internal.h"

/* A holds values (the API refuses SpMV on patterns before it gets here). */
void sp__ref_spmv_jds(const sp_jds_t *a, const void *alpha, const void *x, const void *beta,
                      void *y)
{
    sp_value_type_t t = a->value_type;
    double al = ref_value_get(alpha, t, 0), be = ref_value_get(beta, t, 0);
    for (int64_t i = 0; i < a->nrows; i++) {
        double sum = 0.0;
        for (int64_t d = 0; d < a->njd && i < sp__jds_at(a, d + 1) - sp__jds_at(a, d); d++) {
            int64_t s = sp__jds_at(a, d) + i;
            sum += ref_value_get(a->val, t, s) * ref_value_get(x, t, a->col[s]);
        }
        ref_y_update(y, t, a->perm[i], al, sum, be);
    }
    sp__ref_spmv_tail(&a->tail, alpha, x, y);
}
