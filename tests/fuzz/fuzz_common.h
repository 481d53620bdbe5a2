/* Shared by the libFuzzer targets: the input as an anonymous in-memory file the loaders
 * open by path, and the library contract every target checks after a call. */
#ifndef SP_FUZZ_COMMON_H
#define SP_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp.h"

/* A contract violation: report it and abort, which libFuzzer records as a crash. */
#define FUZZ_REQUIRE(cond, ...)                                              \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "fuzz contract violated: %s: ", #cond);          \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
            abort();                                                         \
        }                                                                    \
    } while (0)

/* The loaders read files by path: the bytes go into a memfd (no disk, nothing to clean
 * up but the descriptor), opened through /proc/self/fd. Returns the fd (< 0 on failure). */
static inline int fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t cap)
{
    int fd = memfd_create("spfuzz", MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

/* A successful load: sizes sane, every index in range, arrays present where promised. */
static inline void fuzz_check_coo(const sp_coo_t *a)
{
    FUZZ_REQUIRE(a != NULL, "success without a COO");
    FUZZ_REQUIRE(a->nrows >= 0 && a->ncols >= 0, "%lld x %lld", (long long)a->nrows,
                 (long long)a->ncols);
    FUZZ_REQUIRE(a->nrows <= INT32_MAX && a->ncols <= INT32_MAX, "%lld x %lld",
                 (long long)a->nrows, (long long)a->ncols);
    FUZZ_REQUIRE(a->nnz >= 0 && a->nnz <= a->capacity, "nnz %lld capacity %lld",
                 (long long)a->nnz, (long long)a->capacity);
    FUZZ_REQUIRE(a->nnz == 0 || (a->row && a->col), "NULL index array");
    FUZZ_REQUIRE(a->value_type == SP_VALUE_NONE || a->value_type == SP_R_32F ||
                     a->value_type == SP_R_64F,
                 "value type %d", (int)a->value_type);
    FUZZ_REQUIRE(a->nnz == 0 || a->value_type == SP_VALUE_NONE || a->val, "NULL values");
    for (int64_t k = 0; k < a->nnz; k++) {
        FUZZ_REQUIRE(a->row[k] >= 0 && a->row[k] < a->nrows, "entry %lld row %d of %lld",
                     (long long)k, a->row[k], (long long)a->nrows);
        FUZZ_REQUIRE(a->col[k] >= 0 && a->col[k] < a->ncols, "entry %lld col %d of %lld",
                     (long long)k, a->col[k], (long long)a->ncols);
    }
}

/* A failed load: a known status (no IO errors: the input is a memfd; no internal ones),
 * a message, and for a text parse error "path:LINE:". */
static inline void fuzz_check_failure(sp_status_t st, const char *path, int want_line)
{
    FUZZ_REQUIRE(st > SP_STATUS_SUCCESS && st <= SP_STATUS_INTERNAL_ERROR, "status %d",
                 (int)st);
    FUZZ_REQUIRE(st != SP_STATUS_INTERNAL_ERROR && st != SP_STATUS_IO_ERROR, "%s: %s",
                 sp_status_string(st), sp_last_error());
    const char *msg = sp_last_error();
    FUZZ_REQUIRE(msg != NULL && msg[0] != '\0', "%s without a message", sp_status_string(st));
    if (st == SP_STATUS_PARSE_ERROR && want_line) {
        size_t n = strlen(path);
        FUZZ_REQUIRE(strncmp(msg, path, n) == 0 && msg[n] == ':' && msg[n + 1] >= '1' &&
                         msg[n + 1] <= '9',
                     "parse error without path:line: \"%s\"", msg);
    }
}

/* gzip input (1f 8b): stream errors name the file, not a line. */
static inline int fuzz_is_gzip(const uint8_t *data, size_t size)
{
    return size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

#endif /* SP_FUZZ_COMMON_H */
