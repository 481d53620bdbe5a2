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

static int is_blank_or_comment(const char *b, const char *e)
{
    char kind = line_kind(b, e);
    return kind == 0 || kind == 'c';
}

static sp_status_t dimacs_header(sp_el_read_t *r, const sp_text_t *text, const char **body,
                                 int64_t *body_line)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const char *b, *e;
    r->ncols = 3;
    r->weighted = 1;
    snprintf(r->shape, sizeof r->shape, "an arc line is 'a u v w'");
    SP_TRY(sp__el_find_header(r, text, is_blank_or_comment, "the problem line 'p sp n m'", &b,
                              &e, body, body_line));
    if (!*body) goto done;
    int64_t line = r->header_line;
    char kind = line_kind(b, e);
    if (kind == 'a')
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: arc before the problem line 'p sp n m'",
                r->path, (long long)line);
    if (kind != 'p')
        SP_TRY(sp__el_bad_field(r, line, "problem line 'p sp n m' expected", b, e));
    const char *p = sp__text_skip_blanks(b + 1, e);
    if (e - p < 2 || strncmp(p, "sp", 2) != 0 || (p + 2 < e && p[2] != ' ' && p[2] != '\t'))
        SP_TRY(sp__el_bad_field(r, line, "problem type 'sp' expected", p, e));
    p += 2;
    SP_TRY(sp__el_parse_count(r, line, &p, e, "vertex count expected", &r->declared_n));
    SP_TRY(sp__el_parse_count(r, line, &p, e, "arc count expected", &r->declared_m));
    p = sp__text_skip_blanks(p, e);
    if (p < e) SP_TRY(sp__el_bad_field(r, line, "end of the problem line expected", p, e));
done:
    return st;
}

/* Arc lines give their fields; comments and blank lines are skipped; anything else is
 * wrong in the body. */
static sp_status_t arc_fields(const sp_el_read_t *r, int64_t line, const char *b,
                              const char *e, const char **p)
{
    char kind = line_kind(b, e);
    if (kind == 0 || kind == 'c') return SP_STATUS_SUCCESS;
    if (kind == 'p')
        return SP_ERROR(SP_STATUS_PARSE_ERROR,
                        "%s:%lld: second problem line (the first is line %lld)", r->path,
                        (long long)line, (long long)r->header_line);
    if (kind != 'a') return sp__el_bad_field(r, line, "line type c, p or a expected", b, e);
    *p = sp__text_skip_blanks(b + 1, e);
    return SP_STATUS_SUCCESS;
}

static sp_status_t dimacs_parse(const sp_el_read_t *r, sp_el_chunk_t *c)
{
    return sp__el_parse_edge_lines(r, c, 1, 'a', arc_fields);
}

static sp_status_t dimacs_totals(const sp_el_read_t *r, int64_t edges, int64_t lines)
{
    (void)lines;
    if (edges == r->declared_m) return SP_STATUS_SUCCESS;
    return SP_ERROR(SP_STATUS_PARSE_ERROR,
                    "%s:%lld: the problem line declares %lld arcs, the file has %lld", r->path,
                    (long long)r->header_line, (long long)r->declared_m, (long long)edges);
}

const sp_el_format_t sp__el_dimacs = {"DIMACS", dimacs_header, dimacs_parse, dimacs_totals,
                                      8};
