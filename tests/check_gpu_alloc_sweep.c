/* Allocation failure on a CUDA context, through the public API: every device allocation
 * (the context's allocator hooks) and, separately, every host allocation fails in turn, in
 * the upload, each format's build, each SpMV plan (every format and algorithm) and sp_spmv
 * itself; BFS (sp_bfs and sp_bfs_multi, every variant on the host loop, the single-block
 * and persistent SOFT loops, the cooperative persistent loop), with the CSR and CSC builds
 * it triggers; the solvers (create, setup, solve: CG, PCG-Jacobi, PCG-SGS, BiCGSTAB, and
 * the fused device-loop and pipelined forms) and a
 * setup replacing an earlier one; sp_sptrsv (levels, soft, AUTO; the analysis and its
 * CSR); vector creation. Each failing run returns SP_STATUS_ALLOC_FAILED with its message
 * on the context, leaves its outputs untouched (the matrix handle and its formats, y,
 * level, parent, stats, x, the solver's earlier setup), leaks nothing (host blocks 0,
 * device blocks back to the baseline) and the next call works; a solve, a repeated SpMV or
 * triangular solve and the vector arithmetic allocate nothing at all. A step that would
 * not fit in device memory is refused before any work with the bytes needed and free: by
 * a test cap on the room (upload, builds) and for real (ELL of a 10M-row matrix with one
 * long row, while HYB and SELL multiply it). SP_TEST_SMALL=1 shrinks the inputs. Exits 77
 * without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "sp_api.h"
#include "testutil_gpu.h"

#define SENTINEL_MATRIX ((sp_matrix_t *)(uintptr_t)0x5)
#define MARKER (-7.25)

static sp_context_t *g_ctx;
static cudaStream_t g_stream;
static sp_coo_t *g_coo;
static const sp_matrix_options_t g_opt = {.ell_max_bytes = (int64_t)1 << 34, .sell_c = 8,
                                          .sell_sigma = 64};

static void setup(void)
{
    sp_context_options_t o = {0};
    int64_t nrows = sp_test_small() ? 150 : 700, ncols = nrows - 37;
    ck_cuda(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    o.stream = g_stream;
    o.allocator = sp_test_gpu_allocator();
    sp_test_gpu_fail_allocations_after(-1);
    sp_test_gpu_fail_through_cuda(0);
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, &o, &g_ctx));
    g_coo = sp_test_random_coo(21, nrows, ncols, 10 * nrows, SP_R_64F,
                               SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS | SP_TEST_LONG_ROW);
    ck_assert_ptr_nonnull(g_coo);
}

static void teardown(void)
{
    sp_coo_free(g_coo);
    sp_context_destroy(g_ctx);
    ck_cuda(cudaStreamDestroy(g_stream));
    ck_assert_int_eq(sp_test_gpu_live_allocations(), 0);
}

/* ---- sweeps: every allocation of one operation failing in turn ------------------------- */

/* One operation swept: op runs it (and frees what a successful run made); prepare (may be
 * NULL) sets its outputs to their markers; untouched checks them after a failed run. */
typedef struct sweep {
    const char *what;
    sp_status_t (*op)(void *arg);
    void (*prepare)(void *arg);
    void (*untouched)(void *arg);
    void *arg;
} sweep_t;

static int64_t g_device_base; /* live device blocks before the run */

static sp_status_t run_swept(void *arg)
{
    const sweep_t *sw = arg;
    return sw->op(sw->arg);
}

static void prepare_swept(const sweep_t *sw)
{
    if (sw->prepare) sw->prepare(sw->arg);
    g_device_base = sp_test_gpu_live_allocations();
}

/* After a failed run: the message on the context, device blocks back to the baseline,
 * CUDA's error state clean, the outputs as they were. */
static void after_failure(void *arg)
{
    const sweep_t *sw = arg;
    ck_assert_str_eq(sp_context_last_error(g_ctx), sp_last_error());
    ck_assert_msg(sp_test_gpu_live_allocations() == g_device_base,
                  "%s: %lld device blocks live after a failed run, %lld before", sw->what,
                  (long long)sp_test_gpu_live_allocations(), (long long)g_device_base);
    ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
    if (sw->untouched) sw->untouched(sw->arg);
}

/* Every device allocation of the operation failing in turn; returns the failing runs. */
static int64_t device_sweep(sweep_t sw)
{
    int64_t k = 0;
    for (;; k++) {
        prepare_swept(&sw);
        sp_test_gpu_fail_allocations_after(k);
        sp_status_t st = sw.op(sw.arg);
        int64_t calls = sp_test_gpu_allocations();
        sp_test_gpu_fail_allocations_after(-1);
        if (calls <= k) {
            ck_assert_msg(st == SP_STATUS_SUCCESS, "%s: %s with no failed allocation: %s",
                          sw.what, sp_status_string(st), sp_last_error());
            break;
        }
        ck_assert_msg(st == SP_STATUS_ALLOC_FAILED,
                      "%s, device allocation %lld failing: %s (%s)", sw.what, (long long)k,
                      sp_status_string(st), sp_last_error());
        after_failure(&sw);
    }
    return k;
}

/* Every host allocation of the operation failing in turn (the device never fails). */
static int64_t host_sweep(sweep_t sw)
{
    int64_t failing = 0;
    prepare_swept(&sw);
    ck_assert_ok(
        sp_test_fail_each_allocation(sw.what, run_swept, after_failure, &sw, &failing));
    return failing;
}

/* The operation with every allocation, host and device, failing: it must need none. */
static void allocates_nothing(sweep_t sw)
{
    prepare_swept(&sw);
    sp_test_gpu_fail_allocations_after(0);
    sp_test_fail_allocations_after(0);
    sp_status_t st = sw.op(sw.arg);
    sp_test_restore_allocator();
    sp_test_gpu_fail_allocations_after(-1);
    ck_assert_msg(st == SP_STATUS_SUCCESS, "%s allocated: %s", sw.what, sp_last_error());
}

static unsigned built_mask(const sp_matrix_t *A)
{
    sp_matrix_info_t info;
    unsigned m = 1u << SP_FORMAT_COO;
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int f = 1; f < SP_FORMAT_COUNT; f++)
        if (info.bytes[f] > 0) m |= 1u << f;
    return m;
}

/* ---- one operation, run again and again ---------------------------------------------- */

enum kind { OP_CREATE, OP_BUILD, OP_SPMV };

typedef struct run {
    enum kind kind;
    sp_format_t format;
    sp_spmv_alg_t alg;
    sp_matrix_t *A;       /* OP_CREATE: the output; else the matrix worked on */
    unsigned built;       /* formats built before the run */
    double *d_x, *d_y;    /* device vectors */
    double *h_y;          /* host copy of y after a run */
} run_t;

static void fill_y(run_t *r, double v)
{
    int64_t n = g_coo->nrows;
    for (int64_t i = 0; i < n; i++) r->h_y[i] = v;
    sp_test_to_device(r->d_y, r->h_y, (size_t)n * sizeof(double), g_stream);
}

static void read_y(run_t *r)
{
    sp_test_to_host(r->h_y, r->d_y, (size_t)g_coo->nrows * sizeof(double), g_stream);
}

static sp_status_t run_op(void *arg)
{
    run_t *r = arg;
    const double alpha = 1.5, beta = 0.5;
    switch (r->kind) {
    case OP_CREATE: {
        r->A = SENTINEL_MATRIX;
        sp_status_t st = sp_matrix_create(g_ctx, g_coo, &g_opt, &r->A);
        if (st == SP_STATUS_SUCCESS) sp_matrix_destroy(r->A);
        return st;
    }
    case OP_BUILD: return sp_matrix_build(g_ctx, r->A, r->format);
    case OP_SPMV:
        return sp_spmv(g_ctx, r->format, r->alg, &alpha, r->A, r->d_x, &beta, r->d_y);
    }
    return SP_STATUS_INTERNAL_ERROR;
}

/* Before each run: y to its marker (SpMV), the formats built noted. */
static void prepare_run(void *arg)
{
    run_t *r = arg;
    if (r->kind == OP_SPMV) fill_y(r, MARKER);
    if (r->A && r->kind != OP_CREATE) r->built = built_mask(r->A);
}

/* After a failed run: the output handle, the formats and y as they were. */
static void untouched(void *arg)
{
    run_t *r = arg;
    if (r->kind == OP_CREATE) {
        ck_assert_ptr_eq(r->A, SENTINEL_MATRIX);
        return;
    }
    ck_assert_uint_eq(built_mask(r->A), r->built);
    if (r->kind == OP_SPMV) {
        read_y(r);
        for (int64_t i = 0; i < g_coo->nrows; i++)
            ck_assert_msg(r->h_y[i] == MARKER, "y[%lld] = %g changed on failure", (long long)i,
                          r->h_y[i]);
    }
}

static sweep_t matrix_sweep(const char *what, run_t *r)
{
    return (sweep_t){what, run_op, prepare_run, untouched, r};
}

/* y = 1.5 A x + 0.5 MARKER, against the dense reference. */
static void assert_spmv_result(run_t *r)
{
    int64_t m = g_coo->nrows, n = g_coo->ncols;
    double *x = malloc((size_t)n * sizeof *x), *want = malloc((size_t)m * sizeof *want);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(want);
    ck_cuda(cudaMemcpy(x, r->d_x, (size_t)n * sizeof *x, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < m; i++) want[i] = MARKER;
    sp_test_dense_spmv(g_coo, 1.5, x, 0.5, want);
    read_y(r);
    for (int64_t i = 0; i < m; i++)
        ck_assert_msg(r->h_y[i] == want[i] || (r->h_y[i] - want[i]) * (r->h_y[i] - want[i]) <
                                                  1e-20 * (1 + want[i] * want[i]),
                      "%s/%d: y[%lld] = %.17g, expected %.17g", sp_format_name(r->format),
                      (int)r->alg, (long long)i, r->h_y[i], want[i]);
    free(want);
    free(x);
}

static run_t new_run(enum kind kind, sp_format_t f, sp_spmv_alg_t alg)
{
    run_t r = {kind, f, alg, NULL, 0, NULL, NULL, NULL};
    int64_t m = g_coo->nrows, n = g_coo->ncols;
    double *x = malloc((size_t)n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (int64_t j = 0; j < n; j++) x[j] = 1.0 / (double)(j + 3);
    ck_cuda(cudaMalloc((void **)&r.d_x, (size_t)n * sizeof(double)));
    ck_cuda(cudaMalloc((void **)&r.d_y, (size_t)m * sizeof(double)));
    ck_cuda(cudaMemcpy(r.d_x, x, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
    ck_cuda(cudaDeviceSynchronize()); /* a pageable copy may still be in flight */
    r.h_y = malloc((size_t)m * sizeof(double));
    ck_assert_ptr_nonnull(r.h_y);
    free(x);
    if (kind != OP_CREATE) {
        ck_assert_ok(sp_matrix_create(g_ctx, g_coo, &g_opt, &r.A));
        if (f != SP_FORMAT_CSR && f != SP_FORMAT_COO) ck_assert_ok(sp_matrix_build(g_ctx, r.A, SP_FORMAT_CSR));
    }
    return r;
}

static void free_run(run_t *r)
{
    if (r->kind != OP_CREATE) sp_matrix_destroy(r->A);
    ck_cuda(cudaFree(r->d_x));
    ck_cuda(cudaFree(r->d_y));
    free(r->h_y);
}

/* ---- the sweeps ------------------------------------------------------------------------- */

START_TEST(create_device_and_host)
{
    run_t r = new_run(OP_CREATE, SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT);
    ck_assert_int_ge(device_sweep(matrix_sweep("create", &r)), 3);
    ck_assert_int_ge(host_sweep(matrix_sweep("create", &r)), 2);
    free_run(&r);
}
END_TEST

START_TEST(build_device_and_host)
{
    for (int f = SP_FORMAT_CSR; f < SP_FORMAT_COUNT; f++) {
        const char *name = sp_format_name((sp_format_t)f);
        run_t r = new_run(OP_BUILD, (sp_format_t)f, SP_SPMV_ALG_DEFAULT);
        ck_assert_int_ge(device_sweep(matrix_sweep(name, &r)), 2);
        ck_assert_ok(sp_matrix_release(g_ctx, r.A, (sp_format_t)f));
        host_sweep(matrix_sweep(name, &r)); /* the GPU builds may need no host memory at all */
        ck_assert_uint_eq(built_mask(r.A), r.built | (1u << f));
        free_run(&r);
    }
}
END_TEST

/* The first SpMV of a (format, algorithm) makes its plan; later ones allocate nothing. */
START_TEST(spmv_plans_device_and_host)
{
    static const struct {
        sp_format_t f;
        sp_spmv_alg_t alg;
        int plans; /* the first call allocates on the device */
    } cases[] = {
        {SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT, 1},     {SP_FORMAT_COO, SP_SPMV_ALG_COO_ATOMIC, 0},
        {SP_FORMAT_COO, SP_SPMV_ALG_COO_SEGMENTED, 1}, {SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1},
        {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SCALAR, 0},  {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_VECTOR, 0},
        {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE, 1},   {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SPLIT, 1},
        {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_BINNED, 1},  {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_ADAPTIVE, 1},
        {SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT, 1}, /* its chunk columns (issue 23) */
        {SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, 0},     {SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT, 0},
        {SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT, 0},     {SP_FORMAT_SELL, SP_SPMV_ALG_DEFAULT, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "spmv %s alg %d", sp_format_name(cases[i].f),
                 (int)cases[i].alg);
        /* the host sweep first: its last run makes the plan, so the device sweep needs a
         * fresh matrix */
        run_t r = new_run(OP_SPMV, cases[i].f, cases[i].alg);
        ck_assert_ok(sp_matrix_build(g_ctx, r.A, cases[i].f));
        host_sweep(matrix_sweep(what, &r));
        assert_spmv_result(&r);
        free_run(&r);
        r = new_run(OP_SPMV, cases[i].f, cases[i].alg);
        ck_assert_ok(sp_matrix_build(g_ctx, r.A, cases[i].f));
        int64_t failing = device_sweep(matrix_sweep(what, &r));
        if (cases[i].plans)
            ck_assert_msg(failing >= 1, "%s: the plan allocated nothing", what);
        assert_spmv_result(&r);
        /* a later call allocates nothing, host or device */
        allocates_nothing(matrix_sweep(what, &r));
        assert_spmv_result(&r);
        free_run(&r);
    }
}
END_TEST

/* sp_spmv that builds its format (AUTO, HYB, SELL from CSR) and plans in one call. */
START_TEST(spmv_building_device_and_host)
{
    const sp_format_t formats[] = {SP_FORMAT_AUTO, SP_FORMAT_HYB, SP_FORMAT_SELL, SP_FORMAT_COO};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        run_t r = new_run(OP_SPMV, formats[i], SP_SPMV_ALG_DEFAULT);
        ck_assert_int_ge(device_sweep(matrix_sweep("spmv building", &r)), 1);
        assert_spmv_result(&r);
        free_run(&r);
        r = new_run(OP_SPMV, formats[i], SP_SPMV_ALG_DEFAULT);
        host_sweep(matrix_sweep("spmv building", &r));
        assert_spmv_result(&r);
        free_run(&r);
    }
}
END_TEST

/* ---- BFS -------------------------------------------------------------------------------- */

enum { BFS_MARKER = 77, BFS_LEVELS = 8 };

typedef struct bfs_run {
    sp_bfs_options_t opt;
    int coop; /* sp__bfs_persistent_coop (one source) */
    int64_t nsources, sources[3], n;
    sp_matrix_t *G; /* the graph; its formats are part of the output */
    unsigned built;
    int32_t *d_level, *d_parent; /* nsources * n each, device */
    int32_t *h_level, *h_parent;
    int64_t sizes[3][BFS_LEVELS];
    int32_t dirs[3][BFS_LEVELS];
    double times[3][BFS_LEVELS];
    sp_bfs_stats_t stats[3], stats_before[3];
} bfs_run_t;

static sp_status_t bfs_op(void *arg)
{
    bfs_run_t *r = arg;
    if (r->coop)
        return sp__bfs_persistent_coop(g_ctx, r->G, r->sources[0], &r->opt, r->d_level,
                                       r->d_parent, r->stats);
    if (r->nsources == 1)
        return sp_bfs(g_ctx, r->G, r->sources[0], &r->opt, r->d_level, r->d_parent, r->stats);
    return sp_bfs_multi(g_ctx, r->G, r->nsources, r->sources, &r->opt, r->d_level, r->d_parent,
                        r->stats);
}

static void bfs_read(bfs_run_t *r)
{
    size_t bytes = (size_t)(r->nsources * r->n) * sizeof(int32_t);
    sp_test_to_host(r->h_level, r->d_level, bytes, g_stream);
    sp_test_to_host(r->h_parent, r->d_parent, bytes, g_stream);
}

/* level, parent, the stats and the record arrays to markers; the formats built noted. */
static void bfs_prepare(void *arg)
{
    bfs_run_t *r = arg;
    size_t bytes = (size_t)(r->nsources * r->n) * sizeof(int32_t);
    for (int64_t i = 0; i < r->nsources * r->n; i++)
        r->h_level[i] = r->h_parent[i] = BFS_MARKER;
    sp_test_to_device(r->d_level, r->h_level, bytes, g_stream);
    sp_test_to_device(r->d_parent, r->h_parent, bytes, g_stream);
    for (int i = 0; i < 3; i++) {
        memset(&r->stats[i], 0x5a, sizeof r->stats[i]);
        for (int l = 0; l < BFS_LEVELS; l++)
            r->sizes[i][l] = r->dirs[i][l] = -BFS_MARKER, r->times[i][l] = -BFS_MARKER;
    }
    memcpy(r->stats_before, r->stats, sizeof r->stats);
    r->built = built_mask(r->G);
}

static void bfs_untouched(void *arg)
{
    bfs_run_t *r = arg;
    bfs_read(r);
    for (int64_t i = 0; i < r->nsources * r->n; i++)
        ck_assert_msg(r->h_level[i] == BFS_MARKER && r->h_parent[i] == BFS_MARKER,
                      "level[%lld] = %d, parent %d written by a failed call", (long long)i,
                      r->h_level[i], r->h_parent[i]);
    ck_assert_msg(memcmp(r->stats, r->stats_before, sizeof r->stats) == 0,
                  "stats written by a failed call");
    for (int i = 0; i < 3; i++)
        for (int l = 0; l < BFS_LEVELS; l++)
            ck_assert(r->sizes[i][l] == -BFS_MARKER && r->dirs[i][l] == -BFS_MARKER &&
                      r->times[i][l] == -BFS_MARKER);
    ck_assert_uint_eq(built_mask(r->G), r->built);
}

/* The levels, reached counts and frontier sizes against a host context's BFS of the same
 * graph; parents one level up (parent[source] = source). */
static void bfs_assert_result(const char *what, bfs_run_t *r, const sp_coo_t *g)
{
    sp_context_t *host = NULL;
    sp_matrix_t *H = NULL;
    int64_t n = r->n, ns = r->nsources;
    int32_t *want = malloc((size_t)(ns * n) * sizeof *want);
    sp_bfs_stats_t ws[3];
    int64_t wsizes[3][BFS_LEVELS];
    const sp_bfs_options_t wo = {.frontier_capacity = BFS_LEVELS, .frontier_sizes = wsizes[0]};
    ck_assert_ptr_nonnull(want);
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &host));
    ck_assert_ok(sp_matrix_create(host, g, NULL, &H));
    ck_assert_ok(sp_bfs_multi(host, H, ns, r->sources, &wo, want, NULL, ws));
    bfs_read(r);
    for (int64_t s = 0; s < ns; s++) {
        const int32_t *lv = r->h_level + s * n, *pa = r->h_parent + s * n, *w = want + s * n;
        for (int64_t v = 0; v < n; v++) {
            ck_assert_msg(lv[v] == w[v], "%s: source %lld, level[%lld] = %d, expected %d", what,
                          (long long)r->sources[s], (long long)v, lv[v], w[v]);
            if (lv[v] < 0)
                ck_assert_int_eq(pa[v], -1);
            else if (v == r->sources[s])
                ck_assert_int_eq(pa[v], (int32_t)v);
            else
                ck_assert_msg(pa[v] >= 0 && pa[v] < n && lv[pa[v]] == lv[v] - 1,
                              "%s: parent[%lld] = %d is not one level up", what, (long long)v,
                              pa[v]);
        }
        ck_assert_int_eq(r->stats[s].vertices_visited, ws[s].vertices_visited);
        ck_assert_int_eq(r->stats[s].levels, ws[s].levels);
        for (int l = 0; l < BFS_LEVELS; l++)
            ck_assert_int_eq(r->sizes[s][l], wsizes[s][l]);
    }
    sp_matrix_destroy(H);
    sp_context_destroy(host);
    free(want);
}

/* One variant and loop, one or three sources, on a fresh upload of g (COO only, so the CSR
 * and CSC builds are swept too): every device allocation failing in turn, then (host_too)
 * every host allocation on another fresh upload. Returns the failing device runs. */
static int64_t bfs_case(const sp_coo_t *g, sp_bfs_variant_t v, sp_bfs_loop_t l, int coop,
                        int64_t nsources, int host_too)
{
    bfs_run_t r;
    char what[96];
    int64_t failing;
    memset(&r, 0, sizeof r);
    r.opt.variant = v;
    r.opt.loop = l;
    /* search i's records at i * BFS_LEVELS: the rows of sizes, dirs and times */
    r.opt.frontier_capacity = BFS_LEVELS;
    r.opt.frontier_sizes = r.sizes[0];
    r.opt.directions = r.dirs[0];
    r.opt.level_times_ms = r.times[0];
    r.coop = coop;
    r.nsources = nsources;
    r.sources[0] = 0;
    r.sources[1] = g->nrows / 2 + 3;
    r.sources[2] = g->nrows - 1;
    r.n = g->nrows;
    snprintf(what, sizeof what, "bfs %s/%s%s, %lld sources", sp_bfs_variant_name(v),
             sp_bfs_loop_name(l), coop ? " coop" : "", (long long)nsources);
    r.h_level = malloc((size_t)(3 * r.n) * sizeof(int32_t));
    r.h_parent = malloc((size_t)(3 * r.n) * sizeof(int32_t));
    ck_assert_ptr_nonnull(r.h_level);
    ck_assert_ptr_nonnull(r.h_parent);
    ck_cuda(cudaMalloc((void **)&r.d_level, (size_t)(3 * r.n) * sizeof(int32_t)));
    ck_cuda(cudaMalloc((void **)&r.d_parent, (size_t)(3 * r.n) * sizeof(int32_t)));
    ck_assert_ok(sp_matrix_create(g_ctx, g, NULL, &r.G));
    failing = device_sweep((sweep_t){what, bfs_op, bfs_prepare, bfs_untouched, &r});
    bfs_assert_result(what, &r, g);
    sp_matrix_destroy(r.G);
    if (host_too) {
        ck_assert_ok(sp_matrix_create(g_ctx, g, NULL, &r.G));
        int64_t host_failing =
            host_sweep((sweep_t){what, bfs_op, bfs_prepare, bfs_untouched, &r});
        if (l == SP_BFS_LOOP_SINGLE_BLOCK || l == SP_BFS_LOOP_PERSISTENT)
            ck_assert_msg(host_failing >= 1, "%s: no host allocation (the sizes' buffer)",
                          what);
        bfs_assert_result(what, &r, g);
        sp_matrix_destroy(r.G);
    }
    ck_cuda(cudaFree(r.d_parent));
    ck_cuda(cudaFree(r.d_level));
    free(r.h_parent);
    free(r.h_level);
    return failing;
}

START_TEST(bfs_device_and_host)
{
    static const struct {
        sp_bfs_variant_t v;
        sp_bfs_loop_t l;
        int coop;
    } cases[] = {
        {SP_BFS_AUTO, SP_BFS_LOOP_AUTO, 0},
        {SP_BFS_PUSH, SP_BFS_LOOP_HOST, 0},
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 0},
        {SP_BFS_EDGE, SP_BFS_LOOP_HOST, 0},
        {SP_BFS_FRONTIER, SP_BFS_LOOP_HOST, 0},
        {SP_BFS_PRIVATIZED, SP_BFS_LOOP_HOST, 0},
        {SP_BFS_DIRECTION_OPT, SP_BFS_LOOP_HOST, 0},
        {SP_BFS_FRONTIER, SP_BFS_LOOP_SINGLE_BLOCK, 0},
        {SP_BFS_AUTO, SP_BFS_LOOP_PERSISTENT, 0},
        {SP_BFS_FRONTIER, SP_BFS_LOOP_PERSISTENT, 1},
        {SP_BFS_FRONTIER, SP_BFS_LOOP_GRAPH, 0},
        {SP_BFS_DIRECTION_OPT, SP_BFS_LOOP_GRAPH, 0},
    };
    enum { NCASES = sizeof cases / sizeof cases[0] };
    int64_t with_csc[NCASES];
    sp_coo_t *g = NULL;
    ck_assert_ok(sp_gen_grid2d(sp_test_small() ? 12 : 40, SP_VALUE_NONE, &g));
    /* the grid's pattern is symmetric, so pull steps would read its CSR: without the flag
     * they build (and so sweep) a CSC, as on a directed graph */
    g->flags &= ~SP_COO_SYMMETRIC_PATTERN;
    int64_t push = bfs_case(g, SP_BFS_PUSH, SP_BFS_LOOP_HOST, 0, 1, 0);
    for (size_t i = 0; i < NCASES; i++) {
        with_csc[i] = 0;
        if (cases[i].l == SP_BFS_LOOP_GRAPH && sp_test_skip_graph_loop()) continue;
        /* the CSR build and the scratch at least; pull and direction_opt build CSC too */
        int64_t one = bfs_case(g, cases[i].v, cases[i].l, cases[i].coop, 1, 1);
        ck_assert_int_ge(one, 2);
        if (cases[i].v == SP_BFS_PULL || cases[i].v == SP_BFS_DIRECTION_OPT)
            ck_assert_int_gt(one, push);
        with_csc[i] = one;
        if (!cases[i].coop) bfs_case(g, cases[i].v, cases[i].l, 0, 3, 1);
    }
    /* pattern-symmetric (issue 20): pull and direction_opt read the CSR, build no CSC, so
     * fewer allocations can fail, and a failure still leaves everything as it was */
    g->flags |= SP_COO_SYMMETRIC_PATTERN;
    for (size_t i = 0; i < NCASES; i++) {
        if (cases[i].v != SP_BFS_PULL && cases[i].v != SP_BFS_DIRECTION_OPT) continue;
        if (cases[i].l == SP_BFS_LOOP_GRAPH && sp_test_skip_graph_loop()) continue;
        int64_t lean = bfs_case(g, cases[i].v, cases[i].l, 0, 1, 1);
        ck_assert_int_ge(lean, 2);
        ck_assert_msg(lean < with_csc[i], "%s/%s: %lld failing allocations on a symmetric "
                      "pattern, %lld with a CSC", sp_bfs_variant_name(cases[i].v),
                      sp_bfs_loop_name(cases[i].l), (long long)lean, (long long)with_csc[i]);
    }
    sp_coo_free(g);
}
END_TEST

/* ---- solvers ---------------------------------------------------------------------------- */

#define X_MARKER 0.5

typedef struct solve_run {
    sp_solver_type_t type;
    sp_matrix_t *A;      /* the matrix set up; its formats are part of the output */
    sp_solver_t *solver; /* resetup: set up on another matrix before the runs */
    sp_vector_t *b, *x, *x2;
    double *h_x;
    int64_t n;
    unsigned built;
    const sp_solver_options_t *opt; /* NULL: the defaults */
} solve_run_t;

static void assert_converged(sp_solver_t *s, const char *what)
{
    sp_solver_result_t res;
    ck_assert_ok(sp_solver_result(s, &res));
    ck_assert_msg(res.status == SP_SOLVER_CONVERGED && res.relative_residual < 1e-6,
                  "%s: %s after %lld iterations, residual %g", what,
                  sp_solver_status_string(res.status), (long long)res.iterations,
                  res.relative_residual);
}

/* create -> setup -> solve -> destroy on a fresh solver; x (initial guess ignored) is the
 * output. */
static sp_status_t solve_op(void *arg)
{
    solve_run_t *r = arg;
    sp_solver_t *s = NULL;
    sp_status_t st = sp_solver_create(g_ctx, r->type, &s);
    if (st == SP_STATUS_SUCCESS) st = sp_solver_set_options(s, r->opt);
    if (st == SP_STATUS_SUCCESS) st = sp_solver_setup(s, r->A);
    if (st == SP_STATUS_SUCCESS) st = sp_solver_solve(s, r->b, r->x);
    if (st == SP_STATUS_SUCCESS) assert_converged(s, "solve");
    sp_solver_destroy(s);
    return st;
}

/* A set-up solver set up again on r->A. */
static sp_status_t resetup_op(void *arg)
{
    solve_run_t *r = arg;
    return sp_solver_setup(r->solver, r->A);
}

/* A solve with the solver's setup as it stands. */
static sp_status_t solve_only_op(void *arg)
{
    solve_run_t *r = arg;
    return sp_solver_solve(r->solver, r->b, r->x);
}

static void solve_prepare(void *arg)
{
    solve_run_t *r = arg;
    ck_assert_ok(sp_vector_fill(g_ctx, r->x, X_MARKER));
    r->built = built_mask(r->A);
}

static void solve_untouched(void *arg)
{
    solve_run_t *r = arg;
    ck_assert_ok(sp_vector_copy_to_host(g_ctx, r->x, r->h_x));
    for (int64_t i = 0; i < r->n; i++)
        ck_assert_double_eq(r->h_x[i], X_MARKER);
    ck_assert_uint_eq(built_mask(r->A), r->built);
}

/* After a failed setup the earlier one still solves (into x2: x keeps its marker). */
static void resetup_untouched(void *arg)
{
    solve_run_t *r = arg;
    solve_untouched(arg);
    ck_assert_ok(sp_solver_solve(r->solver, r->b, r->x2));
    assert_converged(r->solver, "the earlier setup after a failed one");
}

/* One solver type on the SPD matrix p: its whole life on fresh uploads (COO only), every
 * device allocation failing in turn, then (host_too) every host allocation; a setup
 * replacing one on another matrix the same ways; the solves allocate nothing. */
static void solver_case(const sp_coo_t *p, sp_solver_type_t type, int host_too,
                        const sp_solver_options_t *opt)
{
    sp_matrix_t *A0 = NULL;
    solve_run_t r;
    char what[64];
    memset(&r, 0, sizeof r);
    r.type = type;
    r.n = p->nrows;
    r.opt = opt;
    snprintf(what, sizeof what, "solver type %d%s", (int)type,
             opt ? (opt->pipelined ? ", pipelined" : ", device loop") : "");
    r.h_x = malloc((size_t)r.n * sizeof *r.h_x);
    ck_assert_ptr_nonnull(r.h_x);
    ck_assert_ok(sp_vector_create(g_ctx, SP_R_64F, r.n, NULL, &r.b));
    ck_assert_ok(sp_vector_create(g_ctx, SP_R_64F, r.n, NULL, &r.x));
    ck_assert_ok(sp_vector_create(g_ctx, SP_R_64F, r.n, NULL, &r.x2));
    ck_assert_ok(sp_vector_fill(g_ctx, r.b, 1.0));
    sweep_t life = {what, solve_op, solve_prepare, solve_untouched, &r};
    ck_assert_ok(sp_matrix_create(g_ctx, p, NULL, &r.A));
    ck_assert_int_ge(device_sweep(life), 4); /* at least the workspace vectors */
    sp_matrix_destroy(r.A);
    if (host_too) {
        ck_assert_ok(sp_matrix_create(g_ctx, p, NULL, &r.A));
        ck_assert_int_ge(host_sweep(life), 1);
        sp_matrix_destroy(r.A);
    }

    sweep_t again = {what, resetup_op, solve_prepare, resetup_untouched, &r};
    ck_assert_ok(sp_matrix_create(g_ctx, p, NULL, &A0));
    ck_assert_ok(sp_solver_create(g_ctx, r.type, &r.solver));
    ck_assert_ok(sp_solver_set_options(r.solver, opt));
    ck_assert_ok(sp_solver_setup(r.solver, A0));
    ck_assert_ok(sp_matrix_create(g_ctx, p, NULL, &r.A));
    ck_assert_int_ge(device_sweep(again), 4);
    if (host_too) {
        ck_assert_ok(sp_solver_setup(r.solver, A0)); /* before r.A, which it borrows, goes */
        sp_matrix_destroy(r.A);
        ck_assert_ok(sp_matrix_create(g_ctx, p, NULL, &r.A));
        host_sweep(again);
    }
    allocates_nothing((sweep_t){what, solve_only_op, solve_prepare, NULL, &r});
    assert_converged(r.solver, what);
    sp_solver_destroy(r.solver);
    sp_matrix_destroy(r.A);
    sp_matrix_destroy(A0);
    sp_vector_destroy(r.x2);
    sp_vector_destroy(r.x);
    sp_vector_destroy(r.b);
    free(r.h_x);
}

START_TEST(solvers_device_and_host)
{
    static const sp_solver_type_t types[] = {SP_SOLVER_CG, SP_SOLVER_PCG_JACOBI,
                                             SP_SOLVER_PCG_SGS, SP_SOLVER_BICGSTAB};
    sp_coo_t *p = NULL;
    ck_assert_ok(sp_gen_poisson3d(sp_test_small() ? 4 : 7, SP_R_64F, &p));
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        solver_case(p, types[i], 1, NULL);
    /* the fused forms (device memory only: their host allocations are the step loop's) */
    const sp_solver_options_t device = {.loop = SP_SOLVER_LOOP_DEVICE, .check_every = 3};
    const sp_solver_options_t pipelined = {.loop = SP_SOLVER_LOOP_DEVICE, .pipelined = 1};
    solver_case(p, SP_SOLVER_CG, 0, &device);
    solver_case(p, SP_SOLVER_BICGSTAB, 0, &device);
    solver_case(p, SP_SOLVER_PCG_JACOBI, 0, &pipelined);
    sp_coo_free(p);
}
END_TEST

/* ---- triangular solves ------------------------------------------------------------------ */

typedef struct trsv_run {
    sp_matrix_t *A;
    sp_uplo_t uplo;
    sp_diag_t diag;
    sp_sptrsv_alg_t alg;
    double *d_b, *d_x, *h_x;
    int64_t n;
    unsigned built;
} trsv_run_t;

static sp_status_t trsv_op(void *arg)
{
    trsv_run_t *r = arg;
    const double alpha = 1.5;
    return sp_sptrsv(g_ctx, r->A, r->uplo, r->diag, r->alg, &alpha, r->d_b, r->d_x);
}

static void trsv_prepare(void *arg)
{
    trsv_run_t *r = arg;
    for (int64_t i = 0; i < r->n; i++)
        r->h_x[i] = MARKER;
    sp_test_to_device(r->d_x, r->h_x, (size_t)r->n * sizeof(double), g_stream);
    r->built = built_mask(r->A);
}

static void trsv_untouched(void *arg)
{
    trsv_run_t *r = arg;
    sp_test_to_host(r->h_x, r->d_x, (size_t)r->n * sizeof(double), g_stream);
    for (int64_t i = 0; i < r->n; i++)
        ck_assert_msg(r->h_x[i] == MARKER, "x[%lld] = %g written by a failed call",
                      (long long)i, r->h_x[i]);
    ck_assert_uint_eq(built_mask(r->A), r->built);
}

/* x against a host context's solve of the same triangle. */
static void trsv_assert_result(const char *what, trsv_run_t *r, const sp_coo_t *a,
                               const double *h_b)
{
    sp_context_t *host = NULL;
    sp_matrix_t *H = NULL;
    const double alpha = 1.5;
    double *want = malloc((size_t)r->n * sizeof *want);
    ck_assert_ptr_nonnull(want);
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &host));
    ck_assert_ok(sp_matrix_create(host, a, NULL, &H));
    ck_assert_ok(sp_sptrsv(host, H, r->uplo, r->diag, SP_SPTRSV_ALG_AUTO, &alpha, h_b, want));
    sp_test_to_host(r->h_x, r->d_x, (size_t)r->n * sizeof(double), g_stream);
    for (int64_t i = 0; i < r->n; i++)
        ck_assert_msg(fabs(r->h_x[i] - want[i]) <= 1e-12 * (1 + fabs(want[i])),
                      "%s: x[%lld] = %.17g, expected %.17g", what, (long long)i, r->h_x[i],
                      want[i]);
    sp_matrix_destroy(H);
    sp_context_destroy(host);
    free(want);
}

/* One algorithm on one triangle of a (h_b: the right-hand side): on a fresh upload (the
 * CSR build swept too) or with CSR built before (the analysis alone, prebuilt), every
 * device allocation failing in turn, then (host_too) every host allocation; a repeated
 * call allocates nothing. */
static void trsv_case(const sp_coo_t *a, const double *h_b, sp_sptrsv_alg_t alg, sp_uplo_t uplo,
                      sp_diag_t diag, int prebuilt, int host_too)
{
    trsv_run_t r = {NULL, uplo, diag, alg, NULL, NULL, NULL, a->nrows, 0};
    char what[64];
    snprintf(what, sizeof what, "sptrsv alg %d uplo %d diag %d%s", (int)alg, (int)uplo,
             (int)diag, prebuilt ? " on a built CSR" : "");
    sweep_t sw = {what, trsv_op, trsv_prepare, trsv_untouched, &r};
    r.h_x = malloc((size_t)r.n * sizeof *r.h_x);
    ck_assert_ptr_nonnull(r.h_x);
    ck_cuda(cudaMalloc((void **)&r.d_b, (size_t)r.n * sizeof(double)));
    ck_cuda(cudaMalloc((void **)&r.d_x, (size_t)r.n * sizeof(double)));
    sp_test_to_device(r.d_b, h_b, (size_t)r.n * sizeof(double), g_stream);
    for (int host = 0; host <= host_too; host++) {
        ck_assert_ok(sp_matrix_create(g_ctx, a, NULL, &r.A));
        if (prebuilt) ck_assert_ok(sp_matrix_build(g_ctx, r.A, SP_FORMAT_CSR));
        if (host)
            host_sweep(sw);
        else
            ck_assert_int_ge(device_sweep(sw), 1);
        trsv_assert_result(what, &r, a, h_b);
        allocates_nothing(sw);
        trsv_assert_result(what, &r, a, h_b);
        sp_matrix_destroy(r.A);
    }
    ck_cuda(cudaFree(r.d_x));
    ck_cuda(cudaFree(r.d_b));
    free(r.h_x);
}

/* Every algorithm on both triangles, unit diagonal on a fresh upload and non-unit on a
 * built CSR. */
START_TEST(sptrsv_device_and_host)
{
    static const sp_sptrsv_alg_t algs[] = {SP_SPTRSV_ALG_LEVELS, SP_SPTRSV_ALG_SOFT_SYNC,
                                           SP_SPTRSV_ALG_AUTO};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson2d(sp_test_small() ? 8 : 30, SP_R_64F, &a));
    double *h_b = malloc((size_t)a->nrows * sizeof *h_b);
    ck_assert_ptr_nonnull(h_b);
    for (int64_t i = 0; i < a->nrows; i++)
        h_b[i] = 1.0 / (double)(i + 1);
    for (size_t k = 0; k < sizeof algs / sizeof algs[0]; k++)
        for (int u = 0; u < 2; u++)
            for (int d = 0; d < 2; d++)
                trsv_case(a, h_b, algs[k], u ? SP_UPLO_UPPER : SP_UPLO_LOWER,
                          d ? SP_DIAG_UNIT : SP_DIAG_NON_UNIT, !d, 1);
    free(h_b);
    sp_coo_free(a);
}
END_TEST

/* ---- vectors ---------------------------------------------------------------------------- */

#define SENTINEL_VECTOR ((sp_vector_t *)(uintptr_t)0x5)
enum { VEC_N = 1024 }; /* ones: x . x = 1024, ||x|| = 32 exactly */

typedef struct vec_run {
    sp_value_type_t type;
    const void *h_values; /* NULL: zeros */
    sp_vector_t *v;       /* create: the output */
    sp_vector_t *x, *y, *res;
    double dot, nrm2;
} vec_run_t;

static sp_status_t vec_create_op(void *arg)
{
    vec_run_t *r = arg;
    r->v = SENTINEL_VECTOR;
    sp_status_t st = sp_vector_create(g_ctx, r->type, VEC_N, r->h_values, &r->v);
    if (st == SP_STATUS_SUCCESS) sp_vector_destroy(r->v);
    return st;
}

static void vec_create_untouched(void *arg)
{
    ck_assert_ptr_eq(((vec_run_t *)arg)->v, SENTINEL_VECTOR);
}

/* The arithmetic with results on the host and on the device. */
static sp_status_t vec_ops_op(void *arg)
{
    vec_run_t *r = arg;
    sp_status_t st = sp_vector_copy(g_ctx, r->x, r->y);
    if (st == SP_STATUS_SUCCESS) st = sp_vector_dot(g_ctx, r->x, r->y, &r->dot);
    if (st == SP_STATUS_SUCCESS) st = sp_vector_nrm2(g_ctx, r->y, &r->nrm2);
    if (st == SP_STATUS_SUCCESS) st = sp_vector_dot_async(g_ctx, r->x, r->y, r->res, 0);
    if (st == SP_STATUS_SUCCESS) st = sp_vector_nrm2_async(g_ctx, r->y, r->res, 1);
    if (st == SP_STATUS_SUCCESS)
        st = sp_vector_axpby_nrm2_async(g_ctx, 1.0, r->x, 0.0, r->y, r->res, 2);
    return st;
}

START_TEST(vectors_device_and_host)
{
    static const sp_value_type_t types[] = {SP_R_32F, SP_R_64F};
    float ones_f[VEC_N];
    double ones_d[VEC_N], h_res[3];
    for (int i = 0; i < VEC_N; i++) {
        ones_f[i] = 1.0f;
        ones_d[i] = 1.0;
    }
    for (int t = 0; t < 2; t++) {
        const void *ones = types[t] == SP_R_32F ? (const void *)ones_f : (const void *)ones_d;
        for (int with = 0; with < 2; with++) {
            vec_run_t r = {types[t], with ? ones : NULL, NULL, NULL, NULL, NULL, 0, 0};
            sweep_t sw = {"sp_vector_create", vec_create_op, NULL, vec_create_untouched, &r};
            ck_assert_int_ge(device_sweep(sw), 1);
            ck_assert_int_ge(host_sweep(sw), 1);
        }
        vec_run_t r = {types[t], NULL, NULL, NULL, NULL, NULL, 0, 0};
        ck_assert_ok(sp_vector_create(g_ctx, types[t], VEC_N, ones, &r.x));
        ck_assert_ok(sp_vector_create(g_ctx, types[t], VEC_N, NULL, &r.y));
        ck_assert_ok(sp_vector_create(g_ctx, SP_R_64F, 3, NULL, &r.res));
        sweep_t ops = {"vector arithmetic", vec_ops_op, NULL, NULL, &r};
        ck_assert_int_eq(device_sweep(ops), 0);
        ck_assert_int_eq(host_sweep(ops), 0);
        allocates_nothing(ops);
        ck_assert_double_eq(r.dot, VEC_N);
        ck_assert_double_eq(r.nrm2, 32.0);
        ck_assert_ok(sp_vector_copy_to_host(g_ctx, r.res, h_res));
        ck_assert_double_eq(h_res[0], VEC_N);
        ck_assert_double_eq(h_res[1], 32.0);
        ck_assert_double_eq(h_res[2], 32.0);
        sp_vector_destroy(r.res);
        sp_vector_destroy(r.y);
        sp_vector_destroy(r.x);
    }
}
END_TEST

/* Errors that surface through CUDA itself (the hook's cudaMallocAsync failing leaves
 * CUDA's last error set): the same contract, and CUDA's error state is clean after. */
START_TEST(failures_through_cuda)
{
    if (sp_test_under_sanitizer()) return; /* the provoked CUDA errors would count */
    sp_test_gpu_fail_through_cuda(1);
    run_t r = new_run(OP_CREATE, SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT);
    ck_assert_int_ge(device_sweep(matrix_sweep("create, failing in CUDA", &r)), 3);
    free_run(&r);
    r = new_run(OP_SPMV, SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE);
    ck_assert_int_ge(device_sweep(matrix_sweep("csr merge, failing in CUDA", &r)), 1);
    assert_spmv_result(&r);
    free_run(&r);
    sp_coo_t *g = NULL, *p = NULL;
    ck_assert_ok(sp_gen_grid2d(12, SP_VALUE_NONE, &g));
    ck_assert_int_ge(bfs_case(g, SP_BFS_DIRECTION_OPT, SP_BFS_LOOP_HOST, 0, 3, 0), 2);
    ck_assert_int_ge(bfs_case(g, SP_BFS_FRONTIER, SP_BFS_LOOP_PERSISTENT, 0, 3, 0), 2);
    ck_assert_ok(sp_gen_poisson3d(4, SP_R_64F, &p));
    solver_case(p, SP_SOLVER_PCG_SGS, 0, NULL);
    double *h_b = malloc((size_t)p->nrows * sizeof *h_b);
    ck_assert_ptr_nonnull(h_b);
    for (int64_t i = 0; i < p->nrows; i++)
        h_b[i] = 1.0 / (double)(i + 1);
    trsv_case(p, h_b, SP_SPTRSV_ALG_SOFT_SYNC, SP_UPLO_LOWER, SP_DIAG_NON_UNIT, 0, 0);
    free(h_b);
    sp_coo_free(p);
    sp_coo_free(g);
    sp_test_gpu_fail_through_cuda(0);
}
END_TEST

/* ---- refused before any work when it cannot fit -------------------------------------------- */

START_TEST(room_refused_before_work)
{
    sp_matrix_t *A = SENTINEL_MATRIX;
    int64_t nnz = g_coo->nnz, live = sp_test_gpu_live_allocations();
    char want[96];
    sp__cuda_test_cap_room(g_ctx, 4096);
    sp_test_gpu_fail_allocations_after(-1);
    sp_test_fail_allocations_after(-1);
    ck_assert_status(sp_matrix_create(g_ctx, g_coo, &g_opt, &A), SP_STATUS_ALLOC_FAILED);
    sp_test_restore_allocator();
    snprintf(want, sizeof want, "uploading and sorting the COO needs %lld bytes on the device, 4096 free",
             (long long)(nnz * (2 * 16 + 8) + 4 * g_coo->nrows));
    ck_assert_error_has(want);
    ck_assert_int_eq(sp_test_gpu_allocations(), 0); /* no device memory asked for */
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_ptr_eq(A, SENTINEL_MATRIX);

    sp__cuda_test_cap_room(g_ctx, 0);
    ck_assert_ok(sp_matrix_create(g_ctx, g_coo, &g_opt, &A));
    ck_assert_ok(sp_matrix_build(g_ctx, A, SP_FORMAT_CSR));
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int f = SP_FORMAT_CSC; f < SP_FORMAT_COUNT; f++) {
        sp__cuda_test_cap_room(g_ctx, 100);
        sp_test_gpu_fail_allocations_after(-1);
        ck_assert_status(sp_matrix_build(g_ctx, A, (sp_format_t)f), SP_STATUS_ALLOC_FAILED);
        snprintf(want, sizeof want, "building %s needs ", sp_format_name((sp_format_t)f));
        ck_assert_error_has(want);
        ck_assert_error_has("bytes on the device, 100 free");
        ck_assert_int_eq(sp_test_gpu_allocations(), 0);
        sp__cuda_test_cap_room(g_ctx, 0);
        ck_assert_ok(sp_matrix_build(g_ctx, A, (sp_format_t)f));
    }
    sp_matrix_destroy(A);
    ck_assert_int_eq(sp_test_gpu_live_allocations(), live);
}
END_TEST

/* A real refusal, on a context with its own memory pool: ELL of one long row among 10M rows
 * kept in the padded part (long_row_bound -1: no tail) is larger than any GPU; HYB and SELL
 * of the same matrix build and multiply. */
START_TEST(ell_larger_than_the_device)
{
    const int64_t n = sp_test_small() ? 1000000 : 10000000, len = 100000;
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_options_t o = {.ell_max_bytes = INT64_MAX, .long_row_bound = -1};
    char want[80];
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_ok(sp_coo_create(n, n, len + n / 64, SP_R_32F, &a));
    for (int64_t k = 0; k < len; k++) {
        a->row[k] = (int32_t)(n / 2);
        a->col[k] = (int32_t)(k * 7);
        ((float *)a->val)[k] = 1.0f;
    }
    for (int64_t k = 0; k < n / 64; k++) {
        a->row[len + k] = a->col[len + k] = (int32_t)(64 * k + 1);
        ((float *)a->val)[len + k] = 2.0f;
    }
    a->nnz = len + n / 64;
    ck_assert_ok(sp_matrix_create(ctx, a, &o, &A));
    ck_assert_status(sp_matrix_build(ctx, A, SP_FORMAT_ELL), SP_STATUS_ALLOC_FAILED);
    snprintf(want, sizeof want, "building ell needs %lld bytes on the device", (long long)(n * len * 8));
    ck_assert_error_has(want);
    ck_assert_error_has("free");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    float *x = NULL, *y = NULL, *h = malloc((size_t)n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    for (int64_t i = 0; i < n; i++) h[i] = 1.0f;
    ck_cuda(cudaMalloc((void **)&x, (size_t)n * sizeof *x));
    ck_cuda(cudaMalloc((void **)&y, (size_t)n * sizeof *y));
    ck_cuda(cudaMemcpy(x, h, (size_t)n * sizeof *x, cudaMemcpyHostToDevice));
    const float one = 1.0f, zero = 0.0f;
    const sp_format_t formats[] = {SP_FORMAT_HYB, SP_FORMAT_SELL};
    for (int f = 0; f < 2; f++) {
        ck_cuda(cudaMemset(y, 0xff, (size_t)n * sizeof *y));
        ck_cuda(cudaDeviceSynchronize());
        ck_assert_ok(sp_spmv(ctx, formats[f], SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
        ck_assert_ok(sp_context_synchronize(ctx));
        ck_cuda(cudaMemcpy(h, y, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i < n; i++) {
            float want_i = (i % 64 == 1 ? 2.0f : 0.0f) + (i == n / 2 ? (float)len : 0.0f);
            ck_assert_msg(h[i] == want_i, "%s: y[%lld] = %g, expected %g",
                          sp_format_name(formats[f]), (long long)i, h[i], want_i);
        }
    }
    cudaFree(y);
    cudaFree(x);
    free(h);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST
#endif /* SP_HAVE_CUDA */

static Suite *gpu_alloc_sweep_suite(void)
{
    Suite *s = suite_create("gpu_alloc_sweep");
#ifdef SP_HAVE_CUDA
    /* four cases, run side by side by ctest and the sanitizer (tests/CMakeLists.txt) */
    TCase *formats = sp_test_add_case(s, "formats", setup, teardown);
    TCase *bfs = sp_test_add_case(s, "bfs", setup, teardown);
    TCase *solvers = sp_test_add_case(s, "solvers", setup, teardown);
    TCase *limits = sp_test_add_case(s, "limits", setup, teardown);
    tcase_add_test(formats, create_device_and_host);
    tcase_add_test(formats, build_device_and_host);
    tcase_add_test(formats, spmv_plans_device_and_host);
    tcase_add_test(formats, spmv_building_device_and_host);
    tcase_add_test(bfs, bfs_device_and_host);
    tcase_add_test(solvers, solvers_device_and_host);
    tcase_add_test(solvers, sptrsv_device_and_host);
    tcase_add_test(solvers, vectors_device_and_host);
    tcase_add_test(limits, failures_through_cuda);
    tcase_add_test(limits, room_refused_before_work);
    tcase_add_test(limits, ell_larger_than_the_device);
#endif
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_alloc_sweep_suite()); }
