/* The loader's speed baseline: read a coordinate Matrix Market file the way the classic
 * NIST mmio reader does (fgets the banner, skip '%' lines, sscanf the size line, then one
 * fscanf("%d %d %lg") per entry into malloc'd arrays) and report its throughput.
 * Standalone on purpose: no libsp, so it measures stdio, not us. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define LINE_MAX_LEN 1025 /* mmio's MM_MAX_LINE_LENGTH */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *path, const char *what)
{
    fprintf(stderr, "mtx_fscanf_baseline: %s: %s\n", path, what);
    return 1;
}

/* The matrix as mmio returns it: 0-based triplets, values NULL for pattern files. */
typedef struct triplets {
    int nrows, ncols, nnz;
    int *row, *col;
    double *val;
} triplets_t;

/* Banner "%%MatrixMarket matrix coordinate FIELD SYMMETRY"; *pattern set for pattern. */
static int read_banner(FILE *f, const char *path, int *pattern)
{
    char line[LINE_MAX_LEN], banner[64], object[64], format[64], field[64], symmetry[64];
    if (!fgets(line, sizeof line, f)) return fail(path, "empty file");
    if (sscanf(line, "%63s %63s %63s %63s %63s", banner, object, format, field,
               symmetry) != 5 ||
        strcmp(banner, "%%MatrixMarket") != 0)
        return fail(path, "line 1: no \"%%MatrixMarket matrix coordinate ...\" banner");
    if (strcasecmp(object, "matrix") != 0 || strcasecmp(format, "coordinate") != 0)
        return fail(path, "line 1: only \"matrix coordinate\" files are read");
    if (strcasecmp(field, "complex") == 0 || strcasecmp(field, "hermitian") == 0)
        return fail(path, "line 1: complex fields are not read by the baseline");
    if (strcasecmp(field, "real") != 0 && strcasecmp(field, "double") != 0 &&
        strcasecmp(field, "integer") != 0 && strcasecmp(field, "pattern") != 0)
        return fail(path, "line 1: unknown field");
    *pattern = strcasecmp(field, "pattern") == 0;
    return 0;
}

/* Skip '%' lines, then "M N NNZ". */
static int read_size(FILE *f, const char *path, triplets_t *t)
{
    char line[LINE_MAX_LEN];
    do {
        if (!fgets(line, sizeof line, f)) return fail(path, "no size line");
    } while (line[0] == '%');
    if (sscanf(line, "%d %d %d", &t->nrows, &t->ncols, &t->nnz) != 3)
        return fail(path, "size line is not \"rows cols entries\"");
    if (t->nrows < 0 || t->ncols < 0 || t->nnz < 0) return fail(path, "negative size");
    return 0;
}

static int read_entries(FILE *f, const char *path, int pattern, triplets_t *t)
{
    char what[128];
    t->row = malloc((size_t)t->nnz * sizeof *t->row + 1);
    t->col = malloc((size_t)t->nnz * sizeof *t->col + 1);
    t->val = pattern ? NULL : malloc((size_t)t->nnz * sizeof *t->val + 1);
    if (!t->row || !t->col || (!pattern && !t->val)) return fail(path, "out of memory");
    for (int k = 0; k < t->nnz; k++) {
        int got = pattern ? fscanf(f, "%d %d", &t->row[k], &t->col[k])
                          : fscanf(f, "%d %d %lg", &t->row[k], &t->col[k], &t->val[k]);
        if (got != (pattern ? 2 : 3)) {
            snprintf(what, sizeof what, "entry %d of %d: %s", k + 1, t->nnz,
                     got == EOF ? "file ends early" : "not \"row col value\"");
            return fail(path, what);
        }
        if (t->row[k] < 1 || t->row[k] > t->nrows || t->col[k] < 1 || t->col[k] > t->ncols) {
            snprintf(what, sizeof what, "entry %d: (%d, %d) outside %d x %d", k + 1,
                     t->row[k], t->col[k], t->nrows, t->ncols);
            return fail(path, what);
        }
        t->row[k]--;
        t->col[k]--;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: mtx_fscanf_baseline FILE.mtx\n");
        return 1;
    }
    const char *path = argv[1];
    struct stat sb;
    if (stat(path, &sb) != 0) return fail(path, strerror(errno));
    triplets_t t = {0, 0, 0, NULL, NULL, NULL};
    int pattern = 0, rc = 1;
    double t0 = now_seconds();
    FILE *f = fopen(path, "r");
    if (!f) return fail(path, strerror(errno));
    if (read_banner(f, path, &pattern) == 0 && read_size(f, path, &t) == 0 &&
        read_entries(f, path, pattern, &t) == 0)
        rc = 0;
    fclose(f);
    double seconds = now_seconds() - t0;
    if (rc == 0) {
        printf("rows: %d\ncols: %d\nnnz: %d\n", t.nrows, t.ncols, t.nnz);
        printf("seconds: %.6f\n", seconds);
        printf("MB/s: %.2f\n", (double)sb.st_size / 1e6 / seconds);
        printf("Mentries/s: %.3f\n", (double)t.nnz / 1e6 / seconds);
    }
    free(t.val);
    free(t.col);
    free(t.row);
    return rc;
}
