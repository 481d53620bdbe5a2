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
    sp_el_lines_t it;
    const char *b, *e, *start;
    sp__el_lines_all(&it, text);
    r->ncols = 2;
    *body = it.end;
    *body_line = 1;
    while (start = it.p, sp__el_next_line(&it, &b, &e)) {
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
    c->edges = sp__el_count_lines(&c->text, is_edge_line);
}

static sp_status_t snap_parse(const sp_el_read_t *r, sp_el_chunk_t *c)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_el_lines_t it;
    const char *b, *e;
    int64_t k = c->edges, max_id = -1;
    sp__el_lines_init(&it, &c->text);
    while (sp__el_next_line(&it, &b, &e)) {
        if (!is_edge_line(b, e)) continue;
        SP_TRY(sp__el_parse_edge(r, it.line, b, b, e, k++, r->ncols == 3, &max_id));
    }
done:
    c->max_id = max_id;
    return st;
}

const sp_el_format_t sp__el_snap = {"SNAP", snap_header, snap_count, snap_parse, NULL};
