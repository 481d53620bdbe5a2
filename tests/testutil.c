#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdtemp, opendir */
#endif
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_api.h" /* sp__test_set_default_offset_bits */
#include "sp_ref.h"

const char *sp_test_path(const char *relative)
{
    static char buffers[8][4096];
    static int next;
    const char *root = getenv("SP_SOURCE_DIR");
    char *b = buffers[next++ % 8];
    snprintf(b, sizeof buffers[0], "%s/%s", root ? root : SP_SOURCE_DIR, relative);
    return b;
}

/* Runs every test of runner (or CK_RUN_CASE's case), frees it, and gives the exit status:
 * a failure also when CK_RUN_CASE names no case (a misspelt name would pass, nothing run). */
static int run_all(SRunner *runner)
{
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner), ran = srunner_ntests_run(runner);
    srunner_free(runner);
    const char *only = getenv("CK_RUN_CASE");
    if (ran == 0 && only != NULL) {
        printf("CK_RUN_CASE=%s: no such case in this suite, no test ran\n", only);
        return EXIT_FAILURE;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int sp_test_default_offset_bits(void)
{
    const char *s = getenv("SP_TEST_OFFSET_BITS");
    if (s == NULL || *s == '\0' || strcmp(s, "32") == 0) return 32;
    return strcmp(s, "64") == 0 ? 64 : -1;
}

/* SP_TEST_OFFSET_BITS taken: the default width set for every matrix the run makes (host
 * and CUDA contexts), or -1 (suite freed) for a value that is not 32 or 64. */
static int take_offset_bits(Suite *suite)
{
    int bits = sp_test_default_offset_bits();
    if (bits < 0) {
        printf("SP_TEST_OFFSET_BITS=%s: not 32 or 64, no test ran\n",
               getenv("SP_TEST_OFFSET_BITS"));
        srunner_free(srunner_create(suite)); /* frees the suite */
        return -1;
    }
    if (bits == 64)
        printf("SP_TEST_OFFSET_BITS=64: matrices default to 64-bit offsets (host and CUDA)\n");
    sp__test_set_default_offset_bits(bits); /* before the fork: every test inherits it */
    return bits;
}

int sp_test_run(Suite *suite)
{
    if (take_offset_bits(suite) < 0) return EXIT_FAILURE;
    SRunner *runner = srunner_create(suite);
    return run_all(runner);
}

int sp_test_run_gpu(Suite *suite)
{
    sp_context_t *ctx = NULL;
    sp_status_t st = sp_context_create(SP_DEVICE_CUDA, NULL, &ctx);
    if (st != SP_STATUS_SUCCESS) {
        printf("no usable GPU (%s: %s): skipping\n", sp_status_string(st), sp_last_error());
        srunner_free(srunner_create(suite)); /* frees the suite */
        return 77;
    }
    sp_context_destroy(ctx);
    if (take_offset_bits(suite) < 0) return EXIT_FAILURE;
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_NOFORK);
    return run_all(runner);
}

TCase *sp_test_add_case(Suite *s, const char *name, void (*setup)(void), void (*teardown)(void))
{
    TCase *t = tcase_create(name);
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 600);
    suite_add_tcase(s, t);
    return t;
}

int sp_test_small(void)
{
    const char *s = getenv("SP_TEST_SMALL");
    return s != NULL && atoi(s) != 0;
}

int sp_test_under_sanitizer(void)
{
    const char *s = getenv("SP_TEST_UNDER_SANITIZER");
    return s != NULL && atoi(s) != 0;
}

int sp_test_skip_graph_loop(void)
{
    static int said;
    const char *s = getenv("SP_TEST_SANITIZER_TOOL");
    if (s == NULL || strcmp(s, "racecheck") != 0) return 0;
    if (!said)
        printf("tests: the graph level loop is left out under racecheck, which crashes on "
               "CUDA graphs with a while node (scripts/sanitizer-while-graph.cu)\n");
    said = 1;
    return 1;
}

void sp_test_gpu_host_contexts(sp_context_t **gpu, sp_context_t **host)
{
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, gpu));
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, host));
}

void sp_test_gpu_host_contexts_destroy(sp_context_t **gpu, sp_context_t **host)
{
    sp_context_destroy(*host);
    sp_context_destroy(*gpu);
    *host = *gpu = NULL;
}

uint64_t sp_test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double sp_test_uniform(uint64_t *state) { return (sp_test_rand(state) >> 11) * 0x1.0p-53; }

sp_coo_t *sp_test_random_coo(uint64_t seed, int64_t nrows, int64_t ncols, int64_t nnz,
                             sp_value_type_t type, unsigned features)
{
    sp_coo_t *a = NULL;
    uint64_t s = seed;
    if (nrows == 0 || ncols == 0) nnz = 0;
    if (sp_coo_create(nrows, ncols, nnz, type, &a) != SP_STATUS_SUCCESS) return NULL;
    int64_t long_row = nrows > 0 ? (int64_t)(sp_test_rand(&s) % (uint64_t)nrows) : 0;
    for (int64_t k = 0; k < nnz; k++) {
        int64_t r, c;
        if ((features & SP_TEST_DUPLICATES) && k > 0 && sp_test_rand(&s) % 8 == 0) {
            int64_t j = (int64_t)(sp_test_rand(&s) % (uint64_t)k);
            r = a->row[j];
            c = a->col[j];
        } else {
            if ((features & SP_TEST_LONG_ROW) && sp_test_rand(&s) % 3 == 0)
                r = long_row;
            else
                r = (int64_t)(sp_test_rand(&s) % (uint64_t)nrows);
            if ((features & SP_TEST_EMPTY_ROWS) && r % 3 == 1 && r != long_row)
                r = (r + 1) % nrows;
            c = (int64_t)(sp_test_rand(&s) % (uint64_t)ncols);
            if ((features & SP_TEST_EMPTY_COLS) && ncols > 1) c &= ~(int64_t)1;
        }
        a->row[k] = (int32_t)r;
        a->col[k] = (int32_t)c;
        double v = 2.0 * sp_test_uniform(&s) - 1.0;
        if (type == SP_R_32F) ((float *)a->val)[k] = (float)v;
        if (type == SP_R_64F) ((double *)a->val)[k] = v;
    }
    a->nnz = nnz;
    return a;
}

sp_coo_t *sp_test_offsets64_matrix(int i)
{
    const unsigned all = SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS | SP_TEST_LONG_ROW;
    sp_coo_t *a = NULL;
    switch (i) {
    case 0: ck_assert_ok(sp_gen_poisson3d(14, SP_R_64F, &a)); return a;
    case 1: ck_assert_ok(sp_gen_poisson2d(40, SP_R_32F, &a)); return a;
    case 2: return sp_test_random_coo(11, 3000, 3000, 40000, SP_R_64F, all);
    case 3: return sp_test_random_coo(12, 3000, 3000, 40000, SP_R_32F, all);
    case 4:
        return sp_test_random_coo(13, 2000, 2000, 9000, SP_R_64F,
                                  SP_TEST_EMPTY_ROWS | SP_TEST_EMPTY_COLS);
    case 5: /* more rows than entries: csr DEFAULT takes merge at 32 bits */
        return sp_test_random_coo(14, 60000, 500, 3000, SP_R_64F, SP_TEST_EMPTY_ROWS);
    case 6: return sp_test_random_coo(21, 700, 2311, 12000, SP_R_64F, SP_TEST_DUPLICATES);
    case 7: return sp_test_random_coo(22, 2311, 700, 12000, SP_R_32F, SP_TEST_EMPTY_ROWS);
    case 8: return sp_test_random_coo(23, 50, 80, 0, SP_R_64F, 0);
    default: return NULL;
    }
}

sp_matrix_t *sp_test_matrix_bound(sp_context_t *on, const sp_coo_t *coo, int bits,
                                  int64_t bound)
{
    sp_matrix_options_t o = {0};
    sp_matrix_t *A = NULL;
    o.offset_bits = bits;
    o.long_row_bound = bound;
    ck_assert_ok(sp_matrix_create(on, coo, &o, &A));
    return A;
}

void sp_test_same_array(const void *a, const void *b, int64_t n, size_t size, const char *what)
{
    if (n <= 0 || size == 0) return;
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(memcmp(a, b, (size_t)n * size) == 0, "%s: the 32- and 64-bit matrices differ",
                  what);
}

int64_t sp_test_view_pointer(const sp_format_view_t *v, sp_format_t f, int64_t i)
{
    const int32_t *p32 = f == SP_FORMAT_CSR ? v->csr.row_ptr : v->csc.col_ptr;
    const int64_t *p64 = f == SP_FORMAT_CSR ? v->row_ptr64 : v->col_ptr64;
    ck_assert_msg((p32 == NULL) != (p64 == NULL), "view of %s: not exactly one pointer array",
                  sp_format_name(f));
    return p64 ? p64[i] : p32[i];
}

void sp_test_dense_spmv(const sp_coo_t *a, double alpha, const double *x, double beta,
                        double *y)
{
    for (int64_t i = 0; i < a->nrows; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    for (int64_t k = 0; k < a->nnz; k++) {
        double v = 1.0;
        if (a->value_type == SP_R_32F) v = ((const float *)a->val)[k];
        if (a->value_type == SP_R_64F) v = ((const double *)a->val)[k];
        y[a->row[k]] += alpha * v * x[a->col[k]];
    }
}

/* Counts of the failing allocator; atomic because the parallel loaders allocate from
 * several threads. */
static atomic_llong g_fail_from = -1, g_requests, g_live;
static atomic_ullong g_max_bytes = ~0ull; /* requests above it fail */

static int next_request_fails(size_t bytes)
{
    long long n = atomic_fetch_add(&g_requests, 1);
    long long k = atomic_load(&g_fail_from);
    return (k >= 0 && n >= k) || bytes > atomic_load(&g_max_bytes);
}

static void *counting_alloc(size_t bytes, void *user)
{
    (void)user;
    if (next_request_fails(bytes)) return NULL;
    void *p = malloc(bytes);
    if (p) atomic_fetch_add(&g_live, 1);
    return p;
}

static void *counting_realloc(void *ptr, size_t bytes, void *user)
{
    (void)user;
    if (next_request_fails(bytes)) return NULL;
    void *p = realloc(ptr, bytes);
    if (p && !ptr) atomic_fetch_add(&g_live, 1);
    return p;
}

static void counting_free(void *ptr, void *user)
{
    (void)user;
    if (ptr) atomic_fetch_sub(&g_live, 1);
    free(ptr);
}

void sp_test_fail_allocations_after(int64_t k)
{
    static const sp_allocator_t counting = {counting_alloc, counting_realloc, counting_free,
                                            NULL};
    atomic_store(&g_fail_from, k);
    atomic_store(&g_max_bytes, ~0ull);
    atomic_store(&g_requests, 0);
    atomic_store(&g_live, 0);
    sp_set_host_allocator(&counting);
}

void sp_test_fail_allocations_above(size_t max_bytes)
{
    sp_test_fail_allocations_after(-1);
    atomic_store(&g_max_bytes, (unsigned long long)max_bytes);
}

int64_t sp_test_allocations(void) { return atomic_load(&g_requests); }

int64_t sp_test_live_allocations(void) { return atomic_load(&g_live); }

void sp_test_restore_allocator(void) { sp_set_host_allocator(NULL); }

sp_status_t sp_test_fail_each_allocation(const char *what, sp_status_t (*op)(void *arg),
                                         void (*check)(void *arg), void *arg,
                                         int64_t *failing_runs)
{
    sp_status_t st;
    int64_t k = 0;
    for (;; k++) {
        sp_test_fail_allocations_after(k);
        st = op(arg);
        sp_test_restore_allocator();
        if (sp_test_allocations() <= k) break; /* nothing failed: the normal result */
        ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "%s, failing allocation %lld: %s (%s)",
                      what, (long long)k, sp_status_string(st), sp_last_error());
        ck_assert_msg(sp_test_live_allocations() == 0,
                      "%s, failing allocation %lld: %lld blocks leaked", what, (long long)k,
                      (long long)sp_test_live_allocations());
        if (check) check(arg);
    }
    if (failing_runs) *failing_runs = k;
    return st;
}

const char *sp_test_make_temp_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/sp_test_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

void sp_test_remove_temp_dir(const char *dir)
{
    char path[4096];
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    for (struct dirent *f; (f = readdir(d)) != NULL;) {
        if (strcmp(f->d_name, ".") == 0 || strcmp(f->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
        ck_assert_msg(unlink(path) == 0, "cannot remove %s", path);
    }
    closedir(d);
    ck_assert_msg(rmdir(dir) == 0, "cannot remove %s", dir);
}

static const char *g_temp_dir;

void sp_test_temp_setup(void) { g_temp_dir = sp_test_make_temp_dir(); }

void sp_test_temp_teardown(void) { sp_test_remove_temp_dir(g_temp_dir); }

const char *sp_test_temp_dir(void) { return g_temp_dir; }

char *sp_test_temp_path(const char *name)
{
    static char buf[8][512];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", g_temp_dir, name);
    return b;
}

/* ---- small systems for the solver suites ------------------------------------------ */

static void coo_push(sp_coo_t *a, int64_t r, int64_t c, double v)
{
    ck_assert_int_lt(a->nnz, a->capacity);
    a->row[a->nnz] = (int32_t)r;
    a->col[a->nnz] = (int32_t)c;
    if (a->value_type == SP_R_32F) ((float *)a->val)[a->nnz] = (float)v;
    else ((double *)a->val)[a->nnz] = v;
    a->nnz++;
}

sp_coo_t *sp_test_dense_coo(int64_t n, const double *a, sp_value_type_t t)
{
    sp_coo_t *coo = NULL;
    ck_assert_ok(sp_coo_create(n, n, n * n, t, &coo));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            if (a[i * n + j] != 0.0 || a[i * n + j] != a[i * n + j]) coo_push(coo, i, j, a[i * n + j]);
    return coo;
}

sp_coo_t *sp_test_convection_diffusion(int64_t n, double c, sp_value_type_t t)
{
    sp_coo_t *coo = NULL;
    ck_assert_ok(sp_coo_create(n * n, n * n, 5 * n * n, t, &coo));
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++) {
            int64_t r = y * n + x;
            if (y > 0) coo_push(coo, r, r - n, -1.0);
            if (x > 0) coo_push(coo, r, r - 1, -1.0 - c);
            coo_push(coo, r, r, 4.0);
            if (x < n - 1) coo_push(coo, r, r + 1, -1.0 + c);
            if (y < n - 1) coo_push(coo, r, r + n, -1.0);
        }
    return coo;
}

sp_coo_t *sp_test_scaled_laplacian(int64_t n, double decades)
{
    sp_coo_t *coo = NULL;
    ck_assert_ok(sp_coo_create(n, n, 3 * n, SP_R_64F, &coo));
    for (int64_t i = 0; i < n; i++) {
        double si = pow(10.0, decades * (double)i / (double)(n - 1));
        for (int64_t j = i - 1; j <= i + 1; j++) {
            if (j < 0 || j >= n) continue;
            double sj = pow(10.0, decades * (double)j / (double)(n - 1));
            coo_push(coo, i, j, si * sj * (i == j ? 2.0 : -1.0));
        }
    }
    return coo;
}

int sp_test_each_dataset(int most, int (*use)(const char *name, sp_coo_t *a, void *arg),
                         void *arg)
{
    char dir[1024];
    struct dirent *e;
    sp_mtx_options_t opt = {0};
    int used = 0;
    opt.complex_mode = SP_COMPLEX_REAL_PART; /* young1c is complex */
    snprintf(dir, sizeof dir, "%s", sp_test_path("datasets/mtx"));
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        char path[2048];
        sp_coo_t *a = NULL;
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0) continue;
        if (most >= 0 && used == most) break;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ck_assert_ok(sp_mtx_read(path, SP_R_64F, &opt, &a));
        used += use(e->d_name, a, arg);
        sp_coo_free(a);
    }
    closedir(d);
    return used;
}

static int compare_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int sp_test_has_edge(const sp_csr_t *g, int32_t u, int32_t v)
{
    size_t len = (size_t)(sp__csr_at(g, u + 1) - sp__csr_at(g, u));
    return len > 0 && bsearch(&v, g->idx + sp__csr_at(g, u), len, sizeof v, compare_i32) != NULL;
}

const sp_test_spmv_combo_t sp_test_spmv_combos[] = {
    {SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT},       {SP_FORMAT_COO, SP_SPMV_ALG_COO_ATOMIC},
    {SP_FORMAT_COO, SP_SPMV_ALG_COO_SEGMENTED}, {SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SCALAR},    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_VECTOR},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE},     {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SPLIT},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_BINNED},    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_ADAPTIVE},
    {SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT},       {SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT},       {SP_FORMAT_SELL, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT},
};
const int sp_test_spmv_ncombos =
    (int)(sizeof sp_test_spmv_combos / sizeof sp_test_spmv_combos[0]);

/* ---- ELL value tables ---------------------------------------------------------------- */

sp_coo_t *sp_test_patterned_coo(int64_t nrows, int64_t per_row, int64_t long_len,
                                const uint64_t *bits, int64_t nbits, int spread,
                                sp_value_type_t type)
{
    sp_coo_t *a = NULL;
    int64_t cap = 0;
    for (int64_t r = 0; r < nrows; r++)
        cap += long_len > 0 && r % 97 == 0 ? long_len : per_row;
    ck_assert_ok(sp_coo_create(nrows, nrows, cap, type, &a));
    for (int64_t r = 0; r < nrows; r++) {
        int64_t len = long_len > 0 && r % 97 == 0 ? long_len : per_row;
        for (int64_t e = 0; e < len; e++) {
            int64_t k = a->nnz++;
            int64_t pick = spread ? (r * per_row + e) % nbits : r * nbits / nrows;
            a->row[k] = (int32_t)r;
            a->col[k] = (int32_t)((r + e) % nrows);
            if (type == SP_R_64F) memcpy((double *)a->val + k, &bits[pick], 8);
            if (type == SP_R_32F) {
                uint32_t w = (uint32_t)bits[pick];
                memcpy((float *)a->val + k, &w, 4);
            }
        }
    }
    return a;
}

int sp_test_check_value_table(const sp_format_view_t *v, int hyb, int expect)
{
    const int32_t *col = hyb ? v->hyb.ell_col : v->ell.col;
    const unsigned char *val = hyb ? v->hyb.ell_val : v->ell.val;
    const unsigned char *code = hyb ? v->hyb.ell_code : v->ell.code;
    const unsigned char *table = hyb ? v->hyb.ell_table : v->ell.table;
    int ntable = hyb ? v->hyb.ell_ntable : v->ell.ntable;
    int64_t slots = v->nrows * (hyb ? v->hyb.ell_width : v->ell.width);
    size_t vs = sp_value_size(v->value_type);
    if (expect >= 0) ck_assert_int_eq(ntable, expect);
    if (ntable == 0) {
        ck_assert_ptr_null(code);
        ck_assert_ptr_null(table);
        return 0;
    }
    ck_assert(ntable <= 256);
    for (int i = 1; i < ntable; i++) {
        uint64_t lo = 0, hi = 0;
        memcpy(&lo, table + (size_t)(i - 1) * vs, vs); /* little-endian: the low bytes */
        memcpy(&hi, table + (size_t)i * vs, vs);
        ck_assert_msg(lo < hi, "table entries %d and %d are not ascending", i - 1, i);
    }
    for (int64_t s = 0; s < slots; s++) {
        if (col[s] < 0) continue;
        ck_assert_msg(code[s] < ntable, "slot %lld: code %d of %d", (long long)s, code[s],
                      ntable);
        ck_assert_msg(memcmp(val + (size_t)s * vs, table + (size_t)code[s] * vs, vs) == 0,
                      "slot %lld: value and table[%d] differ", (long long)s, code[s]);
    }
    return ntable;
}

sp_matrix_t *sp_test_table_matrix(sp_context_t *ctx, const sp_coo_t *coo, sp_format_t f,
                                  int table)
{
    sp_matrix_t *A = NULL;
    sp__ell_value_table_set(table);
    ck_assert_ok(sp_matrix_create(ctx, coo, NULL, &A));
    ck_assert_ok(sp_matrix_build(ctx, A, f));
    sp__ell_value_table_set(1);
    return A;
}

void sp_test_table_product(sp_context_t *ctx, sp_matrix_t *A, sp_format_t f,
                           const sp_coo_t *coo, void *y)
{
    sp_vector_t *x = NULL, *vy = NULL;
    size_t vs = sp_value_size(coo->value_type);
    void *hx = malloc((size_t)coo->ncols * vs + 1);
    ck_assert_ptr_nonnull(hx);
    for (int64_t i = 0; i < coo->ncols; i++) {
        double v = 1.0 + (double)(i % 7) / 8.0;
        if (vs == 8) ((double *)hx)[i] = v;
        if (vs == 4) ((float *)hx)[i] = (float)v;
    }
    ck_assert_ok(sp_vector_create(ctx, coo->value_type, coo->ncols, hx, &x));
    ck_assert_ok(sp_vector_create(ctx, coo->value_type, coo->nrows, NULL, &vy));
    ck_assert_ok(sp_spmv_vec(ctx, f, SP_SPMV_ALG_DEFAULT, 1.0, A, x, 0.0, vy));
    ck_assert_ok(sp_vector_copy_to_host(ctx, vy, y));
    sp_vector_destroy(vy);
    sp_vector_destroy(x);
    free(hx);
}
