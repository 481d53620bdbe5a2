/* cg_bench: conjugate gradient on the 3D 7-point Poisson system (generated, double), libsp's
 * solver (SpMV in the format SP_FORMAT_AUTO picks, fused vector steps, scalars kept on the
 * device, one synchronization per iteration) against the plain CG of the CUDA samples
 * written on cuSPARSE SpMV (CSR_ALG1) and cuBLAS (ddot, daxpy, dscal; host scalars, two
 * synchronizations per iteration). Same b (ones), x0 = 0, relative tolerance on ||r|| and
 * iteration limit; whole solves timed with CUDA events on one stream, interleaved, the
 * median per iteration reported with the iteration counts and the true residuals.
 *
 *   cg_bench [--n 160] [--rtol 1e-8] [--max-iterations 5000] [--reps 3]
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

/* The baseline: CSR on the device, cuSPARSE descriptors, cuBLAS on the same stream. */
struct baseline {
    int n = 0;
    int *d_ptr = nullptr, *d_idx = nullptr;
    double *d_val = nullptr, *d_x = nullptr, *d_r = nullptr, *d_p = nullptr, *d_q = nullptr;
    double *d_b = nullptr;
    void *d_buf = nullptr;
    cusparseHandle_t sp = nullptr;
    cublasHandle_t bl = nullptr;
    cusparseSpMatDescr_t A = nullptr;
    cusparseDnVecDescr_t vp = nullptr, vq = nullptr, vx = nullptr, vr = nullptr;
    int iterations = 0;

    void spmv(cusparseDnVecDescr_t in, cusparseDnVecDescr_t out, double alpha, double beta)
    {
        CUSPARSE_OK(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, in, &beta, out,
                                 CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, d_buf));
    }

    /* CG as in the CUDA samples (conjugateGradient): x = 0, r = b. */
    void solve(double rtol, int maxit)
    {
        double one = 1, r0 = 0, r1 = 0, dot = 0, a, na, beta, bnorm2;
        CUDA_OK(cudaMemsetAsync(d_x, 0, (size_t)n * 8, 0));
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
            spmv(vp, vq, 1.0, 0.0);
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

    /* ||b - A x|| / ||b|| from the last solve. */
    double true_residual()
    {
        double rn = 0, bn = 0;
        CUBLAS_OK(cublasDcopy(bl, n, d_b, 1, d_r, 1));
        spmv(vx, vr, -1.0, 1.0);
        CUBLAS_OK(cublasDnrm2(bl, n, d_r, 1, &rn));
        CUBLAS_OK(cublasDnrm2(bl, n, d_b, 1, &bn));
        return rn / bn;
    }
};

static void baseline_open(baseline *B, cudaStream_t stream, const sp_format_view_t &csr)
{
    int n = (int)csr.nrows;
    int64_t nnz = csr.nnz;
    size_t bytes = 0;
    double one = 1, zero = 0;
    std::vector<double> ones((size_t)n, 1.0);
    B->n = n;
    CUDA_OK(cudaMalloc(&B->d_ptr, (size_t)(n + 1) * 4));
    CUDA_OK(cudaMalloc(&B->d_idx, (size_t)nnz * 4));
    CUDA_OK(cudaMalloc(&B->d_val, (size_t)nnz * 8));
    for (double **v : {&B->d_x, &B->d_r, &B->d_p, &B->d_q, &B->d_b})
        CUDA_OK(cudaMalloc(v, (size_t)n * 8));
    CUDA_OK(cudaMemcpy(B->d_ptr, csr.csr.row_ptr, (size_t)(n + 1) * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(B->d_idx, csr.csr.col, (size_t)nnz * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(B->d_val, csr.csr.val, (size_t)nnz * 8, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(B->d_b, ones.data(), (size_t)n * 8, cudaMemcpyHostToDevice));
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
    CUSPARSE_OK(cusparseSpMV_bufferSize(B->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, B->A,
                                        B->vp, &zero, B->vq, CUDA_R_64F,
                                        CUSPARSE_SPMV_CSR_ALG1, &bytes));
    CUDA_OK(cudaMalloc(&B->d_buf, bytes > 0 ? bytes : 8));
}

static void baseline_close(baseline *B)
{
    cusparseDestroyDnVec(B->vr);
    cusparseDestroyDnVec(B->vx);
    cusparseDestroyDnVec(B->vq);
    cusparseDestroyDnVec(B->vp);
    cusparseDestroySpMat(B->A);
    cublasDestroy(B->bl);
    cusparseDestroy(B->sp);
    for (void *p : {(void *)B->d_buf, (void *)B->d_ptr, (void *)B->d_idx, (void *)B->d_val,
                    (void *)B->d_x, (void *)B->d_r, (void *)B->d_p, (void *)B->d_q,
                    (void *)B->d_b})
        cudaFree(p);
}

int main(int argc, char **argv)
{
    int64_t n = 160;
    double rtol = 1e-8;
    int maxit = 5000, reps = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--n")) n = std::atoll(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--rtol")) rtol = std::atof(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--max-iterations")) maxit = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
        else {
            std::fprintf(stderr, "usage: %s [--n N] [--rtol R] [--max-iterations K] [--reps R]\n",
                         argv[0]);
            return 2;
        }
    }
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    sp_coo_t *coo = nullptr;
    sp_context_t *gpu = nullptr, *host = nullptr;
    sp_matrix_t *A = nullptr, *H = nullptr;
    sp_vector_t *b = nullptr, *x = nullptr;
    sp_solver_t *solver = nullptr;
    sp_solver_result_t res;
    sp_format_view_t csr;
    sp_context_options_t copt = {};
    sp_solver_options_t sopt = {};
    sp_format_t fmt = SP_FORMAT_AUTO;
    sp_device_info_t dev;
    copt.stream = stream;
    sopt.rtol = rtol;
    sopt.max_iterations = maxit;
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
    SP_OK(sp_vector_fill(gpu, b, 1.0));
    SP_OK(sp_solver_create(gpu, SP_SOLVER_CG, &solver));
    SP_OK(sp_solver_set_options(solver, &sopt));
    SP_OK(sp_solver_setup(solver, A));
    SP_OK(sp_spmv_choose_format(gpu, A, &fmt));
    baseline B;
    baseline_open(&B, stream, csr);

    stats ts, tb;
    time_pair(
        stream, 1, reps, nullptr, [&] { SP_OK(sp_solver_solve(solver, b, x)); },
        [&] { B.solve(rtol, maxit); }, &ts, &tb);
    SP_OK(sp_solver_result(solver, &res));
    double base_res = B.true_residual();
    double lib_per = ts.median / (double)(res.iterations > 0 ? res.iterations : 1);
    double base_per = tb.median / (double)(B.iterations > 0 ? B.iterations : 1);
    double ws = (double)csr.nnz * 12 + (double)coo->nrows * (4 + 5 * 8);

    std::printf("device: %s\n", dev.name);
    std::printf("matrix: poisson3d %lld^3 double\n", (long long)n);
    std::printf("nrows: %lld\nnnz: %lld\n", (long long)csr.nrows, (long long)csr.nnz);
    std::printf("working_set_mb: %.1f (L2 %.1f MB)\n", ws / 1e6, (double)dev.l2_bytes / 1e6);
    std::printf("rtol: %g\nmax_iterations: %d\nreps: %d\n", rtol, maxit, reps);
    std::printf("libsp_spmv_format: %s\n", sp_format_name(fmt));
    std::printf("libsp_status: %s\n", sp_solver_status_string(res.status));
    std::printf("libsp_iterations: %lld\n", (long long)res.iterations);
    std::printf("baseline_iterations: %d\n", B.iterations);
    std::printf("iteration_difference_pct: %.2f\n",
                100.0 * std::fabs((double)res.iterations - B.iterations) /
                    (double)(B.iterations > 0 ? B.iterations : 1));
    std::printf("libsp_relative_residual: %.3e\n", res.relative_residual);
    std::printf("baseline_relative_residual: %.3e\n", base_res);
    std::printf("libsp_solve_ms: %.3f (min %.3f max %.3f)\n", ts.median, ts.min, ts.max);
    std::printf("baseline_solve_ms: %.3f (min %.3f max %.3f)\n", tb.median, tb.min, tb.max);
    std::printf("libsp_ms_per_iteration: %.4f\n", lib_per);
    std::printf("baseline_ms_per_iteration: %.4f\n", base_per);
    std::printf("speedup_per_iteration: %.3f\n", base_per / lib_per);

    baseline_close(&B);
    sp_solver_destroy(solver);
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
