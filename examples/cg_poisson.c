/* Solve the 3D Poisson system A x = 1 on an n x n x n grid (7-point stencil, generated)
 * with a libsp solver, on the GPU or the host, and print iterations, residual and time.
 *
 *   cg_poisson [--gpu | --host] [--n N] [--solver cg|pcg-jacobi|pcg-sgs|bicgstab]
 *              [--rtol R] [--float]
 *
 * The same program gives the same answer on both executors: only the context differs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sp.h>

static int parse_solver(const char *s, sp_solver_type_t *t)
{
    static const char *const names[] = {"cg", "pcg-jacobi", "pcg-sgs", "bicgstab"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *t = (sp_solver_type_t)i;
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    sp_device_kind_t kind = SP_DEVICE_HOST;
    sp_solver_type_t type = SP_SOLVER_CG;
    sp_value_type_t vt = SP_R_64F;
    sp_solver_options_t opt = {.rtol = 1e-8};
    int64_t n = 32;
    sp_coo_t *coo = NULL;
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_solver_t *solver = NULL;
    double x_norm = 0;
    sp_solver_result_t res;
    int rc = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gpu") == 0) kind = SP_DEVICE_CUDA;
        else if (strcmp(argv[i], "--host") == 0) kind = SP_DEVICE_HOST;
        else if (strcmp(argv[i], "--float") == 0) vt = SP_R_32F;
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) n = atoll(argv[++i]);
        else if (strcmp(argv[i], "--rtol") == 0 && i + 1 < argc) opt.rtol = atof(argv[++i]);
        else if (!(strcmp(argv[i], "--solver") == 0 && i + 1 < argc && parse_solver(argv[++i], &type))) {
            fprintf(stderr, "usage: %s [--gpu|--host] [--n N] [--solver cg|pcg-jacobi|pcg-sgs|"
                    "bicgstab] [--rtol R] [--float]\n", argv[0]);
            return 2;
        }
    }
    if (sp_gen_poisson3d(n, vt, &coo) || sp_context_create(kind, NULL, &ctx) ||
        sp_matrix_create(ctx, coo, NULL, &A) ||
        sp_vector_create(ctx, vt, coo->nrows, NULL, &b) ||
        sp_vector_create(ctx, vt, coo->nrows, NULL, &x) || sp_vector_fill(ctx, b, 1.0) ||
        sp_solver_create(ctx, type, &solver) || sp_solver_set_options(solver, &opt) ||
        sp_solver_setup(solver, A) || sp_solver_solve(solver, b, x) ||
        sp_solver_result(solver, &res) || sp_vector_nrm2(ctx, x, &x_norm)) {
        fprintf(stderr, "cg_poisson: %s\n", sp_last_error());
        goto done;
    }
    printf("grid: %lld^3 (%lld unknowns, %lld non-zeros)\n", (long long)n, (long long)coo->nrows,
           (long long)coo->nnz);
    printf("executor: %s\n", kind == SP_DEVICE_CUDA ? "gpu" : "host");
    printf("status: %s\n", sp_solver_status_string(res.status));
    printf("iterations: %lld\n", (long long)res.iterations);
    printf("relative_residual: %.3e\n", res.relative_residual);
    printf("x_norm2: %.10e (the answer: the same on both executors within rounding)\n", x_norm);
    printf("seconds: %.4f\n", res.seconds);
    rc = res.status == SP_SOLVER_CONVERGED ? 0 : 1;
done:
    sp_solver_destroy(solver);
    sp_vector_destroy(x);
    sp_vector_destroy(b);
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    sp_coo_free(coo);
    return rc;
}
