/* CPU reference conversions: COO sort-merge, COO -> CSR, CSR -> CSC, ELL, HYB, JDS, SELL.
 * Hand-checked on the 4x4 example of the PMPP sparse-matrix chapter, then decoded back to
 * dense on random matrices, then every failure path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_host_sort.h"
#include "sp_ref.h"
#include "testutil.h"
#include "testutil_ref.h"

/* PMPP example: rows {3,0,1,0}, {0,0,0,0}, {0,2,4,1}, {1,0,0,1}, entries given unsorted. */
static sp_coo_t *pmpp_coo(sp_value_type_t type)
{
    static const int32_t row[] = {3, 2, 0, 2, 3, 0, 2};
    static const int32_t col[] = {3, 3, 2, 1, 0, 0, 2};
    static const double val[] = {1, 1, 1, 2, 1, 3, 4};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(4, 4, 7, type, &a));
    for (int k = 0; k < 7; k++) {
        a->row[k] = row[k];
        a->col[k] = col[k];
        if (type == SP_R_32F) ((float *)a->val)[k] = (float)val[k];
        if (type == SP_R_64F) ((double *)a->val)[k] = val[k];
    }
    a->nnz = 7;
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, NULL));
    return a;
}

static void pmpp_csr(sp_csr_t *csr)
{
    sp_coo_t *a = pmpp_coo(SP_R_64F);
    ck_assert_ok(sp_test_coo_to_csr(a, csr));
    sp_coo_free(a);
}

#define ASSERT_I32(got, ...)                                                   \
    do {                                                                       \
        const int32_t expect_[] = {__VA_ARGS__};                               \
        ck_assert_mem_eq((got), expect_, sizeof expect_);                      \
    } while (0)
#define ASSERT_F64(got, ...)                                                   \
    do {                                                                       \
        const double expect_[] = {__VA_ARGS__};                                \
        ck_assert_mem_eq((got), expect_, sizeof expect_);                      \
    } while (0)

START_TEST(pmpp_csr_csc)
{
    sp_csr_t csr = {0}, csc = {0};
    pmpp_csr(&csr);
    ck_assert_int_eq(csr.nnz, 7);
    ASSERT_I32(csr.ptr, 0, 2, 2, 5, 7);
    ASSERT_I32(csr.idx, 0, 2, 1, 2, 3, 0, 3);
    ASSERT_F64(csr.val, 3, 1, 2, 4, 1, 1, 1);
    ck_assert_ok(sp__ref_csr_to_csc(&csr, &csc));
    ck_assert_int_eq(csc.nrows, 4);
    ck_assert_int_eq(csc.ncols, 4);
    ASSERT_I32(csc.ptr, 0, 2, 3, 5, 7);
    ASSERT_I32(csc.idx, 0, 3, 2, 0, 2, 2, 3);
    ASSERT_F64(csc.val, 3, 1, 2, 1, 4, 1, 1);
    sp__csr_free(&csc);
    sp__csr_free(&csr);
    sp__csr_free(&csr); /* a zeroed struct is accepted */
}
END_TEST

START_TEST(pmpp_ell)
{
    sp_csr_t csr = {0};
    sp_ell_t ell = {0};
    pmpp_csr(&csr);
    ck_assert_ok(sp__ref_csr_to_ell(&csr, &ell));
    ck_assert_int_eq(ell.width, 3);
    ck_assert_int_eq(ell.nnz, 7);
    ASSERT_I32(ell.col, 0, -1, 1, 0, 2, -1, 2, 3, -1, -1, 3, -1);
    ASSERT_F64(ell.val, 3, 0, 2, 1, 1, 0, 4, 1, 0, 0, 1, 0);
    sp__ell_free(&ell);
    sp__csr_free(&csr);
}
END_TEST

START_TEST(pmpp_hyb)
{
    sp_csr_t csr = {0};
    sp_hyb_t hyb = {{0}, {0}};
    pmpp_csr(&csr);
    ck_assert_ok(sp__ref_csr_to_hyb(&csr, 2, &hyb));
    ck_assert_int_eq(hyb.ell.width, 2);
    ck_assert_int_eq(hyb.ell.nnz, 6);
    ASSERT_I32(hyb.ell.col, 0, -1, 1, 0, 2, -1, 2, 3);
    ASSERT_F64(hyb.ell.val, 3, 0, 2, 1, 1, 0, 4, 1);
    ck_assert_int_eq(hyb.coo.nnz, 1);
    ASSERT_I32(hyb.coo.row, 2);
    ASSERT_I32(hyb.coo.col, 3);
    ASSERT_F64(hyb.coo.val, 1);
    sp__hyb_free(&hyb);
    /* Default rule on 4 rows: every row must reach the width, and row 1 is empty. */
    ck_assert_int_eq(sp__ref_hyb_width(&csr), 0);
    ck_assert_ok(sp__ref_csr_to_hyb(&csr, -1, &hyb));
    ck_assert_int_eq(hyb.ell.width, 0);
    ck_assert_int_eq(hyb.coo.nnz, 7);
    ASSERT_I32(hyb.coo.row, 0, 0, 2, 2, 2, 3, 3);
    ASSERT_I32(hyb.coo.col, 0, 2, 1, 2, 3, 0, 3);
    sp__hyb_free(&hyb);
    sp__csr_free(&csr);
}
END_TEST

START_TEST(pmpp_jds)
{
    sp_csr_t csr = {0};
    sp_jds_t jds = {0};
    pmpp_csr(&csr);
    ck_assert_ok(sp__ref_csr_to_jds(&csr, &jds));
    ck_assert_int_eq(jds.njd, 3);
    ASSERT_I32(jds.perm, 2, 0, 3, 1);
    ASSERT_I32(jds.jd_ptr, 0, 3, 6, 7);
    ASSERT_I32(jds.col, 1, 0, 0, 2, 2, 3, 3);
    ASSERT_F64(jds.val, 2, 3, 1, 4, 1, 1, 1);
    sp__jds_free(&jds);
    sp__csr_free(&csr);
}
END_TEST

START_TEST(pmpp_sell)
{
    sp_csr_t csr = {0};
    sp_sell_t sell = {0};
    pmpp_csr(&csr);
    ck_assert_ok(sp__ref_csr_to_sell(&csr, 2, 4, &sell));
    ck_assert_int_eq(sell.nslices, 2);
    ck_assert_int_eq(sell.padded, 10);
    ASSERT_I32(sell.perm, 2, 0, 3, 1);
    ASSERT_I32(sell.slice_ptr, 0, 6, 10);
    ASSERT_I32(sell.slice_width, 3, 2);
    ASSERT_I32(sell.col, 1, 0, 2, 2, 3, -1, 0, -1, 3, -1);
    ASSERT_F64(sell.val, 2, 3, 4, 1, 1, 0, 1, 0, 1, 0);
    sp__sell_free(&sell);
    /* sigma = C = 2: rows sorted only within {0,1} and {2,3}. */
    ck_assert_ok(sp__ref_csr_to_sell(&csr, 2, 2, &sell));
    ASSERT_I32(sell.perm, 0, 1, 2, 3);
    ASSERT_I32(sell.slice_ptr, 0, 4, 10);
    ASSERT_I32(sell.slice_width, 2, 3);
    sp__sell_free(&sell);
    /* C = 3: the last slice holds row 3 and two padding rows. */
    ck_assert_ok(sp__ref_csr_to_sell(&csr, 3, 3, &sell));
    ASSERT_I32(sell.perm, 2, 0, 1, 3);
    ASSERT_I32(sell.slice_ptr, 0, 9, 15);
    ASSERT_I32(sell.slice_width, 3, 2);
    ASSERT_I32(sell.col + 9, 0, -1, -1, 3, -1, -1);
    sp__sell_free(&sell);
    sp__csr_free(&csr);
}
END_TEST

/* Entries in input order: (1,2)=1 (0,1)=2 (1,2)=3 (0,0)=4 (1,0)=5 (0,1)=6. */
static sp_coo_t *dup_coo(sp_value_type_t type)
{
    static const int32_t row[] = {1, 0, 1, 0, 1, 0}, col[] = {2, 1, 2, 0, 0, 1};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_coo_create(2, 3, 8, type, &a));
    for (int k = 0; k < 6; k++) {
        a->row[k] = row[k];
        a->col[k] = col[k];
        if (type == SP_R_32F) ((float *)a->val)[k] = (float)(k + 1);
        if (type == SP_R_64F) ((double *)a->val)[k] = k + 1;
    }
    a->nnz = 6;
    return a;
}

START_TEST(sort_merge_tiny)
{
    int64_t merged = -1;
    sp_coo_t *a = dup_coo(SP_R_64F);
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, &merged));
    ck_assert_int_eq(merged, 2);
    ck_assert_int_eq(a->nnz, 4);
    ck_assert_uint_eq(a->flags & (SP_COO_SORTED | SP_COO_MERGED), SP_COO_SORTED | SP_COO_MERGED);
    ASSERT_I32(a->row, 0, 0, 1, 1);
    ASSERT_I32(a->col, 0, 1, 0, 2);
    ASSERT_F64(a->val, 4, 8, 5, 4);
    sp_coo_free(a);

    a = dup_coo(SP_R_64F);
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_KEEP, NULL));
    ASSERT_F64(a->val, 4, 2, 5, 1);
    sp_coo_free(a);

    a = dup_coo(SP_R_32F);
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, &merged));
    const float fexpect[] = {4, 8, 5, 4};
    ck_assert_mem_eq(a->val, fexpect, sizeof fexpect);
    sp_coo_free(a);

    a = dup_coo(SP_VALUE_NONE);
    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_KEEP, &merged));
    ck_assert_int_eq(merged, 2);
    ASSERT_I32(a->row, 0, 0, 1, 1);
    ASSERT_I32(a->col, 0, 1, 0, 2);
    ck_assert_ptr_null(a->val);
    sp_coo_free(a);
}
END_TEST

START_TEST(sort_merge_empty)
{
    const int64_t shapes[][2] = {{0, 0}, {0, 5}, {5, 0}, {3, 3}};
    for (int i = 0; i < 4; i++) {
        sp_coo_t *a = NULL;
        sp_csr_t csr = {0};
        int64_t merged = -1;
        ck_assert_ok(sp_coo_create(shapes[i][0], shapes[i][1], 0, SP_R_64F, &a));
        ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, &merged));
        ck_assert_int_eq(merged, 0);
        ck_assert_int_eq(a->nnz, 0);
        ck_assert_ok(sp_test_coo_to_csr(a, &csr));
        ck_assert_int_eq(csr.ptr[csr.nrows], 0);
        sp__csr_free(&csr);
        sp_coo_free(a);
    }
}
END_TEST

/* Dense m x n image of a COO's entries in input order: sums (keep_first 0) or the first. */
static double *dense_of_coo(const sp_coo_t *a, int keep_first)
{
    double *d = calloc((size_t)(a->nrows * a->ncols) + 1, sizeof *d);
    char *seen = calloc((size_t)(a->nrows * a->ncols) + 1, 1);
    for (int64_t k = 0; k < a->nnz; k++) {
        int64_t at = (int64_t)a->row[k] * a->ncols + a->col[k];
        double v = a->value_type == SP_R_32F ? ((float *)a->val)[k] : ((double *)a->val)[k];
        if (!keep_first || !seen[at]) d[at] += v;
        seen[at] = 1;
    }
    free(seen);
    return d;
}

START_TEST(sort_merge_random)
{
    sp_dup_policy_t policy = _i % 2 ? SP_DUP_KEEP : SP_DUP_SUM;
    sp_value_type_t type = _i / 2 ? SP_R_32F : SP_R_64F;
    sp_coo_t *a = sp_test_random_coo(40 + (uint64_t)_i, 60, 45, 2000, type,
                                     SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS | SP_TEST_LONG_ROW);
    double *expect = dense_of_coo(a, policy == SP_DUP_KEEP);
    int64_t merged = -1, before = a->nnz;
    ck_assert_ok(sp_coo_sort_merge(a, policy, &merged));
    ck_assert_int_eq(a->nnz + merged, before);
    ck_assert_int_gt(merged, 0);
    for (int64_t k = 1; k < a->nnz; k++)
        ck_assert(a->row[k - 1] < a->row[k] ||
                  (a->row[k - 1] == a->row[k] && a->col[k - 1] < a->col[k]));
    double *got = dense_of_coo(a, 0);
    double tol = type == SP_R_32F ? 1e-5 : 1e-12;
    for (int64_t i = 0; i < a->nrows * a->ncols; i++)
        ck_assert_double_eq_tol(got[i], expect[i], tol);
    free(got);
    free(expect);
    sp_coo_free(a);
}
END_TEST

/* The host's threaded sort-merge (src/coo_sort_host.c) against the reference, bit for bit:
 * 2^17 + 13 entries with duplicates on 2, 3 and 7 threads (so every pass and every merge
 * run crosses chunks), both policies, each value type, square and rectangular; then an
 * entry outside the matrix: the reference's message, and the COO as it was. */
static sp_coo_t *random_big(uint64_t seed, int64_t m, int64_t n, int64_t nnz, sp_value_type_t t)
{
    sp_coo_t *a = NULL;
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    ck_assert_ok(sp_coo_create(m, n, nnz, t, &a));
    for (int64_t k = 0; k < nnz; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* a narrow band of rows and columns in a quarter of the entries: many duplicates */
        int dup = (x >> 60) < 4;
        a->row[k] = (int32_t)(dup ? (x >> 8) % 8 : (x >> 8) % (uint64_t)m);
        a->col[k] = (int32_t)(dup ? (x >> 40) % 8 : (x >> 32) % (uint64_t)n);
        if (t == SP_R_64F) ((double *)a->val)[k] = (double)(int64_t)(x % 2001) / 7.0 - 100.0;
        if (t == SP_R_32F) ((float *)a->val)[k] = (float)((double)(x % 2001) / 7.0 - 100.0);
    }
    a->nnz = nnz;
    return a;
}

START_TEST(sort_merge_threads)
{
    static const sp_value_type_t types[] = {SP_R_64F, SP_R_32F, SP_VALUE_NONE};
    static const int64_t shapes[][2] = {{5000, 5000}, {300, 70000}, {100000, 9}};
    static const int threads[] = {2, 3, 7};
    sp_value_type_t t = types[_i % 3];
    const int64_t *sh = shapes[(_i / 3) % 3];
    sp_dup_policy_t policy = _i / 9 ? SP_DUP_KEEP : SP_DUP_SUM;
    int64_t nnz = ((int64_t)1 << 17) + 13;
    size_t vs = sp_value_size(t);
    for (int ti = 0; ti < 3; ti++) {
        sp_coo_t *a = random_big(7 + (uint64_t)_i, sh[0], sh[1], nnz, t), *b = NULL;
        int64_t ma = -1, mb = -1;
        ck_assert_ok(sp_coo_copy(a, t, &b));
        sp_triplets_t ta = sp__coo_triplets(a), tb = sp__coo_triplets(b);
        ck_assert_ok(sp__ref_coo_sort_merge(&ta, policy, &ma));
        ck_assert_ok(sp__coo_sort_merge_threads(&tb, policy, &mb, threads[ti]));
        ck_assert_int_eq(ta.nnz, tb.nnz);
        ck_assert_int_eq(ma, mb);
        ck_assert_int_gt(mb, 0);
        ck_assert(memcmp(a->row, b->row, (size_t)ta.nnz * sizeof *a->row) == 0);
        ck_assert(memcmp(a->col, b->col, (size_t)ta.nnz * sizeof *a->col) == 0);
        if (vs) ck_assert(memcmp(a->val, b->val, (size_t)ta.nnz * vs) == 0);
        sp_coo_free(a);
        sp_coo_free(b);
    }
}
END_TEST

START_TEST(sort_merge_threads_bad_entry)
{
    int64_t nnz = ((int64_t)1 << 17) + 5;
    sp_coo_t *a = random_big(3, 1000, 1000, nnz, SP_R_64F), *b = NULL;
    a->col[nnz - 100] = 1000; /* in the last chunk */
    a->row[70000] = -1;       /* the first one outside: the message names it */
    ck_assert_ok(sp_coo_copy(a, SP_R_64F, &b));
    sp_triplets_t tb = sp__coo_triplets(b);
    ck_assert_int_eq(sp__coo_sort_merge_threads(&tb, SP_DUP_SUM, NULL, 4),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_msg(strstr(sp_last_error(), "entry 70000 at (-1, ") != NULL, "%s", sp_last_error());
    ck_assert_int_eq(tb.nnz, nnz);
    ck_assert(memcmp(a->row, b->row, (size_t)nnz * sizeof *a->row) == 0);
    ck_assert(memcmp(a->col, b->col, (size_t)nnz * sizeof *a->col) == 0);
    ck_assert(memcmp(a->val, b->val, (size_t)nnz * sizeof(double)) == 0);
    sp_coo_free(a);
    sp_coo_free(b);
}
END_TEST

/* An input already in strictly increasing (row, col) order comes back as it was, nothing
 * merged (the sort is skipped); one step back anywhere, or a duplicate, or an entry outside
 * the matrix in an otherwise sorted input, still goes through the sort: the reference's
 * result, and its message for the bad entry. 2^17 + 9 entries, 4 threads, so the check
 * runs in chunks and the step back can sit in the last one. */
START_TEST(sort_merge_threads_sorted_input)
{
    int64_t nnz = ((int64_t)1 << 17) + 9, m = 40000, n = 50;
    for (int variant = 0; variant < 4; variant++) {
        sp_coo_t *a = random_big(11, m, n, nnz, SP_R_64F), *b = NULL, *c = NULL;
        sp_triplets_t ta = sp__coo_triplets(a);
        int64_t ma = -1, mb = -1;
        ck_assert_ok(sp__ref_coo_sort_merge(&ta, SP_DUP_SUM, NULL)); /* sorted, merged */
        a->nnz = ta.nnz;
        if (variant == 1) { /* a step back in the last chunk */
            int64_t k = a->nnz - 3;
            int32_t r = a->row[k], col = a->col[k];
            double v = ((double *)a->val)[k];
            a->row[k] = a->row[k + 1], a->col[k] = a->col[k + 1];
            ((double *)a->val)[k] = ((double *)a->val)[k + 1];
            a->row[k + 1] = r, a->col[k + 1] = col, ((double *)a->val)[k + 1] = v;
        }
        if (variant == 2) /* a duplicate: entry 5000 again at 5001 */
            a->row[5001] = a->row[5000], a->col[5001] = a->col[5000];
        if (variant == 3) a->col[a->nnz - 2] = (int32_t)n; /* outside, sorted otherwise */
        ck_assert_ok(sp_coo_copy(a, SP_R_64F, &b));
        ck_assert_ok(sp_coo_copy(a, SP_R_64F, &c));
        sp_triplets_t tb = sp__coo_triplets(b), tc = sp__coo_triplets(c);
        sp_status_t sb = sp__ref_coo_sort_merge(&tb, SP_DUP_SUM, &ma);
        sp_status_t sc = sp__coo_sort_merge_threads(&tc, SP_DUP_SUM, &mb, 4);
        ck_assert_int_eq(sb, sc);
        if (variant == 3) {
            ck_assert_int_eq(sc, SP_STATUS_INVALID_ARGUMENT);
            ck_assert_msg(strstr(sp_last_error(), "entry") != NULL, "%s", sp_last_error());
        } else {
            ck_assert_int_eq(ma, mb);
            ck_assert_int_eq(mb, variant == 2 ? 1 : 0);
            ck_assert_int_eq(tb.nnz, tc.nnz);
            ck_assert(memcmp(b->row, c->row, (size_t)tb.nnz * sizeof *b->row) == 0);
            ck_assert(memcmp(b->col, c->col, (size_t)tb.nnz * sizeof *b->col) == 0);
            ck_assert(memcmp(b->val, c->val, (size_t)tb.nnz * sizeof(double)) == 0);
            if (variant == 0) /* untouched */
                ck_assert(memcmp(a->row, c->row, (size_t)a->nnz * sizeof *a->row) == 0);
        }
        sp_coo_free(a);
        sp_coo_free(b);
        sp_coo_free(c);
    }
}
END_TEST

/* Both host sorts with their 64-bit positions (issue 20: used past INT32_MAX / UINT32_MAX
 * entries, forced here by the test limit) give the 32-bit paths' result bit for bit. */
static void assert_same_coo(const sp_coo_t *a, const sp_coo_t *b)
{
    size_t vs = sp_value_size(a->value_type);
    ck_assert_int_eq(a->nnz, b->nnz);
    ck_assert(memcmp(a->row, b->row, (size_t)a->nnz * sizeof *a->row) == 0);
    ck_assert(memcmp(a->col, b->col, (size_t)a->nnz * sizeof *a->col) == 0);
    if (vs) ck_assert(memcmp(a->val, b->val, (size_t)a->nnz * vs) == 0);
}

START_TEST(sort_merge_positions64)
{
    static const sp_value_type_t types[] = {SP_R_64F, SP_R_32F, SP_VALUE_NONE};
    sp_value_type_t t = types[_i % 3];
    sp_dup_policy_t policy = _i / 3 ? SP_DUP_KEEP : SP_DUP_SUM;
    const int64_t nnz = 100000;
    sp_coo_t *want = random_big(11 + (uint64_t)_i, 3000, 70000, nnz, t), *got[4] = {NULL};
    int64_t mwant = -1, mgot;
    for (int v = 0; v < 4; v++) ck_assert_ok(sp_coo_copy(want, t, &got[v]));
    sp_triplets_t tw = sp__coo_triplets(want);
    ck_assert_ok(sp__ref_coo_sort_merge(&tw, policy, &mwant));
    want->nnz = tw.nnz;
    ck_assert_int_gt(mwant, 0);
    /* got[0], got[1]: the reference; got[2], got[3]: 3 threads; odd ones 64-bit forced */
    for (int v = 0; v < 4; v++) {
        sp_triplets_t tg = sp__coo_triplets(got[v]);
        sp__test_set_position32_limit(v % 2 ? 0 : INT64_MAX);
        if (v < 2) ck_assert_ok(sp__ref_coo_sort_merge(&tg, policy, &mgot));
        else ck_assert_ok(sp__coo_sort_merge_threads(&tg, policy, &mgot, 3));
        sp__test_set_position32_limit(INT64_MAX);
        got[v]->nnz = tg.nnz;
        ck_assert_int_eq(mgot, mwant);
        assert_same_coo(want, got[v]);
        sp_coo_free(got[v]);
    }
    sp_coo_free(want);
}
END_TEST

START_TEST(symmetrize_positions64)
{
    const int64_t nnz = 100000;
    sp_coo_t *want = random_big(5, 40000, 40000, nnz, SP_R_64F), *got[3] = {NULL};
    for (int v = 0; v < 3; v++) ck_assert_ok(sp_coo_copy(want, SP_R_64F, &got[v]));
    ck_assert_ok(sp__coo_symmetrize_threads(want, 1, 3));
    ck_assert_int_gt(want->nnz, nnz);
    /* 64-bit positions forced: on 3 threads, on 1 (the reference), and 32-bit on 1 */
    static const int threads[] = {3, 1, 1};
    for (int v = 0; v < 3; v++) {
        sp__test_set_position32_limit(v < 2 ? 0 : INT64_MAX);
        ck_assert_ok(sp__coo_symmetrize_threads(got[v], 1, threads[v]));
        sp__test_set_position32_limit(INT64_MAX);
        assert_same_coo(want, got[v]);
        sp_coo_free(got[v]);
    }
    sp_coo_free(want);
}
END_TEST

/* Past 2^30 edges (symmetrize) and 2^32 entries (sort) memory is the only bound: COO
 * headers claiming that many entries get ALLOC_FAILED with the count (their arrays are
 * never read: the scratch is allocated first), and stay as they were. */
START_TEST(entries_past_32_bits)
{
    sp_coo_t fake = {4, 4, ((int64_t)1 << 30) + 1, ((int64_t)1 << 30) + 1, NULL, NULL, NULL,
                     SP_R_64F, SP_SYMMETRY_GENERAL, 0};
    sp_test_fail_allocations_above((size_t)1 << 30);
    ck_assert_status(sp_coo_symmetrize(&fake, 0), SP_STATUS_ALLOC_FAILED);
    ck_assert_error_has("2147483650 mirrored entries of 16 bytes (34359738400 bytes)");
    ck_assert_int_eq(fake.nnz, ((int64_t)1 << 30) + 1);
    ck_assert_ptr_null(fake.row);
    fake.nnz = fake.capacity = ((int64_t)1 << 32) + 1;
    sp_triplets_t t = sp__coo_triplets(&fake);
    ck_assert_status(sp__coo_sort_merge_threads(&t, SP_DUP_SUM, NULL, 4), SP_STATUS_ALLOC_FAILED);
    ck_assert_error_has("4294967297");
    ck_assert_int_eq(t.nnz, fake.nnz);
    sp_test_restore_allocator();
    ck_assert_int_eq(sp_test_live_allocations(), 0);
}
END_TEST

/* Decode every format of a random matrix back to dense and compare with the CSR's. */
static void add_entry(double *d, int64_t ncols, int64_t r, int64_t c, const void *val,
                      sp_value_type_t t, int64_t k)
{
    d[r * ncols + c] += t == SP_R_32F ? ((const float *)val)[k] : ((const double *)val)[k];
}

static double *dense_of_csr(const sp_csr_t *a, int transposed)
{
    double *d = calloc((size_t)(a->nrows * a->ncols) + 1, sizeof *d);
    int64_t n = transposed ? a->ncols : a->nrows;
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            ck_assert(k == a->ptr[i] || a->idx[k - 1] < a->idx[k]);
            if (transposed) add_entry(d, a->ncols, a->idx[k], i, a->val, a->value_type, k);
            else add_entry(d, a->ncols, i, a->idx[k], a->val, a->value_type, k);
        }
    return d;
}

static double *dense_of_ell(const sp_ell_t *e, double *d)
{
    for (int64_t k = 0; k < e->width; k++)
        for (int64_t r = 0; r < e->nrows; r++) {
            int64_t s = k * e->nrows + r;
            if (e->col[s] >= 0) add_entry(d, e->ncols, r, e->col[s], e->val, e->value_type, s);
            else ck_assert(((const double *)e->val)[s] == 0.0);
        }
    return d;
}

static void check_formats(const sp_csr_t *csr, const double *expect)
{
    int64_t cells = csr->nrows * csr->ncols;
    sp_csr_t csc = {0};
    sp_ell_t ell = {0};
    sp_hyb_t hyb = {{0}, {0}};
    sp_jds_t jds = {0};
    sp_sell_t sell = {0};
    ck_assert_ok(sp__ref_csr_to_csc(csr, &csc));
    double *d = dense_of_csr(&csc, 1);
    ck_assert_mem_eq(d, expect, (size_t)cells * sizeof *d);
    free(d);

    ck_assert_ok(sp__ref_csr_to_ell(csr, &ell));
    d = dense_of_ell(&ell, calloc((size_t)cells + 1, sizeof *d));
    ck_assert_mem_eq(d, expect, (size_t)cells * sizeof *d);
    free(d);

    ck_assert_ok(sp__ref_csr_to_hyb(csr, -1, &hyb));
    ck_assert_int_eq(hyb.ell.width, sp__ref_hyb_width(csr));
    d = dense_of_ell(&hyb.ell, calloc((size_t)cells + 1, sizeof *d));
    for (int64_t k = 0; k < hyb.coo.nnz; k++) {
        ck_assert(k == 0 || hyb.coo.row[k - 1] <= hyb.coo.row[k]);
        add_entry(d, csr->ncols, hyb.coo.row[k], hyb.coo.col[k], hyb.coo.val, SP_R_64F, k);
    }
    ck_assert_int_eq(hyb.ell.nnz + hyb.coo.nnz, csr->nnz);
    ck_assert_mem_eq(d, expect, (size_t)cells * sizeof *d);
    free(d);

    ck_assert_ok(sp__ref_csr_to_jds(csr, &jds));
    d = calloc((size_t)cells + 1, sizeof *d);
    for (int64_t i = 0; i < jds.nrows; i++) {
        int64_t len = csr->ptr[jds.perm[i] + 1] - csr->ptr[jds.perm[i]];
        if (i > 0) ck_assert_int_ge(csr->ptr[jds.perm[i - 1] + 1] - csr->ptr[jds.perm[i - 1]], len);
        for (int64_t dg = 0; dg < jds.njd && i < jds.jd_ptr[dg + 1] - jds.jd_ptr[dg]; dg++)
            add_entry(d, csr->ncols, jds.perm[i], jds.col[jds.jd_ptr[dg] + i], jds.val,
                      SP_R_64F, jds.jd_ptr[dg] + i);
    }
    ck_assert_int_eq(jds.jd_ptr[jds.njd], csr->nnz);
    ck_assert_mem_eq(d, expect, (size_t)cells * sizeof *d);
    free(d);

    ck_assert_ok(sp__ref_csr_to_sell(csr, 4, 16, &sell));
    d = calloc((size_t)cells + 1, sizeof *d);
    for (int64_t s = 0; s < sell.nslices; s++)
        for (int64_t k = 0; k < sell.slice_width[s]; k++)
            for (int64_t lane = 0; lane < 4; lane++) {
                int64_t at = sell.slice_ptr[s] + k * 4 + lane, p = s * 4 + lane;
                if (sell.col[at] < 0) continue;
                ck_assert_int_lt(p, sell.nrows);
                add_entry(d, csr->ncols, sell.perm[p], sell.col[at], sell.val, SP_R_64F, at);
            }
    ck_assert_mem_eq(d, expect, (size_t)cells * sizeof *d);
    free(d);

    sp__sell_free(&sell);
    sp__jds_free(&jds);
    sp__hyb_free(&hyb);
    sp__ell_free(&ell);
    sp__csr_free(&csc);
}

START_TEST(formats_random)
{
    static const int64_t shapes[][3] = {{0, 4, 0}, {6, 6, 0}, {1, 1, 1}, {1, 1, 5},
                                        {37, 23, 300}, {23, 37, 300}, {300, 200, 4000},
                                        {5000, 3, 6000}};
    for (int i = 0; i < 8; i++) {
        sp_coo_t *a = sp_test_random_coo(7 + (uint64_t)i, shapes[i][0], shapes[i][1],
                                         shapes[i][2], SP_R_64F,
                                         SP_TEST_DUPLICATES | SP_TEST_EMPTY_ROWS |
                                             SP_TEST_LONG_ROW | SP_TEST_EMPTY_COLS);
        double *expect = dense_of_coo(a, 0);
        sp_csr_t csr = {0};
        ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, NULL));
        ck_assert_ok(sp_test_coo_to_csr(a, &csr));
        double *d = dense_of_csr(&csr, 0);
        for (int64_t c = 0; c < a->nrows * a->ncols; c++)
            ck_assert_double_eq_tol(d[c], expect[c], 1e-12);
        check_formats(&csr, d);
        free(d);
        free(expect);
        sp__csr_free(&csr);
        sp_coo_free(a);
    }
}
END_TEST

/* Bell-Garland width: at least max(ceil(n/3), min(n, 4096)) rows must reach it. */
START_TEST(hyb_width_rule)
{
    enum { N = 9000 };
    sp_csr_t g = {.nrows = N, .ncols = 16, .value_type = SP_VALUE_NONE};
    g.ptr = malloc((N + 1) * sizeof *g.ptr);
    g.idx = malloc(N * 10 * sizeof *g.idx);
    for (int64_t len_long = 10, pass = 0; pass < 2; pass++) {
        int64_t nlong = pass == 0 ? 4095 : 4096;
        g.ptr[0] = 0;
        for (int64_t r = 0; r < N; r++) {
            int64_t len = r < nlong ? len_long : 2;
            for (int64_t k = 0; k < len; k++) g.idx[g.ptr[r] + k] = (int32_t)k;
            g.ptr[r + 1] = (int32_t)(g.ptr[r] + len);
        }
        g.nnz = g.ptr[N];
        ck_assert_int_eq(sp__ref_hyb_width(&g), pass == 0 ? 2 : 10);
    }
    g.nrows = 0;
    ck_assert_int_eq(sp__ref_hyb_width(&g), 0);
    free(g.ptr);
    free(g.idx);
}
END_TEST

START_TEST(bad_inputs)
{
    sp_coo_t *a = dup_coo(SP_R_64F);
    sp_csr_t csr = {0};
    sp_sell_t sell = {0};
    sp_hyb_t hyb = {{0}, {0}};
    ck_assert_status(sp_test_coo_to_csr(a, &csr), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("not sorted and merged");
    ck_assert_ptr_null(csr.ptr);
    ck_assert_status(sp_coo_sort_merge(a, (sp_dup_policy_t)7, NULL),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("policy 7");
    a->row[3] = 2;
    ck_assert_status(sp_coo_sort_merge(a, SP_DUP_SUM, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("entry 3 at (2, 0) outside 2 x 3");
    a->row[3] = 0;
    a->col[5] = -1;
    ck_assert_status(sp_coo_sort_merge(a, SP_DUP_SUM, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("entry 5 at (0, -1)");
    ck_assert_int_eq(a->nnz, 6);
    ck_assert_uint_eq(a->flags, 0);
    a->col[5] = 1;
    a->nnz = 9;
    ck_assert_status(sp_coo_sort_merge(a, SP_DUP_SUM, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("nnz 9 outside 0..capacity 8");
    a->nnz = 6;
    ck_assert_status(sp_coo_sort_merge(NULL, SP_DUP_SUM, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("coo is NULL");

    ck_assert_ok(sp_coo_sort_merge(a, SP_DUP_SUM, NULL));
    ck_assert_ok(sp_test_coo_to_csr(a, &csr));
    ck_assert_status(sp__ref_csr_to_sell(&csr, 2, 3, &sell), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("sigma 3 is not a positive multiple of C 2");
    ck_assert_status(sp__ref_csr_to_sell(&csr, 0, 0, &sell), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("C 0");
    ck_assert_ptr_null(sell.perm);
    ck_assert_status(sp__ref_csr_to_hyb(&csr, (int64_t)1 << 40, &hyb), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("width 1099511627776 outside");
    ck_assert_ptr_null(hyb.ell.col);
    ck_assert_status(sp__ref_csr_to_csc(NULL, &csr), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp__ref_csr_to_ell(&csr, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_status(sp__ref_csr_to_jds(NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("csr to jds: NULL argument");
    sp__csr_free(&csr);
    sp_coo_free(a);
}
END_TEST

/* One conversion run for sp_test_fail_each_allocation: op on csr into out, which starts
 * as 0xA5 bytes and must keep them when op fails. */
typedef struct convert_run {
    sp_status_t (*op)(const sp_csr_t *, void *);
    const sp_csr_t *csr;
    size_t out_bytes;
    unsigned char out[512], before[512];
} convert_run_t;

static sp_status_t convert_once(void *arg)
{
    convert_run_t *r = arg;
    memset(r->out, 0xA5, sizeof r->out);
    memcpy(r->before, r->out, sizeof r->out);
    return r->op(r->csr, r->out);
}

static void convert_untouched(void *arg)
{
    convert_run_t *r = arg;
    ck_assert_mem_eq(r->out, r->before, r->out_bytes);
}

/* Fail each allocation of op in turn until it succeeds; every failure must be
 * ALLOC_FAILED, leak nothing and leave the output bytes as they were. */
static void fail_each_allocation(sp_status_t (*op)(const sp_csr_t *, void *),
                                 const sp_csr_t *csr, size_t out_bytes)
{
    convert_run_t r = {op, csr, out_bytes, {0}, {0}};
    int64_t failing = 0;
    ck_assert_uint_le(out_bytes, sizeof r.out);
    ck_assert_ok(sp_test_fail_each_allocation("conversion", convert_once, convert_untouched,
                                              &r, &failing));
    ck_assert_int_gt(failing, 0);
}

/* Each op frees its output on success: only the failures are inspected. */
static sp_status_t op_csc(const sp_csr_t *a, void *out)
{
    sp_status_t st = sp__ref_csr_to_csc(a, out);
    if (st == SP_STATUS_SUCCESS) sp__csr_free(out);
    return st;
}
static sp_status_t op_ell(const sp_csr_t *a, void *out)
{
    sp_status_t st = sp__ref_csr_to_ell(a, out);
    if (st == SP_STATUS_SUCCESS) sp__ell_free(out);
    return st;
}
static sp_status_t op_hyb(const sp_csr_t *a, void *out)
{
    sp_status_t st = sp__ref_csr_to_hyb(a, 1, out);
    if (st == SP_STATUS_SUCCESS) sp__hyb_free(out);
    return st;
}
static sp_status_t op_jds(const sp_csr_t *a, void *out)
{
    sp_status_t st = sp__ref_csr_to_jds(a, out);
    if (st == SP_STATUS_SUCCESS) sp__jds_free(out);
    return st;
}
static sp_status_t op_sell(const sp_csr_t *a, void *out)
{
    sp_status_t st = sp__ref_csr_to_sell(a, 2, 4, out);
    if (st == SP_STATUS_SUCCESS) sp__sell_free(out);
    return st;
}

typedef struct merge_run {
    sp_coo_t *a, *orig;
    int64_t merged;
} merge_run_t;

static sp_status_t merge_once(void *arg)
{
    merge_run_t *r = arg;
    r->merged = -1;
    return sp_coo_sort_merge(r->a, SP_DUP_SUM, &r->merged);
}

static void merge_untouched(void *arg)
{
    const merge_run_t *r = arg;
    ck_assert_int_eq(r->merged, -1);
    ck_assert_int_eq(r->a->nnz, 6);
    ck_assert_mem_eq(r->a->row, r->orig->row, 6 * sizeof(int32_t));
    ck_assert_mem_eq(r->a->col, r->orig->col, 6 * sizeof(int32_t));
    ck_assert_mem_eq(r->a->val, r->orig->val, 6 * sizeof(double));
}

typedef struct csr_run {
    const sp_coo_t *a;
    sp_csr_t out;
} csr_run_t;

static sp_status_t to_csr_once(void *arg)
{
    csr_run_t *r = arg;
    return sp_test_coo_to_csr(r->a, &r->out);
}

static void to_csr_untouched(void *arg)
{
    const csr_run_t *r = arg;
    ck_assert_ptr_null(r->out.ptr);
}

START_TEST(alloc_failures)
{
    sp_csr_t csr = {0};
    pmpp_csr(&csr);
    fail_each_allocation(op_csc, &csr, sizeof(sp_csr_t));
    fail_each_allocation(op_ell, &csr, sizeof(sp_ell_t));
    fail_each_allocation(op_hyb, &csr, sizeof(sp_hyb_t));
    fail_each_allocation(op_jds, &csr, sizeof(sp_jds_t));
    fail_each_allocation(op_sell, &csr, sizeof(sp_sell_t));

    /* The COO stays as it was until sort-merge succeeds. */
    merge_run_t m = {dup_coo(SP_R_64F), dup_coo(SP_R_64F), -1};
    ck_assert_ok(sp_test_fail_each_allocation("sort-merge", merge_once, merge_untouched, &m,
                                              NULL));
    ck_assert_int_eq(m.a->nnz, 4);

    csr_run_t c = {m.a, {0}};
    ck_assert_ok(sp_test_fail_each_allocation("coo to csr", to_csr_once, to_csr_untouched, &c,
                                              NULL));
    sp__csr_free(&c.out);
    sp_coo_free(m.orig);
    sp_coo_free(m.a);
    sp__csr_free(&csr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref_convert");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pmpp_csr_csc);
    tcase_add_test(tc, pmpp_ell);
    tcase_add_test(tc, pmpp_hyb);
    tcase_add_test(tc, pmpp_jds);
    tcase_add_test(tc, pmpp_sell);
    tcase_add_test(tc, sort_merge_tiny);
    tcase_add_test(tc, sort_merge_empty);
    tcase_add_loop_test(tc, sort_merge_random, 0, 4);
    tcase_add_loop_test(tc, sort_merge_threads, 0, 18);
    tcase_add_test(tc, sort_merge_threads_bad_entry);
    tcase_add_test(tc, sort_merge_threads_sorted_input);
    tcase_add_loop_test(tc, sort_merge_positions64, 0, 6);
    tcase_add_test(tc, symmetrize_positions64);
    tcase_add_test(tc, entries_past_32_bits);
    tcase_add_test(tc, formats_random);
    tcase_add_test(tc, hyb_width_rule);
    tcase_add_test(tc, bad_inputs);
    tcase_add_test(tc, alloc_failures);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
