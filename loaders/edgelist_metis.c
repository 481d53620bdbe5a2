/* METIS .graph adjacency lists: after '%' comment lines, the header "n m [fmt [ncon]]";
 * then the i-th non-comment line lists the neighbours of vertex i (1-based ids; a blank
 * line is an isolated vertex). fmt 1 (001) interleaves edge weights "v w". METIS stores
 * each undirected edge in both lists, so the neighbour entries must number 2m; a file
 * with exactly m entries is read as directed adjacency lists, as gapbs writes them (its
 * fmt 100 files carry neighbours only, and are read that way). */
#include <string.h>

#include "sp_base.h"
#include "sp_edgelist.h"

static int is_comment(const char *b, const char *e) { return b < e && *b == '%'; }

/* The fmt field: 0 none, 1 edge weights; -1 for what libsp does not read. */
static int fmt_weights(const char *p, const char *q)
{
    size_t len = (size_t)(q - p);
    if (len > 3) return -1;
    char f[4] = "000";
    memcpy(f + 3 - len, p, len);
    if (strcmp(f, "000") == 0 || strcmp(f, "100") == 0) return 0;
    if (strcmp(f, "001") == 0) return 1;
    return -1;
}

static int is_blank_or_comment(const char *b, const char *e) { return b == e || *b == '%'; }

static sp_status_t metis_header(sp_el_read_t *r, const sp_text_t *text, const char **body,
                                int64_t *body_line)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const char *b, *e;
    SP_TRY(sp__el_find_header(r, text, is_blank_or_comment, "the header 'n m [fmt [ncon]]'",
                              &b, &e, body, body_line));
    if (!*body) goto done;
    int64_t line = r->header_line, ncon = 0;
    const char *p = b;
    SP_TRY(sp__el_parse_count(r, line, &p, e, "header 'n m [fmt [ncon]]': vertex count "
                              "expected", &r->declared_n));
    SP_TRY(sp__el_parse_count(r, line, &p, e, "header 'n m [fmt [ncon]]': edge count "
                              "expected", &r->declared_m));
    p = sp__text_skip_blanks(p, e);
    if (p < e) {
        const char *q = p;
        while (q < e && *q >= '0' && *q <= '9') q++;
        if (q == p || (q < e && *q != ' ' && *q != '\t'))
            SP_TRY(sp__el_bad_field(r, line, "header fmt (digits) expected", p, e));
        int w = fmt_weights(p, q);
        if (w < 0)
            SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                    "%s:%lld: METIS fmt %.*s is not supported (only 0, 1 = edge weights, "
                    "and 100 as gapbs writes it)",
                    r->path, (long long)line, (int)(q - p), p);
        r->weighted = w;
        p = q;
        if (sp__text_skip_blanks(p, e) < e)
            SP_TRY(sp__el_parse_count(r, line, &p, e, "header ncon expected", &ncon));
        if (ncon > 0)
            SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                    "%s:%lld: METIS ncon %lld (vertex weights) is not supported", r->path,
                    (long long)line, (long long)ncon);
        p = sp__text_skip_blanks(p, e);
        if (p < e)
            SP_TRY(sp__el_bad_field(r, line, "end of the header 'n m [fmt [ncon]]' expected",
                                    p, e));
    }
    r->ncols = r->weighted ? 2 : 1;
done:
    return st;
}

static sp_status_t metis_parse(const sp_el_read_t *r, sp_el_chunk_t *c)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_text_lines_t it;
    const char *b, *e;
    int64_t k = c->edges, v = c->lines, max_id = -1;
    sp__text_lines_init(&it, &c->text);
    for (; sp__el_fast_adjacency(r, &it, &k, &v, &max_id), sp__text_next_line(&it, &b, &e);
         v++) {
        if (is_comment(b, e)) {
            v--;
            continue;
        }
        /* Blank lines past the last vertex are trailing space, not vertices. */
        if (v >= r->declared_n && b < e)
            SP_FAIL(SP_STATUS_PARSE_ERROR,
                    "%s:%lld: more vertex lines than the %lld the header (line %lld) declares",
                    r->path, (long long)it.line, (long long)r->declared_n,
                    (long long)r->header_line);
        if (b < e && v > max_id) max_id = v;
        for (const char *p = b; p < e; p = sp__text_skip_blanks(p, e), k++) {
            int64_t d = 0;
            SP_TRY(sp__el_parse_id(r, it.line, &p, e, &d));
            sp__el_store(r, k, v, d);
            if (d > max_id) max_id = d;
            if (!r->weighted) continue;
            p = sp__text_skip_blanks(p, e);
            if (p == e)
                SP_FAIL(SP_STATUS_PARSE_ERROR,
                        "%s:%lld: neighbour %lld has no weight (fmt 1 lists 'v w' pairs)",
                        r->path, (long long)it.line, (long long)d + 1);
            SP_TRY(sp__el_parse_weight(r, it.line, &p, e, k));
        }
    }
done:
    c->max_id = max_id;
    c->next = k;
    c->last_line = it.line;
    c->vertex_end = v;
    return st;
}

static sp_status_t metis_totals(const sp_el_read_t *r, int64_t edges, int64_t lines)
{
    (void)lines;
    if ((edges % 2 == 0 && edges / 2 == r->declared_m) || edges == r->declared_m)
        return SP_STATUS_SUCCESS;
    return SP_ERROR(SP_STATUS_PARSE_ERROR,
                    "%s:%lld: the header declares %lld edges (2 x %lld neighbour entries), "
                    "the file has %lld entries",
                    r->path, (long long)r->header_line, (long long)r->declared_m,
                    (long long)r->declared_m, (long long)edges);
}

const sp_el_format_t sp__el_metis = {"METIS", metis_header, metis_parse, metis_totals, 2};
