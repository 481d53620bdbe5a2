/* The GPU vector steps of the iterative solvers (kernels/vec/), twins of
 * src/ref/vec_*_ref.c with the same contracts (src/ref/vec_ref.h; the coefficient type is the core's). Conventions as in
 * sp_kernels.h: d_ pointers hold device memory, work is queued on env->stream, nothing
 * synchronizes, allocates or prints; n = 0 is valid everywhere.
 *
 * Reductions are deterministic: each of at most SP_GPU_VEC_MAX_BLOCKS blocks sums a fixed
 * grid-stride share in a fixed order into its slot of d_temp (the block count depends on
 * n only, not on the device), then one block adds the slots in a fixed tree; so the same
 * inputs give the same bits on every run and every GPU. Sums are in double for both value
 * types. Results land in d_out[0] (a device double), where a later step can read them as a
 * coefficient (sp_vec_coef_t.num / .den) without a trip to the host. */
#ifndef SP_KERNELS_VEC_H
#define SP_KERNELS_VEC_H

#include "sp_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of a reduction, and the device scratch (bytes, 256-aligned start) it needs. */
enum { SP_GPU_VEC_MAX_BLOCKS = 1024 };
#define SP_GPU_VEC_TEMP_BYTES ((size_t)SP_GPU_VEC_MAX_BLOCKS * sizeof(double))

/* d_z[i] = value (rounded to t). */
sp_status_t sp__gpu_vec_fill(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                             double value, void *d_z);

/* z = a*x + b*y + c*z (see sp__ref_vec_update); with d_out: d_out[0] = new z . w (sqrt when
 * root), needing d_temp. Coefficients' num / den are device pointers. */
sp_status_t sp__gpu_vec_update(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                               sp_vec_coef_t a, const void *d_x, sp_vec_coef_t b,
                               const void *d_y, sp_vec_coef_t c, void *d_z, const void *d_w,
                               double *d_out, int root, void *d_temp);

/* d_out[0] = x . y (sqrt when root). */
sp_status_t sp__gpu_vec_dot(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                            const void *d_x, const void *d_y, double *d_out, int root,
                            void *d_temp);

/* z = d .* r; with d_out: d_out[0] = z . r (needs d_temp). d_z may equal d_r. */
sp_status_t sp__gpu_vec_pointwise(const sp_gpu_env_t *env, sp_value_type_t t, int64_t n,
                                  const void *d_d, const void *d_r, void *d_z, double *d_out,
                                  void *d_temp);

/* d_diag[i] = A(i, i) of the square device CSR a (0 where none is stored), of a's type;
 * a's row pointers at either width (ptr or ptr64). */
sp_status_t sp__gpu_csr_diagonal(const sp_gpu_env_t *env, const sp_csr_t *a, void *d_diag);

#ifdef __cplusplus
}
#endif

#endif /* SP_KERNELS_VEC_H */
