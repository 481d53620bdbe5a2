/* spbench --bfs: sources of non-zero degree from a fixed seed (Graph500 / gapbs); per
 * variant and level loop (every valid combination, and the persistent loop with the
 * cooperative-groups barrier for comparison): mean and harmonic-mean time, GTEPS counted
 * as Graph500 does (input undirected edges of the traversed component) and as directed
 * edges traversed, levels and time per level. Every search measured is validated by the
 * Graph500 rules (sp__bfs_validate_threads: the reference's rules on every core, outside
 * the timing); --check also compares the levels with the reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_api.h"
#include "spbench_bfs.h"

/* The combinations measured, in table order; coop marks the cooperative barrier. */
static const struct {
    sp_bfs_variant_t variant;
    sp_bfs_loop_t loop;
    int coop;
} g_combos[] = {
    {SP_BFS_PUSH, SP_BFS_LOOP_HOST, 0},          {SP_BFS_PULL, SP_BFS_LOOP_HOST, 0},
    {SP_BFS_EDGE, SP_BFS_LOOP_HOST, 0},          {SP_BFS_FRONTIER, SP_BFS_LOOP_HOST, 0},
    {SP_BFS_PRIVATIZED, SP_BFS_LOOP_HOST, 0},    {SP_BFS_DIRECTION_OPT, SP_BFS_LOOP_HOST, 0},
    {SP_BFS_FRONTIER, SP_BFS_LOOP_SINGLE_BLOCK, 0}, {SP_BFS_FRONTIER, SP_BFS_LOOP_PERSISTENT, 0},
    {SP_BFS_FRONTIER, SP_BFS_LOOP_PERSISTENT, 1}, {SP_BFS_FRONTIER, SP_BFS_LOOP_GRAPH, 0},
    {SP_BFS_PULL, SP_BFS_LOOP_GRAPH, 0},          {SP_BFS_DIRECTION_OPT, SP_BFS_LOOP_GRAPH, 0},
    {SP_BFS_AUTO, SP_BFS_LOOP_AUTO, 0},
};
enum { NCOMBOS = sizeof g_combos / sizeof g_combos[0] };

const char *sb_bfs_loop_label(sp_bfs_loop_t loop, int coop)
{
    return coop ? "persistent_coop" : sp_bfs_loop_name(loop);
}

/* The host CSR of A: the matrix itself on a host context, the view's mirror on CUDA. */
static const sp_csr_t *host_csr(sp_matrix_t *A)
{
    sp_format_view_t view;
    if (sp_matrix_build(A->ctx, A, SP_FORMAT_CSR) || sp_matrix_view(A, SP_FORMAT_CSR, &view))
        return NULL;
    return sp_context_kind(A->ctx) == SP_DEVICE_CUDA ? &A->mirror->csr : &A->f.csr;
}

/* Output arrays in the context's memory: device memory through spbench's GPU handle, or
 * plain host memory on a host context. */
static void *ctx_alloc(const sb_bfs_request_t *q, void *h_zeros, size_t bytes)
{
    if (!q->gpu) return malloc(bytes);
    return sb_gpu_upload(q->gpu, h_zeros, bytes);
}

static void ctx_free(const sb_bfs_request_t *q, void *p)
{
    if (!q->gpu) free(p);
    else if (p) sb_gpu_free(q->gpu, p);
}

static int copy_to_host(const sb_bfs_request_t *q, void *h, const void *d, size_t bytes)
{
    if (!q->gpu) {
        memcpy(h, d, bytes);
        return 0;
    }
    return sb_gpu_download(q->gpu, h, d, bytes);
}

static int has_entry(const sp_csr_t *g, int32_t u, int32_t v)
{
    int64_t lo = sp__csr_at(g, u), hi = sp__csr_at(g, u + 1);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (g->idx[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < sp__csr_at(g, u + 1) && g->idx[lo] == v;
}

/* 1 when every entry (u, v) has its mirror (v, u). */
static int is_symmetric(const sp_csr_t *g)
{
    for (int32_t u = 0; u < g->nrows; u++)
        for (int64_t k = sp__csr_at(g, u); k < sp__csr_at(g, u + 1); k++)
            if (!has_entry(g, g->idx[k], u)) return 0;
    return 1;
}

/* The vertices with a self-loop, found once per graph (a search counts those it reached):
 * *loops (malloc'd, NULL when there are none) and their count; -1 when out of memory. */
static int64_t find_self_loops(const sp_csr_t *g, int32_t **loops)
{
    int64_t count = 0, k = 0;
    *loops = NULL;
    for (int32_t v = 0; v < g->nrows; v++) count += has_entry(g, v, v);
    if (count == 0) return 0;
    if (!(*loops = malloc((size_t)count * sizeof **loops))) return -1;
    for (int32_t v = 0; v < g->nrows; v++)
        if (has_entry(g, v, v)) (*loops)[k++] = v;
    return count;
}

/* Input edges of the traversed component as Graph500 counts them: on an undirected graph
 * each edge once ((directed entries + self-loops reached) / 2), on a directed one each
 * entry. */
static double graph500_edges(const int32_t *loops, int64_t nloops, const int32_t *level,
                             int64_t directed, int undirected)
{
    int64_t reached = 0;
    if (!undirected) return (double)directed;
    for (int64_t i = 0; i < nloops; i++) reached += level[loops[i]] >= 0;
    return 0.5 * (double)(directed + reached);
}

static int pick_sources(const sp_csr_t *g, const sb_bfs_request_t *q, int32_t *out)
{
    uint64_t seed = q->seed;
    int count = 0;
    if (q->source >= 0) {
        out[0] = (int32_t)q->source;
        return q->source < g->nrows ? 1 : 0;
    }
    for (int64_t tries = 0; count < q->nsources && tries < 64 * (int64_t)q->nsources + 1000;
         tries++) {
        int32_t v = (int32_t)(sb_splitmix(&seed) % (uint64_t)g->nrows);
        int dup = 0;
        if (sp__csr_at(g, v + 1) == sp__csr_at(g, v)) continue;
        for (int i = 0; i < count; i++) dup |= out[i] == v;
        if (!dup) out[count++] = v;
    }
    return count;
}

/* Whether name is one of the comma-separated names of list. */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* Whether every comma-separated name of list passes known (empty names do not). */
static int all_known(const char *list, int (*known)(const char *))
{
    char name[64];
    for (const char *p = list; p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0 || n >= sizeof name) return 0;
        memcpy(name, p, n);
        name[n] = '\0';
        if (!known(name)) return 0;
        p = end ? end + 1 : NULL;
    }
    return 1;
}

static int selected(const sb_bfs_request_t *q, int c)
{
    const char *loop = sb_bfs_loop_label(g_combos[c].loop, g_combos[c].coop);
    if (q->variant && !in_list(q->variant, sp_bfs_variant_name(g_combos[c].variant))) return 0;
    if (q->loop && !in_list(q->loop, loop)) return 0;
    return 1;
}

/* Buffers of one table run. */
typedef struct bfs_buffers {
    const sp_csr_t *g;
    int32_t *loops; /* the vertices with a self-loop (undirected graphs), nloops of them */
    int64_t nloops;
    int32_t *sources, *level, *parent, *ref; /* host */
    int32_t *d_level, *d_parent;             /* context memory (host arrays on a host ctx) */
    int32_t *d_mlevel, *d_mparent;           /* sp_bfs_multi's outputs: batch searches */
    int nsrc, ref_source, batch;
} bfs_buffers_t;

/* One timed search of variant x loop (coop: the cooperative barrier) into d_level and
 * d_parent; records (NULL: none) gives the per-level arrays. */
static sp_status_t search_with(sp_context_t *ctx, sp_matrix_t *A, sp_bfs_variant_t variant,
                               sp_bfs_loop_t loop, int coop, int32_t source, int32_t *d_level,
                               int32_t *d_parent, const sp_bfs_options_t *records,
                               sp_bfs_stats_t *s)
{
    sp_bfs_options_t o = {0};
    if (records) o = *records;
    o.variant = variant, o.loop = loop, o.measure_time = 1;
    if (coop) return sp__bfs_persistent_coop(ctx, A, source, &o, d_level, d_parent, s);
    return sp_bfs(ctx, A, source, &o, d_level, d_parent, s);
}

/* One timed search of combination c into the table's outputs. */
static sp_status_t search(sp_context_t *ctx, sp_matrix_t *A, int c, int32_t source,
                          const bfs_buffers_t *b, const sp_bfs_options_t *records,
                          sp_bfs_stats_t *s)
{
    return search_with(ctx, A, g_combos[c].variant, g_combos[c].loop, g_combos[c].coop, source,
                       b->d_level, b->d_parent, records, s);
}

/* Validate the search just made (its outputs copied to the host first). */
static int validate(const sb_bfs_request_t *q, bfs_buffers_t *b,
                    int32_t source, double *g500, int64_t directed, char *why, size_t len)
{
    int64_t n = b->g->nrows;
    if (copy_to_host(q, b->level, b->d_level, (size_t)n * sizeof(int32_t)) ||
        copy_to_host(q, b->parent, b->d_parent, (size_t)n * sizeof(int32_t))) {
        snprintf(why, len, "copy to the host failed");
        return 0;
    }
    *g500 = graph500_edges(b->loops, b->nloops, b->level, directed, q->undirected);
    if (q->check && b->ref_source != source) {
        if (sp__ref_bfs(b->g, source, b->ref, NULL, NULL, NULL, NULL, NULL, 0)) return 0;
        b->ref_source = source;
    }
    return sp__bfs_validate_threads(b->g, source, b->level, b->parent,
                                    q->check ? b->ref : NULL, why, len, 0);
}

/* The amortized figure of combination c: sp_bfs_multi over all sources (in batches whose
 * outputs fit 1 GiB, made once per table), each search's time as the call reports it (they add up to the
 * call), Graph500 edges from the per-call searches (g500[i], same sources); the first
 * search of the first batch validated. Sets row->gteps_g500_multi, or leaves it 0 for the
 * cooperative baseline (no multi-source form) or when the outputs do not fit. */
static void run_multi(sp_context_t *ctx, sp_matrix_t *A, const sb_bfs_request_t *q, int c,
                      bfs_buffers_t *b, const double *g500, sb_bfs_row_t *row)
{
    int64_t n = b->g->nrows;
    int64_t fit = ((int64_t)1 << 30) / (8 * (n > 0 ? n : 1));
    int64_t *src = NULL;
    int32_t *d_level, *d_parent;
    sp_bfs_stats_t *st = NULL;
    sp_bfs_options_t o = {0};
    double inv_g500 = 0, sum_ms = 0;
    int batch;
    if (g_combos[c].coop || fit < 1) return;
    if (!b->d_mlevel) { /* once per table, kept for every combination */
        int32_t *zeros;
        b->batch = (int)(fit < b->nsrc ? fit : b->nsrc);
        zeros = calloc((size_t)(b->batch * n), sizeof *zeros);
        if (zeros) {
            b->d_mlevel = ctx_alloc(q, zeros, (size_t)(b->batch * n) * sizeof(int32_t));
            b->d_mparent = ctx_alloc(q, zeros, (size_t)(b->batch * n) * sizeof(int32_t));
        }
        free(zeros);
    }
    d_level = b->d_mlevel, d_parent = b->d_mparent, batch = b->batch;
    o.variant = g_combos[c].variant, o.loop = g_combos[c].loop, o.measure_time = 1;
    src = malloc((size_t)b->nsrc * sizeof *src);
    st = malloc((size_t)b->nsrc * sizeof *st);
    if (!src || !st || !d_level || !d_parent) goto done;
    for (int i = 0; i < b->nsrc; i++) src[i] = b->sources[i];
    for (int i = 0; i < b->nsrc; i += batch) {
        int k = b->nsrc - i < batch ? b->nsrc - i : batch;
        if (sp_bfs_multi(ctx, A, k, src + i, &o, d_level, d_parent, st + i)) {
            snprintf(row->message, sizeof row->message, "multi: %s", sp_last_error());
            row->valid = 0;
            goto done;
        }
        if (i == 0) { /* the first search, against the per-call one's validation */
            int32_t *keep_l = b->d_level, *keep_p = b->d_parent;
            char why[512];
            double e = 0;
            b->d_level = d_level, b->d_parent = d_parent;
            if (!validate(q, b, b->sources[0], &e, st[0].edges_traversed, why, sizeof why)) {
                if (row->valid)
                    snprintf(row->message, sizeof row->message, "multi source %d: %s",
                             b->sources[0], why);
                row->valid = 0;
            }
            b->d_level = keep_l, b->d_parent = keep_p;
        }
    }
    for (int i = 0; i < b->nsrc; i++) {
        double ms = st[i].time_ms > 0 ? st[i].time_ms : 1e-6;
        sum_ms += ms;
        inv_g500 += ms * 1e-3 / (g500[i] > 0 ? g500[i] : 1);
    }
    row->ms_multi_mean = sum_ms / b->nsrc;
    row->gteps_g500_multi = b->nsrc / inv_g500 / 1e9;
done:
    free(st);
    free(src);
}

/* All searches of combination c; fills row. */
static void run_combo(sp_context_t *ctx, sp_matrix_t *A, const sb_bfs_request_t *q, int c,
                      bfs_buffers_t *b, sb_bfs_row_t *row)
{
    double sum_ms = 0, inv_ms = 0, inv_g500 = 0, inv_kern = 0, inv_dir = 0, levels = 0,
           per_level = 0;
    double *g500s = calloc((size_t)b->nsrc, sizeof *g500s);
    sp_bfs_stats_t s = {0};
    memset(row, 0, sizeof *row);
    row->variant = g_combos[c].variant;
    row->loop = g_combos[c].loop;
    row->coop = g_combos[c].coop;
    row->valid = 1;
    if (!g500s) {
        row->status = SP_STATUS_ALLOC_FAILED;
        snprintf(row->message, sizeof row->message, "out of host memory");
        return;
    }
    /* SB_BFS_WARMUP calls, or fewer (at least SB_BFS_WARMUP_MIN) once they have taken
     * SB_BFS_WARMUP_SECONDS: the first makes the cache, the rest warm caches and clocks */
    double w0 = sb_now();
    for (int w = 0; w < SB_BFS_WARMUP; w++) {
        if (w >= SB_BFS_WARMUP_MIN && sb_now() - w0 > SB_BFS_WARMUP_SECONDS) break;
        if ((row->status = search(ctx, A, c, b->sources[w % b->nsrc], b, NULL, &s)) != 0) break;
    }
    if (row->status) {
        snprintf(row->message, sizeof row->message, "%s", sp_last_error());
        free(g500s);
        return;
    }
    row->variant_used = s.variant_used;
    row->loop_used = s.loop_used;
    for (int i = 0; i < b->nsrc; i++) {
        char why[512];
        double g500 = 0, ms, kern;
        if ((row->status = search(ctx, A, c, b->sources[i], b, NULL, &s)) != 0) {
            snprintf(row->message, sizeof row->message, "%s", sp_last_error());
            free(g500s);
            return;
        }
        ms = s.time_ms > 0 ? s.time_ms : 1e-6;
        kern = s.search_ms > 0 ? s.search_ms : 1e-6;
        if (q->validate_all || i < q->validate_first) {
            if (!validate(q, b, b->sources[i], &g500, s.edges_traversed, why, sizeof why)) {
                if (row->valid) snprintf(row->message, sizeof row->message, "source %d: %s",
                                         b->sources[i], why);
                row->valid = 0;
            }
            row->validated++;
        } else {
            g500 = q->undirected ? 0.5 * (double)s.edges_traversed : (double)s.edges_traversed;
        }
        g500s[i] = g500;
        sum_ms += ms;
        inv_ms += 1 / ms;
        inv_g500 += ms * 1e-3 / (g500 > 0 ? g500 : 1);
        inv_kern += kern * 1e-3 / (g500 > 0 ? g500 : 1);
        inv_dir += ms * 1e-3 / (double)(s.edges_traversed > 0 ? s.edges_traversed : 1);
        levels += (double)s.levels;
        per_level += 1e3 * ms / (double)s.levels;
        row->switches += s.direction_switches;
    }
    row->sources = b->nsrc;
    row->ms_mean = sum_ms / b->nsrc;
    row->ms_hmean = b->nsrc / inv_ms;
    row->gteps_g500 = b->nsrc / inv_g500 / 1e9;
    row->gteps_g500_kernel = b->nsrc / inv_kern / 1e9;
    row->gteps_directed = b->nsrc / inv_dir / 1e9;
    row->levels_mean = levels / b->nsrc;
    row->us_per_level = per_level / b->nsrc;
    run_multi(ctx, A, q, c, b, g500s, row);
    free(g500s);
}

/* A figure, or n/a where it was not measured (0). */
static void print_gteps(double g)
{
    if (g > 0) printf(" %9.3f", g);
    else printf(" %9s", "n/a");
}

void sb_print_bfs_row(const char *graph, const sb_bfs_row_t *row)
{
    const char *v = sp_bfs_variant_name(row->variant), *l = sb_bfs_loop_label(row->loop, row->coop);
    if (row->status) {
        printf("%-22s %-14s %-16s n/a: %s\n", graph, v, l, row->message);
        return;
    }
    printf("%-22s %-14s %-16s %4d %10.4f %10.4f %9.3f", graph, v, l, row->sources, row->ms_mean,
           row->ms_hmean, row->gteps_g500);
    print_gteps(row->gteps_g500_multi);
    print_gteps(row->gteps_g500_kernel);
    printf(" %9.3f %8.1f %9.2f %6lld %s%s%s\n", row->gteps_directed, row->levels_mean,
           row->us_per_level, (long long)row->switches, row->valid ? "yes" : "NO",
           row->valid ? "" : " ", row->valid ? "" : row->message);
}

void sb_print_bfs_header(void)
{
    printf("%-22s %-14s %-16s %4s %10s %10s %9s %9s %9s %9s %8s %9s %6s %s\n", "graph", "variant",
           "loop", "src", "ms_mean", "ms_hmean", "GTEPS_g5", "g5_multi", "g5_kern", "GTEPS_dir",
           "levels", "us/level", "switch", "valid");
    printf("(per call, after %d warm-up calls (at least %d, fewer once they took %.0f s): "
           "ms_*, GTEPS_g5, GTEPS_dir and us/level are the host wall clock of each sp_bfs "
           "call, everything it does included (stats.time_ms); g5_multi: amortized, each "
           "search's share of sp_bfs_multi calls over the same sources; g5_kern: the "
           "traversal's kernels alone, CUDA events (stats.search_ms). GTEPS_g5*: harmonic "
           "mean, Graph500-counted: input undirected edges of the traversed component; "
           "GTEPS_dir: directed edges traversed (out-edges of reached vertices))\n",
           SB_BFS_WARMUP, SB_BFS_WARMUP_MIN, SB_BFS_WARMUP_SECONDS);
}

/* --bfs-levels: one more search of combination c from the first source, with per-level
 * stats; a line per level (the first SB_BFS_LEVEL_LINES and the last). */
static void print_levels(sp_context_t *ctx, sp_matrix_t *A, int c, const bfs_buffers_t *b)
{
    enum { CAP = 1 << 14 };
    static int64_t sizes[CAP];
    static int32_t dirs[CAP];
    static double times[CAP];
    sp_bfs_stats_t s = {0};
    sp_bfs_options_t rec = {0};
    rec.frontier_sizes = sizes, rec.directions = dirs, rec.level_times_ms = times;
    rec.frontier_capacity = CAP;
    if (search(ctx, A, c, b->sources[0], b, &rec, &s)) return;
    int64_t shown = s.levels < CAP ? s.levels : CAP;
    for (int64_t l = 0; l < shown; l++) {
        if (l == SB_BFS_LEVEL_LINES && shown > SB_BFS_LEVEL_LINES + 1) {
            printf("  ... %lld levels ...\n", (long long)(shown - SB_BFS_LEVEL_LINES - 1));
            l = shown - 1;
        }
        printf("  level %5lld  %-4s frontier %10lld  ", (long long)l,
               dirs[l] == SP_BFS_DIR_PULL ? "pull" : "push", (long long)sizes[l]);
        if (times[l] >= 0) printf("%9.4f ms\n", times[l]);
        else printf("%9s\n", "n/a");
    }
    printf("  source %d: %lld levels, %.4f ms the call, %.4f ms the traversal\n", b->sources[0],
           (long long)s.levels, s.time_ms, s.search_ms);
}

int sb_bfs_table(sp_context_t *ctx, sp_matrix_t *A, const sb_bfs_request_t *q, const char *graph,
                 sb_bfs_row_t *rows, int *nrows)
{
    bfs_buffers_t b = {0};
    sb_bfs_request_t req = *q;
    int rc = 1, ok = 1, cap = q->source >= 0 ? 1 : q->nsources;
    *nrows = 0;
    b.ref_source = -1;
    if (!(b.g = host_csr(A))) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        return 1;
    }
    sb_stage("host CSR for validation");
    if (req.undirected < 0) req.undirected = is_symmetric(b.g);
    int64_t n = b.g->nrows;
    if (req.undirected && (b.nloops = find_self_loops(b.g, &b.loops)) < 0) {
        fprintf(stderr, "spbench: out of memory for the self-loop list\n");
        goto done;
    }
    b.sources = malloc((size_t)cap * sizeof *b.sources);
    b.level = malloc((size_t)n * sizeof *b.level);
    b.parent = malloc((size_t)n * sizeof *b.parent);
    b.ref = calloc((size_t)n, sizeof *b.ref);
    if (b.ref) {
        b.d_level = ctx_alloc(&req, b.ref, (size_t)n * sizeof(int32_t));
        b.d_parent = ctx_alloc(&req, b.ref, (size_t)n * sizeof(int32_t));
    }
    if (!b.sources || !b.level || !b.parent || !b.ref || !b.d_level || !b.d_parent) {
        fprintf(stderr, "spbench: out of memory for BFS outputs\n");
        goto done;
    }
    b.nsrc = pick_sources(b.g, &req, b.sources);
    if (b.nsrc == 0) {
        fprintf(stderr, "spbench: no BFS source (source out of range or no edges)\n");
        goto done;
    }
    printf("bfs_sources: %d (seed %llu, non-zero degree)\nbfs_graph: %s\n", b.nsrc,
           (unsigned long long)req.seed, req.undirected ? "undirected" : "directed");
    for (int c = 0; c < NCOMBOS; c++) {
        if (!selected(&req, c)) continue;
        /* on the host every variant is the reference: measured once, under the first name
         * selected (AUTO when none is) */
        if (sp_context_kind(ctx) == SP_DEVICE_HOST && *nrows > 0) break;
        if (sp_context_kind(ctx) == SP_DEVICE_HOST && !req.variant && !req.loop)
            c = NCOMBOS - 1;
        run_combo(ctx, A, &req, c, &b, &rows[*nrows]);
        ok &= rows[*nrows].status != 0 || rows[*nrows].valid;
        sb_print_bfs_row(graph, &rows[*nrows]);
        if (req.levels && !rows[*nrows].status) print_levels(ctx, A, c, &b);
        fflush(stdout);
        (*nrows)++;
    }
    rc = ok ? 0 : 1;
    sb_stage("BFS table, every search validated");
done:
    ctx_free(&req, b.d_mparent);
    ctx_free(&req, b.d_mlevel);
    ctx_free(&req, b.d_parent);
    ctx_free(&req, b.d_level);
    free(b.ref);
    free(b.parent);
    free(b.level);
    free(b.sources);
    free(b.loops);
    return rc;
}

int sb_bfs_interleaved(sp_context_t *ctx, sp_matrix_t *A, sp_matrix_t *B,
                       const sb_bfs_request_t *q, const sb_bfs_row_t *ra,
                       const sb_bfs_row_t *rb, int rounds, double *ms_a, double *ms_b)
{
    const sp_csr_t *g = host_csr(A);
    int32_t *sources = NULL, *zeros = NULL, *d_level = NULL, *d_parent = NULL;
    sp_matrix_t *M[2] = {A, B};
    const sb_bfs_row_t *R[2] = {ra, rb};
    double sum[2] = {0, 0};
    int rc = 1, nsrc = 0, cap = q->source >= 0 ? 1 : q->nsources;
    sp_bfs_stats_t s = {0};
    if (!g) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        return 1;
    }
    sources = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *sources);
    zeros = calloc((size_t)g->nrows, sizeof *zeros);
    if (sources && zeros) {
        d_level = ctx_alloc(q, zeros, (size_t)g->nrows * sizeof(int32_t));
        d_parent = ctx_alloc(q, zeros, (size_t)g->nrows * sizeof(int32_t));
    }
    if (!sources || !zeros || !d_level || !d_parent) {
        fprintf(stderr, "spbench: out of memory for the interleaved BFS comparison\n");
        goto done;
    }
    nsrc = pick_sources(g, q, sources);
    /* warm-up: each side's cache built and its kernels loaded before any timed call */
    for (int w = 0; w < 2 * SB_BFS_WARMUP_MIN && nsrc > 0; w++)
        if (search_with(ctx, M[w & 1], R[w & 1]->variant, R[w & 1]->loop, R[w & 1]->coop,
                        sources[(w / 2) % nsrc], d_level, d_parent, NULL, &s)) {
            fprintf(stderr, "spbench: %s\n", sp_last_error());
            goto done;
        }
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nsrc; i++)
            for (int k = 0; k < 2; k++) { /* which side goes first alternates each call */
                int side = (r + i + k) & 1;
                if (search_with(ctx, M[side], R[side]->variant, R[side]->loop, R[side]->coop,
                                sources[i], d_level, d_parent, NULL, &s)) {
                    fprintf(stderr, "spbench: %s\n", sp_last_error());
                    goto done;
                }
                sum[side] += s.time_ms;
            }
    if (nsrc > 0 && rounds > 0) {
        *ms_a = sum[0] / ((double)rounds * nsrc);
        *ms_b = sum[1] / ((double)rounds * nsrc);
        rc = 0;
    }
done:
    ctx_free(q, d_parent);
    ctx_free(q, d_level);
    free(zeros);
    free(sources);
    return rc;
}

/* The summary lines of the single-input run, from the AUTO row (else the first row). */
int sb_run_bfs(sp_context_t *ctx, sp_matrix_t *A, const sb_bfs_request_t *q, sb_report_t *r)
{
    sb_bfs_row_t rows[NCOMBOS];
    int nrows = 0, rc;
    if (r->info.nrows != r->info.ncols || r->info.nrows == 0) {
        printf("bfs: skipped (matrix is %lld x %lld, not a non-empty square graph)\n",
               (long long)r->info.nrows, (long long)r->info.ncols);
        return 0;
    }
    if (q->variant && !sb_bfs_known_variant(q->variant)) {
        fprintf(stderr, "spbench: unknown --bfs-variant %s\n", q->variant);
        return 1;
    }
    if (q->loop && !sb_bfs_known_loop(q->loop)) {
        fprintf(stderr, "spbench: unknown --bfs-loop %s\n", q->loop);
        return 1;
    }
    sb_print_bfs_header();
    rc = sb_bfs_table(ctx, A, q, sb_short_name(r), rows, &nrows);
    const sb_bfs_row_t *pick = NULL;
    for (int i = 0; i < nrows; i++)
        if (!rows[i].status && (!pick || rows[i].variant == SP_BFS_AUTO)) pick = &rows[i];
    if (!pick) {
        if (nrows == 0) fprintf(stderr, "spbench: no BFS variant/loop matched\n");
        return 1;
    }
    r->bfs_sources = pick->sources;
    r->bfs_ms_median = pick->ms_mean;
    r->bfs_teps_hmean = pick->gteps_directed * 1e9;
    r->bfs_gteps_g500 = pick->gteps_g500;
    r->bfs_gteps_g500_multi = pick->gteps_g500_multi;
    r->bfs_gteps_g500_kernel = pick->gteps_g500_kernel;
    r->bfs_valid = rc == 0;
    printf("bfs_ms_mean: %.4f (%s/%s)\n", pick->ms_mean, sp_bfs_variant_name(pick->variant),
           sb_bfs_loop_label(pick->loop, pick->coop));
    printf("bfs_GTEPS_graph500_hmean: %.4f (per sp_bfs call, wall clock; input undirected "
           "edges of the traversed component)\n",
           pick->gteps_g500);
    printf("bfs_GTEPS_graph500_multi_hmean: %.4f (amortized over sp_bfs_multi)\n",
           pick->gteps_g500_multi);
    printf("bfs_GTEPS_graph500_kernel_hmean: %.4f (the traversal's kernels alone)\n",
           pick->gteps_g500_kernel);
    printf("bfs_GTEPS_directed_hmean: %.4f (directed edges traversed)\n", pick->gteps_directed);
    printf("bfs_MTEPS_hmean: %.3f\n", pick->gteps_directed * 1e3);
    printf("bfs_valid: %s\n", rc == 0 ? "yes" : "NO");
    return rc;
}

static int known_variant(const char *name)
{
    for (int v = SP_BFS_AUTO; v <= SP_BFS_DIRECTION_OPT; v++)
        if (!strcmp(name, sp_bfs_variant_name((sp_bfs_variant_t)v))) return 1;
    return 0;
}

static int known_loop(const char *name)
{
    if (!strcmp(name, "persistent_coop")) return 1;
    for (int l = SP_BFS_LOOP_AUTO; l <= SP_BFS_LOOP_GRAPH; l++)
        if (!strcmp(name, sp_bfs_loop_name((sp_bfs_loop_t)l))) return 1;
    return 0;
}

int sb_bfs_known_variant(const char *list) { return all_known(list, known_variant); }

int sb_bfs_known_loop(const char *list) { return all_known(list, known_loop); }
