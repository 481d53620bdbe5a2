/* Builds against the installed libsp: a 2D Poisson SpMV and a CG solve on the host context. */
#include <stdio.h>

#include <sp.h>

int main(void)
{
    sp_coo_t *a = NULL;
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_solver_t *s = NULL;
    sp_solver_result_t res = {0};
    double xv[16], y[16], one = 1, zero = 0, sum = 0;
    int rc = 1;
    for (int i = 0; i < 16; i++) xv[i] = 1;
    if (sp_gen_poisson2d(4, SP_R_64F, &a) || sp_context_create(SP_DEVICE_HOST, NULL, &ctx) ||
        sp_matrix_create(ctx, a, NULL, &A) ||
        sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &one, A, xv, &zero, y)) {
        fprintf(stderr, "consumer: %s\n", sp_last_error());
        goto done;
    }
    for (int i = 0; i < 16; i++) sum += y[i];
    printf("libsp %s: sum(A*1) = %g (expected 16)\n", sp_version(), sum);
    /* solve A x = A 1 with CG: x must come back as ones */
    if (sp_vector_create(ctx, SP_R_64F, 16, y, &b) ||
        sp_vector_create(ctx, SP_R_64F, 16, NULL, &x) ||
        sp_solver_create(ctx, SP_SOLVER_CG, &s) || sp_solver_setup(s, A) ||
        sp_solver_solve(s, b, x) || sp_solver_result(s, &res) ||
        sp_vector_copy_to_host(ctx, x, xv)) {
        fprintf(stderr, "consumer: %s\n", sp_last_error());
        goto done;
    }
    printf("cg: %s in %lld iterations, x[5] = %g (expected 1)\n",
           sp_solver_status_string(res.status), (long long)res.iterations, xv[5]);
    rc = sum == 16 && res.status == SP_SOLVER_CONVERGED && (xv[5] - 1) * (xv[5] - 1) < 1e-12 ? 0 : 1;
done:
    sp_solver_destroy(s);
    sp_vector_destroy(x);
    sp_vector_destroy(b);
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    sp_coo_free(a);
    return rc;
}
