/* spbench --bfs: sources of non-zero degree from a fixed seed (Graph500 / gapbs), each
 * search timed and then validated by properties; TEPS as a harmonic mean. TEPS counts
 * the directed edges leaving reached vertices (for a symmetric graph, twice the input
 * undirected edges of the traversed component). */
#include <stdlib.h>
#include <string.h>

#include "spbench_util.h"

static int has_edge(const sp_format_view_t *g, int32_t u, int32_t v)
{
    int32_t lo = g->ptr[u], hi = g->ptr[u + 1];
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (g->idx[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->ptr[u + 1] && g->idx[lo] == v;
}

/* Properties a correct BFS tree has (gapbs' verifier): source at level 0 and its own
 * parent; every reached vertex's parent is a neighbour one level up; no edge from a
 * reached vertex skips a level or leads to an unreached vertex. */
static int validate(const sp_format_view_t *g, int32_t source, const int32_t *level,
                    const int32_t *parent, int64_t *edges)
{
    *edges = 0;
    if (level[source] != 0 || parent[source] != source) return 0;
    for (int32_t u = 0; u < (int32_t)g->nrows; u++) {
        if (level[u] < 0) {
            if (parent[u] != -1) return 0;
            continue;
        }
        if (u != source) {
            int32_t p = parent[u];
            if (p < 0 || p >= g->nrows || level[p] != level[u] - 1 || !has_edge(g, p, u)) return 0;
        }
        for (int32_t k = g->ptr[u]; k < g->ptr[u + 1]; k++) {
            int32_t v = g->idx[k];
            if (level[v] < 0 || level[v] > level[u] + 1) return 0;
        }
        *edges += g->ptr[u + 1] - g->ptr[u];
    }
    return 1;
}

static int pick_sources(const sp_format_view_t *g, int64_t source, int n, uint64_t seed,
                        int32_t *out)
{
    int count = 0;
    if (source >= 0) {
        out[0] = (int32_t)source;
        return source < g->nrows ? 1 : 0;
    }
    for (int64_t tries = 0; count < n && tries < 64 * (int64_t)n + 1000; tries++) {
        int32_t v = (int32_t)(sb_splitmix(&seed) % (uint64_t)g->nrows);
        int dup = 0;
        if (g->ptr[v + 1] == g->ptr[v]) continue;
        for (int i = 0; i < count; i++) dup |= out[i] == v;
        if (!dup) out[count++] = v;
    }
    return count;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int sb_run_bfs(sp_context_t *ctx, sp_matrix_t *A, int64_t source, int nsources,
               uint64_t seed, sb_report_t *r)
{
    sp_format_view_t g;
    int32_t *level = NULL, *parent = NULL, *sources = NULL;
    double *ms = NULL, inv_teps = 0;
    int64_t edge_sum = 0;
    int rc = 1, n = 0, valid = 1;
    if (r->info.nrows != r->info.ncols || r->info.nrows == 0) {
        printf("bfs: skipped (matrix is %lld x %lld, not a non-empty square graph)\n",
               (long long)r->info.nrows, (long long)r->info.ncols);
        return 0;
    }
    if (sp_matrix_build(ctx, A, SP_FORMAT_CSR) || sp_matrix_view(A, SP_FORMAT_CSR, &g)) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        return 1;
    }
    level = malloc((size_t)g.nrows * sizeof *level);
    parent = malloc((size_t)g.nrows * sizeof *parent);
    sources = malloc((size_t)(source >= 0 ? 1 : nsources) * sizeof *sources);
    ms = malloc((size_t)(source >= 0 ? 1 : nsources) * sizeof *ms);
    if (!level || !parent || !sources || !ms) goto done;
    n = pick_sources(&g, source, nsources, seed, sources);
    if (n == 0) {
        fprintf(stderr, "spbench: no BFS source (source out of range or no edges)\n");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        int64_t edges;
        double t0 = sb_now();
        if (sp_bfs(ctx, A, sources[i], NULL, level, parent, NULL) != SP_STATUS_SUCCESS ||
            sp_context_synchronize(ctx) != SP_STATUS_SUCCESS) {
            fprintf(stderr, "spbench: %s\n", sp_last_error());
            goto done;
        }
        ms[i] = 1e3 * (sb_now() - t0);
        valid &= validate(&g, sources[i], level, parent, &edges);
        edge_sum += edges;
        inv_teps += ms[i] / 1e3 / (double)(edges > 0 ? edges : 1);
    }
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    r->bfs_sources = n;
    r->bfs_ms_median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    r->bfs_teps_hmean = (double)n / inv_teps;
    r->bfs_edges_mean = edge_sum / n;
    r->bfs_valid = valid;
    printf("bfs_sources: %d (seed %llu, non-zero degree)\n", n, (unsigned long long)seed);
    printf("bfs_ms: median %.4f min %.4f max %.4f\n", r->bfs_ms_median, ms[0], ms[n - 1]);
    printf("bfs_edges_traversed_mean: %lld (directed edges leaving reached vertices)\n",
           (long long)r->bfs_edges_mean);
    printf("bfs_MTEPS_hmean: %.3f\n", r->bfs_teps_hmean / 1e6);
    printf("bfs_valid: %s\n", valid ? "yes" : "NO");
    rc = valid ? 0 : 1;
done:
    free(level);
    free(parent);
    free(sources);
    free(ms);
    return rc;
}
