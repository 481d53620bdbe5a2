/* Matrix handles: a sorted, merged COO on a context plus a cache of built formats, so a
 * conversion is paid once and amortized over many SpMV calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "sp_text.h" /* sp__parallel_for */

static int64_t value_bytes(const sp_matrix_t *A) { return (int64_t)sp_value_size(A->f.coo.value_type); }

/* What offset_bits 0 resolves to below 2^31 entries (host and CUDA contexts): 32, or 64
 * under the test hook sp__test_set_default_offset_bits (SP_TEST_OFFSET_BITS=64 in the Check
 * suites). */
static int g_default_offset_bits = 32;

void sp__test_set_default_offset_bits(int bits)
{
    g_default_offset_bits = bits == 64 ? 64 : 32;
}

/* The offset width options ask for (0: chosen from nnz). The test hook's default applies
 * to host and CUDA contexts: below the narrow limit both serve everything at 64 bits
 * through the narrowed pointers (sp__matrix_csr32) or reading 64-bit pointers (BFS, CSR
 * scalar and vector; issue 20). */
static sp_status_t resolve_offset_bits(const sp_context_t *ctx, const sp_coo_t *coo,
                                       const sp_matrix_options_t *options, int *bits)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int want = options ? options->offset_bits : 0;
    SP_CHECK_ARG(want == 0 || want == 32 || want == 64,
                 "sp_matrix_create: options->offset_bits %d is not 0 (chosen from nnz), 32 or 64",
                 want);
    if (want == 32 && coo->nnz > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_matrix_create: options->offset_bits 32 cannot count %lld entries (limit %d): "
                "use 64 or 0", (long long)coo->nnz, INT32_MAX);
    (void)ctx;
    *bits = want ? want : coo->nnz > INT32_MAX ? 64 : g_default_offset_bits;
done:
    return st;
}

/* The COO's sizes and arrays; its entries too where host_entries is set (a CUDA context
 * checks them where it reads them anyway: on the device in its sort's first pass, or on
 * the host as it puts a long COO in order, src/matrix_cuda.c; the host's scan would be a
 * second pass over the caller's arrays). */
static sp_status_t check_coo(const sp_coo_t *coo, int host_entries)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(coo->nrows >= 0 && coo->ncols >= 0 && coo->nnz >= 0,
                 "sp_matrix_create: negative size %lld x %lld, nnz %lld",
                 (long long)coo->nrows, (long long)coo->ncols, (long long)coo->nnz);
    if (coo->nrows > INT32_MAX || coo->ncols > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_matrix_create: %lld x %lld with %lld entries exceeds 32-bit indices "
                "(limit %d rows and columns)", (long long)coo->nrows, (long long)coo->ncols,
                (long long)coo->nnz, INT32_MAX);
    SP_CHECK_ARG(coo->value_type == SP_VALUE_NONE || coo->val != NULL,
                 "sp_matrix_create: COO has value type %d but no values", (int)coo->value_type);
    SP_CHECK_ARG(coo->nnz == 0 || (coo->row && coo->col), "sp_matrix_create: COO arrays are NULL");
    for (int64_t k = 0; host_entries && k < coo->nnz; k++) {
        if (coo->row[k] < 0 || coo->row[k] >= coo->nrows || coo->col[k] < 0 ||
            coo->col[k] >= coo->ncols)
            SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
                    "sp_matrix_create: entry %lld at (%d, %d) outside the %lld x %lld matrix",
                    (long long)k, coo->row[k], coo->col[k], (long long)coo->nrows,
                    (long long)coo->ncols);
    }
done:
    return st;
}

/* Row statistics in 64 fixed row ranges (one below 2^16 rows), merged in range order: the
 * same figures whatever the thread count, and a few milliseconds on every core where one
 * core took tens of them over the 4 million rows of Poisson 160^3 or Kronecker 22 (most of
 * sp_matrix_create on a GPU once the upload is fast). */
enum { ROW_STATS_TASKS = 64 };

typedef struct row_stats {
    int64_t min, max, empty, max_kept, ell_max_kept;
    double var; /* sum of (length - mean)^2 */
    int64_t hist[SP_ROW_HIST_BINS], hist_nnz[SP_ROW_HIST_BINS];
} row_stats_t;

typedef struct row_stats_job {
    const int32_t *counts;
    int64_t n, bound, ell_bound;
    int ntasks;
    double mean;
    row_stats_t *part; /* ntasks */
} row_stats_job_t;

static sp_status_t row_stats_task(int i, void *arg)
{
    row_stats_job_t *j = arg;
    row_stats_t *p = &j->part[i];
    int64_t lo = j->n * i / j->ntasks, hi = j->n * (i + 1) / j->ntasks;
    memset(p, 0, sizeof *p);
    p->min = INT64_MAX;
    for (int64_t r = lo; r < hi; r++) {
        int64_t c = j->counts[r];
        int b = sp__row_hist_bin(c);
        if (c < p->min) p->min = c;
        if (c > p->max) p->max = c;
        p->empty += c == 0;
        p->var += ((double)c - j->mean) * ((double)c - j->mean);
        if (c <= j->bound && c > p->max_kept) p->max_kept = c;
        if (c <= j->ell_bound && c > p->ell_max_kept) p->ell_max_kept = c;
        p->hist[b]++;
        p->hist_nnz[b] += c;
    }
    return SP_STATUS_SUCCESS;
}

/* The long-row bound of format f for a longest row of row_max (0: before it is known). */
static int64_t long_row_bound(const sp_matrix_t *A, sp_format_t f, int64_t row_max)
{
    int sms = A->ctx && A->ctx->kind == SP_DEVICE_CUDA ? A->ctx->info.sm_count : 0;
    if (A->options.long_row_bound < 0) return INT64_MAX;
    if (A->options.long_row_bound > 0) return A->options.long_row_bound;
    return sp__policy_long_row_bound(sp__policy_for(A->ctx), f, A->f.coo.nrows, A->f.coo.nnz,
                                     row_max, sms);
}

static void row_statistics(sp_matrix_t *A, const int32_t *counts)
{
    row_stats_t one; /* the single range: small matrices, or no room for the ranges */
    row_stats_job_t job, *j = &job;
    int64_t n = A->f.coo.nrows;
    double var = 0.0;
    memset(&job, 0, sizeof job);
    j->counts = counts;
    j->n = n;
    j->mean = n ? (double)A->f.coo.nnz / (double)n : 0.0;
    j->bound = long_row_bound(A, SP_FORMAT_SELL, 0); /* the longest row not known yet */
    j->ell_bound = long_row_bound(A, SP_FORMAT_ELL, 0);
    j->ntasks = n < ((int64_t)1 << 16) ? 1 : ROW_STATS_TASKS;
    j->part = j->ntasks > 1 ? sp__calloc_array(ROW_STATS_TASKS, sizeof *j->part) : NULL;
    if (!j->part) j->part = &one, j->ntasks = 1;
    if (j->ntasks == 1 || sp__parallel_for(0, j->ntasks, row_stats_task, j) != SP_STATUS_SUCCESS) {
        if (j->ntasks > 1) sp_clear_error(); /* threads could not start: in order here */
        for (int i = 0; i < j->ntasks; i++) row_stats_task(i, j);
    }
    A->row_min = n ? INT64_MAX : 0;
    A->row_max = A->empty_rows = A->row_max_kept = A->ell_row_max_kept = 0;
    memset(A->row_hist, 0, sizeof A->row_hist);
    memset(A->row_hist_nnz, 0, sizeof A->row_hist_nnz);
    for (int i = 0; i < j->ntasks; i++) {
        const row_stats_t *p = &j->part[i];
        if (p->min < A->row_min) A->row_min = p->min;
        if (p->max > A->row_max) A->row_max = p->max;
        if (p->max_kept > A->row_max_kept) A->row_max_kept = p->max_kept;
        if (p->ell_max_kept > A->ell_row_max_kept) A->ell_row_max_kept = p->ell_max_kept;
        A->empty_rows += p->empty;
        var += p->var;
        for (int b = 0; b < SP_ROW_HIST_BINS; b++) {
            A->row_hist[b] += p->hist[b];
            A->row_hist_nnz[b] += p->hist_nnz[b];
        }
    }
    /* with the longest row known, JDS and SELL may keep ELL's rows instead (a matrix of
       one wave: sp__policy_long_row_bound), whose longest was counted beside */
    if (sp__matrix_long_row_bound(A, SP_FORMAT_SELL) == j->ell_bound && j->ell_bound != j->bound)
        A->row_max_kept = A->ell_row_max_kept;
    A->row_mean = j->mean;
    A->row_stddev = n ? sqrt(var / (double)n) : 0.0;
    if (j->part != &one) sp__free(j->part);
}

sp_status_t sp_matrix_create(sp_context_t *ctx, const sp_coo_t *coo,
                             const sp_matrix_options_t *options, sp_matrix_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_matrix_t *A = NULL;
    sp_coo_t *sorted = NULL;
    int32_t *counts = NULL;
    int offset_bits = 32;
    SP_CHECK_ARG(ctx != NULL && coo != NULL && out != NULL, "sp_matrix_create: NULL argument");
    SP_TRY(resolve_offset_bits(ctx, coo, options, &offset_bits));
    SP_TRY(check_coo(coo, ctx->kind != SP_DEVICE_CUDA));
    if (options)
        SP_CHECK_ARG(options->duplicates == SP_DUP_SUM || options->duplicates == SP_DUP_KEEP,
                     "sp_matrix_create: unknown duplicate policy %d", (int)options->duplicates);
    SP_CALLOC(A, 1);
    A->ctx = ctx;
    SP_CALLOC(A->auto_pick, 1);
    if (options) A->options = *options;
    A->offset_bits = offset_bits;
    A->pattern_symmetric =
        coo->nrows == coo->ncols &&
        ((options && options->pattern_symmetric) || sp__coo_pattern_symmetric(coo));
    if (ctx->kind == SP_DEVICE_CUDA) {
        SP_TRY(sp__cuda_matrix_upload(A, coo, &counts));
    } else {
        SP_TRY(sp_coo_copy(coo, coo->value_type, &sorted));
        SP_TRY(sp_coo_sort_merge(sorted, A->options.duplicates, &A->duplicates_merged));
        SP_CALLOC(counts, sorted->nrows);
        sp__ref_histogram(sorted->row, sorted->nnz, counts, sorted->nrows);
        A->f.coo = (sp_triplets_t){sorted->nrows, sorted->ncols, sorted->nnz,
                                   sorted->value_type, sorted->row, sorted->col, sorted->val, 0};
        sorted->row = sorted->col = NULL;
        sorted->val = NULL;
    }
    A->built = 1u << SP_FORMAT_COO;
    row_statistics(A, counts);
    if (ctx->kind != SP_DEVICE_CUDA) /* a CUDA context samples it on the device */
        A->col_near = sp__coo_col_near(coo);
    *out = A;
    A = NULL;
done:
    sp__free(counts);
    sp_coo_free(sorted);
    sp_matrix_destroy(A);
    return sp__context_record(ctx, st);
}

void sp__format_set_free(sp_format_set_t *set, sp_format_t format)
{
    switch (format) {
    case SP_FORMAT_COO: sp__triplets_free(&set->coo); break;
    case SP_FORMAT_CSR: sp__csr_free(&set->csr); break;
    case SP_FORMAT_CSC: sp__csr_free(&set->csc); break;
    case SP_FORMAT_ELL: sp__ell_free(&set->ell); break;
    case SP_FORMAT_HYB: sp__hyb_free(&set->hyb); break;
    case SP_FORMAT_JDS: sp__jds_free(&set->jds); break;
    case SP_FORMAT_SELL: sp__sell_free(&set->sell); break;
    default: break;
    }
}

/* The CSR's narrowed pointers freed (nothing when there are none). */
static void drop_csr32(sp_matrix_t *A)
{
    if (A->ctx->kind == SP_DEVICE_CUDA) sp__cuda_matrix_free_csr32(A);
    else sp__free(A->csr_ptr32);
    A->csr_ptr32 = NULL;
    A->built &= ~SP__BUILT_CSR32;
}

/* Free format f of A (device or host) and its host mirror. */
static void free_format(sp_matrix_t *A, sp_format_t f)
{
    const sp_triplets_t shape = A->f.coo; /* A's counts live in its COO: kept past its arrays */
    if (f == SP_FORMAT_COO || f == SP_FORMAT_CSR || f == SP_FORMAT_CSC)
        sp__bfs_cache_free(A); /* it indexes them (the edge variant the COO) */
    if (f == SP_FORMAT_CSR) drop_csr32(A); /* narrowed from it */
    if (A->ctx->kind == SP_DEVICE_CUDA) {
        sp__cuda_spmv_free_plans(A, f);
        if (f == SP_FORMAT_CSR) sp__cuda_sptrsv_free_plans(A); /* they index the CSR */
        sp__cuda_matrix_free_format(A, f);
    } else {
        sp__format_set_free(&A->f, f);
    }
    if (A->mirror) sp__format_set_free(A->mirror, f);
    if (f == SP_FORMAT_COO)
        A->f.coo = (sp_triplets_t){shape.nrows, shape.ncols, shape.nnz, shape.value_type,
                                   NULL, NULL, NULL, 0};
    A->built &= ~(1u << f);
    A->mirrored &= ~(1u << f);
}

void sp_matrix_destroy(sp_matrix_t *A)
{
    if (!A) return;
    for (int f = SP_FORMAT_COUNT - 1; f >= 0; f--) free_format(A, (sp_format_t)f);
    if (A->ctx->kind == SP_DEVICE_CUDA) sp__cuda_spmv_free_plans(A, SP_FORMAT_COUNT);
    sp__free(A->mirror);
    sp__free(A->auto_pick);
    sp__free(A);
}

int64_t sp__matrix_long_row_bound(const sp_matrix_t *A, sp_format_t f)
{
    return long_row_bound(A, f, A->row_max);
}

/* The most entries a matrix with 64-bit offsets narrows its CSR pointers for
 * (INT32_MAX; the test hook sp__test_set_narrow_limit lowers it so the refusal above it runs
 * at small sizes). */
static int64_t g_narrow_limit = INT32_MAX;

void sp__test_set_narrow_limit(int64_t limit)
{
    g_narrow_limit = limit < INT32_MAX ? limit : INT32_MAX;
}

/* The refusal of the guard below. */
static sp_status_t refuse_offsets64(const sp_matrix_t *A, const char *what)
{
    return SP_ERROR(SP_STATUS_NOT_SUPPORTED,
                    "%s of a %lld x %lld matrix with %lld entries and 64-bit offsets: not "
                    "supported yet (64-bit offsets serve every format, SpMV in them (CSR: "
                    "scalar, vector, merge and split), BFS, SpTRSV and the solvers at any "
                    "size, and everything else up to %lld entries, through the CSR's "
                    "pointers narrowed to 32 bits)",
                    what, (long long)A->f.coo.nrows, (long long)A->f.coo.ncols,
                    (long long)A->f.coo.nnz, (long long)g_narrow_limit);
}

int sp__matrix_narrows(const sp_matrix_t *A)
{
    return A->offset_bits == 64 && A->f.coo.nnz <= g_narrow_limit;
}

sp_status_t sp__matrix_narrowable(const sp_matrix_t *A, const char *what)
{
    if (A->offset_bits != 64 || sp__matrix_narrows(A)) return SP_STATUS_SUCCESS;
    return refuse_offsets64(A, what);
}

/* A's CSR (built) with 32-bit pointers, for what reads 32-bit pointers only: the CSR itself at
 * 32 bits; at 64 bits (sp__matrix_narrowable passed: fewer entries than the narrow limit)
 * the same column ids and values with the pointers narrowed once into A->csr_ptr32 (on the
 * host, or on the device by sp__cuda_matrix_csr32), kept with the CSR (SP__BUILT_CSR32)
 * until it goes or a failed call drops what it built. */
sp_status_t sp__matrix_csr32(sp_matrix_t *A, sp_csr_t *csr)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const sp_csr_t *a = &A->f.csr;
    *csr = *a;
    if (!a->ptr64) goto done;
    SP_TRY(sp__matrix_narrowable(A, "narrowing the CSR's pointers")); /* every value fits */
    if (!A->csr_ptr32 && A->ctx->kind == SP_DEVICE_CUDA) {
        SP_TRY(sp__cuda_matrix_csr32(A));
        A->built |= SP__BUILT_CSR32;
    } else if (!A->csr_ptr32) {
        SP_ALLOC(A->csr_ptr32, a->nrows + 1);
        for (int64_t i = 0; i <= a->nrows; i++) A->csr_ptr32[i] = (int32_t)a->ptr64[i];
        A->built |= SP__BUILT_CSR32;
    }
    csr->ptr = A->csr_ptr32;
    csr->ptr64 = NULL;
done:
    return st;
}

sp_status_t sp__matrix_csr_either(sp_matrix_t *A, sp_csr_t *csr)
{
    if (A->f.csr.ptr64 != NULL && !sp__matrix_narrows(A)) {
        *csr = A->f.csr;
        return SP_STATUS_SUCCESS;
    }
    return sp__matrix_csr32(A, csr);
}

/* Bytes ELL would take; the bound it must stay under (sp__matrix_policy_t). */
static int64_t ell_bytes(const sp_matrix_t *A)
{
    return A->f.coo.nrows * A->ell_row_max_kept * (4 + value_bytes(A));
}
static int64_t ell_bound(const sp_matrix_t *A)
{
    const sp__matrix_policy_t *p = sp__policy_for(A->ctx)->matrix;
    if (A->options.ell_max_bytes > 0) return A->options.ell_max_bytes;
    return p->ell_bound_factor * ((A->f.coo.nrows + 1) * 4 + A->f.coo.nnz * (4 + value_bytes(A))) +
           p->ell_bound_slack;
}

/* ELL, JDS or SELL of csr into set (host). */
static sp_status_t convert_padded_host(const sp_csr_t *csr, sp_format_t f, int c, int sigma,
                                       sp_format_set_t *set)
{
    if (f == SP_FORMAT_ELL) return sp__ref_csr_to_ell(csr, &set->ell);
    if (f == SP_FORMAT_JDS) return sp__ref_csr_to_jds(csr, &set->jds);
    return sp__ref_csr_to_sell(csr, c, sigma, &set->sell);
}

/* ELL, JDS or SELL on the host from csr (either pointer width for ELL; 32-bit for JDS and
 * SELL), the rows longer than the bound kept in the format's tail. */
static sp_status_t build_padded_host(sp_matrix_t *A, const sp_csr_t *csr, sp_format_t f, int c,
                                     int sigma)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t kept = {0};
    sp_triplets_t tail = {0};
    int64_t bound = sp__matrix_long_row_bound(A, f);
    if (A->row_max <= bound) return convert_padded_host(csr, f, c, sigma, &A->f);
    SP_TRY(sp__ref_csr_split_long(csr, bound, &kept, &tail));
    SP_TRY(convert_padded_host(&kept, f, c, sigma, &A->f));
    tail.row_max = A->row_max; /* every row past the bound is in it whole */
    *sp__format_tail(&A->f, f) = tail;
    tail = (sp_triplets_t){0};
done:
    sp__csr_free(&kept);
    sp__triplets_free(&tail);
    return st;
}

/* JDS or SELL on the host, from the CSR with 32-bit pointers below the narrow limit (so the
 * 32-bit matrix's arrays; sp__matrix_csr32: narrowed pointers made for this build only are
 * dropped after it, the format keeps no pointer into them), from the 64-bit CSR itself past
 * it (their offsets then 64-bit: the conversions take the CSR's width). */
static sp_status_t build_from_csr32_host(sp_matrix_t *A, sp_format_t f, int c, int sigma)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned built_before = A->built;
    sp_csr_t csr;
    if (A->f.csr.ptr64 && !sp__matrix_narrows(A))
        return build_padded_host(A, &A->f.csr, f, c, sigma);
    SP_TRY(sp__matrix_csr32(A, &csr));
    SP_TRY(build_padded_host(A, &csr, f, c, sigma));
done:
    if (!(built_before & SP__BUILT_CSR32)) drop_csr32(A);
    return st;
}

/* Build format f (and CSR first, which every other format is converted from). */
static sp_status_t build(sp_matrix_t *A, sp_format_t f)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const sp_matrix_options_t *o = &A->options;
    const sp__matrix_policy_t *p = sp__policy_for(A->ctx)->matrix;
    int c = o->sell_c > 0 ? o->sell_c : p->sell_c;
    int sigma = o->sell_sigma > 0 ? o->sell_sigma : p->sell_sigma_factor * c;
    unsigned built_before = A->built;
    if (A->built & (1u << f)) goto done;
    /* past the narrow limit either context converts a 64-bit CSR to every format: the
       GPU's transpose, split and conversions have 64-bit paths, the host's read either
       width (sp__csr_at), and JDS and SELL then hold 64-bit offsets of their own. Below it
       the CUDA context converts from the CSR's pointers narrowed to 32 bits
       (sp__matrix_csr32), as the host does JDS and SELL: the 32-bit matrix's arrays */
    if (f != SP_FORMAT_CSR) SP_TRY(build(A, SP_FORMAT_CSR));
    if (f == SP_FORMAT_ELL && ell_bytes(A) > ell_bound(A))
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "ELL of this %lld x %lld matrix would take %lld bytes (longest row %lld, "
                "mean %.1f), over the bound of %lld bytes: use HYB or SELL, or raise "
                "ell_max_bytes", (long long)A->f.coo.nrows, (long long)A->f.coo.ncols,
                (long long)ell_bytes(A), (long long)A->row_max, A->row_mean,
                (long long)ell_bound(A));
    SP_CHECK_ARG(c > 0 && sigma > 0 && sigma % c == 0,
                 "SELL: sigma %d must be a positive multiple of C %d", sigma, c);
    if (A->ctx->kind == SP_DEVICE_CUDA) {
        /* narrowed pointers made for this conversion only go after it (the format keeps no
           pointer into them), as on the host (build_from_csr32_host) */
        st = sp__cuda_matrix_build(A, f, c, sigma, sp__matrix_long_row_bound(A, f));
        if ((A->built & SP__BUILT_CSR32) && !(built_before & SP__BUILT_CSR32)) drop_csr32(A);
        SP_TRY(st);
    } else {
        switch (f) {
        case SP_FORMAT_COO: SP_TRY(sp__ref_csr_to_coo(&A->f.csr, &A->f.coo)); break;
        case SP_FORMAT_CSR:
            SP_TRY(sp__ref_coo_to_csr_offsets(&A->f.coo, A->offset_bits, &A->f.csr));
            break;
        case SP_FORMAT_CSC: SP_TRY(sp__ref_csr_to_csc(&A->f.csr, &A->f.csc)); break;
        /* ELL (its tail's split too) and HYB straight from the CSR at either width (the
           conversions read sp__csr_at), so past the narrow limit too */
        case SP_FORMAT_ELL: SP_TRY(build_padded_host(A, &A->f.csr, f, c, sigma)); break;
        case SP_FORMAT_HYB:
            SP_TRY(sp__ref_csr_to_hyb(&A->f.csr,
                                      o->hyb_ell_width > 0 ? o->hyb_ell_width : -1, &A->f.hyb));
            break;
        case SP_FORMAT_JDS:
        case SP_FORMAT_SELL: SP_TRY(build_from_csr32_host(A, f, c, sigma)); break;
        default: break;
        }
    }
    A->built |= 1u << f;
done:
    return st;
}

sp_status_t sp_matrix_build(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "sp_matrix_build: NULL argument");
    SP_CHECK_ARG(A->ctx == ctx, "sp_matrix_build: matrix belongs to another context");
    SP_CHECK_ARG((int)format >= 0 && format < SP_FORMAT_COUNT,
                 "sp_matrix_build: unknown format %d", (int)format);
    SP_TRY(build(A, format));
done:
    return sp__context_record(ctx, st);
}

void sp__matrix_drop_formats_since(sp_matrix_t *A, unsigned built_before)
{
    if ((A->built & SP__BUILT_CSR32) && !(built_before & SP__BUILT_CSR32)) drop_csr32(A);
    for (int f = SP_FORMAT_CSR; f < SP_FORMAT_COUNT; f++)
        if ((A->built & (1u << f)) && !(built_before & (1u << f))) free_format(A, (sp_format_t)f);
    /* a COO made again from the CSR (after sp_matrix_release(COO)) goes too; the CSR stays,
       so A keeps its entries */
    if ((A->built & (1u << SP_FORMAT_COO)) && !(built_before & (1u << SP_FORMAT_COO)) &&
        (A->built & (1u << SP_FORMAT_CSR)))
        free_format(A, SP_FORMAT_COO);
}

sp_status_t sp_matrix_release(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "sp_matrix_release: NULL argument");
    SP_CHECK_ARG(A->ctx == ctx, "sp_matrix_release: matrix belongs to another context");
    SP_CHECK_ARG((int)format >= 0 && format < SP_FORMAT_COUNT,
                 "sp_matrix_release: unknown format %d", (int)format);
    /* the COO or the CSR holds A's entries, whichever else is released (issue 20) */
    SP_CHECK_ARG(format != SP_FORMAT_COO || !(A->built & (1u << SP_FORMAT_COO)) ||
                     (A->built & (1u << SP_FORMAT_CSR)),
                 "sp_matrix_release: COO is the matrix's only copy of its entries: build CSR "
                 "first, then the COO can go");
    SP_CHECK_ARG(format != SP_FORMAT_CSR || !(A->built & (1u << SP_FORMAT_CSR)) ||
                     (A->built & (1u << SP_FORMAT_COO)),
                 "sp_matrix_release: CSR is the matrix's only copy of its entries (its COO "
                 "was released): build COO first, then the CSR can go");
    free_format(A, format);
done:
    return sp__context_record(ctx, st);
}

/* The bytes of an ELL's value table and codes (0 without a table). */
static int64_t ell_table_bytes(const sp_ell_t *e)
{
    if (e->ntable == 0) return 0;
    return e->nrows * e->width + e->ntable * (int64_t)sp_value_size(e->value_type);
}

static int64_t format_bytes(const sp_matrix_t *A, int f)
{
    int64_t v = 4 + value_bytes(A), p = A->offset_bits / 8; /* CSR, CSC pointer bytes */
    if (!(A->built & (1u << f))) return 0;
    switch (f) {
    case SP_FORMAT_COO: return A->f.coo.nnz * (4 + v);
    case SP_FORMAT_CSR: /* and its pointers narrowed for a 32-bit reader, if kept */
        return (A->f.csr.nrows + 1) * (p + (A->csr_ptr32 ? 4 : 0)) + A->f.csr.nnz * v;
    case SP_FORMAT_CSC: return (A->f.csc.ncols + 1) * p + A->f.csc.nnz * v;
    case SP_FORMAT_ELL:
        return A->f.ell.nrows * A->f.ell.width * v + A->f.ell.tail.nnz * (4 + v) +
               ell_table_bytes(&A->f.ell);
    case SP_FORMAT_HYB:
        return A->f.hyb.ell.nrows * A->f.hyb.ell.width * v + A->f.hyb.coo.nnz * (4 + v) +
               ell_table_bytes(&A->f.hyb.ell);
    case SP_FORMAT_JDS:
        return A->f.jds.nrows * 4 + (A->f.jds.njd + 1) * (A->f.jds.jd_ptr64 ? 8 : 4) +
               A->f.jds.nnz * v + A->f.jds.tail.nnz * (4 + v);
    case SP_FORMAT_SELL:
        return A->f.sell.padded * v + A->f.sell.nslices * 4 +
               (A->f.sell.nslices + 1) * (A->f.sell.slice_ptr64 ? 8 : 4) + A->f.sell.nrows * 4 +
               A->f.sell.tail.nnz * (4 + v);
    }
    return 0;
}

sp_status_t sp_matrix_info(const sp_matrix_t *A, sp_matrix_info_t *info)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(A != NULL && info != NULL, "sp_matrix_info: NULL argument");
    memset(info, 0, sizeof *info);
    info->nrows = A->f.coo.nrows;
    info->ncols = A->f.coo.ncols;
    info->nnz = A->f.coo.nnz;
    info->value_type = A->f.coo.value_type;
    info->row_min = A->row_min;
    info->row_max = A->row_max;
    info->empty_rows = A->empty_rows;
    info->row_mean = A->row_mean;
    info->row_stddev = A->row_stddev;
    for (int f = 0; f < SP_FORMAT_COUNT; f++) info->bytes[f] = format_bytes(A, f);
    info->ell_width = (A->built & (1u << SP_FORMAT_ELL)) ? A->f.ell.width : A->row_max;
    info->hyb_ell_width = A->f.hyb.ell.width;
    info->hyb_coo_nnz = A->f.hyb.coo.nnz;
    info->sell_c = A->f.sell.c;
    info->sell_sigma = A->f.sell.sigma;
    info->sell_padded_nnz = A->f.sell.padded;
    info->duplicates_merged = A->duplicates_merged;
    info->long_row_bound = sp__matrix_long_row_bound(A, SP_FORMAT_SELL);
    info->ell_long_row_bound = sp__matrix_long_row_bound(A, SP_FORMAT_ELL);
    info->ell_tail_nnz = A->f.ell.tail.nnz;
    info->jds_tail_nnz = A->f.jds.tail.nnz;
    info->sell_tail_nnz = A->f.sell.tail.nnz;
    info->offset_bits = A->offset_bits;
    info->pattern_symmetric = A->pattern_symmetric;
    info->ell_value_table = A->f.ell.ntable;
    info->hyb_value_table = A->f.hyb.ell.ntable;
done:
    return st;
}

/* The long-row tail t of a padded format into the view. */
static void view_tail(const sp_triplets_t *t, sp_format_view_t *v)
{
    v->tail.nnz = t->nnz, v->tail.row = t->row, v->tail.col = t->col, v->tail.val = t->val;
}

sp_status_t sp_matrix_view(sp_matrix_t *A, sp_format_t f, sp_format_view_t *v)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(A != NULL && v != NULL, "sp_matrix_view: NULL argument");
    SP_CHECK_ARG((int)f >= 0 && f < SP_FORMAT_COUNT, "sp_matrix_view: unknown format %d", (int)f);
    SP_CHECK_ARG(A->built & (1u << f), "sp_matrix_view: format %s is not built",
                 sp_format_name(f));
    const sp_format_set_t *h = &A->f;
    if (A->ctx->kind == SP_DEVICE_CUDA) {
        SP_TRY(sp__cuda_matrix_mirror(A, f));
        h = A->mirror;
    }
    memset(v, 0, sizeof *v);
    v->format = f;
    v->nrows = A->f.coo.nrows;
    v->ncols = A->f.coo.ncols;
    v->nnz = A->f.coo.nnz;
    v->value_type = A->f.coo.value_type;
    switch (f) {
    case SP_FORMAT_COO:
        v->coo.row = h->coo.row, v->coo.col = h->coo.col, v->coo.val = h->coo.val;
        break;
    case SP_FORMAT_CSR:
        v->csr.row_ptr = h->csr.ptr, v->csr.col = h->csr.idx, v->csr.val = h->csr.val;
        v->row_ptr64 = h->csr.ptr64;
        break;
    case SP_FORMAT_CSC:
        v->csc.col_ptr = h->csc.ptr, v->csc.row = h->csc.idx, v->csc.val = h->csc.val;
        v->col_ptr64 = h->csc.ptr64;
        break;
    case SP_FORMAT_ELL:
        v->ell.width = h->ell.width, v->ell.col = h->ell.col, v->ell.val = h->ell.val;
        v->ell.code = h->ell.code, v->ell.table = h->ell.table, v->ell.ntable = h->ell.ntable;
        view_tail(&h->ell.tail, v);
        break;
    case SP_FORMAT_HYB:
        v->hyb.ell_width = h->hyb.ell.width, v->hyb.ell_col = h->hyb.ell.col;
        v->hyb.ell_val = h->hyb.ell.val, v->hyb.coo_nnz = h->hyb.coo.nnz;
        v->hyb.coo_row = h->hyb.coo.row, v->hyb.coo_col = h->hyb.coo.col;
        v->hyb.coo_val = h->hyb.coo.val;
        v->hyb.ell_code = h->hyb.ell.code, v->hyb.ell_table = h->hyb.ell.table;
        v->hyb.ell_ntable = h->hyb.ell.ntable;
        break;
    case SP_FORMAT_JDS:
        v->jds.njd = h->jds.njd, v->jds.jd_ptr = h->jds.jd_ptr, v->jds.perm = h->jds.perm;
        v->jds.col = h->jds.col, v->jds.val = h->jds.val;
        v->jd_ptr64 = h->jds.jd_ptr64;
        view_tail(&h->jds.tail, v);
        break;
    case SP_FORMAT_SELL:
        v->sell.c = h->sell.c, v->sell.sigma = h->sell.sigma;
        v->sell.nslices = h->sell.nslices, v->sell.padded = h->sell.padded;
        v->sell.slice_ptr = h->sell.slice_ptr, v->sell.slice_width = h->sell.slice_width;
        v->sell.perm = h->sell.perm, v->sell.col = h->sell.col, v->sell.val = h->sell.val;
        v->slice_ptr64 = h->sell.slice_ptr64;
        view_tail(&h->sell.tail, v);
        break;
    default: break;
    }
done:
    return st;
}
