/* The BFS validator (sp__ref_bfs_validate): the reference's output and another valid
 * parent tree pass; each Graph500 rule fires on an output corrupted to break it, with a
 * message naming the rule and the vertex; directed graphs by the directed form of the
 * edge rule. */
#include <stdlib.h>
#include <string.h>

#include "sp_api.h" /* sp__bfs_validate_threads */
#include "sp_ref.h"
#include "testutil.h"
#include "testutil_ref.h"

enum { N = 9 };

/* Undirected: 0-1 0-2 0-8 1-3 2-3 3-4, 5-6 apart, 7 isolated. From 0: levels
 * 0 1 1 2 3 -1 -1 -1 1. */
static void graph(sp_csr_t *g)
{
    static const int32_t e[][2] = {{0, 1}, {0, 2}, {0, 8}, {1, 3}, {2, 3}, {3, 4}, {5, 6}};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(N, N, 16, SP_VALUE_NONE, &a));
    for (int k = 0; k < 7; k++) {
        a->row[a->nnz] = e[k][0], a->col[a->nnz++] = e[k][1];
        a->row[a->nnz] = e[k][1], a->col[a->nnz++] = e[k][0];
    }
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_KEEP, NULL));
    ck_assert_ok(sp_test_coo_to_csr(a, g));
    sp_coo_free(a);
}

typedef struct fixture {
    sp_csr_t g;
    int32_t level[N], parent[N], ref[N];
    char why[256];
} fixture_t;

static void setup_fixture(fixture_t *f)
{
    memset(f, 0, sizeof *f);
    graph(&f->g);
    ck_assert_ok(sp__ref_bfs(&f->g, 0, f->ref, f->parent, NULL, NULL, NULL, NULL, 0));
    memcpy(f->level, f->ref, sizeof f->level);
}

/* The validator must refuse and name the rule and the vertex. */
static void expect_fail(fixture_t *f, const int32_t *parent, const int32_t *ref,
                        const char *rule, const char *vertex)
{
    int ok = sp__ref_bfs_validate(&f->g, 0, f->level, parent, ref, f->why, sizeof f->why);
    ck_assert_msg(!ok, "corruption for \"%s\" passed", rule);
    ck_assert_msg(strstr(f->why, rule) != NULL, "\"%s\" does not name \"%s\"", f->why, rule);
    ck_assert_msg(strstr(f->why, vertex) != NULL, "\"%s\" does not name \"%s\"", f->why, vertex);
}

START_TEST(correct_outputs_pass)
{
    fixture_t f;
    setup_fixture(&f);
    const int32_t elevel[N] = {0, 1, 1, 2, 3, -1, -1, -1, 1};
    ck_assert_mem_eq(f.level, elevel, sizeof elevel);
    ck_assert_int_eq(sp__ref_bfs_validate(&f.g, 0, f.level, f.parent, f.ref, f.why, sizeof f.why), 1);
    ck_assert_str_eq(f.why, "");
    /* another valid tree: 3 under 2 instead of 1 */
    f.parent[3] = f.parent[3] == 1 ? 2 : 1;
    ck_assert_int_eq(sp__ref_bfs_validate(&f.g, 0, f.level, f.parent, f.ref, f.why, sizeof f.why), 1);
    /* parents optional, message buffer optional */
    ck_assert_int_eq(sp__ref_bfs_validate(&f.g, 0, f.level, NULL, NULL, NULL, 0), 1);
    /* from a vertex of the small component */
    ck_assert_ok(sp__ref_bfs(&f.g, 6, f.level, f.parent, NULL, NULL, NULL, NULL, 0));
    ck_assert_int_eq(sp__ref_bfs_validate(&f.g, 6, f.level, f.parent, NULL, f.why, sizeof f.why), 1);
    sp__csr_free(&f.g);
}
END_TEST

START_TEST(each_rule_fires)
{
    fixture_t f;
    setup_fixture(&f);
    int32_t p[N], r[N];
#define RESET() (memcpy(f.level, f.ref, sizeof f.level), memcpy(p, f.parent, sizeof p))
    RESET(), f.level[0] = 1;
    expect_fail(&f, p, NULL, "rule source", "level[0]");
    RESET(), p[0] = 1;
    expect_fail(&f, p, NULL, "rule source", "parent[0]");
    RESET(), f.level[4] = N;
    expect_fail(&f, p, NULL, "rule range", "level[4]");
    RESET(), p[4] = N + 3;
    expect_fail(&f, p, NULL, "rule range", "parent[4]");
    RESET(), p[4] = -1;
    expect_fail(&f, p, NULL, "rule reached", "vertex 4");
    RESET(), p[5] = 0;
    expect_fail(&f, p, NULL, "rule reached", "vertex 5");
    RESET(), p[1] = 3, p[3] = 1;
    expect_fail(&f, p, NULL, "rule cycle", "vertex 1");
    RESET(), p[4] = 1;
    expect_fail(&f, p, NULL, "rule tree edge", "vertex 4");
    RESET(), p[3] = 8;
    expect_fail(&f, p, NULL, "rule parent edge", "vertex 3");
    RESET(), f.level[4] = 4;
    expect_fail(&f, NULL, NULL, "rule edge", "(3, 4)");
    RESET(), f.level[4] = -1;
    expect_fail(&f, NULL, NULL, "rule component", "vertex 4");
    RESET(), memcpy(r, f.ref, sizeof r), r[2] = 2;
    expect_fail(&f, p, r, "rule reference", "level[2]");
    /* a vertex of another component marked reached breaks the tree rules */
    RESET(), f.level[7] = 1, p[7] = 0;
    expect_fail(&f, p, NULL, "rule parent edge", "vertex 7");
#undef RESET
    /* bad arguments */
    ck_assert_int_eq(sp__ref_bfs_validate(&f.g, N, f.level, NULL, NULL, f.why, sizeof f.why), 0);
    ck_assert_ptr_nonnull(strstr(f.why, "bad arguments"));
    ck_assert_int_eq(sp__ref_bfs_validate(NULL, 0, f.level, NULL, NULL, f.why, sizeof f.why), 0);
    /* a short buffer is cut, not overrun */
    char tiny[8];
    memcpy(f.level, f.ref, sizeof f.level), f.level[0] = 1;
    ck_assert_int_eq(sp__ref_bfs_validate(&f.g, 0, f.level, NULL, NULL, tiny, sizeof tiny), 0);
    ck_assert_int_eq((int)strlen(tiny), 7);
    sp__csr_free(&f.g);
}
END_TEST

/* Directed: 0->1 1->2 2->0 2->3, 4->0. From 0: 4 is not reachable although it points in. */
START_TEST(directed_graph)
{
    static const int32_t src[] = {0, 1, 2, 2, 4}, dst[] = {1, 2, 0, 3, 0};
    sp_coo_t *a = NULL;
    sp_csr_t g = {0};
    int32_t level[5], parent[5];
    char why[200];
    ck_assert_ok(sp_coo_create(5, 5, 5, SP_VALUE_NONE, &a));
    memcpy(a->row, src, sizeof src), memcpy(a->col, dst, sizeof dst), a->nnz = 5;
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_KEEP, NULL));
    ck_assert_ok(sp_test_coo_to_csr(a, &g));
    ck_assert_ok(sp__ref_bfs(&g, 0, level, parent, NULL, NULL, NULL, NULL, 0));
    ck_assert_int_eq(level[4], -1);
    ck_assert_int_eq(sp__ref_bfs_validate(&g, 0, level, parent, NULL, why, sizeof why), 1);
    /* the back edge 2->0 spans two levels downward: allowed on a directed graph */
    level[3] = -1, parent[3] = -1;
    ck_assert_int_eq(sp__ref_bfs_validate(&g, 0, level, parent, NULL, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "rule component"));
    sp__csr_free(&g);
    sp_coo_free(a);
}
END_TEST

/* sp__bfs_validate_threads splits the row-wise rules among threads: on a graph past its
 * serial bound it gives the serial verdict and the serial message (the first failure in
 * row order), for correct output and for corruptions several tasks see at once. */
static int64_t degree(const sp_csr_t *g, int64_t v) { return sp__csr_at(g, v + 1) - sp__csr_at(g, v); }

static int adjacent(const sp_csr_t *g, int32_t u, int32_t v)
{
    for (int64_t k = sp__csr_at(g, u); k < sp__csr_at(g, u + 1); k++)
        if (g->idx[k] == v) return 1;
    return 0;
}

static void both_agree(const sp_csr_t *g, int32_t src, const int32_t *level,
                       const int32_t *parent, const int32_t *ref, int want)
{
    char serial[256], threaded[256];
    int s = sp__ref_bfs_validate(g, src, level, parent, ref, serial, sizeof serial);
    ck_assert_int_eq(s, want);
    for (int t = 0; t <= 4; t += 2) {
        int p = sp__bfs_validate_threads(g, src, level, parent, ref, threaded, sizeof threaded, t);
        ck_assert_int_eq(p, s);
        if (!s) ck_assert_str_eq(threaded, serial);
    }
}

START_TEST(threads_agree)
{
    sp_coo_t *a = NULL;
    sp_csr_t g;
    int32_t src = 0, *level, *parent, *ref, *lv, *pa;
    ck_assert_ok(sp_gen_kronecker(17, 8, 5, SP_VALUE_NONE, &a));
    ck_assert_ok(sp_coo_symmetrize(a, 1));
    ck_assert_ok(sp_test_coo_to_csr(a, &g));
    sp_coo_free(a);
    size_t bytes = (size_t)g.nrows * sizeof(int32_t);
    level = malloc(bytes), parent = malloc(bytes), ref = malloc(bytes);
    lv = malloc(bytes), pa = malloc(bytes);
    ck_assert(level && parent && ref && lv && pa);
    while (degree(&g, src) == 0) src++;
    ck_assert_ok(sp__ref_bfs(&g, src, ref, parent, NULL, NULL, NULL, NULL, 0));
    memcpy(level, ref, bytes);
    both_agree(&g, src, level, parent, ref, 1);
    /* the edge rule broken in many rows at once: every reached vertex above the middle
       one level deeper (its tree edges then break first: rule 0 before rule 1) */
    int64_t hits = 0;
    memcpy(lv, level, bytes);
    for (int64_t v = g.nrows / 2; v < g.nrows; v++)
        if (lv[v] > 0) lv[v] += 2, hits++;
    ck_assert_int_gt(hits, 100);
    both_agree(&g, src, lv, parent, NULL, 0);
    both_agree(&g, src, lv, NULL, NULL, 0); /* without parents: the edge rule alone */
    /* parent edges not in the graph (a vertex of the right level, not a neighbour), in
       two far-apart rows */
    memcpy(pa, parent, bytes);
    for (int64_t from = g.nrows / 3, changed = 0; changed < 2; from = 2 * g.nrows / 3) {
        int64_t w = from;
        while (w < g.nrows && level[w] < 2) w++;
        ck_assert_int_lt(w, g.nrows);
        for (int64_t u = 0; u < g.nrows; u++)
            if (level[u] == level[w] - 1 && !adjacent(&g, (int32_t)u, (int32_t)w)) {
                pa[w] = (int32_t)u;
                changed++;
                break;
            }
    }
    both_agree(&g, src, level, pa, NULL, 0);
    /* the reference's levels differ (and only they) */
    memcpy(lv, ref, bytes);
    lv[g.nrows - 1] = lv[g.nrows - 1] == 5 ? 6 : 5;
    both_agree(&g, src, level, parent, lv, 0);
    free(level), free(parent), free(ref), free(lv), free(pa);
    sp__csr_free(&g);
}
END_TEST

static Suite *bfs_validate_suite(void)
{
    Suite *s = suite_create("bfs_validate");
    TCase *t = tcase_create("validate");
    tcase_add_test(t, correct_outputs_pass);
    tcase_add_test(t, each_rule_fires);
    tcase_add_test(t, directed_graph);
    tcase_add_test(t, threads_agree);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return sp_test_run(bfs_validate_suite());
}
