/* spbench's shared pieces: parsing, timing, the SpMV measurement, printing and JSON.
 * Byte model for every format: the compulsory traffic of CSR (BENCHMARKING.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spbench_util.h"

#define BYTE_MODEL "csr-compulsory"
#define WARMUP_CALLS 10

int sb_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

int sb_parse_int(const char *s, int lo, int hi, int *out)
{
    uint64_t v;
    if (sb_parse_u64(s, &v) || v < (uint64_t)lo || v > (uint64_t)hi) return -1;
    *out = (int)v;
    return 0;
}

int sb_bad_value(const char *option, const char *value)
{
    fprintf(stderr, "spbench: bad value \"%s\" for %s (see --help)\n", value, option);
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

const char *sb_reader_for_path(const char *path)
{
    char base[4096];
    snprintf(base, sizeof base, "%s", path);
    if (ends_with(base, ".gz")) base[strlen(base) - 3] = '\0';
    if (ends_with(base, ".mtx") || ends_with(base, ".mm")) return "mtx";
    if (ends_with(base, ".spcoo")) return "cache";
    if (ends_with(base, ".gr")) return "dimacs";
    if (ends_with(base, ".graph")) return "metis";
    return "snap";
}

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t sb_file_size(const char *path)
{
    struct stat sb;
    return path && stat(path, &sb) == 0 ? (int64_t)sb.st_size : 0;
}

/* Long loads say so on a terminal; the loaders have no callback, so this is a notice. */
static int g_progress;
void sb_progress_start(const char *path)
{
    g_progress = isatty(STDERR_FILENO) && sb_file_size(path) > (64 << 20);
    if (g_progress)
        fprintf(stderr, "loading %s (%.0f MB)...", path, sb_file_size(path) / 1e6);
}
void sb_progress_end(void)
{
    if (g_progress) fprintf(stderr, " done\n");
}

/* ---- SpMV measurement ------------------------------------------------------------- */

uint64_t sb_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double coo_value(const sp_coo_t *a, int64_t k)
{
    if (a->value_type == SP_R_32F) return ((const float *)a->val)[k];
    if (a->value_type == SP_R_64F) return ((const double *)a->val)[k];
    return 1.0;
}

static double vec_get(const void *v, sp_value_type_t t, int64_t i)
{
    return t == SP_R_32F ? ((const float *)v)[i] : ((const double *)v)[i];
}

int sb_vectors_init(sb_vectors_t *v, const sp_coo_t *coo, int with_reference)
{
    size_t vs = sp_value_size(coo->value_type);
    uint64_t seed = 12345;
    memset(v, 0, sizeof *v);
    v->coo = coo;
    v->x = malloc((size_t)(coo->ncols + 1) * vs);
    v->y = malloc((size_t)(coo->nrows + 1) * vs);
    if (!v->x || !v->y) goto fail;
    for (int64_t j = 0; j < coo->ncols; j++) {
        double r = 2.0 * (double)(sb_splitmix(&seed) >> 11) * 0x1.0p-53 - 1.0;
        if (coo->value_type == SP_R_32F) ((float *)v->x)[j] = (float)r;
        else ((double *)v->x)[j] = r;
    }
    if (!with_reference) return 0;
    long double *acc = calloc((size_t)coo->nrows + 1, sizeof *acc);
    v->yref = calloc((size_t)coo->nrows + 1, sizeof *v->yref);
    v->absref = calloc((size_t)coo->nrows + 1, sizeof *v->absref);
    if (!acc || !v->yref || !v->absref) {
        free(acc);
        goto fail;
    }
    for (int64_t k = 0; k < coo->nnz; k++) {
        long double p = (long double)coo_value(coo, k) *
                        (long double)vec_get(v->x, coo->value_type, coo->col[k]);
        acc[coo->row[k]] += p;
        v->absref[coo->row[k]] += fabs((double)p);
    }
    for (int64_t i = 0; i < coo->nrows; i++) v->yref[i] = (double)acc[i];
    free(acc);
    return 0;
fail:
    sb_vectors_free(v);
    return -1;
}

void sb_vectors_free(sb_vectors_t *v)
{
    free(v->x);
    free(v->y);
    free(v->yref);
    free(v->absref);
    memset(v, 0, sizeof *v);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Warm-up, then reps timed calls of y = A x; median, min and max per call. */
sp_status_t sb_time_spmv(sp_context_t *ctx, sp_matrix_t *A, sp_format_t f, int reps,
                         const sb_vectors_t *v, sb_format_row_t *row)
{
    double one_d = 1.0, zero_d = 0.0;
    float one_f = 1.0f, zero_f = 0.0f;
    int is_float = v->coo->value_type == SP_R_32F;
    const void *alpha = is_float ? (const void *)&one_f : (const void *)&one_d;
    const void *beta = is_float ? (const void *)&zero_f : (const void *)&zero_d;
    double *t = malloc((size_t)reps * sizeof *t);
    sp_status_t st = SP_STATUS_SUCCESS;
    if (!t) return SP_STATUS_ALLOC_FAILED;
    for (int i = 0; i < WARMUP_CALLS && st == SP_STATUS_SUCCESS; i++)
        st = sp_spmv(ctx, f, SP_SPMV_ALG_DEFAULT, alpha, A, v->x, beta, v->y);
    for (int i = 0; i < reps && st == SP_STATUS_SUCCESS; i++) {
        double t0 = sb_now();
        st = sp_spmv(ctx, f, SP_SPMV_ALG_DEFAULT, alpha, A, v->x, beta, v->y);
        if (st == SP_STATUS_SUCCESS) st = sp_context_synchronize(ctx);
        t[i] = sb_now() - t0;
    }
    if (st == SP_STATUS_SUCCESS) {
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        row->reps = reps;
        row->ms_min = 1e3 * t[0];
        row->ms_max = 1e3 * t[reps - 1];
        row->ms_median = 1e3 * (reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]));
    }
    free(t);
    return st;
}

double sb_max_rel_err(const sb_vectors_t *v, sp_value_type_t type)
{
    double worst = 0.0;
    for (int64_t i = 0; i < v->coo->nrows; i++) {
        double y = vec_get(v->y, type, i), err = fabs(y - v->yref[i]);
        double scale = v->absref[i] > 0 ? v->absref[i] : 1.0;
        if (isnan(y) != isnan(v->yref[i])) return INFINITY;
        if (err / scale > worst) worst = err / scale;
    }
    return worst;
}

/* Streaming read of a buffer far larger than the caches: the bandwidth ceiling of the
 * executor in this run (host: one core, as the reference executor uses). */
double sb_read_bandwidth(void)
{
    size_t n = (size_t)64 << 20; /* 512 MB of doubles */
    double *a = malloc(n * sizeof *a), best = 0.0;
    if (!a) return 0.0;
    for (size_t i = 0; i < n; i++) a[i] = (double)(i & 7);
    for (int rep = 0; rep < 3; rep++) {
        volatile double sink;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = sb_now();
        for (size_t i = 0; i < n; i += 4) {
            s0 += a[i];
            s1 += a[i + 1];
            s2 += a[i + 2];
            s3 += a[i + 3];
        }
        sink = s0 + s1 + s2 + s3;
        (void)sink;
        double gbs = (double)(n * sizeof *a) / (sb_now() - t0) / 1e9;
        if (gbs > best) best = gbs;
    }
    free(a);
    return best;
}

/* ---- printing --------------------------------------------------------------------- */

void sb_print_load(const sp_coo_t *coo, sb_report_t *r, int load_only)
{
    double mb = r->file_bytes / 1e6, s = r->load_seconds > 0 ? r->load_seconds : 1e-9;
    r->nrows = coo->nrows;
    r->ncols = coo->ncols;
    r->nnz = coo->nnz;
    printf("rows: %lld\ncols: %lld\nnnz: %lld\n", (long long)coo->nrows, (long long)coo->ncols,
           (long long)coo->nnz);
    if (load_only || r->file_bytes) {
        printf("load_seconds: %.6f\n", r->load_seconds);
        if (r->file_bytes) printf("MB/s: %.1f\n", mb / s);
        printf("Mentries/s: %.2f\n", (double)coo->nnz / 1e6 / s);
    } else {
        printf("generate_seconds: %.6f\n", r->load_seconds);
    }
}

sp_context_t *sb_open_gpu(sb_report_t *r)
{
    sp_context_t *gpu = NULL;
    sp_status_t st = sp_context_create(SP_DEVICE_CUDA, NULL, &gpu);
    if (st == SP_STATUS_SUCCESS) {
        sp_device_info_t d;
        sp_context_device_info(gpu, &d);
        snprintf(r->executor, sizeof r->executor,
                 "host reference for SpMV and BFS (GPU %s: format builds timed on it; its SpMV "
                 "and BFS kernels are not in this version)", d.name);
    } else {
        snprintf(r->executor, sizeof r->executor, "host reference (no GPU: %s)",
                 sp_last_error());
    }
    printf("input: %s\nexecutor: %s\n", r->input, r->executor);
    return gpu;
}

/* Build format f on the GPU `reps` times (released in between), median wall time with
 * the stream synchronized: the build as an iterative solver pays it once. CSR is timed
 * from the sorted COO, every other format from the CSR. */
static sp_status_t gpu_build_time(sp_context_t *gpu, sp_matrix_t *G, sp_format_t f, int reps,
                                  double *ms)
{
    double t[16];
    sp_status_t st = SP_STATUS_SUCCESS;
    for (int i = 0; i < reps && st == SP_STATUS_SUCCESS; i++) {
        if (f != SP_FORMAT_CSR) sp_matrix_release(gpu, G, f);
        else for (int g = SP_FORMAT_CSR; g < SP_FORMAT_COUNT; g++) sp_matrix_release(gpu, G, g);
        double t0 = sb_now();
        st = sp_matrix_build(gpu, G, f);
        if (st == SP_STATUS_SUCCESS) st = sp_context_synchronize(gpu);
        t[i] = 1e3 * (sb_now() - t0);
    }
    if (st == SP_STATUS_SUCCESS) {
        qsort(t, (size_t)reps, sizeof t[0], cmp_double);
        *ms = t[reps / 2];
    }
    return st;
}

int sb_gpu_builds(sp_context_t *gpu, const sp_coo_t *coo, sb_report_t *r)
{
    sp_matrix_t *G = NULL;
    sp_matrix_info_t info;
    const int reps = 5;
    double t0 = sb_now();
    if (sp_matrix_create(gpu, coo, NULL, &G) != SP_STATUS_SUCCESS) {
        fprintf(stderr, "spbench: GPU: %s\n", sp_last_error());
        return 1;
    }
    sp_context_synchronize(gpu);
    r->gpu_upload_ms = 1e3 * (sb_now() - t0);
    printf("gpu_upload_sort_ms: %.3f (host COO to device, sort and merge on the GPU)\n",
           r->gpu_upload_ms);
    for (int f = SP_FORMAT_CSR; f < SP_FORMAT_COUNT; f++) {
        r->gpu_status[f] = gpu_build_time(gpu, G, (sp_format_t)f, reps, &r->gpu_build_ms[f]);
        if (r->gpu_status[f] != SP_STATUS_SUCCESS) {
            printf("gpu_build: %-4s  refused: %s: %s\n", sp_format_name((sp_format_t)f),
                   sp_status_string(r->gpu_status[f]), sp_last_error());
            continue;
        }
        sp_matrix_info(G, &info);
        r->gpu_bytes[f] = info.bytes[f];
        printf("gpu_build: %-4s  ms: %.3f (median of %d)  bytes: %lld\n",
               sp_format_name((sp_format_t)f), r->gpu_build_ms[f], reps,
               (long long)r->gpu_bytes[f]);
    }
    r->gpu_done = 1;
    sp_matrix_destroy(G);
    return 0;
}

static const char *symmetry_name(sp_symmetry_t s)
{
    switch (s) {
    case SP_SYMMETRY_SYMMETRIC: return "symmetric";
    case SP_SYMMETRY_SKEW: return "skew-symmetric";
    case SP_SYMMETRY_HERMITIAN: return "hermitian";
    default: return "general";
    }
}

static double model_bytes(const sb_report_t *r);

void sb_print_shape(const sp_coo_t *coo, const sp_matrix_t *A, sb_report_t *r)
{
    sp_matrix_info_t *i = &r->info;
    sb_print_load(coo, r, 0);
    sp_matrix_info(A, i);
    r->type = coo->value_type;
    r->symmetry = symmetry_name(coo->symmetry);
    printf("nnz_merged: %lld (%lld duplicates summed)\n", (long long)i->nnz,
           (long long)i->duplicates_merged);
    printf("row_length: min %lld mean %.2f max %lld stddev %.2f\n", (long long)i->row_min,
           i->row_mean, (long long)i->row_max, i->row_stddev);
    printf("empty_rows: %lld\n", (long long)i->empty_rows);
    printf("symmetry: %s (as stored)\n", r->symmetry);
    printf("value_type: %s\n", coo->value_type == SP_R_32F   ? "float"
                               : coo->value_type == SP_R_64F ? "double"
                                                             : "pattern");
    r->read_bw_gbs = sb_read_bandwidth();
    printf("read_bandwidth: %.2f GB/s (streaming read, this run)\n", r->read_bw_gbs);
    printf("byte_model: %s = nnz*(value+4) + (rows+1)*4 + rows*value + cols*value\n",
           BYTE_MODEL);
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    double ws = model_bytes(r);
    if (llc > 0)
        printf("working_set: %.2f MB (%s the %.1f MB last-level cache: %s)\n", ws / 1e6,
               ws <= (double)llc ? "fits in" : "exceeds", llc / 1e6,
               ws <= (double)llc ? "cache figures, not memory" : "memory figures");
    else
        printf("working_set: %.2f MB\n", ws / 1e6);
}

static double model_bytes(const sb_report_t *r)
{
    double vs = (double)sp_value_size(r->type);
    return (double)r->info.nnz * (vs + 4) + (double)(r->info.nrows + 1) * 4 +
           (double)r->info.nrows * vs + (double)r->info.ncols * vs;
}

void sb_print_format_row(sb_format_row_t *row, const sb_report_t *r, int check)
{
    const sb_format_row_t *csr = NULL;
    for (int i = 0; i < r->nrows_done; i++)
        if (r->rows[i].format == SP_FORMAT_CSR && r->rows[i].status == SP_STATUS_SUCCESS)
            csr = &r->rows[i];
    row->max_rel_err = check ? row->max_rel_err : -1.0;
    if (row->status != SP_STATUS_SUCCESS) {
        printf("format: %-4s  refused: %s: %s\n", sp_format_name(row->format),
               sp_status_string(row->status), row->message);
        return;
    }
    double s = row->ms_median / 1e3;
    row->gflops = s > 0 ? 2.0 * (double)r->info.nnz / s / 1e9 : 0;
    row->gbs = s > 0 ? model_bytes(r) / s / 1e9 : 0;
    row->pct_read_bw = r->read_bw_gbs > 0 ? 100.0 * row->gbs / r->read_bw_gbs : 0;
    row->spmv_equivalents = csr && csr->ms_median > 0 ? row->build_ms / csr->ms_median : 0;
    printf("format: %-4s  build_ms: %.3f  bytes: %lld  spmv_ms: %.4f (min %.4f max %.4f, %d "
           "calls)  GFLOP/s: %.3f  GB/s: %.2f (%s, %.0f%% of read bw)  build_spmv_equiv: %.1f",
           sp_format_name(row->format), row->build_ms, (long long)row->bytes, row->ms_median,
           row->ms_min, row->ms_max, row->reps, row->gflops, row->gbs, BYTE_MODEL,
           row->pct_read_bw, row->spmv_equivalents);
    if (check) printf("  max_rel_err: %.3g", row->max_rel_err);
    printf("  vs_cusparse: n/a (host executor)\n");
}

/* A JSON string literal: quotes, backslashes and control bytes escaped. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

int sb_write_json(const char *path, const sb_report_t *r)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spbench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "{\n  \"input\": ");
    json_string(f, r->input);
    fprintf(f, ",\n  \"reader\": ");
    json_string(f, r->reader);
    fprintf(f, ",\n  \"executor\": ");
    json_string(f, r->executor);
    fprintf(f, ",\n");
    fprintf(f, "  \"rows\": %lld, \"cols\": %lld, \"nnz\": %lld, \"nnz_merged\": %lld,\n",
            (long long)r->nrows, (long long)r->ncols, (long long)r->nnz,
            (long long)r->info.nnz);
    fprintf(f, "  \"row_length\": {\"min\": %lld, \"mean\": %.6g, \"max\": %lld, "
               "\"stddev\": %.6g},\n  \"empty_rows\": %lld, \"symmetry\": \"%s\",\n",
            (long long)r->info.row_min, r->info.row_mean, (long long)r->info.row_max,
            r->info.row_stddev, (long long)r->info.empty_rows, r->symmetry);
    fprintf(f, "  \"load_seconds\": %.6g, \"file_bytes\": %lld, \"read_bandwidth_gbs\": %.4g,\n",
            r->load_seconds, (long long)r->file_bytes, r->read_bw_gbs);
    fprintf(f, "  \"byte_model\": \"%s\",\n  \"formats\": [", BYTE_MODEL);
    for (int i = 0; i < r->nrows_done; i++) {
        const sb_format_row_t *w = &r->rows[i];
        fprintf(f, "%s\n    {\"format\": \"%s\", \"status\": \"%s\"", i ? "," : "",
                sp_format_name(w->format), sp_status_string(w->status));
        if (w->status == SP_STATUS_SUCCESS)
            fprintf(f, ", \"build_ms\": %.6g, \"bytes\": %lld, \"spmv_ms_median\": %.6g, "
                       "\"spmv_ms_min\": %.6g, \"spmv_ms_max\": %.6g, \"calls\": %d, "
                       "\"gflops\": %.6g, \"gbs\": %.6g, \"pct_read_bw\": %.4g, "
                       "\"build_spmv_equivalents\": %.4g, \"max_rel_err\": %.6g",
                    w->build_ms, (long long)w->bytes, w->ms_median, w->ms_min, w->ms_max,
                    w->reps, w->gflops, w->gbs, w->pct_read_bw, w->spmv_equivalents,
                    w->max_rel_err);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]");
    if (r->gpu_done) {
        fprintf(f, ",\n  \"gpu_upload_sort_ms\": %.6g,\n  \"gpu_builds\": [", r->gpu_upload_ms);
        for (int g = SP_FORMAT_CSR; g < SP_FORMAT_COUNT; g++)
            fprintf(f, "%s\n    {\"format\": \"%s\", \"status\": \"%s\", \"ms\": %.6g, "
                       "\"bytes\": %lld}", g > SP_FORMAT_CSR ? "," : "",
                    sp_format_name((sp_format_t)g), sp_status_string(r->gpu_status[g]),
                    r->gpu_build_ms[g], (long long)r->gpu_bytes[g]);
        fprintf(f, "\n  ]");
    }
    if (r->bfs_sources)
        fprintf(f, ",\n  \"bfs\": {\"sources\": %d, \"ms_median\": %.6g, \"teps_hmean\": %.6g, "
                   "\"edges_mean\": %lld, \"valid\": %s}",
                r->bfs_sources, r->bfs_ms_median, r->bfs_teps_hmean,
                (long long)r->bfs_edges_mean, r->bfs_valid ? "true" : "false");
    fprintf(f, "\n}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "spbench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}
