/* CPU reference primitives: histogram, exclusive scans, stable LSD radix sort. */
#include <stdlib.h>
#include <string.h>

#include "sp_ref.h"
#include "testutil.h"

START_TEST(histogram_tiny)
{
    const int32_t keys[] = {2, 0, 2, 1, 2};
    int32_t counts[4] = {9, 9, 9, 9};
    sp__ref_histogram(keys, 5, counts, 4);
    ck_assert_int_eq(counts[0], 1);
    ck_assert_int_eq(counts[1], 1);
    ck_assert_int_eq(counts[2], 3);
    ck_assert_int_eq(counts[3], 0);
    sp__ref_histogram(keys, 0, counts, 4);
    for (int b = 0; b < 4; b++) ck_assert_int_eq(counts[b], 0);
}
END_TEST

START_TEST(histogram_random)
{
    enum { N = 100000, BINS = 257 };
    int32_t *keys = malloc(N * sizeof *keys), counts[BINS], expect[BINS] = {0};
    uint64_t s = 11;
    for (int i = 0; i < N; i++) {
        keys[i] = (int32_t)(sp_test_rand(&s) % BINS);
        expect[keys[i]]++;
    }
    sp__ref_histogram(keys, N, counts, BINS);
    for (int b = 0; b < BINS; b++) ck_assert_int_eq(counts[b], expect[b]);
    free(keys);
}
END_TEST

START_TEST(scan_tiny)
{
    const int32_t in[] = {3, 1, 4, 1, 5};
    const int32_t expect[] = {0, 3, 4, 8, 9};
    int32_t out[5], alias[5];
    ck_assert_int_eq(sp__ref_exclusive_scan_i32(in, out, 5), 14);
    ck_assert_mem_eq(out, expect, sizeof expect);
    memcpy(alias, in, sizeof in);
    ck_assert_int_eq(sp__ref_exclusive_scan_i32(alias, alias, 5), 14);
    ck_assert_mem_eq(alias, expect, sizeof expect);
    const int64_t in64[] = {4000000000LL, 7, -2};
    int64_t out64[3];
    ck_assert_int_eq(sp__ref_exclusive_scan_i64(in64, out64, 3), 4000000005LL);
    ck_assert_int_eq(out64[0], 0);
    ck_assert_int_eq(out64[1], 4000000000LL);
    ck_assert_int_eq(out64[2], 4000000007LL);
}
END_TEST

START_TEST(scan_empty_and_one)
{
    int32_t one = 42, out = -1;
    int64_t one64 = 42, out64 = -1;
    ck_assert_int_eq(sp__ref_exclusive_scan_i32(NULL, NULL, 0), 0);
    ck_assert_int_eq(sp__ref_exclusive_scan_i64(NULL, NULL, 0), 0);
    ck_assert_int_eq(sp__ref_exclusive_scan_i32(&one, &out, 1), 42);
    ck_assert_int_eq(out, 0);
    ck_assert_int_eq(sp__ref_exclusive_scan_i64(&one64, &out64, 1), 42);
    ck_assert_int_eq(out64, 0);
}
END_TEST

START_TEST(scan_large)
{
    enum { N = 1000003 };
    int32_t *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    int64_t *in64 = malloc(N * sizeof *in64), *out64 = malloc(N * sizeof *out64);
    uint64_t s = 5;
    for (int i = 0; i < N; i++) {
        in[i] = (int32_t)(sp_test_rand(&s) % 1000);
        in64[i] = (int64_t)(sp_test_rand(&s) % 100000000);
    }
    int64_t total = sp__ref_exclusive_scan_i32(in, out, N);
    int64_t total64 = sp__ref_exclusive_scan_i64(in64, out64, N);
    int64_t sum = 0, sum64 = 0, wrong = 0;
    for (int i = 0; i < N; i++) {
        wrong += out[i] != sum || out64[i] != sum64;
        sum += in[i];
        sum64 += in64[i];
    }
    ck_assert_int_eq(wrong, 0);
    ck_assert_int_eq(total, sum);
    ck_assert_int_eq(total64, sum64);
    ck_assert_int_gt(total64, INT32_MAX);
    free(in), free(out), free(in64), free(out64);
}
END_TEST

START_TEST(radix_tiny_stable)
{
    uint32_t keys[] = {5, 3, 5, 1, 3, 0xF1};
    int32_t vals[] = {0, 1, 2, 3, 4, 5};
    const uint32_t ekeys[] = {1, 0xF1, 3, 3, 5, 5};
    const int32_t evals[] = {3, 5, 1, 4, 0, 2};
    /* 3 key bits: 0xF1 sorts as 1, after the earlier 1. */
    ck_assert_ok(sp__ref_radix_sort_u32(keys, vals, 6, 3));
    ck_assert_mem_eq(keys, ekeys, sizeof ekeys);
    ck_assert_mem_eq(vals, evals, sizeof evals);
}
END_TEST

START_TEST(radix_empty_and_no_vals)
{
    uint32_t keys[] = {300, 2, 70000, 2};
    const uint32_t ekeys[] = {2, 2, 300, 70000};
    ck_assert_ok(sp__ref_radix_sort_u32(NULL, NULL, 0, 32));
    ck_assert_ok(sp__ref_radix_sort_u32(keys, NULL, 4, 17));
    ck_assert_mem_eq(keys, ekeys, sizeof ekeys);
}
END_TEST

/* Every key_bits: sorted by the low bits, ties in input order, a permutation of the input. */
START_TEST(radix_all_key_bits)
{
    enum { N = 5000 };
    int bits = _i;
    uint32_t *orig = malloc(N * sizeof *orig), *keys = malloc(N * sizeof *keys);
    int32_t *vals = malloc(N * sizeof *vals);
    uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
    uint64_t s = 100 + (uint64_t)bits;
    for (int i = 0; i < N; i++) {
        /* Few distinct low values so ties are common; high bits must be ignored. */
        orig[i] = (uint32_t)sp_test_rand(&s);
        if (i % 2) orig[i] = (orig[i] & ~mask) | (orig[i] & mask & 0x1F3u);
        keys[i] = orig[i];
        vals[i] = i;
    }
    ck_assert_ok(sp__ref_radix_sort_u32(keys, vals, N, bits));
    for (int i = 0; i < N; i++) {
        ck_assert_uint_eq(keys[i], orig[vals[i]]);
        if (i == 0) continue;
        ck_assert_uint_le(keys[i - 1] & mask, keys[i] & mask);
        if ((keys[i - 1] & mask) == (keys[i] & mask)) ck_assert_int_lt(vals[i - 1], vals[i]);
    }
    free(orig), free(keys), free(vals);
}
END_TEST

START_TEST(radix_bad_args)
{
    uint32_t keys[] = {1, 0};
    ck_assert_status(sp__ref_radix_sort_u32(keys, NULL, 2, 0), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("key_bits 0 outside 1..32");
    ck_assert_status(sp__ref_radix_sort_u32(keys, NULL, 2, 33), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("key_bits 33");
    ck_assert_status(sp__ref_radix_sort_u32(keys, NULL, -1, 8), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("n -1");
    ck_assert_status(sp__ref_radix_sort_u32(NULL, NULL, 2, 8), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("keys is NULL");
    ck_assert_uint_eq(keys[0], 1);
    ck_assert_uint_eq(keys[1], 0);
}
END_TEST

START_TEST(radix_alloc_failure)
{
    uint32_t keys[] = {3, 1, 2};
    int32_t vals[] = {0, 1, 2};
    sp_test_fail_allocations_after(0);
    sp_status_t st = sp__ref_radix_sort_u32(keys, vals, 3, 8);
    sp_test_restore_allocator();
    ck_assert_int_eq(st, SP_STATUS_ALLOC_FAILED);
    ck_assert_error_has("out of host memory");
    ck_assert_uint_eq(keys[0], 3);
    ck_assert_int_eq(vals[0], 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ref_prim");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, histogram_tiny);
    tcase_add_test(tc, histogram_random);
    tcase_add_test(tc, scan_tiny);
    tcase_add_test(tc, scan_empty_and_one);
    tcase_add_test(tc, scan_large);
    tcase_add_test(tc, radix_tiny_stable);
    tcase_add_test(tc, radix_empty_and_no_vals);
    tcase_add_loop_test(tc, radix_all_key_bits, 1, 33);
    tcase_add_test(tc, radix_bad_args);
    tcase_add_test(tc, radix_alloc_failure);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
