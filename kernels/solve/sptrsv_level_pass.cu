/* The analysis's dependency levels, level[r] = 1 + max level of the rows r depends on, in one
 * soft-synchronized pass in the natural order (ticket i = row i for a lower triangle, row
 * n-1-i for an upper one), the level array its own ready flag (0 until set). A warp takes
 * 32 consecutive tickets: each lane first waits for its row's dependencies outside the unit
 * (all of them at once, relaxed GPU-scope loads: a level is the only datum read, so no
 * fence), then the unit's own dependencies are resolved by shuffles: a chain (each row
 * depending at most on the one before it in the unit, as a stencil line) by a segmented
 * max-scan in 5 steps, any other pattern in ticket order (lane j is final once lanes < j
 * are: one broadcast per lane that others depend on). A chain inside the unit thus costs
 * no L2 round trip or pass of a polling loop per row; the unit waits once for the rows
 * before it.
 *
 * Why it cannot deadlock: a lane waits only on rows of smaller units, whose tickets were
 * claimed by running warps that finish them without waiting on anything later (the
 * argument of sptrsv_soft.cu); the in-unit step waits on nothing. The grid is every
 * resident warp: in the natural order the rows in flight must span the wavefront, which on
 * a 3D stencil crosses every plane (a smaller window serializes the planes). */
#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace
{

__device__ __forceinline__ void store_relaxed(int32_t *p, int32_t v)
{
    asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

template <bool UPPER>
__global__ void __launch_bounds__(P::block_threads)
    level_pass_kernel(const int32_t *__restrict__ ptr, const int32_t *__restrict__ idx,
                      const int32_t *__restrict__ bound, int64_t n, int32_t *level,
                      unsigned *max_level, unsigned long long *ticket)
{
    constexpr int E = P::row_window;
    const int lane = threadIdx.x & 31;
    const int64_t units = ceil_div(n, 32);
    int32_t published_max = 0;
    for (;;) {
        unsigned long long t = 0;
        if (lane == 0) t = atomicAdd(ticket, 1ull);
        t = __shfl_sync(sp_prim::full_mask, t, 0);
        if ((int64_t)t >= units) break;
        const int64_t first = (int64_t)t * 32, i = first + lane;
        int32_t ext = 0;   /* max level of the dependencies seen so far */
        unsigned mask = 0; /* lanes of this unit the row depends on */
        int64_t r = 0;
        if (i < n) {
            int64_t k0, k1;
            r = row_of(i, n, UPPER);
            strict_range(ptr, bound, r, UPPER, &k0, &k1);
            for (int64_t k = k0; k < k1; k += E) {
                int64_t c[E];
                uint32_t v[E];
#pragma unroll
                for (int e = 0; e < E; e++) {
                    c[e] = -1;
                    v[e] = 1;
                    if (k + e < k1) {
                        int64_t col = __ldg(idx + k + e);
                        if (UPPER ? col <= r : col >= r) continue; /* unsorted input only */
                        int64_t d = (UPPER ? n - 1 - col : col) - first;
                        if (d >= 0) {
                            mask |= 1u << (unsigned)d; /* d < lane: an earlier lane */
                        } else {
                            c[e] = col;
                            v[e] =
                                load_relaxed(reinterpret_cast<const uint32_t *>(level + col));
                        }
                    }
                }
#pragma unroll
                for (int e = 0; e < E; e++) {
                    if (c[e] < 0) continue;
                    spin sp;
                    while (v[e] == 0) {
                        sp.pause();
                        v[e] = load_relaxed(reinterpret_cast<const uint32_t *>(level + c[e]));
                    }
                    ext = ext > (int32_t)v[e] ? ext : (int32_t)v[e];
                }
            }
        }
        /* in-unit dependencies. Where each lane depends at most on the lane before it (a
         * stencil line in the natural order), level = 1 + max(ext, level of lane - 1)
         * unrolls to lane + 1 + max(ext_j - j) over j from the chain's start to the lane:
         * a segmented max-scan, 5 shuffle steps. Otherwise lanes in ticket order: lane j's
         * level is final when its turn comes (its dependencies are lanes < j, folded at
         * their turns). */
        if (__all_sync(sp_prim::full_mask, mask == 0 || mask == 1u << (unsigned)(lane - 1))) {
            int32_t v = ext - lane;
            unsigned head = mask == 0; /* lane 0 always: a chain starts in the unit */
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                int32_t ov = __shfl_up_sync(sp_prim::full_mask, v, d);
                unsigned oh = __shfl_up_sync(sp_prim::full_mask, head, d);
                if (lane >= d && !head) {
                    v = v > ov ? v : ov;
                    head = oh;
                }
            }
            ext = lane + v;
        } else {
            unsigned feeders = __reduce_or_sync(sp_prim::full_mask, mask);
            while (feeders) {
                int j = __ffs(feeders) - 1;
                feeders &= feeders - 1;
                int32_t lj = __shfl_sync(sp_prim::full_mask, ext + 1, j);
                if ((mask >> (unsigned)j) & 1u) ext = ext > lj ? ext : lj;
            }
        }
        if (i < n) {
            store_relaxed(level + r, ext + 1);
            published_max = published_max > ext + 1 ? published_max : ext + 1;
        }
    }
    published_max = warp_reduce<level_max>(published_max);
    if (lane == 0 && published_max > 0) atomicMax(max_level, (unsigned)published_max);
}

} /* namespace */

sp_status_t sp__gpu_sptrsv_level_pass(const sp_gpu_env_t *env, const sp_csr_t *a,
                                      const sp_gpu_sptrsv_plan_t *plan, int32_t *d_level,
                                      unsigned *d_max_level, unsigned long long *d_ticket)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    const void *kernel = plan->upper ? (const void *)level_pass_kernel<true>
                                     : (const void *)level_pass_kernel<false>;
    int64_t sms = 0, resident = 0, need = ceil_div(ceil_div(plan->n, 32), P::warps);
    unsigned grid;
    SP_TRY(resident_blocks(env, kernel, P::block_threads, &sms, &resident));
    grid = (unsigned)(need < resident ? need : resident);
    if (plan->upper)
        level_pass_kernel<true><<<grid, P::block_threads, 0, s>>>(
            a->ptr, a->idx, plan->d_bound, plan->n, d_level, d_max_level, d_ticket);
    else
        level_pass_kernel<false><<<grid, P::block_threads, 0, s>>>(
            a->ptr, a->idx, plan->d_bound, plan->n, d_level, d_max_level, d_ticket);
    SP_CUDA_LAUNCHED("sptrsv level pass");
done:
    return st;
}
