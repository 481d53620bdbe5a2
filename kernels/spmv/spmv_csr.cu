/* CSR SpMV on the GPU. Scalar: a thread per row (PMPP, sparse-format chapter). Vector: a
 * sub-warp of 2..32 lanes per row, coalesced over the row's entries, shuffle-reduced
 * (Bell & Garland 2009). Merge: the merge path of row ends and entries cut into equal
 * tiles (Merrill & Garland 2016): each block stages its tile's row ends and products in
 * shared memory, each thread consumes an equal share of merge items, a block segmented
 * scan joins rows split between threads, and rows split between blocks are finished by a
 * carry-out fix-up, so no row length can stall a block.
 * Scalar and vector keep to rows of at most the plan's long-row bound; longer rows (when
 * the matrix has them) are cut into pieces of a few thousand entries, a warp each, in a
 * second launch (spmv_long_rows.cuh, as binned and adaptive do), so no thread or sub-warp
 * walks a row of a million entries alone. Without long rows the bound is INT32_MAX and
 * the only cost is one comparison a row.
 * Scalar and vector are templates on the row pointers' type Off (int32_t, or int64_t for a
 * matrix with 64-bit offsets, issue 20), chosen once a call from the matrix (a->ptr64 set),
 * never per entry; the int32_t instances are the kernels as they were. With 64-bit offsets
 * the plan has no long-row pieces (their tables are 32-bit), so scalar and vector take
 * every row themselves. Merge and split (spmv_csr_split.cu) are templates on the offset
 * type as well; binned and adaptive refuse such a matrix. */
#include "spmv_common.cuh"
#include "spmv_long_rows.cuh"
#include "spmv_policy_csr.h"

namespace {

using SP = sp_spmv_csr_scalar_policy;
using VP = sp_spmv_csr_vector_policy;
using MP = sp_spmv_csr_merge_policy;
using LP = sp_spmv_csr_long_policy;

/* Rows of more than bound entries are left to long_rows_kernel. */
template <typename Off, typename T>
__global__ void __launch_bounds__(SP::block_threads)
scalar_kernel(const Off *ptr, const int32_t *idx, const T *val, int64_t nrows,
              int32_t bound, const T *x, T alpha, T beta, T *y)
{
    for (int64_t r = (int64_t)blockIdx.x * SP::block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * SP::block_threads) {
        Off k = ptr[r], end = ptr[r + 1];
        if (end - k > bound) continue;
        T sum = T(0);
        for (; k < end; k++) sum += val[k] * spmv::load_x(x, idx[k]);
        spmv::y_update(y, r, alpha, sum, beta);
    }
}

/* W lanes per row; the loop bound is the same for the whole warp so every lane reaches
 * the shuffles. Rows of more than bound entries are left to long_rows_kernel. */
template <int W, typename Off, typename T>
__global__ void __launch_bounds__(VP::block_threads)
vector_kernel(const Off *ptr, const int32_t *idx, const T *val, int64_t nrows,
              int32_t bound, const T *x, T alpha, T beta, T *y)
{
    constexpr int rows_per_warp = 32 / W;
    int lane = threadIdx.x & 31, sub = lane & (W - 1), group = lane / W;
    int64_t warp = ((int64_t)blockIdx.x * VP::block_threads + threadIdx.x) >> 5;
    int64_t stride = (int64_t)gridDim.x * (VP::block_threads / 32) * rows_per_warp;
    for (int64_t r0 = warp * rows_per_warp; r0 < nrows; r0 += stride) {
        int64_t r = r0 + group;
        T sum = T(0);
        bool mine = r < nrows;
        if (mine) {
            int64_t start = ptr[r], end = ptr[r + 1]; /* 64-bit: k + W may pass INT32_MAX */
            mine = end - start <= bound;
            if (!mine) end = start;
#pragma unroll 4
            for (int64_t k = start + sub; k < end; k += W)
                sum += val[k] * spmv::load_x(x, idx[k]);
        }
        sum = spmv::subwarp_sum<W>(sum);
        if (sub == 0 && mine) spmv::y_update(y, r, alpha, sum, beta);
    }
}

/* Piece p of the rows scalar and vector leave out, a warp each (the plan's tables, laid
 * out as sp_spmv_csr_long_policy says); the row's last piece to finish writes it. */
template <typename T>
__global__ void __launch_bounds__(LP::block_threads)
long_rows_kernel(const int32_t *__restrict__ ptr, const int32_t *__restrict__ idx,
                 const T *__restrict__ val, const int32_t *__restrict__ aux, char *temp,
                 int64_t npieces, const T *__restrict__ x, T alpha, T beta, T *__restrict__ y)
{
    int64_t p = ((int64_t)blockIdx.x * LP::block_threads + threadIdx.x) >> 5;
    if (p >= npieces) return; /* uniform per warp */
    int32_t nlong = __ldg(aux);
    const int32_t *long_rows = aux + LP::header_ints;
    const int32_t *first_piece = long_rows + nlong;
    int32_t *counter = reinterpret_cast<int32_t *>(temp);
    T *partial = reinterpret_cast<T *>(temp + spmv::long_partials_offset(nlong));
    spmv::long_piece<LP>(ptr, idx, val, long_rows, first_piece, first_piece + nlong + 1, p,
                         __ldg(aux + 2), false, counter, partial, x, alpha, beta, y);
}

/* Tile blockIdx.x of the merge path: rows [i0, i1) end inside it (written here, beta
 * applied once); row i1 (when < nrows) continues past it, its part here is the tile's
 * carry-out, added by the fix-up after this kernel (so after its beta). tile_row: the
 * plan's partition, the start row of every tile and nrows at the end. Off: the row
 * pointers' type (the staged row ends too: 14 KB more shared memory at 64 bits). */
template <typename T, typename Off>
__global__ void __launch_bounds__(MP::block_threads)
merge_kernel(const Off *ptr, const int32_t *idx, const T *val, int64_t nrows, int64_t nnz,
             const int32_t *tile_row, const T *x, T alpha, T beta, T *y, int32_t *carry_row,
             T *carry_val)
{
    constexpr int B = MP::block_threads, I = MP::items_per_thread, tile = MP::tile_items;
    __shared__ Off s_end[tile + 1]; /* row ends of rows i0.., then a sentinel */
    __shared__ T s_prod[tile];          /* val * x of the tile's entries */
    __shared__ T s_out[tile];           /* sums of the rows ending in the tile */
    __shared__ int s_flag[B / 32];
    __shared__ T s_v[B / 32];
    int tid = threadIdx.x;
    int64_t d0 = (int64_t)blockIdx.x * tile;
    int64_t d1 = min(d0 + (int64_t)tile, nrows + nnz);
    int64_t i0 = tile_row[blockIdx.x], i1 = tile_row[blockIdx.x + 1];
    int64_t j0 = d0 - i0;
    int nr = (int)(i1 - i0), ne = (int)((d1 - i1) - j0);

    /* coalesced loads of the tile, all issued before the gathers from x */
    int32_t cc[I];
    T vv[I];
#pragma unroll
    for (int k = 0; k < I; k++) {
        int q = k * B + tid;
        cc[k] = 0;
        vv[k] = T(0);
        if (q < ne) {
            cc[k] = idx[j0 + q];
            vv[k] = val[j0 + q];
        }
    }
#pragma unroll
    for (int k = 0; k < I; k++) {
        int q = k * B + tid;
        if (q < nr) s_end[q] = ptr[i0 + q + 1];
    }
    if (tid == 0) s_end[nr] = spmv::past_end(Off(0)); /* row i1 does not end in the tile */
#pragma unroll
    for (int k = 0; k < I; k++) {
        int q = k * B + tid;
        if (q < ne) s_prod[q] = vv[k] * spmv::load_x(x, cc[k]);
    }
    __syncthreads();

    /* this thread's I merge items from its point on the path: an entry adds to the
     * running sum, a row end stores it; the first row ending here still lacks the part
     * earlier threads hold */
    int items = nr + ne;
    int dl = min(tid * I, items);
    int xr = spmv::merge_path_rows<int>(dl, [&](int k) { return s_end[k]; }, nr, ne, j0);
    int ye = dl - xr;
    T run = T(0);
    bool ended = false;
    int first = 0;
#pragma unroll
    for (int k = 0; k < I; k++) {
        if (dl + k < items) {
            if (j0 + ye < (int64_t)s_end[xr]) {
                run += s_prod[ye];
                ye++;
            } else {
                s_out[xr] = run;
                if (!ended) first = xr;
                ended = true;
                run = T(0);
                xr++;
            }
        }
    }
    T carry_in = spmv::block_segmented_exclusive_scan<B>(ended, run, s_flag, s_v);
    if (ended) s_out[first] += carry_in;
    __syncthreads();
    for (int k = tid; k < nr; k += B) spmv::y_update(y, i0 + k, alpha, s_out[k], beta);
    if (tid == B - 1) {
        bool open = i1 < nrows;
        carry_row[blockIdx.x] = open ? (int32_t)i1 : -1;
        carry_val[blockIdx.x] = open ? (ended ? run : carry_in + run) : T(0);
    }
}

/* The checks every CSR call makes (a's arrays present, 32-bit sizes; more than INT32_MAX
 * entries only with 64-bit offsets). */
sp_status_t check_csr(const char *what, const sp_gpu_env_t *env, const sp_csr_t *a,
                      const void *alpha, const void *d_x, const void *beta, const void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(a != NULL, "%s: NULL matrix", what);
    SP_TRY(spmv::check_call(what, env, a->value_type, a->nrows, a->ncols, alpha, d_x, beta, d_y));
    SP_CHECK_ARG(a->nnz >= 0 && (a->ptr64 != NULL || a->nnz <= INT32_MAX),
                 "%s: entry count %lld outside 0..%d (32-bit offsets)", what, (long long)a->nnz,
                 INT32_MAX);
    SP_CHECK_ARG((a->ptr != NULL) != (a->ptr64 != NULL),
                 "%s: exactly one of ptr and ptr64 must be set (ptr %s, ptr64 %s)", what,
                 a->ptr ? "set" : "NULL", a->ptr64 ? "set" : "NULL");
    SP_CHECK_ARG(a->nnz == 0 || (a->idx != NULL && a->val != NULL),
                 "%s: NULL arrays for %lld entries", what, (long long)a->nnz);
done:
    return st;
}

/* The fixed-width kernels' bound: the plan's when it has long rows, else none. */
static inline int32_t row_bound(const sp_gpu_spmv_plan_t *plan)
{
    return plan->long_pieces > 0 ? plan->long_bound : INT32_MAX;
}

/* The long rows' pieces, when the plan has any (after scalar or vector, same stream; a
 * 64-bit-offset plan has none). */
template <typename T>
sp_status_t launch_long_rows(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                             const sp_csr_t *a, T alpha, const T *x, T beta, T *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    constexpr int warps = LP::block_threads / 32;
    if (plan->long_pieces == 0) goto done;
    SP_CHECK_ARG(a->ptr != NULL, "csr spmv: long-row pieces need 32-bit offsets");
    SP_CUDA_LAUNCH("long_rows_kernel",
                   sp_prim::launch(long_rows_kernel<T>,
                                   (unsigned)((plan->long_pieces + warps - 1) / warps),
                                   LP::block_threads, env->stream, a->ptr, a->idx,
                                   static_cast<const T *>(a->val), plan->d_aux,
                                   static_cast<char *>(plan->d_temp), plan->long_pieces, x,
                                   alpha, beta, y));
done:
    return st;
}

template <typename Off, typename T>
sp_status_t launch_scalar(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                          const sp_csr_t *a, const Off *ptr, T alpha, const T *x, T beta, T *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = spmv::grid_for(env, a->nrows, SP::block_threads, SP::blocks_per_sm);
    SP_CUDA_LAUNCH("scalar_kernel",
                   sp_prim::launch(scalar_kernel<Off, T>, grid, SP::block_threads, env->stream,
                                   ptr, a->idx, static_cast<const T *>(a->val), a->nrows,
                                   row_bound(plan), x, alpha, beta, y));
    SP_TRY(launch_long_rows(env, plan, a, alpha, x, beta, y));
done:
    return st;
}

template <int W, typename Off, typename T>
sp_status_t launch_vector(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                          const sp_csr_t *a, const Off *ptr, T alpha, const T *x, T beta, T *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned grid = spmv::grid_for(env, a->nrows * W, VP::block_threads, VP::blocks_per_sm);
    SP_CUDA_LAUNCH("vector_kernel",
                   sp_prim::launch(vector_kernel<W, Off, T>, grid, VP::block_threads,
                                   env->stream, ptr, a->idx, static_cast<const T *>(a->val),
                                   a->nrows, row_bound(plan), x, alpha, beta, y));
    SP_TRY(launch_long_rows(env, plan, a, alpha, x, beta, y));
done:
    return st;
}

template <typename Off, typename T>
sp_status_t launch_merge(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                         const sp_csr_t *a, const Off *ptr, T alpha, const T *x, T beta, T *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t ntiles = plan->naux - 1;
    int32_t *d_carry_row = NULL;
    T *d_carry_val = NULL;
    spmv::carry_arrays(plan->d_temp, ntiles, &d_carry_row, &d_carry_val);
    SP_CUDA_LAUNCH("merge_kernel",
                   sp_prim::launch(merge_kernel<T, Off>, (unsigned)ntiles, MP::block_threads,
                                   env->stream, ptr, a->idx, static_cast<const T *>(a->val),
                                   a->nrows, a->nnz, plan->d_aux, x, alpha, beta, y,
                                   d_carry_row, d_carry_val));
    SP_TRY(spmv::launch_carry_fixup<MP>(env, d_carry_row, d_carry_val, ntiles, alpha, y));
done:
    return st;
}

/* Scalar, vector or merge with row pointers ptr of type Off. */
template <typename Off, typename T>
sp_status_t launch(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan, const sp_csr_t *a,
                   const Off *ptr, T alpha, const T *x, T beta, T *y)
{
    switch (plan->alg) {
    case SP_SPMV_ALG_CSR_SCALAR: return launch_scalar(env, plan, a, ptr, alpha, x, beta, y);
    case SP_SPMV_ALG_CSR_MERGE: return launch_merge(env, plan, a, ptr, alpha, x, beta, y);
    default: break;
    }
    switch (plan->param) {
    case 2: return launch_vector<2>(env, plan, a, ptr, alpha, x, beta, y);
    case 4: return launch_vector<4>(env, plan, a, ptr, alpha, x, beta, y);
    case 8: return launch_vector<8>(env, plan, a, ptr, alpha, x, beta, y);
    case 16: return launch_vector<16>(env, plan, a, ptr, alpha, x, beta, y);
    default: return launch_vector<32>(env, plan, a, ptr, alpha, x, beta, y);
    }
}

} /* namespace */

extern "C" sp_status_t sp__gpu_spmv_csr(const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t *plan,
                                        const sp_csr_t *a, const void *alpha, const void *d_x,
                                        const void *beta, void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(check_csr("csr spmv", env, a, alpha, d_x, beta, d_y));
    SP_CHECK_ARG(plan != NULL && plan->format == SP_FORMAT_CSR, "csr spmv: not a CSR plan");
    SP_CHECK_ARG(plan->alg == SP_SPMV_ALG_CSR_SCALAR || plan->alg == SP_SPMV_ALG_CSR_VECTOR ||
                     plan->alg == SP_SPMV_ALG_CSR_MERGE || plan->alg == SP_SPMV_ALG_CSR_SPLIT ||
                     plan->alg == SP_SPMV_ALG_CSR_BINNED || plan->alg == SP_SPMV_ALG_CSR_ADAPTIVE,
                 "csr spmv: plan algorithm %d is not a CSR algorithm", (int)plan->alg);
    if (plan->alg == SP_SPMV_ALG_CSR_VECTOR)
        SP_CHECK_ARG(plan->param == 2 || plan->param == 4 || plan->param == 8 ||
                         plan->param == 16 || plan->param == 32,
                     "csr spmv: vector width %d is not 2, 4, 8, 16 or 32", plan->param);
    if ((plan->alg == SP_SPMV_ALG_CSR_SCALAR || plan->alg == SP_SPMV_ALG_CSR_VECTOR) &&
        plan->long_pieces > 0)
        SP_CHECK_ARG(plan->d_aux != NULL && plan->long_bound >= 0 &&
                         plan->naux >= sp_spmv_csr_long_policy::header_ints + plan->long_pieces &&
                         plan->d_temp != NULL,
                     "csr spmv: long-row plan of %lld entries for %lld pieces (plan made for "
                     "another matrix?)",
                     (long long)plan->naux, (long long)plan->long_pieces);
    if (plan->alg == SP_SPMV_ALG_CSR_MERGE) {
        int64_t ntiles = (a->nrows + a->nnz + MP::tile_items - 1) / MP::tile_items;
        SP_CHECK_ARG(plan->naux == ntiles + 1 && plan->d_aux != NULL &&
                         (ntiles == 0 || (plan->d_temp != NULL &&
                                          plan->temp_bytes >= spmv::carry_bytes(ntiles))),
                     "csr spmv: merge plan holds %lld partitions, %lld rows + %lld entries "
                     "need %lld (plan made for another matrix?)",
                     (long long)plan->naux, (long long)a->nrows, (long long)a->nnz,
                     (long long)(ntiles + 1));
    }
    if (plan->alg == SP_SPMV_ALG_CSR_SPLIT) {
        using SPP = sp_spmv_csr_split_policy;
        int64_t nchunks = (a->nnz + SPP::chunk_entries - 1) / SPP::chunk_entries;
        SP_CHECK_ARG(plan->naux == nchunks + 1 && plan->d_aux != NULL &&
                         (nchunks == 0 || (plan->d_temp != NULL &&
                                           plan->temp_bytes >= spmv::carry_bytes(nchunks))),
                     "csr spmv: split plan holds %lld chunk rows, %lld entries need %lld (plan "
                     "made for another matrix?)",
                     (long long)plan->naux, (long long)a->nnz, (long long)(nchunks + 1));
    }
    if (plan->alg == SP_SPMV_ALG_CSR_BINNED) {
        int64_t need = sp_spmv_csr_binned_policy::header_ints + 2 * (int64_t)plan->param +
                       a->nrows + 1;
        SP_CHECK_ARG(a->nrows == 0 ||
                         (plan->d_aux != NULL && plan->param > 0 && plan->naux >= need),
                     "csr spmv: binned plan of %lld entries and %d blocks, %lld rows need more "
                     "(plan made for another matrix?)",
                     (long long)plan->naux, plan->param, (long long)a->nrows);
    }
    if (plan->alg == SP_SPMV_ALG_CSR_ADAPTIVE) {
        int64_t need = sp_spmv_csr_adaptive_policy::header_ints + 2 * (int64_t)plan->param + 1;
        SP_CHECK_ARG(a->nrows == 0 ||
                         (plan->d_aux != NULL && plan->param > 0 && plan->naux >= need),
                     "csr spmv: adaptive plan of %lld entries and %d blocks needs more "
                     "(plan made for another matrix?)",
                     (long long)plan->naux, plan->param);
    }
    if (a->ptr64 &&
        (plan->alg == SP_SPMV_ALG_CSR_BINNED || plan->alg == SP_SPMV_ALG_CSR_ADAPTIVE))
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "csr spmv: plan algorithm %d on a CSR with 64-bit offsets: only csr/scalar, "
                "csr/vector, csr/merge and csr/split serve 64-bit offsets so far",
                (int)plan->alg);
    if (a->ptr64 && plan->long_pieces > 0)
        SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
                "csr spmv: a plan with long-row pieces on a CSR with 64-bit offsets (plan made "
                "for another matrix?)");
    if (a->nrows == 0) goto done;
    if (plan->alg == SP_SPMV_ALG_CSR_ADAPTIVE) {
        st = sp__gpu_spmv_csr_adaptive(env, plan, a, alpha, d_x, beta, d_y);
        goto done;
    }
    if (plan->alg == SP_SPMV_ALG_CSR_BINNED) {
        st = sp__gpu_spmv_csr_binned(env, plan, a, alpha, d_x, beta, d_y);
        goto done;
    }
    if (plan->alg == SP_SPMV_ALG_CSR_SPLIT) {
        st = sp__gpu_spmv_csr_split(env, plan, a, alpha, d_x, beta, d_y);
        goto done;
    }
    spmv::by_value(a->value_type, [&](auto tag) {
        using T = decltype(tag);
        if (a->ptr64)
            st = launch<int64_t, T>(env, plan, a, a->ptr64, spmv::host_value<T>(alpha),
                                    static_cast<const T *>(d_x), spmv::host_value<T>(beta),
                                    static_cast<T *>(d_y));
        else
            st = launch<int32_t, T>(env, plan, a, a->ptr, spmv::host_value<T>(alpha),
                                    static_cast<const T *>(d_x), spmv::host_value<T>(beta),
                                    static_cast<T *>(d_y));
    });
done:
    return st;
}
