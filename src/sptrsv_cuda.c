/* The triangular solve on a CUDA context: one analysis (kernels/solve/) per triangle,
 * diagonal kind and algorithm, made on first use and cached in the matrix, so a solver's
 * repeated solves pay neither analysis nor allocation. AUTO and the kernel behind
 * SOFT_SYNC: src/policy.c. The kernels are templates on the offset type (issue 20): a
 * matrix with 64-bit offsets below the narrow limit is analysed and solved through its
 * CSR's pointers narrowed on the device (sp__matrix_csr32, made once and kept with the
 * CSR), so the 32-bit matrix's plans and results, bit for bit; past the limit the kernels'
 * int64_t instances read the CSR's own 64-bit pointers (nothing narrowed). */
#include "policy.h"

#ifdef SP_HAVE_CUDA
#include "sp_kernels_solve.h"

/* plan[upper][unit_diag][slot]: slot 0 level scheduling (LEVELS, and AUTO on chains),
 * 1 the soft kernel (SOFT_SYNC, and AUTO on wide levels), 2 the single-block kernel (AUTO
 * on small triangles). */
#define SLOT_LEVELS 0
#define SLOT_SOFT 1
#define SLOT_SMALL 2
#define SLOTS 3
typedef struct sptrsv_plans {
    sp_gpu_sptrsv_plan_t *plan[2][2][SLOTS];
} sptrsv_plans_t;

/* *slot = the cached plan of (upper, unit_diag, slot s), analysed now if it is not there
 * yet. */
static sp_status_t plan_for(const sp_gpu_env_t *env, sp_matrix_t *A, sptrsv_plans_t *p,
                            int upper, int unit_diag, int s, sp_gpu_sptrsv_plan_t ***slot)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    *slot = &p->plan[upper != 0][unit_diag != 0][s];
    if (!**slot) {
        sp_gpu_sptrsv_plan_t *made = NULL;
        sp_csr_t csr;
        int kernel = SP_GPU_SPTRSV_LEVELS;
        if (s == SLOT_SOFT) kernel = sp__policy_for(A->ctx)->sptrsv->soft_kernel;
        if (s == SLOT_SMALL) kernel = SP_GPU_SPTRSV_SMALL;
        SP_TRY(sp__matrix_csr_either(A, &csr));
        SP_TRY(sp__gpu_sptrsv_analyse(env, &csr, upper, unit_diag, (sp_gpu_sptrsv_alg_t)kernel,
                                      &made));
        **slot = made;
    }
done:
    return st;
}

/* AUTO's rule, for sp__gpu_sptrsv_analyse_both (arg: the policy). */
static int levels_wanted(const void *pol, int64_t n, int64_t nlevels)
{
    return sp__policy_sptrsv_use_levels((const sp__policy_t *)pol, n, nlevels);
}

/* *plan = the plan a solve of (upper, unit_diag, alg) runs, analysed now where missing (AUTO
 * may make two: the soft plan counts the levels, and a triangle that suits level scheduling
 * better gets that plan too, from the same analysis; both stay cached). A failed call keeps
 * no plan it made and leaves a matrix that had no plan table without one. */
static sp_status_t plan_of(const sp_gpu_env_t *env, sp_matrix_t *A, int upper, int unit_diag,
                           int alg, const sp_gpu_sptrsv_plan_t **plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sptrsv_plans_t *p = A->sptrsv_plans, *fresh = NULL;
    sp_gpu_sptrsv_plan_t **slot = NULL, **pair = NULL;
    const sp__policy_t *pol = sp__policy_for(A->ctx);
    int had[SLOTS] = {1, 1, 1};
    if (!p) SP_CALLOC(fresh, 1);
    if (fresh) p = fresh;
    pair = p->plan[upper != 0][unit_diag != 0];
    for (int s = 0; s < SLOTS; s++) had[s] = pair[s] != NULL;
    if (alg == SP_SPTRSV_ALG_AUTO &&
        sp__policy_sptrsv_use_small(pol, A->f.csr.nrows, A->f.csr.nnz,
                                    sp_value_size(A->f.csr.value_type))) {
        SP_TRY(plan_for(env, A, p, upper, unit_diag, SLOT_SMALL, &slot));
    } else if (alg == SP_SPTRSV_ALG_AUTO) {
        slot = &pair[SLOT_SOFT];
        if (!*slot) {
            sp_gpu_sptrsv_plan_t *soft = NULL, *levels = NULL;
            sp_csr_t csr;
            SP_TRY(sp__matrix_csr_either(A, &csr));
            SP_TRY(sp__gpu_sptrsv_analyse_both(env, &csr, upper, unit_diag,
                                               (sp_gpu_sptrsv_alg_t)pol->sptrsv->soft_kernel,
                                               levels_wanted, pol, &soft, &levels));
            *slot = soft;
            if (levels && !pair[SLOT_LEVELS])
                pair[SLOT_LEVELS] = levels;
            else
                sp__gpu_sptrsv_plan_free(env, levels);
        }
        if (sp__policy_sptrsv_use_levels(pol, A->f.csr.nrows, sp__gpu_sptrsv_plan_levels(*slot)))
            SP_TRY(plan_for(env, A, p, upper, unit_diag, SLOT_LEVELS, &slot));
    } else {
        SP_TRY(plan_for(env, A, p, upper, unit_diag,
                        alg == SP_SPTRSV_ALG_SOFT_SYNC ? SLOT_SOFT : SLOT_LEVELS, &slot));
    }
    A->sptrsv_plans = p;
    fresh = NULL;
    *plan = *slot;
done:
    if (st != SP_STATUS_SUCCESS && pair)
        for (int a = 0; a < SLOTS; a++)
            if (!had[a] && pair[a]) {
                sp__gpu_sptrsv_plan_free(env, pair[a]);
                pair[a] = NULL;
            }
    sp__free(fresh);
    return st;
}

sp_status_t sp__cuda_sptrsv_analyse(sp_matrix_t *A, int upper, int unit_diag, int alg)
{
    sp_gpu_env_t env;
    const sp_gpu_sptrsv_plan_t *plan = NULL;
    sp__cuda_env(A->ctx, &env);
    return plan_of(&env, A, upper, unit_diag, alg, &plan);
}

sp_status_t sp__cuda_sptrsv(sp_matrix_t *A, int upper, int unit_diag, int alg,
                            const void *alpha, const void *b, void *x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    const sp_gpu_sptrsv_plan_t *plan = NULL;
    sp_csr_t csr;
    sp__cuda_env(A->ctx, &env);
    SP_TRY(plan_of(&env, A, upper, unit_diag, alg, &plan));
    SP_TRY(sp__matrix_csr_either(A, &csr)); /* narrowed by the analysis where it narrows */
    SP_TRY(sp__gpu_sptrsv_solve(&env, plan, &csr, alpha, b, x));
done:
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
            for (int a = 0; a < SLOTS; a++) sp__gpu_sptrsv_plan_free(&env, p->plan[u][d][a]);
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

sp_status_t sp__cuda_sptrsv_analyse(sp_matrix_t *A, int upper, int unit_diag, int alg)
{
    (void)A, (void)upper, (void)unit_diag, (void)alg;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

void sp__cuda_sptrsv_free_plans(sp_matrix_t *A) { (void)A; }

#endif
