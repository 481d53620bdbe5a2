/* Matrix Market writer: coordinate general or symmetric (lower triangle), 1-based, values
 * printed so they read back to the same bits, written to a temporary file in the same
 * folder and renamed into place, so a failed write never leaves a partial file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_base.h"

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

/* Print the whole file to f; a negative printf result means a write error. */
static int print_all(FILE *f, const sp_coo_t *a, const sp_mtx_write_options_t *o,
                     sp_mtx_field_t field)
{
    static const char *names[] = {"", "real", "integer", "pattern"};
    int stored = (a->flags & SP_COO_SYMMETRIC_STORED) != 0;
    int64_t n = 0;
    for (int64_t k = 0; k < a->nnz; k++)
        n += !o->symmetric || stored || a->row[k] >= a->col[k];
    if (fprintf(f, "%%%%MatrixMarket matrix coordinate %s %s\n", names[field],
                o->symmetric ? "symmetric" : "general") < 0)
        return -1;
    for (const char *c = o->comment; c && *c;) {
        size_t len = strcspn(c, "\n");
        if (fprintf(f, "%%%.*s\n", (int)len, c) < 0) return -1;
        c += len + (c[len] == '\n');
    }
    if (fprintf(f, "%lld %lld %lld\n", (long long)a->nrows, (long long)a->ncols,
                (long long)n) < 0)
        return -1;
    for (int64_t k = 0; k < a->nnz; k++) {
        long long r = a->row[k] + 1LL, c = a->col[k] + 1LL;
        if (o->symmetric && !stored && r < c) continue;
        if (o->symmetric && stored && r < c) { /* the stored triangle may be the upper */
            long long t = r;
            r = c;
            c = t;
        }
        int rc;
        if (field == SP_MTX_FIELD_PATTERN)
            rc = fprintf(f, "%lld %lld\n", r, c);
        else if (field == SP_MTX_FIELD_INTEGER)
            rc = fprintf(f, "%lld %lld %lld\n", r, c, (long long)value_at(a, k));
        else if (a->value_type == SP_R_32F)
            rc = fprintf(f, "%lld %lld %.9g\n", r, c, value_at(a, k));
        else
            rc = fprintf(f, "%lld %lld %.17g\n", r, c, value_at(a, k));
        if (rc < 0) return -1;
    }
    return 0;
}

sp_status_t sp_mtx_write(const char *path, const sp_coo_t *coo,
                         const sp_mtx_write_options_t *options)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    char *tmp = NULL;
    FILE *f = NULL;
    int fd = -1, created = 0;
    sp_mtx_write_options_t o = {SP_MTX_FIELD_AUTO, 0, NULL};
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
    f = fdopen(fd, "w");
    if (!f) SP_FAIL(SP_STATUS_IO_ERROR, "%s: %s", path, strerror(errno));
    fd = -1;
    if (print_all(f, coo, &o, field) != 0 || fflush(f) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: write failed: %s", path, strerror(errno));
    if (fsync(fileno(f)) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: fsync failed: %s", path, strerror(errno));
    int rc = fclose(f);
    f = NULL;
    if (rc != 0) SP_FAIL(SP_STATUS_IO_ERROR, "%s: close failed: %s", path, strerror(errno));
    if (rename(tmp, path) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: rename failed: %s", path, strerror(errno));
    created = 0;
done:
    if (f) fclose(f);
    if (fd >= 0) close(fd);
    if (created) unlink(tmp);
    sp__free(tmp);
    return st;
}
