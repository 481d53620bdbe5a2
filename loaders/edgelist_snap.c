/* SNAP / GAP text edge lists: one edge per line, "u v" or "u v w" separated by spaces or
 * tabs; lines starting with '#' or '%' are comments and blank lines are skipped, anywhere.
 * The first edge line fixes the number of fields (2 or 3) for the whole file. */
#include <stdio.h>

#include "sp_base.h"
#include "sp_edgelist.h"

static int is_edge_line(const char *b, const char *e) { return b < e && *b != '#' && *b != '%'; }

static sp_status_t snap_header(sp_el_read_t *r, const sp_text_t *text, const char **body,
                               int64_t *body_line)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_text_lines_t it;
    const char *b, *e, *start;
    sp__text_lines_whole(&it, text);
    r->ncols = 2;
    *body = it.end;
    *body_line = 1;
    while (start = it.p, sp__text_next_line(&it, &b, &e)) {
        if (!is_edge_line(b, e)) continue;
        int64_t f = sp__el_count_fields(b, e);
        if (f != 2 && f != 3)
            SP_FAIL(SP_STATUS_PARSE_ERROR,
                    "%s:%lld: %lld field%s; an edge line is 'u v' or 'u v w'", r->path,
                    (long long)it.line, (long long)f, f == 1 ? "" : "s");
        r->ncols = (int)f;
        snprintf(r->shape, sizeof r->shape, "the first edge line (line %lld) has %d",
                 (long long)it.line, r->ncols);
        r->weighted = f == 3;
        r->header_line = it.line;
        *body = start;
        *body_line = it.line;
        break;
    }
done:
    return st;
}

static void snap_count(const sp_el_read_t *r, sp_el_chunk_t *c)
{
    (void)r;
    c->edges = sp__text_count_content_lines(&c->text, "#%");
}

static sp_status_t edge_fields(const sp_el_read_t *r, int64_t line, const char *b,
                               const char *e, const char **p)
{
    (void)r, (void)line;
    if (is_edge_line(b, e)) *p = b;
    return SP_STATUS_SUCCESS;
}

static sp_status_t snap_parse(const sp_el_read_t *r, sp_el_chunk_t *c)
{
    return sp__el_parse_edge_lines(r, c, r->ncols == 3, edge_fields);
}

const sp_el_format_t sp__el_snap = {"SNAP", snap_header, snap_count, snap_parse, NULL};
