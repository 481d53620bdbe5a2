/* CPU reference BFS: hand-computed levels on an 8-vertex directed graph, then properties
 * (parent edge exists, level[v] = level[parent[v]] + 1, levels equal to an independent
 * relaxation BFS, counts consistent) on paths, stars, random and disconnected graphs. */
#include <stdlib.h>
#include <string.h>

#include "sp_ref.h"
#include "testutil.h"
#include "testutil_ref.h"

/* CSR adjacency of n vertices from an edge list (duplicates dropped). */
static void graph_of_edges(int64_t n, const int32_t *src, const int32_t *dst, int64_t m,
                           sp_csr_t *g)
{
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(n, n, m, SP_VALUE_NONE, &a));
    memcpy(a->row, src, (size_t)m * sizeof *src);
    memcpy(a->col, dst, (size_t)m * sizeof *dst);
    a->nnz = m;
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_KEEP, NULL));
    ck_assert_ok(sp_test_coo_to_csr(a, g));
    sp_coo_free(a);
}

/* 0->1 0->2 1->3 2->3 2->0 3->4 4->5 4->4 5->3 6->7; vertex 7 has no out-edges. */
static void graph8(sp_csr_t *g)
{
    static const int32_t src[] = {0, 0, 1, 2, 2, 3, 4, 4, 5, 6};
    static const int32_t dst[] = {1, 2, 3, 3, 0, 4, 5, 4, 3, 7};
    graph_of_edges(8, src, dst, 10, g);
}

START_TEST(graph8_by_hand)
{
    sp_csr_t g = {0};
    int32_t level[8], parent[8];
    int64_t levels = -1, vertices = -1, edges = -1, sizes[7];
    graph8(&g);
    ck_assert_ok(sp__ref_bfs(&g, 0, level, parent, &levels, &vertices, &edges, sizes, 7));
    const int32_t elevel[] = {0, 1, 1, 2, 3, 4, -1, -1}, eparent[] = {0, 0, 0, 1, 3, 4, -1, -1};
    const int64_t esizes[] = {1, 2, 1, 1, 1, 0, 0};
    ck_assert_mem_eq(level, elevel, sizeof elevel);
    ck_assert_mem_eq(parent, eparent, sizeof eparent);
    ck_assert_mem_eq(sizes, esizes, sizeof esizes);
    ck_assert_int_eq(levels, 5);
    ck_assert_int_eq(vertices, 6);
    ck_assert_int_eq(edges, 9);

    ck_assert_ok(sp__ref_bfs(&g, 6, level, parent, &levels, &vertices, &edges, sizes, 1));
    const int32_t elevel6[] = {-1, -1, -1, -1, -1, -1, 0, 1};
    ck_assert_mem_eq(level, elevel6, sizeof elevel6);
    ck_assert_int_eq(parent[7], 6);
    ck_assert_int_eq(parent[6], 6);
    ck_assert_int_eq(sizes[0], 1);
    ck_assert_int_eq(levels, 2);
    ck_assert_int_eq(vertices, 2);
    ck_assert_int_eq(edges, 1);

    /* Isolated source (no out-edges); parent and statistics are optional. */
    ck_assert_ok(sp__ref_bfs(&g, 7, level, NULL, &levels, NULL, &edges, NULL, 0));
    const int32_t elevel7[] = {-1, -1, -1, -1, -1, -1, -1, 0};
    ck_assert_mem_eq(level, elevel7, sizeof elevel7);
    ck_assert_int_eq(levels, 1);
    ck_assert_int_eq(edges, 0);
    sp__csr_free(&g);
}
END_TEST

/* Hop counts by repeated relaxation over all edges (a different algorithm from a queue). */
static int32_t *relaxed_levels(const sp_csr_t *g, int32_t source)
{
    int32_t *d = malloc((size_t)(g->nrows + 1) * sizeof *d);
    for (int64_t v = 0; v < g->nrows; v++) d[v] = -1;
    d[source] = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int64_t u = 0; u < g->nrows; u++)
            for (int64_t k = g->ptr[u]; k < g->ptr[u + 1] && d[u] >= 0; k++) {
                int32_t v = g->idx[k];
                if (d[v] < 0 || d[v] > d[u] + 1) d[v] = d[u] + 1, changed = 1;
            }
    }
    return d;
}

/* Run the reference BFS from source and check it by properties. */
static void verify_bfs(const sp_csr_t *g, int32_t source)
{
    int64_t n = g->nrows, levels, vertices, edges, cap = 6;
    int32_t *level = malloc((size_t)(n + 1) * sizeof *level);
    int32_t *parent = malloc((size_t)(n + 1) * sizeof *parent);
    int64_t sizes[6], count[6] = {0}, reached = 0, scanned = 0, deepest = 0;
    ck_assert_ok(sp__ref_bfs(g, source, level, parent, &levels, &vertices, &edges, sizes, cap));
    int32_t *expect = relaxed_levels(g, source);
    ck_assert_int_eq(parent[source], source);
    for (int64_t v = 0; v < n; v++) {
        ck_assert_int_eq(level[v], expect[v]);
        if (level[v] < 0) {
            ck_assert_int_eq(parent[v], -1);
            continue;
        }
        reached++;
        scanned += g->ptr[v + 1] - g->ptr[v];
        if (level[v] > deepest) deepest = level[v];
        if (level[v] < cap) count[level[v]]++;
        if (v == source) continue;
        ck_assert_msg(sp_test_has_edge(g, parent[v], (int32_t)v), "no edge %d -> %lld", parent[v],
                      (long long)v);
        ck_assert_int_eq(level[v], level[parent[v]] + 1);
    }
    ck_assert_int_eq(vertices, reached);
    ck_assert_int_eq(edges, scanned);
    ck_assert_int_eq(levels, deepest + 1);
    ck_assert_mem_eq(sizes, count, sizeof count);
    free(expect), free(level), free(parent);
}

START_TEST(path_and_star)
{
    enum { N = 50 };
    int32_t src[2 * N], dst[2 * N];
    sp_csr_t g = {0};
    for (int i = 0; i + 1 < N; i++) src[i] = i, dst[i] = i + 1;
    graph_of_edges(N, src, dst, N - 1, &g);
    verify_bfs(&g, 0);
    verify_bfs(&g, 25);
    verify_bfs(&g, N - 1);
    int64_t levels = 0;
    int32_t level[N];
    ck_assert_ok(sp__ref_bfs(&g, 0, level, NULL, &levels, NULL, NULL, NULL, 0));
    ck_assert_int_eq(levels, N);
    ck_assert_int_eq(level[N - 1], N - 1);
    sp__csr_free(&g);
    for (int i = 1; i < N; i++) {
        src[2 * i - 2] = 0, dst[2 * i - 2] = i;
        src[2 * i - 1] = i, dst[2 * i - 1] = 0;
    }
    graph_of_edges(N, src, dst, 2 * (N - 1), &g);
    verify_bfs(&g, 0);
    verify_bfs(&g, 17);
    sp__csr_free(&g);
}
END_TEST

START_TEST(random_graphs)
{
    static const int64_t shapes[][2] = {{1, 0}, {2, 1}, {100, 300}, {2000, 8000}, {3000, 2000}};
    for (int s = 0; s < 5; s++) {
        sp_coo_t *a = sp_test_random_coo(31 + (uint64_t)s, shapes[s][0], shapes[s][0],
                                         shapes[s][1], SP_VALUE_NONE,
                                         SP_TEST_DUPLICATES | SP_TEST_LONG_ROW);
        sp_csr_t g = {0};
        ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_KEEP, NULL));
        ck_assert_ok(sp_test_coo_to_csr(a, &g));
        uint64_t seed = 9;
        for (int t = 0; t < 4; t++)
            verify_bfs(&g, (int32_t)(sp_test_rand(&seed) % (uint64_t)g.nrows));
        sp__csr_free(&g);
        sp_coo_free(a);
    }
}
END_TEST

/* Two random components, 0..99 and 100..199: nothing crosses. */
START_TEST(disconnected)
{
    enum { M = 400 };
    int32_t src[2 * M], dst[2 * M];
    uint64_t seed = 3;
    sp_csr_t g = {0};
    for (int k = 0; k < 2 * M; k++) {
        int32_t base = k < M ? 0 : 100;
        src[k] = base + (int32_t)(sp_test_rand(&seed) % 100);
        dst[k] = base + (int32_t)(sp_test_rand(&seed) % 100);
    }
    graph_of_edges(200, src, dst, 2 * M, &g);
    int32_t level[200];
    ck_assert_ok(sp__ref_bfs(&g, src[0], level, NULL, NULL, NULL, NULL, NULL, 0));
    for (int v = 100; v < 200; v++) ck_assert_int_eq(level[v], -1);
    verify_bfs(&g, src[0]);
    verify_bfs(&g, src[M]);
    sp__csr_free(&g);
}
END_TEST

START_TEST(bad_inputs)
{
    sp_csr_t g = {0};
    int32_t level[8] = {7, 7, 7, 7, 7, 7, 7, 7}, parent[8];
    int64_t sizes[2];
    graph8(&g);
    ck_assert_status(sp__ref_bfs(&g, 8, level, parent, NULL, NULL, NULL, NULL, 0),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("source 8 outside 0..7");
    ck_assert_status(sp__ref_bfs(&g, -1, level, parent, NULL, NULL, NULL, NULL, 0),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("source -1");
    ck_assert_status(sp__ref_bfs(&g, 0, NULL, parent, NULL, NULL, NULL, NULL, 0),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("NULL graph or level");
    ck_assert_status(sp__ref_bfs(&g, 0, level, parent, NULL, NULL, NULL, NULL, 2),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("frontier_capacity 2");
    ck_assert_status(sp__ref_bfs(&g, 0, level, parent, NULL, NULL, NULL, sizes, -1),
                     SP_STATUS_INVALID_ARGUMENT);
    g.ncols = 9;
    ck_assert_status(sp__ref_bfs(&g, 0, level, parent, NULL, NULL, NULL, NULL, 0),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("8 x 9, not square");
    g.ncols = 8;
    sp_test_fail_allocations_after(0);
    sp_status_t st = sp__ref_bfs(&g, 0, level, parent, NULL, NULL, NULL, NULL, 0);
    sp_test_restore_allocator();
    ck_assert_int_eq(st, SP_STATUS_ALLOC_FAILED);
    for (int v = 0; v < 8; v++) ck_assert_int_eq(level[v], 7);
    sp__csr_free(&g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref_bfs");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, graph8_by_hand);
    tcase_add_test(tc, path_and_star);
    tcase_add_test(tc, random_graphs);
    tcase_add_test(tc, disconnected);
    tcase_add_test(tc, bad_inputs);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
