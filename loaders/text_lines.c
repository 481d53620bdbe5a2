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
