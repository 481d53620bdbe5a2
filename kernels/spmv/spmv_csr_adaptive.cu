/* Adaptive CSR SpMV (the stream blocks of CSR-Adaptive, Greathouse & Daga SC 2014, with
 * long rows in warp-sized pieces): one launch; a stream block loads the entries of its
 * consecutive short rows in memory order, so a warp's loads cover whole sectors however
 * short the rows, gathers x for all of them, keeps the products in shared memory and adds
 * each row up with a sub-warp; a piece block adds up pieces of the long rows
 * (spmv_long_rows.cuh). When the long rows have many pieces, a second, small launch adds
 * up their pieces' sums, so that no piece needs a fence (the plan's choice). Layout of
 * the plan in spmv_policy_csr.h; the plan in spmv_csr_adaptive_plan.cu. */
#include "spmv_common.cuh"
#include "spmv_long_rows.cuh"
#include "spmv_policy_csr.h"

namespace {

using P = sp_spmv_csr_adaptive_policy;

/* Rows r0 .. r0 + nr - 1, their products at s[ptr[r] - a0 ...], G lanes a row: lane sub
 * adds the products sub, sub + G, ... of its row. Every pass is taken by the whole block
 * (the sub-warp sums need all 32 lanes). */
template <int G, typename T>
__device__ __forceinline__ void add_rows(const int32_t *ptr, int32_t r0, int32_t nr, int32_t a0,
                                         const T *s, T alpha, T beta, T *y)
{
    constexpr int B = P::block_threads;
    int sub = threadIdx.x & (G - 1);
    for (int32_t first = 0; first < nr; first += B / G) {
        int32_t rr = first + (int32_t)threadIdx.x / G;
        bool valid = rr < nr;
        int32_t e0 = 0, e1 = 0;
        if (valid) {
            e0 = __ldg(ptr + r0 + rr) - a0;
            e1 = __ldg(ptr + r0 + rr + 1) - a0;
        }
        T sum = T(0);
        for (int32_t e = e0 + sub; e < e1; e += G) sum += s[e];
        sum = spmv::subwarp_sum<G>(sum);
        if (valid && sub == 0) spmv::y_update(y, r0 + rr, alpha, sum, beta);
    }
}

/* The stream block of rows [r0, r1): fewer than stream_entries + short_max entries (the
 * plan's rule). Its loads start at the entry a0 = k0 rounded down to a multiple of
 * align_entries, so each warp's loads of indices and values fill whole L2 lines instead
 * of straddling two (about 5% more L2 requests on Kronecker otherwise); the entries
 * before k0 are neither loaded nor gathered. Products sit at s[e - a0]. */
template <typename T>
__device__ __forceinline__ void stream_block(const int32_t *ptr, const int32_t *idx,
                                             const T *val, int32_t r0, int32_t r1, const T *x,
                                             T alpha, T beta, T *y)
{
    constexpr int B = P::block_threads, U = P::stream_loads;
    __shared__ T s[P::stream_slots];
    int32_t k0 = __ldg(ptr + r0), k1 = __ldg(ptr + r1), n = k1 - k0;
    int32_t a0 = k0 & ~(P::align_entries - 1), skip = k0 - a0, span = k1 - a0;
    int32_t c[U];
    T v[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        int32_t off = (int32_t)threadIdx.x + u * B;
        c[u] = 0;
        v[u] = T(0);
        if (off >= skip && off < span) {
            c[u] = __ldcs(idx + a0 + off);
            v[u] = __ldcs(val + a0 + off);
        }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        int32_t off = (int32_t)threadIdx.x + u * B;
        if (off >= skip && off < span) s[off] = v[u] * spmv::load_x(x, c[u]);
    }
    __syncthreads();
    /* G lanes a row for rows of about lane_entries * G entries on average, uniform over
     * the block */
    int32_t nr = r1 - r0;
    int g = 1;
    while (g < 32 && n > P::lane_entries * g * nr) g *= 2;
    switch (g) {
    case 1: add_rows<1>(ptr, r0, nr, a0, s, alpha, beta, y); break;
    case 2: add_rows<2>(ptr, r0, nr, a0, s, alpha, beta, y); break;
    case 4: add_rows<4>(ptr, r0, nr, a0, s, alpha, beta, y); break;
    case 8: add_rows<8>(ptr, r0, nr, a0, s, alpha, beta, y); break;
    case 16: add_rows<16>(ptr, r0, nr, a0, s, alpha, beta, y); break;
    default: add_rows<32>(ptr, r0, nr, a0, s, alpha, beta, y); break;
    }
}

/* Block b takes schedule[2b] (its kind) and schedule[2b + 1] (its index among that kind's
 * blocks). The switch is uniform over the block. */
template <typename T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks_per_sm)
adaptive_kernel(const int32_t *__restrict__ ptr, const int32_t *__restrict__ idx,
                const T *__restrict__ val, const int32_t *__restrict__ aux, char *temp,
                const T *__restrict__ x, T alpha, T beta, T *__restrict__ y)
{
    const int32_t *schedule = aux + P::header_ints;
    const int32_t *stream = schedule + 2 * (int64_t)gridDim.x;
    int kind = __ldg(schedule + 2 * blockIdx.x);
    int64_t j = __ldg(schedule + 2 * blockIdx.x + 1);
    if (kind == 0) {
        stream_block(ptr, idx, val, __ldg(stream + 2 * j), __ldg(stream + 2 * j + 1), x, alpha,
                     beta, y);
        return;
    }
    int32_t nsb = __ldg(aux), nlong = __ldg(aux + 1), npieces = __ldg(aux + 2);
    int64_t p = j * (P::block_threads / 32) + (threadIdx.x >> 5);
    if (p >= npieces) return; /* past the last piece: uniform per warp */
    const int32_t *long_rows = stream + 2 * (int64_t)nsb;
    const int32_t *first_piece = long_rows + nlong;
    int32_t *counter = reinterpret_cast<int32_t *>(temp);
    T *partial = reinterpret_cast<T *>(temp + spmv::long_partials_offset(nlong));
    spmv::long_piece<P>(ptr, idx, val, long_rows, first_piece, first_piece + nlong + 1, p,
                        __ldg(aux + 3), __ldg(aux + 4) != 0, counter, partial, x, alpha, beta,
                        y);
}

/* The deferred finish of the long rows of more than one piece (plans whose header says
 * so), after adaptive_kernel on the same stream: a warp per 32 long rows, which finds
 * those of several pieces with one ballot and adds up each in turn (most long rows are
 * of one piece, written already). blocks: the grid of adaptive_kernel (the schedule's
 * length). */
template <typename T>
__global__ void __launch_bounds__(P::block_threads)
finish_kernel(const int32_t *__restrict__ aux, int64_t blocks, const char *temp, T alpha, T beta,
              T *__restrict__ y)
{
    int32_t nsb = __ldg(aux), nlong = __ldg(aux + 1);
    int lane = threadIdx.x & 31;
    int64_t k0 = (int64_t)blockIdx.x * P::block_threads + threadIdx.x - lane;
    if (k0 >= nlong) return; /* uniform per warp */
    const int32_t *long_rows = aux + P::header_ints + 2 * blocks + 2 * (int64_t)nsb;
    const int32_t *first_piece = long_rows + nlong;
    const T *partial = reinterpret_cast<const T *>(temp + spmv::long_partials_offset(nlong));
    int64_t k = k0 + lane;
    int32_t f0 = 0, f1 = 0, r = 0;
    if (k < nlong) {
        f0 = __ldg(first_piece + k);
        f1 = __ldg(first_piece + k + 1);
        if (f1 - f0 > 1) r = __ldg(long_rows + k);
    }
    for (unsigned m = __ballot_sync(sp_prim::full_mask, f1 - f0 > 1); m != 0; m &= m - 1) {
        int src = __ffs((int)m) - 1;
        spmv::finish_row(partial, __shfl_sync(sp_prim::full_mask, f0, src),
                         __shfl_sync(sp_prim::full_mask, f1, src),
                         __shfl_sync(sp_prim::full_mask, r, src), alpha, beta, y);
    }
}

} /* namespace */

/* Called by sp__gpu_spmv_csr after its checks, with an adaptive plan of a and nrows > 0. */
extern "C" sp_status_t sp__gpu_spmv_csr_adaptive(const sp_gpu_env_t *env,
                                                 const sp_gpu_spmv_plan_t *plan,
                                                 const sp_csr_t *a, const void *alpha,
                                                 const void *d_x, const void *beta, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CUDA_LAUNCH("adaptive_kernel", spmv::launch_planned<P::block_threads>(
                                       [](auto tag) { return adaptive_kernel<decltype(tag)>; }, env,
                                       plan, a, alpha, d_x, beta, d_y));
    if (plan->finish_rows > 0) {
        cudaError_t e = cudaSuccess;
        /* a thread per long row */
        unsigned grid = (unsigned)((plan->finish_rows + P::block_threads - 1) /
                                   P::block_threads);
        spmv::by_value(a->value_type, [&](auto tag) {
            using T = decltype(tag);
            e = sp_prim::launch(finish_kernel<T>, grid, P::block_threads, env->stream,
                                plan->d_aux, (int64_t)plan->param,
                                static_cast<const char *>(plan->d_temp),
                                spmv::host_value<T>(alpha), spmv::host_value<T>(beta),
                                static_cast<T *>(d_y));
        });
        SP_CUDA_LAUNCH("finish_kernel", e);
    }
done:
    return st;
}
