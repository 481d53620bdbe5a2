/* Binary cache of a host COO (sp_coo_save / sp_coo_load): the triplets as they are in
 * memory behind a small self-describing header, closed by a checksum.
 *
 * File layout (format version 1; integers in the byte order of the writer, which the
 * byte-order mark records; a reader refuses the other order rather than guess):
 *
 *   offset size  field
 *        0    8  magic "SPCOO\0\r\n" (the CR LF catches text-mode transfers)
 *        8    4  u32 format version (1)
 *       12    4  u32 byte-order mark 0x01020304
 *       16    4  u32 value type: 0 pattern, 1 float, 2 double (sp_value_type_t)
 *       20    4  u32 symmetry as the source stored it (sp_symmetry_t, 0..3)
 *       24    4  u32 flags (SP_COO_* bits, the low five defined; 0x10, the symmetric
 *                pattern, since issue 20: older readers refuse a file that has it)
 *       28    4  u32 reserved, 0
 *       32    8  i64 nrows
 *       40    8  i64 ncols
 *       48    8  i64 nnz
 *       56    8  u64 reserved, 0
 *       64       i32 row[nnz], i32 col[nnz] (0-based), then val[nnz] (4 or 8 bytes each,
 *                absent for pattern)
 *   size-8    8  u64 checksum of every byte before it (checksum_* below)
 *
 * So the file size is exactly 72 + nnz * (8 + value size): the loader checks that, and
 * every header field, before it allocates anything; the indices are checked against
 * nrows and ncols after the checksum. The file is written to a temporary file beside the
 * target, synced and renamed, so readers never see a partial cache. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_base.h"

#define CACHE_VERSION 1u
#define CACHE_MARK 0x01020304u
#define CACHE_MARK_SWAPPED 0x04030201u
#define CACHE_HEADER_BYTES 64
#define CACHE_TRAILER_BYTES 8
#define CACHE_KNOWN_FLAGS                                                                  \
    (SP_COO_SORTED | SP_COO_MERGED | SP_COO_SYMMETRIC_EXPANDED | SP_COO_SYMMETRIC_STORED |  \
     SP_COO_SYMMETRIC_PATTERN)

static const unsigned char cache_magic[8] = {'S', 'P', 'C', 'O', 'O', '\0', '\r', '\n'};

/* ---- checksum: four multiply-rotate lanes over 32-byte stripes, so it runs near memory
 * speed; the tail (< 32 bytes) is zero-padded to whole words and mixed in with the total
 * length, then the result is avalanched. Defined on the byte stream, so it does not
 * depend on how the writer or reader splits it into pieces. ---- */
#define CK_P1 0x9E3779B185EBCA87ull
#define CK_P2 0xC2B2AE3D27D4EB4Full
#define CK_P3 0x165667B19E3779F9ull

typedef struct checksum {
    uint64_t lane[4];
    unsigned char pending[32];
    size_t npending;
    uint64_t total;
} checksum_t;

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t ck_round(uint64_t acc, uint64_t word)
{
    return rotl64(acc + word * CK_P2, 31) * CK_P1;
}

static void ck_stripe(checksum_t *c, const unsigned char *p)
{
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        c->lane[i] = ck_round(c->lane[i], w);
    }
}

static void checksum_init(checksum_t *c)
{
    memset(c, 0, sizeof *c);
    c->lane[0] = CK_P1 + CK_P2;
    c->lane[1] = CK_P2;
    c->lane[2] = 0;
    c->lane[3] = 0 - CK_P1;
}

static void checksum_update(checksum_t *c, const void *data, size_t n)
{
    const unsigned char *p = data;
    c->total += n;
    if (c->npending) {
        size_t take = 32 - c->npending < n ? 32 - c->npending : n;
        memcpy(c->pending + c->npending, p, take);
        c->npending += take;
        p += take;
        n -= take;
        if (c->npending < 32) return;
        ck_stripe(c, c->pending);
        c->npending = 0;
    }
    for (; n >= 32; p += 32, n -= 32) ck_stripe(c, p);
    memcpy(c->pending, p, n);
    c->npending = n;
}

static uint64_t checksum_final(const checksum_t *c)
{
    uint64_t h = rotl64(c->lane[0], 1) + rotl64(c->lane[1], 7) + rotl64(c->lane[2], 12) +
                 rotl64(c->lane[3], 18);
    unsigned char tail[32] = {0};
    memcpy(tail, c->pending, c->npending);
    for (size_t i = 0; i < c->npending; i += 8) {
        uint64_t w;
        memcpy(&w, tail + i, 8);
        h = rotl64(h ^ ck_round(0, w), 27) * CK_P1 + CK_P3;
    }
    h ^= c->total * CK_P3;
    h ^= h >> 33;
    h *= CK_P2;
    h ^= h >> 29;
    h *= CK_P3;
    h ^= h >> 32;
    return h;
}

/* ---- header encoding ---- */
typedef struct cache_header {
    uint32_t version, mark, value_type, symmetry, flags, reserved32;
    int64_t nrows, ncols, nnz;
    uint64_t reserved64;
} cache_header_t;

static void put32(unsigned char *b, size_t off, uint32_t v) { memcpy(b + off, &v, 4); }
static void put64(unsigned char *b, size_t off, uint64_t v) { memcpy(b + off, &v, 8); }
static uint32_t get32(const unsigned char *b, size_t off)
{
    uint32_t v;
    memcpy(&v, b + off, 4);
    return v;
}
static uint64_t get64(const unsigned char *b, size_t off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

static void header_encode(const cache_header_t *h, unsigned char b[CACHE_HEADER_BYTES])
{
    memcpy(b, cache_magic, 8);
    put32(b, 8, h->version);
    put32(b, 12, h->mark);
    put32(b, 16, h->value_type);
    put32(b, 20, h->symmetry);
    put32(b, 24, h->flags);
    put32(b, 28, h->reserved32);
    put64(b, 32, (uint64_t)h->nrows);
    put64(b, 40, (uint64_t)h->ncols);
    put64(b, 48, (uint64_t)h->nnz);
    put64(b, 56, h->reserved64);
}

static void header_decode(const unsigned char b[CACHE_HEADER_BYTES], cache_header_t *h)
{
    h->version = get32(b, 8);
    h->mark = get32(b, 12);
    h->value_type = get32(b, 16);
    h->symmetry = get32(b, 20);
    h->flags = get32(b, 24);
    h->reserved32 = get32(b, 28);
    h->nrows = (int64_t)get64(b, 32);
    h->ncols = (int64_t)get64(b, 40);
    h->nnz = (int64_t)get64(b, 48);
    h->reserved64 = get64(b, 56);
}

/* ---- unbuffered whole-buffer I/O (the arrays are large: no extra copy) ---- */
static const char *errno_text(int err, char *buf, size_t len)
{
    if (strerror_r(err, buf, len) != 0) snprintf(buf, len, "error %d", err);
    return buf;
}

static int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Bytes read (< n only at end of file), or -1 with errno set. */
static ssize_t read_all(int fd, void *data, size_t n)
{
    char *p = data;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* ---- save ---- */
static sp_status_t check_coo_for_save(const sp_coo_t *coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(coo->value_type == SP_VALUE_NONE || coo->value_type == SP_R_32F ||
                     coo->value_type == SP_R_64F,
                 "sp_coo_save: unknown value type %d", (int)coo->value_type);
    SP_CHECK_ARG(coo->symmetry >= SP_SYMMETRY_GENERAL &&
                     coo->symmetry <= SP_SYMMETRY_HERMITIAN,
                 "sp_coo_save: unknown symmetry %d", (int)coo->symmetry);
    SP_CHECK_ARG(coo->nrows >= 0 && coo->nrows <= INT32_MAX && coo->ncols >= 0 &&
                     coo->ncols <= INT32_MAX,
                 "sp_coo_save: size %lld x %lld outside 0..%d", (long long)coo->nrows,
                 (long long)coo->ncols, INT32_MAX);
    SP_CHECK_ARG(coo->nnz >= 0 && coo->nnz <= coo->capacity,
                 "sp_coo_save: nnz %lld outside 0..capacity %lld", (long long)coo->nnz,
                 (long long)coo->capacity);
    SP_CHECK_ARG(coo->nnz == 0 || (coo->row && coo->col &&
                                   (coo->val || coo->value_type == SP_VALUE_NONE)),
                 "sp_coo_save: NULL array in a COO with %lld entries", (long long)coo->nnz);
    for (int64_t k = 0; k < coo->nnz; k++) {
        SP_CHECK_ARG(coo->row[k] >= 0 && coo->row[k] < coo->nrows,
                     "sp_coo_save: entry %lld has row %d outside 0..%lld", (long long)k,
                     coo->row[k], (long long)coo->nrows - 1);
        SP_CHECK_ARG(coo->col[k] >= 0 && coo->col[k] < coo->ncols,
                     "sp_coo_save: entry %lld has column %d outside 0..%lld", (long long)k,
                     coo->col[k], (long long)coo->ncols - 1);
    }
done:
    return st;
}

sp_status_t sp_coo_save(const char *path, const sp_coo_t *coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    char *tmp = NULL;
    int fd = -1;
    char ebuf[128];
    SP_CHECK_ARG(path != NULL && coo != NULL, "sp_coo_save: NULL argument");
    SP_TRY(check_coo_for_save(coo));

    size_t plen = strlen(path);
    SP_ALLOC(tmp, plen + sizeof ".tmpXXXXXX");
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmpXXXXXX", sizeof ".tmpXXXXXX");
    fd = mkstemp(tmp);
    if (fd < 0) {
        int err = errno;
        sp__free(tmp);
        tmp = NULL; /* nothing was created: nothing to unlink */
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot create a temporary file beside it: %s", path,
                errno_text(err, ebuf, sizeof ebuf));
    }
    /* mkstemp makes the file private (0600); a cache is an ordinary data file. */
    (void)fchmod(fd, 0644);

    cache_header_t h = {CACHE_VERSION, CACHE_MARK, (uint32_t)coo->value_type,
                        (uint32_t)coo->symmetry, coo->flags & CACHE_KNOWN_FLAGS, 0,
                        coo->nrows, coo->ncols, coo->nnz, 0};
    unsigned char head[CACHE_HEADER_BYTES];
    header_encode(&h, head);
    size_t n = (size_t)coo->nnz;
    size_t vbytes = n * sp_value_size(coo->value_type);
    checksum_t ck;
    checksum_init(&ck);
    checksum_update(&ck, head, sizeof head);
    checksum_update(&ck, coo->row, n * sizeof(int32_t));
    checksum_update(&ck, coo->col, n * sizeof(int32_t));
    if (vbytes) checksum_update(&ck, coo->val, vbytes);
    unsigned char trailer[CACHE_TRAILER_BYTES];
    put64(trailer, 0, checksum_final(&ck));

    if (write_all(fd, head, sizeof head) || write_all(fd, coo->row, n * sizeof(int32_t)) ||
        write_all(fd, coo->col, n * sizeof(int32_t)) ||
        (vbytes && write_all(fd, coo->val, vbytes)) ||
        write_all(fd, trailer, sizeof trailer) || fsync(fd) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot write %s: %s", path, tmp,
                errno_text(errno, ebuf, sizeof ebuf));
    int rc = close(fd);
    fd = -1;
    if (rc != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot write %s: %s", path, tmp,
                errno_text(errno, ebuf, sizeof ebuf));
    if (rename(tmp, path) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot rename %s onto it: %s", path, tmp,
                errno_text(errno, ebuf, sizeof ebuf));
    sp__free(tmp);
    tmp = NULL;
done:
    if (fd >= 0) close(fd);
    if (tmp) unlink(tmp);
    sp__free(tmp);
    return st;
}

/* ---- load ---- */

/* Everything the header says, checked against itself and the file size. */
static sp_status_t check_header(const char *path, const cache_header_t *h, int64_t fsize)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (h->mark == CACHE_MARK_SWAPPED)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s: cache written on a machine of the other byte order", path);
    if (h->mark != CACHE_MARK)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: bad byte-order mark 0x%08x", path,
                (unsigned)h->mark);
    if (h->version > CACHE_VERSION)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s: cache format version %u is newer than this library reads (%u)", path,
                (unsigned)h->version, CACHE_VERSION);
    if (h->version != CACHE_VERSION)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: unknown cache format version %u", path,
                (unsigned)h->version);
    if (h->value_type > (uint32_t)SP_R_64F)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: unknown value type %u", path,
                (unsigned)h->value_type);
    if (h->symmetry > (uint32_t)SP_SYMMETRY_HERMITIAN)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: unknown symmetry %u", path,
                (unsigned)h->symmetry);
    if (h->flags & ~CACHE_KNOWN_FLAGS)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: unknown flags 0x%x", path, (unsigned)h->flags);
    if (h->reserved32 != 0 || h->reserved64 != 0)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: reserved header fields are not zero", path);
    if (h->nrows < 0 || h->ncols < 0 || h->nnz < 0)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: negative size in header (%lld x %lld, %lld entries)",
                path, (long long)h->nrows, (long long)h->ncols, (long long)h->nnz);
    int64_t per_entry = 8 + (int64_t)sp_value_size((sp_value_type_t)h->value_type);
    int64_t room = (fsize - CACHE_HEADER_BYTES - CACHE_TRAILER_BYTES) / per_entry;
    if (h->nnz > room)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s: truncated: header claims %lld entries but the file's %lld bytes hold "
                "at most %lld",
                path, (long long)h->nnz, (long long)fsize, (long long)(room > 0 ? room : 0));
    int64_t expected = CACHE_HEADER_BYTES + CACHE_TRAILER_BYTES + h->nnz * per_entry;
    if (expected != fsize)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s: file has %lld bytes, but %lld entries make %lld (trailing data)", path,
                (long long)fsize, (long long)h->nnz, (long long)expected);
    /* row and column ids are 32-bit; the entry count is bounded by memory alone */
    if (h->nrows > INT32_MAX || h->ncols > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s: %lld x %lld with %lld entries exceeds 32-bit row and column ids "
                "(limit %d)", path, (long long)h->nrows, (long long)h->ncols,
                (long long)h->nnz, INT32_MAX);
done:
    return st;
}

static sp_status_t check_indices(const char *path, const sp_coo_t *a)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    for (int64_t k = 0; k < a->nnz; k++) {
        if (a->row[k] < 0 || a->row[k] >= a->nrows)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: entry %lld has row %d outside 0..%lld", path,
                    (long long)k, a->row[k], (long long)a->nrows - 1);
        if (a->col[k] < 0 || a->col[k] >= a->ncols)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: entry %lld has column %d outside 0..%lld",
                    path, (long long)k, a->col[k], (long long)a->ncols - 1);
    }
done:
    return st;
}

sp_status_t sp_coo_load(const char *path, sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int fd = -1;
    sp_coo_t *a = NULL;
    char ebuf[128];
    SP_CHECK_ARG(path != NULL && coo != NULL, "sp_coo_load: NULL argument");
    fd = open(path, O_RDONLY);
    if (fd < 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot open: %s", path,
                errno_text(errno, ebuf, sizeof ebuf));
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot stat: %s", path,
                errno_text(errno, ebuf, sizeof ebuf));
    if (!S_ISREG(sb.st_mode)) SP_FAIL(SP_STATUS_IO_ERROR, "%s: not a regular file", path);

    unsigned char head[CACHE_HEADER_BYTES];
    ssize_t got = read_all(fd, head, sizeof head);
    if (got < 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot read: %s", path,
                errno_text(errno, ebuf, sizeof ebuf));
    size_t cmp = (size_t)got < sizeof cache_magic ? (size_t)got : sizeof cache_magic;
    if (memcmp(head, cache_magic, cmp) != 0 || got == 0)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: not a libsp cache file", path);
    if ((size_t)got < sizeof head)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: truncated: %lld bytes, shorter than the header",
                path, (long long)got);
    cache_header_t h;
    header_decode(head, &h);
    SP_TRY(check_header(path, &h, (int64_t)sb.st_size));

    SP_TRY(sp_coo_create(h.nrows, h.ncols, h.nnz, (sp_value_type_t)h.value_type, &a));
    size_t n = (size_t)h.nnz;
    size_t vbytes = n * sp_value_size(a->value_type);
    unsigned char trailer[CACHE_TRAILER_BYTES];
    if (read_all(fd, a->row, n * sizeof(int32_t)) != (ssize_t)(n * sizeof(int32_t)) ||
        read_all(fd, a->col, n * sizeof(int32_t)) != (ssize_t)(n * sizeof(int32_t)) ||
        (vbytes && read_all(fd, a->val, vbytes) != (ssize_t)vbytes) ||
        read_all(fd, trailer, sizeof trailer) != (ssize_t)sizeof trailer)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: read failed or the file changed while reading",
                path);
    checksum_t ck;
    checksum_init(&ck);
    checksum_update(&ck, head, sizeof head);
    checksum_update(&ck, a->row, n * sizeof(int32_t));
    checksum_update(&ck, a->col, n * sizeof(int32_t));
    if (vbytes) checksum_update(&ck, a->val, vbytes);
    uint64_t stored = get64(trailer, 0), computed = checksum_final(&ck);
    if (stored != computed)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s: checksum mismatch (stored %016llx, computed %016llx): corrupt file",
                path, (unsigned long long)stored, (unsigned long long)computed);
    a->nnz = h.nnz;
    a->symmetry = (sp_symmetry_t)h.symmetry;
    a->flags = h.flags;
    SP_TRY(check_indices(path, a));
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    if (fd >= 0) close(fd);
    return st;
}
