/* A counting, failing device allocator for the GPU suites, and the kernel suites' test
 * environment (see testutil_gpu.h). */
#include "testutil_gpu.h"

#include <stdatomic.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "sp_base.h"
#include "testutil.h"

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

sp_status_t sp_test_env_alloc(void *self, void **d_ptr, size_t bytes)
{
    sp_test_env_t *t = self;
    *d_ptr = NULL;
    if (t->fail_at >= 0 && t->calls++ >= t->fail_at)
        return sp__error(SP_STATUS_ALLOC_FAILED, __FILE__, __LINE__,
                         "test env: refused %zu bytes", bytes);
    if (cudaMalloc(d_ptr, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        return sp__error(SP_STATUS_ALLOC_FAILED, __FILE__, __LINE__,
                         "test env: cudaMalloc of %zu bytes failed", bytes);
    }
    t->live++;
    return SP_STATUS_SUCCESS;
}

void sp_test_env_free(void *self, void *d_ptr)
{
    sp_test_env_t *t = self;
    if (!d_ptr) return;
    ck_assert_int_eq(cudaFree(d_ptr), cudaSuccess);
    t->live--;
}

void *sp_test_env_upload(sp_test_env_t *t, const void *h, size_t bytes)
{
    void *d = NULL;
    if (bytes == 0) return NULL;
    ck_assert_ok(sp_test_env_alloc(t, &d, bytes));
    ck_cuda(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    return d;
}

sp_csr_t sp_test_env_upload_csr(sp_test_env_t *t, const sp_csr_t *h)
{
    sp_csr_t d = *h;
    d.ptr = sp_test_env_upload(t, h->ptr, (size_t)(h->nrows + 1) * sizeof *h->ptr);
    d.idx = sp_test_env_upload(t, h->idx, (size_t)h->nnz * sizeof *h->idx);
    d.val = sp_test_env_upload(t, h->val, (size_t)h->nnz * sp_value_size(h->value_type));
    return d;
}

void sp_test_env_arm(sp_test_env_t *t, int64_t k)
{
    t->calls = 0;
    t->fail_at = k;
}

void sp_test_env_setup(sp_test_env_t *t)
{
    int dev = 0;
    memset(t, 0, sizeof *t);
    t->fail_at = -1;
    ck_cuda(cudaStreamCreate(&t->stream));
    ck_cuda(cudaGetDevice(&dev));
    ck_cuda(cudaDeviceGetAttribute(&t->env.sm_count, cudaDevAttrMultiProcessorCount, dev));
    t->env.stream = t->stream;
    t->env.alloc = sp_test_env_alloc;
    t->env.free = sp_test_env_free;
    t->env.self = t;
}

void sp_test_env_teardown(sp_test_env_t *t)
{
    ck_assert_int_eq(t->live, 0);
    ck_cuda(cudaStreamDestroy(t->stream));
}

void sp_test_to_device(void *d, const void *h, size_t bytes, cudaStream_t stream)
{
    if (bytes) ck_cuda(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream));
    ck_cuda(cudaStreamSynchronize(stream));
}

void sp_test_to_host(void *h, const void *d, size_t bytes, cudaStream_t stream)
{
    if (bytes) ck_cuda(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, stream));
    ck_cuda(cudaStreamSynchronize(stream));
}

void sp_test_spmv_to_host(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format,
                          const double *h_x, int64_t n, double *h_y)
{
    sp_vector_t *x = NULL, *y = NULL;
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, n, h_x, &x));
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, n, NULL, &y));
    ck_assert_ok(sp_spmv_vec(ctx, format, SP_SPMV_ALG_DEFAULT, 1.0, A, x, 0.0, y));
    ck_assert_ok(sp_vector_copy_to_host(ctx, y, h_y));
    sp_vector_destroy(x);
    sp_vector_destroy(y);
}
