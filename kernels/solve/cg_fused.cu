/* The fused Krylov iterations (src/core/sp_cg_fused.h): CG in two kernels an iteration,
 * classic or pipelined (Ghysels & Vanroose 2014), plain or Jacobi, and BiCGSTAB in three.
 * A spmv step gathers its operand on the fly (classic: the new direction p' = z + beta p,
 * so the direction update costs no pass of its own and p.Ap comes out of the product's
 * epilogue; pipelined: m = dinv .* w; BiCGSTAB: p' = r + beta (p - omega v), then
 * s = r - alpha v'); the update step does every other vector recurrence of the iteration
 * in one pass with its dot products. Reductions are deterministic: each block sums a
 * fixed grid-stride share, the last block to finish (a ticket after a fence) adds the
 * block partials in a fixed tree, so the same inputs give the same bits on every run. The
 * last block also judges the iteration and, inside a CUDA graph, sets the while node's
 * condition: the whole solve runs on the device without a host round trip (CUDA 12.4+
 * conditional nodes). An ELL with a value table (sp_formats.h; CSR-VI, Kourtis, Goumas &
 * Koziris 2008) is read as codes and the table in shared memory: the same products. */
#include <cuda_runtime.h>

#include "sp_cg_fused.h"
#include "sp_kernels_solve.h"
#include "vec/vec_common.cuh"

namespace
{

/* Launch shape: the vector kernels' (256 threads, at most SP_GPU_VEC_MAX_BLOCKS blocks, a
 * count that depends on n only, so partial sums fall the same way on every GPU). CSR rows
 * go to sub-warps of `sub` lanes chosen from the mean row length. */
struct cg_policy {
    static constexpr int block_threads = vec::P::block_threads;
    static constexpr int ell_batch = 4; /* ELL slots whose loads are in flight together */
    static constexpr double sub4_max_mean = 6.0;  /* mean row length up to: 4 lanes a row */
    static constexpr double sub8_max_mean = 24.0; /* up to: 8 lanes; above: a warp */
};
using CP = cg_policy;
static_assert((int)SP_CG_MAX_PARTS == (int)SP_GPU_VEC_MAX_BLOCKS, "one partial slot per block");

/* KIND_ELL_CODED: ELL with a value table (sp_formats.h), the codes streamed and the
 * table held in shared memory (5 bytes a slot instead of 12 in double). */
enum { KIND_ELL = 0, KIND_CSR = 1, KIND_ELL_CODED = 2 };

template <typename T> __device__ __forceinline__ double ld(const void *v, int64_t i)
{
    return (double)static_cast<const T *>(v)[i];
}

/* The matrix of a spmv step, in registers: the step's vector stores could alias the block
 * in memory, which would make every inner-loop read of these fields a reload; the arrays
 * are read-only for the whole solve (the read-only data path). Off: the CSR's row pointer
 * type (int64_t for SP_CG_MAT_CSR64, issue 20). */
template <typename Off> struct mat_view {
    int64_t n, width;
    const Off *ptr;
    const int32_t *idx;
    const void *val;
    const uint8_t *code; /* KIND_ELL_CODED: codes into the table in shared memory */
};

/* The block's row pointers at the width Off (the union of sp_cg_args_t). */
template <typename Off> __device__ __forceinline__ const Off *row_ptr(const sp_cg_args_t &a);
template <> __device__ __forceinline__ const int32_t *row_ptr<int32_t>(const sp_cg_args_t &a)
{
    return a.ptr;
}
template <> __device__ __forceinline__ const int64_t *row_ptr<int64_t>(const sp_cg_args_t &a)
{
    return a.ptr64;
}

template <typename T> __device__ __forceinline__ double ld_matrix(const void *v, int64_t i)
{
    return (double)__ldg(static_cast<const T *>(v) + i);
}

template <typename T> __device__ __forceinline__ double st(void *v, int64_t i, double value)
{
    T t = (T)value;
    static_cast<T *>(v)[i] = t;
    return (double)t;
}

/* What a spmv step multiplies and writes (the OP of the kernels below). */
enum { OP_CG = 0, OP_PIPE = 1, OP_BICG_V = 2, OP_BICG_T = 3 };

/* The step's scalars and operand vectors, read once from the state per thread. */
struct operand_src {
    double beta, c2; /* classic: beta; BiCGSTAB v: beta, -beta omega; t: -alpha */
    const void *pa, *pb;
};

template <int OP>
__device__ __forceinline__ operand_src operand_of(const sp_cg_args_t &a, const sp_cg_state_t *s)
{
    operand_src o;
    if (OP == OP_CG) o = {sp__cg_beta(s), 0.0, a.p[s->k & 1], a.z};
    if (OP == OP_PIPE) o = {0.0, 0.0, a.w, a.dinv};
    if (OP == OP_BICG_V) {
        double beta = sp__bicg_beta(s);
        o = {beta, -beta * s->omega, a.p[s->k & 1], a.v[s->k & 1]};
    }
    if (OP == OP_BICG_T) o = {0.0, -s->alpha, a.v[(s->k + 1) & 1], NULL};
    return o;
}

/* The operand at column j (cg_fused_ref.c's operand()). */
template <typename T, int OP, bool PREC>
__device__ __forceinline__ double operand(const sp_cg_args_t &a, const operand_src &o,
                                          int64_t j)
{
    if (OP == OP_PIPE)
        return PREC ? (double)(T)(ld<T>(o.pb, j) * ld<T>(o.pa, j)) : ld<T>(o.pa, j);
    if (OP == OP_BICG_V) {
        double r = ld<T>(a.r, j);
        if (o.beta == 0.0) return r;
        return (double)(T)fma(o.beta, ld<T>(o.pa, j), fma(o.c2, ld<T>(o.pb, j), r));
    }
    if (OP == OP_BICG_T) return (double)(T)fma(o.c2, ld<T>(o.pa, j), ld<T>(a.r, j));
    if (o.beta == 0.0) return ld<T>(o.pb, j);
    return (double)(T)fma(o.beta, ld<T>(o.pa, j), ld<T>(o.pb, j));
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
 * (SUB 1): slots in order, ell_batch loads in flight, the values from val or (coded) from
 * table[code], the same doubles. */
template <typename T, int KIND, int SUB, int OP, bool PREC, typename Off>
__device__ __forceinline__ double row_product(const sp_cg_args_t &a, const mat_view<Off> &mv,
                                              const double *table, const operand_src &o,
                                              int64_t i, bool valid, int sub_lane)
{
    double sum = 0.0;
    if (KIND == KIND_ELL || KIND == KIND_ELL_CODED) {
        if (!valid) return 0.0;
        for (int64_t k0 = 0; k0 < mv.width; k0 += CP::ell_batch) {
            int32_t c[CP::ell_batch];
            double v[CP::ell_batch];
            uint32_t code[CP::ell_batch]; /* coded: the value is looked up where it is used */
#pragma unroll
            for (int u = 0; u < CP::ell_batch; u++) {
                int64_t k = k0 + u;
                c[u] = k < mv.width ? __ldg(mv.idx + k * mv.n + i) : -1;
                if (KIND == KIND_ELL_CODED)
                    code[u] = k < mv.width ? __ldg(mv.code + k * mv.n + i) : 0u;
                else
                    v[u] = c[u] >= 0 ? ld_matrix<T>(mv.val, k * mv.n + i) : 0.0;
            }
#pragma unroll
            for (int u = 0; u < CP::ell_batch; u++) {
                if (c[u] < 0) continue;
                double value = KIND == KIND_ELL_CODED ? table[code[u]] : v[u];
                sum += value * operand<T, OP, PREC>(a, o, c[u]);
            }
        }
        return sum;
    }
    if (valid)
        for (int64_t e = __ldg(mv.ptr + i) + sub_lane, end = __ldg(mv.ptr + i + 1); e < end;
             e += SUB)
            sum += ld_matrix<T>(mv.val, e) * operand<T, OP, PREC>(a, o, __ldg(mv.idx + e));
#pragma unroll
    for (int d = SUB / 2; d > 0; d >>= 1)
        sum += __shfl_xor_sync(sp_prim::full_mask, sum, d);
    return sum;
}

/* A spmv step: rows in warp-uniform passes (every lane of a warp runs the same number of
 * passes, so the sub-warp butterflies always see the whole warp), then the step's sums.
 * Off: the CSR's row pointer type (ELL: int32_t, unused). */
template <typename T, int KIND, int SUB, int OP, bool PREC, int MINB = 1,
          typename Off = int32_t>
__global__ void __launch_bounds__(CP::block_threads, MINB) spmv_step_kernel(sp_cg_block_t *blk)
{
    const sp_cg_args_t &a = blk->args;
    sp_cg_state_t *s = &blk->state;
    if (s->verdict >= 0) return;
    const operand_src o = operand_of<OP>(a, s);
    const mat_view<Off> mv = {a.n, a.width, row_ptr<Off>(a), a.idx, a.val, a.code};
    __shared__ double s_table[KIND == KIND_ELL_CODED ? SP_ELL_TABLE_MAX : 1];
    if (KIND == KIND_ELL_CODED) {
        for (int j = threadIdx.x; j < a.ntable; j += CP::block_threads)
            s_table[j] = ld_matrix<T>(a.table, j);
        __syncthreads(); /* uniform: every block saw the same verdict */
    }
    const int64_t k_done = s->k; /* constant in the step: only its last block changes s */
    const double alpha_last = s->alpha;
    void *p_new = a.p[(k_done + 1) & 1], *v_new = a.v[(k_done + 1) & 1];
    void *q_out = a.q, *x_io = a.x;
    const int lane = threadIdx.x & 31, rows_per_warp = 32 / SUB;
    const int64_t warp = ((int64_t)blockIdx.x * CP::block_threads + threadIdx.x) >> 5;
    const int64_t warps = (int64_t)gridDim.x * (CP::block_threads / 32);
    double acc[3] = {0.0, 0.0, 0.0};
    for (int64_t base = warp * rows_per_warp; base < mv.n; base += warps * rows_per_warp) {
        int64_t i = base + lane / SUB;
        bool valid = i < mv.n;
        double y =
            row_product<T, KIND, SUB, OP, PREC, Off>(a, mv, s_table, o, i, valid, lane % SUB);
        if (!valid || lane % SUB != 0) continue;
        double own = operand<T, OP, PREC>(a, o, i);
        if (OP == OP_PIPE) {
            st<T>(a.an, i, y);
            if (PREC) st<T>(a.m, i, own);
        } else if (OP == OP_CG) {
            double q = st<T>(q_out, i, y);
            acc[0] += st<T>(p_new, i, own) * q;
            /* the last iteration's x += alpha p, one step late (sp_cg_fused.h) */
            if (k_done > 0) st<T>(x_io, i, fma(alpha_last, ld<T>(o.pa, i), ld<T>(x_io, i)));
        } else if (OP == OP_BICG_V) {
            st<T>(p_new, i, own);
            acc[0] += ld<T>(a.rh, i) * st<T>(v_new, i, y);
        } else {
            double sv = st<T>(a.s, i, own), tv = st<T>(a.t, i, y);
            acc[0] += sv * sv;
            acc[1] += tv * sv;
            acc[2] += tv * tv;
        }
    }
    if constexpr (OP == OP_CG) {
        double v[1] = {acc[0]};
        if (grid_sum<1>(a, s, v)) s->pq = v[0];
    } else if constexpr (OP == OP_BICG_V) {
        double v[1] = {acc[0]};
        if (grid_sum<1>(a, s, v)) sp__bicg_close_v(s, v[0]);
    } else if constexpr (OP == OP_BICG_T) {
        if (grid_sum<3>(a, s, acc)) sp__bicg_close_s(&a, s, acc[0], acc[1], acc[2]);
    }
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

/* Classic update: r -= alpha q; z = dinv .* r; r.r, r.z (x: in the next spmv step). */
template <typename T, bool PREC>
__device__ __forceinline__ void classic_update(const sp_cg_args_t &a, sp_cg_state_t *s,
                                               cudaGraphConditionalHandle handle, int in_graph)
{
    using vec::P;
    const double alpha = s->pq != 0.0 ? s->rho / s->pq : 0.0;
    double qr[P::unroll], rr_[P::unroll], dr[P::unroll];
    double rr = 0.0, rz = 0.0;
    vec::for_chunks(
        a.n,
        [&](int64_t i, int k) {
            qr[k] = ld<T>(a.q, i);
            rr_[k] = ld<T>(a.r, i);
            dr[k] = PREC ? ld<T>(a.dinv, i) : 0.0;
        },
        [&](int64_t i, int k) {
            double r = st<T>(a.r, i, fma(-alpha, qr[k], rr_[k]));
            double z = PREC ? st<T>(a.z, i, dr[k] * r) : r;
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
__device__ __forceinline__ double recur(void *v, int64_t i, double old, double base,
                                        double beta)
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

/* BiCGSTAB update: x += alpha p' + omega s (alpha p' alone once ||s|| met the tolerance);
 * r = s - omega t; r.r and r^.r. */
template <typename T>
__device__ __forceinline__ void bicgstab_update(const sp_cg_args_t &a, sp_cg_state_t *s,
                                                cudaGraphConditionalHandle handle, int in_graph)
{
    using vec::P;
    const void *p = a.p[(s->k + 1) & 1];
    const double alpha = s->alpha, omega = s->omega;
    const bool s_conv = s->s_conv != 0;
    double pr[P::unroll], xr[P::unroll], sr[P::unroll], tr[P::unroll], hr[P::unroll];
    double rr = 0.0, rho = 0.0;
    vec::for_chunks(
        a.n,
        [&](int64_t i, int k) {
            pr[k] = ld<T>(p, i);
            xr[k] = ld<T>(a.x, i);
            if (!s_conv) {
                sr[k] = ld<T>(a.s, i);
                tr[k] = ld<T>(a.t, i);
                hr[k] = ld<T>(a.rh, i);
            }
        },
        [&](int64_t i, int k) {
            double x = fma(alpha, pr[k], xr[k]);
            if (s_conv) {
                st<T>(a.x, i, x);
                return;
            }
            st<T>(a.x, i, fma(omega, sr[k], x));
            double r = st<T>(a.r, i, fma(-omega, tr[k], sr[k]));
            rr += r * r;
            rho += hr[k] * r;
        });
    double v[2] = {rr, rho};
    if (grid_sum<2>(a, s, v)) {
        sp__bicg_close_r(&a, s, v[0], v[1]);
        set_condition(a, s, handle, in_graph);
    }
}

template <typename T, int METHOD, bool PREC>
__global__ void __launch_bounds__(CP::block_threads)
    update_step_kernel(sp_cg_block_t *blk, cudaGraphConditionalHandle handle, int in_graph)
{
    const sp_cg_args_t &a = blk->args;
    sp_cg_state_t *s = &blk->state;
    if (s->verdict >= 0) {
        /* the verdict came in an earlier step, or a launch of the graph after the end:
           stop its loop at once */
        if (in_graph && blockIdx.x == 0 && threadIdx.x == 0)
            cudaGraphSetConditional(handle, 0u);
        return;
    }
    if (METHOD == SP_CG_PIPELINED)
        pipelined_update<T, PREC>(a, s, handle, in_graph);
    else if (METHOD == SP_CG_BICGSTAB)
        bicgstab_update<T>(a, s, handle, in_graph);
    else
        classic_update<T, PREC>(a, s, handle, in_graph);
}

/* The kernels of a block's method (the spmv steps, then the update step) and their grid. */
struct step_kernels {
    void *step[3];
    int count;
    unsigned blocks;
};

/* The spmv step for OP over the block's matrix: ELL a thread per row, CSR a sub-warp of
 * 4, 8 or 32 lanes per row by the mean row length. */
/* The classic CG's ELL spmv step is built for at least 4 resident blocks of 256 threads an
 * SM: a cap of 64 registers a thread (16 bytes spilled) where the plain build takes 80,
 * 24 warps an SM. Measured on an H200 (2026-11-26, cg_bench, the device loop, same run):
 * CG Poisson 160^3 0.2260 -> 0.1980 ms an iteration, 100^3 0.0709 -> 0.0642, PCG-Jacobi
 * 0.2427 -> 0.2141 and 0.0763 -> 0.0694, the same bits; caps of 48, 40 and 32 registers
 * (5, 6, 8 blocks) spilled more and were slower than the plain build. Benchmark hook
 * (sp__gpu_cg_set_spmv_min_blocks): 1 the plain build, 5, 6 or 8 the tighter caps. */
static int spmv_min_blocks = 4;

template <typename T, int OP, bool PREC, int KIND> void *ell_step_of()
{
    if constexpr (OP == OP_CG) {
        if (spmv_min_blocks == 4) return (void *)spmv_step_kernel<T, KIND, 1, OP, PREC, 4>;
        if (spmv_min_blocks == 5) return (void *)spmv_step_kernel<T, KIND, 1, OP, PREC, 5>;
        if (spmv_min_blocks == 6) return (void *)spmv_step_kernel<T, KIND, 1, OP, PREC, 6>;
        if (spmv_min_blocks == 8) return (void *)spmv_step_kernel<T, KIND, 1, OP, PREC, 8>;
    }
    return (void *)spmv_step_kernel<T, KIND, 1, OP, PREC>;
}

/* The CSR step at the row pointers' width Off: the sub-warp from the mean row length. */
template <typename T, int OP, bool PREC, typename Off> void *csr_step_of(const sp_cg_args_t *a)
{
    double mean = a->n > 0 ? (double)a->nnz / (double)a->n : 0.0;
    if (mean <= CP::sub4_max_mean)
        return (void *)spmv_step_kernel<T, KIND_CSR, 4, OP, PREC, 1, Off>;
    if (mean <= CP::sub8_max_mean)
        return (void *)spmv_step_kernel<T, KIND_CSR, 8, OP, PREC, 1, Off>;
    return (void *)spmv_step_kernel<T, KIND_CSR, 32, OP, PREC, 1, Off>;
}

template <typename T, int OP, bool PREC> void *spmv_kernel_of(const sp_cg_args_t *a)
{
    if (a->mat_kind == SP_CG_MAT_ELL)
        return a->ntable > 0 ? ell_step_of<T, OP, PREC, KIND_ELL_CODED>()
                             : ell_step_of<T, OP, PREC, KIND_ELL>();
    if (a->mat_kind == SP_CG_MAT_CSR64) return csr_step_of<T, OP, PREC, int64_t>(a);
    return csr_step_of<T, OP, PREC, int32_t>(a);
}

template <typename T, bool PREC> step_kernels kernels_of(const sp_cg_args_t *a)
{
    step_kernels k = {};
    k.blocks = vec::grid_for(a->n);
    if (a->method == SP_CG_BICGSTAB) {
        k.step[0] = spmv_kernel_of<T, OP_BICG_V, false>(a);
        k.step[1] = spmv_kernel_of<T, OP_BICG_T, false>(a);
        k.step[2] = (void *)update_step_kernel<T, SP_CG_BICGSTAB, false>;
        k.count = 3;
    } else if (a->method == SP_CG_PIPELINED) {
        k.step[0] = spmv_kernel_of<T, OP_PIPE, PREC>(a);
        k.step[1] = (void *)update_step_kernel<T, SP_CG_PIPELINED, PREC>;
        k.count = 2;
    } else {
        k.step[0] = spmv_kernel_of<T, OP_CG, PREC>(a);
        k.step[1] = (void *)update_step_kernel<T, SP_CG_CLASSIC, PREC>;
        k.count = 2;
    }
    return k;
}

template <typename T> step_kernels kernels_for_type(const sp_cg_args_t *a)
{
    return a->precond ? kernels_of<T, true>(a) : kernels_of<T, false>(a);
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
    SP_CHECK_ARG(a->mat_kind == SP_CG_MAT_CSR || a->mat_kind == SP_CG_MAT_ELL ||
                     a->mat_kind == SP_CG_MAT_CSR64,
                 "%s: unknown matrix kind %d", what, (int)a->mat_kind);
    SP_CHECK_ARG(a->method >= SP_CG_CLASSIC && a->method <= SP_CG_BICGSTAB,
                 "%s: unknown method %d", what, (int)a->method);
    SP_CHECK_ARG(a->ntable >= 0 && a->ntable <= SP_ELL_TABLE_MAX &&
                     (a->ntable == 0 ||
                      (a->mat_kind == SP_CG_MAT_ELL && a->code != NULL && a->table != NULL)),
                 "%s: value table of %lld entries (code %p, table %p) is not an ELL's",
                 what, (long long)a->ntable, (const void *)a->code, a->table);
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

extern "C" void sp__gpu_cg_set_spmv_min_blocks(int blocks)
{
    spmv_min_blocks = blocks == 1 || blocks == 5 || blocks == 6 || blocks == 8 ? blocks : 4;
}

extern "C" sp_status_t sp__gpu_cg_step(const sp_gpu_env_t *env, sp_cg_block_t *d_blk,
                                       const sp_cg_args_t *h_args, int step)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    step_kernels k;
    cudaGraphConditionalHandle none = 0;
    int in_graph = 0;
    void *spmv_params[] = {&d_blk};
    void *update_params[] = {&d_blk, &none, &in_graph};
    SP_TRY(check_args("cg step", env, d_blk, h_args));
    k = kernels_for(h_args);
    SP_CHECK_ARG(step >= 0 && step < k.count, "cg step: step %d outside 0..%d", step,
                 k.count - 1);
    SP_CUDA_LAUNCH("cg step",
                   cudaLaunchKernel(k.step[step], dim3(k.blocks), dim3(CP::block_threads),
                                    step == k.count - 1 ? update_params : spmv_params, 0,
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
    cudaGraph_t body = NULL;
    cudaGraphNode_t last = NULL;
    step_kernels k;
    int in_graph = 1;
    void *spmv_params[] = {&d_blk};
    void *update_params[] = {&d_blk, &handle, &in_graph};
    SP_CHECK_ARG(loop != NULL, "cg loop: NULL loop");
    loop->graph = loop->exec = NULL;
    SP_TRY(check_args("cg loop", env, d_blk, h_args));
    k = kernels_for(h_args);
    SP_CUDA_TRY(cudaGraphCreate(&graph, 0));
    SP_TRY(sp_prim::graph_add_while(graph, "cg loop", "", &handle, &body));
    for (int i = 0; i < k.count; i++)
        SP_TRY(add_step(body, &last, k.step[i], k.blocks,
                        i == k.count - 1 ? update_params : spmv_params));
    SP_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    loop->graph = graph;
    loop->exec = exec;
    graph = NULL, exec = NULL;
done:
    if (exec) (void)cudaGraphExecDestroy(exec);
    if (graph) (void)cudaGraphDestroy(graph);
    return st;
}

extern "C" sp_status_t sp__gpu_cg_loop_run(const sp_gpu_env_t *env,
                                           const sp_gpu_cg_loop_t *loop)
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
