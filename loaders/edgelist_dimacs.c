/* DIMACS shortest-path graphs (.gr, 9th DIMACS challenge): "c" comment lines, exactly one
 * problem line "p sp n m" before any arc, then arcs "a u v w" with ids in 1..n; the number
 * of arcs must equal m. */
#include <stdio.h>
#include <string.h>

#include "sp_base.h"
#include "sp_edgelist.h"

/* The line's kind: its first character, which must stand alone ("a 1 2 3", "c", not
 * "arc"); 0 for a blank line, '?' for anything else. */
static char line_kind(const char *b, const char *e)
{
    if (b == e) return 0;
    if (b + 1 == e || b[1] == ' ' || b[1] == '\t') return *b;
    return '?';
}

static sp_status_t dimacs_header(sp_el_read_t *r, const sp_text_t *text, const char **body,
                                 int64_t *body_line)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_el_lines_t it;
    const char *b, *e;
    sp__el_lines_all(&it, text);
    r->ncols = 3;
    r->weighted = 1;
    snprintf(r->shape, sizeof r->shape, "an arc line is 'a u v w'");
    while (sp__el_next_line(&it, &b, &e)) {
        char kind = line_kind(b, e);
        if (kind == 0 || kind == 'c') continue;
        if (kind == 'a')
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: arc before the problem line 'p sp n m'",
                    r->path, (long long)it.line);
        if (kind != 'p')
            SP_TRY(sp__el_bad_field(r, it.line, "problem line 'p sp n m' expected", b, e));
        const char *p = sp__el_skip_blanks(b + 1, e);
        if (e - p < 2 || strncmp(p, "sp", 2) != 0 || (p + 2 < e && p[2] != ' ' && p[2] != '\t'))
            SP_TRY(sp__el_bad_field(r, it.line, "problem type 'sp' expected", p, e));
        p += 2;
        SP_TRY(sp__el_parse_count(r, it.line, &p, e, "vertex count expected", &r->declared_n));
        SP_TRY(sp__el_parse_count(r, it.line, &p, e, "arc count expected", &r->declared_m));
        p = sp__el_skip_blanks(p, e);
        if (p < e) SP_TRY(sp__el_bad_field(r, it.line, "end of the problem line expected", p, e));
        r->header_line = it.line;
        *body = it.p;
        *body_line = it.line + 1;
        goto done;
    }
    SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: end of file before the problem line 'p sp n m'",
            r->path, (long long)it.line + 1);
done:
    return st;
}

static int is_arc_line(const char *b, const char *e) { return line_kind(b, e) == 'a'; }

static void dimacs_count(const sp_el_read_t *r, sp_el_chunk_t *c)
{
    (void)r;
    c->edges = sp__el_count_lines(&c->text, is_arc_line);
}

static sp_status_t dimacs_parse(const sp_el_read_t *r, sp_el_chunk_t *c)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_el_lines_t it;
    const char *b, *e;
    int64_t k = c->edges, max_id = -1;
    sp__el_lines_init(&it, &c->text);
    while (sp__el_next_line(&it, &b, &e)) {
        char kind = line_kind(b, e);
        if (kind == 0 || kind == 'c') continue;
        if (kind == 'p')
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: second problem line (the first is line %lld)",
                    r->path, (long long)it.line, (long long)r->header_line);
        if (kind != 'a')
            SP_TRY(sp__el_bad_field(r, it.line, "line type c, p or a expected", b, e));
        SP_TRY(sp__el_parse_edge(r, it.line, b, sp__el_skip_blanks(b + 1, e), e, k++, 1,
                                 &max_id));
    }
done:
    c->max_id = max_id;
    return st;
}

static sp_status_t dimacs_totals(const sp_el_read_t *r, int64_t edges, int64_t lines)
{
    (void)lines;
    if (edges == r->declared_m) return SP_STATUS_SUCCESS;
    return SP_ERROR(SP_STATUS_PARSE_ERROR,
                    "%s:%lld: the problem line declares %lld arcs, the file has %lld", r->path,
                    (long long)r->header_line, (long long)r->declared_m, (long long)edges);
}

const sp_el_format_t sp__el_dimacs = {"DIMACS", dimacs_header, dimacs_count, dimacs_parse,
                                      dimacs_totals};
