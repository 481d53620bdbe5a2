/* y = alpha * A * x + beta * y over HYB (Bell & Garland 2009; PMPP ch. 14): the ELL part
 * with the caller's beta (sp__gpu_spmv_ell), then the COO overflow added on top with
 * reductions (sp__gpu_spmv_coo_accumulate), both queued on the same stream in that order. */
#include "spmv_common.cuh"

using namespace spmv;

extern "C" sp_status_t sp__gpu_spmv_hyb(const sp_gpu_env_t *env, const sp_hyb_t *a,
                                        const void *alpha, const void *d_x, const void *beta,
                                        void *d_y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(a != NULL, "spmv hyb: NULL matrix");
    SP_TRY(check_call("spmv hyb", env, a->ell.value_type, a->ell.nrows, a->ell.ncols, alpha,
                      d_x, beta, d_y));
    SP_CHECK_ARG(a->coo.nnz == 0 ||
                     (a->coo.nrows == a->ell.nrows && a->coo.ncols == a->ell.ncols &&
                      a->coo.value_type == a->ell.value_type),
                 "spmv hyb: overflow %lld x %lld (value type %d) does not match ELL %lld x "
                 "%lld (value type %d)",
                 (long long)a->coo.nrows, (long long)a->coo.ncols, (int)a->coo.value_type,
                 (long long)a->ell.nrows, (long long)a->ell.ncols, (int)a->ell.value_type);
    SP_TRY(sp__gpu_spmv_ell(env, &a->ell, alpha, d_x, beta, d_y));
    if (a->coo.nnz > 0) SP_TRY(sp__gpu_spmv_coo_accumulate(env, &a->coo, alpha, d_x, d_y));
done:
    return st;
}
