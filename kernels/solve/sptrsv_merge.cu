/* Level merging for the value-as-flag solves in the level order (issue 26): the analysis
 * substitutes, in every row r of an even level L, each dependency j of level L - 1 by j's
 * own equation,
 *
 *   x_j = (b_j - sum_m t_jm x_m) / d_j   gives
 *   x_r = (b_r - sum_j f_j b_j - sum_{c not of L-1} t_rc x_c + sum_j sum_m f_j t_jm x_m) / d_r,
 *   f_j = t_rj / d_j,
 *
 * so that r depends only on levels up to L - 2: levels 2k - 1 and 2k finish together, and
 * the chain of hand-overs a solve waits through (one L2 round trip and a row's work each)
 * halves. The plan keeps the substituted triangle (its own row pointers, columns, values
 * and bounds, each row's strict entries and its diagonal; 32-bit offsets) and the
 * right-hand side's terms (per row the j and f_j: the solve computes b_r - sum_j f_j b_j
 * when it takes the row, off the wait). Unmerged rows are copied as they are, so every row
 * still waits only on rows of smaller tickets in the level order (the value kernels'
 * deadlock argument holds unchanged) and rows nobody merges keep their bits.
 *
 * A row is merged only when (a) it has a dependency on level L - 1, (b) its substituted
 * entries, counted before a column reached twice is joined into one entry, are at most
 * P::merge_max_entries (one window of the kernel: a 5-point stencil's row has 4, 3
 * columns; a 7-point one's 9), and (c) every j it substitutes is diagonally dominant in its
 * strict part, sum_m |t_jm| <= |d_j| (|d_j| = 1 with a unit diagonal), so a substituted term is no
 * larger than the term t_rj x_j it replaces and the rounding of the merged row stays of the
 * order of the original one's. A different but equally exact evaluation: x is not bit for
 * bit the one of the unmerged solve. Whole-plan conditions (sp__gpu_sptrsv_value_merge):
 * see there. */
#include <atomic>

#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace {

std::atomic<int> merge_mode{-1}; /* sp__gpu_sptrsv_set_merge: -1 by the plan, 0 never, 1
                                    whatever the row count */

constexpr int MAXE = P::merge_max_entries;

/* Whether row r is merged, and then *raw = its substituted entries before equal columns
 * are joined (at most MAXE) and *nw = the dependencies it substitutes: an even level, a
 * dependency on the level before it, and every such dependency c diagonally dominant in
 * its strict part. */
template <typename T, bool UPPER>
__device__ bool merge_row(const int32_t *ptr, const int32_t *idx, const T *val,
                          const int32_t *bound, const int32_t *level, bool unit, int64_t r,
                          int32_t *raw, int32_t *nw)
{
    int64_t k0, k1;
    const int32_t lr = level[r];
    *raw = *nw = 0;
    if (lr % 2 != 0) return false;
    strict_range(ptr, bound, r, UPPER, &k0, &k1);
    for (int64_t e = k0; e < k1; e++) {
        const int32_t c = idx[e];
        if (!(UPPER ? c > r : c < r)) continue;
        if (level[c] != lr - 1) {
            ++*raw;
            continue;
        }
        int64_t c0, c1;
        strict_range(ptr, bound, c, UPPER, &c0, &c1);
        double off = 0.0;
        for (int64_t g = c0; g < c1; g++) {
            const int32_t q = idx[g];
            if (UPPER ? q > c : q < c) {
                off += fabs((double)val[g]);
                ++*raw;
            }
        }
        const double dc = unit ? 1.0 : fabs((double)val[diag_pos(bound, c, UPPER)]);
        if (off > dc || *raw > MAXE) return false;
        ++*nw;
    }
    return *nw > 0 && *raw <= MAXE;
}

/* Row r's strict entries in the used triangle. */
template <bool UPPER>
__device__ int32_t strict_count(const int32_t *ptr, const int32_t *idx, const int32_t *bound,
                                int64_t r)
{
    int64_t k0, k1;
    int32_t own = 0;
    strict_range(ptr, bound, r, UPPER, &k0, &k1);
    for (int64_t e = k0; e < k1; e++) own += UPPER ? idx[e] > r : idx[e] < r;
    return own;
}

/* len[r] = row r's slots in the merged triangle (its strict entries, or a merged row's
 * substituted ones before equal columns are joined, and the diagonal); len[n] = 0 (the
 * scan's total lands there); wcount[r] = the dependencies it substitutes (0: not merged),
 * *terms += their sum. */
template <typename T, bool UPPER>
__global__ void __launch_bounds__(P::block_threads)
    merge_count_kernel(const int32_t *ptr, const int32_t *idx, const T *val, const int32_t *bound,
                       const int32_t *level, int64_t n, bool unit, int32_t *len,
                       int32_t *wcount, int32_t *terms)
{
    __shared__ int32_t s_terms;
    const int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    int32_t raw = 0, nw = 0;
    if (threadIdx.x == 0) s_terms = 0;
    __syncthreads();
    if (r < n && merge_row<T, UPPER>(ptr, idx, val, bound, level, unit, r, &raw, &nw)) {
        len[r] = raw + 1;
        wcount[r] = nw;
        atomicAdd(&s_terms, nw);
    } else if (r < n) {
        len[r] = strict_count<UPPER>(ptr, idx, bound, r) + 1;
        wcount[r] = 0;
    } else if (r == n) {
        len[n] = 0;
    }
    __syncthreads();
    if (threadIdx.x == 0 && s_terms > 0) atomicAdd(terms, s_terms);
}

/* Adds (c, v) to the strict entries midx/mval[o0 .. *o): to an entry of column c where
 * there is one, else as a new one. */
template <typename T>
__device__ __forceinline__ void join(int32_t *midx, T *mval, int64_t o0, int64_t *o, int32_t c,
                                     T v)
{
    for (int64_t k = o0; k < *o; k++)
        if (midx[k] == c) {
            mval[k] += v;
            return;
        }
    midx[*o] = c;
    mval[*o] = v;
    ++*o;
}

/* The merged triangle's row r in its slots from mptr[r]: lower, the strict entries, the
 * diagonal, then the slots a merged row's joined columns left (unread: past the bound);
 * upper, those slots first, the diagonal, then the strict entries (mbound as the plan's
 * bound). A merged row's substituted dependencies and their f go to widx/wval at ptr[r]
 * (the CSR row's own positions: fewer than its entries). */
template <typename T, bool UPPER>
__global__ void merge_fill_kernel(const int32_t *ptr, const int32_t *idx, const T *val,
                                  const int32_t *bound, const int32_t *level, int64_t n,
                                  bool unit, const int32_t *mptr, const int32_t *wcount,
                                  int32_t *midx, T *mval, int32_t *mbound, int32_t *widx,
                                  T *wval)
{
    const int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    if (r >= n) return;
    const T dr = unit ? T(1) : val[diag_pos(bound, r, UPPER)];
    const bool merged = wcount[r] > 0;
    const int32_t lr = level[r];
    int64_t k0, k1, o0 = mptr[r], end = mptr[r + 1], o, w = ptr[r];
    strict_range(ptr, bound, r, UPPER, &k0, &k1);
    if (UPPER) { /* the strict entries go last: count them first */
        int64_t own = 0;
        if (merged) {
            /* joined in a scratch pass at the row's end, then moved behind the diagonal */
            o0 = o = mptr[r] + 1;
        } else {
            for (int64_t e = k0; e < k1; e++) own += idx[e] > r;
            o0 = o = end - own;
        }
    } else {
        o = o0;
    }
    for (int64_t e = k0; e < k1; e++) {
        const int32_t c = idx[e];
        if (!(UPPER ? c > r : c < r)) continue;
        if (!merged || level[c] != lr - 1) {
            if (merged)
                join(midx, mval, o0, &o, c, val[e]);
            else
                midx[o] = c, mval[o] = val[e], o++;
            continue;
        }
        const T f = unit ? val[e] : val[e] / val[diag_pos(bound, c, UPPER)];
        widx[w] = c;
        wval[w] = f;
        w++;
        int64_t c0, c1;
        strict_range(ptr, bound, c, UPPER, &c0, &c1);
        for (int64_t g = c0; g < c1; g++) {
            const int32_t q = idx[g];
            if (UPPER ? q > c : q < c) join(midx, mval, o0, &o, q, -f * val[g]);
        }
    }
    if (!UPPER) {
        midx[o] = (int32_t)r; /* the diagonal; the slots after it stay unread */
        mval[o] = dr;
        mbound[r] = (int32_t)o;
        for (int64_t k = o + 1; k < end; k++) midx[k] = (int32_t)r, mval[k] = T(0);
        return;
    }
    if (merged) { /* move the joined entries [o0, o) to the row's end, behind the diagonal */
        const int64_t cnt = o - o0, dst = end - cnt;
        for (int64_t k = cnt - 1; k >= 0; k--) { /* dst >= o0: copy from the back */
            midx[dst + k] = midx[o0 + k];
            mval[dst + k] = mval[o0 + k];
        }
        o0 = dst;
    }
    for (int64_t k = mptr[r]; k < o0 - 1; k++) midx[k] = (int32_t)r, mval[k] = T(0);
    midx[o0 - 1] = (int32_t)r;
    mval[o0 - 1] = dr;
    mbound[r] = (int32_t)o0;
}

} /* namespace */

extern "C" void sp__gpu_sptrsv_set_merge(int mode)
{
    merge_mode.store(mode == 0 || mode == 1 ? mode : -1);
}

sp_status_t sp__gpu_sptrsv_value_merge(const sp_gpu_env_t *env, const sp_csr_t *a,
                                       sp_gpu_sptrsv_plan_t *plan, const int32_t *d_level)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    const int64_t n = plan->n;
    int32_t *d_len = NULL, *d_wcount = NULL, totals[2] = {0, 0};
    void *d_temp = NULL;
    size_t scan_bytes = 0, vs = sp_value_size(plan->value_type);
    const unsigned blocks = (unsigned)ceil_div(n + 1, P::block_threads);
    /* lane-per-row value kernels in the level order, 32-bit offsets, enough rows and
     * levels to gain (P::merge_min_rows, P::merge_min_levels), a mean row whose
     * substitution (about its dependencies squared) may fit P::merge_max_entries, and a
     * slot count that cannot pass the 32-bit positions (each row keeps its own entries or
     * at most P::merge_max_entries, and its diagonal) */
    if (merge_mode.load() == 0 || !sp__gpu_sptrsv_value_alg(plan->alg) || !plan->ordered ||
        plan->warp_per_row || a->ptr64 != NULL || plan->nlevels < P::merge_min_levels ||
        (n < P::merge_min_rows && merge_mode.load() != 1) ||
        plan->tri_nnz + n * (int64_t)(P::merge_max_entries + 1) >= (int64_t)INT32_MAX)
        goto done;
    {
        const double deps = (double)(plan->tri_nnz - n) / (double)n;
        if (deps * deps > 2.0 * P::merge_max_entries) goto done;
    }
    /* d_len: n + 1 row lengths (scanned into the row pointers), then the count of
     * substituted dependencies */
    SP_TRY(env->alloc(env->self, (void **)&d_len, (size_t)(n + 2) * sizeof(int32_t)));
    SP_TRY(env->alloc(env->self, (void **)&d_wcount, (size_t)n * sizeof(int32_t)));
    SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, n + 1, NULL, NULL, &scan_bytes, s));
    SP_TRY(env->alloc(env->self, &d_temp, scan_bytes));
    SP_CUDA_TRY(cudaMemsetAsync(d_len + n + 1, 0, sizeof(int32_t), s));
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        const T *val = static_cast<const T *>(a->val);
        if (plan->upper)
            merge_count_kernel<T, true><<<blocks, P::block_threads, 0, s>>>(
                a->ptr, a->idx, val, plan->d_bound, d_level, n, plan->unit_diag != 0, d_len,
                d_wcount, d_len + n + 1);
        else
            merge_count_kernel<T, false><<<blocks, P::block_threads, 0, s>>>(
                a->ptr, a->idx, val, plan->d_bound, d_level, n, plan->unit_diag != 0, d_len,
                d_wcount, d_len + n + 1);
    });
    SP_CUDA_LAUNCHED("sptrsv merge count kernel");
    SP_TRY(sp__gpu_exclusive_scan_i32(d_len, d_len, n + 1, NULL, d_temp, &scan_bytes, s));
    SP_CUDA_TRY(cudaMemcpyAsync(totals, d_len + n, sizeof totals, cudaMemcpyDeviceToHost, s));
    SP_CUDA_TRY(cudaStreamSynchronize(s));
    if (totals[1] <= 0) goto done; /* no row merged */
    SP_TRY(env->alloc(env->self, (void **)&plan->d_midx, (size_t)totals[0] * sizeof(int32_t)));
    SP_TRY(env->alloc(env->self, &plan->d_mval, (size_t)totals[0] * vs));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_mbound, (size_t)n * sizeof(int32_t)));
    SP_TRY(env->alloc(env->self, (void **)&plan->d_widx, (size_t)a->nnz * sizeof(int32_t)));
    SP_TRY(env->alloc(env->self, &plan->d_wval, (size_t)a->nnz * vs));
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        const T *val = static_cast<const T *>(a->val);
        T *mval = static_cast<T *>(plan->d_mval), *wval = static_cast<T *>(plan->d_wval);
        if (plan->upper)
            merge_fill_kernel<T, true><<<blocks, P::block_threads, 0, s>>>(
                a->ptr, a->idx, val, plan->d_bound, d_level, n, plan->unit_diag != 0, d_len,
                d_wcount, plan->d_midx, mval, plan->d_mbound, plan->d_widx, wval);
        else
            merge_fill_kernel<T, false><<<blocks, P::block_threads, 0, s>>>(
                a->ptr, a->idx, val, plan->d_bound, d_level, n, plan->unit_diag != 0, d_len,
                d_wcount, plan->d_midx, mval, plan->d_mbound, plan->d_widx, wval);
    });
    SP_CUDA_LAUNCHED("sptrsv merge fill kernel");
    plan->d_mptr = d_len;
    plan->d_wcount = d_wcount;
    d_len = d_wcount = NULL;
    plan->merged = 1;
    plan->merged_terms = totals[1];
done:
    env->free(env->self, d_temp);
    env->free(env->self, d_wcount);
    env->free(env->self, d_len);
    return st; /* on failure the caller frees the plan, the merged arrays made so far
                * included */
}
