/* Builds against the installed libsp: a 2D Poisson SpMV on the host context. */
#include <stdio.h>

#include <sp.h>

int main(void)
{
    sp_coo_t *a = NULL;
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    double x[16], y[16], one = 1, zero = 0, sum = 0;
    int rc = 1;
    for (int i = 0; i < 16; i++) x[i] = 1;
    if (sp_gen_poisson2d(4, SP_R_64F, &a) || sp_context_create(SP_DEVICE_HOST, NULL, &ctx) ||
        sp_matrix_create(ctx, a, NULL, &A) ||
        sp_spmv(ctx, SP_FORMAT_CSR, SP_SPMV_ALG_DEFAULT, &one, A, x, &zero, y)) {
        fprintf(stderr, "consumer: %s\n", sp_last_error());
        goto done;
    }
    for (int i = 0; i < 16; i++) sum += y[i];
    printf("libsp %s: sum(A*1) = %g (expected 16)\n", sp_version(), sum);
    rc = sum == 16 ? 0 : 1;
done:
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    sp_coo_free(a);
    return rc;
}
