/* The solver interface: create, options, setup (format choice, preconditioner, workspace),
 * solve (argument checks, the method, the true residual at the end, timing), result. */
#include <math.h>
#include <string.h>

#include "policy.h" /* sp__spmv_auto_solver */
#include "solve_internal.h"

const char *sp_solver_status_string(sp_solver_status_t status)
{
    switch (status) {
    case SP_SOLVER_CONVERGED: return "converged";
    case SP_SOLVER_MAX_ITERATIONS: return "max_iterations";
    case SP_SOLVER_BREAKDOWN: return "breakdown";
    case SP_SOLVER_DIVERGED: return "diverged";
    case SP_SOLVER_NOT_RUN: return "not_run";
    }
    return "?";
}

static void free_workspace(sp_solver_t *s)
{
    sp_vector_t **v[] = {&s->r, &s->z, &s->p, &s->q, &s->rhat, &s->s, &s->tv, &s->diag,
                         &s->tmp, &s->scal};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sp_vector_destroy(*v[i]);
        *v[i] = NULL;
    }
    sp__cg_fused_free(s);
    s->A = NULL;
}

sp_status_t sp_solver_create(sp_context_t *ctx, sp_solver_type_t type, sp_solver_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_solver_t *s = NULL;
    SP_CHECK_ARG(ctx != NULL && out != NULL, "sp_solver_create: ctx or solver is NULL");
    SP_CHECK_ARG((int)type >= SP_SOLVER_CG && type <= SP_SOLVER_BICGSTAB,
                 "sp_solver_create: unknown solver type %d", (int)type);
    SP_CALLOC(s, 1);
    s->ctx = ctx;
    s->type = type;
    s->result.status = SP_SOLVER_NOT_RUN;
    *out = s;
done:
    return sp__context_record(ctx, st);
}

void sp_solver_destroy(sp_solver_t *s)
{
    if (!s) return;
    free_workspace(s);
    sp__free(s);
}

sp_status_t sp_solver_set_options(sp_solver_t *s, const sp_solver_options_t *options)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(s != NULL, "sp_solver_set_options: solver is NULL");
    if (options) {
        SP_CHECK_ARG(options->max_iterations >= 0,
                     "sp_solver_set_options: negative max_iterations %lld",
                     (long long)options->max_iterations);
        SP_CHECK_ARG(options->rtol >= 0, "sp_solver_set_options: rtol %g is negative or NaN",
                     options->rtol);
        SP_CHECK_ARG((int)options->loop >= SP_SOLVER_LOOP_AUTO &&
                         options->loop <= SP_SOLVER_LOOP_DEVICE,
                     "sp_solver_set_options: unknown loop %d", (int)options->loop);
        SP_CHECK_ARG(options->check_every >= 0,
                     "sp_solver_set_options: negative check_every %lld",
                     (long long)options->check_every);
        SP_CHECK_ARG(options->pipelined == 0 || options->pipelined == 1,
                     "sp_solver_set_options: pipelined is %d (0 or 1)", options->pipelined);
        s->options = *options;
    } else {
        memset(&s->options, 0, sizeof s->options);
    }
done:
    return sp__context_record(s ? s->ctx : NULL, st);
}

int64_t sp__solver_max_iterations(const sp_solver_t *s)
{
    return s->options.max_iterations > 0 ? s->options.max_iterations : 10000;
}

double sp__solver_rtol(const sp_solver_t *s) { return s->options.rtol > 0 ? s->options.rtol : 1e-8; }

/* The workspace each method needs, all of A's type and length (scal: doubles). */
static sp_status_t alloc_workspace(sp_solver_t *s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int bicg = s->type == SP_SOLVER_BICGSTAB;
    SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->r));
    SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->p));
    SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->q));
    if (s->type == SP_SOLVER_PCG_JACOBI || s->type == SP_SOLVER_PCG_SGS)
        SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->z));
    if (bicg) {
        SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->rhat));
        SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->s));
        SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->tv));
    }
    SP_TRY(sp__vector_new(s->ctx, SP_R_64F, SLOT_COUNT, &s->scal));
done:
    return st;
}

/* The setup is made in a fresh solver object and swapped in only when complete, so a
 * failed setup leaves the previous one (and A) as they were. sp_spmv_prepare builds the
 * chosen format and its SpMV plan (CSR and COO on a GPU): a solve then allocates nothing,
 * and fails for memory only before it starts. */
sp_status_t sp_solver_setup(sp_solver_t *s, sp_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_matrix_info_t info;
    sp_solver_t next = {0};
    int rollback = 0;
    unsigned built_before = 0;
    SP_CHECK_ARG(s != NULL && A != NULL, "sp_solver_setup: solver or A is NULL");
    SP_CHECK_ARG(A->ctx == s->ctx, "sp_solver_setup: matrix belongs to another context");
    SP_TRY(sp_matrix_info(A, &info));
    SP_CHECK_ARG(info.nrows == info.ncols, "sp_solver_setup: matrix is %lld x %lld, not square",
                 (long long)info.nrows, (long long)info.ncols);
    SP_CHECK_ARG(info.value_type != SP_VALUE_NONE,
                 "sp_solver_setup: the matrix is a pattern (no values)");
    /* 64-bit offsets at any size (issue 20): the SpMV, the diagonal, the triangular solves
       and the fused steps read either width (below the narrow limit the last two read the
       CSR's pointers narrowed, so the 32-bit matrix's bits) */
    rollback = 1; /* from here on a failure drops what this setup built */
    built_before = A->built;
    next.ctx = s->ctx;
    next.type = s->type;
    next.options = s->options;
    next.A = A;
    next.t = info.value_type;
    next.n = info.nrows;
    /* AUTO's format with AUTO's algorithm (CSR DEFAULT would run another CSR algorithm
       than the one the model priced), COO atomic excepted (sp__spmv_auto_solver) */
    next.format = SP_FORMAT_AUTO;
    next.alg = SP_SPMV_ALG_DEFAULT;
    sp__spmv_auto_solver(next.ctx, A, &next.format, &next.alg);
    SP_TRY(sp_spmv_prepare(next.ctx, A, next.format, next.alg));
    SP_TRY(alloc_workspace(&next));
    SP_TRY(sp__precond_setup(&next));
    SP_TRY(sp__cg_fused_setup(&next));
    next.result = (sp_solver_result_t){.status = SP_SOLVER_NOT_RUN};
    free_workspace(s);
    *s = next;
done:
    if (st != SP_STATUS_SUCCESS && rollback) {
        free_workspace(&next);
        /* A as it was: the formats (and their plans) this setup built are dropped */
        sp__matrix_drop_formats_since(A, built_before);
    }
    return sp__context_record(s ? s->ctx : NULL, st);
}

static sp_status_t check_vector(const sp_solver_t *s, const sp_vector_t *v, const char *name)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(v != NULL, "sp_solver_solve: %s is NULL", name);
    SP_CHECK_ARG(v->ctx == s->ctx, "sp_solver_solve: %s belongs to another context", name);
    SP_CHECK_ARG(v->type == s->t && v->n == s->n,
                 "sp_solver_solve: %s has %lld values of type %d, the matrix %lld of type %d",
                 name, (long long)v->n, (int)v->type, (long long)s->n, (int)s->t);
done:
    return st;
}

sp_status_t sp_solver_solve(sp_solver_t *s, const sp_vector_t *b, sp_vector_t *x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_solver_result_t res = {.status = SP_SOLVER_NOT_RUN};
    double t0 = sp__now_ms(), bnorm = 0, rnorm = 0;
    SP_CHECK_ARG(s != NULL, "sp_solver_solve: solver is NULL");
    SP_CHECK_ARG(s->A != NULL, "sp_solver_solve: no sp_solver_setup before the solve");
    SP_TRY(check_vector(s, b, "b"));
    SP_TRY(check_vector(s, x, "x"));
    SP_CHECK_ARG(b != x, "sp_solver_solve: b and x are the same vector");
    SP_CHECK_ARG(
        sp__cg_fused_mode(s->ctx, &s->options, s->type) == s->fused_loop &&
            (!s->fused_loop || sp__cg_fused_pipelined(&s->options, s->type) == s->pipelined),
        "sp_solver_solve: the loop or pipelined option changed since "
        "sp_solver_setup (set options, then setup again)");
    s->result = res;
    SP_TRY(sp__solver_dot(s, b, NULL, 1, &bnorm));
    if (!s->options.use_initial_guess) SP_TRY(sp__vec_fill(s->ctx, x, 0.0));
    if (bnorm == 0.0) {
        /* x = 0 is the exact solution */
        SP_TRY(sp__vec_fill(s->ctx, x, 0.0));
        s->result.status = SP_SOLVER_CONVERGED;
    } else if (!isfinite(bnorm)) {
        s->result.status = SP_SOLVER_DIVERGED;
    } else if (s->fused_loop) {
        SP_TRY(sp__solve_cg_fused(s, b, x, bnorm));
    } else if (s->type == SP_SOLVER_BICGSTAB) {
        SP_TRY(sp__solve_bicgstab(s, b, x, bnorm));
    } else {
        SP_TRY(sp__solve_cg(s, b, x, bnorm));
    }
    if (bnorm != 0.0) {
        SP_TRY(sp__solver_residual(s, b, x, s->r));
        SP_TRY(sp__solver_dot(s, s->r, NULL, 1, &rnorm));
    }
    s->result.relative_residual = bnorm != 0.0 ? rnorm / bnorm : 0.0;
    s->result.seconds = 1e-3 * (sp__now_ms() - t0);
done:
    return sp__context_record(s ? s->ctx : NULL, st);
}

sp_status_t sp_solver_result(const sp_solver_t *s, sp_solver_result_t *result)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(s != NULL && result != NULL, "sp_solver_result: solver or result is NULL");
    *result = s->result;
done:
    return st;
}

/* ---- steps shared by the methods ------------------------------------------------------ */

double *sp__solver_slot(sp_solver_t *s, int k) { return (double *)s->scal->data + k; }

sp_status_t sp__solver_spmv(sp_solver_t *s, double alpha, const sp_vector_t *x, double beta,
                            sp_vector_t *y)
{
    return sp_spmv_vec(s->ctx, s->format, s->alg, alpha, s->A, x, beta, y);
}

sp_status_t sp__solver_residual(sp_solver_t *s, const sp_vector_t *b, const sp_vector_t *x,
                                sp_vector_t *r)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(sp__vec_update(s->ctx, sp__coef(1), b, sp__coef(0), NULL, sp__coef(0), r, NULL,
                          NULL, 0));
    if (x) SP_TRY(sp__solver_spmv(s, -1.0, x, 1.0, r));
done:
    return st;
}

sp_status_t sp__solver_dot(sp_solver_t *s, const sp_vector_t *x, const sp_vector_t *y,
                           int root, double *h)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    double *slot = sp__solver_slot(s, SLOT_TMP);
    SP_TRY(sp__vec_dot(s->ctx, x, root ? x : y, slot, root));
    SP_TRY(sp__vec_read(s->ctx, slot, 1, h));
done:
    return st;
}
