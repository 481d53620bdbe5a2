/* Line walking shared by the text readers: a line ends at '\n', "\r\n" or a lone '\r'
 * (old Mac files); inputs without '\r' (nearly all) find line ends with memchr. */
#include <string.h>

#include "sp_text.h"

void sp__text_lines_init(sp_text_lines_t *it, const sp_chunk_t *chunk)
{
    it->p = chunk->begin;
    it->end = chunk->end;
    it->line = chunk->first_line - 1;
    it->has_cr = !chunk->no_cr && memchr(it->p, '\r', (size_t)(it->end - it->p)) != NULL;
}

void sp__text_lines_init_walk(sp_text_lines_t *it, const sp_chunk_t *chunk)
{
    it->p = chunk->begin;
    it->end = chunk->end;
    it->line = chunk->first_line - 1;
    it->has_cr = 1; /* not searched: sp__text_next_line must walk the bytes */
}

void sp__text_lines_whole(sp_text_lines_t *it, const sp_text_t *text)
{
    it->p = text->data;
    it->end = text->data + text->len;
    it->line = 0;
    it->has_cr = 1; /* the byte walk finds every kind of line break */
}

int64_t sp__text_count_breaks(const char *begin, const char *end, int has_cr)
{
    int64_t n = 0;
    if (!has_cr) {
        for (const char *p = begin; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
            n++;
        return n;
    }
    for (const char *p = begin; p < end; p++)
        n += *p == '\n' || (*p == '\r' && (p + 1 == end || p[1] != '\n'));
    return n;
}

/* High bit of each byte of w below 0x21: blanks, line breaks and other control bytes.
 * (w | 0x80) - 0x21 borrows in no byte, and leaves the high bit clear exactly there. */
static uint64_t bytes_blank_or_control(uint64_t w)
{
    const uint64_t high = 0x8080808080808080ull;
    return ~(((w | high) - 0x2121212121212121ull) | w) & high;
}

/* The count by line breaks alone, or -1 when a line starts with a blank, a break or a
 * control byte (it may be blank-only), which the per-line walk must judge. */
static int64_t count_by_breaks(const char *begin, const char *end)
{
    int64_t n = 0;
    uint64_t carry = 1; /* the chunk starts a line, as if after a break */
    const char *p = begin;
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, sizeof w);
        uint64_t nl = sp__bytes_equal(w, '\n');
        uint64_t starts = (nl << 8) | (carry << 7); /* bytes that begin a line */
        if (starts & bytes_blank_or_control(w)) return -1;
        carry = nl >> 63;
        n += (int64_t)(((nl >> 7) * 0x0101010101010101ull) >> 56); /* bytes flagged */
    }
    for (; p < end; p++) {
        int is_nl = *p == '\n';
        if (carry && (unsigned char)*p < 0x21) return -1;
        carry = is_nl;
        n += is_nl;
    }
    return n + (end > begin && end[-1] != '\n'); /* a last line without a break */
}

int64_t sp__text_count_content_lines(const sp_chunk_t *chunk, const char *comments)
{
    sp_text_lines_t it;
    const char *b, *e;
    int64_t n = -1;
    size_t len = (size_t)(chunk->end - chunk->begin);
    int plain = chunk->no_cr || memchr(chunk->begin, '\r', len) == NULL;
    for (const char *c = comments; plain && *c; c++) plain = memchr(chunk->begin, *c, len) == NULL;
    if (plain) n = count_by_breaks(chunk->begin, chunk->end);
    if (n >= 0) return n;
    n = 0;
    sp__text_lines_init(&it, chunk);
    while (sp__text_next_line(&it, &b, &e)) n += b < e && strchr(comments, *b) == NULL;
    return n;
}
