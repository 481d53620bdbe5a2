/* The plan of CSR binned (spmv_csr_binned.cu; layout in spmv_policy_csr.h): each row's
 * bin from its length, the rows stably sorted by bin (radix sort on the bin, 3 bits), the
 * bin sizes and the long rows' piece counts (scan) read back, and the launch's block
 * schedule made on the host: blocks of the bins interleaved in proportion to their
 * counts, so that all bins sweep the rows together. */
#include "prim/kernel_util.cuh"
#include "spmv_common.cuh"
#include "spmv_long_rows.cuh"
#include "spmv_policy_csr.h"

namespace {

using P = sp_spmv_csr_binned_policy;
using sp_prim::at;
using sp_prim::env_alloc;
using sp_prim::env_alloc_n;
using sp_prim::env_free;
using sp_prim::to_host;

/* The bin of a row of len entries: the first b with len <= lane_entries << b, or the
 * long bin (row_bins). */
__device__ __forceinline__ uint32_t bin_of(int32_t len)
{
    uint32_t b = 0;
    while (b < (uint32_t)P::row_bins && len > (P::lane_entries << b)) b++;
    return b;
}

__global__ void __launch_bounds__(P::plan_block_threads)
bin_keys_kernel(const int32_t *ptr, int64_t nrows, uint32_t *keys, int32_t *rows)
{
    for (int64_t r = (int64_t)blockIdx.x * P::plan_block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::plan_block_threads) {
        keys[r] = bin_of(ptr[r + 1] - ptr[r]);
        rows[r] = (int32_t)r;
    }
}

unsigned plan_grid(const sp_gpu_env_t *env, int64_t n)
{
    return spmv::plan_grid<P>(env, n);
}

/* Blocks of each bin: a row bin b takes block_threads >> b rows a block, the long bin
 * block_threads / 32 pieces. */
int64_t bin_blocks(int b, int64_t count, int64_t npieces)
{
    int64_t per = b < P::row_bins ? (int64_t)(P::block_threads >> b) : P::block_threads / 32;
    int64_t items = b < P::row_bins ? count : npieces;
    return (items + per - 1) / per;
}

/* h_aux = header and schedule: blocks of bin b are due at (j + 1/2) / nblocks[b] of the
 * sweep, and the schedule takes them in that order (ties to the lower bin). */
void make_header(const int64_t *count, int64_t npieces, const int64_t *nblocks, int32_t *h_aux)
{
    int64_t start = 0;
    for (int b = 0; b < P::bins; b++) {
        h_aux[b] = (int32_t)start;
        start += count[b];
    }
    h_aux[P::bins] = (int32_t)start;
    h_aux[P::bins + 1] = (int32_t)npieces;
    h_aux[P::bins + 2] = (int32_t)start; /* the row count */
    spmv::interleave_schedule(P::bins, nblocks, h_aux + P::header_ints);
}

/* Scratch of the plan: bin keys, the row list as sorted, bin counts, and the primitives'
 * temporary storage, in one allocation. */
struct plan_scratch {
    void *base = nullptr;
    uint32_t *keys = nullptr;
    int32_t *rows = nullptr, *counts = nullptr;
    void *temp = nullptr;
    size_t temp_bytes = 0;
};

sp_status_t scratch_open(const sp_gpu_env_t *env, int64_t nrows, plan_scratch *s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    size_t sort_bytes = 0, hist_bytes = 0, o_keys = 0, o_rows = 0, o_counts = 0, o_temp = 0;
    sp_prim::scratch_plan layout;
    int32_t placeholder = 0; /* the query sizes a pairs sort by a non-NULL d_vals */
    SP_TRY(sp__gpu_radix_sort_pairs_u32(NULL, &placeholder, nrows, 3, NULL, &sort_bytes,
                                        env->stream));
    SP_TRY(sp__gpu_histogram(NULL, nrows, NULL, P::bins, NULL, &hist_bytes, env->stream));
    s->temp_bytes = sort_bytes > hist_bytes ? sort_bytes : hist_bytes;
    o_keys = layout.add_n<uint32_t>(nrows);
    o_rows = layout.add_n<int32_t>(nrows);
    o_counts = layout.add_n<int32_t>(P::bins);
    o_temp = layout.add(s->temp_bytes);
    SP_TRY(env_alloc(env, &s->base, layout.total));
    s->keys = at<uint32_t>(s->base, o_keys);
    s->rows = at<int32_t>(s->base, o_rows);
    s->counts = at<int32_t>(s->base, o_counts);
    s->temp = at<void>(s->base, o_temp);
done:
    return st;
}

/* The rows sorted by bin in s->rows, the bin sizes in count[]. */
sp_status_t sort_rows(const sp_gpu_env_t *env, const sp_csr_t *a, plan_scratch *s,
                      int64_t *count)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t h_counts[P::bins];
    size_t bytes = s->temp_bytes;
    bin_keys_kernel<<<plan_grid(env, a->nrows), P::plan_block_threads, 0,
                      (cudaStream_t)env->stream>>>(a->ptr, a->nrows, s->keys, s->rows);
    SP_CUDA_LAUNCHED("bin_keys_kernel");
    SP_TRY(sp__gpu_histogram(reinterpret_cast<const int32_t *>(s->keys), a->nrows, s->counts,
                             P::bins, s->temp, &bytes, env->stream));
    bytes = s->temp_bytes;
    SP_TRY(sp__gpu_radix_sort_pairs_u32(s->keys, s->rows, a->nrows, 3, s->temp, &bytes,
                                        env->stream));
    SP_TRY(to_host(env, h_counts, s->counts, sizeof h_counts));
    for (int b = 0; b < P::bins; b++) count[b] = h_counts[b];
done:
    return st;
}

/* d_aux as laid out in the policy, from the sorted rows and the bin sizes. */
sp_status_t fill_aux(const sp_gpu_env_t *env, const sp_csr_t *a, const plan_scratch *s,
                     const int64_t *count, sp_gpu_spmv_plan_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t stream = (cudaStream_t)env->stream;
    int64_t nlong = count[P::row_bins], npieces = 0, nblocks[P::bins], total = 0;
    int32_t *h_aux = NULL, *d_rows = NULL, *d_first = NULL;
    size_t head = 0;
    /* the long rows' first pieces go right after the row list, where the kernel reads them */
    SP_TRY(env_alloc_n(env, &d_first, nlong + 1));
    SP_TRY(spmv::count_pieces<P>(env, a, s->rows + (a->nrows - nlong), nlong,
                                      P::piece_entries, d_first, &npieces));
    for (int b = 0; b < P::bins; b++) total += nblocks[b] = bin_blocks(b, count[b], npieces);
    if (total > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "csr binned plan: %lld blocks exceed one launch",
                (long long)total);
    head = (size_t)(P::header_ints + 2 * total);
    h_aux = static_cast<int32_t *>(sp__calloc_array(head, sizeof *h_aux));
    if (!h_aux) SP_FAIL(SP_STATUS_ALLOC_FAILED, "csr binned plan: %zu-entry schedule", head);
    make_header(count, npieces, nblocks, h_aux);
    p->param = (int)total;
    p->naux = (int64_t)head + a->nrows + nlong + 1 + npieces;
    SP_TRY(env_alloc_n(env, &p->d_aux, p->naux));
    d_rows = p->d_aux + head;
    SP_CUDA_TRY(cudaMemcpyAsync(p->d_aux, h_aux, head * sizeof *h_aux, cudaMemcpyHostToDevice,
                                stream));
    SP_CUDA_TRY(cudaMemcpyAsync(d_rows, s->rows, (size_t)a->nrows * sizeof *d_rows,
                                cudaMemcpyDeviceToDevice, stream));
    SP_CUDA_TRY(cudaMemcpyAsync(d_rows + a->nrows, d_first,
                                (size_t)(nlong + 1) * sizeof *d_rows, cudaMemcpyDeviceToDevice,
                                stream));
    SP_TRY(spmv::fill_piece_rows<P>(env, d_rows + a->nrows, nlong, npieces,
                                     d_rows + a->nrows + nlong + 1));
    SP_TRY(spmv::long_rows_temp(env, nlong, npieces, p));
    SP_CUDA_TRY(cudaStreamSynchronize(stream)); /* h_aux is read by the copy until here */
done:
    sp__free(h_aux);
    env_free(env, d_first);
    return st;
}

} /* namespace */

/* Called by sp__gpu_spmv_csr_plan for CSR_BINNED (a checked, nrows > 0); on failure the
 * caller releases what p holds. */
extern "C" sp_status_t sp__gpu_spmv_csr_binned_plan(const sp_gpu_env_t *env, const sp_csr_t *a,
                                                    sp_gpu_spmv_plan_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    plan_scratch s;
    int64_t count[P::bins];
    SP_TRY(scratch_open(env, a->nrows, &s));
    SP_TRY(sort_rows(env, a, &s, count));
    SP_TRY(fill_aux(env, a, &s, count, p));
done:
    env_free(env, s.base);
    return st;
}
