/* The fused conjugate-gradient iterations (classic CG and Ghysels-Vanroose pipelined CG,
 * both plain or Jacobi-preconditioned): what the solver driver (src/solve/solve_cg_fused.c),
 * the GPU kernels (kernels/solve/cg_fused.cu) and their host twins (src/ref/cg_fused_ref.c)
 * share. An iteration is two steps, each one pass over the vectors:
 *
 *   classic   spmv step:   p' = z + beta p (beta = rho / rho_prev, 0 at the first),
 *                          q = A p' with p' gathered on the fly, and p'.q
 *             update step: alpha = rho / p'.q; x += alpha p'; r -= alpha q; z = M^-1 r;
 *                          r.r and r.z; the verdict
 *   pipelined spmv step:   m = M^-1 w (on the fly), n = A m; no reduction
 *             update step: beta, alpha from gamma, delta of the last step; the eight
 *                          recurrences; gamma = r.u, delta = w.u and r.r together (the
 *                          one global reduction of the iteration); the verdict
 *
 * Everything the steps read or write lives in one block in the context's memory (the
 * arguments, the state, the reduction partials), so a step's launch parameters never
 * change and the loop can run as a CUDA graph on the device. */
#ifndef SP_CG_FUSED_H
#define SP_CG_FUSED_H

#include <math.h>
#include <stdint.h>

#include "sp_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define SP_CG_HD __host__ __device__
#else
#define SP_CG_HD
#endif

/* The matrix as the spmv step reads it. */
typedef enum sp_cg_mat_kind { SP_CG_MAT_CSR = 0, SP_CG_MAT_ELL = 1 } sp_cg_mat_kind_t;

/* Reductions of one step: at most this many blocks' partials per value (the vector
 * kernels' block cap, kernels/sp_kernels_vec.h), three values at most. */
enum { SP_CG_MAX_PARTS = 1024, SP_CG_NVALUES = 3 };

/* Fixed for a solve (written by the driver before the first step). Vector roles, the
 * names of Ghysels & Vanroose (2014, alg. 4) in brackets:
 *   x, r        solution, residual
 *   z           M^-1 r (plain CG: r itself) [u]
 *   p[2]        search direction, ping-ponged by iteration parity (classic) [p: p[0]]
 *   q           A p [s]
 *   w, m, an    pipelined: A u, M^-1 w (plain: w), A m [w, m, n]
 *   az, ms      pipelined: A M^-1 s [z], M^-1 s (plain: q) [q] */
typedef struct sp_cg_args {
    int64_t n, nnz;
    int32_t value_type;   /* SP_R_32F or SP_R_64F */
    int32_t mat_kind;     /* sp_cg_mat_kind_t */
    int32_t precond;      /* 1: Jacobi, z = dinv .* r */
    int32_t pipelined;    /* 1: Ghysels-Vanroose */
    int64_t width;        /* ELL width */
    const int32_t *ptr;   /* CSR row pointers (n + 1) */
    const int32_t *idx;   /* CSR columns, or ELL columns (column-major, -1 padding) */
    const void *val;
    const void *dinv;     /* Jacobi: 1 / a_ii */
    void *x, *r, *z, *p[2], *q;
    void *w, *m, *an, *az, *ms;
    double tol;           /* stop when sqrt(r.r) <= tol (rtol * ||b||) */
    int64_t maxit;
    int64_t check_every;  /* device loop: hand back to the host after k % check_every == 0
                             iterations (0: only at the end) */
    double *parts;        /* SP_CG_NVALUES * SP_CG_MAX_PARTS partials */
} sp_cg_args_t;

/* Changes every iteration; the host reads it whole. */
typedef struct sp_cg_state {
    double rho;       /* classic: r.z for the next iteration; pipelined: gamma = r.u */
    double rho_prev;  /* the one the last iteration used (beta's denominator) */
    double pq;        /* classic: p.Ap of the last spmv step; pipelined: delta = w.u */
    double rr;        /* r.r after the last update */
    double alpha;     /* alpha of the last iteration */
    double den;       /* the last iteration's p.Ap (pipelined: delta - beta gamma / alpha) */
    int64_t k;        /* iterations done */
    int32_t verdict;  /* -1 while going on, else an sp_solver_status_t */
    uint32_t ticket;  /* blocks done with the current reduction (GPU; the last resets it) */
} sp_cg_state_t;

/* The block in the context's memory; the partials follow it (args.parts). */
typedef struct sp_cg_block {
    sp_cg_args_t args;
    sp_cg_state_t state;
} sp_cg_block_t;

/* Doubles of context memory a block and its partials take. */
#define SP_CG_BLOCK_DOUBLES \
    ((int64_t)((sizeof(sp_cg_block_t) + 7) / 8) + (int64_t)SP_CG_NVALUES * SP_CG_MAX_PARTS)

/* How an iteration ends the loop (-1: go on), the rule of the step-by-step CG
 * (src/solve/solve_cg.c): den is the iteration's p.Ap, rho the r.z it used, rr r.r after
 * it, k the iterations done with it. */
SP_CG_HD static inline int32_t sp__cg_judge(double den, double rr, double rho, double tol,
                                            int64_t k, int64_t maxit)
{
    if (!isfinite(den) || !isfinite(rr) || !isfinite(rho)) return SP_SOLVER_DIVERGED;
    if (den <= 0.0 || rho == 0.0) return SP_SOLVER_BREAKDOWN;
    if (sqrt(rr) <= tol) return SP_SOLVER_CONVERGED;
    if (k >= maxit) return SP_SOLVER_MAX_ITERATIONS;
    return -1;
}

/* beta of the spmv step (classic) or update step (pipelined): 0 at the first iteration. */
SP_CG_HD static inline double sp__cg_beta(const sp_cg_state_t *s)
{
    return s->k == 0 || s->rho_prev == 0.0 ? 0.0 : s->rho / s->rho_prev;
}

/* The pipelined iteration's p.Ap from gamma, delta and the last alpha (Ghysels-Vanroose:
 * delta - beta gamma / alpha_prev; delta at the first). */
SP_CG_HD static inline double sp__cg_pipe_den(const sp_cg_state_t *s, double beta)
{
    return s->k == 0 || s->alpha == 0.0 ? s->pq : s->pq - beta * s->rho / s->alpha;
}

/* The update step's closing: the reductions rr and rz (classic: r.z; pipelined: gamma
 * r.u) and wu (pipelined: delta w.u) are in; the iteration is counted and judged. */
SP_CG_HD static inline void sp__cg_close(const sp_cg_args_t *a, sp_cg_state_t *s, double den,
                                         double alpha, double rr, double rz, double wu)
{
    s->k += 1;
    s->verdict = sp__cg_judge(den, rr, s->rho, a->tol, s->k, a->maxit);
    s->rho_prev = s->rho;
    s->rho = rz;
    if (a->pipelined) s->pq = wu;
    s->rr = rr;
    s->alpha = alpha;
    s->den = den;
}

#ifdef __cplusplus
}
#endif

#endif /* SP_CG_FUSED_H */
