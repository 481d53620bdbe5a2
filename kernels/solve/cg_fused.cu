/* The fused CG iteration (src/core/sp_cg_fused.h): two kernels an iteration, classic or
 * pipelined (Ghysels & Vanroose 2014), plain or Jacobi. The spmv step gathers its operand
 * on the fly (classic: the new direction p' = z + beta p, so the direction update costs no
 * pass of its own and p.Ap comes out of the product's epilogue; pipelined: m = dinv .* w);
 * the update step does every vector recurrence of the iteration in one pass with its dot
 * products. Reductions are deterministic: each block sums a fixed grid-stride share, the
 * last block to finish (a ticket after a fence) adds the block partials in a fixed tree,
 * so the same inputs give the same bits on every run. The last block also judges the
 * iteration and, inside a CUDA graph, sets the while node's condition: the whole solve
 * runs on the device without a host round trip (CUDA 12.4+ conditional nodes). */
#include <cuda_runtime.h>

#include "sp_cg_fused.h"
#include "sp_kernels_solve.h"
#include "vec/vec_common.cuh"

namespace {

/* Launch shape: the vector kernels' (256 threads, at most SP_GPU_VEC_MAX_BLOCKS blocks, a
 * count that depends on n only, so partial sums fall the same way on every GPU). CSR rows
 * go to sub-warps of `sub` lanes chosen from the mean row length. */
struct cg_policy {
    static constexpr int block_threads = vec::P::block_threads;
    static constexpr int ell_batch = 4;     /* ELL slots whose loads are in flight together */
    static constexpr double sub4_max_mean = 6.0;  /* mean row length up to: 4 lanes a row */
    static constexpr double sub8_max_mean = 24.0; /* up to: 8 lanes; above: a warp */
};
using CP = cg_policy;
static_assert((int)SP_CG_MAX_PARTS == (int)SP_GPU_VEC_MAX_BLOCKS, "one partial slot per block");

enum { KIND_ELL = 0, KIND_CSR = 1 };

template <typename T>
__device__ __forceinline__ double ld(const void *v, int64_t i)
{
    return (double)static_cast<const T *>(v)[i];
}

template <typename T>
__device__ __forceinline__ double st(void *v, int64_t i, double value)
{
    T t = (T)value;
    static_cast<T *>(v)[i] = t;
    return (double)t;
}

/* The spmv step's operand at column j (cg_fused_ref.c's operand()). */
template <typename T, bool PIPE, bool PREC>
__device__ __forceinline__ double operand(const sp_cg_args_t &a, const void *p_old,
                                          double beta, int64_t j)
{
    if (PIPE) return PREC ? (double)(T)(ld<T>(a.dinv, j) * ld<T>(a.w, j)) : ld<T>(a.w, j);
    if (beta == 0.0) return ld<T>(a.z, j);
    return (double)(T)fma(beta, ld<T>(p_old, j), ld<T>(a.z, j));
}

/* Sum of NV values over the grid, in thread 0 of the last block to finish (returns true
 * there): block sums into the partials, a fence and a ticket; the last block adds the
 * partials in a fixed order and resets the ticket for the next reduction. */
template <int NV>
__device__ bool grid_sum(const sp_cg_args_t &a, sp_cg_state_t *s, double (&v)[NV])
{
    __shared__ bool s_last;
    for (int j = 0; j < NV; j++) {
        double b = vec::block_sum<CP::block_threads>(v[j]);
        if (threadIdx.x == 0) a.parts[j * SP_CG_MAX_PARTS + blockIdx.x] = b;
        __syncthreads(); /* block_sum's shared slots are reused by the next value */
    }
    if (threadIdx.x == 0) {
        __threadfence();
        s_last = atomicAdd(&s->ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!s_last) return false;
    __threadfence();
    for (int j = 0; j < NV; j++) {
        double acc = 0.0;
        for (unsigned i = threadIdx.x; i < gridDim.x; i += CP::block_threads)
            acc += __ldcg(&a.parts[j * SP_CG_MAX_PARTS + i]);
        acc = vec::block_sum<CP::block_threads>(acc);
        __syncthreads();
        v[j] = acc;
    }
    if (threadIdx.x == 0) s->ticket = 0;
    return threadIdx.x == 0;
}

/* y = row i of A times the operand, by SUB lanes (lane `sub_lane` of them); the sum is in
 * every lane of the sub-warp. CSR: entries strided over the lanes, then a butterfly; ELL
 * (SUB 1): slots in order, ell_batch loads in flight. */
template <typename T, int KIND, int SUB, bool PIPE, bool PREC>
__device__ __forceinline__ double row_product(const sp_cg_args_t &a, const void *p_old,
                                              double beta, int64_t i, bool valid, int sub_lane)
{
    double sum = 0.0;
    if (KIND == KIND_ELL) {
        if (!valid) return 0.0;
        for (int64_t k0 = 0; k0 < a.width; k0 += CP::ell_batch) {
            int32_t c[CP::ell_batch];
            double v[CP::ell_batch];
#pragma unroll
            for (int u = 0; u < CP::ell_batch; u++) {
                int64_t k = k0 + u;
                c[u] = k < a.width ? a.idx[k * a.n + i] : -1;
                v[u] = c[u] >= 0 ? ld<T>(a.val, k * a.n + i) : 0.0;
            }
#pragma unroll
            for (int u = 0; u < CP::ell_batch; u++)
                if (c[u] >= 0) sum += v[u] * operand<T, PIPE, PREC>(a, p_old, beta, c[u]);
        }
        return sum;
    }
    if (valid)
        for (int64_t e = a.ptr[i] + sub_lane; e < a.ptr[i + 1]; e += SUB)
            sum += ld<T>(a.val, e) * operand<T, PIPE, PREC>(a, p_old, beta, a.idx[e]);
#pragma unroll
    for (int d = SUB / 2; d > 0; d >>= 1) sum += __shfl_xor_sync(sp_prim::full_mask, sum, d);
    return sum;
}

/* The spmv step: rows in warp-uniform passes (every lane of a warp runs the same number of
 * passes, so the sub-warp butterflies always see the whole warp). */
template <typename T, int KIND, int SUB, bool PIPE, bool PREC>
__global__ void __launch_bounds__(CP::block_threads)
spmv_step_kernel(sp_cg_block_t *blk)
{
    const sp_cg_args_t &a = blk->args;
    sp_cg_state_t *s = &blk->state;
    if (s->verdict >= 0) return;
    const int64_t k = s->k;
    const double beta = PIPE ? 0.0 : sp__cg_beta(s);
    const void *p_old = a.p[k & 1];
    void *p_new = a.p[(k + 1) & 1];
    const int lane = threadIdx.x & 31, rows_per_warp = 32 / SUB;
    const int64_t warp = ((int64_t)blockIdx.x * CP::block_threads + threadIdx.x) >> 5;
    const int64_t warps = (int64_t)gridDim.x * (CP::block_threads / 32);
    double pq = 0.0;
    for (int64_t base = warp * rows_per_warp; base < a.n; base += warps * rows_per_warp) {
        int64_t i = base + lane / SUB;
        bool valid = i < a.n;
        double y = row_product<T, KIND, SUB, PIPE, PREC>(a, p_old, beta, i, valid, lane % SUB);
        if (!valid || lane % SUB != 0) continue;
        if (PIPE) {
            st<T>(a.an, i, y);
            if (PREC) st<T>(a.m, i, operand<T, PIPE, PREC>(a, p_old, beta, i));
        } else {
            double q = st<T>(a.q, i, y);
            pq += st<T>(p_new, i, operand<T, PIPE, PREC>(a, p_old, beta, i)) * q;
        }
    }
    if (PIPE) return;
    double v[1] = {pq};
    if (grid_sum<1>(a, s, v)) s->pq = v[0];
}

/* After the last block's closing: go on in the graph while the solve goes on and the
 * check_every boundary is not reached. */
__device__ __forceinline__ void set_condition(const sp_cg_args_t &a, const sp_cg_state_t *s,
                                              cudaGraphConditionalHandle handle, int in_graph)
{
    if (!in_graph) return;
    bool more = s->verdict < 0 && (a.check_every <= 0 || s->k % a.check_every != 0);
    cudaGraphSetConditional(handle, more ? 1u : 0u);
}

/* Classic update: x += alpha p'; r -= alpha q; z = dinv .* r; r.r, r.z. */
template <typename T, bool PREC>
__device__ __forceinline__ void classic_update(const sp_cg_args_t &a, sp_cg_state_t *s,
                                               cudaGraphConditionalHandle handle, int in_graph)
{
    using vec::P;
    const void *p = a.p[(s->k + 1) & 1];
    const double alpha = s->pq != 0.0 ? s->rho / s->pq : 0.0;
    double pr[P::unroll], qr[P::unroll], xr[P::unroll], rr_[P::unroll], dr[P::unroll];
    double rr = 0.0, rz = 0.0;
    vec::for_chunks(
        a.n,
        [&](int64_t i, int k) {
            pr[k] = ld<T>(p, i);
            qr[k] = ld<T>(a.q, i);
            xr[k] = ld<T>(a.x, i);
            rr_[k] = ld<T>(a.r, i);
            dr[k] = PREC ? ld<T>(a.dinv, i) : 0.0;
        },
        [&](int64_t i, int k) {
            double r = st<T>(a.r, i, fma(-alpha, qr[k], rr_[k]));
            double z = PREC ? st<T>(a.z, i, dr[k] * r) : r;
            st<T>(a.x, i, fma(alpha, pr[k], xr[k]));
            rr += r * r;
            rz += r * z;
        });
    double v[2] = {rr, rz};
    if (grid_sum<2>(a, s, v)) {
        sp__cg_close(&a, s, s->pq, alpha, v[0], v[1], 0.0);
        set_condition(a, s, handle, in_graph);
    }
}

/* new = base + beta * old (base when beta is 0), stored; old is v[i]. */
template <typename T>
__device__ __forceinline__ double recur(void *v, int64_t i, double old, double base, double beta)
{
    return st<T>(v, i, beta == 0.0 ? base : fma(beta, old, base));
}

/* Pipelined update: the eight recurrences, gamma = r.u, delta = w.u, r.r. */
template <typename T, bool PREC>
__device__ __forceinline__ void pipelined_update(const sp_cg_args_t &a, sp_cg_state_t *s,
                                                 cudaGraphConditionalHandle handle,
                                                 int in_graph)
{
    using vec::P;
    const double beta = sp__cg_beta(s), den = sp__cg_pipe_den(s, beta);
    const double alpha = den != 0.0 ? s->rho / den : 0.0;
    void *u = PREC ? a.z : a.r;
    double anr[P::unroll], azr[P::unroll], wr[P::unroll], qr[P::unroll], pr[P::unroll];
    double xr[P::unroll], rr_[P::unroll], ur[P::unroll], mr[P::unroll], msr[P::unroll];
    double rr = 0.0, gamma = 0.0, delta = 0.0;
    vec::for_chunks(
        a.n,
        [&](int64_t i, int k) {
            anr[k] = ld<T>(a.an, i);
            azr[k] = ld<T>(a.az, i);
            wr[k] = ld<T>(a.w, i);
            qr[k] = ld<T>(a.q, i);
            pr[k] = ld<T>(a.p[0], i);
            xr[k] = ld<T>(a.x, i);
            rr_[k] = ld<T>(a.r, i);
            ur[k] = PREC ? ld<T>(u, i) : rr_[k];
            mr[k] = PREC ? ld<T>(a.m, i) : 0.0;
            msr[k] = PREC ? ld<T>(a.ms, i) : 0.0;
        },
        [&](int64_t i, int k) {
            double nz = recur<T>(a.az, i, azr[k], anr[k], beta);
            double ns = recur<T>(a.q, i, qr[k], wr[k], beta);
            double np = recur<T>(a.p[0], i, pr[k], ur[k], beta);
            double r = st<T>(a.r, i, fma(-alpha, ns, rr_[k]));
            double un = r;
            st<T>(a.x, i, fma(alpha, np, xr[k]));
            if (PREC) {
                double nq = recur<T>(a.ms, i, msr[k], mr[k], beta);
                un = st<T>(a.z, i, fma(-alpha, nq, ur[k]));
            }
            double w = st<T>(a.w, i, fma(-alpha, nz, wr[k]));
            rr += r * r;
            gamma += r * un;
            delta += w * un;
        });
    double v[3] = {rr, gamma, delta};
    if (grid_sum<3>(a, s, v)) {
        sp__cg_close(&a, s, den, alpha, v[0], v[1], v[2]);
        set_condition(a, s, handle, in_graph);
    }
}

template <typename T, bool PIPE, bool PREC>
__global__ void __launch_bounds__(CP::block_threads)
update_step_kernel(sp_cg_block_t *blk, cudaGraphConditionalHandle handle, int in_graph)
{
    const sp_cg_args_t &a = blk->args;
    sp_cg_state_t *s = &blk->state;
    if (s->verdict >= 0) {
        /* a launch of the graph after the end: stop its loop at once */
        if (in_graph && blockIdx.x == 0 && threadIdx.x == 0) cudaGraphSetConditional(handle, 0u);
        return;
    }
    if (PIPE)
        pipelined_update<T, PREC>(a, s, handle, in_graph);
    else
        classic_update<T, PREC>(a, s, handle, in_graph);
}

/* The two kernels of a block's method and their grid. */
struct step_kernels {
    void *spmv, *update;
    unsigned blocks;
};

template <typename T, bool PIPE, bool PREC>
step_kernels kernels_of(const sp_cg_args_t *a)
{
    step_kernels k;
    k.update = (void *)update_step_kernel<T, PIPE, PREC>;
    k.blocks = vec::grid_for(a->n);
    if (a->mat_kind == SP_CG_MAT_ELL) {
        k.spmv = (void *)spmv_step_kernel<T, KIND_ELL, 1, PIPE, PREC>;
    } else {
        double mean = a->n > 0 ? (double)a->nnz / (double)a->n : 0.0;
        if (mean <= CP::sub4_max_mean)
            k.spmv = (void *)spmv_step_kernel<T, KIND_CSR, 4, PIPE, PREC>;
        else if (mean <= CP::sub8_max_mean)
            k.spmv = (void *)spmv_step_kernel<T, KIND_CSR, 8, PIPE, PREC>;
        else
            k.spmv = (void *)spmv_step_kernel<T, KIND_CSR, 32, PIPE, PREC>;
    }
    return k;
}

template <typename T>
step_kernels kernels_for_type(const sp_cg_args_t *a)
{
    if (a->pipelined)
        return a->precond ? kernels_of<T, true, true>(a) : kernels_of<T, true, false>(a);
    return a->precond ? kernels_of<T, false, true>(a) : kernels_of<T, false, false>(a);
}

step_kernels kernels_for(const sp_cg_args_t *a)
{
    return a->value_type == SP_R_64F ? kernels_for_type<double>(a) : kernels_for_type<float>(a);
}

sp_status_t check_args(const char *what, const sp_gpu_env_t *env, const sp_cg_block_t *d_blk,
                       const sp_cg_args_t *a)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && d_blk != NULL && a != NULL, "%s: NULL environment or block",
                 what);
    SP_CHECK_ARG(a->value_type == SP_R_32F || a->value_type == SP_R_64F,
                 "%s: value type %d is not real", what, (int)a->value_type);
    SP_CHECK_ARG(a->n > 0, "%s: %lld rows (at least one needed)", what, (long long)a->n);
    SP_CHECK_ARG(a->mat_kind == SP_CG_MAT_CSR || a->mat_kind == SP_CG_MAT_ELL,
                 "%s: unknown matrix kind %d", what, (int)a->mat_kind);
done:
    return st;
}

/* Append a kernel node of the block's step after *last (none when NULL). */
sp_status_t add_step(cudaGraph_t body, cudaGraphNode_t *last, void *func, unsigned blocks,
                     void **params)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaKernelNodeParams p = {};
    cudaGraphNode_t node;
    p.func = func;
    p.gridDim = dim3(blocks);
    p.blockDim = dim3(CP::block_threads);
    p.kernelParams = params;
    SP_CUDA_TRY(cudaGraphAddKernelNode(&node, body, *last ? last : NULL, *last ? 1 : 0, &p));
    *last = node;
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_cg_step(const sp_gpu_env_t *env, sp_cg_block_t *d_blk,
                                       const sp_cg_args_t *h_args, int update)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    step_kernels k;
    cudaGraphConditionalHandle none = 0;
    int in_graph = 0;
    void *spmv_params[] = {&d_blk};
    void *update_params[] = {&d_blk, &none, &in_graph};
    SP_TRY(check_args("cg step", env, d_blk, h_args));
    k = kernels_for(h_args);
    SP_CUDA_LAUNCH("cg step", cudaLaunchKernel(update ? k.update : k.spmv, dim3(k.blocks),
                                               dim3(CP::block_threads),
                                               update ? update_params : spmv_params, 0,
                                               (cudaStream_t)env->stream));
done:
    return st;
}

extern "C" sp_status_t sp__gpu_cg_loop_create(const sp_gpu_env_t *env, sp_cg_block_t *d_blk,
                                              const sp_cg_args_t *h_args,
                                              sp_gpu_cg_loop_t *loop)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaGraphConditionalHandle handle = 0;
    cudaGraphNodeParams cp = {};
    cudaGraphNode_t while_node, last = NULL;
    step_kernels k;
    int in_graph = 1;
    void *spmv_params[] = {&d_blk};
    void *update_params[] = {&d_blk, &handle, &in_graph};
    SP_CHECK_ARG(loop != NULL, "cg loop: NULL loop");
    loop->graph = loop->exec = NULL;
    SP_TRY(check_args("cg loop", env, d_blk, h_args));
    k = kernels_for(h_args);
    SP_CUDA_TRY(cudaGraphCreate(&graph, 0));
    {
        cudaError_t e = cudaGraphConditionalHandleCreate(&handle, graph, 1,
                                                         cudaGraphCondAssignDefault);
        if (e == cudaSuccess) {
            cp.type = cudaGraphNodeTypeConditional;
            cp.conditional.handle = handle;
            cp.conditional.type = cudaGraphCondTypeWhile;
            cp.conditional.size = 1;
            e = cudaGraphAddNode(&while_node, graph, NULL, NULL, 0, &cp);
        }
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                    "cg loop: this driver has no conditional graph nodes (%s; CUDA 12.4 or "
                    "later needed)", cudaGetErrorString(e));
        }
    }
    SP_TRY(add_step(cp.conditional.phGraph_out[0], &last, k.spmv, k.blocks, spmv_params));
    SP_TRY(add_step(cp.conditional.phGraph_out[0], &last, k.update, k.blocks, update_params));
    SP_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    loop->graph = graph;
    loop->exec = exec;
    graph = NULL, exec = NULL;
done:
    if (exec) (void)cudaGraphExecDestroy(exec);
    if (graph) (void)cudaGraphDestroy(graph);
    return st;
}

extern "C" sp_status_t sp__gpu_cg_loop_run(const sp_gpu_env_t *env, const sp_gpu_cg_loop_t *loop)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && loop != NULL && loop->exec != NULL, "cg loop: no graph");
    SP_CUDA_TRY(cudaGraphLaunch((cudaGraphExec_t)loop->exec, (cudaStream_t)env->stream));
done:
    return st;
}

extern "C" void sp__gpu_cg_loop_free(sp_gpu_cg_loop_t *loop)
{
    if (!loop) return;
    if (loop->exec) (void)cudaGraphExecDestroy((cudaGraphExec_t)loop->exec);
    if (loop->graph) (void)cudaGraphDestroy((cudaGraph_t)loop->graph);
    loop->graph = loop->exec = NULL;
}
