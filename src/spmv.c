/* sp_spmv and its typed forms, sp_spmv_prepare: argument checks, format choice (the rule
 * in src/policy.c) and cache, dispatch to the executor. */
#include "policy.h"
#include "sp_vector.h"

/* Which algorithms apply to which format (DEFAULT applies everywhere). */
static int alg_fits(sp_format_t f, sp_spmv_alg_t alg)
{
    switch (alg) {
    case SP_SPMV_ALG_DEFAULT: return 1;
    case SP_SPMV_ALG_COO_ATOMIC:
    case SP_SPMV_ALG_COO_SEGMENTED: return f == SP_FORMAT_COO;
    case SP_SPMV_ALG_CSR_SCALAR:
    case SP_SPMV_ALG_CSR_VECTOR:
    case SP_SPMV_ALG_CSR_MERGE:
    case SP_SPMV_ALG_CSR_SPLIT:
    case SP_SPMV_ALG_CSR_BINNED:
    case SP_SPMV_ALG_CSR_ADAPTIVE: return f == SP_FORMAT_CSR;
    }
    return 0;
}

/* AUTO's format and algorithm for A on ctx: sp_spmv_tune's choice when A has one, else
 * the cost model's (sp__policy_spmv_choose, src/policy.c), kept in A once that format is
 * built, until A's set of built formats changes (a build, a release): all the pick then
 * depends on besides A's fixed statistics. On a CUDA context a padded
 * format the device has no room left to build (at the sizes of issue 20 ELL is tens of GB
 * beside the CSR) gives way to CSR with the model's CSR algorithm, so AUTO serves where
 * CSR does instead of failing the build. COO atomic is priced as the matrix's own COO: a
 * matrix whose COO was released (sp_matrix_release) gets CSR instead of a rebuilt one. */
void sp__spmv_auto(const sp_context_t *ctx, const sp_matrix_t *A, sp_format_t *format,
                   sp_spmv_alg_t *alg)
{
    sp__spmv_stats_t s;
    sp__spmv_choice_t c;
    sp__auto_pick_t *kept = ctx == A->ctx ? A->auto_pick : NULL; /* A's own context's */
    if (A->tuned) {
        *format = A->tuned_format;
        *alg = A->tuned_alg;
        return;
    }
    if (kept && kept->valid && kept->built == A->built) {
        *format = kept->format;
        *alg = kept->alg;
        return;
    }
    sp__spmv_stats_of(ctx, A, &s);
    c = sp__policy_spmv_choose(sp__policy_for(ctx), &s);
    *format = c.format;
    *alg = c.alg;
    if ((c.format == SP_FORMAT_COO && !(A->built & (1u << SP_FORMAT_COO))) ||
        (ctx->kind == SP_DEVICE_CUDA && c.format != SP_FORMAT_CSR &&
         !sp__cuda_matrix_fits(A, c.format))) {
        *format = SP_FORMAT_CSR;
        *alg = c.csr_alg;
    }
    /* kept once the pick is built and was the model's own (a pick that gave way to CSR for
       want of room depends on the room, which changes without a build) */
    if (kept && (A->built & (1u << *format)) &&
        (*format == c.format || c.format == SP_FORMAT_COO))
        *kept = (sp__auto_pick_t){1, A->built, *format, *alg};
}

void sp__spmv_auto_solver(const sp_context_t *ctx, const sp_matrix_t *A, sp_format_t *format,
                          sp_spmv_alg_t *alg)
{
    sp__spmv_auto(ctx, A, format, alg);
    if (*format == SP_FORMAT_COO && *alg == SP_SPMV_ALG_COO_ATOMIC) {
        sp__spmv_stats_t s;
        sp__spmv_stats_of(ctx, A, &s);
        *format = SP_FORMAT_CSR;
        *alg = sp__policy_spmv_choose(sp__policy_for(ctx), &s).csr_alg;
    }
}

sp_status_t sp_spmv_choose_format(const sp_context_t *ctx, const sp_matrix_t *A,
                                  sp_format_t *format)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_spmv_alg_t alg = SP_SPMV_ALG_DEFAULT;
    SP_CHECK_ARG(ctx != NULL && A != NULL && format != NULL,
                 "sp_spmv_choose_format: NULL argument");
    sp__spmv_auto(ctx, A, format, &alg);
done:
    return st;
}

static void spmv_host(const sp_matrix_t *A, sp_format_t f, const void *alpha, const void *x,
                      const void *beta, void *y)
{
    switch (f) {
    case SP_FORMAT_COO: sp__ref_spmv_coo(&A->f.coo, alpha, x, beta, y); break;
    case SP_FORMAT_CSR: sp__ref_spmv_csr(&A->f.csr, alpha, x, beta, y); break;
    case SP_FORMAT_CSC: sp__ref_spmv_csc(&A->f.csc, alpha, x, beta, y); break;
    case SP_FORMAT_ELL: sp__ref_spmv_ell(&A->f.ell, alpha, x, beta, y); break;
    case SP_FORMAT_HYB: sp__ref_spmv_hyb(&A->f.hyb, alpha, x, beta, y); break;
    case SP_FORMAT_JDS: sp__ref_spmv_jds(&A->f.jds, alpha, x, beta, y); break;
    case SP_FORMAT_SELL: sp__ref_spmv_sell(&A->f.sell, alpha, x, beta, y); break;
    default: break;
    }
}

/* The checks sp_spmv and sp_spmv_prepare share: A has values on ctx and alg fits the
 * format; *format resolved from SP_FORMAT_AUTO, and with it *alg when DEFAULT. */
static sp_status_t check_matrix(const char *what, const sp_context_t *ctx, const sp_matrix_t *A,
                                sp_format_t *format, sp_spmv_alg_t *alg_io)
{
    sp_spmv_alg_t alg = *alg_io;
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(A->ctx == ctx, "%s: matrix belongs to another context", what);
    SP_CHECK_ARG(A->f.coo.value_type != SP_VALUE_NONE,
                 "%s: the matrix is a pattern (no values); load it with values", what);
    SP_CHECK_ARG(*format == SP_FORMAT_AUTO || ((int)*format >= 0 && *format < SP_FORMAT_COUNT),
                 "%s: unknown format %d", what, (int)*format);
    if (*format == SP_FORMAT_AUTO) {
        sp_spmv_alg_t chosen = SP_SPMV_ALG_DEFAULT;
        sp__spmv_auto(ctx, A, format, &chosen);
        if (alg == SP_SPMV_ALG_DEFAULT) alg = chosen;
    }
    SP_CHECK_ARG(alg_fits(*format, alg), "%s: algorithm %d does not apply to format %s", what,
                 (int)alg, sp_format_name(*format));
    *alg_io = alg;
done:
    return st;
}

/* sp_spmv under the name what (for the messages), without recording on the context. */
static sp_status_t spmv_run(const char *what, sp_context_t *ctx, sp_format_t format,
                            sp_spmv_alg_t alg, const void *alpha, sp_matrix_t *A, const void *x,
                            const void *beta, void *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned built_before = A ? A->built : 0;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "%s: ctx or A is NULL", what);
    SP_CHECK_ARG(alpha != NULL && beta != NULL, "%s: alpha or beta is NULL", what);
    SP_CHECK_ARG((x != NULL || A->f.coo.ncols == 0) && (y != NULL || A->f.coo.nrows == 0),
                 "%s: x or y is NULL", what);
    SP_TRY(check_matrix(what, ctx, A, &format, &alg));
    SP_TRY(sp_matrix_build(ctx, A, format));
    if (ctx->kind == SP_DEVICE_CUDA)
        SP_TRY(sp__cuda_spmv(A, format, alg, alpha, x, beta, y));
    else
        spmv_host(A, format, alpha, x, beta, y);
done:
    /* a failure after a build (a plan's allocation) leaves A as it was */
    if (st != SP_STATUS_SUCCESS && A != NULL && ctx != NULL && A->ctx == ctx)
        sp__matrix_drop_formats_since(A, built_before);
    return st;
}

sp_status_t sp_spmv(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg,
                    const void *alpha, sp_matrix_t *A, const void *x, const void *beta,
                    void *y)
{
    return sp__context_record(ctx, spmv_run("sp_spmv", ctx, format, alg, alpha, A, x, beta, y));
}

sp_status_t sp_spmv_prepare(sp_context_t *ctx, sp_matrix_t *A, sp_format_t format,
                            sp_spmv_alg_t alg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned built_before = A ? A->built : 0;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "sp_spmv_prepare: ctx or A is NULL");
    SP_TRY(check_matrix("sp_spmv_prepare", ctx, A, &format, &alg));
    SP_TRY(sp_matrix_build(ctx, A, format));
    if (ctx->kind == SP_DEVICE_CUDA) SP_TRY(sp__cuda_spmv_prepare(A, format, alg));
done:
    if (st != SP_STATUS_SUCCESS && A != NULL && ctx != NULL && A->ctx == ctx)
        sp__matrix_drop_formats_since(A, built_before);
    return sp__context_record(ctx, st);
}

/* "float values (SP_R_32F)", for the typed forms' messages. */
static const char *held(sp_value_type_t t)
{
    switch (t) {
    case SP_R_32F: return "float values (SP_R_32F)";
    case SP_R_64F: return "double values (SP_R_64F)";
    default: return "no values (SP_VALUE_NONE: a pattern)";
    }
}

/* sp_spmv under the name what, after SP_STATUS_INVALID_ARGUMENT naming both types unless A
 * holds values of type want. */
static sp_status_t spmv_typed(const char *what, sp_value_type_t want, sp_context_t *ctx,
                              sp_format_t format, sp_spmv_alg_t alg, const void *alpha,
                              sp_matrix_t *A, const void *x, const void *beta, void *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(A != NULL, "%s: A is NULL", what);
    SP_CHECK_ARG(A->f.coo.value_type == want, "%s: A holds %s, not %s", what,
                 held(A->f.coo.value_type), want == SP_R_32F ? "float" : "double");
    st = spmv_run(what, ctx, format, alg, alpha, A, x, beta, y);
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_spmv_f64(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg, double alpha,
                        sp_matrix_t *A, const double *x, double beta, double *y)
{
    return spmv_typed("sp_spmv_f64", SP_R_64F, ctx, format, alg, &alpha, A, x, &beta, y);
}

sp_status_t sp_spmv_f32(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg, float alpha,
                        sp_matrix_t *A, const float *x, float beta, float *y)
{
    return spmv_typed("sp_spmv_f32", SP_R_32F, ctx, format, alg, &alpha, A, x, &beta, y);
}

/* x (ncols) and y (nrows) on ctx, of A's type, distinct. */
static sp_status_t check_vectors(const sp_context_t *ctx, const sp_matrix_t *A,
                                 const sp_vector_t *x, const sp_vector_t *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_value_type_t t = A->f.coo.value_type;
    SP_CHECK_ARG(x != NULL && y != NULL, "sp_spmv_vec: x or y is NULL");
    SP_CHECK_ARG(x != y, "sp_spmv_vec: x and y are the same vector");
    SP_CHECK_ARG(x->ctx == ctx && y->ctx == ctx, "sp_spmv_vec: %s belongs to another context",
                 x->ctx != ctx ? "x" : "y");
    SP_CHECK_ARG(x->type == t && y->type == t, "sp_spmv_vec: %s holds %s, A holds %s",
                 x->type != t ? "x" : "y", held(x->type != t ? x->type : y->type), held(t));
    SP_CHECK_ARG(x->n == A->f.coo.ncols, "sp_spmv_vec: x has %lld values, A %lld columns",
                 (long long)x->n, (long long)A->f.coo.ncols);
    SP_CHECK_ARG(y->n == A->f.coo.nrows, "sp_spmv_vec: y has %lld values, A %lld rows",
                 (long long)y->n, (long long)A->f.coo.nrows);
done:
    return st;
}

sp_status_t sp_spmv_vec(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg, double alpha,
                        sp_matrix_t *A, const sp_vector_t *x, double beta, sp_vector_t *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    float alpha32 = (float)alpha, beta32 = (float)beta;
    const void *a = &alpha, *b = &beta;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "sp_spmv_vec: ctx or A is NULL");
    SP_TRY(check_vectors(ctx, A, x, y));
    if (A->f.coo.value_type == SP_R_32F) a = &alpha32, b = &beta32;
    st = spmv_run("sp_spmv_vec", ctx, format, alg, a, A, x->data, b, y->data);
done:
    return sp__context_record(ctx, st);
}
