/* The GPU BFS level loops (kernels/bfs/: single block with hand-over, persistent SOFT and
 * COOP) against sp__ref_bfs: levels exactly, parents valid, frontier sizes and counts equal,
 * on a hand-checked graph, degenerate and adversarial shapes (one vertex, no edges, long
 * paths, stars, grids, trees), Kronecker and random graphs from many sources; the
 * persistent kernel with 1 and 2 blocks; its safety net (a stall limit cut to 1 ns must end
 * the call with SP_STATUS_INTERNAL_ERROR, not a hang); hand-overs forced by a small shared
 * queue; refused arguments and failed allocations. SP_TEST_SMALL=1 shrinks the sizes (for
 * compute-sanitizer); SP_BFS_PERSISTENT_BLOCKS=k runs every persistent call on k blocks.
 * Every case (one loop, one graph, one source) is announced on stderr before it runs and
 * has its own alarm (SP_BFS_CASE_SECONDS, default 60, 600 with SP_TEST_SMALL): a hang
 * names its case and exits 3 instead of running into ctest's limit. Values are compared
 * in plain loops with one assertion on the first difference: Check records every passing
 * ck_assert (about 1.4 us each), and one per vertex made this suite run for many minutes.
 * Exits 77 without a GPU. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "sp_base.h"
#include "sp_kernels_bfs.h"
#include "sp_ref.h"
#include "testutil_gpu.h"

/* cudaMalloc/cudaFree through T.env, counting live blocks, failing on demand */
static sp_test_env_t T;
static int small;       /* SP_TEST_SMALL */
static int sanitizing;  /* SP_TEST_UNDER_SANITIZER: racecheck runs these kernels ~100x slower */

/* An input size: full, with SP_TEST_SMALL, under a sanitizer. */
static int64_t size_for(int64_t full, int64_t small_size, int64_t sanitized)
{
    return sanitizing ? sanitized : small ? small_size : full;
}
static int env_blocks;  /* SP_BFS_PERSISTENT_BLOCKS (0: occupancy) */
static unsigned case_seconds; /* SP_BFS_CASE_SECONDS */

/* ---- hang diagnosis: the running case's name, reported by the alarm ------------------ */

static char case_line[256];
static size_t case_len;

static void on_alarm(int sig)
{
    static const char head[] = "\ncheck_gpu_bfs_loops: TIMEOUT (hang?) in case: ";
    (void)sig;
    (void)!write(2, head, sizeof head - 1);
    (void)!write(2, case_line, case_len);
    _exit(3);
}

/* Names the case that runs next on stderr and restarts the alarm for it. */
static void begin_case(const char *loop, const char *graph, int64_t n, int64_t source)
{
    int k = snprintf(case_line, sizeof case_line, "case: %s on %s (%lld vertices) source %lld\n",
                     loop, graph, (long long)n, (long long)source);
    case_len = k < 0 ? 0 : (size_t)k < sizeof case_line ? (size_t)k : sizeof case_line - 1;
    fputs(case_line, stderr);
    fflush(stderr);
    alarm(case_seconds);
}

static void end_case(void) { alarm(0); }

static void setup(void)
{
    const char *e = getenv("SP_BFS_PERSISTENT_BLOCKS");
    small = sp_test_small();
    sanitizing = sp_test_under_sanitizer();
    env_blocks = e != NULL ? atoi(e) : 0;
    e = getenv("SP_BFS_CASE_SECONDS");
    case_seconds = small ? 600 : 60; /* SP_TEST_SMALL runs under compute-sanitizer: slow */
    if (e != NULL && atoi(e) > 0) case_seconds = (unsigned)atoi(e);
    {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigemptyset(&sa.sa_mask);
        ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
    }
    sp__gpu_bfs_set_persistent_blocks(env_blocks);
    sp__gpu_bfs_set_single_block_capacity(0);
    sp__gpu_bfs_set_persistent_stall_ns(0);
    sp__gpu_bfs_set_persistent_prefetch(1);
    sp__gpu_bfs_set_loop_gather(1);
    sp_test_env_setup(&T);
}

static void teardown(void)
{
    end_case();
    sp__gpu_bfs_set_persistent_blocks(0);
    sp__gpu_bfs_set_single_block_capacity(0);
    sp__gpu_bfs_set_persistent_stall_ns(0);
    sp__gpu_bfs_set_persistent_prefetch(1);
    sp__gpu_bfs_set_loop_gather(1);
    sp_test_env_teardown(&T);
}

/* ---- graphs: a host CSR (rows sorted, duplicates and self-loops kept) and its copy ---- */

typedef struct graph {
    sp_csr_t h, d;
    const char *name;
} graph_t;

typedef struct edges {
    int64_t n, m, cap;
    int32_t *src, *dst;
} edges_t;

static edges_t edges_new(int64_t n, int64_t cap)
{
    edges_t e = {n, 0, cap > 0 ? cap : 1, NULL, NULL};
    e.src = malloc((size_t)e.cap * 4);
    e.dst = malloc((size_t)e.cap * 4);
    ck_assert(e.src != NULL && e.dst != NULL);
    return e;
}

static void edge(edges_t *e, int64_t u, int64_t v)
{
    if (e->m == e->cap) {
        e->cap *= 2;
        e->src = realloc(e->src, (size_t)e->cap * 4);
        e->dst = realloc(e->dst, (size_t)e->cap * 4);
        ck_assert(e->src != NULL && e->dst != NULL);
    }
    e->src[e->m] = (int32_t)u;
    e->dst[e->m] = (int32_t)v;
    e->m++;
}

static void both(edges_t *e, int64_t u, int64_t v)
{
    edge(e, u, v);
    edge(e, v, u);
}

/* Counting sort by head, then stably by tail: rows sorted (binary search for parents). */
static graph_t graph_from(edges_t *e, const char *name)
{
    graph_t g;
    int64_t n = e->n, m = e->m;
    int32_t *cnt = calloc((size_t)n + 1, 4);
    int32_t *ptr = calloc((size_t)n + 1, 4), *idx = malloc((size_t)(m > 0 ? m : 1) * 4);
    int32_t *order = malloc((size_t)(m > 0 ? m : 1) * 4);
    ck_assert(cnt && ptr && idx && order);
    for (int64_t k = 0; k < m; k++) cnt[e->dst[k] + 1]++;
    for (int64_t v = 0; v < n; v++) cnt[v + 1] += cnt[v];
    for (int64_t k = 0; k < m; k++) order[cnt[e->dst[k]]++] = (int32_t)k; /* by head */
    for (int64_t k = 0; k < m; k++) ptr[e->src[k] + 1]++;
    for (int64_t v = 0; v < n; v++) ptr[v + 1] += ptr[v];
    memcpy(cnt, ptr, (size_t)n * 4);
    for (int64_t i = 0; i < m; i++) {
        int32_t k = order[i];
        idx[cnt[e->src[k]]++] = e->dst[k];
    }
    free(cnt);
    free(order);
    free(e->src);
    free(e->dst);
    e->src = e->dst = NULL;
    memset(&g, 0, sizeof g);
    g.name = name;
    g.h.nrows = g.h.ncols = n;
    g.h.nnz = m;
    g.h.value_type = SP_VALUE_NONE;
    g.h.ptr = ptr;
    g.h.idx = idx;
    g.d = g.h;
    g.d.ptr = sp_test_env_upload(&T, ptr, (size_t)(n + 1) * 4);
    g.d.idx = sp_test_env_upload(&T, idx, (size_t)m * 4);
    return g;
}

static void graph_free(graph_t *g)
{
    sp_test_env_free(&T, g->d.ptr);
    sp_test_env_free(&T, g->d.idx);
    free(g->h.ptr);
    free(g->h.idx);
    memset(g, 0, sizeof *g);
}

static graph_t graph_from_coo(sp_coo_t *coo, const char *name)
{
    edges_t e = edges_new(coo->nrows, coo->nnz);
    for (int64_t k = 0; k < coo->nnz; k++) edge(&e, coo->row[k], coo->col[k]);
    sp_coo_free(coo);
    return graph_from(&e, name);
}

/* ---- running a loop and judging it ----------------------------------------------- */

typedef enum loop { SINGLE_BLOCK, PERSISTENT_SOFT, PERSISTENT_COOP, NLOOPS } loop_t;
static const char *const loop_name[NLOOPS] = {"single_block", "persistent_soft", "persistent_coop"};

/* One call of loop l; the case is announced and watched by the alarm while it runs. */
static sp_status_t run_loop_named(loop_t l, const char *graph, const sp_csr_t *d, int32_t source,
                                  int32_t *d_level, int32_t *d_parent, int64_t *sizes, int64_t cap,
                                  sp_gpu_bfs_result_t *r)
{
    sp_status_t st;
    begin_case(loop_name[l], graph, d->nrows, source);
    if (l == SINGLE_BLOCK)
        st =
            sp__gpu_bfs_single_block(&T.env, NULL, d, source, d_level, d_parent, sizes, cap, r);
    else
        st = sp__gpu_bfs_persistent(&T.env, NULL, d, source,
                                    l == PERSISTENT_COOP ? SP_GPU_BFS_SYNC_COOP
                                                         : SP_GPU_BFS_SYNC_SOFT,
                                    d_level, d_parent, sizes, cap, r);
    end_case();
    return st;
}

static sp_status_t run_loop(loop_t l, const sp_csr_t *d, int32_t source, int32_t *d_level,
                            int32_t *d_parent, int64_t *sizes, int64_t cap,
                            sp_gpu_bfs_result_t *r)
{
    return run_loop_named(l, "a small graph", d, source, d_level, d_parent, sizes, cap, r);
}

static int32_t *download_i32(const int32_t *d, int64_t n)
{
    int32_t *h = malloc((size_t)n * 4);
    ck_assert_ptr_nonnull(h);
    sp_test_to_host(h, d, (size_t)n * 4, NULL);
    return h;
}

/* Every loop from source against the reference. */
static void check_source(const graph_t *g, int32_t source)
{
    int64_t n = g->h.nrows, cap = n + 1 < ((int64_t)1 << 21) ? n + 1 : ((int64_t)1 << 21);
    int32_t *want = malloc((size_t)n * 4);
    int64_t *want_sizes = malloc((size_t)cap * 8), *got_sizes = malloc((size_t)cap * 8);
    int64_t levels = 0, vertices = 0, edges = 0;
    int32_t *d_level = NULL, *d_parent = NULL;
    ck_assert(want && want_sizes && got_sizes);
    ck_assert_ok(sp__ref_bfs(&g->h, source, want, NULL, &levels, &vertices, &edges, want_sizes,
                             cap));
    ck_assert_ok(sp_test_env_alloc(&T, (void **)&d_level, (size_t)n * 4));
    ck_assert_ok(sp_test_env_alloc(&T, (void **)&d_parent, (size_t)n * 4));
    for (int l = 0; l < NLOOPS; l++) {
        sp_gpu_bfs_result_t r = {-7, -7, -7};
        ck_cuda(cudaMemset(d_level, 0x5a, (size_t)n * 4));
        ck_cuda(cudaMemset(d_parent, 0x5a, (size_t)n * 4));
        for (int64_t i = 0; i < cap; i++) got_sizes[i] = -7;
        sp_status_t st = run_loop_named((loop_t)l, g->name, &g->d, source, d_level, d_parent,
                                        got_sizes, cap, &r);
        if (l == PERSISTENT_COOP && st == SP_STATUS_NOT_SUPPORTED) continue;
        ck_assert_msg(st == SP_STATUS_SUCCESS, "%s on %s from %d: %s: %s", loop_name[l], g->name,
                      source, sp_status_string(st), sp_last_error());
        int32_t *level = download_i32(d_level, n), *parent = download_i32(d_parent, n);
        for (int64_t v = 0; v < n; v++)
            if (level[v] != want[v])
                ck_abort_msg("%s on %s from %d: level[%lld] = %d, expected %d", loop_name[l],
                             g->name, source, (long long)v, level[v], want[v]);
        for (int64_t v = 0; v < n; v++) {
            int32_t p = parent[v];
            if (v == source) {
                if (p != source)
                    ck_abort_msg("%s on %s: parent[source %d] = %d", loop_name[l], g->name,
                                 source, p);
            } else if (want[v] < 0) {
                if (p != -1)
                    ck_abort_msg("%s on %s from %d: unreached %lld has parent %d", loop_name[l],
                                 g->name, source, (long long)v, p);
            } else if (!(p >= 0 && p < n && level[p] == level[v] - 1 &&
                         sp_test_has_edge(&g->h, p, (int32_t)v))) {
                ck_abort_msg("%s on %s from %d: parent[%lld] = %d is no neighbour one level up",
                             loop_name[l], g->name, source, (long long)v, p);
            }
        }
        for (int64_t i = 0; i < cap; i++)
            if (got_sizes[i] != want_sizes[i])
                ck_abort_msg("%s on %s from %d: frontier size %lld = %lld, expected %lld",
                             loop_name[l], g->name, source, (long long)i,
                             (long long)got_sizes[i], (long long)want_sizes[i]);
        ck_assert_msg(r.levels == levels && r.vertices == vertices && r.edges == edges,
                      "%s on %s from %d: %lld levels, %lld vertices, %lld edges; expected %lld, "
                      "%lld, %lld", loop_name[l], g->name, source, (long long)r.levels,
                      (long long)r.vertices, (long long)r.edges, (long long)levels,
                      (long long)vertices, (long long)edges);
        free(level);
        free(parent);
    }
    sp_test_env_free(&T, d_level);
    sp_test_env_free(&T, d_parent);
    free(want);
    free(want_sizes);
    free(got_sizes);
}

/* The given sources, then nrandom random ones. */
static void check_graph(graph_t *g, const int32_t *sources, int nsources, int nrandom,
                        uint64_t seed)
{
    for (int i = 0; i < nsources; i++) check_source(g, sources[i]);
    for (int i = 0; i < nrandom; i++)
        check_source(g, (int32_t)(sp_test_rand(&seed) % (uint64_t)g->h.nrows));
    graph_free(g);
}

/* ---- graph shapes ------------------------------------------------------------------ */

static graph_t path_graph(int64_t n, int directed)
{
    edges_t e = edges_new(n, 2 * n);
    for (int64_t v = 0; v + 1 < n; v++) {
        if (directed)
            edge(&e, v, v + 1);
        else
            both(&e, v, v + 1);
    }
    return graph_from(&e, directed ? "directed path" : "path");
}

static graph_t star_graph(int64_t leaves)
{
    edges_t e = edges_new(leaves + 1, 2 * leaves);
    for (int64_t v = 1; v <= leaves; v++) both(&e, 0, v);
    return graph_from(&e, "star");
}

static graph_t grid_graph(int64_t side)
{
    sp_coo_t *coo = NULL;
    ck_assert_ok(sp_gen_grid2d(side, SP_VALUE_NONE, &coo));
    return graph_from_coo(coo, "grid2d");
}

static graph_t tree_graph(int64_t n)
{
    edges_t e = edges_new(n, 2 * n);
    for (int64_t v = 1; v < n; v++) both(&e, (v - 1) / 2, v);
    return graph_from(&e, "binary tree");
}

static graph_t kron_graph(int scale, int undirected)
{
    sp_coo_t *coo = NULL;
    ck_assert_ok(sp_gen_kronecker(scale, 16, 42, SP_VALUE_NONE, &coo));
    if (undirected) ck_assert_ok(sp_coo_symmetrize(coo, 0));
    return graph_from_coo(coo, undirected ? "kronecker" : "directed kronecker");
}

/* m random directed edges; with extras, self-loops on every 7th vertex and every 5th edge
 * repeated. */
static graph_t random_graph(int64_t n, int64_t m, uint64_t seed, int extras)
{
    edges_t e = edges_new(n, m + m / 4 + n / 7 + 1);
    for (int64_t k = 0; k < m; k++) {
        int64_t u = (int64_t)(sp_test_rand(&seed) % (uint64_t)n);
        int64_t v = (int64_t)(sp_test_rand(&seed) % (uint64_t)n);
        edge(&e, u, v);
        if (extras && k % 5 == 0) edge(&e, u, v);
    }
    if (extras)
        for (int64_t v = 0; v < n; v += 7) edge(&e, v, v);
    return graph_from(&e, extras ? "random with self-loops and duplicates" : "random directed");
}

/* Two random undirected halves, no edge between them, every 10th vertex isolated. */
static graph_t disconnected_graph(int64_t n, uint64_t seed)
{
    edges_t e = edges_new(n, 8 * n);
    int64_t half = n / 2;
    for (int64_t k = 0; k < 2 * n; k++) {
        int64_t lo = k % 2 ? half : 0, len = k % 2 ? n - half : half;
        int64_t u = lo + (int64_t)(sp_test_rand(&seed) % (uint64_t)len);
        int64_t v = lo + (int64_t)(sp_test_rand(&seed) % (uint64_t)len);
        if (u % 10 != 0 && v % 10 != 0) both(&e, u, v);
    }
    return graph_from(&e, "disconnected");
}

/* ---- tests -------------------------------------------------------------------------- */

/* 0->1, 0->2, 1->3, 2->3, 3->4, 4->0, 5->0: levels 0 1 1 2 3 -1, frontiers 1 2 1 1. */
START_TEST(test_tiny)
{
    edges_t e = edges_new(6, 8);
    static const int32_t src[] = {0, 0, 1, 2, 3, 4, 5}, dst[] = {1, 2, 3, 3, 4, 0, 0};
    static const int32_t want_level[] = {0, 1, 1, 2, 3, -1};
    static const int64_t want_sizes[] = {1, 2, 1, 1, 0, 0};
    for (int k = 0; k < 7; k++) edge(&e, src[k], dst[k]);
    graph_t g = graph_from(&e, "tiny");
    int32_t *d_level = NULL, *d_parent = NULL;
    ck_assert_ok(sp_test_env_alloc(&T, (void **)&d_level, 6 * 4));
    ck_assert_ok(sp_test_env_alloc(&T, (void **)&d_parent, 6 * 4));
    for (int l = 0; l < NLOOPS; l++) {
        int64_t sizes[6];
        sp_gpu_bfs_result_t r;
        sp_status_t st = run_loop_named((loop_t)l, "tiny", &g.d, 0, d_level, d_parent, sizes, 6, &r);
        if (l == PERSISTENT_COOP && st == SP_STATUS_NOT_SUPPORTED) continue;
        ck_assert_msg(st == SP_STATUS_SUCCESS, "%s: %s", loop_name[l], sp_last_error());
        int32_t *level = download_i32(d_level, 6), *parent = download_i32(d_parent, 6);
        ck_assert_mem_eq(level, want_level, sizeof want_level);
        ck_assert_mem_eq(sizes, want_sizes, sizeof want_sizes);
        ck_assert_int_eq(parent[0], 0);
        ck_assert_int_eq(parent[1], 0);
        ck_assert_int_eq(parent[2], 0);
        ck_assert(parent[3] == 1 || parent[3] == 2);
        ck_assert_int_eq(parent[4], 3);
        ck_assert_int_eq(parent[5], -1);
        ck_assert_int_eq(r.levels, 4);
        ck_assert_int_eq(r.vertices, 5);
        ck_assert_int_eq(r.edges, 6);
        /* no parents, no sizes, fewer sizes than levels */
        ck_assert_ok(run_loop_named((loop_t)l, "tiny", &g.d, 0, d_level, NULL, NULL, 0, &r));
        ck_assert_int_eq(r.levels, 4);
        ck_assert_ok(run_loop_named((loop_t)l, "tiny", &g.d, 0, d_level, NULL, sizes, 2, NULL));
        ck_assert(sizes[0] == 1 && sizes[1] == 2);
        free(level);
        free(parent);
    }
    sp_test_env_free(&T, d_level);
    sp_test_env_free(&T, d_parent);
    graph_free(&g);
}
END_TEST

START_TEST(test_one_vertex)
{
    edges_t e1 = edges_new(1, 1);
    graph_t one = graph_from(&e1, "one vertex");
    check_source(&one, 0);
    graph_free(&one);
}
END_TEST

START_TEST(test_no_edges)
{
    edges_t e2 = edges_new(1000, 1);
    graph_t g = graph_from(&e2, "no edges");
    static const int32_t sources[] = {0, 999, 500};
    check_graph(&g, sources, 3, 0, 1);
}
END_TEST

START_TEST(test_small_grid)
{
    graph_t g = grid_graph(32);
    int32_t sources[] = {0, 32 * 16 + 16};
    check_graph(&g, sources, 2, 1, 5);
}
END_TEST

/* Deep traversals: every level is one chunk, so each loop pays its per-level latency (a few
 * microseconds) 10^5 times here; kept to about 2 x 10^5 levels per loop in all. */
START_TEST(test_paths)
{
    int64_t n = size_for(200000, 20000, 2000);
    graph_t p = path_graph(n, 0);
    int32_t mid = (int32_t)(n / 2);
    check_graph(&p, &mid, 1, 0, 2);
    graph_t d = path_graph(n, 1);
    int32_t sources[] = {(int32_t)(n - n / 10), (int32_t)(n - 1)};
    check_graph(&d, sources, 2, 0, 3);
    graph_t s = path_graph(size_for(30000, 3000, 500), 1);
    int32_t zero = 0;
    check_graph(&s, &zero, 1, 0, 4);
}
END_TEST

START_TEST(test_star)
{
    int64_t leaves = size_for(1000000, 50000, 5000);
    graph_t g = star_graph(leaves);
    static const int32_t sources[] = {0, 1, 77};
    check_graph(&g, sources, 3, 0, 5);
}
END_TEST

START_TEST(test_grid)
{
    int64_t side = size_for(1024, 256, 64);
    graph_t g = grid_graph(side);
    int32_t sources[] = {0, (int32_t)(side * (side / 2) + side / 2), (int32_t)(side * side - 1)};
    check_graph(&g, sources, 3, small ? 1 : 2, 6);
    if (!small) { /* 4095 levels of up to 2048 vertices */
        graph_t big = grid_graph(2048);
        int32_t corner = 0;
        check_graph(&big, &corner, 1, 0, 7);
    }
}
END_TEST

START_TEST(test_tree)
{
    graph_t g = tree_graph(size_for((1 << 20) - 1, (1 << 14) - 1, (1 << 10) - 1));
    int32_t sources[] = {0, (int32_t)(g.h.nrows - 1)};
    check_graph(&g, sources, 2, 3, 8);
}
END_TEST

START_TEST(test_kronecker)
{
    int scale = (int)size_for(17, 12, 9);
    graph_t u = kron_graph(scale, 1);
    check_graph(&u, NULL, 0, small ? 4 : 16, 9);
    graph_t d = kron_graph(scale, 0);
    check_graph(&d, NULL, 0, small ? 4 : 16, 10);
}
END_TEST

START_TEST(test_random)
{
    graph_t d = disconnected_graph(size_for(200000, 5000, 1000), 11);
    int32_t isolated = 10;
    check_graph(&d, &isolated, 1, 8, 12);
    graph_t x = random_graph(small ? 3000 : 100000, small ? 12000 : 800000, 13, 1);
    check_graph(&x, NULL, 0, 8, 14);
    static const int64_t sizes[][2] = {{2, 3}, {100, 150}, {5000, 5000}, {20000, 400000}};
    for (int i = 0; i < 4; i++) {
        graph_t r = random_graph(sizes[i][0], sizes[i][1], 15 + (uint64_t)i, 0);
        check_graph(&r, NULL, 0, 8, 20 + (uint64_t)i);
    }
}
END_TEST

/* The persistent kernel completes with 1 and 2 blocks (any number resident suffices). */
START_TEST(test_few_blocks)
{
    static const int counts[] = {1, 2};
    for (int i = 0; i < 2; i++) {
        sp__gpu_bfs_set_persistent_blocks(counts[i]);
        graph_t p = path_graph(size_for(20000, 2000, 500), 1);
        int32_t zero = 0;
        check_graph(&p, &zero, 1, 0, 30);
        graph_t s = star_graph(size_for(100000, 5000, 2000));
        static const int32_t hub_leaf[] = {0, 3};
        check_graph(&s, hub_leaf, 2, 0, 31);
        graph_t g = grid_graph(size_for(256, 64, 32));
        check_graph(&g, NULL, 0, 2, 32);
        graph_t k = kron_graph((int)size_for(14, 10, 8), 1);
        check_graph(&k, NULL, 0, 3, 33);
        edges_t e = edges_new(1, 1);
        graph_t one = graph_from(&e, "one vertex");
        check_graph(&one, NULL, 0, 1, 34);
    }
}
END_TEST

/* The persistent SOFT kernel's adjacency prefetch off (mode 0) and also at each claim
 * (mode 2); the other cases run the default (1). The same levels and valid parents in
 * every mode, since a prefetch writes nothing. */
START_TEST(test_prefetch_modes)
{
    static const int modes[] = {0, 2};
    for (int i = 0; i < 2; i++) {
        sp__gpu_bfs_set_persistent_prefetch(modes[i]);
        graph_t g = grid_graph(size_for(512, 128, 48));
        check_graph(&g, NULL, 0, 2, 36 + (uint64_t)i);
        graph_t k = kron_graph((int)size_for(14, 10, 8), 1);
        check_graph(&k, NULL, 0, 3, 38 + (uint64_t)i);
    }
    sp__gpu_bfs_set_persistent_prefetch(1);
}
END_TEST

/* Each lane walking its own short lists (the gather off; the other cases run it on, the
 * default): the same levels and valid parents either way. Kronecker graphs and a random
 * one have warps whose short lists differ in length, where the gather takes over. */
START_TEST(test_gather_off)
{
    sp__gpu_bfs_set_loop_gather(0);
    graph_t k = kron_graph((int)size_for(14, 10, 8), 1);
    check_graph(&k, NULL, 0, 3, 40);
    graph_t x = random_graph(small ? 3000 : 50000, small ? 12000 : 400000, 41, 1);
    check_graph(&x, NULL, 0, 4, 42);
    sp__gpu_bfs_set_loop_gather(1);
}
END_TEST

/* The persistent SOFT kernel's safety net, its limit cut to 1 ns: 8 blocks on a star from
 * a leaf, where blocks wait for milliseconds on the hub's chunk with no chunk finishing.
 * The net must end the kernel (no hang), the call fail with SP_STATUS_INTERNAL_ERROR
 * naming a level, leave the frontier sizes and result alone and leak nothing; with the
 * default limit the next call on the same graph is right again. */
START_TEST(test_safety_net)
{
    graph_t g = star_graph(small ? 100000 : 1000000);
    int32_t *d_level = NULL;
    int64_t sizes[3] = {-7, -7, -7};
    sp_gpu_bfs_result_t r = {-7, -7, -7};
    ck_assert_ok(sp_test_env_alloc(&T, (void **)&d_level, (size_t)g.h.nrows * 4));
    sp__gpu_bfs_set_persistent_blocks(8);
    sp__gpu_bfs_set_persistent_stall_ns(1);
    sp_status_t st = run_loop_named(PERSISTENT_SOFT, "star, safety net at 1 ns", &g.d, 5, d_level,
                                    NULL, sizes, 3, &r);
    ck_assert_msg(st == SP_STATUS_INTERNAL_ERROR, "%s: %s", sp_status_string(st),
                  sp_last_error());
    ck_assert_error_has("no level progress");
    ck_assert_error_has("aborted");
    ck_assert(sizes[0] == -7 && sizes[2] == -7 && r.levels == -7 && r.vertices == -7);
    sp__gpu_bfs_set_persistent_stall_ns(0);
    sp__gpu_bfs_set_persistent_blocks(env_blocks);
    sp_test_env_free(&T, d_level);
    static const int32_t leaf = 5;
    check_graph(&g, &leaf, 1, 0, 35);
}
END_TEST

/* A small shared queue: the single block hands levels to the grid and takes them back
 * many times in one traversal. */
START_TEST(test_hand_over)
{
    static const int64_t caps[] = {1, 64, 1000};
    for (int i = 0; i < 3; i++) {
        sp__gpu_bfs_set_single_block_capacity(caps[i]);
        graph_t g = grid_graph(size_for(300, 100, 48));
        check_graph(&g, NULL, 0, 2, 40);
        graph_t k = kron_graph((int)size_for(14, 10, 8), 1);
        check_graph(&k, NULL, 0, 3, 41);
        graph_t s = star_graph(5000);
        static const int32_t leaf = 9;
        check_graph(&s, &leaf, 1, 0, 42);
    }
}
END_TEST

START_TEST(test_errors)
{
    edges_t e = edges_new(10, 4);
    both(&e, 0, 1);
    graph_t g = graph_from(&e, "errors");
    int32_t *d_level = NULL;
    int64_t sizes[4];
    sp_gpu_bfs_result_t r;
    ck_assert_ok(sp_test_env_alloc(&T, (void **)&d_level, 10 * 4));
    for (int l = 0; l < NLOOPS; l++) {
        sp_csr_t rect = g.d;
        rect.ncols = 11;
        ck_assert_status(run_loop((loop_t)l, &g.d, -1, d_level, NULL, sizes, 4, &r),
                         SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has("source -1 outside 0..9");
        ck_assert_status(run_loop((loop_t)l, &g.d, 10, d_level, NULL, sizes, 4, &r),
                         SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has("source 10 outside 0..9");
        ck_assert_status(run_loop((loop_t)l, &rect, 0, d_level, NULL, sizes, 4, &r),
                         SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has("10 x 11, not square");
        ck_assert_status(run_loop((loop_t)l, &g.d, 0, NULL, NULL, sizes, 4, &r),
                         SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has("NULL argument");
        ck_assert_status(run_loop((loop_t)l, &g.d, 0, d_level, NULL, NULL, 4, &r),
                         SP_STATUS_INVALID_ARGUMENT);
        ck_assert_error_has("frontier_capacity 4 without room");
    }
    ck_assert_status(sp__gpu_bfs_persistent(&T.env, NULL, &g.d, 0, (sp_gpu_bfs_sync_t)7,
                                            d_level, NULL, NULL, 0, &r),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("unknown sync 7");
    sp_test_env_free(&T, d_level);
    graph_free(&g);
}
END_TEST

/* Scratch refused: the call fails cleanly and leaks nothing (teardown counts). */
START_TEST(test_alloc_failure)
{
    edges_t e = edges_new(100, 200);
    for (int v = 0; v + 1 < 100; v++) both(&e, v, v + 1);
    graph_t g = graph_from(&e, "alloc");
    int32_t *d_level = NULL;
    sp_gpu_bfs_result_t r;
    ck_assert_ok(sp_test_env_alloc(&T, (void **)&d_level, 100 * 4));
    for (int l = 0; l < NLOOPS; l++) {
        T.calls = 0;
        T.fail_at = 0;
        sp_status_t st = run_loop((loop_t)l, &g.d, 0, d_level, NULL, NULL, 0, &r);
        T.fail_at = -1;
        if (l == PERSISTENT_COOP && st == SP_STATUS_NOT_SUPPORTED) continue;
        ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "%s: %s: %s", loop_name[l],
                      sp_status_string(st), sp_last_error());
        ck_assert_error_has("test env: refused");
    }
    sp_test_env_free(&T, d_level);
    graph_free(&g);
}
END_TEST
#endif /* SP_HAVE_CUDA */

static Suite *gpu_bfs_loops_suite(void)
{
    Suite *s = suite_create("gpu_bfs_loops");
#ifdef SP_HAVE_CUDA
    TCase *t = tcase_create("bfs_loops");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 600);
    /* the simplest and fastest first: a failure or hang there is the easiest to read */
    tcase_add_test(t, test_one_vertex);
    tcase_add_test(t, test_tiny);
    tcase_add_test(t, test_no_edges);
    tcase_add_test(t, test_small_grid);
    tcase_add_test(t, test_errors);
    tcase_add_test(t, test_alloc_failure);
    tcase_add_test(t, test_few_blocks);
    tcase_add_test(t, test_prefetch_modes);
    tcase_add_test(t, test_gather_off);
    tcase_add_test(t, test_safety_net);
    tcase_add_test(t, test_hand_over);
    tcase_add_test(t, test_star);
    tcase_add_test(t, test_tree);
    tcase_add_test(t, test_grid);
    tcase_add_test(t, test_paths);
    tcase_add_test(t, test_kronecker);
    tcase_add_test(t, test_random);
    suite_add_tcase(s, t);
#endif
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_bfs_loops_suite()); }
