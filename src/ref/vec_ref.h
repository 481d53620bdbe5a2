/* Vector steps of the iterative solvers (src/ref/vec_*_ref.c, twins of kernels/vec/), with
 * the core's coefficient type (sp_vec_coef_t, src/core/sp_formats.h). Sums run in double
 * for both value types, sequentially in index order; updated values are computed in double
 * and rounded once to the vector's type. */
#ifndef SP_VEC_REF_H
#define SP_VEC_REF_H

#include <stdint.h>

#include "sp_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* z[i] = value for i < n. */
void sp__ref_vec_fill(sp_value_type_t t, int64_t n, double value, void *z);

/* z = a*x + b*y + c*z, a NULL x or y dropping its term and c == 0 never reading z; then,
 * when out is not NULL, out[0] = sum_i z[i] * w[i] over the stored (rounded) z, w == z
 * allowed, and its square root when root is set. w must be non-NULL when out is. */
void sp__ref_vec_update(sp_value_type_t t, int64_t n, sp_vec_coef_t a, const void *x,
                        sp_vec_coef_t b, const void *y, sp_vec_coef_t c, void *z,
                        const void *w, double *out, int root);

/* out[0] = sum_i x[i] * y[i] (its square root when root is set). */
void sp__ref_vec_dot(sp_value_type_t t, int64_t n, const void *x, const void *y, double *out,
                     int root);

/* z[i] = d[i] * r[i]; then, when out is not NULL, out[0] = sum_i z[i] * r[i]. z may be r. */
void sp__ref_vec_pointwise(sp_value_type_t t, int64_t n, const void *d, const void *r, void *z,
                           double *out);

/* diag[i] = A(i, i) of a square CSR (0 where no diagonal entry is stored), of its type. */
void sp__ref_csr_diagonal(const sp_csr_t *a, void *diag);

#ifdef __cplusplus
}
#endif

#endif /* SP_VEC_REF_H */
