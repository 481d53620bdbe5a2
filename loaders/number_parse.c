/* Exact number parsing for the text loaders: int64 with overflow detection, and doubles
 * and floats with the same bits as strtod / strtof, whatever the locale (Clinger's fast
 * path, then Eisel-Lemire, then an x87 path, then libc on a canonical copy). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "sp_base.h"
#include "sp_text.h"

/* Significant digits handed to the libc fallback. Every midpoint between two adjacent
 * doubles (subnormals included) has at most 767 significant decimal digits, so digits
 * past KEEP_DIGITS only matter as "a non-zero digit follows", which one extra '1' at the
 * end conveys exactly. This bounds the buffer without changing any result. */
enum { KEEP_DIGITS = 800, EXP_CLAMP = 1000000 };

/* The fast paths need arithmetic carried out in the operands' own precision. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define FAST_PATH 1
#else
#define FAST_PATH 0
#endif

/* Eight ASCII digits at s, as one little-endian word: 1 if all are '0'..'9'. */
#if SP_SWAR_DIGITS
#define SWAR_DIGITS 1
static int eight_digits(const char *s, uint64_t *word)
{
    uint64_t w;
    memcpy(&w, s, sizeof w);
    *word = w;
    return (w & 0xF0F0F0F0F0F0F0F0ull) == 0x3030303030303030ull &&
           ((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) == 0x3030303030303030ull;
}
#define eight_digit_value sp__eight_digit_value
#else
#define SWAR_DIGITS 0
#endif

int sp__parse_i64(const char **p, const char *end, int64_t *out)
{
    const char *s = *p;
    int neg = 0;
    if (s < end && (*s == '+' || *s == '-')) neg = *s++ == '-';
    if (s >= end || (unsigned)(*s - '0') > 9) return SP_NUM_SYNTAX;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    int over = 0;
#if SWAR_DIGITS
    /* Up to eight digits at once: find the first non-digit of the word, shift the digits
     * to its top and fill below with '0's, and convert. */
    if (end - s >= 8) {
        uint64_t w;
        memcpy(&w, s, sizeof w);
        uint64_t bad = sp__nondigit_bytes(w);
        int ndig = bad ? __builtin_ctzll(bad) / 8 : 8;
        if (ndig < 8) {
            uint64_t shifted = ndig ? w << (8 * (8 - ndig)) : 0;
            uint64_t pad = 0x3030303030303030ull >> (8 * ndig);
            *p = s + ndig;
            v = eight_digit_value(shifted | (ndig ? pad : 0x3030303030303030ull));
            *out = neg ? -(int64_t)v : (int64_t)v;
            return SP_NUM_OK;
        }
        /* 8-15 digits from a second word (below 10^15: no overflow); sixteen or more
         * continue below from the sixteen taken, with the overflow checks. */
        if (end - s >= 16) {
            v = eight_digit_value(w);
            memcpy(&w, s + 8, sizeof w);
            bad = sp__nondigit_bytes(w);
            ndig = bad ? __builtin_ctzll(bad) / 8 : 8;
            if (ndig < 8) {
                if (ndig) {
                    static const uint64_t p10[8] = {1, 10, 100, 1000, 10000, 100000,
                                                    1000000, 10000000};
                    w = (w << (8 * (8 - ndig))) | (0x3030303030303030ull >> (8 * ndig));
                    v = v * p10[ndig] + eight_digit_value(w);
                }
                *p = s + 8 + ndig;
                *out = neg ? -(int64_t)v : (int64_t)v;
                return SP_NUM_OK;
            }
            v = v * 100000000u + eight_digit_value(w);
            s += 16;
        }
    }
#endif
    /* 18 digits cannot overflow 64 bits: no check until then; after the word pair above
     * (v < 10^16), two. */
    int64_t room = v ? 2 : 18;
    const char *fast_end = end - s > room ? s + room : end;
    for (; s < fast_end && (unsigned)(*s - '0') <= 9; s++) v = v * 10 + (unsigned)(*s - '0');
    for (; s < end && (unsigned)(*s - '0') <= 9; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (over || v > (limit - d) / 10) over = 1;
        else v = v * 10 + d;
    }
    if (!over && v > limit) over = 1;
    *p = s;
    if (over) return SP_NUM_RANGE;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return SP_NUM_OK;
}

static int lower(char c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

/* Case-insensitive match of word at s (within end). */
static int match_word(const char *s, const char *end, const char *word)
{
    for (; *word; word++, s++)
        if (s >= end || lower(*s) != *word) return 0;
    return 1;
}

/* A scanned number: value = (-1)^neg * m * 10^exp10 when exact (no non-zero digit was
 * left out of the 19 kept in m). */
typedef struct decimal {
    int neg;
    int special;        /* 0 finite, 1 inf, 2 nan */
    uint64_t m;
    int exact;
    int64_t exp10;
    int64_t exp_given;  /* the exponent as written, clamped to +-EXP_CLAMP */
    const char *mant_begin, *mant_end;
    const char *stop;   /* first byte after the number */
} decimal_t;

/* Scan the syntax strtod accepts for decimal input; SP_NUM_SYNTAX if no number starts
 * at s. An 'e' not followed by digits is not part of the number, as for strtod. */
static int scan_decimal(const char *s, const char *end, decimal_t *d)
{
    memset(d, 0, sizeof *d);
    if (s < end && (*s == '+' || *s == '-')) d->neg = *s++ == '-';
    if (s < end && (lower(*s) == 'n' || lower(*s) == 'i')) {
        if (match_word(s, end, "nan")) {
            d->special = 2;
            d->stop = s + 3;
            return SP_NUM_OK;
        }
        if (match_word(s, end, "inf")) {
            d->special = 1;
            d->stop = match_word(s, end, "infinity") ? s + 8 : s + 3;
            return SP_NUM_OK;
        }
        return SP_NUM_SYNTAX;
    }
    int any = 0, seen_point = 0, ndigits = 0;
    int64_t shift = 0; /* value = m * 10^(exponent - shift) */
    d->exact = 1;
    d->mant_begin = s;
    for (; s < end; s++) {
#if SWAR_DIGITS
        uint64_t w;
        /* Runs of eight significant digits that still fit the 19 kept in m. */
        while (ndigits > 0 && ndigits <= 11 && end - s >= 8 && eight_digits(s, &w)) {
            d->m = d->m * 100000000u + eight_digit_value(w);
            ndigits += 8;
            if (seen_point) shift += 8;
            s += 8;
        }
        if (s >= end) break;
#endif
        unsigned dig = (unsigned)(*s - '0');
        if (dig > 9) {
            if (*s == '.' && !seen_point) {
                seen_point = 1;
                continue;
            }
            break;
        }
        any = 1;
        if (ndigits == 0 && dig == 0) {
            shift += seen_point;
        } else if (ndigits < 19) {
            d->m = d->m * 10 + dig;
            ndigits++;
            shift += seen_point;
        } else {
            if (dig != 0) d->exact = 0;
            shift -= !seen_point;
        }
    }
    if (!any) return SP_NUM_SYNTAX;
    d->mant_end = s;
    int64_t e = 0;
    if (s < end && lower(*s) == 'e') {
        const char *t = s + 1;
        int eneg = 0;
        if (t < end && (*t == '+' || *t == '-')) eneg = *t++ == '-';
        if (t < end && (unsigned)(*t - '0') <= 9) {
            for (; t < end && (unsigned)(*t - '0') <= 9; t++)
                if (e < EXP_CLAMP) e = e * 10 + (*t - '0');
            if (eneg) e = -e;
            s = t;
        }
    }
    d->exp_given = e;
    d->exp10 = e - shift;
    d->stop = s;
    return SP_NUM_OK;
}

/* Write "DIGITSeEXP" for |value|: the first KEEP_DIGITS significant digits, a sticky '1'
 * when a non-zero digit follows them, and the exponent. No sign and no decimal point,
 * so no locale reads it differently. buf holds KEEP_DIGITS + 32 bytes. */
static void canonical(const decimal_t *d, char *buf)
{
    int seen_point = 0, sticky = 0, n = 0;
    int64_t shift = 0;
    for (const char *s = d->mant_begin; s < d->mant_end; s++) {
        if (*s == '.') {
            seen_point = 1;
            continue;
        }
        if (n == 0 && *s == '0') {
            shift += seen_point;
        } else if (n < KEEP_DIGITS) {
            buf[n++] = *s;
            shift += seen_point;
        } else {
            sticky |= *s != '0';
            shift -= !seen_point;
        }
    }
    if (sticky) {
        buf[n++] = '1';
        shift++;
    }
    snprintf(buf + n, 32, "e%lld", (long long)(d->exp_given - shift));
}

static const double pow10_f64[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float pow10_f32[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                    1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

#if FAST_PATH && LDBL_MANT_DIG == 64 && DBL_MANT_DIG == 53 && FLT_MANT_DIG == 24
/* Extended-precision path: m < 10^19 < 2^64 and 10^|e| <= 10^27 (5^27 < 2^64) are exact
 * in the x87 format, so x = m * 10^e (or m / 10^-e) is rounded once, to 64 bits, with an
 * error under half a unit of its last bit. Rounding x again to `bits` bits gives the
 * correctly rounded result unless the dropped bits are exactly the halfway pattern: any
 * other pattern puts the nearest midpoint at least one unit away from x, farther than
 * the true value can be. That one pattern (and results that are subnormal or overflow
 * in the target) goes to libc. */
#define WIDE_PATH 1
static const long double pow10_ld[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

static int wide(const decimal_t *d, int bits, long double *x)
{
    if (!d->exact || d->exp10 < -27 || d->exp10 > 27) return 0;
    long double v = (long double)d->m;
    v = d->exp10 >= 0 ? v * pow10_ld[d->exp10] : v / pow10_ld[-d->exp10];
    uint64_t mant;
    memcpy(&mant, &v, sizeof mant); /* x87: the 64-bit significand comes first */
    uint64_t drop = mant & ((1ull << (64 - bits)) - 1);
    if (drop == 1ull << (63 - bits)) return 0;
    *x = v;
    return 1;
}
#else
#define WIDE_PATH 0
#endif

#if defined(__SIZEOF_INT128__)
/* Eisel-Lemire (Lemire, "Number Parsing at a Gigabyte per Second", 2021): m * 10^q as
 * the top bits of m * 5^q, with 5^q taken from a 128-bit table, and the factor 2^q in
 * the exponent. */
#define EL_PATH 1
#include "pow5_table.h"
__extension__ typedef unsigned __int128 u128;

/* m * 10^q (m != 0, exact) correctly rounded to `bits` significand bits, as the IEEE
 * encoding without sign (bias and largest biased exponent given); 0 when the result is
 * not a normal number or when the product lies too close to a rounding boundary for the
 * 128-bit table to decide: the caller then takes a slower path.
 * Bound: with w = m normalized to 64 bits, T the table entry and F = w * T, the exact
 * w * T_exact differs from F by less than w < 2^64 (T is within one unit of T_exact,
 * below it for q >= 0, above it for q < 0; exact for 0 <= q <= 55). In units of 2^64,
 * Z = floor(F / 2^64) then puts the exact product in (Z - 1, Z + 2), and the first
 * partial product Z1 = w * T.hi puts it in (Z1 - 1, Z1 + 2^64 + 1). Rounding needs the
 * bits + 1 bits above bit u and whether anything non-zero lies below: both are certain
 * when the interval's position below bit u stays inside (0, 2^u). */
static inline __attribute__((always_inline)) int eisel_lemire(uint64_t m, int64_t q, int bits,
                                                             int bias, int max_biased,
                                                             uint64_t *out)
{
    if (q < SP_POW5_Q_MIN || q > SP_POW5_Q_MAX) return 0;
    const uint64_t *t = sp_pow5_128[q - SP_POW5_Q_MIN];
    int lz = __builtin_clzll(m);
    uint64_t w = m << lz;
    u128 z = (u128)w * t[0];
    uint64_t hi = (uint64_t)(z >> 64), lo = (uint64_t)z;
    /* u >= 64 for both formats: the kept bits all lie in hi, hi & below_u starts the rest */
    int top = (int)(hi >> 63);
    int shift = 62 + top - bits;
    uint64_t below_u = (1ull << shift) - 1;
    int sticky = 1;
    if ((hi & below_u) == below_u || ((hi & below_u) == 0 && lo == 0)) {
        u128 z2 = (u128)w * t[1];
        z += z2 >> 64; /* cannot wrap: F < 2^192 */
        hi = (uint64_t)(z >> 64);
        lo = (uint64_t)z;
        top = (int)(hi >> 63);
        shift = 62 + top - bits;
        below_u = (1ull << shift) - 1;
        if (q >= 0 && q <= 55) {
            /* exact table entry: the product is F itself, in [Z, Z + 1) */
            sticky = (hi & below_u) != 0 || lo != 0 || (uint64_t)z2 != 0;
        } else if (((hi & below_u) == 0 && lo == 0) || ((hi & below_u) == below_u && lo == ~0ull)) {
            return 0;
        }
    }
    uint64_t mant = hi >> shift; /* bits + 1 bits: the last one rounds */
    int64_t biased = 190 + top - lz + sp_pow5_exp2[q - SP_POW5_Q_MIN] + q + bias;
    if (biased < 1) return 0;
    /* nearest, ties to even; branch-free as the round bit is a coin toss */
    mant = (mant + (mant & 1 & ((uint64_t)sticky | (mant >> 1)))) >> 1;
    if (mant >> bits) {
        mant >>= 1;
        biased++;
    }
    if (biased > max_biased) return 0;
    *out = ((uint64_t)biased << (bits - 1)) | (mant & ((1ull << (bits - 1)) - 1));
    return 1;
}

/* The scanned decimal through Eisel-Lemire. A significand cut at 19 digits lies strictly
 * between m and m + 1 units: when both round to the same value, so does it. */
static int el_path(const decimal_t *d, int bits, int bias, int max_biased, uint64_t *out)
{
    if (!eisel_lemire(d->m, d->exp10, bits, bias, max_biased, out)) return 0;
    if (d->exact) return 1;
    uint64_t up;
    return eisel_lemire(d->m + 1, d->exp10, bits, bias, max_biased, &up) && up == *out;
}
#else
#define EL_PATH 0
static int eisel_lemire(uint64_t m, int64_t q, int bits, int bias, int max_biased,
                        uint64_t *out)
{
    (void)m, (void)q, (void)bits, (void)bias, (void)max_biased, (void)out;
    return 0;
}
static int el_path(const decimal_t *d, int bits, int bias, int max_biased, uint64_t *out)
{
    (void)d, (void)bits, (void)bias, (void)max_biased, (void)out;
    return 0;
}
#endif

/* The common short form: [sign] digits [. digits] [e [sign] digits] with at most 19
 * significant digits (leading zeros of a value below 1 not counted), so m is exact.
 * 0 for anything else (nan, inf, no digits, longer significands): the general scanner
 * takes those. */
typedef struct short_decimal {
    int neg;
    uint64_t m;
    int64_t exp10;
    const char *stop;
} short_decimal_t;

static inline int scan_short(const char *s, const char *end, short_decimal_t *r)
{
    int neg = 0;
    if (s < end && (*s == '+' || *s == '-')) neg = *s++ == '-';
    const char *start = s;
    while (s < end && *s == '0') s++;
    const char *lead = s;
    uint64_t m = 0; /* wraps harmlessly past 19 digits: such input is refused below */
    for (; s < end && (unsigned)(*s - '0') <= 9; s++) m = m * 10 + (unsigned)(*s - '0');
    int64_t ndig = s - lead, nfrac = 0;
    int any = s != start;
    if (s < end && *s == '.') {
        const char *frac = ++s;
        if (ndig == 0)
            while (s < end && *s == '0') s++;
        const char *sig = s;
#if SWAR_DIGITS
        uint64_t w;
        while (end - s >= 8 && eight_digits(s, &w)) {
            m = m * 100000000u + eight_digit_value(w);
            s += 8;
        }
#endif
        for (; s < end && (unsigned)(*s - '0') <= 9; s++) m = m * 10 + (unsigned)(*s - '0');
        ndig += s - sig;
        nfrac = s - frac;
        any |= s != frac;
    }
    if (!any || ndig > 19) return 0;
    int64_t e = 0;
    if (s < end && (*s | 0x20) == 'e') {
        const char *t = s + 1;
        int eneg = 0;
        if (t < end && (*t == '+' || *t == '-')) eneg = *t++ == '-';
        if (t < end && (unsigned)(*t - '0') <= 9) {
            for (; t < end && (unsigned)(*t - '0') <= 9; t++)
                if (e < EXP_CLAMP) e = e * 10 + (*t - '0');
            if (eneg) e = -e;
            s = t;
        }
    }
    r->neg = neg;
    r->m = m;
    r->exp10 = e - nfrac;
    r->stop = s;
    return 1;
}

static int parse_f64_general(const char **p, const char *end, double *out)
{
    decimal_t d;
    double v;
    uint64_t bits;
#if WIDE_PATH
    long double x;
#endif
    if (scan_decimal(*p, end, &d) != SP_NUM_OK) return SP_NUM_SYNTAX;
    if (d.special) {
        v = d.special == 1 ? HUGE_VAL : (double)NAN;
    } else if (d.m == 0) {
        v = 0.0;
    } else if (FAST_PATH && d.exact && d.m <= (1ull << 53) && d.exp10 >= -22 && d.exp10 <= 22) {
        /* Clinger's fast path: both operands exact, so one correctly rounded operation. */
        v = (double)d.m;
        v = d.exp10 >= 0 ? v * pow10_f64[d.exp10] : v / pow10_f64[-d.exp10];
    } else if (EL_PATH && el_path(&d, 53, 1023, 2046, &bits)) {
        memcpy(&v, &bits, sizeof v);
#if WIDE_PATH
    } else if (wide(&d, 53, &x)) { /* always a normal double: 1e-27 <= x < 1e47 */
        v = (double)x;
#endif
    } else {
        char buf[KEEP_DIGITS + 32];
        canonical(&d, buf);
        v = strtod(buf, NULL);
        if (isinf(v)) {
            *p = d.stop;
            return SP_NUM_RANGE;
        }
    }
    *p = d.stop;
    *out = d.neg ? -v : v;
    return SP_NUM_OK;
}

static int parse_f32_general(const char **p, const char *end, float *out)
{
    decimal_t d;
    float v;
    uint64_t bits;
#if WIDE_PATH
    long double x;
#endif
    if (scan_decimal(*p, end, &d) != SP_NUM_OK) return SP_NUM_SYNTAX;
    if (d.special) {
        v = d.special == 1 ? HUGE_VALF : NAN;
    } else if (d.m == 0) {
        v = 0.0f;
    } else if (FAST_PATH && d.exact && d.m <= (1ull << 24) && d.exp10 >= -10 && d.exp10 <= 10) {
        v = (float)d.m;
        v = d.exp10 >= 0 ? v * pow10_f32[d.exp10] : v / pow10_f32[-d.exp10];
    } else if (EL_PATH && el_path(&d, 24, 127, 254, &bits)) {
        uint32_t b32 = (uint32_t)bits;
        memcpy(&v, &b32, sizeof v);
#if WIDE_PATH
    } else if (wide(&d, 24, &x) && x >= FLT_MIN && x <= FLT_MAX) {
        v = (float)x;
#endif
    } else {
        /* strtof, not (float)strtod: rounding twice can differ from rounding once. */
        char buf[KEEP_DIGITS + 32];
        canonical(&d, buf);
        v = strtof(buf, NULL);
        if (isinf(v)) {
            *p = d.stop;
            return SP_NUM_RANGE;
        }
    }
    *p = d.stop;
    *out = d.neg ? -v : v;
    return SP_NUM_OK;
}

#if SWAR_DIGITS && EL_PATH
#if defined(__SSE2__) && defined(__x86_64__)
#define SIMD_DIGITS 1
/* Sixteen digits at s in one SSE2 register: 1 with their value in *v when all sixteen
 * are digits. As in eight_digit_value: pairs (10 * 2^8 + 1, 16-bit lanes), quads (100
 * and 1, pmaddwd), eights (10^4 on the even 32-bit lanes, plus the odd ones). */
static inline int sixteen_digits(const char *s, uint64_t *v)
{
    const __m128i nine = _mm_set1_epi8(9);
    __m128i d = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)s),
                             _mm_set1_epi8('0'));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(d, nine), nine)) != 0xFFFF) return 0;
    d = _mm_srli_epi16(_mm_mullo_epi16(d, _mm_set1_epi16(10 * 256 + 1)), 8);
    d = _mm_madd_epi16(d, _mm_set1_epi32((1 << 16) | 100));
    d = _mm_add_epi64(_mm_mul_epu32(d, _mm_set1_epi64x(10000)), _mm_srli_epi64(d, 32));
    uint64_t hi = (uint64_t)_mm_cvtsi128_si64(d);
    uint64_t lo = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d));
    *v = hi * 100000000u + lo;
    return 1;
}
#else
#define SIMD_DIGITS 0
#endif

/* Digits of the word w (its first n, 0 < n < 8) appended to m. */
static inline uint64_t append_digits(uint64_t m, uint64_t w, int n)
{
    static const uint64_t p10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    w = (w << (64 - 8 * n)) | (0x3030303030303030ull >> (8 * n)); /* digits to the top */
    return m * p10[n] + eight_digit_value(w);
}

/* Up to twenty fraction digits at s appended to m (*n counts them): sixteen at once, then
 * one at a time. Reads only [s, s + 20); past 19 digits in all m may wrap, and the caller
 * refuses such input. The common shapes advance by constants behind predictable branches
 * (sixteen digits, full words), so that the next field's loads need not wait for this
 * number's digits to be counted: measured 4% faster on one thread than advancing by the
 * counts, and the sixteen-digit block another 8%. */
static inline __attribute__((always_inline)) const char *fraction_digits(const char *s,
                                                                        uint64_t *mp, int *np)
{
    uint64_t w, v, bad, m = *mp;
    int n, nf = 0;
#if SIMD_DIGITS
    if (sixteen_digits(s, &v)) {
        m = m * 10000000000000000u + v;
        nf = 16;
        s += 16;
        goto tail;
    }
#endif
    for (int words = 0; words < 2; words++) {
        memcpy(&w, s, sizeof w);
        bad = sp__nondigit_bytes(w);
        if (__builtin_expect(bad != 0, 0)) {
            n = __builtin_ctzll(bad) >> 3;
            if (n) m = append_digits(m, w, n);
            *mp = m;
            *np = nf + n;
            return s + n;
        }
        m = m * 100000000u + eight_digit_value(w);
        nf += 8;
        s += 8;
    }
#if SIMD_DIGITS
tail:
#endif
    (void)v;
    for (n = 0; n < 4 && (unsigned)(*s - '0') <= 9; n++, s++) m = m * 10 + (unsigned)(*s - '0');
    *mp = m;
    *np = nf + n;
    return s;
}

/* An integer part of eight or more digits (the first eight at s): its value in *m and its
 * digit count, 0 past 19 digits. Reads only [s, s + 20). Rare in matrix files (values
 * of 10^7 and more written without exponent), so it stays out of the hot path. */
static int long_integer_part(const char *s, uint64_t *m)
{
    uint64_t w;
    int n;
    memcpy(&w, s, sizeof w);
    uint64_t v = eight_digit_value(w);
    memcpy(&w, s + 8, sizeof w);
    uint64_t bad = sp__nondigit_bytes(w);
    if (bad) {
        n = __builtin_ctzll(bad) >> 3;
        *m = n ? append_digits(v, w, n) : v;
        return 8 + n;
    }
    v = v * 100000000u + eight_digit_value(w);
    for (n = 16; n < 20 && (unsigned)(s[n] - '0') <= 9; n++) v = v * 10 + (unsigned)(s[n] - '0');
    *m = v;
    return n <= 19 ? n : 0;
}

/* Bytes read, by the contract's bound SP_NUM_F64_FAST_READ = 52: a sign (1), an integer
 * part of at most 19 digits (its reads end by s + 20 past the sign), the point, twenty
 * fraction bytes, 'e' and the exponent's sign, one word: 1 + 19 + 1 + 20 + 2 + 8 = 51
 * bytes before the last one read; after a "0." or "." part, skipped zeros (at most 7)
 * and twenty bytes again: 1 + 1 + 1 + 7 + 20 + 2 + 8 = 40. */
const char *sp__parse_f64_fast(const char *s, double *out)
{
    uint64_t w, v, bad, m;
    int n, ni, nf = 0, nz = 0, neg = 0;
    if (__builtin_expect(*s == '-' || *s == '+', 0)) neg = *s++ == '-';
    if ((unsigned)(*s - '0') <= 9 && s[1] == '.') { /* the commonest integer part */
        m = (unsigned)(*s - '0');
        ni = 1;
    } else {
        memcpy(&w, s, sizeof w);
        bad = sp__nondigit_bytes(w);
        if (__builtin_expect(bad != 0, 1)) {
            ni = __builtin_ctzll(bad) >> 3;
            m = ni ? append_digits(0, w, ni) : 0;
        } else if (!(ni = long_integer_part(s, &m))) {
            return NULL;
        }
    }
    s += ni;
    if (*s == '.') {
        const char *frac = ++s;
        uint64_t mi = m;
        s = fraction_digits(frac, &m, &nf);
        if (__builtin_expect(ni + nf > 19, 0)) {
            /* %.17g of a value in [1e-4, 1e-2): "0.00" then 17 digits. Skip the zeros
             * (at most a word of them) and read the significant digits again. */
            if (mi != 0 || ni > 1) return NULL;
            memcpy(&w, frac, sizeof w);
            bad = sp__bytes_equal(w, '0') ^ 0x8080808080808080ull;
            if (!bad) return NULL;
            nz = __builtin_ctzll(bad) >> 3;
            m = 0;
            ni = 0;
            s = fraction_digits(frac + nz, &m, &nf);
        }
    }
    if (ni + nf == 0 || ni + nf > 19) return NULL;
    int64_t q = -(int64_t)(nf + nz);
    if ((*s | 0x20) == 'e') {
        const char *t = s + 1;
        int eneg = *t == '-';
        t += eneg | (*t == '+');
        memcpy(&w, t, sizeof w);
        bad = sp__nondigit_bytes(w);
        if (!bad) return NULL;
        n = __builtin_ctzll(bad) >> 3;
        if (n) {
            v = append_digits(0, w, n);
            q += eneg ? -(int64_t)v : (int64_t)v;
            s = t + n;
        }
    }
    double x;
    if (m == 0) {
        x = 0.0;
    } else if (FAST_PATH && m <= (1ull << 53) && q >= -22 && q <= 22) {
        x = (double)m;
        x = q >= 0 ? x * pow10_f64[q] : x / pow10_f64[-q];
    } else {
        uint64_t bits;
        if (!eisel_lemire(m, q, 53, 1023, 2046, &bits)) return NULL;
        memcpy(&x, &bits, sizeof x);
    }
    *out = neg ? -x : x;
    return s;
}
#else
const char *sp__parse_f64_fast(const char *s, double *out)
{
    (void)s, (void)out;
    return NULL;
}
#endif

/* The short form through Clinger's fast path or Eisel-Lemire; everything else, and the
 * few products too close to a rounding boundary, through the general parser. */
int sp__parse_f64(const char **p, const char *end, double *out)
{
    short_decimal_t r;
    double v;
    uint64_t bits;
    if (end - *p >= SP_NUM_F64_FAST_READ) { /* the word-at-a-time reads stay inside */
        const char *q = sp__parse_f64_fast(*p, out);
        if (q) {
            *p = q;
            return SP_NUM_OK;
        }
    }
    if (!scan_short(*p, end, &r)) return parse_f64_general(p, end, out);
    if (r.m == 0) {
        v = 0.0;
    } else if (FAST_PATH && r.m <= (1ull << 53) && r.exp10 >= -22 && r.exp10 <= 22) {
        v = (double)r.m;
        v = r.exp10 >= 0 ? v * pow10_f64[r.exp10] : v / pow10_f64[-r.exp10];
    } else if (EL_PATH && eisel_lemire(r.m, r.exp10, 53, 1023, 2046, &bits)) {
        memcpy(&v, &bits, sizeof v);
    } else {
        return parse_f64_general(p, end, out);
    }
    *p = r.stop;
    *out = r.neg ? -v : v;
    return SP_NUM_OK;
}

int sp__parse_f32(const char **p, const char *end, float *out)
{
    short_decimal_t r;
    float v;
    uint64_t bits;
    if (!scan_short(*p, end, &r)) return parse_f32_general(p, end, out);
    if (r.m == 0) {
        v = 0.0f;
    } else if (FAST_PATH && r.m <= (1ull << 24) && r.exp10 >= -10 && r.exp10 <= 10) {
        v = (float)r.m;
        v = r.exp10 >= 0 ? v * pow10_f32[r.exp10] : v / pow10_f32[-r.exp10];
    } else if (EL_PATH && eisel_lemire(r.m, r.exp10, 24, 127, 254, &bits)) {
        uint32_t b32 = (uint32_t)bits;
        memcpy(&v, &b32, sizeof v);
    } else {
        return parse_f32_general(p, end, out);
    }
    *p = r.stop;
    *out = r.neg ? -v : v;
    return SP_NUM_OK;
}
