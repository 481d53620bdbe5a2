/* Matrix Market writer: coordinate general or symmetric (lower triangle), 1-based, values
 * printed so they read back to the same bits, written to a temporary file in the same
 * folder and renamed into place, so a failed write never leaves a partial file. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_base.h"
#include "sp_number_format.h"
#include "sp_text.h"

/* An entry's (row, col) as one sortable key, and its position for a stable order. */
typedef struct keyed {
    uint64_t key;
    int64_t k;
} keyed_t;

static int by_key(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

static double value_at(const sp_coo_t *a, int64_t k)
{
    if (a->value_type == SP_R_32F) return ((const float *)a->val)[k];
    if (a->value_type == SP_R_64F) return ((const double *)a->val)[k];
    return 1.0;
}

/* Sum of the values of the run of equal keys starting at *i (advanced past it). */
static double run_sum(const sp_coo_t *a, const keyed_t *e, int64_t n, int64_t *i)
{
    uint64_t key = e[*i].key;
    double s = 0;
    for (; *i < n && e[*i].key == key; ++*i) s += value_at(a, e[*i].k);
    return s;
}

/* A equals its transpose: the entries sorted by (row, col) and by (col, row), with
 * duplicates summed, give the same keys and (unless pattern) the same values. */
static sp_status_t check_symmetric(const sp_coo_t *a, int pattern)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    keyed_t *byrow = NULL, *bycol = NULL;
    int64_t n = a->nnz;
    SP_ALLOC(byrow, n);
    SP_ALLOC(bycol, n);
    for (int64_t k = 0; k < n; k++) {
        byrow[k] = (keyed_t){(uint64_t)a->row[k] << 32 | (uint32_t)a->col[k], k};
        bycol[k] = (keyed_t){(uint64_t)a->col[k] << 32 | (uint32_t)a->row[k], k};
    }
    qsort(byrow, (size_t)n, sizeof *byrow, by_key);
    qsort(bycol, (size_t)n, sizeof *bycol, by_key);
    for (int64_t i = 0, j = 0; i < n || j < n;) {
        uint64_t ki = i < n ? byrow[i].key : UINT64_MAX, kj = j < n ? bycol[j].key : UINT64_MAX;
        int64_t r = (int64_t)(ki >> 32), c = (int64_t)(ki & 0xffffffffu);
        if (ki != kj)
            SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
                    "sp_mtx_write: not symmetric: entry (%lld, %lld) has no mirror",
                    (long long)(ki < kj ? r : (int64_t)(kj & 0xffffffffu)) + 1,
                    (long long)(ki < kj ? c : (int64_t)(kj >> 32)) + 1);
        double vi = run_sum(a, byrow, n, &i), vj = run_sum(a, bycol, n, &j);
        if (!pattern && !(vi == vj))
            SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
                    "sp_mtx_write: not symmetric: A(%lld, %lld) = %.17g but A(%lld, %lld) = %.17g",
                    (long long)r + 1, (long long)c + 1, vi, (long long)c + 1,
                    (long long)r + 1, vj);
    }
done:
    sp__free(bycol);
    sp__free(byrow);
    return st;
}

/* Check the COO and options; *field receives the field to write. */
static sp_status_t check_input(const sp_coo_t *a, const sp_mtx_write_options_t *o,
                               sp_mtx_field_t *field)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(a->nrows >= 0 && a->ncols >= 0 && a->nnz >= 0 && a->nnz <= a->capacity,
                 "sp_mtx_write: bad COO sizes (%lld x %lld, nnz %lld, capacity %lld)",
                 (long long)a->nrows, (long long)a->ncols, (long long)a->nnz,
                 (long long)a->capacity);
    SP_CHECK_ARG(a->nnz == 0 || (a->row && a->col), "sp_mtx_write: COO arrays are NULL");
    SP_CHECK_ARG(a->value_type == SP_VALUE_NONE || a->value_type == SP_R_32F ||
                     a->value_type == SP_R_64F,
                 "sp_mtx_write: unknown value type %d", (int)a->value_type);
    SP_CHECK_ARG(a->value_type == SP_VALUE_NONE || a->nnz == 0 || a->val,
                 "sp_mtx_write: COO values are NULL");
    *field = o->field;
    if (*field == SP_MTX_FIELD_AUTO)
        *field = a->value_type == SP_VALUE_NONE ? SP_MTX_FIELD_PATTERN : SP_MTX_FIELD_REAL;
    SP_CHECK_ARG(*field >= SP_MTX_FIELD_REAL && *field <= SP_MTX_FIELD_PATTERN,
                 "sp_mtx_write: unknown field %d", (int)o->field);
    SP_CHECK_ARG(*field == SP_MTX_FIELD_PATTERN || a->value_type != SP_VALUE_NONE,
                 "sp_mtx_write: the COO has no values to write as %s",
                 *field == SP_MTX_FIELD_REAL ? "real" : "integer");
    if (a->flags & SP_COO_SYMMETRIC_STORED) {
        SP_CHECK_ARG(a->symmetry == SP_SYMMETRY_SYMMETRIC && o->symmetric,
                     "sp_mtx_write: the COO holds one triangle of a %s matrix; only "
                     "symmetric ones can be written, with options->symmetric = 1",
                     a->symmetry == SP_SYMMETRY_SKEW ? "skew-symmetric" : "hermitian");
    }
    for (int64_t k = 0; k < a->nnz; k++) {
        SP_CHECK_ARG(a->row[k] >= 0 && a->row[k] < a->nrows && a->col[k] >= 0 &&
                         a->col[k] < a->ncols,
                     "sp_mtx_write: entry %lld at (%d, %d) outside %lld x %lld", (long long)k,
                     a->row[k], a->col[k], (long long)a->nrows, (long long)a->ncols);
        if (*field != SP_MTX_FIELD_INTEGER) continue;
        /* The reader parses integer fields as int64: nothing else would read back. */
        double v = value_at(a, k);
        SP_CHECK_ARG(v == floor(v) && v >= -0x1p63 && v < 0x1p63,
                     "sp_mtx_write: integer field but entry %lld has value %.17g", (long long)k,
                     v);
    }
    if (o->symmetric && !(a->flags & SP_COO_SYMMETRIC_STORED)) {
        SP_CHECK_ARG(a->nrows == a->ncols, "sp_mtx_write: symmetric but %lld x %lld",
                     (long long)a->nrows, (long long)a->ncols);
        SP_TRY(check_symmetric(a, *field == SP_MTX_FIELD_PATTERN));
    }
done:
    return st;
}

/* Formatting: chunks of CHUNK_ENTRIES entries, a round of `slots` chunks formatted in
 * parallel into one half of the buffers while a thread writes the other half's round. */
enum {
    CHUNK_ENTRIES = 8192,
    LINE_MAX_BYTES = 2 * 10 + 2 + SP_FORMAT_F64_MAX + 1 /* "row col value\n" */
};

typedef struct writer {
    const sp_coo_t *a;
    sp_mtx_field_t field;
    int skip_upper, swap_upper; /* symmetric: drop (r < c), or mirror it (one triangle) */
    int64_t first;              /* first chunk of the round being formatted */
    char *buf;                  /* that round's chunks, CHUNK_ENTRIES * LINE_MAX_BYTES each */
    size_t *len;                /* bytes formatted per chunk */
} writer_t;

static sp_status_t format_task(int i, void *arg)
{
    const writer_t *w = arg;
    const sp_coo_t *a = w->a;
    int64_t k0 = (w->first + i) * (int64_t)CHUNK_ENTRIES;
    int64_t k1 = k0 + CHUNK_ENTRIES < a->nnz ? k0 + CHUNK_ENTRIES : a->nnz;
    char *p0 = w->buf + (size_t)i * CHUNK_ENTRIES * LINE_MAX_BYTES, *p = p0;
    for (int64_t k = k0; k < k1; k++) {
        uint32_t r = (uint32_t)a->row[k], c = (uint32_t)a->col[k];
        if (r < c && w->skip_upper) continue;
        if (r < c && w->swap_upper) {
            uint32_t t = r;
            r = c;
            c = t;
        }
        p = sp__format_u64(p, r + 1ull);
        *p++ = ' ';
        p = sp__format_u64(p, c + 1ull);
        if (w->field == SP_MTX_FIELD_INTEGER) {
            *p++ = ' ';
            p = sp__format_i64(p, (int64_t)value_at(a, k));
        } else if (w->field == SP_MTX_FIELD_REAL) {
            *p++ = ' ';
            p = a->value_type == SP_R_32F ? sp__format_f32(p, ((const float *)a->val)[k])
                                          : sp__format_f64(p, ((const double *)a->val)[k]);
        }
        *p++ = '\n';
    }
    w->len[i] = (size_t)(p - p0);
    return SP_STATUS_SUCCESS;
}

/* Write all n bytes; -1 (errno set) on failure. */
static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* One round's chunks written in order, on a thread of its own; err: errno or 0. */
typedef struct flush {
    int fd, nchunks, err;
    const char *buf;
    const size_t *len;
} flush_t;

static void *flush_main(void *arg)
{
    flush_t *fl = arg;
    for (int i = 0; i < fl->nchunks && !fl->err; i++)
        if (write_all(fl->fd, fl->buf + (size_t)i * CHUNK_ENTRIES * LINE_MAX_BYTES,
                      fl->len[i]) != 0)
            fl->err = errno ? errno : EIO;
    return NULL;
}

/* The banner, comment lines and sizes line. */
static sp_status_t write_header(int fd, const char *path, const sp_coo_t *a,
                                const sp_mtx_write_options_t *o, sp_mtx_field_t field)
{
    static const char *names[] = {"", "real", "integer", "pattern"};
    sp_status_t st = SP_STATUS_SUCCESS;
    char *h = NULL, *p;
    int stored = (a->flags & SP_COO_SYMMETRIC_STORED) != 0;
    int64_t n = 0;
    for (int64_t k = 0; k < a->nnz; k++)
        n += !o->symmetric || stored || a->row[k] >= a->col[k];
    size_t clen = o->comment ? strlen(o->comment) : 0;
    SP_ALLOC(h, 128 + 2 * clen);
    p = h + sprintf(h, "%%%%MatrixMarket matrix coordinate %s %s\n", names[field],
                    o->symmetric ? "symmetric" : "general");
    for (const char *c = o->comment; c && *c;) {
        size_t len = strcspn(c, "\n");
        *p++ = '%';
        memcpy(p, c, len);
        p += len;
        *p++ = '\n';
        c += len + (c[len] == '\n');
    }
    p = sp__format_i64(p, a->nrows);
    *p++ = ' ';
    p = sp__format_i64(p, a->ncols);
    *p++ = ' ';
    p = sp__format_i64(p, n);
    *p++ = '\n';
    if (write_all(fd, h, (size_t)(p - h)) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: write failed: %s", path, strerror(errno));
done:
    sp__free(h);
    return st;
}

/* The entries, formatted on nthreads threads, written in order. */
static sp_status_t write_entries(int fd, const char *path, const sp_coo_t *a,
                                 const sp_mtx_write_options_t *o, sp_mtx_field_t field)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    char *buf = NULL;
    size_t *len = NULL;
    pthread_t thread;
    flush_t fl[2] = {{fd, 0, 0, NULL, NULL}, {fd, 0, 0, NULL, NULL}};
    int pending = -1; /* the half a flush thread is writing */
    int nthreads = o->nthreads > 0 ? o->nthreads : sp__ncores();
    int64_t nchunks = (a->nnz + CHUNK_ENTRIES - 1) / CHUNK_ENTRIES;
    int stored = (a->flags & SP_COO_SYMMETRIC_STORED) != 0;
    int slots = nthreads > 1 ? 2 * nthreads : 1;
    if (slots > nchunks) slots = (int)(nchunks > 0 ? nchunks : 1);
    size_t chunk_bytes = (size_t)CHUNK_ENTRIES * LINE_MAX_BYTES;
    SP_ALLOC(buf, 2 * (size_t)slots * chunk_bytes);
    SP_ALLOC(len, 2 * (size_t)slots);
    writer_t w = {a, field, o->symmetric && !stored, o->symmetric && stored, 0, NULL, NULL};
    for (int64_t first = 0, half = 0; first < nchunks; first += slots, half ^= 1) {
        int n = (int)(nchunks - first < slots ? nchunks - first : slots);
        w.first = first;
        w.buf = buf + (size_t)half * slots * chunk_bytes;
        w.len = len + (size_t)half * slots;
        SP_TRY(sp__parallel_for(nthreads, n, format_task, &w));
        if (pending >= 0) {
            pthread_join(thread, NULL);
            pending = -1;
        }
        if (fl[half ^ 1].err) break;
        fl[half] = (flush_t){fd, n, 0, w.buf, w.len};
        if (nthreads > 1 && pthread_create(&thread, NULL, flush_main, &fl[half]) == 0)
            pending = (int)half;
        else
            flush_main(&fl[half]);
    }
done:
    if (pending >= 0) pthread_join(thread, NULL);
    for (int h = 0; h < 2 && st == SP_STATUS_SUCCESS; h++)
        if (fl[h].err)
            st = SP_ERROR(SP_STATUS_IO_ERROR, "%s: write failed: %s", path, strerror(fl[h].err));
    sp__free(len);
    sp__free(buf);
    return st;
}

sp_status_t sp_mtx_write(const char *path, const sp_coo_t *coo,
                         const sp_mtx_write_options_t *options)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    char *tmp = NULL;
    int fd = -1, created = 0;
    sp_mtx_write_options_t o = {SP_MTX_FIELD_AUTO, 0, NULL, 0};
    sp_mtx_field_t field = SP_MTX_FIELD_AUTO;
    SP_CHECK_ARG(path != NULL && coo != NULL, "sp_mtx_write: NULL argument");
    if (options) o = *options;
    SP_TRY(check_input(coo, &o, &field));

    size_t len = strlen(path);
    SP_ALLOC(tmp, len + sizeof ".tmpXXXXXX");
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
    fd = mkstemp(tmp);
    if (fd < 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot create a temporary file: %s", path,
                strerror(errno));
    created = 1;
    /* mkstemp makes the file private (0600); a matrix file is an ordinary document. */
    if (fchmod(fd, 0644) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: chmod failed: %s", path, strerror(errno));
    SP_TRY(write_header(fd, path, coo, &o, field));
    SP_TRY(write_entries(fd, path, coo, &o, field));
    if (fsync(fd) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: fsync failed: %s", path, strerror(errno));
    int rc = close(fd);
    fd = -1;
    if (rc != 0) SP_FAIL(SP_STATUS_IO_ERROR, "%s: close failed: %s", path, strerror(errno));
    if (rename(tmp, path) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: rename failed: %s", path, strerror(errno));
    created = 0;
done:
    if (fd >= 0) close(fd);
    if (created) unlink(tmp);
    sp__free(tmp);
    return st;
}
