/* Distributed CG and PCG-Jacobi (Hestenes & Stiefel; Saad, Iterative Methods, alg. 9.1), the
 * single-context solver's loop (src/solve/solve_cg.c) on distributed vectors: the vector
 * steps run on each rank's part, dot products are local sums completed by an all-reduce
 * (p.Ap alone, then r.z and r.r fused into one), so every rank takes the same decisions. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "dist_internal.h"

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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

/* The inverted diagonal as an nloc x nloc matrix (made once); a zero diagonal entry is
 * refused naming its global row. */
static sp_status_t make_jacobi(sp_dist_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *d = NULL;
    int64_t i;
    if (A->jacobi || A->nloc == 0) return SP_STATUS_SUCCESS;
    SP_TRY(sp_coo_create(A->nloc, A->nloc, A->nloc, SP_R_64F, &d));
    for (i = 0; i < A->nloc; i++) {
        double v = A->h_diag[i];
        SP_CHECK_ARG(v != 0.0,
                     "sp_dist_solve: PCG-Jacobi: row %lld has no non-zero diagonal"
                     " entry",
                     (long long)(A->rb + i));
        d->row[i] = (int32_t)i;
        d->col[i] = (int32_t)i;
        ((double *)d->val)[i] = 1.0 / v;
    }
    d->nnz = A->nloc;
    if (A->value_type == SP_R_32F) {
        sp_coo_t *f = NULL;
        SP_TRY(sp_coo_copy(d, SP_R_32F, &f));
        sp_coo_free(d);
        d = f;
    }
    SP_TRY(sp_matrix_create(A->ctx, d, NULL, &A->jacobi));
done:
    sp_coo_free(d);
    return st;
}

/* z = M^-1 r (plain CG: z is r itself, nothing to do). */
static sp_status_t precond(sp_dist_matrix_t *A, int jacobi, const sp_vector_t *r,
                           sp_vector_t *z)
{
    if (!jacobi || A->nloc == 0) return SP_STATUS_SUCCESS;
    return sp_spmv_vec(A->ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, 1.0, A->jacobi, r, 0.0, z);
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
} work_t;

/* A cached work vector of nloc values, made the first time (a solve in a loop allocates
 * nothing after its first call). */
static sp_status_t work_vector(sp_dist_matrix_t *A, sp_vector_t **v)
{
    if (*v) return SP_STATUS_SUCCESS;
    return sp_vector_create(A->ctx, A->value_type, A->nloc, NULL, v);
}

/* The work vectors, cached with A (z is r itself for plain CG). */
static sp_status_t work_vectors(sp_dist_matrix_t *A, int jacobi, work_t *w)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(work_vector(A, &A->cg_r));
    SP_TRY(work_vector(A, &A->cg_p));
    SP_TRY(work_vector(A, &A->cg_q));
    if (jacobi) SP_TRY(work_vector(A, &A->cg_z));
    *w = (work_t){A->cg_r, jacobi ? A->cg_z : A->cg_r, A->cg_p, A->cg_q};
done:
    return st;
}

/* The CG iterations from x (r = b - A x already), as solve_cg.c's. */
static sp_status_t iterate(sp_dist_matrix_t *A, int jacobi, const sp_solver_options_t *o,
                           work_t *w, sp_vector_t *x, double bnorm, sp_solver_result_t *res)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t maxit = o && o->max_iterations > 0 ? o->max_iterations : 10000, k;
    double rtol = o && o->rtol > 0 ? o->rtol : 1e-8, h[2], pq, rho;
    int verdict = -1;
    const sp_vector_t *rz[2] = {w->r, w->r}, *zr[2] = {w->z, w->r}, *pp[1] = {w->p},
                      *qq[1] = {w->q};
    SP_TRY(precond(A, jacobi, w->r, w->z));
    SP_TRY(dots(A, 2, rz, zr, h));
    rho = h[0];
    res->recurrence_residual = sqrt(h[1]) / bnorm;
    if (sqrt(h[1]) <= rtol * bnorm) {
        res->status = SP_SOLVER_CONVERGED;
        goto done;
    }
    SP_TRY(sp_vector_copy(A->ctx, w->z, w->p));
    for (k = 0; k < maxit && verdict < 0; k++) {
        SP_TRY(sp_dist_spmv(A, 1.0, w->p, 0.0, w->q));
        SP_TRY(dots(A, 1, pp, qq, &pq));
        if (pq != 0.0) {
            SP_TRY(sp_vector_axpby(A->ctx, rho / pq, w->p, 1.0, x));
            SP_TRY(sp_vector_axpby(A->ctx, -rho / pq, w->q, 1.0, w->r));
        }
        SP_TRY(precond(A, jacobi, w->r, w->z));
        SP_TRY(dots(A, 2, rz, zr, h));
        res->iterations = k + 1;
        res->recurrence_residual = sqrt(h[1]) / bnorm;
        verdict = judge(pq, h[1], rho, bnorm, rtol);
        if (verdict >= 0) break;
        SP_TRY(sp_vector_axpby(A->ctx, 1.0, w->z, h[0] / rho, w->p));
        rho = h[0];
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
    work_t w = {NULL, NULL, NULL, NULL};
    double t0 = now_seconds(), bb, rr;
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
    res.seconds = now_seconds() - t0;
    *result = res;
done:
    return sp__comm_fail(A ? A->comm : NULL, st);
}
