/* Matrix Market reader: the header read from the start of the input, then the body
 * streamed in chunks (text_stream.c), each parsed once into its own arrays and copied to
 * its place in the COO as soon as the entries before it are known (with one thread:
 * parsed straight into the COO); symmetric files are mirrored afterwards. */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "sp_base.h"
#include "sp_progress.h"
#include "sp_row_count.h"
#include "sp_text.h"

typedef enum { FMT_COORDINATE, FMT_ARRAY } mtx_format_t;
typedef enum { FIELD_REAL, FIELD_INTEGER, FIELD_PATTERN, FIELD_COMPLEX } mtx_field_t;

/* The header's facts, and where one parse writes: the final COO at a piece's offset or the
 * piece's own arrays (row, col, val), slot 0 being entry k0 of the file, limit slots free
 * before the declared count is reached. */
typedef struct job {
    const char *path;
    mtx_format_t format;
    mtx_field_t field;
    sp_symmetry_t symmetry;
    sp_value_type_t vt;       /* of the output */
    int64_t nrows, ncols;
    int64_t expected;         /* entries the file declares (array: values) */
    int direct;               /* one thread: pieces parsed straight into the COO */
    int ranged;               /* sp_mtx_read_rows: only rows [rb, re) kept */
    int64_t rb, re;
    sp__row_count_t *count;   /* sp__mtx_count_rows: entries counted, none kept */
    sp_coo_t *a;              /* the output */
    int32_t *row, *col;
    void *val;
    int64_t k0, limit;
    /* the mirror pass */
    const sp_piece_info_t *pieces;
    int64_t *mirror_offset;
} job_t;

static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int is_eol(const char *p, const char *end) { return p == end || *p == '\n' || *p == '\r'; }

/* An entry line (from its first non-blank b to its end e) is not blank or a comment. */
static int is_entry_line(const char *b, const char *e) { return b < e && *b != '%'; }

/* ---- header ---------------------------------------------------------------------- */

/* Copy the next blank-separated word of the line (lower-cased, truncated) into w. */
static int next_word(const char **p, const char *end, char *w, size_t cap)
{
    const char *s = *p;
    size_t n = 0;
    w[0] = '\0';
    while (s < end && is_blank(*s)) s++;
    if (is_eol(s, end)) {
        *p = s;
        return 0;
    }
    for (; !is_eol(s, end) && !is_blank(*s); s++)
        if (n + 1 < cap) w[n++] = (char)((*s >= 'A' && *s <= 'Z') ? *s - 'A' + 'a' : *s);
    w[n] = '\0';
    *p = s;
    return 1;
}

static sp_status_t parse_banner(job_t *j, const char *p, const char *end)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    char w[32], q[4 * sizeof w]; /* a word, and the word as a message may quote it */
    const char *path = j->path;
    int percent = p < end && *p == '%';
    p += percent;
    if (p < end && *p == '%') p++;
    if (!percent || !next_word(&p, end, w, sizeof w) || strcmp(w, "matrixmarket") != 0)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: missing %%%%MatrixMarket banner", path);
    if (!next_word(&p, end, w, sizeof w) || strcmp(w, "matrix") != 0)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unknown object \"%s\" (expected matrix)", path,
                sp__text_quote(q, sizeof q, w, strlen(w)));
    next_word(&p, end, w, sizeof w);
    if (strcmp(w, "coordinate") == 0) j->format = FMT_COORDINATE;
    else if (strcmp(w, "array") == 0) j->format = FMT_ARRAY;
    else SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unknown format \"%s\"", path,
                      sp__text_quote(q, sizeof q, w, strlen(w)));
    next_word(&p, end, w, sizeof w);
    if (strcmp(w, "real") == 0) j->field = FIELD_REAL;
    else if (strcmp(w, "integer") == 0) j->field = FIELD_INTEGER;
    else if (strcmp(w, "pattern") == 0) j->field = FIELD_PATTERN;
    else if (strcmp(w, "complex") == 0) j->field = FIELD_COMPLEX;
    else SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unknown field \"%s\"", path,
                      sp__text_quote(q, sizeof q, w, strlen(w)));
    next_word(&p, end, w, sizeof w);
    if (strcmp(w, "general") == 0) j->symmetry = SP_SYMMETRY_GENERAL;
    else if (strcmp(w, "symmetric") == 0) j->symmetry = SP_SYMMETRY_SYMMETRIC;
    else if (strcmp(w, "skew-symmetric") == 0) j->symmetry = SP_SYMMETRY_SKEW;
    else if (strcmp(w, "hermitian") == 0) j->symmetry = SP_SYMMETRY_HERMITIAN;
    else SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unknown symmetry \"%s\"", path,
                      sp__text_quote(q, sizeof q, w, strlen(w)));
    if (next_word(&p, end, w, sizeof w))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unexpected \"%s\" after the symmetry",
                path, sp__text_quote(q, sizeof q, w, strlen(w)));
    if (j->field == FIELD_PATTERN && j->format == FMT_ARRAY)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: pattern field with array format", path);
    if (j->field == FIELD_PATTERN && j->symmetry == SP_SYMMETRY_SKEW)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: pattern field cannot be skew-symmetric", path);
done:
    return st;
}

/* Parse the size line "M N [NNZ]" at p (line number line); body_bytes: what follows it,
 * SIZE_MAX when not known (a stream). */
static sp_status_t parse_sizes(job_t *j, const char *p, const char *end, int64_t line,
                               size_t body_bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const char *path = j->path;
    int64_t v[3] = {0, 0, 0};
    int need = j->format == FMT_COORDINATE ? 3 : 2;
    static const char *names[3] = {"row count", "column count", "entry count"};
    for (int k = 0; k < need; k++) {
        while (p < end && is_blank(*p)) p++;
        if (is_eol(p, end))
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: size line: missing %s", path,
                    (long long)line, names[k]);
        int rc = sp__parse_i64(&p, end, &v[k]);
        if (rc == SP_NUM_RANGE)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: size line: %s overflows 64 bits", path,
                    (long long)line, names[k]);
        if (rc != SP_NUM_OK || !(is_eol(p, end) || is_blank(*p)))
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: size line: %s is not an integer", path,
                    (long long)line, names[k]);
        if (v[k] < 0)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: size line: negative %s %lld", path,
                    (long long)line, names[k], (long long)v[k]);
    }
    while (p < end && is_blank(*p)) p++;
    if (!is_eol(p, end))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: size line: unexpected text after %d numbers",
                path, (long long)line, need);
    j->nrows = v[0];
    j->ncols = v[1];
    if (v[0] > INT32_MAX || v[1] > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s:%lld: %lld x %lld exceeds 32-bit indices (limit %d)",
                path, (long long)line, (long long)v[0], (long long)v[1], INT32_MAX);
    if (j->symmetry != SP_SYMMETRY_GENERAL && v[0] != v[1])
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: %lld x %lld matrix declared symmetric", path,
                (long long)line, (long long)v[0], (long long)v[1]);
    /* Each entry needs a line of at least "i j" (coordinate) or "v" (array) and a break;
     * a count the remaining bytes cannot hold is refused before anything is allocated. */
    size_t min_bytes = j->format == FMT_COORDINATE ? 4 : 2;
    int64_t n = v[2];
    if (j->format == FMT_ARRAY) {
        n = v[0] * v[1];
        if (j->symmetry == SP_SYMMETRY_SYMMETRIC || j->symmetry == SP_SYMMETRY_HERMITIAN)
            n = v[0] * (v[0] + 1) / 2;
        if (j->symmetry == SP_SYMMETRY_SKEW) n = v[0] * (v[0] - (v[0] > 0)) / 2;
    }
    if (body_bytes != SIZE_MAX && (uint64_t)n > ((uint64_t)body_bytes + 1) / min_bytes)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s:%lld: %lld entries declared but the remaining %zu bytes cannot hold them",
                path, (long long)line, (long long)n, body_bytes);
    /* the entry count is bounded by memory alone (issue 20); row and column ids stay 32-bit */
    j->expected = n;
done:
    return st;
}

/* ---- body -------------------------------------------------------------------------- */

/* Parse an index field at *p into 0-based *out, checking 1..limit. */
static sp_status_t read_index(const job_t *j, const char **p, const char *end, int64_t line,
                              const char *what, int64_t limit, int32_t *out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t v = 0;
    while (*p < end && is_blank(**p)) (*p)++;
    if (is_eol(*p, end))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: missing %s index", j->path, (long long)line,
                what);
    int rc = sp__parse_i64(p, end, &v);
    if (rc == SP_NUM_SYNTAX || (rc == SP_NUM_OK && !is_eol(*p, end) && !is_blank(**p)))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: %s index is not an integer", j->path,
                (long long)line, what);
    if (rc == SP_NUM_RANGE)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: %s index outside 1..%lld", j->path,
                (long long)line, what, (long long)limit);
    if (v < 1 || v > limit)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: %s index %lld outside 1..%lld", j->path,
                (long long)line, what, (long long)v, (long long)limit);
    *out = (int32_t)(v - 1);
done:
    return st;
}

/* Parse one value field at *p into slot k of the output (or only check it when the
 * output keeps no values). Integer fields go through the integer parser so that values
 * beyond 2^53 round once; the float output is parsed as float, never via double. */
static sp_status_t read_value(const job_t *j, const char **p, const char *end, int64_t line,
                              int64_t k, int keep)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int rc;
    while (*p < end && is_blank(**p)) (*p)++;
    if (is_eol(*p, end))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: missing value", j->path, (long long)line);
    if (j->field == FIELD_INTEGER) {
        int64_t v = 0;
        rc = sp__parse_i64(p, end, &v);
        if (rc == SP_NUM_OK && !is_eol(*p, end) && !is_blank(**p))
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: integer field: value is not an integer",
                    j->path, (long long)line);
        if (rc == SP_NUM_OK && keep && j->vt == SP_R_32F) ((float *)j->val)[k] = (float)v;
        if (rc == SP_NUM_OK && keep && j->vt == SP_R_64F) ((double *)j->val)[k] = (double)v;
    } else if (keep && j->vt == SP_R_32F) {
        rc = sp__parse_f32(p, end, &((float *)j->val)[k]);
    } else {
        double v = 0;
        rc = sp__parse_f64(p, end, &v);
        if (keep && j->vt == SP_R_64F) ((double *)j->val)[k] = v;
    }
    if (rc == SP_NUM_RANGE)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: value out of range for %s", j->path,
                (long long)line, j->field == FIELD_INTEGER ? "int64" :
                keep && j->vt == SP_R_32F ? "float" : "double");
    if (rc != SP_NUM_OK || (!is_eol(*p, end) && !is_blank(**p)))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: value is not a number", j->path,
                (long long)line);
done:
    return st;
}

/* Position (i, j) of the k-th value of an array file: column-major, and for symmetric
 * files the lower triangle (skew: strictly lower). */
static void array_start(const job_t *j, int64_t k, int64_t *i, int64_t *c)
{
    int64_t m = j->nrows, below = j->symmetry == SP_SYMMETRY_SKEW ? 1 : 0;
    if (j->symmetry == SP_SYMMETRY_GENERAL) {
        *i = m ? k % m : 0;
        *c = m ? k / m : 0;
        return;
    }
    int64_t col = 0;
    while (col < m && k >= m - col - below) k -= m - col++ - below;
    *c = col;
    *i = col + below + k;
}

static void array_advance(const job_t *j, int64_t *i, int64_t *c)
{
    if (++*i < j->nrows) return;
    ++*c;
    *i = j->symmetry == SP_SYMMETRY_GENERAL ? 0 : *c + (j->symmetry == SP_SYMMETRY_SKEW);
}

/* The common entry line of a real coordinate file, "i j v" with indices in range and
 * nothing after the value but blanks, read in one pass into slot k (float or double
 * values, parsed as that type): 1 if it is one, with *stop at its line end; 0, writing
 * nothing, for anything else, which the general path then reads and judges with its
 * messages. */
/* An index of a plain entry line: short ones a word at a time. */
static inline int entry_index(const char **p, const char *end, int64_t *v)
{
#if SP_SWAR_DIGITS
    uint32_t u;
    if (sp__parse_short_uint(p, end, &u)) {
        *v = u;
        return 1;
    }
#endif
    return sp__parse_i64(p, end, v) == SP_NUM_OK;
}

static int plain_entry(const job_t *j, const char *p, const char *end, int64_t k,
                       const char **stop)
{
    int64_t r, c;
    double v = 0;
    float f = 0;
    int rc;
    if (!entry_index(&p, end, &r) || p >= end || !is_blank(*p)) return 0;
    do p++; while (p < end && is_blank(*p));
    if (!entry_index(&p, end, &c) || p >= end || !is_blank(*p)) return 0;
    do p++; while (p < end && is_blank(*p));
    rc = j->vt == SP_R_32F ? sp__parse_f32(&p, end, &f) : sp__parse_f64(&p, end, &v);
    if (rc != SP_NUM_OK) return 0;
    if (p < end && *p != '\n') /* the common line ends right after the value */
        while (p < end && is_blank(*p)) p++;
    if (!is_eol(p, end) || r < 1 || r > j->nrows || c < 1 || c > j->ncols) return 0;
    j->row[k] = (int32_t)(r - 1);
    j->col[k] = (int32_t)(c - 1);
    if (j->vt == SP_R_32F) ((float *)j->val)[k] = f;
    else ((double *)j->val)[k] = v;
    *stop = p;
    return 1;
}

/* Bytes that one line of fast_lines may read: two indices of at most 10 digits, two
 * blanks, the value's window. */
enum { FAST_WINDOW = 2 * 11 + SP_NUM_F64_FAST_READ };

/* The commonest lines of a coordinate file, "i j v\n" (real: double output; integer:
 * a short integer value) or "i j\n" (pattern), one blank between the fields, read from
 * it->p on while a whole window of bytes lies before the chunk's end, so no read needs a
 * bounds check: stops, leaving it->p at its start, at the first other line (the general
 * walk reads and judges it, writing again the value slot that such a line may have
 * received) or when the declared count is reached. field is a constant in each copy. */
static inline void fast_lines_of(const job_t *j, sp_text_lines_t *it, mtx_field_t field,
                                 int64_t *kp, int64_t *offdiag)
{
#if SP_SWAR_DIGITS
    const char *p = it->p;
    int64_t k = *kp, line = it->line, od = *offdiag;
    double *val = j->val;
    while (it->end - p >= FAST_WINDOW && k < j->limit) {
        const char *s = p;
        uint32_t r, c;
        int64_t iv;
        if (!(s = sp__parse_short_pair(s, it->end, &r, &c))) break;
        if (field == FIELD_REAL) {
            if (!is_blank(*s++) || !(s = sp__parse_f64_fast(s, &val[k]))) break;
        } else if (field == FIELD_INTEGER) {
            if (!is_blank(*s++) || !sp__parse_short_int(&s, it->end, &iv)) break;
            if (j->vt == SP_R_64F) val[k] = (double)iv;
            else if (j->vt == SP_R_32F) ((float *)j->val)[k] = (float)iv;
            /* SP_VALUE_NONE (the pattern asked of an integer file): checked, not kept */
        } else if (j->vt == SP_R_64F) {
            val[k] = 1.0;
        } else if (j->vt == SP_R_32F) {
            ((float *)j->val)[k] = 1.0f;
        }
        if (*s != '\n' || r < 1 || r > j->nrows || c < 1 || c > j->ncols) break;
        j->row[k] = (int32_t)(r - 1);
        j->col[k] = (int32_t)(c - 1);
        od += r != c;
        k++;
        line++;
        p = s + 1;
    }
    it->p = p;
    it->line = line;
    *kp = k;
    *offdiag = od;
#else
    (void)j, (void)it, (void)field, (void)kp, (void)offdiag;
#endif
}

static void fast_lines(const job_t *j, sp_text_lines_t *it, int64_t *kp, int64_t *offdiag)
{
    if (j->field == FIELD_REAL) fast_lines_of(j, it, FIELD_REAL, kp, offdiag);
    else if (j->field == FIELD_INTEGER) fast_lines_of(j, it, FIELD_INTEGER, kp, offdiag);
    else fast_lines_of(j, it, FIELD_PATTERN, kp, offdiag);
}

/* The next line's start for parse_task, after the lines fast_lines takes. */
static int next_entry_line(const job_t *j, sp_text_lines_t *it, int fast, int64_t *k,
                           int64_t *offdiag, const char **p)
{
    if (fast) fast_lines(j, it, k, offdiag);
    return sp__text_line_begin(it, p);
}

/* Parse the lines of piece pc into j's arrays from slot 0 on (slot 0 is the file's entry
 * j->k0; pc->count gets the entries parsed). */
static sp_status_t parse_lines(const job_t *j, sp_piece_t *pc)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_text_lines_t it;
    sp_chunk_t chunk = {pc->begin, pc->end, pc->first_line, 0};
    int64_t k = 0, offdiag = 0, ai = 0, aj = 0;
    int keep = j->vt != SP_VALUE_NONE;
    int plain = j->format == FMT_COORDINATE && j->field == FIELD_REAL &&
                (j->vt == SP_R_32F || j->vt == SP_R_64F) && j->symmetry != SP_SYMMETRY_SKEW;
    if (j->format == FMT_ARRAY) array_start(j, j->k0, &ai, &aj);
    sp__text_lines_init_walk(&it, &chunk);
    const char *end = it.end;
    /* fast_lines: double real, integer (either output) and pattern coordinate lines */
    int fast = j->format == FMT_COORDINATE && j->symmetry != SP_SYMMETRY_SKEW &&
               (j->field == FIELD_PATTERN || j->field == FIELD_INTEGER ||
                (j->field == FIELD_REAL && j->vt == SP_R_64F));
    for (const char *p; next_entry_line(j, &it, fast, &k, &offdiag, &p);
         sp__text_line_finish(&it, p)) {
        int64_t line = it.line;
        if (is_eol(p, end) || *p == '%') continue;
        if (k >= j->limit)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: more entries than the %lld declared",
                    j->path, (long long)line, (long long)j->expected);
        if (plain && plain_entry(j, p, end, k, &p)) {
            offdiag += j->row[k] != j->col[k];
            k++;
            continue;
        }
        if (j->format == FMT_ARRAY) {
            j->row[k] = (int32_t)ai;
            j->col[k] = (int32_t)aj;
            array_advance(j, &ai, &aj);
        } else {
            SP_TRY(read_index(j, &p, end, line, "row", j->nrows, &j->row[k]));
            SP_TRY(read_index(j, &p, end, line, "column", j->ncols, &j->col[k]));
        }
        if (j->field == FIELD_PATTERN) {
            if (j->vt == SP_R_32F) ((float *)j->val)[k] = 1.0f;
            if (j->vt == SP_R_64F) ((double *)j->val)[k] = 1.0;
        } else {
            SP_TRY(read_value(j, &p, end, line, k, keep));
            if (j->field == FIELD_COMPLEX) /* the imaginary part: checked, dropped */
                SP_TRY(read_value(j, &p, end, line, k, 0));
        }
        while (p < end && is_blank(*p)) p++;
        if (!is_eol(p, end))
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: unexpected text after the entry",
                    j->path, (long long)line);
        if (j->row[k] == j->col[k] && j->symmetry == SP_SYMMETRY_SKEW)
            SP_FAIL(SP_STATUS_PARSE_ERROR,
                    "%s:%lld: diagonal entry (%lld, %lld) in a skew-symmetric matrix",
                    j->path, (long long)line, (long long)j->row[k] + 1,
                    (long long)j->col[k] + 1);
        offdiag += j->row[k] != j->col[k];
        k++;
    }
    pc->count = k;
    pc->aux = offdiag;
    pc->lines = it.line - pc->first_line + 1;
done:
    return st;
}

/* Write the mirror of entry k at out: (j, i) for (i, j), the value negated for skew files
 * (hermitian files keep the real part, which conjugation keeps). */
static inline void mirror_entry(const job_t *j, int64_t k, int64_t out)
{
    int32_t *row = j->a->row, *col = j->a->col, i = row[k];
    row[out] = col[k];
    col[out] = i;
    if (j->vt == SP_R_32F) {
        float v = ((float *)j->a->val)[k];
        ((float *)j->a->val)[out] = j->symmetry == SP_SYMMETRY_SKEW ? -v : v;
    } else if (j->vt == SP_R_64F) {
        double v = ((double *)j->a->val)[k];
        ((double *)j->a->val)[out] = j->symmetry == SP_SYMMETRY_SKEW ? -v : v;
    }
}

/* Append the mirror of every off-diagonal entry of chunk c. With a row range (a constant
 * in each copy) the chunk kept the entries with their row or their column in range: one
 * whose row is outside is replaced by its mirror, one with both inside gets its mirror
 * appended, one with only its row inside has none in range. */
static inline void mirror_chunk(const job_t *j, int c, int ranged)
{
    const sp_piece_info_t *pc = &j->pieces[c];
    const int32_t *row = j->a->row, *col = j->a->col;
    int64_t out = j->a->nnz + j->mirror_offset[c];
    uint64_t width = (uint64_t)(j->re - j->rb);
    for (int64_t k = pc->offset; k < pc->offset + pc->count; k++) {
        if (row[k] == col[k]) continue;
        if (ranged && (uint64_t)(row[k] - j->rb) >= width) mirror_entry(j, k, k);
        else if (!ranged || (uint64_t)(col[k] - j->rb) < width) mirror_entry(j, k, out++);
    }
}

static sp_status_t mirror_task(int c, void *arg)
{
    const job_t *j = arg;
    if (j->ranged) mirror_chunk(j, c, 1);
    else mirror_chunk(j, c, 0);
    return SP_STATUS_SUCCESS;
}

/* ---- the reader of the streaming engine --------------------------------------------- */

/* Entries a piece of n bytes can hold: a line of at least "i j" (coordinate) or "v"
 * (array) and a break each, and never more than the file declares. */
static int64_t piece_bound(void *ctx, size_t n)
{
    const job_t *j = ctx;
    int64_t b = (int64_t)(n / (j->format == FMT_COORDINATE ? 4 : 2)) + 1;
    return b < j->expected ? b : j->expected;
}

static void out_free(void *ctx, void *out)
{
    (void)ctx;
    sp__piece_arrays_free(out);
}

/* A pattern file's pieces carry no values: their ones are written once, at the place
 * (copying them from a piece doubled the memory traffic of the fastest shape). */
static int piece_values(const job_t *j)
{
    return j->field != FIELD_PATTERN && j->vt != SP_VALUE_NONE;
}

/* row, col and (when kept) values. */
static sp_status_t out_create(void *ctx, int64_t cap, void **out)
{
    const job_t *j = ctx;
    size_t size[SP_PIECE_ARRAYS] = {sizeof(int32_t), sizeof(int32_t),
                                    piece_values(j) ? sp_value_size(j->vt) : 0};
    return sp__piece_arrays_create(size, cap, (sp_piece_arrays_t **)out);
}

static sp_status_t parse_piece(void *ctx, sp_piece_t *pc)
{
    const job_t *j = ctx;
    job_t w = *j;
    size_t vs = sp_value_size(j->vt);
    if (pc->out) {
        const sp_piece_arrays_t *o = pc->out;
        w.row = o->a[0];
        w.col = o->a[1];
        w.val = o->a[2];
        if (!piece_values(j)) w.vt = SP_VALUE_NONE; /* ones written at the place */
    } else {
        w.row = j->a->row + pc->offset;
        w.col = j->a->col + pc->offset;
        w.val = j->a->val ? (char *)j->a->val + (size_t)pc->offset * vs : NULL;
    }
    w.k0 = pc->part_offset;
    w.limit = j->expected - pc->part_offset;
    sp_status_t st = parse_lines(&w, pc);
    pc->part = pc->count; /* the file's entries: the declared count holds them */
    if (st == SP_STATUS_SUCCESS && j->count) {
        sp__row_count_add(j->count, w.row, w.col, pc->count);
        pc->count = 0;
    } else if (st == SP_STATUS_SUCCESS && j->ranged)
        pc->count = sp__coo_keep_rows(w.row, w.col, w.val, sp_value_size(w.vt), pc->count,
                                      j->rb, j->re, j->symmetry != SP_SYMMETRY_GENERAL,
                                      &pc->aux);
    return st;
}

/* A piece parsed alone must not run past the declared count where it lands. */
static int piece_fits(void *ctx, const sp_piece_t *pc)
{
    const job_t *j = ctx;
    return pc->part_offset + pc->part <= j->expected;
}

/* Room for n entries (never more than declared), doubling: large blocks move by mremap
 * on glibc, without a copy. With one thread the new part is faulted in with one call
 * (cheaper than a fault a page while parsing); with several it is left to the copies,
 * which fault their own pages in parallel: faulting it here, on the one thread that
 * grows it while the copies wait, zeroed the whole output serially (with the fixes of
 * bench/results/h100host-loader-shapes.md, 16 threads went from 2.1-3.0 to 6.6-8.2 GB/s). */
static sp_status_t reserve_entries(void *ctx, int64_t n, int64_t *cap)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const job_t *j = ctx;
    sp_coo_t *a = j->a;
    int64_t old = a->capacity, want = 2 * old > n ? 2 * old : n;
    if (want > j->expected) want = j->expected;
    if (want > old) {
        SP_TRY(sp__coo_grow(a, want));
        size_t vs = sp_value_size(a->value_type), add = (size_t)(want - old);
        if (j->direct) {
            sp__prefault(a->row + old, add * sizeof(int32_t));
            sp__prefault(a->col + old, add * sizeof(int32_t));
            if (vs) sp__prefault((char *)a->val + (size_t)old * vs, add * vs);
        }
    }
    /* At the declared count nothing can need more: parses stop there. */
    *cap = a->capacity >= j->expected ? INT64_MAX : a->capacity;
done:
    return st;
}

/* Copy a piece to its offset; array files get their positions from it here. */
static void place_piece(void *ctx, const sp_piece_t *pc)
{
    const job_t *j = ctx;
    const sp_piece_arrays_t *o = pc->out;
    sp_coo_t *a = j->a;
    size_t n = (size_t)pc->count, vs = sp_value_size(j->vt);
    if (n == 0) return;
    memcpy(a->row + pc->offset, o->a[0], n * sizeof(int32_t));
    memcpy(a->col + pc->offset, o->a[1], n * sizeof(int32_t));
    if (vs && piece_values(j)) {
        memcpy((char *)a->val + (size_t)pc->offset * vs, o->a[2], n * vs);
    } else if (j->vt == SP_R_64F) {
        double *v = (double *)a->val + pc->offset;
        for (size_t i = 0; i < n; i++) v[i] = 1.0;
    } else if (j->vt == SP_R_32F) {
        float *v = (float *)a->val + pc->offset;
        for (size_t i = 0; i < n; i++) v[i] = 1.0f;
    }
    if (j->format != FMT_ARRAY) return;
    int64_t i = 0, c = 0;
    array_start(j, pc->part_offset, &i, &c); /* (array files are read ranged on one thread) */
    for (int64_t k = pc->offset; k < pc->offset + pc->count; k++) {
        a->row[k] = (int32_t)i;
        a->col[k] = (int32_t)c;
        array_advance(j, &i, &c);
    }
}

/* ---- the reader ----------------------------------------------------------------------- */

/* The header is read from a prefix of the input: the banner judged in the first 64 KiB,
 * the prefix grown (to 64 MiB at most) until it holds the size line. */
enum { HEADER_FIRST = 64 * 1024, HEADER_MAX = 64 << 20 };

/* Number of the text's last line, for errors found at the end of the input. */
static int64_t last_line(const sp_text_t *t)
{
    int has_cr = memchr(t->data, '\r', t->len) != NULL;
    int64_t n = sp__text_count_breaks(t->data, t->data + t->len, has_cr);
    return n + (t->len > 0 && t->data[t->len - 1] != '\n' && t->data[t->len - 1] != '\r');
}

/* Banner, comments and size line from the start of src: *body and *body_line get where
 * the entries start. */
static sp_status_t read_header(job_t *j, sp_source_t *src, const sp_mtx_options_t *opt,
                               size_t *body, int64_t *body_line)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const char *path = j->path, *b = NULL, *e = NULL;
    sp_text_t text;
    sp_text_lines_t it;
    size_t want = HEADER_FIRST, avail = 0;
    SP_TRY(sp__source_prefix(src, want, &text, &avail));
    SP_TRY(parse_banner(j, text.data, text.data + avail));
    if (j->field == FIELD_COMPLEX && opt->complex_mode == SP_COMPLEX_REFUSE)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s:1: complex field not supported (SP_COMPLEX_REAL_PART keeps the real part)",
                path);
    for (;;) { /* the size line: the first entry line after the banner */
        sp__text_lines_whole(&it, &text);
        sp__text_next_line(&it, &b, &e);
        while (sp__text_next_line(&it, &b, &e) && !is_entry_line(b, e)) continue;
        if (is_entry_line(b, e) || !text.partial) break;
        if (want >= HEADER_MAX)
            SP_FAIL(SP_STATUS_PARSE_ERROR, "%s: no size line in the first %d MiB", path,
                    HEADER_MAX >> 20);
        want *= 2;
        SP_TRY(sp__source_prefix(src, want, &text, NULL));
    }
    if (!is_entry_line(b, e))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: missing size line", path,
                (long long)last_line(&text));
    *body = (size_t)(it.p - text.data);
    *body_line = it.line + 1;
    uint64_t size = 0;
    size_t body_bytes = sp__source_sized(src, &size) ? (size_t)(size - *body) : SIZE_MAX;
    SP_TRY(parse_sizes(j, b, e, it.line, body_bytes));
done:
    return st;
}

/* A stream longer than the declared entries can fill (a gzip bomb: a valid header and
 * gigabytes of blanks) is refused as it arrives: 256 bytes per entry, 1 MiB of slack. */
static void limit_stream(const job_t *j, sp_source_t *src, size_t body)
{
    enum { LINE_MAX_BYTES = 256, SLACK = 1 << 20 };
    char why[160];
    if (sp__source_sized(src, NULL)) return;
    uint64_t cap = (uint64_t)body + (uint64_t)j->expected * LINE_MAX_BYTES + SLACK;
    snprintf(why, sizeof why, "the %lld entries declared can take (%d bytes each, 1 MiB of "
             "slack, a %zu-byte header)", (long long)j->expected, LINE_MAX_BYTES, body);
    sp__source_limit(src, cap, why);
}

/* Mirror the off-diagonal entries of symmetric files after the file's own. */
static sp_status_t expand_symmetric(job_t *j, const sp_stream_result_t *res, int nthreads)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t nmirror = 0;
    SP_ALLOC(j->mirror_offset, res->npieces);
    for (int64_t c = 0; c < res->npieces; c++) {
        j->mirror_offset[c] = nmirror;
        nmirror += res->pieces[c].aux;
    }
    /* at most twice the declared count: no overflow, memory the only bound (issue 20) */
    SP_TRY(sp__coo_grow(j->a, j->a->nnz + nmirror));
    j->pieces = res->pieces;
    SP_TRY(sp__parallel_for(nthreads, (int)res->npieces, mirror_task, j));
    j->a->nnz += nmirror;
    j->a->flags |= SP_COO_SYMMETRIC_EXPANDED | SP_COO_SYMMETRIC_PATTERN;
done:
    sp__free(j->mirror_offset);
    j->mirror_offset = NULL;
    return st;
}

/* sp_mtx_read, or (ranged) sp_mtx_read_rows of rows [rb, re), or (count) the count mode
 * over share rank of parts; fn names the call. */
static sp_status_t read_mtx(const char *fn, const char *path, sp_value_type_t value_type,
                            const sp_mtx_options_t *options, int ranged, int64_t rb,
                            int64_t re, sp_coo_t **coo, sp__row_count_t *count, int rank,
                            int parts)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_source_t *src = NULL;
    sp_coo_t *a = NULL;
    sp_stream_result_t res = {0};
    sp_mtx_options_t opt = {0, SP_PATTERN_ONES, SP_COMPLEX_REFUSE, 0, NULL, NULL};
    job_t j;
    memset(&j, 0, sizeof j);
    SP_CHECK_ARG(path != NULL && coo != NULL, "%s: NULL argument", fn);
    SP_CHECK_ARG(value_type == SP_VALUE_NONE || value_type == SP_R_32F || value_type == SP_R_64F,
                 "%s: unknown value type %d", fn, (int)value_type);
    if (options) opt = *options;
    SP_CHECK_ARG(opt.nthreads >= 0, "%s: nthreads %d < 0", fn, opt.nthreads);
    SP_CHECK_ARG(opt.pattern == SP_PATTERN_ONES || opt.pattern == SP_PATTERN_NONE,
                 "%s: unknown pattern mode %d", fn, (int)opt.pattern);
    SP_CHECK_ARG(opt.complex_mode == SP_COMPLEX_REFUSE || opt.complex_mode == SP_COMPLEX_REAL_PART,
                 "%s: unknown complex mode %d", fn, (int)opt.complex_mode);
    SP_CHECK_ARG(rb >= 0 && re >= rb, "%s: row range [row_begin %lld, row_end %lld) is not "
                 "0 <= row_begin <= row_end", fn, (long long)rb, (long long)re);
    SP_CHECK_ARG(!ranged || !opt.keep_symmetric,
                 "%s: keep_symmetric with a row range (the rows of a stored triangle are not "
                 "the rows of the matrix)", fn);
    SP_TRY(sp__source_open(path, &src));
    j.path = sp__source_name(src);
    size_t body = 0;
    int64_t body_line = 0;
    SP_TRY(read_header(&j, src, &opt, &body, &body_line));
    if (ranged && re > j.nrows)
        SP_FAIL(SP_STATUS_INVALID_ARGUMENT, "%s: row_end %lld beyond the %lld rows of %s", fn,
                (long long)re, (long long)j.nrows, j.path);
    j.vt = (j.field == FIELD_PATTERN && opt.pattern == SP_PATTERN_NONE) ? SP_VALUE_NONE
                                                                        : value_type;
    j.ranged = ranged;
    j.rb = rb;
    j.re = re;
    j.count = count;
    limit_stream(&j, src, body);
    if (count) {
        count->nrows = j.nrows;
        count->ncols = j.ncols;
        count->declared = j.expected;
        count->either = j.symmetry != SP_SYMMETRY_GENERAL;
        if (j.nrows > 0) sp__row_count_fit(count, j.nrows - 1);
        /* an array file's positions are known in input order only: rank 0 counts it */
        int reads = j.format == FMT_ARRAY ? rank == 0 : sp__source_share(src, rank, parts);
        if (!reads) goto done;
    }

    /* The output grows with the entries found, never to the declared count up front: a
     * header cannot make the reader allocate what the file does not hold. Where the
     * file's size bounds the entries it can hold, several threads reserve that at once
     * (address space only: pages are touched by the copies), so that the arrays do not
     * grow while copies wait; a ranged read keeps its rows only and grows with them. An
     * array file's positions are known only in input order: a ranged one is read on one
     * thread. */
    int nthreads = opt.nthreads > 0 ? opt.nthreads : sp__ncores();
    if (ranged && j.format == FMT_ARRAY) nthreads = 1;
    SP_TRY(sp_coo_create(j.nrows, j.ncols, 0, j.vt, &a));
    j.a = a;
    j.direct = nthreads == 1;
    uint64_t bytes = 0;
    if (!j.direct && !ranged && sp__source_sized(src, &bytes) && bytes > body) {
        int64_t cap = 0;
        SP_TRY(reserve_entries(&j, piece_bound(&j, (size_t)(bytes - body)), &cap));
        /* reserved once: huge pages cut the copies' faults (a block that grows later
         * would have them split when it moves) */
        size_t n = (size_t)a->capacity, vs = sp_value_size(a->value_type);
        sp__advise_huge(a->row, n * sizeof(int32_t));
        sp__advise_huge(a->col, n * sizeof(int32_t));
        if (vs) sp__advise_huge(a->val, n * vs);
    }
    sp__progress_t progress;
    sp__stream_progress_init(&progress, src, body, opt.progress, opt.progress_user);
    sp_stream_reader_t rd = {&j,          piece_bound, out_create,      out_free,
                             parse_piece, piece_fits,  reserve_entries, place_piece,
                             &progress};
    SP_TRY(sp__stream_run(src, body, body_line, nthreads, &rd, &res));
    if (count) { /* the declared count is checked on the sum of the shares */
        count->entries = res.parts;
        goto done;
    }
    if (res.parts < j.expected)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: expected %lld more entries (%lld declared)",
                j.path, (long long)res.last_line, (long long)(j.expected - res.parts),
                (long long)j.expected);
    a->nnz = res.entries;
    a->symmetry = j.symmetry;
    if (j.symmetry != SP_SYMMETRY_GENERAL && opt.keep_symmetric)
        a->flags |= SP_COO_SYMMETRIC_STORED;
    else if (j.symmetry != SP_SYMMETRY_GENERAL)
        SP_TRY(expand_symmetric(&j, &res, nthreads));
    if (ranged) { /* rows renumbered from the part's first; a part is not symmetric */
        for (int64_t k = 0; k < a->nnz; k++) a->row[k] = (int32_t)(a->row[k] - rb);
        a->nrows = re - rb;
        a->symmetry = SP_SYMMETRY_GENERAL;
        a->flags &= ~(SP_COO_SYMMETRIC_EXPANDED | SP_COO_SYMMETRIC_PATTERN);
    }
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    sp__free(res.pieces);
    sp__source_close(src);
    return st;
}

sp_status_t sp_mtx_read(const char *path, sp_value_type_t value_type,
                        const sp_mtx_options_t *options, sp_coo_t **coo)
{
    return read_mtx("sp_mtx_read", path, value_type, options, 0, 0, 0, coo, NULL, 0, 1);
}

sp_status_t sp_mtx_read_rows(const char *path, sp_value_type_t value_type,
                             const sp_mtx_options_t *options, int64_t row_begin,
                             int64_t row_end, sp_coo_t **coo)
{
    return read_mtx("sp_mtx_read_rows", path, value_type, options, 1, row_begin, row_end, coo,
                    NULL, 0, 1);
}

sp_status_t sp__mtx_count_rows(const char *path, const sp_mtx_options_t *options, int rank,
                               int parts, sp__row_count_t *rc)
{
    sp_coo_t *none = NULL;
    return read_mtx("sp_dist_partition_file", path, SP_VALUE_NONE, options, 1, 0, 0, &none, rc,
                    rank, parts);
}
