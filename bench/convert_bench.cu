/* convert_bench: libsp's GPU conversions against cuSPARSE in the same process, calls
 * interleaved, timed with CUDA events: (a) COO -> CSR from shuffled entries (libsp
 * sort-merge + coo_to_csr against cusparseXcoosortByRow + a value gather +
 * cusparseXcoo2csr), (b) CSR -> CSC by the default path and by the count-scan-scatter
 * transpose (each against cusparseCsr2cscEx2), (c) the build time of
 * ELL, HYB, JDS and SELL in units of one cuSPARSE CSR SpMV of the same matrix (float and
 * double). libsp's CSR and CSC are compared with cuSPARSE's array by array. Prints a
 * markdown table.
 *
 *   convert_bench [--reps N] [--transpose-only] [--onesweep -1|0|1] [--input NAME]...
 *       NAME: kron22, kron23, poisson160, or a .mtx path (default: all of them, with every
 *       file of datasets/mtx); --transpose-only: the COO -> CSR and CSR -> CSC rows alone;
 *       --onesweep: the radix sort's passes (sp__gpu_radix_sort_set_onesweep: 1 onesweep,
 *       0 classic, -1 the default's choice by size).
 * The CSR -> CSC rows come four to an input: the default path and the scatter transpose,
 * each of the values (double) and of the pattern alone. On stderr, as each row is printed,
 * a CHECK line for a row with a cuSPARSE time: both times, the ratio and the bit-exact
 * check.
 *
 * Device memory for libsp comes from stream-ordered cudaMallocAsync on the device's
 * default pool, whose release threshold is raised so freed memory stays in the pool. */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <dirent.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "bench_host.cuh"
#include "cusparse_ok.cuh"
#include "gpu_timing.cuh"
#include "sp_kernels.h"


static const int warmup = 10;
static int reps_small = 50;
static bool transpose_only = false; /* --transpose-only: COO->CSR and CSR->CSC rows alone */
static cudaStream_t stream;
static cusparseHandle_t handle;
static sp_gpu_env_t env;

/* ELL is skipped where its padded arrays would exceed this (power-law rows). */
static const double ell_limit_bytes = 16e9;

/* ---- device memory for libsp: the default pool, stream-ordered ------------------------ */

static sp_status_t pool_alloc(void *self, void **d_ptr, size_t bytes)
{
    (void)self;
    if (bytes == 0) {
        *d_ptr = nullptr;
        return SP_STATUS_SUCCESS;
    }
    if (cudaMallocAsync(d_ptr, bytes, stream) != cudaSuccess) {
        (void)cudaGetLastError();
        std::fprintf(stderr, "cudaMallocAsync of %zu bytes failed\n", bytes);
        return SP_STATUS_ALLOC_FAILED;
    }
    return SP_STATUS_SUCCESS;
}

static void pool_free(void *self, void *d_ptr)
{
    (void)self;
    if (d_ptr) CUDA_OK(cudaFreeAsync(d_ptr, stream));
}

static void setup_env()
{
    int dev = 0, sms = 0, l2 = 0;
    CUDA_OK(cudaGetDevice(&dev));
    cudaMemPool_t pool;
    CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, dev));
    uint64_t keep = UINT64_MAX;
    CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_OK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    env.stream = stream;
    env.alloc = pool_alloc;
    env.free = pool_free;
    env.self = nullptr;
    env.sm_count = sms;
    env.l2_bytes = l2;
}

static void *dmalloc(size_t bytes)
{
    void *p = nullptr;
    CUDA_OK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
    return p;
}

static void to_dev(void *d, const void *h, size_t bytes)
{
    if (bytes) CUDA_OK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
}

/* Device arrays equal byte for byte (a, b may be null when bytes is 0). */
static bool same_bytes(const void *a, const void *b, size_t bytes)
{
    if (bytes == 0) return true;
    std::vector<char> ha(bytes), hb(bytes);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost));
    return std::memcmp(ha.data(), hb.data(), bytes) == 0;
}

/* ---- inputs ----------------------------------------------------------------------------- */

struct input {
    std::string name;
    sp_coo_t *coo; /* host, double values, sorted and merged */
};

/* Generates or reads the input; a file the library refuses (complex values, say) gives
 * coo NULL and the reason in `why`. */
static input load_input(const std::string &name, std::string *why)
{
    sp_coo_t *coo = nullptr;
    sp_status_t st = SP_STATUS_SUCCESS;
    if (name == "kron22" || name == "kron23") {
        st = sp_gen_kronecker(name == "kron22" ? 22 : 23, 16, 1, SP_R_64F, &coo);
        if (st == SP_STATUS_SUCCESS) st = sp_coo_symmetrize(coo, 0);
    } else if (name == "poisson160") {
        st = sp_gen_poisson3d(160, SP_R_64F, &coo);
    } else {
        st = sp_mtx_read(name.c_str(), SP_R_64F, nullptr, &coo);
        if (st == SP_STATUS_SUCCESS) st = sp_coo_sort_merge(coo, SP_DUP_SUM, nullptr);
    }
    if (st != SP_STATUS_SUCCESS) {
        *why = sp_last_error();
        sp_coo_free(coo);
        coo = nullptr;
    }
    std::string shown = name;
    size_t slash = shown.rfind('/');
    if (slash != std::string::npos) shown = shown.substr(slash + 1);
    return {shown, coo};
}

/* ---- one matrix --------------------------------------------------------------------------- */

struct dev_coo {
    int32_t *row, *col;
    double *val;
};

__global__ void gather_kernel(const double *in, const int *perm, double *out, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = in[perm[i]];
}

__global__ void iota_kernel(int *a, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        a[i] = (int)i;
}

__global__ void to_float_kernel(const double *in, float *out, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = (float)in[i];
}

static void print_row(const char *matrix, long long nnz, const char *op, stats a, stats b,
                      const char *check)
{
    if (b.median == 0)
        std::printf("| %s | %lld | %s | %.3f / %.3f / %.3f | - | - | %s |\n", matrix, nnz, op,
                    a.median, a.min, a.max, check);
    else
        std::printf("| %s | %lld | %s | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %.2f | %s |\n",
                    matrix, nnz, op, a.median, a.min, a.max, b.median, b.min, b.max,
                    b.median / a.median, check);
    std::fflush(stdout);
    if (b.median == 0) return;
    /* the same on stderr, one line a row as it comes, for scripts (the table stays whole on
     * stdout) */
    char line[320];
    std::snprintf(line, sizeof line,
                  "CHECK %s, %s, nnz %lld: libsp %.3f ms, cuSPARSE %.3f ms, libsp/cuSPARSE "
                  "throughput %.2fx, bit-exact %s",
                  matrix, op, nnz, a.median, b.median, b.median / a.median, check);
    std::fprintf(stderr, "%s\n", line);
}

/* (a) COO -> CSR from the shuffled entries; leaves libsp's CSR (double) in *out. */
static void bench_coo_to_csr(const input &in, const sp_coo_t *h, int reps, sp_csr_t *out)
{
    const int64_t m = h->nrows, nnz = h->nnz;
    const size_t ib = (size_t)nnz * 4, vb = (size_t)nnz * 8;
    /* shuffled host copy, fixed seed */
    std::vector<int32_t> r(h->row, h->row + nnz), c(h->col, h->col + nnz);
    const double *hv = static_cast<const double *>(h->val);
    std::vector<double> v(hv, hv + nnz);
    shuffle_entries(r.data(), c.data(), v.data(), nnz, 12345);
    dev_coo src = {(int32_t *)dmalloc(ib), (int32_t *)dmalloc(ib), (double *)dmalloc(vb)};
    to_dev(src.row, r.data(), ib);
    to_dev(src.col, c.data(), ib);
    to_dev(src.val, v.data(), vb);

    /* cuSPARSE: in-place sort of working copies, permutation, gather, compress */
    dev_coo w = {(int32_t *)dmalloc(ib), (int32_t *)dmalloc(ib), (double *)dmalloc(vb)};
    int *perm = (int *)dmalloc(ib), *cs_ptr = (int *)dmalloc((size_t)(m + 1) * 4);
    size_t buf_bytes = 0;
    CUSPARSE_OK(cusparseXcoosort_bufferSizeExt(handle, (int)m, (int)h->ncols, (int)nnz, w.row,
                                               w.col, &buf_bytes));
    void *buf = dmalloc(buf_bytes);

    sp_triplets_t t;
    sp_csr_t csr;
    std::memset(&csr, 0, sizeof csr);
    auto prep_libsp = [&] {
        t.nrows = m;
        t.ncols = h->ncols;
        t.nnz = nnz;
        t.value_type = SP_R_64F;
        SP_OK(env.alloc(env.self, (void **)&t.row, ib));
        SP_OK(env.alloc(env.self, (void **)&t.col, ib));
        SP_OK(env.alloc(env.self, &t.val, vb));
        CUDA_OK(cudaMemcpyAsync(t.row, src.row, ib, cudaMemcpyDeviceToDevice, stream));
        CUDA_OK(cudaMemcpyAsync(t.col, src.col, ib, cudaMemcpyDeviceToDevice, stream));
        CUDA_OK(cudaMemcpyAsync(t.val, src.val, vb, cudaMemcpyDeviceToDevice, stream));
    };
    auto run_libsp = [&] {
        SP_OK(sp__gpu_coo_sort_merge(&env, &t, SP_DUP_SUM, nullptr));
        SP_OK(sp__gpu_coo_to_csr(&env, &t, &csr));
    };
    auto prep_cusparse = [&] {
        CUDA_OK(cudaMemcpyAsync(w.row, src.row, ib, cudaMemcpyDeviceToDevice, stream));
        CUDA_OK(cudaMemcpyAsync(w.col, src.col, ib, cudaMemcpyDeviceToDevice, stream));
    };
    auto run_cusparse = [&] {
        iota_kernel<<<1024, 256, 0, stream>>>(perm, nnz);
        CUDA_OK(cudaGetLastError());
        CUSPARSE_OK(cusparseXcoosortByRow(handle, (int)m, (int)h->ncols, (int)nnz, w.row, w.col,
                                          perm, buf));
        gather_kernel<<<1024, 256, 0, stream>>>(src.val, perm, w.val, nnz);
        CUDA_OK(cudaGetLastError());
        CUSPARSE_OK(cusparseXcoo2csr(handle, w.row, (int)nnz, (int)m, cs_ptr,
                                     CUSPARSE_INDEX_BASE_ZERO));
    };
    int round = 0;
    auto after = [&] { /* libsp's outputs go back to the pool, except the last ones */
        if (++round % 2 == 1 && round < 2 * (warmup + reps) - 1) {
            sp__gpu_triplets_free(&env, &t);
            sp__gpu_csr_free(&env, &csr);
        }
    };
    stats sa, sb;
    time_pair(stream, warmup, reps, prep_libsp, run_libsp, run_cusparse, &sa, &sb, prep_cusparse,
              after);
    bool ok = csr.nnz == nnz && same_bytes(csr.ptr, cs_ptr, (size_t)(m + 1) * 4) &&
              same_bytes(csr.idx, w.col, ib) && same_bytes(csr.val, w.val, vb);
    print_row(in.name.c_str(), (long long)nnz, "COO->CSR (shuffled)", sa, sb, ok ? "ok" : "MISMATCH");
    sp__gpu_triplets_free(&env, &t);
    *out = csr;
    CUDA_OK(cudaFree(buf));
    CUDA_OK(cudaFree(cs_ptr));
    CUDA_OK(cudaFree(perm));
    CUDA_OK(cudaFree(w.val));
    CUDA_OK(cudaFree(w.col));
    CUDA_OK(cudaFree(w.row));
    CUDA_OK(cudaFree(src.val));
    CUDA_OK(cudaFree(src.col));
    CUDA_OK(cudaFree(src.row));
}

/* (b) CSR -> CSC: the default path, or (scatter) the count-scan-scatter transpose; of the
 * values (double), or (pattern) of the pattern alone (a graph's CSC; cuSPARSE's SYMBOLIC
 * action, values left alone), where only ptr and idx are compared. */
static void bench_csr_to_csc(const input &in, const sp_csr_t *csr_in, int reps, bool scatter,
                             bool pattern = false)
{
    sp_csr_t pat = *csr_in;
    if (pattern) {
        pat.value_type = SP_VALUE_NONE;
        pat.val = nullptr;
    }
    const sp_csr_t *csr = &pat;
    const int64_t m = csr->nrows, n = csr->ncols, nnz = csr->nnz;
    const cusparseAction_t action =
        pattern ? CUSPARSE_ACTION_SYMBOLIC : CUSPARSE_ACTION_NUMERIC;
    const size_t ib = (size_t)nnz * 4, vb = (size_t)nnz * 8;
    int *c_ptr = (int *)dmalloc((size_t)(n + 1) * 4), *c_idx = (int *)dmalloc(ib);
    double *c_val = (double *)dmalloc(vb);
    size_t buf_bytes = 0;
    CUSPARSE_OK(cusparseCsr2cscEx2_bufferSize(
        handle, (int)m, (int)n, (int)nnz, csr_in->val, csr->ptr, csr->idx, c_val, c_ptr, c_idx,
        CUDA_R_64F, action, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &buf_bytes));
    void *buf = dmalloc(buf_bytes);
    sp_csr_t csc;
    std::memset(&csc, 0, sizeof csc);
    int round = 0, scattered = 1;
    stats sa, sb;
    time_pair(
        stream, warmup, reps, nullptr,
        [&] {
            if (scatter)
                SP_OK(sp__gpu_csr_to_csc_scatter(&env, csr, &csc, &scattered));
            else
                SP_OK(sp__gpu_csr_to_csc(&env, csr, &csc));
        },
        [&] {
            CUSPARSE_OK(cusparseCsr2cscEx2(handle, (int)m, (int)n, (int)nnz, csr_in->val,
                                           csr->ptr, csr->idx, c_val, c_ptr, c_idx, CUDA_R_64F,
                                           action, CUSPARSE_INDEX_BASE_ZERO,
                                           CUSPARSE_CSR2CSC_ALG1, buf));
        },
        &sa, &sb, nullptr, [&] {
            if (++round % 2 == 1 && round < 2 * (warmup + reps) - 1) sp__gpu_csr_free(&env, &csc);
        });
    bool ok = csc.nnz == nnz && same_bytes(csc.ptr, c_ptr, (size_t)(n + 1) * 4) &&
              same_bytes(csc.idx, c_idx, ib) && (pattern || same_bytes(csc.val, c_val, vb));
    std::string op = !scatter    ? "CSR->CSC"
                     : scattered ? "CSR->CSC by scatter"
                                 : "CSR->CSC by scatter (fell back to sort)";
    if (pattern) op += " (pattern)";
    print_row(in.name.c_str(), (long long)nnz, op.c_str(), sa, sb, ok ? "ok" : "MISMATCH");
    sp__gpu_csr_free(&env, &csc);
    CUDA_OK(cudaFree(buf));
    CUDA_OK(cudaFree(c_val));
    CUDA_OK(cudaFree(c_idx));
    CUDA_OK(cudaFree(c_ptr));
}

/* One cuSPARSE CSR SpMV (y = A x, CSR_ALG1) of the given value type: median ms. */
static stats spmv_time(const sp_csr_t *csr, cudaDataType vt, int reps)
{
    const int64_t m = csr->nrows, n = csr->ncols;
    size_t es = vt == CUDA_R_32F ? 4 : 8;
    void *x = dmalloc((size_t)n * es), *y = dmalloc((size_t)m * es);
    CUDA_OK(cudaMemset(x, 0, (size_t)n * es));
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vx, vy;
    CUSPARSE_OK(cusparseCreateCsr(&A, m, n, csr->nnz, csr->ptr, csr->idx, csr->val,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                  vt));
    CUSPARSE_OK(cusparseCreateDnVec(&vx, n, x, vt));
    CUSPARSE_OK(cusparseCreateDnVec(&vy, m, y, vt));
    float alpha32 = 1, beta32 = 0;
    double alpha64 = 1, beta64 = 0;
    const void *alpha = vt == CUDA_R_32F ? (const void *)&alpha32 : (const void *)&alpha64;
    const void *beta = vt == CUDA_R_32F ? (const void *)&beta32 : (const void *)&beta64;
    size_t buf_bytes = 0;
    CUSPARSE_OK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, vx, beta,
                                        vy, vt, CUSPARSE_SPMV_CSR_ALG1, &buf_bytes));
    void *buf = dmalloc(buf_bytes);
    stats s, none;
    time_pair(
        stream, warmup, reps, nullptr,
        [&] {
            CUSPARSE_OK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, vx, beta,
                                     vy, vt, CUSPARSE_SPMV_CSR_ALG1, buf));
        },
        nullptr, &s, &none);
    CUSPARSE_OK(cusparseDestroyDnVec(vy));
    CUSPARSE_OK(cusparseDestroyDnVec(vx));
    CUSPARSE_OK(cusparseDestroySpMat(A));
    CUDA_OK(cudaFree(buf));
    CUDA_OK(cudaFree(y));
    CUDA_OK(cudaFree(x));
    return s;
}

/* (c) ELL, HYB, JDS, SELL builds from csr (of value type vt), in SpMV-equivalents. */
static void bench_builds(const input &in, const sp_csr_t *csr, const char *tname, int64_t max_row,
                         int reps)
{
    stats spmv = spmv_time(csr, csr->value_type == SP_R_32F ? CUDA_R_32F : CUDA_R_64F, reps);
    std::printf("| %s | %lld | CSR SpMV %s (cuSPARSE, the unit) | %.3f / %.3f / %.3f | - | - | - |\n",
                in.name.c_str(), (long long)csr->nnz, tname, spmv.median, spmv.min, spmv.max);
    double ell_bytes = (double)csr->nrows * (double)max_row * (4.0 + sp_value_size(csr->value_type));
    const char *fmts[] = {"ELL", "HYB", "JDS", "SELL-32-1024"};
    for (int f = 0; f < 4; f++) {
        char op[96];
        std::snprintf(op, sizeof op, "build %s, %s", fmts[f], tname);
        if (f == 0 && ell_bytes > ell_limit_bytes) {
            std::printf("| %s | %lld | %s | skipped: padded ELL would take %.1f GB (longest row "
                        "%lld) | - | - | - |\n",
                        in.name.c_str(), (long long)csr->nnz, op, ell_bytes / 1e9, (long long)max_row);
            continue;
        }
        sp_ell_t ell;
        sp_hyb_t hyb;
        sp_jds_t jds;
        sp_sell_t sell;
        std::memset(&ell, 0, sizeof ell);
        std::memset(&hyb, 0, sizeof hyb);
        std::memset(&jds, 0, sizeof jds);
        std::memset(&sell, 0, sizeof sell);
        stats s, none;
        time_pair(
            stream, warmup, reps, nullptr,
            [&] {
                if (f == 0) SP_OK(sp__gpu_csr_to_ell(&env, csr, &ell));
                if (f == 1) SP_OK(sp__gpu_csr_to_hyb(&env, csr, -1, &hyb));
                if (f == 2) SP_OK(sp__gpu_csr_to_jds(&env, csr, &jds));
                if (f == 3) SP_OK(sp__gpu_csr_to_sell(&env, csr, 32, 1024, &sell));
            },
            nullptr, &s, &none, nullptr, [&] {
                sp__gpu_ell_free(&env, &ell);
                sp__gpu_hyb_free(&env, &hyb);
                sp__gpu_jds_free(&env, &jds);
                sp__gpu_sell_free(&env, &sell);
            });
        char ratio[48];
        std::snprintf(ratio, sizeof ratio, "%.2f SpMV", s.median / spmv.median);
        std::printf("| %s | %lld | %s | %.3f / %.3f / %.3f | - | - | %s |\n", in.name.c_str(),
                    (long long)csr->nnz, op, s.median, s.min, s.max, ratio);
        std::fflush(stdout);
    }
}

static void bench_input(const input &in)
{
    const sp_coo_t *h = in.coo;
    int reps = h->nnz > 100000000 ? 10 : h->nnz > 20000000 ? 20 : reps_small;
    int64_t max_row = 0;
    {
        std::vector<int64_t> len((size_t)h->nrows, 0);
        for (int64_t i = 0; i < h->nnz; i++) max_row = std::max(max_row, ++len[(size_t)h->row[i]]);
    }
    sp_csr_t csr;
    bench_coo_to_csr(in, h, reps, &csr);
    bench_csr_to_csc(in, &csr, reps, false);
    bench_csr_to_csc(in, &csr, reps, true);
    bench_csr_to_csc(in, &csr, reps, false, true);
    bench_csr_to_csc(in, &csr, reps, true, true);
    if (transpose_only) {
        sp__gpu_csr_free(&env, &csr);
        CUDA_OK(cudaStreamSynchronize(stream));
        return;
    }
    bench_builds(in, &csr, "double", max_row, reps);
    /* the same matrix with float values */
    sp_csr_t csr32 = csr;
    csr32.value_type = SP_R_32F;
    csr32.val = dmalloc((size_t)csr.nnz * 4);
    to_float_kernel<<<1024, 256, 0, stream>>>(static_cast<const double *>(csr.val),
                                              static_cast<float *>(csr32.val), csr.nnz);
    CUDA_OK(cudaGetLastError());
    bench_builds(in, &csr32, "float", max_row, reps);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaFree(csr32.val));
    sp__gpu_csr_free(&env, &csr);
    CUDA_OK(cudaStreamSynchronize(stream));
}

int main(int argc, char **argv)
{
    std::vector<std::string> names;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            reps_small = std::max(10, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--input") && i + 1 < argc)
            names.push_back(argv[++i]);
        else if (!std::strcmp(argv[i], "--transpose-only"))
            transpose_only = true;
        else if (!std::strcmp(argv[i], "--onesweep") && i + 1 < argc)
            sp__gpu_radix_sort_set_onesweep(std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--reps N] [--transpose-only] [--onesweep -1|0|1] "
                                 "[--input kron22|kron23|poisson160|FILE.mtx]...\n",
                         argv[0]);
            return 2;
        }
    }
    if (names.empty()) {
        std::vector<std::string> files;
        if (DIR *d = opendir(SP_DATASETS_DIR "/mtx")) {
            while (struct dirent *e = readdir(d)) {
                std::string f = e->d_name;
                if (f.size() > 4 && f.substr(f.size() - 4) == ".mtx")
                    files.push_back(std::string(SP_DATASETS_DIR "/mtx/") + f);
            }
            closedir(d);
        }
        std::sort(files.begin(), files.end());
        names = files;
        names.push_back("poisson160");
        names.push_back("kron22");
        names.push_back("kron23");
    }
    cudaDeviceProp prop;
    int dev = 0, driver = 0, runtime = 0, cusparse_version = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    CUDA_OK(cudaDriverGetVersion(&driver));
    CUDA_OK(cudaRuntimeGetVersion(&runtime));
    CUDA_OK(cudaStreamCreate(&stream));
    CUSPARSE_OK(cusparseCreate(&handle));
    CUSPARSE_OK(cusparseSetStream(handle, stream));
    CUSPARSE_OK(cusparseGetVersion(handle, &cusparse_version));
    setup_env();
    std::printf("GPU: %s (%d SMs, cc %d.%d)\nCUDA driver: %d\nCUDA runtime: %d\ncuSPARSE: %d\n",
                prop.name, prop.multiProcessorCount, prop.major, prop.minor, driver, runtime,
                cusparse_version);
    std::printf("Timed calls: %d after %d warm-up (10 above 100M entries, 20 above 20M), libsp and "
                "cuSPARSE interleaved; values double unless a row says float\n\n",
                reps_small, warmup);
    std::printf("| matrix | nnz | operation | libsp ms med / min / max | cuSPARSE ms med / min / max "
                "| libsp speedup (cuSPARSE/libsp time) | check or ratio |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);
    for (const std::string &name : names) {
        std::string why;
        input in = load_input(name, &why);
        if (!in.coo) {
            std::printf("| %s | - | skipped: %s | - | - | - | - |\n", in.name.c_str(), why.c_str());
        } else if (in.coo->nrows > INT32_MAX || in.coo->nnz > INT32_MAX || in.coo->nnz == 0) {
            std::printf("| %s | %lld | skipped: empty or beyond 32-bit indices | - | - | - | - |\n",
                        in.name.c_str(), (long long)in.coo->nnz);
        } else {
            bench_input(in);
        }
        sp_coo_free(in.coo);
    }
    CUSPARSE_OK(cusparseDestroy(handle));
    CUDA_OK(cudaStreamDestroy(stream));
    return 0;
}
