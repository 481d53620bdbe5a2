/* Write a large coordinate real general Matrix Market file of about a given size from a
 * generated Kronecker or uniform graph with random values in [0, 1): the input of the
 * loader benchmark (e.g. the 1 GB file). With --shape, a file of one number shape
 * instead (random entries, fixed seed), one per fast path of the readers' number parsers.
 * Public API only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sp.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: gen_mtx_file [--kind kronecker|uniform] [--seed N] [--edgefactor N] "
            "OUT.mtx SIZE_MB\n"
            "  writes a real general coordinate file of about SIZE_MB megabytes (10^6 bytes);\n"
            "  the edge factor is the smallest used (default 16), the scale the largest that\n"
            "  fits\n"
            "       gen_mtx_file --shape SHAPE [--seed N] OUT SIZE_MB\n"
            "  one number shape, random entries (ids 1..2^20 unless said):\n"
            "    real17   real general, %%.17g of u * 10^k, k in -5..3 (1e-5..1e4)\n"
            "    real16   real general, %%.16g of u in [0, 1) (the control)\n"
            "    ids8     real general, ids 1..99999999 (mostly 8 digits), %%.17g in [0, 1)\n"
            "    pattern  pattern general\n"
            "    integer  integer general, values -10^6..10^6\n"
            "    snap     SNAP edge list \"u<TAB>v\", ids 0..2^28-1 (8-9 digits)\n");
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Expected bytes of one "row col value" line with 2^scale vertices: ids mostly have the
 * digits of 2^scale; %.17g of a uniform [0, 1) value is "0." and 17 digits, a little
 * more below 0.1. */
static double line_bytes(int scale)
{
    int digits = 1;
    for (int64_t n = (int64_t)1 << scale; n >= 10; n /= 10) digits++;
    return 2.0 * digits + 2 + 19.2 + 1;
}

/* The largest scale whose edge factor for the target size is still >= min_edgefactor. */
static void choose_size(double bytes, int min_edgefactor, int *scale, int *edgefactor)
{
    *scale = 0;
    for (int s = 1; s <= 30; s++)
        if (bytes / (line_bytes(s) * (double)((int64_t)1 << s)) >= min_edgefactor) *scale = s;
    double ef = bytes / (line_bytes(*scale) * (double)((int64_t)1 << *scale));
    *edgefactor = ef < 1.0 ? 1 : (int)(ef + 0.5);
}

static int parse_int(const char *text, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* splitmix64: a fixed stream for the shape files. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* One entry line of the shape into line (at most 96 bytes): its length. */
static int shape_line(const char *shape, uint64_t *rs, char *line)
{
    uint64_t n = strcmp(shape, "ids8") == 0 ? 99999999u : strcmp(shape, "snap") == 0
                                                              ? (uint64_t)1 << 28
                                                              : (uint64_t)1 << 20;
    uint64_t i = next_random(rs) % n, j = next_random(rs) % n;
    double u = (double)(next_random(rs) >> 11) * 0x1p-53;
    if (strcmp(shape, "snap") == 0)
        return snprintf(line, 96, "%llu\t%llu\n", (unsigned long long)i, (unsigned long long)j);
    int len = snprintf(line, 96, "%llu %llu", (unsigned long long)i + 1,
                       (unsigned long long)j + 1);
    if (strcmp(shape, "real17") == 0) {
        static const double scale[9] = {1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3};
        len += snprintf(line + len, 96 - (size_t)len, " %.17g",
                        u * scale[next_random(rs) % 9] * 10);
    } else if (strcmp(shape, "real16") == 0) {
        len += snprintf(line + len, 96 - (size_t)len, " %.16g", u);
    } else if (strcmp(shape, "ids8") == 0) {
        len += snprintf(line + len, 96 - (size_t)len, " %.17g", u);
    } else if (strcmp(shape, "integer") == 0) {
        len += snprintf(line + len, 96 - (size_t)len, " %lld",
                        (long long)(next_random(rs) % 2000001) - 1000000);
    }
    line[len++] = '\n';
    return len;
}

/* Write the shape file of about megabytes * 10^6 bytes: the lines built in memory first,
 * so that the size line can give their count. */
static int write_shape(const char *shape, const char *path, long long megabytes,
                       long long seed)
{
    size_t cap = (size_t)megabytes * 1000000u, len = 0;
    char *body = malloc(cap + 96), line[96];
    uint64_t rs = (uint64_t)seed, nnz = 0;
    int snap = strcmp(shape, "snap") == 0;
    if (!body) {
        fprintf(stderr, "gen_mtx_file: out of memory\n");
        return 1;
    }
    while (len < cap) {
        int n = shape_line(shape, &rs, line);
        memcpy(body + len, line, (size_t)n);
        len += (size_t)n;
        nnz++;
    }
    FILE *f = fopen(path, "w");
    int rc = f == NULL;
    if (f && snap) {
        fprintf(f, "# generated by gen_mtx_file --shape snap seed %lld\n# Edges: %llu\n", seed,
                (unsigned long long)nnz);
    } else if (f) {
        const char *field = strcmp(shape, "pattern") == 0 ? "pattern"
                            : strcmp(shape, "integer") == 0 ? "integer" : "real";
        uint64_t n = strcmp(shape, "ids8") == 0 ? 99999999u : (uint64_t)1 << 20;
        fprintf(f, "%%%%MatrixMarket matrix coordinate %s general\n%% generated by gen_mtx_file "
                "--shape %s seed %lld\n%llu %llu %llu\n", field, shape, seed,
                (unsigned long long)n, (unsigned long long)n, (unsigned long long)nnz);
    }
    if (f && fwrite(body, 1, len, f) != len) rc = 1;
    if (f && fclose(f) != 0) rc = 1;
    free(body);
    if (rc) {
        fprintf(stderr, "gen_mtx_file: %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("path: %s\nshape: %s\nseed: %lld\nnnz: %llu\nbytes: %zu\n", path, shape, seed,
           (unsigned long long)nnz, len);
    return 0;
}

static int known_shape(const char *s)
{
    static const char *shapes[] = {"real17", "real16", "ids8", "pattern", "integer", "snap"};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        if (strcmp(s, shapes[k]) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *kind = "kronecker", *path = NULL, *shape = NULL;
    long long seed = 1, min_edgefactor = 16, megabytes = -1;
    int positional = 0, bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        int has_value = i + 1 < argc;
        if (strcmp(argv[i], "--kind") == 0 && has_value) {
            kind = argv[++i];
        } else if (strcmp(argv[i], "--shape") == 0 && has_value) {
            shape = argv[++i];
            bad = !known_shape(shape);
        } else if (strcmp(argv[i], "--seed") == 0 && has_value) {
            bad = parse_int(argv[++i], 0, INT64_MAX, &seed);
        } else if (strcmp(argv[i], "--edgefactor") == 0 && has_value) {
            bad = parse_int(argv[++i], 1, 1 << 20, &min_edgefactor);
        } else if (argv[i][0] != '-' && positional == 0) {
            path = argv[i];
            positional = 1;
        } else if (argv[i][0] != '-' && positional == 1) {
            bad = parse_int(argv[i], 1, 1 << 20, &megabytes);
            positional = 2;
        } else {
            bad = 1;
        }
    }
    int kronecker = strcmp(kind, "kronecker") == 0;
    if (bad || positional != 2 || (!kronecker && strcmp(kind, "uniform") != 0)) {
        usage();
        return 1;
    }
    if (shape) return write_shape(shape, path, megabytes, seed);

    int scale, edgefactor;
    choose_size((double)megabytes * 1e6, (int)min_edgefactor, &scale, &edgefactor);
    double t0 = now_seconds();
    sp_coo_t *coo = NULL;
    sp_status_t st = kronecker
                         ? sp_gen_kronecker(scale, edgefactor, (uint64_t)seed, SP_R_64F, &coo)
                         : sp_gen_uniform(scale, edgefactor, (uint64_t)seed, SP_R_64F, &coo);
    double t1 = now_seconds();
    char comment[160];
    snprintf(comment, sizeof comment, "generated by gen_mtx_file: %s scale %d edgefactor %d "
             "seed %lld", kind, scale, edgefactor, seed);
    sp_mtx_write_options_t options = {SP_MTX_FIELD_REAL, 0, comment, 0};
    if (st == SP_STATUS_SUCCESS) st = sp_mtx_write(path, coo, &options);
    double t2 = now_seconds();
    if (st != SP_STATUS_SUCCESS) {
        fprintf(stderr, "gen_mtx_file: %s: %s\n", sp_status_string(st), sp_last_error());
        sp_coo_free(coo);
        return 1;
    }
    struct stat sb;
    long long bytes = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
    printf("path: %s\nkind: %s\nscale: %d\nedgefactor: %d\nseed: %lld\n", path, kind, scale,
           edgefactor, seed);
    printf("rows: %lld\nnnz: %lld\nbytes: %lld\n", (long long)coo->nrows,
           (long long)coo->nnz, bytes);
    printf("generate seconds: %.3f\nwrite seconds: %.3f\n", t1 - t0, t2 - t1);
    sp_coo_free(coo);
    return 0;
}
