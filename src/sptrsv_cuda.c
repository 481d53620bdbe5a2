/* The triangular solve on a CUDA context: one analysis (kernels/solve/) per triangle,
 * diagonal kind and algorithm, made on first use and cached in the matrix, so a solver's
 * repeated solves pay neither analysis nor allocation. AUTO and the kernel behind
 * SOFT_SYNC: src/policy.c. */
#include "policy.h"

#ifdef SP_HAVE_CUDA
#include "sp_kernels_solve.h"

/* plan[upper][unit_diag][alg - 1] for alg LEVELS (1) and SOFT_SYNC (2). */
typedef struct sptrsv_plans {
    sp_gpu_sptrsv_plan_t *plan[2][2][2];
} sptrsv_plans_t;

/* *slot = the cached plan of (upper, unit_diag, alg LEVELS or SOFT_SYNC), analysed now
 * if it is not there yet. */
static sp_status_t plan_for(const sp_gpu_env_t *env, sp_matrix_t *A, sptrsv_plans_t *p,
                            int upper, int unit_diag, int alg, sp_gpu_sptrsv_plan_t ***slot)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    *slot = &p->plan[upper != 0][unit_diag != 0][alg == SP_SPTRSV_ALG_SOFT_SYNC];
    if (!**slot) {
        sp_gpu_sptrsv_plan_t *made = NULL;
        int kernel = SP_GPU_SPTRSV_LEVELS;
        if (alg == SP_SPTRSV_ALG_SOFT_SYNC) kernel = sp__policy_for(A->ctx)->sptrsv->soft_kernel;
        SP_TRY(sp__gpu_sptrsv_analyse(env, &A->f.csr, upper, unit_diag,
                                      (sp_gpu_sptrsv_alg_t)kernel, &made));
        **slot = made;
    }
done:
    return st;
}

sp_status_t sp__cuda_sptrsv(sp_matrix_t *A, int upper, int unit_diag, int alg,
                            const void *alpha, const void *b, void *x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    sptrsv_plans_t *p = A->sptrsv_plans, *fresh = NULL;
    sp_gpu_sptrsv_plan_t **slot, **pair = NULL;
    int had[2] = {1, 1}, planned = 0;
    sp__cuda_env(A->ctx, &env);
    if (!p) SP_CALLOC(fresh, 1);
    if (fresh) p = fresh;
    pair = p->plan[upper != 0][unit_diag != 0];
    had[0] = pair[0] != NULL, had[1] = pair[1] != NULL;
    if (alg == SP_SPTRSV_ALG_AUTO) {
        /* the soft plan's analysis counts the levels; a triangle that suits level
         * scheduling better gets that plan too, once (both stay cached) */
        int64_t levels;
        SP_TRY(plan_for(&env, A, p, upper, unit_diag, SP_SPTRSV_ALG_SOFT_SYNC, &slot));
        levels = sp__gpu_sptrsv_plan_levels(*slot);
        if (sp__policy_sptrsv_use_levels(sp__policy_for(A->ctx), A->f.csr.nrows, levels))
            SP_TRY(plan_for(&env, A, p, upper, unit_diag, SP_SPTRSV_ALG_LEVELS, &slot));
    } else {
        SP_TRY(plan_for(&env, A, p, upper, unit_diag, alg, &slot));
    }
    A->sptrsv_plans = p;
    fresh = NULL;
    planned = 1;
    SP_TRY(sp__gpu_sptrsv_solve(&env, *slot, &A->f.csr, alpha, b, x));
done:
    if (st != SP_STATUS_SUCCESS && !planned && pair) {
        /* a call that failed before its solve keeps no plan it made (AUTO may make two) */
        for (int a = 0; a < 2; a++)
            if (!had[a] && pair[a]) {
                sp__gpu_sptrsv_plan_free(&env, pair[a]);
                pair[a] = NULL;
            }
    }
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
