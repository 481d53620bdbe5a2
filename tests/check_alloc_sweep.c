/* Allocation failure on the host, every allocation failing in turn: the edge-list readers
 * (each format, each option that allocates, several threads), the binary cache loader and
 * writer, the Matrix Market reader on the bundled datasets and the writer, the generators,
 * COO sort/symmetrize, and matrices on a host context (create, every format's build, SpMV).
 * Each failing run returns SP_STATUS_ALLOC_FAILED, leaks no block, leaves its outputs
 * untouched and (writers) leaves no file behind. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* A pointer no allocator returns: outputs start as this and must stay so on failure. */
#define SENTINEL ((sp_coo_t *)(uintptr_t)0x5)


/* Names in the temp folder, joined by spaces (sorted is not needed: callers expect one). */
static const char *dir_listing(void)
{
    static char list[2048];
    DIR *d = opendir(sp_test_temp_dir());
    ck_assert_ptr_nonnull(d);
    list[0] = '\0';
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (list[0]) strncat(list, " ", sizeof list - strlen(list) - 1);
        strncat(list, e->d_name, sizeof list - strlen(list) - 1);
    }
    closedir(d);
    return list;
}

static void sweep(const char *what, sp_status_t (*op)(void *), void (*check)(void *), void *arg)
{
    int64_t failing = 0;
    ck_assert_ok(sp_test_fail_each_allocation(what, op, check, arg, &failing));
    ck_assert_msg(failing >= 1, "%s: allocated nothing, the sweep tested nothing", what);
}

/* ---- edge lists ----------------------------------------------------------------------- */

typedef struct el_run {
    const char *path;
    sp_value_type_t type;
    sp_edgelist_options_t opt;
    sp_coo_t *a;
    sp_edgelist_info_t info;
} el_run_t;

static sp_status_t el_op(void *arg)
{
    el_run_t *r = arg;
    r->a = SENTINEL;
    memset(&r->info, 0x7b, sizeof r->info);
    sp_status_t st = sp_edgelist_read(r->path, r->type, &r->opt, &r->a, &r->info);
    if (st == SP_STATUS_SUCCESS) {
        ck_assert_int_gt(r->a->nnz, 0);
        sp_free(r->info.id_map);
        sp_coo_free(r->a);
    }
    return st;
}

static void el_untouched(void *arg)
{
    el_run_t *r = arg;
    sp_edgelist_info_t marker;
    memset(&marker, 0x7b, sizeof marker);
    ck_assert_ptr_eq(r->a, SENTINEL);
    ck_assert_msg(memcmp(&r->info, &marker, sizeof marker) == 0, "%s: info changed on failure",
                  r->path);
}

static const char *edge_file(const char *rel)
{
    static char buf[8][512];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s", sp_test_path(rel));
    return b;
}

START_TEST(edgelist_readers)
{
    const struct {
        const char *file;
        sp_value_type_t type;
        sp_edgelist_options_t opt;
    } cases[] = {
        {"tests/fixtures/edgelist/tiny.el", SP_VALUE_NONE, {0}},
        {"tests/fixtures/edgelist/tiny.el", SP_R_64F,
         {.undirected = 1, .drop_self_loops = 1, .merge_duplicates = 1, .compact_ids = 1}},
        {"tests/fixtures/edgelist/compact.el", SP_R_32F, {.compact_ids = 1, .one_based = 1}},
        {"tests/fixtures/edgelist/weighted.wel", SP_R_64F, {.merge_duplicates = 1}},
        {"tests/fixtures/edgelist/tiny.gr", SP_R_64F, {.undirected = 1}},
        {"tests/fixtures/edgelist/tiny.graph", SP_VALUE_NONE, {.merge_duplicates = 1}},
        {"tests/fixtures/edgelist/weighted.graph", SP_R_32F, {.drop_self_loops = 1}},
        {"tests/fixtures/edgelist/isolated.graph", SP_VALUE_NONE, {.nvertices = 0}},
        {"datasets/graphs/gapbs-4.graph", SP_R_64F, {.compact_ids = 1}},
        /* several chunks on several threads */
        {"datasets/graphs/email-Eu-core.txt", SP_R_32F,
         {.nthreads = 3, .undirected = 1, .merge_duplicates = 1, .compact_ids = 1}},
        {"datasets/graphs/rome99.gr", SP_R_64F, {.nthreads = 2}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        el_run_t r = {edge_file(cases[i].file), cases[i].type, cases[i].opt, NULL, {0}};
        sweep(cases[i].file, el_op, el_untouched, &r);
    }
}
END_TEST

/* ---- Matrix Market reader on the datasets (the fixtures are swept in check_mtx_read) ---- */

typedef struct mtx_run {
    const char *path;
    sp_value_type_t type;
    sp_mtx_options_t opt;
    sp_coo_t *a;
} mtx_run_t;

static sp_status_t mtx_op(void *arg)
{
    mtx_run_t *r = arg;
    r->a = SENTINEL;
    sp_status_t st = sp_mtx_read(r->path, r->type, &r->opt, &r->a);
    if (st == SP_STATUS_SUCCESS) sp_coo_free(r->a);
    return st;
}

static void mtx_untouched(void *arg) { ck_assert_ptr_eq(((mtx_run_t *)arg)->a, SENTINEL); }

START_TEST(mtx_reader_datasets)
{
    const struct {
        const char *file;
        sp_value_type_t type;
        sp_mtx_options_t opt;
    } cases[] = {
        {"datasets/mtx/karate.mtx", SP_R_64F, {.nthreads = 1}},
        {"datasets/mtx/karate.mtx", SP_VALUE_NONE, {.pattern = SP_PATTERN_NONE, .keep_symmetric = 1}},
        {"datasets/mtx/1138_bus.mtx", SP_R_32F, {.nthreads = 3}},
        {"datasets/mtx/young1c.mtx", SP_R_64F, {.nthreads = 2, .complex_mode = SP_COMPLEX_REAL_PART}},
        {"datasets/mtx/skew_fp64.mtx", SP_R_64F, {.nthreads = 1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mtx_run_t r = {edge_file(cases[i].file), cases[i].type, cases[i].opt, NULL};
        sweep(cases[i].file, mtx_op, mtx_untouched, &r);
    }
}
END_TEST

/* ---- binary cache ---------------------------------------------------------------------- */

typedef struct cache_run {
    const char *path;
    const sp_coo_t *a; /* save: the COO to write */
    sp_coo_t *out;     /* load: the result */
} cache_run_t;

static sp_status_t load_op(void *arg)
{
    cache_run_t *r = arg;
    r->out = SENTINEL;
    sp_status_t st = sp_coo_load(r->path, &r->out);
    if (st == SP_STATUS_SUCCESS) sp_coo_free(r->out);
    return st;
}

static void load_untouched(void *arg) { ck_assert_ptr_eq(((cache_run_t *)arg)->out, SENTINEL); }

static sp_status_t save_op(void *arg)
{
    cache_run_t *r = arg;
    return sp_coo_save(r->path, r->a);
}

/* After a failed save: the folder holds only the old target, with its old size. */
static void save_left_old_file(void *arg)
{
    cache_run_t *r = arg;
    sp_coo_t *b = NULL;
    ck_assert_str_eq(dir_listing(), "target");
    ck_assert_ok(sp_coo_load(r->path, &b));
    ck_assert_int_eq(b->nnz, 1); /* the old one-entry file */
    sp_coo_free(b);
}

START_TEST(cache_load_and_save)
{
    sp_coo_t *a = sp_test_random_coo(4, 300, 200, 2000, SP_R_64F, SP_TEST_DUPLICATES);
    sp_coo_t *one = NULL;
    ck_assert_ptr_nonnull(a);
    cache_run_t r = {edge_file("tests/fixtures/cache/small_v1.spcoo"), NULL, NULL};
    sweep("load small_v1", load_op, load_untouched, &r);
    ck_assert_ok(sp_coo_save(sp_test_temp_path("random.spcoo"), a));
    r.path = sp_test_temp_path("random.spcoo");
    sweep("load random", load_op, load_untouched, &r);
    ck_assert_int_eq(unlink(r.path), 0);

    ck_assert_ok(sp_coo_create(2, 2, 1, SP_R_32F, &one));
    one->nnz = 1;
    one->row[0] = one->col[0] = 1;
    ((float *)one->val)[0] = 2.0f;
    ck_assert_ok(sp_coo_save(sp_test_temp_path("target"), one));
    r = (cache_run_t){sp_test_temp_path("target"), a, NULL};
    sweep("save", save_op, save_left_old_file, &r);
    sp_coo_free(one);
    sp_coo_free(a);
}
END_TEST

/* ---- Matrix Market writer -------------------------------------------------------------- */

typedef struct write_run {
    const char *path;
    const sp_coo_t *a;
    sp_mtx_write_options_t opt;
} write_run_t;

static sp_status_t write_op(void *arg)
{
    write_run_t *r = arg;
    return sp_mtx_write(r->path, r->a, &r->opt);
}

static void write_left_old_file(void *arg)
{
    write_run_t *r = arg;
    char buf[64] = {0};
    FILE *f = fopen(r->path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
    fclose(f);
    ck_assert_str_eq(buf, "old\n");
    ck_assert_str_eq(dir_listing(), "target");
}

static void put_old(const char *path)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("old\n", f);
    fclose(f);
}

START_TEST(mtx_writer)
{
    sp_coo_t *a = NULL, *g = sp_test_random_coo(5, 40, 30, 300, SP_R_32F, SP_TEST_DUPLICATES);
    ck_assert_ptr_nonnull(g);
    ck_assert_ok(sp_gen_poisson2d(6, SP_R_64F, &a)); /* symmetric */
    write_run_t r = {sp_test_temp_path("target"), g, {SP_MTX_FIELD_AUTO, 0, "generated\ntwo lines", 0}};
    put_old(r.path);
    sweep("mtx write general", write_op, write_left_old_file, &r);
    put_old(r.path);
    r = (write_run_t){sp_test_temp_path("target"), a, {SP_MTX_FIELD_REAL, 1, NULL, 0}};
    sweep("mtx write symmetric", write_op, write_left_old_file, &r);
    ck_assert_int_eq(unlink(r.path), 0);
    sp_coo_free(a);
    sp_coo_free(g);
}
END_TEST

/* ---- generators and COO operations ------------------------------------------------------ */

typedef struct gen_run {
    int which;
    sp_coo_t *a;
} gen_run_t;

static sp_status_t gen_op(void *arg)
{
    gen_run_t *r = arg;
    sp_status_t st = SP_STATUS_INTERNAL_ERROR;
    r->a = SENTINEL;
    switch (r->which) {
    case 0: st = sp_gen_kronecker(6, 4, 9, SP_R_64F, &r->a); break;
    case 1: st = sp_gen_uniform(6, 4, 9, SP_R_32F, &r->a); break;
    case 2: st = sp_gen_poisson2d(5, SP_R_64F, &r->a); break;
    case 3: st = sp_gen_poisson3d(3, SP_R_32F, &r->a); break;
    case 4: st = sp_gen_poisson3d27(3, SP_R_64F, &r->a); break;
    case 5: st = sp_gen_grid2d(5, SP_VALUE_NONE, &r->a); break;
    }
    if (st == SP_STATUS_SUCCESS) sp_coo_free(r->a);
    return st;
}

static void gen_untouched(void *arg) { ck_assert_ptr_eq(((gen_run_t *)arg)->a, SENTINEL); }

START_TEST(generators)
{
    for (int i = 0; i < 6; i++) {
        gen_run_t r = {i, NULL};
        char what[32];
        snprintf(what, sizeof what, "generator %d", i);
        sweep(what, gen_op, gen_untouched, &r);
    }
}
END_TEST

/* In-place COO operations: a failed run leaves the COO exactly as it was. */
static int same_coo(const sp_coo_t *a, const sp_coo_t *b)
{
    size_t n = (size_t)a->nnz, vs = sp_value_size(a->value_type);
    return a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz &&
           a->flags == b->flags && memcmp(a->row, b->row, n * 4) == 0 &&
           memcmp(a->col, b->col, n * 4) == 0 && (vs == 0 || memcmp(a->val, b->val, n * vs) == 0);
}

START_TEST(coo_operations)
{
    /* Each run needs a fresh working copy made outside the count: the loop by hand. */
    sp_coo_t *orig = sp_test_random_coo(6, 60, 60, 500, SP_R_64F, SP_TEST_DUPLICATES);
    ck_assert_ptr_nonnull(orig);
    for (int which = 0; which < 3; which++) {
        int64_t k = 0;
        for (;; k++) {
            sp_coo_t *work = NULL, *out = SENTINEL;
            sp_status_t st;
            ck_assert_ok(sp_coo_copy(orig, orig->value_type, &work));
            sp_test_fail_allocations_after(k);
            if (which == 0) st = sp_coo_sort_merge(work, SP_DUP_SUM, NULL);
            else if (which == 1) st = sp_coo_symmetrize(work, 1);
            else st = sp_coo_copy(work, SP_R_32F, &out);
            sp_test_restore_allocator();
            int64_t calls = sp_test_allocations(), live = sp_test_live_allocations();
            if (calls <= k) {
                ck_assert_ok(st);
                if (which == 2) sp_coo_free(out);
                sp_coo_free(work);
                break;
            }
            ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "COO op %d, allocation %lld: %s", which,
                          (long long)k, sp_status_string(st));
            ck_assert_msg(live == 0, "COO op %d, allocation %lld: %lld blocks live", which,
                          (long long)k, (long long)live);
            ck_assert_msg(same_coo(work, orig), "COO op %d changed its input on failure", which);
            ck_assert_ptr_eq(out, SENTINEL);
            sp_coo_free(work);
        }
        ck_assert_int_ge(k, 1);
    }
    sp_coo_free(orig);
}
END_TEST

/* ---- matrices on a host context -------------------------------------------------------- */

typedef struct mat_run {
    sp_context_t *ctx;
    const sp_coo_t *coo;
    sp_matrix_options_t opt;
    sp_matrix_t *A;     /* create: the result; build and spmv: the matrix */
    sp_format_t format; /* build, spmv */
    const double *x;
    double *y;
    int64_t ny;
    unsigned built_before;
} mat_run_t;

static unsigned built_mask(const sp_matrix_t *A)
{
    sp_matrix_info_t info;
    unsigned m = 0;
    ck_assert_ok(sp_matrix_info(A, &info));
    for (int f = 0; f < SP_FORMAT_COUNT; f++)
        if (info.bytes[f] > 0 || (f == SP_FORMAT_COO)) m |= 1u << f;
    return m;
}

static sp_status_t create_op(void *arg)
{
    mat_run_t *r = arg;
    r->A = (sp_matrix_t *)SENTINEL;
    sp_status_t st = sp_matrix_create(r->ctx, r->coo, &r->opt, &r->A);
    if (st == SP_STATUS_SUCCESS) sp_matrix_destroy(r->A);
    return st;
}

static void create_untouched(void *arg)
{
    mat_run_t *r = arg;
    ck_assert_ptr_eq(r->A, (sp_matrix_t *)SENTINEL);
    ck_assert_str_eq(sp_context_last_error(r->ctx), sp_last_error());
}

static sp_status_t build_op(void *arg)
{
    mat_run_t *r = arg;
    return sp_matrix_build(r->ctx, r->A, r->format);
}

static void build_untouched(void *arg)
{
    mat_run_t *r = arg;
    ck_assert_uint_eq(built_mask(r->A), r->built_before);
}

static sp_status_t spmv_op(void *arg)
{
    mat_run_t *r = arg;
    const double alpha = 2.0, beta = 0.5;
    for (int64_t i = 0; i < r->ny; i++) r->y[i] = (double)i;
    return sp_spmv(r->ctx, r->format, SP_SPMV_ALG_DEFAULT, &alpha, r->A, r->x, &beta, r->y);
}

static void spmv_untouched(void *arg)
{
    mat_run_t *r = arg;
    for (int64_t i = 0; i < r->ny; i++) ck_assert_double_eq(r->y[i], (double)i);
    build_untouched(arg);
}

START_TEST(host_matrices)
{
    sp_context_t *ctx = NULL;
    sp_coo_t *coo = sp_test_random_coo(8, 120, 90, 1500, SP_R_64F,
                                       SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS | SP_TEST_LONG_ROW);
    ck_assert_ptr_nonnull(coo);
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    mat_run_t r = {ctx, coo, {.ell_max_bytes = (int64_t)1 << 30, .sell_c = 4, .sell_sigma = 16},
                   NULL, SP_FORMAT_COO, NULL, NULL, 0, 0};
    sweep("sp_matrix_create", create_op, create_untouched, &r);

    /* context creation: the host context is one block */
    sp_context_t *c = (sp_context_t *)SENTINEL;
    sp_test_fail_allocations_after(0);
    ck_assert_status(sp_context_create(SP_DEVICE_HOST, NULL, &c), SP_STATUS_ALLOC_FAILED);
    sp_test_restore_allocator();
    ck_assert_ptr_eq(c, (sp_context_t *)SENTINEL);

    /* each format from a matrix with CSR built (CSR itself from the bare COO) */
    for (int f = SP_FORMAT_CSR; f < SP_FORMAT_COUNT; f++) {
        ck_assert_ok(sp_matrix_create(ctx, coo, &r.opt, &r.A));
        if (f != SP_FORMAT_CSR) ck_assert_ok(sp_matrix_build(ctx, r.A, SP_FORMAT_CSR));
        r.format = (sp_format_t)f;
        r.built_before = built_mask(r.A);
        sweep(sp_format_name((sp_format_t)f), build_op, build_untouched, &r);
        ck_assert_uint_eq(built_mask(r.A), r.built_before | (1u << f));
        sp_matrix_destroy(r.A);
    }

    /* SpMV that builds its format first: y untouched on failure */
    double *x = calloc(90, sizeof *x), *y = calloc(120, sizeof *y);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    for (int i = 0; i < 90; i++) x[i] = 1.0 / (i + 1);
    r.x = x;
    r.y = y;
    r.ny = 120;
    /* (AUTO picks CSR here, already built: nothing to sweep, so JDS stands in for it) */
    const sp_format_t formats[] = {SP_FORMAT_JDS, SP_FORMAT_CSC, SP_FORMAT_HYB, SP_FORMAT_SELL};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        ck_assert_ok(sp_matrix_create(ctx, coo, &r.opt, &r.A));
        ck_assert_ok(sp_matrix_build(ctx, r.A, SP_FORMAT_CSR));
        r.format = formats[i];
        r.built_before = built_mask(r.A);
        sweep("sp_spmv", spmv_op, spmv_untouched, &r);
        sp_matrix_destroy(r.A);
    }
    free(y);
    free(x);
    sp_context_destroy(ctx);
    sp_coo_free(coo);
}
END_TEST

/* ---- BFS and solvers on a host context ------------------------------------------------ */

typedef struct bfs_run {
    sp_context_t *ctx;
    const sp_coo_t *coo;
    int64_t sources[3];
    int32_t *level, *parent;
    int64_t n;
} bfs_run_t;

/* A fresh matrix each run, so the CSR build inside sp_bfs_multi is swept too. */
static sp_status_t bfs_op(void *arg)
{
    bfs_run_t *r = arg;
    sp_matrix_t *G = NULL;
    sp_status_t st = sp_matrix_create(r->ctx, r->coo, NULL, &G);
    if (st == SP_STATUS_SUCCESS)
        st = sp_bfs_multi(r->ctx, G, 3, r->sources, NULL, r->level, r->parent, NULL);
    sp_matrix_destroy(G);
    return st;
}

static void bfs_untouched(void *arg)
{
    bfs_run_t *r = arg;
    for (int64_t i = 0; i < 3 * r->n; i++) {
        ck_assert_int_eq(r->level[i], 77);
        ck_assert_int_eq(r->parent[i], 77);
    }
}

typedef struct solve_run {
    sp_context_t *ctx;
    sp_matrix_t *A;
    sp_solver_type_t type;
    sp_vector_t *b, *x;
    double *h_x;
    int64_t n;
    const sp_solver_options_t *opt; /* NULL: the defaults */
} solve_run_t;

/* create -> setup -> solve -> destroy; the initial guess x is the output. */
static sp_status_t solve_op(void *arg)
{
    solve_run_t *r = arg;
    sp_solver_t *s = NULL;
    sp_status_t st = sp_solver_create(r->ctx, r->type, &s);
    if (st == SP_STATUS_SUCCESS) st = sp_solver_set_options(s, r->opt);
    if (st == SP_STATUS_SUCCESS) st = sp_solver_setup(s, r->A);
    if (st == SP_STATUS_SUCCESS) st = sp_solver_solve(s, r->b, r->x);
    if (st == SP_STATUS_SUCCESS) {
        sp_solver_result_t res;
        ck_assert_ok(sp_solver_result(s, &res));
        ck_assert_int_eq(res.status, SP_SOLVER_CONVERGED);
    }
    sp_solver_destroy(s);
    return st;
}

static void solve_untouched(void *arg)
{
    solve_run_t *r = arg;
    ck_assert_ok(sp_vector_copy_to_host(r->ctx, r->x, r->h_x));
    for (int64_t i = 0; i < r->n; i++) ck_assert_double_eq(r->h_x[i], 0.0);
}

START_TEST(bfs_and_solvers)
{
    sp_context_t *ctx = NULL;
    sp_coo_t *g = NULL, *p = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_gen_grid2d(12, SP_VALUE_NONE, &g));
    bfs_run_t br = {ctx, g, {0, 17, 143}, NULL, NULL, g->nrows};
    br.level = malloc((size_t)(3 * br.n) * sizeof *br.level);
    br.parent = malloc((size_t)(3 * br.n) * sizeof *br.parent);
    ck_assert_ptr_nonnull(br.level);
    ck_assert_ptr_nonnull(br.parent);
    for (int64_t i = 0; i < 3 * br.n; i++) br.level[i] = br.parent[i] = 77;
    sweep("sp_bfs_multi", bfs_op, bfs_untouched, &br);
    ck_assert_int_eq(br.level[0], 0);
    ck_assert_int_eq(br.level[br.n + 17], 0);
    free(br.parent);
    free(br.level);

    ck_assert_ok(sp_gen_poisson3d(5, SP_R_64F, &p));
    solve_run_t sr = {ctx, NULL, SP_SOLVER_CG, NULL, NULL, NULL, p->nrows, NULL};
    ck_assert_ok(sp_matrix_create(ctx, p, NULL, &sr.A));
    ck_assert_ok(sp_vector_create(ctx, SP_R_64F, sr.n, NULL, &sr.b));
    ck_assert_ok(sp_vector_fill(ctx, sr.b, 1.0));
    sr.h_x = malloc((size_t)sr.n * sizeof *sr.h_x);
    ck_assert_ptr_nonnull(sr.h_x);
    const sp_solver_type_t types[] = {SP_SOLVER_CG, SP_SOLVER_PCG_JACOBI, SP_SOLVER_PCG_SGS,
                                      SP_SOLVER_BICGSTAB};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        sr.type = types[i];
        ck_assert_ok(sp_vector_create(ctx, SP_R_64F, sr.n, NULL, &sr.x));
        char what[32];
        snprintf(what, sizeof what, "solver type %d", (int)types[i]);
        sweep(what, solve_op, solve_untouched, &sr);
        sp_vector_destroy(sr.x);
    }
    /* the fused forms: device loop (CG, PCG-Jacobi, BiCGSTAB) and pipelined CG */
    const sp_solver_options_t device = {.loop = SP_SOLVER_LOOP_DEVICE, .check_every = 3};
    const sp_solver_options_t pipelined = {.pipelined = 1};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (types[i] == SP_SOLVER_PCG_SGS) continue;
        for (int o = 0; o < 2; o++) {
            if (o == 1 && types[i] == SP_SOLVER_BICGSTAB) continue;
            sr.type = types[i];
            sr.opt = o ? &pipelined : &device;
            ck_assert_ok(sp_vector_create(ctx, SP_R_64F, sr.n, NULL, &sr.x));
            char what[48];
            snprintf(what, sizeof what, "solver type %d, %s", (int)types[i],
                     o ? "pipelined" : "device loop");
            sweep(what, solve_op, solve_untouched, &sr);
            sp_vector_destroy(sr.x);
        }
    }
    sr.opt = NULL;
    free(sr.h_x);
    sp_vector_destroy(sr.b);
    sp_matrix_destroy(sr.A);
    sp_coo_free(p);
    sp_coo_free(g);
    sp_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alloc_sweep");
    TCase *tc = tcase_create("sweep");
    tcase_add_checked_fixture(tc, sp_test_temp_setup, sp_test_temp_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, edgelist_readers);
    tcase_add_test(tc, mtx_reader_datasets);
    tcase_add_test(tc, cache_load_and_save);
    tcase_add_test(tc, mtx_writer);
    tcase_add_test(tc, generators);
    tcase_add_test(tc, coo_operations);
    tcase_add_test(tc, host_matrices);
    tcase_add_test(tc, bfs_and_solvers);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
