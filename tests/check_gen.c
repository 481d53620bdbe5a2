/* Generators: Poisson and grid matrices against hand-checked arrays and closed-form
 * counts; random graphs for determinism (a golden checksum), ranges and degree shape. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_random.h" /* the generators with a thread count */
#include "testutil.h"

/* Fingerprints (coo_checksum) of sp_gen_kronecker(10, 16, 1, SP_R_64F) and
 * sp_gen_uniform(10, 16, 1, SP_R_64F). */
#define KRON_GOLDEN 0xde8802e1918b5c80ull
#define UNIFORM_GOLDEN 0xe61848c303a0cfc6ull

/* ---- helpers ---- */

static double value_at(const sp_coo_t *a, int64_t k)
{
    if (a->value_type == SP_R_64F) return ((const double *)a->val)[k];
    if (a->value_type == SP_R_32F) return ((const float *)a->val)[k];
    return 1.0;
}

/* Strictly increasing (row, col), indices inside the matrix. */
static void assert_sorted_merged(const sp_coo_t *a)
{
    ck_assert_uint_eq(a->flags & (SP_COO_SORTED | SP_COO_MERGED),
                      SP_COO_SORTED | SP_COO_MERGED);
    for (int64_t k = 0; k < a->nnz; k++) {
        ck_assert(a->row[k] >= 0 && a->row[k] < a->nrows);
        ck_assert(a->col[k] >= 0 && a->col[k] < a->ncols);
        if (k > 0)
            ck_assert_msg(a->row[k - 1] < a->row[k] ||
                              (a->row[k - 1] == a->row[k] && a->col[k - 1] < a->col[k]),
                          "entry %lld out of order", (long long)k);
    }
}

/* Index of (i, j) in a sorted, merged COO, or -1. */
static int64_t find_entry(const sp_coo_t *a, int32_t i, int32_t j)
{
    int64_t lo = 0, hi = a->nnz;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->row[mid] < i || (a->row[mid] == i && a->col[mid] < j)) lo = mid + 1;
        else hi = mid;
    }
    return lo < a->nnz && a->row[lo] == i && a->col[lo] == j ? lo : -1;
}

static void assert_symmetric(const sp_coo_t *a)
{
    ck_assert_int_eq(a->nrows, a->ncols);
    for (int64_t k = 0; k < a->nnz; k++) {
        int64_t t = find_entry(a, a->col[k], a->row[k]);
        ck_assert_msg(t >= 0, "(%d, %d) has no mirror", a->row[k], a->col[k]);
        ck_assert(value_at(a, t) == value_at(a, k));
    }
}

static void assert_coo(const sp_coo_t *a, int64_t n, int64_t nnz, const int32_t *row,
                       const int32_t *col, const double *val)
{
    ck_assert_int_eq(a->nrows, n);
    ck_assert_int_eq(a->ncols, n);
    ck_assert_int_eq(a->nnz, nnz);
    ck_assert_int_eq(a->symmetry, SP_SYMMETRY_GENERAL);
    for (int64_t k = 0; k < nnz; k++) {
        ck_assert_msg(a->row[k] == row[k] && a->col[k] == col[k],
                      "entry %lld is (%d, %d), expected (%d, %d)", (long long)k, a->row[k],
                      a->col[k], row[k], col[k]);
        ck_assert_msg(value_at(a, k) == val[k], "entry %lld value %g, expected %g",
                      (long long)k, value_at(a, k), val[k]);
    }
    assert_sorted_merged(a);
}

static int64_t *row_counts(const sp_coo_t *a)
{
    int64_t *count = calloc((size_t)a->nrows, sizeof *count);
    ck_assert_ptr_nonnull(count);
    for (int64_t k = 0; k < a->nnz; k++) count[a->row[k]]++;
    return count;
}

static int64_t max_of(const int64_t *x, int64_t n)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (x[i] > m) m = x[i];
    return m;
}

/* FNV-1a over the indices and the value bits: the fingerprint of a generated graph. */
static uint64_t coo_checksum(const sp_coo_t *a)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t k = 0; k < a->nnz; k++) {
        double v = value_at(a, k);
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        uint64_t words[3] = {(uint64_t)(uint32_t)a->row[k], (uint64_t)(uint32_t)a->col[k],
                             bits};
        for (int w = 0; w < 3; w++)
            for (int b = 0; b < 8; b++) {
                h ^= (words[w] >> (8 * b)) & 0xffu;
                h *= 0x100000001b3ull;
            }
    }
    return h;
}

static int coo_equal(const sp_coo_t *a, const sp_coo_t *b)
{
    size_t vs = sp_value_size(a->value_type);
    return a->nnz == b->nnz && a->nrows == b->nrows && a->value_type == b->value_type &&
           memcmp(a->row, b->row, (size_t)a->nnz * sizeof(int32_t)) == 0 &&
           memcmp(a->col, b->col, (size_t)a->nnz * sizeof(int32_t)) == 0 &&
           (vs == 0 || memcmp(a->val, b->val, (size_t)a->nnz * vs) == 0);
}

/* ---- Poisson and grid: hand-checked ---- */

START_TEST(poisson2d_n2)
{
    /* vertices 0 1 / 2 3 (x fastest): each has two neighbours */
    static const int32_t row[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    static const int32_t col[] = {0, 1, 2, 0, 1, 3, 0, 2, 3, 1, 2, 3};
    static const double val[] = {4, -1, -1, -1, 4, -1, -1, 4, -1, -1, -1, 4};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson2d(2, SP_R_64F, &a));
    assert_coo(a, 4, 12, row, col, val);
    sp_coo_free(a);
}
END_TEST

START_TEST(poisson2d_n3)
{
    /* 6 7 8 / 3 4 5 / 0 1 2 */
    static const int32_t row[] = {0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4,
                                  4, 4, 5, 5, 5, 5, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8};
    static const int32_t col[] = {0, 1, 3, 0, 1, 2, 4, 1, 2, 5, 0, 3, 4, 6, 1, 3, 4,
                                  5, 7, 2, 4, 5, 8, 3, 6, 7, 4, 6, 7, 8, 5, 7, 8};
    static const double val[] = {4,  -1, -1, -1, 4,  -1, -1, -1, 4,  -1, -1,
                                 4,  -1, -1, -1, -1, 4,  -1, -1, -1, -1, 4,
                                 -1, -1, 4,  -1, -1, -1, 4,  -1, -1, -1, 4};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson2d(3, SP_R_32F, &a));
    ck_assert_int_eq(a->value_type, SP_R_32F);
    assert_coo(a, 9, 33, row, col, val);
    sp_coo_free(a);
}
END_TEST

START_TEST(grid2d_n2)
{
    static const int32_t row[] = {0, 0, 1, 1, 2, 2, 3, 3};
    static const int32_t col[] = {1, 2, 0, 3, 0, 3, 1, 2};
    static const double val[] = {1, 1, 1, 1, 1, 1, 1, 1};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_grid2d(2, SP_R_64F, &a));
    assert_coo(a, 4, 8, row, col, val);
    sp_coo_free(a);
}
END_TEST

START_TEST(poisson3d_n2_row_sums)
{
    /* every corner of a 2x2x2 cube has three neighbours: 6 - 3 */
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(2, SP_R_64F, &a));
    ck_assert_int_eq(a->nrows, 8);
    ck_assert_int_eq(a->nnz, 8 * 4);
    double sum[8] = {0};
    for (int64_t k = 0; k < a->nnz; k++) sum[a->row[k]] += value_at(a, k);
    for (int i = 0; i < 8; i++) ck_assert_double_eq(sum[i], 3.0);
    assert_sorted_merged(a);
    assert_symmetric(a);
    sp_coo_free(a);
}
END_TEST

START_TEST(poisson3d27_n3_centre)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d27(3, SP_R_64F, &a));
    ck_assert_int_eq(a->nrows, 27);
    ck_assert_int_eq(a->nnz, 7 * 7 * 7); /* (3n - 2)^3 */
    int64_t *count = row_counts(a);
    ck_assert_int_eq(count[13], 27);
    ck_assert_int_eq(count[0], 8);  /* a corner: its 2x2x2 block */
    ck_assert_int_eq(count[4], 18); /* centre of the bottom face */
    for (int64_t k = 0; k < a->nnz; k++)
        if (a->row[k] == 13) ck_assert_double_eq(value_at(a, k), a->col[k] == 13 ? 26 : -1);
    free(count);
    assert_sorted_merged(a);
    assert_symmetric(a);
    sp_coo_free(a);
}
END_TEST

START_TEST(single_point_grids)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d27(1, SP_R_64F, &a));
    ck_assert_int_eq(a->nnz, 1);
    ck_assert_double_eq(value_at(a, 0), 26.0);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_grid2d(1, SP_R_64F, &a));
    ck_assert_int_eq(a->nrows, 1);
    ck_assert_int_eq(a->nnz, 0);
    sp_coo_free(a);
}
END_TEST

/* ---- Poisson and grid: counts and properties at larger n ---- */

START_TEST(stencil_counts)
{
    sp_coo_t *a = NULL;
    for (int64_t n = 1; n <= 12; n++) {
        ck_assert_ok(sp_gen_poisson2d(n, SP_R_64F, &a));
        ck_assert_int_eq(a->nnz, 5 * n * n - 4 * n);
        assert_sorted_merged(a);
        sp_coo_free(a);
        ck_assert_ok(sp_gen_poisson3d(n, SP_VALUE_NONE, &a));
        ck_assert_int_eq(a->nrows, n * n * n);
        ck_assert_int_eq(a->nnz, 7 * n * n * n - 6 * n * n);
        ck_assert_ptr_null(a->val);
        assert_sorted_merged(a);
        sp_coo_free(a);
        ck_assert_ok(sp_gen_poisson3d27(n, SP_R_32F, &a));
        ck_assert_int_eq(a->nnz, (3 * n - 2) * (3 * n - 2) * (3 * n - 2));
        assert_sorted_merged(a);
        sp_coo_free(a);
        ck_assert_ok(sp_gen_grid2d(n, SP_VALUE_NONE, &a));
        ck_assert_int_eq(a->nnz, 4 * n * n - 4 * n);
        assert_sorted_merged(a);
        sp_coo_free(a);
    }
}
END_TEST

START_TEST(poisson3d_n10)
{
    const int64_t n = 10;
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson3d(n, SP_R_64F, &a));
    ck_assert_int_eq(a->nnz, 7 * n * n * n - 6 * n * n);
    assert_sorted_merged(a);
    assert_symmetric(a);
    /* row sum = number of missing neighbours: 0 inside, 1 on a face, 3 at a corner */
    double *sum = calloc((size_t)a->nrows, sizeof *sum);
    ck_assert_ptr_nonnull(sum);
    for (int64_t k = 0; k < a->nnz; k++) sum[a->row[k]] += value_at(a, k);
    ck_assert_double_eq(sum[5 + n * (5 + n * 5)], 0.0);
    ck_assert_double_eq(sum[5 + n * (5 + n * 0)], 1.0);
    ck_assert_double_eq(sum[0], 3.0);
    ck_assert_double_eq(sum[n * n * n - 1], 3.0);
    free(sum);
    sp_coo_free(a);
}
END_TEST

START_TEST(symmetric_larger)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_poisson2d(17, SP_R_64F, &a));
    assert_symmetric(a);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d27(6, SP_R_64F, &a));
    assert_symmetric(a);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_grid2d(31, SP_R_32F, &a));
    assert_symmetric(a);
    int64_t *count = row_counts(a);
    ck_assert_int_eq(max_of(count, a->nrows), 4);
    for (int64_t k = 0; k < a->nnz; k++) ck_assert(a->row[k] != a->col[k]);
    free(count);
    sp_coo_free(a);
}
END_TEST

/* ---- random graphs ---- */

typedef sp_status_t (*graph_gen_fn)(int, int, uint64_t, sp_value_type_t, sp_coo_t **);
static const graph_gen_fn graph_gens[] = {sp_gen_kronecker, sp_gen_uniform};

START_TEST(graph_golden)
{
    /* Any change of output, on any machine, changes these numbers. */
    static const uint64_t golden[] = {KRON_GOLDEN, UNIFORM_GOLDEN};
    sp_coo_t *a = NULL;
    ck_assert_ok(graph_gens[_i](10, 16, 1, SP_R_64F, &a));
    ck_assert_int_eq(a->nrows, 1024);
    ck_assert_int_eq(a->nnz, 16 * 1024);
    uint64_t h = coo_checksum(a);
    ck_assert_msg(h == golden[_i], "checksum 0x%016llx", (unsigned long long)h);
    sp_coo_free(a);
}
END_TEST

/* The generators on 1, 2, 3 and 7 threads: the same arrays, bit for bit. The edge count is
 * several slices and not a multiple of one (scale 15, edge factor 5: 163840 edges). */
typedef sp_status_t (*graph_gen_threads_fn)(int, int, uint64_t, sp_value_type_t, int,
                                            sp_coo_t **);
static const graph_gen_threads_fn graph_gens_threads[] = {sp__gen_kronecker_threads,
                                                          sp__gen_uniform_threads};

START_TEST(graph_thread_count_invariance)
{
    static const int threads[] = {2, 3, 7};
    static const sp_value_type_t types[] = {SP_R_32F, SP_R_64F, SP_VALUE_NONE};
    for (int t = 0; t < 3; t++) {
        sp_coo_t *one = NULL;
        ck_assert_ok(graph_gens_threads[_i](15, 5, 77, types[t], 1, &one));
        ck_assert_int_eq(one->nnz, 5 << 15);
        size_t vs = sp_value_size(types[t]);
        for (int k = 0; k < 3; k++) {
            sp_coo_t *many = NULL;
            ck_assert_ok(graph_gens_threads[_i](15, 5, 77, types[t], threads[k], &many));
            ck_assert_int_eq(many->nnz, one->nnz);
            size_t n = (size_t)one->nnz;
            ck_assert_msg(!memcmp(one->row, many->row, n * sizeof *one->row),
                          "rows differ on %d threads", threads[k]);
            ck_assert_msg(!memcmp(one->col, many->col, n * sizeof *one->col),
                          "columns differ on %d threads", threads[k]);
            if (vs)
                ck_assert_msg(!memcmp(one->val, many->val, n * vs),
                              "values differ on %d threads", threads[k]);
            sp_coo_free(many);
        }
        sp_coo_free(one);
    }
}
END_TEST

/* The relabelling permutation on 2, 3, 4 and 7 threads (the parallel shuffle from 4)
 * against the serial Fisher-Yates (1 thread), on sizes below, at and above a window and a
 * slice. */
START_TEST(kron_permutation_thread_count_invariance)
{
    static const int64_t sizes[] = {2, 3, 4097, 200003, 1 << 18};
    static const int threads[] = {2, 3, 4, 7};
    int64_t n = sizes[_i];
    int32_t *one = malloc((size_t)n * sizeof *one), *many = malloc((size_t)n * sizeof *many);
    unsigned char *seen = calloc((size_t)n, 1);
    ck_assert_ptr_nonnull(one);
    ck_assert_ptr_nonnull(many);
    ck_assert_ptr_nonnull(seen);
    ck_assert_ok(sp__gen_kron_permutation(12345, one, n, 1));
    for (int64_t i = 0; i < n; i++) {
        ck_assert(one[i] >= 0 && one[i] < n && !seen[one[i]]);
        seen[one[i]] = 1;
    }
    for (int k = 0; k < 4; k++) {
        memset(many, 0xff, (size_t)n * sizeof *many);
        ck_assert_ok(sp__gen_kron_permutation(12345, many, n, threads[k]));
        ck_assert_msg(!memcmp(one, many, (size_t)n * sizeof *one),
                      "n %lld: permutation differs on %d threads", (long long)n, threads[k]);
    }
    free(seen);
    free(many);
    free(one);
}
END_TEST

START_TEST(graph_determinism)
{
    graph_gen_fn gen = graph_gens[_i];
    sp_coo_t *a = NULL, *b = NULL, *c = NULL, *p = NULL;
    ck_assert_ok(gen(11, 8, 42, SP_R_64F, &a));
    ck_assert_ok(gen(11, 8, 42, SP_R_64F, &b));
    ck_assert_ok(gen(11, 8, 43, SP_R_64F, &c));
    ck_assert_ok(gen(11, 8, 42, SP_VALUE_NONE, &p));
    ck_assert(coo_equal(a, b));
    ck_assert(!coo_equal(a, c));
    ck_assert_ptr_null(p->val);
    ck_assert_int_eq(p->nnz, a->nnz);
    ck_assert(memcmp(p->row, a->row, (size_t)a->nnz * sizeof(int32_t)) == 0);
    ck_assert(memcmp(p->col, a->col, (size_t)a->nnz * sizeof(int32_t)) == 0);
    ck_assert_int_eq(a->flags, 0);
    ck_assert_int_eq(a->symmetry, SP_SYMMETRY_GENERAL);
    sp_coo_free(p);
    sp_coo_free(c);
    sp_coo_free(b);
    sp_coo_free(a);
}
END_TEST

START_TEST(graph_values_unit_interval)
{
    graph_gen_fn gen = graph_gens[_i];
    sp_coo_t *d = NULL, *f = NULL;
    ck_assert_ok(gen(12, 4, 7, SP_R_64F, &d));
    ck_assert_ok(gen(12, 4, 7, SP_R_32F, &f));
    double sum = 0;
    for (int64_t k = 0; k < d->nnz; k++) {
        double v = value_at(d, k), w = value_at(f, k);
        ck_assert(v >= 0.0 && v < 1.0);
        ck_assert(w >= 0.0 && w < 1.0);
        ck_assert(fabs(v - w) < 1e-6); /* the same draw, fewer bits */
        sum += v;
    }
    ck_assert_double_eq_tol(sum / (double)d->nnz, 0.5, 0.01);
    ck_assert(memcmp(d->row, f->row, (size_t)d->nnz * sizeof(int32_t)) == 0);
    sp_coo_free(f);
    sp_coo_free(d);
}
END_TEST

START_TEST(kronecker_skew)
{
    const int scale = 14, edgefactor = 16;
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_kronecker(scale, edgefactor, 3, SP_VALUE_NONE, &a));
    ck_assert_int_eq(a->nrows, 1 << scale);
    ck_assert_int_eq(a->nnz, (int64_t)edgefactor << scale);
    for (int64_t k = 0; k < a->nnz; k++) {
        ck_assert(a->row[k] >= 0 && a->row[k] < (1 << scale));
        ck_assert(a->col[k] >= 0 && a->col[k] < (1 << scale));
    }
    int64_t *count = row_counts(a);
    int64_t isolated = 0, maxdeg = max_of(count, a->nrows);
    for (int64_t i = 0; i < a->nrows; i++) isolated += count[i] == 0;
    /* power-law-like: hubs far above the mean, many vertices with no out-edge. The top
     * hub is the vertex whose row descends through A or B at every level: expected
     * out-degree nnz * (A + B)^scale = 5617 here (standard deviation about 75). */
    double expected = (double)a->nnz * pow(0.76, scale);
    ck_assert_msg(fabs((double)maxdeg - expected) < 0.06 * expected,
                  "max out-degree %lld, expected about %.0f", (long long)maxdeg, expected);
    ck_assert_msg(isolated > a->nrows / 10, "%lld isolated", (long long)isolated);
    /* the hubs are scattered by the permutation, not all at low ids */
    int64_t top = 0;
    for (int64_t i = 0; i < a->nrows; i++)
        if (count[i] > 10 * edgefactor) top += i >= a->nrows / 2;
    ck_assert(top > 0);
    free(count);
    /* duplicates and self loops are kept */
    sp_coo_t *m = NULL;
    int64_t merged = 0;
    ck_assert_ok(sp_coo_copy(a, SP_VALUE_NONE, &m));
    ck_assert_ok(sp_coo_sort_merge(m, SP_DUP_KEEP, &merged));
    ck_assert(merged > 0);
    sp_coo_free(m);
    sp_coo_free(a);
}
END_TEST

START_TEST(uniform_degrees)
{
    const int scale = 14, edgefactor = 16;
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_uniform(scale, edgefactor, 5, SP_VALUE_NONE, &a));
    ck_assert_int_eq(a->nnz, (int64_t)edgefactor << scale);
    int64_t *out = row_counts(a);
    int64_t *in = calloc((size_t)a->nrows, sizeof *in);
    ck_assert_ptr_nonnull(in);
    for (int64_t k = 0; k < a->nnz; k++) {
        ck_assert(a->col[k] >= 0 && a->col[k] < (1 << scale));
        in[a->col[k]]++;
    }
    /* Poisson(16) degrees: the mean is exact, the extremes are close to it */
    ck_assert_double_eq((double)a->nnz / (double)a->nrows, edgefactor);
    ck_assert_int_lt(max_of(out, a->nrows), 3 * edgefactor);
    ck_assert_int_lt(max_of(in, a->nrows), 3 * edgefactor);
    int64_t isolated = 0;
    for (int64_t i = 0; i < a->nrows; i++) isolated += out[i] == 0;
    ck_assert_int_lt(isolated, 10);
    free(in);
    free(out);
    sp_coo_free(a);
}
END_TEST

START_TEST(graph_scale0)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_kronecker(0, 3, 9, SP_R_64F, &a));
    ck_assert_int_eq(a->nrows, 1);
    ck_assert_int_eq(a->nnz, 3);
    for (int k = 0; k < 3; k++) ck_assert(a->row[k] == 0 && a->col[k] == 0);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_uniform(0, 2, 9, SP_VALUE_NONE, &a));
    ck_assert_int_eq(a->nnz, 2);
    ck_assert(a->row[1] == 0 && a->col[1] == 0);
    sp_coo_free(a);
}
END_TEST

/* ---- bad arguments: status, message naming the argument, output untouched ---- */

START_TEST(graph_bad_arguments)
{
    graph_gen_fn gen = graph_gens[_i];
    sp_coo_t *sentinel = (sp_coo_t *)&sentinel, *a = sentinel;
    ck_assert_status(gen(-1, 16, 1, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("scale -1");
    ck_assert_status(gen(31, 16, 1, SP_R_64F, &a), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("scale 31");
    ck_assert_status(gen(10, 0, 1, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("edgefactor 0");
    /* past 2^31 edges only memory refuses (issue 20): here a 1 GiB cap on one request */
    sp_test_fail_allocations_above((size_t)1 << 30);
    ck_assert_status(gen(30, 2, 1, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    ck_assert_error_has("2147483648 entries of 16 bytes (34359738368 bytes)");
    ck_assert_status(gen(26, 64, 1, SP_VALUE_NONE, &a), SP_STATUS_ALLOC_FAILED);
    ck_assert_error_has("4294967296 entries of 8 bytes (34359738368 bytes)");
    sp_test_restore_allocator();
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_status(gen(4, 4, 1, (sp_value_type_t)7, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("value type 7");
    ck_assert_status(gen(4, 4, 1, SP_R_64F, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("coo is NULL");
    ck_assert_error_has(_i == 0 ? "sp_gen_kronecker" : "sp_gen_uniform");
    ck_assert_ptr_eq(a, sentinel);
}
END_TEST

typedef sp_status_t (*grid_gen_fn)(int64_t, sp_value_type_t, sp_coo_t **);
static const grid_gen_fn grid_gens[] = {sp_gen_poisson2d, sp_gen_poisson3d,
                                        sp_gen_poisson3d27, sp_gen_grid2d};
static const char *const grid_names[] = {"sp_gen_poisson2d", "sp_gen_poisson3d",
                                         "sp_gen_poisson3d27", "sp_gen_grid2d"};

START_TEST(grid_bad_arguments)
{
    grid_gen_fn gen = grid_gens[_i];
    int three_d = _i == 1 || _i == 2;
    sp_coo_t *sentinel = (sp_coo_t *)&sentinel, *a = sentinel;
    ck_assert_status(gen(0, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("n = 0");
    ck_assert_error_has(grid_names[_i]);
    ck_assert_status(gen(-5, SP_R_64F, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("n = -5");
    ck_assert_status(gen(3, (sp_value_type_t)9, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("value type 9");
    ck_assert_status(gen(3, SP_R_64F, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("coo is NULL");
    /* rows beyond 32 bits: 1291^3 and 46341^2 exceed 2^31 - 1 */
    ck_assert_status(gen(three_d ? 1291 : 46341, SP_R_64F, &a), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has(three_d ? "n = 1291" : "n = 46341");
    ck_assert_error_has("rows");
    ck_assert_status(gen(INT64_MAX, SP_R_64F, &a), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("rows");
    /* rows fit, entries past 2^31: only memory refuses (issue 20), here a 1 GiB cap */
    sp_test_fail_allocations_above((size_t)1 << 30);
    ck_assert_status(gen(three_d ? 1290 : 46340, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    sp_test_restore_allocator();
    ck_assert_error_has("entries of 16 bytes");
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_ptr_eq(a, sentinel);
}
END_TEST

START_TEST(allocation_failure)
{
    sp_coo_t *sentinel = (sp_coo_t *)&sentinel, *a = sentinel;
    sp_test_fail_allocations_after(0);
    ck_assert_status(sp_gen_kronecker(8, 4, 1, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    ck_assert_status(sp_gen_uniform(8, 4, 1, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    ck_assert_status(sp_gen_poisson3d(4, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    ck_assert_status(sp_gen_grid2d(4, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    sp_test_restore_allocator();
    ck_assert_ptr_eq(a, sentinel);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gen");
    TCase *grids = tcase_create("grids");
    tcase_add_test(grids, poisson2d_n2);
    tcase_add_test(grids, poisson2d_n3);
    tcase_add_test(grids, grid2d_n2);
    tcase_add_test(grids, poisson3d_n2_row_sums);
    tcase_add_test(grids, poisson3d27_n3_centre);
    tcase_add_test(grids, single_point_grids);
    tcase_add_test(grids, stencil_counts);
    tcase_add_test(grids, poisson3d_n10);
    tcase_add_test(grids, symmetric_larger);
    tcase_add_loop_test(grids, grid_bad_arguments, 0, 4);
    suite_add_tcase(s, grids);
    TCase *graphs = tcase_create("graphs");
    tcase_set_timeout(graphs, 60);
    tcase_add_loop_test(graphs, graph_golden, 0, 2);
    tcase_add_loop_test(graphs, graph_determinism, 0, 2);
    tcase_add_loop_test(graphs, graph_thread_count_invariance, 0, 2);
    tcase_add_loop_test(graphs, kron_permutation_thread_count_invariance, 0, 5);
    tcase_add_loop_test(graphs, graph_values_unit_interval, 0, 2);
    tcase_add_test(graphs, kronecker_skew);
    tcase_add_test(graphs, uniform_degrees);
    tcase_add_test(graphs, graph_scale0);
    tcase_add_loop_test(graphs, graph_bad_arguments, 0, 2);
    tcase_add_test(graphs, allocation_failure);
    suite_add_tcase(s, graphs);
    return sp_test_run(s);
}
