/* spmv64_bench: SpMV past 2^31 entries (issue 20's target: 3D 7-point Poisson 700^3, about
 * 2.4 billion entries, at least 1.3x cuSPARSE CSR with 64-bit indices and at least 85% of
 * the read bandwidth measured in the same run).
 *
 * The Poisson matrix (double) is generated on the host (sp_gen_poisson3d), uploaded with
 * sp_matrix_create on a CUDA context with the given offset_bits and built as CSR
 * (sp_matrix_build); then, timed with CUDA events on one stream (medians of --reps samples
 * after --warmup; a sample runs enough calls to hold about 2e8 entries' work and is divided
 * by them):
 *  - libsp sp_spmv_f64, y = A x, with SP_FORMAT_AUTO and with SP_FORMAT_CSR (DEFAULT
 *    algorithm; both prepared first with sp_spmv_prepare);
 *  - cuSPARSE cusparseSpMV (CSR_ALG1) on a CSR with 64-bit row offsets (CUSPARSE_INDEX_64I;
 *    32-bit with --offsets 32) built on the device from the host arrays (the public API
 *    exposes no device pointers of libsp's CSR). Its column ids stay 32-bit when this
 *    cuSPARSE takes 64-bit offsets with 32-bit columns (probed on a 3 x 3 matrix first;
 *    the documentation lists both index types without saying whether they mix); else they
 *    are widened to 64 bits for cuSPARSE only, and the output says so;
 *  - a streaming read over cuSPARSE's device arrays, as many bytes as libsp's CSR and x
 *    (ptr + col + val + x): the read bandwidth of the run.
 * libsp's effective bandwidth counts ptr + col + val + x read and y written (the CSR byte
 * model with libsp's pointer width) over its time; bw_fraction is that over the read
 * bandwidth. y of libsp is checked against cuSPARSE's (max |difference| / max |y|).
 *
 * Once the CSR is built the matrix's device COO is released (sp_matrix_release(COO)), as a
 * user keeping only the CSR would, so ELL fits beside the CSR on an 80 GB card at 700^3.
 * When libsp's matrix and cuSPARSE's CSR do not fit on the device together, the calls are
 * not interleaved: libsp is timed
 * first, its y kept on the host, its matrix and context destroyed, then cuSPARSE and the
 * read kernel are timed; the output says which. Every part's bytes are printed; a part that
 * cannot fit is refused before it is allocated, with the bytes needed and free.
 *
 *   spmv64_bench [--n 700] [--points 7|27] [--offsets 64|32|0] [--reps 20] [--warmup 10]
 * --points 27: the 27-point stencil instead (sp_gen_poisson3d27): past 2^31 entries with a
 * quarter of the rows (n 450: 91M rows, 2.4G entries), where cuSPARSE may run it.
 * Exit status: 0 checked; 1 a check failed or a call failed; 3 refused (the library, or the
 * device memory), with a `spmv64: refused:` line; 2 bad arguments; 77 without a GPU. */
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench_host.cuh"
#include "cusparse_ok.cuh"
#include "gpu_timing.cuh"

static const double sample_entries = 2e8; /* entries of work in one timed sample */
static const double max_rel_err_allowed = 1e-12;
static const int64_t widen_chunk = (int64_t)1 << 26; /* column ids widened per piece */

static cudaStream_t stream;
static cusparseHandle_t handle;

/* ---- the cuSPARSE side ------------------------------------------------------------------ */

__global__ void widen_kernel(const int32_t *in, int64_t *out, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = in[i];
}

/* Row pointers of a COO sorted by row (rows below 2^31): ptr[r] = the first entry of row r
 * or after (ptr[m] = nnz), the rows split among the host's threads, each finding its start
 * by binary search. */
static void row_ptr_from_sorted(const int32_t *row, int64_t nnz, int64_t m, int64_t *ptr)
{
    unsigned nt = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < nt; t++) {
        int64_t r0 = m * (int64_t)t / nt, r1 = t + 1 == nt ? m + 1 : m * (int64_t)(t + 1) / nt;
        threads.emplace_back([=] {
            int64_t k = std::lower_bound(row, row + nnz, (int32_t)r0) - row;
            for (int64_t r = r0; r < r1; r++) {
                while (k < nnz && row[k] < r) k++;
                ptr[r] = k;
            }
        });
    }
    for (std::thread &th : threads) th.join();
}

struct cus_csr {
    void *d_ptr = nullptr, *d_col = nullptr;
    double *d_val = nullptr;
    void *d_buf = nullptr;
    bool col64 = false;
    cusparseSpMVAlg_t alg = CUSPARSE_SPMV_CSR_ALG1; /* the first of cus_algs that runs */
    const char *alg_name = "CSR_ALG1";
    cusparseSpMatDescr_t A = nullptr;
    cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
};

static void cus_free(cus_csr *c)
{
    if (c->vy) CUSPARSE_OK(cusparseDestroyDnVec(c->vy));
    if (c->vx) CUSPARSE_OK(cusparseDestroyDnVec(c->vx));
    if (c->A) CUSPARSE_OK(cusparseDestroySpMat(c->A));
    CUDA_OK(cudaFree(c->d_buf));
    CUDA_OK(cudaFree(c->d_val));
    CUDA_OK(cudaFree(c->d_col));
    CUDA_OK(cudaFree(c->d_ptr));
    *c = cus_csr();
}

/* Whether cusparseSpMV takes a CSR with 64-bit row offsets and 32-bit column ids: creates,
 * sizes and runs one on A = [2 0 1; 0 3 0; 4 0 5], x = (1, 2, 3), expecting y = (5, 6, 19). */
static bool cusparse_takes_mixed_indices()
{
    const int64_t h_ptr[4] = {0, 2, 3, 5};
    const int32_t h_col[5] = {0, 2, 1, 0, 2};
    const double h_val[5] = {2, 1, 3, 4, 5}, h_x[3] = {1, 2, 3};
    double *d_x = nullptr, *d_y = nullptr, h_y[3] = {0, 0, 0};
    cus_csr c;
    CUDA_OK(cudaMalloc(&c.d_ptr, sizeof h_ptr));
    CUDA_OK(cudaMalloc(&c.d_col, sizeof h_col));
    CUDA_OK(cudaMalloc(&c.d_val, sizeof h_val));
    CUDA_OK(cudaMalloc(&d_x, sizeof h_x));
    CUDA_OK(cudaMalloc(&d_y, sizeof h_y));
    CUDA_OK(cudaMemcpy(c.d_ptr, h_ptr, sizeof h_ptr, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(c.d_col, h_col, sizeof h_col, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(c.d_val, h_val, sizeof h_val, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice));
    double one = 1, zero = 0;
    size_t bytes = 0;
    bool ok = cusparseCreateCsr(&c.A, 3, 3, 5, c.d_ptr, c.d_col, c.d_val, CUSPARSE_INDEX_64I,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                CUDA_R_64F) == CUSPARSE_STATUS_SUCCESS &&
              cusparseCreateDnVec(&c.vx, 3, d_x, CUDA_R_64F) == CUSPARSE_STATUS_SUCCESS &&
              cusparseCreateDnVec(&c.vy, 3, d_y, CUDA_R_64F) == CUSPARSE_STATUS_SUCCESS &&
              cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c.A, c.vx,
                                      &zero, c.vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                                      &bytes) == CUSPARSE_STATUS_SUCCESS &&
              cudaMalloc(&c.d_buf, bytes + 1) == cudaSuccess &&
              cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c.A, c.vx, &zero,
                           c.vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                           c.d_buf) == CUSPARSE_STATUS_SUCCESS &&
              cudaMemcpyAsync(h_y, d_y, sizeof h_y, cudaMemcpyDeviceToHost, stream) ==
                  cudaSuccess &&
              cudaStreamSynchronize(stream) == cudaSuccess && h_y[0] == 5 && h_y[1] == 6 &&
              h_y[2] == 19;
    (void)cudaGetLastError();
    cus_free(&c);
    CUDA_OK(cudaFree(d_y));
    CUDA_OK(cudaFree(d_x));
    return ok;
}

/* The bytes cuSPARSE's CSR takes (without its SpMV buffer). */
static double cus_bytes(const sp_coo_t *coo, int ptr_bits, bool col64)
{
    return (double)(coo->nrows + 1) * (ptr_bits / 8) + (double)coo->nnz * (col64 ? 8 : 4) +
           (double)coo->nnz * 8 + (col64 ? (double)widen_chunk * 4 : 0.0);
}

/* cuSPARSE's CSR of the sorted host COO on the device, with x and y as its vectors; false
 * (the refusal printed) when it cannot fit. */
static bool cus_build(const sp_coo_t *coo, int ptr_bits, bool col64, double *d_x, double *d_y,
                      cus_csr *c)
{
    const int64_t m = coo->nrows, nnz = coo->nnz;
    if (!device_fits("spmv64: cuSPARSE CSR", cus_bytes(coo, ptr_bits, col64))) return false;
    double t0 = wall_ms();
    std::vector<int64_t> ptr((size_t)m + 1);
    row_ptr_from_sorted(coo->row, nnz, m, ptr.data());
    const size_t ptr_bytes = (size_t)(m + 1) * (ptr_bits / 8);
    CUDA_OK(cudaMalloc(&c->d_ptr, ptr_bytes));
    if (ptr_bits == 64) {
        CUDA_OK(cudaMemcpy(c->d_ptr, ptr.data(), ptr_bytes, cudaMemcpyHostToDevice));
    } else {
        std::vector<int32_t> p32(ptr.begin(), ptr.end());
        CUDA_OK(cudaMemcpy(c->d_ptr, p32.data(), ptr_bytes, cudaMemcpyHostToDevice));
    }
    c->col64 = col64;
    CUDA_OK(cudaMalloc(&c->d_col, (size_t)nnz * (col64 ? 8 : 4) + 8));
    if (!col64) {
        CUDA_OK(cudaMemcpy(c->d_col, coo->col, (size_t)nnz * 4, cudaMemcpyHostToDevice));
    } else {
        int32_t *d_stage = nullptr;
        CUDA_OK(cudaMalloc(&d_stage, (size_t)widen_chunk * 4));
        for (int64_t k = 0; k < nnz; k += widen_chunk) {
            int64_t len = std::min(widen_chunk, nnz - k);
            CUDA_OK(cudaMemcpy(d_stage, coo->col + k, (size_t)len * 4, cudaMemcpyHostToDevice));
            widen_kernel<<<1024, 256>>>(d_stage, (int64_t *)c->d_col + k, len);
            CUDA_OK(cudaGetLastError());
        }
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaFree(d_stage));
    }
    CUDA_OK(cudaMalloc(&c->d_val, (size_t)nnz * 8 + 8));
    CUDA_OK(cudaMemcpy(c->d_val, coo->val, (size_t)nnz * 8, cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize()); /* pageable copies may return before their DMA ends */
    CUSPARSE_OK(cusparseCreateCsr(&c->A, m, coo->ncols, nnz, c->d_ptr, c->d_col, c->d_val,
                                  ptr_bits == 64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I,
                                  col64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&c->vx, coo->ncols, d_x, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&c->vy, m, d_y, CUDA_R_64F));
    /* the first algorithm that runs at this size (cuSPARSE 12.6's CSR_ALG1 reports an
       internal error past 2^31 entries on an H200): each tried once, synchronized */
    const struct {
        cusparseSpMVAlg_t alg;
        const char *name;
    } cus_algs[] = {{CUSPARSE_SPMV_CSR_ALG1, "CSR_ALG1"},
                    {CUSPARSE_SPMV_CSR_ALG2, "CSR_ALG2"},
                    {CUSPARSE_SPMV_ALG_DEFAULT, "ALG_DEFAULT"}};
    double one = 1, zero = 0;
    size_t bytes = 0;
    bool runs = false;
    for (const auto &a : cus_algs) {
        cusparseStatus_t e = cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                     &one, c->A, c->vx, &zero, c->vy, CUDA_R_64F,
                                                     a.alg, &bytes);
        if (e == CUSPARSE_STATUS_SUCCESS && !device_fits("spmv64: cuSPARSE SpMV buffer", (double)bytes))
            break;
        if (e == CUSPARSE_STATUS_SUCCESS) {
            CUDA_OK(cudaMalloc(&c->d_buf, bytes + 1));
            e = cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->A, c->vx, &zero,
                             c->vy, CUDA_R_64F, a.alg, c->d_buf);
            if (e == CUSPARSE_STATUS_SUCCESS && cudaDeviceSynchronize() != cudaSuccess)
                e = CUSPARSE_STATUS_EXECUTION_FAILED;
        }
        if (e == CUSPARSE_STATUS_SUCCESS) {
            c->alg = a.alg;
            c->alg_name = a.name;
            runs = true;
            break;
        }
        std::printf("spmv64: cuSPARSE SpMV %s fails on this matrix: %s\n", a.name,
                    cusparseGetErrorString(e));
        (void)cudaGetLastError();
        CUDA_OK(cudaFree(c->d_buf));
        c->d_buf = nullptr;
    }
    if (!runs) {
        std::printf("spmv64: refused: cuSPARSE SpMV runs with none of its CSR algorithms here\n");
        cus_free(c);
        return false;
    }
    std::printf("spmv64: cuSPARSE CSR built from the host arrays in %.1f s (row offsets %d-bit, "
                "column ids %d-bit, SpMV buffer %zu bytes)\n",
                (wall_ms() - t0) / 1e3, ptr_bits, col64 ? 64 : 32, bytes);
    std::fflush(stdout);
    return true;
}

static void cus_spmv(cus_csr *c)
{
    double one = 1, zero = 0;
    CUSPARSE_OK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->A, c->vx, &zero,
                             c->vy, CUDA_R_64F, c->alg, c->d_buf));
}

/* ---- the read bandwidth ----------------------------------------------------------------- */

struct segments {
    const ulonglong2 *p[4];
    unsigned long long n[4]; /* 16-byte words */
};

/* Grid-stride 16-byte loads over each segment, folded by XOR so the loads stay; one atomic
 * per block. */
__global__ void read_segments_kernel(segments s, unsigned long long *sink)
{
    unsigned long long acc = 0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (int k = 0; k < 4; k++)
        for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
             i < s.n[k]; i += stride) {
            ulonglong2 v = s.p[k][i];
            acc ^= v.x ^ v.y;
        }
    for (int off = 16; off > 0; off /= 2) acc ^= __shfl_down_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0) atomicXor(sink, acc);
}

struct reader {
    segments s;
    double bytes = 0;
    int blocks = 0;
    unsigned long long *d_sink = nullptr;
};

static void reader_init(reader *r, const void *const *ptrs, const double *bytes, int count)
{
    std::memset(&r->s, 0, sizeof r->s);
    r->bytes = 0;
    for (int k = 0; k < count; k++) {
        r->s.p[k] = (const ulonglong2 *)ptrs[k];
        r->s.n[k] = (unsigned long long)(bytes[k] / 16);
        r->bytes += (double)r->s.n[k] * 16;
    }
    int dev = 0, sms = 0, per_sm = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_segments_kernel, 512, 0));
    r->blocks = std::max(1, sms * std::max(1, per_sm));
    CUDA_OK(cudaMalloc(&r->d_sink, sizeof *r->d_sink));
    CUDA_OK(cudaMemset(r->d_sink, 0, sizeof *r->d_sink));
}

static void reader_run(reader *r)
{
    read_segments_kernel<<<r->blocks, 512, 0, stream>>>(r->s, r->d_sink);
    CUDA_OK(cudaGetLastError());
}

/* A read buffer of the bench's own for *r (where cuSPARSE's arrays are not there to read):
 * want bytes, or what the device has free less 2 GiB; nullptr (r untouched) below 1 GiB. */
static void *own_read_buffer(double want, reader *r)
{
    size_t fb = 0, tb = 0;
    CUDA_OK(cudaMemGetInfo(&fb, &tb));
    const double room = (double)fb - 2.0 * (1 << 30), bytes = want < room ? want : room;
    void *d = nullptr;
    if (bytes < (double)(1 << 30)) return nullptr;
    CUDA_OK(cudaMalloc(&d, (size_t)bytes + 16));
    CUDA_OK(cudaMemset(d, 1, (size_t)bytes + 16));
    const void *rp[1] = {d};
    const double rb[1] = {bytes};
    reader_init(r, rp, rb, 1);
    return d;
}

/* ---- checks ----------------------------------------------------------------------------- */

static std::vector<double> to_host(const double *d, int64_t n)
{
    std::vector<double> h((size_t)n);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(h.data(), d, (size_t)n * 8, cudaMemcpyDeviceToHost));
    return h;
}

/* max_i |a_i - b_i| / max_i |b_i| */
static double max_rel_err(const std::vector<double> &a, const std::vector<double> &b)
{
    double diff = 0, scale = 0;
    for (size_t i = 0; i < a.size(); i++) {
        diff = std::max(diff, std::fabs(a[i] - b[i]));
        scale = std::max(scale, std::fabs(b[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

/* ---- main ------------------------------------------------------------------------------- */

struct options {
    long long n = 700;
    int points = 7, offsets = 64, reps = 20, warmup = 10;
};

static int refuse(const char *what, sp_status_t st)
{
    std::printf("spmv64: refused: %s: %s: %s\n", what, sp_status_string(st), sp_last_error());
    return 3;
}

static bool parse(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--n") && i + 1 < argc)
            o->n = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--points") && i + 1 < argc)
            o->points = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--offsets") && i + 1 < argc)
            o->offsets = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            o->reps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--warmup") && i + 1 < argc)
            o->warmup = std::atoi(argv[++i]);
        else
            return false;
    }
    return o->n > 0 && o->reps > 0 && o->warmup >= 0 && (o->points == 7 || o->points == 27) &&
           (o->offsets == 0 || o->offsets == 32 || o->offsets == 64);
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr,
                     "usage: %s [--n N] [--points 7|27] [--offsets 64|32|0] [--reps R] "
                     "[--warmup W]\n",
                     argv[0]);
        return 2;
    }
    const int dev = gpu_banner();
    if (dev < 0) return 77; /* no GPU: ctest's skip code */
    cusparse_open(&stream, &handle);
    double free_b = 0, total_b = 0;
    device_memory(&free_b, &total_b);
    const bool mixed = cusparse_takes_mixed_indices();
    std::printf("spmv64: cuSPARSE SpMV with 64-bit row offsets and 32-bit column ids: %s\n",
                mixed ? "taken (probe on a 3x3 CSR gave the right y)"
                      : "NOT taken by this cuSPARSE: its column ids are widened to 64 bits on "
                        "the device, for cuSPARSE only");

    /* the matrix on the host */
    double t0 = wall_ms();
    sp_coo_t *coo = nullptr;
    const char *gen = o.points == 27 ? "sp_gen_poisson3d27" : "sp_gen_poisson3d";
    sp_status_t st = o.points == 27 ? sp_gen_poisson3d27(o.n, SP_R_64F, &coo)
                                    : sp_gen_poisson3d(o.n, SP_R_64F, &coo);
    if (st != SP_STATUS_SUCCESS) return refuse(gen, st);
    const int64_t m = coo->nrows, nnz = coo->nnz;
    if (!(coo->flags & SP_COO_SORTED)) {
        std::printf("spmv64: FAILED: %s gave an unsorted COO\n", gen);
        return 1;
    }
    std::printf("spmv64: poisson3d%s:%lld: %lld rows, %lld entries (%s 2^31), generated in "
                "%.1f s\n",
                o.points == 27 ? "27" : "", o.n, (long long)m, (long long)nnz,
                nnz >= ((int64_t)1 << 31) ? "past" : "below",
                (wall_ms() - t0) / 1e3);

    /* the parts' bytes */
    const int lib_ptr_bits = o.offsets == 0 ? (nnz >= ((int64_t)1 << 31) ? 64 : 32) : o.offsets;
    const int cus_ptr_bits = lib_ptr_bits;
    const bool col64 = !mixed && cus_ptr_bits == 64;
    const double vec = (double)m * 8;
    const double lib_csr = (double)(m + 1) * (lib_ptr_bits / 8) + (double)nnz * 12;
    const double model = lib_csr + 2 * vec; /* + x read + y written */
    std::printf("spmv64: bytes: host COO %.2f GB; the COO on the device (16 B an entry) %.2f GB; "
                "libsp CSR %.2f GB (%d-bit pointers); x and y %.2f GB each; cuSPARSE CSR "
                "%.2f GB; device %.2f GB free of %.2f\n",
                nnz * 16.0 / 1e9, nnz * 16.0 / 1e9, lib_csr / 1e9, lib_ptr_bits, vec / 1e9,
                cus_bytes(coo, cus_ptr_bits, col64) / 1e9, free_b / 1e9, total_b / 1e9);
    std::printf("spmv64: byte model: CSR with %d-bit pointers: (nrows+1)*%d + nnz*(4+8) + ncols*8 "
                "(x) + nrows*8 (y) = %.0f bytes a product\n",
                lib_ptr_bits, lib_ptr_bits / 8, model);
    std::fflush(stdout);

    /* libsp: upload and build */
    sp_context_t *ctx = nullptr;
    sp_context_options_t co;
    std::memset(&co, 0, sizeof co);
    co.device = dev;
    co.stream = stream;
    SP_OK(sp_context_create(SP_DEVICE_CUDA, &co, &ctx));
    sp_matrix_options_t mo;
    std::memset(&mo, 0, sizeof mo);
    mo.offset_bits = o.offsets;
    sp_matrix_t *A = nullptr;
    t0 = wall_ms();
    st = sp_matrix_create(ctx, coo, &mo, &A);
    if (st != SP_STATUS_SUCCESS) return refuse("libsp sp_matrix_create", st);
    double create_ms = wall_ms() - t0;
    st = sp_matrix_build(ctx, A, SP_FORMAT_CSR);
    if (st == SP_STATUS_SUCCESS) st = sp_context_synchronize(ctx);
    if (st != SP_STATUS_SUCCESS) return refuse("libsp sp_matrix_build(CSR)", st);
    sp_matrix_info_t info;
    SP_OK(sp_matrix_info(A, &info));
    std::printf("spmv64: libsp sp_matrix_create %.1f s + sp_matrix_build(CSR) %.1f s; holds COO "
                "%.2f GB, CSR %.2f GB; offset_bits %d\n",
                create_ms / 1e3, (wall_ms() - t0 - create_ms) / 1e3,
                info.bytes[SP_FORMAT_COO] / 1e9, info.bytes[SP_FORMAT_CSR] / 1e9,
                info.offset_bits);
    /* the COO's device memory back: the CSR holds the entries (issue 20), and at 700^3 the
       COO (38 GB) beside the CSR leaves an 80 GB card no room for ELL */
    SP_OK(sp_matrix_release(ctx, A, SP_FORMAT_COO));
    std::printf("spmv64: the device COO released (sp_matrix_release): %.2f GB back\n",
                info.bytes[SP_FORMAT_COO] / 1e9);

    /* x and libsp's y */
    if (!device_fits("spmv64: x and y", 2 * vec)) return 3;
    double *d_x = nullptr, *d_y = nullptr;
    CUDA_OK(cudaMalloc(&d_x, (size_t)vec + 8));
    CUDA_OK(cudaMalloc(&d_y, (size_t)vec + 8));
    {
        std::vector<double> h_x((size_t)m);
        for (int64_t i = 0; i < m; i++)
            h_x[(size_t)i] = 0.5 + (double)(((uint64_t)i * 2654435761u) % 1000u) / 1000.0;
        CUDA_OK(cudaMemcpy(d_x, h_x.data(), (size_t)vec, cudaMemcpyHostToDevice));
        CUDA_OK(cudaDeviceSynchronize());
    }

    /* libsp's calls: AUTO (when it serves the matrix) and CSR, prepared */
    const int calls = std::max(1, (int)(sample_entries / (double)std::max<int64_t>(nnz, 1)));
    std::vector<sp_format_t> formats;
    std::vector<std::string> labels;
    sp_format_t chosen = SP_FORMAT_CSR;
    st = sp_spmv_prepare(ctx, A, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT);
    if (st == SP_STATUS_SUCCESS) st = sp_spmv_choose_format(ctx, A, &chosen);
    if (st == SP_STATUS_SUCCESS) {
        formats.push_back(SP_FORMAT_AUTO);
        labels.push_back(std::string("auto(") + sp_format_name(chosen) + ")");
    } else {
        std::printf("spmv64: AUTO not timed: sp_spmv_prepare(AUTO) gave %s: %s\n",
                    sp_status_string(st), sp_last_error());
    }
    st = sp_spmv_prepare(ctx, A, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT);
    if (st != SP_STATUS_SUCCESS) return refuse("libsp sp_spmv_prepare(CSR)", st);
    formats.push_back(SP_FORMAT_CSR);
    labels.push_back("csr");
    /* ELL too where libsp builds it (64-bit offsets on a GPU: when no row needs its tail) */
    double ell_model = 0.0;
    st = sp_spmv_prepare(ctx, A, SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT);
    if (st == SP_STATUS_SUCCESS) {
        SP_OK(sp_matrix_info(A, &info));
        ell_model = (double)info.bytes[SP_FORMAT_ELL] + 2 * vec;
        formats.push_back(SP_FORMAT_ELL);
        labels.push_back("ell");
        std::printf("spmv64: libsp ELL built: %.2f GB (width %lld); its byte model: the slots "
                    "+ x + y = %.0f bytes a product\n",
                    info.bytes[SP_FORMAT_ELL] / 1e9, (long long)info.ell_width, ell_model);
    } else {
        std::printf("spmv64: ELL not timed: %s: %s\n", sp_status_string(st), sp_last_error());
    }
    /* each format's bytes a product (AUTO: those of the format it chose) */
    std::vector<double> fmodel;
    for (size_t i = 0; i < formats.size(); i++)
        fmodel.push_back((formats[i] == SP_FORMAT_ELL ||
                          (formats[i] == SP_FORMAT_AUTO && chosen == SP_FORMAT_ELL)) &&
                                 ell_model > 0
                             ? ell_model
                             : model);
    std::vector<std::function<void()>> fns;
    for (sp_format_t f : formats)
        fns.push_back([&, f] {
            for (int k = 0; k < calls; k++)
                SP_OK(sp_spmv_f64(ctx, f, SP_SPMV_ALG_DEFAULT, 1.0, A, d_x, 0.0, d_y));
        });

    /* cuSPARSE beside libsp when both fit; else after it */
    double cus_need = cus_bytes(coo, cus_ptr_bits, col64) + vec;
    device_memory(&free_b, &total_b);
    const bool together = cus_need + 512.0 * (1 << 20) <= free_b;
    std::printf("spmv64: timing: %s\n",
                together ? "libsp, cuSPARSE and the read kernel interleaved"
                         : "NOT interleaved: libsp's matrix and cuSPARSE's CSR do not fit on the "
                           "device together; libsp first, then its matrix and context destroyed, "
                           "then cuSPARSE and the read kernel");
    std::fflush(stdout);
    cus_csr cus;
    reader rd;
    double *d_yc = nullptr;
    std::vector<stats> s_lib, s_cus;
    auto add_baselines = [&] {
        const void *ptrs[4] = {cus.d_ptr, cus.d_col, cus.d_val, d_x};
        const double bytes[4] = {(double)(m + 1) * (lib_ptr_bits / 8), (double)nnz * 4,
                                 (double)nnz * 8, vec};
        reader_init(&rd, ptrs, bytes, 4);
        return std::vector<std::function<void()>>{
            [&] {
                for (int k = 0; k < calls; k++) cus_spmv(&cus);
            },
            [&] {
                for (int k = 0; k < calls; k++) reader_run(&rd);
            }};
    };
    /* libsp's lines when cuSPARSE cannot run the matrix: against the read bandwidth only */
    auto report_alone = [&](const std::vector<stats> &lib, double read_gbs) {
        for (size_t i = 0; i < formats.size(); i++) {
            const double ms = lib[i].median / calls, gbs = fmodel[i] / (ms * 1e-3) / 1e9;
            std::printf("spmv64: n %lld nnz %lld offset_bits %d alg %s libsp_ms %.3f (min %.3f "
                        "max %.3f) libsp_GBs %.1f read_GBs %.1f bw_fraction %.2f (target >= "
                        "0.85: %s) cusparse_ms n/a (refused above)\n",
                        o.n, (long long)nnz, info.offset_bits, labels[i].c_str(), ms,
                        lib[i].min / calls, lib[i].max / calls, gbs, read_gbs,
                        read_gbs > 0 ? gbs / read_gbs : 0.0,
                        read_gbs > 0 && gbs / read_gbs >= 0.85 ? "met" : "missed");
        }
        std::fflush(stdout);
    };
    std::vector<std::vector<double>> y_lib;
    if (together) {
        CUDA_OK(cudaMalloc(&d_yc, (size_t)vec + 8));
        if (!cus_build(coo, cus_ptr_bits, col64, d_x, d_yc, &cus)) {
            /* libsp against the read bandwidth alone: a streaming read of a buffer of its own
               (the model's bytes, or what fits), interleaved with libsp */
            void *d_read = own_read_buffer(model, &rd);
            std::vector<stats> s_all;
            if (d_read)
                fns.push_back([&] {
                    for (int k = 0; k < calls; k++) reader_run(&rd);
                });
            time_group(stream, o.warmup, o.reps, fns, &s_all);
            const double read_gbs = d_read ? rd.bytes / (s_all.back().median / calls * 1e-3) / 1e9
                                           : 0.0;
            if (d_read)
                std::printf("spmv64: read_bw %.1f GB/s (streaming read of a buffer of %.0f bytes "
                            "of its own, interleaved with libsp)\n",
                            read_gbs, rd.bytes);
            report_alone(s_all, read_gbs);
            if (d_read) CUDA_OK(cudaFree(d_read));
            return 3;
        }
        std::vector<std::function<void()>> b = add_baselines();
        fns.insert(fns.end(), b.begin(), b.end());
        std::vector<stats> all;
        time_group(stream, o.warmup, o.reps, fns, &all);
        s_lib.assign(all.begin(), all.begin() + (long)formats.size());
        s_cus.assign(all.begin() + (long)formats.size(), all.end());
    } else {
        time_group(stream, o.warmup, o.reps, fns, &s_lib);
    }
    for (size_t i = 0; i < formats.size(); i++) {
        SP_OK(sp_spmv_f64(ctx, formats[i], SP_SPMV_ALG_DEFAULT, 1.0, A, d_x, 0.0, d_y));
        y_lib.push_back(to_host(d_y, m));
    }
    if (!together) {
        sp_matrix_destroy(A);
        A = nullptr;
        sp_context_destroy(ctx); /* its memory pool goes with it */
        ctx = nullptr;
        CUDA_OK(cudaDeviceSynchronize());
        d_yc = d_y;
        d_y = nullptr;
        if (!cus_build(coo, cus_ptr_bits, col64, d_x, d_yc, &cus)) {
            /* the read bandwidth alone (libsp is gone): a buffer of its own */
            double read_gbs = 0.0;
            if (void *d_read = own_read_buffer(model, &rd)) {
                std::vector<stats> s_read;
                time_group(stream, o.warmup, o.reps,
                           {[&] {
                               for (int k = 0; k < calls; k++) reader_run(&rd);
                           }},
                           &s_read);
                read_gbs = rd.bytes / (s_read[0].median / calls * 1e-3) / 1e9;
                std::printf("spmv64: read_bw %.1f GB/s (streaming read of a buffer of %.0f bytes "
                            "of its own, after libsp: not interleaved)\n",
                            read_gbs, rd.bytes);
                CUDA_OK(cudaFree(d_read));
            }
            report_alone(s_lib, read_gbs);
            return 3;
        }
        time_group(stream, o.warmup, o.reps, add_baselines(), &s_cus);
    }
    cus_spmv(&cus);
    std::vector<double> y_cus = to_host(d_yc, m);

    /* the report */
    const double cus_ms = s_cus[0].median / calls, read_ms = s_cus[1].median / calls;
    const double read_gbs = rd.bytes / (read_ms * 1e-3) / 1e9;
    std::printf("spmv64: read_bw %.1f GB/s (streaming read of %.0f bytes: ptr + col + val + x; "
                "%.3f ms; %d calls a sample, %d samples after %d warm-up)\n",
                read_gbs, rd.bytes, read_ms, calls, o.reps, o.warmup);
    std::printf("spmv64: cuSPARSE %s (%d-bit offsets, %d-bit columns) %.3f ms (min %.3f "
                "max %.3f), %.1f GB/s under the model, %.2f of read bandwidth\n",
                cus.alg_name, cus_ptr_bits, col64 ? 64 : 32, cus_ms, s_cus[0].min / calls, s_cus[0].max / calls,
                model / (cus_ms * 1e-3) / 1e9, model / (cus_ms * 1e-3) / 1e9 / read_gbs);
    bool ok = true;
    for (size_t i = 0; i < formats.size(); i++) {
        const double ms = s_lib[i].median / calls, gbs = fmodel[i] / (ms * 1e-3) / 1e9;
        const double speedup = cus_ms / ms, frac = gbs / read_gbs;
        const double err = max_rel_err(y_lib[i], y_cus);
        const bool good = err <= max_rel_err_allowed;
        ok = ok && good;
        std::printf("spmv64: n %lld nnz %lld offset_bits %d alg %s libsp_ms %.3f (min %.3f max "
                    "%.3f) cusparse_ms %.3f speedup %.2f (target >= 1.3: %s) libsp_GBs %.1f "
                    "read_GBs %.1f bw_fraction %.2f (target >= 0.85: %s) max_rel_err %.2e check "
                    "%s%s\n",
                    o.n, (long long)nnz, info.offset_bits, labels[i].c_str(), ms,
                    s_lib[i].min / calls, s_lib[i].max / calls, cus_ms, speedup,
                    speedup >= 1.3 ? "met" : "missed", gbs, read_gbs, frac,
                    frac >= 0.85 ? "met" : "missed", err, good ? "ok" : "FAILED",
                    together ? "" : " (not interleaved)");
    }
    cus_free(&cus);
    CUDA_OK(cudaFree(rd.d_sink));
    CUDA_OK(cudaFree(d_yc));
    CUDA_OK(cudaFree(d_y));
    CUDA_OK(cudaFree(d_x));
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    sp_coo_free(coo);
    CUSPARSE_OK(cusparseDestroy(handle));
    CUDA_OK(cudaStreamDestroy(stream));
    std::printf("spmv64_bench: %s\n", ok ? "checks passed" : "FAILED (see above)");
    return ok ? 0 : 1;
}
