/* sptrsv_bench: the sparse triangular solve x = T^-1 b, T the lower triangle (D+L) of a
 * full square matrix, libsp against cuSPARSE SpSV (CUSPARSE_FILL_MODE_LOWER on the full
 * matrix, non-unit diagonal, CUSPARSE_SPSV_ALG_DEFAULT), all in this process on one stream.
 *
 * libsp through its public API as a user calls it, on a CUDA context on the same stream:
 * sp_sptrsv_analyse (the analysis, cached in the matrix) then sp_sptrsv (the solve), for
 * api_auto (SP_SPTRSV_ALG_AUTO: what a user gets), api_soft (SOFT_SYNC) and api_levels
 * (LEVELS). With --internal also the kernel layer's variants through sp__gpu_sptrsv_*
 * (kernel work): levels, soft (ready flags), soft_natural (row order), soft_value (x as its
 * own flag, 32 rows a warp), soft_block (256 rows a block), wave (units of one level waiting
 * once on the previous level's counter), small (one block, x in shared memory; only where x
 * fits).
 * Analysis: each method's analysis on a fresh matrix handle (libsp: a new sp_matrix_t with
 * its CSR built, outside the timing; cuSPARSE: a new SpSV descriptor and buffer, outside
 * the timing), interleaved with cuSPARSE's, CUDA events around the call (it may
 * synchronize inside), 1 warm-up and ana_reps timed, median; the host wall clock of the
 * same calls beside it; then one more analysis (the one the solves use) with its phases
 * timed by the kernel layer's hook (sp__gpu_sptrsv_phase_timing: events on the stream and
 * the host clock at each phase's end), printed as `<method>_phase: <analysis#> <name>
 * gpu_ms=.. host_ms=..` lines and their sum. Solve: CUDA events, warm-up, then timed calls, median, each method
 * interleaved with cuSPARSE (its ratio is to the cuSPARSE median of its own pair), levels
 * and soft_natural alone. Accuracy: max |x - x_ref| / max |x_ref| against the CPU
 * reference, after the first and after the last timed solve.
 * Prints `Label: value` lines per matrix, a `summary:` line per matrix (AUTO against
 * cuSPARSE) and a markdown table.
 *
 *   sptrsv_bench [--reps N] [--float] [--internal] [--level-units U] [--input NAME]...
 *     U: the level pass's units of 32 rows a ticket (1, 2, 4 or 8; else chosen by size)
 *     --merge M: the value-as-flag solves' plans level-merged (sptrsv_merge.cu) never (0),
 *     wherever they qualify (1), or by the default rule (any other M)
 *     --value-tuning W:NS: the value-as-flag solves' grid floor of W warps an SM and
 *     longest sleep NS between polls (0 or less / negative: the defaults, 8 and 512)
 *     NAME: poisson3d128, poisson3d100, poisson2d1000, chain1M, or a .mtx path (default: poisson3d100,
 *       poisson3d128, poisson2d1000, chain1M and every square matrix of datasets/mtx with
 *       a full non-zero diagonal)
 *
 * A method whose single call takes longer than slow_call_s (level scheduling on the chain:
 * one launch per row; cuSPARSE's analysis of the chain) is timed with slow_reps calls,
 * said in its reps line. */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <dirent.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cusparse_ok.cuh"
#include "gpu_timing.cuh"
#include "sp_kernels_solve.h"

extern "C" {
#include "sp_ref.h"
}


static const int warmup = 5;
static const int ana_reps = 5;
static const double slow_call_s = 0.25;
static const int slow_reps = 3;
static int reps = 20;
static bool internal = false;
static sp_value_type_t vtype = SP_R_64F;
static cudaStream_t stream;
static cusparseHandle_t handle;
static sp_gpu_env_t env;
static sp_context_t *ctx; /* the public API's context, on the same stream */

/* ---- device memory for libsp: the default pool, stream-ordered ------------------------- */

static sp_status_t pool_alloc(void *, void **d_ptr, size_t bytes)
{
    *d_ptr = nullptr;
    if (bytes == 0) return SP_STATUS_SUCCESS;
    if (cudaMallocAsync(d_ptr, bytes, stream) != cudaSuccess) {
        (void)cudaGetLastError();
        std::fprintf(stderr, "cudaMallocAsync of %zu bytes failed\n", bytes);
        return SP_STATUS_ALLOC_FAILED;
    }
    return SP_STATUS_SUCCESS;
}

static void pool_free(void *, void *d_ptr)
{
    if (d_ptr) CUDA_OK(cudaFreeAsync(d_ptr, stream));
}

static void setup()
{
    int dev = 0, sms = 0;
    uint64_t keep = UINT64_MAX;
    cudaMemPool_t pool;
    CUDA_OK(cudaStreamCreate(&stream));
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, dev));
    CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    env.stream = stream;
    env.alloc = pool_alloc;
    env.free = pool_free;
    env.sm_count = sms;
    CUSPARSE_OK(cusparseCreate(&handle));
    CUSPARSE_OK(cusparseSetStream(handle, stream));
    sp_context_options_t copt = {};
    copt.stream = stream;
    SP_OK(sp_context_create(SP_DEVICE_CUDA, &copt, &ctx));
}

/* ---- inputs ----------------------------------------------------------------------------- */

struct input {
    std::string name;
    sp_coo_t *coo;
};

/* Bidiagonal: 2 on the diagonal, -1 below it (x stays bounded), n levels. */
static sp_coo_t *chain(int64_t n)
{
    sp_coo_t *a = nullptr;
    SP_OK(sp_coo_create(n, n, 2 * n, SP_R_64F, &a));
    for (int64_t r = 0; r < n; r++) {
        if (r > 0) {
            a->row[a->nnz] = (int32_t)r;
            a->col[a->nnz] = (int32_t)(r - 1);
            ((double *)a->val)[a->nnz++] = -1;
        }
        a->row[a->nnz] = (int32_t)r;
        a->col[a->nnz] = (int32_t)r;
        ((double *)a->val)[a->nnz++] = 2;
    }
    return a;
}

static bool load(const std::string &name, sp_coo_t **coo)
{
    sp_mtx_options_t opt = {};
    opt.complex_mode = SP_COMPLEX_REAL_PART;
    *coo = nullptr;
    if (name == "poisson3d128") SP_OK(sp_gen_poisson3d(128, SP_R_64F, coo));
    else if (name == "poisson3d100")
        SP_OK(sp_gen_poisson3d(100, SP_R_64F, coo));
    else if (name == "poisson2d1000") SP_OK(sp_gen_poisson2d(1000, SP_R_64F, coo));
    else if (name == "chain1M") *coo = chain(1000000);
    else if (sp_mtx_read(name.c_str(), SP_R_64F, &opt, coo) != SP_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), sp_last_error());
        return false;
    }
    return true;
}

/* Square with a non-zero stored diagonal in every row (h sorted, merged). */
static bool full_diagonal(const sp_csr_t *h)
{
    if (h->nrows != h->ncols || h->value_type == SP_VALUE_NONE) return false;
    for (int64_t r = 0; r < h->nrows; r++) {
        bool found = false;
        for (int64_t k = h->ptr[r]; k < h->ptr[r + 1]; k++) {
            double v = h->value_type == SP_R_32F ? (double)((const float *)h->val)[k]
                                                 : ((const double *)h->val)[k];
            if (h->idx[k] == r && v != 0) found = true;
        }
        if (!found) return false;
    }
    return true;
}

/* ---- one matrix ------------------------------------------------------------------------- */

struct result {
    std::string name;
    int64_t n, tri_nnz, levels;
    double ana_ms[11], ana_wall_ms[11], cus_ana_ms[11], solve_us[11], cus_us[11], err[11];
    int reps[11];
    bool skipped[11];
    std::vector<sp_gpu_sptrsv_phase_t> phases[11]; /* of one more analysis, timed by phase */
};
enum {
    M_CUSPARSE,
    M_API_LEVELS,
    M_API_SOFT,
    M_API_AUTO,
    M_LEVELS, /* the kernel layer's, with --internal */
    M_SOFT,
    M_SOFT_NAT,
    M_SOFT_VALUE,
    M_SOFT_BLOCK,
    M_WAVE,
    M_SMALL,
    M_COUNT
};
static const char *const method_names[M_COUNT] = {
    "cusparse",   "api_levels", "api_soft",   "api_auto", "levels", "soft",
    "soft_natural", "soft_value", "soft_block", "wave",   "small"};
/* timed interleaved with cuSPARSE */
#define NPAIRED 8
static const int paired[NPAIRED] = {M_API_LEVELS, M_API_SOFT,   M_API_AUTO, M_SOFT,
                                    M_SOFT_VALUE, M_SOFT_BLOCK, M_WAVE,     M_SMALL};
static bool used(int m)
{
    return m < M_LEVELS || internal;
}

static double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/* One untimed call, its wall time in seconds (stream synchronized). */
static double probe(const std::function<void()> &f)
{
    CUDA_OK(cudaStreamSynchronize(stream));
    auto t0 = std::chrono::steady_clock::now();
    f();
    CUDA_OK(cudaStreamSynchronize(stream));
    return seconds_since(t0);
}

static double max_rel_err(const void *d_x, const std::vector<double> &ref, size_t vs)
{
    size_t n = ref.size();
    std::vector<unsigned char> h(n * vs);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(h.data(), d_x, n * vs, cudaMemcpyDeviceToHost));
    double err = 0, xmax = 0;
    for (size_t i = 0; i < n; i++) {
        double x = vs == 4 ? (double)((const float *)h.data())[i] : ((const double *)h.data())[i];
        err = std::isnan(x) ? INFINITY : std::fmax(err, std::fabs(x - ref[i]));
        xmax = std::fmax(xmax, std::fabs(ref[i]));
        if (std::isinf(err)) break;
    }
    return xmax > 0 ? err / xmax : err;
}

template <typename T>
static void upload(T **d, const void *h, size_t count)
{
    CUDA_OK(cudaMalloc((void **)d, count * sizeof(T) + 8));
    if (count) CUDA_OK(cudaMemcpy(*d, h, count * sizeof(T), cudaMemcpyHostToDevice));
}

static bool run_matrix(const std::string &name, sp_coo_t *coo, result *res)
{
    sp_csr_t h = {};
    sp_coo_t *b64 = nullptr;
    SP_OK(sp_coo_copy(coo, vtype, &b64));
    SP_OK(sp_coo_sort_merge(b64, SP_DUP_SUM, nullptr));
    sp_triplets_t t = sp__coo_triplets(b64);
    SP_OK(sp__ref_coo_to_csr(&t, &h));
    sp_coo_free(b64);
    if (!full_diagonal(&h)) {
        sp__csr_free(&h);
        return false;
    }
    const int64_t n = h.nrows;
    const size_t vs = sp_value_size(vtype);
    const cudaDataType ct = vtype == SP_R_32F ? CUDA_R_32F : CUDA_R_64F;
    double alpha_d = 1.0;
    float alpha_f = 1.0f;
    const void *alpha = vtype == SP_R_32F ? (const void *)&alpha_f : (const void *)&alpha_d;

    /* right-hand side and the reference */
    std::vector<unsigned char> hb(n * vs), hx(n * vs);
    uint64_t s = 0x5eed;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
        if (vs == 4) ((float *)hb.data())[i] = (float)v;
        else ((double *)hb.data())[i] = v;
    }
    SP_OK(sp__ref_sptrsv(&h, 0, 0, alpha, hb.data(), hx.data()));
    std::vector<double> ref(n);
    for (int64_t i = 0; i < n; i++)
        ref[i] = vs == 4 ? (double)((float *)hx.data())[i] : ((double *)hx.data())[i];

    sp_csr_t d = h;
    unsigned char *d_val = nullptr;
    upload(&d.ptr, h.ptr, (size_t)n + 1);
    upload(&d.idx, h.idx, (size_t)h.nnz);
    upload(&d_val, h.val, (size_t)h.nnz * vs);
    d.val = d_val;
    unsigned char *d_b, *d_x[M_COUNT];
    upload(&d_b, hb.data(), n * vs);
    for (int m = 0; m < M_COUNT; m++) CUDA_OK(cudaMalloc((void **)&d_x[m], n * vs + 8));

    /* cuSPARSE SpSV: the matrix and vector descriptors once, an SpSV descriptor and buffer
     * per analysis */
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vb, vx;
    cusparseSpSVDescr_t sv = nullptr;
    void *d_buf = nullptr;
    cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    CUSPARSE_OK(cusparseCreateCsr(&mat, n, n, h.nnz, d.ptr, d.idx, d.val, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, ct));
    CUSPARSE_OK(cusparseSpMatSetAttribute(mat, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    CUSPARSE_OK(cusparseSpMatSetAttribute(mat, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    CUSPARSE_OK(cusparseCreateDnVec(&vb, n, d_b, ct));
    CUSPARSE_OK(cusparseCreateDnVec(&vx, n, d_x[M_CUSPARSE], ct));
    auto cus_new = [&] {
        size_t buf_bytes = 0;
        CUSPARSE_OK(cusparseSpSV_createDescr(&sv));
        CUSPARSE_OK(cusparseSpSV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat,
                                            vb, vx, ct, CUSPARSE_SPSV_ALG_DEFAULT, sv, &buf_bytes));
        CUDA_OK(cudaMalloc(&d_buf, buf_bytes + 8));
        CUDA_OK(cudaDeviceSynchronize());
    };
    auto cus_analyse = [&] {
        CUSPARSE_OK(cusparseSpSV_analysis(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat, vb,
                                          vx, ct, CUSPARSE_SPSV_ALG_DEFAULT, sv, d_buf));
    };
    auto cus_drop = [&] {
        CUDA_OK(cudaStreamSynchronize(stream));
        CUSPARSE_OK(cusparseSpSV_destroyDescr(sv));
        CUDA_OK(cudaFree(d_buf));
        sv = nullptr;
        d_buf = nullptr;
    };

    /* libsp through the public API: b and x on ctx, a matrix handle per method and analysis */
    const sp_sptrsv_alg_t api_alg[3] = {SP_SPTRSV_ALG_LEVELS, SP_SPTRSV_ALG_SOFT_SYNC,
                                        SP_SPTRSV_ALG_AUTO};
    sp_coo_t *cv = nullptr;
    sp_matrix_t *A[M_COUNT] = {};
    sp_vector_t *bv = nullptr, *xv[M_COUNT] = {};
    SP_OK(sp_coo_copy(coo, vtype, &cv));
    SP_OK(sp_vector_create(ctx, vtype, n, hb.data(), &bv));
    for (int m = M_API_LEVELS; m <= M_API_AUTO; m++) {
        SP_OK(sp_vector_create(ctx, vtype, n, nullptr, &xv[m]));
        CUDA_OK(cudaFree(d_x[m]));
        d_x[m] = (unsigned char *)sp_vector_data(xv[m]);
    }

    /* the kernel layer's plans (--internal) */
    sp_gpu_sptrsv_plan_t *plan[M_COUNT] = {};
    const sp_gpu_sptrsv_alg_t alg[M_COUNT] = {
        SP_GPU_SPTRSV_LEVELS,       SP_GPU_SPTRSV_LEVELS,     SP_GPU_SPTRSV_LEVELS,
        SP_GPU_SPTRSV_LEVELS,       SP_GPU_SPTRSV_LEVELS,     SP_GPU_SPTRSV_SOFT,
        SP_GPU_SPTRSV_SOFT_NATURAL, SP_GPU_SPTRSV_SOFT_VALUE, SP_GPU_SPTRSV_SOFT_BLOCK,
        SP_GPU_SPTRSV_WAVE,         SP_GPU_SPTRSV_SMALL};
    for (int m = 0; m < M_COUNT; m++)
        res->skipped[m] = !used(m) || (m == M_SMALL && (size_t)n * vs > SP_GPU_SPTRSV_SMALL_MAX_BYTES);

    /* analysis: a fresh handle per timed call, interleaved with cuSPARSE's */
    auto reps_for = [&](double t) { return t > slow_call_s ? slow_reps : reps; };
    double cus_once = 0;
    cus_new();
    cus_once = probe(cus_analyse);
    cus_drop();
    stats st, st_cus, none;
    bool first_pair = true;
    for (int m = M_API_LEVELS; m < M_COUNT; m++) {
        if (res->skipped[m]) continue;
        bool api = m <= M_API_AUTO;
        sp_matrix_t *M = nullptr;
        auto prep = [&] {
            if (api) {
                SP_OK(sp_matrix_create(ctx, cv, nullptr, &M));
                SP_OK(sp_matrix_build(ctx, M, SP_FORMAT_CSR));
            }
            CUDA_OK(cudaStreamSynchronize(stream));
        };
        auto analyse = [&] {
            if (api)
                SP_OK(sp_sptrsv_analyse(ctx, M, SP_UPLO_LOWER, SP_DIAG_NON_UNIT,
                                        api_alg[m - M_API_LEVELS]));
            else
                SP_OK(sp__gpu_sptrsv_analyse(&env, &d, 0, 0, alg[m], &plan[m]));
        };
        auto drop = [&] {
            if (sv) cus_drop();
            CUDA_OK(cudaStreamSynchronize(stream));
            sp_matrix_destroy(M);
            M = nullptr;
            sp__gpu_sptrsv_plan_free(&env, plan[m]);
            plan[m] = nullptr;
        };
        prep();
        double once = probe(analyse);
        drop();
        int r = std::min(std::max(once, cus_once) > slow_call_s ? 1 : ana_reps, ana_reps);
        std::vector<double> wall;
        auto timed = [&] {
            auto t0 = std::chrono::steady_clock::now();
            analyse();
            CUDA_OK(cudaStreamSynchronize(stream));
            wall.push_back(1e3 * seconds_since(t0));
        };
        auto cus_timed = [&] {
            cus_analyse();
            CUDA_OK(cudaStreamSynchronize(stream));
        };
        time_pair(stream, r == ana_reps ? 1 : 0, r, prep, timed, cus_timed, &st, &st_cus, cus_new,
                  drop);
        res->ana_ms[m] = st.median;
        res->cus_ana_ms[m] = st_cus.median;
        wall.erase(wall.begin(), wall.end() - r); /* the timed calls only, not the warm-up */
        std::sort(wall.begin(), wall.end());
        res->ana_wall_ms[m] = wall[wall.size() / 2];
        if (first_pair) res->ana_ms[M_CUSPARSE] = st_cus.median, first_pair = false;
        /* the handle the solves use: analysed once more, untimed as a whole, its phases
         * timed (kernels/solve/sptrsv_phases.cu) */
        prep();
        sp__gpu_sptrsv_phase_timing(1);
        analyse();
        CUDA_OK(cudaStreamSynchronize(stream));
        res->phases[m].resize(SP_GPU_SPTRSV_PHASES_MAX);
        res->phases[m].resize((size_t)std::min(
            sp__gpu_sptrsv_phases(res->phases[m].data(), SP_GPU_SPTRSV_PHASES_MAX),
            SP_GPU_SPTRSV_PHASES_MAX));
        sp__gpu_sptrsv_phase_timing(0);
        if (api) A[m] = M;
    }
    cus_new();
    cus_analyse();

    std::function<void()> call[M_COUNT];
    call[M_CUSPARSE] = [&] {
        CUSPARSE_OK(cusparseSpSV_solve(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat, vb,
                                       vx, ct, CUSPARSE_SPSV_ALG_DEFAULT, sv));
    };
    for (int m = M_API_LEVELS; m <= M_API_AUTO; m++)
        call[m] = [&, m] {
            SP_OK(sp_sptrsv(ctx, A[m], SP_UPLO_LOWER, SP_DIAG_NON_UNIT,
                            api_alg[m - M_API_LEVELS], alpha, sp_vector_data(bv),
                            sp_vector_data(xv[m])));
        };
    for (int m = M_LEVELS; m < M_COUNT; m++)
        call[m] = [&, m] { SP_OK(sp__gpu_sptrsv_solve(&env, plan[m], &d, alpha, d_b, d_x[m])); };
    double first[M_COUNT] = {};
    for (int m = 0; m < M_COUNT; m++) {
        if (m != M_CUSPARSE && res->skipped[m]) continue;
        CUDA_OK(cudaMemset(d_x[m], 0xff, n * vs));
        first[m] = probe(call[m]);
        res->err[m] = max_rel_err(d_x[m], ref, vs);
    }
    first_pair = true;
    for (int p = 0; p < NPAIRED; p++) {
        int m = paired[p];
        if (res->skipped[m]) continue;
        int r = std::min(reps_for(first[m]), reps_for(first[M_CUSPARSE]));
        time_pair(stream, r == reps ? warmup : 1, r, nullptr, call[m], call[M_CUSPARSE], &st,
                  &st_cus);
        res->solve_us[m] = 1e3 * st.median;
        res->cus_us[m] = 1e3 * st_cus.median;
        res->reps[m] = r;
        if (first_pair) {
            res->solve_us[M_CUSPARSE] = res->cus_us[M_CUSPARSE] = res->cus_us[m];
            res->reps[M_CUSPARSE] = r;
            first_pair = false;
        }
    }
    for (int m : {M_LEVELS, M_SOFT_NAT}) {
        if (res->skipped[m]) continue;
        int r = reps_for(first[m]);
        time_pair(stream, r == reps ? warmup : 1, r, nullptr, call[m], nullptr, &st, &none);
        res->solve_us[m] = 1e3 * st.median;
        res->cus_us[m] = res->solve_us[M_CUSPARSE];
        res->reps[m] = r;
    }
    /* the timed calls left their x: check once more that repeated solves stay right */
    for (int m = M_API_LEVELS; m < M_COUNT; m++)
        if (!res->skipped[m]) res->err[m] = std::fmax(res->err[m], max_rel_err(d_x[m], ref, vs));
    sp_coo_free(cv);

    res->name = name;
    res->n = n;
    res->tri_nnz = 0;
    res->levels = 0;
    {
        /* dependency levels of the lower triangle, on the host */
        std::vector<int64_t> level((size_t)n, 0);
        for (int64_t r = 0; r < n; r++) {
            int64_t l = 0;
            for (int64_t k = h.ptr[r]; k < h.ptr[r + 1]; k++) {
                res->tri_nnz += h.idx[k] <= r;
                if (h.idx[k] < r) l = std::max(l, level[h.idx[k]]);
            }
            level[r] = l + 1;
            res->levels = std::max(res->levels, level[r]);
        }
    }

    for (int m = M_LEVELS; m < M_COUNT; m++) sp__gpu_sptrsv_plan_free(&env, plan[m]);
    CUDA_OK(cudaStreamSynchronize(stream));
    for (int m = M_API_LEVELS; m <= M_API_AUTO; m++) {
        sp_vector_destroy(xv[m]);
        sp_matrix_destroy(A[m]);
        d_x[m] = nullptr;
    }
    sp_vector_destroy(bv);
    cus_drop();
    CUSPARSE_OK(cusparseDestroyDnVec(vx));
    CUSPARSE_OK(cusparseDestroyDnVec(vb));
    CUSPARSE_OK(cusparseDestroySpMat(mat));
    for (int m = 0; m < M_COUNT; m++)
        if (d_x[m]) CUDA_OK(cudaFree(d_x[m]));
    CUDA_OK(cudaFree(d_b));
    CUDA_OK(cudaFree(d.val));
    CUDA_OK(cudaFree(d.idx));
    CUDA_OK(cudaFree(d.ptr));
    sp__csr_free(&h);
    return true;
}

static void print_result(const result &r)
{
    std::printf("matrix: %s\nrows: %lld\ntriangle_nnz: %lld\nlevels: %lld\n", r.name.c_str(),
                (long long)r.n, (long long)r.tri_nnz, (long long)r.levels);
    std::printf("cusparse_analysis_ms: %.3f\ncusparse_solve_us: %.1f\ncusparse_reps: %d\n"
                "cusparse_max_rel_err: %.3g\n",
                r.ana_ms[M_CUSPARSE], r.solve_us[M_CUSPARSE], r.reps[M_CUSPARSE],
                r.err[M_CUSPARSE]);
    for (int m = M_API_LEVELS; m < M_COUNT; m++) {
        const char *nm = method_names[m];
        if (r.skipped[m]) {
            if (used(m)) std::printf("%s: skipped\n", nm);
            continue;
        }
        std::printf("%s_analysis_ms: %.3f\n%s_analysis_wall_ms: %.3f\n"
                    "%s_analysis_cusparse_ms: %.3f\n%s_solve_us: %.1f\n%s_reps: %d\n"
                    "%s_max_rel_err: %.3g\n",
                    nm, r.ana_ms[m], nm, r.ana_wall_ms[m], nm, r.cus_ana_ms[m], nm,
                    r.solve_us[m], nm, r.reps[m], nm, r.err[m]);
        /* where the analysis's time goes: a line per phase of one more analysis (gpu: the
         * stream's time from the previous phase's end, host: the thread's), and its sum */
        double sum_gpu = 0, sum_host = 0;
        for (const sp_gpu_sptrsv_phase_t &ph : r.phases[m]) {
            std::printf("%s_phase: %d %s gpu_ms=%.3f host_ms=%.3f\n", nm, ph.analysis, ph.name,
                        ph.gpu_ms, ph.host_ms);
            sum_gpu += ph.gpu_ms > 0 ? ph.gpu_ms : 0;
            sum_host += ph.host_ms;
        }
        if (!r.phases[m].empty())
            std::printf("%s_phases_total: gpu_ms=%.3f host_ms=%.3f\n", nm, sum_gpu, sum_host);
        if (m != M_LEVELS && m != M_SOFT_NAT)
            std::printf("%s_speedup_vs_cusparse: %.2f\n", nm, r.cus_us[m] / r.solve_us[m]);
        std::printf("%s_analysis_vs_cusparse: %.2f\n", nm,
                    r.cus_ana_ms[m] / std::fmax(r.ana_ms[m], 1e-6));
    }
    /* what a user gets (AUTO) against cuSPARSE, ratios > 1: libsp faster */
    std::printf("summary: %s auto_solve_us=%.1f cusparse_solve_us=%.1f solve_ratio=%.2f "
                "auto_analysis_ms=%.3f cusparse_analysis_ms=%.3f analysis_ratio=%.2f "
                "auto_err=%.2g\n\n",
                r.name.c_str(), r.solve_us[M_API_AUTO], r.cus_us[M_API_AUTO],
                r.cus_us[M_API_AUTO] / r.solve_us[M_API_AUTO], r.ana_ms[M_API_AUTO],
                r.cus_ana_ms[M_API_AUTO], r.cus_ana_ms[M_API_AUTO] / std::fmax(r.ana_ms[M_API_AUTO], 1e-6),
                r.err[M_API_AUTO]);
    std::fflush(stdout);
}

int main(int argc, char **argv)
{
    std::vector<std::string> names;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(20, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--input") && i + 1 < argc) names.push_back(argv[++i]);
        else if (!std::strcmp(argv[i], "--float")) vtype = SP_R_32F;
        else if (!std::strcmp(argv[i], "--internal"))
            internal = true;
        else if (!std::strcmp(argv[i], "--merge") && i + 1 < argc)
            sp__gpu_sptrsv_set_merge(std::atoi(argv[++i])); /* 0 never, 1 always, else default */
        else if (!std::strcmp(argv[i], "--value-tuning") && i + 1 < argc) {
            int w = 0, ns = -1; /* WARPS_PER_SM:BACKOFF_MAX_NS */
            std::sscanf(argv[++i], "%d:%d", &w, &ns);
            sp__gpu_sptrsv_set_value_tuning(w, ns);
        } else if (!std::strcmp(argv[i], "--level-units") && i + 1 < argc)
            sp__gpu_sptrsv_set_level_units(std::atoi(argv[++i])); /* 1, 2, 4, 8; else chosen */
        else {
            std::fprintf(
                stderr,
                "usage: %s [--reps N (>= 20)] [--float] [--internal] [--level-units U] "
                "[--value-tuning WARPS_PER_SM:BACKOFF_MAX_NS] [--merge M] "
                "[--input NAME]...\n",
                argv[0]);
            return 2;
        }
    }
    if (names.empty()) {
        names = {"poisson3d100", "poisson3d128", "poisson2d1000", "chain1M"};
        std::vector<std::string> files;
        if (DIR *dir = opendir(SP_DATASETS_DIR "/mtx")) {
            while (struct dirent *e = readdir(dir)) {
                std::string f = e->d_name;
                if (f.size() > 4 && f.compare(f.size() - 4, 4, ".mtx") == 0)
                    files.push_back(std::string(SP_DATASETS_DIR "/mtx/") + f);
            }
            closedir(dir);
        }
        std::sort(files.begin(), files.end());
        names.insert(names.end(), files.begin(), files.end());
    }
    setup();
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s\ntype: %s\nreps: %d\n\n", prop.name, vtype == SP_R_32F ? "float" : "double",
                reps);
    std::vector<result> results;
    for (const std::string &name : names) {
        sp_coo_t *coo = nullptr;
        result r = {};
        if (!load(name, &coo)) continue;
        std::string shown = name.substr(name.find_last_of('/') + 1);
        if (run_matrix(shown, coo, &r)) {
            print_result(r);
            results.push_back(r);
        } else {
            std::printf("skipped: %s (not square with a full non-zero diagonal)\n\n", shown.c_str());
        }
        sp_coo_free(coo);
    }
    std::printf(
        "| matrix | rows | levels | cuSPARSE µs | api levels µs | api soft µs | api auto µs "
        "| vs cuSPARSE (levels/soft/auto) | analysis ms (cus/levels/soft/auto) | "
        "auto analysis vs cuSPARSE | max rel err (cus/levels/soft/auto) |\n"
        "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---|\n");
    for (const result &r : results) {
        std::printf("| %s | %lld | %lld |", r.name.c_str(), (long long)r.n, (long long)r.levels);
        for (int m = M_CUSPARSE; m <= M_API_AUTO; m++)
            std::printf(" %.1f |", r.solve_us[m]);
        for (int m = M_API_LEVELS; m <= M_API_AUTO; m++)
            std::printf("%s%.2fx", m > M_API_LEVELS ? " / " : " ", r.cus_us[m] / r.solve_us[m]);
        std::printf(" |");
        for (int m = M_CUSPARSE; m <= M_API_AUTO; m++)
            std::printf("%s%.2f", m ? " / " : " ", r.ana_ms[m]);
        std::printf(" | %.2fx |", r.cus_ana_ms[M_API_AUTO] / std::fmax(r.ana_ms[M_API_AUTO], 1e-6));
        for (int m = M_CUSPARSE; m <= M_API_AUTO; m++)
            std::printf("%s%.1e", m ? " / " : " ", r.err[m]);
        std::printf(" |\n");
    }
    sp_context_destroy(ctx);
    CUSPARSE_OK(cusparseDestroy(handle));
    CUDA_OK(cudaStreamDestroy(stream));
    return 0;
}
