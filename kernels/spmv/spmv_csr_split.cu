/* Load-balanced CSR SpMV by splitting the entries (nnz-split): a warp per chunk of
 * 32 * chunk_iters consecutive entries, whatever rows they belong to, so a row of any
 * length is shared by as many warps as its entries fill and no warp waits on another.
 * The warp finds each entry's row from a window of 32 row ends (a shuffle search), sums
 * runs of one row in registers, writes every row that starts in its chunk (beta applied
 * there, once), and leaves the part of a row that started in an earlier chunk as the
 * chunk's carry-out, which a second kernel adds afterwards. Unlike the merge path it
 * stages nothing in shared memory: all of a warp's gathers from x are in flight at once.
 * The kernel is a template on the offset type (issue 20): the row pointers and the entry
 * count are int32_t or int64_t, as the CSR's pointers. */
#include "spmv_common.cuh"
#include "spmv_policy_csr.h"

namespace {

using P = sp_spmv_csr_split_policy;
constexpr unsigned full = 0xffffffffu;

/* The row of entry e (valid lanes): cur plus the number of rows from cur on that end at
 * or before e. Rows end at ptr[r + 1]; a window holds 32 of them and the count is a
 * shuffle binary search over it (the ends are non-decreasing); a lane whose entry lies
 * past all 32 moves to the next window (only runs of empty rows need that). All lanes
 * call it; cur is the same on every lane and is at most the row of every valid e. */
template <typename Off>
__device__ __forceinline__ int32_t row_of(const Off *ptr, int32_t nrows, int32_t cur, int64_t e,
                                          bool valid)
{
    int lane = threadIdx.x & 31;
    int32_t row = cur;
    bool done = !valid;
    for (int64_t c = cur; __any_sync(full, !done); c += 32) {
        int64_t j = c + 1 + lane;
        Off end = j <= nrows ? ptr[j] : spmv::past_end(Off(0));
        int cnt = 0;
#pragma unroll
        for (int step = 16; step >= 1; step >>= 1) {
            Off v = __shfl_sync(full, end, cnt + step - 1);
            if ((int64_t)v <= e) cnt += step;
        }
        Off last = __shfl_sync(full, end, 31);
        if (!done && (int64_t)last > e) {
            row = (int32_t)(c + cnt);
            done = true;
        }
    }
    return row;
}

/* chunk_row[c]: the row holding entry c * chunk_entries (0 for c = 0, nrows for c =
 * nchunks); chunk c writes rows [chunk_row[c], chunk_row[c + 1]) that start in it or are
 * empty, and the row ending past its last entry when that row starts in it. Off: the type
 * of the pointers and of nnz. */
template <typename T, typename Off>
__global__ void __launch_bounds__(P::block_threads, P::blocks_per_sm)
split_kernel(const Off *__restrict__ ptr, const int32_t *__restrict__ idx,
             const T *__restrict__ val, int32_t nrows, Off nnz, int64_t nchunks,
             const int32_t *__restrict__ chunk_row, const T *__restrict__ x, T alpha, T beta,
             T *__restrict__ y, int32_t *__restrict__ carry_row, T *__restrict__ carry_val)
{
    constexpr int K = P::chunk_iters;
    int lane = threadIdx.x & 31;
    int64_t warps = (int64_t)gridDim.x * (P::block_threads / 32);
    for (int64_t c = ((int64_t)blockIdx.x * P::block_threads + threadIdx.x) >> 5; c < nchunks;
         c += warps) {
        /* 64-bit: a chunk's last slot may lie past INT32_MAX when nnz is near it */
        int64_t e0 = c * P::chunk_entries;
        int64_t e1 = min(e0 + P::chunk_entries, (int64_t)nnz);
        int32_t r0 = chunk_row[c], rend = chunk_row[c + 1];

        /* coalesced loads of the chunk, then every gather, before any reduction */
        int32_t cc[K];
        T prod[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            int64_t e = e0 + k * 32 + lane;
            cc[k] = e < e1 ? idx[e] : -1;
            prod[k] = e < e1 ? val[e] : T(0);
        }
#pragma unroll
        for (int k = 0; k < K; k++)
            if (cc[k] >= 0) prod[k] *= spmv::load_x(x, cc[k]);

        bool r0_partial = ptr[r0] < e0; /* r0 began in an earlier chunk: a carry-out */
        if (lane == 0) {
            carry_row[c] = r0_partial ? r0 : -1;
            if (!r0_partial) carry_val[c] = T(0);
        }
        int32_t cur = r0, open_row = -1;
        T open = T(0);
#pragma unroll
        for (int k = 0; k < K; k++) {
            int64_t base = e0 + k * 32;
            if (base >= e1) break; /* the same on every lane */
            int64_t e = base + lane;
            bool valid = e < e1;
            int32_t row = row_of(ptr, nrows, cur, e, valid);
            int32_t key = valid ? row : -1;
            T v = prod[k];
            if (lane == 0 && key == open_row) v += open;
            bool tail = false;
            T s = spmv::warp_run_sum(key, v, &tail);
            int32_t last_row = __shfl_sync(full, key, 31);
            /* the run at lane 31 goes on into the next window of this chunk */
            bool goes_on = base + 32 < e1 && (int64_t)ptr[last_row + 1] > base + 32;
            if (tail && key >= 0 && !(lane == 31 && goes_on)) {
                if (key == r0 && r0_partial)
                    carry_val[c] = s;
                else
                    spmv::y_update(y, key, alpha, s, beta);
            }
            open = __shfl_sync(full, s, 31);
            open_row = goes_on ? last_row : -1;
            if (last_row >= 0) cur = last_row;
        }
        for (int64_t r = (int64_t)r0 + lane; r < rend; r += 32)
            if (ptr[r] == ptr[r + 1]) spmv::y_update(y, r, alpha, T(0), beta);
    }
}

template <typename T, typename Off>
sp_status_t launch(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan, const sp_csr_t *a,
                   const Off *ptr, T alpha, const T *x, T beta, T *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t nchunks = plan->naux - 1;
    int32_t *d_carry_row = NULL;
    T *d_carry_val = NULL;
    spmv::carry_arrays(plan->d_temp, nchunks, &d_carry_row, &d_carry_val);
    SP_CUDA_LAUNCH("split_kernel",
                   sp_prim::launch(split_kernel<T, Off>,
                                   spmv::grid_for(env, nchunks * 32, P::block_threads,
                                                  P::blocks_per_sm),
                                   P::block_threads, env->stream, ptr, a->idx,
                                   static_cast<const T *>(a->val), (int32_t)a->nrows,
                                   (Off)a->nnz, nchunks, plan->d_aux, x, alpha, beta, y,
                                   d_carry_row, d_carry_val));
    SP_TRY(spmv::launch_carry_fixup<P>(env, d_carry_row, d_carry_val, nchunks, alpha, y));
done:
    return st;
}

} /* namespace */

/* Called by sp__gpu_spmv_csr after its checks, with a split plan of a and nrows > 0. */
extern "C" sp_status_t sp__gpu_spmv_csr_split(const sp_gpu_env_t *env,
                                              const sp_gpu_spmv_plan_t *plan, const sp_csr_t *a,
                                              const void *alpha, const void *d_x,
                                              const void *beta, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (a->nnz == 0) return sp__gpu_scale(env, a->value_type, a->nrows, beta, d_y);
    spmv::by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        if (a->ptr64)
            st = launch<T>(env, plan, a, a->ptr64, spmv::host_value<T>(alpha),
                           static_cast<const T *>(d_x), spmv::host_value<T>(beta),
                           static_cast<T *>(d_y));
        else
            st = launch<T>(env, plan, a, a->ptr, spmv::host_value<T>(alpha),
                           static_cast<const T *>(d_x), spmv::host_value<T>(beta),
                           static_cast<T *>(d_y));
    });
    return st;
}
