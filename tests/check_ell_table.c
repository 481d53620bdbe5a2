/* ELL's value table (sp_formats.h; CSR-VI) on a host context: which matrices get one (at
 * most 256 distinct bit patterns; -0.0 and 0.0, NaN payloads and the GPU's empty-slot
 * pattern all distinct entries; none for patterns, empty matrices or with the switch off),
 * the table and codes against the values, and the product with the table bit for bit the
 * product without it (the switch off) and CSR's, ELL with a long-row tail and HYB
 * included. The GPU twin (check_gpu_ell_table) holds the device's build to these bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_formats.h" /* sp__ell_value_table_set */
#include "sp_ref.h"     /* sp__ref_csr_to_ell */
#include "testutil.h"

static sp_context_t *ctx;

static void setup(void) { ck_assert_ok(sp_context_create(SP_DEVICE_HOST, 0, &ctx)); }
static void teardown(void)
{
    sp__ell_value_table_set(1);
    sp_context_destroy(ctx);
}

/* The product in format f with the table and without it: the same bits; and, when
 * with_csr, CSR's bits too (the host sums every row in its CSR order). Returns ntable. */
static int same_products(const sp_coo_t *coo, sp_format_t f, int expect, int with_csr)
{
    size_t bytes = (size_t)coo->nrows * sp_value_size(coo->value_type) + 1;
    void *y1 = calloc(1, bytes), *y0 = calloc(1, bytes), *yc = calloc(1, bytes);
    sp_matrix_t *A1 = sp_test_table_matrix(ctx, coo, f, 1), *A0 = sp_test_table_matrix(ctx, coo, f, 0);
    sp_format_view_t v;
    int hyb = f == SP_FORMAT_HYB, n;
    ck_assert_ok(sp_matrix_view(A1, f, &v));
    n = sp_test_check_value_table(&v, hyb, expect);
    ck_assert_ok(sp_matrix_view(A0, f, &v));
    sp_test_check_value_table(&v, hyb, 0);
    sp_test_table_product(ctx, A1, f, coo, y1);
    sp_test_table_product(ctx, A0, f, coo, y0);
    ck_assert_msg(memcmp(y1, y0, bytes - 1) == 0, "%s: the product with the table differs",
                  sp_format_name(f));
    if (with_csr) {
        ck_assert_ok(sp_matrix_build(ctx, A0, SP_FORMAT_CSR));
        sp_test_table_product(ctx, A0, SP_FORMAT_CSR, coo, yc);
        ck_assert_msg(memcmp(y1, yc, bytes - 1) == 0, "%s: the product differs from CSR's",
                      sp_format_name(f));
    }
    sp_matrix_destroy(A0);
    sp_matrix_destroy(A1);
    free(yc);
    free(y0);
    free(y1);
    return n;
}

START_TEST(poisson_two_values)
{
    static const sp_value_type_t types[2] = {SP_R_64F, SP_R_32F};
    for (int t = 0; t < 2; t++) {
        sp_coo_t *coo = NULL;
        sp_format_view_t v;
        ck_assert_ok(sp_gen_poisson3d(12, types[t], &coo));
        same_products(coo, SP_FORMAT_ELL, 2, 1);
        /* 6 (0x4018... / 0x40c0...) before -1 (sign bit set) */
        sp_matrix_t *A = sp_test_table_matrix(ctx, coo, SP_FORMAT_ELL, 1);
        ck_assert_ok(sp_matrix_view(A, SP_FORMAT_ELL, &v));
        if (types[t] == SP_R_64F) {
            ck_assert(((const double *)v.ell.table)[0] == 6.0);
            ck_assert(((const double *)v.ell.table)[1] == -1.0);
        } else {
            ck_assert(((const float *)v.ell.table)[0] == 6.0f);
            ck_assert(((const float *)v.ell.table)[1] == -1.0f);
        }
        sp_matrix_destroy(A);
        sp_coo_free(coo);
    }
}
END_TEST

/* 256 distinct values get a table, 257 none; spread over the rows or by row blocks. */
START_TEST(table_limit)
{
    uint64_t bits[257];
    for (int i = 0; i < 257; i++) {
        double d = 1.0 + i / 512.0;
        memcpy(&bits[i], &d, 8);
        if (i % 2) bits[i] ^= 0x8000000000000000ull; /* negatives too */
    }
    for (int spread = 0; spread < 2; spread++) {
        sp_coo_t *c256 = sp_test_patterned_coo(700, 5, 0, bits, 256, spread, SP_R_64F);
        sp_coo_t *c257 = sp_test_patterned_coo(700, 5, 0, bits, 257, spread, SP_R_64F);
        ck_assert_int_eq(same_products(c256, SP_FORMAT_ELL, 256, 1), 256);
        ck_assert_int_eq(same_products(c257, SP_FORMAT_ELL, 0, 1), 0);
        sp_coo_free(c257);
        sp_coo_free(c256);
    }
    /* float: the low 32 bits of distinct float patterns */
    for (int i = 0; i < 257; i++) {
        float f = (float)(1.0 + i / 64.0) * (i % 2 ? -1.0f : 1.0f);
        uint32_t w;
        memcpy(&w, &f, 4);
        bits[i] = w;
    }
    sp_coo_t *f256 = sp_test_patterned_coo(700, 5, 0, bits, 256, 1, SP_R_32F);
    sp_coo_t *f257 = sp_test_patterned_coo(700, 5, 0, bits, 257, 1, SP_R_32F);
    same_products(f256, SP_FORMAT_ELL, 256, 1);
    same_products(f257, SP_FORMAT_ELL, 0, 1);
    sp_coo_free(f257);
    sp_coo_free(f256);
}
END_TEST

/* 0.0 and -0.0, two NaN payloads and the all-ones pattern (the GPU's empty hash slot) are
 * five entries besides 1.0, ascending by bit pattern. At the conversion (a CSR made here):
 * sp_matrix_create's duplicate merge sums from +0.0, which makes -0.0 entries +0.0. */
START_TEST(signed_zero_nan_sentinel)
{
    static const uint64_t d_bits[6] = {0x0ull,
                                       0x3ff0000000000000ull,
                                       0x7ff8000000000001ull,
                                       0x7ff8000000000002ull,
                                       0x8000000000000000ull,
                                       0xffffffffffffffffull};
    static const uint64_t f_bits[6] = {0x0u, 0x3f800000u, 0x7fc00001u, 0x7fc00002u,
                                       0x80000000u, 0xffffffffu};
    for (int t = 0; t < 2; t++) {
        const uint64_t *bits = t == 0 ? d_bits : f_bits;
        sp_value_type_t type = t == 0 ? SP_R_64F : SP_R_32F;
        size_t vs = sp_value_size(type);
        /* 40 rows of 3 entries, entry e of row r the pattern (5 r + e) % 6, reversed */
        int32_t ptr[41], idx[120];
        unsigned char val[120 * 8];
        for (int r = 0; r <= 40; r++) ptr[r] = 3 * r;
        for (int e = 0; e < 120; e++) {
            uint64_t b = bits[5 - (5 * (e / 3) + e % 3) % 6];
            idx[e] = (e / 3 + e % 3) % 40;
            memcpy(val + (size_t)e * vs, &b, vs); /* little-endian: the low bytes */
        }
        sp_csr_t csr = {40, 40, 120, type, ptr, idx, val, NULL};
        sp_ell_t ell = {0};
        ck_assert_ok(sp__ref_csr_to_ell(&csr, &ell));
        ck_assert_int_eq(ell.ntable, 6);
        for (int i = 0; i < 6; i++) {
            uint64_t got = 0;
            memcpy(&got, (const char *)ell.table + (size_t)i * vs, vs);
            ck_assert_msg(got == bits[i], "entry %d: %llx, expected %llx", i,
                          (unsigned long long)got, (unsigned long long)bits[i]);
        }
        for (int64_t s = 0; s < 120; s++)
            ck_assert(memcmp((const char *)ell.val + s * vs,
                             (const char *)ell.table + ell.code[s] * vs, vs) == 0);
        sp__ell_free(&ell);
        /* through the matrix (no -0.0 there): the same five other entries */
        static const uint64_t kept[5] = {0x0ull, 0x3ff0000000000000ull, 0x7ff8000000000001ull,
                                         0x7ff8000000000002ull, 0xffffffffffffffffull};
        uint64_t kb[5];
        for (int i = 0; i < 5; i++) kb[i] = t == 0 ? kept[i] : f_bits[i == 4 ? 5 : i];
        sp_coo_t *coo = sp_test_patterned_coo(300, 4, 0, kb, 5, 1, type);
        sp_matrix_t *A = sp_test_table_matrix(ctx, coo, SP_FORMAT_ELL, 1);
        sp_format_view_t v;
        ck_assert_ok(sp_matrix_view(A, SP_FORMAT_ELL, &v));
        sp_test_check_value_table(&v, 0, 5);
        sp_matrix_destroy(A);
        sp_coo_free(coo);
    }
}
END_TEST

/* No table: no entries, no values (a pattern), or the switch off (ELL and HYB). */
START_TEST(no_table)
{
    static const uint64_t two[2] = {0x3ff0000000000000ull, 0x4000000000000000ull};
    sp_coo_t *empty = NULL, *pattern = NULL;
    sp_format_view_t v;
    ck_assert_ok(sp_coo_create(5, 5, 0, SP_R_64F, &empty));
    ck_assert_ok(sp_coo_create(4, 4, 4, SP_VALUE_NONE, &pattern));
    for (int i = 0; i < 4; i++) pattern->row[i] = pattern->col[i] = i;
    pattern->nnz = 4;
    same_products(empty, SP_FORMAT_ELL, 0, 1);
    same_products(empty, SP_FORMAT_HYB, 0, 1);
    sp_matrix_t *P = sp_test_table_matrix(ctx, pattern, SP_FORMAT_ELL, 1);
    ck_assert_ok(sp_matrix_view(P, SP_FORMAT_ELL, &v));
    sp_test_check_value_table(&v, 0, 0);
    sp_matrix_destroy(P);
    /* the switch: off at the build, no table; the bytes then count none */
    sp_coo_t *coo = sp_test_patterned_coo(100, 3, 0, two, 2, 1, SP_R_64F);
    sp_matrix_t *A1 = sp_test_table_matrix(ctx, coo, SP_FORMAT_ELL, 1), *A0 = sp_test_table_matrix(ctx, coo, SP_FORMAT_ELL, 0);
    sp_matrix_info_t i1, i0;
    ck_assert_ok(sp_matrix_info(A1, &i1));
    ck_assert_ok(sp_matrix_info(A0, &i0));
    ck_assert_int_eq(i1.bytes[SP_FORMAT_ELL] - i0.bytes[SP_FORMAT_ELL], 100 * 3 + 2 * 8);
    sp_matrix_destroy(A0);
    sp_matrix_destroy(A1);
    sp_coo_free(coo);
    sp_coo_free(pattern);
    sp_coo_free(empty);
}
END_TEST

/* Rows past the long-row bound go to the tail with their own values; the padded part keeps
 * its table. HYB's ELL part has one too (counted over the overflow's values as well). */
START_TEST(tail_and_hyb)
{
    static const uint64_t three[3] = {0x3ff0000000000000ull, 0xbff0000000000000ull,
                                      0x4010000000000000ull};
    for (int t = 0; t < 2; t++) {
        sp_value_type_t type = t == 0 ? SP_R_64F : SP_R_32F;
        uint64_t fb[3];
        for (int i = 0; i < 3; i++) {
            double d;
            memcpy(&d, &three[i], 8);
            float f = (float)d;
            uint32_t w;
            memcpy(&w, &f, 4);
            fb[i] = w;
        }
        sp_coo_t *coo = sp_test_patterned_coo(2000, 4, 600, t == 0 ? three : fb, 3, 1, type);
        sp_matrix_t *A = sp_test_table_matrix(ctx, coo, SP_FORMAT_ELL, 1);
        sp_matrix_info_t info;
        ck_assert_ok(sp_matrix_info(A, &info));
        ck_assert_int_gt(info.ell_tail_nnz, 0);
        sp_matrix_destroy(A);
        same_products(coo, SP_FORMAT_ELL, 3, 0);
        same_products(coo, SP_FORMAT_HYB, 3, 0);
        sp_coo_free(coo);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ell_table");
    TCase *tc = tcase_create("host");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, poisson_two_values);
    tcase_add_test(tc, table_limit);
    tcase_add_test(tc, signed_zero_nan_sentinel);
    tcase_add_test(tc, no_table);
    tcase_add_test(tc, tail_and_hyb);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
