/* sp_edgelist_read: an edge list (SNAP text, DIMACS .gr or METIS .graph) into a host COO
 * with nrows = ncols = vertices. The body is split into line-aligned chunks that are
 * counted in parallel, scanned into offsets and parsed in parallel, ids checked as they
 * are parsed, straight into the COO's 32-bit arrays (into 64-bit ones only for compact_ids,
 * renumbered and narrowed afterwards); with one thread, SNAP chunks are parsed in order
 * into arrays grown as needed, without the counting pass. The COO is then used as it is
 * or rebuilt with the requested options.
 *
 * Contract details beyond sp.h: entries stay in file order, and with `undirected` the
 * reverse of an edge follows it (a self loop is never doubled); merging sorts the COO and
 * keeps the first of each (u, v). DIMACS and METIS files declare n, which is the vertex
 * count (nvertices may raise it, never lower it); their ids must lie in 1..n. id_map holds
 * the ids as the file writes them (1-based files keep their base). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_base.h"
#include "sp_progress.h"
#include "sp_row_count.h"
#include "sp_edgelist.h"

/* Longest field quoted in a message. */
enum { QUOTE_MAX = 24 };

/* ---- line helpers ---- */

/* Fields start at a byte that is not a blank after a blank or the start: eight bytes at
 * a time where words allow. */
int64_t sp__el_count_fields(const char *p, const char *e)
{
    int64_t n = 0;
    int blank_before = 1;
#if SP_SWAR_DIGITS
    for (; e - p >= 8; p += 8) {
        uint64_t w, blanks;
        memcpy(&w, p, sizeof w);
        blanks = sp__bytes_equal(w, ' ') | sp__bytes_equal(w, '\t');
        uint64_t starts = ~blanks & ((blanks << 8) | (blank_before ? 0x80u : 0u));
        starts = (starts & 0x8080808080808080ull) >> 7;
        n += (int64_t)((starts * 0x0101010101010101ull) >> 56); /* the sum of the bytes */
        blank_before = (int)(blanks >> 63);
    }
#endif
    for (; p < e; p++) {
        int blank = *p == ' ' || *p == '\t';
        n += !blank && blank_before;
        blank_before = blank;
    }
    return n;
}

sp_status_t sp__el_bad_field(const sp_el_read_t *r, int64_t line, const char *what,
                             const char *p, const char *e)
{
    const char *q = p;
    char quoted[4 * QUOTE_MAX + 8];
    while (q < e && *q != ' ' && *q != '\t' && q - p < QUOTE_MAX) q++;
    return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s:%lld: %s, found '%s'%s", r->path,
                    (long long)line, what,
                    sp__text_quote(quoted, sizeof quoted, p, (size_t)(q - p)),
                    q < e && *q != ' ' && *q != '\t' ? "..." : "");
}

static inline int is_blank(char c) { return c == ' ' || c == '\t'; }

/* The field at p ends at s: a blank or the end of the line must follow. */
static int field_ends(const char *s, const char *e) { return s == e || *s == ' ' || *s == '\t'; }

sp_status_t sp__el_parse_id(const sp_el_read_t *r, int64_t line, const char **p,
                            const char *e, int64_t *id)
{
    const char *s = *p;
    int64_t v = 0;
    int rc = sp__parse_i64(&s, e, &v);
    if (rc == SP_NUM_SYNTAX || !field_ends(s, e))
        return sp__el_bad_field(r, line, "vertex id expected", *p, e);
    char quoted[4 * QUOTE_MAX + 8];
    if (rc == SP_NUM_RANGE)
        return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s:%lld: vertex id '%s' exceeds 64 bits",
                        r->path, (long long)line,
                        sp__text_quote(quoted, sizeof quoted, *p, (size_t)(s - *p)));
    if (v < 0)
        return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s:%lld: negative vertex id %lld", r->path,
                        (long long)line, (long long)v);
    if (v < r->base)
        return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s:%lld: vertex id %lld, but ids start at %d",
                        r->path, (long long)line, (long long)v, r->base);
    int64_t id0 = v - r->base;
    if (r->id_limit >= 0 && id0 >= r->id_limit)
        return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s:%lld: vertex id %lld outside %d..%lld",
                        r->path, (long long)line, (long long)v, r->base,
                        (long long)(r->id_limit - 1 + r->base));
    if (!r->compact && id0 > (int64_t)INT32_MAX - 1)
        return SP_ERROR(SP_STATUS_NOT_SUPPORTED,
                        "%s:%lld: vertex id %lld exceeds 32-bit indices (largest %lld); "
                        "compact_ids renumbers large ids",
                        r->path, (long long)line, (long long)v,
                        (long long)INT32_MAX - 1 + r->base);
    *id = id0;
    *p = s;
    return SP_STATUS_SUCCESS;
}

sp_status_t sp__el_parse_weight(const sp_el_read_t *r, int64_t line, const char **p,
                                const char *e, int64_t k)
{
    const char *s = *p;
    int rc;
    if (r->wtype == SP_R_32F) {
        rc = sp__parse_f32(&s, e, &((float *)r->w)[k]);
    } else {
        double d;
        rc = sp__parse_f64(&s, e, &d);
        if (r->wtype == SP_R_64F) ((double *)r->w)[k] = d;
    }
    if (rc == SP_NUM_SYNTAX || !field_ends(s, e))
        return sp__el_bad_field(r, line, "weight expected", *p, e);
    if (rc == SP_NUM_RANGE)
        return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s:%lld: weight '%.*s' out of range",
                        r->path, (long long)line, (int)(s - *p), *p);
    *p = s;
    return SP_STATUS_SUCCESS;
}

sp_status_t sp__el_parse_edge(const sp_el_read_t *r, int64_t line, const char *b,
                              const char *p, const char *e, int64_t k, int with_weight,
                              int64_t *max_id)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t u = 0, v = 0;
    if (p == e) goto fields;
    SP_TRY(sp__el_parse_id(r, line, &p, e, &u));
    if ((p = sp__text_skip_blanks(p, e)) == e) goto fields;
    SP_TRY(sp__el_parse_id(r, line, &p, e, &v));
    if (with_weight) {
        if ((p = sp__text_skip_blanks(p, e)) == e) goto fields;
        SP_TRY(sp__el_parse_weight(r, line, &p, e, k));
    }
    if (sp__text_skip_blanks(p, e) != e) goto fields;
    sp__el_store(r, k, u, v);
    if (u > *max_id) *max_id = u;
    if (v > *max_id) *max_id = v;
    goto done;
fields:; /* the line has too few or too many fields */
    int64_t f = sp__el_count_fields(b, e);
    st = SP_ERROR(SP_STATUS_PARSE_ERROR, "%s:%lld: %lld field%s; %s", r->path, (long long)line,
                  (long long)f, f == 1 ? "" : "s", r->shape);
done:
    return st;
}

sp_status_t sp__el_parse_count(const sp_el_read_t *r, int64_t line, const char **p,
                               const char *e, const char *what, int64_t *v)
{
    const char *s = sp__text_skip_blanks(*p, e), *q = s;
    if (sp__parse_i64(&q, e, v) != SP_NUM_OK || *v < 0 || !field_ends(q, e))
        return sp__el_bad_field(r, line, what, s, e);
    *p = q;
    return SP_STATUS_SUCCESS;
}

sp_status_t sp__el_find_header(sp_el_read_t *r, const sp_text_t *text,
                               int (*skip)(const char *b, const char *e), const char *what,
                               const char **b, const char **e, const char **body,
                               int64_t *body_line)
{
    sp_text_lines_t it;
    sp__text_lines_whole(&it, text);
    while (sp__text_next_line(&it, b, e)) {
        if (skip(*b, *e)) continue;
        r->header_line = it.line;
        *body = it.p;
        *body_line = it.line + 1;
        return SP_STATUS_SUCCESS;
    }
    *body = NULL;
    if (text->partial) return SP_STATUS_SUCCESS; /* read on */
    return SP_ERROR(SP_STATUS_PARSE_ERROR, "%s:%lld: end of file before %s", r->path,
                    (long long)it.line + 1, what);
}

/* Bytes that one fast line may read from its start: the kind letter and blank, two ids
 * of at most 10 digits, two blanks, the weight's window. */
enum { FAST_WINDOW = 2 + 2 * 11 + SP_NUM_F64_FAST_READ };

#if SP_SWAR_DIGITS
/* The weight of a fast line at s, into slot k as the weight type says (only checked
 * when weights are not kept): its end, NULL when the fast parsers do not take it. */
static inline const char *fast_weight(const sp_el_read_t *r, const char *s, const char *end,
                                      int64_t k)
{
    double d;
    if (r->wtype == SP_R_64F) return sp__parse_f64_fast(s, &((double *)r->w)[k]);
    if (r->wtype == SP_VALUE_NONE) return sp__parse_f64_fast(s, &d);
    return sp__parse_f32(&s, end, &((float *)r->w)[k]) == SP_NUM_OK ? s : NULL;
}

/* The bound on 0-based ids in the fast paths: the id rules' limit, and 32 bits. */
static inline int64_t fast_id_limit(const sp_el_read_t *r)
{
    return r->id_limit >= 0 && r->id_limit < INT32_MAX ? r->id_limit : INT32_MAX;
}

/* Whether file id d (a short one) is within base..base + lim - 1: below base wraps high. */
static inline int fast_id_ok(uint32_t d, uint32_t base, int64_t lim)
{
    return (int64_t)(uint32_t)(d - base) < lim;
}

/* The weight of an adjacency entry at s: as fast_weight, then the general double parser
 * for the forms the fast one hands back (%.17g of a value below 0.01 has 20 digits), so
 * that one such weight does not send a whole adjacency line to the line walk. */
static inline const char *neighbour_weight(const sp_el_read_t *r, const char *s,
                                           const char *end, int64_t k)
{
    const char *t = fast_weight(r, s, end, k);
    double d;
    if (t || r->wtype == SP_R_32F || sp__parse_f64(&s, end, &d) != SP_NUM_OK) return t;
    if (r->wtype == SP_R_64F) ((double *)r->w)[k] = d;
    return s;
}
#endif

/* sp__el_fast_lines for one kind, inlined for each so that the kind is a constant. */
static inline void fast_lines_of(const sp_el_read_t *r, sp_text_lines_t *it, char kind,
                                 int64_t *kp, int64_t *max_id)
{
#if SP_SWAR_DIGITS
    const char *p = it->p;
    int64_t k = *kp, top = *max_id, lim = fast_id_limit(r);
    uint32_t base = (uint32_t)r->base;
    int skip = kind ? 2 : 0;
    if (r->compact) return; /* ids may exceed 32 bits: the general path keeps them */
    while (it->end - p >= FAST_WINDOW && k < r->cap) {
        uint32_t u, v;
        if (kind && (p[0] != kind || !is_blank(p[1]))) break;
        const char *s = sp__parse_short_pair(p + skip, it->end, &u, &v);
        if (!s) break;
        if (r->weighted && (!is_blank(*s++) || !(s = fast_weight(r, s, it->end, k)))) break;
        if (*s != '\n' || !fast_id_ok(u, base, lim) || !fast_id_ok(v, base, lim)) break;
        r->row[k] = (int32_t)(u - base);
        r->col[k] = (int32_t)(v - base);
        if (u - base > top) top = u - base;
        if (v - base > top) top = v - base;
        k++;
        p = s + 1;
    }
    it->line += k - *kp; /* one line per edge taken */
    it->p = p;
    *kp = k;
    *max_id = top;
#else
    (void)r, (void)it, (void)kind, (void)kp, (void)max_id;
#endif
}

void sp__el_fast_lines(const sp_el_read_t *r, sp_text_lines_t *it, char kind, int64_t *kp,
                       int64_t *max_id)
{
    if (kind == 'a') fast_lines_of(r, it, 'a', kp, max_id);
    else if (kind == 0) fast_lines_of(r, it, 0, kp, max_id);
}

/* Bytes one neighbour of an adjacency line may read from its start: the id and the word
 * read with it, a blank, the weight's window. */
enum { FAST_NEIGHBOUR_WINDOW = 8 + 1 + FAST_WINDOW };

/* sp__el_fast_adjacency with or without weights, inlined for each. */
static inline void fast_adjacency_of(const sp_el_read_t *r, sp_text_lines_t *it, int weighted,
                                     int64_t *kp, int64_t *vp, int64_t *max_id)
{
#if SP_SWAR_DIGITS
    const char *p = it->p, *end = it->end;
    int64_t k = *kp, v = *vp, top = *max_id, lim = fast_id_limit(r);
    uint32_t base = (uint32_t)r->base;
    if (r->compact) return; /* ids may exceed 32 bits: the general path keeps them */
    for (; v < r->declared_n; v++) {
        const char *s = sp__text_skip_blanks(p, end);
        int64_t j = k, hi = v; /* the line's largest id, kept once the line is taken */
        if (s < end && *s == '\n') { /* an isolated vertex */
            p = s + 1;
            continue;
        }
        for (;;) {
            uint32_t d;
            if (end - s < FAST_NEIGHBOUR_WINDOW || j >= r->cap ||
                !sp__parse_short_uint(&s, end, &d) || !fast_id_ok(d, base, lim))
                goto stop;
            if (weighted && (!is_blank(*s++) || !(s = neighbour_weight(r, s, end, j))))
                goto stop;
            if (s == end) goto stop;
            r->row[j] = (int32_t)v;
            r->col[j] = (int32_t)(d - base);
            if (d - base > hi) hi = d - base;
            j++;
            if (*s == '\n') break;
            if (!is_blank(*s)) goto stop;
            s = sp__text_skip_blanks(s, end);
            if (s < end && *s == '\n') break;
        }
        if (hi > top) top = hi;
        k = j;
        p = s + 1;
    }
stop:
    it->line += v - *vp; /* one line per vertex taken */
    it->p = p;
    *kp = k;
    *vp = v;
    *max_id = top;
#else
    (void)r, (void)it, (void)weighted, (void)kp, (void)vp, (void)max_id;
#endif
}

void sp__el_fast_adjacency(const sp_el_read_t *r, sp_text_lines_t *it, int64_t *kp, int64_t *vp,
                           int64_t *max_id)
{
    if (r->weighted) fast_adjacency_of(r, it, 1, kp, vp, max_id);
    else fast_adjacency_of(r, it, 0, kp, vp, max_id);
}

sp_status_t sp__el_parse_edge_lines(const sp_el_read_t *r, sp_el_chunk_t *c, int with_weight,
                                    char fast_kind,
                                    sp_status_t (*fields)(const sp_el_read_t *r, int64_t line,
                                                          const char *b, const char *e,
                                                          const char **p))
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_text_lines_t it;
    const char *b, *e;
    int64_t k = c->edges, max_id = -1;
    sp__text_lines_init(&it, &c->text);
    while (sp__el_fast_lines(r, &it, fast_kind, &k, &max_id), sp__text_next_line(&it, &b, &e)) {
        const char *p = NULL;
        SP_TRY(fields(r, it.line, b, e, &p));
        if (p) SP_TRY(sp__el_parse_edge(r, it.line, b, p, e, k++, with_weight, &max_id));
    }
done:
    c->max_id = max_id;
    c->next = k;
    c->last_line = it.line;
    return st;
}

static const sp_el_format_t *format_for(const char *path, sp_edgelist_format_t f)
{
    if (f == SP_EDGELIST_SNAP) return &sp__el_snap;
    if (f == SP_EDGELIST_DIMACS) return &sp__el_dimacs;
    if (f == SP_EDGELIST_METIS) return &sp__el_metis;
    size_t len = strlen(path);
    if (len >= 3 && strcmp(path + len - 3, ".gz") == 0) len -= 3;
    if (len >= 3 && strncmp(path + len - 3, ".gr", 3) == 0) return &sp__el_dimacs;
    if (len >= 6 && strncmp(path + len - 6, ".graph", 6) == 0) return &sp__el_metis;
    return &sp__el_snap;
}

/* ---- ids ---- */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Index of id in sorted ids[0..n) (present by construction). */
static int64_t find_id(const int64_t *ids, int64_t n, int64_t id)
{
    int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ids[mid] <= id) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Whether ids are renumbered through a dense array indexed by id (4 bytes per possible id,
 * at most about 16 per edge) rather than by sorting and binary search. */
static int dense_ids(int64_t max_id, int64_t m) { return max_id < 4 * m + 4096; }

/* The distinct ids of src and dst in increasing order. A dense marker array when the
 * largest id is small against the edge count, else a sort. */
static sp_status_t distinct_ids(const int64_t *src, const int64_t *dst, int64_t m,
                                int64_t max_id, int64_t **ids_out, int64_t *k_out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned char *seen = NULL;
    int64_t *ids = NULL, k = 0;
    if (dense_ids(max_id, m)) {
        SP_CALLOC(seen, max_id + 1);
        for (int64_t i = 0; i < m; i++) seen[src[i]] = seen[dst[i]] = 1;
        for (int64_t v = 0; v <= max_id; v++) k += seen[v];
        SP_ALLOC(ids, k);
        k = 0;
        for (int64_t v = 0; v <= max_id; v++)
            if (seen[v]) ids[k++] = v;
    } else {
        SP_ALLOC(ids, 2 * m);
        memcpy(ids, src, (size_t)m * sizeof *ids);
        memcpy(ids + m, dst, (size_t)m * sizeof *ids);
        qsort(ids, (size_t)(2 * m), sizeof *ids, cmp_i64);
        for (int64_t i = 0; i < 2 * m; i++)
            if (k == 0 || ids[i] != ids[k - 1]) ids[k++] = ids[i];
    }
    *ids_out = ids;
    *k_out = k;
    ids = NULL;
done:
    sp__free(seen);
    sp__free(ids);
    return st;
}

/* Renumber src/dst to 0..k-1 in increasing id order into row/col; *map gets the file
 * ids (base added back), *n the number of distinct ids. */
static sp_status_t compact_ids(const sp_el_read_t *r, int64_t m, int64_t max_id, int64_t **map,
                               int64_t *n)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t *ids = NULL, k = 0;
    int32_t *dense = NULL;
    SP_TRY(distinct_ids(r->src, r->dst, m, max_id, &ids, &k));
    if (k > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s: %lld distinct vertex ids exceed 32-bit indices (limit %d)", r->path,
                (long long)k, INT32_MAX);
    if (dense_ids(max_id, m)) {
        SP_ALLOC(dense, max_id + 1);
        for (int64_t i = 0; i < k; i++) dense[ids[i]] = (int32_t)i;
        for (int64_t i = 0; i < m; i++) {
            r->src[i] = dense[r->src[i]];
            r->dst[i] = dense[r->dst[i]];
        }
    } else {
        for (int64_t i = 0; i < m; i++) {
            r->src[i] = find_id(ids, k, r->src[i]);
            r->dst[i] = find_id(ids, k, r->dst[i]);
        }
    }
    for (int64_t i = 0; i < m; i++) {
        r->row[i] = (int32_t)r->src[i];
        r->col[i] = (int32_t)r->dst[i];
    }
    for (int64_t i = 0; i < k; i++) ids[i] += r->base;
    *map = ids;
    *n = k;
    ids = NULL;
done:
    sp__free(dense);
    sp__free(ids);
    return st;
}

/* ---- the COO ---- */

/* The COO from the parsed edges, which raw holds (m of them, in file order, values when
 * the file has weights): raw itself when every edge is one entry as it stands, else a new
 * COO with self loops dropped and reverses added (the reverse of an edge follows it, a
 * self loop is never doubled). raw is consumed either way. */
/* Ones for the values of an unweighted graph, a slice a task: on one thread, writing
 * them (8 bytes an edge, pages touched for the first time) is a serial pass as long as a
 * 16-thread parse of the edges. */
typedef struct ones_job {
    sp_coo_t *a;
    int64_t m;
    int ntasks;
} ones_job_t;

static sp_status_t ones_task(int t, void *arg)
{
    const ones_job_t *o = arg;
    int64_t b = o->m * t / o->ntasks, e = o->m * (t + 1) / o->ntasks;
    if (o->a->value_type == SP_R_32F)
        for (int64_t i = b; i < e; i++) ((float *)o->a->val)[i] = 1.0f;
    else if (o->a->value_type == SP_R_64F)
        for (int64_t i = b; i < e; i++) ((double *)o->a->val)[i] = 1.0;
    return SP_STATUS_SUCCESS;
}

/* Whether edge i's direction rev (1: the reverse) is an entry of the output: ranged
 * reads keep the rows [rb, re) only (a constant in each copy of the caller). */
static inline int el_keeps(const sp_coo_t *raw, int64_t i, int rev, int ranged, int64_t rb,
                           int64_t re)
{
    int64_t u = rev ? raw->col[i] : raw->row[i];
    return !ranged || (u >= rb && u < re);
}

/* Edge i (and its reverse when undirected and not a loop) into a from slot k on, loops
 * dropped as asked: the entries written (count only when a is NULL); *loop: a self loop. */
static inline int64_t el_expand(const sp_coo_t *raw, int64_t i, const sp_edgelist_options_t *o,
                                int ranged, int64_t rb, int64_t re, sp_coo_t *a, int64_t k,
                                int *loop)
{
    int64_t w = 0;
    size_t vs = sp_value_size(raw->value_type);
    *loop = raw->row[i] == raw->col[i];
    if (*loop && o->drop_self_loops) return 0;
    for (int rev = 0; rev < (o->undirected && !*loop ? 2 : 1); rev++) {
        if (!el_keeps(raw, i, rev, ranged, rb, re)) continue;
        if (a) {
            a->row[k + w] = rev ? raw->col[i] : raw->row[i];
            a->col[k + w] = rev ? raw->row[i] : raw->col[i];
            if (vs)
                memcpy((char *)a->val + (k + w) * vs, (const char *)raw->val + i * vs, vs);
        }
        w++;
    }
    return w;
}

static inline sp_status_t el_expand_all(sp_coo_t *raw, int64_t m, int64_t n,
                                        const sp_edgelist_options_t *o, int ranged,
                                        int64_t rb, int64_t re, sp_coo_t **out,
                                        int64_t *dropped)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *a = NULL;
    int64_t count = 0, loops = 0, k = 0;
    int loop;
    for (int64_t i = 0; i < m; i++) {
        count += el_expand(raw, i, o, ranged, rb, re, NULL, 0, &loop);
        loops += loop && el_keeps(raw, i, 0, ranged, rb, re);
    }
    SP_TRY(sp_coo_create(n, n, count, raw->value_type, &a));
    for (int64_t i = 0; i < m; i++)
        k += el_expand(raw, i, o, ranged, rb, re, a, k, &loop);
    a->nnz = k;
    if (o->undirected && !ranged)
        a->flags |= SP_COO_SYMMETRIC_EXPANDED | SP_COO_SYMMETRIC_PATTERN;
    *dropped = o->drop_self_loops ? loops : 0;
    *out = a;
    a = NULL;
done:
    sp_coo_free(a);
    return st;
}

/* Ranged reads keep only the rows [rb, re) (an undirected edge whose reverse lands in
 * them was kept by the parse) and renumber them from rb. */
static sp_status_t build_coo(sp_coo_t **raw_p, int weighted, int64_t m, int64_t n,
                             const sp_edgelist_options_t *o, int ranged, int64_t rb,
                             int64_t re, int nthreads, sp_coo_t **out, int64_t *dropped)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *raw = *raw_p, *a = NULL;
    sp_value_type_t vt = raw->value_type;
    *raw_p = NULL;
    raw->nrows = raw->ncols = n;
    raw->nnz = m;
    if (!weighted && vt != SP_VALUE_NONE) {
        ones_job_t oj = {raw, m, m < (1 << 20) ? 1 : 4 * nthreads};
        SP_TRY(sp__parallel_for(nthreads, oj.ntasks, ones_task, &oj));
    }
    if (!o->undirected && !o->drop_self_loops) {
        *dropped = 0;
        a = raw;
        raw = NULL;
    } else if (ranged) {
        SP_TRY(el_expand_all(raw, m, n, o, 1, rb, re, &a, dropped));
    } else {
        SP_TRY(el_expand_all(raw, m, n, o, 0, 0, 0, &a, dropped));
    }
    if (ranged) {
        for (int64_t k = 0; k < a->nnz; k++) a->row[k] = (int32_t)(a->row[k] - rb);
        a->nrows = re - rb;
    }
    *out = a;
    a = NULL;
done:
    sp_coo_free(raw);
    sp_coo_free(a);
    return st;
}

static sp_status_t check_options(sp_value_type_t value_type, const sp_edgelist_options_t *o)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(value_type == SP_VALUE_NONE || value_type == SP_R_32F ||
                     value_type == SP_R_64F,
                 "sp_edgelist_read: unknown value type %d", (int)value_type);
    SP_CHECK_ARG(o->format >= SP_EDGELIST_AUTO && o->format <= SP_EDGELIST_METIS,
                 "sp_edgelist_read: unknown format %d", (int)o->format);
    SP_CHECK_ARG(o->nthreads >= 0, "sp_edgelist_read: nthreads %d < 0", o->nthreads);
    SP_CHECK_ARG(o->nvertices >= 0, "sp_edgelist_read: nvertices %lld < 0",
                 (long long)o->nvertices);
    if (o->nvertices > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_edgelist_read: nvertices %lld exceeds 32-bit indices (limit %d)",
                (long long)o->nvertices, INT32_MAX);
done:
    return st;
}

/* The vertex count without compaction: nvertices, the header's n or max id + 1. */
static sp_status_t vertex_count(const sp_el_read_t *r, const sp_edgelist_options_t *o,
                                int64_t max_id, int64_t *n)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t v = max_id + 1;
    if (r->declared_n >= 0) v = r->declared_n;
    if (o->nvertices > v) v = o->nvertices;
    if (v > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s: %lld vertices exceed 32-bit indices (limit %d); compact_ids keeps only "
                "the used ones",
                r->path, (long long)v, INT32_MAX);
    *n = v;
done:
    return st;
}

/* A header's claims judged before anything is allocated: vertices beyond 32-bit ids
 * (unless compaction keeps only the used ones), and more edges than the bytes after the
 * header could hold (every edge takes at least one byte, whatever the format; UINT64_MAX
 * for a stream, whose size is not known). */
static sp_status_t check_header_claims(const sp_el_read_t *r, uint64_t body_bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (r->declared_n > INT32_MAX && !r->compact)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s:%lld: %lld vertices declared exceed 32-bit indices (limit %d); "
                "compact_ids keeps only the used ones",
                r->path, (long long)r->header_line, (long long)r->declared_n, INT32_MAX);
    if (r->declared_m >= 0 && (uint64_t)r->declared_m > body_bytes)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s:%lld: %lld edges declared but the remaining %llu bytes cannot hold them",
                r->path, (long long)r->header_line, (long long)r->declared_m,
                (unsigned long long)body_bytes);
done:
    return st;
}

/* ---- the reader of the streaming engine ---- */

/* The read: the id rules and header facts (r, whose arrays each parse points at its
 * own), and the final arrays: raw's, and with compact ids 64-bit src/dst beside them. */
typedef struct el_job {
    const sp_el_format_t *fmt;
    const sp_el_read_t *r;
    sp_coo_t *raw;
    int64_t *src, *dst;
    int ranged, either; /* sp_edgelist_read_rows: rows [rb, re) kept (either: undirected) */
    int64_t rb, re;
    sp__row_count_t *count; /* sp__edgelist_count_rows: edges counted, none kept */
} el_job_t;

/* A piece's own arrays: row, col (or with compact ids src, dst) and weights. */
enum { OUT_ROW, OUT_COL, OUT_SRC, OUT_DST, OUT_W };

static int64_t el_bound(void *ctx, size_t n)
{
    const el_job_t *j = ctx;
    int64_t b = (int64_t)(n / (size_t)j->fmt->min_edge_bytes) + 1;
    return b < INT32_MAX ? b : INT32_MAX;
}

static void el_out_free(void *ctx, void *out)
{
    (void)ctx;
    sp__piece_arrays_free(out);
}

static sp_status_t el_out_create(void *ctx, int64_t cap, void **out)
{
    const el_job_t *j = ctx;
    size_t ids = j->r->compact ? 0 : sizeof(int32_t), wide = j->r->compact ? sizeof(int64_t) : 0;
    size_t size[SP_PIECE_ARRAYS] = {ids, ids, wide, wide, sp_value_size(j->r->wtype)};
    return sp__piece_arrays_create(size, cap, (sp_piece_arrays_t **)out);
}

static sp_status_t el_parse(void *ctx, sp_piece_t *pc)
{
    const el_job_t *j = ctx;
    sp_el_read_t r = *j->r;
    sp_el_chunk_t c;
    sp_piece_arrays_t *o = pc->out;
    memset(&c, 0, sizeof c);
    c.text = (sp_chunk_t){pc->begin, pc->end, pc->first_line, 0};
    c.lines = pc->part_offset;
    if (o) {
        r.row = o->a[OUT_ROW];
        r.col = o->a[OUT_COL];
        r.src = o->a[OUT_SRC];
        r.dst = o->a[OUT_DST];
        r.w = o->a[OUT_W];
        r.cap = o->cap;
        o->vbase = c.lines;
    } else { /* one thread: straight into the final arrays */
        r.row = j->raw->row;
        r.col = j->raw->col;
        r.src = j->src;
        r.dst = j->dst;
        r.w = r.wtype != SP_VALUE_NONE ? j->raw->val : NULL;
        r.cap = j->raw->capacity;
        c.edges = pc->offset;
    }
    sp_status_t st = j->fmt->parse(&r, &c);
    pc->count = c.next - c.edges;
    pc->lines = c.last_line - pc->first_line + 1;
    pc->part = c.vertex_end - c.lines;
    pc->max = c.max_id;
    pc->aux = pc->count; /* the file's edges, for the totals */
    if (st == SP_STATUS_SUCCESS && j->count) {
        sp__row_count_add(j->count, r.row + c.edges, r.col + c.edges, pc->count);
        pc->count = 0;
    } else if (st == SP_STATUS_SUCCESS && j->ranged) {
        size_t ws = r.w ? sp_value_size(r.wtype) : 0;
        pc->count = sp__coo_keep_rows(r.row + c.edges, r.col + c.edges,
                                      ws ? (char *)r.w + (size_t)c.edges * ws : NULL, ws,
                                      pc->count, j->rb, j->re, j->either, NULL);
    }
    return st;
}

/* A METIS piece parsed alone numbered its vertices from 0: where more vertex lines than
 * declared come before its end it is parsed again at its place (blank lines there are
 * trailing space, anything else an error with its line). */
static int el_fits(void *ctx, const sp_piece_t *pc)
{
    const el_job_t *j = ctx;
    return j->fmt != &sp__el_metis || pc->part_offset + pc->part <= j->r->declared_n;
}

/* Room for n edges, doubling (large blocks move by mremap on glibc, without a copy); the
 * edge count is bounded by memory alone (issue 20), vertex ids stay 32-bit. */
static sp_status_t el_reserve(void *ctx, int64_t n, int64_t *cap)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    el_job_t *j = ctx;
    int64_t old = j->raw->capacity, want = 2 * old > n ? 2 * old : n;
    if (j->r->compact) {
        int64_t *s = sp__realloc(j->src, (size_t)want * sizeof *s);
        if (s) j->src = s;
        int64_t *d = s ? sp__realloc(j->dst, (size_t)want * sizeof *d) : NULL;
        if (d) j->dst = d;
        if (!s || !d)
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory growing edges to %lld",
                    (long long)want);
    }
    SP_TRY(sp__coo_grow(j->raw, want));
    *cap = want;
done:
    return st;
}

/* Copy a piece's edges to its offset (METIS: its vertices moved to its place). */
static void el_place(void *ctx, const sp_piece_t *pc)
{
    const el_job_t *j = ctx;
    const sp_piece_arrays_t *o = pc->out;
    size_t n = (size_t)pc->count, ws = sp_value_size(j->r->wtype);
    int64_t shift = pc->part_offset - o->vbase, at = pc->offset;
    if (n == 0) return;
    if (j->r->compact) {
        const int64_t *src = o->a[OUT_SRC];
        for (size_t k = 0; k < n; k++) j->src[at + (int64_t)k] = src[k] + shift;
        memcpy(j->dst + at, o->a[OUT_DST], n * sizeof *j->dst);
    } else {
        const int32_t *row = o->a[OUT_ROW];
        for (size_t k = 0; k < n; k++) j->raw->row[at + (int64_t)k] = (int32_t)(row[k] + shift);
        memcpy(j->raw->col + at, o->a[OUT_COL], n * sizeof *j->raw->col);
    }
    if (ws) memcpy((char *)j->raw->val + (size_t)at * ws, o->a[OUT_W], n * ws);
}

/* The largest 0-based id: per piece; a METIS piece's count mixes its vertices (numbered
 * from its place only when parsed there) with neighbour ids, so it is moved by its place
 * and held to the declared vertices: a bound, which is all compaction needs. */
static int64_t largest_id(const el_job_t *j, const sp_stream_result_t *res)
{
    int64_t top = -1;
    for (int64_t i = 0; i < res->npieces; i++) {
        int64_t m = res->pieces[i].max;
        if (j->fmt == &sp__el_metis && m >= 0) {
            m += res->pieces[i].part_offset;
            if (m >= j->r->declared_n) m = j->r->declared_n - 1;
        }
        if (m > top) top = m;
    }
    return top;
}

/* The header from the start of src: the prefix grown (to 64 MiB at most) until it holds
 * it. *body, *body_line: where the edges start. */
static sp_status_t read_header(const sp_el_format_t *fmt, sp_el_read_t *r, sp_source_t *src,
                               size_t *body, int64_t *body_line)
{
    enum { HEADER_FIRST = 64 * 1024, HEADER_MAX = 64 << 20 };
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_text_t text;
    const char *b = NULL;
    for (size_t want = HEADER_FIRST;; want *= 2) {
        SP_TRY(sp__source_prefix(src, want, &text, NULL));
        SP_TRY(fmt->header(r, &text, &b, body_line));
        if (b) break;
        if (want >= HEADER_MAX)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: no %s header in the first %d MiB", r->path,
                    fmt->name, HEADER_MAX >> 20);
    }
    *body = (size_t)(b - text.data);
    uint64_t size = 0;
    SP_TRY(check_header_claims(r, sp__source_sized(src, &size) ? size - *body : UINT64_MAX));
done:
    return st;
}

/* A stream longer than the declared edges can fill (a gzip bomb) is refused as it
 * arrives: 256 bytes per edge and vertex line, 1 MiB of slack. SNAP declares nothing. */
static void limit_stream(const sp_el_read_t *r, sp_source_t *src, size_t body)
{
    enum { LINE_MAX_BYTES = 256, SLACK = 1 << 20 };
    char why[160];
    if (sp__source_sized(src, NULL) || r->declared_m < 0) return;
    int64_t lines = 2 * r->declared_m + (r->declared_n > 0 ? r->declared_n : 0);
    uint64_t cap = (uint64_t)body + (uint64_t)lines * LINE_MAX_BYTES + SLACK;
    snprintf(why, sizeof why, "the %lld edges declared can take (%d bytes a line, 1 MiB of "
             "slack, a %zu-byte header)", (long long)r->declared_m, LINE_MAX_BYTES, body);
    sp__source_limit(src, cap, why);
}

/* sp_edgelist_read, or (ranged) sp_edgelist_read_rows of rows [rb, re), or (count) the
 * count mode over share rank of parts. */
static sp_status_t read_edgelist(const char *fn, const char *path, sp_value_type_t value_type,
                                 const sp_edgelist_options_t *options, int ranged, int64_t rb,
                                 int64_t re, sp_coo_t **coo, sp_edgelist_info_t *info,
                                 sp__row_count_t *count, int rank, int parts)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_source_t *src = NULL;
    sp_el_read_t r = {0};
    int64_t *id_map = NULL;
    sp_coo_t *a = NULL, *raw = NULL;
    sp_stream_result_t res = {0};
    el_job_t j = {0};
    sp_edgelist_options_t o = {0};
    SP_CHECK_ARG(path != NULL && coo != NULL, "%s: NULL argument", fn);
    if (options) o = *options;
    SP_TRY(check_options(value_type, &o));
    SP_CHECK_ARG(rb >= 0 && re >= rb, "%s: row range [row_begin %lld, row_end %lld) is not "
                 "0 <= row_begin <= row_end", fn, (long long)rb, (long long)re);
    if (ranged && o.compact_ids)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: compact_ids with a row range (renumbering needs "
                "every part's ids)", fn);

    const sp_el_format_t *fmt = format_for(path, o.format);
    SP_TRY(sp__source_open(path, &src));
    r.path = sp__source_name(src);
    r.declared_n = r.declared_m = -1;
    r.base = fmt == &sp__el_snap ? (o.one_based != 0) : 1;
    r.compact = o.compact_ids != 0;
    size_t body = 0;
    int64_t body_line = 1;
    SP_TRY(read_header(fmt, &r, src, &body, &body_line));
    if (r.declared_n >= 0 && o.nvertices > 0 && o.nvertices < r.declared_n)
        SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
                "sp_edgelist_read: nvertices %lld is below the %lld vertices %s declares",
                (long long)o.nvertices, (long long)r.declared_n, r.path);
    r.id_limit = r.declared_n >= 0 ? r.declared_n : o.nvertices > 0 ? o.nvertices : -1;
    r.wtype = r.weighted ? value_type : SP_VALUE_NONE;
    limit_stream(&r, src, body);

    /* The arrays grow with the edges found, never to a declared count up front. */
    /* A METIS piece parsed alone does not know its vertices: ranged, one thread. */
    int nthreads = o.nthreads > 0 ? o.nthreads : sp__ncores();
    if (ranged && fmt == &sp__el_metis) nthreads = 1;
    SP_TRY(sp_coo_create(0, 0, 0, value_type, &raw));
    j = (el_job_t){fmt, &r, raw, NULL, NULL, ranged, o.undirected != 0, rb, re, count};
    if (count) {
        count->nrows = count->ncols = r.declared_n;
        count->declared = r.declared_m;
        count->either = o.undirected != 0;
        count->no_loops = o.drop_self_loops != 0;
        if (r.declared_n > 0) sp__row_count_fit(count, r.declared_n - 1);
        /* a METIS piece needs the vertex lines before it: rank 0 counts the file */
        int reads = fmt == &sp__el_metis ? rank == 0 : sp__source_share(src, rank, parts);
        if (!reads) goto done;
    }
    sp__progress_t progress;
    sp__stream_progress_init(&progress, src, body, o.progress, o.progress_user);
    sp_stream_reader_t rd = {&j,       el_bound, el_out_create, el_out_free,
                             el_parse, el_fits,  el_reserve,    el_place, &progress};
    SP_TRY(sp__stream_run(src, body, body_line, nthreads, &rd, &res));
    r.src = j.src;
    r.dst = j.dst;
    r.row = raw->row;
    r.col = raw->col;
    int64_t m = res.entries, max_id = largest_id(&j, &res), edges = 0;
    for (int64_t i = 0; i < res.npieces; i++) edges += res.pieces[i].aux;
    if (count) { /* the totals are the sum of the shares */
        count->entries = edges;
        goto done;
    }
    if (fmt->check_totals) SP_TRY(fmt->check_totals(&r, edges, res.parts));

    int64_t n = 0, dropped = 0, merged = 0;
    if (r.compact) SP_TRY(compact_ids(&r, m, max_id, &id_map, &n));
    else SP_TRY(vertex_count(&r, &o, max_id, &n));
    if (ranged && re > n)
        SP_FAIL(SP_STATUS_INVALID_ARGUMENT, "%s: row_end %lld beyond the %lld vertices of %s",
                fn, (long long)re, (long long)n, r.path);
    SP_TRY(build_coo(&raw, r.weighted, m, n, &o, ranged, rb, re, nthreads, &a, &dropped));
    if (o.merge_duplicates) SP_TRY(sp_coo_sort_merge(a, SP_DUP_KEEP, &merged));

    if (info) {
        memset(info, 0, sizeof *info);
        info->edges_read = edges;
        info->self_loops_dropped = dropped;
        info->duplicates_merged = merged;
        info->has_weights = r.weighted;
        info->id_map = id_map;
        info->id_map_len = id_map ? n : 0;
        id_map = NULL;
    }
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    sp__free(id_map);
    sp_coo_free(raw);
    sp__free(j.dst);
    sp__free(j.src);
    sp__free(res.pieces);
    sp__source_close(src);
    return st;
}

sp_status_t sp_edgelist_read(const char *path, sp_value_type_t value_type,
                             const sp_edgelist_options_t *options, sp_coo_t **coo,
                             sp_edgelist_info_t *info)
{
    return read_edgelist("sp_edgelist_read", path, value_type, options, 0, 0, 0, coo, info,
                         NULL, 0, 1);
}

sp_status_t sp_edgelist_read_rows(const char *path, sp_value_type_t value_type,
                                  const sp_edgelist_options_t *options, int64_t row_begin,
                                  int64_t row_end, sp_coo_t **coo, sp_edgelist_info_t *info)
{
    return read_edgelist("sp_edgelist_read_rows", path, value_type, options, 1, row_begin,
                         row_end, coo, info, NULL, 0, 1);
}

sp_status_t sp__edgelist_count_rows(const char *path, const sp_edgelist_options_t *options,
                                    int rank, int parts, sp__row_count_t *rc)
{
    sp_coo_t *none = NULL;
    return read_edgelist("sp_dist_partition_file", path, SP_VALUE_NONE, options, 1, 0, 0,
                         &none, NULL, rc, rank, parts);
}
