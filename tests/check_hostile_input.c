/* The streaming readers on inputs that cross chunk boundaries everywhere and on hostile
 * inputs: every chunk size from 1 to 200 bytes gives the whole-buffer result and the same
 * error lines; standard input and pipes (plain and gzip); /dev/zero fails at once naming
 * the banner; a header declaring 150M entries over blanks fails without allocating them
 * (under RLIMIT_AS); a gzip bomb is refused with its numbers; a file truncated while it
 * loads gives IO_ERROR, never a signal; bytes quoted in messages are escaped; a UTF-8
 * byte-order mark is skipped; per-part reads (row ranges) at every chunk size. */
#define _DEFAULT_SOURCE /* usleep */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef SP_HAVE_ZLIB
#include <zlib.h>
#endif

#include "testutil.h"

static const char *write_file(const char *name, const char *text, size_t len)
{
    char *p = sp_test_temp_path(name);
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    return p;
}

/* ASan and TSan reserve terabytes of address space: RLIMIT_AS cannot be used under them. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ASAN_BUILD 1
#endif
#endif
#ifndef ASAN_BUILD
#define ASAN_BUILD 0
#endif

static void set_chunk(int bytes)
{
    char v[16];
    snprintf(v, sizeof v, "%d", bytes);
    if (bytes > 0) setenv("SP_TEST_CHUNK_BYTES", v, 1);
    else unsetenv("SP_TEST_CHUNK_BYTES");
}

static void expect_same(const sp_coo_t *a, const sp_coo_t *b, int chunk, int t)
{
    ck_assert_msg(a->nnz == b->nnz && a->nrows == b->nrows && a->ncols == b->ncols,
                  "chunk %d threads %d: %lld entries, want %lld", chunk, t, (long long)b->nnz,
                  (long long)a->nnz);
    size_t vs = sp_value_size(a->value_type), n = (size_t)a->nnz;
    ck_assert_msg(memcmp(a->row, b->row, n * 4) == 0 && memcmp(a->col, b->col, n * 4) == 0 &&
                      (!vs || memcmp(a->val, b->val, n * vs) == 0),
                  "chunk %d threads %d: entries differ", chunk, t);
}

static const char mtx_text[] =
    "%%MatrixMarket matrix coordinate real symmetric\r\n"
    "% a comment\n"
    "\n"
    "6 6 9\n"
    "1 1 1.5\n"
    "  2\t1 -2.25e-3 \n"
    "% between\n"
    "3 2 7\r\n"
    "4 4 0.1\r"
    "5 1 123456789.123456789\n"
    "\n"
    "6 5 -0\n"
    "6 6 1e300\n"
    "3 3 4\n"
    "5 5 2.5";

static const char snap_text[] = "# snap\n1 2 0.5\n\n2 3 1.25\r\n% c\n3 1 2\n4 4 -1\n0 4 8";
static const char metis_text[] = "% m\n4 4 1\n2 1 3 2\n1 1\n\n1 2 % not a comment\n";

START_TEST(chunk_boundaries)
{
    const char *mp = write_file("cb.mtx", mtx_text, sizeof mtx_text - 1);
    const char *sp = write_file("cb.wel", snap_text, sizeof snap_text - 1);
    sp_coo_t *whole = NULL, *ewhole = NULL, *a = NULL;
    set_chunk(0);
    ck_assert_ok(sp_mtx_read(mp, SP_R_64F, NULL, &whole));
    sp_edgelist_options_t eo = {.format = SP_EDGELIST_SNAP, .nthreads = 1};
    ck_assert_ok(sp_edgelist_read(sp, SP_R_64F, &eo, &ewhole, NULL));
    for (int c = 1; c <= 200; c++) {
        set_chunk(c);
        for (int t = 1; t <= 3; t++) {
            sp_mtx_options_t o = {.nthreads = t};
            ck_assert_ok(sp_mtx_read(mp, SP_R_64F, &o, &a));
            expect_same(whole, a, c, t);
            sp_coo_free(a);
            eo.nthreads = t;
            ck_assert_ok(sp_edgelist_read(sp, SP_R_64F, &eo, &a, NULL));
            expect_same(ewhole, a, c, t);
            sp_coo_free(a);
        }
    }
    set_chunk(0);
    sp_coo_free(whole);
    sp_coo_free(ewhole);
}
END_TEST

/* METIS numbers vertices by line: pieces parsed alone are moved to their place, and the
 * "not a comment" line (a '%' field) is an error at its own line whatever the chunks. */
START_TEST(chunk_boundaries_metis_and_lines)
{
    static const char good[] = "% m\n4 2\n2 3\n1\n1\n\n";
    const char *gp = write_file("cb.graph", good, sizeof good - 1);
    const char *bp = write_file("cbad.graph", metis_text, sizeof metis_text - 1);
    static const char bad_mtx[] = "%%MatrixMarket matrix coordinate real general\n%\n3 3 4\n"
                                  "1 1 1\n\n2 2 2\n% x\n3 3 x\n1 2 3\n";
    const char *mp = write_file("cbad.mtx", bad_mtx, sizeof bad_mtx - 1);
    sp_coo_t *whole = NULL, *a = NULL;
    sp_edgelist_options_t eo = {.nthreads = 1};
    set_chunk(0);
    ck_assert_ok(sp_edgelist_read(gp, SP_R_64F, &eo, &whole, NULL));
    ck_assert_int_eq(whole->nnz, 4);
    for (int c = 1; c <= 200; c++) {
        set_chunk(c);
        for (int t = 1; t <= 3; t++) {
            eo.nthreads = t;
            ck_assert_ok(sp_edgelist_read(gp, SP_R_64F, &eo, &a, NULL));
            expect_same(whole, a, c, t);
            sp_coo_free(a);
            ck_assert_status(sp_edgelist_read(bp, SP_R_64F, &eo, &a, NULL),
                             SP_STATUS_PARSE_ERROR);
            ck_assert_error_has("cbad.graph:6: ");
            sp_mtx_options_t o = {.nthreads = t};
            ck_assert_status(sp_mtx_read(mp, SP_R_64F, &o, &a), SP_STATUS_PARSE_ERROR);
            ck_assert_error_has("cbad.mtx:8: value is not a number");
        }
    }
    set_chunk(0);
    sp_coo_free(whole);
}
END_TEST

/* Per-part reads (sp_mtx_read_rows, sp_edgelist_read_rows) at every chunk size: each part
 * holds the whole read's entries of its rows (mirrors of the symmetric file included),
 * compared as sorted (row, col, value) triples; an error outside the part is still
 * reported at its line; a bad range names the argument. */
static int cmp_triple(const void *x, const void *y)
{
    const double *a = x, *b = y;
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The entries of a with row in [b, e) (rows of a part: shift b), sorted, into t; count. */
static int64_t triples(const sp_coo_t *a, int64_t b, int64_t e, int64_t shift, double *t)
{
    int64_t n = 0;
    for (int64_t k = 0; k < a->nnz; k++) {
        int64_t r = a->row[k] + shift;
        if (r < b || r >= e) continue;
        t[3 * n] = (double)r;
        t[3 * n + 1] = a->col[k];
        t[3 * n++ + 2] = ((const double *)a->val)[k];
    }
    qsort(t, (size_t)n, 3 * sizeof *t, cmp_triple);
    return n;
}

static void expect_rows(const sp_coo_t *whole, const sp_coo_t *part, int64_t b, int64_t e,
                        int chunk, int t)
{
    double want[3 * 64], got[3 * 64];
    ck_assert(whole->nnz <= 64 && part->nnz <= 64);
    ck_assert_int_eq(part->nrows, e - b);
    int64_t nw = triples(whole, b, e, 0, want), np = triples(part, b, e, b, got);
    ck_assert_msg(np == nw && memcmp(want, got, (size_t)(3 * nw) * sizeof *got) == 0,
                  "rows %lld..%lld chunk %d threads %d: %lld entries, want %lld", (long long)b,
                  (long long)e, chunk, t, (long long)np, (long long)nw);
}

START_TEST(row_ranges_at_every_chunk)
{
    static const char bad_mtx[] = "%%MatrixMarket matrix coordinate real general\n%\n3 3 4\n"
                                  "1 1 1\n\n2 2 2\n% x\n3 3 x\n1 2 3\n";
    static const int64_t cut[4] = {0, 2, 3, 6};
    const char *mp = write_file("rr.mtx", mtx_text, sizeof mtx_text - 1);
    const char *sp = write_file("rr.wel", snap_text, sizeof snap_text - 1);
    const char *bp = write_file("rrbad.mtx", bad_mtx, sizeof bad_mtx - 1);
    sp_coo_t *whole = NULL, *ewhole = NULL, *a = NULL;
    sp_edgelist_options_t eo = {.format = SP_EDGELIST_SNAP, .undirected = 1};
    set_chunk(0);
    ck_assert_ok(sp_mtx_read(mp, SP_R_64F, NULL, &whole));
    ck_assert_ok(sp_edgelist_read(sp, SP_R_64F, &eo, &ewhole, NULL));
    for (int c = 1; c <= 200; c++) {
        set_chunk(c);
        for (int t = 1; t <= 3; t++) {
            sp_mtx_options_t o = {.nthreads = t};
            eo.nthreads = t;
            for (int p = 0; p < 3; p++) {
                ck_assert_ok(sp_mtx_read_rows(mp, SP_R_64F, &o, cut[p], cut[p + 1], &a));
                expect_rows(whole, a, cut[p], cut[p + 1], c, t);
                sp_coo_free(a);
                ck_assert_ok(sp_edgelist_read_rows(sp, SP_R_64F, &eo, cut[p], cut[p + 1] - 1,
                                                   &a, NULL));
                expect_rows(ewhole, a, cut[p], cut[p + 1] - 1, c, t);
                sp_coo_free(a);
            }
            ck_assert_status(sp_mtx_read_rows(bp, SP_R_64F, &o, 0, 1, &a),
                             SP_STATUS_PARSE_ERROR);
            ck_assert_error_has("rrbad.mtx:8: value is not a number");
        }
    }
    set_chunk(0);
    a = NULL; /* failed reads leave it as it is */
    ck_assert_status(sp_mtx_read_rows(mp, SP_R_64F, NULL, 4, 7, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row_end 7 beyond the 6 rows");
    ck_assert_status(sp_mtx_read_rows(mp, SP_R_64F, NULL, -2, 1, &a), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row_begin -2");
    ck_assert_status(sp_edgelist_read_rows(sp, SP_R_64F, &eo, 0, INT64_MAX, &a, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("row_end 9223372036854775807 beyond the 5 vertices");
    ck_assert(a == NULL);
    sp_coo_free(whole);
    sp_coo_free(ewhole);
}
END_TEST

/* Feed bytes to standard input through a pipe from a child process. */
static pid_t feed_stdin(const void *data, size_t len)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        for (size_t k = 0; k < len;) {
            ssize_t w = write(fd[1], (const char *)data + k, len - k);
            if (w <= 0) _exit(1);
            k += (size_t)w;
        }
        _exit(0);
    }
    close(fd[1]);
    ck_assert_int_ge(dup2(fd[0], STDIN_FILENO), 0);
    close(fd[0]);
    return pid;
}

START_TEST(stdin_and_pipes)
{
    const char *mp = write_file("in.mtx", mtx_text, sizeof mtx_text - 1);
    sp_coo_t *whole = NULL, *a = NULL;
    ck_assert_ok(sp_mtx_read(mp, SP_R_64F, NULL, &whole));
    for (int t = 1; t <= 2; t++) {
        set_chunk(t == 1 ? 0 : 17);
        pid_t pid = feed_stdin(mtx_text, sizeof mtx_text - 1);
        sp_mtx_options_t o = {.nthreads = t};
        ck_assert_ok(sp_mtx_read("-", SP_R_64F, &o, &a));
        expect_same(whole, a, 17, t);
        sp_coo_free(a);
        waitpid(pid, NULL, 0);
    }
    /* an edge list from standard input, and an error there named <stdin> */
    pid_t pid = feed_stdin(snap_text, sizeof snap_text - 1);
    ck_assert_ok(sp_edgelist_read("-", SP_R_64F, NULL, &a, NULL));
    ck_assert_int_eq(a->nnz, 5);
    sp_coo_free(a);
    waitpid(pid, NULL, 0);
    static const char bad[] = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 9 1\n";
    pid = feed_stdin(bad, sizeof bad - 1);
    ck_assert_status(sp_mtx_read("-", SP_R_64F, NULL, &a), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("<stdin>:3: column index 9 outside 1..2");
    waitpid(pid, NULL, 0);
    set_chunk(0);
    sp_coo_free(whole);
}
END_TEST

START_TEST(dev_zero_and_empty)
{
    sp_coo_t *a = NULL;
    time_t t0 = time(NULL);
    ck_assert_status(sp_mtx_read("/dev/zero", SP_R_64F, NULL, &a), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("/dev/zero:1: missing %%MatrixMarket banner");
    ck_assert_int_le(time(NULL) - t0, 2);
    ck_assert_status(sp_mtx_read("/dev/null", SP_R_64F, NULL, &a), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("/dev/null:1: missing %%MatrixMarket banner");
    ck_assert_ptr_null(a);
}
END_TEST

/* Address space limited to 384 MiB (not under ASan, which reserves terabytes): 150M
 * entries declared over 64 MiB of blank lines on a pipe must fail on the missing entries,
 * not on memory (their arrays would take 2.4 GB). */
START_TEST(declared_entries_over_blanks)
{
    static const char head[] = "%%MatrixMarket matrix coordinate real general\n"
                               "1000 1000 150000000\n";
    enum { BLANKS = 64 << 20 };
    char *text = malloc(sizeof head - 1 + BLANKS);
    ck_assert_ptr_nonnull(text);
    memcpy(text, head, sizeof head - 1);
    for (size_t k = 0; k < BLANKS; k++) text[sizeof head - 1 + k] = k % 64 == 63 ? '\n' : ' ';
    pid_t pid = feed_stdin(text, sizeof head - 1 + BLANKS);
    free(text);
    if (!ASAN_BUILD && !sp_test_under_sanitizer()) {
        struct rlimit rl = {(rlim_t)384 << 20, (rlim_t)384 << 20};
        ck_assert_int_eq(setrlimit(RLIMIT_AS, &rl), 0);
    }
    sp_coo_t *a = NULL;
    sp_mtx_options_t o = {.nthreads = 2};
    ck_assert_status(sp_mtx_read("-", SP_R_64F, &o, &a), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("expected 150000000 more entries (150000000 declared)");
    waitpid(pid, NULL, 0);
}
END_TEST

#ifdef SP_HAVE_ZLIB
/* A valid header declaring 10 entries, then 512 MiB of blanks, gzip-compressed on the fly
 * (about half a MiB): refused after about 1 MiB inflated, both numbers in the message. */
START_TEST(gzip_bomb)
{
    static const char head[] = "%%MatrixMarket matrix coordinate real general\n3 3 10\n";
    enum { BLOCK = 1 << 20, BLOCKS = 512 };
    char *blank = malloc(BLOCK);
    size_t cap = 4 << 20, len = 0;
    unsigned char *gz = malloc(cap);
    ck_assert(blank && gz);
    memset(blank, ' ', BLOCK);
    for (size_t k = 127; k < BLOCK; k += 128) blank[k] = '\n';
    char *first = malloc(BLOCK); /* the header, at the end of a buffer of its own */
    ck_assert_ptr_nonnull(first);
    memcpy(first + BLOCK - (sizeof head - 1), head, sizeof head - 1);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    ck_assert_int_eq(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY),
                     Z_OK);
    for (int b = -1; b < BLOCKS; b++) {
        zs.next_in = (unsigned char *)(b < 0 ? first + BLOCK - (sizeof head - 1) : blank);
        zs.avail_in = b < 0 ? (uInt)(sizeof head - 1) : BLOCK;
        do {
            zs.next_out = gz + len;
            zs.avail_out = (uInt)(cap - len);
            ck_assert_int_ne(deflate(&zs, b == BLOCKS - 1 ? Z_FINISH : Z_NO_FLUSH), Z_STREAM_ERROR);
            len = cap - zs.avail_out;
        } while (zs.avail_out == 0);
    }
    deflateEnd(&zs);
    const char *p = write_file("bomb.mtx.gz", (const char *)gz, len);
    free(gz);
    free(first);
    free(blank);
    sp_coo_t *a = NULL;
    ck_assert_status(sp_mtx_read(p, SP_R_64F, NULL, &a), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("bomb.mtx.gz: gzip input inflates to more than 1051189 bytes");
    ck_assert_error_has("the 10 entries declared can take");
    ck_assert_ptr_null(a);
}
END_TEST
#endif

typedef struct shrink {
    const char *path;
    useconds_t delay;
} shrink_t;

static void *truncate_later(void *arg)
{
    const shrink_t *s = arg;
    usleep(s->delay);
    ck_assert_int_eq(truncate(s->path, 4096), 0);
    return NULL;
}

/* A file cut short while it loads: IO_ERROR naming it (or, when the cut misses the read,
 * a parse error or success), never SIGBUS. Retried with longer delays until a cut lands
 * during the read. */
START_TEST(truncated_while_reading)
{
    enum { LINES = 2000000 };
    int io_errors = 0;
    for (int attempt = 0; attempt < 12 && io_errors == 0; attempt++) {
        char *p = sp_test_temp_path("shrink.mtx");
        FILE *f = fopen(p, "wb");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n1000 1000 %d\n", LINES);
        for (int k = 0; k < LINES; k++) fprintf(f, "%d %d 0.%07d\n", k % 1000 + 1, k % 999 + 1, k);
        fclose(f);
        set_chunk(64 << 10);
        shrink_t s = {p, (useconds_t)(1000 << (attempt % 6))};
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, truncate_later, &s), 0);
        sp_coo_t *a = NULL;
        sp_mtx_options_t o = {.nthreads = 1 + attempt % 2};
        sp_status_t st = sp_mtx_read(p, SP_R_64F, &o, &a);
        pthread_join(th, NULL);
        set_chunk(0);
        sp_coo_free(a);
        ck_assert_msg(st == SP_STATUS_SUCCESS || st == SP_STATUS_IO_ERROR ||
                          st == SP_STATUS_PARSE_ERROR,
                      "%s", sp_last_error());
        if (st == SP_STATUS_IO_ERROR) {
            ck_assert_error_has("shrink.mtx: file changed while being read");
            io_errors++;
        }
    }
    ck_assert_int_gt(io_errors, 0);
}
END_TEST

START_TEST(escaped_bytes_and_bom)
{
    static const char esc_mtx[] = "%%MatrixMarket matrix coordinate real \x1b[2J\n1 1 1\n1 1 1\n";
    static const char esc_snap[] = "1 2\n3 \x1b]0;pwned\x07\n";
    static const char bom_mtx[] = "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n"
                                  "2 2 1\n2 1 5\n";
    static const char bom_snap[] = "\xEF\xBB\xBF# c\n1 2\n";
    sp_coo_t *a = NULL;
    const char *p = write_file("esc.mtx", esc_mtx, sizeof esc_mtx - 1);
    ck_assert_status(sp_mtx_read(p, SP_R_64F, NULL, &a), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("unknown symmetry \"\\x1b[2j\"");
    ck_assert_ptr_null(strchr(sp_last_error(), '\x1b'));
    p = write_file("esc.el", esc_snap, sizeof esc_snap - 1);
    ck_assert_status(sp_edgelist_read(p, SP_R_64F, NULL, &a, NULL), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("esc.el:2: vertex id expected, found '\\x1b]0;pwned\\x07'");
    ck_assert_ptr_null(strchr(sp_last_error(), '\x1b'));
    p = write_file("bom.mtx", bom_mtx, sizeof bom_mtx - 1);
    ck_assert_ok(sp_mtx_read(p, SP_R_64F, NULL, &a));
    ck_assert_int_eq(a->nnz, 1);
    ck_assert_int_eq(a->row[0], 1);
    sp_coo_free(a);
    p = write_file("bom.el", bom_snap, sizeof bom_snap - 1);
    ck_assert_ok(sp_edgelist_read(p, SP_R_64F, NULL, &a, NULL));
    ck_assert_int_eq(a->nnz, 1);
    sp_coo_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile_input");
    TCase *tc = sp_test_add_case(s, "streams", NULL, NULL);
    tcase_add_checked_fixture(tc, sp_test_temp_setup, sp_test_temp_teardown);
    tcase_add_test(tc, chunk_boundaries);
    tcase_add_test(tc, chunk_boundaries_metis_and_lines);
    tcase_add_test(tc, row_ranges_at_every_chunk);
    tcase_add_test(tc, stdin_and_pipes);
    tcase_add_test(tc, dev_zero_and_empty);
    tcase_add_test(tc, declared_entries_over_blanks);
#ifdef SP_HAVE_ZLIB
    tcase_add_test(tc, gzip_bomb);
#endif
    tcase_add_test(tc, truncated_while_reading);
    tcase_add_test(tc, escaped_bytes_and_bom);
    return sp_test_run(s);
}
