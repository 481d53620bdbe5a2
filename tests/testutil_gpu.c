/* A counting, failing device allocator for the GPU suites (see testutil_gpu.h). */
#include "testutil_gpu.h"

#include <stdatomic.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

static atomic_llong g_fail_from = -1, g_requests, g_live;
static atomic_int g_through_cuda;

static int gpu_alloc(void **ptr, size_t bytes, void *stream, void *user)
{
    (void)user;
    long long n = atomic_fetch_add(&g_requests, 1), k = atomic_load(&g_fail_from);
    *ptr = NULL;
    if (k >= 0 && n >= k) {
        if (atomic_load(&g_through_cuda)) /* fails: no device has 2^62 bytes */
            (void)cudaMallocAsync(ptr, (size_t)1 << 62, (cudaStream_t)stream);
        *ptr = NULL;
        return 1;
    }
    if (cudaMallocAsync(ptr, bytes, (cudaStream_t)stream) != cudaSuccess) {
        *ptr = NULL;
        return 1;
    }
    atomic_fetch_add(&g_live, 1);
    return 0;
}

static void gpu_free(void *ptr, void *stream, void *user)
{
    (void)user;
    if (!ptr) return;
    (void)cudaFreeAsync(ptr, (cudaStream_t)stream);
    atomic_fetch_sub(&g_live, 1);
}

const sp_device_allocator_t *sp_test_gpu_allocator(void)
{
    static const sp_device_allocator_t hooks = {gpu_alloc, gpu_free, NULL};
    return &hooks;
}

void sp_test_gpu_fail_allocations_after(int64_t k)
{
    atomic_store(&g_fail_from, k);
    atomic_store(&g_requests, 0);
}

void sp_test_gpu_fail_through_cuda(int on) { atomic_store(&g_through_cuda, on); }

int64_t sp_test_gpu_allocations(void) { return atomic_load(&g_requests); }

int64_t sp_test_gpu_live_allocations(void) { return atomic_load(&g_live); }

int sp_test_small(void)
{
    const char *s = getenv("SP_TEST_SMALL");
    return s != NULL && atoi(s) != 0;
}

int sp_test_under_sanitizer(void)
{
    const char *s = getenv("SP_TEST_UNDER_SANITIZER");
    return s != NULL && atoi(s) != 0;
}
