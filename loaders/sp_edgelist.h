/* Internal interface between the edge-list driver (edgelist_read.c) and its three
 * formats (edgelist_snap.c, edgelist_dimacs.c, edgelist_metis.c). The driver reads the
 * header from the start of the input, then streams the body (text_stream.c): the
 * format's parse runs on each piece, into the piece's own arrays or (one thread) straight
 * into the final ones; the format only knows lines. */
#ifndef SP_EDGELIST_H
#define SP_EDGELIST_H

#include <stdint.h>

#include "sp.h"
#include "sp_text.h"

/* One read: what the header said, the id rules, and the arrays the parse pass fills. */
typedef struct sp_el_read {
    const char *path;
    /* Set by the format's header step. */
    int ncols;            /* SNAP: 2 or 3 fields per edge line */
    char shape[64];       /* what an edge line looks like, for field-count errors */
    int64_t header_line;  /* SNAP: first edge line; DIMACS: p line; METIS: header line */
    int64_t declared_n;   /* DIMACS, METIS: vertices the header declares; else -1 */
    int64_t declared_m;   /* DIMACS arcs, METIS undirected edges; else -1 */
    int weighted;         /* the file carries a weight per edge */
    /* Id rules, set by the driver. */
    int base;             /* 1: file ids start at 1 (id 0 refused) */
    int64_t id_limit;     /* 0-based ids must be below this; -1: no limit */
    int compact;          /* ids beyond 32 bits are fine (they get renumbered) */
    sp_value_type_t wtype;/* type of w[]; SP_VALUE_NONE: weights checked, not stored */
    /* Output of the parse pass: edge k is src[k] -> dst[k] (0-based ids; with compact,
     * whose ids may exceed 32 bits) or row[k] -> col[k] (without: the ids go straight
     * into the COO's arrays), weight w[k]. cap: slots in the arrays. */
    int64_t *src, *dst;
    int32_t *row, *col;
    void *w;
    int64_t cap;
} sp_el_read_t;

/* Store edge k (ids already checked against the id rules). */
static inline void sp__el_store(const sp_el_read_t *r, int64_t k, int64_t u, int64_t v)
{
    if (r->src) {
        r->src[k] = u;
        r->dst[k] = v;
    } else {
        r->row[k] = (int32_t)u;
        r->col[k] = (int32_t)v;
    }
}

/* One piece of the body for a format's parse: its text (first_line its first line), the
 * slot of its first edge and (METIS) the vertex of its first line; the parse reports where
 * it stopped. */
typedef struct sp_el_chunk {
    sp_chunk_t text;
    int64_t edges;     /* slot of its first edge */
    int64_t lines;     /* METIS: vertex of its first vertex line */
    int64_t max_id;    /* parse: largest 0-based id seen, -1 if none */
    /* Set by the parse: the slot after its last edge, the number of its last line, and
     * (METIS) the vertex after its last vertex line. full: it stopped at an edge line with
     * no slot left (text.begin and text.first_line moved to that line). */
    int64_t next;
    int64_t last_line;
    int64_t vertex_end;
    int full;
} sp_el_chunk_t;

typedef struct sp_el_format {
    const char *name;
    /* Read what precedes the edges (may be nothing) from the start of the text; *body and
     * *body_line get where the edges start. *body NULL: text is a prefix (text->partial)
     * that does not hold the whole header yet. */
    sp_status_t (*header)(sp_el_read_t *r, const sp_text_t *text, const char **body,
                          int64_t *body_line);
    /* Parse the chunk into the arrays from c->edges on; set c->max_id, next, last_line. */
    sp_status_t (*parse)(const sp_el_read_t *r, sp_el_chunk_t *c);
    /* Check the totals against the header (NULL: nothing to check). */
    sp_status_t (*check_totals)(const sp_el_read_t *r, int64_t edges, int64_t lines);
    /* The fewest bytes one edge (METIS: one neighbour entry) takes, its break or blank
     * included: bounds the edges a piece of text can hold. */
    int min_edge_bytes;
} sp_el_format_t;

extern const sp_el_format_t sp__el_snap, sp__el_dimacs, sp__el_metis;

/* ---- line helpers shared by the formats (edgelist_read.c) ---- */

/* Number of blank-separated fields in [p, e). */
int64_t sp__el_count_fields(const char *p, const char *e);
/* Parse a vertex id at *p (a whole field), check it against the id rules and store the
 * 0-based id; advance *p past the field. Errors name path:line. */
sp_status_t sp__el_parse_id(const sp_el_read_t *r, int64_t line, const char **p,
                            const char *e, int64_t *id);
/* Parse "u v" or "u v w" (with_weight) at p into edge k, to the end of the line, and
 * raise *max_id to the larger id. A missing or extra field is a PARSE_ERROR giving the
 * fields of the line from b and r->shape. */
sp_status_t sp__el_parse_edge(const sp_el_read_t *r, int64_t line, const char *b,
                              const char *p, const char *e, int64_t k, int with_weight,
                              int64_t *max_id);
/* Parse a non-negative integer field of a header line at *p (blanks before it skipped);
 * `what` names it in the message. */
sp_status_t sp__el_parse_count(const sp_el_read_t *r, int64_t line, const char **p,
                               const char *e, const char *what, int64_t *v);
/* Parse a weight (a whole field) into w[k] (or only check it when w is not stored). */
sp_status_t sp__el_parse_weight(const sp_el_read_t *r, int64_t line, const char **p,
                                const char *e, int64_t k);
/* Find a header line: the first line from line 1 that skip(b, e) does not pass over.
 * *b, *e get it (as sp__text_next_line gives), r->header_line its number, *body and
 * *body_line the line after it. PARSE_ERROR "path:N: end of file before <what>" (N one
 * past the last line) when every line is skipped; *body NULL when text is a prefix whose
 * lines are all skipped (more input is needed). */
sp_status_t sp__el_find_header(sp_el_read_t *r, const sp_text_t *text,
                               int (*skip)(const char *b, const char *e), const char *what,
                               const char **b, const char **e, const char **body,
                               int64_t *body_line);
/* The commonest edge lines from it->p on: "u v\n" or "u v w\n" as r->weighted says,
 * after "<kind> " when kind is not 0 (DIMACS 'a'), one blank (space or tab) between the
 * fields, ids of at most 7 digits within the id rules, a weight the fast parsers take
 * (the double one for double and unstored weights), each stored into slot *k on and
 * *max_id raised, while a whole window of bytes lies before the chunk's end, so no read
 * needs a bounds check (the mtx reader's fast lines, with its index and double
 * parsers). Stops, leaving it->p and it->line at its start, at the first other line or
 * the first edge without a slot, for the line walk to read and judge (writing again the
 * weight slot it may have received); takes nothing when ids are compacted. */
void sp__el_fast_lines(const sp_el_read_t *r, sp_text_lines_t *it, char kind, int64_t *k,
                       int64_t *max_id);
/* The commonest adjacency lines of a METIS body from it->p on, vertex *v first: after
 * any blanks, neighbour ids of at most 7 digits within the id rules, each followed, when
 * r->weighted, by one blank and a weight (the fast parsers, then the general one), fields
 * separated by blanks, '\n' right after the last field or its trailing blanks, or a line
 * of nothing (an isolated vertex); stored into slot *k on with the vertex as source,
 * *max_id raised, *v one up per line, while vertices remain declared and a whole window of
 * bytes lies before the chunk's end for each neighbour. Stops, leaving it->p and it->line
 * at the line's start, at the first other line or a neighbour without a slot, for the line
 * walk to read and judge (writing again the slots it may have received); takes nothing
 * when ids are compacted. */
void sp__el_fast_adjacency(const sp_el_read_t *r, sp_text_lines_t *it, int64_t *k, int64_t *v,
                           int64_t *max_id);
/* Parse pass for formats with one edge per line: fields(r, line, b, e, &p) classifies
 * each line (b, e as sp__text_next_line gives) and sets p to where "u v [w]" starts for
 * an edge line, leaves it NULL for a line to skip, or fails for a line that is wrong
 * here; lines that sp__el_fast_lines takes with fast_kind skip all that. Edges are stored
 * from c->edges on; c->max_id is set. */
sp_status_t sp__el_parse_edge_lines(const sp_el_read_t *r, sp_el_chunk_t *c, int with_weight,
                                    char fast_kind,
                                    sp_status_t (*fields)(const sp_el_read_t *r, int64_t line,
                                                          const char *b, const char *e,
                                                          const char **p));
/* PARSE_ERROR "path:line: <what>, found '<field at p>'" (the field quoted, shortened). */
sp_status_t sp__el_bad_field(const sp_el_read_t *r, int64_t line, const char *what,
                             const char *p, const char *e);

#endif /* SP_EDGELIST_H */
