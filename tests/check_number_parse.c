/* Number parsers of the text loaders: integers with overflow, and floats bit-identical
 * to strtod / strtof on hand-picked, halfway, very long and millions of random inputs,
 * many aimed at the Eisel-Lemire path; and its 5^q table against exact arithmetic. The
 * word-at-a-time parsers on every id width and value shape the writers produce, inside
 * the bytes their contracts name (a guard page after them), and the readers on generated
 * files of those shapes against strtod / strtoll. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS for the guard page */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pow5_table.h"
#include "sp_text.h"
#include "testutil.h"

static int parse_i64(const char *s, int64_t *v, size_t *used)
{
    const char *p = s;
    int rc = sp__parse_i64(&p, s + strlen(s), v);
    *used = (size_t)(p - s);
    return rc;
}

START_TEST(test_i64_cases)
{
    int64_t v = 7;
    size_t used;
    ck_assert_int_eq(parse_i64("0", &v, &used), SP_NUM_OK);
    ck_assert(v == 0 && used == 1);
    ck_assert_int_eq(parse_i64("+42 x", &v, &used), SP_NUM_OK);
    ck_assert(v == 42 && used == 3);
    ck_assert_int_eq(parse_i64("-17e3", &v, &used), SP_NUM_OK);
    ck_assert(v == -17 && used == 3);
    ck_assert_int_eq(parse_i64("9223372036854775807", &v, &used), SP_NUM_OK);
    ck_assert(v == INT64_MAX);
    ck_assert_int_eq(parse_i64("-9223372036854775808", &v, &used), SP_NUM_OK);
    ck_assert(v == INT64_MIN);
    ck_assert_int_eq(parse_i64("000000000000000000000000012", &v, &used), SP_NUM_OK);
    ck_assert(v == 12 && used == 27);
    v = 5;
    ck_assert_int_eq(parse_i64("9223372036854775808", &v, &used), SP_NUM_RANGE);
    ck_assert_int_eq(parse_i64("-9223372036854775809", &v, &used), SP_NUM_RANGE);
    ck_assert_int_eq(parse_i64("99999999999999999999999", &v, &used), SP_NUM_RANGE);
    ck_assert(used == 23 && v == 5);
    ck_assert_int_eq(parse_i64("", &v, &used), SP_NUM_SYNTAX);
    ck_assert_int_eq(parse_i64("-", &v, &used), SP_NUM_SYNTAX);
    ck_assert_int_eq(parse_i64("x1", &v, &used), SP_NUM_SYNTAX);
    ck_assert_int_eq(parse_i64(" 1", &v, &used), SP_NUM_SYNTAX);
    ck_assert(used == 0 && v == 5);
    /* end bounds the scan even without a terminator */
    const char *s = "12345", *p = s;
    ck_assert_int_eq(sp__parse_i64(&p, s + 3, &v), SP_NUM_OK);
    ck_assert(v == 123 && p == s + 3);
}
END_TEST

START_TEST(test_i64_random)
{
    uint64_t seed = 11;
    char buf[64];
    for (int k = 0; k < 200000; k++) {
        int64_t x = (int64_t)sp_test_rand(&seed) >> (sp_test_rand(&seed) % 64), v = 0;
        snprintf(buf, sizeof buf, "%lld", (long long)x);
        size_t used;
        ck_assert_int_eq(parse_i64(buf, &v, &used), SP_NUM_OK);
        ck_assert(v == x && used == strlen(buf));
    }
}
END_TEST

/* sp__parse_f64_fast on s followed by 64 NUL bytes: when it takes the number, the bits
 * and the end strtod gives (ref, ref_end); *taken counts the numbers it took. */
static long fast_taken;
static void same_as_libc_fast(const char *s, double ref, const char *ref_end)
{
    static char buf[4096 + 64];
    size_t n = strlen(s);
    if (n > 4096) return;
    memcpy(buf, s, n);
    memset(buf + n, 0, 64);
    double d = 0;
    const char *p = sp__parse_f64_fast(buf, &d);
    if (!p) {
        ck_assert_msg(d == 0, "f64 fast \"%s\": wrote although refused", s);
        return;
    }
    fast_taken++;
    ck_assert_msg(ref_end != s && !isinf(ref) && memcmp(&d, &ref, sizeof d) == 0,
                  "f64 fast \"%s\": %.17g != %.17g", s, d, ref);
    ck_assert_msg(p - buf == ref_end - s, "f64 fast \"%s\": stopped at %d, libc %d", s,
                  (int)(p - buf), (int)(ref_end - s));
}

/* Compare sp__parse_f64 / f32 with strtod / strtof: same bits, same end, and RANGE
 * exactly when libc overflows to infinity from finite digits. */
static void same_as_libc(const char *s)
{
    const char *end = s + strlen(s);
    const char *p = s;
    double d = 0, ref = 0;
    char *ref_end;
    errno = 0;
    ref = strtod(s, &ref_end);
    int overflow = isinf(ref) && errno == ERANGE;
    int rc = sp__parse_f64(&p, end, &d);
    if (ref_end == s) {
        ck_assert_msg(rc == SP_NUM_SYNTAX, "f64 \"%s\": expected syntax error", s);
    } else if (overflow) {
        ck_assert_msg(rc == SP_NUM_RANGE, "f64 \"%s\": expected RANGE", s);
    } else {
        ck_assert_msg(rc == SP_NUM_OK, "f64 \"%s\": rc %d", s, rc);
        ck_assert_msg(memcmp(&d, &ref, sizeof d) == 0, "f64 \"%s\": %.17g != %.17g", s, d, ref);
    }
    ck_assert_msg(rc == SP_NUM_SYNTAX || p == ref_end, "f64 \"%s\": stopped at %d, libc %d",
                  s, (int)(p - s), (int)(ref_end - s));
    same_as_libc_fast(s, ref, ref_end);

    float f = 0, fref;
    p = s;
    errno = 0;
    fref = strtof(s, &ref_end);
    overflow = isinf(fref) && errno == ERANGE;
    rc = sp__parse_f32(&p, end, &f);
    if (ref_end == s) {
        ck_assert_msg(rc == SP_NUM_SYNTAX, "f32 \"%s\": expected syntax error", s);
    } else if (overflow) {
        ck_assert_msg(rc == SP_NUM_RANGE, "f32 \"%s\": expected RANGE", s);
    } else {
        ck_assert_msg(rc == SP_NUM_OK, "f32 \"%s\": rc %d", s, rc);
        ck_assert_msg(memcmp(&f, &fref, sizeof f) == 0, "f32 \"%s\": %.9g != %.9g", s, f, fref);
    }
    ck_assert_msg(rc == SP_NUM_SYNTAX || p == ref_end, "f32 \"%s\": stopped at %d, libc %d",
                  s, (int)(p - s), (int)(ref_end - s));
}

START_TEST(test_f64_cases)
{
    static const char *cases[] = {
        "0", "-0", "+0", "0.0", "-0.0e5", ".5", "5.", "-.5e1", "1E5", "1e+5", "1e-5",
        "1.5e-300", "1e23", "9007199254740993", "9007199254740992", "9007199254740995",
        "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9406564584124654e-324",
        "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-400", "-1e-400",
        "1e400", "-1e400", "1.7976931348623157e308", "1.7976931348623159e308",
        "3.4028235e38", "3.4028236e38", "1.4e-45", "7e-46", "1e-50", "nan", "NaN", "-nan",
        "NAN", "inf", "-inf", "INF", "Infinity", "-Infinity", "infinit", "infinityx",
        "1e", "1e+", "1e-x", "1.5.3", "..5", ".", "-", "+", "e5", "", "x", "-.e1",
        "0.000000000000000000000000000000000000000000001",
        "123456789012345678901234567890", "0.1", "0.2", "0.3", "1.0000000000000002",
        "7.038531e-26", "16777217", "16777219", "1.00000005960464477550", "3.0517578125e-05",
        "1e22", "1e-22", "123456789e22", "1e0000000000000000000000000000010",
        "1e-99999999999999999999", "1e99999999999999999999", "0e99999999999999999999",
        "4503599627370496.5", "4503599627370497.5", "1.00000000000000011102230246251565404",
        "1.000000000000000111022302462515654042363166809082031250000000001",
        "89255.0e-22", "8.589973e9", "123456789012345678", "1234567890123456789012e-10",
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) same_as_libc(cases[k]);
    double d;
    const char *s = "1e400", *p = s;
    ck_assert_int_eq(sp__parse_f64(&p, s + 5, &d), SP_NUM_RANGE);
    s = "-1e-400";
    p = s;
    ck_assert_int_eq(sp__parse_f64(&p, s + 7, &d), SP_NUM_OK);
    ck_assert(d == 0.0 && signbit(d));
    s = "2.5e3xyz";
    p = s;
    ck_assert_int_eq(sp__parse_f64(&p, s + 3, &d), SP_NUM_OK); /* end cuts "2.5" */
    ck_assert(d == 2.5 && p == s + 3);
}
END_TEST

/* Exact midpoints between adjacent doubles (printed exactly from long double, which
 * holds them) and floats (from double), and their neighbours one digit away. */
START_TEST(test_halfway)
{
    uint64_t seed = 5;
    char buf[1200];
    for (int k = 0; k < 20000; k++) {
        uint64_t bits = sp_test_rand(&seed) & 0x7fefffffffffffffull;
        double x;
        memcpy(&x, &bits, sizeof x);
        long double mid = ((long double)x + (long double)nextafter(x, INFINITY)) / 2;
        if (sizeof(long double) > sizeof(double)) {
            snprintf(buf, sizeof buf, "%.780Le", mid);
            same_as_libc(buf);
            snprintf(buf, sizeof buf, "%.25Le", mid);
            same_as_libc(buf);
        }
        uint32_t fb = (uint32_t)sp_test_rand(&seed) & 0x7f7fffffu;
        float f;
        memcpy(&f, &fb, sizeof f);
        double fmid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
        snprintf(buf, sizeof buf, "%.120e", fmid);
        same_as_libc(buf);
        size_t n = strcspn(buf, "e");
        memmove(buf + n + 1, buf + n, strlen(buf + n) + 1);
        buf[n] = '1'; /* just above the midpoint */
        same_as_libc(buf);
        snprintf(buf, sizeof buf, "%.12e", fmid);
        same_as_libc(buf);
    }
}
END_TEST

/* Tokens far longer than any buffer: the digits past the kept ones must still decide. */
START_TEST(test_long_tokens)
{
    static char buf[20000];
    uint64_t seed = 3;
    for (int k = 0; k < 300; k++) {
        int n = 1 + (int)(sp_test_rand(&seed) % 15000), pos = 0;
        if (k % 3 == 0) buf[pos++] = '-';
        if (k % 2) {
            memcpy(buf + pos, "0.", 2);
            pos += 2;
        }
        for (int i = 0; i < n; i++) {
            uint64_t r = sp_test_rand(&seed);
            /* runs of zeros and nines expose sticky-digit mistakes */
            buf[pos++] = (char)(k % 5 == 0 ? (i == n - 1 ? '1' : '0')
                                : k % 5 == 1 ? '9' : '0' + (int)(r % 10));
            if (i == n / 2 && k % 4 == 0) buf[pos++] = '.';
        }
        snprintf(buf + pos, sizeof buf - (size_t)pos, "e%d",
                 (int)(sp_test_rand(&seed) % 800) - 400 - (k % 2 ? 0 : n));
        same_as_libc(buf);
    }
    /* 2^-1075 * (2k+1) region: a subnormal midpoint needs ~750 digits */
    snprintf(buf, sizeof buf, "%.1000Le", (long double)4.9406564584124654e-324L / 2);
    same_as_libc(buf);
}
END_TEST

/* A million random decimal strings: 1-25 significant digits, the point anywhere,
 * exponents across the whole range including subnormals and overflow. */
START_TEST(test_random_million)
{
    uint64_t seed = 2024;
    char buf[96];
    for (int k = 0; k < 1000000; k++) {
        uint64_t r = sp_test_rand(&seed);
        int ndig = 1 + (int)(r % 25), pos = 0;
        int point = (int)((r >> 8) % (uint64_t)(ndig + 2)) - 1;
        if ((r >> 16) & 1) buf[pos++] = '-';
        for (int i = 0; i < ndig; i++) {
            if (i == point) buf[pos++] = '.';
            buf[pos++] = (char)('0' + (int)(sp_test_rand(&seed) % 10));
        }
        int e;
        switch ((r >> 20) % 4) {
        case 0: e = (int)((r >> 24) % 700) - 350; break;          /* double range */
        case 1: e = (int)((r >> 24) % 100) - 55; break;           /* float range */
        case 2: e = (int)((r >> 24) % 50) - 25; break;            /* fast paths */
        default: e = (int)((r >> 24) % 40) - 345; break;          /* subnormals */
        }
        if ((r >> 40) % 8 != 0)
            snprintf(buf + pos, sizeof buf - (size_t)pos, "%c%d", (r >> 44) & 1 ? 'e' : 'E', e);
        else
            buf[pos] = '\0';
        same_as_libc(buf);
    }
}
END_TEST

/* Doubles written with %.17g, as the Matrix Market writers write them: the hot form the
 * word-at-a-time parser exists for, so it must take nearly all of them. */
START_TEST(test_random_17g)
{
    uint64_t seed = 77;
    char buf[64];
    fast_taken = 0;
    for (int k = 0; k < 300000; k++) {
        uint64_t r = sp_test_rand(&seed);
        double x = (double)(r >> 11) * 0x1p-53;
        if (k % 3 == 1) x = ldexp(x, (int)(r % 200) - 100);
        if (k % 5 == 2) x = -x;
        snprintf(buf, sizeof buf, "%.17g", x);
        same_as_libc(buf);
    }
#if SP_SWAR_DIGITS && defined(__SIZEOF_INT128__)
    ck_assert_msg(fast_taken > 250000, "the fast parser took only %ld of 300000", fast_taken);
#endif
}
END_TEST

/* Around the sixteen-digit block of the fast parser (SSE2 on x86-64): 0-4 integer
 * digits, 12-20 fraction digits, one of them at times replaced by a byte next to the
 * digits ('/', ':') or by a separator, then an end: every position of the first
 * non-digit inside, at and past the block must give strtod's bits and end. */
START_TEST(test_sixteen_digit_block)
{
    static const char *ends[] = {"", "x", ":", "/", "e-5", "E+12", " 7", ".5", "\n1 2"};
    static const char bytes[] = {'/', ':', ' ', '.', 'e', '-', '\n'};
    uint64_t seed = 99;
    char buf[96];
    for (int k = 0; k < 200000; k++) {
        uint64_t r = sp_test_rand(&seed);
        int ni = (int)(r % 5), nf = 12 + (int)((r >> 8) % 9), n = 0;
        if ((r >> 16) % 7 == 0) buf[n++] = '-';
        for (int i = 0; i < ni; i++) buf[n++] = (char)('0' + (int)(sp_test_rand(&seed) % 10));
        buf[n++] = '.';
        int frac = n;
        for (int i = 0; i < nf; i++) buf[n++] = (char)('0' + (int)(sp_test_rand(&seed) % 10));
        if ((r >> 20) % 3 == 0)
            buf[frac + (int)((r >> 24) % (uint64_t)nf)] = bytes[(r >> 32) % sizeof bytes];
        snprintf(buf + n, sizeof buf - (size_t)n, "%s", ends[(r >> 40) % 9]);
        same_as_libc(buf);
    }
}
END_TEST

/* Random draws for the Eisel-Lemire test: SP_NUMBER_PARSE_RANDOM overrides (a one-off
 * long run), SP_TEST_SMALL shrinks. */
static long random_count(long dflt)
{
    const char *env = getenv("SP_NUMBER_PARSE_RANDOM");
    if (env && *env) return strtol(env, NULL, 10);
    return getenv("SP_TEST_SMALL") ? dflt / 10 : dflt;
}

/* The digits of a random significand with exactly ndig digits (first one non-zero). */
static int random_digits(uint64_t *seed, int ndig, char *out)
{
    out[0] = (char)('1' + (int)(sp_test_rand(seed) % 9));
    for (int i = 1; i < ndig; i++) out[i] = (char)('0' + (int)(sp_test_rand(seed) % 10));
    out[ndig] = '\0';
    return ndig;
}

/* 15-19 significant digits at every decimal exponent from below the subnormals to past
 * overflow, written as integers, with a leading "0.", or with the point inside; and
 * 20-30 digits, whose cut significand takes the two-sided check. */
START_TEST(test_el_random)
{
    uint64_t seed = 77;
    char dig[40], buf[96];
    long n = random_count(2000000);
    for (long k = 0; k < n; k++) {
        uint64_t r = sp_test_rand(&seed);
        int ndig = k % 8 == 7 ? 20 + (int)(r % 11) : 15 + (int)(r % 5);
        random_digits(&seed, ndig, dig);
        int e = (int)((r >> 8) % 700) - 360;
        const char *sign = (r >> 20) & 1 ? "-" : "";
        switch ((r >> 24) % 3) {
        case 0: snprintf(buf, sizeof buf, "%s%se%d", sign, dig, e); break;
        case 1: snprintf(buf, sizeof buf, "%s0.%se%d", sign, dig, e); break;
        default: snprintf(buf, sizeof buf, "%s%c.%sE%+d", sign, dig[0], dig + 1, e); break;
        }
        same_as_libc(buf);
    }
}
END_TEST

/* Every power of two of both formats and its neighbours, printed with 16 to 20
 * significant digits (the shortest round trip, one digit more, and truncated ones), and
 * the midpoints to the neighbours printed exactly and cut after 19 and 25 digits. */
START_TEST(test_near_powers_of_two)
{
    char buf[1200];
    for (int k = -1074; k <= 1023; k++) {
        double x = ldexp(1.0, k);
        double near[3] = {nextafter(x, 0), x, nextafter(x, INFINITY)};
        for (int i = 0; i < 3; i++) {
            for (int prec = 15; prec <= 19; prec++) {
                snprintf(buf, sizeof buf, "%.*e", prec, near[i]);
                same_as_libc(buf);
            }
            if (sizeof(long double) > sizeof(double) && i < 2 && isfinite(near[i + 1])) {
                long double mid = ((long double)near[i] + (long double)near[i + 1]) / 2;
                snprintf(buf, sizeof buf, "%.800Le", mid);
                same_as_libc(buf);
                snprintf(buf, sizeof buf, "%.18Le", mid);
                same_as_libc(buf);
                snprintf(buf, sizeof buf, "%.24Le", mid);
                same_as_libc(buf);
            }
        }
    }
    for (int k = -149; k <= 127; k++) {
        float x = ldexpf(1.0f, k);
        float near[3] = {nextafterf(x, 0), x, nextafterf(x, INFINITY)};
        for (int i = 0; i < 3; i++) {
            for (int prec = 6; prec <= 19; prec++) {
                snprintf(buf, sizeof buf, "%.*e", prec, (double)near[i]);
                same_as_libc(buf);
            }
            if (i < 2 && isfinite(near[i + 1])) {
                double mid = ((double)near[i] + (double)near[i + 1]) / 2;
                snprintf(buf, sizeof buf, "%.200e", mid);
                same_as_libc(buf);
            }
        }
    }
}
END_TEST

/* Halfway significands (2^53 + 1, 2^54 + 2, 2^24 + 1, ...) and their neighbours at every
 * decimal scale, bare, with trailing zeros, and with a sticky digit far out. */
START_TEST(test_halfway_scaled)
{
    static const char *sig[] = {
        "9007199254740993", "9007199254740992", "9007199254740994", "9007199254740995",
        "18014398509481986", "18014398509481990", "36028797018963972", "4503599627370497",
        "72057594037927944", "144115188075855888", "1152921504606846992",
        "16777217", "16777219", "33554434", "8388609", "9223372036854775808",
        "9999999999999999999", "1000000000000000000", "17976931348623157", "22250738585072014",
        "49406564584124654", "24703282292062327", "11754943508222875", "34028235677973366",
    };
    static const char *tail[] = {"", "0", "000", "0000000000000000", "00000000000000000001",
                                 "4999999999999999999999", "5", "50000000000000000000001"};
    char buf[160];
    for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++)
        for (size_t t = 0; t < sizeof tail / sizeof tail[0]; t++)
            for (int e = -360; e <= 330; e++) {
                snprintf(buf, sizeof buf, "%s%se%d", sig[i], tail[t], e);
                same_as_libc(buf);
            }
}
END_TEST

/* Where the formats end: smallest normal, subnormals, largest finite, overflow. */
START_TEST(test_el_edges)
{
    static const char *cases[] = {
        "2.2250738585072014e-308", "2.2250738585072013e-308", "2.2250738585072012e-308",
        "2.2250738585072011e-308", "2.225073858507201136057409796709131975934819546351645648e-308",
        "4.9e-324", "5e-324", "2.5e-324", "2.4703282292062328e-324", "3e-324", "1e-323",
        "1e308", "1.7976931348623157e308", "1.7976931348623158e308", "1.797693134862315807e308",
        "1.7976931348623159e308", "179769313486231570000000000000000000000e270", "1e309",
        "1.1754943508222875e-38", "1.17549435e-38", "1.1754942e-38", "1.4012984643e-45",
        "7.006492321624085e-46", "3.4028234663852886e38", "3.40282356779733661637e38",
        "3.4028235677973366e38", "0.12345678901234567", "0.012345678901234567",
        "0.0012345678901234567", "123456789012345678.9", "1234567890123456789",
        "12345678901234567890", "18446744073709551615", "18446744073709551616",
        "0000000000000000000000000000000000000012345", "0.000000000000000000000000000001",
        "1e-342", "1e-343", "9.9999999999999999999e-343", "1e308", "1e-22", "1e23", "1e-23",
        "8.98846567431158e307", "4.940656458412465441765687928682213723651e-324",
        "-0.12345678901234567e-300", "-7.2057594037927933e16", "5.e-1", ".123456789012345678",
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) same_as_libc(cases[k]);
}
END_TEST

/* The generated 5^q table where exact arithmetic fits in C: for q >= 0 the entry is 5^q
 * shifted to the top of 128 bits; for q < 0 the entry T times 5^-q lies in
 * [2^k, 2^k + 5^-q) with 2^-k the entry's scale, so T = ceil(2^k / 5^-q). */
START_TEST(test_pow5_table)
{
    uint64_t p5 = 1;
    for (int n = 0; n <= 27; n++, p5 *= 5) {
        const uint64_t *t = sp_pow5_128[n - SP_POW5_Q_MIN];
        int e = sp_pow5_exp2[n - SP_POW5_Q_MIN];
        int lz = __builtin_clzll(p5);
        ck_assert_msg(t[0] == p5 << lz && t[1] == 0 && e == -64 - lz, "5^%d", n);
        if (n == 0) continue;
        /* q = -n: T * 5^n as 192 bits (limbs of 64), expected 2^k + r with r < 5^n */
        t = sp_pow5_128[-n - SP_POW5_Q_MIN];
        e = sp_pow5_exp2[-n - SP_POW5_Q_MIN];
        unsigned __int128 lo = (unsigned __int128)t[1] * p5;
        unsigned __int128 hi = (unsigned __int128)t[0] * p5 + (uint64_t)(lo >> 64);
        uint64_t limb[3] = {(uint64_t)lo, (uint64_t)hi, (uint64_t)(hi >> 64)};
        int k = -e;
        ck_assert_msg(k >= 128 && k < 192, "5^-%d: k %d", n, k);
        uint64_t want[3] = {0, 0, 0};
        want[k / 64] = 1ull << (k % 64);
        ck_assert_msg(limb[2] == want[2] && limb[1] == want[1] && limb[0] >= want[0] &&
                          limb[0] - want[0] < p5, "5^-%d", n);
        ck_assert(t[0] >> 63);
    }
    /* entries are normalized, and their exponents follow floor(q log2 5) - 127 */
    for (int q = SP_POW5_Q_MIN; q <= SP_POW5_Q_MAX; q++) {
        ck_assert(sp_pow5_128[q - SP_POW5_Q_MIN][0] >> 63);
        ck_assert_int_eq(sp_pow5_exp2[q - SP_POW5_Q_MIN], (int)floor(q * log2(5.0)) - 127);
    }
}
END_TEST

/* ---- word-at-a-time ids and values -------------------------------------------------- */

/* A buffer whose last byte sits just before an unreadable page: a read past it faults. */
static char *guarded_end(void)
{
    static char *page;
    long size = sysconf(_SC_PAGESIZE);
    if (!page) {
        page = mmap(NULL, 2 * (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
        ck_assert(page != MAP_FAILED);
        ck_assert_int_eq(mprotect(page + size, (size_t)size, PROT_NONE), 0);
    }
    return page + size;
}

/* sp__parse_short_uint on s (then sep and filler) with end right after the given bytes
 * and nothing readable past end; it must agree with strtoull on what it takes. */
static void check_short_uint(const char *s, const char *tail)
{
#if SP_SWAR_DIGITS
    char *end = guarded_end(), *b, all[96];
    snprintf(all, sizeof all, "%s%s", s, tail);
    size_t n = strlen(all);
    b = end - n;
    memcpy(b, all, n);
    const char *p = b;
    uint32_t v = 7;
    int got = sp__parse_short_uint(&p, end, &v);
    size_t digits = strspn(all, "0123456789");
    unsigned long long ref = strtoull(all, NULL, 10);
    int want = digits >= 1 && digits <= 10 && digits < n && ref <= UINT32_MAX &&
               n >= (digits < 8 ? 8u : 16u);
    ck_assert_msg(got == want, "short uint \"%s\"+\"%s\": took %d", s, tail, got);
    if (got) ck_assert_msg(v == ref && p == b + digits, "short uint \"%s\": %u", s, v);
    else ck_assert_msg(p == b && v == 7, "short uint \"%s\": moved on refusal", s);
    int64_t iv = 0;
    int64_t ref_i = strtoll(all, NULL, 10);
    p = b;
    if (sp__parse_short_int(&p, end, &iv)) ck_assert(iv == ref_i);
#else
    (void)s, (void)tail;
#endif
}

/* Ids of every width from 1 to 12 digits, the 31/32-bit boundaries, leading zeros, and
 * each ended by every separator the readers meet, at any distance from the end. */
START_TEST(test_id_widths)
{
    static const char *cases[] = {
        "0", "1", "9999999", "10000000", "12345678", "99999999", "100000000", "123456789",
        "999999999", "1000000000", "2147483647", "2147483648", "4294967295", "4294967296",
        "9999999999", "10000000000", "0000000001", "00000000001", "0000000000", "04294967295",
        "42949672950", "18446744073709551616",
    };
    static const char *tails[] = {" 1", "\t2", "\n", "\r\n", " 0.5\n", "", "x", "12345678"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++)
            check_short_uint(cases[k], tails[t]);
    uint64_t seed = 21;
    char buf[64];
    for (int k = 0; k < 300000; k++) {
        uint64_t r = sp_test_rand(&seed);
        int width = 1 + (int)(r % 12);
        uint64_t x = sp_test_rand(&seed) % 10000000000000ull;
        snprintf(buf, sizeof buf, "%0*llu", width, (unsigned long long)x);
        buf[width] = '\0';
        check_short_uint(buf, tails[(r >> 8) % 5] );
        if ((r >> 16) % 4 == 0) {
            int64_t v = 0;
            size_t used;
            ck_assert_int_eq(parse_i64(buf, &v, &used), SP_NUM_OK);
            ck_assert(v == strtoll(buf, NULL, 10) && used == strlen(buf));
        }
    }
    /* sp__parse_i64 on 8-20 digits with signs and leading zeros, word pairs included */
    for (int k = 0; k < 300000; k++) {
        uint64_t r = sp_test_rand(&seed);
        int width = 8 + (int)(r % 13), lead = (int)((r >> 8) % 4), n = 0;
        if ((r >> 12) & 1) buf[n++] = '-';
        for (int i = 0; i < width; i++)
            buf[n++] = i < lead ? '0' : (char)('0' + (int)(sp_test_rand(&seed) % 10));
        buf[n] = '\0';
        errno = 0;
        long long ref = strtoll(buf, NULL, 10);
        int64_t v = 0;
        size_t used;
        int rc = parse_i64(buf, &v, &used);
        ck_assert_msg(rc == (errno == ERANGE ? SP_NUM_RANGE : SP_NUM_OK), "i64 \"%s\"", buf);
        ck_assert_msg(rc != SP_NUM_OK || (v == ref && used == (size_t)n), "i64 \"%s\"", buf);
    }
}
END_TEST

/* The value shapes of the writers: %.17g, %.16g, %.15e and %.9g of doubles spread over
 * every binade (subnormals included) and over 1e-5..1e4 as the loader benchmark writes
 * them; the fast parser must take nearly every one of the spread values. */
START_TEST(test_writer_shapes)
{
    static const char *formats[] = {"%.17g", "%.16g", "%.15e", "%.9g", "%.17e", "%.3g"};
    uint64_t seed = 31;
    char buf[64];
    for (int k = 0; k < 400000; k++) {
        uint64_t r = sp_test_rand(&seed);
        double x;
        uint64_t bits = sp_test_rand(&seed) & 0x7fefffffffffffffull;
        if (k % 4 == 0) memcpy(&x, &bits, sizeof x); /* any binade */
        else if (k % 4 == 1) x = ldexp((double)(r >> 11), -1074 - (int)(r % 53)); /* subnormal */
        else x = ldexp((double)(bits >> 11) * 0x1p-53, (int)(r % 2100) - 1074);
        if ((r >> 40) & 1) x = -x;
        snprintf(buf, sizeof buf, formats[(r >> 20) % 6], x);
        same_as_libc(buf);
    }
    static const double scale[9] = {1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4};
    fast_taken = 0;
    for (int k = 0; k < 300000; k++) {
        uint64_t r = sp_test_rand(&seed);
        double x = (double)(r >> 11) * 0x1p-53 * scale[sp_test_rand(&seed) % 9];
        snprintf(buf, sizeof buf, k % 2 ? "%.17g" : "%.16g", x);
        same_as_libc(buf);
    }
#if SP_SWAR_DIGITS && defined(__SIZEOF_INT128__)
    ck_assert_msg(fast_taken > 299000, "the fast parser took only %ld of 300000", fast_taken);
#endif
}
END_TEST

/* Decimals of 1-19 significant digits written every way (integer, point anywhere,
 * up to 7 zeros after "0.", exponents -330..310 with or without sign): the bits and end
 * of strtod; integer-valued fields of up to 19 digits too. */
START_TEST(test_fast_shapes)
{
    uint64_t seed = 41;
    char dig[24], buf[96];
    for (int k = 0; k < 500000; k++) {
        uint64_t r = sp_test_rand(&seed);
        int ndig = 1 + (int)(r % 19), n = 0;
        random_digits(&seed, ndig, dig);
        if ((r >> 5) % 5 == 0) buf[n++] = '-';
        switch ((r >> 8) % 4) {
        case 0: /* integer */
            n += snprintf(buf + n, 40, "%s", dig);
            break;
        case 1: /* 0.000ddd */
            n += snprintf(buf + n, 60, "0.%.*s%s", (int)((r >> 12) % 8), "0000000", dig);
            break;
        default: { /* the point inside */
            int at = 1 + (int)((r >> 12) % (uint64_t)ndig);
            n += snprintf(buf + n, 60, "%.*s.%s", at, dig, dig + at);
        }
        }
        if ((r >> 20) % 3) {
            int e = (int)((r >> 24) % 641) - 330;
            snprintf(buf + n, 16, (r >> 40) & 1 ? "e%+d" : "E%d", e);
        }
        same_as_libc(buf);
    }
}
END_TEST

/* sp__parse_f64_fast with exactly SP_NUM_F64_FAST_READ readable bytes (then a guard
 * page), the number followed by bytes that may continue it: it must neither fault nor
 * differ from strtod. */
START_TEST(test_fast_read_bound)
{
#if SP_SWAR_DIGITS
    static const char more[] = "0123456789.eE+-\n 0000";
    uint64_t seed = 51;
    char *end = guarded_end(), *b = end - SP_NUM_F64_FAST_READ, copy[SP_NUM_F64_FAST_READ + 1];
    for (int k = 0; k < 500000; k++) {
        for (int i = 0; i < SP_NUM_F64_FAST_READ; i++) {
            uint64_t r = sp_test_rand(&seed);
            /* mostly digits: long runs probe the farthest reads */
            b[i] = (r % 8) ? (char)('0' + (int)((r >> 8) % 10)) : more[(r >> 16) % 21];
        }
        if (k % 3 == 0) b[1] = '.';
        if (k % 5 == 0) memcpy(b, "0.000", 5);
        memcpy(copy, b, SP_NUM_F64_FAST_READ);
        copy[SP_NUM_F64_FAST_READ] = '\0';
        double d = 0;
        const char *p = sp__parse_f64_fast(b, &d);
        if (!p) continue;
        char *ref_end;
        double ref = strtod(copy, &ref_end);
        ck_assert_msg(memcmp(&d, &ref, sizeof d) == 0 && p - b == ref_end - copy,
                      "fast \"%s\"", copy);
    }
#endif
}
END_TEST

/* A file of n entries of one shape, written with the reference values kept: ids of 1-10
 * digits (up to 2^31 - 1), values of the field's shape. */
typedef struct ref_file {
    int64_t n;
    int32_t *row, *col;
    double *val;
} ref_file_t;

static void write_shape_file(const char *path, const char *field, int64_t n, uint64_t seed,
                             ref_file_t *ref)
{
    static const double scale[10] = {1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 1e2, 1e3, 1e4};
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fprintf(f, "%%%%MatrixMarket matrix coordinate %s general\n%d %d %lld\n", field,
            INT32_MAX, INT32_MAX, (long long)n);
    ref->n = n;
    ref->row = malloc((size_t)n * sizeof *ref->row);
    ref->col = malloc((size_t)n * sizeof *ref->col);
    ref->val = malloc((size_t)n * sizeof *ref->val);
    ck_assert(ref->row && ref->col && ref->val);
    char buf[64];
    for (int64_t k = 0; k < n; k++) {
        uint64_t r = sp_test_rand(&seed);
        int64_t i = 1 + (int64_t)(sp_test_rand(&seed) % ((uint64_t)1 << (1 + r % 31)));
        int64_t j = 1 + (int64_t)(sp_test_rand(&seed) % ((uint64_t)1 << (1 + (r >> 5) % 31)));
        if (i > INT32_MAX) i = INT32_MAX;
        if (j > INT32_MAX) j = INT32_MAX;
        ref->row[k] = (int32_t)(i - 1);
        ref->col[k] = (int32_t)(j - 1);
        fprintf(f, "%lld %lld", (long long)i, (long long)j);
        if (strcmp(field, "real") == 0) {
            double x = (double)(sp_test_rand(&seed) >> 11) * 0x1p-53 * scale[(r >> 10) % 10];
            snprintf(buf, sizeof buf, (r >> 20) & 1 ? "%.17g" : "%.16g", (r >> 21) & 1 ? -x : x);
            ref->val[k] = strtod(buf, NULL);
            fprintf(f, " %s\n", buf);
        } else if (strcmp(field, "integer") == 0) {
            long long v = (long long)(sp_test_rand(&seed) >> ((r >> 10) % 64)) >> 1;
            if ((r >> 20) & 1) v = -v;
            ref->val[k] = (double)strtoll((snprintf(buf, sizeof buf, "%lld", v), buf), NULL, 10);
            fprintf(f, " %s\n", buf);
        } else {
            ref->val[k] = 1.0;
            fputc('\n', f);
        }
    }
    ck_assert_int_eq(fclose(f), 0);
}

/* sp_mtx_read on generated real (%.17g and %.16g, 1e-5..1e4), integer (up to 63 bits)
 * and pattern files with ids of every width, on one and two threads: the strtod /
 * strtoll values and the ids written. */
START_TEST(test_readers_shapes)
{
    static const char *fields[] = {"real", "integer", "pattern"};
    for (int fi = 0; fi < 3; fi++) {
        ref_file_t ref;
        char *path = sp_test_temp_path("shape.mtx");
        write_shape_file(path, fields[fi], 50000, 61 + (uint64_t)fi, &ref);
        for (int threads = 1; threads <= 2; threads++) {
            sp_mtx_options_t o = {.nthreads = threads};
            sp_coo_t *a = NULL;
            ck_assert_ok(sp_mtx_read(path, SP_R_64F, &o, &a));
            ck_assert(a->nnz == ref.n);
            for (int64_t k = 0; k < ref.n; k++) {
                double v = ((double *)a->val)[k];
                ck_assert_msg(a->row[k] == ref.row[k] && a->col[k] == ref.col[k] &&
                                  memcmp(&v, &ref.val[k], sizeof v) == 0,
                              "%s entry %lld", fields[fi], (long long)k);
            }
            sp_coo_free(a);
        }
        free(ref.row);
        free(ref.col);
        free(ref.val);
    }
    /* a SNAP edge list with 8-10 digit ids */
    char *path = sp_test_temp_path("shape.txt");
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    uint64_t seed = 71;
    int64_t u[3000], v[3000];
    for (int k = 0; k < 3000; k++) {
        u[k] = (int64_t)(sp_test_rand(&seed) % 2000000000u);
        v[k] = (int64_t)(sp_test_rand(&seed) % 300000000u);
        fprintf(f, "%lld\t%lld\n", (long long)u[k], (long long)v[k]);
    }
    ck_assert_int_eq(fclose(f), 0);
    sp_edgelist_options_t eo = {.nthreads = 1};
    sp_coo_t *a = NULL;
    ck_assert_ok(sp_edgelist_read(path, SP_VALUE_NONE, &eo, &a, NULL));
    ck_assert(a->nnz == 3000);
    for (int k = 0; k < 3000; k++) ck_assert(a->row[k] == u[k] && a->col[k] == v[k]);
    sp_coo_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("number_parse");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_i64_cases);
    tcase_add_test(tc, test_i64_random);
    tcase_add_test(tc, test_f64_cases);
    tcase_add_test(tc, test_random_17g);
    tcase_add_test(tc, test_sixteen_digit_block);
    tcase_add_test(tc, test_halfway);
    tcase_add_test(tc, test_long_tokens);
    tcase_add_test(tc, test_random_million);
    tcase_add_test(tc, test_el_random);
    tcase_add_test(tc, test_near_powers_of_two);
    tcase_add_test(tc, test_halfway_scaled);
    tcase_add_test(tc, test_el_edges);
    tcase_add_test(tc, test_pow5_table);
    tcase_add_test(tc, test_id_widths);
    tcase_add_test(tc, test_writer_shapes);
    tcase_add_test(tc, test_fast_shapes);
    tcase_add_test(tc, test_fast_read_bound);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("readers");
    tcase_set_timeout(tr, 300);
    tcase_add_checked_fixture(tr, sp_test_temp_setup, sp_test_temp_teardown);
    tcase_add_test(tr, test_readers_shapes);
    suite_add_tcase(s, tr);
    return sp_test_run(s);
}
