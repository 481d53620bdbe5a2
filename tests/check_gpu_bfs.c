/* GPU BFS through the public API: every variant with the host level loop, and the frontier
 * variant with the single-block and persistent loops, on a catalogue of graphs (one
 * vertex, no edges, a long path, stars in and out with a million leaves, a 2D grid,
 * directed random with self-loops and duplicates, Kronecker, disconnected, the bundled
 * datasets): levels equal to the reference, parents pass the Graph500 validator, stats
 * (levels, vertices, edges, frontier sizes) equal to the reference's, directions and the
 * variant and loop used reported; multi-source; refusals; the cache a search keeps in the
 * matrix (no allocation after sp_bfs_prepare, the same levels on every call, freed with
 * the formats); a pattern-symmetric graph pulls through its CSR and builds no CSC, a
 * directed one builds it (issue 20); the traversal cases again with 64-bit offsets
 * (TCase offsets64: every kernel's int64_t instance). SP_TEST_SMALL=1 shrinks the
 * largest inputs; under scripts/device-sanitize.sh (SP_TEST_UNDER_SANITIZER) one source a
 * graph, the datasets of up to 20000 entries and a 300-vertex path. Exits 77 without a GPU. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "sp_api.h" /* sp__now_ms */
#include "sp_ref.h"
#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "testutil_gpu.h"

enum { MAX_LEVELS = 1 << 18 };

static sp_context_t *g_gpu, *g_host;
static int small;          /* SP_TEST_SMALL */
static int sanitizing;     /* SP_TEST_UNDER_SANITIZER: one source a graph, small datasets */
static int skipped_loops;  /* single-block / persistent not in this build: said once */
static int assert_symmetric; /* check_graph creates G with options.pattern_symmetric */
static int offsets64;        /* the offsets64 cases: G with 64-bit offsets (issue 20) */

static void setup(void)
{
    small = sp_test_small();
    sanitizing = sp_test_under_sanitizer();
    sp_test_gpu_host_contexts(&g_gpu, &g_host);
}

static void teardown(void)
{
    sp_test_gpu_host_contexts_destroy(&g_gpu, &g_host);
    offsets64 = 0;
}

/* The same cases on graphs whose CSR (and CSC) have 64-bit pointers on the GPU: every
 * kernel's int64_t instance against the same reference (the host's CSR stays 32-bit). */
static void setup64(void)
{
    setup();
    offsets64 = 1;
}

/* The variant x loop cases: every variant on the host loop, AUTO, and the frontier
 * variant inside the GPU. */
typedef struct bfs_case {
    sp_bfs_variant_t variant;
    sp_bfs_loop_t loop;
} bfs_case_t;

static const bfs_case_t g_cases[] = {
    {SP_BFS_PUSH, SP_BFS_LOOP_HOST},       {SP_BFS_PULL, SP_BFS_LOOP_HOST},
    {SP_BFS_EDGE, SP_BFS_LOOP_HOST},       {SP_BFS_FRONTIER, SP_BFS_LOOP_HOST},
    {SP_BFS_PRIVATIZED, SP_BFS_LOOP_HOST}, {SP_BFS_DIRECTION_OPT, SP_BFS_LOOP_HOST},
    {SP_BFS_AUTO, SP_BFS_LOOP_AUTO},       {SP_BFS_FRONTIER, SP_BFS_LOOP_SINGLE_BLOCK},
    {SP_BFS_FRONTIER, SP_BFS_LOOP_PERSISTENT}, {SP_BFS_AUTO, SP_BFS_LOOP_PERSISTENT},
    {SP_BFS_FRONTIER, SP_BFS_LOOP_GRAPH},  {SP_BFS_PULL, SP_BFS_LOOP_GRAPH},
    {SP_BFS_DIRECTION_OPT, SP_BFS_LOOP_GRAPH}, {SP_BFS_AUTO, SP_BFS_LOOP_GRAPH},
};
enum { NCASES = sizeof g_cases / sizeof g_cases[0] };

/* The reference answer from one source. */
typedef struct expected {
    int32_t *level;
    int64_t levels, vertices, edges;
    int64_t *sizes;
} expected_t;

/* Whether case c runs the graph loop on G (AUTO resolved as sp_bfs resolves it): under
 * racecheck those are left out (sp_test_skip_graph_loop). */
static int skip_graph_loop(const sp_matrix_t *G, bfs_case_t c)
{
    sp_bfs_variant_t v = c.variant;
    sp_bfs_loop_t l = c.loop;
    sp__bfs_choose(g_gpu, G, &v, &l);
    return l == SP_BFS_LOOP_GRAPH && sp_test_skip_graph_loop();
}

static int loop_missing(sp_status_t st)
{
    if (st != SP_STATUS_NOT_SUPPORTED || !strstr(sp_last_error(), "not in this build")) return 0;
    if (!skipped_loops) printf("gpu_bfs: skipping the single-block and persistent loops: %s\n",
                               sp_last_error());
    skipped_loops = 1;
    return 1;
}

/* Run one case from source on G (GPU) and check it against ex and the validator. */
static void check_case(const char *name, const sp_csr_t *h, sp_matrix_t *G, int32_t source,
                       const expected_t *ex, bfs_case_t c, int32_t *d_level, int32_t *d_parent,
                       int32_t *level, int32_t *parent)
{
    static int64_t sizes[MAX_LEVELS];
    static int32_t dirs[MAX_LEVELS];
    static double times[MAX_LEVELS];
    int64_t n = h->nrows, cap = ex->levels + 2 < MAX_LEVELS ? ex->levels + 2 : MAX_LEVELS;
    sp_bfs_options_t o = {.variant = c.variant, .loop = c.loop, .measure_time = 1};
    sp_bfs_stats_t s = {0};
    char why[256];
    if (skip_graph_loop(G, c)) return;
    const char *vn = sp_bfs_variant_name(c.variant), *ln = sp_bfs_loop_name(c.loop);
    o.frontier_sizes = sizes, o.directions = dirs, o.frontier_capacity = cap;
    o.level_times_ms = times;
    double t0 = sp__now_ms();
    sp_status_t st = sp_bfs(g_gpu, G, source, &o, d_level, d_parent, &s);
    if (getenv("SP_TEST_BFS_TIMES")) { /* which call takes the time (a slow case's hunt) */
        printf("bfs time: %s %s/%s from %d: %.1f ms (%s)\n", name,
               sp_bfs_variant_name(c.variant), sp_bfs_loop_name(c.loop), source,
               sp__now_ms() - t0, st == SP_STATUS_SUCCESS ? "ok" : sp_last_error());
        fflush(stdout);
    }
    if (c.loop != SP_BFS_LOOP_HOST && c.loop != SP_BFS_LOOP_AUTO && loop_missing(st)) return;
    ck_assert_msg(st == SP_STATUS_SUCCESS, "%s %s/%s from %d: %s", name, vn, ln, source,
                  sp_last_error());
    ck_cuda(cudaMemcpy(level, d_level, (size_t)n * sizeof *level, cudaMemcpyDeviceToHost));
    ck_cuda(cudaMemcpy(parent, d_parent, (size_t)n * sizeof *parent, cudaMemcpyDeviceToHost));
    int ok = sp__ref_bfs_validate(h, source, level, parent, ex->level, why, sizeof why);
    ck_assert_msg(ok, "%s %s/%s from %d: %s", name, vn, ln, source, why);
    ck_assert_msg(s.levels == ex->levels && s.vertices_visited == ex->vertices &&
                      s.edges_traversed == ex->edges,
                  "%s %s/%s from %d: levels %lld vertices %lld edges %lld, expected %lld %lld %lld",
                  name, vn, ln, source, (long long)s.levels, (long long)s.vertices_visited,
                  (long long)s.edges_traversed, (long long)ex->levels, (long long)ex->vertices,
                  (long long)ex->edges);
    for (int64_t l = 0; l < cap; l++)
        ck_assert_msg(sizes[l] == (l < ex->levels ? ex->sizes[l] : 0),
                      "%s %s/%s: frontier size %lld of level %lld, expected %lld", name, vn, ln,
                      (long long)sizes[l], (long long)l,
                      (long long)(l < ex->levels ? ex->sizes[l] : 0));
    int64_t switches = 0;
    for (int64_t l = 0; l < cap; l++) {
        int want_any = l < ex->levels;
        ck_assert_msg(want_any ? (dirs[l] == 0 || dirs[l] == 1) : dirs[l] == -1,
                      "%s %s/%s: direction %d at level %lld of %lld", name, vn, ln, dirs[l],
                      (long long)l, (long long)ex->levels);
        if (want_any && c.variant == SP_BFS_PULL) ck_assert_int_eq(dirs[l], SP_BFS_DIR_PULL);
        if (want_any && c.variant != SP_BFS_PULL && c.variant != SP_BFS_DIRECTION_OPT &&
            c.variant != SP_BFS_AUTO)
            ck_assert_int_eq(dirs[l], SP_BFS_DIR_PUSH);
        if (l > 0 && want_any) switches += dirs[l] != dirs[l - 1];
    }
    ck_assert_int_eq(s.direction_switches, switches);
    /* per-level times: measured on the host and graph loops, -1 elsewhere and past the end */
    for (int64_t l = 0; l < cap; l++) {
        int timed = l < ex->levels &&
                    (s.loop_used == SP_BFS_LOOP_HOST || s.loop_used == SP_BFS_LOOP_GRAPH);
        ck_assert_msg(timed ? times[l] >= 0 : times[l] == -1,
                      "%s %s/%s: level %lld time %g (levels %lld)", name, vn, ln, (long long)l,
                      times[l], (long long)ex->levels);
    }
    ck_assert_int_ne(s.variant_used, SP_BFS_AUTO);
    ck_assert_int_ne(s.loop_used, SP_BFS_LOOP_AUTO);
    if (c.variant != SP_BFS_AUTO) ck_assert_int_eq(s.variant_used, c.variant);
    if (c.loop != SP_BFS_LOOP_AUTO) ck_assert_int_eq(s.loop_used, c.loop);
    ck_assert(s.time_ms > 0);
}

/* The direction of each of the first cap levels replayed on the host from the reference's
 * levels (ref, levels of them): the rule (policy.h) on the counts both loops keep, the
 * frontier's size and out-edges and the edges and vertices not reached yet. */
static void check_rule_replay(const char *name, const sp_csr_t *h, const int32_t *ref,
                              int64_t levels, const int32_t *dirs, int64_t cap)
{
    const sp__bfs_policy_t *pol = sp__policy_for(g_gpu)->bfs;
    int64_t n = h->nrows, m_u = (int64_t)h->ptr[n], seen = 0, prev_count = 0;
    int64_t *count = calloc((size_t)levels, sizeof *count);
    int64_t *edges = calloc((size_t)levels, sizeof *edges);
    sp_bfs_direction_t dir = SP_BFS_DIR_PUSH;
    ck_assert(count && edges);
    for (int64_t v = 0; v < n; v++)
        if (ref[v] >= 0) count[ref[v]]++, edges[ref[v]] += (int64_t)(h->ptr[v + 1] - h->ptr[v]);
    for (int64_t l = 0; l < cap && l < levels; l++) {
        seen += count[l];
        m_u -= edges[l];
        dir = sp__bfs_next_direction(dir, edges[l], m_u, n - seen, count[l], prev_count, n,
                                     pol->alpha, pol->beta, pol->pull_vertex_weight);
        ck_assert_msg(dirs[l] == (int32_t)dir,
                      "%s: level %lld went %d, the rule replayed from the reference says %d",
                      name, (long long)l, dirs[l], (int)dir);
        prev_count = count[l];
    }
    free(edges);
    free(count);
}

/* The graph loop decides the direction on the GPU from the same counters and rule as the
 * host loop: both direction-optimized runs take the same direction at every level, the one
 * the rule gives when replayed from the reference (check_rule_replay). */
static void check_same_directions(const char *name, const sp_csr_t *h, const int32_t *ref,
                                  sp_matrix_t *G, int32_t source, int64_t levels,
                                  int32_t *d_level)
{
    static int32_t dirs[2][MAX_LEVELS];
    int64_t cap = levels < MAX_LEVELS ? levels : MAX_LEVELS, switches[2];
    if (sp_test_skip_graph_loop()) return;
    for (int k = 0; k < 2; k++) {
        sp_bfs_options_t o = {.variant = SP_BFS_DIRECTION_OPT,
                              .loop = k ? SP_BFS_LOOP_GRAPH : SP_BFS_LOOP_HOST};
        sp_bfs_stats_t s = {0};
        o.directions = dirs[k], o.frontier_capacity = cap;
        ck_assert_ok(sp_bfs(g_gpu, G, source, &o, d_level, NULL, &s));
        switches[k] = s.direction_switches;
        if (k == 0) check_rule_replay(name, h, ref, levels, dirs[0], cap);
    }
    ck_assert_msg(memcmp(dirs[0], dirs[1], (size_t)cap * sizeof dirs[0][0]) == 0 &&
                      switches[0] == switches[1],
                  "%s from %d: the graph loop switched %lld times, the host loop %lld", name,
                  source, (long long)switches[1], (long long)switches[0]);
}

/* Every case from each source on the graph of coo (sources < 0: pick 3: vertex 0, a
 * vertex of largest out-degree, a random vertex). */
static void check_graph(const char *name, const sp_coo_t *coo, const int32_t *given, int nsrc)
{
    sp_matrix_t *H = NULL, *G = NULL;
    int32_t *d_level = NULL, *d_parent = NULL, srcs[3];
    sp_matrix_options_t mo = {0}, ho = {0};
    sp_matrix_info_t info;
    mo.pattern_symmetric = assert_symmetric;
    mo.offset_bits = offsets64 ? 64 : 0;
    ho.offset_bits = 32; /* the reference reads h->ptr (whatever SP_TEST_OFFSET_BITS says) */
    ck_assert_ok(sp_matrix_create(g_host, coo, &ho, &H));
    ck_assert_ok(sp_matrix_create(g_gpu, coo, &mo, &G));
    if (offsets64) {
        ck_assert_ok(sp_matrix_info(G, &info));
        ck_assert_int_eq(info.offset_bits, 64);
    }
    ck_assert_ok(sp_matrix_build(g_host, H, SP_FORMAT_CSR));
    const sp_csr_t *h = &H->f.csr;
    int64_t n = h->nrows;
    if (!given) {
        uint64_t seed = (uint64_t)n * 31 + 7;
        int32_t best = 0;
        for (int32_t v = 0; v < n; v++)
            if (h->ptr[v + 1] - h->ptr[v] > h->ptr[best + 1] - h->ptr[best]) best = v;
        srcs[0] = 0, srcs[1] = best, srcs[2] = (int32_t)(sp_test_rand(&seed) % (uint64_t)n);
        given = srcs, nsrc = sanitizing ? 1 : 3;
    }
    ck_cuda(cudaMalloc((void **)&d_level, (size_t)n * sizeof(int32_t)));
    ck_cuda(cudaMalloc((void **)&d_parent, (size_t)n * sizeof(int32_t)));
    int32_t *level = malloc((size_t)n * sizeof *level), *parent = malloc((size_t)n * sizeof *parent);
    expected_t ex = {malloc((size_t)n * sizeof(int32_t)), 0, 0, 0, malloc((size_t)n * sizeof(int64_t))};
    ck_assert(level && parent && ex.level && ex.sizes);
    for (int i = 0; i < nsrc; i++) {
        ck_assert_ok(sp__ref_bfs(h, given[i], ex.level, NULL, &ex.levels, &ex.vertices,
                                 &ex.edges, ex.sizes, n));
        for (int c = 0; c < NCASES; c++)
            check_case(name, h, G, given[i], &ex, g_cases[c], d_level, d_parent, level, parent);
        check_same_directions(name, h, ex.level, G, given[i], ex.levels, d_level);
        if (i > 0 || ex.levels > 1000 || sanitizing) continue;
        /* parents are optional: the levels alone, with no stats */
        for (int c = 0; c < NCASES; c++) {
            sp_bfs_options_t o = {.variant = g_cases[c].variant, .loop = g_cases[c].loop};
            if (skip_graph_loop(G, g_cases[c])) continue;
            sp_status_t st = sp_bfs(g_gpu, G, given[i], &o, d_level, NULL, NULL);
            if (g_cases[c].loop != SP_BFS_LOOP_HOST && g_cases[c].loop != SP_BFS_LOOP_AUTO &&
                loop_missing(st))
                continue;
            ck_assert_msg(st == SP_STATUS_SUCCESS, "%s without parents: %s", name, sp_last_error());
            ck_cuda(cudaMemcpy(level, d_level, (size_t)n * sizeof *level, cudaMemcpyDeviceToHost));
            ck_assert_msg(memcmp(level, ex.level, (size_t)n * sizeof *level) == 0,
                          "%s %s/%s without parents: levels differ", name,
                          sp_bfs_variant_name(g_cases[c].variant), sp_bfs_loop_name(g_cases[c].loop));
        }
    }
    /* in-edges: a pattern-symmetric graph's CSR, else the CSC that pull (always run) built */
    ck_assert_ok(sp_matrix_info(G, &info));
    ck_assert_int_eq(info.pattern_symmetric,
                     assert_symmetric || (coo->flags & SP_COO_SYMMETRIC_PATTERN) != 0);
    if (info.pattern_symmetric)
        ck_assert_msg(info.bytes[SP_FORMAT_CSC] == 0,
                      "%s: pattern-symmetric, yet a CSC of %lld bytes", name,
                      (long long)info.bytes[SP_FORMAT_CSC]);
    else
        ck_assert_msg(info.bytes[SP_FORMAT_CSC] > 0, "%s: pull ran without a CSC", name);
    free(ex.sizes);
    free(ex.level);
    free(parent);
    free(level);
    cudaFree(d_parent);
    cudaFree(d_level);
    sp_matrix_destroy(G);
    sp_matrix_destroy(H);
}

static sp_coo_t *edges_coo(int64_t n, int64_t m)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(n, n, m > 0 ? m : 1, SP_VALUE_NONE, &a));
    return a;
}

static void add(sp_coo_t *a, int32_t u, int32_t v)
{
    a->row[a->nnz] = u;
    a->col[a->nnz++] = v;
}

START_TEST(tiny_graphs)
{
    /* one vertex, no edges; one vertex with a self-loop */
    sp_coo_t *a = edges_coo(1, 1);
    int32_t zero = 0;
    check_graph("one vertex", a, &zero, 1);
    add(a, 0, 0);
    check_graph("one self-loop", a, &zero, 1);
    sp_coo_free(a);
    /* no edges at all */
    a = edges_coo(1000, 0);
    check_graph("no edges", a, NULL, 0);
    sp_coo_free(a);
    /* self-loops and duplicates: 0->1 twice, 1->1, 1->2 three times, 2->0, 3->3 */
    a = edges_coo(4, 9);
    add(a, 0, 1), add(a, 1, 1), add(a, 0, 1), add(a, 1, 2), add(a, 1, 2), add(a, 2, 0);
    add(a, 3, 3), add(a, 1, 2);
    check_graph("self-loops and duplicates", a, NULL, 0);
    sp_coo_free(a);
}
END_TEST

START_TEST(long_path)
{
    int64_t n = sanitizing ? 300 : small ? 2000 : 100000;
    sp_coo_t *a = edges_coo(n, n);
    for (int32_t v = 0; v + 1 < n; v++) add(a, v, v + 1);
    int32_t s = 0;
    check_graph("directed path", a, &s, 1);
    sp_coo_free(a);
}
END_TEST

/* Hub 0 with `leaves` leaves, both ways, out only, in only (the in-star from a leaf
 * reaches the hub through a million in-edges when pulling). */
START_TEST(stars)
{
    int64_t leaves = small ? 20000 : 1000000;
    sp_coo_t *both = edges_coo(leaves + 1, 2 * leaves), *out = edges_coo(leaves + 1, leaves),
             *in = edges_coo(leaves + 1, leaves);
    for (int32_t v = 1; v <= leaves; v++) {
        add(both, 0, v), add(both, v, 0);
        add(out, 0, v);
        add(in, v, 0);
    }
    int32_t hub_and_leaf[2] = {0, (int32_t)leaves / 2};
    check_graph("star", both, hub_and_leaf, 2);
    check_graph("out-star", out, hub_and_leaf, 2);
    check_graph("in-star", in, hub_and_leaf, 2);
    sp_coo_free(in);
    sp_coo_free(out);
    sp_coo_free(both);
}
END_TEST

START_TEST(generated)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_grid2d(small ? 32 : 300, SP_VALUE_NONE, &a));
    check_graph("grid2d", a, NULL, 0);
    sp_coo_free(a);
    /* Kronecker as generated: directed, self-loops and duplicates */
    ck_assert_ok(sp_gen_kronecker(small ? 10 : 16, 16, 1, SP_VALUE_NONE, &a));
    check_graph("kronecker directed", a, NULL, 0);
    ck_assert_ok(sp_coo_symmetrize(a, 1));
    check_graph("kronecker undirected", a, NULL, 0);
    sp_coo_free(a);
    ck_assert_ok(sp_gen_uniform(small ? 10 : 15, 8, 2, SP_VALUE_NONE, &a));
    check_graph("uniform", a, NULL, 0);
    sp_coo_free(a);
}
END_TEST

/* Pattern-symmetric graphs pull through their CSR (issue 20): a symmetrized Kronecker graph
 * (the flag from sp_coo_symmetrize) and a hand-made undirected star (the caller's
 * assertion, options.pattern_symmetric) give the reference's levels in every case,
 * pull and direction_opt on the host and graph loops included, with no CSC built
 * (check_graph asserts bytes[SP_FORMAT_CSC] == 0); the same star without the assertion
 * builds its CSC and gives the same levels. */
/* The device memory sp_bfs_prepare (direction_opt, host loop) adds at its peak over what
 * the COO and CSR hold, on a fresh context with its own pool; *csc gets the CSC's bytes
 * afterwards (0 when none was built). */
static int64_t prepare_peak(const sp_coo_t *a, int64_t *csc)
{
    sp_context_t *ctx = NULL;
    sp_matrix_t *G = NULL;
    sp_memory_stats_t before, after;
    sp_matrix_info_t info;
    sp_bfs_options_t o = {.variant = SP_BFS_DIRECTION_OPT, .loop = SP_BFS_LOOP_HOST};
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &G));
    ck_assert_ok(sp_matrix_build(ctx, G, SP_FORMAT_CSR));
    ck_assert_ok(sp_context_memory_reset_peak(ctx));
    ck_assert_ok(sp_context_memory(ctx, &before));
    ck_assert_ok(sp_bfs_prepare(ctx, G, &o));
    ck_assert_ok(sp_context_memory(ctx, &after));
    ck_assert_ok(sp_matrix_info(G, &info));
    *csc = info.bytes[SP_FORMAT_CSC];
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
    return after.peak_bytes - before.current_bytes;
}

START_TEST(symmetric_pulls_through_csr)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_gen_kronecker(small ? 10 : 14, 16, 9, SP_VALUE_NONE, &a));
    ck_assert_ok(sp_coo_symmetrize(a, 0)); /* self loops kept */
    ck_assert_uint_ne(a->flags & SP_COO_SYMMETRIC_PATTERN, 0);
    check_graph("kronecker symmetrized", a, NULL, 0);
    /* the memory: without the flag the same graph's prepare holds a CSC on top */
    int64_t csc_lean = -1, csc_full = -1, lean = prepare_peak(a, &csc_lean);
    a->flags &= ~SP_COO_SYMMETRIC_PATTERN;
    int64_t full = prepare_peak(a, &csc_full);
    printf("gpu_bfs: direction_opt prepare on kronecker %d symmetrized: %lld bytes at the peak "
           "through the CSR, %lld with a CSC of %lld bytes\n", small ? 10 : 14,
           (long long)lean, (long long)full, (long long)csc_full);
    fflush(stdout);
    ck_assert_int_eq(csc_lean, 0);
    ck_assert_int_ge(csc_full, (a->nnz + a->nrows + 1) * 4);
    ck_assert_int_gt(lean, 0); /* the level kernels' scratch */
    ck_assert_int_ge(full - lean, csc_full);
    sp_coo_free(a);
    int64_t leaves = small ? 5000 : 300000;
    a = edges_coo(leaves + 1, 2 * leaves);
    for (int32_t v = 1; v <= leaves; v++) add(a, 0, v), add(a, v, 0);
    int32_t hub_and_leaf[2] = {0, (int32_t)leaves / 2};
    ck_assert_uint_eq(a->flags & SP_COO_SYMMETRIC_PATTERN, 0);
    assert_symmetric = 1;
    check_graph("star asserted symmetric", a, hub_and_leaf, 2);
    assert_symmetric = 0;
    check_graph("star with its CSC", a, hub_and_leaf, 2);
    sp_coo_free(a);
}
END_TEST

/* Random directed graphs with duplicates, self-loops, empty rows (disconnected), a long
 * row, and two components side by side. */
START_TEST(random_and_disconnected)
{
    int64_t n = small ? 3000 : 60000;
    const unsigned features[] = {SP_TEST_DUPLICATES, SP_TEST_EMPTY_ROWS,
                                 SP_TEST_LONG_ROW | SP_TEST_DUPLICATES, SP_TEST_EMPTY_COLS};
    for (int f = 0; f < 4; f++) {
        char name[64];
        sp_coo_t *a = sp_test_random_coo(100 + (uint64_t)f, n, n, 6 * n, SP_R_64F, features[f]);
        snprintf(name, sizeof name, "random features 0x%x", features[f]);
        check_graph(name, a, NULL, 0);
        sp_coo_free(a);
    }
    /* two grids apart: vertices n..2n-1 unreachable from 0 */
    sp_coo_t *g = NULL, *two = NULL;
    ck_assert_ok(sp_gen_grid2d(small ? 16 : 100, SP_VALUE_NONE, &g));
    two = edges_coo(2 * g->nrows, 2 * g->nnz);
    for (int64_t k = 0; k < g->nnz; k++) {
        add(two, g->row[k], g->col[k]);
        add(two, g->row[k] + (int32_t)g->nrows, g->col[k] + (int32_t)g->nrows);
    }
    int32_t s[2] = {0, (int32_t)g->nrows + 3};
    check_graph("two grids", two, s, 2);
    sp_coo_free(two);
    sp_coo_free(g);
}
END_TEST

START_TEST(datasets)
{
    const char *dirs[2] = {"datasets/graphs", "datasets/mtx"};
    int graphs = 0;
    for (int d = 0; d < 2; d++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", sp_test_path(dirs[d]));
        DIR *dir = opendir(path);
        ck_assert_ptr_nonnull(dir);
        for (struct dirent *e; (e = readdir(dir)) != NULL;) {
            char file[1300];
            sp_coo_t *a = NULL;
            if (e->d_name[0] == '.' || strstr(e->d_name, ".tsv")) continue;
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            if (d == 0)
                ck_assert_ok(sp_edgelist_read(file, SP_VALUE_NONE, NULL, &a, NULL));
            else
            {
                /* a graph is the pattern: complex files count by their positions too */
                sp_mtx_options_t mo = {0};
                mo.complex_mode = SP_COMPLEX_REAL_PART;
                ck_assert_ok(sp_mtx_read(file, SP_VALUE_NONE, &mo, &a));
            }
            /* under a sanitizer the graphs of up to 20000 entries (each launch is slow) */
            if (a->nrows == a->ncols && a->nrows > 0 && (!sanitizing || a->nnz <= 20000)) {
                check_graph(e->d_name, a, NULL, 0);
                graphs++;
            }
            sp_coo_free(a);
        }
        closedir(dir);
    }
    ck_assert_int_ge(graphs, sanitizing ? 5 : 10);
}
END_TEST

/* sp_bfs_multi on the GPU equals one sp_bfs per source (same scratch reused). */
START_TEST(multi_source)
{
    sp_coo_t *a = NULL;
    sp_matrix_t *G = NULL;
    ck_assert_ok(sp_gen_kronecker(small ? 9 : 14, 8, 3, SP_VALUE_NONE, &a));
    ck_assert_ok(sp_coo_symmetrize(a, 1));
    sp_matrix_options_t mo = {0};
    mo.offset_bits = offsets64 ? 64 : 0;
    ck_assert_ok(sp_matrix_create(g_gpu, a, &mo, &G));
    int64_t n = a->nrows, sources[4] = {0, 1, 2, n - 1};
    int32_t *d_level = NULL, *d_parent = NULL, *one = NULL;
    ck_cuda(cudaMalloc((void **)&d_level, (size_t)(4 * n) * sizeof(int32_t)));
    ck_cuda(cudaMalloc((void **)&d_parent, (size_t)(4 * n) * sizeof(int32_t)));
    ck_cuda(cudaMalloc((void **)&one, (size_t)n * sizeof(int32_t)));
    int32_t *h_all = malloc((size_t)(4 * n) * sizeof(int32_t)), *h_one = malloc((size_t)n * sizeof(int32_t));
    /* search i's records at i * CAP, the values one search writes */
    enum { CAP = 32 };
    int64_t sizes[4 * CAP], one_sizes[CAP];
    int32_t dirs[4 * CAP], one_dirs[CAP];
    for (int v = SP_BFS_PUSH; v <= SP_BFS_DIRECTION_OPT; v++) {
        sp_bfs_options_t o = {.variant = (sp_bfs_variant_t)v, .loop = SP_BFS_LOOP_HOST};
        sp_bfs_options_t o1 = o;
        sp_bfs_stats_t s[4] = {{0}}, t = {0};
        o.frontier_capacity = o1.frontier_capacity = CAP;
        o.frontier_sizes = sizes, o.directions = dirs;
        o1.frontier_sizes = one_sizes, o1.directions = one_dirs;
        ck_assert_ok(sp_bfs_multi(g_gpu, G, 4, sources, &o, d_level, d_parent, s));
        ck_cuda(cudaMemcpy(h_all, d_level, (size_t)(4 * n) * sizeof(int32_t),
                           cudaMemcpyDeviceToHost));
        for (int i = 0; i < 4; i++) {
            ck_assert_ok(sp_bfs(g_gpu, G, sources[i], &o1, one, NULL, &t));
            ck_cuda(cudaMemcpy(h_one, one, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost));
            ck_assert_mem_eq(h_all + i * n, h_one, (size_t)n * sizeof(int32_t));
            ck_assert_mem_eq(sizes + i * CAP, one_sizes, sizeof one_sizes);
            ck_assert_mem_eq(dirs + i * CAP, one_dirs, sizeof one_dirs);
            ck_assert_int_eq(s[i].levels, t.levels);
            ck_assert_int_eq(s[i].edges_traversed, t.edges_traversed);
            ck_assert_int_eq(s[i].vertices_visited, t.vertices_visited);
        }
    }
    free(h_one);
    free(h_all);
    cudaFree(one);
    cudaFree(d_parent);
    cudaFree(d_level);
    sp_matrix_destroy(G);
    sp_coo_free(a);
}
END_TEST

START_TEST(refusals)
{
    sp_coo_t *a = edges_coo(3, 2);
    sp_matrix_t *G = NULL, *H = NULL;
    int32_t *d_level = NULL;
    add(a, 0, 1), add(a, 1, 2);
    ck_assert_ok(sp_matrix_create(g_gpu, a, NULL, &G));
    ck_assert_ok(sp_matrix_create(g_host, a, NULL, &H));
    ck_cuda(cudaMalloc((void **)&d_level, 3 * sizeof(int32_t)));
    sp_bfs_options_t o = {.variant = SP_BFS_EDGE, .loop = SP_BFS_LOOP_PERSISTENT};
    ck_assert_status(sp_bfs(g_gpu, G, 0, &o, d_level, NULL, NULL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("variant edge with loop persistent");
    ck_assert_str_eq(sp_context_last_error(g_gpu), sp_last_error());
    o.variant = SP_BFS_DIRECTION_OPT, o.loop = SP_BFS_LOOP_SINGLE_BLOCK;
    ck_assert_status(sp_bfs(g_gpu, G, 0, &o, d_level, NULL, NULL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("variant direction_opt with loop single_block");
    o.variant = SP_BFS_PRIVATIZED, o.loop = SP_BFS_LOOP_GRAPH;
    ck_assert_status(sp_bfs(g_gpu, G, 0, &o, d_level, NULL, NULL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("variant privatized with loop graph");
    o.variant = SP_BFS_FRONTIER, o.loop = (sp_bfs_loop_t)5;
    ck_assert_status(sp_bfs(g_gpu, G, 0, &o, d_level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown loop 5");
    ck_assert_status(sp_bfs(g_gpu, G, 3, NULL, d_level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("source 3 outside 0..2");
    ck_assert_status(sp_bfs(g_gpu, H, 0, NULL, d_level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("another context");
    ck_assert_status(sp_bfs(g_gpu, G, 0, NULL, NULL, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    int64_t src[2] = {0, -1};
    ck_assert_status(sp_bfs_multi(g_gpu, G, 2, src, NULL, d_level, NULL, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("source -1 outside");
    /* the context still works afterwards */
    ck_assert_ok(sp_bfs(g_gpu, G, 0, NULL, d_level, NULL, NULL));
    int32_t h[3];
    ck_cuda(cudaMemcpy(h, d_level, sizeof h, cudaMemcpyDeviceToHost));
    ck_assert_int_eq(h[2], 2);
    cudaFree(d_level);
    sp_matrix_destroy(H);
    sp_matrix_destroy(G);
    sp_coo_free(a);
}
END_TEST

/* The cache a search keeps in G, for every case: made once per options (sp_bfs_prepare),
 * after which the searches ask the device and host allocators for nothing, keep the same
 * cache and give the same levels on every repetition (and the same levels in every case:
 * BFS levels are unique); the call's wall clock holds the traversal's GPU time; releasing
 * the CSR and CSC frees it, every device block back. On the symmetrized graph (symmetric)
 * pull steps read the CSR and no CSC is built; on the directed one they read a CSC. */
static void check_cache(int symmetric)
{
    sp_context_options_t co = {0};
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *G = NULL;
    sp_test_gpu_fail_allocations_after(-1);
    co.allocator = sp_test_gpu_allocator();
    int64_t live0 = sp_test_gpu_live_allocations();
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, &co, &ctx));
    ck_assert_ok(sp_gen_kronecker(small ? 9 : 12, 8, 5, SP_VALUE_NONE, &a));
    if (symmetric) ck_assert_ok(sp_coo_symmetrize(a, 1));
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &G));
    ck_assert_ok(sp_context_synchronize(ctx));
    int64_t n = a->nrows, sources[2] = {0, n / 2}, live = sp_test_gpu_live_allocations();
    int32_t *d_level = NULL, *d_parent = NULL;
    int32_t *want = malloc((size_t)(2 * n) * sizeof *want);
    int32_t *got = malloc((size_t)(2 * n) * sizeof *got);
    int have_want = 0;
    ck_assert(want && got);
    ck_cuda(cudaMalloc((void **)&d_level, (size_t)(2 * n) * sizeof(int32_t)));
    ck_cuda(cudaMalloc((void **)&d_parent, (size_t)(2 * n) * sizeof(int32_t)));
    for (int c = 0; c < NCASES; c++) {
        const char *vn = sp_bfs_variant_name(g_cases[c].variant);
        const char *ln = sp_bfs_loop_name(g_cases[c].loop);
        sp_bfs_options_t o = {.variant = g_cases[c].variant, .loop = g_cases[c].loop,
                              .measure_time = 1};
        if (g_cases[c].loop == SP_BFS_LOOP_GRAPH && sp_test_skip_graph_loop()) continue;
        sp_status_t st = sp_bfs_prepare(ctx, G, &o);
        if (g_cases[c].loop != SP_BFS_LOOP_HOST && loop_missing(st)) continue;
        ck_assert_msg(st == SP_STATUS_SUCCESS, "prepare %s/%s: %s", vn, ln, sp_last_error());
        const sp__bfs_cache_t *made = G->bfs_cache;
        ck_assert_ptr_nonnull(made);
        int64_t builds = made->builds;
        for (int rep = 0; rep < 3; rep++) {
            sp_bfs_stats_t s[2];
            sp_test_gpu_fail_allocations_after(0);
            sp_test_fail_allocations_after(0);
            st = sp_bfs_multi(ctx, G, 2, sources, &o, d_level, d_parent, s);
            int64_t host_calls = sp_test_allocations();
            sp_test_restore_allocator();
            int64_t device_calls = sp_test_gpu_allocations();
            sp_test_gpu_fail_allocations_after(-1);
            ck_assert_msg(st == SP_STATUS_SUCCESS, "%s/%s rep %d: %s", vn, ln, rep,
                          sp_last_error());
            ck_assert_msg(device_calls == 0 && host_calls == 0,
                          "%s/%s: %lld device and %lld host allocations after prepare", vn, ln,
                          (long long)device_calls, (long long)host_calls);
            ck_assert_ptr_eq(G->bfs_cache, made);
            ck_assert_int_eq(made->builds, builds);
            for (int i = 0; i < 2; i++)
                ck_assert_msg(s[i].search_ms >= 0 && s[i].time_ms > 0 &&
                                  s[i].time_ms >= s[i].search_ms - 0.01,
                              "%s/%s: the call took %g ms, its traversal %g", vn, ln,
                              s[i].time_ms, s[i].search_ms);
            ck_cuda(cudaMemcpy(got, d_level, (size_t)(2 * n) * sizeof(int32_t),
                               cudaMemcpyDeviceToHost));
            if (!have_want) memcpy(want, got, (size_t)(2 * n) * sizeof *got), have_want = 1;
            ck_assert_msg(memcmp(want, got, (size_t)(2 * n) * sizeof *got) == 0,
                          "%s/%s rep %d: other levels", vn, ln, rep);
        }
    }
    sp_matrix_info_t info;
    ck_assert_ok(sp_matrix_info(G, &info));
    if (symmetric) ck_assert_int_eq(info.bytes[SP_FORMAT_CSC], 0);
    else ck_assert_int_gt(info.bytes[SP_FORMAT_CSC], 0);
    ck_assert_ok(sp_matrix_release(ctx, G, symmetric ? SP_FORMAT_CSR : SP_FORMAT_CSC));
    ck_assert_ptr_null(G->bfs_cache);
    ck_assert_ok(sp_matrix_release(ctx, G, SP_FORMAT_CSR));
    ck_assert_ok(sp_context_synchronize(ctx));
    ck_assert_int_eq(sp_test_gpu_live_allocations(), live);
    cudaFree(d_parent);
    cudaFree(d_level);
    free(got);
    free(want);
    sp_matrix_destroy(G);
    sp_coo_free(a);
    sp_context_destroy(ctx);
    ck_assert_int_eq(sp_test_gpu_live_allocations(), live0);
}

START_TEST(cache)
{
    check_cache(1);
    check_cache(0);
}
END_TEST
#endif /* SP_HAVE_CUDA */

static Suite *gpu_bfs_suite(void)
{
    Suite *s = suite_create("gpu_bfs");
#ifdef SP_HAVE_CUDA
    TCase *t = tcase_create("bfs");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 600);
    tcase_add_test(t, tiny_graphs);
    tcase_add_test(t, long_path);
    tcase_add_test(t, stars);
    tcase_add_test(t, generated);
    tcase_add_test(t, symmetric_pulls_through_csr);
    tcase_add_test(t, random_and_disconnected);
    tcase_add_test(t, datasets);
    tcase_add_test(t, multi_source);
    tcase_add_test(t, refusals);
    tcase_add_test(t, cache);
    suite_add_tcase(s, t);
    /* 64-bit offsets (issue 20): the traversal cases again with every kernel's int64_t
     * instance (the CSC of the directed graphs at the CSR's width); not when the whole run
     * has 64-bit offsets forced (SP_TEST_OFFSET_BITS=64: the case above is that already) */
    if (sp_test_default_offset_bits() == 64) return s;
    TCase *t64 = tcase_create("offsets64");
    tcase_add_checked_fixture(t64, setup64, teardown);
    tcase_set_timeout(t64, 600);
    tcase_add_test(t64, tiny_graphs);
    tcase_add_test(t64, long_path);
    tcase_add_test(t64, stars);
    tcase_add_test(t64, generated);
    tcase_add_test(t64, symmetric_pulls_through_csr);
    tcase_add_test(t64, random_and_disconnected);
    tcase_add_test(t64, multi_source);
    suite_add_tcase(s, t64);
#endif
    return s;
}

int main(void)
{
    return sp_test_run_gpu(gpu_bfs_suite());
}
