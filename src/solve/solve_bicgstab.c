/* BiCGSTAB (van der Vorst 1992; Saad, Iterative Methods, alg. 7.7) for non-symmetric A.
 * Its scalars are read on the host at each dot product (rho, r^.v, t.s, t.t and the norms
 * of s and r): the method branches on them (breakdown, early convergence on s). */
#include <math.h>

#include "solve_internal.h"

/* Reads ||v|| after z = a x + b y (+ c z) with the norm in the same pass. */
static sp_status_t update_norm(sp_solver_t *s, double a, const sp_vector_t *x, double b,
                               const sp_vector_t *y, sp_vector_t *z, double *h_norm)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    double *slot = sp__solver_slot(s, SLOT_TMP);
    SP_TRY(sp__vec_update(s->ctx, sp__coef(a), x, sp__coef(b), y, sp__coef(0), z, z, slot, 1));
    SP_TRY(sp__vec_read(s->ctx, slot, 1, h_norm));
done:
    return st;
}

sp_status_t sp__solve_bicgstab(sp_solver_t *s, const sp_vector_t *b, sp_vector_t *x,
                               double bnorm)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_context_t *ctx = s->ctx;
    sp_vector_t *r = s->r, *rh = s->rhat, *p = s->p, *v = s->q, *sv = s->s, *t = s->tv;
    int64_t maxit = sp__solver_max_iterations(s), k;
    double rtol = sp__solver_rtol(s), rho_old = 1, alpha = 1, omega = 1, rho, rv, ts, tt;
    double rnorm, snorm;
    sp_solver_status_t verdict = SP_SOLVER_MAX_ITERATIONS;
    SP_TRY(sp__solver_residual(s, b, s->options.use_initial_guess ? x : NULL, r));
    SP_TRY(sp_vector_copy(ctx, r, rh));
    SP_TRY(sp__solver_dot(s, r, NULL, 1, &rnorm));
    s->result.recurrence_residual = rnorm / bnorm;
    if (rnorm <= rtol * bnorm) {
        s->result.status = SP_SOLVER_CONVERGED;
        goto done;
    }
    for (k = 0; k < maxit; k++) {
        s->result.iterations = k + 1;
        SP_TRY(sp__solver_dot(s, rh, r, 0, &rho));
        if (!isfinite(rho)) { verdict = SP_SOLVER_DIVERGED; break; }
        if (rho == 0.0) { verdict = SP_SOLVER_BREAKDOWN; break; }
        if (k == 0) {
            SP_TRY(sp_vector_copy(ctx, r, p));
        } else {
            /* p = r + beta (p - omega v) */
            double beta = (rho / rho_old) * (alpha / omega);
            SP_TRY(sp__vec_update(ctx, sp__coef(1), r, sp__coef(-beta * omega), v,
                                  sp__coef(beta), p, NULL, NULL, 0));
        }
        SP_TRY(sp__solver_spmv(s, 1.0, p, 0.0, v));
        SP_TRY(sp__solver_dot(s, rh, v, 0, &rv));
        if (!isfinite(rv)) { verdict = SP_SOLVER_DIVERGED; break; }
        if (rv == 0.0) { verdict = SP_SOLVER_BREAKDOWN; break; }
        alpha = rho / rv;
        SP_TRY(update_norm(s, 1.0, r, -alpha, v, sv, &snorm)); /* s = r - alpha v */
        s->result.recurrence_residual = snorm / bnorm;
        if (!isfinite(snorm)) { verdict = SP_SOLVER_DIVERGED; break; }
        if (snorm <= rtol * bnorm) { /* x += alpha p and stop: s is the residual */
            SP_TRY(sp_vector_axpby(ctx, alpha, p, 1.0, x));
            verdict = SP_SOLVER_CONVERGED;
            break;
        }
        SP_TRY(sp__solver_spmv(s, 1.0, sv, 0.0, t));
        SP_TRY(sp__solver_dot(s, t, sv, 0, &ts));
        SP_TRY(sp__solver_dot(s, t, t, 0, &tt));
        if (!isfinite(ts) || !isfinite(tt)) { verdict = SP_SOLVER_DIVERGED; break; }
        if (tt == 0.0) { verdict = SP_SOLVER_BREAKDOWN; break; }
        omega = ts / tt;
        /* x += alpha p + omega s; r = s - omega t */
        SP_TRY(sp__vec_update(ctx, sp__coef(alpha), p, sp__coef(omega), sv, sp__coef(1), x,
                              NULL, NULL, 0));
        SP_TRY(update_norm(s, 1.0, sv, -omega, t, r, &rnorm));
        s->result.recurrence_residual = rnorm / bnorm;
        if (!isfinite(rnorm)) { verdict = SP_SOLVER_DIVERGED; break; }
        if (rnorm <= rtol * bnorm) { verdict = SP_SOLVER_CONVERGED; break; }
        if (omega == 0.0) { verdict = SP_SOLVER_BREAKDOWN; break; }
        rho_old = rho;
    }
    s->result.status = verdict;
done:
    return st;
}
