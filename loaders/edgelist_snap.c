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
    if (*body == it.end && text->partial) *body = NULL; /* no edge line yet: read on */
done:
    return st;
}

/* A plain id at *p: decimal digits only, at most 10 (a 0-based id beyond 32 bits needs
 * the general path anyway), file id v with base <= v and v - base < lim; the 0-based id
 * into *id. 0 (nothing consumed) for anything else. */
static inline int plain_id(const char **p, const char *end, int64_t base, int64_t lim,
                           int64_t *id)
{
    const char *s = *p, *stop = end - *p > 10 ? *p + 10 : end;
    int64_t v = 0;
    while (s < stop && (unsigned char)(*s - '0') < 10) v = v * 10 + (*s++ - '0');
    if (s == *p || (s < end && (unsigned char)(*s - '0') < 10) || v < base ||
        v - base >= lim)
        return 0;
    *id = v - base;
    *p = s;
    return 1;
}

static inline int is_blank(char c) { return c == ' ' || c == '\t'; }
static inline int at_eol(const char *p, const char *end)
{
    return p == end || *p == '\n' || *p == '\r';
}

/* The common edge line, "u v" or "u v w" as the file's shape says, with plain ids in
 * range, a weight the float parser takes and nothing after it but blanks, read in one
 * pass into slot k: 1 if it is one, with *stop at its line end, *u and *v the ids; 0 for
 * anything else (the weight slot may be written), which the general path then reads and
 * judges with its messages. */
static inline int plain_edge(const sp_el_read_t *r, const char *p, const char *end,
                             int64_t lim, int64_t k, int64_t *u, int64_t *v,
                             const char **stop)
{
    if (!plain_id(&p, end, r->base, lim, u) || p == end || !is_blank(*p)) return 0;
    p = sp__text_skip_blanks(p, end);
    if (!plain_id(&p, end, r->base, lim, v)) return 0;
    if (r->weighted) {
        int rc;
        double d;
        if (p == end || !is_blank(*p)) return 0;
        p = sp__text_skip_blanks(p, end);
        if (r->wtype == SP_R_32F) rc = sp__parse_f32(&p, end, &((float *)r->w)[k]);
        else if (r->wtype == SP_R_64F) rc = sp__parse_f64(&p, end, &((double *)r->w)[k]);
        else rc = sp__parse_f64(&p, end, &d);
        if (rc != SP_NUM_OK) return 0;
    }
    p = sp__text_skip_blanks(p, end);
    if (!at_eol(p, end)) return 0;
    *stop = p;
    return 1;
}

/* The next line for snap_parse, after the lines sp__el_fast_lines takes: *start at it,
 * *p at its first non-blank byte. */
static int next_edge_line(const sp_el_read_t *r, sp_text_lines_t *it, int64_t *k,
                          int64_t *max_id, const char **start, const char **p)
{
    sp__el_fast_lines(r, it, 0, k, max_id);
    *start = it->p;
    return sp__text_line_begin(it, p);
}

/* One pass over the chunk: plain lines by sp__el_fast_lines and plain_edge, the rest (and every
 * line when ids are compacted, which may exceed 32 bits) by the general edge parser.
 * Stops at an edge line without a slot (c->full). */
static sp_status_t snap_parse(const sp_el_read_t *r, sp_el_chunk_t *c)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_text_lines_t it;
    int64_t k = c->edges, max_id = -1, u = 0, v = 0;
    int64_t lim = r->compact ? 0 : INT32_MAX;
    if (r->id_limit >= 0 && r->id_limit < lim) lim = r->id_limit;
    c->full = 0;
    sp__text_lines_init_walk(&it, &c->text);
    const char *end = it.end;
    for (const char *p, *start; next_edge_line(r, &it, &k, &max_id, &start, &p);
         sp__text_line_finish(&it, p)) {
        if (at_eol(p, end) || *p == '#' || *p == '%') continue;
        if (k >= r->cap) {
            c->full = 1;
            c->text.begin = start;
            c->text.first_line = it.line;
            break;
        }
        if (plain_edge(r, p, end, lim, k, &u, &v, &p)) {
            sp__el_store(r, k++, u, v);
            if (u > max_id) max_id = u;
            if (v > max_id) max_id = v;
            continue;
        }
        const char *e = p;
        while (!at_eol(e, end)) e++;
        SP_TRY(sp__el_parse_edge(r, it.line, p, p, e, k++, r->weighted, &max_id));
        p = e;
    }
done:
    c->max_id = max_id;
    c->next = k;
    c->last_line = it.line;
    return st;
}

const sp_el_format_t sp__el_snap = {"SNAP", snap_header, snap_parse, NULL, 4};
