/* y = alpha * A * x + beta * y over column-major ELL: row r sums its width slots at
 * k * nrows + r, skipping padding (column -1); summed in double. With a value table a
 * slot's value is table[code] (the same bits as val, sp_formats.h), as the GPU reads it. */
#include "ref_internal.h"

/* A holds values (the API refuses SpMV on patterns before it gets here). */
void sp__ref_spmv_ell(const sp_ell_t *a, const void *alpha, const void *x, const void *beta,
                      void *y)
{
    sp_value_type_t t = a->value_type;
    double al = ref_value_get(alpha, t, 0), be = ref_value_get(beta, t, 0);
    for (int64_t r = 0; r < a->nrows; r++) {
        double sum = 0.0;
        for (int64_t k = 0; k < a->width; k++) {
            int64_t s = k * a->nrows + r;
            if (a->col[s] < 0) continue;
            double v = a->ntable > 0 ? ref_value_get(a->table, t, a->code[s])
                                     : ref_value_get(a->val, t, s);
            sum += v * ref_value_get(x, t, a->col[s]);
        }
        ref_y_update(y, t, r, al, sum, be);
    }
    sp__ref_spmv_tail(&a->tail, alpha, x, y);
}
