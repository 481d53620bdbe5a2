/* y = alpha * A * x + beta * y over CSR: one dot product per row, summed in double. */
#include "ref_internal.h"

/* A holds values (the API refuses SpMV on patterns before it gets here). */
void sp__ref_spmv_csr(const sp_csr_t *a, const void *alpha, const void *x, const void *beta,
                      void *y)
{
    sp_value_type_t t = a->value_type;
    double al = ref_value_get(alpha, t, 0), be = ref_value_get(beta, t, 0);
    for (int64_t r = 0; r < a->nrows; r++) {
        double sum = 0.0;
        for (int64_t k = sp__csr_at(a, r); k < sp__csr_at(a, r + 1); k++)
            sum += ref_value_get(a->val, t, k) * ref_value_get(x, t, a->idx[k]);
        ref_y_update(y, t, r, al, sum, be);
    }
}
