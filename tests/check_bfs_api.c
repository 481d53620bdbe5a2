/* sp_bfs and sp_bfs_multi on a host context: the names, the AUTO choice and Beamer's
 * direction rule (host logic shared with the CUDA path), stats (variant and loop used,
 * time, every field written) and the records of the options (sizes, directions, times, at
 * i * frontier_capacity for search i; the options never written), multi-source against
 * single searches, every refusal with its message; the cache a search keeps in the matrix
 * (made once per options, reused by repeated calls with identical results, made anew when
 * the options change, freed with the matrix's CSR and with the matrix; sp_bfs_prepare
 * leaves a search nothing to allocate; the timers cover the call); graph preparation (undirected,
 * self-loops and duplicate edges removed) from a Matrix Market file and from an edge list
 * giving the same graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "testutil.h"

START_TEST(names)
{
    ck_assert_str_eq(sp_bfs_variant_name(SP_BFS_AUTO), "auto");
    ck_assert_str_eq(sp_bfs_variant_name(SP_BFS_DIRECTION_OPT), "direction_opt");
    ck_assert_str_eq(sp_bfs_variant_name(SP_BFS_PRIVATIZED), "privatized");
    ck_assert_ptr_null(sp_bfs_variant_name((sp_bfs_variant_t)7));
    ck_assert_ptr_null(sp_bfs_variant_name((sp_bfs_variant_t)-1));
    ck_assert_str_eq(sp_bfs_loop_name(SP_BFS_LOOP_PERSISTENT), "persistent");
    ck_assert_str_eq(sp_bfs_loop_name(SP_BFS_LOOP_HOST), "host");
    ck_assert_str_eq(sp_bfs_loop_name(SP_BFS_LOOP_GRAPH), "graph");
    ck_assert_ptr_null(sp_bfs_loop_name((sp_bfs_loop_t)5));
}
END_TEST

START_TEST(auto_choice_and_direction_rule)
{
    sp_bfs_variant_t v = SP_BFS_AUTO;
    sp_bfs_loop_t l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(NULL, NULL, &v, &l);
    ck_assert_int_eq(v, SP_BFS_DIRECTION_OPT);
    ck_assert_int_eq(l, SP_BFS_LOOP_HOST);
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_PERSISTENT;
    sp__bfs_choose(NULL, NULL, &v, &l);
    ck_assert_int_eq(v, SP_BFS_FRONTIER);
    ck_assert_int_eq(l, SP_BFS_LOOP_PERSISTENT);
    v = SP_BFS_PULL, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(NULL, NULL, &v, &l);
    ck_assert_int_eq(v, SP_BFS_PULL);
    ck_assert_int_eq(l, SP_BFS_LOOP_HOST);
    /* on a CUDA context both AUTO: from the graph's size and degrees (the rule measured
     * in bench/results/h200-bfs.md); only kind and the row statistics are read */
    static sp_context_t gpu; /* zeroed; kind set below */
    static sp_matrix_t G;
    gpu.kind = SP_DEVICE_CUDA;
    G.f.coo.nrows = (int64_t)1 << 22, G.f.coo.nnz = (int64_t)32 << 22, G.row_max = 100000;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* Kronecker-like: large and dense */
    ck_assert_int_eq(v, SP_BFS_DIRECTION_OPT);
    ck_assert_int_eq(l, SP_BFS_LOOP_GRAPH);
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_GRAPH;
    sp__bfs_choose(&gpu, &G, &v, &l); /* the graph loop alone: direction-optimized */
    ck_assert_int_eq(v, SP_BFS_DIRECTION_OPT);
    ck_assert_int_eq(l, SP_BFS_LOOP_GRAPH);
    G.f.coo.nrows = (int64_t)1 << 24, G.f.coo.nnz = (int64_t)32 << 24;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* from 2^28 entries: the host loop */
    ck_assert_int_eq(v, SP_BFS_DIRECTION_OPT);
    ck_assert_int_eq(l, SP_BFS_LOOP_HOST);
    G.f.coo.nrows = (int64_t)1 << 22, G.f.coo.nnz = (int64_t)32 << 22, G.row_max = 70;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* large and dense without a hub (uniform): host */
    ck_assert_int_eq(v, SP_BFS_DIRECTION_OPT);
    ck_assert_int_eq(l, SP_BFS_LOOP_HOST);
    G.f.coo.nrows = 8298, G.f.coo.nnz = 207378, G.row_max = 1065;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* small but dense (Wiki-Vote) */
    ck_assert_int_eq(v, SP_BFS_DIRECTION_OPT);
    ck_assert_int_eq(l, SP_BFS_LOOP_GRAPH);
    G.f.coo.nrows = 46500, G.f.coo.nnz = 139498, G.row_max = 46500;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* sparse with one huge hub (arrow) */
    ck_assert_int_eq(v, SP_BFS_DIRECTION_OPT);
    ck_assert_int_eq(l, SP_BFS_LOOP_GRAPH);
    G.f.coo.nrows = (int64_t)1 << 24, G.f.coo.nnz = (int64_t)4 << 24, G.row_max = 4;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* a large grid: sparse */
    ck_assert_int_eq(v, SP_BFS_FRONTIER);
    ck_assert_int_eq(l, SP_BFS_LOOP_PERSISTENT);
    G.f.coo.nrows = 10000, G.f.coo.nnz = 39600, G.row_max = 4;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* a small mesh: regular */
    ck_assert_int_eq(v, SP_BFS_FRONTIER);
    ck_assert_int_eq(l, SP_BFS_LOOP_SINGLE_BLOCK);
    G.f.coo.nrows = 1138, G.f.coo.nnz = 2916, G.row_max = 17;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* small, a few longer rows (1138_bus) */
    ck_assert_int_eq(l, SP_BFS_LOOP_SINGLE_BLOCK);
    G.f.coo.nrows = 6301, G.f.coo.nnz = 41554, G.row_max = 97;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* small, rows of 15 times the mean (p2p-Gnutella08) */
    ck_assert_int_eq(l, SP_BFS_LOOP_PERSISTENT);
    G.f.coo.nrows = 10000, G.f.coo.nnz = 39600, G.row_max = 1000;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* small and skewed */
    ck_assert_int_eq(l, SP_BFS_LOOP_PERSISTENT);
    G.f.coo.nrows = 34, G.f.coo.nnz = 156, G.row_max = 17;
    v = SP_BFS_AUTO, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* tiny */
    ck_assert_int_eq(l, SP_BFS_LOOP_PERSISTENT);
    v = SP_BFS_PUSH, l = SP_BFS_LOOP_AUTO;
    sp__bfs_choose(&gpu, &G, &v, &l); /* a fixed variant keeps the host loop */
    ck_assert_int_eq(v, SP_BFS_PUSH);
    ck_assert_int_eq(l, SP_BFS_LOOP_HOST);
    /* push -> pull exactly when m_f > (m_u + w n_u) / alpha: Beamer's rule with w = 0 */
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PUSH, 100, 1500, 900, 10, 1, 1000, 15, 18,
                                            0),
                     SP_BFS_DIR_PUSH);
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PUSH, 101, 1500, 900, 10, 1, 1000, 15, 18,
                                            0),
                     SP_BFS_DIR_PULL);
    /* the unvisited vertices priced (w = 1): (1500 + 900) / 15 = 160 */
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PUSH, 160, 1500, 900, 10, 1, 1000, 15, 18,
                                            1),
                     SP_BFS_DIR_PUSH);
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PUSH, 161, 1500, 900, 10, 1, 1000, 15, 18,
                                            1),
                     SP_BFS_DIR_PULL);
    /* late in a search of a graph of isolated vertices: no edges left unvisited, yet a pull
       would scan the 900 vertices; a push from a small frontier stays a push */
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PUSH, 40, 0, 900, 10, 20, 1000, 15, 18, 1),
                     SP_BFS_DIR_PUSH);
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PUSH, 40, 0, 900, 10, 20, 1000, 15, 18, 0),
                     SP_BFS_DIR_PULL);
    /* pull stays while the frontier grows or exceeds n / beta (w plays no part) */
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PULL, 0, 0, 0, 50, 40, 1800, 15, 18, 1),
                     SP_BFS_DIR_PULL);
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PULL, 0, 0, 0, 101, 200, 1800, 15, 18, 1),
                     SP_BFS_DIR_PULL);
    ck_assert_int_eq(sp__bfs_next_direction(SP_BFS_DIR_PULL, 0, 0, 0, 100, 200, 1800, 15, 18, 1),
                     SP_BFS_DIR_PUSH);
}
END_TEST

/* Directed 0->1 0->2 1->3 2->3 3->4, 5 isolated. */
static sp_matrix_t *small_graph(sp_context_t *ctx)
{
    static const int32_t src[] = {0, 0, 1, 2, 3}, dst[] = {1, 2, 3, 3, 4};
    sp_coo_t *a = NULL;
    sp_matrix_t *G = NULL;
    ck_assert_ok(sp_coo_create(6, 6, 5, SP_VALUE_NONE, &a));
    memcpy(a->row, src, sizeof src), memcpy(a->col, dst, sizeof dst), a->nnz = 5;
    ck_assert_ok(sp_matrix_create(ctx, a, NULL, &G));
    sp_coo_free(a);
    return G;
}

START_TEST(stats_on_host)
{
    sp_context_t *ctx = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    sp_matrix_t *G = small_graph(ctx);
    int32_t level[6], parent[6], dirs[6];
    int64_t sizes[6];
    sp_bfs_stats_t s = {0};
    sp_bfs_options_t rec = {0};
    rec.frontier_sizes = sizes, rec.directions = dirs, rec.frontier_capacity = 6;
    rec.measure_time = 1;
    ck_assert_ok(sp_bfs(ctx, G, 0, &rec, level, parent, &s));
    const int32_t elevel[] = {0, 1, 1, 2, 3, -1}, edirs[] = {0, 0, 0, 0, -1, -1};
    const int64_t esizes[] = {1, 2, 1, 1, 0, 0};
    ck_assert_mem_eq(level, elevel, sizeof elevel);
    ck_assert_mem_eq(dirs, edirs, sizeof edirs);
    ck_assert_mem_eq(sizes, esizes, sizeof esizes);
    ck_assert_int_eq(s.levels, 4);
    ck_assert_int_eq(s.vertices_visited, 5);
    ck_assert_int_eq(s.edges_traversed, 5);
    ck_assert_int_eq(s.variant_used, SP_BFS_DIRECTION_OPT);
    ck_assert_int_eq(s.loop_used, SP_BFS_LOOP_HOST);
    ck_assert(s.time_ms >= 0);
    /* directions alone are enough for a capacity */
    sp_bfs_stats_t d = {0};
    sp_bfs_options_t o = {.variant = SP_BFS_PULL, .loop = SP_BFS_LOOP_AUTO};
    o.directions = dirs, o.frontier_capacity = 2;
    ck_assert_ok(sp_bfs(ctx, G, 5, &o, level, NULL, &d));
    ck_assert_int_eq(d.levels, 1);
    ck_assert_int_eq(d.variant_used, SP_BFS_PULL);
    ck_assert_int_eq(dirs[0], SP_BFS_DIR_PUSH);
    ck_assert_int_eq(dirs[1], -1);
    ck_assert(d.time_ms == 0);
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(multi_matches_single)
{
    sp_context_t *ctx = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    sp_matrix_t *G = small_graph(ctx);
    const int64_t sources[3] = {0, 3, 5};
    int32_t level[18], parent[18], one[6], onep[6];
    sp_bfs_stats_t s[3] = {{0}};
    ck_assert_ok(sp_bfs_multi(ctx, G, 3, sources, NULL, level, parent, s));
    for (int i = 0; i < 3; i++) {
        sp_bfs_stats_t t = {0};
        ck_assert_ok(sp_bfs(ctx, G, sources[i], NULL, one, onep, &t));
        ck_assert_mem_eq(level + 6 * i, one, sizeof one);
        ck_assert_mem_eq(parent + 6 * i, onep, sizeof onep);
        ck_assert_int_eq(s[i].levels, t.levels);
        ck_assert_int_eq(s[i].edges_traversed, t.edges_traversed);
    }
    ck_assert_int_eq(s[1].vertices_visited, 2);
    /* parents and stats optional; no sources is a no-op */
    ck_assert_ok(sp_bfs_multi(ctx, G, 3, sources, NULL, level, NULL, NULL));
    ck_assert_ok(sp_bfs_multi(ctx, G, 0, NULL, NULL, level, NULL, NULL));
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(refusals)
{
    sp_context_t *ctx = NULL, *other = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &other));
    sp_matrix_t *G = small_graph(ctx);
    int32_t level[12] = {0};
    int64_t sources[2] = {0, 6};
    sp_bfs_options_t o = {0};
    ck_assert_status(sp_bfs(NULL, G, 0, NULL, level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp_bfs(other, G, 0, NULL, level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("another context");
    ck_assert_status(sp_bfs(ctx, G, 6, NULL, level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("source 6 outside 0..5");
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    ck_assert_status(sp_bfs(ctx, G, 0, NULL, NULL, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("level is NULL");
    o.variant = (sp_bfs_variant_t)9;
    ck_assert_status(sp_bfs(ctx, G, 0, &o, level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown variant 9");
    o.variant = SP_BFS_PUSH, o.loop = (sp_bfs_loop_t)5;
    ck_assert_status(sp_bfs(ctx, G, 0, &o, level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown loop 5");
    o.loop = SP_BFS_LOOP_HOST, o.alpha = -1;
    ck_assert_status(sp_bfs(ctx, G, 0, &o, level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("negative alpha");
    o.alpha = 0, o.loop = SP_BFS_LOOP_PERSISTENT;
    ck_assert_status(sp_bfs(ctx, G, 0, &o, level, NULL, NULL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("variant push with loop persistent");
    o.variant = SP_BFS_PULL, o.loop = SP_BFS_LOOP_SINGLE_BLOCK;
    ck_assert_status(sp_bfs(ctx, G, 0, &o, level, NULL, NULL), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("variant pull with loop single_block");
    /* multi: every source is checked before any search writes */
    level[0] = 77;
    ck_assert_status(sp_bfs_multi(ctx, G, 2, sources, NULL, level, NULL, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_bfs_multi: source 6 outside 0..5");
    ck_assert_int_eq(level[0], 77);
    ck_assert_status(sp_bfs_multi(ctx, G, 2, NULL, NULL, level, NULL, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("2 sources");
    ck_assert_status(sp_bfs_multi(ctx, G, -1, sources, NULL, level, NULL, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    /* not square */
    sp_coo_t *r = NULL;
    sp_matrix_t *R = NULL;
    ck_assert_ok(sp_coo_create(2, 3, 1, SP_VALUE_NONE, &r));
    r->row[0] = 0, r->col[0] = 2, r->nnz = 1;
    ck_assert_ok(sp_matrix_create(ctx, r, NULL, &R));
    ck_assert_status(sp_bfs(ctx, R, 0, NULL, level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("2 x 3, not square");
    /* the cooperative baseline needs a GPU */
    ck_assert_status(sp__bfs_persistent_coop(ctx, G, 0, NULL, level, NULL, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("CUDA context");
    sp_matrix_destroy(R);
    sp_coo_free(r);
    sp_matrix_destroy(G);
    sp_context_destroy(other);
    sp_context_destroy(ctx);
}
END_TEST

/* The record tests share a host context and small_graph on it. */
static sp_context_t *g_ctx;
static sp_matrix_t *g_graph;

static void records_setup(void)
{
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &g_ctx));
    g_graph = small_graph(g_ctx);
}

static void records_teardown(void)
{
    sp_matrix_destroy(g_graph);
    sp_context_destroy(g_ctx);
}

/* The options are read only: in read-only storage (a write would fault) and equal to a
 * byte copy after sp_bfs and sp_bfs_multi, on a success and on a refusal. */
START_TEST(options_are_read_only)
{
    static int64_t sizes[18];
    static int32_t dirs[18];
    static double times[18];
    static const sp_bfs_options_t ro = {.variant = SP_BFS_PUSH, .loop = SP_BFS_LOOP_HOST,
                                        .measure_time = 1, .frontier_capacity = 6,
                                        .frontier_sizes = sizes, .directions = dirs,
                                        .level_times_ms = times};
    static const sp_bfs_options_t bad = {.variant = SP_BFS_PUSH, .alpha = -1,
                                         .frontier_capacity = 6, .frontier_sizes = sizes};
    sp_bfs_options_t copy;
    memcpy(&copy, &ro, sizeof ro);
    sp_context_t *ctx = g_ctx;
    sp_matrix_t *G = g_graph;
    const int64_t sources[3] = {0, 3, 5};
    int32_t level[18];
    sp_bfs_stats_t s[3];
    ck_assert_ok(sp_bfs(ctx, G, 0, &ro, level, NULL, s));
    ck_assert_ok(sp_bfs_multi(ctx, G, 3, sources, &ro, level, NULL, s));
    ck_assert_ok(sp_bfs_multi(ctx, G, 3, sources, &ro, level, NULL, NULL));
    ck_assert_mem_eq(&ro, &copy, sizeof ro);
    memcpy(&copy, &bad, sizeof bad);
    ck_assert_status(sp_bfs_multi(ctx, G, 3, sources, &bad, level, NULL, s),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_mem_eq(&bad, &copy, sizeof bad);
}
END_TEST

/* Every field of each search's stats is written: poisoned first, each differs after. */
#define ck_assert_written(s, poison, field) \
    ck_assert_msg(memcmp(&(s).field, &(poison).field, sizeof(s).field) != 0, \
                  #field " not written")

static void check_all_written(const sp_bfs_stats_t *s, const sp_bfs_stats_t *poison)
{
    ck_assert_written(*s, *poison, levels);
    ck_assert_written(*s, *poison, vertices_visited);
    ck_assert_written(*s, *poison, edges_traversed);
    ck_assert_written(*s, *poison, direction_switches);
    ck_assert_written(*s, *poison, time_ms);
    ck_assert_written(*s, *poison, search_ms);
    ck_assert_written(*s, *poison, variant_used);
    ck_assert_written(*s, *poison, loop_used);
}

START_TEST(stats_all_written)
{
    sp_context_t *ctx = g_ctx;
    sp_matrix_t *G = g_graph;
    const int64_t sources[3] = {0, 3, 5};
    int32_t level[18];
    sp_bfs_stats_t poison, s[3];
    memset(&poison, 0xA5, sizeof poison);
    for (int timed = 0; timed < 2; timed++) {
        sp_bfs_options_t o = {0};
        o.measure_time = timed;
        for (int i = 0; i < 3; i++) s[i] = poison;
        ck_assert_ok(sp_bfs(ctx, G, 0, timed ? &o : NULL, level, NULL, &s[0]));
        check_all_written(&s[0], &poison);
        ck_assert_int_eq(s[0].levels, 4);
        for (int i = 0; i < 3; i++) s[i] = poison;
        ck_assert_ok(sp_bfs_multi(ctx, G, 3, sources, &o, level, NULL, s));
        for (int i = 0; i < 3; i++) check_all_written(&s[i], &poison);
        ck_assert_int_eq(s[1].levels, 2);
        ck_assert_int_eq(s[2].vertices_visited, 1);
        ck_assert(timed ? s[2].time_ms >= 0 : s[2].time_ms == 0);
    }
}
END_TEST

/* sp_bfs_multi's search i writes its records at i * frontier_capacity, the values a single
 * search writes (hand-checked here); a failed call leaves the arrays as they were. */
START_TEST(multi_records)
{
    sp_context_t *ctx = g_ctx;
    sp_matrix_t *G = g_graph;
    const int64_t sources[3] = {0, 3, 5};
    int32_t level[18], dirs[15], one_dirs[5];
    int64_t sizes[15], one_sizes[5];
    double times[15], one_times[5];
    sp_bfs_options_t o = {0};
    o.frontier_capacity = 5, o.frontier_sizes = sizes, o.directions = dirs;
    o.level_times_ms = times, o.measure_time = 1;
    ck_assert_ok(sp_bfs_multi(ctx, G, 3, sources, &o, level, NULL, NULL));
    const int64_t esizes[15] = {1, 2, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0};
    const int32_t edirs[15] = {0, 0, 0, 0, -1, 0, 0, -1, -1, -1, 0, -1, -1, -1, -1};
    ck_assert_mem_eq(sizes, esizes, sizeof esizes);
    ck_assert_mem_eq(dirs, edirs, sizeof edirs);
    for (int l = 0; l < 15; l++) ck_assert(times[l] == -1);
    for (int i = 0; i < 3; i++) {
        sp_bfs_options_t one = o;
        one.frontier_sizes = one_sizes, one.directions = one_dirs, one.level_times_ms = one_times;
        ck_assert_ok(sp_bfs(ctx, G, sources[i], &one, level, NULL, NULL));
        ck_assert_mem_eq(sizes + 5 * i, one_sizes, sizeof one_sizes);
        ck_assert_mem_eq(dirs + 5 * i, one_dirs, sizeof one_dirs);
    }
    /* a refused call writes none of them */
    memset(sizes, 0x5A, sizeof sizes);
    o.alpha = -1;
    ck_assert_status(sp_bfs_multi(ctx, G, 3, sources, &o, level, NULL, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_int_eq(sizes[0], 0x5A5A5A5A5A5A5A5A);
}
END_TEST

/* Each bad combination of the record fields is refused naming the field. */
START_TEST(record_refusals)
{
    sp_context_t *ctx = g_ctx;
    sp_matrix_t *G = g_graph;
    const int64_t sources[2] = {0, 3};
    int32_t level[12], dirs[6];
    int64_t sizes[6];
    double times[6];
    static const struct {
        int64_t capacity;
        int sizes, dirs, times; /* which arrays are given */
        const char *message;
    } bad[] = {
        {-1, 1, 0, 0, "options->frontier_capacity -1 < 0"},
        {3, 0, 0, 0, "options->frontier_capacity 3 with frontier_sizes, directions and "
                     "level_times_ms NULL"},
        {0, 1, 0, 0, "options->frontier_sizes given with frontier_capacity 0"},
        {0, 0, 1, 0, "options->directions given with frontier_capacity 0"},
        {0, 0, 0, 1, "options->level_times_ms given with frontier_capacity 0"},
        {INT64_MAX / 2 + 1, 1, 0, 0,
         "options->frontier_capacity 4611686018427387904 times 2 sources overflows"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sp_bfs_options_t o = {.frontier_capacity = bad[k].capacity};
        o.frontier_sizes = bad[k].sizes ? sizes : NULL;
        o.directions = bad[k].dirs ? dirs : NULL;
        o.level_times_ms = bad[k].times ? times : NULL;
        ck_assert_status(sp_bfs_multi(ctx, G, 2, sources, &o, level, NULL, NULL),
                         SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has(bad[k].message);
        ck_assert_error_has("sp_bfs_multi: ");
    }
    /* sp_bfs names itself; the arrays with their capacity are valid */
    sp_bfs_options_t o = {.frontier_capacity = -1, .frontier_sizes = sizes};
    ck_assert_status(sp_bfs(ctx, G, 0, &o, level, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_bfs: options->frontier_capacity -1 < 0");
    o.frontier_capacity = 6, o.directions = dirs, o.level_times_ms = times;
    ck_assert_ok(sp_bfs(ctx, G, 0, &o, level, NULL, NULL));
}
END_TEST

START_TEST(drop_self_loops)
{
    sp_coo_t *a = NULL;
    int64_t dropped = -1;
    ck_assert_ok(sp_coo_create(4, 4, 6, SP_R_64F, &a));
    static const int32_t r[] = {0, 1, 1, 2, 3, 3}, c[] = {0, 2, 1, 3, 3, 0};
    memcpy(a->row, r, sizeof r), memcpy(a->col, c, sizeof c), a->nnz = 6;
    for (int k = 0; k < 6; k++) ((double *)a->val)[k] = k;
    ck_assert_ok(sp_coo_drop_self_loops(a, &dropped));
    ck_assert_int_eq(dropped, 3);
    ck_assert_int_eq(a->nnz, 3);
    const int32_t er[] = {1, 2, 3}, ec[] = {2, 3, 0};
    const double ev[] = {1, 3, 5};
    ck_assert_mem_eq(a->row, er, sizeof er);
    ck_assert_mem_eq(a->col, ec, sizeof ec);
    ck_assert_mem_eq(a->val, ev, sizeof ev);
    ck_assert_ok(sp_coo_drop_self_loops(a, NULL));
    ck_assert_int_eq(a->nnz, 3);
    ck_assert_status(sp_coo_drop_self_loops(NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("coo is NULL");
    sp_coo_free(a);
}
END_TEST

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq((int)fwrite(text, 1, strlen(text), f), (int)strlen(text));
    ck_assert_int_eq(fclose(f), 0);
}

/* The same directed multigraph with self-loops as .mtx and as a SNAP edge list: both
 * preparations give one undirected simple graph, and BFS levels agree. */
START_TEST(graph_preparation)
{
    const char *dir = sp_test_make_temp_dir();
    char mtx[512], el[512];
    snprintf(mtx, sizeof mtx, "%s/g.mtx", dir);
    snprintf(el, sizeof el, "%s/g.txt", dir);
    write_file(mtx, "%%MatrixMarket matrix coordinate pattern general\n5 5 7\n"
                    "1 2\n2 3\n2 3\n3 3\n4 1\n1 2\n5 5\n");
    write_file(el, "0 1\n1 2\n1 2\n2 2\n3 0\n0 1\n4 4\n");
    sp_coo_t *a = NULL, *b = NULL;
    sp_edgelist_options_t eo = {0};
    sp_edgelist_info_t info = {0};
    eo.undirected = 1, eo.drop_self_loops = 1, eo.merge_duplicates = 1;
    ck_assert_ok(sp_mtx_read(mtx, SP_VALUE_NONE, NULL, &a));
    ck_assert_ok(sp_coo_symmetrize(a, 1));
    ck_assert_ok(sp_edgelist_read(el, SP_VALUE_NONE, &eo, &b, &info));
    ck_assert_ok(sp_coo_sort_merge(b, SP_DUP_KEEP, NULL));
    /* 0-1 1-2 0-3, both ways */
    ck_assert_int_eq(a->nnz, 6);
    ck_assert_int_eq(b->nnz, 6);
    ck_assert_mem_eq(a->row, b->row, 6 * sizeof(int32_t));
    ck_assert_mem_eq(a->col, b->col, 6 * sizeof(int32_t));
    /* directed, self-loops dropped, duplicates merged when the matrix is made */
    sp_coo_t *c = NULL;
    sp_context_t *ctx = NULL;
    sp_matrix_t *G = NULL;
    sp_matrix_info_t mi;
    sp_matrix_options_t mo = {.duplicates = SP_DUP_KEEP};
    int64_t dropped = 0;
    ck_assert_ok(sp_mtx_read(mtx, SP_VALUE_NONE, NULL, &c));
    ck_assert_ok(sp_coo_drop_self_loops(c, &dropped));
    ck_assert_int_eq(dropped, 2);
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_matrix_create(ctx, c, &mo, &G));
    ck_assert_ok(sp_matrix_info(G, &mi));
    ck_assert_int_eq(mi.nnz, 3);
    ck_assert_int_eq(mi.duplicates_merged, 2);
    int32_t level[5];
    ck_assert_ok(sp_bfs(ctx, G, 3, NULL, level, NULL, NULL));
    const int32_t elevel[] = {1, 2, 3, 0, -1};
    ck_assert_mem_eq(level, elevel, sizeof elevel);
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
    sp_coo_free(c);
    sp_coo_free(b);
    sp_coo_free(a);
    sp_test_remove_temp_dir(dir);
}
END_TEST

/* ---- the cache a search keeps in the matrix ---- */

static int64_t cache_builds(const sp_matrix_t *G)
{
    return G->bfs_cache ? G->bfs_cache->builds : 0;
}

/* Repeated calls reuse one cache and give identical outputs and stats. */
START_TEST(cache_reused)
{
    sp_context_t *ctx = NULL;
    sp_coo_t *g = NULL;
    sp_matrix_t *G = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    ck_assert_ok(sp_gen_grid2d(30, SP_VALUE_NONE, &g));
    ck_assert_ok(sp_matrix_create(ctx, g, NULL, &G));
    int64_t n = g->nrows;
    int32_t *l1 = malloc((size_t)n * sizeof *l1), *p1 = malloc((size_t)n * sizeof *p1);
    int32_t *l2 = malloc((size_t)n * sizeof *l2), *p2 = malloc((size_t)n * sizeof *p2);
    int32_t *lm = malloc((size_t)(2 * n) * sizeof *lm);
    ck_assert(l1 && p1 && l2 && p2 && lm);
    ck_assert_ptr_null(G->bfs_cache);
    sp_bfs_stats_t a = {0}, b = {0}, m[2];
    ck_assert_ok(sp_bfs(ctx, G, 17, NULL, l1, p1, &a));
    ck_assert_ptr_nonnull(G->bfs_cache);
    const sp__bfs_cache_t *first = G->bfs_cache;
    ck_assert_int_eq(cache_builds(G), 1);
    ck_assert_int_eq(first->key.variant, SP_BFS_DIRECTION_OPT); /* AUTO resolved */
    ck_assert_int_eq(first->key.loop, SP_BFS_LOOP_HOST);
    for (int rep = 0; rep < 3; rep++) {
        memset(l2, 0x7f, (size_t)n * sizeof *l2);
        ck_assert_ok(sp_bfs(ctx, G, 17, NULL, l2, p2, &b));
        ck_assert_mem_eq(l1, l2, (size_t)n * sizeof *l1);
        ck_assert_mem_eq(p1, p2, (size_t)n * sizeof *p1);
        ck_assert_int_eq(a.levels, b.levels);
        ck_assert_int_eq(a.vertices_visited, b.vertices_visited);
        ck_assert_int_eq(a.edges_traversed, b.edges_traversed);
    }
    /* AUTO given explicitly, and sp_bfs_multi, use the same cache */
    sp_bfs_options_t o = {.variant = SP_BFS_DIRECTION_OPT, .loop = SP_BFS_LOOP_HOST};
    const int64_t src[2] = {17, 17};
    ck_assert_ok(sp_bfs_multi(ctx, G, 2, src, &o, lm, NULL, m));
    ck_assert_mem_eq(lm, l1, (size_t)n * sizeof *l1);
    ck_assert_mem_eq(lm + n, l1, (size_t)n * sizeof *l1);
    ck_assert_ptr_eq(G->bfs_cache, first);
    ck_assert_int_eq(cache_builds(G), 1);
    free(lm), free(p2), free(l2), free(p1), free(l1);
    sp_matrix_destroy(G);
    sp_coo_free(g);
    sp_context_destroy(ctx);
}
END_TEST

/* Other options make the cache anew (variant, loop, alpha, beta, more records); fewer
 * records than it has room for do not. */
START_TEST(cache_follows_options)
{
    sp_context_t *ctx = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    sp_matrix_t *G = small_graph(ctx);
    int32_t level[6], want[6], dirs[6];
    int64_t builds = 0;
    ck_assert_ok(sp_bfs(ctx, G, 0, NULL, want, NULL, NULL));
    static const struct {
        sp_bfs_variant_t v;
        sp_bfs_loop_t l;
        double alpha, beta;
        int64_t cap;
        int rebuilt;
    } steps[] = {
        {SP_BFS_AUTO, SP_BFS_LOOP_AUTO, 0, 0, 0, 0},     /* the same as the first call */
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 0, 0, 0, 1},     /* variant */
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 0, 0, 0, 0},
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 3, 0, 0, 1},     /* alpha */
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 3, 4, 0, 1},     /* beta */
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 3, 4, 5, 1},     /* room for records */
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 3, 4, 2, 0},     /* fewer fit the room */
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 3, 4, 6, 1},
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 3, 4, 6000, 1},  /* capped at n + 1 levels */
        {SP_BFS_PULL, SP_BFS_LOOP_HOST, 3, 4, 7000, 0},
        {SP_BFS_FRONTIER, SP_BFS_LOOP_PERSISTENT, 0, 0, 0, 1}, /* loop */
    };
    builds = cache_builds(G);
    ck_assert_int_eq(builds, 1);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        sp_bfs_options_t o = {.variant = steps[i].v, .loop = steps[i].l,
                              .alpha = steps[i].alpha, .beta = steps[i].beta};
        int32_t *big = NULL;
        if (steps[i].cap > 6) big = malloc((size_t)steps[i].cap * sizeof *big);
        o.frontier_capacity = steps[i].cap;
        o.directions = steps[i].cap ? (big ? big : dirs) : NULL;
        ck_assert_ok(sp_bfs(ctx, G, 0, &o, level, NULL, NULL));
        ck_assert_mem_eq(level, want, sizeof want);
        builds += steps[i].rebuilt;
        ck_assert_msg(cache_builds(G) == builds, "step %zu: %lld builds, expected %lld", i,
                      (long long)cache_builds(G), (long long)builds);
        if (steps[i].cap >= 6000) ck_assert_int_eq(G->bfs_cache->key.capacity, 7); /* n + 1 */
        free(big);
    }
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
}
END_TEST

/* Releasing the CSR frees the cache; destroying the matrix frees it (no block left). */
START_TEST(cache_freed_with_matrix)
{
    sp_context_t *ctx = NULL;
    sp_test_fail_allocations_after(-1); /* count, never fail */
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    sp_matrix_t *G = small_graph(ctx);
    int32_t level[6];
    int64_t live = sp_test_live_allocations();
    ck_assert_ok(sp_bfs(ctx, G, 0, NULL, level, NULL, NULL));
    ck_assert_ptr_nonnull(G->bfs_cache);
    ck_assert_ok(sp_matrix_release(ctx, G, SP_FORMAT_CSC)); /* not built: nothing to free */
    ck_assert_ok(sp_matrix_release(ctx, G, SP_FORMAT_CSR));
    ck_assert_ptr_null(G->bfs_cache);
    ck_assert_int_eq(sp_test_live_allocations(), live);
    ck_assert_ok(sp_bfs(ctx, G, 0, NULL, level, NULL, NULL)); /* made again */
    ck_assert_int_eq(cache_builds(G), 1);
    ck_assert_int_eq(level[4], 3);
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
    ck_assert_int_eq(sp_test_live_allocations(), 0);
    sp_test_restore_allocator();
}
END_TEST

/* After sp_bfs_prepare a search with the same options allocates nothing; other options
 * need a new cache (refused for memory here, leaving no cache and the outputs alone). */
START_TEST(prepare_then_search)
{
    sp_context_t *ctx = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_HOST, NULL, &ctx));
    sp_matrix_t *G = small_graph(ctx);
    int32_t level[6], parent[6], want[6] = {0, 1, 1, 2, 3, -1};
    int64_t sizes[12];
    sp_bfs_stats_t s[2];
    const int64_t src[2] = {0, 5};
    sp_bfs_options_t o = {.variant = SP_BFS_FRONTIER, .loop = SP_BFS_LOOP_HOST,
                          .frontier_capacity = 6, .frontier_sizes = sizes, .measure_time = 1};
    ck_assert_ok(sp_bfs_prepare(ctx, G, &o));
    ck_assert_int_eq(cache_builds(G), 1);
    ck_assert_ok(sp_bfs_prepare(ctx, G, &o)); /* already made */
    ck_assert_int_eq(cache_builds(G), 1);
    sp_test_fail_allocations_after(0);
    ck_assert_ok(sp_bfs(ctx, G, 0, &o, level, parent, &s[0]));
    int32_t lm[12];
    ck_assert_ok(sp_bfs_multi(ctx, G, 2, src, &o, lm, NULL, s));
    int64_t made = sp_test_allocations();
    sp_bfs_options_t other = o;
    other.variant = SP_BFS_PUSH;
    memset(level, 0x5a, sizeof level);
    ck_assert_status(sp_bfs(ctx, G, 0, &other, level, NULL, NULL), SP_STATUS_ALLOC_FAILED);
    sp_test_restore_allocator();
    ck_assert_int_eq(made, 0);
    ck_assert_mem_eq(lm, want, sizeof want);
    ck_assert_int_eq(lm[6 + 5], 0);
    ck_assert_int_eq(level[0], 0x5a5a5a5a);
    ck_assert_ptr_null(G->bfs_cache);
    /* the timers: the call's wall clock holds the search's; multi's add up */
    ck_assert(s[0].time_ms >= s[0].search_ms && s[0].search_ms >= 0);
    ck_assert(s[1].time_ms >= s[1].search_ms && s[1].search_ms >= 0);
    /* prepare checks what sp_bfs checks */
    ck_assert_status(sp_bfs_prepare(NULL, G, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sp_bfs_prepare");
    sp_bfs_options_t bad = {.variant = SP_BFS_PULL, .loop = SP_BFS_LOOP_PERSISTENT};
    ck_assert_status(sp_bfs_prepare(ctx, G, &bad), SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("sp_bfs_prepare: variant pull with loop persistent");
    bad = (sp_bfs_options_t){.frontier_capacity = 3};
    ck_assert_status(sp_bfs_prepare(ctx, G, &bad), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("frontier_capacity 3");
    ck_assert_ok(sp_bfs_prepare(ctx, G, NULL));
    ck_assert_int_eq(G->bfs_cache->key.variant, SP_BFS_DIRECTION_OPT);
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
}
END_TEST

static Suite *bfs_api_suite(void)
{
    Suite *s = suite_create("bfs_api");
    TCase *t = tcase_create("api");
    tcase_add_test(t, names);
    tcase_add_test(t, auto_choice_and_direction_rule);
    tcase_add_test(t, stats_on_host);
    tcase_add_test(t, multi_matches_single);
    tcase_add_test(t, refusals);
    tcase_add_test(t, drop_self_loops);
    tcase_add_test(t, graph_preparation);
    suite_add_tcase(s, t);
    TCase *r = tcase_create("records");
    tcase_add_checked_fixture(r, records_setup, records_teardown);
    tcase_add_test(r, options_are_read_only);
    tcase_add_test(r, stats_all_written);
    tcase_add_test(r, multi_records);
    tcase_add_test(r, record_refusals);
    suite_add_tcase(s, r);
    TCase *c = tcase_create("cache");
    tcase_add_test(c, cache_reused);
    tcase_add_test(c, cache_follows_options);
    tcase_add_test(c, cache_freed_with_matrix);
    tcase_add_test(c, prepare_then_search);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    return sp_test_run(bfs_api_suite());
}
