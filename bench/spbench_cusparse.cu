/* spbench's GPU side: stream and CUDA-event timers, device vectors, a streaming-read
 * kernel for the bandwidth ceiling, and the cuSPARSE SpMV baseline (CSR_ALG1 and sliced
 * ELL with slice 32, built host-side from the CSR). The only file of spbench that calls
 * CUDA or cuSPARSE; everything it exports is plain C (spbench_cusparse.h). */
#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "spbench_cusparse.h"
}

#define SELL_SLICE 32
#define SELL_MAX_PADDING 4.0 /* SELL baseline left out beyond 4 stored slots per entry */
#define READ_BW_BYTES ((size_t)1 << 30)
#define READ_BW_RUNS 10

struct sb_gpu {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    cusparseHandle_t handle;
    double *d_sink; /* the read kernel's result, so the compiler keeps the loads */
};

struct sb_cusparse {
    cusparseSpMatDescr_t mat[SB_BASELINE_COUNT];
    cusparseConstDnVecDescr_t vx;
    cusparseDnVecDescr_t vy;
    cudaDataType vtype;
    void *d_buffer[SB_BASELINE_COUNT];
    void *d_arrays[9]; /* CSR ptr, col, val; SELL offsets, col, val; CSC ptr, row, val */
    char note[SB_BASELINE_COUNT][160];
};

/* ---- stream, events, buffers -------------------------------------------------------- */

extern "C" int sb_gpu_open(sb_gpu_t **out, char *msg, size_t msg_len)
{
    sb_gpu_t *g = (sb_gpu_t *)calloc(1, sizeof *g);
    cudaError_t e = cudaSuccess;
    *out = NULL;
    if (!g) {
        snprintf(msg, msg_len, "out of host memory");
        return -1;
    }
    if ((e = cudaSetDevice(0)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) != cudaSuccess ||
        (e = cudaEventCreate(&g->start)) != cudaSuccess ||
        (e = cudaEventCreate(&g->stop)) != cudaSuccess ||
        (e = cudaMalloc((void **)&g->d_sink, sizeof(double))) != cudaSuccess ||
        (e = cudaMemset(g->d_sink, 0, sizeof(double))) != cudaSuccess) {
        snprintf(msg, msg_len, "%s", cudaGetErrorString(e));
        sb_gpu_close(g);
        return -1;
    }
    if (cusparseCreate(&g->handle) != CUSPARSE_STATUS_SUCCESS ||
        cusparseSetStream(g->handle, g->stream) != CUSPARSE_STATUS_SUCCESS) {
        snprintf(msg, msg_len, "cusparseCreate failed");
        sb_gpu_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

extern "C" void sb_gpu_close(sb_gpu_t *g)
{
    if (!g) return;
    if (g->handle) cusparseDestroy(g->handle);
    if (g->d_sink) cudaFree(g->d_sink);
    if (g->stop) cudaEventDestroy(g->stop);
    if (g->start) cudaEventDestroy(g->start);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}

extern "C" void *sb_gpu_stream(sb_gpu_t *g) { return (void *)g->stream; }

extern "C" void sb_gpu_timer_begin(sb_gpu_t *g) { cudaEventRecord(g->start, g->stream); }

extern "C" double sb_gpu_timer_end(sb_gpu_t *g)
{
    float ms = 0;
    if (cudaEventRecord(g->stop, g->stream) != cudaSuccess ||
        cudaEventSynchronize(g->stop) != cudaSuccess ||
        cudaEventElapsedTime(&ms, g->start, g->stop) != cudaSuccess)
        return -1.0;
    return ms;
}

extern "C" void *sb_gpu_upload(sb_gpu_t *g, const void *h_src, size_t bytes)
{
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess) return NULL;
    if (bytes && (cudaMemcpyAsync(d, h_src, bytes, cudaMemcpyHostToDevice, g->stream) !=
                      cudaSuccess ||
                  cudaStreamSynchronize(g->stream) != cudaSuccess)) {
        cudaFree(d);
        return NULL;
    }
    return d;
}

extern "C" int sb_gpu_download(sb_gpu_t *g, void *h_dst, const void *d_src, size_t bytes)
{
    if (!bytes) return 0;
    if (cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, g->stream) != cudaSuccess)
        return -1;
    return cudaStreamSynchronize(g->stream) == cudaSuccess ? 0 : -1;
}

extern "C" int sb_gpu_fill_nan(sb_gpu_t *g, void *d_dst, size_t bytes)
{
    return cudaMemsetAsync(d_dst, 0xff, bytes, g->stream) == cudaSuccess ? 0 : -1;
}

extern "C" void sb_gpu_free(sb_gpu_t *g, void *d_ptr)
{
    (void)g;
    if (d_ptr) cudaFree(d_ptr);
}

/* ---- streaming read ----------------------------------------------------------------- */

/* Grid-stride sum of 16-byte loads; one atomic per block keeps the result alive. */
__global__ void read_sum_kernel(const double2 *a, size_t n, double *sink)
{
    __shared__ double part[32];
    double s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double2 v = a[i];
        s += v.x + v.y;
    }
    for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0;
        for (unsigned w = 0; w < blockDim.x / 32; w++) t += part[w];
        atomicAdd(sink, t);
    }
}

extern "C" double sb_gpu_read_bandwidth(sb_gpu_t *g)
{
    double2 *d_a = NULL;
    double best = 0;
    size_t n = READ_BW_BYTES / sizeof(double2);
    int sms = 0, blocks_per_sm = 0;
    const int threads = 512;
    if (cudaMalloc((void **)&d_a, READ_BW_BYTES) != cudaSuccess) return 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, read_sum_kernel, threads, 0);
    if (sms <= 0 || blocks_per_sm <= 0) sms = 132, blocks_per_sm = 4;
    cudaMemsetAsync(d_a, 0, READ_BW_BYTES, g->stream);
    for (int run = 0; run < READ_BW_RUNS + 2; run++) {
        sb_gpu_timer_begin(g);
        read_sum_kernel<<<sms * blocks_per_sm, threads, 0, g->stream>>>(d_a, n, g->d_sink);
        double ms = sb_gpu_timer_end(g);
        double gbs = ms > 0 ? (double)READ_BW_BYTES / (ms * 1e-3) / 1e9 : 0;
        if (run >= 2 && gbs > best) best = gbs; /* two warm-up runs */
    }
    cudaFree(d_a);
    return cudaGetLastError() == cudaSuccess ? best : 0;
}

/* ---- the cuSPARSE baseline ---------------------------------------------------------- */

static size_t value_bytes(sp_value_type_t t) { return t == SP_R_32F ? 4 : 8; }

/* Sliced ELL of the CSR, slice SELL_SLICE, rows in their order, each slice stored
 * column-major and padded to its longest row with column -1 and value 0. */
typedef struct host_sell {
    int32_t *offsets, *col;
    char *val;
    int64_t slots;
} host_sell_t;

static int64_t sell_slots(const sp_format_view_t *a)
{
    int64_t slots = 0;
    for (int64_t r0 = 0; r0 < a->nrows; r0 += SELL_SLICE) {
        int64_t width = 0;
        for (int64_t r = r0; r < r0 + SELL_SLICE && r < a->nrows; r++)
            if (a->csr.row_ptr[r + 1] - a->csr.row_ptr[r] > width)
                width = a->csr.row_ptr[r + 1] - a->csr.row_ptr[r];
        slots += width * SELL_SLICE;
    }
    return slots;
}

/* s->slots must hold sell_slots(a). */
static int sell_build(const sp_format_view_t *a, host_sell_t *s)
{
    size_t vs = value_bytes(a->value_type);
    int64_t nslices = (a->nrows + SELL_SLICE - 1) / SELL_SLICE;
    s->offsets = (int32_t *)malloc((size_t)(nslices + 1) * sizeof(int32_t));
    s->col = (int32_t *)malloc((size_t)(s->slots + 1) * sizeof(int32_t));
    s->val = (char *)calloc((size_t)s->slots + 1, vs);
    if (!s->offsets || !s->col || !s->val) return -1;
    s->offsets[0] = 0;
    for (int64_t sl = 0; sl < nslices; sl++) {
        int64_t r0 = sl * SELL_SLICE, base = s->offsets[sl], width = 0;
        for (int64_t r = r0; r < r0 + SELL_SLICE && r < a->nrows; r++)
            if (a->csr.row_ptr[r + 1] - a->csr.row_ptr[r] > width)
                width = a->csr.row_ptr[r + 1] - a->csr.row_ptr[r];
        for (int64_t k = 0; k < width * SELL_SLICE; k++) s->col[base + k] = -1;
        for (int64_t r = r0; r < r0 + SELL_SLICE && r < a->nrows; r++)
            for (int64_t k = a->csr.row_ptr[r]; k < a->csr.row_ptr[r + 1]; k++) {
                int64_t slot = base + (k - a->csr.row_ptr[r]) * SELL_SLICE + (r - r0);
                s->col[slot] = a->csr.col[k];
                memcpy(s->val + (size_t)slot * vs, (const char *)a->csr.val + (size_t)k * vs, vs);
            }
        s->offsets[sl + 1] = (int32_t)(base + width * SELL_SLICE);
    }
    return 0;
}

static void sell_free(host_sell_t *s)
{
    free(s->offsets);
    free(s->col);
    free(s->val);
}

/* cuSPARSE's algorithm for baseline b: CSR_ALG1 on CSR, SELL_ALG1 on sliced ELL, its
 * default on the CSC descriptor. */
static cusparseSpMVAlg_t spmv_alg(sb_baseline_t b)
{
    return b == SB_CUSPARSE_SELL  ? CUSPARSE_SPMV_SELL_ALG1
           : b == SB_CUSPARSE_CSC ? CUSPARSE_SPMV_ALG_DEFAULT
                                  : CUSPARSE_SPMV_CSR_ALG1;
}

/* Descriptor and work buffer for baseline b; 0 on success. */
static int prepare_spmv(sb_gpu_t *g, sb_cusparse_t *c, sb_baseline_t b)
{
    double one_d = 1, zero_d = 0;
    float one_f = 1, zero_f = 0;
    int is_f = c->vtype == CUDA_R_32F;
    size_t bytes = 0;
    cusparseSpMVAlg_t alg = spmv_alg(b);
    if (cusparseSpMV_bufferSize(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                is_f ? (void *)&one_f : (void *)&one_d, c->mat[b], c->vx,
                                is_f ? (void *)&zero_f : (void *)&zero_d, c->vy, c->vtype, alg,
                                &bytes) != CUSPARSE_STATUS_SUCCESS)
        return -1;
    return cudaMalloc(&c->d_buffer[b], bytes ? bytes : 1) == cudaSuccess ? 0 : -1;
}

static int create_csr(sb_gpu_t *g, sb_cusparse_t *c, const sp_format_view_t *a)
{
    size_t vs = value_bytes(a->value_type);
    c->d_arrays[0] = sb_gpu_upload(g, a->csr.row_ptr, (size_t)(a->nrows + 1) * sizeof(int32_t));
    c->d_arrays[1] = sb_gpu_upload(g, a->csr.col, (size_t)a->nnz * sizeof(int32_t));
    c->d_arrays[2] = sb_gpu_upload(g, a->csr.val, (size_t)a->nnz * vs);
    if (!c->d_arrays[0] || !c->d_arrays[1] || !c->d_arrays[2]) return -1;
    if (cusparseCreateCsr(&c->mat[SB_CUSPARSE_CSR], a->nrows, a->ncols, a->nnz, c->d_arrays[0],
                          c->d_arrays[1], c->d_arrays[2], CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, c->vtype) != CUSPARSE_STATUS_SUCCESS)
        return -1;
    return prepare_spmv(g, c, SB_CUSPARSE_CSR);
}

static void create_sell(sb_gpu_t *g, sb_cusparse_t *c, const sp_format_view_t *a)
{
    size_t vs = value_bytes(a->value_type);
    int64_t slots = sell_slots(a), nslices = (a->nrows + SELL_SLICE - 1) / SELL_SLICE;
    host_sell_t s = {NULL, NULL, NULL, slots};
    if ((double)slots > SELL_MAX_PADDING * (double)a->nnz + 4096.0 || slots > INT32_MAX) {
        snprintf(c->note[SB_CUSPARSE_SELL], sizeof c->note[0],
                 "n/a (slice-32 padding: %lld slots for %lld entries)", (long long)slots,
                 (long long)a->nnz);
        return;
    }
    if (sell_build(a, &s) == 0) {
        c->d_arrays[3] = sb_gpu_upload(g, s.offsets, (size_t)(nslices + 1) * sizeof(int32_t));
        c->d_arrays[4] = sb_gpu_upload(g, s.col, (size_t)s.slots * sizeof(int32_t));
        c->d_arrays[5] = sb_gpu_upload(g, s.val, (size_t)s.slots * vs);
    }
    if (!c->d_arrays[3] || !c->d_arrays[4] || !c->d_arrays[5] ||
        cusparseCreateSlicedEll(&c->mat[SB_CUSPARSE_SELL], a->nrows, a->ncols, a->nnz, s.slots,
                                SELL_SLICE, c->d_arrays[3], c->d_arrays[4], c->d_arrays[5],
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                c->vtype) != CUSPARSE_STATUS_SUCCESS ||
        prepare_spmv(g, c, SB_CUSPARSE_SELL) != 0)
        snprintf(c->note[SB_CUSPARSE_SELL], sizeof c->note[0], "n/a (cuSPARSE SELL set-up failed)");
    sell_free(&s);
}

/* The CSC of the CSR view (a counting transpose on the host) as a cuSPARSE CSC descriptor. */
static void create_csc(sb_gpu_t *g, sb_cusparse_t *c, const sp_format_view_t *a)
{
    size_t vs = value_bytes(a->value_type);
    int64_t n = a->ncols, nnz = a->nnz;
    int32_t *ptr = (int32_t *)calloc((size_t)n + 1, sizeof *ptr);
    int32_t *row = (int32_t *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *row);
    char *val = (char *)malloc((size_t)(nnz > 0 ? nnz : 1) * vs);
    if (ptr && row && val) {
        for (int64_t k = 0; k < nnz; k++) ptr[a->csr.col[k] + 1]++;
        for (int64_t j = 0; j < n; j++) ptr[j + 1] += ptr[j];
        for (int64_t r = 0; r < a->nrows; r++) /* rows in order: each column's rows sorted */
            for (int64_t k = a->csr.row_ptr[r]; k < a->csr.row_ptr[r + 1]; k++) {
                int32_t at = ptr[a->csr.col[k]]++;
                row[at] = (int32_t)r;
                memcpy(val + (size_t)at * vs, (const char *)a->csr.val + (size_t)k * vs, vs);
            }
        for (int64_t j = n; j > 0; j--) ptr[j] = ptr[j - 1];
        ptr[0] = 0;
        c->d_arrays[6] = sb_gpu_upload(g, ptr, (size_t)(n + 1) * sizeof(int32_t));
        c->d_arrays[7] = sb_gpu_upload(g, row, (size_t)nnz * sizeof(int32_t));
        c->d_arrays[8] = sb_gpu_upload(g, val, (size_t)nnz * vs);
    }
    if (!c->d_arrays[6] || (nnz > 0 && (!c->d_arrays[7] || !c->d_arrays[8])) ||
        cusparseCreateCsc(&c->mat[SB_CUSPARSE_CSC], a->nrows, a->ncols, a->nnz, c->d_arrays[6],
                          c->d_arrays[7], c->d_arrays[8], CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, c->vtype) != CUSPARSE_STATUS_SUCCESS ||
        prepare_spmv(g, c, SB_CUSPARSE_CSC) != 0)
        snprintf(c->note[SB_CUSPARSE_CSC], sizeof c->note[0], "n/a (cuSPARSE CSC set-up failed)");
    free(val);
    free(row);
    free(ptr);
}

extern "C" int sb_cusparse_create(sb_gpu_t *g, const sp_format_view_t *a, const void *d_x,
                                  void *d_y, sb_cusparse_t **out, char *msg, size_t msg_len)
{
    sb_cusparse_t *c = (sb_cusparse_t *)calloc(1, sizeof *c);
    *out = NULL;
    if (!c) {
        snprintf(msg, msg_len, "out of host memory");
        return -1;
    }
    c->vtype = a->value_type == SP_R_32F ? CUDA_R_32F : CUDA_R_64F;
    if (cusparseCreateConstDnVec(&c->vx, a->ncols, d_x, c->vtype) != CUSPARSE_STATUS_SUCCESS ||
        cusparseCreateDnVec(&c->vy, a->nrows, d_y, c->vtype) != CUSPARSE_STATUS_SUCCESS ||
        create_csr(g, c, a) != 0) {
        snprintf(msg, msg_len, "cuSPARSE CSR set-up failed (%s)",
                 cudaGetErrorString(cudaGetLastError()));
        sb_cusparse_destroy(c);
        return -1;
    }
    create_sell(g, c, a);
    create_csc(g, c, a);
    *out = c;
    return 0;
}

extern "C" void sb_cusparse_destroy(sb_cusparse_t *c)
{
    if (!c) return;
    for (int b = 0; b < SB_BASELINE_COUNT; b++) {
        if (c->mat[b]) cusparseDestroySpMat(c->mat[b]);
        if (c->d_buffer[b]) cudaFree(c->d_buffer[b]);
    }
    if (c->vy) cusparseDestroyDnVec(c->vy);
    if (c->vx) cusparseDestroyDnVec(c->vx);
    for (int i = 0; i < 9; i++)
        if (c->d_arrays[i]) cudaFree(c->d_arrays[i]);
    free(c);
}

extern "C" int sb_cusparse_has(const sb_cusparse_t *c, sb_baseline_t b)
{
    return c && c->mat[b] && c->d_buffer[b];
}

extern "C" const char *sb_cusparse_note(const sb_cusparse_t *c, sb_baseline_t b)
{
    if (!c) return "n/a (no GPU)";
    return c->note[b][0] ? c->note[b] : "";
}

extern "C" double sb_cusparse_spmv(sb_gpu_t *g, sb_cusparse_t *c, sb_baseline_t b, int calls)
{
    double one_d = 1, zero_d = 0;
    float one_f = 1, zero_f = 0;
    int is_f = c->vtype == CUDA_R_32F;
    cusparseSpMVAlg_t alg = spmv_alg(b);
    if (!sb_cusparse_has(c, b)) return -1.0;
    cusparseStatus_t s = CUSPARSE_STATUS_SUCCESS;
    sb_gpu_timer_begin(g);
    for (int i = 0; i < calls && s == CUSPARSE_STATUS_SUCCESS; i++)
        s = cusparseSpMV(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                         is_f ? (void *)&one_f : (void *)&one_d, c->mat[b], c->vx,
                         is_f ? (void *)&zero_f : (void *)&zero_d, c->vy, c->vtype, alg,
                         c->d_buffer[b]);
    double ms = sb_gpu_timer_end(g);
    return s == CUSPARSE_STATUS_SUCCESS && ms >= 0 && calls > 0 ? ms / calls : -1.0;
}
