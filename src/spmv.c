/* sp_spmv: argument checks, format choice and cache, dispatch to the executor. */
#include "policy.h"

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

/* The rule and its constants: sp__policy_spmv_format (src/policy.c). */
sp_status_t sp_spmv_choose_format(const sp_context_t *ctx, const sp_matrix_t *A,
                                  sp_format_t *format)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(ctx != NULL && A != NULL && format != NULL,
                 "sp_spmv_choose_format: NULL argument");
    *format = sp__policy_spmv_format(sp__policy_for(ctx), A->f.coo.nrows, A->f.coo.nnz,
                                     A->row_max, A->row_mean);
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

sp_status_t sp_spmv(sp_context_t *ctx, sp_format_t format, sp_spmv_alg_t alg,
                    const void *alpha, sp_matrix_t *A, const void *x, const void *beta,
                    void *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned built_before = A ? A->built : 0;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "sp_spmv: ctx or A is NULL");
    SP_CHECK_ARG(alpha != NULL && beta != NULL, "sp_spmv: alpha or beta is NULL");
    SP_CHECK_ARG((x != NULL || A->f.coo.ncols == 0) && (y != NULL || A->f.coo.nrows == 0),
                 "sp_spmv: x or y is NULL");
    SP_CHECK_ARG(A->ctx == ctx, "sp_spmv: matrix belongs to another context");
    SP_CHECK_ARG(A->f.coo.value_type != SP_VALUE_NONE,
                 "sp_spmv: the matrix is a pattern (no values); load it with values");
    SP_CHECK_ARG(format == SP_FORMAT_AUTO || ((int)format >= 0 && format < SP_FORMAT_COUNT),
                 "sp_spmv: unknown format %d", (int)format);
    if (format == SP_FORMAT_AUTO) SP_TRY(sp_spmv_choose_format(ctx, A, &format));
    SP_CHECK_ARG(alg_fits(format, alg), "sp_spmv: algorithm %d does not apply to format %s",
                 (int)alg, sp_format_name(format));
    SP_TRY(sp_matrix_build(ctx, A, format));
    if (ctx->kind == SP_DEVICE_CUDA)
        SP_TRY(sp__cuda_spmv(A, format, alg, alpha, x, beta, y));
    else
        spmv_host(A, format, alpha, x, beta, y);
done:
    /* a failure after a build (a plan's allocation) leaves A as it was */
    if (st != SP_STATUS_SUCCESS && A != NULL && ctx != NULL && A->ctx == ctx)
        sp__matrix_drop_formats_since(A, built_before);
    return sp__context_record(ctx, st);
}
