/* sp_coo_symmetrize on a pattern (src/coo_symmetrize_pattern.c: count, scatter, sort each
 * row) against the sort path that values take (src/coo.c): the same entries, order, count
 * and flags, bit for bit, for every thread count; its failures leave the COO as it was. */
#include <stdlib.h>
#include <string.h>

#include "gen/gen_random.h" /* sp__gen_kronecker_threads */
#include "sp_host_sort.h"   /* sp__coo_symmetrize_threads */
#include "testutil.h"

/* a and b hold the same pattern: sizes, flags, rows and columns. */
static void assert_same_pattern(const char *what, const sp_coo_t *a, const sp_coo_t *b)
{
    ck_assert_msg(a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz,
                  "%s: %lld x %lld, %lld entries against %lld x %lld, %lld", what,
                  (long long)a->nrows, (long long)a->ncols, (long long)a->nnz,
                  (long long)b->nrows, (long long)b->ncols, (long long)b->nnz);
    ck_assert_msg(a->flags == b->flags, "%s: flags %u against %u", what, a->flags, b->flags);
    ck_assert_msg(memcmp(a->row, b->row, (size_t)a->nnz * 4) == 0, "%s: rows differ", what);
    ck_assert_msg(memcmp(a->col, b->col, (size_t)a->nnz * 4) == 0, "%s: columns differ", what);
}

/* The sort path's result for a (with values) against the pattern path's for a's pattern on
 * 1, 2, 3 and 8 threads. */
static void check_against_sort_path(const char *what, const sp_coo_t *a, int drop)
{
    sp_coo_t *valued = NULL;
    ck_assert_ok(sp_coo_copy(a, SP_R_64F, &valued));
    ck_assert_ok(sp__coo_symmetrize_threads(valued, drop, 2));
    ck_assert_int_eq(valued->value_type, SP_R_64F); /* the sort path ran */
    static const int threads[] = {1, 2, 3, 8};
    for (int i = 0; i < 4; i++) {
        sp_coo_t *pattern = NULL;
        ck_assert_ok(sp_coo_copy(a, SP_VALUE_NONE, &pattern));
        ck_assert_ok(sp__coo_symmetrize_threads(pattern, drop, threads[i]));
        ck_assert_ptr_null(pattern->val);
        ck_assert_int_eq(pattern->capacity, pattern->nnz);
        assert_same_pattern(what, pattern, valued);
        sp_coo_free(pattern);
    }
    sp_coo_free(valued);
}

/* Random square COOs with duplicates, empty rows, a long row (past the insertion sort and
 * the tasks' share), self-loops added, many tasks' worth of entries: drop and keep loops. */
START_TEST(random_patterns)
{
    static const struct {
        int64_t n, nnz;
        unsigned features;
    } shapes[] = {
        {1, 3, SP_TEST_DUPLICATES},
        {7, 40, SP_TEST_DUPLICATES},
        {300, 5000, SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS},
        {2000, 300000, SP_TEST_DUPLICATES | SP_TEST_LONG_ROW},
        {5000, 200000, SP_TEST_EMPTY_COLS | SP_TEST_EMPTY_ROWS},
    };
    for (int s = 0; s < 5; s++) {
        sp_coo_t *a = sp_test_random_coo(40 + (uint64_t)s, shapes[s].n, shapes[s].n, shapes[s].nnz,
                                         SP_R_64F, shapes[s].features);
        ck_assert_ptr_nonnull(a);
        for (int64_t k = 0; k < a->nnz; k += 13) a->col[k] = a->row[k]; /* self-loops */
        check_against_sort_path("random, loops dropped", a, 1);
        check_against_sort_path("random, loops kept", a, 0);
        sp_coo_free(a);
    }
}
END_TEST

/* The graphs spbench --bfs makes: Kronecker and uniform, generated as patterns, against the
 * same graphs generated with values and symmetrized by the sort path, on every thread count. */
START_TEST(generated_graphs)
{
    for (int g = 0; g < 2; g++) {
        sp_coo_t *valued = NULL;
        sp_status_t (*gen)(int, int, uint64_t, sp_value_type_t, int, sp_coo_t **) =
            g == 0 ? sp__gen_kronecker_threads : sp__gen_uniform_threads;
        ck_assert_ok(gen(13, 16, 7, SP_R_64F, 2, &valued));
        ck_assert_ok(sp__coo_symmetrize_threads(valued, 1, 2));
        for (int t = 1; t <= 4; t++) {
            sp_coo_t *pattern = NULL;
            ck_assert_ok(gen(13, 16, 7, SP_VALUE_NONE, t, &pattern));
            ck_assert_ok(sp__coo_symmetrize_threads(pattern, 1, t));
            assert_same_pattern(g == 0 ? "kronecker 13" : "uniform 13", pattern, valued);
            sp_coo_free(pattern);
        }
        sp_coo_free(valued);
    }
}
END_TEST

/* Hand-checked: a triangle with a self-loop and a repeated edge. */
START_TEST(small_by_hand)
{
    sp_coo_t *g = NULL;
    static const int32_t r[] = {0, 1, 2, 2, 1, 0}, c[] = {1, 2, 0, 2, 0, 1};
    static const int32_t kept_r[] = {0, 0, 1, 1, 2, 2, 2}, kept_c[] = {1, 2, 0, 2, 0, 1, 2};
    for (int drop = 0; drop < 2; drop++) {
        ck_assert_ok(sp_coo_create(3, 3, 6, SP_VALUE_NONE, &g));
        memcpy(g->row, r, sizeof r);
        memcpy(g->col, c, sizeof c);
        g->nnz = 6;
        ck_assert_ok(sp_coo_symmetrize(g, drop));
        ck_assert_int_eq(g->nnz, drop ? 6 : 7);
        for (int64_t k = 0, o = 0; k < 7; k++) {
            if (drop && kept_r[k] == kept_c[k]) continue;
            ck_assert_int_eq(g->row[o], kept_r[k]);
            ck_assert_int_eq(g->col[o], kept_c[k]);
            o++;
        }
        ck_assert_uint_eq(g->flags & (SP_COO_SORTED | SP_COO_MERGED | SP_COO_SYMMETRIC_PATTERN),
                          SP_COO_SORTED | SP_COO_MERGED | SP_COO_SYMMETRIC_PATTERN);
        sp_coo_free(g);
    }
}
END_TEST

START_TEST(empty_inputs)
{
    sp_coo_t *g = NULL;
    ck_assert_ok(sp_coo_create(0, 0, 0, SP_VALUE_NONE, &g));
    ck_assert_ok(sp_coo_symmetrize(g, 1));
    ck_assert_int_eq(g->nnz, 0);
    sp_coo_free(g);
    ck_assert_ok(sp_coo_create(5, 5, 4, SP_VALUE_NONE, &g));
    for (int k = 0; k < 4; k++) g->row[k] = g->col[k] = k; /* only self-loops */
    g->nnz = 4;
    ck_assert_ok(sp_coo_symmetrize(g, 1));
    ck_assert_int_eq(g->nnz, 0);
    sp_coo_free(g);
}
END_TEST

static sp_coo_t *random_pattern(void)
{
    sp_coo_t *a = sp_test_random_coo(9, 400, 400, 20000, SP_R_64F, SP_TEST_DUPLICATES), *p = NULL;
    ck_assert_ptr_nonnull(a);
    ck_assert_ok(sp_coo_copy(a, SP_VALUE_NONE, &p));
    sp_coo_free(a);
    return p;
}

static int same_coo(const sp_coo_t *a, const sp_coo_t *b)
{
    return a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz &&
           a->capacity == b->capacity && a->flags == b->flags &&
           memcmp(a->row, b->row, (size_t)a->nnz * 4) == 0 &&
           memcmp(a->col, b->col, (size_t)a->nnz * 4) == 0;
}

/* An entry outside the matrix: INVALID_ARGUMENT naming the first such entry, the COO as it
 * was (the count had started). */
START_TEST(entry_outside)
{
    sp_coo_t *a = random_pattern(), *orig = NULL;
    a->col[15000] = 400;
    a->row[17000] = -1;
    ck_assert_ok(sp_coo_copy(a, SP_VALUE_NONE, &orig));
    orig->capacity = a->capacity;
    ck_assert_status(sp__coo_symmetrize_threads(a, 1, 3), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("entry 15000");
    ck_assert_error_has("outside 400 x 400");
    ck_assert(same_coo(a, orig));
    sp_coo_free(orig);
    sp_coo_free(a);
}
END_TEST

/* Every allocation failed in turn (the growth of the row array included): ALLOC_FAILED,
 * nothing live, the COO exactly as it was; the run that fails none gives the result. */
START_TEST(allocation_failures)
{
    sp_coo_t *orig = random_pattern(), *expect = NULL;
    ck_assert_ok(sp_coo_copy(orig, SP_VALUE_NONE, &expect));
    ck_assert_ok(sp__coo_symmetrize_threads(expect, 1, 2));
    int64_t k = 0;
    for (;; k++) {
        sp_coo_t *work = NULL;
        ck_assert_ok(sp_coo_copy(orig, SP_VALUE_NONE, &work));
        sp_test_fail_allocations_after(k);
        sp_status_t st = sp__coo_symmetrize_threads(work, 1, 2);
        sp_test_restore_allocator();
        int64_t calls = sp_test_allocations(), live = sp_test_live_allocations();
        if (calls <= k) {
            ck_assert_ok(st);
            assert_same_pattern("after the sweep", work, expect);
            sp_coo_free(work);
            break;
        }
        ck_assert_msg(st == SP_STATUS_ALLOC_FAILED, "allocation %lld: %s", (long long)k,
                      sp_status_string(st));
        ck_assert_msg(live == 0, "allocation %lld: %lld blocks live", (long long)k,
                      (long long)live);
        ck_assert_msg(same_coo(work, orig), "allocation %lld changed the COO", (long long)k);
        sp_coo_free(work);
    }
    ck_assert_int_ge(k, 5);
    sp_coo_free(expect);
    sp_coo_free(orig);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coo_symmetrize");
    TCase *tc = tcase_create("pattern");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_patterns);
    tcase_add_test(tc, generated_graphs);
    tcase_add_test(tc, small_by_hand);
    tcase_add_test(tc, empty_inputs);
    tcase_add_test(tc, entry_outside);
    tcase_add_test(tc, allocation_failures);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
