/* csc_bench: the CSC SpMV kernel's variants (its plan's flags: SP_GPU_CSC_AGGREGATE, the
 * lanes of one row adding first; SP_GPU_CSC_WINDOW, the rows near the diagonal summed in
 * shared memory; the heavy rows summed a block at a time in shared memory) against
 * cuSPARSE's SpMV on the same CSC arrays, calls interleaved, timed with CUDA events
 * (y = A x, double or float), so the policy's choice (src/policy.c, sp__policy_spmv_csc_aggregate,
 * _window and _heavy_bound, asked here as the library asks them) can be checked against every alternative. Each
 * variant's y is compared with cuSPARSE's (max |difference| over max |y|). A line a
 * variant:
 *   CSC <input> flags <agg|win|-> heavy <bound|-> rows H libsp_ms M cusparse_csc_ms C
 *       x_cusparse_csc R max_rel_diff D [policy]
 * and one saying whether the plan found the matrix equal to its transpose (the library
 * then runs its CSC as its CSR; this bench times the CSC kernel regardless).
 *
 *   csc_bench [--reps N]
 *             [--input poisson160|kron22|powerlaw|denselines|circuit|banded|blocks|rect|
 *                      poisson3d:N|KIND:N:P[:Q]|F.mtx][,f32]...
 *   (default: the first five; banded:2000000:64, blocks:1500000:3:6 and
 *   rect:8000000:500000:4 as spbench's wide set makes them; poisson3d:N and KIND:N:P[:Q],
 *   sp_gen_shape's kinds as spbench's --gen reads them, at other sizes; ",f32": in float,
 *   the double values rounded)
 */
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "cusparse_ok.cuh"
#include "gpu_timing.cuh"
extern "C" {
#include "policy.h"
#include "sp_api.h"
}
#include "sp_kernels.h"

static cudaStream_t stream;

static sp_status_t dev_alloc(void *self, void **d_ptr, size_t bytes)
{
    (void)self;
    *d_ptr = nullptr;
    if (bytes > 0 && cudaMalloc(d_ptr, bytes) != cudaSuccess) return SP_STATUS_ALLOC_FAILED;
    return SP_STATUS_SUCCESS;
}

static void dev_free(void *self, void *d_ptr)
{
    (void)self;
    if (d_ptr) CUDA_OK(cudaFree(d_ptr));
}

/* A device copy of n bytes at h. */
static void *upload(const void *h, size_t n)
{
    void *d = nullptr;
    CUDA_OK(cudaMalloc(&d, n > 0 ? n : 1));
    if (n) CUDA_OK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
    return d;
}

/* The generated input (double values), or NULL for an unknown name. */
static sp_coo_t *make_input(const std::string &name)
{
    sp_coo_t *a = nullptr;
    long long n1 = 0;
    if (name == "poisson160") SP_OK(sp_gen_poisson3d(160, SP_R_64F, &a));
    if (std::sscanf(name.c_str(), "poisson3d:%lld", &n1) == 1 && n1 > 0)
        SP_OK(sp_gen_poisson3d((int)n1, SP_R_64F, &a));
    { /* KIND:N:P[:Q], as spbench's --gen reads sp_gen_shape's kinds */
        char kind[32] = "";
        double p = 0, q = -1;
        int got = std::sscanf(name.c_str(), "%31[a-z]:%lld:%lf:%lf", kind, &n1, &p, &q);
        std::string k = kind;
        sp_gen_shape_t g = {};
        g.nrows = g.ncols = n1;
        g.seed = 1;
        bool ok = got >= 3 && n1 > 0;
        if (k == "powerlaw") g.kind = SP_GEN_POWERLAW, g.exponent = p, g.mean = q > 0 ? q : 16;
        else if (k == "denselines") g.kind = SP_GEN_DENSE_LINES, g.dense = (int64_t)p, g.mean = q > 0 ? q : 8;
        else if (k == "rect") g.kind = SP_GEN_RECT, g.ncols = (int64_t)p, g.mean = q > 0 ? q : 16;
        else if (k == "banded") g.kind = SP_GEN_BANDED, g.band = (int64_t)p;
        else if (k == "blocks") g.kind = SP_GEN_BLOCKS, g.block = (int64_t)p, g.mean = q > 0 ? q : 9;
        else if (k == "circuit") g.kind = SP_GEN_CIRCUIT, g.dense = (int64_t)p;
        else ok = false;
        if (ok) SP_OK(sp_gen_shape(&g, SP_R_64F, &a));
    }
    if (name == "kron22") {
        SP_OK(sp_gen_kronecker(22, 16, 1, SP_R_64F, &a));
        SP_OK(sp_coo_symmetrize(a, 0));
    }
    if (name == "powerlaw") {
        sp_gen_shape_t g = {};
        g.kind = SP_GEN_POWERLAW;
        g.nrows = g.ncols = 2000000;
        g.exponent = 1.5;
        g.mean = 8;
        g.seed = 1;
        SP_OK(sp_gen_shape(&g, SP_R_64F, &a));
    }
    if (name == "banded" || name == "blocks" || name == "rect") {
        sp_gen_shape_t g = {};
        g.kind = name == "banded" ? SP_GEN_BANDED : name == "blocks" ? SP_GEN_BLOCKS : SP_GEN_RECT;
        g.nrows = g.ncols = name == "banded" ? 2000000 : 1500000;
        if (name == "rect") g.nrows = 8000000, g.ncols = 500000, g.mean = 4;
        g.band = 64;
        g.block = 3;
        if (name == "blocks") g.mean = 6;
        g.seed = 1;
        SP_OK(sp_gen_shape(&g, SP_R_64F, &a));
    }
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".mtx") == 0)
        SP_OK(sp_mtx_read(name.c_str(), SP_R_64F, nullptr, &a));
    if (name == "denselines" || name == "circuit") {
        sp_gen_shape_t g = {};
        g.kind = name == "denselines" ? SP_GEN_DENSE_LINES : SP_GEN_CIRCUIT;
        g.nrows = g.ncols = name == "denselines" ? 2000000 : 4000000;
        g.mean = 8;
        g.dense = name == "denselines" ? 4 : 16;
        g.seed = 1;
        SP_OK(sp_gen_shape(&g, SP_R_64F, &a));
    }
    return a;
}

template <typename T>
static double max_rel_diff(const T *d_a, const T *d_b, int64_t n)
{
    std::vector<T> a((size_t)n), b((size_t)n);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(a.data(), d_a, (size_t)n * sizeof(T), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(b.data(), d_b, (size_t)n * sizeof(T), cudaMemcpyDeviceToHost));
    double diff = 0, scale = 0;
    for (int64_t i = 0; i < n; i++) {
        diff = std::max(diff, std::fabs((double)a[(size_t)i] - (double)b[(size_t)i]));
        scale = std::max(scale, std::fabs((double)b[(size_t)i]));
    }
    return scale > 0 ? diff / scale : diff;
}

/* One input in value type T (double, or float for a name ending in ",f32": the double
 * values rounded). */
template <typename T>
static void bench_input(const std::string &name, sp_context_t *ctx, cusparseHandle_t handle,
                        int reps)
{
    const bool f32 = sizeof(T) == 4;
    const cudaDataType ct = f32 ? CUDA_R_32F : CUDA_R_64F;
    sp_coo_t *coo = make_input(f32 ? name.substr(0, name.size() - 4) : name);
    if (!coo) {
        std::printf("CSC %s skipped: unknown input\n", name.c_str());
        return;
    }
    sp_matrix_t *A = nullptr;
    sp_matrix_info_t info;
    sp_format_view_t v;
    SP_OK(sp_matrix_create(ctx, coo, nullptr, &A));
    SP_OK(sp_matrix_build(ctx, A, SP_FORMAT_CSC));
    SP_OK(sp_matrix_view(A, SP_FORMAT_CSC, &v));
    SP_OK(sp_matrix_info(A, &info));
    const int64_t m = v.nrows, n = v.ncols, nnz = v.nnz;
    sp_csr_t csc = {m, n, nnz, f32 ? SP_R_32F : SP_R_64F, nullptr, nullptr, nullptr, nullptr};
    csc.ptr = static_cast<int32_t *>(upload(v.csc.col_ptr, (size_t)(n + 1) * 4));
    csc.idx = static_cast<int32_t *>(upload(v.csc.row, (size_t)nnz * 4));
    {
        std::vector<T> hv((size_t)nnz);
        for (int64_t e = 0; e < nnz; e++)
            hv[(size_t)e] = (T) static_cast<const double *>(v.csc.val)[e];
        csc.val = upload(hv.data(), (size_t)nnz * sizeof(T));
    }
    std::vector<T> hx((size_t)n);
    for (int64_t j = 0; j < n; j++) hx[(size_t)j] = (T)(1.0 / (double)(1 + j % 17) - 0.25);
    T *x = static_cast<T *>(upload(hx.data(), (size_t)n * sizeof(T)));
    T *y = nullptr, *yc = nullptr;
    CUDA_OK(cudaMalloc(&y, (size_t)(m > 0 ? m : 1) * sizeof(T)));
    CUDA_OK(cudaMalloc(&yc, (size_t)(m > 0 ? m : 1) * sizeof(T)));

    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vx, vy;
    const T one = 1, zero = 0;
    CUSPARSE_OK(cusparseCreateCsc(&mat, m, n, nnz, csc.ptr, csc.idx, csc.val, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, ct));
    CUSPARSE_OK(cusparseCreateDnVec(&vx, n, x, ct));
    CUSPARSE_OK(cusparseCreateDnVec(&vy, m, yc, ct));
    size_t bytes = 0;
    CUSPARSE_OK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx,
                                        &zero, vy, ct, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    void *buf = nullptr;
    CUDA_OK(cudaMalloc(&buf, bytes > 0 ? bytes : 1));

    sp_gpu_env_t env = {};
    int dev = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaDeviceGetAttribute(&env.sm_count, cudaDevAttrMultiProcessorCount, dev));
    env.stream = stream;
    env.alloc = dev_alloc;
    env.free = dev_free;
    /* what the library's policy picks (src/policy.c; as src/spmv_cuda.c's csc_plan asks) */
    const sp__policy_t *pol = sp__policy_for(ctx);
    int64_t hb = sp__policy_spmv_csc_heavy_bound(pol, m, nnz, info.row_max, A->row_hist);
    int picked_flags =
        (sp__policy_spmv_csc_aggregate(pol, info.row_max, hb) ? SP_GPU_CSC_AGGREGATE : 0) |
        (sp__policy_spmv_csc_window(pol, m, n, nnz, hb) ? SP_GPU_CSC_WINDOW : 0);
    std::printf("CSC %s rows %lld cols %lld nnz %lld longest_row %lld\n", name.c_str(),
                (long long)m, (long long)n, (long long)nnz, (long long)info.row_max);
    {
        sp_gpu_spmv_plan_t plan = {};
        SP_OK(sp__gpu_spmv_csc_plan(&env, &csc, SP_GPU_CSC_TRY_SYMMETRIC, -1, nullptr, &plan));
        std::printf("CSC %s equals its transpose: %s\n", name.c_str(),
                    plan.param & SP_GPU_CSC_SYMMETRIC ? "yes" : "no");
        sp__gpu_spmv_plan_free(&env, &plan);
    }
    for (int variant = 0; variant < 6; variant++) {
        /* 0-3: the flags' four without heavy rows; 4-5: with heavy rows, without and with
           the window */
        int flags = variant < 4 ? variant : variant == 5 ? SP_GPU_CSC_WINDOW : 0;
        int64_t bound = variant >= 4 ? hb : -1;
        if (variant >= 4 && hb < 0) break;
        sp_gpu_spmv_plan_t plan = {};
        SP_OK(sp__gpu_spmv_csc_plan(&env, &csc, flags, bound, nullptr, &plan));
        stats s, c;
        time_pair(
            stream, 5, reps, nullptr,
            [&] { SP_OK(sp__gpu_spmv_csc(&env, &plan, &csc, &one, x, &zero, y)); },
            [&] {
                CUSPARSE_OK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat,
                                         vx, &zero, vy, ct, CUSPARSE_SPMV_ALG_DEFAULT, buf));
            },
            &s, &c);
        int shown = flags & (SP_GPU_CSC_AGGREGATE | SP_GPU_CSC_WINDOW);
        std::printf("CSC %s flags %s%s%s heavy %lld rows %d libsp_ms %.4f cusparse_csc_ms %.4f "
                    "x_cusparse_csc %.3f max_rel_diff %.2e%s\n",
                    name.c_str(), flags & SP_GPU_CSC_AGGREGATE ? "agg" : "",
                    shown == 3 ? "+" : shown == 0 ? "-" : "",
                    flags & SP_GPU_CSC_WINDOW ? "win" : "", (long long)bound, plan.heavy_rows,
                    s.median, c.median, c.median / s.median, max_rel_diff(y, yc, m),
                    flags == picked_flags && bound == hb ? " [policy]" : "");
        std::fflush(stdout);
        sp__gpu_spmv_plan_free(&env, &plan);
    }
    CUSPARSE_OK(cusparseDestroyDnVec(vy));
    CUSPARSE_OK(cusparseDestroyDnVec(vx));
    CUSPARSE_OK(cusparseDestroySpMat(mat));
    CUDA_OK(cudaFree(buf));
    CUDA_OK(cudaFree(yc));
    CUDA_OK(cudaFree(y));
    CUDA_OK(cudaFree(x));
    CUDA_OK(cudaFree(csc.val));
    CUDA_OK(cudaFree(csc.idx));
    CUDA_OK(cudaFree(csc.ptr));
    sp_matrix_destroy(A);
    sp_coo_free(coo);
}

int main(int argc, char **argv)
{
    std::vector<std::string> names;
    int reps = 20;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = std::max(3, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--input") && i + 1 < argc)
            names.push_back(argv[++i]);
        else {
            std::fprintf(stderr,
                         "usage: %s [--reps N] [--input "
                         "poisson160|kron22|powerlaw|denselines|circuit|banded|blocks|rect|"
                         "poisson3d:N|KIND:N:P[:Q]|F.mtx][,f32]...\n",
                         argv[0]);
            return 2;
        }
    }
    if (names.empty()) names = {"poisson160", "kron22", "powerlaw", "denselines", "circuit"};
    sp_context_t *ctx = nullptr;
    cusparseHandle_t handle;
    CUDA_OK(cudaStreamCreate(&stream));
    SP_OK(sp_context_create(SP_DEVICE_CUDA, nullptr, &ctx));
    CUSPARSE_OK(cusparseCreate(&handle));
    CUSPARSE_OK(cusparseSetStream(handle, stream));
    for (const std::string &name : names) {
        bool f32 = name.size() > 4 && name.compare(name.size() - 4, 4, ",f32") == 0;
        if (f32)
            bench_input<float>(name, ctx, handle, reps);
        else
            bench_input<double>(name, ctx, handle, reps);
    }
    CUSPARSE_OK(cusparseDestroy(handle));
    sp_context_destroy(ctx);
    CUDA_OK(cudaStreamDestroy(stream));
    return 0;
}
