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
#include "spbench_util.h"

#ifndef SP_DATASETS_DIR
#define SP_DATASETS_DIR "datasets"
#endif
#define DEFAULT_DATASET "mtx/BentPipe2D100.mtx"

typedef struct options {
    const char *path, *gen, *reader, *json, *formats;
    sp_value_type_t type;
    int threads, load_only, cache, check, bfs, nsources, reps, undirected, complex_real;
    int64_t source;
    uint64_t seed;
} options_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spbench [options] [FILE]\n"
            "  FILE                 .mtx/.mtx.gz Matrix Market; .el .wel .txt edge list;\n"
            "                       .gr DIMACS; .graph METIS; .spcoo binary cache\n"
            "                       (no FILE and no --gen: the bundled %s)\n"
            "  --format NAME        reader: mtx, snap, dimacs, metis, cache\n"
            "  --gen SPEC           kron:SCALE[:EF] uniform:SCALE[:EF] poisson2d:N\n"
            "                       poisson3d:N poisson3d27:N grid2d:N\n"
            "  --seed S             generator seed (default 1)\n"
            "  --type float|double  value type (default double)\n"
            "  --undirected         edge lists: add the reverse of every edge\n"
            "  --complex-real       complex Matrix Market files: keep the real part\n"
            "  --threads T          loader threads (default: all cores)\n"
            "  --load-only          load, print rows/cols/nnz and throughput, stop\n"
            "  --cache              write FILE.spcoo (binary cache) next to FILE\n"
            "  --formats LIST       comma-separated subset of coo,csr,csc,ell,hyb,jds,sell\n"
            "  --reps N             timed SpMV calls per format (default 50)\n"
            "  --check              compare every format's SpMV with the reference\n"
            "  --bfs                run BFS from --source V or --sources K (default 64)\n"
            "  --json FILE          write every figure as JSON\n",
            DEFAULT_DATASET);
}

static int parse_args(int argc, char **argv, options_t *o)
{
    *o = (options_t){.type = SP_R_64F, .reps = 50, .nsources = 64, .source = -1, .seed = 1};
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
        } else if (!strcmp(a, "--format")) {
            NEED_VALUE();
            o->reader = next;
        } else if (!strcmp(a, "--gen")) {
            NEED_VALUE();
            o->gen = next;
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE();
            if (sb_parse_u64(next, &o->seed)) return sb_bad_value(a, next);
        } else if (!strcmp(a, "--type")) {
            NEED_VALUE();
            if (!strcmp(next, "float")) o->type = SP_R_32F;
            else if (!strcmp(next, "double")) o->type = SP_R_64F;
            else return sb_bad_value(a, next);
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            if (sb_parse_int(next, 1, 4096, &o->threads)) return sb_bad_value(a, next);
        } else if (!strcmp(a, "--reps")) {
            NEED_VALUE();
            if (sb_parse_int(next, 1, 1000000, &o->reps)) return sb_bad_value(a, next);
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
        } else if (!strcmp(a, "--load-only")) {
            o->load_only = 1;
        } else if (!strcmp(a, "--cache")) {
            o->cache = 1;
        } else if (!strcmp(a, "--check")) {
            o->check = 1;
        } else if (!strcmp(a, "--bfs")) {
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

static sp_status_t load_input(const options_t *o, sb_report_t *r, sp_coo_t **coo)
{
    const char *reader = o->reader ? o->reader : sb_reader_for_path(o->path);
    sp_status_t st;
    double t0 = sb_now();
    sb_progress_start(o->path);
    if (!strcmp(reader, "mtx")) {
        sp_mtx_options_t mo = {.nthreads = o->threads,
                               .complex_mode = o->complex_real ? SP_COMPLEX_REAL_PART
                                                               : SP_COMPLEX_REFUSE};
        st = sp_mtx_read(o->path, o->type, &mo, coo);
    } else if (!strcmp(reader, "cache")) {
        st = sp_coo_load(o->path, coo);
    } else {
        sp_edgelist_options_t eo = {.nthreads = o->threads, .undirected = o->undirected};
        if (!strcmp(reader, "snap")) eo.format = SP_EDGELIST_SNAP;
        else if (!strcmp(reader, "dimacs")) eo.format = SP_EDGELIST_DIMACS;
        else if (!strcmp(reader, "metis")) eo.format = SP_EDGELIST_METIS;
        else {
            fprintf(stderr, "spbench: unknown reader \"%s\" (mtx, snap, dimacs, metis, cache)\n",
                    reader);
            return SP_STATUS_INVALID_ARGUMENT;
        }
        st = sp_edgelist_read(o->path, o->type, &eo, coo, NULL);
    }
    sb_progress_end();
    r->load_seconds = sb_now() - t0;
    r->reader = reader;
    r->file_bytes = sb_file_size(o->path);
    return st;
}

static sp_status_t generate_input(const options_t *o, sb_report_t *r, sp_coo_t **coo)
{
    char kind[32] = "";
    long long a = 0, b = 0;
    int n = sscanf(o->gen, "%31[a-z0-9]:%lld:%lld", kind, &a, &b);
    sp_status_t st = SP_STATUS_INVALID_ARGUMENT;
    double t0 = sb_now();
    if (n < 2) {
        fprintf(stderr, "spbench: --gen %s: expected KIND:SIZE[:EF]\n", o->gen);
        return st;
    }
    if (n < 3) b = 16;
    if (!strcmp(kind, "kron") || !strcmp(kind, "uniform")) {
        st = !strcmp(kind, "kron") ? sp_gen_kronecker((int)a, (int)b, o->seed, o->type, coo)
                                   : sp_gen_uniform((int)a, (int)b, o->seed, o->type, coo);
        if (st == SP_STATUS_SUCCESS) st = sp_coo_symmetrize(*coo, 1);
    } else if (!strcmp(kind, "poisson2d")) {
        st = sp_gen_poisson2d(a, o->type, coo);
    } else if (!strcmp(kind, "poisson3d")) {
        st = sp_gen_poisson3d(a, o->type, coo);
    } else if (!strcmp(kind, "poisson3d27")) {
        st = sp_gen_poisson3d27(a, o->type, coo);
    } else if (!strcmp(kind, "grid2d")) {
        st = sp_gen_grid2d(a, o->type, coo);
    } else {
        fprintf(stderr, "spbench: --gen %s: unknown generator \"%s\"\n", o->gen, kind);
        return st;
    }
    r->load_seconds = sb_now() - t0;
    r->reader = "generator";
    return st;
}

/* ---- SpMV per format ---------------------------------------------------------------- */

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

static int bench_format(sp_context_t *ctx, sp_matrix_t *A, sp_format_t f, const options_t *o,
                        const sb_vectors_t *v, sb_format_row_t *row)
{
    sp_matrix_info_t info;
    row->format = f;
    double t0 = sb_now();
    sp_status_t st = sp_matrix_build(ctx, A, f);
    row->build_ms = 1e3 * (sb_now() - t0);
    if (st != SP_STATUS_SUCCESS) {
        row->status = st;
        snprintf(row->message, sizeof row->message, "%s", sp_last_error());
        return 0;
    }
    sp_matrix_info(A, &info);
    row->bytes = info.bytes[f];
    st = sb_time_spmv(ctx, A, f, o->reps, v, row);
    if (st != SP_STATUS_SUCCESS) {
        row->status = st;
        snprintf(row->message, sizeof row->message, "%s", sp_last_error());
        return 1;
    }
    if (o->check) row->max_rel_err = sb_max_rel_err(v, o->type);
    return 0;
}

static int run_spmv(sp_context_t *ctx, sp_matrix_t *A, const sp_coo_t *coo, const options_t *o,
                    sb_report_t *r)
{
    sb_vectors_t v;
    int failed = 0;
    if (coo->value_type == SP_VALUE_NONE) {
        printf("spmv: skipped (pattern matrix without values)\n");
        return 0;
    }
    if (sb_vectors_init(&v, coo, o->check)) {
        fprintf(stderr, "spbench: out of memory for the SpMV vectors\n");
        return 1;
    }
    /* CSR first: the other formats' build cost is given in CSR SpMV-equivalents. */
    static const sp_format_t order[SP_FORMAT_COUNT] = {
        SP_FORMAT_CSR, SP_FORMAT_COO, SP_FORMAT_CSC, SP_FORMAT_ELL,
        SP_FORMAT_HYB, SP_FORMAT_JDS, SP_FORMAT_SELL};
    for (int i = 0; i < SP_FORMAT_COUNT; i++) {
        if (!format_selected(o, order[i])) continue;
        sb_format_row_t *row = &r->rows[r->nrows_done++];
        failed |= bench_format(ctx, A, order[i], o, &v, row);
        sb_print_format_row(row, r, o->check);
    }
    sb_vectors_free(&v);
    return failed;
}

/* ---- main --------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    options_t o;
    sb_report_t r = {0};
    sp_coo_t *coo = NULL;
    sp_context_t *ctx = NULL;
    sp_context_t *gpu = NULL;
    sp_matrix_t *A = NULL;
    sp_status_t st;
    int rc = 1;
    if (parse_args(argc, argv, &o)) return 2;
    if (!o.path && !o.gen) o.path = default_dataset();
    r.input = o.path ? o.path : o.gen;
    st = o.gen ? generate_input(&o, &r, &coo) : load_input(&o, &r, &coo);
    if (st != SP_STATUS_SUCCESS) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        goto done;
    }
    if (o.load_only) {
        sb_print_load(coo, &r, 1);
        rc = 0;
        goto done;
    }
    if (o.cache && o.path) {
        char cache_path[4096];
        snprintf(cache_path, sizeof cache_path, "%s.spcoo", o.path);
        if (sp_coo_save(cache_path, coo) != SP_STATUS_SUCCESS) {
            fprintf(stderr, "spbench: %s\n", sp_last_error());
            goto done;
        }
        printf("cache: %s\n", cache_path);
    }
    gpu = sb_open_gpu(&r);
    if (sp_context_create(SP_DEVICE_HOST, NULL, &ctx) != SP_STATUS_SUCCESS ||
        sp_matrix_create(ctx, coo, NULL, &A) != SP_STATUS_SUCCESS) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        goto done;
    }
    sb_print_shape(coo, A, &r);
    rc = run_spmv(ctx, A, coo, &o, &r);
    if (o.bfs) rc |= sb_run_bfs(ctx, A, o.source, o.nsources, o.seed, &r);
    if (gpu) rc |= sb_gpu_builds(gpu, coo, &r);
    if (o.json && sb_write_json(o.json, &r)) rc = 1;
done:
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    sp_context_destroy(gpu);
    sp_coo_free(coo);
    return rc;
}
