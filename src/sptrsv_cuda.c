/* The triangular solve on a CUDA context: one analysis (kernels/solve/) per triangle,
 * diagonal kind and algorithm, made on first use and cached in the matrix, so a solver's
 * repeated solves pay neither analysis nor allocation. */
#include "sp_api.h"

#ifdef SP_HAVE_CUDA
#include "sp_kernels_solve.h"

/* plan[upper][unit_diag][alg - 1] for alg LEVELS (1) and SOFT_SYNC (2). */
typedef struct sptrsv_plans {
    sp_gpu_sptrsv_plan_t *plan[2][2][2];
} sptrsv_plans_t;

sp_status_t sp__cuda_sptrsv(sp_matrix_t *A, int upper, int unit_diag, int alg,
                            const void *alpha, const void *b, void *x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    sptrsv_plans_t *p = A->sptrsv_plans, *fresh = NULL;
    sp_gpu_sptrsv_plan_t **slot;
    sp__cuda_env(A->ctx, &env);
    if (!p) SP_CALLOC(fresh, 1);
    if (fresh) p = fresh;
    slot = &p->plan[upper != 0][unit_diag != 0][alg == SP_SPTRSV_ALG_SOFT_SYNC];
    if (!*slot) {
        sp_gpu_sptrsv_plan_t *made = NULL;
        SP_TRY(sp__gpu_sptrsv_analyse(&env, &A->f.csr, upper, unit_diag,
                                      alg == SP_SPTRSV_ALG_SOFT_SYNC ? SP_GPU_SPTRSV_SOFT
                                                                     : SP_GPU_SPTRSV_LEVELS,
                                      &made));
        *slot = made;
    }
    A->sptrsv_plans = p;
    fresh = NULL;
    SP_TRY(sp__gpu_sptrsv_solve(&env, *slot, &A->f.csr, alpha, b, x));
done:
    sp__free(fresh); /* a failed first analysis leaves the matrix without a plan table */
    return st;
}

void sp__cuda_sptrsv_free_plans(sp_matrix_t *A)
{
    sptrsv_plans_t *p = A->sptrsv_plans;
    sp_gpu_env_t env;
    if (!p) return;
    sp__cuda_env(A->ctx, &env);
    for (int u = 0; u < 2; u++)
        for (int d = 0; d < 2; d++)
            for (int a = 0; a < 2; a++) sp__gpu_sptrsv_plan_free(&env, p->plan[u][d][a]);
    sp__free(p);
    A->sptrsv_plans = NULL;
}

#else /* !SP_HAVE_CUDA */

sp_status_t sp__cuda_sptrsv(sp_matrix_t *A, int upper, int unit_diag, int alg,
                            const void *alpha, const void *b, void *x)
{
    (void)A, (void)upper, (void)unit_diag, (void)alg, (void)alpha, (void)b, (void)x;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

void sp__cuda_sptrsv_free_plans(sp_matrix_t *A) { (void)A; }

#endif
