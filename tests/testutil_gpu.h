/* Shared helpers of the GPU suites (check_gpu_*): a counting device allocator for
 * sp_context_options_t that fails on demand. Built with CUDA only (tests/CMakeLists.txt);
 * suites use it inside #ifdef SP_HAVE_CUDA. */
#ifndef SP_TESTUTIL_GPU_H
#define SP_TESTUTIL_GPU_H

#include <stdint.h>

#include <check.h>
#include <cuda_runtime_api.h>

#include "sp.h"

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

/* 1 when SP_TEST_SMALL is set to a non-zero number (sanitizer runs), else 0. */
int sp_test_small(void);
/* 1 under scripts/device-sanitize.sh (SP_TEST_UNDER_SANITIZER): leave out CUDA API errors
 * provoked on purpose (compute-sanitizer reports them) and timing assertions. */
int sp_test_under_sanitizer(void);

#endif /* SP_TESTUTIL_GPU_H */
