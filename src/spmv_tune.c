/* sp_spmv_tune: pick A's SpMV format and algorithm once and cache it in A (sp.h). On a CUDA
 * context by timing each candidate on A; on a host context the cost model's pick. */
#include "policy.h"

/* The candidates timed on a GPU: CSR's algorithms, then the other formats (DEFAULT). */
static const struct {
    sp_format_t format;
    sp_spmv_alg_t alg;
} CANDIDATES[] = {
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_ADAPTIVE}, {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_BINNED},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_SCALAR},   {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_VECTOR},
    {SP_FORMAT_CSR, SP_SPMV_ALG_CSR_MERGE},    {SP_FORMAT_ELL, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_HYB, SP_SPMV_ALG_DEFAULT},      {SP_FORMAT_JDS, SP_SPMV_ALG_DEFAULT},
    {SP_FORMAT_SELL, SP_SPMV_ALG_DEFAULT},
};
enum { TUNE_WARM = 3, TUNE_TIMED = 10 };

/* Whether candidate i serves A: with 64-bit offsets past the narrow limit (issue 20) CSR
 * binned and adaptive refuse before any work, so they are not tried (a candidate that
 * fails its sp_spmv_prepare otherwise is passed over below). */
static int candidate_serves(const sp_matrix_t *A, size_t i)
{
    sp_spmv_alg_t alg = CANDIDATES[i].alg;
    if (A->offset_bits != 64 || sp__matrix_narrows(A)) return 1;
    return alg != SP_SPMV_ALG_CSR_BINNED && alg != SP_SPMV_ALG_CSR_ADAPTIVE;
}

/* The fastest candidate on A's GPU in *format, *alg. A candidate whose format cannot be
 * built (ELL over its bound, refused past the narrow limit, or out of memory) is passed
 * over; the formats built here and not chosen are released again, and so are CSR's plans
 * but the chosen one's. */
static sp_status_t tune_cuda(sp_context_t *ctx, sp_matrix_t *A, sp_format_t *format,
                             sp_spmv_alg_t *alg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned built_before = A->built;
    double best = -1.0;
    for (size_t i = 0; i < sizeof CANDIDATES / sizeof CANDIDATES[0]; i++) {
        sp_format_t f = CANDIDATES[i].format;
        double ms = 0.0;
        if (!candidate_serves(A, i)) continue;
        if (sp_spmv_prepare(ctx, A, f, CANDIDATES[i].alg) != SP_STATUS_SUCCESS) continue;
        SP_TRY(sp__cuda_spmv_time(A, f, CANDIDATES[i].alg, TUNE_WARM, TUNE_TIMED, &ms));
        if (best < 0.0 || ms < best) {
            best = ms;
            *format = f;
            *alg = CANDIDATES[i].alg;
        }
    }
    if (best < 0.0)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "sp_spmv_tune: no candidate format could be built");
done:
    sp__matrix_drop_formats_since(A, built_before | (st == SP_STATUS_SUCCESS ? 1u << *format : 0u));
    /* the plans of the CSR algorithms timed and not chosen go too; the winner's is made
     * again, so that the next product neither allocates nor analyses */
    sp__cuda_spmv_free_plans(A, SP_FORMAT_CSR);
    if (st == SP_STATUS_SUCCESS) st = sp_spmv_prepare(ctx, A, *format, *alg);
    return st;
}

sp_status_t sp_spmv_tune(sp_context_t *ctx, sp_matrix_t *A, sp_format_t *format,
                         sp_spmv_alg_t *alg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_format_t f = SP_FORMAT_CSR;
    sp_spmv_alg_t a = SP_SPMV_ALG_DEFAULT;
    int was_tuned = A ? A->tuned : 0;
    SP_CHECK_ARG(ctx != NULL && A != NULL, "sp_spmv_tune: ctx or A is NULL");
    SP_CHECK_ARG(A->ctx == ctx, "sp_spmv_tune: matrix belongs to another context");
    SP_CHECK_ARG(A->f.coo.value_type != SP_VALUE_NONE,
                 "sp_spmv_tune: the matrix is a pattern (no values); load it with values");
    A->tuned = 0; /* the model's pick, not an earlier tune's */
    if (ctx->kind == SP_DEVICE_CUDA) SP_TRY(tune_cuda(ctx, A, &f, &a));
    else sp__spmv_auto(ctx, A, &f, &a);
    A->tuned = 1;
    A->tuned_format = f;
    A->tuned_alg = a;
    if (format) *format = f;
    if (alg) *alg = a;
done:
    if (st != SP_STATUS_SUCCESS && A != NULL && A->ctx == ctx) A->tuned = was_tuned;
    return sp__context_record(ctx, st);
}
