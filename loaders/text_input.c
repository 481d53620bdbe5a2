/* Whole-file text input: the file mapped or read into memory, gzip streams (found by the
 * 1f 8b magic number, not the name) inflated into a heap buffer, always NUL-terminated.
 * Built without zlib (SP_HAVE_ZLIB unset), a gzip stream is refused with a message
 * naming zlib. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef SP_HAVE_ZLIB
#include <zlib.h>
#endif

#include "sp_base.h"
#include "sp_text.h"

/* Read the rest of fd into a heap buffer with one spare byte for the NUL. size_hint is
 * the file size when known; pipes and special files grow the buffer as they go. */
static sp_status_t read_all(int fd, const char *path, size_t size_hint, char **data,
                            size_t *len)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    size_t cap = size_hint + 1, n = 0;
    char *buf = NULL;
    SP_ALLOC(buf, cap);
    for (;;) {
        if (n + 1 == cap) {
            if (cap > SIZE_MAX / 2)
                SP_FAIL(SP_STATUS_ALLOC_FAILED, "%s: file too large to read", path);
            char *grown = sp__realloc(buf, cap * 2);
            if (!grown)
                SP_FAIL(SP_STATUS_ALLOC_FAILED, "%s: out of host memory reading %zu bytes",
                        path, cap * 2);
            buf = grown;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) SP_FAIL(SP_STATUS_IO_ERROR, "%s: read failed: %s", path, strerror(errno));
        if (got == 0) break;
        n += (size_t)got;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    buf = NULL;
done:
    sp__free(buf);
    return st;
}

#ifdef SP_HAVE_ZLIB
/* Inflate a gzip file (possibly several concatenated members, as gzip allows) held in
 * [in, in + in_len) into a new NUL-terminated heap buffer. */
static sp_status_t gunzip(const char *path, const unsigned char *in, size_t in_len,
                          char **data, size_t *len)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    z_stream zs;
    int zinit = 0;
    size_t cap = in_len < SIZE_MAX / 4 ? in_len * 4 + 64 : in_len, n = 0, consumed = 0;
    char *buf = NULL;
    memset(&zs, 0, sizeof zs);
    SP_ALLOC(buf, cap);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "%s: cannot initialise zlib", path);
    zinit = 1;
    for (;;) {
        if (cap - n < 2) {
            if (cap > SIZE_MAX / 2)
                SP_FAIL(SP_STATUS_ALLOC_FAILED, "%s: inflated data too large", path);
            char *grown = sp__realloc(buf, cap * 2);
            if (!grown)
                SP_FAIL(SP_STATUS_ALLOC_FAILED,
                        "%s: out of host memory inflating to %zu bytes", path, cap * 2);
            buf = grown;
            cap *= 2;
        }
        /* zlib counts in uInt: feed at most UINT_MAX bytes per call. */
        size_t in_left = in_len - consumed, out_left = cap - 1 - n;
        zs.next_in = (unsigned char *)(uintptr_t)(in + consumed);
        zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
        zs.next_out = (unsigned char *)buf + n;
        zs.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
        uInt avail_in = zs.avail_in, avail_out = zs.avail_out;
        int rc = inflate(&zs, Z_NO_FLUSH);
        consumed += avail_in - zs.avail_in;
        n += avail_out - zs.avail_out;
        if (rc == Z_STREAM_END) {
            /* Another member follows only if it starts with the magic number again;
             * anything else after the last member is ignored, as gzip does. */
            if (in_len - consumed >= 2 && in[consumed] == 0x1f && in[consumed + 1] == 0x8b) {
                if (inflateReset(&zs) != Z_OK)
                    SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: corrupt gzip stream", path);
                continue;
            }
            break;
        }
        if (rc == Z_MEM_ERROR)
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "%s: out of host memory in zlib", path);
        if (rc == Z_BUF_ERROR && consumed == in_len && zs.avail_out > 0)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: truncated gzip stream", path);
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: corrupt gzip stream (%s)", path,
                    zs.msg ? zs.msg : "zlib error");
        if (consumed == in_len && zs.avail_out > 0)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: truncated gzip stream", path);
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    buf = NULL;
done:
    if (zinit) inflateEnd(&zs);
    sp__free(buf);
    return st;
}
#else
/* Built without zlib: the same contract, always refused, naming what is missing. */
static sp_status_t gunzip(const char *path, const unsigned char *in, size_t in_len,
                          char **data, size_t *len)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    (void)in;
    (void)in_len;
    (void)data;
    (void)len;
    SP_FAIL(SP_STATUS_NOT_COMPILED, "%s: gzip input needs zlib: libsp was built without it "
            "(install zlib1g-dev and rebuild)", path);
done:
    return st;
}
#endif

sp_status_t sp__text_open(const char *path, sp_text_t *text)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int fd = -1;
    char *map = NULL;
    size_t map_len = 0;
    sp_text_t t = {NULL, 0, path, 0};
    struct stat sb;
    SP_CHECK_ARG(path != NULL && text != NULL, "sp__text_open: NULL argument");
    fd = open(path, O_RDONLY);
    if (fd < 0) SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot stat: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot read: %s", path, strerror(EISDIR));
    long page = sysconf(_SC_PAGESIZE);
    size_t size = S_ISREG(sb.st_mode) ? (size_t)sb.st_size : 0;
    /* A map ends in the zero-filled tail of its last page, which is the NUL we promise;
     * a file that fills its last page exactly has no such tail, so it is read. */
    if (S_ISREG(sb.st_mode) && size > 0 && page > 0 && size % (size_t)page != 0) {
        void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            map = m;
            map_len = size;
        }
    }
    if (!map) SP_TRY(read_all(fd, path, size, &t.data, &t.len));
    const unsigned char *bytes = map ? (const unsigned char *)map : (unsigned char *)t.data;
    size_t nbytes = map ? map_len : t.len;
    if (nbytes >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
        char *plain = NULL;
        size_t plain_len = 0;
        SP_TRY(gunzip(path, bytes, nbytes, &plain, &plain_len));
        sp__free(t.data);
        t.data = plain;
        t.len = plain_len;
    } else if (map) {
        t.data = map;
        t.len = map_len;
        t.mapped = 1;
        map = NULL;
    }
    *text = t;
    t.data = NULL;
done:
    if (map) munmap(map, map_len);
    if (t.data) sp__free(t.data);
    if (fd >= 0) close(fd);
    return st;
}

void sp__text_close(sp_text_t *text)
{
    if (!text) return;
    if (text->mapped) munmap(text->data, text->len);
    else sp__free(text->data);
    text->data = NULL;
    text->len = 0;
    text->mapped = 0;
}
