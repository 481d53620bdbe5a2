/* CG and PCG-Jacobi (classic or pipelined, Ghysels & Vanroose 2014), PCG-SGS (classic,
 * its triangular solves between the iterations) and BiCGSTAB on the fused steps
 * (src/core/sp_cg_fused.h). Setup fills the block's arguments and, for the
 * device loop on CUDA, makes the graph; a solve starts the residual with the library's
 * vector steps, then runs iterations of two (CG) or three (BiCGSTAB) kernels: one at a
 * time with a read of the state after each (LOOP_FUSED), or as one graph launch per
 * check_every iterations (LOOP_DEVICE). On a host context the same steps run as their
 * twins (src/ref/cg_fused_ref.c). */
#include <math.h>
#include <string.h>

#include "cg_fused_ref.h"
#include "policy.h"
#include "solve_internal.h"

#ifdef SP_HAVE_CUDA
#include "sp_kernels_solve.h"
#endif

/* Iterations queued between reads of the state when the device loop has no graph. */
enum { QUEUED_BATCH = 32 };

/* PCG-SGS runs the fused loop from the host whatever the loop asked: its preconditioner
 * (two triangular solves) is applied between iterations by sp__precond_apply. */
int sp__cg_fused_mode(const sp_context_t *ctx, const sp_solver_options_t *o,
                      sp_solver_type_t type)
{
    int sgs = type == SP_SOLVER_PCG_SGS;
    sp_solver_loop_t loop = o->loop;
    if (loop == SP_SOLVER_LOOP_AUTO) loop = sp__policy_solver_loop(ctx, type);
    if (loop == SP_SOLVER_LOOP_DEVICE)
        return sgs ? SP_SOLVER_LOOP_FUSED : SP_SOLVER_LOOP_DEVICE;
    if (loop == SP_SOLVER_LOOP_FUSED || sp__cg_fused_pipelined(o, type))
        return SP_SOLVER_LOOP_FUSED;
    return 0;
}

int sp__cg_fused_pipelined(const sp_solver_options_t *o, sp_solver_type_t type)
{
    return (type == SP_SOLVER_CG || type == SP_SOLVER_PCG_JACOBI) && o->pipelined;
}

void sp__cg_fused_free(sp_solver_t *s)
{
    sp_vector_t **v[] = {&s->p1, &s->v1, &s->w, &s->m, &s->an, &s->az, &s->ms, &s->cgv};
#ifdef SP_HAVE_CUDA
    sp_gpu_cg_loop_t loop = {s->loop_graph, s->loop_exec};
    sp__gpu_cg_loop_free(&loop);
#endif
    s->loop_graph = s->loop_exec = NULL;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sp_vector_destroy(*v[i]);
        *v[i] = NULL;
    }
}

/* The matrix the spmv step reads: the setup's ELL (with its value table, if it has one)
 * when that is the format, else the CSR
 * (sp__matrix_csr_either: 32-bit pointers, narrowed at 64 bits below the narrow limit; past
 * it the CSR's own 64-bit pointers, SP_CG_MAT_CSR64). */
static sp_status_t matrix_args(sp_solver_t *s, sp_cg_args_t *a)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_matrix_t *A = s->A;
    sp_csr_t csr;
    if (s->format == SP_FORMAT_ELL) {
        a->mat_kind = SP_CG_MAT_ELL;
        a->nnz = A->f.ell.nnz;
        a->width = A->f.ell.width;
        a->idx = A->f.ell.col;
        a->val = A->f.ell.val;
        a->ntable = A->f.ell.ntable;
        a->code = A->f.ell.code;
        a->table = A->f.ell.table;
        goto done;
    }
    SP_TRY(sp_matrix_build(s->ctx, A, SP_FORMAT_CSR));
    SP_TRY(sp__matrix_csr_either(A, &csr));
    a->mat_kind = csr.ptr64 ? SP_CG_MAT_CSR64 : SP_CG_MAT_CSR;
    a->nnz = csr.nnz;
    if (csr.ptr64)
        a->ptr64 = csr.ptr64;
    else
        a->ptr = csr.ptr;
    a->idx = csr.idx;
    a->val = csr.val;
done:
    return st;
}

static void *data_of(sp_vector_t *v)
{
    return v ? v->data : NULL;
}

/* The device loop's graph; without conditional nodes (old driver) the loop queues batches. */
static sp_status_t make_graph(sp_solver_t *s)
{
#ifdef SP_HAVE_CUDA
    sp_gpu_env_t env;
    sp_gpu_cg_loop_t loop = {NULL, NULL};
    sp_status_t st;
    sp__cuda_env(s->ctx, &env);
    st = sp__gpu_cg_loop_create(&env, (sp_cg_block_t *)s->cgv->data, &s->cg, &loop);
    if (st == SP_STATUS_NOT_SUPPORTED) return SP_STATUS_SUCCESS;
    s->loop_graph = loop.graph;
    s->loop_exec = loop.exec;
    return st;
#else
    (void)s;
    return SP_STATUS_SUCCESS;
#endif
}

/* The vectors beside the step loop's workspace, and their places in the arguments. */
static sp_status_t fused_vectors(sp_solver_t *s, sp_cg_args_t *a)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int prec = a->precond;
    SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->p1));
    if (a->method == SP_CG_BICGSTAB) SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->v1));
    if (a->method == SP_CG_PIPELINED) {
        SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->w));
        SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->an));
        SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->az));
        if (prec) {
            SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->m));
            SP_TRY(sp__vector_new(s->ctx, s->t, s->n, &s->ms));
        }
    }
    a->dinv = prec ? s->diag->data : NULL;
    a->r = s->r->data;
    a->z = s->z ? s->z->data : s->r->data; /* PCG: M^-1 r (SGS: by the driver) */
    a->p[0] = s->p->data;
    a->p[1] = s->p1->data;
    a->q = s->q->data;
    a->w = data_of(s->w);
    a->m = prec ? data_of(s->m) : data_of(s->w);
    a->an = data_of(s->an);
    a->az = data_of(s->az);
    a->ms = prec ? data_of(s->ms) : s->q->data;
    /* BiCGSTAB: v is the step loop's q (as in solve_bicgstab.c) and v1 */
    a->rh = data_of(s->rhat);
    a->v[0] = s->q->data;
    a->v[1] = data_of(s->v1);
    a->s = data_of(s->s);
    a->t = data_of(s->tv);
done:
    return st;
}

sp_status_t sp__cg_fused_setup(sp_solver_t *s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_cg_args_t *a = &s->cg;
    int bicg = s->type == SP_SOLVER_BICGSTAB;
    s->fused_loop = sp__cg_fused_mode(s->ctx, &s->options, s->type);
    s->pipelined = sp__cg_fused_pipelined(&s->options, s->type);
    if (!s->fused_loop) goto done;
    memset(a, 0, sizeof *a);
    a->n = s->n;
    a->value_type = (int32_t)s->t;
    a->precond = s->type == SP_SOLVER_PCG_JACOBI;
    a->method = bicg ? SP_CG_BICGSTAB : s->pipelined ? SP_CG_PIPELINED : SP_CG_CLASSIC;
    SP_TRY(matrix_args(s, a));
    SP_TRY(fused_vectors(s, a));
    SP_TRY(sp__vector_new(s->ctx, SP_R_64F, SP_CG_BLOCK_DOUBLES, &s->cgv));
    a->parts = (double *)s->cgv->data + (sizeof(sp_cg_block_t) + 7) / 8;
    if (s->fused_loop == SP_SOLVER_LOOP_DEVICE && s->ctx->kind == SP_DEVICE_CUDA && s->n > 0)
        SP_TRY(make_graph(s));
done:
    return st;
}

/* Bytes between the host and the block (to_block: host to context memory); synchronizes
 * the stream on CUDA. */
static sp_status_t block_copy(sp_solver_t *s, void *dst, const void *src, size_t bytes,
                              int to_block)
{
    if (s->ctx->kind == SP_DEVICE_HOST) {
        memcpy(dst, src, bytes);
        return SP_STATUS_SUCCESS;
    }
    return sp__cuda_copy(s->ctx, dst, src, bytes, to_block ? 1 : -1);
}

/* One iteration on the host twins; for the device loop, on to the check_every boundary. */
static void host_iterations(sp_solver_t *s, sp_cg_block_t *blk)
{
    int64_t every = s->options.check_every;
    do {
        for (int i = 0; i < sp__cg_steps(&blk->args); i++)
            sp__ref_cg_step(blk, i);
    } while (s->fused_loop == SP_SOLVER_LOOP_DEVICE && blk->state.verdict < 0 &&
             (every <= 0 || blk->state.k % every != 0));
}

/* Queue the iterations up to the next read of the state. */
static sp_status_t run_iterations(sp_solver_t *s, sp_cg_block_t *blk)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (s->ctx->kind == SP_DEVICE_HOST) {
        host_iterations(s, blk);
        goto done;
    }
#ifdef SP_HAVE_CUDA
    {
        sp_gpu_env_t env;
        int64_t count = 1;
        sp__cuda_env(s->ctx, &env);
        if (s->fused_loop == SP_SOLVER_LOOP_DEVICE && s->loop_exec) {
            sp_gpu_cg_loop_t loop = {s->loop_graph, s->loop_exec};
            SP_TRY(sp__gpu_cg_loop_run(&env, &loop));
            goto done;
        }
        if (s->fused_loop == SP_SOLVER_LOOP_DEVICE)
            count = s->options.check_every > 0 ? s->options.check_every : QUEUED_BATCH;
        for (int64_t i = 0; i < count; i++)
            for (int step = 0; step < sp__cg_steps(&s->cg); step++)
                SP_TRY(sp__gpu_cg_step(&env, blk, &s->cg, step));
    }
#else
    SP_FAIL(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
#endif
done:
    return st;
}

/* The residual, rho (r.z with z = M^-1 r, gamma = r.u, or BiCGSTAB's r^.r with r^ = r)
 * and r.r;
 * pipelined: w = A u and delta = w.u. */
static sp_status_t start(sp_solver_t *s, const sp_vector_t *b, sp_vector_t *x,
                         sp_cg_block_t *blk)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_context_t *ctx = s->ctx;
    sp_vector_t *u = s->z ? s->z : s->r;
    SP_TRY(sp__solver_residual(s, b, s->options.use_initial_guess ? x : NULL, s->r));
    if (s->type == SP_SOLVER_BICGSTAB) SP_TRY(sp_vector_copy(ctx, s->r, s->rhat));
    if (s->z)
        SP_TRY(sp__precond_apply(s, s->r, s->z, &blk->state.rho));
    else
        SP_TRY(sp__vec_dot(ctx, s->r, s->r, &blk->state.rho, 0));
    SP_TRY(sp__vec_dot(ctx, s->r, s->r, &blk->state.rr, 0));
    if (s->pipelined) {
        SP_TRY(sp__solver_spmv(s, 1.0, u, 0.0, s->w));
        SP_TRY(sp__vec_dot(ctx, s->w, u, &blk->state.pq, 0));
    }
done:
    return st;
}

sp_status_t sp__solve_cg_fused(sp_solver_t *s, const sp_vector_t *b, sp_vector_t *x,
                               double bnorm)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_cg_block_t h, *blk = (sp_cg_block_t *)s->cgv->data;
    memset(&h, 0, sizeof h); /* every byte defined, the padding too */
    h.args = s->cg;
    h.args.x = x->data;
    h.args.tol = sp__solver_rtol(s) * bnorm;
    h.args.maxit = sp__solver_max_iterations(s);
    h.args.check_every = s->options.check_every;
    h.state.verdict = -1;
    SP_TRY(block_copy(s, blk, &h, sizeof h, 1));
    SP_TRY(start(s, b, x, blk));
    SP_TRY(block_copy(s, &h.state, &blk->state, sizeof h.state, 0));
    s->result.recurrence_residual = sqrt(h.state.rr) / bnorm;
    if (sqrt(h.state.rr) <= h.args.tol) {
        s->result.status = SP_SOLVER_CONVERGED;
        goto done;
    }
    if (s->type == SP_SOLVER_BICGSTAB && !isfinite(h.state.rho)) {
        /* the step loop's first iteration stops on it */
        s->result.iterations = 1;
        s->result.status = SP_SOLVER_DIVERGED;
        goto done;
    }
    while (h.state.verdict < 0) {
        SP_TRY(run_iterations(s, blk));
        SP_TRY(block_copy(s, &h.state, &blk->state, sizeof h.state, 0));
        /* SGS: z = M^-1 r and rho = r.z for the next iteration (the update step's r.z is
           r.r there, overwritten) */
        if (h.state.verdict < 0 && s->type == SP_SOLVER_PCG_SGS)
            SP_TRY(sp__precond_apply(s, s->r, s->z, &blk->state.rho));
    }
    if (s->cg.method == SP_CG_CLASSIC && h.state.k > 0) {
        /* the last iteration's x += alpha p' (the spmv step adds each one a step late) */
        sp_vec_coef_t alpha = {1.0, &blk->state.alpha, NULL};
        sp_vector_t *p_last = (h.state.k & 1) ? s->p1 : s->p;
        SP_TRY(sp__vec_update(s->ctx, alpha, p_last, sp__coef(0), NULL, sp__coef(1), x, NULL,
                              NULL, 0));
    }
    s->result.iterations = h.state.k;
    s->result.recurrence_residual = sqrt(h.state.rr) / bnorm;
    s->result.status = (sp_solver_status_t)h.state.verdict;
done:
    return st;
}
