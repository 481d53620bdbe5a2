/* The plan of CSR adaptive (spmv_csr_adaptive.cu; layout and the stream block rule in
 * spmv_policy_csr.h): a flag per row (long; starts a stream block), two scans that number
 * the stream blocks and the long rows, both counts read back, one pass that writes each
 * block's first and end row and the long-row list, the long rows' pieces
 * (spmv_long_rows.cuh), and the launch's block schedule, made on the host, interleaving
 * the stream and piece blocks in proportion. */
#include "prim/kernel_util.cuh"
#include "spmv_common.cuh"
#include "spmv_long_rows.cuh"
#include "spmv_policy_csr.h"

namespace {

using P = sp_spmv_csr_adaptive_policy;
using sp_prim::env_alloc;
using sp_prim::env_alloc_n;
using sp_prim::env_free;
using sp_prim::to_host;

/* Whether row r is long, and whether it starts a stream block: a short row that follows
 * a long row, or whose first entry is in another stream_entries window than the previous
 * row's, or whose number is a multiple of stream_rows. */
__device__ __forceinline__ void row_kind(const int32_t *ptr, int64_t r, bool *is_long,
                                         bool *starts)
{
    int32_t p0 = ptr[r];
    *is_long = ptr[r + 1] - p0 > P::short_max;
    bool s = !*is_long;
    if (s && r % P::stream_rows != 0) {
        int32_t q = ptr[r - 1];
        s = p0 - q > P::short_max || p0 / P::stream_entries != q / P::stream_entries;
    }
    *starts = s;
}

__global__ void __launch_bounds__(P::plan_block_threads)
flags_kernel(const int32_t *ptr, int64_t nrows, int32_t *starts, int32_t *longs)
{
    for (int64_t r = (int64_t)blockIdx.x * P::plan_block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::plan_block_threads) {
        bool l, s;
        row_kind(ptr, r, &l, &s);
        starts[r] = s;
        longs[r] = l;
    }
}

/* From the exclusive scans of the flags: stream[2 b] = the first row of stream block b,
 * stream[2 b + 1] its end; long_rows[k] = the k-th long row. */
__global__ void __launch_bounds__(P::plan_block_threads)
fill_kernel(const int32_t *ptr, int64_t nrows, const int32_t *start_index,
            const int32_t *long_index, int32_t *stream, int32_t *long_rows)
{
    for (int64_t r = (int64_t)blockIdx.x * P::plan_block_threads + threadIdx.x; r < nrows;
         r += (int64_t)gridDim.x * P::plan_block_threads) {
        bool l, s;
        row_kind(ptr, r, &l, &s);
        if (l) {
            long_rows[long_index[r]] = (int32_t)r;
            continue;
        }
        int64_t b = start_index[r] - (s ? 0 : 1);
        if (s) stream[2 * b] = (int32_t)r;
        bool last = r + 1 == nrows;
        if (!last) {
            bool l1, s1;
            row_kind(ptr, r + 1, &l1, &s1);
            last = l1 || s1;
        }
        if (last) stream[2 * b + 1] = (int32_t)(r + 1);
    }
}

/* Scratch: the two flag arrays (scanned in place), their totals, the scan's storage. */
struct plan_scratch {
    void *base = nullptr;
    int32_t *starts = nullptr, *longs = nullptr, *totals = nullptr;
    void *temp = nullptr;
    size_t temp_bytes = 0;
};

sp_status_t scratch_open(const sp_gpu_env_t *env, int64_t nrows, plan_scratch *s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_prim::scratch_plan layout;
    size_t o_starts = 0, o_longs = 0, o_totals = 0, o_temp = 0;
    SP_TRY(sp__gpu_exclusive_scan_i32(NULL, NULL, nrows, NULL, NULL, &s->temp_bytes,
                                      env->stream));
    o_starts = layout.add_n<int32_t>(nrows);
    o_longs = layout.add_n<int32_t>(nrows);
    o_totals = layout.add_n<int32_t>(2);
    o_temp = layout.add(s->temp_bytes);
    SP_TRY(env_alloc(env, &s->base, layout.total));
    s->starts = sp_prim::at<int32_t>(s->base, o_starts);
    s->longs = sp_prim::at<int32_t>(s->base, o_longs);
    s->totals = sp_prim::at<int32_t>(s->base, o_totals);
    s->temp = sp_prim::at<void>(s->base, o_temp);
done:
    return st;
}

/* Flags, scans, counts: *nsb stream blocks, *nlong long rows. */
sp_status_t count_kinds(const sp_gpu_env_t *env, const sp_csr_t *a, plan_scratch *s,
                        int64_t *nsb, int64_t *nlong)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t h_totals[2] = {0, 0};
    size_t bytes = s->temp_bytes;
    flags_kernel<<<spmv::plan_grid<P>(env, a->nrows), P::plan_block_threads, 0,
                   (cudaStream_t)env->stream>>>(a->ptr, a->nrows, s->starts, s->longs);
    SP_CUDA_LAUNCHED("flags_kernel");
    SP_TRY(sp__gpu_exclusive_scan_i32(s->starts, s->starts, a->nrows, s->totals, s->temp,
                                      &bytes, env->stream));
    bytes = s->temp_bytes;
    SP_TRY(sp__gpu_exclusive_scan_i32(s->longs, s->longs, a->nrows, s->totals + 1, s->temp,
                                      &bytes, env->stream));
    SP_TRY(to_host(env, h_totals, s->totals, sizeof h_totals));
    *nsb = h_totals[0];
    *nlong = h_totals[1];
done:
    return st;
}

/* d_aux as laid out in the policy. The stream and long-row tables are written into a
 * buffer laid out like d_aux's tail (the piece count, which sizes the schedule, is known
 * only after them), then copied behind the header and schedule. */
sp_status_t fill_aux(const sp_gpu_env_t *env, const sp_csr_t *a, const plan_scratch *s,
                     int64_t nsb, int64_t nlong, sp_gpu_spmv_plan_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t stream = (cudaStream_t)env->stream;
    int64_t npieces = 0, nblocks[P::kinds], total = 0, ntail = 2 * nsb + 2 * nlong + 1;
    /* long pieces where there are entries enough to fill the GPU; shorter ones on small
     * matrices, whose calls are bound by one piece's chain of loads */
    int32_t pe = a->nnz >= P::small_nnz ? P::piece_entries : P::small_piece_entries;
    int32_t *h_aux = NULL, *d_tail = NULL, *d_first = NULL, *tail = NULL;
    size_t head = 0;
    SP_TRY(env_alloc_n(env, &d_tail, ntail));
    d_first = d_tail + 2 * nsb + nlong;
    fill_kernel<<<spmv::plan_grid<P>(env, a->nrows), P::plan_block_threads, 0, stream>>>(
        a->ptr, a->nrows, s->starts, s->longs, d_tail, d_tail + 2 * nsb);
    SP_CUDA_LAUNCHED("fill_kernel");
    SP_TRY(spmv::count_pieces<P>(env, a, d_tail + 2 * nsb, nlong, pe, d_first, &npieces));
    nblocks[0] = nsb;
    nblocks[1] = (npieces + P::block_threads / 32 - 1) / (P::block_threads / 32);
    total = nblocks[0] + nblocks[1];
    if (total > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "csr adaptive plan: %lld blocks exceed one launch",
                (long long)total);
    head = (size_t)(P::header_ints + 2 * total);
    h_aux = static_cast<int32_t *>(sp__calloc_array(head, sizeof *h_aux));
    if (!h_aux) SP_FAIL(SP_STATUS_ALLOC_FAILED, "csr adaptive plan: %zu-entry schedule", head);
    h_aux[0] = (int32_t)nsb;
    h_aux[1] = (int32_t)nlong;
    h_aux[2] = (int32_t)npieces;
    h_aux[3] = pe;
    /* a second kernel finishes the long rows when they have pieces enough that their
     * fences cost more than its launch */
    h_aux[4] = npieces - nlong >= P::deferred_min_pieces;
    p->finish_rows = h_aux[4] ? nlong : 0;
    spmv::interleave_schedule(P::kinds, nblocks, h_aux + P::header_ints);
    p->param = (int)total;
    p->naux = (int64_t)head + ntail + npieces;
    SP_TRY(env_alloc_n(env, &p->d_aux, p->naux));
    tail = p->d_aux + head;
    SP_CUDA_TRY(cudaMemcpyAsync(p->d_aux, h_aux, head * sizeof *h_aux, cudaMemcpyHostToDevice,
                                stream));
    SP_CUDA_TRY(cudaMemcpyAsync(tail, d_tail, (size_t)ntail * sizeof *tail,
                                cudaMemcpyDeviceToDevice, stream));
    SP_TRY(spmv::fill_piece_rows<P>(env, tail + 2 * nsb + nlong, nlong, npieces, tail + ntail));
    SP_TRY(spmv::long_rows_temp(env, nlong, npieces, p));
    SP_CUDA_TRY(cudaStreamSynchronize(stream)); /* h_aux is read by the copy until here */
done:
    sp__free(h_aux);
    env_free(env, d_tail);
    return st;
}

} /* namespace */

/* Called by sp__gpu_spmv_csr_plan for CSR_ADAPTIVE (a checked, nrows > 0); on failure the
 * caller releases what p holds. */
extern "C" sp_status_t sp__gpu_spmv_csr_adaptive_plan(const sp_gpu_env_t *env,
                                                      const sp_csr_t *a, sp_gpu_spmv_plan_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    plan_scratch s;
    int64_t nsb = 0, nlong = 0;
    SP_TRY(scratch_open(env, a->nrows, &s));
    SP_TRY(count_kinds(env, a, &s, &nsb, &nlong));
    SP_TRY(fill_aux(env, a, &s, nsb, nlong, p));
done:
    env_free(env, s.base);
    return st;
}
