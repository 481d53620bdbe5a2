/* The CUDA executor's context: device, stream (own or the caller's), device properties.
 * Built without CUDA, every entry point returns SP_STATUS_NOT_COMPILED. */
#include <stdio.h>
#include <string.h>

#include "sp_api.h"

#ifdef SP_HAVE_CUDA
#include "sp_cuda.h"

#include "sp_kernels.h"

enum { SP_HOOKED_BLOCKS = 1024 }; /* live blocks the hooks' size table holds before growing */

typedef struct sp_cuda_state {
    int device;
    cudaStream_t stream;
    int owns_stream;
    sp_device_allocator_t allocator; /* alloc == NULL: the context's own memory pool */
    cudaMemPool_t pool;              /* stream-ordered pool that keeps freed memory */
    int has_pool;
    sp__size_table_t hooked; /* with hooks: the bytes of each live block (sp_context_memory) */
    int64_t test_room_cap; /* test only (sp__cuda_test_cap_room): > 0 caps the room */
    void *staging;         /* pinned host memory of the uploads (sp__cuda_staging) */
    size_t staging_bytes;
} sp_cuda_state_t;


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
    if (options && options->allocator) {
        SP_CHECK_ARG(options->allocator->alloc && options->allocator->free,
                     "sp_context_create: allocator hooks alloc and free are both required");
        s->allocator = *options->allocator;
        /* room for the blocks of several matrices, so calls do not grow it as they go */
        SP_TRY(sp__size_table_reserve(&s->hooked, SP_HOOKED_BLOCKS));
    } else {
        /* A pool of our own (not the device's default one, which belongs to the whole
         * process), keeping freed memory so repeated builds and plans pay no cudaMalloc. */
        struct cudaMemPoolProps props;
        uint64_t keep = UINT64_MAX;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        SP_CUDA_TRY(cudaMemPoolCreate(&s->pool, &props));
        s->has_pool = 1;
        SP_CUDA_TRY(cudaMemPoolSetAttribute(s->pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
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
    if (s && s->owns_stream) (void)cudaStreamDestroy(s->stream);
    if (s && s->has_pool) (void)cudaMemPoolDestroy(s->pool);
    if (s) sp__size_table_free(&s->hooked);
    sp__free(s);
    return st;
}

void sp__cuda_context_fini(sp_context_t *ctx)
{
    sp_cuda_state_t *s = ctx->cuda;
    if (!s) return;
    (void)cudaStreamSynchronize(s->stream);
    if (s->owns_stream) (void)cudaStreamDestroy(s->stream);
    if (s->has_pool) (void)cudaMemPoolDestroy(s->pool);
    if (s->staging) (void)cudaFreeHost(s->staging);
    (void)cudaGetLastError();
    sp__size_table_free(&s->hooked);
    sp__free(s);
    ctx->cuda = NULL;
}

/* Pinned host memory for the uploads, allocated on first use and kept with the context
 * (pinning costs milliseconds, once). NULL when the host will not pin it: the caller then
 * copies from pageable memory. Only the context's calls use it, one at a time. */
void *sp__cuda_staging(sp_context_t *ctx, size_t bytes)
{
    sp_cuda_state_t *s = ctx->cuda;
    if (s->staging_bytes >= bytes) return s->staging;
    if (s->staging) (void)cudaFreeHost(s->staging);
    s->staging = NULL;
    s->staging_bytes = 0;
    if (cudaHostAlloc(&s->staging, bytes, cudaHostAllocDefault) != cudaSuccess) {
        (void)cudaGetLastError();
        s->staging = NULL;
        return NULL;
    }
    s->staging_bytes = bytes;
    return s->staging;
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

/* With allocator hooks: the bytes libsp asked them for and has not given back, counted as
 * it calls them. With the pool: its used-memory counters, read once the stream has drained
 * (a free queued on it is counted once it runs). The pool's high-water mark can only be
 * reset to zero; whether it then reads zero or what is in use until the next allocation,
 * max(high, current) is the peak counted from now. */
sp_status_t sp__cuda_memory(sp_context_t *ctx, int reset, sp_memory_stats_t *out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_cuda_state_t *s = ctx->cuda;
    uint64_t used = 0, high = 0, zero = 0;
    if (!s->has_pool) {
        if (reset) s->hooked.peak = s->hooked.current;
        else out->current_bytes = s->hooked.current, out->peak_bytes = s->hooked.peak;
        goto done;
    }
    SP_CUDA_TRY(cudaSetDevice(s->device));
    SP_CUDA_TRY(cudaStreamSynchronize(s->stream));
    if (reset) {
        SP_CUDA_TRY(cudaMemPoolSetAttribute(s->pool, cudaMemPoolAttrUsedMemHigh, &zero));
        goto done;
    }
    SP_CUDA_TRY(cudaMemPoolGetAttribute(s->pool, cudaMemPoolAttrUsedMemCurrent, &used));
    SP_CUDA_TRY(cudaMemPoolGetAttribute(s->pool, cudaMemPoolAttrUsedMemHigh, &high));
    out->current_bytes = (int64_t)used;
    out->peak_bytes = (int64_t)(high > used ? high : used);
done:
    return st;
}

/* Device memory through the caller's hooks or the context's pool, on its stream. A
 * failure names the bytes asked for and what the device has free. */
static sp_status_t env_alloc(void *self, void **d_ptr, size_t bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_cuda_state_t *s = self;
    size_t free_bytes = 0, total_bytes = 0;
    int failed;
    if (bytes == 0) bytes = 256; /* a valid, distinct pointer for empty arrays */
    if (s->allocator.alloc) {
        failed = s->allocator.alloc(d_ptr, bytes, s->stream, s->allocator.user) != 0;
        if (failed) (void)cudaGetLastError(); /* what the hook's failed cudaMalloc left */
        if (!failed && sp__size_table_add(&s->hooked, *d_ptr, bytes) != SP_STATUS_SUCCESS) {
            s->allocator.free(*d_ptr, s->stream, s->allocator.user); /* uncounted: given back */
            *d_ptr = NULL;
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory counting a device block of "
                    "%zu bytes (sp_context_memory's table of the allocator hooks' blocks)",
                    bytes);
        }
    } else {
        failed = cudaMallocFromPoolAsync(d_ptr, bytes, s->pool, s->stream) != cudaSuccess;
        (void)cudaGetLastError();
    }
    if (failed) {
        *d_ptr = NULL;
        (void)cudaMemGetInfo(&free_bytes, &total_bytes);
        (void)cudaGetLastError();
        SP_FAIL(SP_STATUS_ALLOC_FAILED,
                "out of device memory allocating %zu bytes (%zu of %zu bytes free)", bytes,
                free_bytes, total_bytes);
    }
done:
    return st;
}

static void env_free(void *self, void *d_ptr)
{
    sp_cuda_state_t *s = self;
    if (!d_ptr) return;
    if (s->allocator.free) {
        sp__size_table_remove(&s->hooked, d_ptr);
        s->allocator.free(d_ptr, s->stream, s->allocator.user);
    }
    else (void)cudaFreeAsync(d_ptr, s->stream);
}

/* Every operation on the device starts here. The context's device is made current only
 * when it is not: cudaGetDevice reads the calling thread's state, where cudaSetDevice goes
 * to the driver on every call (a per-call cost an SpMV on a small matrix feels). */
void sp__cuda_env_keep_error(const sp_context_t *ctx, sp_gpu_env_t *env)
{
    sp_cuda_state_t *s = ctx->cuda;
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess || current != s->device)
        (void)cudaSetDevice(s->device);
    env->stream = s->stream;
    env->alloc = env_alloc;
    env->free = env_free;
    env->self = s;
    env->sm_count = ctx->info.sm_count;
    env->l2_bytes = ctx->info.l2_bytes;
}

/* Also clears CUDA's last error, so an error left by the caller (or by a failed
 * allocation hook) is never reported by the SP_CUDA_LAUNCHED checks of this call. */
void sp__cuda_env(const sp_context_t *ctx, sp_gpu_env_t *env)
{
    sp__cuda_env_keep_error(ctx, env);
    (void)cudaGetLastError();
}

/* What the device can still give this context: free memory plus what the context's pool
 * holds unused (*room), and the device's bytes in all (*total); 0 when unknown (the query
 * failed), else 1. The test cap applies. */
static int room_of(const sp_cuda_state_t *s, int64_t *room, size_t *total)
{
    size_t free_bytes = 0, total_bytes = 0;
    uint64_t reserved = 0, used = 0;
    if (cudaSetDevice(s->device) != cudaSuccess ||
        cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        (void)cudaGetLastError(); /* unknown: the allocations will tell */
        return 0;
    }
    *room = (int64_t)free_bytes;
    *total = total_bytes;
    if (s->has_pool) {
        if (cudaMemPoolGetAttribute(s->pool, cudaMemPoolAttrReservedMemCurrent, &reserved) ==
                cudaSuccess &&
            cudaMemPoolGetAttribute(s->pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess) {
            if (reserved > used) *room += (int64_t)(reserved - used);
        } else {
            (void)cudaGetLastError();
        }
    }
    if (s->test_room_cap > 0 && *room > s->test_room_cap) *room = s->test_room_cap;
    return 1;
}

/* With the caller's allocator hooks the figure says nothing about their memory, so there
 * is no check (unless a test cap is set). */
sp_status_t sp__cuda_check_room(const sp_context_t *ctx, int64_t need, const char *what)
{
    sp_cuda_state_t *s = ctx->cuda;
    size_t total_bytes = 0;
    int64_t room = 0;
    if (s->allocator.alloc && s->test_room_cap <= 0) return SP_STATUS_SUCCESS;
    if (!room_of(s, &room, &total_bytes)) return SP_STATUS_SUCCESS;
    if (need > room)
        return SP_ERROR(SP_STATUS_ALLOC_FAILED,
                        "%s needs %lld bytes on the device, %lld free (device %d, %zu bytes "
                        "in all)", what, (long long)need, (long long)room, s->device,
                        total_bytes);
    return SP_STATUS_SUCCESS;
}

int sp__cuda_has_room(const sp_context_t *ctx, int64_t need)
{
    sp_cuda_state_t *s = ctx->cuda;
    size_t total_bytes = 0;
    int64_t room = 0;
    if (s->allocator.alloc && s->test_room_cap <= 0) return 1;
    return !room_of(s, &room, &total_bytes) || need <= room;
}

void sp__cuda_test_cap_room(sp_context_t *ctx, int64_t bytes)
{
    if (ctx && ctx->kind == SP_DEVICE_CUDA && ctx->cuda)
        ((sp_cuda_state_t *)ctx->cuda)->test_room_cap = bytes;
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

sp_status_t sp__cuda_memory(sp_context_t *ctx, int reset, sp_memory_stats_t *out)
{
    (void)ctx, (void)reset, (void)out;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

sp_status_t sp__cuda_check_room(const sp_context_t *ctx, int64_t need, const char *what)
{
    (void)ctx, (void)need, (void)what;
    return SP_STATUS_SUCCESS;
}

int sp__cuda_has_room(const sp_context_t *ctx, int64_t need)
{
    (void)ctx, (void)need;
    return 1;
}

void sp__cuda_test_cap_room(sp_context_t *ctx, int64_t bytes) { (void)ctx, (void)bytes; }

#endif
