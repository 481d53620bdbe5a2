/* Binary COO cache: round trips, the committed version-1 fixture, and every refusal
 * (truncated, corrupt, foreign, newer, absurd sizes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"


static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* Overwrite len bytes at offset. */
static void patch(const char *path, long offset, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
}

static void write_bytes(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
}

static void assert_same(const sp_coo_t *a, const sp_coo_t *b)
{
    ck_assert_int_eq(a->nrows, b->nrows);
    ck_assert_int_eq(a->ncols, b->ncols);
    ck_assert_int_eq(a->nnz, b->nnz);
    ck_assert_int_eq(a->value_type, b->value_type);
    ck_assert_int_eq(a->symmetry, b->symmetry);
    ck_assert_uint_eq(a->flags, b->flags);
    size_t n = (size_t)a->nnz;
    ck_assert(n == 0 || memcmp(a->row, b->row, n * sizeof(int32_t)) == 0);
    ck_assert(n == 0 || memcmp(a->col, b->col, n * sizeof(int32_t)) == 0);
    size_t vs = sp_value_size(a->value_type);
    if (vs) ck_assert(n == 0 || memcmp(a->val, b->val, n * vs) == 0);
    else ck_assert_ptr_null(b->val);
}

static void round_trip(const sp_coo_t *a, const char *name)
{
    sp_coo_t *b = NULL;
    const char *p = sp_test_temp_path(name);
    ck_assert_ok(sp_coo_save(p, a));
    ck_assert_int_eq(file_size(p), 72 + a->nnz * (8 + (long)sp_value_size(a->value_type)));
    ck_assert_ok(sp_coo_load(p, &b));
    assert_same(a, b);
    ck_assert_int_eq(b->capacity, b->nnz);
    sp_coo_free(b);
}

/* The 3 x 4 matrix [1.5 0 0 -2; 0 0 0 0; 0 4 0 0] in file order (2,1) (0,0) (0,3). */
static sp_coo_t *small_matrix(sp_value_type_t type)
{
    static const int32_t row[] = {2, 0, 0}, col[] = {1, 0, 3};
    static const double val[] = {4.0, 1.5, -2.0};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(3, 4, 3, type, &a));
    for (int k = 0; k < 3; k++) {
        a->row[k] = row[k];
        a->col[k] = col[k];
        if (type == SP_R_32F) ((float *)a->val)[k] = (float)val[k];
        if (type == SP_R_64F) ((double *)a->val)[k] = val[k];
    }
    a->nnz = 3;
    return a;
}

/* A valid cache of small_matrix(SP_R_64F) at sp_test_temp_path(name). */
static const char *saved_small(const char *name)
{
    sp_coo_t *a = small_matrix(SP_R_64F);
    const char *p = sp_test_temp_path(name);
    ck_assert_ok(sp_coo_save(p, a));
    sp_coo_free(a);
    return p;
}

static void assert_load_fails(const char *p, sp_status_t status, const char *text)
{
    sp_coo_t *b = (sp_coo_t *)(uintptr_t)0x1;
    ck_assert_status(sp_coo_load(p, &b), status);
    ck_assert_error_has(text);
    ck_assert_ptr_eq(b, (sp_coo_t *)(uintptr_t)0x1); /* output untouched */
}

START_TEST(round_trip_types)
{
    sp_value_type_t types[] = {SP_R_32F, SP_R_64F, SP_VALUE_NONE};
    for (int t = 0; t < 3; t++) {
        sp_coo_t *a = small_matrix(types[t]);
        a->symmetry = SP_SYMMETRY_SKEW;
        a->flags = SP_COO_SYMMETRIC_STORED;
        round_trip(a, "small.spcoo");
        sp_coo_free(a);
    }
}
END_TEST

START_TEST(round_trip_empty)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(0, 0, 0, SP_R_64F, &a));
    round_trip(a, "empty0.spcoo");
    sp_coo_free(a);
    ck_assert_ok(sp_coo_create(5, 3, 10, SP_R_32F, &a)); /* capacity > nnz = 0 */
    a->flags = SP_COO_SORTED | SP_COO_MERGED;
    round_trip(a, "empty53.spcoo");
    sp_coo_free(a);
}
END_TEST

START_TEST(round_trip_random)
{
    /* Sizes that make the array lengths odd multiples of 4 bytes, so the checksum's
     * stripes straddle the array boundaries. */
    int64_t nnzs[] = {1, 7, 31, 33, 12345, 200001};
    for (int i = 0; i < 6; i++) {
        sp_coo_t *a = sp_test_random_coo(42 + (uint64_t)i, 1000, 777, nnzs[i],
                                         i % 2 ? SP_R_32F : SP_R_64F, SP_TEST_DUPLICATES);
        ck_assert_ptr_nonnull(a);
        round_trip(a, "random.spcoo");
        sp_coo_free(a);
    }
}
END_TEST

START_TEST(overwrites_existing)
{
    sp_coo_t *a = small_matrix(SP_R_32F), *b = NULL;
    const char *p = sp_test_temp_path("over.spcoo");
    write_bytes(p, "old contents", 12);
    ck_assert_ok(sp_coo_save(p, a));
    ck_assert_ok(sp_coo_load(p, &b));
    assert_same(a, b);
    sp_coo_free(a);
    sp_coo_free(b);
}
END_TEST

/* The committed fixture pins format version 1: a change to the layout or checksum that
 * forgets to bump the version fails here. */
START_TEST(committed_fixture)
{
    sp_coo_t *b = NULL;
    ck_assert_ok(sp_coo_load(sp_test_path("tests/fixtures/cache/small_v1.spcoo"), &b));
    ck_assert_int_eq(b->nrows, 3);
    ck_assert_int_eq(b->ncols, 4);
    ck_assert_int_eq(b->nnz, 3);
    ck_assert_int_eq(b->value_type, SP_R_64F);
    const int32_t row[] = {2, 0, 0}, col[] = {1, 0, 3};
    const double val[] = {4.0, 1.5, -2.0};
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(b->row[k], row[k]);
        ck_assert_int_eq(b->col[k], col[k]);
        ck_assert_double_eq(((double *)b->val)[k], val[k]);
    }
    sp_coo_free(b);
}
END_TEST

START_TEST(truncated)
{
    const char *p = saved_small("t.spcoo");
    long n = file_size(p);
    ck_assert_int_eq(truncate(p, n - 1), 0);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "t.spcoo: truncated");
    ck_assert_int_eq(truncate(p, 40), 0);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "shorter than the header");
    ck_assert_int_eq(truncate(p, 3), 0); /* "SPC": the start of a cache, cut short */
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "t.spcoo: truncated: 3 bytes");
    ck_assert_int_eq(truncate(p, 0), 0);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "t.spcoo: not a libsp cache file");
}
END_TEST

START_TEST(trailing_data)
{
    const char *p = saved_small("tail.spcoo");
    FILE *f = fopen(p, "ab");
    fputs("junk", f);
    fclose(f);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "trailing data");
}
END_TEST

START_TEST(flipped_bytes)
{
    long n = file_size(saved_small("ref.spcoo"));
    /* Every byte of the payload and the checksum itself. */
    for (long off = 64; off < n; off++) {
        const char *p = saved_small("flip.spcoo");
        FILE *f = fopen(p, "r+b");
        fseek(f, off, SEEK_SET);
        int c = fgetc(f);
        fseek(f, off, SEEK_SET);
        fputc(c ^ 0x10, f);
        fclose(f);
        assert_load_fails(p, SP_STATUS_PARSE_ERROR, "flip.spcoo: checksum mismatch");
    }
}
END_TEST

START_TEST(wrong_magic)
{
    const char *p = saved_small("magic.spcoo");
    patch(p, 0, "X", 1);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "magic.spcoo: not a libsp cache file");
    assert_load_fails(sp_test_path("datasets/mtx/karate.mtx"), SP_STATUS_PARSE_ERROR,
                      "karate.mtx: not a libsp cache file");
}
END_TEST

START_TEST(future_version)
{
    const char *p = saved_small("v2.spcoo");
    uint32_t v = 2;
    patch(p, 8, &v, 4);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "version 2 is newer");
    v = 0;
    patch(p, 8, &v, 4);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "unknown cache format version 0");
}
END_TEST

START_TEST(bad_header_fields)
{
    struct {
        long offset;
        uint32_t value;
        const char *text;
    } cases[] = {
        {12, 0x04030201u, "other byte order"},
        {12, 0x12345678u, "bad byte-order mark"},
        {16, 3, "unknown value type 3"},
        {20, 7, "unknown symmetry 7"},
        {24, 0x100, "unknown flags 0x100"},
        {28, 1, "reserved header fields"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = saved_small("hdr.spcoo");
        patch(p, cases[i].offset, &cases[i].value, 4);
        assert_load_fails(p, SP_STATUS_PARSE_ERROR, cases[i].text);
    }
    const char *p = saved_small("neg.spcoo");
    int64_t neg = -1;
    patch(p, 32, &neg, 8);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "negative size");
}
END_TEST

START_TEST(huge_claims)
{
    const char *p = saved_small("huge.spcoo");
    int64_t nnz = (int64_t)1 << 40;
    patch(p, 48, &nnz, 8);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "header claims 1099511627776 entries");
    nnz = INT64_MAX;
    patch(p, 48, &nnz, 8);
    assert_load_fails(p, SP_STATUS_PARSE_ERROR, "header claims 9223372036854775807 entries");
    /* Sizes too large for 32-bit indices, with a consistent entry count. */
    p = saved_small("wide.spcoo");
    int64_t nrows = (int64_t)1 << 33;
    patch(p, 32, &nrows, 8);
    assert_load_fails(p, SP_STATUS_NOT_SUPPORTED, "8589934592 x 4");
}
END_TEST

/* A cache past 2^31 entries (a sparse file of the right size: its arrays are never read)
 * is loaded as memory allows (issue 20): under a 1 GiB cap, refused with the count and
 * the bytes, where it was refused as beyond 32-bit indices. */
START_TEST(entries_past_32_bits)
{
    const char *p = saved_small("big.spcoo");
    int64_t nnz = ((int64_t)1 << 31) + 1;
    patch(p, 48, &nnz, 8);
    ck_assert_int_eq(truncate(p, (off_t)(64 + 8 + nnz * 16)), 0);
    sp_coo_t *b = NULL;
    sp_test_fail_allocations_above((size_t)1 << 30);
    sp_status_t st = sp_coo_load(p, &b);
    sp_test_restore_allocator();
    ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "%s: %s", sp_status_string(st), sp_last_error());
    ck_assert_error_has("2147483649 entries of 16 bytes (34359738384 bytes)");
    ck_assert_ptr_null(b);
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_int_eq(unlink(p), 0);
}
END_TEST

START_TEST(bad_arguments)
{
    sp_coo_t *a = small_matrix(SP_R_64F), *b = NULL;
    ck_assert_status(sp_coo_save(NULL, a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_coo_save(sp_test_temp_path("x"), NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_coo_load(NULL, &b), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_coo_load(sp_test_temp_path("x"), NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_coo_load(sp_test_temp_path("missing.spcoo"), &b), SP_STATUS_IO_ERROR);
    ck_assert_error_has("missing.spcoo: cannot open");
    ck_assert_status(sp_coo_load(sp_test_temp_dir(), &b), SP_STATUS_IO_ERROR);
    ck_assert_error_has("not a regular file");

    /* An invalid COO is refused and the existing file stays as it was. */
    const char *p = saved_small("keep.spcoo");
    a->row[1] = 3;
    ck_assert_status(sp_coo_save(p, a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("entry 1 has row 3 outside 0..2");
    a->row[1] = 0;
    a->col[2] = -1;
    ck_assert_status(sp_coo_save(p, a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("entry 2 has column -1 outside 0..3");
    a->col[2] = 3;
    a->nnz = 4;
    ck_assert_status(sp_coo_save(p, a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("nnz 4 outside 0..capacity 3");
    a->nnz = 3;
    a->value_type = (sp_value_type_t)9;
    ck_assert_status(sp_coo_save(p, a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown value type 9");
    a->value_type = SP_R_64F;
    ck_assert_ok(sp_coo_load(p, &b));
    assert_same(a, b);
    sp_coo_free(b);

    /* A folder that does not exist: IO error, nothing left behind. */
    ck_assert_status(sp_coo_save(sp_test_temp_path("nodir/x.spcoo"), a), SP_STATUS_IO_ERROR);
    ck_assert_error_has("nodir/x.spcoo: cannot create a temporary file");
    sp_coo_free(a);
}
END_TEST

START_TEST(no_temporary_left)
{
    sp_coo_t *a = small_matrix(SP_R_32F);
    ck_assert_ok(sp_coo_save(sp_test_temp_path("only.spcoo"), a));
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = only.spcoo", sp_test_temp_dir());
    ck_assert_int_eq(system(cmd), 0);
    sp_coo_free(a);
}
END_TEST

/* Whether (j,i) is an entry for every entry (i,j) of a, by a binary search of a sorted
 * copy: the property SP_COO_SYMMETRIC_PATTERN claims. */
static int pattern_is_symmetric(const sp_coo_t *a)
{
    sp_coo_t *s = NULL;
    int ok = 1;
    ck_assert_ok(sp_coo_copy(a, SP_VALUE_NONE, &s));
    ck_assert_ok(sp_coo_sort_merge(s, SP_DUP_KEEP, NULL));
    for (int64_t k = 0; k < s->nnz && ok; k++) {
        int64_t lo = 0, hi = s->nnz;
        int32_t r = s->col[k], c = s->row[k];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (s->row[mid] < r || (s->row[mid] == r && s->col[mid] < c)) lo = mid + 1;
            else hi = mid;
        }
        ok = lo < s->nnz && s->row[lo] == r && s->col[lo] == c;
    }
    sp_coo_free(s);
    return ok;
}

/* What sp_matrix_create on a host context records from a's flags (and the option). */
static int matrix_pattern_symmetric(const sp_coo_t *a, int assert_option)
{
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_matrix_info_t info;
    sp_matrix_options_t o = {0};
    o.pattern_symmetric = assert_option;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_matrix_create(ctx, a, &o, &A));
    ck_assert_ok(sp_matrix_info(A, &info));
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    return info.pattern_symmetric;
}

/* SP_COO_SYMMETRIC_PATTERN (issue 20): set by the Matrix Market reader where it expands a
 * symmetric file, by an undirected edge list, sp_coo_symmetrize and the stencils, each
 * time truly symmetric; kept by the binary cache and recorded by sp_matrix_create; absent
 * where a file keeps one triangle, a part of the rows is read or the matrix is general
 * (there the option asserts it). */
START_TEST(symmetric_pattern_flag)
{
    sp_coo_t *a = NULL;
    sp_mtx_options_t keep = {0};
    sp_edgelist_options_t und = {0};
    const char *karate = sp_test_path("datasets/mtx/karate.mtx");
    ck_assert_ok(sp_mtx_read(karate, SP_VALUE_NONE, NULL, &a));
    ck_assert_uint_eq(a->flags & (SP_COO_SYMMETRIC_PATTERN | SP_COO_SYMMETRIC_EXPANDED),
                      SP_COO_SYMMETRIC_PATTERN | SP_COO_SYMMETRIC_EXPANDED);
    ck_assert(pattern_is_symmetric(a));
    round_trip(a, "karate.spcoo"); /* the flags come back as they were */
    ck_assert_int_eq(matrix_pattern_symmetric(a, 0), 1);
    /* a cache written before the flag: EXPANDED alone still counts */
    a->flags &= ~SP_COO_SYMMETRIC_PATTERN;
    ck_assert_int_eq(matrix_pattern_symmetric(a, 0), 1);
    sp_coo_free(a);
    keep.keep_symmetric = 1;
    ck_assert_ok(sp_mtx_read(karate, SP_VALUE_NONE, &keep, &a));
    ck_assert_uint_eq(a->flags & SP_COO_SYMMETRIC_PATTERN, 0);
    ck_assert_int_eq(matrix_pattern_symmetric(a, 0), 0);
    sp_coo_free(a);
    ck_assert_ok(sp_mtx_read_rows(karate, SP_VALUE_NONE, NULL, 0, 17, &a));
    ck_assert_uint_eq(a->flags & (SP_COO_SYMMETRIC_PATTERN | SP_COO_SYMMETRIC_EXPANDED), 0);
    sp_coo_free(a);
    und.undirected = 1;
    ck_assert_ok(sp_edgelist_read(sp_test_path("datasets/graphs/Wiki-Vote.txt"), SP_VALUE_NONE,
                                  &und, &a, NULL));
    ck_assert_uint_ne(a->flags & SP_COO_SYMMETRIC_PATTERN, 0);
    ck_assert(pattern_is_symmetric(a));
    sp_coo_free(a);
    ck_assert_ok(sp_edgelist_read(sp_test_path("datasets/graphs/Wiki-Vote.txt"), SP_VALUE_NONE,
                                  NULL, &a, NULL));
    ck_assert_uint_eq(a->flags & SP_COO_SYMMETRIC_PATTERN, 0);
    ck_assert(!pattern_is_symmetric(a)); /* directed: the flag is rightly absent */
    ck_assert_int_eq(matrix_pattern_symmetric(a, 0), 0);
    ck_assert_ok(sp_coo_symmetrize(a, 1));
    ck_assert_uint_ne(a->flags & SP_COO_SYMMETRIC_PATTERN, 0);
    ck_assert(pattern_is_symmetric(a));
    round_trip(a, "wiki-vote-undirected.spcoo");
    ck_assert_int_eq(matrix_pattern_symmetric(a, 0), 1);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_poisson3d27(6, SP_R_64F, &a));
    ck_assert_uint_ne(a->flags & SP_COO_SYMMETRIC_PATTERN, 0);
    ck_assert(pattern_is_symmetric(a));
    sp_coo_free(a);
    /* general: not recorded unless the caller asserts it; not square: never */
    a = small_matrix(SP_R_64F);
    ck_assert_int_eq(matrix_pattern_symmetric(a, 0), 0);
    ck_assert_int_eq(matrix_pattern_symmetric(a, 1), 0); /* 3 x 4 */
    a->ncols = 3;
    a->col[2] = 2;
    ck_assert_int_eq(matrix_pattern_symmetric(a, 1), 1);
    sp_coo_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coo_cache");
    TCase *tc = tcase_create("cache");
    tcase_add_checked_fixture(tc, sp_test_temp_setup, sp_test_temp_teardown);
    tcase_add_test(tc, round_trip_types);
    tcase_add_test(tc, round_trip_empty);
    tcase_add_test(tc, round_trip_random);
    tcase_add_test(tc, entries_past_32_bits);
    tcase_add_test(tc, overwrites_existing);
    tcase_add_test(tc, committed_fixture);
    tcase_add_test(tc, truncated);
    tcase_add_test(tc, trailing_data);
    tcase_add_test(tc, flipped_bytes);
    tcase_add_test(tc, wrong_magic);
    tcase_add_test(tc, future_version);
    tcase_add_test(tc, bad_header_fields);
    tcase_add_test(tc, huge_claims);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, no_temporary_left);
    tcase_add_test(tc, symmetric_pattern_flag);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
