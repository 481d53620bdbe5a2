/* sp_mtx_read: hand-checked tricky files, every malformed fixture (status and the
 * "path:line:" of the message), the shipped datasets' sizes, and large generated files
 * read with several thread counts (same bits, errors at the right absolute line). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define FIX(name) sp_test_path("tests/fixtures/mtx/" name)

static sp_coo_t *read_ok(const char *path, sp_value_type_t vt, const sp_mtx_options_t *o)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_mtx_read(path, vt, o, &a));
    ck_assert_ptr_nonnull(a);
    return a;
}

/* The COO holds exactly these entries in this order (values compared as doubles, NaN
 * equal to NaN, signed zeros distinguished). */
static void expect_entries(const sp_coo_t *a, int64_t nnz, const int32_t *row,
                           const int32_t *col, const double *val)
{
    ck_assert_int_eq(a->nnz, nnz);
    for (int64_t k = 0; k < nnz; k++) {
        ck_assert_msg(a->row[k] == row[k] && a->col[k] == col[k],
                      "entry %lld: (%d, %d) expected (%d, %d)", (long long)k, a->row[k],
                      a->col[k], row[k], col[k]);
        if (!val) continue;
        double v = a->value_type == SP_R_32F ? ((const float *)a->val)[k]
                                             : ((const double *)a->val)[k];
        int same = (isnan(v) && isnan(val[k])) ||
                   (v == val[k] && signbit(v) == signbit(val[k]));
        ck_assert_msg(same, "entry %lld: value %.17g expected %.17g", (long long)k, v, val[k]);
    }
}

START_TEST(test_tricky)
{
    static const int32_t row[] = {0, 1, 2, 3, 3, 0, 1, 2, 3};
    static const int32_t col[] = {0, 2, 4, 0, 3, 1, 1, 2, 4};
    const double val[] = {0.5, -0.0, 1e5, 1.5e-300, 7, NAN, INFINITY, -INFINITY, -2.5e-3};
    for (int t = 1; t <= 3; t++) {
        sp_mtx_options_t o = {0};
        o.nthreads = t;
        sp_coo_t *a = read_ok(FIX("good_tricky.mtx"), SP_R_64F, &o);
        ck_assert(a->nrows == 4 && a->ncols == 5 && a->value_type == SP_R_64F);
        ck_assert(a->symmetry == SP_SYMMETRY_GENERAL && a->flags == 0);
        expect_entries(a, 9, row, col, val);
        sp_coo_free(a);
    }
    sp_coo_t *f = read_ok(FIX("good_tricky.mtx"), SP_R_32F, NULL);
    ck_assert(((float *)f->val)[3] == 0.0f); /* 1.5e-300 underflows in float, as strtof */
    sp_coo_free(f);
}
END_TEST

START_TEST(test_cr_endings)
{
    static const int32_t row[] = {0, 1, 2}, col[] = {0, 2, 1};
    static const double val[] = {-4, 5, 6};
    sp_coo_t *a = read_ok(FIX("good_cr.mtx"), SP_R_32F, NULL);
    expect_entries(a, 3, row, col, val);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_no_final_newline)
{
    static const int32_t row[] = {0, 1}, col[] = {0, 0};
    static const double val[] = {3.5, -1};
    for (int t = 1; t <= 2; t++) {
        sp_mtx_options_t o = {0};
        o.nthreads = t;
        sp_coo_t *a = read_ok(FIX("good_no_newline.mtx"), SP_R_64F, &o);
        expect_entries(a, 2, row, col, val);
        sp_coo_free(a);
    }
}
END_TEST

START_TEST(test_symmetric)
{
    static const int32_t row[] = {0, 1, 0, 2, 0, 2}, col[] = {0, 0, 2, 2, 1, 0};
    static const double val[] = {2, -1.5, 4.25, 8, -1.5, 4.25};
    sp_coo_t *a = read_ok(FIX("good_symmetric.mtx"), SP_R_64F, NULL);
    ck_assert(a->symmetry == SP_SYMMETRY_SYMMETRIC &&
              a->flags == (SP_COO_SYMMETRIC_EXPANDED | SP_COO_SYMMETRIC_PATTERN));
    expect_entries(a, 6, row, col, val);
    sp_coo_free(a);
    sp_mtx_options_t o = {0};
    o.keep_symmetric = 1;
    a = read_ok(FIX("good_symmetric.mtx"), SP_R_64F, &o);
    ck_assert(a->flags == SP_COO_SYMMETRIC_STORED);
    expect_entries(a, 4, row, col, val);
    sp_coo_free(a);
}
END_TEST

START_TEST(test_skew_and_hermitian)
{
    static const int32_t row[] = {1, 0, 0, 2}, col[] = {0, 2, 1, 0};
    static const double val[] = {3, -0.5, -3, 0.5};
    sp_coo_t *a = read_ok(FIX("good_skew.mtx"), SP_R_32F, NULL);
    ck_assert(a->symmetry == SP_SYMMETRY_SKEW);
    expect_entries(a, 4, row, col, val);
    sp_coo_free(a);

    a = (sp_coo_t *)&row; /* a failed call leaves the output untouched */
    ck_assert_status(sp_mtx_read(FIX("good_hermitian.mtx"), SP_R_64F, NULL, &a),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("good_hermitian.mtx:1: complex");
    ck_assert_ptr_eq(a, (sp_coo_t *)&row);
    static const int32_t hrow[] = {0, 1, 0}, hcol[] = {0, 0, 1};
    static const double hval[] = {3, 1.5, 1.5};
    sp_mtx_options_t o = {0};
    o.complex_mode = SP_COMPLEX_REAL_PART;
    a = read_ok(FIX("good_hermitian.mtx"), SP_R_64F, &o);
    ck_assert(a->symmetry == SP_SYMMETRY_HERMITIAN);
    expect_entries(a, 3, hrow, hcol, hval);
    sp_coo_free(a);
}
END_TEST

/* Array files store every value, zeros included, column-major. */
START_TEST(test_array)
{
    static const int32_t grow[] = {0, 1, 0, 1, 0, 1}, gcol[] = {0, 0, 1, 1, 2, 2};
    static const double gval[] = {1, 0, -2, 0, 0.5, 6};
    sp_coo_t *a = read_ok(FIX("good_array_general.mtx"), SP_R_64F, NULL);
    ck_assert(a->nrows == 2 && a->ncols == 3);
    expect_entries(a, 6, grow, gcol, gval);
    sp_coo_free(a);

    static const int32_t srow[] = {0, 1, 2, 1, 2, 2, 0, 0, 1}, scol[] = {0, 0, 0, 1, 1, 2, 1, 2, 2};
    static const double sval[] = {1, 2, 3, 4, 5, 6, 2, 3, 5};
    a = read_ok(FIX("good_array_symmetric.mtx"), SP_R_64F, NULL);
    expect_entries(a, 9, srow, scol, sval);
    sp_coo_free(a);

    static const int32_t krow[] = {1, 2, 2, 0, 0, 1}, kcol[] = {0, 0, 1, 1, 2, 2};
    static const double kval[] = {1, 2, 3, -1, -2, -3};
    for (int t = 1; t <= 4; t++) {
        sp_mtx_options_t o = {0};
        o.nthreads = t;
        a = read_ok(FIX("good_array_skew.mtx"), SP_R_32F, &o);
        expect_entries(a, 6, krow, kcol, kval);
        sp_coo_free(a);
    }
}
END_TEST

START_TEST(test_empty_and_rect)
{
    sp_coo_t *a = read_ok(FIX("good_empty.mtx"), SP_R_64F, NULL);
    ck_assert(a->nrows == 0 && a->ncols == 0 && a->nnz == 0);
    sp_coo_free(a);
    a = read_ok(FIX("good_empty_rect.mtx"), SP_R_32F, NULL);
    ck_assert(a->nrows == 5 && a->ncols == 7 && a->nnz == 0);
    sp_coo_free(a);

    static const int32_t row[] = {0, 1, 1}, col[] = {3, 0, 3};
    static const double ones[] = {1, 1, 1};
    a = read_ok(FIX("good_rect.mtx"), SP_R_32F, NULL);
    ck_assert(a->nrows == 2 && a->ncols == 4 && a->value_type == SP_R_32F);
    expect_entries(a, 3, row, col, ones);
    sp_coo_free(a);
    sp_mtx_options_t o = {0};
    o.pattern = SP_PATTERN_NONE;
    a = read_ok(FIX("good_rect.mtx"), SP_R_64F, &o);
    ck_assert(a->value_type == SP_VALUE_NONE && a->val == NULL);
    expect_entries(a, 3, row, col, NULL);
    sp_coo_free(a);
    /* a real file read without values */
    a = read_ok(FIX("good_symmetric.mtx"), SP_VALUE_NONE, NULL);
    ck_assert(a->value_type == SP_VALUE_NONE && a->val == NULL && a->nnz == 6);
    sp_coo_free(a);
}
END_TEST

/* Integer fields go through the integer parser: one rounding to the output type. */
START_TEST(test_integer_big)
{
    static const int32_t row[] = {0, 0, 0, 0}, col[] = {0, 1, 2, 3};
    static const double dval[] = {9007199254740992.0, -2147483649.0, 16777217.0,
                                  -9223372036854775808.0};
    static const double fval[] = {9007199254740992.0, -2147483648.0, 16777216.0,
                                  -9223372036854775808.0};
    sp_coo_t *a = read_ok(FIX("good_integer_big.mtx"), SP_R_64F, NULL);
    expect_entries(a, 4, row, col, dval);
    sp_coo_free(a);
    a = read_ok(FIX("good_integer_big.mtx"), SP_R_32F, NULL);
    expect_entries(a, 4, row, col, fval);
    sp_coo_free(a);
    /* a long integer file (its lines reach the fast path) read as a pattern, on one and
     * several threads: the same entries, no values stored (a NULL value array was written
     * through once) */
    sp_coo_t *d = read_ok(SP_SOURCE_DIR "/datasets/mtx/arrow.mtx", SP_R_64F, NULL);
    for (int t = 1; t <= 4; t += 3) {
        sp_mtx_options_t o = {0};
        o.nthreads = t;
        a = read_ok(SP_SOURCE_DIR "/datasets/mtx/arrow.mtx", SP_VALUE_NONE, &o);
        ck_assert(a->value_type == SP_VALUE_NONE && a->val == NULL && a->nnz == d->nnz);
        ck_assert_mem_eq(a->row, d->row, (size_t)d->nnz * sizeof(int32_t));
        ck_assert_mem_eq(a->col, d->col, (size_t)d->nnz * sizeof(int32_t));
        sp_coo_free(a);
    }
    sp_coo_free(d);
}
END_TEST

START_TEST(test_long_lines_and_gzip)
{
    static const int32_t row[] = {0, 1}, col[] = {0, 1};
    const double val[] = {1.0 / 3.0, 10.0 / 9.0};
    sp_coo_t *a = read_ok(FIX("good_long_lines.mtx"), SP_R_64F, NULL);
    expect_entries(a, 2, row, col, val);
    sp_coo_free(a);

#ifdef SP_HAVE_ZLIB
    static const int32_t grow[] = {0, 2}, gcol[] = {1, 0};
    static const double gval[] = {0.25, -8};
    a = read_ok(FIX("good_gzip.mtx.gz"), SP_R_64F, NULL);
    expect_entries(a, 2, grow, gcol, gval);
    sp_coo_free(a);
#else
    /* built without zlib: refused, naming the file and what is missing */
    a = NULL;
    ck_assert_status(sp_mtx_read(FIX("good_gzip.mtx.gz"), SP_R_64F, NULL, &a),
                     SP_STATUS_NOT_COMPILED);
    ck_assert_error_has("good_gzip.mtx.gz: gzip input needs zlib");
    ck_assert_ptr_null(a);
#endif
}
END_TEST

typedef struct bad_case {
    const char *name;
    sp_status_t status;
    int line; /* 0: message is "path: ..." without a line */
    sp_value_type_t vt;
    const char *text; /* a fragment the message must hold */
} bad_case_t;

static const bad_case_t bad_cases[] = {
    {"bad_empty.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "banner"},
    {"bad_no_banner.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "banner"},
    {"bad_banner_word.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "banner"},
    {"bad_object.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "object \"vector\""},
    {"bad_banner_only.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "unknown object \"\""},
    {"bad_format.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "format \"sparse\""},
    {"bad_field.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "field \"quaternion\""},
    {"bad_symmetry.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "symmetry \"upper\""},
    {"bad_banner_extra.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "\"extra\""},
    {"bad_banner_short.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "symmetry"},
    {"bad_pattern_array.mtx", SP_STATUS_PARSE_ERROR, 1, SP_R_64F, "pattern field with array"},
    {"bad_no_size.mtx", SP_STATUS_PARSE_ERROR, 3, SP_R_64F, "missing size line"},
    {"bad_size_text.mtx", SP_STATUS_PARSE_ERROR, 3, SP_R_64F, "row count is not an integer"},
    {"bad_size_missing_nnz.mtx", SP_STATUS_PARSE_ERROR, 2, SP_R_64F, "missing entry count"},
    {"bad_size_negative.mtx", SP_STATUS_PARSE_ERROR, 2, SP_R_64F, "negative column count -3"},
    {"bad_size_overflow.mtx", SP_STATUS_PARSE_ERROR, 2, SP_R_64F, "overflows"},
    {"bad_size_extra.mtx", SP_STATUS_PARSE_ERROR, 2, SP_R_64F, "unexpected text"},
    {"bad_nnz_huge.mtx", SP_STATUS_PARSE_ERROR, 2, SP_R_64F, "1000000000000 entries"},
    {"bad_nnz_file_too_small.mtx", SP_STATUS_PARSE_ERROR, 2, SP_R_64F, "cannot hold"},
    {"bad_dims_32bit.mtx", SP_STATUS_NOT_SUPPORTED, 2, SP_R_64F, "3000000000 x 3"},
    {"bad_index_zero.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "row index 0 outside 1..3"},
    {"bad_col_beyond.mtx", SP_STATUS_PARSE_ERROR, 5, SP_R_64F, "column index 9 outside 1..8"},
    {"bad_row_beyond.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "row index 4 outside 1..3"},
    {"bad_index_text.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "row index is not an integer"},
    {"bad_too_many.mtx", SP_STATUS_PARSE_ERROR, 6, SP_R_64F, "more entries than the 2 declared"},
    {"bad_too_few.mtx", SP_STATUS_PARSE_ERROR, 8, SP_R_64F, "expected 1 more entries"},
    {"bad_truncated.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "missing value"},
    {"bad_missing_col.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "missing column index"},
    {"bad_extra_token.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "unexpected text after"},
    {"bad_value_text.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "not a number"},
    {"bad_value_trailing.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "not a number"},
    {"bad_value_range.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "out of range for double"},
    {"bad_value_range.mtx", SP_STATUS_PARSE_ERROR, 4, SP_VALUE_NONE, "out of range"},
    {"bad_float_range.mtx", SP_STATUS_PARSE_ERROR, 3, SP_R_32F, "out of range for float"},
    {"bad_skew_diagonal.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "diagonal entry (3, 3)"},
    {"bad_integer_fraction.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "not an integer"},
    {"bad_integer_range.mtx", SP_STATUS_PARSE_ERROR, 3, SP_R_64F, "out of range for int64"},
    {"bad_symmetric_rect.mtx", SP_STATUS_PARSE_ERROR, 2, SP_R_64F, "3 x 4 matrix declared symmetric"},
    {"bad_array_too_few.mtx", SP_STATUS_PARSE_ERROR, 6, SP_R_64F, "expected 1 more"},
    {"bad_array_extra_token.mtx", SP_STATUS_PARSE_ERROR, 3, SP_R_64F, "unexpected text after"},
    {"bad_complex_missing_imag.mtx", SP_STATUS_NOT_SUPPORTED, 1, SP_R_64F, "complex"},
    {"bad_crlf_line.mtx", SP_STATUS_PARSE_ERROR, 5, SP_R_64F, "column index 5 outside 1..3"},
    {"bad_cr_only.mtx", SP_STATUS_PARSE_ERROR, 4, SP_R_64F, "not a number"},
#ifdef SP_HAVE_ZLIB
    {"bad_gzip_corrupt.mtx", SP_STATUS_PARSE_ERROR, 0, SP_R_64F, "corrupt gzip"},
    {"bad_gzip_truncated.mtx.gz", SP_STATUS_PARSE_ERROR, 0, SP_R_64F, "truncated gzip"},
#else
    {"bad_gzip_corrupt.mtx", SP_STATUS_NOT_COMPILED, 0, SP_R_64F, "gzip input needs zlib"},
    {"bad_gzip_truncated.mtx.gz", SP_STATUS_NOT_COMPILED, 0, SP_R_64F, "needs zlib"},
#endif
};

START_TEST(test_bad_fixture)
{
    const bad_case_t *b = &bad_cases[_i];
    char rel[256], prefix[4400];
    snprintf(rel, sizeof rel, "tests/fixtures/mtx/%s", b->name);
    const char *path = sp_test_path(rel);
    sp_coo_t sentinel, *a = &sentinel;
    for (int t = 1; t <= 3; t += 2) {
        sp_mtx_options_t o = {0};
        o.nthreads = t;
        ck_assert_status(sp_mtx_read(path, b->vt, &o, &a), b->status);
        ck_assert_ptr_eq(a, &sentinel);
        if (b->line) snprintf(prefix, sizeof prefix, "%s:%d: ", path, b->line);
        else snprintf(prefix, sizeof prefix, "%s: ", path);
        ck_assert_msg(strncmp(sp_last_error(), prefix, strlen(prefix)) == 0,
                      "%s: message \"%s\" does not start with \"%s\"", b->name,
                      sp_last_error(), prefix);
        ck_assert_error_has(b->text);
    }
}
END_TEST

START_TEST(test_complex_missing_imag_real_part)
{
    sp_mtx_options_t o = {0};
    o.complex_mode = SP_COMPLEX_REAL_PART;
    sp_coo_t *a = NULL;
    const char *path = FIX("bad_complex_missing_imag.mtx");
    ck_assert_status(sp_mtx_read(path, SP_R_64F, &o, &a), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("bad_complex_missing_imag.mtx:3: missing value");
    ck_assert_ptr_null(a);
}
END_TEST

START_TEST(test_io_and_args)
{
    sp_coo_t *a = NULL;
    ck_assert_status(sp_mtx_read(FIX("no_such_file.mtx"), SP_R_64F, NULL, &a),
                     SP_STATUS_IO_ERROR);
    ck_assert_error_has("no_such_file.mtx");
    ck_assert_error_has("No such file");
    ck_assert_status(sp_mtx_read(sp_test_path("tests/fixtures/mtx"), SP_R_64F, NULL, &a),
                     SP_STATUS_IO_ERROR);
    ck_assert_error_has("tests/fixtures/mtx");
    ck_assert_status(sp_mtx_read(NULL, SP_R_64F, NULL, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_mtx_read(FIX("good_empty.mtx"), SP_R_64F, NULL, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_mtx_read(FIX("good_empty.mtx"), (sp_value_type_t)9, NULL, &a),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("value type 9");
    sp_mtx_options_t o = {0};
    o.nthreads = -2;
    ck_assert_status(sp_mtx_read(FIX("good_empty.mtx"), SP_R_64F, &o, &a),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("nthreads -2");
    ck_assert_ptr_null(a);
}
END_TEST

/* Sizes counted independently (a short Python script over the files): stored entries
 * and, for symmetric files, stored + off-diagonal mirrors. */
START_TEST(test_datasets)
{
    static const struct {
        const char *name;
        int64_t nrows, ncols, stored, expanded;
        sp_symmetry_t sym;
    } sets[] = {
        {"1138_bus.mtx", 1138, 1138, 2596, 4054, SP_SYMMETRY_SYMMETRIC},
        {"BentPipe2D100.mtx", 10000, 10000, 49600, 49600, SP_SYMMETRY_GENERAL},
        {"Erdos971.mtx", 472, 472, 1314, 2628, SP_SYMMETRY_SYMMETRIC},
        {"ani4.mtx", 3081, 3081, 20971, 20971, SP_SYMMETRY_GENERAL},
        {"arrow.mtx", 46500, 46500, 139498, 139498, SP_SYMMETRY_GENERAL},
        {"chesapeake.mtx", 39, 39, 170, 340, SP_SYMMETRY_SYMMETRIC},
        {"gko_text_2d.mtx", 65536, 1, 65536, 65536, SP_SYMMETRY_GENERAL},
        {"hangGlider_2.mtx", 1647, 1647, 7834, 14754, SP_SYMMETRY_SYMMETRIC},
        {"karate.mtx", 34, 34, 78, 156, SP_SYMMETRY_SYMMETRIC},
        {"rajat01.mtx", 6833, 6833, 43250, 43250, SP_SYMMETRY_GENERAL},
        {"skew_fp64.mtx", 6, 6, 10, 20, SP_SYMMETRY_SKEW},
        {"west0067_jumbled.mtx", 67, 67, 294, 294, SP_SYMMETRY_GENERAL},
        {"young1c.mtx", 841, 841, 4089, 4089, SP_SYMMETRY_GENERAL},
    };
    char rel[256];
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        snprintf(rel, sizeof rel, "datasets/mtx/%s", sets[s].name);
        for (int keep = 0; keep <= 1; keep++) {
            sp_mtx_options_t o = {0};
            o.complex_mode = SP_COMPLEX_REAL_PART;
            o.keep_symmetric = keep;
            sp_coo_t *a = read_ok(sp_test_path(rel), SP_R_64F, &o);
            ck_assert_msg(a->nrows == sets[s].nrows && a->ncols == sets[s].ncols &&
                              a->nnz == (keep ? sets[s].stored : sets[s].expanded) &&
                              a->symmetry == sets[s].sym,
                          "%s: %lld x %lld, %lld entries", sets[s].name, (long long)a->nrows,
                          (long long)a->ncols, (long long)a->nnz);
            sp_coo_free(a);
        }
    }
    sp_coo_t *a = NULL;
    ck_assert_status(sp_mtx_read(sp_test_path("datasets/mtx/young1c.mtx"), SP_R_64F, NULL, &a),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("young1c.mtx:1: complex field not supported");
}
END_TEST

typedef struct read_run {
    const char *path;
    sp_coo_t sentinel, *a;
} read_run_t;

static sp_status_t read_fixture(void *arg)
{
    read_run_t *r = arg;
    sp_mtx_options_t o = {0};
    o.nthreads = 2;
    r->a = &r->sentinel;
    sp_status_t st = sp_mtx_read(r->path, SP_R_32F, &o, &r->a);
    if (st == SP_STATUS_SUCCESS) sp_coo_free(r->a);
    return st;
}

static void output_untouched(void *arg)
{
    read_run_t *r = arg;
    ck_assert_ptr_eq(r->a, &r->sentinel);
}

/* Every allocation failure is reported as such, leaks nothing, leaves the output alone. */
START_TEST(test_alloc_failures)
{
    static const char *files[] = {"good_symmetric.mtx",
#ifdef SP_HAVE_ZLIB
                                  "good_gzip.mtx.gz",
#endif
                                  "good_array_skew.mtx", "bad_too_few.mtx"};
    char rel[256];
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        snprintf(rel, sizeof rel, "tests/fixtures/mtx/%s", files[f]);
        read_run_t r = {sp_test_path(rel), {0}, NULL};
        int64_t failing = 0;
        sp_test_fail_each_allocation(files[f], read_fixture, output_untouched, &r, &failing);
        ck_assert_msg(sp_test_live_allocations() == 0, "%s: %lld blocks leaked", files[f],
                      (long long)sp_test_live_allocations());
        ck_assert_int_gt(failing, 2);
    }
}
END_TEST

/* ---- large generated files ---------------------------------------------------------- */

typedef struct gen {
    char path[64];
    int64_t n;
    int32_t *row, *col;
    double *val;
    int64_t *line; /* line number of entry k */
} gen_t;

/* Write a random general file of n entries with comments and blank lines sprinkled in;
 * extra > 0 appends that many surplus entries. */
static void gen_file(gen_t *g, uint64_t seed, int64_t n, int64_t declared)
{
    snprintf(g->path, sizeof g->path, "/tmp/sp_mtx_read_XXXXXX");
    int fd = mkstemp(g->path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    g->n = n;
    g->row = malloc((size_t)n * sizeof *g->row);
    g->col = malloc((size_t)n * sizeof *g->col);
    g->val = malloc((size_t)n * sizeof *g->val);
    g->line = malloc((size_t)n * sizeof *g->line);
    int64_t line = 1;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% generated\n");
    fprintf(f, "1000 700 %lld\n", (long long)declared);
    line += 2;
    for (int64_t k = 0; k < n; k++) {
        uint64_t r = sp_test_rand(&seed);
        if (r % 50 == 0) {
            fprintf(f, r % 100 == 0 ? "%% note %llu\n" : "\n", (unsigned long long)r);
            line++;
        }
        g->row[k] = (int32_t)(r % 1000);
        g->col[k] = (int32_t)((r >> 20) % 700);
        g->val[k] = (2 * sp_test_uniform(&seed) - 1) * pow(10, (double)((r >> 40) % 40) - 20);
        fprintf(f, (r >> 60) ? "%d %d %.17g\n" : "  %d\t%d  %.6e \n", g->row[k] + 1,
                g->col[k] + 1, g->val[k]);
        g->line[k] = ++line;
        if (!(r >> 60)) { /* the short form rounds: keep what the file says */
            char buf[64];
            snprintf(buf, sizeof buf, "%.6e", g->val[k]);
            g->val[k] = strtod(buf, NULL);
        }
    }
    ck_assert_int_eq(fclose(f), 0);
}

static void gen_free(gen_t *g)
{
    unlink(g->path);
    free(g->row);
    free(g->col);
    free(g->val);
    free(g->line);
}

START_TEST(test_large_threads)
{
    gen_t g;
    gen_file(&g, 77, 300000, 300000);
    static const int threads[] = {1, 2, 3, 8, 0};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        sp_mtx_options_t o = {0};
        o.nthreads = threads[t];
        sp_coo_t *a = read_ok(g.path, SP_R_64F, &o);
        ck_assert_int_eq(a->nnz, g.n);
        ck_assert(memcmp(a->row, g.row, (size_t)g.n * 4) == 0);
        ck_assert(memcmp(a->col, g.col, (size_t)g.n * 4) == 0);
        ck_assert(memcmp(a->val, g.val, (size_t)g.n * 8) == 0);
        sp_coo_free(a);
    }
    gen_free(&g);
}
END_TEST

/* Errors deep in the file carry the absolute line, and the earliest one wins. */
START_TEST(test_large_errors)
{
    gen_t g;
    char want[128];
    sp_coo_t *a = NULL;
    gen_file(&g, 78, 200000, 150000); /* too many: entry 150000 is the first extra */
    for (int t = 1; t <= 8; t *= 2) {
        sp_mtx_options_t o = {0};
        o.nthreads = t;
        ck_assert_status(sp_mtx_read(g.path, SP_R_64F, &o, &a), SP_STATUS_PARSE_ERROR);
        snprintf(want, sizeof want, ":%lld: more entries than the 150000 declared",
                 (long long)g.line[150000]);
        ck_assert_error_has(want);
    }
    /* corrupt two entries far apart: the earlier is reported, whatever the threads */
    FILE *f = fopen(g.path, "r+");
    ck_assert_ptr_nonnull(f);
    char *text = NULL;
    size_t len = 0;
    {
        fseek(f, 0, SEEK_END);
        len = (size_t)ftell(f);
        rewind(f);
        text = malloc(len + 1);
        ck_assert_uint_eq(fread(text, 1, len, f), len);
        text[len] = '\0';
    }
    int64_t bad[2] = {120000, 40000}, line = 1;
    for (size_t p = 0; p < len; p++) {
        if (text[p] != '\n') continue;
        line++;
        if (line == g.line[bad[0]] || line == g.line[bad[1]]) {
            size_t q = p + 1;
            while (text[q] == ' ' || text[q] == '\t') q++;
            text[q] = 'x'; /* the row index */
        }
    }
    rewind(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    free(text);
    for (int t = 1; t <= 8; t *= 2) {
        sp_mtx_options_t o = {0};
        o.nthreads = t;
        ck_assert_status(sp_mtx_read(g.path, SP_R_64F, &o, &a), SP_STATUS_PARSE_ERROR);
        snprintf(want, sizeof want, ":%lld: row index is not an integer",
                 (long long)g.line[bad[1]]);
        ck_assert_error_has(want);
    }
    ck_assert_ptr_null(a);
    gen_free(&g);
}
END_TEST

/* A bad value in the middle of a run of plain lines (read a batch at a time) is reported
 * at its own line, and the plain lines around odd ones are all read. */
START_TEST(test_large_value_error)
{
    gen_t g;
    char want[128];
    sp_coo_t *a = NULL;
    gen_file(&g, 79, 100000, 100000);
    FILE *f = fopen(g.path, "r+");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    size_t len = (size_t)ftell(f);
    rewind(f);
    char *text = malloc(len + 1);
    ck_assert_uint_eq(fread(text, 1, len, f), len);
    int64_t line = 1, bad = 0, k = 70001; /* line: the one this '\n' ends */
    for (size_t p = 0; p < len && !bad; p++, line += text[p - 1] == '\n') {
        if (text[p] != '\n' || line != g.line[k]) continue;
        if (text[p - 1] == ' ') { /* an irregular line: take the next entry */
            k++;
            continue;
        }
        text[p - 1] = 'z'; /* the value's last digit: "1.2345z" */
        bad = line;
    }
    rewind(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    free(text);
    ck_assert_int_gt(bad, 0);
    for (int t = 1; t <= 4; t *= 2) {
        sp_mtx_options_t o = {0};
        o.nthreads = t;
        ck_assert_status(sp_mtx_read(g.path, SP_R_64F, &o, &a), SP_STATUS_PARSE_ERROR);
        snprintf(want, sizeof want, ":%lld: value is not a number", (long long)bad);
        ck_assert_error_has(want);
    }
    ck_assert_ptr_null(a);
    gen_free(&g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mtx_read");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_tricky);
    tcase_add_test(tc, test_cr_endings);
    tcase_add_test(tc, test_no_final_newline);
    tcase_add_test(tc, test_symmetric);
    tcase_add_test(tc, test_skew_and_hermitian);
    tcase_add_test(tc, test_array);
    tcase_add_test(tc, test_empty_and_rect);
    tcase_add_test(tc, test_integer_big);
    tcase_add_test(tc, test_long_lines_and_gzip);
    tcase_add_loop_test(tc, test_bad_fixture, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(tc, test_complex_missing_imag_real_part);
    tcase_add_test(tc, test_io_and_args);
    tcase_add_test(tc, test_datasets);
    tcase_add_test(tc, test_alloc_failures);
    tcase_add_test(tc, test_large_threads);
    tcase_add_test(tc, test_large_errors);
    tcase_add_test(tc, test_large_value_error);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
