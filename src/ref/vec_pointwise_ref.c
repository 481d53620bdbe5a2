/* z = d .* r, optionally with the dot product z . r (a Jacobi preconditioner step and its
 * rho): the host twin of kernels/vec/vec_pointwise.cu. */
#include "ref_internal.h"
#include "vec_ref.h"

void sp__ref_vec_pointwise(sp_value_type_t t, int64_t n, const void *d, const void *r, void *z,
                           double *out)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double ri = ref_value_get(r, t, i);
        ref_value_set(z, t, i, ref_value_get(d, t, i) * ri);
        sum += ref_value_get(z, t, i) * ri;
    }
    if (out) out[0] = sum;
}
