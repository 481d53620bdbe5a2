/* The writers' number formatting: integers, and the shortest text of doubles and floats
 * that reads back to the same bits (hand-checked values, then random bit patterns checked
 * for the round trip and against one digit fewer). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_number_format.h"
#include "testutil.h"

static const char *f64(double v)
{
    static char buf[64];
    *sp__format_f64(buf, v) = '\0';
    return buf;
}

static const char *f32(float v)
{
    static char buf[64];
    *sp__format_f32(buf, v) = '\0';
    return buf;
}

START_TEST(test_integers)
{
    char buf[32];
    *sp__format_u64(buf, 0) = '\0';
    ck_assert_str_eq(buf, "0");
    *sp__format_u64(buf, 18446744073709551615ull) = '\0';
    ck_assert_str_eq(buf, "18446744073709551615");
    *sp__format_i64(buf, INT64_MIN) = '\0';
    ck_assert_str_eq(buf, "-9223372036854775808");
    *sp__format_i64(buf, -10) = '\0';
    ck_assert_str_eq(buf, "-10");
    *sp__format_u64(buf, 2147483648ull) = '\0';
    ck_assert_str_eq(buf, "2147483648");
}
END_TEST

START_TEST(test_shortest_by_hand)
{
    ck_assert_str_eq(f64(0.1), "0.1");
    ck_assert_str_eq(f64(1.0 / 3), "0.3333333333333333");
    ck_assert_str_eq(f64(2.0 / 3), "0.6666666666666666");
    ck_assert_str_eq(f64(0.1 + 0.2), "0.30000000000000004");
    ck_assert_str_eq(f64(-2), "-2");
    ck_assert_str_eq(f64(1e23), "1e+23");
    ck_assert_str_eq(f64(1e16), "10000000000000000");
    ck_assert_str_eq(f64(1e17), "1e+17");
    ck_assert_str_eq(f64(123456), "123456");
    ck_assert_str_eq(f64(0.0001), "0.0001");
    ck_assert_str_eq(f64(0.00001), "1e-05");
    ck_assert_str_eq(f64(1.5e-300), "1.5e-300");
    ck_assert_str_eq(f64(5e-324), "5e-324");
    ck_assert_str_eq(f64(DBL_MAX), "1.7976931348623157e+308");
    ck_assert_str_eq(f64(DBL_MIN), "2.2250738585072014e-308");
    ck_assert_str_eq(f64(9007199254740993.0), "9007199254740992");
    ck_assert_str_eq(f64(-0.0), "-0");
    ck_assert_str_eq(f64(0.0), "0");
    ck_assert_str_eq(f64(INFINITY), "inf");
    ck_assert_str_eq(f64(-INFINITY), "-inf");
    ck_assert_str_eq(f64(NAN), "nan");
    ck_assert_str_eq(f32(0.1f), "0.1");
    ck_assert_str_eq(f32(1.0f / 3), "0.33333334");
    ck_assert_str_eq(f32(16777216.0f), "16777216");
    ck_assert_str_eq(f32(FLT_MAX), "3.4028235e+38");
    ck_assert_str_eq(f32(0x1p-149f), "1e-45");
    ck_assert_str_eq(f32(FLT_MIN), "1.1754944e-38");
    ck_assert_str_eq(f32(-1e-5f), "-1e-05");
}
END_TEST

/* Significant digits in s (leading zeros and the exponent not counted). */
static int digits_of(const char *s)
{
    int n = 0, seen = 0, last = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9') continue;
        seen |= *s != '0';
        if (seen) n++;
        if (*s != '0') last = n;
    }
    return last;
}

/* No decimal of n-1 digits reads back to v: the nearest two of them do not. */
static int shorter_reads_back_f64(double v, int n)
{
    char buf[64];
    if (n <= 1) return 0;
    snprintf(buf, sizeof buf, "%.*e", n - 2, v);
    if (strtod(buf, NULL) == v) return 1;
    double up = nextafter(v, INFINITY), down = nextafter(v, -INFINITY);
    for (int k = 0; k < 2; k++) {
        snprintf(buf, sizeof buf, "%.*e", n - 2, k ? up : down);
        if (strtod(buf, NULL) == v) return 1;
    }
    return 0;
}

static int shorter_reads_back_f32(float v, int n)
{
    char buf[64];
    if (n <= 1) return 0;
    snprintf(buf, sizeof buf, "%.*e", n - 2, (double)v);
    if (strtof(buf, NULL) == v) return 1;
    float up = nextafterf(v, INFINITY), down = nextafterf(v, -INFINITY);
    for (int k = 0; k < 2; k++) {
        snprintf(buf, sizeof buf, "%.*e", n - 2, (double)(k ? up : down));
        if (strtof(buf, NULL) == v) return 1;
    }
    return 0;
}

START_TEST(test_shortest_random)
{
    uint64_t seed = 12345;
    int n = sp_test_small() ? 20000 : 300000;
    for (int i = 0; i < n; i++) {
        uint64_t r = sp_test_rand(&seed);
        double v;
        if (i % 3 == 0) r &= 0x800fffffffffffffull | (uint64_t)(i % 7) << 52; /* tiny */
        memcpy(&v, &r, sizeof v);
        if (i % 3 == 1) v = (double)(r >> 11) * 0x1p-53 * pow(10, (int)(r % 11) - 5);
        if (!isfinite(v) || v == 0) continue;
        const char *s = f64(v);
        double back = strtod(s, NULL);
        ck_assert_msg(memcmp(&back, &v, sizeof v) == 0, "%a written as %s", v, s);
        ck_assert_msg(!shorter_reads_back_f64(v, digits_of(s)), "%a: %s not shortest", v, s);
        float f;
        uint32_t b = (uint32_t)(r >> 16);
        memcpy(&f, &b, sizeof f);
        if (i % 3 == 1) f = (float)v;
        if (!isfinite(f) || f == 0) continue;
        s = f32(f);
        float fb = strtof(s, NULL);
        ck_assert_msg(memcmp(&fb, &f, sizeof f) == 0, "%a written as %s", (double)f, s);
        ck_assert_msg(!shorter_reads_back_f32(f, digits_of(s)), "%a: %s not shortest",
                      (double)f, s);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("number_format");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_integers);
    tcase_add_test(tc, test_shortest_by_hand);
    tcase_add_test(tc, test_shortest_random);
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
