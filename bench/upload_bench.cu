/* upload_bench: the time from a host COO to a device CSR, upload included (issue 20, item
 * 4), as a user pays it. The input's entries are shuffled (fixed seed) into plain
 * malloc'd (pageable) arrays of int32 rows and columns and double values; then, in one
 * process, rounds of three interleaved measurements, each by the host's wall clock:
 *  (a) libsp: sp_matrix_create on a CUDA context + sp_matrix_build(CSR) +
 *      sp_context_synchronize (the matrix destroyed after the clock stops);
 *  (b) the plain cuSPARSE path from the same host arrays: cudaMemcpyAsync of rows, columns
 *      and values into device arrays allocated once, an identity permutation,
 *      cusparseXcoosortByRow, a gather of the values by the permutation,
 *      cusparseXcoo2csr, a stream synchronize;
 *  (c) the host link: cudaMemcpyAsync of the same bytes (rows + columns + values) from a
 *      pinned (cudaMallocHost) buffer to the device, a stream synchronize.
 * One warm-up round, then --reps timed rounds; medians (min / max beside them). libsp's
 * CSR (sp_matrix_view, 32- or 64-bit pointers) must equal cuSPARSE's array for array.
 *
 *   upload_bench [--inputs poisson3d:160,kron:22,kron:23] [--reps 5] [--offsets 0|32|64]
 *       poisson3d:N  3D 7-point Poisson on an N^3 grid (sp_gen_poisson3d)
 *       kron:S       Kronecker scale S, edge factor 16, seed 1, symmetrized
 *                    (sp_gen_kronecker + sp_coo_symmetrize, as convert_bench's kron22)
 *       --offsets    sp_matrix_options_t.offset_bits (0: the library chooses)
 * Prints a markdown table and one `upload:` line per input; exits 1 when a check fails or
 * libsp refuses an input, 2 on bad arguments, 77 without a GPU. */
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_host.cuh"
#include "cusparse_ok.cuh"
#include "gpu_timing.cuh"
extern "C" {
#include "sp_api.h" /* the upload's test hooks (--shapes) */
}

static cudaStream_t stream;
static cusparseHandle_t handle;
static sp_context_t *ctx;

/* The user's COO: malloc'd pageable arrays, entries in no order. */
struct user_coo {
    std::string name;
    int64_t nrows, ncols, nnz;
    int32_t *row, *col;
    double *val;
};

static void user_coo_free(user_coo *u)
{
    std::free(u->row);
    std::free(u->col);
    std::free(u->val);
    u->row = u->col = nullptr;
    u->val = nullptr;
}

/* Generates `spec` and copies it, shuffled, into malloc'd arrays; false (and the reason
 * printed) when the spec is unknown or the library refuses. */
static bool make_input(const std::string &spec, user_coo *u)
{
    sp_coo_t *coo = nullptr;
    sp_status_t st = SP_STATUS_INVALID_ARGUMENT;
    size_t colon = spec.find(':');
    std::string kind = spec.substr(0, colon);
    long long arg = colon == std::string::npos ? 0 : std::atoll(spec.c_str() + colon + 1);
    double t0 = wall_ms();
    if (kind == "poisson3d" && arg > 0) {
        st = sp_gen_poisson3d(arg, SP_R_64F, &coo);
    } else if (kind == "kron" && arg > 0) {
        st = sp_gen_kronecker((int)arg, 16, 1, SP_R_64F, &coo);
        if (st == SP_STATUS_SUCCESS) st = sp_coo_symmetrize(coo, 0);
    } else {
        std::fprintf(stderr, "unknown input '%s' (poisson3d:N or kron:S)\n", spec.c_str());
        return false;
    }
    if (st != SP_STATUS_SUCCESS) {
        std::printf("upload: %s: generation refused: %s: %s\n", spec.c_str(),
                    sp_status_string(st), sp_last_error());
        sp_coo_free(coo);
        return false;
    }
    const size_t n = (size_t)coo->nnz;
    u->name = spec;
    u->nrows = coo->nrows;
    u->ncols = coo->ncols;
    u->nnz = coo->nnz;
    u->row = (int32_t *)std::malloc(n * 4 + 4);
    u->col = (int32_t *)std::malloc(n * 4 + 4);
    u->val = (double *)std::malloc(n * 8 + 8);
    if (!u->row || !u->col || !u->val) {
        std::printf("upload: %s: out of host memory for %zu entries\n", spec.c_str(), n);
        user_coo_free(u);
        sp_coo_free(coo);
        return false;
    }
    std::memcpy(u->row, coo->row, n * 4);
    std::memcpy(u->col, coo->col, n * 4);
    std::memcpy(u->val, coo->val, n * 8);
    sp_coo_free(coo);
    shuffle_entries(u->row, u->col, u->val, u->nnz, 12345);
    std::printf("input %s: %lld x %lld, %lld entries, made and shuffled in %.1f s\n",
                spec.c_str(), (long long)u->nrows, (long long)u->ncols, (long long)u->nnz,
                (wall_ms() - t0) / 1e3);
    std::fflush(stdout);
    return true;
}

__global__ void iota_kernel(int *a, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        a[i] = (int)i;
}

__global__ void gather_kernel(const double *in, const int *perm, double *out, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = in[perm[i]];
}

/* The cuSPARSE path's device arrays, allocated once (outside the timing), and the link
 * measurement's pinned source and device destination. */
struct baseline {
    int32_t *d_row = nullptr, *d_col = nullptr, *d_perm = nullptr, *d_ptr = nullptr;
    double *d_val_in = nullptr, *d_val = nullptr;
    void *d_buf = nullptr, *d_link = nullptr, *h_pinned = nullptr;
};

static void baseline_free(baseline *b)
{
    CUDA_OK(cudaFree(b->d_row));
    CUDA_OK(cudaFree(b->d_col));
    CUDA_OK(cudaFree(b->d_perm));
    CUDA_OK(cudaFree(b->d_ptr));
    CUDA_OK(cudaFree(b->d_val_in));
    CUDA_OK(cudaFree(b->d_val));
    CUDA_OK(cudaFree(b->d_buf));
    CUDA_OK(cudaFree(b->d_link));
    CUDA_OK(cudaFreeHost(b->h_pinned));
}

/* false (with the refusal printed) when the arrays do not fit */
static bool baseline_alloc(const user_coo &u, baseline *b)
{
    const size_t nnz = (size_t)u.nnz, ib = nnz * 4, vb = nnz * 8;
    double need = 3.0 * ib + 2.0 * vb + 4.0 * (u.nrows + 1) + (2.0 * ib + vb);
    std::string what = "upload: " + u.name + ": cuSPARSE path and link buffers";
    if (!device_fits(what.c_str(), need)) return false;
    CUDA_OK(cudaMalloc(&b->d_row, ib + 4));
    CUDA_OK(cudaMalloc(&b->d_col, ib + 4));
    CUDA_OK(cudaMalloc(&b->d_perm, ib + 4));
    CUDA_OK(cudaMalloc(&b->d_ptr, (size_t)(u.nrows + 1) * 4));
    CUDA_OK(cudaMalloc(&b->d_val_in, vb + 8));
    CUDA_OK(cudaMalloc(&b->d_val, vb + 8));
    CUDA_OK(cudaMalloc(&b->d_link, 2 * ib + vb + 8));
    size_t buf_bytes = 0;
    CUSPARSE_OK(cusparseXcoosort_bufferSizeExt(handle, (int)u.nrows, (int)u.ncols, (int)u.nnz,
                                               b->d_row, b->d_col, &buf_bytes));
    if (!device_fits((what + " (coosort scratch)").c_str(), (double)buf_bytes)) {
        baseline_free(b);
        return false;
    }
    CUDA_OK(cudaMalloc(&b->d_buf, buf_bytes + 1));
    CUDA_OK(cudaMallocHost(&b->h_pinned, 2 * ib + vb + 8));
    char *p = (char *)b->h_pinned;
    std::memcpy(p, u.row, ib);
    std::memcpy(p + ib, u.col, ib);
    std::memcpy(p + 2 * ib, u.val, vb);
    return true;
}

/* (a) libsp; the matrix is left in *A (destroyed by the caller); st the first failure. */
static double run_libsp(const user_coo &u, const sp_matrix_options_t *opts, sp_matrix_t **A,
                        double *create_ms, sp_status_t *st)
{
    sp_coo_t coo;
    std::memset(&coo, 0, sizeof coo);
    coo.nrows = u.nrows;
    coo.ncols = u.ncols;
    coo.nnz = coo.capacity = u.nnz;
    coo.row = u.row;
    coo.col = u.col;
    coo.val = u.val;
    coo.value_type = SP_R_64F;
    coo.symmetry = SP_SYMMETRY_GENERAL;
    coo.flags = 0; /* shuffled: neither sorted nor known to be merged */
    *A = nullptr;
    double t0 = wall_ms();
    *st = sp_matrix_create(ctx, &coo, opts, A);
    *create_ms = wall_ms() - t0;
    if (*st == SP_STATUS_SUCCESS) *st = sp_matrix_build(ctx, *A, SP_FORMAT_CSR);
    if (*st == SP_STATUS_SUCCESS) *st = sp_context_synchronize(ctx);
    return wall_ms() - t0;
}

/* (b) the plain cuSPARSE path */
static double run_cusparse(const user_coo &u, baseline *b)
{
    const size_t ib = (size_t)u.nnz * 4, vb = (size_t)u.nnz * 8;
    const int m = (int)u.nrows, n = (int)u.ncols, nnz = (int)u.nnz;
    double t0 = wall_ms();
    CUDA_OK(cudaMemcpyAsync(b->d_row, u.row, ib, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemcpyAsync(b->d_col, u.col, ib, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemcpyAsync(b->d_val_in, u.val, vb, cudaMemcpyHostToDevice, stream));
    iota_kernel<<<1024, 256, 0, stream>>>(b->d_perm, nnz);
    CUDA_OK(cudaGetLastError());
    CUSPARSE_OK(cusparseXcoosortByRow(handle, m, n, nnz, b->d_row, b->d_col, b->d_perm, b->d_buf));
    gather_kernel<<<1024, 256, 0, stream>>>(b->d_val_in, b->d_perm, b->d_val, nnz);
    CUDA_OK(cudaGetLastError());
    CUSPARSE_OK(cusparseXcoo2csr(handle, b->d_row, nnz, m, b->d_ptr, CUSPARSE_INDEX_BASE_ZERO));
    CUDA_OK(cudaStreamSynchronize(stream));
    return wall_ms() - t0;
}

/* (c) the host link: the same bytes from pinned memory */
static double run_link(const user_coo &u, baseline *b)
{
    const size_t ib = (size_t)u.nnz * 4, vb = (size_t)u.nnz * 8;
    const char *h = (const char *)b->h_pinned;
    char *d = (char *)b->d_link;
    double t0 = wall_ms();
    CUDA_OK(cudaMemcpyAsync(d, h, ib, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemcpyAsync(d + ib, h + ib, ib, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemcpyAsync(d + 2 * ib, h + 2 * ib, vb, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    return wall_ms() - t0;
}

/* libsp's CSR (its host view) against cuSPARSE's arrays copied back: "ok" or what differs. */
static std::string check_csr(sp_matrix_t *A, const user_coo &u, const baseline *b)
{
    sp_format_view_t v;
    sp_status_t st = sp_matrix_view(A, SP_FORMAT_CSR, &v);
    if (st != SP_STATUS_SUCCESS)
        return std::string("view failed: ") + sp_status_string(st) + ": " + sp_last_error();
    if (v.nnz != u.nnz || v.nrows != u.nrows) return "MISMATCH: sizes";
    const size_t m1 = (size_t)u.nrows + 1, nnz = (size_t)u.nnz;
    std::vector<int32_t> ptr(m1), col(nnz);
    std::vector<double> val(nnz);
    CUDA_OK(cudaMemcpy(ptr.data(), b->d_ptr, m1 * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(col.data(), b->d_col, nnz * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(val.data(), b->d_val, nnz * 8, cudaMemcpyDeviceToHost));
    bool ptr_ok = true;
    if (v.row_ptr64) {
        for (size_t i = 0; i < m1 && ptr_ok; i++) ptr_ok = v.row_ptr64[i] == (int64_t)ptr[i];
    } else {
        ptr_ok = v.csr.row_ptr && std::memcmp(v.csr.row_ptr, ptr.data(), m1 * 4) == 0;
    }
    bool col_ok = std::memcmp(v.csr.col, col.data(), nnz * 4) == 0;
    bool val_ok = std::memcmp(v.csr.val, val.data(), nnz * 8) == 0;
    if (ptr_ok && col_ok && val_ok) return v.row_ptr64 ? "ok (64-bit pointers)" : "ok";
    std::string why = "MISMATCH:";
    if (!ptr_ok) why += " ptr";
    if (!col_ok) why += " col";
    if (!val_ok) why += " val";
    return why;
}

/* One input: the rounds, the `upload:` line, its table row appended to *table; false on
 * a failure. */
static bool bench_input(const user_coo &u, int reps, int offset_bits, std::string *table)
{
    if (u.nnz > INT32_MAX || u.nrows > INT32_MAX) {
        std::printf("upload: %s: refused: %lld entries, beyond the cuSPARSE path's 32-bit "
                    "indices\n", u.name.c_str(), (long long)u.nnz);
        return false;
    }
    baseline b;
    if (!baseline_alloc(u, &b)) return false;
    sp_matrix_options_t opts;
    std::memset(&opts, 0, sizeof opts);
    opts.offset_bits = offset_bits;
    std::vector<double> ta, tcreate, tb, tc;
    sp_matrix_t *A = nullptr;
    bool ok = true;
    const int warmup = 1;
    for (int r = 0; r < warmup + reps && ok; r++) {
        sp_matrix_destroy(A);
        CUDA_OK(cudaStreamSynchronize(stream));
        sp_status_t st;
        double create_ms = 0, a = run_libsp(u, &opts, &A, &create_ms, &st);
        if (st != SP_STATUS_SUCCESS) {
            std::printf("upload: %s: libsp refused: %s: %s\n", u.name.c_str(),
                        sp_status_string(st), sp_last_error());
            ok = false;
            break;
        }
        double bt = run_cusparse(u, &b), ct = run_link(u, &b);
        if (r >= warmup) {
            ta.push_back(a);
            tcreate.push_back(create_ms);
            tb.push_back(bt);
            tc.push_back(ct);
        }
    }
    if (!ok) {
        sp_matrix_destroy(A);
        baseline_free(&b);
        return false;
    }
    std::string check = check_csr(A, u, &b);
    sp_matrix_info_t info;
    int bits = sp_matrix_info(A, &info) == SP_STATUS_SUCCESS ? info.offset_bits : 0;
    sp_matrix_destroy(A);
    baseline_free(&b);
    stats sa = summarize(ta), screate = summarize(tcreate), sb = summarize(tb),
          sc = summarize(tc);
    const double bytes = 16.0 * (double)u.nnz;
    const double speedup = sb.median / sa.median, link_ratio = sa.median / sc.median;
    char row[512];
    std::snprintf(row, sizeof row,
                  "| %s | %lld | %d | %.1f / %.1f / %.1f | %.1f | %.1f / %.1f / %.1f | "
                  "%.1f / %.1f / %.1f (%.1f GB/s) | %.2f | %.2f | %s |\n",
                  u.name.c_str(), (long long)u.nnz, bits, sa.median, sa.min, sa.max,
                screate.median, sb.median, sb.min, sb.max, sc.median, sc.min, sc.max,
                  bytes / (sc.median * 1e-3) / 1e9, speedup, link_ratio, check.c_str());
    *table += row;
    std::printf("upload: %s nnz %lld offset_bits %d libsp_ms %.1f (create %.1f) cusparse_ms %.1f "
                "link_ms %.1f speedup %.2f (target >= 1.5: %s) libsp_over_link %.2f "
                "(target <= 1.3: %s) check %s\n",
                u.name.c_str(), (long long)u.nnz, bits, sa.median, screate.median, sb.median,
                sc.median, speedup, speedup >= 1.5 ? "met" : "missed", link_ratio,
                link_ratio <= 1.3 ? "met" : "missed", check.c_str());
    std::fflush(stdout);
    return check.compare(0, 2, "ok") == 0;
}

/* --shapes L:C,...: libsp alone with the upload's staging at L lanes of C MiB (0:0 the
 * plain pageable copies), the shapes interleaved round by round; per shape the medians of
 * the whole call and of the upload's phases (sp__test_upload_phases). Then the default
 * shape again. */
static bool sweep_shapes(const user_coo &u, int reps, int offset_bits, const char *list)
{
    std::vector<std::pair<int, int>> shapes;
    for (const char *p = list; *p;) {
        int l = 0, c = 0, used = 0;
        if (std::sscanf(p, "%d:%d%n", &l, &c, &used) != 2) return false;
        shapes.push_back({l, c});
        p += used;
        if (*p == ',') p++;
    }
    sp_matrix_options_t opts;
    std::memset(&opts, 0, sizeof opts);
    opts.offset_bits = offset_bits;
    std::vector<std::vector<double>> t(shapes.size()), ph(shapes.size() * 5);
    for (int r = 0; r < 1 + reps; r++)
        for (size_t i = 0; i < shapes.size(); i++) {
            sp__test_set_upload_shape(shapes[i].first, (size_t)shapes[i].second << 20);
            sp_matrix_t *A = nullptr;
            sp_status_t st;
            double create_ms = 0, a = run_libsp(u, &opts, &A, &create_ms, &st);
            double p4[5] = {0, 0, 0, 0, 0};
            if (A) sp__test_upload_phases(A, p4);
            sp_matrix_destroy(A);
            CUDA_OK(cudaDeviceSynchronize());
            if (st != SP_STATUS_SUCCESS) {
                std::printf("upload: %s: libsp refused: %s\n", u.name.c_str(), sp_last_error());
                return false;
            }
            if (r == 0) continue;
            t[i].push_back(a);
            for (int k = 0; k < 5; k++) ph[i * 5 + k].push_back(p4[k]);
        }
    sp__test_set_upload_shape(-1, 0);
    for (size_t i = 0; i < shapes.size(); i++) {
        const double up = summarize(ph[i * 5 + 1]).median;
        std::printf("upload-shape: %s nnz %lld lanes %d chunk_MiB %d libsp_ms %.1f phases_ms "
                    "order %.1f transfer %.1f (%.1f GB/s) col_near %.1f device_sort %.1f "
                    "counts %.1f\n",
                    u.name.c_str(), (long long)u.nnz, shapes[i].first, shapes[i].second,
                    summarize(t[i]).median, summarize(ph[i * 5]).median, up,
                    16.0 * (double)u.nnz / (up * 1e-3) / 1e9, summarize(ph[i * 5 + 4]).median,
                    summarize(ph[i * 5 + 2]).median, summarize(ph[i * 5 + 3]).median);
    }
    std::fflush(stdout);
    return true;
}

static void usage(const char *argv0)
{
    std::fprintf(stderr,
                 "usage: %s [--inputs poisson3d:N,kron:S,...] [--reps N] [--offsets 0|32|64]\n"
                 "          [--shapes LANES:MIB,...]  (libsp alone: the upload's staging at\n"
                 "          each shape, 0:0 plain copies; medians of the call and its phases)\n",
                 argv0);
}

int main(int argc, char **argv)
{
    std::string inputs = "poisson3d:160,kron:22,kron:23";
    int reps = 5, offset_bits = 0;
    const char *shapes = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--inputs") && i + 1 < argc) {
            inputs = argv[++i];
        } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--offsets") && i + 1 < argc) {
            offset_bits = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--shapes") && i + 1 < argc) {
            shapes = argv[++i];
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    if (reps < 1 || (offset_bits != 0 && offset_bits != 32 && offset_bits != 64)) {
        usage(argv[0]);
        return 2;
    }
    const int dev = gpu_banner();
    if (dev < 0) return 77; /* no GPU: ctest's skip code */
    cusparse_open(&stream, &handle);
    sp_context_options_t co;
    std::memset(&co, 0, sizeof co);
    co.device = dev;
    co.stream = stream;
    SP_OK(sp_context_create(SP_DEVICE_CUDA, &co, &ctx));
    std::printf("Host COO (shuffled, seed 12345; int32 rows and columns, double values, "
                "malloc'd pageable arrays) -> device CSR, upload included. Host wall clock; "
                "%d timed rounds after 1 warm-up, libsp / cuSPARSE / link interleaved; "
                "offset_bits option %d\n\n",
                reps, offset_bits);
    std::fflush(stdout);
    std::string table;
    bool ok = true;
    size_t start = 0;
    while (start <= inputs.size()) {
        size_t comma = inputs.find(',', start);
        std::string spec = inputs.substr(start, comma == std::string::npos ? std::string::npos
                                                                            : comma - start);
        start = comma == std::string::npos ? inputs.size() + 1 : comma + 1;
        if (spec.empty()) continue;
        user_coo u;
        if (!make_input(spec, &u)) {
            ok = false;
            continue;
        }
        if (shapes ? !sweep_shapes(u, reps, offset_bits, shapes)
                   : !bench_input(u, reps, offset_bits, &table))
            ok = false;
        user_coo_free(&u);
    }
    std::printf("\n| input | nnz | offset bits | libsp ms med / min / max | of which "
                "sp_matrix_create | cuSPARSE ms med / min / max | pinned link ms med / min / "
                "max | cuSPARSE/libsp (target >= 1.5) | libsp/link (target <= 1.3) | CSR check "
                "|\n|---|---|---|---|---|---|---|---|---|---|\n%s\n",
                table.c_str());
    sp_context_destroy(ctx);
    CUSPARSE_OK(cusparseDestroy(handle));
    CUDA_OK(cudaStreamDestroy(stream));
    std::printf("upload_bench: %s\n", ok ? "all checks passed" : "FAILED (see above)");
    return ok ? 0 : 1;
}
