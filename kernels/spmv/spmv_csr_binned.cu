/* Row-length-binned CSR SpMV (ACSR, Ashari et al. SC 2014; the bins of CSR-Adaptive,
 * Greathouse & Daga SC 2014): the plan sorts the rows once into bins by length, and one
 * launch runs every bin with the granularity its rows need: a thread per row of at most
 * 4 entries, a sub-warp of 2..32 lanes for rows up to 128, and for longer rows a warp per
 * piece of 1024 entries, the last piece of a row to finish adding the pieces' sums in
 * piece order (so the result does not depend on timing). Every lane loads all of its
 * columns and values, then issues all of its gathers from x, before any reduction. The
 * layout of the plan is in spmv_policy_csr.h. */
#include "spmv_common.cuh"
#include "spmv_long_rows.cuh"
#include "spmv_policy_csr.h"

namespace {

using P = sp_spmv_csr_binned_policy;
/* The rows i in [first, end) of the row list, G lanes each (block_threads / G rows per
 * block): lane `sub` of a row takes entries sub, sub + G, ... (at most lane_entries). */
template <int G, typename T>
__device__ __forceinline__ void row_bin(const int32_t *ptr, const int32_t *idx, const T *val,
                                        const int32_t *rows, int64_t first, int64_t end,
                                        const T *x, T alpha, T beta, T *y)
{
    constexpr int E = P::lane_entries;
    int sub = threadIdx.x & (G - 1);
    int64_t i = first + threadIdx.x / G;
    bool valid = i < end;
    int32_t r = valid ? __ldg(rows + i) : 0;
    int32_t k0 = valid ? __ldg(ptr + r) : 0, len = valid ? __ldg(ptr + r + 1) - k0 : 0;
    int32_t c[E];
    T v[E];
#pragma unroll
    for (int u = 0; u < E; u++) {
        int off = sub + u * G;
        c[u] = 0;
        v[u] = T(0);
        if (off < len) {
            c[u] = __ldcs(idx + k0 + off);
            v[u] = __ldcs(val + k0 + off);
        }
    }
    T sum = T(0);
#pragma unroll
    for (int u = 0; u < E; u++)
        if (sub + u * G < len) sum += v[u] * spmv::load_x(x, c[u]);
    sum = spmv::subwarp_sum<G>(sum);
    if (valid && sub == 0) spmv::y_update(y, r, alpha, sum, beta);
}

/* Block b takes schedule[2b] (its bin) and schedule[2b + 1] (its index among that bin's
 * blocks). The switch is uniform over the block. */
template <typename T>
__global__ void __launch_bounds__(P::block_threads, P::min_blocks_per_sm)
binned_kernel(const int32_t *__restrict__ ptr, const int32_t *__restrict__ idx,
              const T *__restrict__ val, const int32_t *__restrict__ aux, char *temp,
              const T *__restrict__ x, T alpha, T beta, T *__restrict__ y)
{
    constexpr int B = P::block_threads;
    const int32_t *bin_start = aux;
    const int32_t *schedule = aux + P::header_ints;
    const int32_t *rows = schedule + 2 * (int64_t)gridDim.x;
    int bin = __ldg(schedule + 2 * blockIdx.x);
    int64_t j = __ldg(schedule + 2 * blockIdx.x + 1);
    int64_t end = __ldg(bin_start + bin + 1), first = __ldg(bin_start + bin) + j * (B >> bin);
    switch (bin) { /* bin b < row_bins: 1 << b lanes per row, B >> b rows per block */
    case 0: row_bin<1>(ptr, idx, val, rows, first, end, x, alpha, beta, y); break;
    case 1: row_bin<2>(ptr, idx, val, rows, first, end, x, alpha, beta, y); break;
    case 2: row_bin<4>(ptr, idx, val, rows, first, end, x, alpha, beta, y); break;
    case 3: row_bin<8>(ptr, idx, val, rows, first, end, x, alpha, beta, y); break;
    case 4: row_bin<16>(ptr, idx, val, rows, first, end, x, alpha, beta, y); break;
    case 5: row_bin<32>(ptr, idx, val, rows, first, end, x, alpha, beta, y); break;
    default: {
        static_assert(P::row_bins == 6, "one case per row bin");
        int64_t p = j * (B / 32) + (threadIdx.x >> 5);
        int32_t long0 = bin_start[P::row_bins], nlong = bin_start[P::bins] - long0;
        if (p >= bin_start[P::bins + 1]) return; /* past the last piece: uniform per warp */
        const int32_t *first_piece = rows + bin_start[P::bins + 2]; /* after nrows rows */
        int32_t *counter = reinterpret_cast<int32_t *>(temp);
        T *partial = reinterpret_cast<T *>(temp + spmv::long_partials_offset(nlong));
        spmv::long_piece<P>(ptr, idx, val, rows + long0, first_piece,
                            first_piece + nlong + 1, p, P::piece_entries, false, counter,
                            partial, x, alpha, beta, y);
    }
    }
}

} /* namespace */

/* Called by sp__gpu_spmv_csr after its checks, with a binned plan of a and nrows > 0. */
extern "C" sp_status_t sp__gpu_spmv_csr_binned(const sp_gpu_env_t *env,
                                               const sp_gpu_spmv_plan_t *plan,
                                               const sp_csr_t *a, const void *alpha,
                                               const void *d_x, const void *beta, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CUDA_LAUNCH("binned_kernel", spmv::launch_planned<P::block_threads>(
                                       [](auto tag) { return binned_kernel<decltype(tag)>; }, env,
                                       plan, a, alpha, d_x, beta, d_y));
done:
    return st;
}
