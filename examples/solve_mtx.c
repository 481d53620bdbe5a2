/* Solve A x = b for A read from a Matrix Market file, b from a file (an n x 1 coordinate
 * .mtx) or all ones, with the solver picked by option; write x as an n x 1 .mtx.
 *
 *   solve_mtx A.mtx [--b b.mtx] [--solver cg|pcg-jacobi|pcg-sgs|bicgstab] [--rtol R]
 *             [--max-iterations K] [--out x.mtx] [--gpu] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sp.h>

static const char *const solver_names[] = {"cg", "pcg-jacobi", "pcg-sgs", "bicgstab"};

/* The dense right-hand side of an n x 1 coordinate file (missing entries 0). */
static int read_rhs(const char *path, int64_t n, double *h_b)
{
    sp_coo_t *c = NULL;
    if (sp_mtx_read(path, SP_R_64F, NULL, &c)) return 0;
    int ok = c->nrows == n && c->ncols == 1;
    if (!ok) fprintf(stderr, "solve_mtx: %s is %lld x %lld, expected %lld x 1\n", path,
                     (long long)c->nrows, (long long)c->ncols, (long long)n);
    for (int64_t k = 0; ok && k < c->nnz; k++) h_b[c->row[k]] += ((double *)c->val)[k];
    sp_coo_free(c);
    return ok;
}

/* x as an n x 1 coordinate file. */
static int write_x(const char *path, int64_t n, const double *h_x)
{
    sp_coo_t *c = NULL;
    int ok = sp_coo_create(n, 1, n, SP_R_64F, &c) == SP_STATUS_SUCCESS;
    for (int64_t i = 0; ok && i < n; i++) {
        c->row[i] = (int32_t)i;
        c->col[i] = 0;
        ((double *)c->val)[i] = h_x[i];
    }
    if (ok) c->nnz = n;
    ok = ok && sp_mtx_write(path, c, NULL) == SP_STATUS_SUCCESS;
    sp_coo_free(c);
    return ok;
}

int main(int argc, char **argv)
{
    const char *a_path = NULL, *b_path = NULL, *out = "x.mtx";
    sp_device_kind_t kind = SP_DEVICE_HOST;
    sp_solver_type_t type = SP_SOLVER_CG;
    sp_solver_options_t opt = {0};
    sp_coo_t *coo = NULL;
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_solver_t *solver = NULL;
    sp_solver_result_t res;
    double *h = NULL;
    int rc = 1, known = 1;
    for (int i = 1; i < argc && known; i++) {
        if (strcmp(argv[i], "--gpu") == 0) kind = SP_DEVICE_CUDA;
        else if (strcmp(argv[i], "--b") == 0 && i + 1 < argc) b_path = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--rtol") == 0 && i + 1 < argc) opt.rtol = atof(argv[++i]);
        else if (strcmp(argv[i], "--max-iterations") == 0 && i + 1 < argc)
            opt.max_iterations = atoll(argv[++i]);
        else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc) {
            known = 0;
            for (int t = 0; t < 4; t++)
                if (strcmp(argv[i + 1], solver_names[t]) == 0) type = (sp_solver_type_t)t, known = 1;
            i++;
        } else if (argv[i][0] != '-' && !a_path) a_path = argv[i];
        else known = 0;
    }
    if (!a_path || !known) {
        fprintf(stderr, "usage: %s A.mtx [--b b.mtx] [--solver cg|pcg-jacobi|pcg-sgs|bicgstab] "
                "[--rtol R] [--max-iterations K] [--out x.mtx] [--gpu]\n", argv[0]);
        return 2;
    }
    if (sp_mtx_read(a_path, SP_R_64F, NULL, &coo) || sp_context_create(kind, NULL, &ctx) ||
        sp_matrix_create(ctx, coo, NULL, &A)) {
        fprintf(stderr, "solve_mtx: %s\n", sp_last_error());
        goto done;
    }
    h = calloc((size_t)coo->nrows + 1, sizeof *h);
    if (!h) goto done;
    for (int64_t i = 0; i < coo->nrows; i++) h[i] = 1.0;
    if (b_path) {
        memset(h, 0, (size_t)coo->nrows * sizeof *h);
        if (!read_rhs(b_path, coo->nrows, h)) {
            fprintf(stderr, "solve_mtx: %s\n", sp_last_error());
            goto done;
        }
    }
    if (sp_vector_create(ctx, SP_R_64F, coo->nrows, h, &b) ||
        sp_vector_create(ctx, SP_R_64F, coo->nrows, NULL, &x) ||
        sp_solver_create(ctx, type, &solver) || sp_solver_set_options(solver, &opt) ||
        sp_solver_setup(solver, A) || sp_solver_solve(solver, b, x) ||
        sp_solver_result(solver, &res) || sp_vector_copy_to_host(ctx, x, h)) {
        fprintf(stderr, "solve_mtx: %s\n", sp_last_error());
        goto done;
    }
    printf("matrix: %s (%lld x %lld, %lld non-zeros)\n", a_path, (long long)coo->nrows,
           (long long)coo->ncols, (long long)coo->nnz);
    printf("solver: %s\n", solver_names[type]);
    printf("status: %s\n", sp_solver_status_string(res.status));
    printf("iterations: %lld\n", (long long)res.iterations);
    printf("relative_residual: %.3e\n", res.relative_residual);
    printf("seconds: %.4f\n", res.seconds);
    /* the usual trap: CG (the default) on a matrix that is not symmetric diverges */
    if (res.status != SP_SOLVER_CONVERGED && type != SP_SOLVER_BICGSTAB &&
        coo->symmetry == SP_SYMMETRY_GENERAL)
        printf("hint: %s needs a symmetric positive definite matrix and %s is stored as "
               "general: try --solver bicgstab\n", solver_names[type], a_path);
    if (!write_x(out, coo->nrows, h)) {
        fprintf(stderr, "solve_mtx: %s\n", sp_last_error());
        goto done;
    }
    printf("x: %s\n", out);
    rc = res.status == SP_SOLVER_CONVERGED ? 0 : 1;
done:
    free(h);
    sp_solver_destroy(solver);
    sp_vector_destroy(x);
    sp_vector_destroy(b);
    sp_matrix_destroy(A);
    sp_context_destroy(ctx);
    sp_coo_free(coo);
    return rc;
}
