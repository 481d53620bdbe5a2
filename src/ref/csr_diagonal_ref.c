/* The diagonal of a square CSR, 0 where a row stores none: the host twin of
 * kernels/vec/csr_diagonal.cu (Jacobi and Gauss-Seidel preconditioners). */
#include "ref_internal.h"
#include "vec_ref.h"

void sp__ref_csr_diagonal(const sp_csr_t *a, void *diag)
{
    for (int64_t r = 0; r < a->nrows; r++) {
        double d = 0.0;
        for (int64_t k = sp__csr_at(a, r); k < sp__csr_at(a, r + 1); k++)
            if (a->idx[k] == r) d = ref_value_get(a->val, a->value_type, k);
        ref_value_set(diag, a->value_type, r, d);
    }
}
