/* x = alpha * T^-1 b by level scheduling (Anderson & Saad 1989; Naumov 2011): the rows of
 * one level depend only on earlier levels, so each level is one launch over its rows (a
 * run of small levels one single-block launch), the launches queued on the stream in level
 * order with no host synchronization. The analysis
 * groups the rows by level with a counting sort on the primitives (histogram, scan, radix
 * sort). */
#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace {

/* Row r by one thread. x of earlier levels was written by earlier launches, or earlier in
 * this block before a __syncthreads, so plain loads see it. */
template <typename T, bool UPPER, typename Off>
__device__ __forceinline__ void row_by_thread(const solve_op<T, Off> &op, int64_t r,
                                              const Off *__restrict__ ptr,
                                              const int32_t *__restrict__ idx)
{
    int64_t k0, k1;
    strict_range(ptr, op.bound, r, UPPER, &k0, &k1);
    T acc = T(0);
    for (int64_t k = k0; k < k1; k++) {
        int64_t c = idx[k];
        if (UPPER ? c > r : c < r) acc = op.combine(acc, k, op.x[c]);
    }
    op.x[r] = op.finish(r, acc);
}

/* Row r by one warp, lanes striding over the row (called by all 32 lanes). */
template <typename T, bool UPPER, typename Off>
__device__ __forceinline__ void row_by_warp(const solve_op<T, Off> &op, int64_t r, int lane,
                                            const Off *__restrict__ ptr,
                                            const int32_t *__restrict__ idx)
{
    int64_t k0, k1;
    strict_range(ptr, op.bound, r, UPPER, &k0, &k1);
    T acc = T(0);
    for (int64_t k = k0 + lane; k < k1; k += 32) {
        int64_t c = idx[k];
        if (UPPER ? c > r : c < r) acc = op.combine(acc, k, op.x[c]);
    }
    acc = warp_reduce<solve_op<T, Off>>(acc);
    if (lane == 0) op.x[r] = op.finish(r, acc);
}

/* A thread per row of the level. Off: the type of entry positions (strict_range). */
template <typename T, bool UPPER, typename Off>
__global__ void __launch_bounds__(P::block_threads)
level_thread_kernel(solve_op<T, Off> op, const int32_t *__restrict__ rows, int64_t count,
                    const Off *__restrict__ ptr, const int32_t *__restrict__ idx)
{
    int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    if (i < count) row_by_thread<T, UPPER, Off>(op, rows[i], ptr, idx);
}

/* A warp per row of the level. */
template <typename T, bool UPPER, typename Off>
__global__ void __launch_bounds__(P::block_threads)
level_warp_kernel(solve_op<T, Off> op, const int32_t *__restrict__ rows, int64_t count,
                  const Off *__restrict__ ptr, const int32_t *__restrict__ idx)
{
    int64_t i = ((int64_t)blockIdx.x * P::block_threads + threadIdx.x) >> 5;
    if (i < count) /* warp-uniform */
        row_by_warp<T, UPPER, Off>(op, rows[i], threadIdx.x & 31, ptr, idx);
}

/* Levels l0 .. l1-1, all small, in one block: a level's rows by its threads (or warps),
 * then a __syncthreads, which makes the block's stores visible to the block, before the
 * next level. Saves a launch per level where levels are narrow (a chain: one per row). */
template <typename T, bool UPPER, bool WARP, typename Off>
__global__ void __launch_bounds__(P::block_threads)
level_batch_kernel(solve_op<T, Off> op, const int32_t *__restrict__ rows,
                   const int32_t *__restrict__ level_ptr, int64_t l0, int64_t l1, int64_t nl,
                   int64_t n, const Off *__restrict__ ptr, const int32_t *__restrict__ idx)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t l = l0; l < l1; l++) {
        int64_t b = level_ptr[l], e = l + 1 < nl ? (int64_t)level_ptr[l + 1] : n;
        if (WARP) {
            for (int64_t i = b + warp; i < e; i += P::warps)
                row_by_warp<T, UPPER, Off>(op, rows[i], lane, ptr, idx);
        } else {
            for (int64_t i = b + threadIdx.x; i < e; i += P::block_threads)
                row_by_thread<T, UPPER, Off>(op, rows[i], ptr, idx);
        }
        __syncthreads();
    }
}

/* keys[r] = level[r] - 1 (levels start at 1), rows[r] = r. */
__global__ void level_keys_kernel(const int32_t *__restrict__ level, int64_t n,
                                  uint32_t *__restrict__ keys, int32_t *__restrict__ rows)
{
    int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    if (r >= n) return;
    keys[r] = (uint32_t)(level[r] - 1);
    rows[r] = (int32_t)r;
}

template <typename T, bool UPPER, typename Off>
sp_status_t launch_levels(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                          const solve_op<T, Off> &op, const sp_csr_t *a)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const Off *ptr = row_ptr<Off>(a);
    cudaStream_t s = (cudaStream_t)env->stream;
    const int64_t small = plan->warp_per_row ? P::batch_max_rows_warp : P::batch_max_rows_thread;
    const int64_t *lp = plan->h_level_ptr;
    for (int64_t l = 0; l < plan->nlevels; l++) {
        int64_t begin = lp[l], count = lp[l + 1] - begin, l1 = l;
        while (l1 < plan->nlevels && lp[l1 + 1] - lp[l1] <= small) l1++;
        if (l1 - l >= 2) { /* a run of small levels: one block */
            if (plan->warp_per_row)
                level_batch_kernel<T, UPPER, true, Off><<<1, P::block_threads, 0, s>>>(
                    op, plan->d_order, plan->d_level_ptr, l, l1, plan->nlevels, plan->n, ptr,
                    a->idx);
            else
                level_batch_kernel<T, UPPER, false, Off><<<1, P::block_threads, 0, s>>>(
                    op, plan->d_order, plan->d_level_ptr, l, l1, plan->nlevels, plan->n, ptr,
                    a->idx);
            SP_CUDA_LAUNCHED("sptrsv level batch kernel");
            l = l1 - 1;
            continue;
        }
        if (count == 0) continue; /* never, levels are contiguous; a 0-block launch fails */
        if (plan->warp_per_row) {
            unsigned blocks = (unsigned)ceil_div(count, P::warps);
            level_warp_kernel<T, UPPER, Off><<<blocks, P::block_threads, 0, s>>>(
                op, plan->d_order + begin, count, ptr, a->idx);
        } else {
            unsigned blocks = (unsigned)ceil_div(count, P::block_threads);
            level_thread_kernel<T, UPPER, Off><<<blocks, P::block_threads, 0, s>>>(
                op, plan->d_order + begin, count, ptr, a->idx);
        }
        SP_CUDA_LAUNCHED("sptrsv level kernel");
    }
done:
    return st;
}

} /* namespace */

sp_status_t sp__gpu_sptrsv_levels_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan,
                                          const int32_t *d_level)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    int64_t n = plan->n, nl = plan->nlevels;
    uint32_t *d_keys = NULL;
    int32_t *d_counts = NULL;
    int32_t *h_counts = NULL;
    void *d_temp = NULL;
    size_t b_sort = 0, b_hist = 0, b_scan = 0, bytes;
    int key_bits = 1;
    while (key_bits < 32 && ((int64_t)1 << key_bits) < nl) key_bits++;
    SP_TRY(host_array(&plan->h_level_ptr, nl + 1));
    SP_TRY(host_array(&h_counts, nl));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_order, (size_t)n * sizeof(int32_t)));
    SP_TRY(env->alloc(env->self, (void **)&d_keys, (size_t)n * sizeof(uint32_t)));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_level_ptr, (size_t)nl * sizeof(int32_t)));
    d_counts = plan->d_level_ptr;
    SP_TRY(sp__gpu_radix_sort_pairs_u32(d_keys, plan->d_order, n, key_bits, NULL, &b_sort, s));
    SP_TRY(sp__gpu_histogram((const int32_t *)d_keys, n, d_counts, nl, NULL, &b_hist, s));
    SP_TRY(sp__gpu_exclusive_scan_i32(d_counts, d_counts, nl, NULL, NULL, &b_scan, s));
    bytes = b_sort > b_hist ? b_sort : b_hist;
    bytes = bytes > b_scan ? bytes : b_scan;
    SP_TRY(env->alloc(env->self, &d_temp, bytes));
    level_keys_kernel<<<(unsigned)ceil_div(n, P::block_threads), P::block_threads, 0, s>>>(
        d_level, n, d_keys, plan->d_order);
    SP_CUDA_LAUNCHED("sptrsv level keys");
    SP_TRY(sp__gpu_histogram((const int32_t *)d_keys, n, d_counts, nl, d_temp, &bytes, s));
    SP_TRY(sp__gpu_exclusive_scan_i32(d_counts, d_counts, nl, NULL, d_temp, &bytes, s));
    SP_TRY(sp__gpu_radix_sort_pairs_u32(d_keys, plan->d_order, n, key_bits, d_temp, &bytes, s));
    SP_CUDA_TRY(cudaMemcpyAsync(h_counts, d_counts, (size_t)nl * sizeof(int32_t),
                                cudaMemcpyDeviceToHost, s));
    SP_CUDA_TRY(cudaStreamSynchronize(s));
    for (int64_t l = 0; l < nl; l++) plan->h_level_ptr[l] = h_counts[l];
    plan->h_level_ptr[nl] = n;
done:
    env->free(env->self, d_temp);
    env->free(env->self, d_keys);
    sp__free(h_counts);
    return st; /* on failure the caller frees the plan, d_order, d_level_ptr and h_level_ptr
                * included */
}

sp_status_t sp__gpu_sptrsv_levels_solve(const sp_gpu_env_t *env,
                                        const sp_gpu_sptrsv_plan_t *plan, const sp_csr_t *a,
                                        const void *alpha, const void *d_b, void *d_x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        by_offset(a, [&](auto otag) {
            using Off = decltype(otag);
            solve_op<T, Off> op = {plan_bound<Off>(plan), static_cast<const T *>(a->val),
                                   static_cast<const T *>(d_b), static_cast<T *>(d_x),
                                   *static_cast<const T *>(alpha), plan->upper != 0,
                                   plan->unit_diag != 0, nullptr, 0u};
            st = plan->upper ? launch_levels<T, true, Off>(env, plan, op, a)
                             : launch_levels<T, false, Off>(env, plan, op, a);
        });
    });
    return st;
}
