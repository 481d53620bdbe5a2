/* Nothing lost: the Matrix Market writer and the binary cache writer under a full disk.
 * A forked child writes with RLIMIT_FSIZE capped at 0, 1, half and all but one byte of
 * the file (SIGXFSZ ignored, so write() fails with EFBIG as on a full disk); it must
 * return SP_STATUS_IO_ERROR naming the path, leave no file behind (neither the target
 * nor a temporary) and an existing target with its old content. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"


static int count_files(void)
{
    int n = 0;
    DIR *d = opendir(sp_test_temp_dir());
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static long file_size(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return (long)sb.st_size;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

enum writer { WRITE_MTX, WRITE_CACHE };

static sp_status_t write_with(enum writer w, const char *path, const sp_coo_t *a)
{
    return w == WRITE_MTX ? sp_mtx_write(path, a, NULL) : sp_coo_save(path, a);
}

/* The status and message of a write done in a child whose files may grow to limit bytes. */
typedef struct child_result {
    sp_status_t status;
    char message[1024];
} child_result_t;

static child_result_t write_in_child(enum writer w, const char *path, const sp_coo_t *a,
                                     long limit)
{
    child_result_t r;
    int fds[2];
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
        close(fds[0]);
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(2);
        r.status = write_with(w, path, a);
        snprintf(r.message, sizeof r.message, "%s", sp_last_error());
        _exit(write(fds[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 3);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int wstatus = 0;
    ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
    ck_assert_msg(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0,
                  "child ended with status 0x%x", wstatus);
    ck_assert_int_eq(got, (ssize_t)sizeof r);
    return r;
}

static void full_disk(enum writer w, const sp_coo_t *a)
{
    const char *name = w == WRITE_MTX ? "matrix.mtx" : "matrix.spcoo";
    const char *what = w == WRITE_MTX ? "sp_mtx_write" : "sp_coo_save";
    const char *path = sp_test_temp_path(name);
    ck_assert_ok(write_with(w, path, a));
    long size = file_size(path);
    ck_assert_int_gt(size, 100);
    ck_assert_int_eq(unlink(path), 0);
    const long limits[] = {0, 1, size / 2, size - 1};
    for (int old = 0; old <= 1; old++) {
        for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
            if (old) {
                FILE *f = fopen(path, "w");
                ck_assert_ptr_nonnull(f);
                fputs("old content\n", f);
                fclose(f);
            }
            child_result_t r = write_in_child(w, path, a, limits[i]);
            ck_assert_msg(r.status == SP_STATUS_IO_ERROR,
                          "%s, file limit %ld of %ld bytes: %s (%s)", what, limits[i], size,
                          sp_status_string(r.status), r.message);
            ck_assert_msg(strstr(r.message, path) != NULL, "%s: message \"%s\" lacks the path",
                          what, r.message);
            if (old) {
                ck_assert_str_eq(slurp(path), "old content\n");
                ck_assert_int_eq(count_files(), 1);
                ck_assert_int_eq(unlink(path), 0);
            }
            ck_assert_msg(count_files() == 0, "%s, file limit %ld: a file was left behind",
                          what, limits[i]);
        }
    }
    /* the limit at the full size: the write succeeds and replaces the old file */
    child_result_t r = write_in_child(w, path, a, size);
    ck_assert_msg(r.status == SP_STATUS_SUCCESS, "%s at the full size: %s", what, r.message);
    ck_assert_int_eq(file_size(path), size);
    ck_assert_int_eq(unlink(path), 0);
}

START_TEST(mtx_writer_full_disk)
{
    /* larger than stdio's buffer, so some writes fail in the middle, not only at flush */
    sp_coo_t *a = sp_test_random_coo(1, 500, 400, 6000, SP_R_64F, 0);
    ck_assert_ptr_nonnull(a);
    full_disk(WRITE_MTX, a);
    sp_coo_free(a);
}
END_TEST

START_TEST(cache_writer_full_disk)
{
    sp_coo_t *a = sp_test_random_coo(2, 500, 400, 6000, SP_R_32F, 0);
    ck_assert_ptr_nonnull(a);
    full_disk(WRITE_CACHE, a);
    sp_coo_free(a);
    ck_assert_ok(sp_coo_create(3, 3, 0, SP_VALUE_NONE, &a)); /* header and trailer only */
    a->nnz = 0;
    const char *path = sp_test_temp_path("empty.spcoo");
    child_result_t r = write_in_child(WRITE_CACHE, path, a, 10);
    ck_assert_int_eq(r.status, SP_STATUS_IO_ERROR);
    ck_assert_int_eq(count_files(), 0);
    sp_coo_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("writers_fail");
    TCase *tc = tcase_create("full_disk");
    tcase_add_checked_fixture(tc, sp_test_temp_setup, sp_test_temp_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, mtx_writer_full_disk);
    tcase_add_test(tc, cache_writer_full_disk);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
