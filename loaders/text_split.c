/* Line-aligned chunking of a text for the parallel parsers, with the line number each
 * chunk starts at ('\n', "\r\n" and a lone '\r' each end one line). */
#include <string.h>

#include "sp_base.h"
#include "sp_text.h"

/* First byte after the line break that ends the line containing p (or end). A "\r\n"
 * pair is never split, so a chunk boundary never falls between its two bytes. */
static const char *after_line(const char *p, const char *end)
{
    for (; p < end; p++) {
        if (*p == '\n') return p + 1;
        if (*p == '\r') return (p + 1 < end && p[1] == '\n') ? p + 2 : p + 1;
    }
    return end;
}

sp_status_t sp__text_split(const char *begin, const char *end, int64_t first_line,
                           int max_chunks, sp_chunk_t **chunks, int *nchunks)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_chunk_t *c = NULL;
    SP_CHECK_ARG(begin != NULL && end >= begin && chunks != NULL && nchunks != NULL,
                 "sp__text_split: bad argument");
    SP_CHECK_ARG(max_chunks >= 1, "sp__text_split: max_chunks %d < 1", max_chunks);
    size_t len = (size_t)(end - begin);
    if ((size_t)max_chunks > len) max_chunks = len > 0 ? (int)len : 1;
    SP_ALLOC(c, max_chunks);
    int n = 0;
    const char *p = begin;
    int64_t line = first_line;
    while (p < end) {
        /* Aim each boundary at an equal share of what is left. */
        size_t share = (size_t)(end - p) / (size_t)(max_chunks - n);
        const char *q = n + 1 == max_chunks ? end : after_line(p + (share ? share - 1 : 0), end);
        c[n].begin = p;
        c[n].end = q;
        c[n].first_line = line;
        /* The last chunk's lines number nothing after it: it is not searched for '\r'
         * here (no_cr 0, not known), so a reader that needs no line count never makes a
         * pass over it before parsing (with one chunk, the whole body). */
        c[n].no_cr = 0;
        if (q < end) {
            int has_cr = memchr(p, '\r', (size_t)(q - p)) != NULL;
            c[n].no_cr = !has_cr;
            line += sp__text_count_breaks(p, q, has_cr);
        }
        n++;
        p = q;
    }
    *chunks = c;
    *nchunks = n;
    c = NULL;
done:
    sp__free(c);
    return st;
}

/* Chunks are at least this large; more than this many per thread only add overhead. */
enum { CHUNK_MIN_BYTES = 64 * 1024, CHUNKS_PER_THREAD = 4 };

sp_status_t sp__text_split_for_threads(const char *begin, const char *end, int64_t first_line,
                                       int nthreads, sp_chunk_t **chunks, int *nchunks)
{
    int64_t max_chunks = (int64_t)(end - begin) / CHUNK_MIN_BYTES + 1;
    if (nthreads < 1) nthreads = 1;
    /* One thread: nothing to balance, and one chunk costs no line count. */
    if (nthreads == 1) max_chunks = 1;
    if (max_chunks > (int64_t)CHUNKS_PER_THREAD * nthreads)
        max_chunks = (int64_t)CHUNKS_PER_THREAD * nthreads;
    return sp__text_split(begin, end, first_line, (int)max_chunks, chunks, nchunks);
}
