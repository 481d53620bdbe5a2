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
/* The wider set (--suite-wide, issue 23): shapes nobody tuned on at 8-70M entries in double
 * (the first block), five of them in float (the second), and at 10k-2M entries in both (the
 * third). The files of datasets/ follow, patterns and edge lists with unit values. */
static const char *const WIDE_GENERATED[] = {
    "powerlaw:2000000:1.5:8",     "powerlaw:2000000:2.1:16",     "powerlaw:2000000:3:16",
    "denselines:2000000:4:8",     "rect:8000000:500000:4",       "rect:250000:8000000:64",
    "banded:2000000:64",          "blocks:1500000:3:6",          "blocks:600000:6:9",
    "circuit:4000000:16",
    "powerlaw:2000000:2.1:16,f32", "denselines:2000000:4:8,f32", "banded:2000000:64,f32",
    "blocks:600000:6:9,f32",       "circuit:4000000:16,f32",
    "powerlaw:5000:2.1:20",       "denselines:50000:2:8",        "rect:200000:20000:8",
    "banded:100000:16",           "blocks:30000:3:9",            "circuit:100000:4",
    "powerlaw:5000:2.1:20,f32",   "circuit:100000:4,f32",
};
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

static int add_dataset_dir(sb_suite_input_t **list, int *n, const char *sub, int every);

/* A file of datasets/ the set takes: a real .mtx, or with `every` any .mtx (patterns get
 * unit values) and the graphs' edge lists (.txt, .gr, .graph). */
static int takes_file(const char *dir, const char *name, int every)
{
    char path[1024];
    size_t len = strlen(name);
    int mtx = len >= 5 && !strcmp(name + len - 4, ".mtx");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mtx) return every || is_real_matrix(path);
    return every && ((len >= 5 && !strcmp(name + len - 4, ".txt")) ||
                     (len >= 4 && !strcmp(name + len - 3, ".gr")) ||
                     (len >= 7 && !strcmp(name + len - 6, ".graph")));
}

/* Appends the files of datasets/mtx (and with `every`, datasets/graphs) the set takes, in
 * name order; -1 on allocation failure. */
static int add_datasets(sb_suite_input_t **list, int *n, int every)
{
    for (int sub = 0; sub < (every ? 2 : 1); sub++)
        if (add_dataset_dir(list, n, sub ? "graphs" : "mtx", every)) return -1;
    return 0;
}

static int add_dataset_dir(sb_suite_input_t **list, int *n, const char *sub, int every)
{
    char dir[512];
    struct dirent *e;
    int first = *n;
    snprintf(dir, sizeof dir, "%s/%s", SP_DATASETS_DIR, sub);
    DIR *d = opendir(dir);
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        sb_suite_input_t in = {"", ""};
        if (!takes_file(dir, e->d_name, every)) continue;
        snprintf(in.path, sizeof in.path, "%s/%s", dir, e->d_name);
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

int sb_suite_inputs(sb_suite_set_t set, sb_suite_input_t **list, int *n)
{
    int quick = set == SB_SUITE_QUICK;
    const char *const *gen = quick ? QUICK_GENERATED
                             : set == SB_SUITE_WIDE ? WIDE_GENERATED
                                                    : FULL_GENERATED;
    int ngen = quick ? COUNT(QUICK_GENERATED)
               : set == SB_SUITE_WIDE ? COUNT(WIDE_GENERATED)
                                      : COUNT(FULL_GENERATED);
    int nfiles = quick ? COUNT(QUICK_FILES) : 0;
    *n = 0;
    *list = calloc((size_t)(ngen + nfiles), sizeof **list);
    if (!*list) return -1;
    for (int i = 0; i < ngen; i++) snprintf((*list)[(*n)++].gen, sizeof (*list)->gen, "%s", gen[i]);
    for (int i = 0; i < nfiles; i++)
        snprintf((*list)[(*n)++].path, sizeof (*list)->path, "%s/mtx/%s", SP_DATASETS_DIR,
                 QUICK_FILES[i]);
    if (!quick && add_datasets(list, n, set == SB_SUITE_WIDE)) {
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

/* ---- the shapes of sp_gen_shape ----------------------------------------------------- */

int sb_gen_shape_spec(const char *spec, uint64_t seed, sp_value_type_t type, sp_coo_t **coo,
                      sp_status_t *st)
{
    static const struct {
        const char *name;
        sp_gen_kind_t kind;
        double third; /* the optional third field's default */
    } kinds[] = {
        {"powerlaw", SP_GEN_POWERLAW, 16},   {"denselines", SP_GEN_DENSE_LINES, 8},
        {"rect", SP_GEN_RECT, 16},           {"banded", SP_GEN_BANDED, 0},
        {"blocks", SP_GEN_BLOCKS, 9},        {"circuit", SP_GEN_CIRCUIT, 0},
    };
    char kind[32] = "";
    double a = 0, b = 0, c = 0;
    int fields = sscanf(spec, "%31[a-z]:%lf:%lf:%lf", kind, &a, &b, &c);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        sp_gen_shape_t g = {0};
        if (strcmp(kind, kinds[i].name)) continue;
        if (fields < 3) {
            fprintf(stderr, "spbench: --gen %s: expected %s:N:PARAM[:PARAM]\n", spec, kind);
            *st = SP_STATUS_INVALID_ARGUMENT;
            return 0;
        }
        if (fields < 4) c = kinds[i].third;
        g.kind = kinds[i].kind;
        g.nrows = g.ncols = (int64_t)a;
        g.seed = seed;
        switch (g.kind) {
        case SP_GEN_POWERLAW: g.exponent = b, g.mean = c; break;
        case SP_GEN_DENSE_LINES: g.dense = (int64_t)b, g.mean = c; break;
        case SP_GEN_RECT: g.ncols = (int64_t)b, g.mean = c; break;
        case SP_GEN_BANDED: g.band = (int64_t)b; break;
        case SP_GEN_BLOCKS: g.block = (int64_t)b, g.mean = c; break;
        case SP_GEN_CIRCUIT: g.dense = (int64_t)b; break;
        }
        *st = sp_gen_shape(&g, type, coo);
        return 0;
    }
    return 1;
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

/* Inputs of at least this many entries are "large" (BENCHMARKING.md: below it a ratio
 * measures call overhead). */
#define SB_LARGE_NNZ 1000000

/* Which inputs a geomean takes: all, the large ones, the small ones. */
enum { SB_ALL, SB_LARGE, SB_SMALL };

static int in_class(const sb_report_t *r, int cls)
{
    return cls == SB_ALL || (cls == SB_LARGE) == (r->info.nnz >= SB_LARGE_NNZ);
}

/* The slowest successful non-AUTO row's time over the best's (1: one row; 0: none). */
static double worst_over_best(const sb_report_t *r, const char **label)
{
    const sb_format_row_t *b = sb_best_row(r, SP_FORMAT_COUNT), *w = NULL;
    for (int i = 0; i < r->nrows_done; i++) {
        const sb_format_row_t *x = &r->rows[i];
        if (x->status != SP_STATUS_SUCCESS || x->format == SP_FORMAT_AUTO) continue;
        /* the formats' default rows: the algorithm rows are variants a user picks */
        if (x->alg != SP_SPMV_ALG_DEFAULT) continue;
        if (!w || x->ms_median > w->ms_median) w = x;
    }
    *label = w ? w->label : "";
    return b && w && b->ms_median > 0 ? w->ms_median / b->ms_median : 0;
}

/* libsp's CSC row against cuSPARSE's SpMV on a CSC descriptor (0: either is missing). */
static double csc_speedup(const sb_report_t *r)
{
    const sb_format_row_t *c = sb_best_row(r, SP_FORMAT_CSC);
    return c ? c->speedup[SB_CUSPARSE_CSC] : 0;
}

/* AUTO's time over the best row's (1: AUTO is the best). */
static double auto_over_best(const sb_report_t *r)
{
    const sb_format_row_t *a = sb_best_row(r, SP_FORMAT_AUTO), *b = sb_best_row(r, SP_FORMAT_COUNT);
    return a && b && b->ms_median > 0 ? a->ms_median / b->ms_median : 0;
}

/* Geometric mean of AUTO's speedup over the matrices of class cls that have one. */
static double auto_geomean_of(const sb_report_t *reports, int n, int cls, int *counted)
{
    double log_sum = 0;
    *counted = 0;
    for (int i = 0; i < n; i++)
        if (in_class(&reports[i], cls) && auto_speedup(&reports[i]) > 0) {
            log_sum += log(auto_speedup(&reports[i]));
            ++*counted;
        }
    return *counted ? exp(log_sum / *counted) : 0;
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
    printf("%-30s %11s %-10s %8s %-14s %8s %7s %9s %8s %-10s %8s\n", "matrix", "nnz", "auto",
           "auto_x", "best", "best_x", "%bw", "auto/best", "worst/b", "worst", "csc_xcsc");
    for (int i = 0; i < n; i++) {
        const sb_report_t *r = &reports[i];
        const sb_format_row_t *a = sb_best_row(r, SP_FORMAT_AUTO);
        const sb_format_row_t *b = sb_best_row(r, SP_FORMAT_COUNT);
        const char *worst = "";
        double wb = worst_over_best(r, &worst);
        printf("%-30s %11lld %-10s", sb_short_name(r), (long long)r->info.nnz,
               a ? sp_format_name(a->chosen) : "failed");
        print_ratio(auto_speedup(r));
        printf(" %-14s", b ? b->label : "failed");
        print_ratio(b ? b->speedup[SB_CUSPARSE_CSR] : 0);
        printf(" %6.1f%%", b ? b->pct_read_bw : 0);
        printf("  ");
        print_ratio(auto_over_best(r));
        print_ratio(wb);
        printf(" %-10s", worst[0] ? worst : "-");
        print_ratio(csc_speedup(r));
        printf("\n");
    }
    {
        int nl = 0, ns = 0;
        double gl = auto_geomean_of(reports, n, SB_LARGE, &nl);
        double gs = auto_geomean_of(reports, n, SB_SMALL, &ns);
        double worst_auto = 0, worst_fmt = 0, csc_min = 0;
        int i_auto = -1, i_fmt = -1, i_csc = -1; /* the inputs where they are */
        const char *fmt = "", *label = "";
        for (int i = 0; i < n; i++) {
            double x = csc_speedup(&reports[i]);
            if (auto_over_best(&reports[i]) > worst_auto)
                worst_auto = auto_over_best(&reports[i]), i_auto = i;
            if (worst_over_best(&reports[i], &label) > worst_fmt)
                worst_fmt = worst_over_best(&reports[i], &label), fmt = label, i_fmt = i;
            if (x > 0 && (csc_min == 0 || x < csc_min)) csc_min = x, i_csc = i;
        }
        if (nl) printf("auto_speedup_geomean_large: %.3f (nnz >= %d, %d matrices)\n", gl,
                       SB_LARGE_NNZ, nl);
        else printf("auto_speedup_geomean_large: n/a\n");
        if (ns) printf("auto_speedup_geomean_small: %.3f (nnz < %d, %d matrices)\n", gs,
                       SB_LARGE_NNZ, ns);
        else printf("auto_speedup_geomean_small: n/a\n");
        printf("auto_over_best_max: %.3f (%s; 1 = AUTO the best row everywhere)\n", worst_auto,
               i_auto >= 0 ? sb_short_name(&reports[i_auto]) : "-");
        if (i_csc >= 0)
            printf("csc_over_cusparse_csc_min: %.3f (%s; libsp CSC against cuSPARSE SpMV on a "
                   "CSC descriptor)\n", csc_min, sb_short_name(&reports[i_csc]));
        else
            printf("csc_over_cusparse_csc_min: n/a (no cuSPARSE CSC baseline)\n");
        printf("worst_format_over_best_max: %.3f (%s on %s; default rows of each format)\n",
               worst_fmt, i_fmt >= 0 ? fmt : "-",
               i_fmt >= 0 ? sb_short_name(&reports[i_fmt]) : "-");
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
