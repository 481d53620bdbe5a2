/* cg_bench: conjugate gradient on the 3D 7-point Poisson system (generated, double), x0 = 0,
 * b = ones by default (--rhs aones: b = A * ones), relative tolerance on ||r||.
 *
 * libsp, public API, in every loop form: `steps` (the vector steps, one synchronization an
 * iteration), `fused` (two fused kernels an iteration), `device` (the fused iteration in a
 * CUDA graph's while node, one synchronization a solve), `pipelined` (Ghysels-Vanroose,
 * fused kernels) and `pipelined-device`; CG and, with --pcg, PCG-Jacobi; with --bicgstab,
 * BiCGSTAB's steps / fused / device forms (no baseline: the baselines are CG).
 * Baselines on cuSPARSE SpMV + cuBLAS: `sample` (the CUDA samples' conjugateGradient:
 * CSR_ALG1, host scalars, two synchronizations an iteration) and `devscalar` (the fastest
 * of CSR_ALG1, CSR_ALG2 and sliced ELL (slice 32, SELL_ALG1) for this matrix, timed here,
 * cuBLAS in device pointer mode, the scalars computed on the device, one 8-byte read-back
 * an iteration for the stopping test); with --pcg, `devscalar-jacobi` (the same with
 * z = D^-1 r by cublasDdgmm and r.z, r.r by cublasDdot).
 * Whole solves timed with CUDA events on one stream, every form and baseline interleaved
 * in each round; the median per iteration, the iteration counts and the true residuals.
 * Also the SpMV alone (libsp's format, cuSPARSE's chosen algorithm) for the ratio
 * iteration / SpMV.
 *
 *   cg_bench [--n 160 | --mtx FILE] [--rtol 1e-8] [--max-iterations 5000] [--reps 3]
 *            [--rhs ones|aones] [--pcg | --bicgstab] [--spmv-min-blocks B]
 *            [--no-value-table]
 *
 * (--no-value-table: libsp's ELL built without its value table, sp_formats.h, so one
 * device call can time the fused iterations with and without it; `value_table:` says how
 * many entries the ELL's table has, 0 for none.)
 *
 * (--spmv-min-blocks 1|4|5|6|8: the fused CG's ELL spmv step built for at least B resident
 * blocks an SM, an experiment on its register count and occupancy; 1 the uncapped build,
 * default 4.)
 *
 * (--mtx: a symmetric positive definite Matrix Market file instead of Poisson.)
 *
 * Prints `Label: value` lines. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cusparse_ok.cuh"
#include "sp_kernels_solve.h" /* sp__gpu_cg_set_spmv_min_blocks */
#include "gpu_timing.cuh"

#define CUBLAS_OK(call)                                                                   \
    do {                                                                                  \
        cublasStatus_t e_ = (call);                                                       \
        if (e_ != CUBLAS_STATUS_SUCCESS) {                                                \
            std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, \
                         (int)e_);                                                        \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

/* The device-scalar baseline's scalar steps: beta = r1 / r0; alpha = r1 / dot (0 when dot
 * is 0), -alpha, and r0 = r1 for the next iteration. s: [r1, r0, dot, alpha, nalpha, beta,
 * rr]; with Jacobi, r1 and r0 are r.z (z = D^-1 r) and rr is r.r for the stopping test. */
enum { S_R1 = 0, S_R0, S_DOT, S_ALPHA, S_NALPHA, S_BETA, S_RR, S_COUNT };
__global__ void beta_kernel(double *s)
{
    s[S_BETA] = s[S_R0] != 0 ? s[S_R1] / s[S_R0] : 0;
}
__global__ void alpha_kernel(double *s)
{
    double a = s[S_DOT] != 0 ? s[S_R1] / s[S_DOT] : 0;
    s[S_ALPHA] = a;
    s[S_NALPHA] = -a;
    s[S_R0] = s[S_R1];
}

/* Sliced ELL (slice SELL_C, rows in order) from the device CSR: a thread per row writes
 * its slots of its slice (column-major inside the slice); the padding was set to column -1
 * and value 0 before. */
enum { SELL_C = 32 };
__global__ void csr_to_sell_kernel(int n, const int *ptr, const int *idx, const double *val,
                                   const int *offsets, int *sell_col, double *sell_val)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    int base = offsets[r / SELL_C], lane = r % SELL_C;
    for (int k = ptr[r]; k < ptr[r + 1]; k++) {
        int slot = base + (k - ptr[r]) * SELL_C + lane;
        sell_col[slot] = idx[k];
        sell_val[slot] = val[k];
    }
}

/* The baselines: CSR on the device, cuSPARSE descriptors, cuBLAS on the same stream. */
struct baseline {
    int n = 0;
    int *d_ptr = nullptr, *d_idx = nullptr;
    double *d_val = nullptr, *d_x = nullptr, *d_r = nullptr, *d_p = nullptr, *d_q = nullptr;
    double *d_b = nullptr, *d_s = nullptr, *h_r1 = nullptr;
    double *d_dinv = nullptr, *d_z = nullptr; /* PCG-Jacobi: 1 / diag(A), z = D^-1 r */
    void *d_buf[3] = {nullptr, nullptr, nullptr}; /* per algorithm: CSR_ALG1, CSR_ALG2, SELL */
    cusparseHandle_t sp = nullptr;
    cublasHandle_t bl = nullptr;
    cudaStream_t stream = nullptr;
    cusparseSpMatDescr_t A = nullptr, S = nullptr; /* CSR; sliced ELL */
    int *d_sell_off = nullptr, *d_sell_col = nullptr;
    double *d_sell_val = nullptr;
    cusparseDnVecDescr_t vp = nullptr, vq = nullptr, vx = nullptr, vr = nullptr;
    cusparseSpMVAlg_t alg = CUSPARSE_SPMV_CSR_ALG1;
    int iterations = 0;

    /* the index of algorithm a in d_buf */
    static int slot(cusparseSpMVAlg_t a)
    {
        return a == CUSPARSE_SPMV_SELL_ALG1 ? 2 : a == CUSPARSE_SPMV_CSR_ALG2 ? 1 : 0;
    }

    void spmv(cusparseDnVecDescr_t in, cusparseDnVecDescr_t out, double alpha, double beta,
              cusparseSpMVAlg_t a)
    {
        CUSPARSE_OK(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                 a == CUSPARSE_SPMV_SELL_ALG1 ? S : A, in, &beta, out,
                                 CUDA_R_64F, a, d_buf[slot(a)]));
    }

    /* CG as in the CUDA samples (conjugateGradient): x = 0, r = b; host scalars. */
    void solve_sample(double rtol, int maxit)
    {
        double one = 1, r0 = 0, r1 = 0, dot = 0, a, na, beta, bnorm2;
        CUBLAS_OK(cublasSetPointerMode(bl, CUBLAS_POINTER_MODE_HOST));
        CUDA_OK(cudaMemsetAsync(d_x, 0, (size_t)n * 8, stream));
        CUBLAS_OK(cublasDcopy(bl, n, d_b, 1, d_r, 1));
        CUBLAS_OK(cublasDdot(bl, n, d_r, 1, d_r, 1, &r1));
        bnorm2 = r1;
        int k = 0;
        while (r1 > rtol * rtol * bnorm2 && k < maxit) {
            if (k > 0) {
                beta = r1 / r0;
                CUBLAS_OK(cublasDscal(bl, n, &beta, d_p, 1));
                CUBLAS_OK(cublasDaxpy(bl, n, &one, d_r, 1, d_p, 1));
            } else {
                CUBLAS_OK(cublasDcopy(bl, n, d_r, 1, d_p, 1));
            }
            spmv(vp, vq, 1.0, 0.0, CUSPARSE_SPMV_CSR_ALG1);
            CUBLAS_OK(cublasDdot(bl, n, d_p, 1, d_q, 1, &dot));
            a = r1 / dot;
            CUBLAS_OK(cublasDaxpy(bl, n, &a, d_p, 1, d_x, 1));
            na = -a;
            CUBLAS_OK(cublasDaxpy(bl, n, &na, d_q, 1, d_r, 1));
            r0 = r1;
            CUBLAS_OK(cublasDdot(bl, n, d_r, 1, d_r, 1, &r1));
            k++;
        }
        iterations = k;
    }

    /* The same CG with the scalars on the device (cuBLAS device pointer mode) and the
     * faster SpMV algorithm; one read-back of r.r per iteration for the stopping test.
     * jacobi (--pcg): PCG-Jacobi built the same way, z = D^-1 r by cublasDdgmm (diag(dinv)
     * times the n x 1 matrix r), r.z and r.r by cublasDdot, the same stopping test on r.r;
     * without it z is r, and the calls are CG's. */
    void solve_devscalar(double rtol, int maxit, bool jacobi)
    {
        const double one = 1;
        double *z = jacobi ? d_z : d_r;
        const int stop = jacobi ? S_RR : S_R1; /* the slot holding r.r */
        double bnorm2 = 0, rr = 0;
        auto residual = [&] { /* z, then r.z and (Jacobi) r.r, r.r read back */
            if (jacobi)
                CUBLAS_OK(cublasDdgmm(bl, CUBLAS_SIDE_LEFT, n, 1, d_r, n, d_dinv, 1, d_z, n));
            CUBLAS_OK(cublasDdot(bl, n, d_r, 1, z, 1, d_s + S_R1));
            if (jacobi) CUBLAS_OK(cublasDdot(bl, n, d_r, 1, d_r, 1, d_s + S_RR));
            CUDA_OK(cudaMemcpyAsync(h_r1, d_s + stop, 8, cudaMemcpyDeviceToHost, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
            return *h_r1;
        };
        CUDA_OK(cudaMemsetAsync(d_x, 0, (size_t)n * 8, stream));
        CUBLAS_OK(cublasSetPointerMode(bl, CUBLAS_POINTER_MODE_DEVICE));
        CUBLAS_OK(cublasDcopy(bl, n, d_b, 1, d_r, 1));
        bnorm2 = rr = residual();
        int k = 0;
        while (rr > rtol * rtol * bnorm2 && k < maxit) {
            if (k > 0) {
                beta_kernel<<<1, 1, 0, stream>>>(d_s);
                CUBLAS_OK(cublasDscal(bl, n, d_s + S_BETA, d_p, 1));
                CUBLAS_OK(cublasSetPointerMode(bl, CUBLAS_POINTER_MODE_HOST));
                CUBLAS_OK(cublasDaxpy(bl, n, &one, z, 1, d_p, 1));
                CUBLAS_OK(cublasSetPointerMode(bl, CUBLAS_POINTER_MODE_DEVICE));
            } else {
                CUBLAS_OK(cublasDcopy(bl, n, z, 1, d_p, 1));
            }
            spmv(vp, vq, 1.0, 0.0, alg);
            CUBLAS_OK(cublasDdot(bl, n, d_p, 1, d_q, 1, d_s + S_DOT));
            alpha_kernel<<<1, 1, 0, stream>>>(d_s);
            CUBLAS_OK(cublasDaxpy(bl, n, d_s + S_ALPHA, d_p, 1, d_x, 1));
            CUBLAS_OK(cublasDaxpy(bl, n, d_s + S_NALPHA, d_q, 1, d_r, 1));
            rr = residual();
            k++;
        }
        CUBLAS_OK(cublasSetPointerMode(bl, CUBLAS_POINTER_MODE_HOST));
        iterations = k;
    }

    /* ||b - A x|| / ||b|| from the last solve. */
    double true_residual()
    {
        double rn = 0, bn = 0;
        CUBLAS_OK(cublasSetPointerMode(bl, CUBLAS_POINTER_MODE_HOST));
        CUBLAS_OK(cublasDcopy(bl, n, d_b, 1, d_r, 1));
        spmv(vx, vr, -1.0, 1.0, CUSPARSE_SPMV_CSR_ALG1);
        CUBLAS_OK(cublasDnrm2(bl, n, d_r, 1, &rn));
        CUBLAS_OK(cublasDnrm2(bl, n, d_b, 1, &bn));
        return rn / bn;
    }
};

static void baseline_open(baseline *B, cudaStream_t stream, const sp_format_view_t &csr,
                          const double *h_b)
{
    int n = (int)csr.nrows;
    int64_t nnz = csr.nnz;
    double one = 1, zero = 0;
    B->n = n;
    B->stream = stream;
    CUDA_OK(cudaMalloc(&B->d_ptr, (size_t)(n + 1) * 4));
    CUDA_OK(cudaMalloc(&B->d_idx, (size_t)nnz * 4));
    CUDA_OK(cudaMalloc(&B->d_val, (size_t)nnz * 8));
    for (double **v : {&B->d_x, &B->d_r, &B->d_p, &B->d_q, &B->d_b, &B->d_dinv, &B->d_z})
        CUDA_OK(cudaMalloc(v, (size_t)n * 8));
    { /* 1 / diag(A) for the Jacobi baseline (a zero diagonal gives 1, never used by CG) */
        std::vector<double> dinv((size_t)n, 1.0);
        for (int r = 0; r < n; r++)
            for (int64_t k = csr.csr.row_ptr[r]; k < csr.csr.row_ptr[r + 1]; k++)
                if (csr.csr.col[k] == r && static_cast<const double *>(csr.csr.val)[k] != 0)
                    dinv[(size_t)r] = 1.0 / static_cast<const double *>(csr.csr.val)[k];
        CUDA_OK(cudaMemcpy(B->d_dinv, dinv.data(), (size_t)n * 8, cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaMalloc(&B->d_s, S_COUNT * 8));
    CUDA_OK(cudaMemset(B->d_s, 0, S_COUNT * 8));
    CUDA_OK(cudaMallocHost(&B->h_r1, 8));
    CUDA_OK(cudaMemcpy(B->d_ptr, csr.csr.row_ptr, (size_t)(n + 1) * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(B->d_idx, csr.csr.col, (size_t)nnz * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(B->d_val, csr.csr.val, (size_t)nnz * 8, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(B->d_b, h_b, (size_t)n * 8, cudaMemcpyHostToDevice));
    CUSPARSE_OK(cusparseCreate(&B->sp));
    CUSPARSE_OK(cusparseSetStream(B->sp, stream));
    CUBLAS_OK(cublasCreate(&B->bl));
    CUBLAS_OK(cublasSetStream(B->bl, stream));
    CUBLAS_OK(cublasSetPointerMode(B->bl, CUBLAS_POINTER_MODE_HOST));
    CUSPARSE_OK(cusparseCreateCsr(&B->A, n, n, nnz, B->d_ptr, B->d_idx, B->d_val,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&B->vp, n, B->d_p, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&B->vq, n, B->d_q, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&B->vx, n, B->d_x, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&B->vr, n, B->d_r, CUDA_R_64F));
    /* sliced ELL: slice widths and offsets on the host, the slots by csr_to_sell_kernel */
    int64_t nslices = (n + SELL_C - 1) / SELL_C;
    std::vector<int> off((size_t)nslices + 1, 0);
    for (int64_t sl = 0; sl < nslices; sl++) {
        int w = 0;
        for (int64_t r = sl * SELL_C; r < std::min<int64_t>(n, (sl + 1) * SELL_C); r++)
            w = std::max(w, csr.csr.row_ptr[r + 1] - csr.csr.row_ptr[r]);
        off[(size_t)sl + 1] = off[(size_t)sl] + w * SELL_C;
    }
    int64_t slots = off[(size_t)nslices];
    CUDA_OK(cudaMalloc(&B->d_sell_off, (size_t)(nslices + 1) * 4));
    CUDA_OK(cudaMalloc(&B->d_sell_col, (size_t)slots * 4 + 4));
    CUDA_OK(cudaMalloc(&B->d_sell_val, (size_t)slots * 8 + 8));
    CUDA_OK(cudaMemcpy(B->d_sell_off, off.data(), (size_t)(nslices + 1) * 4,
                       cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(B->d_sell_col, 0xff, (size_t)slots * 4));
    CUDA_OK(cudaMemset(B->d_sell_val, 0, (size_t)slots * 8));
    csr_to_sell_kernel<<<(n + 255) / 256, 256>>>(n, B->d_ptr, B->d_idx, B->d_val, B->d_sell_off,
                                                 B->d_sell_col, B->d_sell_val);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    CUSPARSE_OK(cusparseCreateSlicedEll(
        &B->S, n, n, nnz, slots, SELL_C, B->d_sell_off, B->d_sell_col, B->d_sell_val,
        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    /* a workspace per algorithm: CSR_ALG2's preprocessing lives in its own, which the
     * other algorithms' products then cannot overwrite */
    for (cusparseSpMVAlg_t a :
         {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2, CUSPARSE_SPMV_SELL_ALG1}) {
        size_t bytes = 0;
        CUSPARSE_OK(cusparseSpMV_bufferSize(B->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                            a == CUSPARSE_SPMV_SELL_ALG1 ? B->S : B->A, B->vp,
                                            &zero, B->vq, CUDA_R_64F, a, &bytes));
        CUDA_OK(cudaMalloc(&B->d_buf[baseline::slot(a)], bytes > 0 ? bytes : 8));
    }
    CUSPARSE_OK(cusparseSpMV_preprocess(B->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, B->A,
                                        B->vp, &zero, B->vq, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2,
                                        B->d_buf[baseline::slot(CUSPARSE_SPMV_CSR_ALG2)]));
}

static void baseline_close(baseline *B)
{
    cusparseDestroyDnVec(B->vr);
    cusparseDestroyDnVec(B->vx);
    cusparseDestroyDnVec(B->vq);
    cusparseDestroyDnVec(B->vp);
    cusparseDestroySpMat(B->A);
    cusparseDestroySpMat(B->S);
    cublasDestroy(B->bl);
    cusparseDestroy(B->sp);
    cudaFreeHost(B->h_r1);
    for (void *p :
         {B->d_buf[0], B->d_buf[1], B->d_buf[2], (void *)B->d_ptr, (void *)B->d_idx, (void *)B->d_val,
          (void *)B->d_x, (void *)B->d_r, (void *)B->d_p, (void *)B->d_q, (void *)B->d_b,
          (void *)B->d_dinv, (void *)B->d_z,
          (void *)B->d_s, (void *)B->d_sell_off, (void *)B->d_sell_col, (void *)B->d_sell_val})
        cudaFree(p);
}

/* Median milliseconds of f over reps calls after a warm-up, CUDA events on stream.
 * time_pair writes the second callable's stats even when there is none: a real place for
 * them (a null pointer there was this benchmark's segfault on every run). */
static stats time_calls(cudaStream_t stream, int reps, const std::function<void()> &f)
{
    stats s, none;
    time_pair(stream, 10, reps, nullptr, f, nullptr, &s, &none);
    return s;
}

/* One timed form: a libsp solver with its options, or a baseline. */
struct form {
    const char *name;
    sp_solver_t *solver; /* NULL: a baseline */
    int devscalar; /* baselines: 0 the sample's form, 1 device scalars, 2 the same with Jacobi */
    std::vector<double> ms;
    int64_t iterations = 0;
    double residual = 0, recurrence = 0;
    const char *status = "";
};

int main(int argc, char **argv)
{
    int64_t n = 160;
    const char *mtx = nullptr;
    double rtol = 1e-8;
    int maxit = 5000, reps = 3, pcg = 0, bicg = 0, aones = 0;
    std::setvbuf(stdout, nullptr, _IOLBF, 0); /* a crash still shows how far it got */
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!std::strcmp(argv[i], "--pcg")) {
            pcg = 1;
            continue;
        }
        if (!std::strcmp(argv[i], "--bicgstab")) {
            bicg = 1;
            continue;
        }
        if (!std::strcmp(argv[i], "--no-value-table")) {
            sp__ell_value_table_set(0);
            continue;
        }
        if (v && !std::strcmp(argv[i], "--n"))
            n = std::atoll(v);
        else if (v && !std::strcmp(argv[i], "--mtx"))
            mtx = v;
        else if (v && !std::strcmp(argv[i], "--rtol"))
            rtol = std::atof(v);
        else if (v && !std::strcmp(argv[i], "--max-iterations"))
            maxit = std::atoi(v);
        else if (v && !std::strcmp(argv[i], "--reps") && std::atoi(v) >= 1)
            reps = std::atoi(v);
        else if (v && !std::strcmp(argv[i], "--spmv-min-blocks")) /* 1, 4, 5, 6, 8 */
            sp__gpu_cg_set_spmv_min_blocks(std::atoi(v));
        else if (v && !std::strcmp(argv[i], "--rhs") &&
                 (!std::strcmp(v, "ones") || !std::strcmp(v, "aones")))
            aones = !std::strcmp(v, "aones");
        else {
            std::fprintf(
                stderr,
                "usage: %s [--n N | --mtx FILE] [--rtol R] [--max-iterations K] [--reps R] "
                "[--rhs ones|aones] [--pcg | --bicgstab] [--spmv-min-blocks B] "
                "[--no-value-table]\n",
                argv[0]);
            return 2;
        }
        i++;
    }
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    sp_coo_t *coo = nullptr;
    sp_context_t *gpu = nullptr, *host = nullptr;
    sp_matrix_t *A = nullptr, *H = nullptr;
    sp_vector_t *b = nullptr, *x = nullptr, *ones = nullptr;
    sp_format_view_t csr;
    sp_context_options_t copt = {};
    sp_format_t fmt = SP_FORMAT_AUTO;
    sp_device_info_t dev;
    copt.stream = stream;
    if (mtx)
        SP_OK(sp_mtx_read(mtx, SP_R_64F, nullptr, &coo));
    else
        SP_OK(sp_gen_poisson3d(n, SP_R_64F, &coo));
    SP_OK(sp_context_create(SP_DEVICE_CUDA, &copt, &gpu));
    SP_OK(sp_context_create(SP_DEVICE_HOST, nullptr, &host));
    SP_OK(sp_context_device_info(gpu, &dev));
    SP_OK(sp_matrix_create(gpu, coo, nullptr, &A));
    SP_OK(sp_matrix_create(host, coo, nullptr, &H));
    SP_OK(sp_matrix_build(host, H, SP_FORMAT_CSR));
    SP_OK(sp_matrix_view(H, SP_FORMAT_CSR, &csr));
    SP_OK(sp_vector_create(gpu, SP_R_64F, coo->nrows, nullptr, &b));
    SP_OK(sp_vector_create(gpu, SP_R_64F, coo->nrows, nullptr, &x));
    SP_OK(sp_vector_create(gpu, SP_R_64F, coo->nrows, nullptr, &ones));
    SP_OK(sp_vector_fill(gpu, ones, 1.0));
    SP_OK(sp_spmv_choose_format(gpu, A, &fmt));
    if (aones)
        SP_OK(sp_spmv_vec(gpu, fmt, SP_SPMV_ALG_DEFAULT, 1.0, A, ones, 0.0, b));
    else
        SP_OK(sp_vector_fill(gpu, b, 1.0));
    std::vector<double> h_b((size_t)coo->nrows);
    SP_OK(sp_vector_copy_to_host(gpu, b, h_b.data()));

    /* the libsp forms */
    struct {
        const char *name;
        sp_solver_loop_t loop;
        int pipelined;
    } lf[] = {{"steps", SP_SOLVER_LOOP_STEPS, 0},
              {"fused", SP_SOLVER_LOOP_FUSED, 0},
              {"device", SP_SOLVER_LOOP_DEVICE, 0},
              {"pipelined", SP_SOLVER_LOOP_FUSED, 1},
              {"pipelined-device", SP_SOLVER_LOOP_DEVICE, 1}};
    std::vector<form> forms;
    const sp_solver_type_t type = bicg  ? SP_SOLVER_BICGSTAB
                                  : pcg ? SP_SOLVER_PCG_JACOBI
                                        : SP_SOLVER_CG;
    for (auto &f : lf) {
        if (bicg && f.pipelined) continue;
        sp_solver_options_t o = {};
        o.rtol = rtol;
        o.max_iterations = maxit;
        o.loop = f.loop;
        o.pipelined = f.pipelined;
        form fm{f.name, nullptr, 0, {}};
        SP_OK(sp_solver_create(gpu, type, &fm.solver));
        SP_OK(sp_solver_set_options(fm.solver, &o));
        SP_OK(sp_solver_setup(fm.solver, A));
        forms.push_back(fm);
    }
    std::printf("stage: %zu libsp forms set up\n", forms.size());
    baseline B;
    baseline_open(&B, stream, csr, h_b.data());
    std::printf("stage: baselines built\n");
    size_t nbase = 0;
    if (!pcg && !bicg) {
        forms.push_back(form{"sample", nullptr, 0, {}});
        forms.push_back(form{"devscalar", nullptr, 1, {}});
        nbase = 2;
    } else if (pcg) {
        forms.push_back(form{"devscalar-jacobi", nullptr, 2, {}});
        nbase = 1;
    }

    /* the SpMV alone: libsp's format; cuSPARSE ALG1 and ALG2 (the faster one is devscalar's) */
    stats lib_spmv = time_calls(stream, 50, [&] {
        SP_OK(sp_spmv_vec(gpu, fmt, SP_SPMV_ALG_DEFAULT, 1.0, A, ones, 0.0, x));
    });
    stats alg1 =
        time_calls(stream, 50, [&] { B.spmv(B.vp, B.vq, 1.0, 0.0, CUSPARSE_SPMV_CSR_ALG1); });
    stats alg2 =
        time_calls(stream, 50, [&] { B.spmv(B.vp, B.vq, 1.0, 0.0, CUSPARSE_SPMV_CSR_ALG2); });
    stats sell =
        time_calls(stream, 50, [&] { B.spmv(B.vp, B.vq, 1.0, 0.0, CUSPARSE_SPMV_SELL_ALG1); });
    B.alg = alg2.median < alg1.median ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1;
    if (sell.median < std::min(alg1.median, alg2.median)) B.alg = CUSPARSE_SPMV_SELL_ALG1;
    std::printf("stage: SpMV alone timed\n");

    /* rounds: every form once per round, in order; the first round is a warm-up */
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    for (int r = 0; r <= reps; r++)
        for (form &f : forms) {
            CUDA_OK(cudaStreamSynchronize(stream));
            CUDA_OK(cudaEventRecord(e0, stream));
            if (f.solver)
                SP_OK(sp_solver_solve(f.solver, b, x));
            else if (f.devscalar)
                B.solve_devscalar(rtol, maxit, f.devscalar == 2);
            else
                B.solve_sample(rtol, maxit);
            CUDA_OK(cudaEventRecord(e1, stream));
            CUDA_OK(cudaEventSynchronize(e1));
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (r == 0) std::printf("stage: warm-up %s done\n", f.name);
            if (r > 0) f.ms.push_back(ms);
            if (r == reps) {
                if (f.solver) {
                    sp_solver_result_t res;
                    SP_OK(sp_solver_result(f.solver, &res));
                    f.iterations = res.iterations;
                    f.residual = res.relative_residual;
                    f.recurrence = res.recurrence_residual;
                    f.status = sp_solver_status_string(res.status);
                } else {
                    f.iterations = B.iterations;
                    f.residual = B.true_residual();
                    f.status = B.iterations < maxit ? "converged" : "max_iterations";
                }
            }
        }
    double ws = (double)csr.nnz * 12 + (double)coo->nrows * (4 + 5 * 8);
    std::printf("device: %s\n", dev.name);
    if (mtx)
        std::printf("matrix: %s double\n", mtx);
    else
        std::printf("matrix: poisson3d %lld^3 double\n", (long long)n);
    std::printf("solver: %s\n", bicg ? "bicgstab" : pcg ? "pcg-jacobi" : "cg");
    std::printf("rhs: %s\n", aones ? "b = A * ones" : "b = ones");
    std::printf("x0: 0\n");
    std::printf("nrows: %lld\nnnz: %lld\n", (long long)csr.nrows, (long long)csr.nnz);
    std::printf("working_set_mb: %.1f (L2 %.1f MB)\n", ws / 1e6, (double)dev.l2_bytes / 1e6);
    std::printf("rtol: %g\nmax_iterations: %d\nreps: %d\n", rtol, maxit, reps);
    std::printf("libsp_spmv_format: %s\n", sp_format_name(fmt));
    {
        sp_matrix_info_t info;
        SP_OK(sp_matrix_info(A, &info));
        std::printf("value_table: %d\n", fmt == SP_FORMAT_ELL ? info.ell_value_table : 0);
    }
    std::printf("libsp_spmv_ms: %.4f\n", lib_spmv.median);
    std::printf("cusparse_spmv_alg1_ms: %.4f\ncusparse_spmv_alg2_ms: %.4f\n"
                "cusparse_spmv_sell_ms: %.4f\n",
                alg1.median, alg2.median, sell.median);
    std::printf("devscalar_spmv_alg: %s\n", B.alg == CUSPARSE_SPMV_SELL_ALG1  ? "SELL_ALG1"
                                            : B.alg == CUSPARSE_SPMV_CSR_ALG2 ? "CSR_ALG2"
                                                                              : "CSR_ALG1");
    double best_base = 0;
    for (size_t i = forms.size() - nbase; i < forms.size(); i++) {
        double per = summarize(forms[i].ms).median /
                     (double)(forms[i].iterations > 0 ? forms[i].iterations : 1);
        if (best_base == 0 || per < best_base) best_base = per;
    }
    for (form &f : forms) {
        stats t = summarize(f.ms);
        double per = t.median / (double)(f.iterations > 0 ? f.iterations : 1);
        std::printf("%s: status %s iterations %lld true_residual %.3e", f.name, f.status,
                    (long long)f.iterations, f.residual);
        if (f.solver) std::printf(" recurrence %.3e", f.recurrence);
        std::printf(" solve_ms %.3f (min %.3f max %.3f) ms_per_iteration %.4f"
                    " iteration_over_libsp_spmv %.2f",
                    t.median, t.min, t.max, per, per / lib_spmv.median);
        if (best_base > 0) std::printf(" speedup_vs_best_baseline %.3f", best_base / per);
        std::printf("\n");
    }
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    baseline_close(&B);
    for (form &f : forms)
        sp_solver_destroy(f.solver);
    sp_vector_destroy(ones);
    sp_vector_destroy(x);
    sp_vector_destroy(b);
    sp_matrix_destroy(H);
    sp_matrix_destroy(A);
    sp_context_destroy(host);
    sp_context_destroy(gpu);
    sp_coo_free(coo);
    CUDA_OK(cudaStreamDestroy(stream));
    return 0;
}
