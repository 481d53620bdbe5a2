/* z[i] = value: the host twin of kernels/vec/vec_fill.cu. */
#include "ref_internal.h"
#include "vec_ref.h"

void sp__ref_vec_fill(sp_value_type_t t, int64_t n, double value, void *z)
{
    for (int64_t i = 0; i < n; i++) ref_value_set(z, t, i, value);
}
