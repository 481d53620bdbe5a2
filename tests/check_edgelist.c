/* Edge-list reader: SNAP text, DIMACS .gr and METIS .graph on hand-checked fixtures, the
 * shipped real graphs (expected counts computed independently with Python), randomized
 * files across many chunks, and every malformed-input path with its file:line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef SP_HAVE_ZLIB
#include <zlib.h>
#endif

#include "testutil.h"

static const char *fixture(const char *name)
{
    static char rel[256];
    snprintf(rel, sizeof rel, "tests/fixtures/edgelist/%s", name);
    return sp_test_path(rel);
}

static const char *graph(const char *name)
{
    static char rel[256];
    snprintf(rel, sizeof rel, "datasets/graphs/%s", name);
    return sp_test_path(rel);
}

static sp_coo_t *read_ok(const char *path, sp_value_type_t type, const sp_edgelist_options_t *o,
                         sp_edgelist_info_t *info)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_edgelist_read(path, type, o, &a, info));
    ck_assert_int_eq(a->nrows, a->ncols);
    return a;
}

static void assert_entries(const sp_coo_t *a, int64_t n, int64_t nnz, const int32_t *row,
                           const int32_t *col, const double *val)
{
    ck_assert_int_eq(a->nrows, n);
    ck_assert_int_eq(a->nnz, nnz);
    for (int64_t k = 0; k < nnz; k++) {
        ck_assert_msg(a->row[k] == row[k] && a->col[k] == col[k],
                      "entry %lld is (%d, %d), expected (%d, %d)", (long long)k, a->row[k],
                      a->col[k], row[k], col[k]);
        if (!val) continue;
        double v = a->value_type == SP_R_32F ? ((float *)a->val)[k] : ((double *)a->val)[k];
        ck_assert_double_eq_tol(v, val[k], 1e-6 * (1 + (val[k] < 0 ? -val[k] : val[k])));
    }
}

/* ---- SNAP ---- */

START_TEST(snap_tiny)
{
    sp_edgelist_info_t info;
    sp_coo_t *a = read_ok(fixture("tiny.el"), SP_VALUE_NONE, NULL, &info);
    const int32_t r[] = {0, 1, 2, 2, 0}, c[] = {1, 2, 0, 2, 1};
    assert_entries(a, 3, 5, r, c, NULL);
    ck_assert_ptr_null(a->val);
    ck_assert_int_eq(info.edges_read, 5);
    ck_assert_int_eq(info.has_weights, 0);
    ck_assert_ptr_null(info.id_map);
    sp_coo_free(a);

    a = read_ok(fixture("tiny.el"), SP_R_64F, NULL, NULL);
    const double ones[] = {1, 1, 1, 1, 1};
    assert_entries(a, 3, 5, r, c, ones);
    sp_coo_free(a);
}
END_TEST

START_TEST(snap_options)
{
    sp_edgelist_info_t info;
    sp_edgelist_options_t o = {.drop_self_loops = 1};
    sp_coo_t *a = read_ok(fixture("tiny.el"), SP_VALUE_NONE, &o, &info);
    const int32_t r1[] = {0, 1, 2, 0}, c1[] = {1, 2, 0, 1};
    assert_entries(a, 3, 4, r1, c1, NULL);
    ck_assert_int_eq(info.self_loops_dropped, 1);
    sp_coo_free(a);

    o = (sp_edgelist_options_t){.merge_duplicates = 1};
    a = read_ok(fixture("tiny.el"), SP_VALUE_NONE, &o, &info);
    const int32_t r2[] = {0, 1, 2, 2}, c2[] = {1, 2, 0, 2};
    assert_entries(a, 3, 4, r2, c2, NULL);
    ck_assert_int_eq(info.duplicates_merged, 1);
    ck_assert_int_eq(info.edges_read, 5);
    sp_coo_free(a);

    /* Each edge followed by its reverse; the self loop once. */
    o = (sp_edgelist_options_t){.undirected = 1};
    a = read_ok(fixture("tiny.el"), SP_VALUE_NONE, &o, &info);
    const int32_t r3[] = {0, 1, 1, 2, 2, 0, 2, 0, 1}, c3[] = {1, 0, 2, 1, 0, 2, 2, 1, 0};
    assert_entries(a, 3, 9, r3, c3, NULL);
    sp_coo_free(a);

    o = (sp_edgelist_options_t){.undirected = 1, .merge_duplicates = 1, .drop_self_loops = 1};
    a = read_ok(fixture("tiny.el"), SP_VALUE_NONE, &o, &info);
    const int32_t r4[] = {0, 0, 1, 1, 2, 2}, c4[] = {1, 2, 0, 2, 0, 1};
    assert_entries(a, 3, 6, r4, c4, NULL);
    ck_assert_int_eq(info.duplicates_merged, 2);
    ck_assert_int_eq(info.self_loops_dropped, 1);
    sp_coo_free(a);

    o = (sp_edgelist_options_t){.nvertices = 5};
    a = read_ok(fixture("tiny.el"), SP_VALUE_NONE, &o, NULL);
    ck_assert_int_eq(a->nrows, 5);
    sp_coo_free(a);

    o = (sp_edgelist_options_t){.compact_ids = 1};
    a = read_ok(fixture("tiny.el"), SP_VALUE_NONE, &o, &info);
    ck_assert_int_eq(info.id_map_len, 3);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(info.id_map[i], i);
    sp_free(info.id_map);
    sp_coo_free(a);
}
END_TEST

START_TEST(snap_weights_crlf)
{
    /* Tabs and spaces, CRLF, a comment among edges and no final newline. */
    sp_edgelist_info_t info;
    sp_edgelist_options_t o = {.one_based = 1};
    const int32_t r[] = {0, 2, 1}, c[] = {1, 0, 2};
    const double w[] = {0.5, -2.25, 1000};
    sp_coo_t *a = read_ok(fixture("weighted.wel"), SP_R_64F, &o, &info);
    assert_entries(a, 3, 3, r, c, w);
    ck_assert_int_eq(info.has_weights, 1);
    sp_coo_free(a);
    a = read_ok(fixture("weighted.wel"), SP_R_32F, &o, NULL);
    assert_entries(a, 3, 3, r, c, w);
    sp_coo_free(a);
    /* 0-based: the same ids kept, so 4 vertices with vertex 0 isolated. */
    const int32_t r0[] = {1, 3, 2}, c0[] = {2, 1, 3};
    a = read_ok(fixture("weighted.wel"), SP_VALUE_NONE, NULL, &info);
    assert_entries(a, 4, 3, r0, c0, NULL);
    ck_assert_int_eq(info.has_weights, 1);
    sp_coo_free(a);
}
END_TEST

START_TEST(snap_lone_cr)
{
    const int32_t r[] = {0, 1}, c[] = {1, 0};
    sp_coo_t *a = read_ok(fixture("lonecr.el"), SP_VALUE_NONE, NULL, NULL);
    assert_entries(a, 2, 2, r, c, NULL);
    sp_coo_free(a);
}
END_TEST

START_TEST(snap_compact_large_ids)
{
    sp_coo_t *a = (sp_coo_t *)(uintptr_t)0x1;
    sp_edgelist_info_t info = {.edges_read = -7};
    ck_assert_status(sp_edgelist_read(fixture("compact.el"), SP_VALUE_NONE, NULL, &a, &info),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("compact.el:4: vertex id 3000000000 exceeds 32-bit indices");
    ck_assert_ptr_eq(a, (sp_coo_t *)(uintptr_t)0x1);
    ck_assert_int_eq(info.edges_read, -7);

    sp_edgelist_options_t o = {.compact_ids = 1};
    a = read_ok(fixture("compact.el"), SP_VALUE_NONE, &o, &info);
    const int32_t r[] = {2, 0, 1, 3}, c[] = {0, 1, 2, 0};
    assert_entries(a, 4, 4, r, c, NULL);
    const int64_t map[] = {5, 7, 100, 3000000000};
    ck_assert_int_eq(info.id_map_len, 4);
    for (int i = 0; i < 4; i++) ck_assert_int_eq(info.id_map[i], map[i]);
    sp_free(info.id_map);
    sp_coo_free(a);
}
END_TEST

/* The one-pass line path and its fallback: ids at the 32-bit limit, ids of many digits,
 * comments and blank lines between edges, tabs, trailing blanks, CRLF. */
START_TEST(snap_plain_and_general_lines)
{
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/lines.el", dir);
    FILE *f = fopen(path, "wb");
    fputs("# head\n0 2147483646 0.5\n  3\t4 \t-1e5  \r\n% mid\n\n#x y z\n"
          "00000000005 6 7\n7 8 .25", f);
    fclose(f);
    const int32_t r[] = {0, 3, 5, 7}, c[] = {2147483646, 4, 6, 8};
    const double w[] = {0.5, -1e5, 7, 0.25};
    for (int t = 1; t <= 2; t++) {
        sp_edgelist_options_t o = {.nthreads = t};
        sp_coo_t *a = read_ok(path, SP_R_64F, &o, NULL);
        assert_entries(a, INT32_MAX, 4, r, c, w);
        sp_coo_free(a);
        a = read_ok(path, SP_R_32F, &o, NULL);
        assert_entries(a, INT32_MAX, 4, r, c, w);
        sp_coo_free(a);
    }
    /* One past the largest 32-bit id, and a 10-digit id, in the middle of plain lines. */
    const char *bad[] = {"1 2\n3 2147483647\n4 5\n", "1 2\n9999999999 1\n4 5\n"};
    const char *msg[] = {"lines.el:2: vertex id 2147483647 exceeds 32-bit indices",
                         "lines.el:2: vertex id 9999999999 exceeds 32-bit indices"};
    for (int b = 0; b < 2; b++) {
        f = fopen(path, "wb");
        fputs(bad[b], f);
        fclose(f);
        for (int t = 1; t <= 2; t++) {
            sp_edgelist_options_t o = {.nthreads = t};
            sp_coo_t *a = NULL;
            ck_assert_status(sp_edgelist_read(path, SP_VALUE_NONE, &o, &a, NULL),
                             SP_STATUS_NOT_SUPPORTED);
            ck_assert_error_has(msg[b]);
        }
    }
    /* One-based: file id 2147483647 is 0-based 2147483646, the largest there is. */
    f = fopen(path, "wb");
    fputs("1 2147483647\n", f);
    fclose(f);
    sp_edgelist_options_t o1 = {.one_based = 1, .nthreads = 1};
    sp_coo_t *a = read_ok(path, SP_VALUE_NONE, &o1, NULL);
    const int32_t r1[] = {0}, c1[] = {2147483646};
    assert_entries(a, INT32_MAX, 1, r1, c1, NULL);
    sp_coo_free(a);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* With one thread the arrays are sized from the first MiB and grown: long lines first
 * and many short ones after make them grow several times, across chunk boundaries. */
START_TEST(snap_growing_arrays)
{
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/grow.wel", dir);
    FILE *f = fopen(path, "wb");
    int64_t n = 0;
    static char pad[2001];
    memset(pad, ' ', 2000);
    for (int i = 0; i < 600; i++, n++) fprintf(f, "%d %d %d%s\n", i, i + 1, i, pad);
    int64_t m = n + 400000;
    for (; n < m; n++)
        fprintf(f, "%lld %lld %lld\n", (long long)(n % 1000), (long long)(n % 777),
                (long long)n);
    fclose(f);
    for (int t = 1; t <= 2; t++) {
        sp_edgelist_options_t o = {.nthreads = t};
        sp_edgelist_info_t info;
        sp_coo_t *a = read_ok(path, SP_R_64F, &o, &info);
        ck_assert_int_eq(a->nnz, m);
        ck_assert_int_eq(info.edges_read, m);
        int64_t wrong = 0;
        for (int64_t k = 0; k < m; k++) {
            int64_t er = k < 600 ? k : k % 1000, ec = k < 600 ? k + 1 : k % 777;
            wrong += a->row[k] != er || a->col[k] != ec || ((double *)a->val)[k] != (double)k;
        }
        ck_assert_int_eq(wrong, 0);
        sp_coo_free(a);
    }
    /* An error after the arrays grew names its line. */
    f = fopen(path, "ab");
    fputs("1 2 x\n", f);
    fclose(f);
    for (int t = 1; t <= 2; t++) {
        sp_edgelist_options_t o = {.nthreads = t};
        sp_coo_t *a = NULL;
        char expect[64];
        snprintf(expect, sizeof expect, "grow.wel:%lld: weight expected, found 'x'",
                 (long long)m + 1);
        ck_assert_status(sp_edgelist_read(path, SP_R_64F, &o, &a, NULL), SP_STATUS_PARSE_ERROR);
        ck_assert_error_has(expect);
    }
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A weight for snap_fast_weights, inside the float range: hand-picked forms first, then
 * random decimal strings of up to 20 integer and 25 fraction digits with an optional
 * exponent. */
static void fast_weight_text(int i, uint64_t *seed, char *buf, size_t cap)
{
    static const char *const picked[] = {
        "0.30666838450943479", "1", "-2.5", "+3", "1e5", "1E-5", "0", "-0", ".5", "5.",
        "00012.5000", "0.1", "9007199254740993", "3.4028234663852886e38",
        "2.2250738585072014e-308", "4.9e-324", "1e-400", "inf", "-Infinity", "nan",
        "1.00000000000000011102230246251565404236316680908203125",
        "3.14159265358979323846264338327950288", "123456789012345678901234567890"};
    int npicked = (int)(sizeof picked / sizeof picked[0]);
    if (i < npicked) {
        snprintf(buf, cap, "%s", picked[i]);
        return;
    }
    uint64_t r = sp_test_rand(seed);
    int ni = (int)(r % 21), nf = (int)((r >> 8) % 26), dot = (r >> 16) % 4 != 0;
    size_t n = 0;
    if ((r >> 20) % 8 == 0) buf[n++] = '-';
    for (int d = 0; d < ni; d++) buf[n++] = (char)('0' + sp_test_rand(seed) % 10);
    if (ni == 0) buf[n++] = '0';
    if (dot) buf[n++] = '.';
    for (int d = 0; dot && d < nf; d++) buf[n++] = (char)('0' + sp_test_rand(seed) % 10);
    buf[n] = '\0';
    int e = (int)((r >> 32) % 99) - 60;
    if (e > 37 - ni) e = 37 - ni;
    if ((r >> 24) % 3 == 0) snprintf(buf + n, cap - n, "e%d", e);
}

/* The fast line path against strtod / strtof: every weight bit-identical, for each
 * weight type and thread count, on lines long enough that the path takes them; SNAP
 * (_i 0) and DIMACS (_i 1). */
START_TEST(fast_line_weights)
{
    enum { N = 3000 };
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fast.%s", dir, _i ? "gr" : "wel");
    static char text[N][64];
    uint64_t seed = 11;
    FILE *f = fopen(path, "wb");
    if (_i) fprintf(f, "p sp 1000 %d\n", N);
    for (int k = 0; k < N; k++) {
        fast_weight_text(k, &seed, text[k], sizeof text[k]);
        fprintf(f, "%s%d%s%d %s\n", _i ? "a " : "", k % 1000 + _i, k % 7 ? " " : "\t",
                (k * 31) % 1000 + _i, text[k]);
    }
    fclose(f);
    for (int t = 1; t <= 2; t++) {
        sp_edgelist_options_t o = {.nthreads = t};
        sp_coo_t *a = read_ok(path, SP_R_64F, &o, NULL), *b = read_ok(path, SP_R_32F, &o, NULL);
        sp_coo_t *c = read_ok(path, SP_VALUE_NONE, &o, NULL);
        ck_assert_int_eq(a->nnz, N);
        ck_assert_int_eq(b->nnz, N);
        ck_assert_int_eq(c->nnz, N);
        for (int k = 0; k < N; k++) {
            double d = strtod(text[k], NULL), got = ((double *)a->val)[k];
            float x = strtof(text[k], NULL), gotf = ((float *)b->val)[k];
            ck_assert_msg(a->row[k] == k % 1000 && a->col[k] == (k * 31) % 1000 &&
                              c->row[k] == a->row[k] && c->col[k] == a->col[k],
                          "edge %d", k);
            ck_assert_msg((isnan(d) && isnan(got)) || memcmp(&d, &got, sizeof d) == 0,
                          "f64 weight \"%s\": %.17g, strtod %.17g", text[k], got, d);
            ck_assert_msg((isnan(x) && isnan(gotf)) || memcmp(&x, &gotf, sizeof x) == 0,
                          "f32 weight \"%s\": %.9g, strtof %.9g", text[k], gotf, x);
        }
        sp_coo_free(a);
        sp_coo_free(b);
        sp_coo_free(c);
    }
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Refusals on a line amid lines the fast path takes (20 before, 20 after): the same
 * status and file:line message as anywhere else (DIMACS files get the problem line
 * "p sp 4 41" first, so their line numbers are one more). */
static const struct fast_case {
    const char *file;
    const char *line;
    int one_based;
    int64_t nvertices;
    sp_status_t status;
    const char *text;
} fast_cases[] = {
    {"fast.wel", "1 x 0.5", 0, 0, SP_STATUS_PARSE_ERROR, ":21: vertex id expected, found 'x'"},
    {"fast.wel", "1 -3 0.5", 0, 0, SP_STATUS_PARSE_ERROR, ":21: negative vertex id -3"},
    {"fast.wel", "1 2", 0, 0, SP_STATUS_PARSE_ERROR, ":21: 2 fields; the first edge line (line 1) has 3"},
    {"fast.wel", "1 2 0.5 7", 0, 0, SP_STATUS_PARSE_ERROR, ":21: 4 fields; the first edge line (line 1) has 3"},
    {"fast.wel", "1 2 abc", 0, 0, SP_STATUS_PARSE_ERROR, ":21: weight expected, found 'abc'"},
    {"fast.wel", "1 2 0.5x", 0, 0, SP_STATUS_PARSE_ERROR, ":21: weight expected, found '0.5x'"},
    {"fast.wel", "1 2 1e999", 0, 0, SP_STATUS_PARSE_ERROR, ":21: weight '1e999' out of range"},
    {"fast.wel", "1 2147483647 0.5", 0, 0, SP_STATUS_NOT_SUPPORTED, ":21: vertex id 2147483647 exceeds 32-bit indices"},
    {"fast.wel", "0 2 0.5", 1, 0, SP_STATUS_PARSE_ERROR, ":21: vertex id 0, but ids start at 1"},
    {"fast.wel", "1 5 0.5", 0, 5, SP_STATUS_PARSE_ERROR, ":21: vertex id 5 outside 0..4"},
    {"fast.wel", "1 2 0.5", 0, 2, SP_STATUS_PARSE_ERROR, ":21: vertex id 2 outside 0..1"},
    {"fast.gr", "a 1 5 0.5", 0, 0, SP_STATUS_PARSE_ERROR, ":22: vertex id 5 outside 1..4"},
    {"fast.gr", "a 0 2 0.5", 0, 0, SP_STATUS_PARSE_ERROR, ":22: vertex id 0, but ids start at 1"},
    {"fast.gr", "a 1 2", 0, 0, SP_STATUS_PARSE_ERROR, ":22: 3 fields; an arc line is 'a u v w'"},
    {"fast.gr", "a 1 2 x", 0, 0, SP_STATUS_PARSE_ERROR, ":22: weight expected, found 'x'"},
    {"fast.gr", "b 1 2 0.5", 0, 0, SP_STATUS_PARSE_ERROR, ":22: line type c, p or a expected, found 'b'"},
    {"fast.gr", "p sp 4 41", 0, 0, SP_STATUS_PARSE_ERROR, ":22: second problem line (the first is line 1)"},
};

START_TEST(fast_line_refusals)
{
    const struct fast_case *fc = &fast_cases[_i];
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%s", dir, fc->file);
    int dimacs = strstr(fc->file, ".gr") != NULL;
    FILE *f = fopen(path, "wb");
    if (dimacs) fputs("p sp 4 41\n", f);
    for (int k = 0; k < 41; k++)
        fprintf(f, "%s\n", k == 20 ? fc->line : dimacs ? "a 1 1 0.25" : "1 1 0.25");
    fclose(f);
    for (int t = 1; t <= 2; t++) {
        sp_edgelist_options_t o = {.one_based = fc->one_based, .nvertices = fc->nvertices,
                                   .nthreads = t};
        sp_coo_t *a = NULL;
        ck_assert_status(sp_edgelist_read(path, SP_R_64F, &o, &a, NULL), fc->status);
        ck_assert_error_has(fc->text);
        ck_assert_ptr_null(a);
    }
    unlink(path);
    rmdir(dir);
}
END_TEST

/* ---- DIMACS and METIS ---- */

START_TEST(dimacs_tiny)
{
    sp_edgelist_info_t info;
    sp_coo_t *a = read_ok(fixture("tiny.gr"), SP_R_64F, NULL, &info);
    const int32_t r[] = {0, 1, 2, 3, 0}, c[] = {1, 2, 0, 3, 1};
    const double w[] = {7, 1.5, 2, 3, 9};
    assert_entries(a, 4, 5, r, c, w);
    ck_assert_int_eq(info.has_weights, 1);
    sp_coo_free(a);

    sp_edgelist_options_t o = {.merge_duplicates = 1};
    a = read_ok(fixture("tiny.gr"), SP_R_32F, &o, &info);
    const int32_t rm[] = {0, 1, 2, 3}, cm[] = {1, 2, 0, 3};
    const double wm[] = {7, 1.5, 2, 3}; /* the first of the two 1 -> 2 arcs is kept */
    assert_entries(a, 4, 4, rm, cm, wm);
    ck_assert_int_eq(info.duplicates_merged, 1);
    sp_coo_free(a);

    o = (sp_edgelist_options_t){.nvertices = 6};
    a = read_ok(fixture("tiny.gr"), SP_VALUE_NONE, &o, NULL);
    ck_assert_int_eq(a->nrows, 6);
    sp_coo_free(a);

    o = (sp_edgelist_options_t){.compact_ids = 1};
    a = read_ok(fixture("tiny.gr"), SP_VALUE_NONE, &o, &info);
    ck_assert_int_eq(info.id_map_len, 4);
    ck_assert_int_eq(info.id_map[0], 1); /* ids as the file writes them */
    ck_assert_int_eq(info.id_map[3], 4);
    sp_free(info.id_map);
    sp_coo_free(a);
}
END_TEST

START_TEST(metis_tiny)
{
    sp_edgelist_info_t info;
    sp_coo_t *a = read_ok(fixture("tiny.graph"), SP_VALUE_NONE, NULL, &info);
    const int32_t r[] = {0, 0, 1, 1, 1, 2, 2, 3}, c[] = {1, 2, 0, 2, 3, 0, 1, 1};
    assert_entries(a, 4, 8, r, c, NULL);
    ck_assert_int_eq(info.edges_read, 8);
    sp_coo_free(a);

    a = read_ok(fixture("weighted.graph"), SP_R_64F, NULL, &info);
    const int32_t rw[] = {0, 1, 1, 2}, cw[] = {1, 0, 2, 1};
    const double w[] = {5, 5, 7, 7};
    assert_entries(a, 3, 4, rw, cw, w);
    ck_assert_int_eq(info.has_weights, 1);
    sp_coo_free(a);

    /* Blank lines are isolated vertices; one more blank line at the end is tolerated. */
    a = read_ok(fixture("isolated.graph"), SP_VALUE_NONE, NULL, NULL);
    const int32_t ri[] = {1, 2}, ci[] = {2, 1};
    assert_entries(a, 5, 2, ri, ci, NULL);
    sp_coo_free(a);
}
END_TEST

START_TEST(format_choice)
{
    /* The .graph file read as SNAP text by option: its header becomes an edge line. */
    sp_edgelist_options_t o = {.format = SP_EDGELIST_SNAP};
    sp_coo_t *a = NULL;
    ck_assert_status(sp_edgelist_read(fixture("tiny.graph"), SP_VALUE_NONE, &o, &a, NULL),
                     SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("tiny.graph:4: 3 fields; the first edge line (line 2) has 2");

    /* gzip: the .gz suffix is stripped before the extension decides. */
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/tiny.gr.gz", dir);
#ifdef SP_HAVE_ZLIB
    gzFile gz = gzopen(path, "wb");
    ck_assert_ptr_nonnull(gz);
    gzputs(gz, "c gz\np sp 3 2\na 1 2 4\na 3 1 5\n");
    gzclose(gz);
    a = read_ok(path, SP_R_64F, NULL, NULL);
    const int32_t r[] = {0, 2}, c[] = {1, 0};
    const double w[] = {4, 5};
    assert_entries(a, 3, 2, r, c, w);
    sp_coo_free(a);
#else
    /* built without zlib: the DIMACS reader is chosen, then the gzip stream refused */
    char cmd[200];
    snprintf(cmd, sizeof cmd, "printf 'p sp 3 1\\na 1 2 4\\n' | gzip -c > '%s'", path);
    ck_assert_int_eq(system(cmd), 0);
    a = NULL;
    ck_assert_status(sp_edgelist_read(path, SP_R_64F, NULL, &a, NULL), SP_STATUS_NOT_COMPILED);
    ck_assert_error_has("tiny.gr.gz: gzip input needs zlib");
    ck_assert_ptr_null(a);
#endif
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(empty_inputs)
{
    /* No edges at all: an empty graph (nvertices still applies), never an error. */
    const char *texts[] = {"", "# only a comment\r\n\n", "c x\np sp 0 0\n", "0 0\n",
                           "p sp 3 0\n"};
    const char *names[] = {"e.el", "c.el", "z.gr", "z.graph", "three.gr"};
    const int64_t n[] = {0, 0, 0, 0, 3};
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "wb");
        fputs(texts[i], f);
        fclose(f);
        sp_edgelist_info_t info;
        sp_coo_t *a = read_ok(path, SP_R_64F, NULL, &info);
        ck_assert_int_eq(a->nnz, 0);
        ck_assert_int_eq(a->nrows, n[i]);
        ck_assert_int_eq(info.edges_read, 0);
        sp_coo_free(a);
        sp_edgelist_options_t o = {.nvertices = 4, .compact_ids = i == 0};
        a = read_ok(path, SP_VALUE_NONE, &o, &info);
        ck_assert_int_eq(a->nrows, i == 0 ? 0 : 4);
        sp_free(info.id_map);
        sp_coo_free(a);
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

/* ---- the shipped graphs ---- */

START_TEST(real_ca_hepth)
{
    sp_edgelist_info_t info;
    sp_edgelist_options_t o = {.compact_ids = 1};
    sp_coo_t *a = read_ok(graph("CA-HepTh.txt"), SP_VALUE_NONE, &o, &info);
    ck_assert_int_eq(a->nrows, 9877);
    ck_assert_int_eq(a->nnz, 51971);
    ck_assert_int_eq(info.id_map_len, 9877);
    ck_assert_int_eq(info.id_map[0], 1);
    ck_assert_int_eq(info.id_map[9876], 68745);
    sp_free(info.id_map);
    sp_coo_free(a);
    a = read_ok(graph("CA-HepTh.txt"), SP_VALUE_NONE, NULL, NULL);
    ck_assert_int_eq(a->nrows, 68746);
    sp_coo_free(a);
    /* Stored in both directions: undirected + merge gives the edges back (loops once). */
    o = (sp_edgelist_options_t){.undirected = 1, .merge_duplicates = 1};
    a = read_ok(graph("CA-HepTh.txt"), SP_VALUE_NONE, &o, &info);
    ck_assert_int_eq(a->nnz, 51971);
    ck_assert_int_eq(info.duplicates_merged, 103917 - 51971);
    sp_coo_free(a);
}
END_TEST

START_TEST(real_snap_graphs)
{
    sp_edgelist_info_t info;
    sp_coo_t *a = read_ok(graph("p2p-Gnutella08.txt"), SP_VALUE_NONE, NULL, &info);
    ck_assert_int_eq(a->nrows, 6301);
    ck_assert_int_eq(a->nnz, 20777);
    sp_coo_free(a);

    a = read_ok(graph("facebook_combined.txt"), SP_VALUE_NONE, NULL, NULL);
    ck_assert_int_eq(a->nrows, 4039);
    ck_assert_int_eq(a->nnz, 88234);
    sp_coo_free(a);
    sp_edgelist_options_t o = {.undirected = 1};
    a = read_ok(graph("facebook_combined.txt"), SP_VALUE_NONE, &o, NULL);
    ck_assert_int_eq(a->nnz, 176468);
    sp_coo_free(a);

    o = (sp_edgelist_options_t){.drop_self_loops = 1};
    a = read_ok(graph("email-Eu-core.txt"), SP_VALUE_NONE, &o, &info);
    ck_assert_int_eq(info.self_loops_dropped, 642);
    ck_assert_int_eq(info.edges_read, 25571);
    ck_assert_int_eq(a->nnz, 25571 - 642);
    ck_assert_int_eq(a->nrows, 1005);
    sp_coo_free(a);
    o = (sp_edgelist_options_t){.drop_self_loops = 1, .undirected = 1, .merge_duplicates = 1};
    a = read_ok(graph("email-Eu-core.txt"), SP_VALUE_NONE, &o, NULL);
    ck_assert_int_eq(a->nnz, 32128);
    sp_coo_free(a);

    o = (sp_edgelist_options_t){.compact_ids = 1, .nthreads = 3};
    a = read_ok(graph("Wiki-Vote.txt"), SP_VALUE_NONE, &o, &info);
    ck_assert_int_eq(a->nnz, 103689);
    ck_assert_int_eq(a->nrows, 7115);
    ck_assert_int_eq(info.id_map[0], 3);
    ck_assert_int_eq(info.id_map[7114], 8297);
    sp_free(info.id_map);
    sp_coo_free(a);
}
END_TEST

static double sum_values(const sp_coo_t *a)
{
    double s = 0;
    for (int64_t k = 0; k < a->nnz; k++) s += ((const double *)a->val)[k];
    return s;
}

START_TEST(real_dimacs_metis)
{
    sp_edgelist_info_t info;
    sp_coo_t *a = read_ok(graph("rome99.gr"), SP_R_64F, NULL, &info);
    ck_assert_int_eq(a->nrows, 3353);
    ck_assert_int_eq(a->nnz, 8870);
    ck_assert_int_eq(info.edges_read, 8870);
    ck_assert_double_eq(sum_values(a), 4721692.0);
    ck_assert(a->row[0] == 2957 && a->col[0] == 2958); /* "a 2958 2959 535" */
    sp_coo_free(a);
    sp_edgelist_options_t o = {.merge_duplicates = 1};
    a = read_ok(graph("rome99.gr"), SP_R_64F, &o, &info);
    ck_assert_int_eq(info.duplicates_merged, 11);
    ck_assert_int_eq(a->nnz, 8859);
    ck_assert_double_eq(sum_values(a), 4717244.0); /* first of each parallel arc kept */
    sp_coo_free(a);

    a = read_ok(graph("gapbs-4.graph"), SP_VALUE_NONE, NULL, &info);
    ck_assert_int_eq(a->nrows, 14);
    ck_assert_int_eq(a->nnz, 53);
    ck_assert(a->row[0] == 0 && a->col[0] == 1 && a->row[52] == 13 && a->col[52] == 11);
    sp_coo_free(a);
}
END_TEST

/* ---- randomized, many chunks ---- */

typedef struct edges {
    int64_t n;
    int32_t *src, *dst;
    double *w;
} edges_t;

/* A SNAP file of n random weighted edges with comments, blank lines, mixed blanks and
 * CRLF line ends; the edges are returned. */
static edges_t write_random_snap(const char *path, int64_t n, uint64_t seed)
{
    edges_t e = {n, malloc((size_t)n * 4), malloc((size_t)n * 4), malloc((size_t)n * 8)};
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("# random graph\n", f);
    for (int64_t k = 0; k < n; k++) {
        uint64_t r = sp_test_rand(&seed);
        e.src[k] = (int32_t)(r % 50000);
        e.dst[k] = (int32_t)((r >> 20) % 50000);
        e.w[k] = (double)(int64_t)(r >> 44) / 64.0;
        if (r % 97 == 0) fputs("% comment\n", f);
        if (r % 89 == 0) fputs("\n", f);
        fprintf(f, "%d%s%d %.17g%s", e.src[k], r % 3 ? "\t" : "  ", e.dst[k], e.w[k],
                r % 5 ? "\n" : "\r\n");
    }
    fclose(f);
    return e;
}

START_TEST(random_snap_chunks)
{
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/random.wel", dir);
    edges_t e = write_random_snap(path, 200000, 7);
    int threads[] = {1, 4, 16};
    for (int t = 0; t < 3; t++) {
        sp_edgelist_options_t o = {.nthreads = threads[t]};
        sp_coo_t *a = read_ok(path, SP_R_64F, &o, NULL);
        ck_assert_int_eq(a->nnz, e.n);
        int64_t wrong = 0;
        for (int64_t k = 0; k < e.n; k++)
            wrong += a->row[k] != e.src[k] || a->col[k] != e.dst[k] ||
                     ((double *)a->val)[k] != e.w[k];
        ck_assert_int_eq(wrong, 0);
        sp_coo_free(a);
    }
    /* Errors deep in the file, in different chunks: the first one in the file wins. */
    FILE *f = fopen(path, "ab");
    fputs("1 2 3\n1 oops 3\n1 2\n", f);
    fclose(f);
    FILE *g = fopen(path, "rb");
    int64_t lines = 0;
    for (int ch; (ch = fgetc(g)) != EOF;) lines += ch == '\n';
    fclose(g);
    char expect[128];
    snprintf(expect, sizeof expect, "random.wel:%lld: vertex id expected, found 'oops'",
             (long long)lines - 1);
    for (int t = 0; t < 3; t++) {
        sp_edgelist_options_t o = {.nthreads = threads[t]};
        sp_coo_t *a = NULL;
        ck_assert_status(sp_edgelist_read(path, SP_R_64F, &o, &a, NULL), SP_STATUS_PARSE_ERROR);
        ck_assert_error_has(expect);
    }
    free(e.src);
    free(e.dst);
    free(e.w);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(random_metis_chunks)
{
    /* A random symmetric graph as METIS lists, with comment lines between vertices: the
     * vertex of each line must come out right in every chunk. */
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/random.graph", dir);
    const int n = 30000, deg = 8;
    int32_t *adj = malloc((size_t)n * deg * sizeof *adj);
    int *len = calloc((size_t)n, sizeof *len);
    uint64_t seed = 11;
    int64_t m = 0;
    for (int u = 0; u < n; u++) /* each vertex links to up to deg/2 higher ones */
        for (int j = 0; j < deg / 2; j++) {
            int v = u + 1 + (int)(sp_test_rand(&seed) % 50);
            if (v >= n || len[u] >= deg || len[v] >= deg) continue;
            adj[u * deg + len[u]++] = v;
            adj[v * deg + len[v]++] = u;
            m++;
        }
    FILE *f = fopen(path, "wb");
    fprintf(f, "%% random\n%d %lld\n", n, (long long)m);
    for (int u = 0; u < n; u++) {
        if (u % 7 == 3) fputs("% between vertices\n", f);
        for (int j = 0; j < len[u]; j++) fprintf(f, "%d ", adj[u * deg + j] + 1);
        fputs("\n", f);
    }
    fclose(f);
    for (int t = 1; t <= 8; t *= 8) {
        sp_edgelist_options_t o = {.nthreads = t};
        sp_coo_t *a = read_ok(path, SP_VALUE_NONE, &o, NULL);
        ck_assert_int_eq(a->nrows, n);
        ck_assert_int_eq(a->nnz, 2 * m);
        int64_t k = 0, wrong = 0;
        for (int u = 0; u < n; u++)
            for (int j = 0; j < len[u]; j++, k++)
                wrong += a->row[k] != u || a->col[k] != adj[u * deg + j];
        ck_assert_int_eq(wrong, 0);
        sp_coo_free(a);
    }
    free(adj);
    free(len);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A METIS file of n vertices whose adjacency lines the fast path takes (blank lines,
 * leading, trailing and tab blanks included), written with '\n' or with "\r\n" ends, which
 * send every line to the line walk: both must give the same entries, the weights
 * bit-identical to strtod / strtof (fast_weight_text's forms, the hard ones included). */
static void write_metis(const char *path, int weighted, int crlf, char (*text)[64], int32_t *adj,
                        int *len, int n, int deg)
{
    FILE *f = fopen(path, "wb");
    int64_t m = 0;
    for (int u = 0; u < n; u++) m += len[u];
    fprintf(f, "%d %lld%s%s", n, (long long)m, weighted ? " 1" : "", crlf ? "\r\n" : "\n");
    for (int u = 0; u < n; u++) {
        if (u % 11 == 5) fputs(u % 2 ? "  " : "\t", f);
        for (int j = 0; j < len[u]; j++) {
            fprintf(f, "%s%d", j ? (j % 5 ? " " : "\t ") : "", adj[u * deg + j] + 1);
            if (weighted) fprintf(f, " %s", text[u * deg + j]);
        }
        if (u % 13 == 7) fputs(" ", f);
        fputs(crlf ? "\r\n" : "\n", f);
    }
    fclose(f);
}

START_TEST(metis_fast_adjacency)
{
    enum { N = 600, DEG = 12 };
    int weighted = _i;
    char dir[] = "/tmp/sp_el_XXXXXX", path[2][64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static char text[N * DEG][64];
    static int32_t adj[N * DEG];
    static int len[N];
    uint64_t seed = 5;
    int wk = 0;
    for (int u = 0; u < N; u++) {
        len[u] = u % 17 == 3 ? 0 : (int)(sp_test_rand(&seed) % (DEG + 1));
        if (u == 100) len[u] = DEG; /* a line longer than the fast window */
        for (int j = 0; j < len[u]; j++) {
            adj[u * DEG + j] = (int32_t)(sp_test_rand(&seed) % N);
            fast_weight_text(wk++, &seed, text[u * DEG + j], sizeof text[0]);
        }
    }
    for (int crlf = 0; crlf < 2; crlf++) {
        snprintf(path[crlf], sizeof path[crlf], "%s/adj%d.graph", dir, crlf);
        write_metis(path[crlf], weighted, crlf, text, adj, len, N, DEG);
    }
    for (int t = 1; t <= 8; t *= 2) {
        sp_edgelist_options_t o = {.nthreads = t};
        for (int crlf = 0; crlf < 2; crlf++) {
            sp_coo_t *a = read_ok(path[crlf], SP_R_64F, &o, NULL);
            sp_coo_t *b = read_ok(path[crlf], SP_R_32F, &o, NULL);
            sp_coo_t *c = read_ok(path[crlf], SP_VALUE_NONE, &o, NULL);
            ck_assert_int_eq(a->nrows, N);
            int64_t k = 0;
            for (int u = 0; u < N; u++)
                for (int j = 0; j < len[u]; j++, k++) {
                    ck_assert_msg(a->row[k] == u && a->col[k] == adj[u * DEG + j] &&
                                      b->row[k] == u && c->col[k] == a->col[k],
                                  "entry %lld (crlf %d, %d threads)", (long long)k, crlf, t);
                    const char *w = text[u * DEG + j];
                    double d = weighted ? strtod(w, NULL) : 1.0, got = ((double *)a->val)[k];
                    float x = weighted ? strtof(w, NULL) : 1.0f, gotf = ((float *)b->val)[k];
                    ck_assert_msg((isnan(d) && isnan(got)) || memcmp(&d, &got, sizeof d) == 0,
                                  "f64 weight \"%s\": %.17g, strtod %.17g", w, got, d);
                    ck_assert_msg((isnan(x) && isnan(gotf)) || memcmp(&x, &gotf, sizeof x) == 0,
                                  "f32 weight \"%s\": %.9g, strtof %.9g", w, gotf, x);
                }
            ck_assert_int_eq(a->nnz, k);
            ck_assert_int_eq(b->nnz, k);
            ck_assert_int_eq(c->nnz, k);
            sp_coo_free(a);
            sp_coo_free(b);
            sp_coo_free(c);
        }
    }
    unlink(path[0]);
    unlink(path[1]);
    rmdir(dir);
}
END_TEST

/* Refusals on vertex line 21 of 41 whose other lines the fast path takes: the same status
 * and file:line message as from the line walk (the header is line 1, so the bad line is
 * line 22). Vertex 21 lists what the case gives; the others "1 0.25 2 0.5" with weights
 * (fmt 1), "1 2" without. */
static const struct metis_case {
    int weighted;
    const char *line;
    sp_status_t status;
    const char *text;
} metis_cases[] = {
    {1, "1 0.25 x 0.5", SP_STATUS_PARSE_ERROR, ":22: vertex id expected, found 'x'"},
    {1, "1 0.25 2", SP_STATUS_PARSE_ERROR, ":22: neighbour 2 has no weight"},
    {1, "3", SP_STATUS_PARSE_ERROR, ":22: neighbour 3 has no weight"},
    {1, "1 0.25 2 abc", SP_STATUS_PARSE_ERROR, ":22: weight expected, found 'abc'"},
    {1, "1 0.25 2 0.5x", SP_STATUS_PARSE_ERROR, ":22: weight expected, found '0.5x'"},
    {1, "1 1e999", SP_STATUS_PARSE_ERROR, ":22: weight '1e999' out of range"},
    {1, "1 0.25 42 0.5", SP_STATUS_PARSE_ERROR, ":22: vertex id 42 outside 1..41"},
    {1, "0 0.25", SP_STATUS_PARSE_ERROR, ":22: vertex id 0, but ids start at 1"},
    {1, "1 0.25 -2 0.5", SP_STATUS_PARSE_ERROR, ":22: negative vertex id -2"},
    {1, "1 0.25 2147483648 0.5", SP_STATUS_PARSE_ERROR, ":22: vertex id 2147483648 outside 1..41"},
    {0, "1 x", SP_STATUS_PARSE_ERROR, ":22: vertex id expected, found 'x'"},
    {0, "1 2.5", SP_STATUS_PARSE_ERROR, ":22: vertex id expected, found '2.5'"},
    {0, "1 42", SP_STATUS_PARSE_ERROR, ":22: vertex id 42 outside 1..41"},
    {0, "0 2", SP_STATUS_PARSE_ERROR, ":22: vertex id 0, but ids start at 1"},
    {0, "1 99999999999999999999", SP_STATUS_PARSE_ERROR, ":22: vertex id '99999999999999999999' exceeds 64 bits"},
};

START_TEST(metis_fast_refusals)
{
    const struct metis_case *mc = &metis_cases[_i];
    char dir[] = "/tmp/sp_el_XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bad.graph", dir);
    FILE *f = fopen(path, "wb");
    fprintf(f, "41 82%s\n", mc->weighted ? " 1" : "");
    for (int k = 0; k < 41; k++)
        fprintf(f, "%s\n", k == 20 ? mc->line : mc->weighted ? "1 0.25 2 0.5" : "1 2");
    fclose(f);
    for (int t = 1; t <= 2; t++) {
        sp_edgelist_options_t o = {.nthreads = t};
        sp_coo_t *a = NULL;
        ck_assert_status(sp_edgelist_read(path, SP_R_64F, &o, &a, NULL), mc->status);
        ck_assert_error_has(mc->text);
        ck_assert_ptr_null(a);
    }
    /* More vertex lines than declared, amid fast lines: the 42nd is refused. */
    f = fopen(path, "wb");
    fputs("41 41\n", f);
    for (int k = 0; k < 45; k++) fputs("2\n", f);
    fclose(f);
    sp_coo_t *a = NULL;
    ck_assert_status(sp_edgelist_read(path, SP_VALUE_NONE, NULL, &a, NULL), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has(":43: more vertex lines than the 41 the header (line 1) declares");
    unlink(path);
    rmdir(dir);
}
END_TEST

/* ---- malformed input ---- */

static const struct bad_case {
    const char *file;
    int one_based;
    sp_status_t status;
    const char *text;
} bad_cases[] = {
    {"b01_nonnumeric.el", 0, SP_STATUS_PARSE_ERROR, "b01_nonnumeric.el:2: vertex id expected, found 'x'"},
    {"b02_negative.el", 0, SP_STATUS_PARSE_ERROR, "b02_negative.el:3: negative vertex id -3"},
    {"b03_missing_col.el", 0, SP_STATUS_PARSE_ERROR, "b03_missing_col.el:2: 1 field; the first edge line (line 1) has 2"},
    {"b04_extra_col.el", 0, SP_STATUS_PARSE_ERROR, "b04_extra_col.el:2: 3 fields; the first edge line (line 1) has 2"},
    {"b05_inconsistent.el", 0, SP_STATUS_PARSE_ERROR, "b05_inconsistent.el:2: 2 fields; the first edge line (line 1) has 3"},
    {"b06_bad_weight.wel", 0, SP_STATUS_PARSE_ERROR, "b06_bad_weight.wel:2: weight expected, found 'abc'"},
    {"b07_four_cols.el", 0, SP_STATUS_PARSE_ERROR, "b07_four_cols.el:2: 4 fields; an edge line is"},
    {"b08_zero_one_based.el", 1, SP_STATUS_PARSE_ERROR, "b08_zero_one_based.el:2: vertex id 0, but ids start at 1"},
    {"b09_id_overflow.el", 0, SP_STATUS_PARSE_ERROR, "b09_id_overflow.el:2: vertex id '99999999999999999999' exceeds 64 bits"},
    {"b10_crlf.el", 0, SP_STATUS_PARSE_ERROR, "b10_crlf.el:4: vertex id expected, found 'y'"},
    {"b11_arc_before_p.gr", 0, SP_STATUS_PARSE_ERROR, "b11_arc_before_p.gr:2: arc before the problem line"},
    {"b12_dup_p.gr", 0, SP_STATUS_PARSE_ERROR, "b12_dup_p.gr:2: second problem line (the first is line 1)"},
    {"b13_arc_count.gr", 0, SP_STATUS_PARSE_ERROR, "b13_arc_count.gr:1: the problem line declares 3 arcs, the file has 2"},
    {"b14_id_range.gr", 0, SP_STATUS_PARSE_ERROR, "b14_id_range.gr:2: vertex id 4 outside 1..3"},
    {"b15_no_p.gr", 0, SP_STATUS_PARSE_ERROR, "b15_no_p.gr:2: end of file before the problem line"},
    {"b16_short_arc.gr", 0, SP_STATUS_PARSE_ERROR, "b16_short_arc.gr:2: 3 fields; an arc line is 'a u v w'"},
    {"b17_line_type.gr", 0, SP_STATUS_PARSE_ERROR, "b17_line_type.gr:2: line type c, p or a expected, found 'x'"},
    {"b18_problem_type.gr", 0, SP_STATUS_PARSE_ERROR, "b18_problem_type.gr:1: problem type 'sp' expected, found 'max'"},
    {"b19_entry_count.graph", 0, SP_STATUS_PARSE_ERROR, "b19_entry_count.graph:1: the header declares 3 edges"},
    {"b20_too_many_lines.graph", 0, SP_STATUS_PARSE_ERROR, "b20_too_many_lines.graph:4: more vertex lines than the 2"},
    {"b21_header.graph", 0, SP_STATUS_PARSE_ERROR, "b21_header.graph:2: header 'n m [fmt [ncon]]': edge count expected, found 'x'"},
    {"b22_fmt.graph", 0, SP_STATUS_NOT_SUPPORTED, "b22_fmt.graph:1: METIS fmt 11 is not supported"},
    {"b23_no_weight.graph", 0, SP_STATUS_PARSE_ERROR, "b23_no_weight.graph:3: neighbour 1 has no weight"},
    {"b24_nonnumeric.graph", 0, SP_STATUS_PARSE_ERROR, "b24_nonnumeric.graph:3: vertex id expected, found 'q'"},
    {"b25_id_range.graph", 0, SP_STATUS_PARSE_ERROR, "b25_id_range.graph:2: vertex id 3 outside 1..2"},
    {"b26_no_header.graph", 0, SP_STATUS_PARSE_ERROR, "b26_no_header.graph:2: end of file before the header"},
};

START_TEST(malformed)
{
    const struct bad_case *bc = &bad_cases[_i];
    char rel[128];
    snprintf(rel, sizeof rel, "bad/%s", bc->file);
    sp_edgelist_options_t o = {.one_based = bc->one_based};
    sp_coo_t *a = (sp_coo_t *)(uintptr_t)0x1;
    sp_edgelist_info_t info = {.edges_read = -5};
    ck_assert_status(sp_edgelist_read(fixture(rel), SP_R_64F, &o, &a, &info), bc->status);
    ck_assert_error_has(bc->text);
    ck_assert_ptr_eq(a, (sp_coo_t *)(uintptr_t)0x1);
    ck_assert_int_eq(info.edges_read, -5);
}
END_TEST

START_TEST(id_limits)
{
    sp_coo_t *a = NULL;
    sp_edgelist_options_t o = {.nvertices = 2};
    ck_assert_status(sp_edgelist_read(fixture("tiny.el"), SP_VALUE_NONE, &o, &a, NULL),
                     SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("tiny.el:4: vertex id 2 outside 0..1");
    o = (sp_edgelist_options_t){.nvertices = 3};
    ck_assert_status(sp_edgelist_read(fixture("tiny.gr"), SP_VALUE_NONE, &o, &a, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("nvertices 3 is below the 4 vertices");
    o = (sp_edgelist_options_t){.nvertices = (int64_t)1 << 31};
    ck_assert_status(sp_edgelist_read(fixture("tiny.el"), SP_VALUE_NONE, &o, &a, NULL),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("nvertices 2147483648 exceeds 32-bit indices");
}
END_TEST

START_TEST(bad_arguments)
{
    sp_coo_t *a = NULL;
    sp_edgelist_options_t o = {0};
    ck_assert_status(sp_edgelist_read(NULL, SP_VALUE_NONE, NULL, &a, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_edgelist_read(fixture("tiny.el"), SP_VALUE_NONE, NULL, NULL, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_edgelist_read(fixture("tiny.el"), (sp_value_type_t)5, NULL, &a, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown value type 5");
    o.format = (sp_edgelist_format_t)9;
    ck_assert_status(sp_edgelist_read(fixture("tiny.el"), SP_VALUE_NONE, &o, &a, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown format 9");
    o = (sp_edgelist_options_t){.nvertices = -1};
    ck_assert_status(sp_edgelist_read(fixture("tiny.el"), SP_VALUE_NONE, &o, &a, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_edgelist_read(fixture("missing.el"), SP_VALUE_NONE, NULL, &a, NULL),
                     SP_STATUS_IO_ERROR);
    ck_assert_error_has("missing.el");
    ck_assert_ptr_null(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("edgelist");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, snap_tiny);
    tcase_add_test(tc, snap_options);
    tcase_add_test(tc, snap_weights_crlf);
    tcase_add_test(tc, snap_lone_cr);
    tcase_add_test(tc, snap_compact_large_ids);
    tcase_add_test(tc, snap_plain_and_general_lines);
    tcase_add_test(tc, snap_growing_arrays);
    tcase_add_loop_test(tc, fast_line_weights, 0, 2);
    tcase_add_loop_test(tc, fast_line_refusals, 0, (int)(sizeof fast_cases / sizeof fast_cases[0]));
    tcase_add_test(tc, dimacs_tiny);
    tcase_add_test(tc, metis_tiny);
    tcase_add_test(tc, format_choice);
    tcase_add_test(tc, empty_inputs);
    suite_add_tcase(s, tc);
    tc = tcase_create("datasets");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, real_ca_hepth);
    tcase_add_test(tc, real_snap_graphs);
    tcase_add_test(tc, real_dimacs_metis);
    tcase_add_test(tc, random_snap_chunks);
    tcase_add_test(tc, random_metis_chunks);
    tcase_add_loop_test(tc, metis_fast_adjacency, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, malformed, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_loop_test(tc, metis_fast_refusals, 0,
                        (int)(sizeof metis_cases / sizeof metis_cases[0]));
    tcase_add_test(tc, id_limits);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
