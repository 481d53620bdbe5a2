/* CSC (the transpose's CSR) on the GPU (PMPP, sparse-format chapter): the entries put in
 * column order with rows increasing within each column, as sp__ref_csr_to_csc's scatter in
 * row order does, by one of two paths:
 *  - sort: a stable radix sort of the entry indices by column, the column pointers then
 *    read off the sorted columns (sorted_starts_kernel);
 *  - scatter (no general sort; Wang et al., "Parallel Transposition of Sparse Data
 *    Structures", ICS'16, for the count-scan-scatter shape): the entries of columns of at
 *    most P::transpose_block_max go to their column's slots by an atomic cursor, and each
 *    such column is then put in entry order by a warp (rank count) or a block (bitonic
 *    sort in shared memory); the few longer columns are placed in order directly: the
 *    entries are cut into chunks, a block counts each long column's entries in its chunk,
 *    a scan turns the counts into each chunk's start in the column, and the block walks
 *    its chunk in order placing them (its warps take turns, lanes in order). Entries of a
 *    column end up in entry order, i.e. row order, whatever the atomics' order.
 *    Its column pointers are a histogram of the columns, scanned.
 * Each output entry then takes its row from the entries' rows expanded once (a warp per 32
 * rows, coalesced writes), and its value from its input entry. Patterns on the sort path
 * sort the expanded rows themselves as the values, which leaves the CSC's row indices in
 * place with no gather at all. */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* f(k, r) for every entry k of the segments [ptr[r], ptr[r + 1]) (rows of a CSR, columns
 * of a CSC): a warp takes 32 segments, whose entries are contiguous, and each lane finds
 * the segment of its entry among the warp's 32 segment ends by a binary search over the
 * lanes (shuffles), so consecutive lanes take consecutive entries whatever the lengths; a
 * long segment only makes its warp loop longer. All lanes of a warp call it. */
template <typename Off, typename F>
__device__ __forceinline__ void for_each_segment_entry(const Off *ptr, int64_t nrows, F f)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (P::block_threads / 32);
    const int64_t gw = ((int64_t)blockIdx.x * P::block_threads + threadIdx.x) >> 5;
    for (int64_t r0 = gw * 32; r0 < nrows; r0 += warps * 32) {
        int64_t last_row = r0 + 31 < nrows ? r0 + 31 : nrows - 1;
        /* lanes past the last row end where it ends: the ends stay non-decreasing */
        Off end = ptr[(r0 + lane < last_row ? r0 + lane : last_row) + 1];
        Off first = ptr[r0], last = __shfl_sync(sp_prim::full_mask, end, 31);
        for (Off k0 = first; k0 < last; k0 += 32) {
            Off k = k0 + lane;
            int lo = 0, hi = 31; /* the first lane whose row ends after k */
#pragma unroll
            for (int step = 0; step < 5; step++) {
                int mid = (lo + hi) >> 1;
                if (__shfl_sync(sp_prim::full_mask, end, mid) > k)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            if (k < last) f(k, r0 + lo);
        }
    }
}

/* rows[k] = the row of entry k, for every entry of the CSR (coalesced writes). */
template <typename Off>
__global__ void __launch_bounds__(P::block_threads)
expand_rows_kernel(const Off *ptr, int64_t nrows, int32_t *rows)
{
    for_each_segment_entry(ptr, nrows, [=](Off k, int64_t r) { rows[k] = (int32_t)r; });
}

/* out[p] = src[perm[p]] for p < n: a thread takes P::gather_items outputs a block's width
 * apart, all their perm loads then all their (random) source loads in flight before any
 * store. The rows and the values are gathered by two launches: one random stream at a time
 * (on an H100, Kronecker 22, one kernel gathering both took 7.3 ms, where cuSPARSE's two
 * gathers took 1.8 + 2.6). */
template <typename W>
__global__ void __launch_bounds__(P::block_threads)
gather_kernel(const W *__restrict__ src, const int32_t *__restrict__ perm, int64_t n,
              W *__restrict__ out)
{
    constexpr int ITEMS = P::gather_items;
    const int64_t base = (int64_t)blockIdx.x * P::block_threads * ITEMS + threadIdx.x;
    int32_t k[ITEMS];
    W v[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int64_t p = base + (int64_t)i * P::block_threads;
        k[i] = p < n ? __ldcs(perm + p) : 0;
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int64_t p = base + (int64_t)i * P::block_threads;
        v[i] = p < n ? __ldg(src + k[i]) : W(0);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        int64_t p = base + (int64_t)i * P::block_threads;
        if (p < n) out[p] = v[i];
    }
}

/* ptr[j] for j in [0, n], from the entries' segment keys sorted ascending (each in
 * [0, n)): the first entry whose key is at least j. Entry p (p = nnz: past the last) writes
 * the starts of the keys after its predecessor's up to its own; a gap of more than
 * P::sorted_starts_run keys writes only its last, and sorted_gaps_kernel finds the rest
 * (left -1 by the caller) by binary search, so no thread walks a long run of empty
 * segments. One read of the sorted keys instead of a histogram of them (on an H100,
 * Kronecker 22: 1.7 ms of global atomics on hub columns). */
__global__ void __launch_bounds__(P::block_threads)
sorted_starts_kernel(const int32_t *__restrict__ keys, int64_t nnz, int32_t *__restrict__ ptr,
                     int64_t n)
{
    for (int64_t p = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; p <= nnz;
         p += (int64_t)gridDim.x * P::block_threads) {
        int64_t lo = p > 0 ? (int64_t)keys[p - 1] : -1, hi = p < nnz ? (int64_t)keys[p] : n;
        if (hi - lo > P::sorted_starts_run) {
            ptr[hi] = (int32_t)p;
            continue;
        }
        for (int64_t j = lo + 1; j <= hi; j++) ptr[j] = (int32_t)p;
    }
}

/* The starts sorted_starts_kernel left -1: the first entry whose key is at least j. */
__global__ void __launch_bounds__(P::block_threads)
sorted_gaps_kernel(const int32_t *__restrict__ keys, int64_t nnz, int32_t *__restrict__ ptr,
                   int64_t n)
{
    for (int64_t j = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; j <= n;
         j += (int64_t)gridDim.x * P::block_threads) {
        if (ptr[j] < 0) ptr[j] = (int32_t)first_at_least(keys, nnz, j);
    }
}

/* ---- the scatter path ---- */

/* The next free slot of a column, from its cursor (Off: the column pointers' type). */
__device__ __forceinline__ int32_t take_slot(int32_t *cursor) { return atomicAdd(cursor, 1); }
__device__ __forceinline__ int64_t take_slot(int64_t *cursor)
{
    return (int64_t)atomicAdd(reinterpret_cast<unsigned long long *>(cursor), 1ull);
}

/* Device counters of the scatter path. */
struct scatter_ctl {
    int32_t nhubs, nmedium;
};

/* Per column: cursor at the column's first slot; hubs (longer than block_max) numbered in
 * hub_of (any order: only counts decide positions; past max_hubs they are counted only,
 * and the caller takes the sort path), medium ones (warp_max < length <= block_max)
 * listed. Off: the column pointers' type (a column holds fewer than 2^31 entries either
 * way: its rows differ). */
template <typename Off>
__global__ void __launch_bounds__(P::block_threads)
classify_kernel(const Off *cptr, int64_t ncols, Off *cursor, int32_t *hub_of, int max_hubs,
                int32_t *medium, scatter_ctl *ctl)
{
    for (int64_t c = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; c < ncols;
         c += (int64_t)gridDim.x * P::block_threads) {
        int32_t len = (int32_t)(cptr[c + 1] - cptr[c]), h = -1;
        cursor[c] = cptr[c];
        if (len > P::transpose_block_max) {
            h = atomicAdd(&ctl->nhubs, 1);
            if (h >= max_hubs) h = -1;
        } else if (len > P::transpose_warp_max) {
            medium[atomicAdd(&ctl->nmedium, 1)] = (int32_t)c;
        }
        hub_of[c] = h;
    }
}

/* counts[h * nchunks + b] = entries of hub h among entries [b * chunk, (b + 1) * chunk). */
__global__ void __launch_bounds__(P::block_threads)
hub_count_kernel(const int32_t *idx, int64_t nnz, int64_t chunk, const int32_t *hub_of,
                 int nhubs, int32_t *counts)
{
    extern __shared__ int32_t s_count[];
    for (int h = threadIdx.x; h < nhubs; h += P::block_threads) s_count[h] = 0;
    __syncthreads();
    int64_t b0 = (int64_t)blockIdx.x * chunk, b1 = b0 + chunk < nnz ? b0 + chunk : nnz;
    for (int64_t e = b0 + threadIdx.x; e < b1; e += P::block_threads) {
        int32_t h = hub_of[__ldg(idx + e)];
        if (h >= 0) atomicAdd(&s_count[h], 1);
    }
    __syncthreads();
    for (int h = threadIdx.x; h < nhubs; h += P::block_threads)
        counts[(int64_t)h * gridDim.x + blockIdx.x] = s_count[h];
}

/* Each entry e of the block's chunk to its column's slots in perm (perm[slot] = e, or
 * label[e] where label is given: a pattern's rows, which order a column as e does): short
 * and medium columns by the column's atomic cursor (its next free slot); hubs in order, at
 * the column's start + the hub's entries in earlier chunks (scanned: the exclusive scan of
 * hub_count_kernel's counts, hub-major) + those of this chunk placed before (s_run, the
 * warps of a step taking turns) + the lanes before it in its warp. */
template <int BLOCK, typename Off>
__global__ void __launch_bounds__(BLOCK)
scatter_kernel(const int32_t *idx, int64_t nnz, int64_t chunk, const Off *cptr, Off *cursor,
               const int32_t *hub_of, int nhubs, const int32_t *scanned, const int32_t *label,
               int32_t *perm)
{
    constexpr int NWARPS = BLOCK / 32;
    extern __shared__ int32_t s_run[];   /* per hub: its entries of this chunk placed */
    __shared__ int32_t s_base[NWARPS][32]; /* a hub's s_run for its lanes of a warp step */
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const unsigned below = sp_prim::lanemask_lt();
    for (int h = t; h < nhubs; h += BLOCK) s_run[h] = 0;
    __syncthreads();
    int64_t b0 = (int64_t)blockIdx.x * chunk, b1 = b0 + chunk < nnz ? b0 + chunk : nnz;
    for (int64_t s0 = b0; s0 < b1; s0 += BLOCK) {
        int64_t e = s0 + t;
        bool valid = e < b1;
        int32_t c = valid ? __ldg(idx + e) : 0;
        int32_t h = valid ? hub_of[c] : -1;
        bool hub = h >= 0;
        int32_t v = label && valid ? __ldg(label + e) : (int32_t)e;
        if (valid && !hub) perm[take_slot(&cursor[c])] = v;
        if (!__syncthreads_or(hub)) continue; /* the same answer in every thread */
        unsigned peers = __match_any_sync(sp_prim::full_mask, hub ? h : -1);
        int leader = __ffs(peers) - 1;
        for (int w = 0; w < NWARPS; w++) { /* warps in entry order */
            if (warp == w && hub && lane == leader) {
                int32_t r = s_run[h];
                s_base[w][lane] = r;
                s_run[h] = r + __popc(peers);
            }
            __syncthreads();
        }
        if (hub) {
            const int32_t *row = scanned + (int64_t)h * gridDim.x;
            int64_t slot = (int64_t)cptr[c] + (row[blockIdx.x] - row[0]) + s_base[warp][leader] +
                           __popc(peers & below);
            perm[slot] = v;
        }
    }
}

/* Up to T values at p[0..n) in increasing order, in registers: an insertion network of
 * compare-exchanges at fixed places, padded with INT32_MAX (above every entry and row). */
template <int T>
__device__ __forceinline__ void thread_sort(int32_t *p, int32_t n)
{
    int32_t v[T];
#pragma unroll
    for (int i = 0; i < T; i++) v[i] = i < n ? p[i] : INT32_MAX;
#pragma unroll
    for (int i = 1; i < T; i++)
#pragma unroll
        for (int j = i; j > 0; j--) {
            int32_t a = v[j - 1], b = v[j];
            v[j - 1] = a < b ? a : b;
            v[j] = a < b ? b : a;
        }
#pragma unroll
    for (int i = 0; i < T; i++)
        if (i < n) p[i] = v[i];
}

/* Columns of 2..warp_max entries in entry order: lanes test 32 columns at once; a lane puts
 * its own column of up to thread_max entries in order in registers, and the warp takes the
 * longer ones in turn, ranking each one's entries by counting the smaller ones (and the
 * equal ones of lower lanes: a pattern's rows repeat where the CSR keeps duplicates). */
template <typename Off>
__global__ void __launch_bounds__(P::block_threads)
warp_sort_kernel(const Off *cptr, int64_t ncols, int32_t *perm)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (P::block_threads / 32);
    const int64_t gw = ((int64_t)blockIdx.x * P::block_threads + threadIdx.x) >> 5;
    for (int64_t c0 = gw * 32; c0 < ncols; c0 += warps * 32) {
        int64_t c = c0 + lane;
        Off start = c < ncols ? cptr[c] : 0;
        int32_t len = c < ncols ? (int32_t)(cptr[c + 1] - start) : 0;
        if (len >= 2 && len <= P::transpose_thread_max)
            thread_sort<P::transpose_thread_max>(perm + start, len);
        unsigned todo = __ballot_sync(sp_prim::full_mask, len > P::transpose_thread_max &&
                                                              len <= P::transpose_warp_max);
        while (todo) {
            int src = __ffs(todo) - 1;
            todo &= todo - 1;
            Off first = __shfl_sync(sp_prim::full_mask, start, src);
            int32_t n = __shfl_sync(sp_prim::full_mask, len, src);
            int32_t v = lane < n ? perm[first + lane] : INT32_MAX;
            int rank = 0;
            for (int j = 0; j < 32; j++) {
                int32_t u = __shfl_sync(sp_prim::full_mask, v, j);
                rank += u < v || (u == v && j < lane);
            }
            __syncwarp();
            if (lane < n) perm[first + rank] = v;
            __syncwarp();
        }
    }
}

/* The listed medium columns in entry order, a block each: bitonic sort in shared memory of
 * the column's entries padded with INT32_MAX to a power of two. */
template <typename Off>
__global__ void __launch_bounds__(P::block_threads)
block_sort_kernel(const Off *cptr, const int32_t *medium, const scatter_ctl *ctl, int32_t *perm)
{
    __shared__ int32_t s[P::transpose_block_max];
    const int nmedium = ctl->nmedium;
    for (int m = blockIdx.x; m < nmedium; m += gridDim.x) {
        int32_t c = medium[m];
        Off first = cptr[c];
        int32_t n = (int32_t)(cptr[c + 1] - first);
        int p = 1;
        while (p < n) p <<= 1;
        for (int i = threadIdx.x; i < p; i += P::block_threads)
            s[i] = i < n ? perm[first + i] : INT32_MAX;
        __syncthreads();
        for (int k = 2; k <= p; k <<= 1)
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int i = threadIdx.x; i < p; i += P::block_threads) {
                    int x = i ^ j;
                    if (x > i) {
                        int32_t a = s[i], b = s[x];
                        if ((a > b) == ((i & k) == 0)) s[i] = b, s[x] = a;
                    }
                }
                __syncthreads();
            }
        for (int i = threadIdx.x; i < n; i += P::block_threads) perm[first + i] = s[i];
        __syncthreads(); /* s is refilled for the next column */
    }
}

/* ---- the wide path (64-bit offsets: entry numbers past INT32_MAX) ---- */

/* counts[i] += part[i] for i < n (the column counts of one piece of the entries). */
__global__ void __launch_bounds__(P::block_threads)
add_counts_kernel(const int32_t *part, int64_t n, int32_t *counts)
{
    for (int64_t i = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * P::block_threads)
        counts[i] += part[i];
}

/* The first slot and the length of every column longer than P::transpose_block_max, in any
 * order (*nlisted counts them). */
__global__ void __launch_bounds__(P::block_threads)
list_hubs_kernel(const int64_t *cptr, int64_t ncols, int64_t *hub_start, int32_t *hub_len,
                 int32_t *nlisted)
{
    for (int64_t c = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; c < ncols;
         c += (int64_t)gridDim.x * P::block_threads) {
        int64_t len = cptr[c + 1] - cptr[c];
        if (len > P::transpose_block_max) {
            int32_t h = atomicAdd(nlisted, 1);
            hub_start[h] = cptr[c];
            hub_len[h] = (int32_t)len;
        }
    }
}

/* The value of every CSC entry p (row rows_out[p], column c: its segment of cptr, as
 * for_each_segment_entry walks them): the CSR entry of column c in that row, by binary
 * search among the row's column ids (increasing, duplicates merged: exactly one), so no
 * entry numbers are kept. */
template <typename W>
__global__ void __launch_bounds__(P::block_threads)
gather_by_search_kernel(const int64_t *ptr, const int32_t *idx, const W *val,
                        const int64_t *cptr, int64_t ncols, const int32_t *rows_out, W *val_out)
{
    for_each_segment_entry(cptr, ncols, [=](int64_t p, int64_t c) {
        int32_t r = rows_out[p];
        int64_t lo = ptr[r], hi = ptr[r + 1] - 1; /* the entry is in [lo, hi] */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (idx[mid] < c)
                lo = mid + 1;
            else
                hi = mid;
        }
        val_out[p] = val[lo];
    });
}

} /* namespace */

/* rows[k] = the row of each entry k of csr (nnz > 0). */
static sp_status_t expand_rows(const sp_gpu_env_t *env, const sp_csr_t *csr, int32_t *rows)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    if (csr->ptr64)
        expand_rows_kernel<<<grid_for(env, csr->nrows), P::block_threads, 0, s>>>(
            csr->ptr64, csr->nrows, rows);
    else
        expand_rows_kernel<<<grid_for(env, csr->nrows), P::block_threads, 0, s>>>(
            csr->ptr, csr->nrows, rows);
    SP_CUDA_LAUNCHED("expand_rows_kernel");
done:
    return st;
}

/* The rows and values of perm's entries into c (gather_kernel, once for each; rows:
 * expand_rows). */
static sp_status_t gather(const sp_gpu_env_t *env, const sp_csr_t *csr, const int32_t *rows,
                          const int32_t *perm, sp_csr_t *c)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    const int64_t per_block = (int64_t)P::block_threads * P::gather_items;
    const unsigned blocks = (unsigned)((csr->nnz + per_block - 1) / per_block);
    if (csr->nnz == 0) goto done;
    gather_kernel<int32_t><<<blocks, P::block_threads, 0, s>>>(rows, perm, csr->nnz, c->idx);
    SP_CUDA_LAUNCHED("gather_kernel (rows)");
    if (sp_value_size(csr->value_type) == 0) goto done; /* a pattern: rows only */
    by_word(sp_value_size(csr->value_type), [&](auto tag) {
        using W = decltype(tag);
        gather_kernel<W><<<blocks, P::block_threads, 0, s>>>(
            static_cast<const W *>(csr->val), perm, csr->nnz, static_cast<W *>(c->val));
    });
    SP_CUDA_LAUNCHED("gather_kernel (values)");
done:
    return st;
}

/* ptr[0..n] from the segment keys of nnz entries sorted ascending (sorted_starts_kernel,
 * then sorted_gaps_kernel for long gaps). */
static sp_status_t sorted_starts(const sp_gpu_env_t *env, const int32_t *keys, int64_t nnz,
                                 int32_t *ptr, int64_t n)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    SP_CUDA_TRY(cudaMemsetAsync(ptr, 0xff, (size_t)(n + 1) * sizeof *ptr, s));
    sorted_starts_kernel<<<grid_for(env, nnz + 1), P::block_threads, 0, s>>>(keys, nnz, ptr, n);
    SP_CUDA_LAUNCHED("sorted_starts_kernel");
    sorted_gaps_kernel<<<grid_for(env, n + 1), P::block_threads, 0, s>>>(keys, nnz, ptr, n);
    SP_CUDA_LAUNCHED("sorted_gaps_kernel");
done:
    return st;
}

/* The sort path (env and csr checked): a stable sort of the column indices carrying the
 * entry numbers (then gathered: rows and values), or for patterns the rows themselves. */
static sp_status_t csc_by_sort(const sp_gpu_env_t *env, const sp_csr_t *csr, sp_csr_t *csc)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c = {0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL};
    void *scratch = NULL;
    scratch_plan plan;
    size_t sort_bytes = 0, temp_bytes = 0, vs = 0, o_keys, o_perm, o_rows,
           o_temp;
    uint32_t *keys = NULL;
    int32_t *perm = NULL, *rows = NULL;
    cudaStream_t s = NULL;
    int64_t nnz = 0;
    s = (cudaStream_t)env->stream;
    vs = sp_value_size(csr->value_type);
    nnz = csr->nnz;
    c.nrows = csr->nrows;
    c.ncols = csr->ncols;
    c.nnz = nnz;
    c.value_type = csr->value_type;
    SP_TRY(sort_pairs_temp_bytes(nnz, &sort_bytes));
    temp_bytes = sort_bytes;
    o_keys = plan.add_n<uint32_t>(nnz);
    o_perm = plan.add_n<int32_t>(vs > 0 ? nnz : 0);
    o_rows = plan.add_n<int32_t>(nnz);
    o_temp = plan.add(temp_bytes);
    SP_TRY(env_alloc(env, &scratch, plan.total));
    keys = at<uint32_t>(scratch, o_keys);
    perm = at<int32_t>(scratch, o_perm);
    rows = at<int32_t>(scratch, o_rows);
    SP_TRY(env_alloc_n(env, &c.ptr, c.ncols + 1));
    SP_TRY(env_alloc_n(env, &c.idx, nnz));
    SP_TRY(env_alloc(env, &c.val, (size_t)nnz * vs));
    if (nnz > 0) {
        const int key_bits = key_bits_for((uint64_t)(c.ncols > 0 ? c.ncols - 1 : 0));
        /* the sort reads the CSR's columns in place of a copy; its last pass writes the
         * sorted columns to keys */
        const uint32_t *cols = reinterpret_cast<const uint32_t *>(csr->idx);
        SP_TRY(expand_rows(env, csr, rows));
        if (vs == 0) { /* the rows ride in the sort and land in the CSC */
            SP_TRY(sp__gpu_radix_sort_pairs_u32_into(cols, rows, keys, c.idx, nnz, key_bits,
                                                     at<void>(scratch, o_temp), &temp_bytes, s));
        } else { /* the entry numbers ride (made by the sort's first pass), then the gathers */
            SP_TRY(sp__gpu_radix_sort_pairs_u32_into(cols, NULL, keys, perm, nnz, key_bits,
                                                     at<void>(scratch, o_temp), &temp_bytes, s));
            SP_TRY(gather(env, csr, rows, perm, &c));
        }
    }
    /* the column pointers from the sorted columns */
    SP_TRY(sorted_starts(env, reinterpret_cast<const int32_t *>(keys), nnz, c.ptr, c.ncols));
    *csc = c;
    c = (sp_csr_t){0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL};
done:
    env_free(env, scratch);
    if (env) sp__gpu_csr_free(env, &c);
    return st;
}

/* The scatter path (env and csr checked); *scattered = 0 when the matrix has more long
 * columns than P::transpose_max_hubs, and the sort path ran instead. A pattern's entries
 * are placed as their rows straight into the CSC's idx (no gather); with values, as their
 * entry numbers, then gathered. */
static sp_status_t csc_by_scatter(const sp_gpu_env_t *env, const sp_csr_t *csr, sp_csr_t *csc,
                                  int *scattered)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c = {0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL};
    void *scratch = NULL, *hub_scratch = NULL;
    scratch_plan plan, hub_plan;
    size_t seg_bytes = 0, scan_bytes = 0, o_perm, o_rows, o_cursor, o_hub_of, o_medium, o_ctl,
           o_seg, o_counts = 0, o_scan = 0;
    int32_t *perm, *rows, *cursor, *hub_of, *medium, *counts = NULL;
    scatter_ctl *ctl, h_ctl = {0, 0};
    cudaStream_t s = (cudaStream_t)env->stream;
    int64_t nnz = csr->nnz, ncols = csr->ncols, nchunks = 0, chunk = 0;
    int sms = env->sm_count > 0 ? env->sm_count : 1;
    const bool pattern = sp_value_size(csr->value_type) == 0;
    *scattered = 1;
    c.nrows = csr->nrows;
    c.ncols = ncols;
    c.nnz = nnz;
    c.value_type = csr->value_type;
    SP_TRY(segment_starts(env, csr->idx, nnz, NULL, ncols, NULL, &seg_bytes));
    o_perm = plan.add_n<int32_t>(pattern ? 0 : nnz);
    o_rows = plan.add_n<int32_t>(nnz);
    o_cursor = plan.add_n<int32_t>(ncols);
    o_hub_of = plan.add_n<int32_t>(ncols);
    o_medium = plan.add_n<int32_t>(ncols);
    o_ctl = plan.add(sizeof(scatter_ctl));
    o_seg = plan.add(seg_bytes);
    SP_TRY(env_alloc(env, &scratch, plan.total));
    perm = at<int32_t>(scratch, o_perm);
    rows = at<int32_t>(scratch, o_rows);
    cursor = at<int32_t>(scratch, o_cursor);
    hub_of = at<int32_t>(scratch, o_hub_of);
    medium = at<int32_t>(scratch, o_medium);
    ctl = at<scatter_ctl>(scratch, o_ctl);
    SP_TRY(env_alloc_n(env, &c.ptr, ncols + 1));
    SP_TRY(env_alloc_n(env, &c.idx, nnz));
    SP_TRY(env_alloc(env, &c.val, (size_t)nnz * sp_value_size(csr->value_type)));
    SP_TRY(segment_starts(env, csr->idx, nnz, c.ptr, ncols, at<void>(scratch, o_seg), &seg_bytes));
    if (nnz == 0) goto out;
    if (pattern) perm = c.idx;
    SP_CUDA_TRY(cudaMemsetAsync(ctl, 0, sizeof *ctl, s));
    classify_kernel<<<grid_for(env, ncols), P::block_threads, 0, s>>>(
        c.ptr, ncols, cursor, hub_of, P::transpose_max_hubs, medium, ctl);
    SP_CUDA_LAUNCHED("classify_kernel");
    SP_TRY(to_host(env, &h_ctl, ctl, sizeof h_ctl));
    if (h_ctl.nhubs > P::transpose_max_hubs) { /* too many long columns for the counters */
        *scattered = 0;
        env_free(env, scratch);
        scratch = NULL;
        sp__gpu_csr_free(env, &c);
        SP_TRY(csc_by_sort(env, csr, csc));
        goto done;
    }
    nchunks = (nnz + P::transpose_min_chunk - 1) / P::transpose_min_chunk;
    if (nchunks > (int64_t)P::transpose_chunks_per_sm * sms)
        nchunks = (int64_t)P::transpose_chunks_per_sm * sms;
    chunk = (nnz + nchunks - 1) / nchunks;
    if (h_ctl.nhubs > 0) {
        int64_t ncounts = (int64_t)h_ctl.nhubs * nchunks;
        SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, ncounts, NULL, NULL, &scan_bytes, s));
        o_counts = hub_plan.add_n<int32_t>(ncounts);
        o_scan = hub_plan.add(scan_bytes);
        SP_TRY(env_alloc(env, &hub_scratch, hub_plan.total));
        counts = at<int32_t>(hub_scratch, o_counts);
        hub_count_kernel<<<(unsigned)nchunks, P::block_threads,
                           (size_t)h_ctl.nhubs * sizeof(int32_t), s>>>(csr->idx, nnz, chunk,
                                                                      hub_of, h_ctl.nhubs, counts);
        SP_CUDA_LAUNCHED("hub_count_kernel");
        SP_TRY(sp__gpu_exclusive_scan_i32(counts, counts, ncounts, NULL,
                                          at<void>(hub_scratch, o_scan), &scan_bytes, s));
    }
    SP_TRY(expand_rows(env, csr, rows));
    scatter_kernel<P::block_threads><<<(unsigned)nchunks, P::block_threads,
                                       (size_t)h_ctl.nhubs * sizeof(int32_t), s>>>(
        csr->idx, nnz, chunk, c.ptr, cursor, hub_of, h_ctl.nhubs, counts,
        pattern ? rows : NULL, perm);
    SP_CUDA_LAUNCHED("scatter_kernel");
    warp_sort_kernel<<<grid_for(env, ncols), P::block_threads, 0, s>>>(c.ptr, ncols, perm);
    SP_CUDA_LAUNCHED("warp_sort_kernel");
    if (h_ctl.nmedium > 0) {
        unsigned blocks = (unsigned)(h_ctl.nmedium < 4 * sms ? h_ctl.nmedium : 4 * sms);
        block_sort_kernel<<<blocks, P::block_threads, 0, s>>>(c.ptr, medium, ctl, perm);
        SP_CUDA_LAUNCHED("block_sort_kernel");
    }
    if (!pattern) SP_TRY(gather(env, csr, rows, perm, &c));
out:
    *csc = c;
    c = (sp_csr_t){0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL};
done:
    env_free(env, hub_scratch);
    env_free(env, scratch);
    if (env) sp__gpu_csr_free(env, &c);
    return st;
}

/* c->ptr64[0..ncols] = the column pointers of csr's nnz entries (any count): the column
 * histogram by pieces of at most 2^30 entries (its counts are 32-bit; a column holds fewer
 * than 2^31 entries), widened, then a 64-bit exclusive scan. scratch: 2 * ncols int32
 * and temp_bytes (wide_starts_bytes). */
static size_t wide_starts_bytes(const sp_gpu_env_t *env, const sp_csr_t *csr)
{
    size_t hist_bytes = 0, scan_bytes = 0;
    int64_t piece = csr->nnz < ((int64_t)1 << 30) ? csr->nnz : ((int64_t)1 << 30);
    if (sp__gpu_histogram(NULL, piece, NULL, csr->ncols, NULL, &hist_bytes, NULL) ||
        offsets64_of_counts(env, NULL, csr->ncols, NULL, NULL, &scan_bytes))
        return 0;
    return hist_bytes > scan_bytes ? hist_bytes : scan_bytes;
}

static sp_status_t wide_starts(const sp_gpu_env_t *env, const sp_csr_t *csr, int32_t *counts,
                               int32_t *part, void *temp, size_t temp_bytes, sp_csr_t *c)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    const int64_t piece = (int64_t)1 << 30, ncols = csr->ncols;
    size_t bytes = temp_bytes;
    SP_CUDA_TRY(cudaMemsetAsync(counts, 0, (size_t)ncols * sizeof *counts, s));
    for (int64_t e0 = 0; e0 < csr->nnz; e0 += piece) {
        int64_t n = csr->nnz - e0 < piece ? csr->nnz - e0 : piece;
        bytes = temp_bytes;
        SP_TRY(sp__gpu_histogram(csr->idx + e0, n, part, ncols, temp, &bytes, s));
        add_counts_kernel<<<grid_for(env, ncols), P::block_threads, 0, s>>>(part, ncols,
                                                                            counts);
        SP_CUDA_LAUNCHED("add_counts_kernel");
    }
    bytes = temp_bytes;
    SP_TRY(offsets64_of_counts(env, counts, ncols, c->ptr64, temp, &bytes));
done:
    return st;
}

/* The columns longer than P::transpose_block_max (nhubs of them, placed by their cursors)
 * put in row order, each by a radix sort of its rows in place (a column's rows are distinct
 * and below 2^31). */
static sp_status_t wide_sort_hubs(const sp_gpu_env_t *env, sp_csr_t *c, int32_t nhubs)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    void *scratch = NULL, *temp = NULL;
    scratch_plan plan;
    size_t o_start = plan.add_n<int64_t>(nhubs), o_len = plan.add_n<int32_t>(nhubs),
           o_n = plan.add_n<int32_t>(1), temp_bytes = 0;
    int64_t *h_start = NULL;
    int32_t *h_len = NULL, longest = 0;
    const int key_bits = key_bits_for((uint64_t)(c->nrows > 0 ? c->nrows - 1 : 0));
    if (nhubs == 0) goto done;
    SP_TRY(env_alloc(env, &scratch, plan.total));
    SP_CUDA_TRY(cudaMemsetAsync(at<int32_t>(scratch, o_n), 0, sizeof(int32_t), s));
    list_hubs_kernel<<<grid_for(env, c->ncols), P::block_threads, 0, s>>>(
        c->ptr64, c->ncols, at<int64_t>(scratch, o_start), at<int32_t>(scratch, o_len),
        at<int32_t>(scratch, o_n));
    SP_CUDA_LAUNCHED("list_hubs_kernel");
    h_start = static_cast<int64_t *>(sp__malloc_array((size_t)nhubs, sizeof *h_start));
    h_len = static_cast<int32_t *>(sp__malloc_array((size_t)nhubs, sizeof *h_len));
    if (!h_start || !h_len)
        SP_FAIL(SP_STATUS_ALLOC_FAILED,
                "csr to csc: out of host memory listing %d long columns", (int)nhubs);
    SP_CUDA_TRY(cudaMemcpyAsync(h_start, at<int64_t>(scratch, o_start),
                                (size_t)nhubs * sizeof *h_start, cudaMemcpyDeviceToHost, s));
    SP_TRY(to_host(env, h_len, at<int32_t>(scratch, o_len), (size_t)nhubs * sizeof *h_len));
    for (int32_t h = 0; h < nhubs; h++) longest = h_len[h] > longest ? h_len[h] : longest;
    SP_TRY(sp__gpu_radix_sort_pairs_u32(NULL, NULL, longest, key_bits, NULL, &temp_bytes, s));
    SP_TRY(env_alloc(env, &temp, temp_bytes));
    for (int32_t h = 0; h < nhubs; h++) {
        size_t bytes = temp_bytes;
        SP_TRY(sp__gpu_radix_sort_pairs_u32(reinterpret_cast<uint32_t *>(c->idx + h_start[h]),
                                            NULL, h_len[h], key_bits, temp, &bytes, s));
    }
done:
    sp__free(h_len);
    sp__free(h_start);
    env_free(env, temp);
    env_free(env, scratch);
    return st;
}

/* The transpose of a CSR with 64-bit offsets (any nnz; the CSC takes ptr64): the scatter
 * path's count, scan and cursors in 64 bits, every entry placed as its row straight into
 * the CSC's idx (no entry numbers: they pass INT32_MAX), columns put in row order by the
 * warp and block sorts and, past P::transpose_block_max entries, by a radix sort each;
 * then each value found by its row's binary search for its column (the column from a
 * warp's walk of 32 columns, as the rows are expanded). The same arrays as the
 * 32-bit transpose (rows increase within a column and are distinct). */
static sp_status_t csc_wide(const sp_gpu_env_t *env, const sp_csr_t *csr, sp_csr_t *csc)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c = {0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL, NULL};
    void *scratch = NULL;
    scratch_plan plan;
    cudaStream_t s = (cudaStream_t)env->stream;
    int64_t nnz = csr->nnz, ncols = csr->ncols, nchunks = 0, chunk = 0;
    int sms = env->sm_count > 0 ? env->sm_count : 1;
    size_t vs = sp_value_size(csr->value_type), temp_bytes = wide_starts_bytes(env, csr);
    size_t o_rows = plan.add_n<int32_t>(nnz), o_cursor = plan.add_n<int64_t>(ncols),
           o_counts = plan.add_n<int32_t>(ncols), o_part = plan.add_n<int32_t>(ncols),
           o_hub_of = plan.add_n<int32_t>(ncols), o_medium = plan.add_n<int32_t>(ncols),
           o_ctl = plan.add(sizeof(scatter_ctl)), o_temp = plan.add(temp_bytes);
    int32_t *rows, *medium;
    scatter_ctl *ctl, h_ctl = {0, 0};
    if (temp_bytes == 0)
        SP_FAIL(SP_STATUS_INVALID_ARGUMENT, "csr to csc: %lld columns outside the scan's range",
                (long long)ncols);
    c.nrows = csr->nrows;
    c.ncols = ncols;
    c.nnz = nnz;
    c.value_type = csr->value_type;
    SP_TRY(env_alloc(env, &scratch, plan.total));
    rows = at<int32_t>(scratch, o_rows);
    medium = at<int32_t>(scratch, o_medium);
    ctl = at<scatter_ctl>(scratch, o_ctl);
    SP_TRY(env_alloc_n(env, &c.ptr64, ncols + 1));
    SP_TRY(env_alloc_n(env, &c.idx, nnz));
    SP_TRY(env_alloc(env, &c.val, (size_t)nnz * vs));
    SP_TRY(wide_starts(env, csr, at<int32_t>(scratch, o_counts), at<int32_t>(scratch, o_part),
                       at<void>(scratch, o_temp), temp_bytes, &c));
    if (nnz == 0) goto out;
    SP_CUDA_TRY(cudaMemsetAsync(ctl, 0, sizeof *ctl, s));
    /* no hub counters (max_hubs 0): every column is placed by its cursor */
    classify_kernel<<<grid_for(env, ncols), P::block_threads, 0, s>>>(
        c.ptr64, ncols, at<int64_t>(scratch, o_cursor), at<int32_t>(scratch, o_hub_of), 0,
        medium, ctl);
    SP_CUDA_LAUNCHED("classify_kernel");
    SP_TRY(to_host(env, &h_ctl, ctl, sizeof h_ctl));
    nchunks = (nnz + P::transpose_min_chunk - 1) / P::transpose_min_chunk;
    if (nchunks > (int64_t)P::transpose_chunks_per_sm * sms)
        nchunks = (int64_t)P::transpose_chunks_per_sm * sms;
    chunk = (nnz + nchunks - 1) / nchunks;
    SP_TRY(expand_rows(env, csr, rows));
    scatter_kernel<P::block_threads><<<(unsigned)nchunks, P::block_threads, 0, s>>>(
        csr->idx, nnz, chunk, c.ptr64, at<int64_t>(scratch, o_cursor),
        at<int32_t>(scratch, o_hub_of), 0, NULL, rows, c.idx);
    SP_CUDA_LAUNCHED("scatter_kernel");
    warp_sort_kernel<<<grid_for(env, ncols), P::block_threads, 0, s>>>(c.ptr64, ncols, c.idx);
    SP_CUDA_LAUNCHED("warp_sort_kernel");
    if (h_ctl.nmedium > 0) {
        unsigned blocks = (unsigned)(h_ctl.nmedium < 4 * sms ? h_ctl.nmedium : 4 * sms);
        block_sort_kernel<<<blocks, P::block_threads, 0, s>>>(c.ptr64, medium, ctl, c.idx);
        SP_CUDA_LAUNCHED("block_sort_kernel");
    }
    SP_TRY(wide_sort_hubs(env, &c, h_ctl.nhubs));
    if (vs > 0) {
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            gather_by_search_kernel<W><<<grid_for(env, ncols), P::block_threads, 0, s>>>(
                csr->ptr64, csr->idx, static_cast<const W *>(csr->val), c.ptr64, ncols, c.idx,
                static_cast<W *>(c.val));
        });
        SP_CUDA_LAUNCHED("gather_by_search_kernel");
    }
out:
    *csc = c;
    c = (sp_csr_t){0, 0, 0, SP_VALUE_NONE, NULL, NULL, NULL, NULL};
done:
    env_free(env, scratch);
    if (env) sp__gpu_csr_free(env, &c);
    return st;
}

/* *pays = the scatter path is the one to take for csr (convert_policy.h: short, even
 * columns, judged by the longest row and the mean column). */
static sp_status_t scatter_pays(const sp_gpu_env_t *env, const sp_csr_t *csr, int *pays)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *d_slot = NULL;
    int64_t longest = 0;
    *pays = P::transpose_scatter;
    if (*pays || csr->nnz == 0 || P::transpose_scatter_max_row <= 0 ||
        (double)csr->nnz > (double)P::transpose_scatter_max_mean * (double)csr->ncols)
        goto done;
    SP_TRY(env_alloc_n(env, &d_slot, 1));
    SP_TRY(longest_row(env, csr, d_slot, &longest));
    *pays = longest <= P::transpose_scatter_max_row;
done:
    env_free(env, d_slot);
    return st;
}

extern "C" sp_status_t sp__gpu_csr_to_csc(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                          sp_csr_t *csc)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int scattered = 0, pays = 0;
    SP_TRY(check_csr("csr to csc", env, csr, csc, true));
    if (!csr->ptr64) SP_TRY(scatter_pays(env, csr, &pays));
    if (csr->ptr64)
        SP_TRY(csc_wide(env, csr, csc));
    else if (pays)
        SP_TRY(csc_by_scatter(env, csr, csc, &scattered));
    else
        SP_TRY(csc_by_sort(env, csr, csc));
done:
    return st;
}

extern "C" sp_status_t sp__gpu_csr_to_csc_scatter(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                                  sp_csr_t *csc, int *scattered)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int dummy = 0;
    SP_TRY(check_csr("csr to csc", env, csr, csc));
    SP_TRY(csc_by_scatter(env, csr, csc, scattered ? scattered : &dummy));
done:
    return st;
}
