/* Number parsers of the text loaders: integers with overflow, and floats bit-identical
 * to strtod / strtof on hand-picked, halfway, very long and millions of random inputs,
 * many aimed at the Eisel-Lemire path; and its 5^q table against exact arithmetic. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    suite_add_tcase(s, tc);
    return sp_test_run(s);
}
