/* z = a*x + b*y + c*z, optionally followed by the dot product of the new z with w: the
 * host twin of kernels/vec/vec_update.cu (a solver's fused update and residual norm). */
#include <math.h>

#include "ref_internal.h"
#include "vec_ref.h"

void sp__ref_vec_update(sp_value_type_t t, int64_t n, sp_vec_coef_t a, const void *x,
                        sp_vec_coef_t b, const void *y, sp_vec_coef_t c, void *z,
                        const void *w, double *out, int root)
{
    double av = sp__vec_coef_value(a), bv = sp__vec_coef_value(b);
    double cv = sp__vec_coef_value(c), sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double v = 0.0;
        if (x) v += av * ref_value_get(x, t, i);
        if (y) v += bv * ref_value_get(y, t, i);
        if (cv != 0.0) v += cv * ref_value_get(z, t, i);
        ref_value_set(z, t, i, v);
        if (out) sum += ref_value_get(z, t, i) * ref_value_get(w, t, i);
    }
    if (out) out[0] = root ? sqrt(sum) : sum;
}
