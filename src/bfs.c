/* sp_bfs and sp_bfs_multi: argument checks, resolution of AUTO, and dispatch: on a host
 * context every variant runs the reference queue BFS over CSR (the variants differ only in
 * how a GPU does the work), on a CUDA context src/bfs_cuda.c runs the kernels. */
#include <stdio.h>

#include "policy.h"

/* The record arrays: a capacity needs an array, an array needs a capacity, and the
 * nsources searches of sp_bfs_multi fit one index. */
static sp_status_t check_records(const char *what, const sp_bfs_options_t *o, int64_t nsources)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int given = o->frontier_sizes || o->directions || o->level_times_ms;
    SP_CHECK_ARG(o->frontier_capacity >= 0, "%s: options->frontier_capacity %lld < 0", what,
                 (long long)o->frontier_capacity);
    SP_CHECK_ARG(o->frontier_capacity == 0 || given,
                 "%s: options->frontier_capacity %lld with frontier_sizes, directions and "
                 "level_times_ms NULL",
                 what, (long long)o->frontier_capacity);
    SP_CHECK_ARG(o->frontier_capacity > 0 || !o->frontier_sizes,
                 "%s: options->frontier_sizes given with frontier_capacity 0", what);
    SP_CHECK_ARG(o->frontier_capacity > 0 || !o->directions,
                 "%s: options->directions given with frontier_capacity 0", what);
    SP_CHECK_ARG(o->frontier_capacity > 0 || !o->level_times_ms,
                 "%s: options->level_times_ms given with frontier_capacity 0", what);
    SP_CHECK_ARG(nsources <= 1 || o->frontier_capacity <= INT64_MAX / nsources,
                 "%s: options->frontier_capacity %lld times %lld sources overflows", what,
                 (long long)o->frontier_capacity, (long long)nsources);
done:
    return st;
}

static sp_status_t check_options(const char *what, const sp_bfs_options_t *o, int64_t nsources)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (!o) goto done;
    SP_CHECK_ARG((int)o->variant >= SP_BFS_AUTO && o->variant <= SP_BFS_DIRECTION_OPT,
                 "%s: unknown variant %d", what, (int)o->variant);
    SP_CHECK_ARG((int)o->loop >= SP_BFS_LOOP_AUTO && o->loop <= SP_BFS_LOOP_GRAPH,
                 "%s: unknown loop %d", what, (int)o->loop);
    SP_CHECK_ARG(o->alpha >= 0 && o->beta >= 0, "%s: negative alpha %g or beta %g", what,
                 o->alpha, o->beta);
    if ((o->loop == SP_BFS_LOOP_SINGLE_BLOCK || o->loop == SP_BFS_LOOP_PERSISTENT) &&
        o->variant != SP_BFS_AUTO && o->variant != SP_BFS_FRONTIER)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s: variant %s with loop %s is not supported (the %s loop runs the frontier "
                "variant only)",
                what, sp_bfs_variant_name(o->variant), sp_bfs_loop_name(o->loop),
                sp_bfs_loop_name(o->loop));
    if (o->loop == SP_BFS_LOOP_GRAPH && o->variant != SP_BFS_AUTO &&
        o->variant != SP_BFS_FRONTIER && o->variant != SP_BFS_PULL &&
        o->variant != SP_BFS_DIRECTION_OPT)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s: variant %s with loop graph is not supported (the graph loop runs the "
                "frontier, pull and direction_opt variants)",
                what, sp_bfs_variant_name(o->variant));
    SP_TRY(check_records(what, o, nsources));
done:
    return st;
}

sp__bfs_record_t sp__bfs_record(const sp_bfs_options_t *options, int64_t i)
{
    sp__bfs_record_t r = {NULL, NULL, NULL, 0, 0};
    if (!options) return r;
    r.frontier_capacity = options->frontier_capacity;
    r.measure_time = options->measure_time != 0;
    if (options->frontier_sizes)
        r.frontier_sizes = options->frontier_sizes + i * r.frontier_capacity;
    if (options->directions) r.directions = options->directions + i * r.frontier_capacity;
    if (options->level_times_ms)
        r.level_times_ms = options->level_times_ms + i * r.frontier_capacity;
    return r;
}

/* Edges a vertex of a 64-bit graph may have beyond INT32_MAX - margin on a GPU: its hub
 * pieces start at multiples of sp_bfs_policy::hub_degree (kernels/bfs/bfs_policy.h, which
 * asserts it is at most this margin) inside a 32-bit degree. */
#define SP__BFS_DEGREE_MARGIN 65536

static sp_status_t check_bfs(const char *what, sp_context_t *ctx, sp_matrix_t *G,
                             int64_t nsources, const int64_t *sources,
                             const sp_bfs_options_t *options, const int32_t *level)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(ctx != NULL && G != NULL, "%s: ctx or G is NULL", what);
    SP_CHECK_ARG(G->ctx == ctx, "%s: graph belongs to another context", what);
    /* 64-bit offsets (issue 20): the GPU's kernels take them; vertex ids, degrees and the
     * hub pieces' starts stay 32-bit, so a vertex of nearly 2^31 edges (only possible with
     * duplicate entries) is refused (row_max bounds the in-degrees too: a CUDA context
     * builds no CSC past 2^31 entries, and a symmetric pattern's CSR is its CSC) */
    if (ctx->kind == SP_DEVICE_CUDA && G->offset_bits == 64 &&
        G->row_max > (int64_t)INT32_MAX - SP__BFS_DEGREE_MARGIN)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s on a CUDA context: a vertex of %lld edges (at most %lld on a GPU)", what,
                (long long)G->row_max, (long long)INT32_MAX - SP__BFS_DEGREE_MARGIN);
    SP_CHECK_ARG(G->f.coo.nrows == G->f.coo.ncols, "%s: graph matrix is %lld x %lld, not square",
                 what, (long long)G->f.coo.nrows, (long long)G->f.coo.ncols);
    SP_CHECK_ARG(nsources >= 0 && (nsources == 0 || sources != NULL),
                 "%s: %lld sources at %p", what, (long long)nsources, (const void *)sources);
    for (int64_t i = 0; i < nsources; i++)
        SP_CHECK_ARG(sources[i] >= 0 && sources[i] < G->f.coo.nrows,
                     "%s: source %lld outside 0..%lld", what, (long long)sources[i],
                     (long long)G->f.coo.nrows - 1);
    SP_CHECK_ARG(level != NULL, "%s: level is NULL", what);
    SP_TRY(check_options(what, options, nsources));
done:
    return st;
}

/* The reference queue BFS for every source with the cache's queue; records and timing as
 * options ask (times as sp__cuda_bfs gives them, from *t_ms on). */
static sp_status_t host_bfs(sp_matrix_t *G, const sp__bfs_cache_t *c, int64_t nsources,
                            const int64_t *sources, const sp_bfs_options_t *options,
                            int32_t *level, int32_t *parent, sp_bfs_stats_t *stats, double *t_ms)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t n = G->f.csr.nrows;
    for (int64_t i = 0; i < nsources; i++) {
        sp__bfs_record_t r = sp__bfs_record(options, i);
        int64_t levels = 0, vertices = 0, edges = 0;
        double t0 = r.measure_time ? sp__now_ms() : 0, t1;
        SP_TRY(sp__ref_bfs_with_queue(&G->f.csr, (int32_t)sources[i], c->h_queue,
                                      level + i * n, parent ? parent + i * n : NULL, &levels,
                                      &vertices, &edges, r.frontier_sizes,
                                      r.frontier_sizes ? r.frontier_capacity : 0));
        for (int64_t l = 0; r.directions && l < r.frontier_capacity; l++)
            r.directions[l] = l < levels ? SP_BFS_DIR_PUSH : -1;
        for (int64_t l = 0; r.level_times_ms && l < r.frontier_capacity; l++)
            r.level_times_ms[l] = -1; /* the reference is not timed per level */
        t1 = r.measure_time ? sp__now_ms() : 0;
        if (stats) {
            stats[i].levels = levels;
            stats[i].vertices_visited = vertices;
            stats[i].edges_traversed = edges;
            stats[i].direction_switches = 0;
            stats[i].time_ms = r.measure_time ? t1 - *t_ms : 0;
            stats[i].search_ms = r.measure_time ? t1 - t0 : 0;
            stats[i].variant_used = c->key.variant;
            stats[i].loop_used = SP_BFS_LOOP_HOST;
        }
        *t_ms = t1;
    }
done:
    return st;
}

static int same_key(const sp__bfs_key_t *a, const sp__bfs_key_t *want)
{
    return a->variant == want->variant && a->loop == want->loop && a->alpha == want->alpha &&
           a->beta == want->beta && a->pull_vertex_weight == want->pull_vertex_weight &&
           a->capacity >= want->capacity;
}

void sp__bfs_cache_free(sp_matrix_t *G)
{
    sp__bfs_cache_t *c = G ? G->bfs_cache : NULL;
    if (!c) return;
    if (c->cuda) sp__cuda_bfs_cache_free(G, c->cuda);
    sp__free(c->h_queue);
    sp__free(c);
    G->bfs_cache = NULL;
}

sp_status_t sp__bfs_cache_get(sp_matrix_t *G, const sp__bfs_key_t *key, sp__bfs_cache_t **cache)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp__bfs_cache_t *c = G->bfs_cache;
    int64_t builds = c ? c->builds : 0;
    *cache = NULL;
    if (c && same_key(&c->key, key)) {
        *cache = c;
        goto done;
    }
    sp__bfs_cache_free(G); /* its memory back before the new one is made */
    SP_CALLOC(c, 1);
    c->key = *key;
    c->builds = builds + 1;
    if (G->ctx->kind == SP_DEVICE_CUDA)
        SP_TRY(sp__cuda_bfs_cache_make(G, key, &c->cuda));
    else
        SP_ALLOC(c->h_queue, G->f.csr.nrows);
    G->bfs_cache = c;
    *cache = c;
    c = NULL;
done:
    if (c && c != G->bfs_cache) {
        sp__free(c->h_queue);
        sp__free(c);
    }
    return st;
}

/* The resolved key of options (may be NULL) for G on ctx. */
static sp__bfs_key_t key_for(sp_context_t *ctx, sp_matrix_t *G, const sp_bfs_options_t *options)
{
    const sp__bfs_policy_t *pol = sp__policy_for(ctx)->bfs;
    sp__bfs_key_t k;
    k.variant = options ? options->variant : SP_BFS_AUTO;
    k.loop = options ? options->loop : SP_BFS_LOOP_AUTO;
    k.alpha = options && options->alpha > 0 ? options->alpha : pol->alpha;
    k.beta = options && options->beta > 0 ? options->beta : pol->beta;
    k.pull_vertex_weight = sp__bfs_beamer_rule() ? 0.0 : pol->pull_vertex_weight;
    k.capacity = options ? options->frontier_capacity : 0;
    if (k.capacity > G->f.coo.nrows + 1) k.capacity = G->f.coo.nrows + 1; /* no more levels */
    sp__bfs_choose(ctx, G, &k.variant, &k.loop);
    return k;
}

/* Checks, AUTO, formats and cache for nsources searches (sources may be NULL when
 * nsources is 0); rollback set once G may have changed. */
static sp_status_t prepare(const char *what, sp_context_t *ctx, sp_matrix_t *G,
                           int64_t nsources, const int64_t *sources,
                           const sp_bfs_options_t *options, const int32_t *level,
                           sp__bfs_key_t *key, sp__bfs_cache_t **cache, unsigned *built_before,
                           int *rollback)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(check_bfs(what, ctx, G, nsources, sources, options, level));
    *built_before = G->built;
    *rollback = 1;
    *key = key_for(ctx, G, options);
    SP_TRY(sp_matrix_build(ctx, G, SP_FORMAT_CSR));
    /* the edge variant walks the COO: made again from the CSR where it was released */
    if (ctx->kind == SP_DEVICE_CUDA && key->variant == SP_BFS_EDGE)
        SP_TRY(sp_matrix_build(ctx, G, SP_FORMAT_COO));
    /* pull steps read in-edges: the CSC, or the CSR itself where the pattern is symmetric
     * (the same arrays, no copy: issue 20) */
    if (ctx->kind == SP_DEVICE_CUDA && !G->pattern_symmetric &&
        (key->variant == SP_BFS_PULL || key->variant == SP_BFS_DIRECTION_OPT))
        SP_TRY(sp_matrix_build(ctx, G, SP_FORMAT_CSC));
    SP_TRY(sp__bfs_cache_get(G, key, cache));
done:
    return st;
}

static sp_status_t run_bfs(const char *what, sp_context_t *ctx, sp_matrix_t *G,
                           int64_t nsources, const int64_t *sources,
                           const sp_bfs_options_t *options, int32_t *level, int32_t *parent,
                           sp_bfs_stats_t *stats)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    double t_ms = sp__now_ms(); /* the call's start: its whole cost is in the times */
    sp__bfs_key_t key;
    sp__bfs_cache_t *c = NULL;
    unsigned built_before = 0;
    int rollback = 0;
    SP_TRY(prepare(what, ctx, G, nsources, sources, options, level, &key, &c, &built_before,
                   &rollback));
    if (ctx->kind == SP_DEVICE_CUDA)
        SP_TRY(sp__cuda_bfs(G, c, nsources, sources, 0, options, level, parent, stats, &t_ms));
    else
        SP_TRY(host_bfs(G, c, nsources, sources, options, level, parent, stats, &t_ms));
done:
    /* a failure after a build (the CSC of pull, the scratch) leaves G as it was */
    if (st != SP_STATUS_SUCCESS && rollback) {
        sp__bfs_cache_free(G);
        sp__matrix_drop_formats_since(G, built_before);
    }
    return st;
}

sp_status_t sp_bfs_prepare(sp_context_t *ctx, sp_matrix_t *G, const sp_bfs_options_t *options)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp__bfs_key_t key;
    sp__bfs_cache_t *c = NULL;
    unsigned built_before = 0;
    int32_t none = 0; /* check_bfs wants a level array; prepare has no output */
    int rollback = 0;
    SP_TRY(prepare("sp_bfs_prepare", ctx, G, 0, NULL, options, &none, &key, &c, &built_before,
                   &rollback));
done:
    if (st != SP_STATUS_SUCCESS && rollback) {
        sp__bfs_cache_free(G);
        sp__matrix_drop_formats_since(G, built_before);
    }
    return sp__context_record(ctx, st);
}

sp_status_t sp_bfs(sp_context_t *ctx, sp_matrix_t *G, int64_t source,
                   const sp_bfs_options_t *options, int32_t *level, int32_t *parent,
                   sp_bfs_stats_t *stats)
{
    return sp__context_record(ctx, run_bfs("sp_bfs", ctx, G, 1, &source, options, level,
                                           parent, stats));
}

sp_status_t sp_bfs_multi(sp_context_t *ctx, sp_matrix_t *G, int64_t nsources,
                         const int64_t *sources, const sp_bfs_options_t *options,
                         int32_t *level, int32_t *parent, sp_bfs_stats_t *stats)
{
    return sp__context_record(ctx, run_bfs("sp_bfs_multi", ctx, G, nsources, sources, options,
                                           level, parent, stats));
}

sp_status_t sp__bfs_persistent_coop(sp_context_t *ctx, sp_matrix_t *G, int64_t source,
                                    const sp_bfs_options_t *options, int32_t *level,
                                    int32_t *parent, sp_bfs_stats_t *stats)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    double t_ms = sp__now_ms();
    sp_bfs_options_t o = {0};
    sp__bfs_key_t key;
    sp__bfs_cache_t *c = NULL;
    unsigned built_before = 0;
    int rollback = 0;
    if (options) o = *options;
    o.variant = SP_BFS_FRONTIER, o.loop = SP_BFS_LOOP_PERSISTENT;
    SP_CHECK_ARG(ctx != NULL && ctx->kind == SP_DEVICE_CUDA,
                 "sp_bfs: the cooperative barrier needs a CUDA context");
    SP_TRY(prepare("sp_bfs", ctx, G, 1, &source, &o, level, &key, &c, &built_before, &rollback));
    SP_TRY(sp__cuda_bfs(G, c, 1, &source, 1, &o, level, parent, stats, &t_ms));
done:
    if (st != SP_STATUS_SUCCESS && rollback) {
        sp__bfs_cache_free(G);
        sp__matrix_drop_formats_since(G, built_before);
    }
    return sp__context_record(ctx, st);
}
