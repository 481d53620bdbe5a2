/* Matrix handles: a sorted, merged COO on a context plus a cache of built formats, so a
 * conversion is paid once and amortized over many SpMV calls. */
#include <math.h>
#include <string.h>

#include "sp_api.h"

static int64_t value_bytes(const sp_matrix_t *A) { return (int64_t)sp_value_size(A->coo.value_type); }

static sp_status_t check_coo(const sp_coo_t *coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(coo->nrows >= 0 && coo->ncols >= 0 && coo->nnz >= 0,
                 "sp_matrix_create: negative size %lld x %lld, nnz %lld",
                 (long long)coo->nrows, (long long)coo->ncols, (long long)coo->nnz);
    if (coo->nrows > INT32_MAX || coo->ncols > INT32_MAX || coo->nnz > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_matrix_create: %lld x %lld with %lld entries exceeds 32-bit indices "
                "(limit %d)", (long long)coo->nrows, (long long)coo->ncols,
                (long long)coo->nnz, INT32_MAX);
    SP_CHECK_ARG(coo->value_type == SP_VALUE_NONE || coo->val != NULL,
                 "sp_matrix_create: COO has value type %d but no values", (int)coo->value_type);
    SP_CHECK_ARG(coo->nnz == 0 || (coo->row && coo->col), "sp_matrix_create: COO arrays are NULL");
    for (int64_t k = 0; k < coo->nnz; k++) {
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

static void row_statistics(sp_matrix_t *A, const int32_t *counts)
{
    int64_t n = A->coo.nrows;
    double mean = n ? (double)A->coo.nnz / (double)n : 0.0, var = 0.0;
    A->row_min = n ? INT64_MAX : 0;
    A->row_max = 0;
    A->empty_rows = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t c = counts[i];
        if (c < A->row_min) A->row_min = c;
        if (c > A->row_max) A->row_max = c;
        if (c == 0) A->empty_rows++;
        var += ((double)c - mean) * ((double)c - mean);
    }
    A->row_mean = mean;
    A->row_stddev = n ? sqrt(var / (double)n) : 0.0;
}

sp_status_t sp_matrix_create(sp_context_t *ctx, const sp_coo_t *coo,
                             const sp_matrix_options_t *options, sp_matrix_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_matrix_t *A = NULL;
    sp_coo_t *sorted = NULL;
    int32_t *counts = NULL;
    SP_CHECK_ARG(ctx != NULL && coo != NULL && out != NULL, "sp_matrix_create: NULL argument");
    SP_TRY(check_coo(coo));
    if (options)
        SP_CHECK_ARG(options->duplicates == SP_DUP_SUM || options->duplicates == SP_DUP_KEEP,
                     "sp_matrix_create: unknown duplicate policy %d", (int)options->duplicates);
    if (ctx->kind != SP_DEVICE_HOST)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_matrix_create: device matrices are not implemented yet in this version "
                "(use a host context)");
    SP_CALLOC(A, 1);
    A->ctx = ctx;
    if (options) A->options = *options;
    SP_TRY(sp_coo_copy(coo, coo->value_type, &sorted));
    SP_TRY(sp__ref_coo_sort_merge(sorted, A->options.duplicates, &A->duplicates_merged));
    SP_CALLOC(counts, sorted->nrows);
    sp__ref_histogram(sorted->row, sorted->nnz, counts, sorted->nrows);
    A->coo = (sp_triplets_t){sorted->nrows, sorted->ncols, sorted->nnz, sorted->value_type,
                             sorted->row, sorted->col, sorted->val};
    sorted->row = sorted->col = NULL;
    sorted->val = NULL;
    row_statistics(A, counts);
    A->built = 1u << SP_FORMAT_COO;
    *out = A;
    A = NULL;
done:
    sp__free(counts);
    sp_coo_free(sorted);
    sp_matrix_destroy(A);
    return sp__context_record(ctx, st);
}

void sp_matrix_destroy(sp_matrix_t *A)
{
    if (!A) return;
    sp__sell_free(&A->sell);
    sp__jds_free(&A->jds);
    sp__hyb_free(&A->hyb);
    sp__ell_free(&A->ell);
    sp__csr_free(&A->csc);
    sp__csr_free(&A->csr);
    sp__triplets_free(&A->coo);
    sp__free(A);
}

/* Bytes ELL would take; the bound it must stay under. */
static int64_t ell_bytes(const sp_matrix_t *A)
{
    return A->coo.nrows * A->row_max * (4 + value_bytes(A));
}
static int64_t ell_bound(const sp_matrix_t *A)
{
    if (A->options.ell_max_bytes > 0) return A->options.ell_max_bytes;
    return 4 * ((A->coo.nrows + 1) * 4 + A->coo.nnz * (4 + value_bytes(A))) + (1 << 20);
}

static sp_status_t build_host(sp_matrix_t *A, sp_format_t f)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const sp_matrix_options_t *o = &A->options;
    int c = o->sell_c > 0 ? o->sell_c : 32;
    int sigma = o->sell_sigma > 0 ? o->sell_sigma : 32 * c;
    if (f != SP_FORMAT_CSR && !(A->built & (1u << SP_FORMAT_CSR)))
        SP_TRY(build_host(A, SP_FORMAT_CSR));
    switch (f) {
    case SP_FORMAT_CSR: {
        sp_coo_t view = {A->coo.nrows, A->coo.ncols, A->coo.nnz, A->coo.nnz, A->coo.row,
                         A->coo.col, A->coo.val, A->coo.value_type, SP_SYMMETRY_GENERAL,
                         SP_COO_SORTED | SP_COO_MERGED};
        SP_TRY(sp__ref_coo_to_csr(&view, &A->csr));
        break;
    }
    case SP_FORMAT_CSC: SP_TRY(sp__ref_csr_to_csc(&A->csr, &A->csc)); break;
    case SP_FORMAT_ELL:
        if (ell_bytes(A) > ell_bound(A))
            SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                    "ELL of this %lld x %lld matrix would take %lld bytes (longest row %lld, "
                    "mean %.1f), over the bound of %lld bytes: use HYB or SELL, or raise "
                    "ell_max_bytes", (long long)A->coo.nrows, (long long)A->coo.ncols,
                    (long long)ell_bytes(A), (long long)A->row_max, A->row_mean,
                    (long long)ell_bound(A));
        SP_TRY(sp__ref_csr_to_ell(&A->csr, &A->ell));
        break;
    case SP_FORMAT_HYB:
        SP_TRY(sp__ref_csr_to_hyb(&A->csr, o->hyb_ell_width > 0 ? o->hyb_ell_width : -1,
                                  &A->hyb));
        break;
    case SP_FORMAT_JDS: SP_TRY(sp__ref_csr_to_jds(&A->csr, &A->jds)); break;
    case SP_FORMAT_SELL:
        SP_CHECK_ARG(sigma % c == 0, "SELL: sigma %d is not a multiple of C %d", sigma, c);
        SP_TRY(sp__ref_csr_to_sell(&A->csr, c, sigma, &A->sell));
        break;
    default: break;
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
    if (A->built & (1u << format)) goto done;
    SP_TRY(build_host(A, format));
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_matrix_release(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "sp_matrix_release: NULL argument");
    SP_CHECK_ARG(A->ctx == ctx, "sp_matrix_release: matrix belongs to another context");
    SP_CHECK_ARG((int)format > 0 && format < SP_FORMAT_COUNT,
                 "sp_matrix_release: format %d cannot be released", (int)format);
    switch (format) {
    case SP_FORMAT_CSR: sp__csr_free(&A->csr); break;
    case SP_FORMAT_CSC: sp__csr_free(&A->csc); break;
    case SP_FORMAT_ELL: sp__ell_free(&A->ell); break;
    case SP_FORMAT_HYB: sp__hyb_free(&A->hyb); break;
    case SP_FORMAT_JDS: sp__jds_free(&A->jds); break;
    case SP_FORMAT_SELL: sp__sell_free(&A->sell); break;
    default: break;
    }
    A->built &= ~(1u << format);
done:
    return sp__context_record(ctx, st);
}

static int64_t format_bytes(const sp_matrix_t *A, int f)
{
    int64_t v = 4 + value_bytes(A);
    if (!(A->built & (1u << f))) return 0;
    switch (f) {
    case SP_FORMAT_COO: return A->coo.nnz * (4 + v);
    case SP_FORMAT_CSR: return (A->csr.nrows + 1) * 4 + A->csr.nnz * v;
    case SP_FORMAT_CSC: return (A->csc.ncols + 1) * 4 + A->csc.nnz * v;
    case SP_FORMAT_ELL: return A->ell.nrows * A->ell.width * v;
    case SP_FORMAT_HYB:
        return A->hyb.ell.nrows * A->hyb.ell.width * v + A->hyb.coo.nnz * (4 + v);
    case SP_FORMAT_JDS: return A->jds.nrows * 4 + (A->jds.njd + 1) * 4 + A->jds.nnz * v;
    case SP_FORMAT_SELL:
        return A->sell.padded * v + (2 * A->sell.nslices + 1) * 4 + A->sell.nrows * 4;
    }
    return 0;
}

sp_status_t sp_matrix_info(const sp_matrix_t *A, sp_matrix_info_t *info)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(A != NULL && info != NULL, "sp_matrix_info: NULL argument");
    memset(info, 0, sizeof *info);
    info->nrows = A->coo.nrows;
    info->ncols = A->coo.ncols;
    info->nnz = A->coo.nnz;
    info->value_type = A->coo.value_type;
    info->row_min = A->row_min;
    info->row_max = A->row_max;
    info->empty_rows = A->empty_rows;
    info->row_mean = A->row_mean;
    info->row_stddev = A->row_stddev;
    for (int f = 0; f < SP_FORMAT_COUNT; f++) info->bytes[f] = format_bytes(A, f);
    info->ell_width = A->row_max;
    info->hyb_ell_width = A->hyb.ell.width;
    info->hyb_coo_nnz = A->hyb.coo.nnz;
    info->sell_c = A->sell.c;
    info->sell_sigma = A->sell.sigma;
    info->sell_padded_nnz = A->sell.padded;
    info->duplicates_merged = A->duplicates_merged;
done:
    return st;
}

sp_status_t sp_matrix_view(const sp_matrix_t *A, sp_format_t f, sp_format_view_t *v)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(A != NULL && v != NULL, "sp_matrix_view: NULL argument");
    SP_CHECK_ARG((int)f >= 0 && f < SP_FORMAT_COUNT, "sp_matrix_view: unknown format %d", (int)f);
    SP_CHECK_ARG(A->built & (1u << f), "sp_matrix_view: format %s is not built",
                 sp_format_name(f));
    memset(v, 0, sizeof *v);
    v->format = f;
    v->nrows = A->coo.nrows;
    v->ncols = A->coo.ncols;
    v->nnz = A->coo.nnz;
    v->value_type = A->coo.value_type;
    switch (f) {
    case SP_FORMAT_COO: v->idx = A->coo.col; v->idx2 = A->coo.row; v->val = A->coo.val; break;
    case SP_FORMAT_CSR: v->ptr = A->csr.ptr; v->idx = A->csr.idx; v->val = A->csr.val; break;
    case SP_FORMAT_CSC: v->ptr = A->csc.ptr; v->idx = A->csc.idx; v->val = A->csc.val; break;
    case SP_FORMAT_ELL:
        v->idx = A->ell.col; v->val = A->ell.val; v->width = A->ell.width; break;
    case SP_FORMAT_HYB:
        v->idx = A->hyb.ell.col; v->val = A->hyb.ell.val; v->width = A->hyb.ell.width;
        v->idx2 = A->hyb.coo.row; v->idx3 = A->hyb.coo.col; v->val2 = A->hyb.coo.val;
        v->nnz2 = A->hyb.coo.nnz; break;
    case SP_FORMAT_JDS:
        v->ptr = A->jds.jd_ptr; v->idx = A->jds.col; v->idx2 = A->jds.perm;
        v->val = A->jds.val; v->width = A->jds.njd; break;
    case SP_FORMAT_SELL:
        v->ptr = A->sell.slice_ptr; v->idx = A->sell.col; v->idx2 = A->sell.perm;
        v->idx3 = A->sell.slice_width; v->val = A->sell.val; v->width = A->sell.c;
        v->nnz2 = A->sell.padded; v->sigma = A->sell.sigma; break;
    default: break;
    }
done:
    return st;
}
