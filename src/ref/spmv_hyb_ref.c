/* y = alpha * A * x + beta * y over HYB: the ELL part with the caller's beta, then the COO
 * overflow added on top (beta 1). */
#include "ref_internal.h"

/* A holds values (the API refuses SpMV on patterns before it gets here). */
void sp__ref_spmv_hyb(const sp_hyb_t *a, const void *alpha, const void *x, const void *beta,
                      void *y)
{
    sp__ref_spmv_ell(&a->ell, alpha, x, beta, y);
    sp__ref_spmv_tail(&a->coo, alpha, x, y);
}
