/* sp_sptrsv and sp_sptrsv_analyse: argument checks and dispatch of the sparse triangular
 * solve x = alpha T^-1 b on one triangle of A's own CSR (host: the reference substitution;
 * CUDA: kernels/solve/ through a plan cached in the matrix, made by sp_sptrsv_analyse or by
 * the first solve). */
#include "sp_api.h"

/* The checks both entry points share (b and x only where given). */
static sp_status_t check_args(sp_context_t *ctx, sp_matrix_t *A, sp_uplo_t uplo, sp_diag_t diag,
                              sp_sptrsv_alg_t alg, const char *what)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t n;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "%s: ctx or A is NULL", what);
    SP_CHECK_ARG(A->ctx == ctx, "%s: matrix belongs to another context", what);
    n = A->f.coo.nrows;
    SP_CHECK_ARG(n == A->f.coo.ncols, "%s: matrix is %lld x %lld, not square", what,
                 (long long)n, (long long)A->f.coo.ncols);
    SP_CHECK_ARG(A->f.coo.value_type != SP_VALUE_NONE, "%s: the matrix is a pattern (no values)",
                 what);
    SP_CHECK_ARG(uplo == SP_UPLO_LOWER || uplo == SP_UPLO_UPPER, "%s: unknown uplo %d", what,
                 (int)uplo);
    SP_CHECK_ARG(diag == SP_DIAG_NON_UNIT || diag == SP_DIAG_UNIT, "%s: unknown diag %d", what,
                 (int)diag);
    SP_CHECK_ARG(alg == SP_SPTRSV_ALG_AUTO || alg == SP_SPTRSV_ALG_LEVELS ||
                     alg == SP_SPTRSV_ALG_SOFT_SYNC,
                 "%s: unknown algorithm %d", what, (int)alg);
done:
    return st;
}

sp_status_t sp_sptrsv_analyse(sp_context_t *ctx, sp_matrix_t *A, sp_uplo_t uplo, sp_diag_t diag,
                              sp_sptrsv_alg_t alg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned built_before = A ? A->built : 0;
    SP_TRY(check_args(ctx, A, uplo, diag, alg, "sp_sptrsv_analyse"));
    SP_TRY(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
    if (ctx->kind == SP_DEVICE_CUDA)
        SP_TRY(sp__cuda_sptrsv_analyse(A, uplo == SP_UPLO_UPPER, diag == SP_DIAG_UNIT, (int)alg));
done:
    if (st != SP_STATUS_SUCCESS && A != NULL && ctx != NULL && A->ctx == ctx)
        sp__matrix_drop_formats_since(A, built_before);
    return sp__context_record(ctx, st);
}

sp_status_t sp_sptrsv(sp_context_t *ctx, sp_matrix_t *A, sp_uplo_t uplo, sp_diag_t diag,
                      sp_sptrsv_alg_t alg, const void *alpha, const void *b, void *x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t n;
    size_t vs;
    unsigned built_before = A ? A->built : 0;
    SP_TRY(check_args(ctx, A, uplo, diag, alg, "sp_sptrsv"));
    n = A->f.coo.nrows;
    SP_CHECK_ARG(alpha != NULL, "sp_sptrsv: alpha is NULL");
    SP_CHECK_ARG(n == 0 || (b != NULL && x != NULL), "sp_sptrsv: b or x is NULL");
    vs = sp_value_size(A->f.coo.value_type);
    SP_CHECK_ARG(n == 0 || (const char *)b + (size_t)n * vs <= (const char *)x ||
                     (const char *)x + (size_t)n * vs <= (const char *)b,
                 "sp_sptrsv: b and x overlap");
    SP_TRY(sp_matrix_build(ctx, A, SP_FORMAT_CSR));
    if (ctx->kind == SP_DEVICE_CUDA)
        SP_TRY(sp__cuda_sptrsv(A, uplo == SP_UPLO_UPPER, diag == SP_DIAG_UNIT, (int)alg, alpha,
                               b, x));
    else
        SP_TRY(sp__ref_sptrsv(&A->f.csr, uplo == SP_UPLO_UPPER, diag == SP_DIAG_UNIT, alpha, b,
                              x));
done:
    /* a failure after the CSR build (the analysis's allocations) leaves A as it was */
    if (st != SP_STATUS_SUCCESS && A != NULL && ctx != NULL && A->ctx == ctx)
        sp__matrix_drop_formats_since(A, built_before);
    return sp__context_record(ctx, st);
}
