/* The fused Krylov iterations (classic CG and Ghysels-Vanroose pipelined CG, both plain or
 * Jacobi-preconditioned, and BiCGSTAB): what the solver driver
 * (src/solve/solve_cg_fused.c), the GPU kernels (kernels/solve/cg_fused.cu) and their host
 * twins (src/ref/cg_fused_ref.c) share. An iteration is two or three steps, each one pass
 * over the vectors:
 *
 *   classic   spmv step:   p' = z + beta p (beta = rho / rho_prev, 0 at the first),
 *                          q = A p' with p' gathered on the fly, and p'.q; the last
 *                          iteration's x += alpha p (its p is read here anyway, so the
 *                          update step need not read p'); after the loop the driver adds
 *                          the last alpha p'
 *             update step: alpha = rho / p'.q; r -= alpha q; z = M^-1 r; r.r and r.z; the
 *                          verdict
 *   pipelined spmv step:   m = M^-1 w (on the fly), n = A m; no reduction
 *             update step: beta, alpha from gamma, delta of the last step; the eight
 *                          recurrences; gamma = r.u, delta = w.u and r.r together (the
 *                          one global reduction of the iteration); the verdict
 *   BiCGSTAB  spmv step 1: p' = r + beta (p - omega v) on the fly, v' = A p', r^.v'
 *             spmv step 2: s = r - alpha v' on the fly, t = A s, s.s, t.s, t.t
 *             update step: x += alpha p' + omega s; r = s - omega t; r.r, r^.r; the verdict
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

/* The matrix as the spmv step reads it: CSR with 32-bit row pointers (ptr), ELL, or CSR with
 * 64-bit row pointers (ptr64: a matrix with 64-bit offsets past the narrow limit, issue 20;
 * below it the driver gives the pointers narrowed, SP_CG_MAT_CSR). */
typedef enum sp_cg_mat_kind {
    SP_CG_MAT_CSR = 0,
    SP_CG_MAT_ELL = 1,
    SP_CG_MAT_CSR64 = 2
} sp_cg_mat_kind_t;

/* Reductions of one step: at most this many blocks' partials per value (the vector
 * kernels' block cap, kernels/sp_kernels_vec.h), three values at most. */
enum { SP_CG_MAX_PARTS = 1024, SP_CG_NVALUES = 3 };

/* The method of a block. */
typedef enum sp_cg_method {
    SP_CG_CLASSIC = 0,
    SP_CG_PIPELINED = 1,
    SP_CG_BICGSTAB = 2
} sp_cg_method_t;

/* Fixed for a solve (written by the driver before the first step). Vector roles, the
 * names of Ghysels & Vanroose (2014, alg. 4) in brackets:
 *   x, r        solution, residual
 *   z           M^-1 r (plain CG: r itself) [u]
 *   p[2]        search direction, ping-ponged by iteration parity (classic) [p: p[0]]
 *   q           A p [s]
 *   w, m, an    pipelined: A u, M^-1 w (plain: w), A m [w, m, n]
 *   az, ms      pipelined: A M^-1 s [z], M^-1 s (plain: q) [q]
 *   rh, v[2]    BiCGSTAB: the shadow residual r^, A p (ping-ponged like p)
 *   s, t        BiCGSTAB: r - alpha v, A s */
typedef struct sp_cg_args {
    int64_t n, nnz;
    int32_t value_type; /* SP_R_32F or SP_R_64F */
    int32_t mat_kind;   /* sp_cg_mat_kind_t */
    int32_t precond;    /* 1: Jacobi, z = dinv .* r (CG methods) */
    int32_t method;     /* sp_cg_method_t */
    int64_t width;      /* ELL width */
    int64_t ntable;     /* ELL's value table (sp_formats.h): its size, 0 when it has none */
    union {                   /* CSR row pointers (n + 1), one pointer's bytes either way */
        const int32_t *ptr;   /* SP_CG_MAT_CSR */
        const int64_t *ptr64; /* SP_CG_MAT_CSR64 */
    };
    const int32_t *idx; /* CSR columns, or ELL columns (column-major, -1 padding) */
    const void *val;
    const uint8_t *code; /* ELL with a value table: a code a slot (as idx; the GPU reads it
                            and table instead of val, the same bits) */
    const void *table;   /* its ntable values */
    const void *dinv; /* Jacobi: 1 / a_ii */
    void *x, *r, *z, *p[2], *q;
    void *w, *m, *an, *az, *ms;
    void *rh, *v[2], *s, *t;
    double tol; /* stop when sqrt(r.r) <= tol (rtol * ||b||) */
    int64_t maxit;
    int64_t check_every; /* device loop: hand back to the host after k % check_every == 0
                            iterations (0: only at the end) */
    double *parts;       /* SP_CG_NVALUES * SP_CG_MAX_PARTS partials */
} sp_cg_args_t;

/* Changes every iteration; the host reads it whole. */
typedef struct sp_cg_state {
    double rho;      /* classic: r.z for the next iteration; pipelined: gamma = r.u */
    double rho_prev; /* the one the last iteration used (beta's denominator) */
    double pq;       /* classic: p.Ap of the last spmv step; pipelined: delta = w.u */
    double rr;       /* r.r after the last update */
    double alpha;    /* alpha of the last iteration */
    double den;      /* the last iteration's p.Ap (pipelined: delta - beta gamma / alpha) */
    double omega;    /* BiCGSTAB: t.s / t.t of the last iteration */
    int64_t k;       /* iterations done */
    int32_t verdict; /* -1 while going on, else an sp_solver_status_t */
    uint32_t ticket; /* blocks done with the current reduction (GPU; the last resets it) */
    int32_t s_conv;  /* BiCGSTAB: ||s|| met the tolerance; the update step ends there */
    int32_t unused;
} sp_cg_state_t;

/* The block in the context's memory; the partials follow it (args.parts). */
typedef struct sp_cg_block {
    sp_cg_args_t args;
    sp_cg_state_t state;
} sp_cg_block_t;

/* Doubles of context memory a block and its partials take. */
#define SP_CG_BLOCK_DOUBLES                                                                    \
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
    if (a->method == SP_CG_PIPELINED) s->pq = wu;
    s->rr = rr;
    s->alpha = alpha;
    s->den = den;
}

/* Steps of an iteration: the last is the update step. */
SP_CG_HD static inline int sp__cg_steps(const sp_cg_args_t *a)
{
    return a->method == SP_CG_BICGSTAB ? 3 : 2;
}

/* ---- BiCGSTAB: the rule of src/solve/solve_bicgstab.c, step by step. The iteration
 * count is the step loop's: an iteration that stops is counted, and a bad rho found for
 * the next iteration counts that one too. */

/* p' = r + beta (p - omega v): beta = (rho / rho_prev) (alpha / omega); 0 at the first. */
SP_CG_HD static inline double sp__bicg_beta(const sp_cg_state_t *s)
{
    return s->k == 0 ? 0.0 : (s->rho / s->rho_prev) * (s->alpha / s->omega);
}

SP_CG_HD static inline void sp__bicg_stop(sp_cg_state_t *s, int32_t verdict, int64_t counted)
{
    s->verdict = verdict;
    s->k += counted;
}

/* After step 1: rv = r^.v'. */
SP_CG_HD static inline void sp__bicg_close_v(sp_cg_state_t *s, double rv)
{
    s->pq = rv;
    if (!isfinite(rv))
        sp__bicg_stop(s, SP_SOLVER_DIVERGED, 1);
    else if (rv == 0.0)
        sp__bicg_stop(s, SP_SOLVER_BREAKDOWN, 1);
    else
        s->alpha = s->rho / rv;
}

/* After step 2: ss = s.s, ts = t.s, tt = t.t. */
SP_CG_HD static inline void sp__bicg_close_s(const sp_cg_args_t *a, sp_cg_state_t *s, double ss,
                                             double ts, double tt)
{
    double sn = sqrt(ss);
    s->rr = ss;
    if (!isfinite(sn))
        sp__bicg_stop(s, SP_SOLVER_DIVERGED, 1);
    else if (sn <= a->tol)
        s->s_conv = 1;
    else if (!isfinite(ts) || !isfinite(tt))
        sp__bicg_stop(s, SP_SOLVER_DIVERGED, 1);
    else if (tt == 0.0)
        sp__bicg_stop(s, SP_SOLVER_BREAKDOWN, 1);
    else
        s->omega = ts / tt;
}

/* After the update step: rr = r.r, rho_n = r^.r for the next iteration. */
SP_CG_HD static inline void sp__bicg_close_r(const sp_cg_args_t *a, sp_cg_state_t *s, double rr,
                                             double rho_n)
{
    if (s->s_conv) {
        s->s_conv = 0;
        sp__bicg_stop(s, SP_SOLVER_CONVERGED, 1);
        return;
    }
    s->k += 1;
    s->rr = rr;
    if (!isfinite(sqrt(rr)))
        s->verdict = SP_SOLVER_DIVERGED;
    else if (sqrt(rr) <= a->tol)
        s->verdict = SP_SOLVER_CONVERGED;
    else if (s->omega == 0.0)
        s->verdict = SP_SOLVER_BREAKDOWN;
    else if (s->k >= a->maxit)
        s->verdict = SP_SOLVER_MAX_ITERATIONS;
    else if (!isfinite(rho_n))
        sp__bicg_stop(s, SP_SOLVER_DIVERGED, 1);
    else if (rho_n == 0.0)
        sp__bicg_stop(s, SP_SOLVER_BREAKDOWN, 1);
    s->rho_prev = s->rho;
    s->rho = rho_n;
}

#ifdef __cplusplus
}
#endif

#endif /* SP_CG_FUSED_H */
