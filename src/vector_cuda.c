/* Vectors on a CUDA context: one device allocation holding the values and the reduction
 * scratch, and copies on the context's stream. Without CUDA: NOT_COMPILED stubs. */
#include "sp_vector.h"

#ifdef SP_HAVE_CUDA
#include "sp_cuda.h"

/* Values first, the scratch after them at a 256-byte boundary. */
static size_t values_bytes(const sp_vector_t *v)
{
    size_t b = (size_t)v->n * sp_value_size(v->type);
    return (b + 255) / 256 * 256;
}

sp_status_t sp__cuda_vector_alloc(sp_vector_t *v)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    void *d = NULL;
    sp__cuda_env(v->ctx, &env);
    SP_TRY(env.alloc(env.self, &d, values_bytes(v) + SP_VEC_SCRATCH_SLOTS * sizeof(double)));
    v->data = d;
    v->scratch = (double *)(void *)((char *)d + values_bytes(v));
done:
    return st;
}

void sp__cuda_vector_free(sp_vector_t *v)
{
    sp_gpu_env_t env;
    sp__cuda_env(v->ctx, &env);
    env.free(env.self, v->data);
}

sp_status_t sp__cuda_copy(sp_context_t *ctx, void *dst, const void *src, size_t bytes, int dir)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    enum cudaMemcpyKind kind = dir > 0   ? cudaMemcpyHostToDevice
                               : dir < 0 ? cudaMemcpyDeviceToHost
                                         : cudaMemcpyDeviceToDevice;
    sp__cuda_env(ctx, &env);
    if (bytes) SP_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, (cudaStream_t)env.stream));
    /* host buffers may be reused (to device) or read (to host) once the call returns */
    if (dir != 0) SP_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)env.stream));
done:
    return st;
}

#else /* !SP_HAVE_CUDA */

sp_status_t sp__cuda_vector_alloc(sp_vector_t *v)
{
    (void)v;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

void sp__cuda_vector_free(sp_vector_t *v) { (void)v; }

sp_status_t sp__cuda_copy(sp_context_t *ctx, void *dst, const void *src, size_t bytes, int dir)
{
    (void)ctx, (void)dst, (void)src, (void)bytes, (void)dir;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

#endif
