/* GPU sparse triangular solve (kernels/solve/): level scheduling, the soft-synchronized
 * kernels (row flags, value as flag, the wave kernel waiting once per unit on a level
 * counter) and the single-block kernel (x in shared memory; refused with NOT_SUPPORTED
 * where x does not fit, which is checked too), float and double, lower and upper, unit and
 * non-unit, alpha != 1. Every solve is
 * run twice with different right-hand sides into NaN-filled x (a stale or unwritten value
 * shows), checked row by row by its residual against a bound tied to the type and row
 * length, and, on diagonally dominant inputs, against the CPU reference within a bound tied
 * to the type and the dependency path length. The plan's level count is compared with a
 * host count. Inputs: a hand-checked 3x3, the edge-case catalogue (n = 1, rows holding only
 * the diagonal, a dense row, a dense column, random sparse in both row kernels), a chain
 * (n levels), a diagonal (one level), levels interleaved across the rows (about 32 rows
 * wide: the soft solve's level order with rows of two levels in one warp, and just below
 * it the natural order; level scheduling's single-block runs of small levels), 3D Poisson,
 * the bundled square matrices with a full
 * diagonal (their other triangle ignored); refusals (a missing diagonal naming the first
 * such row), a NaN in b with the value kernels' sentinel bits, and every allocation
 * failing in turn without a leak; the public sp_sptrsv_analyse / sp_sptrsv against a host
 * context (AUTO's three paths). SP_TEST_SMALL=1 shrinks
 * the largest inputs. Exits 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "testutil_ref.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "sp_base.h"
#include "sp_kernels_solve.h"
#include "sp_ref.h"
#include "testutil_gpu.h"

#define EPS_FLOAT 1.2e-7
#define EPS_DOUBLE 2.3e-16

/* flags of check_matrix */
#define FORWARD 0x1u /* diagonally dominant: also compare with the reference's x */

/* SOFT_NATURAL: the soft kernel kept in the natural order also where SOFT takes the
 * level order (wide levels), as the benchmark runs it. SOFT_VALUE and SOFT_BLOCK: the
 * value-as-flag kernels (32 rows per warp, 256 per block). */
#define NALGS 7
static const sp_gpu_sptrsv_alg_t algs[NALGS] = {
    SP_GPU_SPTRSV_LEVELS,     SP_GPU_SPTRSV_SOFT,       SP_GPU_SPTRSV_SOFT_NATURAL,
    SP_GPU_SPTRSV_SOFT_VALUE, SP_GPU_SPTRSV_SOFT_BLOCK, SP_GPU_SPTRSV_WAVE,
    SP_GPU_SPTRSV_SMALL};
static const char *const alg_names[8] = {"?",          "levels",     "soft", "soft_natural",
                                         "soft_value", "soft_block", "wave", "small"};

/* Whether alg takes a triangle of n rows of type t (SMALL: x within its shared memory). */
static int alg_takes(sp_gpu_sptrsv_alg_t alg, int64_t n, sp_value_type_t t)
{
    return alg != SP_GPU_SPTRSV_SMALL ||
           (size_t)n * sp_value_size(t) <= SP_GPU_SPTRSV_SMALL_MAX_BYTES;
}

/* cudaMalloc/cudaFree through T.env, counting live blocks, failing on demand */
static sp_test_env_t T;
static int small; /* SP_TEST_SMALL */

static void setup(void)
{
    small = sp_test_small();
    sp_test_env_setup(&T);
}

static void teardown(void)
{
    sp_test_env_teardown(&T);
}

/* ---- matrices --------------------------------------------------------------------------- */

/* The host CSR of a COO in value type t (sorted, duplicates summed). */
static void host_csr(const sp_coo_t *coo, sp_value_type_t t, sp_csr_t *h)
{
    sp_coo_t *b = NULL;
    ck_assert_ok(sp_coo_copy(coo, t, &b));
    ck_assert_ok(sp_coo_sort_merge(b, SP_DUP_SUM, NULL));
    ck_assert_ok(sp_test_coo_to_csr(b, h));
    sp_coo_free(b);
}

static sp_coo_t *coo_new(int64_t n, int64_t cap)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(n, n, cap, SP_R_64F, &a));
    return a;
}

static void coo_push(sp_coo_t *a, int64_t r, int64_t c, double v)
{
    ck_assert_int_lt(a->nnz, a->capacity);
    a->row[a->nnz] = (int32_t)r;
    a->col[a->nnz] = (int32_t)c;
    ((double *)a->val)[a->nnz] = v;
    a->nnz++;
}

/* Adds to every row the diagonal 1 + (sum of |off-diagonal| of the row), sign alternating,
 * so both triangles are diagonally dominant. a needs room for n more entries. */
static void add_dominant_diagonal(sp_coo_t *a)
{
    double *off = calloc((size_t)a->nrows, sizeof *off);
    ck_assert_ptr_nonnull(off);
    for (int64_t k = 0; k < a->nnz; k++) {
        if (a->row[k] != a->col[k])
            off[a->row[k]] += fabs(((double *)a->val)[k]);
        else
            ((double *)a->val)[k] = 0; /* merged with the diagonal below: neutralized */
    }
    for (int64_t r = 0; r < a->nrows; r++) coo_push(a, r, r, (r % 3 == 1 ? -1 : 1) * (1 + off[r]));
    free(off);
}

static double get(const void *v, sp_value_type_t t, int64_t i)
{
    return t == SP_R_32F ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static void put(void *v, sp_value_type_t t, int64_t i, double x)
{
    if (t == SP_R_32F)
        ((float *)v)[i] = (float)x;
    else
        ((double *)v)[i] = x;
}

/* Levels of the triangle counted on the host in ticket order (the test's own count). */
static int64_t host_levels(const sp_csr_t *h, int upper)
{
    int64_t n = h->nrows, most = 0;
    int64_t *level = calloc((size_t)(n > 0 ? n : 1), sizeof *level);
    ck_assert_ptr_nonnull(level);
    for (int64_t i = 0; i < n; i++) {
        int64_t r = upper ? n - 1 - i : i, l = 0;
        for (int64_t k = h->ptr[r]; k < h->ptr[r + 1]; k++) {
            int64_t c = h->idx[k];
            if ((upper ? c > r : c < r) && level[c] > l) l = level[c];
        }
        level[r] = l + 1;
        if (l + 1 > most) most = l + 1;
    }
    free(level);
    return most;
}

/* ---- one solve configuration against the reference ------------------------------------ */

typedef struct solve_case {
    const char *name;
    const sp_csr_t *h, *d;
    int upper, unit;
    unsigned flags;
} solve_case_t;

/* Row by row: |alpha b_r - sum a_rc x_c - d_r x_r| <= 4 eps (len + 3) (sum of magnitudes),
 * x the GPU's own solution; and (FORWARD) max |x - x_ref| <= 16 eps (levels + longest row
 * + 2) max |x_ref|. */
static void check_x(const solve_case_t *c, const char *what, double alpha, const void *b,
                    const void *x, const void *x_ref, int64_t levels)
{
    const sp_csr_t *h = c->h;
    sp_value_type_t t = h->value_type;
    double eps = t == SP_R_32F ? EPS_FLOAT : EPS_DOUBLE, err = 0, xmax = 0;
    int64_t longest = 0;
    for (int64_t r = 0; r < h->nrows; r++) {
        long double res = (long double)alpha * get(b, t, r), mag = fabsl(res), xr = get(x, t, r);
        int64_t len = 1, dpos = -1;
        ck_assert_msg(isfinite((double)xr), "%s: x[%lld] = %g", what, (long long)r, (double)xr);
        for (int64_t k = h->ptr[r]; k < h->ptr[r + 1]; k++) {
            int64_t col = h->idx[k];
            if (col == r) dpos = k;
            if (!(c->upper ? col > r : col < r)) continue;
            long double p = (long double)get(h->val, t, k) * get(x, t, col);
            res -= p;
            mag += fabsl(p);
            len++;
        }
        long double d = c->unit ? 1.0L : (long double)get(h->val, t, dpos);
        res -= d * xr;
        mag += fabsl(d * xr);
        ck_assert_msg(fabsl(res) <= 4 * eps * (double)(len + 3) * mag,
                      "%s: row %lld residual %Lg above the bound for magnitude %Lg", what,
                      (long long)r, fabsl(res), mag);
        if (len > longest) longest = len;
        err = fmax(err, fabs((double)xr - get(x_ref, t, r)));
        xmax = fmax(xmax, fabs(get(x_ref, t, r)));
    }
    if (c->flags & FORWARD)
        ck_assert_msg(err <= 16 * eps * (double)(levels + longest + 2) * xmax,
                      "%s: max |x - x_ref| = %g for max |x_ref| = %g, %lld levels", what, err,
                      xmax, (long long)levels);
}

/* Two solves with plan (different b and alpha) into NaN-filled x, each checked, and the
 * plan's level count. */
static void check_plan(const solve_case_t *c, const char *what, const sp_gpu_sptrsv_plan_t *plan)
{
    const sp_csr_t *h = c->h;
    sp_value_type_t t = h->value_type;
    size_t vs = sp_value_size(t), bytes = (size_t)h->nrows * vs;
    int64_t n = h->nrows, want_levels = host_levels(h, c->upper);
    void *b = malloc(bytes + 8), *x = malloc(bytes + 8), *x_ref = malloc(bytes + 8);
    void *d_b = NULL, *d_x = NULL;
    uint64_t s = 77 + (uint64_t)n;
    ck_assert(b && x && x_ref);
    ck_assert_msg(sp__gpu_sptrsv_plan_levels(plan) == want_levels, "%s: %lld levels, expected %lld",
                  what, (long long)sp__gpu_sptrsv_plan_levels(plan), (long long)want_levels);
    if (n > 0) {
        ck_assert_ok(sp_test_env_alloc(&T, &d_b, bytes));
        ck_assert_ok(sp_test_env_alloc(&T, &d_x, bytes));
    }
    for (int round = 0; round < 2; round++) {
        double alpha = round == 0 ? -1.5 : 0.75;
        float af = (float)alpha;
        const void *alpha_p = t == SP_R_32F ? (const void *)&af : (const void *)&alpha;
        for (int64_t i = 0; i < n; i++) put(b, t, i, 2 * sp_test_uniform(&s) - 1);
        ck_assert_ok(sp__ref_sptrsv(h, c->upper, c->unit, alpha_p, b, x_ref));
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(get(x_ref, t, i)) || fabs(get(x_ref, t, i)) > (vs == 4 ? 1e30 : 1e290))
                goto done; /* the triangle's solution overflows this type: nothing to compare */
        if (n > 0) {
            ck_cuda(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
            ck_cuda(cudaMemset(d_x, 0xff, bytes)); /* NaN in both types */
        }
        ck_assert_msg(sp__gpu_sptrsv_solve(&T.env, plan, c->d, alpha_p, d_b, d_x) ==
                          SP_STATUS_SUCCESS,
                      "%s: solve: %s", what, sp_last_error());
        sp_test_to_host(x, d_x, bytes, T.stream);
        check_x(c, what, t == SP_R_32F ? (double)af : alpha, b, x, x_ref, want_levels);
    }
done:
    sp_test_env_free(&T, d_x);
    sp_test_env_free(&T, d_b);
    free(x_ref);
    free(x);
    free(b);
}

/* Analyse, then check_plan. */
static void check_solve(const solve_case_t *c, sp_gpu_sptrsv_alg_t alg)
{
    sp_value_type_t t = c->h->value_type;
    char what[256];
    sp_gpu_sptrsv_plan_t *plan = NULL;
    snprintf(what, sizeof what, "%s %s %s%s %s", c->name, t == SP_R_32F ? "float" : "double",
             c->unit ? "unit " : "", c->upper ? "upper" : "lower", alg_names[alg]);
    if (!alg_takes(alg, c->h->nrows, t)) {
        ck_assert_status(sp__gpu_sptrsv_analyse(&T.env, c->d, c->upper, c->unit, alg, &plan),
                         SP_STATUS_NOT_SUPPORTED);
        ck_assert_error_has("exceed the single-block solve");
        ck_assert_ptr_null(plan);
        return;
    }
    ck_assert_msg(sp__gpu_sptrsv_analyse(&T.env, c->d, c->upper, c->unit, alg, &plan) ==
                      SP_STATUS_SUCCESS,
                  "%s: analyse: %s", what, sp_last_error());
    check_plan(c, what, plan);
    sp__gpu_sptrsv_plan_free(&T.env, plan);
}

/* Both value types, both triangles, unit and not, every algorithm. */
static void check_matrix(const char *name, const sp_coo_t *a, unsigned flags)
{
    const sp_value_type_t types[2] = {SP_R_32F, SP_R_64F};
    for (int ti = 0; ti < 2; ti++) {
        sp_csr_t h = {0};
        host_csr(a, types[ti], &h);
        sp_csr_t d = sp_test_env_upload_csr(&T, &h);
        for (int upper = 0; upper < 2; upper++)
            for (int unit = 0; unit < 2; unit++)
                for (int k = 0; k < NALGS; k++) {
                    solve_case_t c = {name, &h, &d, upper, unit, flags};
                    check_solve(&c, algs[k]);
                }
        sp__gpu_csr_free(&T.env, &d);
        sp__csr_free(&h);
    }
    ck_assert_int_eq(T.live, 0);
}

/* n x n, about per_row random off-diagonal entries per row (values in [-1, 1)), plus a
 * dominant diagonal; features: rows holding only the diagonal, a dense row, a dense column. */
#define ONLY_DIAG_ROWS 0x1u
#define DENSE_ROW 0x2u
#define DENSE_COL 0x4u
static sp_coo_t *random_dominant(uint64_t seed, int64_t n, int per_row, unsigned features)
{
    sp_coo_t *a = coo_new(n, n * (per_row + 3) + 2 * n);
    uint64_t s = seed;
    for (int64_t r = 0; r < n; r++) {
        if ((features & ONLY_DIAG_ROWS) && sp_test_rand(&s) % 3 == 0) continue;
        for (int k = 0; k < per_row; k++)
            coo_push(a, r, (int64_t)(sp_test_rand(&s) % (uint64_t)n), 2 * sp_test_uniform(&s) - 1);
        if (features & DENSE_COL) coo_push(a, r, n / 3, 2 * sp_test_uniform(&s) - 1);
    }
    if (features & DENSE_ROW)
        for (int64_t c = n - 1; c >= 0; c--) coo_push(a, n / 2, c, 2 * sp_test_uniform(&s) - 1);
    add_dominant_diagonal(a);
    return a;
}

/* ---- the tests ------------------------------------------------------------------------- */

START_TEST(test_tiny)
{
    /* A = [2 1 3; 4 5 6; 7 8 10]: (D+L) x = b/2 with b = (1, 7, 26.5) gives x = (1, 2, 3)
     * exactly, and so does (D+U) x = (13, 28, 30) */
    int32_t ptr[] = {0, 3, 6, 9}, idx[] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
    double val[] = {2, 1, 3, 4, 5, 6, 7, 8, 10}, x[3] = {0, 0, 0}, alpha = 2, one = 1;
    const double b_lower[] = {1, 7, 26.5}, b_upper[] = {13, 28, 30};
    sp_csr_t h = {3, 3, 9, SP_R_64F, ptr, idx, val, NULL};
    sp_csr_t d = sp_test_env_upload_csr(&T, &h);
    double *d_b = sp_test_env_upload(&T, b_lower, sizeof b_lower),
           *d_x = sp_test_env_upload(&T, x, sizeof x);
    for (int k = 0; k < NALGS; k++)
        for (int upper = 0; upper < 2; upper++) {
            sp_gpu_sptrsv_plan_t *plan = NULL;
            ck_cuda(cudaMemcpy(d_b, upper ? b_upper : b_lower, sizeof b_lower,
                               cudaMemcpyHostToDevice));
            ck_assert_ok(sp__gpu_sptrsv_analyse(&T.env, &d, upper, 0, algs[k], &plan));
            ck_assert_int_eq(sp__gpu_sptrsv_plan_levels(plan), 3);
            ck_assert_ok(sp__gpu_sptrsv_solve(&T.env, plan, &d, upper ? &one : &alpha, d_b, d_x));
            sp_test_to_host(x, d_x, sizeof x, T.stream);
            for (int i = 0; i < 3; i++)
                ck_assert_msg(x[i] == i + 1, "%s %s: x[%d] = %.17g", alg_names[algs[k]],
                              upper ? "upper" : "lower", i, x[i]);
            sp__gpu_sptrsv_plan_free(&T.env, plan);
        }
    sp_test_env_free(&T, d_x);
    sp_test_env_free(&T, d_b);
    sp__gpu_csr_free(&T.env, &d);
    sp_coo_t *a = coo_new(3, 9);
    for (int r = 0; r < 3; r++)
        for (int k = ptr[r]; k < ptr[r + 1]; k++) coo_push(a, r, idx[k], val[k]);
    check_matrix("tiny 3x3", a, FORWARD);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_empty_and_one)
{
    sp_coo_t *a = coo_new(0, 1);
    check_matrix("0x0", a, FORWARD);
    sp_coo_free(a);
    a = coo_new(1, 1);
    coo_push(a, 0, 0, -2.5);
    check_matrix("1x1", a, FORWARD);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_catalogue)
{
    int64_t n = small ? 2000 : 20000;
    sp_coo_t *a = random_dominant(1, n, 6, ONLY_DIAG_ROWS);
    check_matrix("rows holding only the diagonal", a, FORWARD);
    sp_coo_free(a);
    a = random_dominant(2, n / 4, 4, DENSE_ROW);
    check_matrix("a dense row", a, FORWARD);
    sp_coo_free(a);
    a = random_dominant(3, n / 4, 4, DENSE_COL);
    check_matrix("a dense column", a, FORWARD);
    sp_coo_free(a);
    a = random_dominant(4, n, 8, 0);
    check_matrix("random sparse (thread per row)", a, FORWARD);
    sp_coo_free(a);
    a = random_dominant(5, n / 4, 60, DENSE_ROW);
    check_matrix("random 60 per row and a dense row (warp per row)", a, FORWARD);
    sp_coo_free(a);
    a = random_dominant(6, 3000, 400, 0); /* rows longer than a warp */
    check_matrix("random 400 per row (warp per row)", a, FORWARD);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_chain_and_diagonal)
{
    /* under a sanitizer 2000 rows: still 63 warp units and 8 block units, so every
     * hand-over path (in a unit, across units) runs; 10000 ran past 430 s of racecheck */
    int64_t n = sp_test_under_sanitizer() ? 2000 : small ? 10000 : 100000;
    sp_coo_t *a = coo_new(n, 3 * n); /* tridiagonal: each triangle a chain of n levels */
    for (int64_t r = 0; r < n; r++) {
        if (r > 0) coo_push(a, r, r - 1, -1);
        coo_push(a, r, r, 2.5);
        if (r + 1 < n) coo_push(a, r, r + 1, 0.75);
    }
    check_matrix("chain", a, FORWARD);
    sp_coo_free(a);
    a = coo_new(n, n); /* diagonal: one level */
    for (int64_t r = 0; r < n; r++) coo_push(a, r, r, r % 2 ? 0.5 : -4);
    check_matrix("diagonal", a, FORWARD);
    sp_coo_free(a);
}
END_TEST

/* n rows in nlev levels interleaved across the rows: row r is on level r % nlev (+1), it
 * depends on row r - 1 (the level below) and on a random earlier row of a lower level,
 * mirrored so the upper triangle is interleaved too. With levels about 32 rows wide the
 * soft solve's level order (taken from 32 rows per level on average) puts rows of two
 * levels, one depending on the other, into one warp. */
static sp_coo_t *interleaved_levels(uint64_t seed, int64_t n, int64_t nlev)
{
    sp_coo_t *a = coo_new(n, 5 * n);
    uint64_t s = seed;
    for (int64_t r = 1; r < n; r++) {
        int64_t l = r % nlev, c;
        if (l == 0) continue;
        coo_push(a, r, r - 1, 2 * sp_test_uniform(&s) - 1);
        coo_push(a, r - 1, r, 2 * sp_test_uniform(&s) - 1);
        c = (int64_t)(sp_test_rand(&s) % (uint64_t)r);
        if (c % nlev < l && c != r - 1) {
            coo_push(a, r, c, 2 * sp_test_uniform(&s) - 1);
            coo_push(a, c, r, 2 * sp_test_uniform(&s) - 1);
        }
    }
    add_dominant_diagonal(a);
    return a;
}

START_TEST(test_interleaved_levels)
{
    int64_t n = small ? 3300 : 33000;
    const int64_t widths[3] = {33, 31, 200}; /* level order, natural order, level order */
    for (int i = 0; i < 3; i++) {
        int64_t nlev = n / widths[i];
        sp_coo_t *a = interleaved_levels(10 + (uint64_t)i, n, nlev);
        sp_csr_t h = {0};
        host_csr(a, SP_R_64F, &h);
        ck_assert_int_eq(host_levels(&h, 0), nlev); /* the construction's own count */
        sp__csr_free(&h);
        check_matrix(widths[i] >= 32 ? "interleaved levels (level order)"
                                     : "interleaved levels (natural order)",
                     a, FORWARD);
        sp_coo_free(a);
    }
}
END_TEST

START_TEST(test_poisson)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(small ? 12 : 40, SP_R_64F, &a));
    check_matrix("poisson3d", a, FORWARD);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d27(small ? 8 : 20, SP_R_64F, &a)); /* 13 + 1 per row: warps */
    check_matrix("poisson3d27", a, FORWARD);
    sp_coo_free(a);
}
END_TEST

static int check_dataset(const char *name, sp_coo_t *a, void *arg);

/* The level-merged value solves (kernels/solve/sptrsv_merge.cu) on a, both types and
 * triangles, unit and not, each checked as every solve is, and the dependencies their plans
 * substituted (sp__gpu_sptrsv_plan_merged) between lo[unit] and hi[unit]. */
static void check_merge(const char *name, const sp_coo_t *a, unsigned flags, const int64_t lo[2],
                        const int64_t hi[2])
{
    const sp_gpu_sptrsv_alg_t value_algs[2] = {SP_GPU_SPTRSV_SOFT_VALUE, SP_GPU_SPTRSV_SOFT_BLOCK};
    for (int ti = 0; ti < 2; ti++) {
        sp_csr_t h = {0};
        host_csr(a, ti ? SP_R_64F : SP_R_32F, &h);
        sp_csr_t d = sp_test_env_upload_csr(&T, &h);
        for (int upper = 0; upper < 2; upper++)
            for (int unit = 0; unit < 2; unit++)
                for (int k = 0; k < 2; k++) {
                    solve_case_t c = {name, &h, &d, upper, unit, flags};
                    sp_gpu_sptrsv_plan_t *plan = NULL;
                    char what[200];
                    snprintf(what, sizeof what, "%s %s %s%s %s", name, ti ? "double" : "float",
                             unit ? "unit " : "", upper ? "upper" : "lower",
                             alg_names[value_algs[k]]);
                    ck_assert_msg(sp__gpu_sptrsv_analyse(&T.env, &d, upper, unit, value_algs[k],
                                                         &plan) == SP_STATUS_SUCCESS,
                                  "%s: analyse: %s", what, sp_last_error());
                    /* 64-bit row pointers (SP_TEST_OFFSET_BITS=64) are never merged */
                    int64_t terms = sp__gpu_sptrsv_plan_merged(plan), wide = d.ptr64 != NULL;
                    ck_assert_msg(terms >= (wide ? 0 : lo[unit]) && terms <= (wide ? 0 : hi[unit]),
                                  "%s: %lld dependencies substituted, expected %lld..%lld", what,
                                  (long long)terms, (long long)lo[unit], (long long)hi[unit]);
                    check_plan(&c, what, plan);
                    sp__gpu_sptrsv_plan_free(&T.env, plan);
                }
        sp__gpu_csr_free(&T.env, &d);
        sp__csr_free(&h);
    }
    ck_assert_int_eq(T.live, 0);
}

START_TEST(test_level_merge)
{
    sp_coo_t *a = NULL;
    const int64_t none[2] = {0, 0};
    /* the 2D stencil with its own diagonal (80^2 or 200^2 rows: merged by default): every
     * row of an even level but the first's substitutes (about n / 2 rows, 1-2
     * dependencies each); with a unit one only rows whose dependencies have at most one
     * entry of their own (near the edges) */
    const int64_t n2 = small ? 80 : 200;
    const int64_t lo2[2] = {n2 * n2 / 2, 1}, hi2[2] = {n2 * n2, n2 * n2 / 4};
    ck_assert_ok(sp_gen_poisson2d(n2, SP_R_64F, &a));
    check_merge("poisson2d", a, FORWARD, lo2, hi2);
    sp__gpu_sptrsv_set_merge(0); /* the hook: never */
    check_merge("poisson2d", a, FORWARD, none, none);
    sp__gpu_sptrsv_set_merge(1);
    sp_coo_free(a);
    /* below merge_min_rows (3D 12^3, 1728 rows in the level order) not merged by default;
     * the hook merges anyway: its rows near the faces (2 dependencies of 2 entries) */
    const int64_t lo_s[2] = {1, 0}, hi_s[2] = {1728 / 4, 1728 / 4};
    ck_assert_ok(sp_gen_poisson3d(12, SP_R_64F, &a));
    sp__gpu_sptrsv_set_merge(-1);
    check_merge("poisson3d 12", a, FORWARD, none, none);
    sp__gpu_sptrsv_set_merge(1);
    check_merge("poisson3d 12", a, FORWARD, lo_s, hi_s);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson2d(n2, SP_R_64F, &a));
    /* the 2D stencil with its diagonal shrunk to 1/2: a row's off-diagonal part (1 or 2)
     * outweighs it, so only the rows of level 2, whose one dependency (the corner) has no
     * entry of its own, substitute: 2 dependencies in all */
    for (int64_t k = 0; k < a->nnz; k++)
        if (a->row[k] == a->col[k]) ((double *)a->val)[k] = 0.5;
    const int64_t weak_lo[2] = {2, 1}, weak_hi[2] = {2, n2 * n2 / 4};
    check_merge("poisson2d, weak diagonal", a, 0, weak_lo, weak_hi);
    sp_coo_free(a);
    /* the 3D 7-point stencil: an interior row would substitute 9 entries, past the cap;
     * only rows near the faces (2 dependencies of 2) merge. At 12^3 the faces bring the
     * mean row's dependencies to 2.75 (2.75^2 under twice the cap: counted); at 24^3 to
     * 2.875 (8.3: the plan is not counted at all) */
    const int64_t n3 = small ? 12 : 24, few[2] = {n3 * n3 * n3 / 4, n3 * n3 * n3 / 4};
    ck_assert_ok(sp_gen_poisson3d(n3, SP_R_64F, &a));
    check_merge("poisson3d", a, FORWARD, none, few);
    sp_coo_free(a);
    /* a 27-point stencil (16^3: the level order): 13 dependencies a row, which the
     * warp-per-row kernel takes, never merged */
    ck_assert_ok(sp_gen_poisson3d27(16, SP_R_64F, &a));
    check_merge("poisson3d27", a, FORWARD, none, none);
    sp_coo_free(a);
    /* every algorithm on the bundled matrices, the value solves merged where they qualify */
    ck_assert_int_ge(sp_test_each_dataset(small ? 3 : -1, check_dataset, NULL), small ? 1 : 3);
    sp__gpu_sptrsv_set_merge(-1);
}
END_TEST

/* Square, and every row stores a non-zero diagonal. */
static int full_diagonal(const sp_coo_t *coo)
{
    sp_csr_t h = {0};
    int ok = coo->nrows == coo->ncols && coo->value_type != SP_VALUE_NONE;
    if (!ok) return 0;
    host_csr(coo, SP_R_64F, &h);
    for (int64_t r = 0; r < h.nrows && ok; r++) {
        int found = 0;
        for (int64_t k = h.ptr[r]; k < h.ptr[r + 1]; k++)
            if (h.idx[k] == r && ((double *)h.val)[k] != 0) found = 1;
        ok = found;
    }
    sp__csr_free(&h);
    return ok;
}

static int check_dataset(const char *name, sp_coo_t *a, void *arg)
{
    (void)arg;
    if (!full_diagonal(a)) return 0;
    check_matrix(name, a, 0); /* not dominant: residual checks only */
    return 1;
}

START_TEST(test_datasets)
{
    int used = sp_test_each_dataset(small ? 3 : -1, check_dataset, NULL);
    ck_assert_int_ge(used, small ? 1 : 3);
}
END_TEST

START_TEST(test_missing_diagonal)
{
    int64_t n = small ? 3000 : 50000;
    sp_coo_t *a = coo_new(n, 3 * n);
    sp_csr_t h = {0};
    for (int64_t r = 0; r < n; r++) {
        if (r > 0) coo_push(a, r, r - 1, 1);
        if (r == 4321 % n || r == 777) continue; /* no diagonal: the first, 777, is named */
        coo_push(a, r, r, r == 1500 ? 0.0 : 2.0); /* a stored zero is no diagonal either */
    }
    host_csr(a, SP_R_64F, &h);
    sp_csr_t d = sp_test_env_upload_csr(&T, &h);
    for (int k = 0; k < NALGS; k++)
        for (int upper = 0; upper < 2 && alg_takes(algs[k], n, SP_R_64F); upper++) {
            sp_gpu_sptrsv_plan_t *plan = (sp_gpu_sptrsv_plan_t *)&h; /* must stay untouched */
            ck_assert_status(sp__gpu_sptrsv_analyse(&T.env, &d, upper, 0, algs[k], &plan),
                             SP_STATUS_INVALID_ARGUMENT);
            ck_assert_error_has("row 777 has no non-zero diagonal entry");
            ck_assert_ptr_eq(plan, (sp_gpu_sptrsv_plan_t *)&h);
            ck_assert_int_eq(T.live, 3);
            ck_assert_ok(sp__gpu_sptrsv_analyse(&T.env, &d, upper, 1, algs[k], &plan));
            sp__gpu_sptrsv_plan_free(&T.env, plan);
        }
    sp__gpu_csr_free(&T.env, &d);
    sp__csr_free(&h);
    sp_coo_free(a);
    /* the zero at row 1500 alone */
    a = coo_new(2000, 2000);
    for (int64_t r = 0; r < 2000; r++) coo_push(a, r, r, r == 1500 ? 0.0 : 1.0);
    host_csr(a, SP_R_32F, &h);
    d = sp_test_env_upload_csr(&T, &h);
    sp_gpu_sptrsv_plan_t *plan = NULL;
    ck_assert_status(sp__gpu_sptrsv_analyse(&T.env, &d, 0, 0, SP_GPU_SPTRSV_SOFT, &plan),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row 1500 has no non-zero diagonal entry");
    ck_assert_ptr_null(plan);
    sp__gpu_csr_free(&T.env, &d);
    sp__csr_free(&h);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_repeated_solves)
{
    /* many solves on one plan: every solve's flags must start unset (epochs) */
    sp_coo_t *a = NULL;
    sp_csr_t h = {0};
    ck_assert_ok(sp_gen_poisson2d(small ? 60 : 300, SP_R_64F, &a));
    host_csr(a, SP_R_64F, &h);
    sp_csr_t d = sp_test_env_upload_csr(&T, &h);
    int64_t n = h.nrows;
    size_t bytes = (size_t)n * 8;
    double *b = malloc(bytes), *x = malloc(bytes), *x_ref = malloc(bytes);
    void *d_b = NULL, *d_x = NULL;
    uint64_t s = 3;
    ck_assert(b && x && x_ref);
    ck_assert_ok(sp_test_env_alloc(&T, &d_b, bytes));
    ck_assert_ok(sp_test_env_alloc(&T, &d_x, bytes));
    for (int k = 0; k < NALGS; k++) {
        sp_gpu_sptrsv_plan_t *plan = NULL;
        if (!alg_takes(algs[k], n, SP_R_64F)) continue;
        ck_assert_ok(sp__gpu_sptrsv_analyse(&T.env, &d, 0, 0, algs[k], &plan));
        for (int round = 0; round < 12; round++) {
            double alpha = 1.0 + round;
            for (int64_t i = 0; i < n; i++) b[i] = sp_test_uniform(&s) - 0.5;
            ck_assert_ok(sp__ref_sptrsv(&h, 0, 0, &alpha, b, x_ref));
            ck_cuda(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
            if (round % 2) ck_cuda(cudaMemset(d_x, 0xff, bytes)); /* else last round's x */
            ck_assert_ok(sp__gpu_sptrsv_solve(&T.env, plan, &d, &alpha, d_b, d_x));
            sp_test_to_host(x, d_x, bytes, T.stream);
            for (int64_t i = 0; i < n; i++)
                ck_assert_msg(fabs(x[i] - x_ref[i]) <= 1e-12 * (1 + fabs(x_ref[i])),
                              "%s round %d: x[%lld] = %g, expected %g", alg_names[algs[k]], round,
                              (long long)i, x[i], x_ref[i]);
        }
        sp__gpu_sptrsv_plan_free(&T.env, plan);
    }
    sp_test_env_free(&T, d_x);
    sp_test_env_free(&T, d_b);
    free(x_ref);
    free(x);
    free(b);
    sp__gpu_csr_free(&T.env, &d);
    sp__csr_free(&h);
    sp_coo_free(a);
}
END_TEST

/* A NaN in b with the value kernels' sentinel bits (all set): the rows it reaches are NaN,
 * no row waits forever on it, and the published x never holds the sentinel. Every kernel
 * shape: thread per row (a chain, the wide diagonal) and warp per row (dense rows). */
START_TEST(test_sentinel_result)
{
    const int64_t sizes[3] = {3000, 3000, 300};
    for (int shape = 0; shape < 3; shape++) {
        int64_t n = sizes[shape];
        sp_coo_t *a = coo_new(n, (shape == 2 ? n * n / 2 : 0) + 2 * n);
        for (int64_t r = 0; r < n; r++) {
            if (shape == 0 && r > 0) coo_push(a, r, r - 1, 0.5);
            if (shape == 2)
                for (int64_t c = 0; c < r; c++) coo_push(a, r, c, 1.0 / (double)n);
            coo_push(a, r, r, 1);
        }
        for (int ti = 0; ti < 2; ti++) {
            sp_value_type_t t = ti ? SP_R_64F : SP_R_32F;
            size_t vs = sp_value_size(t), bytes = (size_t)n * vs;
            sp_csr_t h = {0};
            host_csr(a, t, &h);
            sp_csr_t d = sp_test_env_upload_csr(&T, &h);
            unsigned char *b = malloc(bytes), *x = malloc(bytes);
            double one_d = 1;
            float one_f = 1;
            ck_assert(b && x);
            for (int64_t i = 0; i < n; i++) put(b, t, i, 1);
            memset(b + (size_t)(n / 2) * vs, 0xff, vs);
            void *d_b = sp_test_env_upload(&T, b, bytes), *d_x = NULL;
            ck_assert_ok(sp_test_env_alloc(&T, &d_x, bytes));
            for (int k = 0; k < NALGS; k++) {
                sp_gpu_sptrsv_plan_t *plan = NULL;
                ck_assert_ok(sp__gpu_sptrsv_analyse(&T.env, &d, 0, 0, algs[k], &plan));
                ck_assert_ok(sp__gpu_sptrsv_solve(&T.env, plan, &d, ti ? (void *)&one_d
                                                                       : (void *)&one_f,
                                                  d_b, d_x));
                sp_test_to_host(x, d_x, bytes, T.stream);
                for (int64_t i = 0; i < n; i++) {
                    double xi = get(x, t, i);
                    int reached = i == n / 2 || (shape != 1 && i > n / 2);
                    unsigned char ones[8];
                    memset(ones, 0xff, sizeof ones);
                    ck_assert_msg(reached ? isnan(xi) : isfinite(xi),
                                  "shape %d %s: x[%lld] = %g", shape, alg_names[algs[k]],
                                  (long long)i, xi);
                    if (algs[k] == SP_GPU_SPTRSV_SOFT_VALUE || algs[k] == SP_GPU_SPTRSV_SOFT_BLOCK)
                        ck_assert_msg(memcmp(x + (size_t)i * vs, ones, vs) != 0,
                                      "shape %d %s: x[%lld] holds the sentinel", shape,
                                      alg_names[algs[k]], (long long)i);
                }
                sp__gpu_sptrsv_plan_free(&T.env, plan);
            }
            sp_test_env_free(&T, d_x);
            sp_test_env_free(&T, d_b);
            free(x);
            free(b);
            sp__gpu_csr_free(&T.env, &d);
            sp__csr_free(&h);
        }
        sp_coo_free(a);
    }
}
END_TEST

START_TEST(test_refusals)
{
    sp_coo_t *a = coo_new(4, 8);
    sp_csr_t h = {0};
    double alpha = 1;
    for (int r = 0; r < 4; r++) coo_push(a, r, r, 1);
    coo_push(a, 3, 0, 1);
    host_csr(a, SP_R_64F, &h);
    sp_csr_t d = sp_test_env_upload_csr(&T, &h), bad = d;
    sp_gpu_sptrsv_plan_t *plan = NULL;
    ck_assert_status(sp__gpu_sptrsv_analyse(NULL, &d, 0, 0, SP_GPU_SPTRSV_SOFT, &plan),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sptrsv analyse: NULL argument");
    ck_assert_status(sp__gpu_sptrsv_analyse(&T.env, &d, 0, 0, (sp_gpu_sptrsv_alg_t)9, &plan),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown algorithm 9");
    bad.ncols = 5;
    ck_assert_status(sp__gpu_sptrsv_analyse(&T.env, &bad, 0, 0, SP_GPU_SPTRSV_SOFT, &plan),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("4 x 5, not square");
    bad = d;
    bad.value_type = SP_VALUE_NONE;
    ck_assert_status(sp__gpu_sptrsv_analyse(&T.env, &bad, 0, 1, SP_GPU_SPTRSV_LEVELS, &plan),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("no values (pattern)");
    bad = d;
    bad.nrows = bad.ncols = (int64_t)INT32_MAX + 1;
    ck_assert_status(sp__gpu_sptrsv_analyse(&T.env, &bad, 0, 0, SP_GPU_SPTRSV_SOFT, &plan),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("exceeds 32-bit indices");
    ck_assert_ptr_null(plan);

    ck_assert_ok(sp__gpu_sptrsv_analyse(&T.env, &d, 0, 0, SP_GPU_SPTRSV_SOFT, &plan));
    void *d_v = NULL;
    ck_assert_ok(sp_test_env_alloc(&T, &d_v, 8 * 8));
    bad = d;
    bad.nnz = 4;
    ck_assert_status(sp__gpu_sptrsv_solve(&T.env, plan, &bad, &alpha, d_v, (char *)d_v + 32),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("is not the analysed one");
    ck_assert_status(sp__gpu_sptrsv_solve(&T.env, plan, &d, &alpha, d_v, (char *)d_v + 16),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("b and x overlap");
    ck_assert_status(sp__gpu_sptrsv_solve(&T.env, plan, &d, &alpha, NULL, d_v),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("b or x is NULL for 4 rows");
    ck_assert_status(sp__gpu_sptrsv_solve(&T.env, plan, &d, NULL, d_v, (char *)d_v + 32),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sptrsv solve: NULL argument");
    /* after the refusals the same plan solves: rows x0 = 1, x1 = 2, x2 = 3, x0 + x3 = 4 */
    const double h_b[4] = {1, 2, 3, 4}, want[4] = {1, 2, 3, 3};
    double h_x[4];
    ck_cuda(cudaMemcpy(d_v, h_b, sizeof h_b, cudaMemcpyHostToDevice));
    ck_assert_ok(sp__gpu_sptrsv_solve(&T.env, plan, &d, &alpha, d_v, (char *)d_v + 32));
    sp_test_to_host(h_x, (char *)d_v + 32, sizeof h_x, T.stream);
    for (int i = 0; i < 4; i++) ck_assert_double_eq(h_x[i], want[i]);
    ck_assert_int_eq(sp__gpu_sptrsv_plan_levels(NULL), 0);
    sp__gpu_sptrsv_plan_free(&T.env, NULL);
    sp__gpu_sptrsv_plan_free(&T.env, plan);
    sp_test_env_free(&T, d_v);
    sp__gpu_csr_free(&T.env, &d);
    sp__csr_free(&h);
    sp_coo_free(a);
}
END_TEST

/* wanted callbacks of sp__gpu_sptrsv_analyse_both */
static int levels_always(const void *arg, int64_t n, int64_t nlevels)
{
    (void)arg, (void)n, (void)nlevels;
    return 1;
}

static int levels_never(const void *arg, int64_t n, int64_t nlevels)
{
    (void)arg, (void)n, (void)nlevels;
    return 0;
}

/* Every allocation of every analysis failing in turn: a clean refusal, nothing leaked;
 * with merge 1 the value solves' plans are level-merged (sp__gpu_sptrsv_set_merge). */
static void alloc_failure_sweep(int merge)
{
    sp__gpu_sptrsv_set_merge(merge);
    sp_coo_t *a = random_dominant(9, 3000, 5, 0);
    sp_csr_t h = {0};
    host_csr(a, SP_R_32F, &h);
    sp_csr_t d = sp_test_env_upload_csr(&T, &h);
    int64_t base = T.live;
    /* every algorithm, then (k == NALGS) sp__gpu_sptrsv_analyse_both making both plans */
    for (int k = 0; k <= NALGS; k++) {
        const char *name = k < NALGS ? alg_names[algs[k]] : "analyse_both";
        int64_t failing = 0;
        for (int64_t i = 0;; i++) {
            sp_gpu_sptrsv_plan_t *plan = (sp_gpu_sptrsv_plan_t *)&h, *levels = plan;
            sp_status_t st;
            T.calls = 0;
            T.fail_at = i;
            if (k < NALGS)
                st = sp__gpu_sptrsv_analyse(&T.env, &d, i % 2, 0, algs[k], &plan);
            else
                st = sp__gpu_sptrsv_analyse_both(&T.env, &d, i % 2, 0, SP_GPU_SPTRSV_SOFT_BLOCK,
                                                 levels_always, NULL, &plan, &levels);
            int64_t calls = T.calls;
            T.fail_at = -1;
            if (calls <= i) {
                ck_assert_msg(st == SP_STATUS_SUCCESS, "%s: %s with no failed allocation: %s",
                              name, sp_status_string(st), sp_last_error());
                sp__gpu_sptrsv_plan_free(&T.env, plan);
                if (k == NALGS) {
                    ck_assert_ptr_nonnull(levels);
                    sp__gpu_sptrsv_plan_free(&T.env, levels);
                }
                ck_assert_int_eq(T.live, base);
                break;
            }
            ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "%s: %s with allocation %lld failing",
                          name, sp_status_string(st), (long long)i);
            ck_assert_error_has("test env: refused");
            ck_assert_ptr_eq(plan, (sp_gpu_sptrsv_plan_t *)&h);
            ck_assert_ptr_eq(levels, (sp_gpu_sptrsv_plan_t *)&h);
            ck_assert_msg(T.live == base, "%s: %lld blocks leaked with allocation %lld failing",
                          name, (long long)(T.live - base), (long long)i);
            failing++;
        }
        ck_assert_int_ge(failing, 3);
    }
    sp__gpu_csr_free(&T.env, &d);
    sp__csr_free(&h);
    sp_coo_free(a);
    sp__gpu_sptrsv_set_merge(-1);
}

START_TEST(test_alloc_failure) { alloc_failure_sweep(-1); }
END_TEST

START_TEST(test_alloc_failure_merged) { alloc_failure_sweep(1); }
END_TEST
/* The public sp_sptrsv_analyse and sp_sptrsv on a CUDA context against a host context,
 * every public algorithm, both triangles, unit and not: AUTO takes the soft kernel on the
 * 3D Poisson problems (wide levels) and level scheduling on a long chain (also with a
 * unit diagonal); repeated solves on one cached plan. */
START_TEST(test_public_api)
{
    sp_context_t *gpu = NULL, *host = NULL;
    sp_test_gpu_host_contexts(&gpu, &host);
    for (int shape = 0; shape < 3; shape++) {
        sp_coo_t *coo = NULL;
        if (shape == 0) ck_assert_ok(sp_gen_poisson3d(10, SP_R_64F, &coo));
        if (shape == 1) ck_assert_ok(sp_gen_poisson3d(small ? 24 : 40, SP_R_64F, &coo));
        if (shape == 2) {
            int64_t n = small ? 20000 : 60000;
            coo = coo_new(n, 3 * n);
            for (int64_t r = 0; r < n; r++) {
                if (r > 0) coo_push(coo, r, r - 1, -1);
                coo_push(coo, r, r, 2.5);
                if (r + 1 < n) coo_push(coo, r, r + 1, 0.5);
            }
        }
        int64_t n = coo->nrows;
        size_t bytes = (size_t)n * 8;
        double *hb = malloc(bytes), *xg = malloc(bytes), *xh = malloc(bytes);
        uint64_t s = 11;
        ck_assert(hb && xg && xh);
        sp_matrix_t *G = NULL, *H = NULL;
        sp_vector_t *bg = NULL, *xgv = NULL, *bh = NULL, *xhv = NULL;
        ck_assert_ok(sp_matrix_create(gpu, coo, NULL, &G));
        ck_assert_ok(sp_matrix_create(host, coo, NULL, &H));
        for (int64_t i = 0; i < n; i++) hb[i] = 2 * sp_test_uniform(&s) - 1;
        ck_assert_ok(sp_vector_create(gpu, SP_R_64F, n, hb, &bg));
        ck_assert_ok(sp_vector_create(host, SP_R_64F, n, hb, &bh));
        ck_assert_ok(sp_vector_create(gpu, SP_R_64F, n, NULL, &xgv));
        ck_assert_ok(sp_vector_create(host, SP_R_64F, n, NULL, &xhv));
        for (int alg = 0; alg < 3; alg++)
            for (int u = 0; u < 2; u++)
                for (int unit = 0; unit < (shape == 2 ? 2 : 1); unit++) {
                    /* a unit Poisson triangle grows like its path count: unit on the chain */
                    double alpha = 0.5 + alg;
                    ck_assert_ok(sp_sptrsv_analyse(gpu, G, (sp_uplo_t)u, (sp_diag_t)unit,
                                                   (sp_sptrsv_alg_t)alg));
                    ck_assert_ok(sp_sptrsv_analyse(host, H, (sp_uplo_t)u, (sp_diag_t)unit,
                                                   (sp_sptrsv_alg_t)alg));
                    for (int round = 0; round < 3; round++) {
                        ck_assert_ok(sp_sptrsv(gpu, G, (sp_uplo_t)u, (sp_diag_t)unit,
                                               (sp_sptrsv_alg_t)alg, &alpha, sp_vector_data(bg),
                                               sp_vector_data(xgv)));
                        ck_assert_ok(sp_sptrsv(host, H, (sp_uplo_t)u, (sp_diag_t)unit,
                                               (sp_sptrsv_alg_t)alg, &alpha, sp_vector_data(bh),
                                               sp_vector_data(xhv)));
                        ck_assert_ok(sp_vector_copy_to_host(gpu, xgv, xg));
                        ck_assert_ok(sp_vector_copy_to_host(host, xhv, xh));
                        for (int64_t i = 0; i < n; i++)
                            ck_assert_msg(fabs(xg[i] - xh[i]) <= 1e-12 * (1 + fabs(xh[i])),
                                          "shape %d alg %d uplo %d unit %d round %d: x[%lld] "
                                          "= %.17g, host %.17g",
                                          shape, alg, u, unit, round, (long long)i, xg[i], xh[i]);
                    }
                }
        sp_vector_destroy(xhv);
        sp_vector_destroy(xgv);
        sp_vector_destroy(bh);
        sp_vector_destroy(bg);
        sp_matrix_destroy(H);
        sp_matrix_destroy(G);
        free(xh);
        free(xg);
        free(hb);
        sp_coo_free(coo);
    }
    /* a refusal names the function */
    sp_coo_t *rect = NULL;
    sp_matrix_t *R = NULL;
    ck_assert_ok(sp_coo_create(3, 4, 1, SP_R_64F, &rect));
    ck_assert_ok(sp_matrix_create(gpu, rect, NULL, &R));
    ck_assert_status(sp_sptrsv_analyse(gpu, R, SP_UPLO_LOWER, SP_DIAG_NON_UNIT,
                                       SP_SPTRSV_ALG_AUTO),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_sptrsv_analyse: matrix is 3 x 4, not square");
    sp_matrix_destroy(R);
    sp_coo_free(rect);
    sp_test_gpu_host_contexts_destroy(&gpu, &host);
}
END_TEST
/* sp__gpu_sptrsv_analyse_both (AUTO's one analysis for two plans): on a chain (the soft
 * plan in the natural order gives its grouping by level to the level-scheduling plan) and
 * on 3D Poisson (the level order: both keep a copy) both plans solve right, in either
 * order of freeing; wanted saying no gives no second plan; no levels_plan is refused. */
START_TEST(test_analyse_both)
{
    for (int shape = 0; shape < 3; shape++) {
        int64_t n = 3000;
        sp_coo_t *a = NULL;
        sp_csr_t h, d;
        sp_gpu_sptrsv_plan_t *soft = NULL, *levels = NULL;
        const char *name = shape == 0 ? "chain" : shape == 1 ? "poisson3d" : "empty";
        if (shape == 0) {
            a = coo_new(n, 2 * n);
            for (int64_t r = 0; r < n; r++) {
                if (r > 0) coo_push(a, r, r - 1, -1);
                coo_push(a, r, r, 2.5);
            }
        } else if (shape == 1) {
            ck_assert_ok(sp_gen_poisson3d(14, SP_R_64F, &a)); /* 2744 rows, 40 levels */
        } else {
            a = coo_new(0, 1);
        }
        host_csr(a, SP_R_64F, &h);
        d = sp_test_env_upload_csr(&T, &h);
        for (int upper = 0; upper < 2; upper++) {
            solve_case_t c = {name, &h, &d, upper, 0, FORWARD};
            char what[128];
            ck_assert_ok(sp__gpu_sptrsv_analyse_both(&T.env, &d, upper, 0,
                                                     SP_GPU_SPTRSV_SOFT_BLOCK, levels_always,
                                                     NULL, &soft, &levels));
            ck_assert_ptr_nonnull(soft);
            ck_assert_ptr_nonnull(levels);
            snprintf(what, sizeof what, "%s %s: both, soft plan", name, upper ? "upper" : "lower");
            check_plan(&c, what, soft);
            snprintf(what, sizeof what, "%s %s: both, levels plan", name, upper ? "upper" : "lower");
            check_plan(&c, what, levels);
            if (upper) { /* either plan may go first */
                sp__gpu_sptrsv_plan_free(&T.env, soft);
                sp__gpu_sptrsv_plan_free(&T.env, levels);
            } else {
                sp__gpu_sptrsv_plan_free(&T.env, levels);
                sp__gpu_sptrsv_plan_free(&T.env, soft);
            }
            ck_assert_ok(sp__gpu_sptrsv_analyse_both(&T.env, &d, upper, 0, SP_GPU_SPTRSV_SOFT,
                                                     levels_never, NULL, &soft, &levels));
            ck_assert_ptr_null(levels);
            snprintf(what, sizeof what, "%s %s: soft alone", name, upper ? "upper" : "lower");
            check_plan(&c, what, soft);
            sp__gpu_sptrsv_plan_free(&T.env, soft);
            soft = NULL;
        }
        ck_assert_status(sp__gpu_sptrsv_analyse_both(&T.env, &d, 0, 0, SP_GPU_SPTRSV_SOFT,
                                                     levels_always, NULL, &soft, NULL),
                         SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has("levels_plan is NULL");
        sp__gpu_csr_free(&T.env, &d);
        sp__csr_free(&h);
        sp_coo_free(a);
    }
}
END_TEST

/* The level pass with 1, 2, 4 and 8 units of 32 rows a ticket (sp__gpu_sptrsv_set_level_units;
 * the launch chooses among them by size, so small matrices would only meet one): the level
 * count and the level-scheduled and soft solves against the host, both triangles, on a 3D
 * stencil, a 2D one whose lines (70 rows) straddle units, a chain, and a random triangle
 * with a dense row and a dense column; sizes not a multiple of a ticket's rows. */
START_TEST(test_level_units)
{
    static const int units[4] = {1, 2, 4, 8};
    for (int shape = 0; shape < 4; shape++) {
        sp_coo_t *a = NULL;
        sp_csr_t h, d;
        const char *name = shape == 0   ? "poisson3d 15"
                           : shape == 1 ? "poisson2d 70"
                           : shape == 2 ? "chain 3001"
                                        : "random 5003";
        if (shape == 0) ck_assert_ok(sp_gen_poisson3d(15, SP_R_64F, &a));
        if (shape == 1) ck_assert_ok(sp_gen_poisson2d(70, SP_R_64F, &a));
        if (shape == 2) {
            a = coo_new(3001, 2 * 3001);
            for (int64_t r = 0; r < 3001; r++) {
                if (r > 0) coo_push(a, r, r - 1, -1);
                coo_push(a, r, r, 2.5);
            }
        }
        if (shape == 3) a = random_dominant(91, 5003, 4, DENSE_ROW | DENSE_COL | ONLY_DIAG_ROWS);
        host_csr(a, SP_R_64F, &h);
        d = sp_test_env_upload_csr(&T, &h);
        for (int u = 0; u < 4; u++) {
            sp__gpu_sptrsv_set_level_units(units[u]);
            for (int upper = 0; upper < 2; upper++)
                for (int alg = 0; alg < 2; alg++) {
                    solve_case_t c = {name, &h, &d, upper, 0, FORWARD};
                    sp_gpu_sptrsv_alg_t g = alg ? SP_GPU_SPTRSV_SOFT : SP_GPU_SPTRSV_LEVELS;
                    sp_gpu_sptrsv_plan_t *plan = NULL;
                    char what[128];
                    snprintf(what, sizeof what, "%s %s %s, %d units a ticket", name,
                             upper ? "upper" : "lower", alg_names[g], units[u]);
                    ck_assert_msg(sp__gpu_sptrsv_analyse(&T.env, &d, upper, 0, g, &plan) ==
                                      SP_STATUS_SUCCESS,
                                  "%s: analyse: %s", what, sp_last_error());
                    check_plan(&c, what, plan);
                    sp__gpu_sptrsv_plan_free(&T.env, plan);
                }
        }
        sp__gpu_sptrsv_set_level_units(0);
        sp__gpu_csr_free(&T.env, &d);
        sp__csr_free(&h);
        sp_coo_free(a);
    }
    ck_assert_int_eq(T.live, 0);
}
END_TEST

/* The analysis's phase-timing hook (bench/sptrsv_bench prints it): off, nothing is recorded;
 * on, each analysis appends its phases in order (setup, bound, level_pass, readback, then
 * group_by_level for level scheduling and prepare for the soft kernel, release last), with
 * non-negative times; the record is emptied when timing is switched. */
START_TEST(test_phase_timing)
{
    static const char *const want_levels[] = {"setup", "bound", "level_pass", "readback",
                                              "group_by_level", "release"};
    static const char *const want_soft[] = {"setup",    "bound",   "level_pass",
                                            "readback", "prepare", "release"};
    sp_gpu_sptrsv_phase_t ph[SP_GPU_SPTRSV_PHASES_MAX];
    sp_coo_t *coo = NULL;
    sp_csr_t h, d;
    sp_gpu_sptrsv_plan_t *plan = NULL;
    ck_assert_ok(sp_gen_poisson2d(40, SP_R_64F, &coo));
    host_csr(coo, SP_R_64F, &h);
    d = sp_test_env_upload_csr(&T, &h);
    sp__gpu_sptrsv_phase_timing(0);
    ck_assert_ok(sp__gpu_sptrsv_analyse(&T.env, &d, 0, 0, SP_GPU_SPTRSV_LEVELS, &plan));
    sp__gpu_sptrsv_plan_free(&T.env, plan);
    ck_assert_int_eq(sp__gpu_sptrsv_phases(NULL, 0), 0);
    sp__gpu_sptrsv_phase_timing(1);
    ck_assert_ok(sp__gpu_sptrsv_analyse(&T.env, &d, 0, 0, SP_GPU_SPTRSV_LEVELS, &plan));
    sp__gpu_sptrsv_plan_free(&T.env, plan);
    ck_assert_ok(sp__gpu_sptrsv_analyse(&T.env, &d, 1, 0, SP_GPU_SPTRSV_SOFT, &plan));
    sp__gpu_sptrsv_plan_free(&T.env, plan);
    ck_assert_int_eq(sp__gpu_sptrsv_phases(ph, SP_GPU_SPTRSV_PHASES_MAX), 12);
    for (int i = 0; i < 12; i++) {
        const char *want = i < 6 ? want_levels[i] : want_soft[i - 6];
        ck_assert_msg(strcmp(ph[i].name, want) == 0, "phase %d is %s, expected %s", i,
                      ph[i].name, want);
        ck_assert_int_eq(ph[i].analysis, i / 6);
        ck_assert_msg(ph[i].gpu_ms >= 0 && ph[i].host_ms >= 0, "phase %s: %g / %g ms",
                      ph[i].name, ph[i].gpu_ms, ph[i].host_ms);
    }
    sp__gpu_sptrsv_phase_timing(0);
    ck_assert_int_eq(sp__gpu_sptrsv_phases(ph, SP_GPU_SPTRSV_PHASES_MAX), 0);
    sp__gpu_csr_free(&T.env, &d);
    sp__csr_free(&h);
    sp_coo_free(coo);
}
END_TEST
#endif /* SP_HAVE_CUDA */

static Suite *gpu_sptrsv_suite(void)
{
    Suite *s = suite_create("gpu_sptrsv");
#ifdef SP_HAVE_CUDA
    /* four cases, run side by side by ctest and the sanitizer (tests/CMakeLists.txt) */
    TCase *shapes = sp_test_add_case(s, "shapes", setup, teardown);
    TCase *chains = sp_test_add_case(s, "chains", setup, teardown);
    TCase *large = sp_test_add_case(s, "large", setup, teardown);
    TCase *contracts = sp_test_add_case(s, "contracts", setup, teardown);
    tcase_add_test(shapes, test_tiny);
    tcase_add_test(shapes, test_empty_and_one);
    tcase_add_test(shapes, test_catalogue);
    tcase_add_test(chains, test_chain_and_diagonal);
    tcase_add_test(chains, test_interleaved_levels);
    tcase_add_test(large, test_poisson);
    tcase_add_test(large, test_level_merge);
    tcase_add_test(large, test_datasets);
    tcase_add_test(contracts, test_missing_diagonal);
    tcase_add_test(contracts, test_repeated_solves);
    tcase_add_test(contracts, test_sentinel_result);
    tcase_add_test(contracts, test_refusals);
    tcase_add_test(contracts, test_alloc_failure);
    tcase_add_test(contracts, test_alloc_failure_merged);
    tcase_add_test(contracts, test_public_api);
    tcase_add_test(contracts, test_phase_timing);
    tcase_add_test(contracts, test_analyse_both);
    tcase_add_test(contracts, test_level_units);
#endif
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_sptrsv_suite()); }
