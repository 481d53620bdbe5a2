/* SpMV plans: what an algorithm needs to know about its matrix, worked out once. The
 * algorithm arrives resolved (src/policy.c decides DEFAULT, CSR vector's sub-warp width
 * and the long-row bound); merge gets the start row of every tile by a merge-path search
 * per tile boundary (Merrill & Garland 2016) and its carry-out scratch; split its chunk
 * rows; binned and adaptive their row tables; scalar and vector, when rows pass the
 * bound, the pieces of those rows (spmv_long_rows.cuh); COO segmented its carry-out
 * scratch; CSC the first column of every chunk of entries (split's chunk rows, over the
 * columns). */
#include "spmv_common.cuh"
#include "spmv_long_rows.cuh"
#include "spmv_policy_coo.h"
#include "spmv_policy_csr.h"

namespace {

using MP = sp_spmv_csr_merge_policy;
using SPP = sp_spmv_csr_split_policy;
using LP = sp_spmv_csr_long_policy;
using CP = sp_spmv_csc_policy;
static_assert(CP::partition_block_threads == SPP::partition_block_threads,
              "CSC's plan launches split_partition_kernel");

/* tile_row[b] = rows whose end precedes merge item b * tile_items (clamped to the end),
 * for b = 0..ntiles: the row where tile b starts. */
template <typename Off>
__global__ void __launch_bounds__(MP::partition_block_threads)
partition_kernel(const Off *ptr, int64_t nrows, int64_t nnz, int64_t ntiles, int32_t *tile_row)
{
    for (int64_t b = (int64_t)blockIdx.x * MP::partition_block_threads + threadIdx.x;
         b <= ntiles; b += (int64_t)gridDim.x * MP::partition_block_threads) {
        int64_t d = min(b * MP::tile_items, nrows + nnz);
        tile_row[b] = (int32_t)spmv::merge_path_rows<int64_t>(
            d, [=](int64_t i) { return ptr[i + 1]; }, nrows, nnz, 0);
    }
}

/* chunk_row[c] = the row holding entry c * chunk for 0 < c < nchunks (the last row whose
 * start is at or before it: empty rows share their start with the next row),
 * chunk_row[0] = 0 and chunk_row[nchunks] = nrows. CSR split's chunks, and CSC's over
 * the columns. Off: the pointers' type. */
template <typename Off>
__global__ void __launch_bounds__(SPP::partition_block_threads)
split_partition_kernel(const Off *ptr, int64_t nrows, int64_t nchunks, int64_t chunk,
                       int32_t *chunk_row)
{
    for (int64_t c = (int64_t)blockIdx.x * SPP::partition_block_threads + threadIdx.x;
         c <= nchunks; c += (int64_t)gridDim.x * SPP::partition_block_threads) {
        if (c == 0 || c == nchunks) {
            chunk_row[c] = c == 0 ? 0 : (int32_t)nrows;
            continue;
        }
        chunk_row[c] = (int32_t)spmv::last_start_at_or_before(ptr, (int64_t)0, nrows - 1,
                                                              c * chunk);
    }
}

/* The merge partition in p->d_aux and the carry-out scratch in p->d_temp. */
sp_status_t merge_plan(const sp_gpu_env_t *env, const sp_csr_t *a, sp_gpu_spmv_plan_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t ntiles = (a->nrows + a->nnz + MP::tile_items - 1) / MP::tile_items;
    p->param = MP::tile_items;
    p->naux = ntiles + 1;
    SP_TRY(sp_prim::env_alloc_n(env, &p->d_aux, p->naux));
    p->temp_bytes = spmv::carry_bytes(ntiles);
    SP_TRY(sp_prim::env_alloc(env, &p->d_temp, p->temp_bytes));
    if (a->ptr64)
        partition_kernel<<<spmv::grid_for(env, p->naux, MP::partition_block_threads,
                                           MP::partition_blocks_per_sm),
                           MP::partition_block_threads, 0, (cudaStream_t)env->stream>>>(
            a->ptr64, a->nrows, a->nnz, ntiles, p->d_aux);
    else
        partition_kernel<<<spmv::grid_for(env, p->naux, MP::partition_block_threads,
                                           MP::partition_blocks_per_sm),
                           MP::partition_block_threads, 0, (cudaStream_t)env->stream>>>(
            a->ptr, a->nrows, a->nnz, ntiles, p->d_aux);
    SP_CUDA_LAUNCHED("partition_kernel");
done:
    return st;
}

/* The chunk rows in p->d_aux and the carry-out scratch in p->d_temp. */
sp_status_t split_plan(const sp_gpu_env_t *env, const sp_csr_t *a, sp_gpu_spmv_plan_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t nchunks = (a->nnz + SPP::chunk_entries - 1) / SPP::chunk_entries;
    p->param = SPP::chunk_entries;
    p->naux = nchunks + 1;
    SP_TRY(sp_prim::env_alloc_n(env, &p->d_aux, p->naux));
    p->temp_bytes = spmv::carry_bytes(nchunks > 0 ? nchunks : 1);
    SP_TRY(sp_prim::env_alloc(env, &p->d_temp, p->temp_bytes));
    if (a->ptr64)
        split_partition_kernel<<<spmv::grid_for(env, p->naux, SPP::partition_block_threads,
                                                 SPP::partition_blocks_per_sm),
                                 SPP::partition_block_threads, 0, (cudaStream_t)env->stream>>>(
            a->ptr64, a->nrows, nchunks, (int64_t)SPP::chunk_entries, p->d_aux);
    else
        split_partition_kernel<<<spmv::grid_for(env, p->naux, SPP::partition_block_threads,
                                                 SPP::partition_blocks_per_sm),
                                 SPP::partition_block_threads, 0, (cudaStream_t)env->stream>>>(
            a->ptr, a->nrows, nchunks, (int64_t)SPP::chunk_entries, p->d_aux);
    SP_CUDA_LAUNCHED("split_partition_kernel");
done:
    return st;
}

/* CSR scalar and vector: the rows longer than bound (nlong of them, counted in d_index)
 * in pieces, laid out as sp_spmv_csr_long_policy says. d_aux is sized for the most pieces
 * the rows can have (one more per row than their entries fill), so the tables are written
 * in place; header from the host, hence the synchronization at the end. */
sp_status_t long_rows_plan(const sp_gpu_env_t *env, const sp_csr_t *a, int64_t bound,
                           sp_gpu_spmv_plan_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *d_index = NULL, *rows = NULL;
    int64_t nlong = 0, npieces = 0;
    int32_t pe = a->nnz >= LP::small_nnz ? LP::piece_entries : LP::small_piece_entries;
    int32_t header[LP::header_ints] = {0};
    SP_TRY(sp_prim::env_alloc_n(env, &d_index, a->nrows + 1));
    SP_TRY(spmv::count_long_rows<LP>(env, a, bound, d_index, &nlong));
    if (nlong == 0) goto done; /* the statistics said otherwise: the plan stays without */
    p->naux = LP::header_ints + 2 * nlong + 1 + nlong + a->nnz / pe;
    SP_TRY(sp_prim::env_alloc_n(env, &p->d_aux, p->naux));
    rows = p->d_aux + LP::header_ints;
    SP_TRY(spmv::list_long_rows<LP>(env, a, bound, d_index, rows));
    SP_TRY(spmv::count_pieces<LP>(env, a, rows, nlong, pe, rows + nlong, &npieces));
    SP_TRY(spmv::fill_piece_rows<LP>(env, rows + nlong, nlong, npieces, rows + 2 * nlong + 1));
    SP_TRY(spmv::long_rows_temp(env, nlong, npieces, p));
    header[0] = (int32_t)nlong;
    header[1] = (int32_t)npieces;
    header[2] = pe;
    SP_CUDA_TRY(cudaMemcpyAsync(p->d_aux, header, sizeof header, cudaMemcpyHostToDevice,
                                (cudaStream_t)env->stream));
    SP_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)env->stream)); /* header is read until here */
    p->long_pieces = npieces;
    p->long_bound = (int32_t)bound;
done:
    sp_prim::env_free(env, d_index);
    return st;
}

/* The plan's arrays back to the environment, the plan zeroed. */
void plan_release(const sp_gpu_env_t *env, sp_gpu_spmv_plan_t *p)
{
    sp_prim::env_free(env, p->d_aux);
    sp_prim::env_free(env, p->d_temp);
    *p = sp_gpu_spmv_plan_t{};
}

} /* namespace */

extern "C" sp_status_t sp__gpu_spmv_csr_plan(const sp_gpu_env_t *env, const sp_csr_t *a,
                                             sp_spmv_alg_t alg, int width, int64_t long_bound,
                                             sp_gpu_spmv_plan_t *plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_spmv_plan_t p{};
    SP_CHECK_ARG(env != NULL && a != NULL && plan != NULL, "csr spmv plan: NULL argument");
    SP_CHECK_ARG(env->alloc != NULL && env->free != NULL,
                 "csr spmv plan: environment without allocator");
    SP_CHECK_ARG(alg == SP_SPMV_ALG_CSR_SCALAR || alg == SP_SPMV_ALG_CSR_VECTOR || alg == SP_SPMV_ALG_CSR_MERGE ||
                     alg == SP_SPMV_ALG_CSR_SPLIT || alg == SP_SPMV_ALG_CSR_BINNED ||
                     alg == SP_SPMV_ALG_CSR_ADAPTIVE,
                 "csr spmv plan: algorithm %d is not a resolved CSR algorithm", (int)alg);
    SP_CHECK_ARG(a->nrows >= 0 && a->nrows <= INT32_MAX && a->nnz >= 0 &&
                     (a->ptr64 != NULL || a->nnz <= INT32_MAX),
                 "csr spmv plan: %lld rows and %lld entries outside 0..%d", (long long)a->nrows,
                 (long long)a->nnz, INT32_MAX);
    SP_CHECK_ARG((a->ptr != NULL) != (a->ptr64 != NULL),
                 "csr spmv plan: exactly one of ptr and ptr64 must be set");
    if (a->ptr64 && (alg == SP_SPMV_ALG_CSR_BINNED || alg == SP_SPMV_ALG_CSR_ADAPTIVE))
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "csr spmv plan: algorithm %d on a CSR with 64-bit offsets: only csr/scalar, "
                "csr/vector, csr/merge and csr/split serve 64-bit offsets so far", (int)alg);
    p.format = SP_FORMAT_CSR;
    p.alg = alg;
    if (p.alg == SP_SPMV_ALG_CSR_VECTOR) p.param = width;
    /* 64-bit offsets: no long-row pieces (their tables and counters are 32-bit), so scalar
       and vector take every row themselves */
    if (a->ptr64) long_bound = -1;
    if ((p.alg == SP_SPMV_ALG_CSR_SCALAR || p.alg == SP_SPMV_ALG_CSR_VECTOR) &&
        long_bound >= 0 && long_bound < INT32_MAX && a->nrows > 0)
        SP_TRY(long_rows_plan(env, a, long_bound, &p));
    if (p.alg == SP_SPMV_ALG_CSR_MERGE) SP_TRY(merge_plan(env, a, &p));
    if (p.alg == SP_SPMV_ALG_CSR_SPLIT) SP_TRY(split_plan(env, a, &p));
    if (p.alg == SP_SPMV_ALG_CSR_BINNED && a->nrows > 0)
        SP_TRY(sp__gpu_spmv_csr_binned_plan(env, a, &p));
    if (p.alg == SP_SPMV_ALG_CSR_ADAPTIVE && a->nrows > 0)
        SP_TRY(sp__gpu_spmv_csr_adaptive_plan(env, a, &p));
    *plan = p;
    p = sp_gpu_spmv_plan_t{};
done:
    if (env) plan_release(env, &p);
    return st;
}

extern "C" sp_status_t sp__gpu_spmv_csc_plan(const sp_gpu_env_t *env, const sp_csr_t *a,
                                             int flags, int64_t heavy_bound,
                                             const int32_t *d_row_ptr, sp_gpu_spmv_plan_t *plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_spmv_plan_t p{};
    int64_t nchunks = 0;
    int symmetric = 0, nheavy = 0;
    SP_CHECK_ARG(env != NULL && a != NULL && plan != NULL, "csc spmv plan: NULL argument");
    SP_CHECK_ARG(env->alloc != NULL && env->free != NULL,
                 "csc spmv plan: environment without allocator");
    SP_CHECK_ARG(a->ncols >= 0 && a->ncols <= INT32_MAX && a->nnz >= 0 &&
                     (a->nnz <= INT32_MAX || a->ptr64 != NULL),
                 "csc spmv plan: %lld columns and %lld entries outside 0..%d (entries past it "
                 "need 64-bit offsets)",
                 (long long)a->ncols, (long long)a->nnz, INT32_MAX);
    SP_CHECK_ARG(a->ptr != NULL || a->ptr64 != NULL, "csc spmv plan: ptr is NULL");
    nchunks = (a->nnz + CP::chunk_entries - 1) / CP::chunk_entries;
    p.format = SP_FORMAT_CSC;
    p.alg = SP_SPMV_ALG_DEFAULT;
    p.param = flags & (SP_GPU_CSC_AGGREGATE | SP_GPU_CSC_WINDOW);
    p.naux = nchunks + 1;
    /* room for the heavy rows after the chunk columns */
    SP_TRY(sp_prim::env_alloc_n(env, &p.d_aux, p.naux + (heavy_bound >= 0 ? CP::heavy_rows : 0)));
    if (a->ptr64)
        split_partition_kernel<<<spmv::grid_for(env, p.naux, CP::partition_block_threads,
                                                 CP::partition_blocks_per_sm),
                                 CP::partition_block_threads, 0, (cudaStream_t)env->stream>>>(
            a->ptr64, a->ncols, nchunks, (int64_t)CP::chunk_entries, p.d_aux);
    else
        split_partition_kernel<<<spmv::grid_for(env, p.naux, CP::partition_block_threads,
                                                 CP::partition_blocks_per_sm),
                                 CP::partition_block_threads, 0, (cudaStream_t)env->stream>>>(
            a->ptr, a->ncols, nchunks, (int64_t)CP::chunk_entries, p.d_aux);
    SP_CUDA_LAUNCHED("split_partition_kernel");
    if (flags & SP_GPU_CSC_TRY_SYMMETRIC) SP_TRY(sp__gpu_csc_symmetric(env, a, p.d_aux, &symmetric));
    if (symmetric)
        p.param |= SP_GPU_CSC_SYMMETRIC; /* the caller runs it as a CSR: nothing more here */
    else if (heavy_bound >= 0)
        SP_TRY(sp__gpu_csc_heavy_rows(env, a, d_row_ptr, heavy_bound, p.d_aux + p.naux, &nheavy));
    p.heavy_rows = nheavy;
    *plan = p;
    p = sp_gpu_spmv_plan_t{};
done:
    if (env) plan_release(env, &p);
    return st;
}

extern "C" sp_status_t sp__gpu_spmv_coo_plan(const sp_gpu_env_t *env, const sp_triplets_t *a,
                                             sp_spmv_alg_t alg, sp_gpu_spmv_plan_t *plan)
{
    using S = sp_spmv_coo_segmented_policy;
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_spmv_plan_t p{};
    SP_CHECK_ARG(env != NULL && a != NULL && plan != NULL, "coo spmv plan: NULL argument");
    SP_CHECK_ARG(env->alloc != NULL && env->free != NULL,
                 "coo spmv plan: environment without allocator");
    SP_CHECK_ARG(alg == SP_SPMV_ALG_COO_ATOMIC || alg == SP_SPMV_ALG_COO_SEGMENTED,
                 "coo spmv plan: algorithm %d is not a resolved COO algorithm", (int)alg);
    SP_CHECK_ARG(a->nnz >= 0 && a->nnz <= INT32_MAX, "coo spmv plan: %lld entries outside 0..%d",
                 (long long)a->nnz, INT32_MAX);
    p.format = SP_FORMAT_COO;
    p.alg = alg;
    if (p.alg == SP_SPMV_ALG_COO_SEGMENTED) {
        int64_t ntiles = (a->nnz + S::tile_items - 1) / S::tile_items;
        p.param = S::tile_items;
        p.temp_bytes = spmv::carry_bytes(ntiles);
        SP_TRY(sp_prim::env_alloc(env, &p.d_temp, p.temp_bytes));
    }
    *plan = p;
    p = sp_gpu_spmv_plan_t{};
done:
    if (env) plan_release(env, &p);
    return st;
}

extern "C" void sp__gpu_spmv_plan_free(const sp_gpu_env_t *env, sp_gpu_spmv_plan_t *plan)
{
    if (env == NULL || plan == NULL) return;
    plan_release(env, plan);
}
