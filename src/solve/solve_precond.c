/* The preconditioners of PCG: Jacobi (z = D^-1 r) and symmetric Gauss-Seidel
 * (M = (D+L) D^-1 (D+U): z = (D+U)^-1 D (D+L)^-1 r, by two triangular solves on A's own
 * triangles, so no factorization and no copy of A). Both fuse rho = r . z into their last
 * pass where they can. */
#include "solve_internal.h"

/* s->diag = diag(A), refused with the row when an entry is zero; Jacobi inverts it.
 * Made once at setup, so the one read back to the host for the check is paid once. */
static sp_status_t make_diagonal(sp_solver_t *s, int invert)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    double *h = NULL;
    float *hf = NULL;
    int64_t n = s->n;
    SP_TRY(sp__vector_new(s->ctx, s->t, n, &s->diag));
    SP_TRY(sp__vec_diagonal(s->ctx, s->A, s->diag));
    SP_ALLOC(h, n);
    if (s->t == SP_R_32F) SP_ALLOC(hf, n);
    SP_TRY(sp_vector_copy_to_host(s->ctx, s->diag, hf ? (void *)hf : (void *)h));
    for (int64_t i = 0; i < n; i++) {
        double d = hf ? (double)hf[i] : h[i];
        SP_CHECK_ARG(d != 0.0, "sp_solver_setup: row %lld has no non-zero diagonal entry "
                     "(the %s preconditioner needs one)", (long long)i,
                     s->type == SP_SOLVER_PCG_JACOBI ? "Jacobi" : "Gauss-Seidel");
        h[i] = invert ? 1.0 / d : d;
        if (hf) hf[i] = (float)h[i];
    }
    if (invert) SP_TRY(sp_vector_copy_from_host(s->ctx, s->diag, hf ? (void *)hf : (void *)h));
done:
    sp__free(hf);
    sp__free(h);
    return st;
}

/* x = T^-1 b on A's lower or upper triangle with its diagonal. */
static sp_status_t trsv(sp_solver_t *s, sp_uplo_t uplo, const sp_vector_t *b, sp_vector_t *x)
{
    float onef = 1.0f;
    double oned = 1.0;
    const void *one = s->t == SP_R_32F ? (const void *)&onef : (const void *)&oned;
    return sp_sptrsv(s->ctx, s->A, uplo, SP_DIAG_NON_UNIT, SP_SPTRSV_ALG_AUTO, one, b->data,
                     x->data);
}

sp_status_t sp__precond_setup(sp_solver_t *s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (s->type == SP_SOLVER_PCG_JACOBI) SP_TRY(make_diagonal(s, 1));
    if (s->type == SP_SOLVER_PCG_SGS) {
        SP_TRY(make_diagonal(s, 0));
        SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->tmp));
        /* the triangular-solve analyses, cached in A, on zero vectors */
        SP_TRY(trsv(s, SP_UPLO_LOWER, s->r, s->tmp));
        SP_TRY(trsv(s, SP_UPLO_UPPER, s->tmp, s->z));
    }
done:
    return st;
}

sp_status_t sp__precond_apply(sp_solver_t *s, const sp_vector_t *r, sp_vector_t *z,
                              double *rho_slot)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (s->type == SP_SOLVER_PCG_JACOBI) {
        SP_TRY(sp__vec_pointwise(s->ctx, s->diag, r, z, rho_slot));
    } else if (s->type == SP_SOLVER_PCG_SGS) {
        SP_TRY(trsv(s, SP_UPLO_LOWER, r, s->tmp));
        SP_TRY(sp__vec_pointwise(s->ctx, s->diag, s->tmp, s->tmp, NULL));
        SP_TRY(trsv(s, SP_UPLO_UPPER, s->tmp, z));
        SP_TRY(sp__vec_dot(s->ctx, r, z, rho_slot, 0));
    } else {
        SP_FAIL(SP_STATUS_INTERNAL_ERROR, "precond_apply: solver type %d has no "
                "preconditioner", (int)s->type);
    }
done:
    return st;
}
