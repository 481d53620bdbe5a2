/* Conjugate gradient, plain or preconditioned (Hestenes & Stiefel; Saad, Iterative
 * Methods, alg. 9.1). The scalars stay in the context's memory: alpha = rho / p.Ap and
 * beta = rho_new / rho are read by the update steps as device-side coefficients, the
 * residual update and r.r share one pass, and the host reads p.Ap, r.r and rho together
 * once per iteration to decide whether to stop. */
#include <math.h>

#include "solve_internal.h"

/* A device-side coefficient sign * num / den (0 when den is 0). */
static sp_vec_coef_t ratio(sp_solver_t *s, double sign, int num, int den)
{
    sp_vec_coef_t c = {sign, sp__solver_slot(s, num), sp__solver_slot(s, den)};
    return c;
}

/* How one iteration's scalars end the loop, or -1 to go on. rho is the one this iteration
 * used; rr is r.r after it. */
static int judge(double pq, double rr, double rho, double bnorm, double rtol)
{
    if (!isfinite(pq) || !isfinite(rr) || !isfinite(rho)) return SP_SOLVER_DIVERGED;
    if (pq <= 0.0 || rho == 0.0) return SP_SOLVER_BREAKDOWN;
    if (sqrt(rr) <= rtol * bnorm) return SP_SOLVER_CONVERGED;
    return -1;
}

sp_status_t sp__solve_cg(sp_solver_t *s, const sp_vector_t *b, sp_vector_t *x, double bnorm)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_context_t *ctx = s->ctx;
    int plain = s->type == SP_SOLVER_CG, cur = SLOT_RHO0, nxt = SLOT_RHO1, verdict = -1;
    sp_vector_t *z = plain ? s->r : s->z;
    int64_t maxit = sp__solver_max_iterations(s), k;
    double rtol = sp__solver_rtol(s), h[SLOT_NREAD] = {0};
    SP_TRY(sp__solver_residual(s, b, s->options.use_initial_guess ? x : NULL, s->r));
    /* rho_0 = r . z, and ||r|| for a start that already meets the tolerance */
    if (plain) SP_TRY(sp__vec_dot(ctx, s->r, s->r, sp__solver_slot(s, cur), 0));
    else SP_TRY(sp__precond_apply(s, s->r, z, sp__solver_slot(s, cur)));
    SP_TRY(sp__vec_dot(ctx, s->r, s->r, sp__solver_slot(s, SLOT_RR), 0));
    SP_TRY(sp__vec_read(ctx, sp__solver_slot(s, 0), SLOT_NREAD, h));
    s->result.recurrence_residual = sqrt(h[SLOT_RR]) / bnorm;
    if (sqrt(h[SLOT_RR]) <= rtol * bnorm) {
        s->result.status = SP_SOLVER_CONVERGED;
        goto done;
    }
    SP_TRY(sp__vec_update(ctx, sp__coef(1), z, sp__coef(0), NULL, sp__coef(0), s->p, NULL,
                          NULL, 0));
    for (k = 0; k < maxit && verdict < 0; k++) {
        /* q = A p; alpha = rho / p.q; x += alpha p; r -= alpha q with r.r in the same pass
         * (plain CG: straight into the next rho slot, since there z is r) */
        int rr_slot = plain ? nxt : SLOT_RR;
        SP_TRY(sp__solver_spmv(s, 1.0, s->p, 0.0, s->q));
        SP_TRY(sp__vec_dot(ctx, s->p, s->q, sp__solver_slot(s, SLOT_PQ), 0));
        SP_TRY(sp__vec_update(ctx, ratio(s, 1, cur, SLOT_PQ), s->p, sp__coef(0), NULL,
                              sp__coef(1), x, NULL, NULL, 0));
        SP_TRY(sp__vec_update(ctx, ratio(s, -1, cur, SLOT_PQ), s->q, sp__coef(0), NULL,
                              sp__coef(1), s->r, s->r, sp__solver_slot(s, rr_slot), 0));
        SP_TRY(sp__vec_read(ctx, sp__solver_slot(s, 0), SLOT_NREAD, h));
        s->result.iterations = k + 1;
        s->result.recurrence_residual = sqrt(h[rr_slot]) / bnorm;
        verdict = judge(h[SLOT_PQ], h[rr_slot], h[cur], bnorm, rtol);
        if (verdict >= 0) break;
        /* z = M^-1 r with rho_new = r . z; p = z + (rho_new / rho) p */
        if (!plain) SP_TRY(sp__precond_apply(s, s->r, z, sp__solver_slot(s, nxt)));
        SP_TRY(sp__vec_update(ctx, sp__coef(1), z, sp__coef(0), NULL, ratio(s, 1, nxt, cur),
                              s->p, NULL, NULL, 0));
        cur = nxt;
        nxt = cur == SLOT_RHO0 ? SLOT_RHO1 : SLOT_RHO0;
    }
    s->result.status = verdict >= 0 ? (sp_solver_status_t)verdict : SP_SOLVER_MAX_ITERATIONS;
done:
    return st;
}
