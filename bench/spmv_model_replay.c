/* spmv_model_replay: the SpMV cost model of src/policy.c replayed on the host over the
 * inputs of spbench's sets (issue 23). For each input it builds the matrix on a host
 * context, takes the model's statistics as a CUDA context would (an H100's 132 SMs, the
 * diagonal-nearness sample of the sorted, merged entries as the device takes it) and prints
 * one TSV line: the statistics, the model's time of every candidate (each CSR algorithm,
 * ELL, SELL, JDS, COO atomic; -1 where it is not one) and its choice.
 * scripts/spmv-model-replay.py joins the lines with spbench's measured JSON.
 *
 *   spmv_model_replay [--suite] [--suite-wide] [--gen SPEC]... [FILE]... [--max-nnz N]
 *                     [--stats-out F] [--stats-in F] [--set NAME=VALUE]...
 *
 * --stats-out writes each input's statistics (histogram included) to F as it goes;
 * --stats-in replays those lines instead of building the inputs again (a second, quick run
 * with other constants). --set changes a constant of the sm_90 row for this run: launch_us,
 * step_us, read_gbs, fence_us, l2_bytes, l2_gbs, eff_near.K and eff_far.K (K the kind's index in
 * sp__spmv_kind_t), so a constant derived on one set can be checked on the other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "spbench_util.h"

#ifndef SP_DATASETS_DIR
#define SP_DATASETS_DIR "datasets"
#endif

static const char *const CAND_LABEL[SP__CAND_COUNT] = {
    "csr/scalar", "csr/vector", "csr/merge", "csr/binned", "csr/adaptive",
    "ell",        "sell",       "jds",       "coo/atomic",
};

typedef struct replay {
    sp__policy_t policy;
    sp__spmv_format_policy_t format;
    FILE *stats_out;
    int64_t max_nnz;
    int header_done;
} replay_t;

/* The label spbench gives the row AUTO's choice ran as. */
static const char *choice_label(const sp__spmv_choice_t *c)
{
    switch (c->format) {
    case SP_FORMAT_ELL: return "ell";
    case SP_FORMAT_SELL: return "sell";
    case SP_FORMAT_JDS: return "jds";
    case SP_FORMAT_COO: return "coo/atomic";
    case SP_FORMAT_CSR:
        switch (c->alg) {
        case SP_SPMV_ALG_CSR_SCALAR: return "csr/scalar";
        case SP_SPMV_ALG_CSR_VECTOR: return "csr/vector";
        case SP_SPMV_ALG_CSR_MERGE: return "csr/merge";
        case SP_SPMV_ALG_CSR_BINNED: return "csr/binned";
        default: return "csr/adaptive";
        }
    default: return "?";
    }
}

static void print_line(replay_t *rp, const char *input, const sp__spmv_stats_t *s)
{
    sp__spmv_choice_t c = sp__policy_spmv_choose(&rp->policy, s);
    if (!rp->header_done) {
        printf("input\tnrows\tncols\tnnz\tvalue_bytes\trow_max\trow_mean\trow_stddev\tcol_near");
        for (int k = 0; k < SP__CAND_COUNT; k++) printf("\t%s", CAND_LABEL[k]);
        for (int k = 0; k < SP__CAND_COUNT; k++) printf("\tbytes:%s", CAND_LABEL[k]);
        printf("\tchoice\n");
        rp->header_done = 1;
    }
    printf("%s\t%lld\t%lld\t%lld\t%d\t%lld\t%.4f\t%.4f\t%.4f", input, (long long)s->nrows,
           (long long)s->ncols, (long long)s->nnz, s->value_bytes, (long long)s->row_max,
           s->row_mean, s->row_stddev, s->col_near);
    for (int k = 0; k < SP__CAND_COUNT; k++) printf("\t%.3f", c.cand[k]);
    for (int k = 0; k < SP__CAND_COUNT; k++) printf("\t%.0f", c.cand_bytes[k]);
    printf("\t%s\n", choice_label(&c));
    fflush(stdout);
}

/* ---- statistics lines (--stats-out, --stats-in) ---------------------------------------- */

static void write_stats(FILE *f, const char *input, const sp__spmv_stats_t *s)
{
    fprintf(f, "%s\t%lld %lld %lld %lld %.17g %.17g %.17g %d %lld %lld %lld %lld %d %d %d\t",
            input, (long long)s->nrows, (long long)s->ncols, (long long)s->nnz,
            (long long)s->row_max, s->row_mean, s->row_stddev, s->col_near, s->value_bytes,
            (long long)s->long_row_bound, (long long)s->row_max_kept,
            (long long)s->ell_long_row_bound, (long long)s->ell_row_max_kept, s->offset_bits,
            s->wide, s->ell_wide);
    for (int b = 0; b < SP_ROW_HIST_BINS; b++)
        fprintf(f, "%lld %lld%c", (long long)s->hist[b], (long long)s->hist_nnz[b],
                b + 1 < SP_ROW_HIST_BINS ? ' ' : '\n');
    fflush(f);
}

static int read_stats(replay_t *rp, const char *path)
{
    static int64_t hist[SP_ROW_HIST_BINS], hist_nnz[SP_ROW_HIST_BINS];
    char line[8192];
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "spmv_model_replay: cannot read %s\n", path);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        sp__spmv_stats_t s = {0};
        long long v[12];
        char *tab = strchr(line, '\t'), *p;
        if (!tab) continue;
        *tab = '\0';
        if (sscanf(tab + 1, "%lld %lld %lld %lld %lf %lf %lf %lld %lld %lld %lld %lld %lld %lld %lld",
                   &v[0], &v[1], &v[2], &v[3], &s.row_mean, &s.row_stddev, &s.col_near, &v[4],
                   &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]) != 15)
            continue;
        s.nrows = v[0], s.ncols = v[1], s.nnz = v[2], s.row_max = v[3];
        s.value_bytes = (int)v[4], s.long_row_bound = v[5], s.row_max_kept = v[6];
        s.ell_long_row_bound = v[7], s.ell_row_max_kept = v[8], s.offset_bits = (int)v[9];
        s.wide = (int)v[10], s.ell_wide = (int)v[11];
        p = strchr(tab + 1, '\t');
        for (int b = 0; p && b < SP_ROW_HIST_BINS; b++) {
            long long h = 0, hn = 0;
            int used = 0;
            if (sscanf(p, " %lld %lld%n", &h, &hn, &used) != 2) break;
            hist[b] = h, hist_nnz[b] = hn;
            p += used;
        }
        s.hist = hist, s.hist_nnz = hist_nnz;
        s.sm_count = 132;
        print_line(rp, line, &s);
    }
    fclose(f);
    return 0;
}

/* ---- building an input ----------------------------------------------------------------- */

/* A generator spec as spbench --gen reads it (kron, uniform, poisson3d, poisson3d27,
 * randcol, and the shapes of sp_gen_shape), with its ",f32" / ",f64" suffix. */
static sp_status_t generate(const char *gen, sp_coo_t **coo)
{
    char spec[128], kind[32] = "";
    long long a = 0, b = 16;
    sp_value_type_t type = SP_R_64F;
    sp_status_t st = SP_STATUS_INVALID_ARGUMENT;
    char *comma;
    snprintf(spec, sizeof spec, "%s", gen);
    if ((comma = strrchr(spec, ',')) != NULL) {
        type = !strcmp(comma, ",f32") ? SP_R_32F : SP_R_64F;
        *comma = '\0';
    }
    if (!sb_gen_shape_spec(spec, 1, type, coo, &st)) return st;
    if (sscanf(spec, "%31[a-z0-9]:%lld:%lld", kind, &a, &b) < 2) return st;
    if (!strcmp(kind, "kron") || !strcmp(kind, "uniform")) {
        st = !strcmp(kind, "kron") ? sp_gen_kronecker((int)a, (int)b, 1, type, coo)
                                   : sp_gen_uniform((int)a, (int)b, 1, type, coo);
        if (st == SP_STATUS_SUCCESS) st = sp_coo_symmetrize(*coo, 1);
    } else if (!strcmp(kind, "poisson3d")) {
        st = sp_gen_poisson3d(a, type, coo);
    } else if (!strcmp(kind, "poisson3d27")) {
        st = sp_gen_poisson3d27(a, type, coo);
    } else if (!strcmp(kind, "randcol")) {
        st = sb_gen_random_columns(a, b, 16, 1, type, coo);
    }
    return st;
}

/* A file of datasets/ as spbench --suite-wide reads it (unit values for patterns, complex
 * files by their real part). */
static sp_status_t load(const char *path, sp_coo_t **coo)
{
    const char *reader = sb_reader_for_path(path);
    if (reader && !strcmp(reader, "mtx")) {
        sp_mtx_options_t mo = {.complex_mode = SP_COMPLEX_REAL_PART};
        return sp_mtx_read(path, SP_R_64F, &mo, coo);
    }
    if (reader) {
        sp_edgelist_options_t eo = {0};
        if (!strcmp(reader, "dimacs")) eo.format = SP_EDGELIST_DIMACS;
        else if (!strcmp(reader, "metis")) eo.format = SP_EDGELIST_METIS;
        else eo.format = SP_EDGELIST_SNAP;
        return sp_edgelist_read(path, SP_R_64F, &eo, coo, NULL);
    }
    return SP_STATUS_INVALID_ARGUMENT;
}

/* The statistics of the matrix as a CUDA context on an H100 takes them. */
static void device_stats(sp_matrix_t *A, sp__spmv_stats_t *s)
{
    sp_coo_t sorted = {0};
    sp__spmv_stats_of(NULL, A, s);
    sorted.nrows = A->f.coo.nrows, sorted.ncols = A->f.coo.ncols, sorted.nnz = A->f.coo.nnz;
    sorted.row = A->f.coo.row, sorted.col = A->f.coo.col;
    s->col_near = sp__coo_col_near(&sorted); /* the device samples the sorted entries */
    s->sm_count = 132;
}

static int replay_input(replay_t *rp, sp_context_t *ctx, const char *gen, const char *path)
{
    const char *name = gen ? gen : path;
    sp_coo_t *coo = NULL;
    sp_matrix_t *A = NULL;
    sp__spmv_stats_t s;
    sp_status_t st = gen ? generate(gen, &coo) : load(path, &coo);
    int rc = 1;
    if (st != SP_STATUS_SUCCESS) goto done;
    if (rp->max_nnz > 0 && coo->nnz > rp->max_nnz) {
        fprintf(stderr, "spmv_model_replay: %s skipped (%lld entries > --max-nnz)\n", name,
                (long long)coo->nnz);
        rc = 0;
        goto done;
    }
    st = sp_matrix_create(ctx, coo, NULL, &A);
    sp_coo_free(coo); /* the matrix holds its own sorted copy */
    coo = NULL;
    if (st != SP_STATUS_SUCCESS) goto done;
    device_stats(A, &s);
    if (rp->stats_out) write_stats(rp->stats_out, name, &s);
    print_line(rp, name, &s);
    rc = 0;
done:
    if (rc) fprintf(stderr, "spmv_model_replay: %s: %s\n", name, sp_last_error());
    sp_matrix_destroy(A);
    sp_coo_free(coo);
    return rc;
}

static int replay_set(replay_t *rp, sp_context_t *ctx, sb_suite_set_t set)
{
    sb_suite_input_t *list = NULL;
    int n = 0, rc = 0;
    if (sb_suite_inputs(set, &list, &n)) return 1;
    for (int i = 0; i < n; i++)
        rc |= replay_input(rp, ctx, list[i].gen[0] ? list[i].gen : NULL,
                           list[i].gen[0] ? NULL : list[i].path);
    free(list);
    return rc;
}

/* --set NAME=VALUE on the replay's copy of the sm_90 row; 1 when NAME is unknown. */
static int set_constant(replay_t *rp, const char *arg)
{
    sp__spmv_format_policy_t *f = &rp->format;
    char name[64];
    double v = 0.0;
    int k = -1;
    if (sscanf(arg, "%63[^=]=%lf", name, &v) != 2) return 1;
    if (sscanf(name, "eff_near.%d", &k) == 1 && k >= 0 && k < SP__KIND_COUNT) f->eff_near[k] = v;
    else if (sscanf(name, "eff_far.%d", &k) == 1 && k >= 0 && k < SP__KIND_COUNT) f->eff_far[k] = v;
    else if (!strcmp(name, "launch_us")) f->launch_us = v;
    else if (!strcmp(name, "step_us")) f->step_us = v;
    else if (!strcmp(name, "read_gbs")) f->read_gbs = v;
    else if (!strcmp(name, "fence_us")) f->fence_us = v;
    else if (!strcmp(name, "l2_bytes")) f->l2_bytes = v;
    else if (!strcmp(name, "l2_gbs")) f->l2_gbs = v;
    else return 1;
    return 0;
}

int main(int argc, char **argv)
{
    replay_t rp = {0};
    sp_context_t *ctx = NULL;
    int rc = 0;
    rp.policy = *sp__policy_for_sm(90);
    rp.format = *rp.policy.spmv_format;
    rp.policy.spmv_format = &rp.format;
    for (int i = 1; i < argc; i++) /* constants and options first: they apply to every input */
        if (!strcmp(argv[i], "--set") && i + 1 < argc) {
            if (set_constant(&rp, argv[++i])) {
                fprintf(stderr, "spmv_model_replay: unknown constant %s\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--max-nnz") && i + 1 < argc) {
            rp.max_nnz = atoll(argv[++i]);
        } else if (!strcmp(argv[i], "--stats-out") && i + 1 < argc) {
            rp.stats_out = fopen(argv[++i], "w");
            if (!rp.stats_out) return 2;
        }
    if (sp_context_create(SP_DEVICE_HOST, NULL, &ctx) != SP_STATUS_SUCCESS) return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--set") || !strcmp(a, "--max-nnz") || !strcmp(a, "--stats-out")) i++;
        else if (!strcmp(a, "--suite")) rc |= replay_set(&rp, ctx, SB_SUITE_FULL);
        else if (!strcmp(a, "--suite-wide")) rc |= replay_set(&rp, ctx, SB_SUITE_WIDE);
        else if (!strcmp(a, "--gen") && i + 1 < argc) rc |= replay_input(&rp, ctx, argv[++i], NULL);
        else if (!strcmp(a, "--stats-in") && i + 1 < argc) rc |= read_stats(&rp, argv[++i]);
        else if (a[0] == '-') {
            fprintf(stderr, "spmv_model_replay: unknown option %s\n", a);
            rc = 2;
            break;
        } else rc |= replay_input(&rp, ctx, NULL, a);
    }
    if (rp.stats_out) fclose(rp.stats_out);
    sp_context_destroy(ctx);
    return rc;
}
