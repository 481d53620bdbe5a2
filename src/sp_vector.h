/* Vectors on a context and the dispatch of the vector steps to the host references
 * (src/ref/vec_*_ref.c) or the GPU kernels (kernels/vec/): what the public vector API and
 * the solvers (src/solve/) share. */
#ifndef SP_VECTOR_H
#define SP_VECTOR_H

#include "sp_api.h"
#include "vec_ref.h"

/* Slots of a CUDA vector's reduction scratch: partials of up to this many blocks
 * (SP_GPU_VEC_MAX_BLOCKS), then one result slot for reductions read back to the host. */
enum { SP_VEC_SCRATCH_PARTS = 1024, SP_VEC_SCRATCH_SLOTS = SP_VEC_SCRATCH_PARTS + 1 };

struct sp_vector {
    sp_context_t *ctx; /* borrowed: the context it was created on */
    sp_value_type_t type;
    int64_t n;
    void *data;      /* n values in the context's memory */
    double *scratch; /* CUDA: SP_VEC_SCRATCH_SLOTS device doubles after data (same
                        allocation), used by reductions whose first vector this is; NULL
                        on the host */
};

/* A vector of n values of type t on ctx, zeroed (no message recorded on the context). */
sp_status_t sp__vector_new(sp_context_t *ctx, sp_value_type_t t, int64_t n, sp_vector_t **v);

/* The steps, on the vector's context (all vectors on ctx, of one type and length; out and
 * coefficient pointers in the context's memory). See src/ref/vec_ref.h for each contract.
 * None synchronizes. */
sp_status_t sp__vec_fill(sp_context_t *ctx, sp_vector_t *z, double value);
sp_status_t sp__vec_update(sp_context_t *ctx, sp_vec_coef_t a, const sp_vector_t *x,
                           sp_vec_coef_t b, const sp_vector_t *y, sp_vec_coef_t c,
                           sp_vector_t *z, const sp_vector_t *w, double *out, int root);
sp_status_t sp__vec_dot(sp_context_t *ctx, const sp_vector_t *x, const sp_vector_t *y,
                        double *out, int root);
sp_status_t sp__vec_pointwise(sp_context_t *ctx, const sp_vector_t *d, const sp_vector_t *r,
                              sp_vector_t *z, double *out);
sp_status_t sp__vec_diagonal(sp_context_t *ctx, sp_matrix_t *A, sp_vector_t *diag);
/* h[0..count) = the doubles at out (context memory); synchronizes the stream on CUDA. */
sp_status_t sp__vec_read(sp_context_t *ctx, const double *out, int64_t count, double *h);

/* A host coefficient. */
static inline sp_vec_coef_t sp__coef(double value)
{
    sp_vec_coef_t c = {value, NULL, NULL};
    return c;
}

/* CUDA side (src/vector_cuda.c; NOT_COMPILED stubs without CUDA). */
sp_status_t sp__cuda_vector_alloc(sp_vector_t *v);
void sp__cuda_vector_free(sp_vector_t *v);
/* bytes between host and the context's memory (dir > 0: to device, < 0: to host, 0:
 * device to device), then a stream synchronization when the host is involved. */
sp_status_t sp__cuda_copy(sp_context_t *ctx, void *dst, const void *src, size_t bytes, int dir);

#endif /* SP_VECTOR_H */
