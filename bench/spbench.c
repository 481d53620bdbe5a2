/* spbench: load or generate a matrix or graph, report its shape, build every format and
 * time SpMV (and BFS) on the best executor present, over the public API only.
 * Output: fixed "Label: value" lines (gapbs style), optionally a JSON file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sp.h"
#include "policy.h"     /* sp__bfs_beamer_rule_set, sp__spmv_auto (the AUTO row's algorithm) */
#include "sp_formats.h" /* sp__ell_value_table_set (--no-value-table) */
#include "spbench_util.h"
#include "spbench_bfs.h"
#include "spbench_dist.h"

#ifndef SP_DATASETS_DIR
#define SP_DATASETS_DIR "datasets"
#endif
#define DEFAULT_DATASET "mtx/BentPipe2D100.mtx"

typedef struct options {
    const char *path, *gen, *reader, *json, *formats, *plot;
    sp_value_type_t type;
    int type_given; /* --type was given (else --bfs alone generates graphs as patterns) */
    int threads, load_only, cache, check, bfs, nsources, reps, reps_given, undirected,
        complex_real;
    int suite; /* 0: one input; 1: --suite; 2: --suite-quick; 3: --suite-wide */
    int64_t source;
    uint64_t seed;
    long long long_row_bound; /* --long-row-bound (0: the policy's) */
    int offset_bits;          /* --offsets 32|64 (0: chosen from nnz) */
    const char *bfs_variant, *bfs_loop; /* --bfs-variant, --bfs-loop (NULL: all) */
    int bfs_suite;
    int bfs_levels; /* --bfs-levels: each row's per-level table of its first source */
    int bfs_validate; /* --bfs-validate K: only the first K searches of a row (-1: all) */
    int sweep[32], nsweep; /* --threads T1,T2,...: with --load-only, one load per count */
} options_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spbench [options] [FILE]\n"
            "  FILE                 .mtx/.mtx.gz Matrix Market; .el .wel .txt edge list;\n"
            "                       .gr DIMACS; .graph METIS; .spcoo binary cache;\n"
            "                       - standard input (Matrix Market unless --format)\n"
            "                       (no FILE and no --gen: the bundled %s)\n"
            "  --format NAME        reader: mtx, snap, dimacs, metis, cache\n"
            "  --gen SPEC           kron:SCALE[:EF] uniform:SCALE[:EF] poisson2d:N\n"
            "                       poisson3d:N poisson3d27:N grid2d:N\n"
            "                       randcol:ROWS:COLS (16 entries a row, random columns)\n"
            "                       sp_gen_shape: powerlaw:N:EXPONENT[:MEAN]\n"
            "                       denselines:N:DENSE[:MEAN] rect:ROWS:COLS[:MEAN]\n"
            "                       banded:N:BAND blocks:N:B[:BLOCKS_A_ROW]\n"
            "                       circuit:N:LONG_ROWS; any spec may end in ,f32 or\n"
            "                       ,f64 to fix its value type over --type; with --bfs\n"
            "                       alone (no --formats, --type or suffix) kron and\n"
            "                       uniform graphs are generated without values\n"
            "  --seed S             generator seed (default 1)\n"
            "  --long-row-bound N   rows longer go to the tail of ELL/JDS/SELL (0: the\n"
            "                       policy's; -1: no tail, the layout before issue 23)\n"
            "  --offsets 32|64      CSR/CSC offset width of the matrices made (default:\n"
            "                       64 from 2^31 entries); on a GPU 64 runs CSR and COO\n"
            "                       below 2^31 entries, other rows print their refusal\n"
            "                       (issue 20)\n"
            "  --type float|double  value type (default double)\n"
            "  --undirected         edge lists: add the reverse of every edge\n"
            "  --complex-real       complex Matrix Market files: keep the real part\n"
            "  --threads T[,T2...]  loader threads (default: all cores); a list with\n"
            "                       --load-only loads once per count, a line each\n"
            "  --load-only          load, print rows/cols/nnz and throughput, stop\n"
            "  --cache              write FILE.spcoo (binary cache) next to FILE\n"
            "  --formats LIST       comma-separated subset of coo,csr,csc,ell,hyb,jds,sell\n"
            "  --reps N             timed SpMV samples per format (default 50; --suite: 200,\n"
            "                       scaled down to 50 for the biggest inputs); on a GPU a\n"
            "                       sample is 1e8/nnz back-to-back calls (1..100,\n"
            "                       fewer when a call takes long: about 5 ms a sample)\n"
            "  --check              compare every format's SpMV with the reference\n"
            "  --bfs-beamer-rule    direction-optimized BFS switches by Beamer's rule as\n"
            "                       published, the pull's scan of unvisited vertices not\n"
            "                       priced (for comparison; kernels/bfs/bfs_direction_rule.h)\n"
            "  --no-value-table     build ELL (and HYB's ELL part) without the value table\n"
            "                       (a byte a slot for matrices of <= 256 distinct values;\n"
            "                       rows that use one say value_table: N)\n"
            "  --bfs                run BFS from --source V or --sources K (default 64):\n"
            "                       every variant x level loop on a GPU, validated\n"
            "                       (the SpMV table too only when --formats is given)\n"
            "  --bfs-variant LIST   only these (comma-separated): push, pull, edge, frontier,\n"
            "                       privatized, direction_opt, auto\n"
            "  --bfs-loop LIST      only these: host, single_block, persistent,\n"
            "                       persistent_coop, graph, auto\n"
            "  --bfs-validate K     validate only the first K searches of each row (default:\n"
            "                       all; the others count Graph500 edges as half the\n"
            "                       directed ones, exact on symmetric simple graphs)\n"
            "  --bfs-levels         after each row: direction, frontier size and GPU time\n"
            "                       of every level from the first source (host and graph\n"
            "                       loops time levels)\n"
            "  --bfs-suite          the BFS benchmark graphs (Kronecker, uniform, grid,\n"
            "                       datasets/), a row per graph x variant x loop\n"
            "  --json FILE          write every figure as JSON\n"
            "                       (on a GPU also peak_device_bytes: the context\n"
            "                       allocator's peak in the build, matrix create and\n"
            "                       the CSR, and in the run, SpMV table or BFS, also\n"
            "                       printed as peak_device_bytes: build N run M)\n"
            "  --suite              the benchmark set (BENCHMARKING.md), then a summary\n"
            "  --suite-quick        a small subset of it (seconds on the host)\n"
            "  --suite-wide         the wider set nobody tuned on: the shapes below in\n"
            "                       double and float, and every file of datasets/\n"
            "                       (complex ones by their real part)\n"
            "  --plot FILE.svg      bars of each format's speedup over the baseline\n"
            "With a GPU, SpMV runs on it (CUDA events) beside cuSPARSE in the same run;\n"
            "without one, on the host reference, against its own CSR.\n",
            DEFAULT_DATASET);
}

/* "T" or "T1,T2,...": the first count in o->threads, all of them in o->sweep. */
static int parse_thread_list(const char *list, options_t *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    o->nsweep = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->nsweep == (int)(sizeof o->sweep / sizeof o->sweep[0])) return 1;
        if (sb_parse_int(t, 1, 4096, &o->sweep[o->nsweep++])) return 1;
    }
    if (o->nsweep == 0) return 1;
    o->threads = o->sweep[0];
    return 0;
}

static int parse_args(int argc, char **argv, options_t *o)
{
    *o = (options_t){.type = SP_R_64F, .reps = 50, .nsources = 64, .source = -1, .seed = 1,
                     .bfs_validate = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                   \
    do {                                                               \
        if (!next) {                                                   \
            fprintf(stderr, "spbench: %s needs a value\n", a);         \
            return -1;                                                 \
        }                                                              \
        i++;                                                           \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--no-value-table")) {
            sp__ell_value_table_set(0);
        } else if (!strcmp(a, "--bfs-beamer-rule")) {
            sp__bfs_beamer_rule_set(1);
        } else if (!strcmp(a, "--format")) {
            NEED_VALUE();
            o->reader = next;
        } else if (!strcmp(a, "--gen")) {
            NEED_VALUE();
            o->gen = next;
        } else if (!strcmp(a, "--long-row-bound")) {
            NEED_VALUE();
            char *end = NULL;
            o->long_row_bound = strtoll(next, &end, 10);
            if (!end || *end) return sb_bad_value(a, next);
        } else if (!strcmp(a, "--offsets")) {
            NEED_VALUE();
            if (strcmp(next, "32") && strcmp(next, "64")) return sb_bad_value(a, next);
            o->offset_bits = atoi(next);
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE();
            if (sb_parse_u64(next, &o->seed)) return sb_bad_value(a, next);
        } else if (!strcmp(a, "--type")) {
            NEED_VALUE();
            if (!strcmp(next, "float")) o->type = SP_R_32F;
            else if (!strcmp(next, "double")) o->type = SP_R_64F;
            else return sb_bad_value(a, next);
            o->type_given = 1;
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            if (parse_thread_list(next, o)) return sb_bad_value(a, next);
        } else if (!strcmp(a, "--reps")) {
            NEED_VALUE();
            if (sb_parse_int(next, 1, 1000000, &o->reps)) return sb_bad_value(a, next);
            o->reps_given = 1;
        } else if (!strcmp(a, "--sources")) {
            NEED_VALUE();
            if (sb_parse_int(next, 1, 1 << 20, &o->nsources)) return sb_bad_value(a, next);
            o->bfs = 1;
        } else if (!strcmp(a, "--source")) {
            uint64_t v;
            NEED_VALUE();
            if (sb_parse_u64(next, &v) || v > INT32_MAX) return sb_bad_value(a, next);
            o->source = (int64_t)v;
            o->bfs = 1;
        } else if (!strcmp(a, "--formats")) {
            NEED_VALUE();
            o->formats = next;
        } else if (!strcmp(a, "--json")) {
            NEED_VALUE();
            o->json = next;
        } else if (!strcmp(a, "--plot")) {
            NEED_VALUE();
            o->plot = next;
        } else if (!strcmp(a, "--suite")) {
            o->suite = 1;
        } else if (!strcmp(a, "--suite-quick")) {
            o->suite = 2;
        } else if (!strcmp(a, "--suite-wide")) {
            o->suite = 3;
            o->complex_real = 1; /* every file of datasets/: a complex one by its real part */
        } else if (!strcmp(a, "--load-only")) {
            o->load_only = 1;
        } else if (!strcmp(a, "--cache")) {
            o->cache = 1;
        } else if (!strcmp(a, "--check")) {
            o->check = 1;
        } else if (!strcmp(a, "--bfs")) {
            o->bfs = 1;
        } else if (!strcmp(a, "--bfs-variant")) {
            NEED_VALUE();
            if (!sb_bfs_known_variant(next)) return sb_bad_value(a, next);
            o->bfs_variant = next;
            o->bfs = 1;
        } else if (!strcmp(a, "--bfs-loop")) {
            NEED_VALUE();
            if (!sb_bfs_known_loop(next)) return sb_bad_value(a, next);
            o->bfs_loop = next;
            o->bfs = 1;
        } else if (!strcmp(a, "--bfs-suite")) {
            o->bfs_suite = 1;
        } else if (!strcmp(a, "--bfs-validate")) {
            NEED_VALUE();
            if (sb_parse_int(next, 0, 1 << 20, &o->bfs_validate)) return sb_bad_value(a, next);
            o->bfs = 1;
        } else if (!strcmp(a, "--bfs-levels")) {
            o->bfs_levels = 1;
            o->bfs = 1;
        } else if (!strcmp(a, "--undirected")) {
            o->undirected = 1;
        } else if (!strcmp(a, "--complex-real")) {
            o->complex_real = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "spbench: unknown option %s (see --help)\n", a);
            return -1;
        } else if (o->path) {
            fprintf(stderr, "spbench: more than one input file (%s, %s)\n", o->path, a);
            return -1;
        } else {
            o->path = a;
        }
#undef NEED_VALUE
    }
    if (o->path && o->gen) {
        fprintf(stderr, "spbench: give a FILE or --gen, not both\n");
        return -1;
    }
    if (o->suite && (o->path || o->gen || o->load_only || o->bfs || o->cache)) {
        fprintf(stderr, "spbench: --suite takes no FILE, --gen, --load-only, --bfs or --cache\n");
        return -1;
    }
    return 0;
}

/* The bundled dataset: next to the working directory first, then the source tree. */
static const char *default_dataset(void)
{
    static char path[4096];
    snprintf(path, sizeof path, "datasets/%s", DEFAULT_DATASET);
    if (access(path, R_OK) == 0) return path;
    snprintf(path, sizeof path, "%s/%s", SP_DATASETS_DIR, DEFAULT_DATASET);
    return path;
}

/* ---- loading ------------------------------------------------------------------------ */

static sp_status_t load_input(const options_t *o, const char *path, sb_report_t *r,
                              sp_coo_t **coo)
{
    const char *reader = o->reader ? o->reader : sb_reader_for_path(path);
    sp_status_t st;
    if (!reader) {
        fprintf(stderr, "spbench: %s: no known extension: give --format mtx, snap, dimacs, "
                "metis or cache\n", path);
        return SP_STATUS_INVALID_ARGUMENT;
    }
    double t0 = sb_now();
    sb_progress_start(path);
    if (!strcmp(reader, "mtx")) {
        sp_mtx_options_t mo = {.nthreads = o->threads,
                               .complex_mode = o->complex_real ? SP_COMPLEX_REAL_PART
                                                               : SP_COMPLEX_REFUSE,
                               .progress = sb_progress_report};
        st = sp_mtx_read(path, o->type, &mo, coo);
    } else if (!strcmp(reader, "cache")) {
        st = sp_coo_load(path, coo);
    } else {
        sp_edgelist_options_t eo = {.nthreads = o->threads, .undirected = o->undirected,
                                    .progress = sb_progress_report};
        if (!strcmp(reader, "snap")) eo.format = SP_EDGELIST_SNAP;
        else if (!strcmp(reader, "dimacs")) eo.format = SP_EDGELIST_DIMACS;
        else if (!strcmp(reader, "metis")) eo.format = SP_EDGELIST_METIS;
        else {
            fprintf(stderr, "spbench: unknown reader \"%s\" (mtx, snap, dimacs, metis, cache)\n",
                    reader);
            return SP_STATUS_INVALID_ARGUMENT;
        }
        st = sp_edgelist_read(path, o->type, &eo, coo, NULL);
    }
    sb_progress_end();
    r->load_seconds = sb_now() - t0;
    r->reader = reader;
    r->file_bytes = sb_file_size(path);
    return st;
}

static sp_status_t generate_input(const options_t *o, const char *gen, sb_report_t *r,
                                  sp_coo_t **coo)
{
    char kind[32] = "", spec[128];
    long long a = 0, b = 0;
    sp_status_t st = SP_STATUS_INVALID_ARGUMENT;
    sp_value_type_t type = o->type;
    double t0 = sb_now();
    char *comma = NULL;
    int n = 0;
    snprintf(spec, sizeof spec, "%s", gen);
    if ((comma = strrchr(spec, ',')) != NULL) { /* a value type fixed by the spec */
        if (!strcmp(comma, ",f32")) type = SP_R_32F;
        else if (!strcmp(comma, ",f64")) type = SP_R_64F;
        else {
            fprintf(stderr, "spbench: --gen %s: unknown suffix %s (,f32 or ,f64)\n", gen, comma);
            return st;
        }
        *comma = '\0';
    }
    /* --bfs alone needs no values: a graph generated as a pattern is half the bytes from the
     * generator to the device (issue 20: Kronecker 27 fits the GPU machine's host so) */
    int pattern = o->bfs && !o->formats && !o->type_given && !comma;
    if (!sb_gen_shape_spec(spec, o->seed, type, coo, &st)) {
        r->load_seconds = sb_now() - t0;
        r->reader = "generator";
        return st;
    }
    n = sscanf(spec, "%31[a-z0-9]:%lld:%lld", kind, &a, &b);
    if (n < 2) {
        fprintf(stderr, "spbench: --gen %s: expected KIND:SIZE[:EF]\n", gen);
        return st;
    }
    if (n < 3) b = 16;
    if (!strcmp(kind, "kron") || !strcmp(kind, "uniform")) {
        if (pattern) {
            type = SP_VALUE_NONE;
            printf("gen_values: none (--bfs alone: the graph is generated as a pattern; "
                   "--formats, --type or ,f64 give it values)\n");
        }
        sb_stage("start (generating)");
        st = !strcmp(kind, "kron") ? sp_gen_kronecker((int)a, (int)b, o->seed, type, coo)
                                   : sp_gen_uniform((int)a, (int)b, o->seed, type, coo);
        if (st == SP_STATUS_SUCCESS) sb_stage("generated (directed edges)");
        if (st == SP_STATUS_SUCCESS) st = sp_coo_symmetrize(*coo, 1);
        if (st == SP_STATUS_SUCCESS) sb_stage("symmetrized, self-loops dropped, sorted");
    } else if (!strcmp(kind, "poisson2d")) {
        st = sp_gen_poisson2d(a, type, coo);
    } else if (!strcmp(kind, "poisson3d")) {
        st = sp_gen_poisson3d(a, type, coo);
    } else if (!strcmp(kind, "poisson3d27")) {
        st = sp_gen_poisson3d27(a, type, coo);
    } else if (!strcmp(kind, "grid2d")) {
        st = sp_gen_grid2d(a, type, coo);
    } else if (!strcmp(kind, "randcol") && n == 3) {
        st = sb_gen_random_columns(a, b, 16, o->seed, type, coo);
    } else {
        fprintf(stderr, "spbench: --gen %s: unknown generator \"%s\"\n", gen, kind);
        return st;
    }
    r->load_seconds = sb_now() - t0;
    r->reader = "generator";
    return st;
}

/* ---- SpMV per format and algorithm --------------------------------------------------- */

/* The table's rows: CSR first (the others' build cost is given in CSR SpMV-equivalents),
 * the algorithms of a format after its default. The host reference has one algorithm per
 * format, so the algorithm rows run on the GPU only. */
typedef struct row_plan {
    sp_format_t format;
    sp_spmv_alg_t alg;
    const char *alg_name;
} row_plan_t;

static const row_plan_t ROW_PLAN[] = {
    {SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, NULL},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SCALAR, "scalar"},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_VECTOR, "vector"},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE, "merge"},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SPLIT, "split"},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_BINNED, "binned"},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_ADAPTIVE, "adaptive"},
    {SP_FORMAT_COO, SP_SPMV_ALG_DEFAULT, NULL},
    {SP_FORMAT_COO, SP_SPMV_ALG_COO_ATOMIC, "atomic"},
    {SP_FORMAT_COO, SP_SPMV_ALG_COO_SEGMENTED, "segmented"},
    {SP_FORMAT_CSC, SP_SPMV_ALG_DEFAULT, NULL},
    {SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT, NULL},
    {SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT, NULL},
    {SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT, NULL},
    {SP_FORMAT_SELL, SP_SPMV_ALG_DEFAULT, NULL},
    {SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT, NULL},
};
#define ROW_PLAN_LEN ((int)(sizeof ROW_PLAN / sizeof ROW_PLAN[0]))

static int format_selected(const options_t *o, sp_format_t f)
{
    if (!o->formats) return 1;
    const char *name = sp_format_name(f);
    size_t len = strlen(name);
    for (const char *p = o->formats; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, name, n)) return 1;
        p += n + (end != NULL);
    }
    return 0;
}

/* Timed calls per row: --reps, or in the suite 200 scaled down to 50 for big inputs. */
static int reps_for(const options_t *o, int64_t nnz)
{
    if (!o->suite) return o->reps;
    int base = o->reps_given ? o->reps : 200, floor = base < 50 ? base : 50;
    double scaled = (double)base * 2e7 / (double)(nnz > 0 ? nnz : 1);
    return scaled >= base ? base : scaled <= floor ? floor : (int)scaled;
}

static void row_label(const row_plan_t *p, sb_format_row_t *row)
{
    if (p->format == SP_FORMAT_AUTO)
        snprintf(row->label, sizeof row->label, "auto->%s", sp_format_name(row->chosen));
    else if (p->alg_name)
        snprintf(row->label, sizeof row->label, "%s/%s", sp_format_name(p->format), p->alg_name);
    else
        snprintf(row->label, sizeof row->label, "%s", sp_format_name(p->format));
}

/* Build time of a row: its own for a format's default row, else that row's. */
static sp_status_t row_build(const sb_exec_t *ex, sp_matrix_t *A, const row_plan_t *p,
                             const sb_report_t *r, sb_format_row_t *row)
{
    if (p->format != SP_FORMAT_AUTO && p->alg == SP_SPMV_ALG_DEFAULT)
        return sb_time_build(ex, A, p->format, &row->build_ms);
    for (int i = 0; i < r->nrows_done; i++)
        if (r->rows[i].format == row->chosen && r->rows[i].alg == SP_SPMV_ALG_DEFAULT)
            row->build_ms = r->rows[i].build_ms;
    return sp_matrix_build(ex->ctx, A, row->chosen);
}

/* One row of the table; 1 if SpMV failed for a reason other than a refusal. */
static int bench_row(const sb_exec_t *ex, sp_matrix_t *A, const row_plan_t *p,
                     const options_t *o, const sb_vectors_t *v, sb_report_t *r)
{
    sb_format_row_t *row = &r->rows[r->nrows_done];
    sp_matrix_info_t info;
    sp_status_t st = SP_STATUS_SUCCESS;
    double t0 = sb_now();
    memset(row, 0, sizeof *row);
    row->format = row->chosen = p->format;
    row->alg = row->ran_alg = p->alg;
    if (p->format == SP_FORMAT_AUTO) {
        sp_format_t f = SP_FORMAT_AUTO;
        st = sp_spmv_choose_format(ex->ctx, A, &row->chosen);
        sp__spmv_auto(ex->ctx, A, &f, &row->ran_alg); /* the algorithm AUTO runs with it */
    }
    row_label(p, row);
    if (st == SP_STATUS_SUCCESS) st = row_build(ex, A, p, r, row);
    if (st == SP_STATUS_SUCCESS) { /* the plan, timed apart from the build and the calls */
        double t1 = sb_now();
        st = sp_spmv_prepare(ex->ctx, A, p->format, p->alg);
        if (st == SP_STATUS_SUCCESS) st = sp_context_synchronize(ex->ctx);
        row->prepare_ms = 1e3 * (sb_now() - t1);
    }
    if (st == SP_STATUS_SUCCESS) {
        sp_matrix_info(A, &info);
        row->bytes = info.bytes[row->chosen];
        sb_value_table_bytes(&info, row);
        st = sb_time_spmv(ex, A, reps_for(o, r->info.nnz), v, row);
    }
    if (st == SP_STATUS_SUCCESS && o->check) row->max_rel_err = sb_check_spmv(ex, A, v, row);
    if (st != SP_STATUS_SUCCESS) {
        row->status = st;
        snprintf(row->message, sizeof row->message, "%s", sp_last_error());
    }
    r->nrows_done++;
    sb_print_format_row(row, r, o->check);
    /* what the row cost the benchmark (build repetitions, timing, check): where a set's
     * time goes */
    printf("row_wall_seconds: %s %.2f\n", row->label, sb_now() - t0);
    return st != SP_STATUS_SUCCESS && st != SP_STATUS_NOT_SUPPORTED;
}

/* A format's memory goes once its rows are done (CSR stays: the others build from it). */
static void release_after(const sb_exec_t *ex, sp_matrix_t *A, int i, const sb_report_t *r)
{
    sp_format_t f = r->rows[r->nrows_done - 1].chosen;
    if (i + 1 < ROW_PLAN_LEN && ROW_PLAN[i + 1].format == ROW_PLAN[i].format) return;
    if (f != SP_FORMAT_CSR && f != SP_FORMAT_COO) sp_matrix_release(ex->ctx, A, f);
}

static int run_spmv(const sb_exec_t *ex, sp_matrix_t *A, const options_t *o, sb_report_t *r,
                    const sb_vectors_t *v)
{
    int failed = 0;
    sp_format_t chosen;
    if (sp_spmv_choose_format(ex->ctx, A, &chosen) == SP_STATUS_SUCCESS)
        printf("auto_format: %s (sp_spmv_choose_format)\n", sp_format_name(chosen));
    printf("reps: %d timed samples per row after %d warm-up samples", reps_for(o, r->info.nnz),
           SB_WARMUP_CALLS);
    if (ex->gpu)
        printf("; a sample is back-to-back calls between CUDA events (%.0e / nnz, 1..%d, "
               "capped at %.0f ms a sample and %.0f ms a row by one call timed first, at "
               "least %d samples), time per call = sample / calls",
               SB_SAMPLE_ENTRIES, SB_MAX_CALLS, SB_SAMPLE_MS, SB_ROW_MS, SB_MIN_REPS);
    printf("\n");
    if (!ex->gpu) printf("algorithms: one per format on the host reference\n");
    for (int i = 0; i < ROW_PLAN_LEN; i++) {
        const row_plan_t *p = &ROW_PLAN[i];
        if (!format_selected(o, p->format) || (!ex->gpu && p->alg_name)) continue;
        failed |= bench_row(ex, A, p, o, v, r);
        release_after(ex, A, i, r);
    }
    return failed;
}

/* ---- one input ---------------------------------------------------------------------- */

static void set_baselines(const sb_exec_t *ex, sb_report_t *r, int spmv)
{
    if (!ex->gpu) {
        r->baseline_name[SB_CUSPARSE_CSR] = "libsp_host_csr";
        r->baseline_name[SB_CUSPARSE_SELL] = "";
        r->baseline_name[SB_CUSPARSE_CSC] = "";
        snprintf(r->baseline_note[0], sizeof r->baseline_note[0],
                 "(no GPU: speedups are over libsp's own host CSR, not cuSPARSE)");
        return;
    }
    r->baseline_name[SB_CUSPARSE_CSR] = "cusparse_csr";
    r->baseline_name[SB_CUSPARSE_SELL] = "cusparse_sell";
    r->baseline_name[SB_CUSPARSE_CSC] = "cusparse_csc";
    for (int b = 0; b < SB_BASELINE_COUNT; b++)
        snprintf(r->baseline_note[b], sizeof r->baseline_note[b], "%s",
                 ex->cus    ? sb_cusparse_note(ex->cus, (sb_baseline_t)b)
                 : spmv     ? "n/a (set-up failed)"
                            : "n/a (no SpMV in this run)");
}

/* The cuSPARSE copy of A's CSR, on the same device vectors libsp uses. */
static void open_baseline(sb_exec_t *ex, sp_matrix_t *A, const sb_vectors_t *v)
{
    sp_format_view_t csr;
    char why[256] = "";
    ex->cus = NULL;
    if (!ex->gpu || !v->d_x) return;
    if (sp_matrix_build(ex->ctx, A, SP_FORMAT_CSR) != SP_STATUS_SUCCESS ||
        sp_matrix_view(A, SP_FORMAT_CSR, &csr) != SP_STATUS_SUCCESS) {
        fprintf(stderr, "spbench: no cuSPARSE baseline: %s\n", sp_last_error());
        return;
    }
    if (csr.row_ptr64) { /* the baselines read 32-bit pointers (issue 20) */
        fprintf(stderr, "spbench: no cuSPARSE baseline with --offsets 64 (run --offsets 32 "
                        "on the same card for it)\n");
        return;
    }
    if (sb_cusparse_create(ex->gpu, &csr, v->d_x, v->d_y, &ex->cus, why, sizeof why))
        fprintf(stderr, "spbench: no cuSPARSE baseline: %s\n", why);
}

static sp_status_t create_matrix(sb_exec_t *ex, const sp_coo_t *coo, sb_report_t *r,
                                 sp_matrix_t **A)
{
    double t0 = sb_now();
    sp_matrix_options_t opt = {0};
    opt.long_row_bound = ex->long_row_bound;
    opt.offset_bits = ex->offset_bits;
    sp_status_t st = sp_matrix_create(ex->ctx, coo, &opt, A);
    if (st == SP_STATUS_SUCCESS) st = sp_context_synchronize(ex->ctx);
    r->gpu_upload_ms = 1e3 * (sb_now() - t0);
    return st;
}

/* peak_device_bytes (CUDA context): the most the context's allocator held during the
 * build (sp_matrix_create and the CSR build before the run) and during the run (the SpMV
 * table or BFS, with the formats, plans and caches they make); the peak is reset between
 * them. spbench's own vectors and BFS outputs (cudaMalloc) are not counted. -1: unknown. */
static int64_t device_peak(const sb_exec_t *ex, int reset_after)
{
    sp_memory_stats_t m;
    int64_t peak = -1;
    if (!ex->gpu) return -1;
    if (sp_context_memory(ex->ctx, &m) == SP_STATUS_SUCCESS) peak = m.peak_bytes;
    if (reset_after && sp_context_memory_reset_peak(ex->ctx) != SP_STATUS_SUCCESS) peak = -1;
    return peak;
}

/* The BFS request of the command line. */
static sb_bfs_request_t bfs_request(const options_t *o, const sb_exec_t *ex)
{
    sb_bfs_request_t q = {0};
    q.source = o->source;
    q.nsources = o->nsources;
    q.seed = o->seed;
    q.check = o->check;
    q.variant = o->bfs_variant;
    q.loop = o->bfs_loop;
    q.levels = o->bfs_levels;
    q.undirected = -1; /* found out from the matrix, except where the generator says so: */
    if (o->gen && (!strncmp(o->gen, "kron:", 5) || !strncmp(o->gen, "uniform:", 8) ||
                   !strncmp(o->gen, "grid2d:", 7)))
        q.undirected = 1; /* symmetrized (kron, uniform) or undirected (grid2d) by construction */
    q.validate_all = o->bfs_validate < 0;
    q.validate_first = o->bfs_validate;
    q.gpu = ex->gpu;
    return q;
}

/* BFS on the executor: every variant x loop on a GPU, the reference on the host. */
static int run_bfs(const options_t *o, const sb_exec_t *ex, sp_matrix_t *A, sb_report_t *r)
{
    sb_bfs_request_t q = bfs_request(o, ex);
    printf("bfs_executor: %s\n", ex->gpu ? "GPU" : "host reference");
    return sb_run_bfs(ex->ctx, A, &q, r);
}

static int save_cache(const options_t *o, const char *path, const sp_coo_t *coo)
{
    char cache_path[4096];
    if (!o->cache || !path) return 0;
    snprintf(cache_path, sizeof cache_path, "%s.spcoo", path);
    if (sp_coo_save(cache_path, coo) != SP_STATUS_SUCCESS) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        return 1;
    }
    printf("cache: %s\n", cache_path);
    return 0;
}

/* Load or generate one input, then the SpMV table (and BFS): the matrix lives on the
 * executor only while it is measured, so inputs of several GB run one after another. */
static int bench_input(const options_t *o, sb_exec_t *ex, const char *path, const char *gen,
                       sb_report_t *r)
{
    sp_coo_t *coo = NULL;
    sp_matrix_t *A = NULL;
    sb_vectors_t v = {0};
    int rc = 1;
    snprintf(r->input, sizeof r->input, "%s", path ? path : gen);
    snprintf(r->executor, sizeof r->executor, "%s", ex->executor);
    r->on_gpu = ex->gpu != NULL;
    r->device = ex->device;
    r->read_bw_gbs = ex->read_bw_gbs;
    sp_clear_error();
    sp_status_t st = gen ? generate_input(o, gen, r, &coo) : load_input(o, path, r, &coo);
    if (st != SP_STATUS_SUCCESS) {
        if (sp_last_error()[0]) fprintf(stderr, "spbench: %s\n", sp_last_error());
        goto done;
    }
    if (o->load_only) {
        sb_print_load(coo, r, 1);
        printf("threads: %ld\npeak_rss_bytes: %lld\n",
               o->threads ? (long)o->threads : sysconf(_SC_NPROCESSORS_ONLN),
               (long long)sb_peak_rss_bytes());
        rc = 0;
        goto done;
    }
    if (save_cache(o, path, coo)) goto done;
    printf("input: %s\nexecutor: %s\n", r->input, r->executor);
    r->peak_device_build = r->peak_device_run = -1;
    if (ex->gpu) (void)sp_context_memory_reset_peak(ex->ctx);
    if (create_matrix(ex, coo, r, &A) != SP_STATUS_SUCCESS) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        goto done;
    }
    sb_stage("matrix created (host order, upload)");
    /* --bfs alone measures BFS only; --formats asks for the SpMV table too */
    int values = coo->value_type != SP_VALUE_NONE;
    int spmv = values && (!o->bfs || o->formats);
    if (spmv && sb_vectors_init(&v, coo, o->check, ex)) {
        fprintf(stderr, "spbench: out of memory for the SpMV vectors\n");
        goto done;
    }
    if (spmv) open_baseline(ex, A, &v);
    /* BFS's CSR: built in the build phase, so peak_device_bytes' build holds it */
    if (ex->gpu && o->bfs && sp_matrix_build(ex->ctx, A, SP_FORMAT_CSR) != SP_STATUS_SUCCESS) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        goto done;
    }
    if (ex->gpu && o->bfs) sb_stage("device CSR built");
    set_baselines(ex, r, spmv);
    sb_print_shape(coo, A, r);
    if (!spmv) { /* BFS reads the matrix alone: the host COO goes before its host CSR comes */
        sp_coo_free(coo);
        coo = NULL;
        sb_stage("host COO freed");
    }
    r->peak_device_build = device_peak(ex, 1);
    rc = 0;
    if (!values) printf("spmv: skipped (pattern matrix without values)\n");
    else if (!spmv) printf("spmv: skipped (--bfs without --formats)\n");
    else rc = run_spmv(ex, A, o, r, &v);
    if (o->bfs) rc |= run_bfs(o, ex, A, r);
    r->peak_device_run = device_peak(ex, 0);
    if (r->peak_device_build >= 0 && r->peak_device_run >= 0)
        printf("peak_device_bytes: build %lld run %lld\n", (long long)r->peak_device_build,
               (long long)r->peak_device_run);
    printf("peak_rss_bytes: %lld (the host process's peak so far, getrusage)\n",
           (long long)sb_peak_rss_bytes());
done:
    sb_cusparse_destroy(ex->cus);
    ex->cus = NULL;
    sb_vectors_free(&v, ex);
    sp_matrix_destroy(A);
    sp_coo_free(coo);
    return rc;
}

/* --suite: every input of the set in turn, then the summary, JSON and plot. */
static int run_suite(const options_t *o, sb_exec_t *ex)
{
    sb_suite_input_t *list = NULL;
    sb_report_t *reports = NULL;
    int n = 0, rc = 1;
    if (sb_suite_inputs(o->suite == 2   ? SB_SUITE_QUICK
                        : o->suite == 3 ? SB_SUITE_WIDE
                                        : SB_SUITE_FULL,
                        &list, &n) ||
        !(reports = calloc((size_t)n, sizeof *reports))) {
        fprintf(stderr, "spbench: cannot list the suite's inputs\n");
        goto done;
    }
    rc = 0;
    for (int i = 0; i < n; i++) {
        sb_suite_status("suite", i, n, list[i].gen[0] ? list[i].gen : list[i].path);
        printf("\n== suite %d/%d: %s\n", i + 1, n, list[i].gen[0] ? list[i].gen : list[i].path);
        double t0 = sb_now();
        rc |= bench_input(o, ex, list[i].gen[0] ? NULL : list[i].path,
                          list[i].gen[0] ? list[i].gen : NULL, &reports[i]);
        printf("input_wall_seconds: %.2f\n", sb_now() - t0);
        fflush(stdout);
    }
    sb_print_summary(reports, n);
    if (o->json && sb_write_suite_json(o->json, reports, n)) rc = 1;
    if (o->plot && sb_write_plot_svg(o->plot, reports, n)) rc = 1;
done:
    free(reports);
    free(list);
    return rc;
}

/* --load-only --threads T1,T2,...: one load per count in this process, a line each. */
static int run_load_sweep(options_t *o)
{
    int rc = 0;
    const char *path = o->path;
    printf("load_sweep: %s (%.1f MB), one load per thread count in one process: the first "
           "may read from disk, later ones find the file in the page cache; peak_rss_bytes "
           "is the process's peak so far (it never decreases)\n",
           path, sb_file_size(path) / 1e6);
    for (int i = 0; i < o->nsweep; i++) {
        sb_report_t r = {0};
        sp_coo_t *coo = NULL;
        o->threads = o->sweep[i];
        sp_clear_error();
        if (load_input(o, path, &r, &coo) != SP_STATUS_SUCCESS) {
            fprintf(stderr, "spbench: %s\n", sp_last_error());
            rc = 1;
            break;
        }
        double s = r.load_seconds > 0 ? r.load_seconds : 1e-9;
        printf("threads: %d load_seconds: %.6f MB/s: %.1f Mentries/s: %.2f nnz: %lld "
               "peak_rss_bytes: %lld\n", o->threads, r.load_seconds, r.file_bytes / 1e6 / s,
               (double)coo->nnz / 1e6 / s, (long long)coo->nnz, (long long)sb_peak_rss_bytes());
        fflush(stdout);
        sp_coo_free(coo);
    }
    return rc;
}

/* ---- main --------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    options_t o;
    sb_exec_t ex;
    sb_report_t *r = NULL;
    int rc = 1;
    if (sb_dist_wanted(argc, argv)) return sb_dist_main(argc, argv); /* --ranks, --gpus */
    if (parse_args(argc, argv, &o)) return 2;
    if (!o.suite && !o.bfs_suite && !o.path && !o.gen) o.path = default_dataset();
    if (!o.load_only && sb_exec_open(&ex)) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        return 1;
    }
    if (o.load_only) memset(&ex, 0, sizeof ex);
    ex.long_row_bound = o.long_row_bound;
    ex.offset_bits = o.offset_bits;
    if (o.load_only && o.nsweep > 1 && o.path) {
        rc = run_load_sweep(&o);
        goto done;
    }
    if (o.suite) {
        rc = run_suite(&o, &ex);
        goto done;
    }
    if (o.bfs_suite) {
        sb_bfs_request_t q = bfs_request(&o, &ex);
        rc = sb_run_bfs_suite(ex.ctx, &q);
        goto done;
    }
    if (!(r = calloc(1, sizeof *r))) goto done;
    rc = bench_input(&o, &ex, o.path, o.gen, r);
    if (r->symmetry && o.json && sb_write_json(o.json, r)) rc = 1;
    if (r->symmetry && o.plot && sb_write_plot_svg(o.plot, r, 1)) rc = 1;
done:
    free(r);
    sb_exec_close(&ex);
    return rc;
}
