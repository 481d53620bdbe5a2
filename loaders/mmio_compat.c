/* The NIST mmio interface (include/sp_mmio.h) on libsp's own parsing: FILE-level calls
 * read whole lines of any length and parse them with the exact number parsers;
 * mm_read_mtx_crd reads named files with sp_mtx_read. The arrays and strings handed to
 * the caller come from plain malloc, because NIST programs release them with free(). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sp_base.h"
#include "sp_mmio.h"
#include "sp_text.h"

/* Record the detail for sp_last_error() and return the NIST code. */
static int mm_error(int code, const char *fmt, ...) SP__PRINTF(2, 3);
static int mm_error(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sp_status_t st = code == MM_COULD_NOT_READ_FILE || code == MM_COULD_NOT_WRITE_FILE
                         ? SP_STATUS_IO_ERROR
                     : code == MM_UNSUPPORTED_TYPE ? SP_STATUS_NOT_SUPPORTED
                                                   : SP_STATUS_PARSE_ERROR;
    SP_ERROR(st, "%s", msg);
    return code;
}

/* ---- whole lines from a FILE ---- */
typedef struct line_buf {
    char *s;
    size_t cap;
} line_buf_t;

/* The next line, without its line break, NUL-terminated in b->s: 1; end of file: 0;
 * out of memory: -1. */
static int read_line(FILE *f, line_buf_t *b, size_t *len)
{
    size_t n = 0;
    for (;;) {
        if (b->cap - n < 2) {
            size_t cap = b->cap ? 2 * b->cap : 256;
            char *s = sp__realloc(b->s, cap);
            if (!s) return -1;
            b->s = s;
            b->cap = cap;
        }
        size_t room = b->cap - n < INT_MAX ? b->cap - n : INT_MAX;
        if (!fgets(b->s + n, (int)room, f)) break;
        n += strlen(b->s + n);
        if (n > 0 && b->s[n - 1] == '\n') break;
    }
    if (n == 0) return 0;
    while (n > 0 && (b->s[n - 1] == '\n' || b->s[n - 1] == '\r')) b->s[--n] = '\0';
    *len = n;
    return 1;
}

static const char *skip_blanks(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    return p;
}

/* The next line that is neither blank nor a '%' comment, as [*p, *e). Returns as
 * read_line. */
static int content_line(FILE *f, line_buf_t *b, const char **p, const char **e)
{
    size_t len = 0;
    int rc;
    while ((rc = read_line(f, b, &len)) == 1) {
        *e = b->s + len;
        *p = skip_blanks(b->s, *e);
        if (*p < *e && **p != '%') break;
    }
    return rc;
}

static void lower_word(char *w)
{
    for (; *w; w++)
        if (*w >= 'A' && *w <= 'Z') *w = (char)(*w - 'A' + 'a');
}

/* Parse an int field at *p: 0, MM_PREMATURE_EOF if the line has ended, MM_NOT_MTX. */
static int int_field(const char **p, const char *e, const char *what, int *out)
{
    const char *s = skip_blanks(*p, e);
    int64_t v = 0;
    if (s == e) return mm_error(MM_PREMATURE_EOF, "missing %s", what);
    const char *q = s;
    int rc = sp__parse_i64(&q, e, &v);
    if (rc != SP_NUM_OK || (q < e && *q != ' ' && *q != '\t'))
        return mm_error(MM_NOT_MTX, "%s '%.20s' is not an integer", what, s);
    if (v < INT_MIN || v > INT_MAX)
        return mm_error(MM_NOT_MTX, "%s %lld does not fit an int", what, (long long)v);
    *out = (int)v;
    *p = q;
    return 0;
}

static int real_field(const char **p, const char *e, const char *what, double *out)
{
    const char *s = skip_blanks(*p, e);
    if (s == e) return mm_error(MM_PREMATURE_EOF, "missing %s", what);
    const char *q = s;
    int rc = sp__parse_f64(&q, e, out);
    if (rc != SP_NUM_OK || (q < e && *q != ' ' && *q != '\t'))
        return mm_error(MM_NOT_MTX, "%s '%.20s' is not a number", what, s);
    *p = q;
    return 0;
}

static int line_ends(const char *p, const char *e, const char *what)
{
    p = skip_blanks(p, e);
    if (p < e) return mm_error(MM_NOT_MTX, "unexpected text '%.20s' after the %s", p, what);
    return 0;
}

/* ---- banner and sizes ---- */
int mm_read_banner(FILE *f, MM_typecode *matcode)
{
    line_buf_t b = {NULL, 0};
    char w[5][MM_MAX_TOKEN_LENGTH];
    size_t len = 0;
    int code = 0, nw = 0;
    mm_clear_typecode(matcode);
    int rc = f ? read_line(f, &b, &len) : 0;
    if (rc < 0) {
        code = mm_error(MM_COULD_NOT_READ_FILE, "mm_read_banner: out of memory");
        goto done;
    }
    if (rc == 0) {
        code = mm_error(MM_PREMATURE_EOF, "mm_read_banner: empty input");
        goto done;
    }
    for (const char *p = b.s, *e = b.s + len; nw < 5; nw++) {
        p = skip_blanks(p, e);
        if (p == e) break;
        size_t n = 0;
        for (; p < e && *p != ' ' && *p != '\t'; p++)
            if (n + 1 < sizeof w[0]) w[nw][n++] = *p;
        w[nw][n] = '\0';
    }
    if (nw == 0 || strcmp(w[0], MatrixMarketBanner) != 0) {
        code = mm_error(MM_NO_HEADER, "mm_read_banner: first line is not a %s banner",
                        MatrixMarketBanner);
        goto done;
    }
    if (nw < 5) {
        code = mm_error(MM_PREMATURE_EOF, "mm_read_banner: banner has %d of 5 words", nw);
        goto done;
    }
    for (int i = 1; i < 5; i++) lower_word(w[i]);
    const char *bad = NULL;
    if (strcmp(w[1], MM_MTX_STR) == 0) mm_set_matrix(matcode);
    else bad = w[1];
    if (strcmp(w[2], MM_SPARSE_STR) == 0) mm_set_sparse(matcode);
    else if (strcmp(w[2], MM_DENSE_STR) == 0) mm_set_dense(matcode);
    else if (!bad) bad = w[2];
    if (strcmp(w[3], MM_REAL_STR) == 0) mm_set_real(matcode);
    else if (strcmp(w[3], MM_COMPLEX_STR) == 0) mm_set_complex(matcode);
    else if (strcmp(w[3], MM_PATTERN_STR) == 0) mm_set_pattern(matcode);
    else if (strcmp(w[3], MM_INT_STR) == 0) mm_set_integer(matcode);
    else if (!bad) bad = w[3];
    if (strcmp(w[4], MM_GENERAL_STR) == 0) mm_set_general(matcode);
    else if (strcmp(w[4], MM_SYMM_STR) == 0) mm_set_symmetric(matcode);
    else if (strcmp(w[4], MM_HERM_STR) == 0) mm_set_hermitian(matcode);
    else if (strcmp(w[4], MM_SKEW_STR) == 0) mm_set_skew(matcode);
    else if (!bad) bad = w[4];
    if (bad) code = mm_error(MM_UNSUPPORTED_TYPE, "mm_read_banner: unknown word '%s'", bad);
done:
    sp__free(b.s);
    return code;
}

/* The first content line holds count integers. */
static int read_sizes(FILE *f, int count, int *out, const char *who)
{
    line_buf_t b = {NULL, 0};
    const char *p = NULL, *e = NULL;
    static const char *const names[3] = {"row count", "column count", "entry count"};
    int code = 0, rc = f ? content_line(f, &b, &p, &e) : 0;
    if (rc < 0) code = mm_error(MM_COULD_NOT_READ_FILE, "%s: out of memory", who);
    else if (rc == 0) code = mm_error(MM_PREMATURE_EOF, "%s: no size line", who);
    for (int i = 0; i < count && code == 0; i++) {
        code = int_field(&p, e, names[i], &out[i]);
        if (code == 0 && out[i] < 0)
            code = mm_error(MM_NOT_MTX, "%s: negative %s %d", who, names[i], out[i]);
    }
    if (code == 0) code = line_ends(p, e, "sizes");
    if (code == MM_PREMATURE_EOF && rc == 1) code = MM_NOT_MTX; /* a short size line */
    if (code) mm_error(code, "%s: %s", who, sp_last_error());
    sp__free(b.s);
    return code;
}

int mm_read_mtx_crd_size(FILE *f, int *M, int *N, int *nz)
{
    int s[3] = {0, 0, 0};
    *M = *N = *nz = 0;
    int code = read_sizes(f, 3, s, "mm_read_mtx_crd_size");
    if (code) return code;
    *M = s[0];
    *N = s[1];
    *nz = s[2];
    return 0;
}

int mm_read_mtx_array_size(FILE *f, int *M, int *N)
{
    int s[2] = {0, 0};
    *M = *N = 0;
    int code = read_sizes(f, 2, s, "mm_read_mtx_array_size");
    if (code) return code;
    *M = s[0];
    *N = s[1];
    return 0;
}

/* ---- entries ---- */

/* Parse one entry line by the field of matcode. */
static int parse_entry(const char *p, const char *e, MM_typecode matcode, int *I, int *J,
                       double *re, double *im)
{
    int code = int_field(&p, e, "row index", I);
    if (code == 0) code = int_field(&p, e, "column index", J);
    if (code == 0 && !mm_is_pattern(matcode)) code = real_field(&p, e, "value", re);
    if (code == 0 && mm_is_complex(matcode)) code = real_field(&p, e, "imaginary part", im);
    if (code == 0) code = line_ends(p, e, "entry");
    return code;
}

static int known_field(MM_typecode matcode)
{
    return mm_is_real(matcode) || mm_is_integer(matcode) || mm_is_complex(matcode) ||
           mm_is_pattern(matcode);
}

int mm_read_mtx_crd_entry(FILE *f, int *I, int *J, double *real, double *img,
                          MM_typecode matcode)
{
    line_buf_t b = {NULL, 0};
    const char *p = NULL, *e = NULL;
    int code = 0;
    if (!known_field(matcode))
        return mm_error(MM_UNSUPPORTED_TYPE, "mm_read_mtx_crd_entry: unknown field '%c'",
                        matcode[2]);
    int rc = content_line(f, &b, &p, &e);
    if (rc < 0) code = mm_error(MM_COULD_NOT_READ_FILE, "mm_read_mtx_crd_entry: out of memory");
    else if (rc == 0) code = mm_error(MM_PREMATURE_EOF, "mm_read_mtx_crd_entry: end of file");
    else code = parse_entry(p, e, matcode, I, J, real, img);
    sp__free(b.s);
    return code;
}

int mm_read_mtx_crd_data(FILE *f, int M, int N, int nz, int I[], int J[], double val[],
                         MM_typecode matcode)
{
    line_buf_t b = {NULL, 0};
    const char *p = NULL, *e = NULL;
    int code = 0;
    if (!known_field(matcode))
        return mm_error(MM_UNSUPPORTED_TYPE, "mm_read_mtx_crd_data: unknown field '%c'",
                        matcode[2]);
    int cplx = mm_is_complex(matcode) != 0;
    for (int k = 0; k < nz && code == 0; k++) {
        double re = 0, im = 0;
        int rc = content_line(f, &b, &p, &e);
        if (rc < 0) code = mm_error(MM_COULD_NOT_READ_FILE, "out of memory");
        else if (rc == 0) code = mm_error(MM_PREMATURE_EOF, "end of file after %d of %d entries", k, nz);
        else code = parse_entry(p, e, matcode, &I[k], &J[k], &re, &im);
        if (code == 0 && (I[k] < 1 || I[k] > M))
            code = mm_error(MM_NOT_MTX, "row index %d outside 1..%d", I[k], M);
        if (code == 0 && (J[k] < 1 || J[k] > N))
            code = mm_error(MM_NOT_MTX, "column index %d outside 1..%d", J[k], N);
        if (code) {
            mm_error(code, "mm_read_mtx_crd_data: entry %d: %s", k + 1, sp_last_error());
        } else if (!mm_is_pattern(matcode)) {
            val[cplx ? 2 * k : k] = re;
            if (cplx) val[2 * k + 1] = im;
        }
    }
    sp__free(b.s);
    return code;
}

/* ---- whole files ---- */

/* Arrays of the caller's, from plain malloc (never NULL for 0 entries). */
typedef struct crd {
    int M, N, nz;
    int *I, *J;
    double *val;
} crd_t;

static void crd_free(crd_t *c)
{
    free(c->I);
    free(c->J);
    free(c->val);
    memset(c, 0, sizeof *c);
}

static int crd_alloc(crd_t *c, MM_typecode matcode)
{
    size_t n = c->nz > 0 ? (size_t)c->nz : 1;
    size_t nv = mm_is_pattern(matcode) ? 0 : mm_is_complex(matcode) ? 2 * n : n;
    c->I = malloc(n * sizeof *c->I);
    c->J = malloc(n * sizeof *c->J);
    c->val = nv ? malloc(nv * sizeof *c->val) : NULL;
    if (c->I && c->J && (c->val || !nv)) return 0;
    crd_free(c);
    return mm_error(MM_COULD_NOT_READ_FILE, "out of memory for %d entries", c->nz);
}

/* Read sizes and entries from the stream, after the banner. */
static int crd_from_stream(FILE *f, MM_typecode matcode, crd_t *c)
{
    int code = mm_read_mtx_crd_size(f, &c->M, &c->N, &c->nz);
    if (code == 0) code = crd_alloc(c, matcode);
    if (code == 0) code = mm_read_mtx_crd_data(f, c->M, c->N, c->nz, c->I, c->J, c->val, matcode);
    if (code) crd_free(c);
    return code;
}

/* Read a named file with sp_mtx_read: as stored (symmetric files not expanded), in file
 * order, indices shifted back to 1-based. */
static int crd_from_libsp(const char *fname, MM_typecode matcode, crd_t *c)
{
    sp_mtx_options_t opt = {0, SP_PATTERN_NONE, SP_COMPLEX_REFUSE, 1, NULL, NULL};
    sp_coo_t *a = NULL;
    sp_status_t st = sp_mtx_read(fname, mm_is_pattern(matcode) ? SP_VALUE_NONE : SP_R_64F,
                                 &opt, &a);
    if (st != SP_STATUS_SUCCESS) {
        return st == SP_STATUS_IO_ERROR ? MM_COULD_NOT_READ_FILE
               : st == SP_STATUS_NOT_SUPPORTED ? MM_UNSUPPORTED_TYPE
               : st == SP_STATUS_ALLOC_FAILED ? MM_COULD_NOT_READ_FILE
                                              : MM_NOT_MTX;
    }
    int code = 0;
    if (a->nnz > INT_MAX)
        code = mm_error(MM_UNSUPPORTED_TYPE, "%s: %lld entries do not fit an int", fname,
                        (long long)a->nnz);
    c->M = (int)a->nrows;
    c->N = (int)a->ncols;
    c->nz = (int)a->nnz;
    if (code == 0) code = crd_alloc(c, matcode);
    for (int k = 0; code == 0 && k < c->nz; k++) {
        c->I[k] = a->row[k] + 1;
        c->J[k] = a->col[k] + 1;
        if (c->val) c->val[k] = ((const double *)a->val)[k];
    }
    sp_coo_free(a);
    return code;
}

static int read_crd(const char *fname, crd_t *c, MM_typecode *matcode)
{
    int from_stdin = strcmp(fname, "stdin") == 0;
    FILE *f = from_stdin ? stdin : fopen(fname, "r");
    if (!f)
        return mm_error(MM_COULD_NOT_READ_FILE, "%s: cannot open: %s", fname, strerror(errno));
    int code = mm_read_banner(f, matcode);
    if (code == 0 && !(mm_is_valid(*matcode) && mm_is_sparse(*matcode)))
        code = mm_error(MM_UNSUPPORTED_TYPE, "%s: only valid coordinate matrices are read",
                        fname);
    /* Complex values and standard input go through the stream reader. */
    int stream = from_stdin || mm_is_complex(*matcode);
    if (code == 0 && stream) code = crd_from_stream(f, *matcode, c);
    if (!from_stdin) fclose(f);
    if (code == 0 && !stream) code = crd_from_libsp(fname, *matcode, c);
    return code;
}

int mm_read_mtx_crd(char *fname, int *M, int *N, int *nz, int **I, int **J, double **val,
                    MM_typecode *matcode)
{
    crd_t c = {0, 0, 0, NULL, NULL, NULL};
    if (!fname || !M || !N || !nz || !I || !J || !val || !matcode)
        return mm_error(MM_COULD_NOT_READ_FILE, "mm_read_mtx_crd: NULL argument");
    int code = read_crd(fname, &c, matcode);
    if (code) return code;
    *M = c.M;
    *N = c.N;
    *nz = c.nz;
    *I = c.I;
    *J = c.J;
    *val = c.val;
    return 0;
}

int mm_read_unsymmetric_sparse(const char *fname, int *M_, int *N_, int *nz_, double **val_,
                               int **I_, int **J_)
{
    crd_t c = {0, 0, 0, NULL, NULL, NULL};
    MM_typecode t;
    if (!fname || !M_ || !N_ || !nz_ || !val_ || !I_ || !J_) return -1;
    if (read_crd(fname, &c, &t) != 0) return -1;
    if (!(mm_is_real(t) || mm_is_integer(t))) {
        mm_error(MM_UNSUPPORTED_TYPE, "%s: mm_read_unsymmetric_sparse reads real matrices",
                 fname);
        crd_free(&c);
        return -1;
    }
    for (int k = 0; k < c.nz; k++) {
        c.I[k]--;
        c.J[k]--;
    }
    *M_ = c.M;
    *N_ = c.N;
    *nz_ = c.nz;
    *val_ = c.val;
    *I_ = c.I;
    *J_ = c.J;
    return 0;
}

/* ---- typecodes and writing ---- */
int mm_is_valid(MM_typecode matcode)
{
    if (!mm_is_matrix(matcode)) return 0;
    if (mm_is_dense(matcode) && mm_is_pattern(matcode)) return 0;
    if (mm_is_real(matcode) && mm_is_hermitian(matcode)) return 0;
    if (mm_is_pattern(matcode) && (mm_is_hermitian(matcode) || mm_is_skew(matcode))) return 0;
    return 1;
}

char *mm_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

char *mm_typecode_to_str(MM_typecode matcode)
{
    const char *fmt = mm_is_sparse(matcode) ? MM_SPARSE_STR
                      : mm_is_dense(matcode) ? MM_DENSE_STR : NULL;
    const char *field = mm_is_real(matcode)      ? MM_REAL_STR
                        : mm_is_complex(matcode) ? MM_COMPLEX_STR
                        : mm_is_pattern(matcode) ? MM_PATTERN_STR
                        : mm_is_integer(matcode) ? MM_INT_STR : NULL;
    const char *sym = mm_is_general(matcode)     ? MM_GENERAL_STR
                      : mm_is_symmetric(matcode) ? MM_SYMM_STR
                      : mm_is_hermitian(matcode) ? MM_HERM_STR
                      : mm_is_skew(matcode)      ? MM_SKEW_STR : NULL;
    if (!mm_is_matrix(matcode) || !fmt || !field || !sym) return NULL;
    char buf[MM_MAX_TOKEN_LENGTH * 4];
    snprintf(buf, sizeof buf, "%s %s %s %s", MM_MTX_STR, fmt, field, sym);
    return mm_strdup(buf);
}

int mm_write_banner(FILE *f, MM_typecode matcode)
{
    char *s = mm_typecode_to_str(matcode);
    if (!s) return mm_error(MM_UNSUPPORTED_TYPE, "mm_write_banner: invalid typecode");
    int rc = fprintf(f, "%s %s\n", MatrixMarketBanner, s);
    free(s);
    return rc < 0 ? mm_error(MM_COULD_NOT_WRITE_FILE, "mm_write_banner: write failed") : 0;
}

int mm_write_mtx_crd_size(FILE *f, int M, int N, int nz)
{
    if (fprintf(f, "%d %d %d\n", M, N, nz) < 0)
        return mm_error(MM_COULD_NOT_WRITE_FILE, "mm_write_mtx_crd_size: write failed");
    return 0;
}

int mm_write_mtx_array_size(FILE *f, int M, int N)
{
    if (fprintf(f, "%d %d\n", M, N) < 0)
        return mm_error(MM_COULD_NOT_WRITE_FILE, "mm_write_mtx_array_size: write failed");
    return 0;
}

/* Values with %.17g, so they read back to the same double. */
int mm_write_mtx_crd(char fname[], int M, int N, int nz, int I[], int J[], double val[],
                     MM_typecode matcode)
{
    if (!known_field(matcode) || !mm_is_valid(matcode) || !mm_is_sparse(matcode))
        return mm_error(MM_UNSUPPORTED_TYPE, "mm_write_mtx_crd: invalid typecode");
    int to_stdout = strcmp(fname, "stdout") == 0;
    FILE *f = to_stdout ? stdout : fopen(fname, "w");
    if (!f)
        return mm_error(MM_COULD_NOT_WRITE_FILE, "%s: cannot open: %s", fname, strerror(errno));
    int code = mm_write_banner(f, matcode);
    if (code == 0) code = mm_write_mtx_crd_size(f, M, N, nz);
    for (int k = 0; k < nz && code == 0; k++) {
        int rc;
        if (mm_is_pattern(matcode)) rc = fprintf(f, "%d %d\n", I[k], J[k]);
        else if (mm_is_complex(matcode))
            rc = fprintf(f, "%d %d %.17g %.17g\n", I[k], J[k], val[2 * k], val[2 * k + 1]);
        else rc = fprintf(f, "%d %d %.17g\n", I[k], J[k], val[k]);
        if (rc < 0) code = mm_error(MM_COULD_NOT_WRITE_FILE, "%s: write failed", fname);
    }
    if (!to_stdout && fclose(f) != 0 && code == 0)
        code = mm_error(MM_COULD_NOT_WRITE_FILE, "%s: write failed", fname);
    return code;
}
