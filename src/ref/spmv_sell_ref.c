/* y = alpha * A * x + beta * y over SELL-C-sigma: sorted row p lives in slice p / C at
 * lane p % C; it sums that slice's width slots, skipping padding, and writes y[perm[p]]. */
#include "ref_internal.h"

/* A holds values (the API refuses SpMV on patterns before it gets here). */
void sp__ref_spmv_sell(const sp_sell_t *a, const void *alpha, const void *x,
                       const void *beta, void *y)
{
    sp_value_type_t t = a->value_type;
    double al = ref_value_get(alpha, t, 0), be = ref_value_get(beta, t, 0);
    for (int64_t p = 0; p < a->nrows; p++) {
        int64_t slice = p / a->c, base = sp__sell_at(a, slice) + p % a->c;
        double sum = 0.0;
        for (int64_t k = 0; k < a->slice_width[slice]; k++) {
            int64_t s = base + k * a->c;
            if (a->col[s] >= 0) sum += ref_value_get(a->val, t, s) * ref_value_get(x, t, a->col[s]);
        }
        ref_y_update(y, t, a->perm[p], al, sum, be);
    }
    sp__ref_spmv_tail(&a->tail, alpha, x, y);
}
