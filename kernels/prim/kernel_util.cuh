/* Host-side helpers every kernel family uses (conversions, SpMV plans, BFS, solves): device
 * memory through the environment (sp_gpu_env_t), one scratch block carved into aligned
 * arrays, scalars read back on the stream, grid sizing and the value-type dispatch.
 * Header-only, all static or inline, and no kernel (a kernel here would be compiled into
 * every file that includes it). */
#ifndef SP_KERNEL_UTIL_CUH
#define SP_KERNEL_UTIL_CUH

#include <stddef.h>
#include <stdint.h>

#include "prim/prim_common.cuh"
#include "sp_kernels.h"

namespace sp_prim {

/* *d_ptr = bytes of device memory from the environment; zero bytes give NULL without
 * asking (every *_free accepts NULL), so empty formats hold NULL arrays. */
static inline sp_status_t env_alloc(const sp_gpu_env_t *env, void **d_ptr, size_t bytes)
{
    *d_ptr = NULL;
    if (bytes == 0) return SP_STATUS_SUCCESS;
    return env->alloc(env->self, d_ptr, bytes);
}

/* *d_ptr = n elements of T (n >= 0). */
template <typename T>
static inline sp_status_t env_alloc_n(const sp_gpu_env_t *env, T **d_ptr, int64_t n)
{
    void *p = NULL;
    sp_status_t st = env_alloc(env, &p, (size_t)n * sizeof(T));
    *d_ptr = static_cast<T *>(p);
    return st;
}

static inline void env_free(const sp_gpu_env_t *env, void *d_ptr)
{
    if (d_ptr) env->free(env->self, d_ptr);
}

/* Byte offsets of several arrays in one scratch allocation, each 256-byte aligned (the
 * primitives' temp alignment), so a caller asks the environment once for all of its
 * temporaries. */
struct scratch_plan {
    size_t total = 0;
    size_t add(size_t bytes)
    {
        size_t at = total;
        total += align_up(bytes);
        return at;
    }
    template <typename T>
    size_t add_n(int64_t n) { return add((size_t)n * sizeof(T)); }
};

template <typename T>
static inline T *at(void *base, size_t offset)
{
    return reinterpret_cast<T *>(static_cast<char *>(base) + offset);
}

/* h_dst = bytes at d_src, after the work queued on the stream: the one way the kernel layer
 * synchronizes (the stream, never the device). */
static inline sp_status_t to_host(const sp_gpu_env_t *env, void *h_dst, const void *d_src,
                                  size_t bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    SP_CUDA_TRY(cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, s));
    SP_CUDA_TRY(cudaStreamSynchronize(s));
done:
    return st;
}

/* Blocks of `block` threads for a grid-stride loop over n items (at least one block),
 * capped at blocks_per_sm per SM (the loop strides over the rest). */
static inline unsigned grid_for(const sp_gpu_env_t *env, int64_t n, int block,
                                int blocks_per_sm)
{
    int64_t cap = (int64_t)(env->sm_count > 0 ? env->sm_count : 1) * blocks_per_sm;
    int64_t need = (n + block - 1) / block;
    if (need < 1) need = 1;
    return (unsigned)(need < cap ? need : cap);
}

/* Calls f with a value of the C type of t: double for SP_R_64F, float otherwise (the
 * caller has checked t). Kernels are templates over that type. */
template <typename F>
static inline void by_value(sp_value_type_t t, F f)
{
    if (t == SP_R_64F)
        f(double(0));
    else
        f(float(0));
}

/* A while node at the root of graph, for the level and iteration loops that run on the
 * device: its handle (default 1: the body runs again until one of its kernels sets it to 0
 * with cudaGraphSetConditional) in *handle, its body in *body. NOT_SUPPORTED naming `what`
 * (and `hint`, what to use instead) where the driver has no conditional nodes (CUDA 12.4 or
 * later), the error cleared. */
static inline sp_status_t graph_add_while(cudaGraph_t graph, const char *what, const char *hint,
                                          cudaGraphConditionalHandle *handle, cudaGraph_t *body)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaGraphNodeParams cp = {};
    cudaGraphNode_t node;
    cudaError_t e = cudaGraphConditionalHandleCreate(handle, graph, 1, cudaGraphCondAssignDefault);
    if (e == cudaSuccess) {
        cp.type = cudaGraphNodeTypeConditional;
        cp.conditional.handle = *handle;
        cp.conditional.type = cudaGraphCondTypeWhile;
        cp.conditional.size = 1;
        e = cudaGraphAddNode(&node, graph, NULL, NULL, 0, &cp);
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s: this driver has no conditional graph nodes (%s; CUDA 12.4 or later "
                "needed)%s",
                what, cudaGetErrorString(e), hint);
    }
    *body = cp.conditional.phGraph_out[0];
done:
    return st;
}

} /* namespace sp_prim */

#endif /* SP_KERNEL_UTIL_CUH */
