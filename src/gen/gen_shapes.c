/* Matrices of the shapes real matrices have, for a benchmark set nobody tuned on (issue
 * 23): power-law rows, dense rows and columns, rectangles, bands of spread widths, FEM-like
 * dense blocks, circuit-like long rows. Two passes over counter-based random streams: the
 * row lengths (so the COO is allocated once), then the entries of each row, so the result
 * depends only on the arguments. */
#include <math.h>

#include "gen_random.h"
#include "sp_base.h"

enum { RNG_LENGTH = 11, RNG_ENTRY = 12 };

/* BANDED: eight sections of rows with half-bandwidths band, band/2, ..., at least 1; the
 * first column of row r's band. */
static int64_t band_half(const sp_gen_shape_t *g, int64_t r)
{
    int64_t h = g->band >> (r * 8 / (g->nrows > 0 ? g->nrows : 1));
    return h < 1 ? 1 : h;
}
static int64_t band_first(const sp_gen_shape_t *g, int64_t r)
{
    return r - band_half(g, r) < 0 ? 0 : r - band_half(g, r);
}

/* A power-law row length: ceil(xmin * u^(-1/a)) capped at n, for u in (0, 1]. */
static double pareto_length(double xmin, double a, double u, int64_t n)
{
    double l = ceil(xmin * pow(u, -1.0 / a));
    return l > (double)n ? (double)n : l;
}

/* The mean capped power-law length for scale xmin: the integral over u in (0, 1] taken in
 * t = -ln u (u = e^-t, du = e^-t dt) by the midpoint rule over t in [0, 45], which reaches
 * the rare huge rows (u near 2^-53) that carry most entries when the exponent is <= 2. */
static double pareto_mean(double xmin, double a, int64_t n)
{
    const int steps = 8192;
    const double dt = 45.0 / steps;
    double sum = 0.0;
    for (int i = 0; i < steps; i++) {
        double u = exp(-(i + 0.5) * dt);
        sum += pareto_length(xmin, a, u, n) * u * dt;
    }
    return sum;
}

/* The scale xmin whose capped power-law lengths have the mean g->mean (bisection; the cap
 * keeps the mean finite for exponents <= 2). */
static double pareto_scale(const sp_gen_shape_t *g)
{
    double a = g->exponent - 1.0, lo = 1e-9, hi = g->mean > 1.0 ? g->mean : 1.0;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (pareto_mean(mid, a, g->ncols) > g->mean) hi = mid;
        else lo = mid;
    }
    return 0.5 * (lo + hi);
}

/* Entries of row r (the first pass; the second must give the same count). xmin: the
 * power law's scale (pareto_scale). */
static int64_t row_length(const sp_gen_shape_t *g, uint64_t key, int64_t r, double xmin)
{
    sp__rng_t rng = sp__rng_at(key, (uint64_t)r);
    int64_t n = g->ncols, len = 0;
    switch (g->kind) {
    case SP_GEN_POWERLAW: {
        double u = ((double)(sp__rng_next(&rng) >> 11) + 1.0) * 0x1.0p-53;
        len = (int64_t)pareto_length(xmin, g->exponent - 1.0, u, n);
        break;
    }
    case SP_GEN_DENSE_LINES: len = r < g->dense ? n : (int64_t)g->mean + g->dense; break;
    case SP_GEN_RECT: len = (int64_t)g->mean; break;
    case SP_GEN_BANDED: {
        int64_t lo = band_first(g, r), hi = r + band_half(g, r) >= n ? n - 1 : r + band_half(g, r);
        len = hi >= lo ? hi - lo + 1 : 0;
        break;
    }
    case SP_GEN_BLOCKS: len = g->block * (int64_t)g->mean; break;
    case SP_GEN_CIRCUIT: {
        int64_t step = g->dense > 0 ? g->nrows / g->dense : 0;
        int is_long = step > 0 && r % step == 0 && r / step < g->dense;
        len = (r < n ? 1 : 0) + 2 + (is_long ? n / 8 : 0);
        break;
    }
    }
    return len < n ? len : n;
}

/* Column k of row r's len entries. */
static int32_t entry_col(const sp_gen_shape_t *g, sp__rng_t *rng, int64_t r, int64_t k,
                         int64_t len)
{
    int64_t n = g->ncols;
    switch (g->kind) {
    case SP_GEN_DENSE_LINES:
        if (r < g->dense) return (int32_t)k;          /* a dense row */
        if (k < g->dense) return (int32_t)(n - 1 - k); /* the dense columns, at the end */
        return (int32_t)sp__rng_below(rng, (uint64_t)n);
    case SP_GEN_BANDED: (void)len; return (int32_t)(band_first(g, r) + k);
    case SP_GEN_BLOCKS: {
        /* block row r / b touches `mean` block columns near it: itself, then neighbours
         * within a window of 64 blocks (a mesh's neighbourhood) */
        int64_t b = g->block, nb = (n + b - 1) / b, br = r / b, j = k / b;
        sp__rng_t q = sp__rng_at(sp__rng_key(g->seed, RNG_ENTRY), (uint64_t)(br * 4096 + j));
        int64_t bc = j == 0 ? br : br + (int64_t)sp__rng_below(&q, 129) - 64;
        bc = bc < 0 ? -bc : bc >= nb ? 2 * nb - 2 - bc : bc;
        bc = bc < 0 ? 0 : bc;
        int64_t c = bc * b + k % b;
        return (int32_t)(c < n ? c : n - 1);
    }
    case SP_GEN_CIRCUIT:
        if (k == 0 && r < n) return (int32_t)r; /* the diagonal */
        return (int32_t)sp__rng_below(rng, (uint64_t)n);
    default: return (int32_t)sp__rng_below(rng, (uint64_t)n);
    }
}

static sp_status_t check_shape(const sp_gen_shape_t *g)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(g->kind >= SP_GEN_POWERLAW && g->kind <= SP_GEN_CIRCUIT,
                 "sp_gen_shape: unknown kind %d", (int)g->kind);
    SP_CHECK_ARG(g->nrows >= 0 && g->ncols >= 1 && g->nrows <= INT32_MAX && g->ncols <= INT32_MAX,
                 "sp_gen_shape: %lld x %lld outside 0..2^31-1 x 1..2^31-1",
                 (long long)g->nrows, (long long)g->ncols);
    SP_CHECK_ARG(g->mean >= 0.0 && g->mean <= (double)g->ncols,
                 "sp_gen_shape: mean %g outside 0..ncols %lld", g->mean, (long long)g->ncols);
    SP_CHECK_ARG(g->kind != SP_GEN_POWERLAW || (g->exponent > 1.0 && g->exponent <= 10.0),
                 "sp_gen_shape: power-law exponent %g outside (1, 10]", g->exponent);
    SP_CHECK_ARG(g->kind != SP_GEN_BLOCKS || (g->block >= 1 && g->block <= 64),
                 "sp_gen_shape: block %lld outside 1..64", (long long)g->block);
    SP_CHECK_ARG(g->kind != SP_GEN_BANDED || g->band >= 1, "sp_gen_shape: band %lld below 1",
                 (long long)g->band);
    SP_CHECK_ARG(g->dense >= 0 && g->dense <= g->nrows && g->dense <= g->ncols,
                 "sp_gen_shape: %lld dense lines for %lld x %lld", (long long)g->dense,
                 (long long)g->nrows, (long long)g->ncols);
done:
    return st;
}

sp_status_t sp_gen_shape(const sp_gen_shape_t *g, sp_value_type_t value_type, sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *a = NULL;
    int64_t nnz = 0, e = 0;
    uint64_t klen = 0, kent = 0;
    double xmin = 1.0;
    SP_CHECK_ARG(g != NULL && coo != NULL, "sp_gen_shape: NULL argument");
    SP_TRY(check_shape(g));
    SP_CHECK_ARG(value_type == SP_VALUE_NONE || value_type == SP_R_32F || value_type == SP_R_64F,
                 "sp_gen_shape: unknown value type %d", (int)value_type);
    klen = sp__rng_key(g->seed, RNG_LENGTH);
    kent = sp__rng_key(g->seed, RNG_ENTRY);
    if (g->kind == SP_GEN_POWERLAW) xmin = pareto_scale(g);
    for (int64_t r = 0; r < g->nrows; r++) nnz += row_length(g, klen, r, xmin);
    /* entries past 2^31 as memory allows (issue 20): sp_coo_create names the bytes */
    SP_TRY(sp_coo_create(g->nrows, g->ncols, nnz, value_type, &a));
    for (int64_t r = 0; r < g->nrows; r++) {
        int64_t len = row_length(g, klen, r, xmin);
        sp__rng_t rng = sp__rng_at(kent, (uint64_t)r);
        for (int64_t k = 0; k < len; k++, e++) {
            a->row[e] = (int32_t)r;
            a->col[e] = entry_col(g, &rng, r, k, len);
            sp__rng_store_unit(sp__rng_next(&rng), value_type, a->val, e);
        }
    }
    a->nnz = nnz;
    a->symmetry = SP_SYMMETRY_GENERAL;
    a->flags = 0;
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    return st;
}
