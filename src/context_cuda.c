/* The CUDA executor's context: device, stream (own or the caller's), device properties.
 * Built without CUDA, every entry point returns SP_STATUS_NOT_COMPILED. */
#include <stdio.h>
#include <string.h>

#include "sp_api.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

typedef struct sp_cuda_state {
    int device;
    cudaStream_t stream;
    int owns_stream;
    sp_device_allocator_t allocator; /* alloc == NULL: cudaMallocAsync */
} sp_cuda_state_t;

#define SP_CUDA_TRY(call)                                                               \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            (void)cudaGetLastError();                                                   \
            SP_FAIL(SP_STATUS_DEVICE_ERROR, "%s failed: %s (%s)", #call,                \
                    cudaGetErrorString(e_), cudaGetErrorName(e_));                      \
        }                                                                               \
    } while (0)

sp_status_t sp__cuda_context_init(sp_context_t *ctx, const sp_context_options_t *options)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_cuda_state_t *s = NULL;
    struct cudaDeviceProp prop;
    int count = 0;
    int device = options ? options->device : 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        SP_FAIL(SP_STATUS_NO_DEVICE, "no CUDA device present (%s)",
                e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    }
    SP_CHECK_ARG(device >= 0 && device < count,
                 "sp_context_create: device %d outside 0..%d", device, count - 1);
    SP_CALLOC(s, 1);
    s->device = device;
    SP_CUDA_TRY(cudaSetDevice(device));
    SP_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    if (options && options->stream) {
        s->stream = (cudaStream_t)options->stream;
    } else {
        SP_CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
        s->owns_stream = 1;
    }
    if (options && options->allocator) s->allocator = *options->allocator;
    snprintf(ctx->info.name, sizeof ctx->info.name, "%s", prop.name);
    ctx->info.sm_count = prop.multiProcessorCount;
    ctx->info.cc_major = prop.major;
    ctx->info.cc_minor = prop.minor;
    ctx->info.global_mem_bytes = (int64_t)prop.totalGlobalMem;
    ctx->info.l2_bytes = prop.l2CacheSize;
    ctx->info.shared_mem_per_block = (int64_t)prop.sharedMemPerBlockOptin;
    ctx->cuda = s;
    s = NULL;
done:
    sp__free(s);
    return st;
}

void sp__cuda_context_fini(sp_context_t *ctx)
{
    sp_cuda_state_t *s = ctx->cuda;
    if (!s) return;
    if (s->owns_stream) {
        (void)cudaStreamSynchronize(s->stream);
        (void)cudaStreamDestroy(s->stream);
    }
    sp__free(s);
    ctx->cuda = NULL;
}

sp_status_t sp__cuda_synchronize(sp_context_t *ctx)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_cuda_state_t *s = ctx->cuda;
    SP_CUDA_TRY(cudaSetDevice(s->device));
    SP_CUDA_TRY(cudaStreamSynchronize(s->stream));
done:
    return st;
}

#else /* !SP_HAVE_CUDA */

sp_status_t sp__cuda_context_init(sp_context_t *ctx, const sp_context_options_t *options)
{
    (void)ctx;
    (void)options;
    return SP_ERROR(SP_STATUS_NOT_COMPILED,
                    "libsp was built without CUDA: rebuild with -DSP_WITH_CUDA=ON");
}

void sp__cuda_context_fini(sp_context_t *ctx) { (void)ctx; }

sp_status_t sp__cuda_synchronize(sp_context_t *ctx)
{
    (void)ctx;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

#endif
