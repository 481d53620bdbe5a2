/* sum_i x[i] * y[i] in double, in index order (or its square root: the 2-norm): the host
 * twin of kernels/vec/vec_dot.cu. */
#include <math.h>

#include "ref_internal.h"
#include "vec_ref.h"

void sp__ref_vec_dot(sp_value_type_t t, int64_t n, const void *x, const void *y, double *out,
                     int root)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) sum += ref_value_get(x, t, i) * ref_value_get(y, t, i);
    out[0] = root ? sqrt(sum) : sum;
}
