/* sp_mtx_write: exact text of small files, round trips through sp_mtx_read (same arrays,
 * same bits) for every field, type and symmetry, and failures that leave no file. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/sp_mtx_write_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Remove the directory and what is in it; returns how many entries it held. */
static int remove_dir(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    char path[512];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
        n++;
    }
    closedir(d);
    rmdir(dir);
    return n;
}

static const char *in_dir(const char *name)
{
    static char path[8][256];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static sp_coo_t *small(sp_value_type_t vt, int64_t n, const int32_t *row, const int32_t *col,
                       const double *val, int64_t nrows, int64_t ncols)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(nrows, ncols, n, vt, &a));
    for (int64_t k = 0; k < n; k++) {
        a->row[k] = row[k];
        a->col[k] = col[k];
        if (vt == SP_R_32F) ((float *)a->val)[k] = (float)val[k];
        if (vt == SP_R_64F) ((double *)a->val)[k] = val[k];
    }
    a->nnz = n;
    return a;
}

START_TEST(test_exact_text)
{
    make_dir();
    static const int32_t row[] = {0, 2, 1, 0}, col[] = {0, 1, 2, 1};
    const double val[] = {0.1, -2, 1e-300, 3};
    sp_coo_t *a = small(SP_R_64F, 4, row, col, val, 3, 4);
    const char *p = in_dir("a.mtx");
    ck_assert_ok(sp_mtx_write(p, a, NULL));
    ck_assert_str_eq(slurp(p), "%%MatrixMarket matrix coordinate real general\n"
                               "3 4 4\n1 1 0.1\n3 2 -2\n2 3 1e-300\n1 2 3\n");
    sp_mtx_write_options_t o = {SP_MTX_FIELD_INTEGER, 0, "made by a test\nsecond line", 0};
    ck_assert_status(sp_mtx_write(p, a, &o), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("integer field but entry 0 has value 0.1");
    ((double *)a->val)[0] = 7;
    ((double *)a->val)[2] = -9007199254740992.0;
    ck_assert_ok(sp_mtx_write(p, a, &o));
    ck_assert_str_eq(slurp(p), "%%MatrixMarket matrix coordinate integer general\n"
                               "%made by a test\n%second line\n"
                               "3 4 4\n1 1 7\n3 2 -2\n2 3 -9007199254740992\n1 2 3\n");
    o = (sp_mtx_write_options_t){SP_MTX_FIELD_PATTERN, 0, NULL, 0};
    ck_assert_ok(sp_mtx_write(p, a, &o));
    ck_assert_str_eq(slurp(p), "%%MatrixMarket matrix coordinate pattern general\n"
                               "3 4 4\n1 1\n3 2\n2 3\n1 2\n");
    sp_coo_free(a);
    a = small(SP_R_32F, 4, row, col, val, 3, 4);
    ck_assert_ok(sp_mtx_write(p, a, NULL));
    ck_assert_str_eq(slurp(p), "%%MatrixMarket matrix coordinate real general\n"
                               "3 4 4\n1 1 0.1\n3 2 -2\n2 3 0\n1 2 3\n");
    sp_coo_free(a);
    ck_assert_int_eq(remove_dir(), 1); /* no temporary files left behind */
}
END_TEST

START_TEST(test_symmetric_text)
{
    make_dir();
    static const int32_t row[] = {0, 1, 0, 2, 2, 1, 2}, col[] = {0, 0, 1, 0, 2, 2, 1};
    static const double val[] = {4, -1, -1, 0.5, 2, 3, 3};
    sp_coo_t *a = small(SP_R_64F, 7, row, col, val, 3, 3);
    const char *p = in_dir("s.mtx");
    sp_mtx_write_options_t o = {SP_MTX_FIELD_AUTO, 1, NULL, 0};
    /* (3, 1) has no mirror */
    ck_assert_status(sp_mtx_write(p, a, &o), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("entry (3, 1) has no mirror");
    ck_assert_int_eq(access(p, F_OK), -1);
    a->row[3] = 0; /* (1, 3) = 0.5 and nothing at (3, 1): still unmatched */
    a->col[3] = 2;
    ck_assert_status(sp_mtx_write(p, a, &o), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("no mirror");
    a->nnz = 3; /* drop the rest: {(1,1) 4, (2,1) -1, (1,2) -1} */
    ck_assert_ok(sp_mtx_write(p, a, &o));
    ck_assert_str_eq(slurp(p), "%%MatrixMarket matrix coordinate real symmetric\n"
                               "3 3 2\n1 1 4\n2 1 -1\n");
    ((double *)a->val)[2] = -1.0000000000000002; /* numerically unsymmetric by one ulp */
    ck_assert_status(sp_mtx_write(p, a, &o), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("A(1, 2) = -1.0000000000000002 but A(2, 1) = -1");
    o.field = SP_MTX_FIELD_PATTERN; /* structure alone is symmetric */
    ck_assert_ok(sp_mtx_write(p, a, &o));
    ck_assert_str_eq(slurp(p), "%%MatrixMarket matrix coordinate pattern symmetric\n"
                               "3 3 2\n1 1\n2 1\n");
    /* duplicates are summed before comparing: (2,1) twice = 2 x (1,2) */
    static const int32_t drow[] = {1, 1, 0}, dcol[] = {0, 0, 1};
    static const double dval[] = {1.5, 1.5, 3};
    sp_coo_free(a);
    a = small(SP_R_64F, 3, drow, dcol, dval, 2, 2);
    o.field = SP_MTX_FIELD_REAL;
    ck_assert_ok(sp_mtx_write(p, a, &o));
    ck_assert_str_eq(slurp(p), "%%MatrixMarket matrix coordinate real symmetric\n"
                               "2 2 2\n2 1 1.5\n2 1 1.5\n");
    a->ncols = 3;
    ck_assert_status(sp_mtx_write(p, a, &o), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("symmetric but 2 x 3");
    sp_coo_free(a);
    ck_assert_int_eq(remove_dir(), 1);
}
END_TEST

/* The same entries in the same order with the same value bits. */
static void same_coo(const sp_coo_t *a, const sp_coo_t *b)
{
    ck_assert(a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz);
    ck_assert_int_eq(a->value_type, b->value_type);
    ck_assert(memcmp(a->row, b->row, (size_t)a->nnz * 4) == 0);
    ck_assert(memcmp(a->col, b->col, (size_t)a->nnz * 4) == 0);
    size_t vs = sp_value_size(a->value_type);
    ck_assert(vs == 0 || memcmp(a->val, b->val, (size_t)a->nnz * vs) == 0);
}

/* Random values across the whole range of the type, specials included. */
static void wild_values(sp_coo_t *a, uint64_t seed)
{
    for (int64_t k = 0; k < a->nnz; k++) {
        uint64_t r = sp_test_rand(&seed);
        if (a->value_type == SP_R_64F) {
            double v;
            memcpy(&v, &r, sizeof v);
            if (isnan(v)) v = r % 2 ? INFINITY : -0.0; /* NaN payloads do not round-trip */
            ((double *)a->val)[k] = v;
        } else {
            uint32_t b = (uint32_t)r;
            float v;
            memcpy(&v, &b, sizeof v);
            if (isnan(v)) v = r % 2 ? -INFINITY : 0x1p-149f;
            ((float *)a->val)[k] = v;
        }
    }
}

START_TEST(test_round_trip_general)
{
    make_dir();
    static const sp_value_type_t types[] = {SP_R_64F, SP_R_32F};
    const char *p = in_dir("g.mtx");
    for (int t = 0; t < 2; t++) {
        sp_coo_t *a = sp_test_random_coo(7 + (uint64_t)t, 500, 300, 20000, types[t],
                                         SP_TEST_DUPLICATES);
        wild_values(a, 99 + (uint64_t)t);
        ck_assert_ok(sp_mtx_write(p, a, NULL));
        sp_mtx_options_t o = {0};
        o.nthreads = 3;
        sp_coo_t *b = NULL;
        ck_assert_ok(sp_mtx_read(p, types[t], &o, &b));
        same_coo(a, b);
        sp_coo_free(b);
        /* pattern: the structure only */
        sp_mtx_write_options_t w = {SP_MTX_FIELD_PATTERN, 0, NULL, 0};
        ck_assert_ok(sp_mtx_write(p, a, &w));
        o.pattern = SP_PATTERN_NONE;
        ck_assert_ok(sp_mtx_read(p, types[t], &o, &b));
        ck_assert(b->value_type == SP_VALUE_NONE && b->nnz == a->nnz);
        ck_assert(memcmp(a->row, b->row, (size_t)a->nnz * 4) == 0);
        ck_assert(memcmp(a->col, b->col, (size_t)a->nnz * 4) == 0);
        sp_coo_free(b);
        sp_coo_free(a);
    }
    /* empty matrices */
    sp_coo_t *e = NULL, *b = NULL;
    ck_assert_ok(sp_coo_create(0, 0, 0, SP_R_64F, &e));
    ck_assert_ok(sp_mtx_write(p, e, NULL));
    ck_assert_ok(sp_mtx_read(p, SP_R_64F, NULL, &b));
    same_coo(e, b);
    sp_coo_free(b);
    sp_coo_free(e);
    ck_assert_ok(sp_coo_create(5, 7, 0, SP_VALUE_NONE, &e));
    ck_assert_ok(sp_mtx_write(p, e, NULL));
    ck_assert_str_eq(slurp(p), "%%MatrixMarket matrix coordinate pattern general\n5 7 0\n");
    sp_coo_free(e);
    ck_assert_int_eq(remove_dir(), 1);
}
END_TEST

/* A symmetric matrix written as its lower triangle reads back expanded: the lower
 * entries in order, then their mirrors. */
START_TEST(test_round_trip_symmetric)
{
    make_dir();
    const char *p = in_dir("sym.mtx");
    static const sp_value_type_t types[] = {SP_R_64F, SP_R_32F};
    for (int t = 0; t < 2; t++) {
        sp_coo_t *low = sp_test_random_coo(31 + (uint64_t)t, 400, 400, 6000, types[t], 0);
        wild_values(low, 5);
        for (int64_t k = 0; k < low->nnz; k++) { /* fold into the lower triangle */
            int32_t r = low->row[k], c = low->col[k];
            low->row[k] = r > c ? r : c;
            low->col[k] = r > c ? c : r;
        }
        /* the full matrix: lower entries then the mirrors of the off-diagonal ones */
        sp_coo_t *full = NULL;
        ck_assert_ok(sp_coo_create(400, 400, 2 * low->nnz, types[t], &full));
        int64_t n = 0;
        size_t vs = sp_value_size(types[t]);
        for (int pass = 0; pass < 2; pass++)
            for (int64_t k = 0; k < low->nnz; k++) {
                if (pass == 1 && low->row[k] == low->col[k]) continue;
                full->row[n] = pass ? low->col[k] : low->row[k];
                full->col[n] = pass ? low->row[k] : low->col[k];
                memcpy((char *)full->val + n * vs, (char *)low->val + k * vs, vs);
                n++;
            }
        full->nnz = n;
        sp_mtx_write_options_t w = {SP_MTX_FIELD_REAL, 1, NULL, 0};
        ck_assert_ok(sp_mtx_write(p, full, &w));
        sp_coo_t *b = NULL;
        ck_assert_ok(sp_mtx_read(p, types[t], NULL, &b));
        ck_assert(b->symmetry == SP_SYMMETRY_SYMMETRIC);
        same_coo(full, b);
        sp_coo_free(b);
        /* read back as stored (one triangle) and written again: the same file */
        sp_mtx_options_t keep = {0};
        keep.keep_symmetric = 1;
        ck_assert_ok(sp_mtx_read(p, types[t], &keep, &b));
        same_coo(low, b);
        const char *p2 = in_dir("sym2.mtx");
        ck_assert_ok(sp_mtx_write(p2, b, &w));
        sp_mtx_write_options_t general = {SP_MTX_FIELD_REAL, 0, NULL, 0};
        ck_assert_status(sp_mtx_write(p2, b, &general), SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has("one triangle");
        sp_coo_free(b);
        ck_assert_ok(sp_mtx_read(p2, types[t], NULL, &b));
        same_coo(full, b);
        sp_coo_free(b);
        sp_coo_free(full);
        sp_coo_free(low);
    }
    ck_assert_int_eq(remove_dir(), 2);
}
END_TEST

/* Failures leave nothing: no file at the path, an old file untouched, no temporaries. */
START_TEST(test_failures)
{
    make_dir();
    static const int32_t row[] = {0, 1}, col[] = {1, 1};
    static const double val[] = {1.5, 2};
    sp_coo_t *a = small(SP_R_64F, 2, row, col, val, 2, 2);
    const char *missing = in_dir("no/such/dir/x.mtx");
    ck_assert_status(sp_mtx_write(missing, a, NULL), SP_STATUS_IO_ERROR);
    ck_assert_error_has(missing);
    ck_assert_error_has("No such file");
    ck_assert_int_eq(access(missing, F_OK), -1);

    const char *p = in_dir("old.mtx");
    FILE *f = fopen(p, "w");
    fputs("old contents\n", f);
    fclose(f);
    sp_mtx_write_options_t o = {SP_MTX_FIELD_INTEGER, 0, NULL, 0};
    ck_assert_status(sp_mtx_write(p, a, &o), SP_STATUS_INVALID_ARGUMENT);
    o = (sp_mtx_write_options_t){SP_MTX_FIELD_REAL, 1, NULL, 0};
    ck_assert_status(sp_mtx_write(p, a, &o), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_str_eq(slurp(p), "old contents\n");
    /* a directory at the path: the rename fails and the temporary file goes away */
    const char *d = in_dir("adir");
    ck_assert_int_eq(mkdir(d, 0755), 0);
    ck_assert_status(sp_mtx_write(d, a, NULL), SP_STATUS_IO_ERROR);
    ck_assert_error_has("adir: rename failed");
    rmdir(d);
    ck_assert_int_eq(remove_dir(), 1); /* only old.mtx */

    ck_assert_status(sp_mtx_write(NULL, a, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_mtx_write("x.mtx", NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    a->row[1] = 2;
    ck_assert_status(sp_mtx_write("x.mtx", a, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("entry 1 at (2, 1) outside 2 x 2");
    a->row[1] = 1;
    o = (sp_mtx_write_options_t){(sp_mtx_field_t)9, 0, NULL, 0};
    ck_assert_status(sp_mtx_write("x.mtx", a, &o), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown field 9");
    sp_coo_free(a);
    a = small(SP_VALUE_NONE, 2, row, col, val, 2, 2);
    o = (sp_mtx_write_options_t){SP_MTX_FIELD_REAL, 0, NULL, 0};
    ck_assert_status(sp_mtx_write("x.mtx", a, &o), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("no values to write as real");
    sp_coo_free(a);
    ck_assert_int_eq(access("x.mtx", F_OK), -1);
}
END_TEST

static int64_t file_bytes(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return (int64_t)sb.st_size;
}

static char *slurp_all(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    rewind(f);
    char *b = malloc((size_t)*size + 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(fread(b, 1, (size_t)*size, f), *size);
    fclose(f);
    return b;
}

/* Any thread count writes the same bytes, for every field and symmetry, on inputs of many
 * chunks; and the values read back to the same bits. */
START_TEST(test_threads_same_bytes)
{
    make_dir();
    const char *p1 = in_dir("one.mtx"), *pn = in_dir("many.mtx");
    static const int threads[] = {2, 3, 8, 0};
    for (int t = 0; t < 2; t++) {
        sp_value_type_t vt = t ? SP_R_32F : SP_R_64F;
        sp_coo_t *a = sp_test_random_coo(31 + (uint64_t)t, 3000, 2500, 100000, vt,
                                         SP_TEST_DUPLICATES);
        wild_values(a, 5 + (uint64_t)t);
        sp_coo_t *sym = NULL;
        ck_assert_ok(sp_gen_poisson2d(120, vt, &sym)); /* 14,400 rows, 71,520 entries */
        for (int f = 0; f < 4; f++) {
            sp_mtx_write_options_t o = {(sp_mtx_field_t)(f % 3 + 1), f == 3, NULL, 1};
            const sp_coo_t *m = f == 3 ? sym : a;
            if (o.field == SP_MTX_FIELD_INTEGER)
                for (int64_t k = 0; k < a->nnz; k++) {
                    if (vt == SP_R_64F) ((double *)a->val)[k] = (double)(k % 2001 - 1000);
                    else ((float *)a->val)[k] = (float)(k % 2001 - 1000);
                }
            ck_assert_ok(sp_mtx_write(p1, m, &o));
            long n1, nn;
            char *one = slurp_all(p1, &n1);
            for (int i = 0; i < 4; i++) {
                o.nthreads = threads[i];
                ck_assert_ok(sp_mtx_write(pn, m, &o));
                char *many = slurp_all(pn, &nn);
                ck_assert_msg(n1 == nn && memcmp(one, many, (size_t)n1) == 0,
                              "field %d: %d threads wrote other bytes", o.field, threads[i]);
                free(many);
            }
            free(one);
            if (o.field != SP_MTX_FIELD_PATTERN) {
                sp_coo_t *b = NULL;
                ck_assert_ok(sp_mtx_read(pn, vt, NULL, &b));
                if (f != 3) same_coo(m, b);
                else ck_assert_int_eq(b->nnz, m->nnz);
                sp_coo_free(b);
            }
        }
        sp_coo_free(sym);
        sp_coo_free(a);
    }
    ck_assert_int_eq(remove_dir(), 2);
}
END_TEST

/* The readers' progress callback: 0 first, never backwards, the whole text at the end. */
typedef struct progress_log {
    int calls;
    int64_t first, last, total, backwards;
} progress_log_t;

static void log_progress(void *user, int64_t done, int64_t total)
{
    progress_log_t *l = user;
    if (l->calls++ == 0) l->first = done;
    l->backwards += done < l->last;
    l->last = done;
    l->total = total;
}

START_TEST(test_read_progress)
{
    make_dir();
    const char *p = in_dir("p.mtx"), *e = in_dir("p.txt");
    sp_coo_t *a = sp_test_random_coo(3, 2000, 2000, 50000, SP_R_64F, 0), *b = NULL;
    ck_assert_ok(sp_mtx_write(p, a, NULL));
    for (int t = 1; t <= 3; t += 2) {
        progress_log_t l = {0};
        sp_mtx_options_t o = {.nthreads = t, .progress = log_progress, .progress_user = &l};
        ck_assert_ok(sp_mtx_read(p, SP_R_64F, &o, &b));
        sp_coo_free(b);
        ck_assert(l.calls >= 2 && l.first == 0 && l.backwards == 0 && l.last == l.total);
        ck_assert(l.total > 0 && l.total < file_bytes(p));
    }
    FILE *f = fopen(e, "w");
    ck_assert_ptr_nonnull(f);
    for (int64_t k = 0; k < a->nnz; k++) fprintf(f, "%d %d\n", a->row[k], a->col[k]);
    fclose(f);
    for (int t = 1; t <= 3; t += 2) {
        progress_log_t l = {0};
        sp_edgelist_options_t o = {.nthreads = t, .progress = log_progress, .progress_user = &l};
        ck_assert_ok(sp_edgelist_read(e, SP_VALUE_NONE, &o, &b, NULL));
        sp_coo_free(b);
        ck_assert(l.calls >= 2 && l.first == 0 && l.backwards == 0 && l.last == l.total);
        ck_assert_int_eq(l.total, file_bytes(e));
    }
    sp_coo_free(a);
    ck_assert_int_eq(remove_dir(), 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mtx_write");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_exact_text);
    tcase_add_test(tc, test_symmetric_text);
    tcase_add_test(tc, test_round_trip_general);
    tcase_add_test(tc, test_round_trip_symmetric);
    tcase_add_test(tc, test_failures);
    tcase_add_test(tc, test_threads_same_bytes);
    tcase_add_test(tc, test_read_progress);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
