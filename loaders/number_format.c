/* Numbers to text for the writers. Integers two digits at a time from a table.
 * Floating point: the shortest decimal inside v's rounding interval (the reals that read
 * back to v), as in Steele & White and Ryu, searched on v scaled to MAXD digits (17 for
 * double, 9 for float) in long double: with a 64-bit significand the scaled value and the
 * interval's half-widths carry an error below 2^-62 of the scaled value, far below the
 * half-widths, so a candidate is inside or outside unless it lies within a tolerance of an
 * end (a tie or a near-tie); those few are read back through the library's exact parser.
 * For a normal v whose shortest form has at most SAFE digits (DBL_DIG, FLT_DIG), that form
 * is v rounded to SAFE digits with its trailing zeros removed (every decimal of SAFE digits
 * reads back to the value it rounds from), so one test decides it; longer forms are the
 * nearest candidate of SAFE+1 ... MAXD digits that lies inside. Subnormals, whose
 * interval may hold a much shorter decimal far from v, try 1, 2, ... MAXD digits. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sp_number_format.h"
#include "sp_text.h"

static const char k_pairs[] = "0001020304050607080910111213141516171819"
                              "2021222324252627282930313233343536373839"
                              "4041424344454647484950515253545556575859"
                              "6061626364656667686970717273747576777879"
                              "8081828384858687888990919293949596979899";

static const uint64_t k_pow10_u64[20] = {1ull,
                                         10ull,
                                         100ull,
                                         1000ull,
                                         10000ull,
                                         100000ull,
                                         1000000ull,
                                         10000000ull,
                                         100000000ull,
                                         1000000000ull,
                                         10000000000ull,
                                         100000000000ull,
                                         1000000000000ull,
                                         10000000000000ull,
                                         100000000000000ull,
                                         1000000000000000ull,
                                         10000000000000000ull,
                                         100000000000000000ull,
                                         1000000000000000000ull,
                                         10000000000000000000ull};

static int count_digits(uint64_t v)
{
    int n = 1;
    while (n < 20 && v >= k_pow10_u64[n]) n++;
    return n;
}

/* The n digits of v (n = count_digits(v)) at p, backwards from p + n. */
static void put_digits(char *p, uint64_t v, int n)
{
    char *q = p + n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, k_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        memcpy(q - 2, k_pairs + 2 * v, 2);
    } else {
        q[-1] = (char)('0' + v);
    }
}

char *sp__format_u64(char *p, uint64_t v)
{
    int n = count_digits(v);
    put_digits(p, v, n);
    return p + n;
}

char *sp__format_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return sp__format_u64(p, 0 - (uint64_t)v);
    }
    return sp__format_u64(p, (uint64_t)v);
}

/* c * 10^exp (c > 0) in the fewest characters of %g's two layouts: plain for decimal
 * exponents -4 .. maxd-1, else d.ddde+XX. */
static char *emit(char *p, uint64_t c, int exp, int maxd)
{
    while (c % 10 == 0) {
        c /= 10;
        exp++;
    }
    char d[20];
    int nd = count_digits(c), e10 = exp + nd - 1;
    put_digits(d, c, nd);
    if (e10 < -4 || e10 >= maxd) {
        *p++ = d[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)nd - 1);
            p += nd - 1;
        }
        *p++ = 'e';
        *p++ = e10 < 0 ? '-' : '+';
        unsigned ae = (unsigned)(e10 < 0 ? -e10 : e10);
        if (ae < 10) *p++ = '0';
        return sp__format_u64(p, ae);
    }
    if (e10 >= nd - 1) { /* an integer: the digits, then zeros */
        memcpy(p, d, (size_t)nd);
        memset(p + nd, '0', (size_t)(e10 - nd + 1));
        return p + e10 + 1;
    }
    if (e10 >= 0) {
        memcpy(p, d, (size_t)e10 + 1);
        p[e10 + 1] = '.';
        memcpy(p + e10 + 2, d + e10 + 1, (size_t)(nd - e10 - 1));
        return p + nd + 1;
    }
    *p++ = '0';
    *p++ = '.';
    memset(p, '0', (size_t)(-e10 - 1));
    p += -e10 - 1;
    memcpy(p, d, (size_t)nd);
    return p + nd;
}

/* Long double powers of ten, each correctly rounded (exact up to 10^27), built once. */
enum { POW10_MIN = -360, POW10_MAX = 360 };
static long double g_pow10[POW10_MAX - POW10_MIN + 1];
static pthread_once_t g_pow10_once = PTHREAD_ONCE_INIT;

static void pow10_init(void)
{
    char s[16] = "1e";
    for (int k = POW10_MIN; k <= POW10_MAX; k++) {
        *sp__format_i64(s + 2, k) = '\0';
        g_pow10[k - POW10_MIN] = strtold(s, NULL);
    }
}

static long double pow10_ld(int k) { return g_pow10[k - POW10_MIN]; }

/* x / 10^j, rounded down, by a constant divisor (a multiply) for each j. */
static uint64_t div_pow10(uint64_t x, int j)
{
    switch (j) {
    case 0: return x;
    case 1: return x / 10u;
    case 2: return x / 100u;
    case 3: return x / 1000u;
    case 4: return x / 10000u;
    case 5: return x / 100000u;
    case 6: return x / 1000000u;
    case 7: return x / 10000000u;
    case 8: return x / 100000000u;
    case 9: return x / 1000000000u;
    case 10: return x / 10000000000u;
    case 11: return x / 100000000000u;
    case 12: return x / 1000000000000u;
    case 13: return x / 10000000000000u;
    case 14: return x / 100000000000000u;
    case 15: return x / 1000000000000000u;
    default: return x / 10000000000000000u;
    }
}

/* A positive finite value scaled to [10^(maxd-1), 10^maxd): v = m * 10^(e10-maxd+1). */
typedef struct scaled {
    double v;           /* the value (a float's, exactly, for is_f32) */
    int is_f32, maxd;
    int e10;            /* decimal exponent of v's leading digit */
    long double m;      /* v scaled */
    uint64_t m_floor;   /* floor(m) */
    int m_half_up;      /* m - floor(m) >= 1/2 */
    long double lo, hi; /* half the gaps to the neighbours below and above, scaled */
    long double tol;    /* how far from an interval end the long double test is sure */
} scaled_t;

/* be: v in [2^(be-1), 2^be); gap_lo, gap_hi: the distances to v's neighbours. */
static void scale(scaled_t *s, double v, int be, double gap_lo, double gap_hi, int is_f32)
{
    s->v = v;
    s->is_f32 = is_f32;
    s->maxd = is_f32 ? 9 : 17;
    /* floor((be - 1) log10 2): floor(log10 v) is e10 or e10 + 1 */
    s->e10 = (int)(((int64_t)(be - 1) * 78913) >> 18);
    long double p = pow10_ld(s->maxd - 1 - s->e10);
    s->m = (long double)v * p;
    if (s->m >= pow10_ld(s->maxd)) {
        s->e10++;
        p = pow10_ld(s->maxd - 1 - s->e10);
        s->m = (long double)v * p;
    }
    s->m_floor = (uint64_t)(int64_t)s->m;
    s->m_half_up = s->m - (long double)(int64_t)s->m_floor >= 0.5L;
    s->lo = (long double)gap_lo * p * 0.5L;
    s->hi = (long double)gap_hi * p * 0.5L;
    s->tol = s->m * 0x1p-60L;
}

/* Whether c * 10^(e10-n+1), a candidate of n digits, reads back to v, by the parser. */
static int reads_back(const scaled_t *s, uint64_t c, int n)
{
    char buf[48];
    char *end = emit(buf, c, s->e10 - n + 1, s->maxd);
    const char *q = buf;
    if (s->is_f32) {
        float f;
        return sp__parse_f32(&q, end, &f) == SP_NUM_OK && q == end && (double)f == s->v;
    }
    double d;
    return sp__parse_f64(&q, end, &d) == SP_NUM_OK && q == end && d == s->v;
}

/* Whether candidate c of n digits (scaled: c * u) reads back to v. */
static int inside(const scaled_t *s, uint64_t c, int n, long double u)
{
#if LDBL_MANT_DIG >= 64
    long double d = (long double)(int64_t)c * u - s->m;
    if (d > -s->lo + s->tol && d < s->hi - s->tol) return 1;
    if (d < -s->lo - s->tol || d > s->hi + s->tol) return 0;
#else
    (void)u;
#endif
    return reads_back(s, c, n);
}

/* The n-digit candidate nearest v if it is inside, else its other neighbour if that is. */
static int nearest_inside(const scaled_t *s, int n, uint64_t *c)
{
    int j = s->maxd - n;
    long double u = pow10_ld(j);
    uint64_t near = j ? div_pow10(s->m_floor + k_pow10_u64[j] / 2, j)
                      : s->m_floor + (uint64_t)s->m_half_up;
    if (inside(s, near, n, u)) {
        *c = near;
        return 1;
    }
    /* The other neighbour lies at least u/2 from v: only a wide interval can hold it. */
    if (u * 0.5L > (s->lo > s->hi ? s->lo : s->hi) + s->tol) return 0;
    uint64_t other = (long double)(int64_t)near * u <= s->m ? near + 1 : near - 1;
    if (other > 0 && inside(s, other, n, u)) {
        *c = other;
        return 1;
    }
    return 0;
}

static char *format_positive(char *p, double v, int be, double gap_lo, double gap_hi,
                             int is_f32, int normal)
{
    scaled_t s;
    uint64_t c;
    pthread_once(&g_pow10_once, pow10_init);
    scale(&s, v, be, gap_lo, gap_hi, is_f32);
    int first = normal ? (is_f32 ? FLT_DIG : DBL_DIG) : 1;
    for (int n = first; n < s.maxd; n++)
        if (nearest_inside(&s, n, &c)) return emit(p, c, s.e10 - n + 1, s.maxd);
    /* MAXD digits always suffice; the nearest is inside unless the scaling erred. */
    if (!nearest_inside(&s, s.maxd, &c)) c = s.m_floor + (uint64_t)s.m_half_up;
    return emit(p, c, s.e10 - s.maxd + 1, s.maxd);
}

static char *format_special(char *p, double v)
{
    const char *t = isnan(v) ? "nan" : signbit(v) ? (isinf(v) ? "-inf" : "-0")
                                                  : (isinf(v) ? "inf" : "0");
    size_t n = strlen(t);
    memcpy(p, t, n);
    return p + n;
}

/* v = 2^(E - bias - mbits) * (2^mbits + M) for a biased exponent E >= 1, else
 * 2^(1 - bias - mbits) * M: the gap above is one unit of the last place, the gap below
 * half of it when M = 0 (except at the smallest normal), and be the exponent of frexp. */
static void gaps(int E, uint64_t M, int bias, int mbits, double *lo, double *hi, int *be)
{
    int e = (E ? E : 1) - bias - mbits;
    *hi = ldexp(1.0, e);
    *lo = M == 0 && E > 1 ? *hi * 0.5 : *hi;
    if (E) {
        *be = E - bias + 1;
    } else {
        int top = 63 - __builtin_clzll(M);
        *be = e + top + 1;
    }
}

char *sp__format_f64(char *p, double v)
{
    if (v == 0 || !isfinite(v)) return format_special(p, v);
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    if (b >> 63) *p++ = '-';
    int E = (int)(b >> 52 & 0x7ff), be;
    double lo, hi;
    gaps(E, b & ((1ull << 52) - 1), 1023, 52, &lo, &hi, &be);
    return format_positive(p, fabs(v), be, lo, hi, 0, E > 1);
}

char *sp__format_f32(char *p, float v)
{
    if (v == 0 || !isfinite(v)) return format_special(p, v);
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    if (b >> 31) *p++ = '-';
    int E = (int)(b >> 23 & 0xff), be;
    double lo, hi;
    gaps(E, b & ((1u << 23) - 1), 127, 23, &lo, &hi, &be);
    return format_positive(p, fabsf(v), be, lo, hi, 1, E > 1);
}
