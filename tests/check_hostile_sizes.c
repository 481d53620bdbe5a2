/* Hostile sizes: headers of every reader (Matrix Market, DIMACS, METIS, binary cache) that
 * claim 2^40 rows or 2^62 entries, products that overflow, and more entries than the
 * file's bytes could hold are refused before any allocation is even attempted (checked
 * with every allocation failing); sizes above 2^31 - 1 at every entry point taking sizes
 * are refused with SP_STATUS_NOT_SUPPORTED, also before allocating; ELL of a 10M-row
 * matrix with one long row is refused with the bytes it would take while HYB and SELL
 * build it and multiply correctly. (The fixtures of check_mtx_read, check_edgelist and
 * check_coo_cache hold the smaller malformed cases; these are not repeated here.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"


static const char *write_file(const char *name, const char *text)
{
    char *p = sp_test_temp_path(name);
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
    return p;
}

/* Run the expression with every allocation failing; it must give `status` with `text` in
 * the message and not have asked for memory at all. */
#define ck_refused_before_allocating(call, status, text)                                    \
    do {                                                                                    \
        sp_test_fail_allocations_after(0);                                                  \
        sp_status_t s_ = (call);                                                            \
        sp_test_restore_allocator();                                                        \
        ck_assert_msg(s_ == (status), "%s: %s (expected %s): %s", #call, sp_status_string(s_), \
                      sp_status_string(status), sp_last_error());                           \
        ck_assert_error_has(text);                                                          \
        ck_assert_msg(sp_test_allocations() == 0, "%s asked for memory %lld times first",   \
                      #call, (long long)sp_test_allocations());                             \
    } while (0)

/* ---- Matrix Market ---------------------------------------------------------------------- */

START_TEST(mtx_headers)
{
    sp_coo_t *a = NULL;
    const struct {
        const char *text;
        sp_status_t status;
        const char *message;
    } cases[] = {
        {"%%MatrixMarket matrix coordinate real general\n1099511627776 3 1\n1 1 1\n",
         SP_STATUS_NOT_SUPPORTED, "1099511627776 x 3"},
        {"%%MatrixMarket matrix coordinate real general\n3 1099511627776 1\n1 1 1\n",
         SP_STATUS_NOT_SUPPORTED, "3 x 1099511627776"},
        {"%%MatrixMarket matrix coordinate real general\n3 3 4611686018427387904\n1 1 1\n",
         SP_STATUS_PARSE_ERROR, "4611686018427387904"},
        {"%%MatrixMarket matrix coordinate pattern general\n3 3 9223372036854775807\n1 1\n",
         SP_STATUS_PARSE_ERROR, "9223372036854775807"},
        /* fits 32 bits, but not the 3 lines the file has */
        {"%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 2147483647\n"
         "1 1 1\n2 2 2\n3 3 3\n",
         SP_STATUS_PARSE_ERROR, "2147483647"},
        /* symmetric: mirrored entries would double past 2^31 - 1 */
        {"%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 2000000000\n"
         "1 1 1\n",
         SP_STATUS_PARSE_ERROR, "2000000000"},
        /* array: rows x cols overflows 64 bits; and a product above 2^31 - 1 */
        {"%%MatrixMarket matrix array real general\n3037000500 3037000500\n1\n",
         SP_STATUS_NOT_SUPPORTED, "3037000500"},
        {"%%MatrixMarket matrix array real general\n65536 65536\n1\n", SP_STATUS_PARSE_ERROR,
         "4294967296 entries"},
        {"%%MatrixMarket matrix coordinate real general\n-1099511627776 3 1\n1 1 1\n",
         SP_STATUS_PARSE_ERROR, "mtx:2: size line: negative row count"},
    };
    char name[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(name, sizeof name, "h%zu.mtx", i);
        const char *p = write_file(name, cases[i].text);
        ck_refused_before_allocating(sp_mtx_read(p, SP_R_64F, NULL, &a), cases[i].status,
                                     cases[i].message);
        ck_assert_ptr_null(a);
    }
}
END_TEST

/* A declared count past 2^31 that the file's size can back (a sparse file: its body is
 * never parsed) is taken up to memory (issue 20): the reserve for it fails under a 1 GiB
 * cap with the count, where it was refused as beyond 32-bit indices. */
START_TEST(mtx_count_past_32_bits)
{
    const char *p = write_file("big.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                          "3 3 2147483649\n");
    ck_assert_int_eq(truncate(p, (off_t)10 << 30), 0);
    sp_mtx_options_t opt = {0};
    opt.nthreads = 2; /* the threaded read reserves for the file's size first */
    sp_coo_t *a = NULL;
    sp_test_fail_allocations_above((size_t)1 << 30);
    sp_status_t st = sp_mtx_read(p, SP_R_64F, &opt, &a);
    sp_test_restore_allocator();
    ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "%s: %s", sp_status_string(st), sp_last_error());
    ck_assert_error_has("2147483649");
    ck_assert_ptr_null(a);
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_int_eq(unlink(p), 0);
}
END_TEST

/* A gzip file's entries cannot be bounded by its compressed size: the claim is refused
 * from the decompressed text, and the output arrays are never sized by the header. */
START_TEST(mtx_gzip_claim)
{
    char path[600], cmd[1300];
    sp_coo_t *a = NULL;
    const char *p = write_file("claim.mtx",
                               "%%MatrixMarket matrix coordinate real general\n"
                               "2000 2000 2000000000\n1 1 1\n2 2 2\n");
    snprintf(path, sizeof path, "%s.gz", p);
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", p, path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(unlink(p), 0);
    sp_test_fail_allocations_after(-1);
#ifdef SP_HAVE_ZLIB
    ck_assert_status(sp_mtx_read(path, SP_R_64F, NULL, &a), SP_STATUS_PARSE_ERROR);
#else
    ck_assert_status(sp_mtx_read(path, SP_R_64F, NULL, &a), SP_STATUS_NOT_COMPILED);
    ck_assert_error_has("gzip input needs zlib");
#endif
    sp_test_restore_allocator();
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_ptr_null(a);
    ck_assert_int_eq(unlink(path), 0);
}
END_TEST

/* ---- edge lists with headers --------------------------------------------------------------- */

START_TEST(edgelist_headers)
{
    sp_coo_t *a = NULL;
    const struct {
        const char *name, *text;
        sp_status_t status;
        const char *message;
    } cases[] = {
        {"v.gr", "p sp 1099511627776 1\na 1 2 1\n", SP_STATUS_NOT_SUPPORTED, "1099511627776"},
        {"e.gr", "p sp 4 4611686018427387904\na 1 2 1\n", SP_STATUS_PARSE_ERROR,
         "4611686018427387904"},
        {"e2.gr", "p sp 4 2147483647\na 1 2 1\na 2 3 1\n", SP_STATUS_PARSE_ERROR, "2147483647"},
        {"v.graph", "1099511627776 1\n2\n1\n", SP_STATUS_NOT_SUPPORTED, "1099511627776 vertices"},
        {"e.graph", "2 4611686018427387904\n2\n1\n", SP_STATUS_PARSE_ERROR,
         "4611686018427387904"},
        {"e2.graph", "2 2147483647\n2\n1\n", SP_STATUS_PARSE_ERROR, "2147483647"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = write_file(cases[i].name, cases[i].text);
        ck_refused_before_allocating(sp_edgelist_read(p, SP_R_64F, NULL, &a, NULL),
                                     cases[i].status, cases[i].message);
        ck_assert_ptr_null(a);
    }
    /* SNAP text has no header: an id beyond 32 bits is refused where it is read */
    const char *p = write_file("big.el", "0 1\n1099511627776 2\n");
    ck_assert_status(sp_edgelist_read(p, SP_VALUE_NONE, NULL, &a, NULL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("1099511627776");
    ck_assert_ptr_null(a);
}
END_TEST

/* ---- the binary cache's header -------------------------------------------------------------- */

static void patch64(const char *path, long offset, int64_t v)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
    ck_assert_uint_eq(fwrite(&v, 1, 8, f), 8);
    fclose(f);
}

START_TEST(cache_header)
{
    /* the header layout of loaders/coo_cache.c: nrows at 32, ncols at 40, nnz at 48 */
    sp_coo_t *a = sp_test_random_coo(1, 5, 4, 6, SP_R_64F, 0), *b = NULL;
    char path[600];
    snprintf(path, sizeof path, "%s/x.spcoo", sp_test_temp_dir());
    const struct {
        long offset;
        int64_t value;
        sp_status_t status;
        const char *message;
    } cases[] = {
        {32, (int64_t)1 << 40, SP_STATUS_NOT_SUPPORTED, "1099511627776"},
        {40, (int64_t)1 << 40, SP_STATUS_NOT_SUPPORTED, "1099511627776"},
        {48, (int64_t)1 << 62, SP_STATUS_PARSE_ERROR, "4611686018427387904"},
        {48, INT32_MAX, SP_STATUS_PARSE_ERROR, "2147483647"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_ok(sp_coo_save(path, a));
        patch64(path, cases[i].offset, cases[i].value);
        ck_refused_before_allocating(sp_coo_load(path, &b), cases[i].status, cases[i].message);
        ck_assert_ptr_null(b);
    }
    ck_assert_int_eq(unlink(path), 0);
    sp_coo_free(a);
}
END_TEST

/* ---- entry points taking sizes -------------------------------------------------------------- */

START_TEST(sizes_above_32_bits)
{
    sp_coo_t *a = NULL;
    const int64_t big = (int64_t)INT32_MAX + 1;
    ck_refused_before_allocating(sp_coo_create(big, 4, 0, SP_R_64F, &a), SP_STATUS_NOT_SUPPORTED,
                                 "2147483648 x 4");
    ck_refused_before_allocating(sp_coo_create(4, big, 0, SP_R_64F, &a), SP_STATUS_NOT_SUPPORTED,
                                 "4 x 2147483648");
    ck_refused_before_allocating(sp_coo_create(INT64_MAX, INT64_MAX, INT64_MAX, SP_R_64F, &a),
                                 SP_STATUS_NOT_SUPPORTED, "9223372036854775807");
    /* entry counts are bounded by memory alone (issue 20): past the address space refused
     * before allocating, past 2^31 tried, and refused with the bytes when memory says no */
    ck_refused_before_allocating(sp_coo_create(4, 4, INT64_MAX, SP_R_64F, &a),
                                 SP_STATUS_ALLOC_FAILED, "9223372036854775807 entries of 16 bytes");
    sp_test_fail_allocations_above((size_t)1 << 30);
    ck_assert_status(sp_coo_create(4, 4, big, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    ck_assert_error_has("2147483648 entries of 16 bytes (34359738368 bytes)");
    ck_assert_status(sp_gen_uniform(30, 2, 1, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    ck_assert_error_has("2147483648 entries of 16 bytes");
    sp_test_restore_allocator();
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    ck_assert_ptr_null(a);
    ck_refused_before_allocating(sp_gen_kronecker(31, 1, 1, SP_R_64F, &a), SP_STATUS_NOT_SUPPORTED,
                                 "scale 31");
    ck_refused_before_allocating(sp_gen_poisson2d(46341, SP_R_64F, &a), SP_STATUS_NOT_SUPPORTED,
                                 "rows");
    sp_test_fail_allocations_above((size_t)1 << 30);
    ck_assert_status(sp_gen_poisson3d(1290, SP_R_64F, &a), SP_STATUS_ALLOC_FAILED);
    sp_test_restore_allocator();
    ck_assert_error_has("15016838400 entries of 16 bytes");
    ck_refused_before_allocating(sp_gen_poisson3d27(INT64_MAX, SP_R_64F, &a),
                                 SP_STATUS_NOT_SUPPORTED, "rows");
    ck_refused_before_allocating(sp_gen_grid2d((int64_t)1 << 40, SP_R_64F, &a),
                                 SP_STATUS_NOT_SUPPORTED, "rows");
    ck_assert_ptr_null(a);

    /* a COO header claiming what its arrays cannot back: refused from the sizes alone */
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    sp_coo_t fake = {4, 4, big, big, NULL, NULL, NULL, SP_R_64F, SP_SYMMETRY_GENERAL, 0};
    sp_matrix_options_t o32 = {.offset_bits = 32};
    ck_refused_before_allocating(sp_matrix_create(ctx, &fake, &o32, &A), SP_STATUS_NOT_SUPPORTED,
                                 "offset_bits 32 cannot count 2147483648 entries");
    /* a host context takes 2^31 entries with 64-bit offsets (issue 20): the count passes,
     * the missing arrays do not */
    ck_refused_before_allocating(sp_matrix_create(ctx, &fake, NULL, &A),
                                 SP_STATUS_INVALID_ARGUMENT, "no values");
    fake = (sp_coo_t){(int64_t)1 << 40, 4, 0, 0, NULL, NULL, NULL, SP_R_64F, SP_SYMMETRY_GENERAL, 0};
    ck_refused_before_allocating(sp_matrix_create(ctx, &fake, NULL, &A), SP_STATUS_NOT_SUPPORTED,
                                 "1099511627776 x 4");
    ck_assert_ptr_null(A);
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    sp_context_destroy(ctx);
}
END_TEST

/* ---- ELL padding that would explode ------------------------------------------------------------ */

START_TEST(ell_explodes_hyb_and_sell_do_not)
{
    /* 10M rows; row 5000000 holds 100000 entries, every 64th row one diagonal entry */
    const int64_t n = 10000000, len = 100000, sprinkled = n / 64;
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    char want[64];
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_coo_create(n, n, len + sprinkled, SP_R_64F, &a));
    for (int64_t k = 0; k < len; k++) {
        a->row[k] = (int32_t)(n / 2);
        a->col[k] = (int32_t)(k * 97);
        ((double *)a->val)[k] = 1.0;
    }
    for (int64_t k = 0; k < sprinkled; k++) {
        a->row[len + k] = a->col[len + k] = (int32_t)(64 * k + 1);
        ((double *)a->val)[len + k] = 2.0;
    }
    a->nnz = len + sprinkled;
    sp_matrix_options_t no_tail = {0};
    no_tail.long_row_bound = -1; /* ELL padded to the long row, as without a tail */
    ck_assert_ok(sp_matrix_create(ctx, a, &no_tail, &A));
    ck_assert_status(sp_matrix_build(ctx, A, SP_FORMAT_ELL), SP_STATUS_NOT_SUPPORTED);
    snprintf(want, sizeof want, "would take %lld bytes", (long long)(n * len * 12));
    ck_assert_error_has(want);
    ck_assert_error_has("use HYB or SELL");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    /* x = 1: y = row length (long row) or 2 (sprinkled diagonal) */
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    for (int64_t i = 0; i < n; i++) x[i] = 1.0;
    const double one = 1.0, zero = 0.0;
    const sp_format_t formats[] = {SP_FORMAT_HYB, SP_FORMAT_SELL, SP_FORMAT_AUTO};
    for (size_t f = 0; f < 3; f++) {
        memset(y, 0xff, (size_t)n * sizeof *y); /* NaN: beta = 0 must not read it */
        ck_assert_ok(sp_spmv(ctx, formats[f], SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y));
        ck_assert_double_eq(y[n / 2], (double)len + (((n / 2) % 64 == 1) ? 2.0 : 0.0));
        ck_assert_double_eq(y[1], 2.0);
        ck_assert_double_eq(y[65], 2.0);
        ck_assert_double_eq(y[2], 0.0);
        ck_assert_double_eq(y[n - 1], 0.0);
    }
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(A, &info));
    ck_assert_int_eq(info.bytes[SP_FORMAT_ELL], 0);
    ck_assert_int_gt(info.bytes[SP_FORMAT_HYB], 0);
    ck_assert_int_lt(info.sell_padded_nnz, 64 * len); /* the long row pads its slice only */
    free(y);
    free(x);
    sp_matrix_destroy(A);
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile_sizes");
    TCase *tc = tcase_create("sizes");
    tcase_add_checked_fixture(tc, sp_test_temp_setup, sp_test_temp_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mtx_headers);
    tcase_add_test(tc, mtx_gzip_claim);
    tcase_add_test(tc, mtx_count_past_32_bits);
    tcase_add_test(tc, edgelist_headers);
    tcase_add_test(tc, cache_header);
    tcase_add_test(tc, sizes_above_32_bits);
    tcase_add_test(tc, ell_explodes_hyb_and_sell_do_not);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
