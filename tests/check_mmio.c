/* NIST mmio compatibility (sp_mmio.h): banner, sizes, entries and whole-file reads with
 * NIST's semantics (1-based, as stored, interleaved complex), the return codes, and the
 * inputs NIST's reader loops on or truncates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_mmio.h"
#include "testutil.h"


/* Write text to a file in the test folder; returns its path. */
static char *write_file(const char *name, const char *text)
{
    char *p = sp_test_temp_path(name);
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* A stream over text (a temporary file, so fgets sees real file I/O). */
static FILE *stream(const char *text)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    rewind(f);
    return f;
}

static int banner_of(const char *text, MM_typecode *t)
{
    FILE *f = stream(text);
    int rc = mm_read_banner(f, t);
    fclose(f);
    return rc;
}

START_TEST(banner)
{
    MM_typecode t;
    ck_assert_int_eq(banner_of("%%MatrixMarket matrix coordinate real general\n1 1 0\n", &t), 0);
    ck_assert(mm_is_matrix(t) && mm_is_sparse(t) && mm_is_real(t) && mm_is_general(t));
    ck_assert_int_eq(banner_of("%%MatrixMarket MATRIX Array Complex Hermitian", &t), 0);
    ck_assert(mm_is_dense(t) && mm_is_complex(t) && mm_is_hermitian(t));
    ck_assert_int_eq(banner_of("%%MatrixMarket matrix coordinate pattern skew-symmetric\r\n", &t), 0);
    ck_assert(mm_is_pattern(t) && mm_is_skew(t) && !mm_is_valid(t));
    ck_assert_int_eq(banner_of("%%MatrixMarket matrix coordinate integer symmetric\n", &t), 0);
    ck_assert(mm_is_integer(t) && mm_is_symmetric(t) && mm_is_valid(t));

    ck_assert_int_eq(banner_of("", &t), MM_PREMATURE_EOF);
    ck_assert_int_eq(banner_of("1 2 3\n", &t), MM_NO_HEADER);
    ck_assert_error_has("not a %%MatrixMarket banner");
    ck_assert_int_eq(banner_of("%MatrixMarket matrix coordinate real general\n", &t), MM_NO_HEADER);
    ck_assert_int_eq(banner_of("%%MatrixMarket matrix coordinate real\n", &t), MM_PREMATURE_EOF);
    ck_assert_error_has("4 of 5 words");
    ck_assert_int_eq(banner_of("%%MatrixMarket matrix coordinate quaternion general\n", &t),
                     MM_UNSUPPORTED_TYPE);
    ck_assert_error_has("unknown word 'quaternion'");
    ck_assert_int_eq(banner_of("%%MatrixMarket vector coordinate real general\n", &t),
                     MM_UNSUPPORTED_TYPE);
    /* Binary junk and a huge first line: one answer, no loop, no cap. */
    char *big = malloc(200001);
    memset(big, 'x', 200000);
    big[200000] = '\0';
    ck_assert_int_eq(banner_of(big, &t), MM_NO_HEADER);
    free(big);
}
END_TEST

START_TEST(sizes)
{
    int M = -1, N = -1, nz = -1;
    FILE *f = stream("% comment\n\n%% another\n  \t\n 5 4\t7 \n");
    ck_assert_int_eq(mm_read_mtx_crd_size(f, &M, &N, &nz), 0);
    ck_assert(M == 5 && N == 4 && nz == 7);
    fclose(f);
    /* NIST's reader loops forever on these; here each is one answer. */
    const char *bad[] = {"3 3 x\n", "3 3\n", "3 -3 1\n", "3 3 3 3\n", "a b c\n",
                         "3 3 99999999999\n"};
    for (int i = 0; i < 6; i++) {
        f = stream(bad[i]);
        ck_assert_int_eq(mm_read_mtx_crd_size(f, &M, &N, &nz), MM_NOT_MTX);
        ck_assert(M == 0 && N == 0 && nz == 0);
        fclose(f);
    }
    f = stream("% only comments\n");
    ck_assert_int_eq(mm_read_mtx_crd_size(f, &M, &N, &nz), MM_PREMATURE_EOF);
    fclose(f);
    f = stream("6 2\n");
    ck_assert_int_eq(mm_read_mtx_array_size(f, &M, &N), 0);
    ck_assert(M == 6 && N == 2);
    fclose(f);
    f = stream("6 2 1\n");
    ck_assert_int_eq(mm_read_mtx_array_size(f, &M, &N), MM_NOT_MTX);
    fclose(f);
}
END_TEST

START_TEST(entries)
{
    MM_typecode t;
    int I[3], J[3];
    double val[6];
    mm_initialize_typecode(&t);
    mm_set_matrix(&t);
    mm_set_coordinate(&t);
    mm_set_real(&t);
    FILE *f = stream("1 2 0.5\n\n% mid\n3 3 -1e-3\r\n  2 1 7\n");
    ck_assert_int_eq(mm_read_mtx_crd_data(f, 3, 3, 3, I, J, val, t), 0);
    ck_assert(I[0] == 1 && J[0] == 2 && val[0] == 0.5);
    ck_assert(I[1] == 3 && J[1] == 3 && val[1] == -1e-3);
    ck_assert(I[2] == 2 && J[2] == 1 && val[2] == 7);
    fclose(f);

    f = stream("1 2 0.5\n9 1 1\n");
    ck_assert_int_eq(mm_read_mtx_crd_data(f, 3, 3, 2, I, J, val, t), MM_NOT_MTX);
    ck_assert_error_has("entry 2: row index 9 outside 1..3");
    fclose(f);
    f = stream("1 2 0.5\n1 0 1\n");
    ck_assert_int_eq(mm_read_mtx_crd_data(f, 3, 3, 2, I, J, val, t), MM_NOT_MTX);
    ck_assert_error_has("column index 0 outside 1..3");
    fclose(f);
    f = stream("1 2 0.5\n");
    ck_assert_int_eq(mm_read_mtx_crd_data(f, 3, 3, 2, I, J, val, t), MM_PREMATURE_EOF);
    ck_assert_error_has("after 1 of 2 entries");
    fclose(f);
    const char *bad[] = {"1 2 zz\n", "1 2 3 4\n", "1.5 2 3\n"};
    for (int i = 0; i < 3; i++) {
        f = stream(bad[i]);
        ck_assert_int_eq(mm_read_mtx_crd_data(f, 3, 3, 1, I, J, val, t), MM_NOT_MTX);
        fclose(f);
    }
    f = stream("1 2\n");
    ck_assert_int_eq(mm_read_mtx_crd_data(f, 3, 3, 1, I, J, val, t), MM_PREMATURE_EOF);
    fclose(f);

    /* Complex: interleaved; pattern: val untouched (may be NULL). */
    mm_set_complex(&t);
    f = stream("2 1 1.5 -2\n1 1 0 3\n");
    ck_assert_int_eq(mm_read_mtx_crd_data(f, 2, 2, 2, I, J, val, t), 0);
    ck_assert(val[0] == 1.5 && val[1] == -2 && val[2] == 0 && val[3] == 3);
    fclose(f);
    mm_set_pattern(&t);
    f = stream("2 1\n1 2\n");
    ck_assert_int_eq(mm_read_mtx_crd_data(f, 2, 2, 2, I, J, NULL, t), 0);
    ck_assert(I[1] == 1 && J[1] == 2);
    fclose(f);

    double re = 0, im = 0;
    mm_set_complex(&t);
    f = stream("% c\n4 5 6.25 -7\n");
    ck_assert_int_eq(mm_read_mtx_crd_entry(f, &I[0], &J[0], &re, &im, t), 0);
    ck_assert(I[0] == 4 && J[0] == 5 && re == 6.25 && im == -7);
    ck_assert_int_eq(mm_read_mtx_crd_entry(f, &I[0], &J[0], &re, &im, t), MM_PREMATURE_EOF);
    fclose(f);
    t[2] = 'Q';
    ck_assert_int_eq(mm_read_mtx_crd_entry(stdin, &I[0], &J[0], &re, &im, t),
                     MM_UNSUPPORTED_TYPE);
}
END_TEST

START_TEST(read_crd_files)
{
    int M, N, nz, *I = NULL, *J = NULL;
    double *val = NULL;
    MM_typecode t;
    /* As stored: the symmetric file keeps its triangle, 1-based, in file order. */
    char *p = write_file("sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                    "% comment\n3 3 4\n1 1 2.5\n3 1 -1\n2 2 4\n3 3 8\n");
    ck_assert_int_eq(mm_read_mtx_crd(p, &M, &N, &nz, &I, &J, &val, &t), 0);
    ck_assert(M == 3 && N == 3 && nz == 4 && mm_is_symmetric(t) && mm_is_real(t));
    const int eI[] = {1, 3, 2, 3}, eJ[] = {1, 1, 2, 3};
    const double ev[] = {2.5, -1, 4, 8};
    for (int k = 0; k < 4; k++) ck_assert(I[k] == eI[k] && J[k] == eJ[k] && val[k] == ev[k]);
    free(I);
    free(J);
    free(val);

    p = write_file("pat.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n");
    val = (double *)&M; /* must become NULL */
    ck_assert_int_eq(mm_read_mtx_crd(p, &M, &N, &nz, &I, &J, &val, &t), 0);
    ck_assert(M == 2 && N == 3 && nz == 2 && val == NULL && I[0] == 1 && J[0] == 3);
    free(I);
    free(J);

    p = write_file("int.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 2 -7\n");
    ck_assert_int_eq(mm_read_mtx_crd(p, &M, &N, &nz, &I, &J, &val, &t), 0);
    ck_assert(mm_is_integer(t) && nz == 1 && val[0] == -7);
    free(I);
    free(J);
    free(val);

    p = write_file("cplx.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n"
                               "1 1 3 0\n2 1 1.5 -0.5\n");
    ck_assert_int_eq(mm_read_mtx_crd(p, &M, &N, &nz, &I, &J, &val, &t), 0);
    ck_assert(nz == 2 && val[2] == 1.5 && val[3] == -0.5 && I[1] == 2 && J[1] == 1);
    free(I);
    free(J);
    free(val);

    /* Failures leave the outputs alone and say where. */
    int *I0 = (int *)&N;
    I = I0;
    p = write_file("short.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n");
    ck_assert_int_eq(mm_read_mtx_crd(p, &M, &N, &nz, &I, &J, &val, &t), MM_NOT_MTX);
    ck_assert_error_has("short.mtx:2:");
    ck_assert_ptr_eq(I, I0);
    p = write_file("range.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1\n");
    ck_assert_int_eq(mm_read_mtx_crd(p, &M, &N, &nz, &I, &J, &val, &t), MM_NOT_MTX);
    ck_assert_error_has("range.mtx:3:");
    p = write_file("arr.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n2\n");
    ck_assert_int_eq(mm_read_mtx_crd(p, &M, &N, &nz, &I, &J, &val, &t), MM_UNSUPPORTED_TYPE);
    p = write_file("nohead.mtx", "3 3 1\n1 1 1\n");
    ck_assert_int_eq(mm_read_mtx_crd(p, &M, &N, &nz, &I, &J, &val, &t), MM_NO_HEADER);
    ck_assert_int_eq(mm_read_mtx_crd("/nonexistent/x.mtx", &M, &N, &nz, &I, &J, &val, &t),
                     MM_COULD_NOT_READ_FILE);
    ck_assert_error_has("/nonexistent/x.mtx: cannot open");
    ck_assert_ptr_eq(I, I0);
}
END_TEST

START_TEST(read_crd_stdin_long_lines)
{
    /* A 5000-character comment and an entry padded past NIST's 1025-byte line cap. */
    size_t n = 20000;
    char *text = malloc(n);
    int off = snprintf(text, n, "%%%%MatrixMarket matrix coordinate real general\n%%");
    memset(text + off, 'c', 5000);
    off += 5000;
    off += snprintf(text + off, n - (size_t)off, "\n2 2 2\n1 1 1.25\n");
    memset(text + off, ' ', 3000);
    off += 3000;
    snprintf(text + off, n - (size_t)off, "2 2 -3\n");
    char *p = write_file("long.mtx", text);
    free(text);
    int M, N, nz, *I, *J;
    double *val;
    MM_typecode t;
    for (int from_stdin = 0; from_stdin < 2; from_stdin++) {
        char name[] = "stdin";
        if (from_stdin) ck_assert_ptr_nonnull(freopen(p, "r", stdin));
        ck_assert_int_eq(mm_read_mtx_crd(from_stdin ? name : p, &M, &N, &nz, &I, &J, &val, &t), 0);
        ck_assert(nz == 2 && I[1] == 2 && J[1] == 2 && val[0] == 1.25 && val[1] == -3);
        free(I);
        free(J);
        free(val);
    }
}
END_TEST

START_TEST(read_datasets)
{
    int M, N, nz, *I, *J;
    double *val;
    MM_typecode t;
    char path[1024];
    snprintf(path, sizeof path, "%s", sp_test_path("datasets/mtx/1138_bus.mtx"));
    ck_assert_int_eq(mm_read_mtx_crd(path, &M, &N, &nz, &I, &J, &val, &t), 0);
    ck_assert(M == 1138 && N == 1138 && nz == 2596 && mm_is_symmetric(t));
    double sum = 0;
    for (int k = 0; k < nz; k++) sum += val[k];
    ck_assert_double_eq_tol(sum, 487680.2249956008, 1e-6);
    free(I);
    free(J);
    free(val);

    snprintf(path, sizeof path, "%s", sp_test_path("datasets/mtx/young1c.mtx"));
    ck_assert_int_eq(mm_read_mtx_crd(path, &M, &N, &nz, &I, &J, &val, &t), 0);
    ck_assert(M == 841 && nz == 4089 && mm_is_complex(t));
    sum = 0;
    for (int k = 0; k < nz; k++) sum += val[2 * k];
    ck_assert_double_eq_tol(sum, 19562.671528760347, 1e-6);
    free(I);
    free(J);
    free(val);

    snprintf(path, sizeof path, "%s", sp_test_path("datasets/mtx/karate.mtx"));
    ck_assert_int_eq(mm_read_unsymmetric_sparse(path, &M, &N, &nz, &val, &I, &J), -1);
    snprintf(path, sizeof path, "%s", sp_test_path("datasets/mtx/west0067_jumbled.mtx"));
    ck_assert_int_eq(mm_read_unsymmetric_sparse(path, &M, &N, &nz, &val, &I, &J), 0);
    ck_assert(M == 67 && N == 67 && nz == 294);
    int lo = 1, hi = 0;
    for (int k = 0; k < nz; k++) {
        if (I[k] < lo) lo = I[k];
        if (J[k] > hi) hi = J[k];
    }
    ck_assert(lo == 0 && hi == 66); /* 0-based, as NIST's */
    free(I);
    free(J);
    free(val);
}
END_TEST

START_TEST(typecodes_and_writing)
{
    MM_typecode t;
    mm_clear_typecode(&t);
    ck_assert(!mm_is_valid(t));
    ck_assert_ptr_null(mm_typecode_to_str(t));
    mm_set_matrix(&t);
    mm_set_sparse(&t);
    mm_set_real(&t);
    mm_set_general(&t);
    char *s = mm_typecode_to_str(t);
    ck_assert_str_eq(s, "matrix coordinate real general");
    free(s);
    mm_set_hermitian(&t);
    ck_assert(!mm_is_valid(t));
    mm_set_dense(&t);
    mm_set_pattern(&t);
    mm_set_symmetric(&t);
    ck_assert(!mm_is_valid(t));
    s = mm_strdup(MM_SKEW_STR);
    ck_assert_str_eq(s, "skew-symmetric");
    free(s);

    /* Write with the NIST calls, read back exactly. */
    mm_initialize_typecode(&t);
    mm_set_matrix(&t);
    mm_set_coordinate(&t);
    mm_set_real(&t);
    mm_set_general(&t);
    int I[] = {1, 3, 2}, J[] = {2, 1, 3};
    double val[] = {0.1, -1.0 / 3.0, 6.02e23};
    char path[256];
    snprintf(path, sizeof path, "%s/w.mtx", sp_test_temp_dir());
    ck_assert_int_eq(mm_write_mtx_crd(path, 3, 3, 3, I, J, val, t), 0);
    int M, N, nz, *rI, *rJ;
    double *rv;
    MM_typecode rt;
    ck_assert_int_eq(mm_read_mtx_crd(path, &M, &N, &nz, &rI, &rJ, &rv, &rt), 0);
    ck_assert(M == 3 && N == 3 && nz == 3 && memcmp(rt, t, 4) == 0);
    for (int k = 0; k < 3; k++) ck_assert(rI[k] == I[k] && rJ[k] == J[k] && rv[k] == val[k]);
    free(rI);
    free(rJ);
    free(rv);

    FILE *f = tmpfile();
    ck_assert_int_eq(mm_write_banner(f, t), 0);
    ck_assert_int_eq(mm_write_mtx_crd_size(f, 4, 5, 6), 0);
    ck_assert_int_eq(mm_write_mtx_array_size(f, 7, 8), 0);
    rewind(f);
    char line[128];
    ck_assert_str_eq(fgets(line, sizeof line, f), "%%MatrixMarket matrix coordinate real general\n");
    ck_assert_str_eq(fgets(line, sizeof line, f), "4 5 6\n");
    ck_assert_str_eq(fgets(line, sizeof line, f), "7 8\n");
    fclose(f);
    mm_clear_typecode(&t);
    f = tmpfile();
    ck_assert_int_eq(mm_write_banner(f, t), MM_UNSUPPORTED_TYPE);
    fclose(f);
    snprintf(path, sizeof path, "%s/nodir/w.mtx", sp_test_temp_dir());
    mm_set_matrix(&t);
    mm_set_coordinate(&t);
    mm_set_pattern(&t);
    ck_assert_int_eq(mm_write_mtx_crd(path, 3, 3, 3, I, J, NULL, t), MM_COULD_NOT_WRITE_FILE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mmio");
    TCase *tc = tcase_create("nist");
    tcase_add_checked_fixture(tc, sp_test_temp_setup, sp_test_temp_teardown);
    tcase_add_test(tc, banner);
    tcase_add_test(tc, sizes);
    tcase_add_test(tc, entries);
    tcase_add_test(tc, read_crd_files);
    tcase_add_test(tc, read_crd_stdin_long_lines);
    tcase_add_test(tc, read_datasets);
    tcase_add_test(tc, typecodes_and_writing);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
