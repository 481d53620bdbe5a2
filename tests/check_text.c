/* The text machinery under the loaders: whole-file input (plain, mapped or read, gzip),
 * line-aligned splitting with line numbers, and parallel_for's error propagation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef SP_HAVE_ZLIB
#include <zlib.h>
#endif

#include "sp_base.h"
#include "sp_text.h"
#include "testutil.h"

static char *temp_file(const void *data, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/sp_text_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

#ifdef SP_HAVE_ZLIB
/* gzip-compress data into one member with zlib (the library inflates it back). */
static size_t gzip_member(const char *data, size_t len, unsigned char *out, size_t cap)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
                     Z_OK);
    zs.next_in = (unsigned char *)(uintptr_t)data;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t n = zs.total_out;
    deflateEnd(&zs);
    return n;
}
#endif

START_TEST(test_open_plain_sizes)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t sizes[] = {0, 1, 100, (size_t)page, (size_t)page + 1, 3 * (size_t)page};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        char *data = malloc(sizes[s] + 1);
        for (size_t k = 0; k < sizes[s]; k++) data[k] = (char)('a' + k % 26);
        char *path = temp_file(data, sizes[s]);
        sp_text_t t;
        ck_assert_ok(sp__text_open(path, &t));
        ck_assert_uint_eq(t.len, sizes[s]);
        ck_assert(memcmp(t.data, data, sizes[s]) == 0);
        ck_assert_int_eq(t.data[t.len], '\0'); /* promised even when the map ends a page */
        ck_assert_ptr_eq(t.path, path);
        sp__text_close(&t);
        ck_assert_ptr_null(t.data);
        unlink(path);
        free(data);
    }
}
END_TEST

#ifdef SP_HAVE_ZLIB
START_TEST(test_open_gzip)
{
    static char plain[200000];
    static unsigned char gz[400000];
    for (size_t k = 0; k < sizeof plain; k++) plain[k] = (char)(k % 7 ? '0' + k % 10 : '\n');
    /* two members back to back, as `cat a.gz b.gz` makes: both are inflated */
    size_t half = sizeof plain / 2;
    size_t n1 = gzip_member(plain, half, gz, sizeof gz);
    size_t n2 = gzip_member(plain + half, sizeof plain - half, gz + n1, sizeof gz - n1);
    char *path = temp_file(gz, n1 + n2);
    sp_text_t t;
    ck_assert_ok(sp__text_open(path, &t));
    ck_assert_uint_eq(t.len, sizeof plain);
    ck_assert(memcmp(t.data, plain, sizeof plain) == 0);
    ck_assert_int_eq(t.data[t.len], '\0');
    sp__text_close(&t);
    unlink(path);
    /* truncated and corrupt streams */
    path = temp_file(gz, n1 / 2);
    ck_assert_status(sp__text_open(path, &t), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("truncated gzip");
    ck_assert_error_has(path);
    unlink(path);
    gz[n1 / 2] ^= 0xff;
    gz[n1 / 2 + 1] ^= 0x55;
    path = temp_file(gz, n1);
    ck_assert_status(sp__text_open(path, &t), SP_STATUS_PARSE_ERROR);
    ck_assert_error_has("gzip");
    unlink(path);
}
END_TEST
#else
/* Built without zlib: any gzip stream (found by its magic number) is refused, naming the
 * file and what is missing. */
START_TEST(test_open_gzip)
{
    static const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03};
    char *path = temp_file(gz, sizeof gz);
    sp_text_t t;
    ck_assert_status(sp__text_open(path, &t), SP_STATUS_NOT_COMPILED);
    ck_assert_error_has(path);
    ck_assert_error_has("gzip input needs zlib: libsp was built without it");
    unlink(path);
}
END_TEST
#endif

START_TEST(test_open_errors)
{
    sp_text_t t = {NULL, 0, NULL, 0};
    ck_assert_status(sp__text_open("/nonexistent/dir/f.mtx", &t), SP_STATUS_IO_ERROR);
    ck_assert_error_has("/nonexistent/dir/f.mtx: cannot open: No such file");
    ck_assert_status(sp__text_open("/tmp", &t), SP_STATUS_IO_ERROR);
    ck_assert_error_has("/tmp: cannot read: Is a directory");
    ck_assert_ptr_null(t.data);
    ck_assert_status(sp__text_open(NULL, &t), SP_STATUS_INVALID_ARGUMENT);
    sp__text_close(NULL);
}
END_TEST

/* Every split covers the text exactly, ends chunks after a line break (never inside
 * "\r\n"), and numbers lines like a sequential count. */
static void check_split(const char *text, size_t len, int max_chunks)
{
    sp_chunk_t *c = NULL;
    int n = -1;
    ck_assert_ok(sp__text_split(text, text + len, 5, max_chunks, &c, &n));
    ck_assert_int_le(n, max_chunks);
    ck_assert_int_eq(n == 0, len == 0);
    const char *p = text;
    int64_t line = 5;
    for (int i = 0; i < n; i++) {
        ck_assert_ptr_eq(c[i].begin, p);
        ck_assert_int_eq(c[i].first_line, line);
        ck_assert(c[i].end > c[i].begin);
        if (c[i].end < text + len) {
            char last = c[i].end[-1];
            ck_assert(last == '\n' || (last == '\r' && c[i].end[0] != '\n'));
        }
        for (; p < c[i].end; p++)
            line += *p == '\n' || (*p == '\r' && (p + 1 == text + len || p[1] != '\n'));
    }
    ck_assert_ptr_eq(p, text + len);
    sp__free(c);
}

START_TEST(test_split)
{
    static char text[50000];
    uint64_t seed = 9;
    static const char *breaks[] = {"\n", "\r\n", "\r", "\r\r\n"};
    for (int round = 0; round < 40; round++) {
        size_t len = 0, want = (size_t)(sp_test_rand(&seed) % 40000);
        while (len < want) {
            int w = (int)(sp_test_rand(&seed) % 60);
            for (int k = 0; k < w; k++) text[len++] = 'x';
            const char *b = breaks[round % 4 == 3 ? sp_test_rand(&seed) % 4 : (size_t)round % 4];
            for (; *b; b++) text[len++] = *b;
        }
        for (int m = 1; m <= 64; m *= 3) check_split(text, len, m);
    }
    check_split("", 0, 4);
    check_split("no newline at all", 17, 8);
    check_split("\n\n\n", 3, 100);
    sp_chunk_t *c = NULL;
    int n;
    ck_assert_status(sp__text_split(text, text + 1, 1, 0, &c, &n), SP_STATUS_INVALID_ARGUMENT);
}
END_TEST

static sp_status_t fail_some(int i, void *arg)
{
    int *ran = arg;
    ran[i] = 1;
    if (i % 7 == 3) return SP_ERROR(SP_STATUS_PARSE_ERROR, "task %d failed", i);
    return SP_STATUS_SUCCESS;
}

static sp_status_t square(int i, void *arg)
{
    ((int64_t *)arg)[i] = (int64_t)i * i;
    return SP_STATUS_SUCCESS;
}

START_TEST(test_parallel_for)
{
    int64_t out[1000];
    for (int t = 0; t <= 9; t += 3) {
        memset(out, 0xff, sizeof out);
        ck_assert_ok(sp__parallel_for(t, 1000, square, out));
        for (int i = 0; i < 1000; i++) ck_assert(out[i] == (int64_t)i * i);
        int ran[100] = {0};
        sp_clear_error();
        ck_assert_status(sp__parallel_for(t, 100, fail_some, ran), SP_STATUS_PARSE_ERROR);
        /* the lowest failing task's message, re-recorded on this thread */
        ck_assert_str_eq(sp_last_error(), "task 3 failed");
        ck_assert_msg(strstr(sp__error_origin(), "check_text.c:") != NULL, "origin %s",
                      sp__error_origin());
        for (int i = 0; i <= 3; i++) ck_assert(ran[i]); /* nothing before it skipped */
    }
    ck_assert_ok(sp__parallel_for(4, 0, square, out));
    ck_assert_status(sp__parallel_for(4, 3, NULL, out), SP_STATUS_INVALID_ARGUMENT);
}
END_TEST

/* Lines with content, counted the obvious way: the oracle for the word-at-a-time count. */
static int64_t naive_content_lines(const char *b, const char *e, const char *comments)
{
    int64_t n = 0;
    while (b < e) {
        const char *q = b;
        while (q < e && *q != '\n' && *q != '\r') q++;
        const char *f = b;
        while (f < q && (*f == ' ' || *f == '\t')) f++;
        n += f < q && strchr(comments, *f) == NULL;
        b = q < e ? q + ((*q == '\r' && q + 1 < e && q[1] == '\n') ? 2 : 1) : e;
    }
    return n;
}

START_TEST(test_count_content_lines)
{
    static const char *const pieces[] = {"1 2 3.5\n", "10 20 -1e5\n", "  7 8 9\n", "\n",
                                         "   \n", "% c\n", "\t% c\n", "3 4\r\n", "5 6\r",
                                         "12345678 87654321 0.1234567890123\n", "\t\n"};
    const int npieces = (int)(sizeof pieces / sizeof pieces[0]);
    uint64_t seed = 7;
    char buf[4096];
    for (int trial = 0; trial < 20000; trial++) {
        size_t len = 0;
        int n = (int)(sp_test_rand(&seed) % 40);
        /* a third of the trials use only plain entry lines: the fast path */
        int plain = trial % 3 == 0;
        for (int i = 0; i < n; i++) {
            int k = plain ? (int)(sp_test_rand(&seed) % 3) * (sp_test_rand(&seed) % 2 ? 1 : 0)
                          : (int)(sp_test_rand(&seed) % (uint64_t)npieces);
            if (plain && k == 2) k = 9;
            size_t l = strlen(pieces[k]);
            memcpy(buf + len, pieces[k], l);
            len += l;
        }
        if (len && sp_test_rand(&seed) % 4 == 0) len--; /* drop the last line break */
        size_t start = sp_test_rand(&seed) % 4 == 0 && len ? 1 : 0;
        sp_chunk_t chunk = {buf + start, buf + len, 1, 0};
        for (int nc = 0; nc < 2; nc++) {
            chunk.no_cr = nc && memchr(chunk.begin, '\r', len - start) == NULL;
            ck_assert_int_eq(sp__text_count_content_lines(&chunk, "%"),
                             naive_content_lines(chunk.begin, chunk.end, "%"));
            ck_assert_int_eq(sp__text_count_content_lines(&chunk, "#%"),
                             naive_content_lines(chunk.begin, chunk.end, "#%"));
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_open_plain_sizes);
    tcase_add_test(tc, test_open_gzip);
    tcase_add_test(tc, test_open_errors);
    tcase_add_test(tc, test_split);
    tcase_add_test(tc, test_parallel_for);
    tcase_add_test(tc, test_count_content_lines);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
