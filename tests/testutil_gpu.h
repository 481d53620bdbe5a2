/* Shared helpers of the GPU suites (check_gpu_*): a counting device allocator for
 * sp_context_options_t that fails on demand, and the test environment of the suites that
 * call the kernels directly (an sp_gpu_env_t with its own stream and counting, failing
 * cudaMalloc hooks). Built with CUDA only (tests/CMakeLists.txt); suites use it inside
 * #ifdef SP_HAVE_CUDA. (The pair of contexts of the public-API suites, which need no CUDA
 * header, is in testutil.h.) */
#ifndef SP_TESTUTIL_GPU_H
#define SP_TESTUTIL_GPU_H

#include <stdint.h>

#include <check.h>
#include <cuda_runtime_api.h>

#include "sp.h"
#include "sp_kernels.h"

/* Assert that a CUDA runtime call succeeds, naming the call and CUDA's text. */
#define ck_cuda(call)                                                                     \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        ck_assert_msg(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));        \
    } while (0)

/* Hooks for sp_context_options_t.allocator: cudaMallocAsync / cudaFreeAsync on the stream
 * libsp passes, counting requests and live blocks (thread-safe). */
const sp_device_allocator_t *sp_test_gpu_allocator(void);

/* From now on the k-th request (0-based, counted from this call) and all later ones fail;
 * k < 0: none fails. Live blocks are not reset (compare with a baseline). */
void sp_test_gpu_fail_allocations_after(int64_t k);
/* How a request fails: 0 (default) returns failure without touching CUDA; 1 asks
 * cudaMallocAsync for an impossible size, so CUDA itself fails and its last error is left
 * set, as a real out-of-memory would leave it. */
void sp_test_gpu_fail_through_cuda(int on);
/* Requests (failed ones included) since the last sp_test_gpu_fail_allocations_after. */
int64_t sp_test_gpu_allocations(void);
/* Blocks allocated through the hooks and not yet freed. */
int64_t sp_test_gpu_live_allocations(void);

/* Copies between host and device memory on `stream` (NULL: the legacy default stream),
 * after all the work queued there, then waiting for the stream, so the next call (libsp's
 * on any stream, or the host reading h) sees the data; nothing is copied for 0 bytes. */
void sp_test_to_device(void *d, const void *h, size_t bytes, cudaStream_t stream);
void sp_test_to_host(void *h, const void *d, size_t bytes, cudaStream_t stream);

/* ---- the kernel suites' environment (check_gpu_convert, _sptrsv, _bfs_loops) ---------- */

typedef struct sp_test_env {
    sp_gpu_env_t env; /* what the kernels take: the hooks below (self: this struct), the
                         stream, the SM count */
    cudaStream_t stream;
    int64_t calls;   /* alloc requests since the last sp_test_env_arm */
    int64_t fail_at; /* requests with index >= fail_at fail; < 0: never */
    int64_t live;    /* blocks allocated and not freed */
} sp_test_env_t;

/* A fresh environment in *t (a checked fixture's setup): its stream created, nothing
 * failing. */
void sp_test_env_setup(sp_test_env_t *t);
/* Asserts no block is live, then destroys the stream (the fixture's teardown). */
void sp_test_env_teardown(sp_test_env_t *t);
/* From now on the k-th request (0-based, counted from this call) and all later ones fail;
 * k < 0: none fails. */
void sp_test_env_arm(sp_test_env_t *t, int64_t k);
/* The hooks (self: the sp_test_env_t), also for a suite's own device arrays: cudaMalloc
 * (at least one byte) and cudaFree, counted in live; a refused request is
 * SP_STATUS_ALLOC_FAILED with "test env: refused" in the message. */
sp_status_t sp_test_env_alloc(void *self, void **d_ptr, size_t bytes);
void sp_test_env_free(void *self, void *d_ptr);
/* A device copy of bytes at h through the environment (NULL for 0 bytes), asserted. */
void *sp_test_env_upload(sp_test_env_t *t, const void *h, size_t bytes);
/* A device copy of the host CSR h through the environment (its arrays from
 * sp_test_env_upload; sp__gpu_csr_free with t's env frees them), asserted. */
sp_csr_t sp_test_env_upload_csr(sp_test_env_t *t, const sp_csr_t *h);
/* h_y = A h_x (double, n rows and columns) on ctx in format (DEFAULT algorithm) through
 * device vectors, asserted. */
void sp_test_spmv_to_host(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format,
                          const double *h_x, int64_t n, double *h_y);

#endif /* SP_TESTUTIL_GPU_H */
