/* Distributed CG and PCG-Jacobi (Hestenes & Stiefel; Saad, Iterative Methods, alg. 9.1), the
 * single-context solver's loop (src/solve/solve_cg.c) on distributed vectors: the vector
 * steps run on each rank's part with their scalars in the context's memory, dot products
 * are local sums completed there by an all-reduce (p.Ap alone, then r.r and r.z in one),
 * so every rank takes the same decisions and the host waits three times an iteration (the
 * halo, the two all-reduces) and reads the scalars once. */
#include <math.h>
#include <string.h>

#include "dist_internal.h"
#include "sp_vector.h" /* the vector steps with results in the context's memory */

/* out[i] = sum over the ranks of x_i . y_i, for n pairs, in one all-reduce. */
static sp_status_t dots(sp_dist_matrix_t *A, int n, const sp_vector_t *const *x,
                        const sp_vector_t *const *y, double *out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int i;
    for (i = 0; i < n; i++) {
        out[i] = 0.0;
        if (A->nloc > 0) SP_TRY(sp_vector_dot(A->ctx, x[i], y[i], &out[i]));
    }
    SP_TRY(sp__comm_allreduce_host(A->comm, out, n, SP_COMM_F64, SP_COMM_SUM));
done:
    return st;
}

/* The inverted diagonal as a vector of nloc values (made once); a zero diagonal entry is
 * refused naming its global row. */
static sp_status_t make_jacobi(sp_dist_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    double *d = NULL;
    float *f = NULL;
    int64_t i;
    if (A->jacobi) return SP_STATUS_SUCCESS;
    SP_ALLOC(d, A->nloc > 0 ? A->nloc : 1);
    for (i = 0; i < A->nloc; i++) {
        double v = A->h_diag[i];
        SP_CHECK_ARG(v != 0.0,
                     "sp_dist_solve: PCG-Jacobi: row %lld has no non-zero diagonal"
                     " entry",
                     (long long)(A->rb + i));
        d[i] = 1.0 / v;
    }
    if (A->value_type == SP_R_32F) {
        SP_ALLOC(f, A->nloc > 0 ? A->nloc : 1);
        for (i = 0; i < A->nloc; i++)
            f[i] = (float)d[i];
    }
    SP_TRY(sp_vector_create(A->ctx, A->value_type, A->nloc,
                            A->value_type == SP_R_32F ? (const void *)f : (const void *)d,
                            &A->jacobi));
done:
    sp__free(f);
    sp__free(d);
    return st;
}

static int judge(double pq, double rr, double rho, double bnorm, double rtol)
{
    if (!isfinite(pq) || !isfinite(rr) || !isfinite(rho)) return SP_SOLVER_DIVERGED;
    if (pq <= 0.0 || rho == 0.0) return SP_SOLVER_BREAKDOWN;
    if (sqrt(rr) <= rtol * bnorm) return SP_SOLVER_CONVERGED;
    return -1;
}

typedef struct work {
    sp_vector_t *r, *z, *p, *q;
    double *slot; /* NSLOTS doubles in the context's memory (cg_slots) */
} work_t;

/* The scalars' slots: p.q, then two pairs (r.r, r.z) that the iterations take in turn, so
 * the pair an iteration completes is contiguous (one all-reduce) and the previous one's r.z
 * (this iteration's rho) stays where it is. Plain CG has r.z = r.r and uses only the RZ. */
enum { SLOT_PQ = 0, SLOT_PAIR0 = 1, SLOT_PAIR1 = 3, NSLOTS = 5 };
#define RR(pair) (pair)
#define RZ(pair) ((pair) + 1)

/* A cached work vector of n values of type t, made the first time (a solve in a loop
 * allocates nothing after its first call). */
static sp_status_t work_vector(sp_dist_matrix_t *A, sp_value_type_t t, int64_t n,
                               sp_vector_t **v)
{
    if (*v) return SP_STATUS_SUCCESS;
    return sp_vector_create(A->ctx, t, n, NULL, v);
}

/* The work vectors, cached with A (z is r itself for plain CG). */
static sp_status_t work_vectors(sp_dist_matrix_t *A, int jacobi, work_t *w)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(work_vector(A, A->value_type, A->nloc, &A->cg_r));
    SP_TRY(work_vector(A, A->value_type, A->nloc, &A->cg_p));
    SP_TRY(work_vector(A, A->value_type, A->nloc, &A->cg_q));
    if (jacobi) SP_TRY(work_vector(A, A->value_type, A->nloc, &A->cg_z));
    SP_TRY(work_vector(A, SP_R_64F, NSLOTS, &A->cg_slots));
    *w = (work_t){A->cg_r, jacobi ? A->cg_z : A->cg_r, A->cg_p, A->cg_q,
                  sp_vector_data(A->cg_slots)};
done:
    return st;
}

/* Sum n slots over the ranks where they lie (context memory: the device on NCCL, after the
 * steps that wrote them). One rank: nothing to add. */
static sp_status_t reduce_slots(sp_dist_matrix_t *A, double *slots, int n)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (A->comm->size == 1) return SP_STATUS_SUCCESS;
    SP_TRY(sp__comm_order_after(A->comm, A->ctx));
    SP_TRY(sp_comm_allreduce(A->comm, slots, n, SP_COMM_F64, SP_COMM_SUM));
done:
    return st;
}

/* r.r and r.z (z = M^-1 r made here for PCG-Jacobi) of this rank into the pair's slots, then
 * summed over the ranks in one all-reduce. r.r was already written by the residual update
 * when rr_done. */
static sp_status_t rr_rz(sp_dist_matrix_t *A, int jacobi, work_t *w, int pair, int rr_done)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (!jacobi) { /* z is r: r.z is r.r, in the RZ slot */
        if (!rr_done) SP_TRY(sp__vec_dot(A->ctx, w->r, w->r, &w->slot[RZ(pair)], 0));
        SP_TRY(reduce_slots(A, &w->slot[RZ(pair)], 1));
        return SP_STATUS_SUCCESS;
    }
    if (!rr_done) SP_TRY(sp__vec_dot(A->ctx, w->r, w->r, &w->slot[RR(pair)], 0));
    SP_TRY(sp__vec_pointwise(A->ctx, A->jacobi, w->r, w->z, &w->slot[RZ(pair)]));
    SP_TRY(reduce_slots(A, &w->slot[RR(pair)], 2));
done:
    return st;
}

/* A device-side coefficient sign * slot[num] / slot[den] (0 when the den slot is 0). */
static sp_vec_coef_t ratio(const work_t *w, double sign, int num, int den)
{
    sp_vec_coef_t c = {sign, &w->slot[num], &w->slot[den]};
    return c;
}

/* The CG iterations from x (r = b - A x already), as solve_cg.c's: the scalars stay in the
 * context's memory, where the all-reduces sum them and the update steps read them; the host
 * reads them once an iteration to decide whether to stop. Two all-reduces an iteration:
 * p.q, then (r.r, r.z) together. */
static sp_status_t iterate(sp_dist_matrix_t *A, int jacobi, const sp_solver_options_t *o,
                           work_t *w, sp_vector_t *x, double bnorm, sp_solver_result_t *res)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t maxit = o && o->max_iterations > 0 ? o->max_iterations : 10000, k;
    double rtol = o && o->rtol > 0 ? o->rtol : 1e-8, h[NSLOTS];
    int cur = SLOT_PAIR0, nxt = SLOT_PAIR1, verdict = -1;
    SP_TRY(rr_rz(A, jacobi, w, cur, 0));
    SP_TRY(sp__vec_read(A->ctx, w->slot, NSLOTS, h));
    res->recurrence_residual = sqrt(h[jacobi ? RR(cur) : RZ(cur)]) / bnorm;
    if (sqrt(h[jacobi ? RR(cur) : RZ(cur)]) <= rtol * bnorm) {
        res->status = SP_SOLVER_CONVERGED;
        goto done;
    }
    SP_TRY(sp__vec_update(A->ctx, sp__coef(1), w->z, sp__coef(0), NULL, sp__coef(0), w->p,
                          NULL, NULL, 0));
    for (k = 0; k < maxit && verdict < 0; k++) {
        int rr = jacobi ? RR(nxt) : RZ(nxt);
        /* q = A p; alpha = rho / p.q; x += alpha p; r -= alpha q with r.r in that pass */
        SP_TRY(sp_dist_spmv(A, 1.0, w->p, 0.0, w->q));
        SP_TRY(sp__vec_dot(A->ctx, w->p, w->q, &w->slot[SLOT_PQ], 0));
        SP_TRY(reduce_slots(A, &w->slot[SLOT_PQ], 1));
        SP_TRY(sp__vec_update(A->ctx, ratio(w, 1, RZ(cur), SLOT_PQ), w->p, sp__coef(0), NULL,
                              sp__coef(1), x, NULL, NULL, 0));
        SP_TRY(sp__vec_update(A->ctx, ratio(w, -1, RZ(cur), SLOT_PQ), w->q, sp__coef(0), NULL,
                              sp__coef(1), w->r, w->r, &w->slot[rr], 0));
        /* z = M^-1 r and rho_new = r.z, summed with r.r */
        SP_TRY(rr_rz(A, jacobi, w, nxt, 1));
        SP_TRY(sp__vec_read(A->ctx, w->slot, NSLOTS, h));
        res->iterations = k + 1;
        res->recurrence_residual = sqrt(h[rr]) / bnorm;
        verdict = judge(h[SLOT_PQ], h[rr], h[RZ(cur)], bnorm, rtol);
        if (verdict >= 0) break;
        /* p = z + (rho_new / rho) p */
        SP_TRY(sp__vec_update(A->ctx, sp__coef(1), w->z, sp__coef(0), NULL,
                              ratio(w, 1, RZ(nxt), RZ(cur)), w->p, NULL, NULL, 0));
        cur = nxt;
        nxt = cur == SLOT_PAIR0 ? SLOT_PAIR1 : SLOT_PAIR0;
    }
    res->status = verdict >= 0 ? (sp_solver_status_t)verdict : SP_SOLVER_MAX_ITERATIONS;
done:
    return st;
}

sp_status_t sp_dist_solve(sp_dist_matrix_t *A, sp_solver_type_t type,
                          const sp_solver_options_t *options, const sp_vector_t *b,
                          sp_vector_t *x, sp_solver_result_t *result)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_solver_result_t res = {.status = SP_SOLVER_NOT_RUN};
    work_t w = {NULL, NULL, NULL, NULL, NULL};
    double t0 = sp__now_ms(), bb, rr;
    const sp_vector_t *bv[1] = {b}, *rv[1];
    int jacobi = type == SP_SOLVER_PCG_JACOBI;
    if (A == NULL) return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_dist_solve: A is NULL");
    SP_CHECK_ARG(result != NULL, "sp_dist_solve: result is NULL");
    if (type != SP_SOLVER_CG && type != SP_SOLVER_PCG_JACOBI)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_dist_solve: solver type %d: the distributed layer"
                " runs SP_SOLVER_CG and SP_SOLVER_PCG_JACOBI",
                (int)type);
    SP_CHECK_ARG(options == NULL || (options->max_iterations >= 0 && options->rtol >= 0),
                 "sp_dist_solve: negative max_iterations or rtol");
    SP_TRY(sp__dist_check_parts(A, "sp_dist_solve", b, x));
    if (jacobi) SP_TRY(make_jacobi(A));
    SP_TRY(work_vectors(A, jacobi, &w));
    SP_TRY(dots(A, 1, bv, bv, &bb));
    if (!options || !options->use_initial_guess) SP_TRY(sp_vector_fill(A->ctx, x, 0.0));
    if (bb == 0.0) {
        SP_TRY(sp_vector_fill(A->ctx, x, 0.0));
        res.status = SP_SOLVER_CONVERGED;
    } else if (!isfinite(bb)) {
        res.status = SP_SOLVER_DIVERGED;
    } else {
        SP_TRY(sp_vector_copy(A->ctx, b, w.r)); /* r = b - A x */
        SP_TRY(sp_dist_spmv(A, -1.0, x, 1.0, w.r));
        SP_TRY(iterate(A, jacobi, options, &w, x, sqrt(bb), &res));
        SP_TRY(sp_vector_copy(A->ctx, b, w.r));
        SP_TRY(sp_dist_spmv(A, -1.0, x, 1.0, w.r));
        rv[0] = w.r;
        SP_TRY(dots(A, 1, rv, rv, &rr));
        res.relative_residual = sqrt(rr) / sqrt(bb);
    }
    res.seconds = 1e-3 * (sp__now_ms() - t0);
    *result = res;
done:
    return sp__comm_fail(A ? A->comm : NULL, st);
}
