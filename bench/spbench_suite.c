/* spbench --suite: the benchmark set (stencils, Kronecker and uniform graphs, a matrix
 * whose x exceeds any L2, the bundled real matrices), the random-column generator, and
 * the summary: one row per matrix and the geometric mean of AUTO's speedup. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spbench_util.h"

#ifndef SP_DATASETS_DIR
#define SP_DATASETS_DIR "datasets"
#endif

/* Generated inputs of the full set: 4M x 64M random columns gives a 512 MB x (double),
 * far past the 50-60 MB L2 of an H100/H200, so x is read from DRAM at random. */
static const char *const FULL_GENERATED[] = {
    "poisson3d:160", "poisson3d:224", "poisson3d27:160", "kron:22", "kron:23",
    "uniform:22",    "randcol:4194304:67108864",         "poisson3d:40",
};
static const char *const QUICK_GENERATED[] = {"poisson3d:16", "kron:10", "randcol:4096:1048576"};
static const char *const QUICK_FILES[] = {"1138_bus.mtx", "west0067_jumbled.mtx"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Real-valued coordinate files only (pattern graphs have no values worth an SpMV; complex
 * and dense-array files are not what the suite measures). */
static int is_real_matrix(const char *path)
{
    char banner[256] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (!fgets(banner, sizeof banner, f)) banner[0] = '\0';
    fclose(f);
    return strstr(banner, "coordinate") && (strstr(banner, " real") || strstr(banner, " integer"));
}

static int cmp_input(const void *a, const void *b)
{
    return strcmp(((const sb_suite_input_t *)a)->path, ((const sb_suite_input_t *)b)->path);
}

/* Appends every real .mtx of datasets/mtx, in name order; -1 on allocation failure. */
static int add_datasets(sb_suite_input_t **list, int *n)
{
    char dir[512];
    struct dirent *e;
    int first = *n;
    snprintf(dir, sizeof dir, "%s/mtx", SP_DATASETS_DIR);
    DIR *d = opendir(dir);
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        sb_suite_input_t in = {"", ""};
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx")) continue;
        snprintf(in.path, sizeof in.path, "%s/%s", dir, e->d_name);
        if (!is_real_matrix(in.path)) continue;
        sb_suite_input_t *grown = realloc(*list, (size_t)(*n + 1) * sizeof *grown);
        if (!grown) {
            closedir(d);
            return -1;
        }
        *list = grown;
        (*list)[(*n)++] = in;
    }
    closedir(d);
    qsort(*list + first, (size_t)(*n - first), sizeof **list, cmp_input);
    return 0;
}

int sb_suite_inputs(int quick, sb_suite_input_t **list, int *n)
{
    const char *const *gen = quick ? QUICK_GENERATED : FULL_GENERATED;
    int ngen = quick ? COUNT(QUICK_GENERATED) : COUNT(FULL_GENERATED);
    int nfiles = quick ? COUNT(QUICK_FILES) : 0;
    *n = 0;
    *list = calloc((size_t)(ngen + nfiles), sizeof **list);
    if (!*list) return -1;
    for (int i = 0; i < ngen; i++) snprintf((*list)[(*n)++].gen, sizeof (*list)->gen, "%s", gen[i]);
    for (int i = 0; i < nfiles; i++)
        snprintf((*list)[(*n)++].path, sizeof (*list)->path, "%s/mtx/%s", SP_DATASETS_DIR,
                 QUICK_FILES[i]);
    if (!quick && add_datasets(list, n)) {
        free(*list);
        *list = NULL;
        return -1;
    }
    return 0;
}

/* ---- the random-column matrix ------------------------------------------------------ */

sp_status_t sb_gen_random_columns(int64_t nrows, int64_t ncols, int per_row, uint64_t seed,
                                  sp_value_type_t type, sp_coo_t **out)
{
    sp_coo_t *coo = NULL;
    if (nrows <= 0 || ncols <= 0 || nrows > INT32_MAX || ncols > INT32_MAX || per_row <= 0) {
        fprintf(stderr, "spbench: randcol: rows and cols must be in 1..%d\n", INT32_MAX);
        return SP_STATUS_INVALID_ARGUMENT;
    }
    sp_status_t st = sp_coo_create(nrows, ncols, nrows * per_row, type, &coo);
    if (st != SP_STATUS_SUCCESS) return st;
    for (int64_t i = 0, k = 0; i < nrows; i++)
        for (int j = 0; j < per_row; j++, k++) {
            double v = 2.0 * (double)(sb_splitmix(&seed) >> 11) * 0x1.0p-53 - 1.0;
            coo->row[k] = (int32_t)i;
            coo->col[k] = (int32_t)(sb_splitmix(&seed) % (uint64_t)ncols);
            if (type == SP_R_32F) ((float *)coo->val)[k] = (float)v;
            else if (type == SP_R_64F) ((double *)coo->val)[k] = v;
        }
    coo->nnz = nrows * per_row;
    *out = coo;
    return SP_STATUS_SUCCESS;
}

/* ---- summary ---------------------------------------------------------------------- */

const char *sb_short_name(const sb_report_t *r)
{
    const char *slash = strrchr(r->input, '/');
    return slash ? slash + 1 : r->input;
}

/* AUTO's speedup over the CSR baseline, or 0 when there is none. */
static double auto_speedup(const sb_report_t *r)
{
    const sb_format_row_t *a = sb_best_row(r, SP_FORMAT_AUTO);
    return a ? a->speedup[SB_CUSPARSE_CSR] : 0;
}

/* Geometric mean of AUTO's speedup over the matrices that have one (0 if none). */
static double auto_geomean(const sb_report_t *reports, int n, int *counted)
{
    double log_sum = 0;
    *counted = 0;
    for (int i = 0; i < n; i++)
        if (auto_speedup(&reports[i]) > 0) {
            log_sum += log(auto_speedup(&reports[i]));
            ++*counted;
        }
    return *counted ? exp(log_sum / *counted) : 0;
}

static const char *baseline_of(const sb_report_t *reports, int n)
{
    for (int i = 0; i < n; i++)
        if (reports[i].baseline_name[0]) return reports[i].baseline_name[0];
    return "";
}

static void print_ratio(double x)
{
    if (x > 0) printf(" %8.3f", x);
    else printf(" %8s", "n/a");
}

void sb_print_summary(const sb_report_t *reports, int n)
{
    int counted;
    double geomean = auto_geomean(reports, n, &counted);
    const char *base = baseline_of(reports, n);
    printf("\n== summary (speedup = %s median / libsp median, same run; %% of read bw of the "
           "best row)\n", base);
    printf("%-26s %11s %-10s %8s %-14s %8s %7s\n", "matrix", "nnz", "auto", "auto_x", "best",
           "best_x", "%bw");
    for (int i = 0; i < n; i++) {
        const sb_report_t *r = &reports[i];
        const sb_format_row_t *a = sb_best_row(r, SP_FORMAT_AUTO);
        const sb_format_row_t *b = sb_best_row(r, SP_FORMAT_COUNT);
        printf("%-26s %11lld %-10s", sb_short_name(r), (long long)r->info.nnz,
               a ? sp_format_name(a->chosen) : "failed");
        print_ratio(auto_speedup(r));
        printf(" %-14s", b ? b->label : "failed");
        print_ratio(b ? b->speedup[SB_CUSPARSE_CSR] : 0);
        printf(" %6.1f%%\n", b ? b->pct_read_bw : 0);
    }
    if (counted)
        printf("auto_speedup_geomean: %.3f (over %s, %d of %d matrices)\n", geomean, base,
               counted, n);
    else
        printf("auto_speedup_geomean: n/a\n");
}

int sb_write_suite_json(const char *path, const sb_report_t *reports, int n)
{
    int counted;
    double geomean = auto_geomean(reports, n, &counted);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spbench: cannot write %s\n", path);
        return -1;
    }
    fprintf(f, "{\"suite\": [\n");
    for (int i = 0; i < n; i++) {
        sb_json_report(f, &reports[i]);
        fprintf(f, "%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "],\n\"summary\": [");
    for (int i = 0; i < n; i++) {
        const sb_format_row_t *a = sb_best_row(&reports[i], SP_FORMAT_AUTO);
        const sb_format_row_t *b = sb_best_row(&reports[i], SP_FORMAT_COUNT);
        fprintf(f, "%s\n  {\"matrix\": ", i ? "," : "");
        sb_json_string(f, sb_short_name(&reports[i]));
        fprintf(f, ", \"nnz\": %lld, \"auto\": \"%s\", \"auto_speedup\": %.6g, \"best\": ",
                (long long)reports[i].info.nnz, a ? sp_format_name(a->chosen) : "failed",
                auto_speedup(&reports[i]));
        sb_json_string(f, b ? b->label : "failed");
        fprintf(f, ", \"best_speedup\": %.6g, \"best_pct_read_bw\": %.4g}",
                b ? b->speedup[SB_CUSPARSE_CSR] : 0, b ? b->pct_read_bw : 0);
    }
    fprintf(f, "\n],\n\"auto_speedup_geomean\": ");
    if (counted) fprintf(f, "%.6g", geomean);
    else fprintf(f, "null");
    fprintf(f, ",\n\"baseline\": ");
    sb_json_string(f, baseline_of(reports, n));
    fprintf(f, "}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "spbench: cannot write %s\n", path);
        return -1;
    }
    return 0;
}
