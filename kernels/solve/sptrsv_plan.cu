/* Sparse triangular solve analysis and dispatch (placeholder until the kernels land:
 * refuses with SP_STATUS_NOT_SUPPORTED). */
#include "sp_base.h"
#include "sp_kernels_solve.h"

extern "C" sp_status_t sp__gpu_sptrsv_analyse(const sp_gpu_env_t *, const sp_csr_t *, int, int,
                                              sp_gpu_sptrsv_alg_t, sp_gpu_sptrsv_plan_t **)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_FAIL(SP_STATUS_NOT_SUPPORTED, "sp__gpu_sptrsv_analyse: not in this build");
done:
    return st;
}

extern "C" sp_status_t sp__gpu_sptrsv_solve(const sp_gpu_env_t *, const sp_gpu_sptrsv_plan_t *,
                                            const sp_csr_t *, const void *, const void *,
                                            void *)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_FAIL(SP_STATUS_NOT_SUPPORTED, "sp__gpu_sptrsv_solve: not in this build");
done:
    return st;
}

extern "C" int64_t sp__gpu_sptrsv_plan_levels(const sp_gpu_sptrsv_plan_t *) { return 0; }

extern "C" void sp__gpu_sptrsv_plan_free(const sp_gpu_env_t *, sp_gpu_sptrsv_plan_t *) {}
