/* The vector steps: dispatch to the host references or the GPU kernels, and the public
 * arithmetic (axpby, scale, dot, nrm2 and the fused axpby + nrm2) with results on the host
 * (one stream synchronization) or left in a slot of a double vector (none). */
#include "sp_vector.h"

#ifdef SP_HAVE_CUDA
#include "sp_kernels_vec.h"
#endif

#ifdef SP_HAVE_CUDA
#define ON_GPU(ctx, env) \
    sp_gpu_env_t env;    \
    sp__cuda_env((ctx), &env)
#endif

sp_status_t sp__vec_fill(sp_context_t *ctx, sp_vector_t *z, double value)
{
    if (ctx->kind == SP_DEVICE_HOST) {
        sp__ref_vec_fill(z->type, z->n, value, z->data);
        return SP_STATUS_SUCCESS;
    }
#ifdef SP_HAVE_CUDA
    ON_GPU(ctx, env);
    return sp__gpu_vec_fill(&env, z->type, z->n, value, z->data);
#else
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
#endif
}

sp_status_t sp__vec_update(sp_context_t *ctx, sp_vec_coef_t a, const sp_vector_t *x,
                           sp_vec_coef_t b, const sp_vector_t *y, sp_vec_coef_t c,
                           sp_vector_t *z, const sp_vector_t *w, double *out, int root)
{
    const void *xd = x ? x->data : NULL, *yd = y ? y->data : NULL, *wd = w ? w->data : NULL;
    if (ctx->kind == SP_DEVICE_HOST) {
        sp__ref_vec_update(z->type, z->n, a, xd, b, yd, c, z->data, wd, out, root);
        return SP_STATUS_SUCCESS;
    }
#ifdef SP_HAVE_CUDA
    ON_GPU(ctx, env);
    return sp__gpu_vec_update(&env, z->type, z->n, a, xd, b, yd, c, z->data, wd, out, root,
                              z->scratch);
#else
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
#endif
}

sp_status_t sp__vec_dot(sp_context_t *ctx, const sp_vector_t *x, const sp_vector_t *y,
                        double *out, int root)
{
    if (ctx->kind == SP_DEVICE_HOST) {
        sp__ref_vec_dot(x->type, x->n, x->data, y->data, out, root);
        return SP_STATUS_SUCCESS;
    }
#ifdef SP_HAVE_CUDA
    ON_GPU(ctx, env);
    return sp__gpu_vec_dot(&env, x->type, x->n, x->data, y->data, out, root, x->scratch);
#else
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
#endif
}

sp_status_t sp__vec_pointwise(sp_context_t *ctx, const sp_vector_t *d, const sp_vector_t *r,
                              sp_vector_t *z, double *out)
{
    if (ctx->kind == SP_DEVICE_HOST) {
        sp__ref_vec_pointwise(z->type, z->n, d->data, r->data, z->data, out);
        return SP_STATUS_SUCCESS;
    }
#ifdef SP_HAVE_CUDA
    ON_GPU(ctx, env);
    return sp__gpu_vec_pointwise(&env, z->type, z->n, d->data, r->data, z->data, out,
                                 z->scratch);
#else
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
#endif
}

sp_status_t sp__vec_diagonal(sp_context_t *ctx, sp_matrix_t *A, sp_vector_t *diag)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
    if (ctx->kind == SP_DEVICE_HOST) {
        sp__ref_csr_diagonal(&A->f.csr, diag->data);
        goto done;
    }
#ifdef SP_HAVE_CUDA
    {
        /* the kernel reads the CSR's pointers at either width (issue 20), at any size */
        ON_GPU(ctx, env);
        SP_TRY(sp__gpu_csr_diagonal(&env, &A->f.csr, diag->data));
    }
#else
    SP_FAIL(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
#endif
done:
    return st;
}

sp_status_t sp__vec_read(sp_context_t *ctx, const double *out, int64_t count, double *h)
{
    if (ctx->kind == SP_DEVICE_HOST) {
        for (int64_t i = 0; i < count; i++) h[i] = out[i];
        return SP_STATUS_SUCCESS;
    }
    return sp__cuda_copy(ctx, h, out, (size_t)count * sizeof(double), -1);
}

/* ---- public arithmetic ---------------------------------------------------------------- */

/* x (and y, when given) on ctx, of one type and length. */
static sp_status_t check_pair(const char *what, const sp_context_t *ctx, const sp_vector_t *x,
                              const sp_vector_t *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(ctx != NULL && x != NULL, "%s: ctx or x is NULL", what);
    SP_CHECK_ARG(x->ctx == ctx && (!y || y->ctx == ctx),
                 "%s: vector belongs to another context", what);
    if (y)
        SP_CHECK_ARG(x->type == y->type && x->n == y->n,
                     "%s: x has %lld values of type %d, y %lld of type %d", what,
                     (long long)x->n, (int)x->type, (long long)y->n, (int)y->type);
done:
    return st;
}

/* Where a reduction lands: a slot of a double vector on ctx (result != NULL) or, for a
 * host result, the first vector's result slot (CUDA) or h_result itself (host context). */
static sp_status_t result_slot(const char *what, const sp_context_t *ctx,
                               const sp_vector_t *first, sp_vector_t *result, int64_t index,
                               double *h_result, double **slot)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (!result) {
        SP_CHECK_ARG(h_result != NULL, "%s: result is NULL", what);
        *slot = ctx->kind == SP_DEVICE_CUDA ? first->scratch + SP_VEC_SCRATCH_PARTS : h_result;
        goto done;
    }
    SP_CHECK_ARG(result->ctx == ctx, "%s: result vector belongs to another context", what);
    SP_CHECK_ARG(result->type == SP_R_64F, "%s: result vector must be SP_R_64F (type %d)", what,
                 (int)result->type);
    SP_CHECK_ARG(index >= 0 && index < result->n, "%s: index %lld outside the result's 0..%lld",
                 what, (long long)index, (long long)result->n - 1);
    *slot = (double *)result->data + index;
done:
    return st;
}

/* After a reduction with a host result on CUDA: bring the slot back (one sync). */
static sp_status_t fetch(sp_context_t *ctx, const double *slot, double *h_result)
{
    if (ctx->kind != SP_DEVICE_CUDA || h_result == NULL) return SP_STATUS_SUCCESS;
    return sp__vec_read(ctx, slot, 1, h_result);
}

sp_status_t sp_vector_axpby(sp_context_t *ctx, double alpha, const sp_vector_t *x, double beta,
                            sp_vector_t *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(y != NULL, "sp_vector_axpby: y is NULL");
    SP_TRY(check_pair("sp_vector_axpby", ctx, x, y));
    SP_TRY(sp__vec_update(ctx, sp__coef(alpha), x, sp__coef(0), NULL, sp__coef(beta), y, NULL,
                          NULL, 0));
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_vector_scale(sp_context_t *ctx, double alpha, sp_vector_t *x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(check_pair("sp_vector_scale", ctx, x, NULL));
    SP_TRY(sp__vec_update(ctx, sp__coef(0), NULL, sp__coef(0), NULL, sp__coef(alpha), x, NULL,
                          NULL, 0));
done:
    return sp__context_record(ctx, st);
}

/* x . y (root: its square root; y == x for ||x||) into the result slot or to the host. */
static sp_status_t reduce_dot(const char *what, sp_context_t *ctx, const sp_vector_t *x,
                              const sp_vector_t *y, int root, sp_vector_t *result,
                              int64_t index, double *h_result)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    double *slot = NULL;
    SP_TRY(check_pair(what, ctx, x, y));
    SP_CHECK_ARG(y != NULL, "%s: y is NULL", what);
    SP_TRY(result_slot(what, ctx, x, result, index, h_result, &slot));
    SP_TRY(sp__vec_dot(ctx, x, y, slot, root));
    if (!result) SP_TRY(fetch(ctx, slot, h_result));
done:
    return sp__context_record(ctx, st);
}

/* y = alpha x + beta y, then ||y|| in the same pass. */
static sp_status_t reduce_axpby(const char *what, sp_context_t *ctx, double alpha,
                                const sp_vector_t *x, double beta, sp_vector_t *y,
                                sp_vector_t *result, int64_t index, double *h_result)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    double *slot = NULL;
    SP_TRY(check_pair(what, ctx, x, y));
    SP_CHECK_ARG(y != NULL, "%s: y is NULL", what);
    SP_TRY(result_slot(what, ctx, y, result, index, h_result, &slot));
    SP_TRY(sp__vec_update(ctx, sp__coef(alpha), x, sp__coef(0), NULL, sp__coef(beta), y, y,
                          slot, 1));
    if (!result) SP_TRY(fetch(ctx, slot, h_result));
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_vector_dot(sp_context_t *ctx, const sp_vector_t *x, const sp_vector_t *y,
                          double *h_result)
{
    return reduce_dot("sp_vector_dot", ctx, x, y, 0, NULL, 0, h_result);
}

sp_status_t sp_vector_nrm2(sp_context_t *ctx, const sp_vector_t *x, double *h_result)
{
    return reduce_dot("sp_vector_nrm2", ctx, x, x, 1, NULL, 0, h_result);
}

sp_status_t sp_vector_axpby_nrm2(sp_context_t *ctx, double alpha, const sp_vector_t *x,
                                 double beta, sp_vector_t *y, double *h_result)
{
    return reduce_axpby("sp_vector_axpby_nrm2", ctx, alpha, x, beta, y, NULL, 0, h_result);
}

sp_status_t sp_vector_dot_async(sp_context_t *ctx, const sp_vector_t *x, const sp_vector_t *y,
                                sp_vector_t *result, int64_t index)
{
    return reduce_dot("sp_vector_dot_async", ctx, x, y, 0, result, index, NULL);
}

sp_status_t sp_vector_nrm2_async(sp_context_t *ctx, const sp_vector_t *x, sp_vector_t *result,
                                 int64_t index)
{
    return reduce_dot("sp_vector_nrm2_async", ctx, x, x, 1, result, index, NULL);
}

sp_status_t sp_vector_axpby_nrm2_async(sp_context_t *ctx, double alpha, const sp_vector_t *x,
                                       double beta, sp_vector_t *y, sp_vector_t *result,
                                       int64_t index)
{
    return reduce_axpby("sp_vector_axpby_nrm2_async", ctx, alpha, x, beta, y, result, index,
                        NULL);
}
