/* Matrix Market reader: the header parsed in order, then the body split into line-aligned
 * chunks that are counted (pass 1) and parsed straight into the COO at each chunk's
 * offset (pass 2) in parallel; symmetric files are mirrored afterwards (pass 3). With one
 * thread the chunks are parsed in order and pass 1 is skipped. */
#include <float.h>
#include <string.h>

#include "sp_base.h"
#include "sp_progress.h"
#include "sp_text.h"

typedef enum { FMT_COORDINATE, FMT_ARRAY } mtx_format_t;
typedef enum { FIELD_REAL, FIELD_INTEGER, FIELD_PATTERN, FIELD_COMPLEX } mtx_field_t;

/* Everything the parallel passes share; each chunk writes only its own slots. */
typedef struct job {
    const char *path;
    mtx_format_t format;
    mtx_field_t field;
    sp_symmetry_t symmetry;
    sp_value_type_t vt;       /* of the output */
    int64_t nrows, ncols;
    int64_t expected;         /* entries the file declares (array: values) */
    const sp_chunk_t *chunks;
    int64_t *count;           /* pass 1: entry lines per chunk */
    int64_t *offset;          /* exclusive scan of count */
    int64_t *offdiag;         /* pass 2: entries off the diagonal per chunk */
    int64_t *mirror_offset;   /* exclusive scan of offdiag, after the file's entries */
    int32_t *row, *col;
    void *val;
    sp__progress_t progress; /* the caller's callback, per chunk parsed */
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
    char w[32];
    const char *path = j->path;
    int percent = p < end && *p == '%';
    p += percent;
    if (p < end && *p == '%') p++;
    if (!percent || !next_word(&p, end, w, sizeof w) || strcmp(w, "matrixmarket") != 0)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: missing %%%%MatrixMarket banner", path);
    if (!next_word(&p, end, w, sizeof w) || strcmp(w, "matrix") != 0)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unknown object \"%s\" (expected matrix)", path,
                w);
    next_word(&p, end, w, sizeof w);
    if (strcmp(w, "coordinate") == 0) j->format = FMT_COORDINATE;
    else if (strcmp(w, "array") == 0) j->format = FMT_ARRAY;
    else SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unknown format \"%s\"", path, w);
    next_word(&p, end, w, sizeof w);
    if (strcmp(w, "real") == 0) j->field = FIELD_REAL;
    else if (strcmp(w, "integer") == 0) j->field = FIELD_INTEGER;
    else if (strcmp(w, "pattern") == 0) j->field = FIELD_PATTERN;
    else if (strcmp(w, "complex") == 0) j->field = FIELD_COMPLEX;
    else SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unknown field \"%s\"", path, w);
    next_word(&p, end, w, sizeof w);
    if (strcmp(w, "general") == 0) j->symmetry = SP_SYMMETRY_GENERAL;
    else if (strcmp(w, "symmetric") == 0) j->symmetry = SP_SYMMETRY_SYMMETRIC;
    else if (strcmp(w, "skew-symmetric") == 0) j->symmetry = SP_SYMMETRY_SKEW;
    else if (strcmp(w, "hermitian") == 0) j->symmetry = SP_SYMMETRY_HERMITIAN;
    else SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unknown symmetry \"%s\"", path, w);
    if (next_word(&p, end, w, sizeof w))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: unexpected \"%s\" after the symmetry", path, w);
    if (j->field == FIELD_PATTERN && j->format == FMT_ARRAY)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: pattern field with array format", path);
    if (j->field == FIELD_PATTERN && j->symmetry == SP_SYMMETRY_SKEW)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:1: pattern field cannot be skew-symmetric", path);
done:
    return st;
}

/* Parse the size line "M N [NNZ]" at p (line number line). */
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
    if ((uint64_t)n > ((uint64_t)body_bytes + 1) / min_bytes)
        SP_FAIL(SP_STATUS_PARSE_ERROR,
                "%s:%lld: %lld entries declared but the remaining %zu bytes cannot hold them",
                path, (long long)line, (long long)n, body_bytes);
    if (n > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s:%lld: %lld entries exceed 32-bit indices (limit %d)",
                path, (long long)line, (long long)n, INT32_MAX);
    j->expected = n;
done:
    return st;
}

/* ---- body -------------------------------------------------------------------------- */

static sp_status_t count_task(int c, void *arg)
{
    job_t *j = arg;
    j->count[c] = sp__text_count_content_lines(&j->chunks[c], "%");
    return SP_STATUS_SUCCESS;
}

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
    while (it->end - p >= FAST_WINDOW && k < j->expected) {
        const char *s = p;
        uint32_t r, c;
        int64_t iv;
        if (!(s = sp__parse_short_pair(s, it->end, &r, &c))) break;
        if (field == FIELD_REAL) {
            if (!is_blank(*s++) || !(s = sp__parse_f64_fast(s, &val[k]))) break;
        } else if (field == FIELD_INTEGER) {
            if (!is_blank(*s++) || !sp__parse_short_int(&s, it->end, &iv)) break;
            if (j->vt == SP_R_64F) val[k] = (double)iv;
            else ((float *)j->val)[k] = (float)iv;
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

static sp_status_t parse_task(int c, void *arg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    job_t *j = arg;
    sp_text_lines_t it;
    int64_t k = j->offset[c], offdiag = 0, ai = 0, aj = 0;
    int keep = j->vt != SP_VALUE_NONE;
    int plain = j->format == FMT_COORDINATE && j->field == FIELD_REAL &&
                (j->vt == SP_R_32F || j->vt == SP_R_64F) && j->symmetry != SP_SYMMETRY_SKEW;
    if (j->format == FMT_ARRAY) array_start(j, k, &ai, &aj);
    sp__text_lines_init_walk(&it, &j->chunks[c]);
    const char *end = it.end;
    /* fast_lines: double real, integer (either output) and pattern coordinate lines */
    int fast = j->format == FMT_COORDINATE && j->symmetry != SP_SYMMETRY_SKEW &&
               (j->field == FIELD_PATTERN || j->field == FIELD_INTEGER ||
                (j->field == FIELD_REAL && j->vt == SP_R_64F));
    for (const char *p; next_entry_line(j, &it, fast, &k, &offdiag, &p);
         sp__text_line_finish(&it, p)) {
        int64_t line = it.line;
        if (is_eol(p, end) || *p == '%') continue;
        if (k >= j->expected)
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
    j->offdiag[c] = offdiag;
    j->count[c] = k - j->offset[c];
    sp__progress_add(&j->progress, j->chunks[c].end - j->chunks[c].begin);
done:
    return st;
}

/* Append the mirror of every off-diagonal entry of chunk c: (j, i) for (i, j), the value
 * negated for skew files (hermitian files keep the real part, which conjugation keeps). */
static sp_status_t mirror_task(int c, void *arg)
{
    job_t *j = arg;
    int64_t out = j->expected + j->mirror_offset[c];
    for (int64_t k = j->offset[c]; k < j->offset[c] + j->count[c]; k++) {
        if (j->row[k] == j->col[k]) continue;
        j->row[out] = j->col[k];
        j->col[out] = j->row[k];
        if (j->vt == SP_R_32F) {
            float v = ((float *)j->val)[k];
            ((float *)j->val)[out] = j->symmetry == SP_SYMMETRY_SKEW ? -v : v;
        } else if (j->vt == SP_R_64F) {
            double v = ((double *)j->val)[k];
            ((double *)j->val)[out] = j->symmetry == SP_SYMMETRY_SKEW ? -v : v;
        }
        out++;
    }
    return SP_STATUS_SUCCESS;
}

/* Number of the file's last line, for errors found at the end of the input. */
static int64_t last_line(const sp_text_t *t)
{
    int has_cr = memchr(t->data, '\r', t->len) != NULL;
    int64_t n = sp__text_count_breaks(t->data, t->data + t->len, has_cr);
    return n + (t->len > 0 && t->data[t->len - 1] != '\n' && t->data[t->len - 1] != '\r');
}

sp_status_t sp_mtx_read(const char *path, sp_value_type_t value_type,
                        const sp_mtx_options_t *options, sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_text_t text = {NULL, 0, NULL, 0};
    sp_chunk_t *chunks = NULL;
    int64_t *counts = NULL;
    sp_coo_t *a = NULL;
    sp_mtx_options_t opt = {0, SP_PATTERN_ONES, SP_COMPLEX_REFUSE, 0, NULL, NULL};
    job_t j;
    int nchunks = 0;
    memset(&j, 0, sizeof j);
    SP_CHECK_ARG(path != NULL && coo != NULL, "sp_mtx_read: NULL argument");
    SP_CHECK_ARG(value_type == SP_VALUE_NONE || value_type == SP_R_32F || value_type == SP_R_64F,
                 "sp_mtx_read: unknown value type %d", (int)value_type);
    if (options) opt = *options;
    SP_CHECK_ARG(opt.nthreads >= 0, "sp_mtx_read: nthreads %d < 0", opt.nthreads);
    SP_CHECK_ARG(opt.pattern == SP_PATTERN_ONES || opt.pattern == SP_PATTERN_NONE,
                 "sp_mtx_read: unknown pattern mode %d", (int)opt.pattern);
    SP_CHECK_ARG(opt.complex_mode == SP_COMPLEX_REFUSE || opt.complex_mode == SP_COMPLEX_REAL_PART,
                 "sp_mtx_read: unknown complex mode %d", (int)opt.complex_mode);
    j.path = path;
    SP_TRY(sp__text_open(path, &text));
    const char *p = text.data, *end = text.data + text.len;

    SP_TRY(parse_banner(&j, p, end));
    if (j.field == FIELD_COMPLEX && opt.complex_mode == SP_COMPLEX_REFUSE)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s:1: complex field not supported (SP_COMPLEX_REAL_PART keeps the real part)",
                path);
    /* The size line: the first entry line after the banner. */
    sp_text_lines_t it;
    const char *b = NULL, *e = NULL;
    sp__text_lines_whole(&it, &text);
    sp__text_next_line(&it, &b, &e);
    while (sp__text_next_line(&it, &b, &e) && !is_entry_line(b, e)) continue;
    if (!is_entry_line(b, e))
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: missing size line", path,
                (long long)last_line(&text));
    int64_t line = it.line;
    const char *body = it.p;
    SP_TRY(parse_sizes(&j, b, e, line, (size_t)(end - body)));
    j.vt = (j.field == FIELD_PATTERN && opt.pattern == SP_PATTERN_NONE) ? SP_VALUE_NONE
                                                                        : value_type;

    int nthreads = opt.nthreads > 0 ? opt.nthreads : sp__ncores();
    SP_TRY(sp__text_split_for_threads(body, end, line + 1, nthreads, &chunks, &nchunks));
    sp__progress_init(&j.progress, opt.progress, opt.progress_user, end - body);
    SP_ALLOC(counts, 4 * (size_t)nchunks);
    j.chunks = chunks;
    j.count = counts;
    j.offset = counts + nchunks;
    j.offdiag = counts + 2 * nchunks;
    j.mirror_offset = counts + 3 * nchunks;
    SP_TRY(sp_coo_create(j.nrows, j.ncols, j.expected, j.vt, &a));
    j.row = a->row;
    j.col = a->col;
    j.val = a->val;
    int64_t total = 0;
    if (nthreads == 1) {
        /* One thread: the chunks in order, each starting where the last one ended, so no
         * counting pass is needed; the output faulted in first, in one call. */
        sp__prefault(a->row, (size_t)a->capacity * sizeof(int32_t));
        sp__prefault(a->col, (size_t)a->capacity * sizeof(int32_t));
        sp__prefault(a->val, (size_t)a->capacity * sp_value_size(a->value_type));
        for (int c = 0; c < nchunks; c++) {
            j.offset[c] = total;
            SP_TRY(parse_task(c, &j));
            total += j.count[c];
        }
    } else {
        /* Pass 1: entry lines per chunk, scanned into each chunk's first output slot. */
        SP_TRY(sp__parallel_for(nthreads, nchunks, count_task, &j));
        for (int c = 0; c < nchunks; c++) {
            j.offset[c] = total;
            total += j.count[c];
        }
        /* Pass 2: parse in place; a chunk running past the declared count fails there. */
        SP_TRY(sp__parallel_for(nthreads, nchunks, parse_task, &j));
    }
    if (total < j.expected)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "%s:%lld: expected %lld more entries (%lld declared)",
                path, (long long)last_line(&text), (long long)(j.expected - total),
                (long long)j.expected);
    a->nnz = j.expected;
    a->symmetry = j.symmetry;

    /* Pass 3: mirror the off-diagonal entries of symmetric files after the file's own. */
    if (j.symmetry != SP_SYMMETRY_GENERAL && opt.keep_symmetric) {
        a->flags |= SP_COO_SYMMETRIC_STORED;
    } else if (j.symmetry != SP_SYMMETRY_GENERAL) {
        int64_t nmirror = 0;
        for (int c = 0; c < nchunks; c++) {
            j.mirror_offset[c] = nmirror;
            nmirror += j.offdiag[c];
        }
        if (j.expected + nmirror > INT32_MAX)
            SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                    "%s:%lld: %lld entries after symmetric expansion exceed 32-bit indices "
                    "(limit %d)", path, (long long)line, (long long)(j.expected + nmirror),
                    INT32_MAX);
        SP_TRY(sp__coo_grow(a, j.expected + nmirror));
        j.row = a->row;
        j.col = a->col;
        j.val = a->val;
        SP_TRY(sp__parallel_for(nthreads, nchunks, mirror_task, &j));
        a->nnz += nmirror;
        a->flags |= SP_COO_SYMMETRIC_EXPANDED;
    }
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    sp__free(counts);
    sp__free(chunks);
    sp__text_close(&text);
    return st;
}
