/* spbench's shared pieces: parsing, timing, the SpMV measurement, printing and JSON.
 * Byte model for every format: the compulsory traffic of CSR (BENCHMARKING.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spbench_util.h"

#define BYTE_MODEL "csr-compulsory"
#define GPU_BUILD_REPS 3

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
    if (ends_with(base, ".el") || ends_with(base, ".wel") || ends_with(base, ".txt") ||
        ends_with(base, ".tsv") || ends_with(base, ".snap"))
        return "snap";
    /* Standard input: Matrix Market unless --format says otherwise (zcat x.mtx.gz | spbench -). */
    if (!strcmp(path, "-")) return "mtx";
    return NULL; /* no known extension (/dev/null, a pipe): the caller asks for --format */
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

/* Loads on a terminal: files over 64 MB are announced at once; once a load has run for a
 * second, the loader's progress callback (sb_progress_report) rewrites one line on stderr
 * with the share of the file parsed, MB/s and the time left, at most every 100 ms. */
static struct {
    int on, shown;
    const char *path;
    double t0, last;
} g_progress;

void sb_progress_start(const char *path)
{
    int64_t bytes = sb_file_size(path);
    g_progress.on = isatty(STDERR_FILENO);
    g_progress.shown = g_progress.on && bytes > (64 << 20);
    g_progress.path = path;
    g_progress.t0 = g_progress.last = sb_now();
    if (g_progress.shown) fprintf(stderr, "loading %s (%.0f MB)...", path, bytes / 1e6);
}

void sb_progress_report(void *user, int64_t bytes_done, int64_t bytes_total)
{
    (void)user;
    double now = sb_now(), s = now - g_progress.t0;
    if (!g_progress.on || s < 1.0 || bytes_total <= 0) return;
    if (bytes_done < bytes_total && now - g_progress.last < 0.1) return;
    g_progress.last = now;
    double rate = bytes_done / s, left = rate > 0 ? (bytes_total - bytes_done) / rate : 0;
    fprintf(stderr, "\r\033[Kloading %s: %.0f%% of %.0f MB, %.0f MB/s, %.0f s left",
            g_progress.path, 100.0 * bytes_done / bytes_total, bytes_total / 1e6, rate / 1e6,
            left);
    g_progress.shown = 1;
}

void sb_progress_end(void)
{
    if (g_progress.shown)
        fprintf(stderr, "\r\033[Kloading %s: done in %.1f s\n", g_progress.path,
                sb_now() - g_progress.t0);
    g_progress.on = g_progress.shown = 0;
}

void sb_suite_status(const char *suite, int i, int n, const char *input)
{
    if (!isatty(STDERR_FILENO)) return;
    fprintf(stderr, "[%s %d/%d, %d left after this] %s\n", suite, i + 1, n, n - i - 1, input);
}

int64_t sb_peak_rss_bytes(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (int64_t)ru.ru_maxrss * 1024 : -1;
}

/* The process's resident bytes now and its peak (VmRSS, VmHWM of /proc/self/status), -1
 * where unknown. */
static void rss_status(int64_t *now, int64_t *hwm)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    *now = *hwm = -1;
    while (f && fgets(line, sizeof line, f)) {
        long long kb;
        if (sscanf(line, "VmRSS: %lld kB", &kb) == 1) *now = (int64_t)kb * 1024;
        if (sscanf(line, "VmHWM: %lld kB", &kb) == 1) *hwm = (int64_t)kb * 1024;
    }
    if (f) fclose(f);
}

/* SPBENCH_STAGE_PEAKS=1: each stage's own peak, the kernel's high-water mark reset after
 * every line (/proc/self/clear_refs "5"); this also resets what getrusage and time -v
 * report, so it is for measuring stages only, never with a whole-run peak. */
void sb_stage(const char *what)
{
    static double t0 = -1;
    static int per_stage = -1;
    int64_t now, hwm;
    if (t0 < 0) t0 = sb_now();
    if (per_stage < 0) per_stage = getenv("SPBENCH_STAGE_PEAKS") && atoi(getenv("SPBENCH_STAGE_PEAKS"));
    rss_status(&now, &hwm);
    if (per_stage) {
        FILE *f = fopen("/proc/self/clear_refs", "w");
        fprintf(stderr, "progress: %-40s %8.2f s  rss_bytes %lld  stage_peak_bytes %lld\n", what,
                sb_now() - t0, (long long)now, (long long)hwm);
        if (f) {
            fputs("5", f);
            fclose(f);
        }
    } else {
        fprintf(stderr, "progress: %-40s %8.2f s  rss_bytes %lld  peak_rss_bytes %lld\n", what,
                sb_now() - t0, (long long)now, (long long)sb_peak_rss_bytes());
    }
    fflush(stderr);
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

int sb_vectors_init(sb_vectors_t *v, const sp_coo_t *coo, int with_reference,
                    const sb_exec_t *ex)
{
    size_t vs = sp_value_size(coo->value_type);
    uint64_t seed = 12345;
    memset(v, 0, sizeof *v);
    v->coo = coo;
    v->x = malloc((size_t)(coo->ncols + 1) * vs);
    v->y = calloc((size_t)coo->nrows + 1, vs);
    if (!v->x || !v->y) goto fail;
    for (int64_t j = 0; j < coo->ncols; j++) {
        double r = 2.0 * (double)(sb_splitmix(&seed) >> 11) * 0x1.0p-53 - 1.0;
        if (coo->value_type == SP_R_32F) ((float *)v->x)[j] = (float)r;
        else ((double *)v->x)[j] = r;
    }
    if (ex->gpu) {
        v->d_x = sb_gpu_upload(ex->gpu, v->x, (size_t)coo->ncols * vs);
        v->d_y = sb_gpu_upload(ex->gpu, v->y, (size_t)(coo->nrows + 1) * vs);
        if (!v->d_x || !v->d_y) goto fail;
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
    sb_vectors_free(v, ex);
    return -1;
}

void sb_vectors_free(sb_vectors_t *v, const sb_exec_t *ex)
{
    if (ex->gpu) {
        sb_gpu_free(ex->gpu, v->d_x);
        sb_gpu_free(ex->gpu, v->d_y);
    }
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

static double sorted_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Build f from scratch as a solver pays it: on the host once; on the GPU the median of a
 * few builds (released before each; CSR from the sorted COO, the others from CSR). */
sp_status_t sb_time_build(const sb_exec_t *ex, sp_matrix_t *A, sp_format_t f, double *ms)
{
    double t[GPU_BUILD_REPS];
    int reps = ex->gpu && f != SP_FORMAT_COO ? GPU_BUILD_REPS : 1;
    sp_status_t st = SP_STATUS_SUCCESS;
    for (int i = 0; i < reps && st == SP_STATUS_SUCCESS; i++) {
        if (f == SP_FORMAT_CSR)
            for (int g = SP_FORMAT_CSR; g < SP_FORMAT_COUNT; g++)
                sp_matrix_release(ex->ctx, A, (sp_format_t)g);
        else if (f != SP_FORMAT_COO)
            sp_matrix_release(ex->ctx, A, f);
        double t0 = sb_now();
        st = sp_matrix_build(ex->ctx, A, f);
        if (st == SP_STATUS_SUCCESS) st = sp_context_synchronize(ex->ctx);
        t[i] = 1e3 * (sb_now() - t0);
    }
    if (st == SP_STATUS_SUCCESS) *ms = sorted_median(t, reps);
    return st;
}

/* One sample: on the GPU `calls` back-to-back libsp calls between CUDA events, *ms the
 * time per call and *host_us the host's time per call inside sp_spmv (the calls only
 * queue work, so a figure near *ms says the host bounds the call rate); on the host one
 * call by the wall clock. */
static sp_status_t timed_spmv(const sb_exec_t *ex, sp_matrix_t *A, const sb_format_row_t *row,
                              const sb_vectors_t *v, int calls, double *ms, double *host_us)
{
    static const double one_d = 1.0, zero_d = 0.0;
    static const float one_f = 1.0f, zero_f = 0.0f;
    int is_float = v->coo->value_type == SP_R_32F;
    const void *alpha = is_float ? (const void *)&one_f : (const void *)&one_d;
    const void *beta = is_float ? (const void *)&zero_f : (const void *)&zero_d;
    const void *x = ex->gpu ? v->d_x : v->x;
    void *y = ex->gpu ? v->d_y : v->y;
    sp_status_t st = SP_STATUS_SUCCESS;
    if (ex->gpu) {
        sb_gpu_timer_begin(ex->gpu);
        double t0 = sb_now();
        for (int i = 0; i < calls && st == SP_STATUS_SUCCESS; i++)
            st = sp_spmv(ex->ctx, row->format, row->alg, alpha, A, x, beta, y);
        *host_us = 1e6 * (sb_now() - t0) / calls;
        double t = sb_gpu_timer_end(ex->gpu);
        *ms = t / calls;
        return st == SP_STATUS_SUCCESS && t < 0 ? SP_STATUS_DEVICE_ERROR : st;
    }
    double t0 = sb_now();
    st = sp_spmv(ex->ctx, row->format, row->alg, alpha, A, x, beta, y);
    if (st == SP_STATUS_SUCCESS) st = sp_context_synchronize(ex->ctx);
    *ms = 1e3 * (sb_now() - t0);
    *host_us = 0;
    return st;
}

/* Calls per sample: one on the host; on the GPU enough that a sample holds about
 * SB_SAMPLE_ENTRIES entries' work, at most SB_MAX_CALLS (sb_time_spmv then caps them by
 * the time of one call, SB_SAMPLE_MS). */
static int calls_per_sample(const sb_exec_t *ex, int64_t nnz)
{
    double calls = SB_SAMPLE_ENTRIES / (double)(nnz > 0 ? nnz : 1);
    if (!ex->gpu || calls < 1) return 1;
    return calls > SB_MAX_CALLS ? SB_MAX_CALLS : (int)calls;
}

/* Each timed libsp sample is followed at once by one sample of each baseline, so that a
 * ratio holds when the machine drifts (BENCHMARKING.md). A baseline takes libsp's calls a
 * sample unless that would make its sample longer than SB_SAMPLE_MS (then fewer, at least
 * one), and once it has spent SB_ROW_MS on the row it is sampled no more past
 * SB_BASELINE_MIN_SAMPLES: a baseline hundreds of times slower than libsp (cuSPARSE's
 * sliced ELL on a matrix with dense rows: 259 ms a call on an H100) no longer costs minutes a
 * row. Its median is over the samples it has. */
sp_status_t sb_time_spmv(const sb_exec_t *ex, sp_matrix_t *A, int reps, const sb_vectors_t *v,
                         sb_format_row_t *row)
{
    const int cap = reps; /* t holds cap samples of libsp, the host and each baseline */
    double *t = malloc((size_t)cap * (2 + SB_BASELINE_COUNT) * sizeof *t), ms, us;
    double *tb[SB_BASELINE_COUNT], *th = t + (size_t)cap;
    int has[SB_BASELINE_COUNT], nb[SB_BASELINE_COUNT] = {0}, bcalls[SB_BASELINE_COUNT];
    int failed[SB_BASELINE_COUNT] = {0};
    double spent[SB_BASELINE_COUNT] = {0};
    int calls = calls_per_sample(ex, v->coo->nnz);
    sp_status_t st = SP_STATUS_SUCCESS;
    if (!t) return SP_STATUS_ALLOC_FAILED;
    /* how long one call takes: the second of two (the first may make the plan) */
    for (int i = 0; i < 2 && st == SP_STATUS_SUCCESS; i++)
        st = timed_spmv(ex, A, row, v, 1, &ms, &us);
    if (st == SP_STATUS_SUCCESS && ex->gpu && ms > 0) {
        if (calls * ms > SB_SAMPLE_MS) calls = ms >= SB_SAMPLE_MS ? 1 : (int)(SB_SAMPLE_MS / ms);
        if (reps > SB_MIN_REPS && reps * calls * ms > SB_ROW_MS) {
            int fit = (int)(SB_ROW_MS / (calls * ms));
            reps = fit < SB_MIN_REPS ? SB_MIN_REPS : fit;
        }
    }
    for (int b = 0; b < SB_BASELINE_COUNT; b++) {
        tb[b] = t + (size_t)cap * (size_t)(2 + b);
        has[b] = ex->cus && sb_cusparse_has(ex->cus, (sb_baseline_t)b);
        bcalls[b] = calls;
        if (has[b] && st == SP_STATUS_SUCCESS) { /* one call, its length (after a first) */
            double one = sb_cusparse_spmv(ex->gpu, ex->cus, (sb_baseline_t)b, 1);
            if (one >= 0) one = sb_cusparse_spmv(ex->gpu, ex->cus, (sb_baseline_t)b, 1);
            if (one > 0 && calls * one > SB_SAMPLE_MS)
                bcalls[b] = one >= SB_SAMPLE_MS ? 1 : (int)(SB_SAMPLE_MS / one);
        }
    }
    for (int i = 0; i < SB_WARMUP_CALLS && st == SP_STATUS_SUCCESS; i++) {
        st = timed_spmv(ex, A, row, v, calls, &ms, &us);
        for (int b = 0; b < SB_BASELINE_COUNT; b++)
            if (has[b] && (bcalls[b] == calls || i == 0))
                sb_cusparse_spmv(ex->gpu, ex->cus, (sb_baseline_t)b, bcalls[b]);
    }
    for (int i = 0; i < reps && st == SP_STATUS_SUCCESS; i++) {
        st = timed_spmv(ex, A, row, v, calls, &t[i], &th[i]);
        for (int b = 0; b < SB_BASELINE_COUNT; b++) {
            if (!has[b] || failed[b] ||
                (nb[b] >= SB_BASELINE_MIN_SAMPLES && spent[b] >= SB_ROW_MS))
                continue;
            ms = sb_cusparse_spmv(ex->gpu, ex->cus, (sb_baseline_t)b, bcalls[b]);
            if (ms < 0) {
                failed[b] = 1;
                continue;
            }
            tb[b][nb[b]++] = ms;
            spent[b] += ms * bcalls[b];
        }
    }
    if (st == SP_STATUS_SUCCESS) {
        row->reps = reps;
        row->calls = calls;
        row->host_us = sorted_median(th, reps);
        row->ms_median = sorted_median(t, reps);
        row->ms_min = t[0];
        row->ms_max = t[reps - 1];
        for (int b = 0; b < SB_BASELINE_COUNT; b++) {
            row->baseline_ms[b] = !failed[b] && nb[b] > 0 ? sorted_median(tb[b], nb[b]) : 0;
            row->speedup[b] = row->baseline_ms[b] > 0 && row->ms_median > 0
                                  ? row->baseline_ms[b] / row->ms_median : 0;
        }
    }
    free(t);
    return st;
}

static double max_rel_err(const sb_vectors_t *v, sp_value_type_t type)
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

double sb_check_spmv(const sb_exec_t *ex, sp_matrix_t *A, const sb_vectors_t *v,
                     const sb_format_row_t *row)
{
    size_t bytes = (size_t)v->coo->nrows * sp_value_size(v->coo->value_type);
    double ms, us;
    memset(v->y, 0xff, bytes);
    if (ex->gpu && sb_gpu_fill_nan(ex->gpu, v->d_y, bytes)) return INFINITY;
    if (timed_spmv(ex, A, row, v, 1, &ms, &us) != SP_STATUS_SUCCESS) return INFINITY;
    if (ex->gpu && sb_gpu_download(ex->gpu, v->y, v->d_y, bytes)) return INFINITY;
    return max_rel_err(v, v->coo->value_type);
}

/* Streaming read of a buffer far larger than the caches: the bandwidth ceiling of the
 * host executor in this run (one core, as the reference executor uses). */
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

/* ---- executor ------------------------------------------------------------------------ */

static int open_cuda(sb_exec_t *ex)
{
    char why[256] = "";
    if (sb_gpu_open(&ex->gpu, why, sizeof why)) {
        snprintf(ex->executor, sizeof ex->executor, "host reference (no GPU: %s)",
                 why[0] ? why : "built without CUDA");
        return -1;
    }
    sp_context_options_t co = {.device = 0, .stream = sb_gpu_stream(ex->gpu)};
    if (sp_context_create(SP_DEVICE_CUDA, &co, &ex->ctx) != SP_STATUS_SUCCESS) {
        snprintf(ex->executor, sizeof ex->executor, "host reference (no GPU: %s)",
                 sp_last_error());
        sb_gpu_close(ex->gpu);
        ex->gpu = NULL;
        return -1;
    }
    sp_context_device_info(ex->ctx, &ex->device);
    snprintf(ex->executor, sizeof ex->executor,
             "GPU %s (CUDA context, CUDA events; baselines cuSPARSE CSR_ALG1 and SELL in the "
             "same run, interleaved)", ex->device.name);
    ex->read_bw_gbs = sb_gpu_read_bandwidth(ex->gpu);
    return 0;
}

int sb_exec_open(sb_exec_t *ex)
{
    memset(ex, 0, sizeof *ex);
    if (open_cuda(ex) == 0) return 0;
    if (sp_context_create(SP_DEVICE_HOST, NULL, &ex->ctx) != SP_STATUS_SUCCESS) return -1;
    sp_context_device_info(ex->ctx, &ex->device);
    ex->read_bw_gbs = sb_read_bandwidth();
    return 0;
}

void sb_exec_close(sb_exec_t *ex)
{
    sp_context_destroy(ex->ctx);
    sb_gpu_close(ex->gpu);
    memset(ex, 0, sizeof *ex);
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

static const char *symmetry_name(sp_symmetry_t s)
{
    switch (s) {
    case SP_SYMMETRY_SYMMETRIC: return "symmetric";
    case SP_SYMMETRY_SKEW: return "skew-symmetric";
    case SP_SYMMETRY_HERMITIAN: return "hermitian";
    default: return "general";
    }
}

/* ELL's value table (sp_format_view_t.ell): a row whose ELL (HYB's ELL part) has one reads
 * a code and a column a slot, padding included, the table, the tail's (HYB's overflow's)
 * entries, x and y; its GB/s and share of the read bandwidth use these bytes
 * (TABLE_MODEL), never the CSR model's, which would overstate them. */
#define TABLE_MODEL "table-read"
void sb_value_table_bytes(const sp_matrix_info_t *info, sb_format_row_t *row)
{
    double vs = (double)sp_value_size(info->value_type);
    double xy = (double)info->nrows * vs + (double)info->ncols * vs;
    row->value_table = 0;
    row->table_bytes = 0;
    if (row->chosen == SP_FORMAT_ELL && info->ell_value_table > 0) {
        row->value_table = info->ell_value_table;
        row->table_bytes = (double)info->nrows * (double)info->ell_width * 5 +
                           info->ell_value_table * vs + (double)info->ell_tail_nnz * (8 + vs) + xy;
    }
    if (row->chosen == SP_FORMAT_HYB && info->hyb_value_table > 0) {
        row->value_table = info->hyb_value_table;
        row->table_bytes = (double)info->nrows * (double)info->hyb_ell_width * 5 +
                           info->hyb_value_table * vs + (double)info->hyb_coo_nnz * (8 + vs) + xy;
    }
}

static double model_bytes(const sb_report_t *r)
{
    double vs = (double)sp_value_size(r->type);
    double pointer = r->info.offset_bits == 64 ? 8 : 4; /* --offsets 64: int64_t row pointers */
    return (double)r->info.nnz * (vs + 4) + (double)(r->info.nrows + 1) * pointer +
           (double)r->info.nrows * vs + (double)r->info.ncols * vs;
}

/* Whether the csr-compulsory working set fits the GPU's L2 (or the host's LLC): the
 * figures of an input that fits are cache figures, not memory figures. */
static void print_working_set(sb_report_t *r)
{
    const char *cache = r->on_gpu ? "GPU L2" : "last-level cache";
    r->working_set_bytes = model_bytes(r);
    r->cache_bytes = r->on_gpu ? (double)r->device.l2_bytes
                               : (double)sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (r->cache_bytes <= 0) {
        printf("working_set: %.2f MB\n", r->working_set_bytes / 1e6);
        return;
    }
    int fits = r->working_set_bytes <= r->cache_bytes;
    printf("working_set: %.2f MB (%s the %.1f MB %s: %s)\n", r->working_set_bytes / 1e6,
           fits ? "fits in" : "exceeds", r->cache_bytes / 1e6, cache,
           fits ? (r->on_gpu ? "L2 figures, not DRAM" : "cache figures, not memory")
                : (r->on_gpu ? "DRAM figures" : "memory figures"));
}

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
    printf("offset_bits: %d (CSR/CSC pointers)\n", i->offset_bits);
    printf("symmetry: %s (as stored)\n", r->symmetry);
    printf("value_type: %s\n", coo->value_type == SP_R_32F   ? "float"
                               : coo->value_type == SP_R_64F ? "double"
                                                             : "pattern");
    printf("read_bandwidth: %.2f GB/s (streaming read, %s, this run)\n", r->read_bw_gbs,
           r->on_gpu ? "1 GiB on the GPU" : "512 MB on one host core");
    printf("byte_model: %s = nnz*(value+4) + (rows+1)*4 + rows*value + cols*value\n",
           BYTE_MODEL);
    print_working_set(r);
    if (r->on_gpu)
        printf("gpu_upload_sort_ms: %.3f (host COO to device, sort and merge on the GPU)\n",
               r->gpu_upload_ms);
    for (int b = 0; b < SB_BASELINE_COUNT; b++)
        if (r->baseline_name[b][0])
            printf("baseline: %s%s%s\n", r->baseline_name[b],
               r->baseline_note[b][0] ? " " : "", r->baseline_note[b]);
}

static void print_speedups(const sb_format_row_t *row, const sb_report_t *r)
{
    for (int b = 0; b < SB_BASELINE_COUNT; b++) {
        if (!r->baseline_name[b][0]) continue;
        if (row->speedup[b] > 0)
            printf("  x_%s: %.3f (%.4f ms)", r->baseline_name[b], row->speedup[b],
                   row->baseline_ms[b]);
        else
            printf("  x_%s: n/a", r->baseline_name[b]);
    }
}

void sb_print_format_row(sb_format_row_t *row, const sb_report_t *r, int check)
{
    const sb_format_row_t *csr = NULL;
    for (int i = 0; i < r->nrows_done; i++)
        if (r->rows[i].format == SP_FORMAT_CSR && r->rows[i].alg == SP_SPMV_ALG_DEFAULT &&
            r->rows[i].status == SP_STATUS_SUCCESS)
            csr = &r->rows[i];
    row->max_rel_err = check ? row->max_rel_err : -1.0;
    if (row->status != SP_STATUS_SUCCESS) {
        printf("format: %-12s  refused: %s: %s\n", row->label, sp_status_string(row->status),
               row->message);
        return;
    }
    double s = row->ms_median / 1e3;
    row->gflops = s > 0 ? 2.0 * (double)r->info.nnz / s / 1e9 : 0;
    row->gbs = s > 0 ? (row->value_table > 0 ? row->table_bytes : model_bytes(r)) / s / 1e9 : 0;
    row->pct_read_bw = r->read_bw_gbs > 0 ? 100.0 * row->gbs / r->read_bw_gbs : 0;
    row->spmv_equivalents = csr && csr->ms_median > 0 ? row->build_ms / csr->ms_median : 0;
    if (!r->on_gpu && csr) { /* the host's baseline: libsp's own CSR in this run */
        row->baseline_ms[0] = csr->ms_median;
        row->speedup[0] = row->ms_median > 0 ? csr->ms_median / row->ms_median : 0;
    }
    printf("format: %-12s", row->label);
    print_speedups(row, r);
    printf("  spmv_ms: %.4f (min %.4f max %.4f, %d samples of %d calls)", row->ms_median,
           row->ms_min, row->ms_max, row->reps, row->calls);
    if (r->on_gpu) printf("  host_us_per_call: %.2f", row->host_us);
    printf("  GFLOP/s: %.3f  GB/s: %.2f (%s, %.0f%% of read bw)  build_ms: %.3f  "
           "build_spmv_equiv: %.1f  bytes: %lld  prepare_ms: %.3f",
           row->gflops, row->gbs, row->value_table > 0 ? TABLE_MODEL : BYTE_MODEL,
           row->pct_read_bw, row->build_ms, row->spmv_equivalents, (long long)row->bytes,
           row->prepare_ms);
    if (row->value_table > 0) printf("  value_table: %d", row->value_table);
    if (check) printf("  max_rel_err: %.3g", row->max_rel_err);
    printf("\n");
}

const sb_format_row_t *sb_best_row(const sb_report_t *r, sp_format_t f)
{
    const sb_format_row_t *best = NULL;
    for (int i = 0; i < r->nrows_done; i++) {
        const sb_format_row_t *w = &r->rows[i];
        int wanted = f == SP_FORMAT_COUNT ? w->format != SP_FORMAT_AUTO : w->format == f;
        if (w->status != SP_STATUS_SUCCESS || !wanted) continue;
        if (!best || w->ms_median < best->ms_median) best = w;
    }
    return best;
}

/* ---- JSON -------------------------------------------------------------------------- */

void sb_json_string(FILE *f, const char *s)
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

/* JSON has no infinity: an unbounded error, or one not checked (< 0), is written null. */
static void json_number(FILE *f, double x)
{
    if (isfinite(x) && x >= 0) fprintf(f, "%.6g", x);
    else fprintf(f, "null");
}

static void json_row(FILE *f, const sb_format_row_t *w, const sb_report_t *r)
{
    fprintf(f, "{\"label\": ");
    sb_json_string(f, w->label);
    fprintf(f, ", \"format\": \"%s\", \"ran_as\": \"%s\", \"alg\": %d, \"ran_alg\": %d, "
               "\"status\": \"%s\"",
            sp_format_name(w->format), sp_format_name(w->chosen), (int)w->alg, (int)w->ran_alg,
            sp_status_string(w->status));
    if (w->status != SP_STATUS_SUCCESS) {
        fprintf(f, ", \"message\": ");
        sb_json_string(f, w->message);
        fprintf(f, "}");
        return;
    }
    fprintf(f, ", \"build_ms\": %.6g, \"prepare_ms\": %.6g, \"bytes\": %lld, "
               "\"spmv_ms_median\": %.6g, "
               "\"spmv_ms_min\": %.6g, \"spmv_ms_max\": %.6g, \"samples\": %d, "
               "\"calls_per_sample\": %d, \"host_us_per_call\": %.4g, "
               "\"gflops\": %.6g, \"gbs\": %.6g, \"pct_read_bw\": %.4g, "
               "\"build_spmv_equivalents\": %.4g, \"max_rel_err\": ",
            w->build_ms, w->prepare_ms, (long long)w->bytes, w->ms_median, w->ms_min,
            w->ms_max, w->reps,
            w->calls, w->host_us, w->gflops, w->gbs, w->pct_read_bw, w->spmv_equivalents);
    json_number(f, w->max_rel_err);
    fprintf(f, ", \"value_table\": %d, \"byte_model\": \"%s\"", w->value_table,
            w->value_table > 0 ? TABLE_MODEL : BYTE_MODEL);
    for (int b = 0; b < SB_BASELINE_COUNT; b++) {
        if (!r->baseline_name[b][0]) continue;
        fprintf(f, ", \"%s_ms\": %.6g, \"speedup_%s\": ", r->baseline_name[b],
                w->baseline_ms[b], r->baseline_name[b]);
        if (w->speedup[b] > 0) fprintf(f, "%.6g", w->speedup[b]);
        else fprintf(f, "null");
    }
    fprintf(f, "}");
}

void sb_json_report(FILE *f, const sb_report_t *r)
{
    fprintf(f, "{\n  \"input\": ");
    sb_json_string(f, r->input);
    fprintf(f, ",\n  \"reader\": ");
    sb_json_string(f, r->reader);
    fprintf(f, ",\n  \"executor\": ");
    sb_json_string(f, r->executor);
    fprintf(f, ",\n  \"on_gpu\": %s, \"device\": ", r->on_gpu ? "true" : "false");
    sb_json_string(f, r->device.name);
    fprintf(f, ",\n  \"rows\": %lld, \"cols\": %lld, \"nnz\": %lld, \"nnz_merged\": %lld,\n",
            (long long)r->nrows, (long long)r->ncols, (long long)r->nnz,
            (long long)r->info.nnz);
    fprintf(f, "  \"row_length\": {\"min\": %lld, \"mean\": %.6g, \"max\": %lld, "
               "\"stddev\": %.6g},\n  \"empty_rows\": %lld, \"symmetry\": \"%s\",\n",
            (long long)r->info.row_min, r->info.row_mean, (long long)r->info.row_max,
            r->info.row_stddev, (long long)r->info.empty_rows, r->symmetry);
    fprintf(f, "  \"load_seconds\": %.6g, \"file_bytes\": %lld, \"read_bandwidth_gbs\": %.4g,\n",
            r->load_seconds, (long long)r->file_bytes, r->read_bw_gbs);
    fprintf(f, "  \"working_set_bytes\": %.0f, \"cache_bytes\": %.0f, \"fits_in_cache\": %s,\n",
            r->working_set_bytes, r->cache_bytes,
            r->cache_bytes > 0 && r->working_set_bytes <= r->cache_bytes ? "true" : "false");
    if (r->on_gpu) fprintf(f, "  \"gpu_upload_sort_ms\": %.6g,\n", r->gpu_upload_ms);
    fprintf(f, "  \"baselines\": [");
    for (int b = 0; b < SB_BASELINE_COUNT; b++) {
        fprintf(f, "%s{\"name\": ", b ? ", " : "");
        sb_json_string(f, r->baseline_name[b]);
        fprintf(f, ", \"note\": ");
        sb_json_string(f, r->baseline_note[b]);
        fprintf(f, "}");
    }
    fprintf(f, "],\n  \"byte_model\": \"%s\", \"warmup_calls\": %d,\n  \"formats\": [",
            BYTE_MODEL, SB_WARMUP_CALLS);
    for (int i = 0; i < r->nrows_done; i++) {
        fprintf(f, "%s\n    ", i ? "," : "");
        json_row(f, &r->rows[i], r);
    }
    fprintf(f, "\n  ]");
    if (r->bfs_sources)
        fprintf(f, ",\n  \"bfs\": {\"sources\": %d, \"ms_median\": %.6g, \"teps_hmean\": %.6g, "
                   "\"edges_mean\": %lld, \"valid\": %s, \"gteps_g500_per_call\": %.6g, "
                   "\"gteps_g500_multi\": %.6g, \"gteps_g500_kernel\": %.6g}",
                r->bfs_sources, r->bfs_ms_median, r->bfs_teps_hmean,
                (long long)r->bfs_edges_mean, r->bfs_valid ? "true" : "false", r->bfs_gteps_g500,
                r->bfs_gteps_g500_multi, r->bfs_gteps_g500_kernel);
    if (r->on_gpu && r->peak_device_build >= 0 && r->peak_device_run >= 0)
        fprintf(f, ",\n  \"peak_device_bytes\": {\"build\": %lld, \"run\": %lld}",
                (long long)r->peak_device_build, (long long)r->peak_device_run);
    fprintf(f, "\n}");
}

int sb_write_json(const char *path, const sb_report_t *r)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spbench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    sb_json_report(f, r);
    fprintf(f, "\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "spbench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}
