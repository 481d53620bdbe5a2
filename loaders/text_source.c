/* Input sources of the text readers, read in chunks and never mapped (a file that shrinks
 * under a map faults; a read just comes back short): a regular plain file by pread at
 * known offsets, so that threads read their chunks side by side; pipes, standard input
 * ("-"), devices and gzip streams (found by the 1f 8b magic number, not the name) in
 * order, the partial last line of each chunk carried into the next. A UTF-8 byte-order
 * mark at the start is skipped. Built without zlib (SP_HAVE_ZLIB unset), a gzip stream is
 * refused with a message naming zlib. */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef SP_HAVE_ZLIB
#include <zlib.h>
#endif

#include "sp_base.h"
#include "sp_text.h"

enum { GZ_IN_BYTES = 256 * 1024, WHY_MAX = 192 };

struct sp_source {
    const char *path; /* for messages: the caller's path, "<stdin>" for "-" */
    int fd, own_fd;
    int regular;      /* a regular plain file: chunks by pread */
    uint64_t size;    /* regular: bytes after the BOM */
    uint64_t skip;    /* bytes of the BOM */
    struct stat st0;  /* regular: as opened, to see a change */
    unsigned char head[2];
    size_t head_len;  /* plain streams: the first bytes, read to look for the magic */
    int eof;          /* the stream (inflated, for gzip) has ended */
    uint64_t delivered, limit;
    char why[WHY_MAX];
    /* the prefix, then the bytes after the last chunk cut (streams) */
    char *buf;
    size_t len, cap;
    int bom_done;
    /* the body */
    uint64_t body;
    size_t chunk;
    atomic_llong next_ticket, stop;
    int share_rank, share_parts; /* sp__source_share: read only that share of the chunks */
    int64_t ticket_base;         /* regular files: chunk t of this read is the body's t + base */
    int64_t next_seq;
    pthread_mutex_t lock;
    int lock_ok;
    int gzip;
#ifdef SP_HAVE_ZLIB
    z_stream zs;
    int zinit, in_eof;
    unsigned char *zin;
#endif
};

/* Byte buffers (the source, its prefix and carry, the chunk buffers) are anonymous maps,
 * as the file maps they replace were: page-aligned, given back to the system when freed,
 * and outside the caller's allocator, so that a header is judged before any allocation
 * is asked of it (tests/check_hostile_sizes.c). Growth moves pages by mremap. */
static void *bytes_map(void *old, size_t old_len, size_t len)
{
    void *p = old ? mremap(old, old_len, len, MREMAP_MAYMOVE)
                  : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void sp__source_buffer_free(char *buf, size_t cap)
{
    if (buf) munmap(buf, cap);
}

const char *sp__source_name(const sp_source_t *src) { return src->path; }

int sp__source_sized(const sp_source_t *src, uint64_t *bytes)
{
    if (src->regular && bytes) *bytes = src->size;
    return src->regular;
}

void sp__source_limit(sp_source_t *src, uint64_t max_bytes, const char *why)
{
    src->limit = max_bytes;
    snprintf(src->why, sizeof src->why, "%s", why);
}

/* Up to n bytes from the file descriptor (0 at its end). */
static sp_status_t fd_read(const sp_source_t *src, void *dst, size_t n, size_t *got)
{
    for (;;) {
        ssize_t r = read(src->fd, dst, n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return SP_ERROR(SP_STATUS_IO_ERROR, "%s: read failed: %s", src->path,
                            strerror(errno));
        *got = (size_t)r;
        return SP_STATUS_SUCCESS;
    }
}

#ifdef SP_HAVE_ZLIB
/* Up to n inflated bytes (0 at the end of the last member). Another member follows only
 * if it starts with the magic number again; anything else after a member is ignored, as
 * gzip does. */
static sp_status_t gz_read(sp_source_t *src, char *dst, size_t n, size_t *got)
{
    z_stream *zs = &src->zs;
    zs->next_out = (unsigned char *)dst;
    zs->avail_out = n > (1u << 30) ? 1u << 30 : (uInt)n;
    uInt want = zs->avail_out;
    while (zs->avail_out == want) {
        if (zs->avail_in < 2 && !src->in_eof) {
            size_t r = 0;
            memmove(src->zin, zs->next_in, zs->avail_in);
            sp_status_t st = fd_read(src, src->zin + zs->avail_in, GZ_IN_BYTES - zs->avail_in, &r);
            if (st != SP_STATUS_SUCCESS) return st;
            src->in_eof = r == 0;
            zs->next_in = src->zin;
            zs->avail_in += (uInt)r;
        }
        int rc = inflate(zs, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            if (zs->avail_in < 2 && !src->in_eof) continue; /* look for a next member */
            if (zs->avail_in >= 2 && zs->next_in[0] == 0x1f && zs->next_in[1] == 0x8b) {
                if (inflateReset(zs) != Z_OK)
                    return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s: corrupt gzip stream", src->path);
                continue;
            }
            src->eof = 1;
            break;
        }
        if (rc == Z_MEM_ERROR)
            return SP_ERROR(SP_STATUS_ALLOC_FAILED, "%s: out of host memory in zlib", src->path);
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s: corrupt gzip stream (%s)", src->path,
                            zs->msg ? zs->msg : "zlib error");
        if (src->in_eof && zs->avail_in == 0 && zs->avail_out > 0)
            return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s: truncated gzip stream", src->path);
    }
    *got = want - zs->avail_out;
    return SP_STATUS_SUCCESS;
}
#endif

/* Up to n bytes of the input in order (0 at its end), inflated when it is gzip; refused
 * past the limit. */
static sp_status_t seq_read(sp_source_t *src, char *dst, size_t n, size_t *got)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    *got = 0;
    if (src->eof || n == 0) return st;
    if (src->head_len > 0) { /* the bytes read at open to look for the magic number */
        size_t k = src->head_len < n ? src->head_len : n;
        memcpy(dst, src->head, k);
        memmove(src->head, src->head + k, src->head_len - k);
        src->head_len -= k;
        *got = k;
    } else if (src->gzip) {
#ifdef SP_HAVE_ZLIB
        SP_TRY(gz_read(src, dst, n, got));
#endif
    } else {
        SP_TRY(fd_read(src, dst, n, got));
        src->eof = *got == 0;
    }
    src->delivered += *got;
    if (src->limit && src->delivered > src->limit)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s: gzip input inflates to more than %llu bytes (%llu so far), more than %s",
                src->path, (unsigned long long)src->limit,
                (unsigned long long)src->delivered, src->why);
done:
    return st;
}

/* Fill dst[0, n) from the input as far as it goes; *got < n only at its end. */
static sp_status_t seq_fill(sp_source_t *src, char *dst, size_t n, size_t *got)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    size_t k = 0, r = 1;
    while (k < n && r > 0) {
        SP_TRY(seq_read(src, dst + k, n - k, &r));
        k += r;
    }
done:
    *got = k;
    return st;
}

#ifdef SP_HAVE_ZLIB
static sp_status_t gz_start(sp_source_t *src)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    src->zin = bytes_map(NULL, 0, GZ_IN_BYTES);
    if (!src->zin) SP_FAIL(SP_STATUS_ALLOC_FAILED, "%s: out of memory for zlib", src->path);
    memcpy(src->zin, src->head, src->head_len);
    if (inflateInit2(&src->zs, 16 + MAX_WBITS) != Z_OK)
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "%s: cannot initialise zlib", src->path);
    src->zinit = 1;
    src->zs.next_in = src->zin;
    src->zs.avail_in = (uInt)src->head_len;
    src->head_len = 0;
done:
    return st;
}
#else
/* Built without zlib: always refused, naming what is missing. */
static sp_status_t gz_start(sp_source_t *src)
{
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "%s: gzip input needs zlib: libsp was built "
                    "without it (install zlib1g-dev and rebuild)", src->path);
}
#endif

sp_status_t sp__source_open(const char *path, sp_source_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_source_t *s = NULL;
    SP_CHECK_ARG(path != NULL && out != NULL, "sp__source_open: NULL argument");
    s = bytes_map(NULL, 0, sizeof *s); /* zero-filled */
    if (!s) SP_FAIL(SP_STATUS_ALLOC_FAILED, "%s: out of memory opening it", path);
    s->fd = -1;
    s->path = strcmp(path, "-") == 0 ? "<stdin>" : path;
    atomic_init(&s->next_ticket, 0);
    atomic_init(&s->stop, INT64_MAX);
    s->share_parts = 1;
    if (pthread_mutex_init(&s->lock, NULL) != 0)
        SP_FAIL(SP_STATUS_INTERNAL_ERROR, "sp__source_open: cannot create a mutex");
    s->lock_ok = 1;
    if (strcmp(path, "-") == 0) {
        s->fd = STDIN_FILENO;
    } else {
        s->fd = open(path, O_RDONLY);
        if (s->fd < 0) SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
        s->own_fd = 1;
    }
    if (fstat(s->fd, &s->st0) != 0)
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot stat: %s", s->path, strerror(errno));
    if (S_ISDIR(s->st0.st_mode))
        SP_FAIL(SP_STATUS_IO_ERROR, "%s: cannot read: %s", s->path, strerror(EISDIR));
    size_t r = 1;
    while (s->head_len < 2 && r > 0) {
        SP_TRY(fd_read(s, s->head + s->head_len, 2 - s->head_len, &r));
        s->head_len += r;
    }
    s->eof = s->head_len == 0;
    s->gzip = s->head_len == 2 && s->head[0] == 0x1f && s->head[1] == 0x8b;
    if (s->gzip) SP_TRY(gz_start(s));
    s->regular = S_ISREG(s->st0.st_mode) && !s->gzip;
    s->size = s->regular ? (uint64_t)s->st0.st_size : 0;
    *out = s;
    s = NULL;
done:
    sp__source_close(s);
    return st;
}

void sp__source_close(sp_source_t *src)
{
    if (!src) return;
#ifdef SP_HAVE_ZLIB
    if (src->zinit) inflateEnd(&src->zs);
    sp__source_buffer_free((char *)src->zin, src->zin ? GZ_IN_BYTES : 0);
#endif
    sp__source_buffer_free(src->buf, src->cap);
    if (src->own_fd) close(src->fd);
    if (src->lock_ok) pthread_mutex_destroy(&src->lock);
    munmap(src, sizeof *src);
}

/* Room for n bytes and the padding in *buf. */
static sp_status_t reserve_bytes(const char *path, char **buf, size_t *cap, size_t n)
{
    if (n + SP_TEXT_PAD <= *cap) return SP_STATUS_SUCCESS;
    size_t want = n + SP_TEXT_PAD + n / 2;
    char *grown = bytes_map(*buf, *cap, want);
    if (!grown)
        return SP_ERROR(SP_STATUS_ALLOC_FAILED, "%s: out of host memory reading %zu bytes",
                        path, want);
    *buf = grown;
    *cap = want;
    return SP_STATUS_SUCCESS;
}

/* Length of the whole lines of b[0, n): up to the end of its last line break, 0 if none.
 * A '\r' as the last byte is not taken: a '\n' may follow it. */
static size_t whole_lines(const char *b, size_t n)
{
    if (n < 2) return 0;
    const char *nl = memrchr(b, '\n', n - 1);
    size_t from = nl ? (size_t)(nl - b) + 1 : 0;
    const char *cr = memrchr(b + from, '\r', n - 1 - from);
    if (cr) return (size_t)(cr - b) + 1 + (cr[1] == '\n');
    return from;
}

sp_status_t sp__source_prefix(sp_source_t *src, size_t min_bytes, sp_text_t *text,
                              size_t *avail)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    size_t got = 0;
    SP_TRY(reserve_bytes(src->path, &src->buf, &src->cap, min_bytes));
    if (src->len < min_bytes)
        SP_TRY(seq_fill(src, src->buf + src->len, min_bytes - src->len, &got));
    src->len += got;
    if (!src->bom_done && (src->len >= 3 || src->eof)) {
        src->bom_done = 1;
        if (src->len >= 3 && memcmp(src->buf, "\xEF\xBB\xBF", 3) == 0) {
            memmove(src->buf, src->buf + 3, src->len - 3);
            src->len -= 3;
            src->skip = 3;
            src->size -= src->regular ? 3 : 0;
        }
    }
    memset(src->buf + src->len, 0, SP_TEXT_PAD);
    memset(text, 0, sizeof *text);
    text->data = src->buf;
    text->path = src->path;
    if (avail) *avail = src->len;
    text->partial = !src->eof;
    text->len = src->eof ? src->len : whole_lines(src->buf, src->len);
done:
    return st;
}

sp_status_t sp__source_start_body(sp_source_t *src, size_t body, size_t chunk)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(body <= src->len && chunk > 0, "sp__source_start_body: bad argument");
    src->body = body;
    src->chunk = chunk;
    if (src->regular) { /* chunks are read again at their offsets */
        uint64_t bytes = src->size > body ? src->size - body : 0;
        int64_t T = (int64_t)((bytes + chunk - 1) / chunk), P = src->share_parts;
        int64_t first = T * src->share_rank / P, end = T * (src->share_rank + 1) / P;
        src->ticket_base = first;
        if (P > 1) sp__source_stop(src, end - first - 1);
        sp__source_buffer_free(src->buf, src->cap);
        src->buf = NULL;
        src->len = src->cap = 0;
    } else { /* the rest of the prefix starts the first chunk */
        memmove(src->buf, src->buf + body, src->len - body);
        src->len -= body;
    }
done:
    return st;
}

int sp__source_share(sp_source_t *src, int rank, int parts)
{
    if (!src->regular || parts <= 1) return rank == 0;
    src->share_rank = rank;
    src->share_parts = parts;
    return 1;
}

void sp__source_stop(sp_source_t *src, int64_t seq)
{
    long long cur = atomic_load(&src->stop);
    while (seq < cur && !atomic_compare_exchange_weak(&src->stop, &cur, seq)) continue;
}

/* n bytes of the file at logical offset off; a short read means it shrank. */
static sp_status_t pread_full(const sp_source_t *src, char *dst, uint64_t off, size_t n)
{
    size_t k = 0;
    while (k < n) {
        ssize_t r = pread(src->fd, dst + k, n - k, (off_t)(src->skip + off + k));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return SP_ERROR(SP_STATUS_IO_ERROR, "%s: read failed: %s", src->path,
                            strerror(errno));
        if (r == 0)
            return SP_ERROR(SP_STATUS_IO_ERROR,
                            "%s: file changed while being read: it ends at byte %llu, not %llu",
                            src->path, (unsigned long long)(src->skip + off + k),
                            (unsigned long long)(src->skip + src->size));
        k += (size_t)r;
    }
    return SP_STATUS_SUCCESS;
}

enum { NEED_MORE = -1 };

/* Index just past the first line break at or after from in b[0, n) (n the input's end
 * when at_end); NEED_MORE when that is not known from these bytes. The same rule cuts
 * both sides of a chunk boundary, so neighbours agree without talking. */
static int64_t boundary(const char *b, size_t from, size_t n, int at_end)
{
    const char *nl = from < n ? memchr(b + from, '\n', n - from) : NULL;
    size_t stop = nl ? (size_t)(nl - b) : n;
    const char *cr = from < stop ? memchr(b + from, '\r', stop - from) : NULL;
    if (cr) {
        size_t i = (size_t)(cr - b);
        if (i + 1 < n) return (int64_t)i + 1 + (b[i + 1] == '\n');
        return at_end ? (int64_t)n : NEED_MORE;
    }
    if (nl) return (int64_t)stop + 1;
    return at_end ? (int64_t)n : NEED_MORE;
}

/* Chunk t of a regular file: its nominal bytes [lo, hi), moved to line boundaries by
 * reading one byte before lo and on past hi until the breaks are found. */
static sp_status_t pread_chunk(sp_source_t *src, int64_t t, char **buf, size_t *cap,
                               sp_piece_t *piece, int *got)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t seq = t;
    t += src->ticket_base;
    uint64_t lo = src->body + (uint64_t)t * src->chunk, hi = lo + src->chunk;
    *got = 0;
    piece->seq = seq;
    if (lo >= src->size) return st;
    if (hi > src->size) hi = src->size;
    uint64_t a = t ? lo - 1 : lo;
    size_t want = (size_t)(hi - a) + src->chunk / 8 + 256;
    int64_t s, e;
    for (;;) {
        size_t n = (size_t)(src->size - a < want ? src->size - a : want);
        int at_end = a + n == src->size;
        SP_TRY(reserve_bytes(src->path, buf, cap, n));
        SP_TRY(pread_full(src, *buf, a, n));
        s = t ? boundary(*buf, 0, n, at_end) : 0;
        e = hi == src->size ? (int64_t)n : boundary(*buf, (size_t)(hi - 1 - a), n, at_end);
        if (s != NEED_MORE && (e != NEED_MORE || (uint64_t)s >= hi - a)) break;
        want *= 2;
    }
    if (e == NEED_MORE || e < s) e = s; /* no line starts in this chunk */
    memset(*buf + e, 0, SP_TEXT_PAD);
    piece->begin = *buf + s;
    piece->end = *buf + e;
    piece->seq = seq;
    *got = 1;
done:
    return st;
}

/* The next chunk of a stream: the carried bytes, then reads up to the chunk size (on,
 * for a line longer than that), cut after the last line break; the rest is carried. */
static sp_status_t stream_chunk(sp_source_t *src, char **buf, size_t *cap, sp_piece_t *piece,
                                int *got)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    size_t n = src->len, want = src->chunk > n ? src->chunk : n, cut = 0, r = 0;
    *got = 0;
    if ((src->eof && n == 0) || src->next_seq > atomic_load(&src->stop)) return st;
    SP_TRY(reserve_bytes(src->path, buf, cap, want));
    memcpy(*buf, src->buf, n);
    src->len = 0;
    for (;;) {
        SP_TRY(seq_fill(src, *buf + n, want - n, &r));
        n += r;
        cut = src->eof ? n : whole_lines(*buf, n);
        if (cut > 0 || n == 0) break;
        want *= 2;
        SP_TRY(reserve_bytes(src->path, buf, cap, want));
    }
    SP_TRY(reserve_bytes(src->path, &src->buf, &src->cap, n - cut));
    memcpy(src->buf, *buf + cut, n - cut);
    src->len = n - cut;
    memset(*buf + cut, 0, SP_TEXT_PAD);
    piece->begin = *buf;
    piece->end = *buf + cut;
    piece->seq = src->next_seq++;
    *got = n > 0;
done:
    if (st != SP_STATUS_SUCCESS) src->eof = 1; /* nothing more is read after a failure */
    return st;
}

sp_status_t sp__source_chunk(sp_source_t *src, char **buf, size_t *cap, sp_piece_t *piece,
                             int *got)
{
    if (src->regular) {
        int64_t t = atomic_fetch_add(&src->next_ticket, 1);
        *got = 0;
        if (t > atomic_load(&src->stop)) return SP_STATUS_SUCCESS;
        return pread_chunk(src, t, buf, cap, piece, got);
    }
    pthread_mutex_lock(&src->lock);
    sp_status_t st = stream_chunk(src, buf, cap, piece, got);
    if (st != SP_STATUS_SUCCESS) piece->seq = src->next_seq++;
    pthread_mutex_unlock(&src->lock);
    return st;
}

sp_status_t sp__source_finish(sp_source_t *src)
{
    struct stat sb;
    if (!src->regular) return SP_STATUS_SUCCESS;
    if (fstat(src->fd, &sb) != 0)
        return SP_ERROR(SP_STATUS_IO_ERROR, "%s: cannot stat: %s", src->path, strerror(errno));
    if (sb.st_size != src->st0.st_size || sb.st_mtim.tv_sec != src->st0.st_mtim.tv_sec ||
        sb.st_mtim.tv_nsec != src->st0.st_mtim.tv_nsec)
        return SP_ERROR(SP_STATUS_IO_ERROR,
                        "%s: file changed while being read (%lld bytes when opened, %lld now)",
                        src->path, (long long)src->st0.st_size, (long long)sb.st_size);
    return SP_STATUS_SUCCESS;
}

sp_status_t sp__text_open(const char *path, sp_text_t *text)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_source_t *src = NULL;
    sp_text_t t;
    uint64_t size = 0;
    SP_CHECK_ARG(path != NULL && text != NULL, "sp__text_open: NULL argument");
    SP_TRY(sp__source_open(path, &src));
    size_t want = sp__source_sized(src, &size) ? (size_t)size + 1 : 64 * 1024;
    SP_TRY(sp__source_prefix(src, want, &t, NULL));
    while (t.partial) {
        want *= 2;
        SP_TRY(sp__source_prefix(src, want, &t, NULL));
    }
    memset(text, 0, sizeof *text);
    SP_ALLOC(text->data, t.len + SP_TEXT_PAD);
    memcpy(text->data, t.data, t.len + SP_TEXT_PAD);
    text->len = t.len;
    text->path = path;
done:
    sp__source_close(src);
    return st;
}

void sp__text_close(sp_text_t *text)
{
    if (!text) return;
    sp__free(text->data);
    text->data = NULL;
    text->len = 0;
}

const char *sp__text_quote(char *buf, size_t cap, const char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        int plain = c >= 0x20 && c < 0x7f && c != '\\';
        if (k + (plain ? 1 : 4) + 4 > cap) { /* room kept for "..." and the NUL */
            memcpy(buf + k, "...", 3);
            k += 3;
            break;
        }
        if (plain) {
            buf[k++] = (char)c;
            continue;
        }
        buf[k++] = '\\';
        buf[k++] = 'x';
        buf[k++] = hex[c >> 4];
        buf[k++] = hex[c & 15];
    }
    buf[k] = '\0';
    return buf;
}
