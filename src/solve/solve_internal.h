/* What the solvers (src/solve/) share: the solver object, its workspace and the slots of
 * device-side scalars, and the steps every method uses. */
#ifndef SP_SOLVE_INTERNAL_H
#define SP_SOLVE_INTERNAL_H

#include "sp_cg_fused.h"
#include "sp_vector.h"

/* Scalars kept in the context's memory (a double vector), so a step can use a reduction's
 * result as its coefficient without a trip to the host. The first NREAD are read together
 * by the once-per-iteration synchronization of the CG family. */
enum {
    SLOT_PQ = 0,   /* p . A p */
    SLOT_RR = 1,   /* r . r after the update */
    SLOT_RHO0 = 2, /* rho = r . z, ping-ponged between RHO0 and RHO1 */
    SLOT_RHO1 = 3,
    SLOT_NREAD = 4,
    SLOT_TMP = 4, /* a reduction read back at once */
    SLOT_COUNT = 5
};

struct sp_solver {
    sp_context_t *ctx;
    sp_solver_type_t type;
    sp_solver_options_t options; /* as set (zeros: defaults) */
    sp_matrix_t *A;              /* borrowed; NULL before setup */
    sp_format_t format;          /* SpMV format chosen at setup (AUTO's) */
    sp_spmv_alg_t alg;           /* and AUTO's algorithm for it (COO atomic, CSR's) */
    sp_value_type_t t;
    int64_t n;
    /* workspace (NULL where the method needs none) */
    sp_vector_t *r, *z, *p, *q;  /* CG family; BiCGSTAB: r, p, and q as v */
    sp_vector_t *rhat, *s, *tv;  /* BiCGSTAB */
    sp_vector_t *diag;           /* Jacobi: 1 / a_ii; SGS: a_ii */
    sp_vector_t *tmp;            /* SGS: between the two triangular solves */
    sp_vector_t *scal;           /* SLOT_COUNT doubles */
    /* the fused iterations (solve_cg_fused.c), when the options ask for them at setup */
    int fused_loop;              /* 0: the step loop; SP_SOLVER_LOOP_FUSED or _DEVICE */
    int pipelined;               /* as prepared by the setup */
    sp_vector_t *p1, *v1;        /* the second direction buffer; BiCGSTAB: the second v */
    sp_vector_t *w, *m, *an, *az, *ms; /* pipelined (m, ms: Jacobi only) */
    sp_vector_t *cgv;            /* the block of sp_cg_fused.h, SP_CG_BLOCK_DOUBLES doubles */
    sp_cg_args_t cg;             /* host copy of the block's arguments (x set per solve) */
    void *loop_graph, *loop_exec; /* CUDA LOOP_DEVICE: the graph (NULL: queued batches) */
    sp_solver_result_t result;
};

/* y = alpha * A x + beta * y with the setup's format. */
sp_status_t sp__solver_spmv(sp_solver_t *s, double alpha, const sp_vector_t *x, double beta,
                            sp_vector_t *y);
/* r = b - A x (x == NULL: r = b). */
sp_status_t sp__solver_residual(sp_solver_t *s, const sp_vector_t *b, const sp_vector_t *x,
                                sp_vector_t *r);
/* *h = x . y (root: ||x||, y ignored), through SLOT_TMP: one synchronization on CUDA. */
sp_status_t sp__solver_dot(sp_solver_t *s, const sp_vector_t *x, const sp_vector_t *y,
                           int root, double *h);
/* Pointer to slot k of the scalars (context memory). */
double *sp__solver_slot(sp_solver_t *s, int k);

/* The preconditioner (src/solve/solve_precond.c): made at setup; applied as z = M^-1 r with
 * rho = r . z written to *rho_slot (context memory). CG: none (z is r). */
sp_status_t sp__precond_setup(sp_solver_t *s);
sp_status_t sp__precond_apply(sp_solver_t *s, const sp_vector_t *r, sp_vector_t *z,
                              double *rho_slot);

/* The methods; on entry b and x are checked, result zeroed; they set result fields but
 * status, iterations and recurrence_residual only (the caller recomputes the residual). */
sp_status_t sp__solve_cg(sp_solver_t *s, const sp_vector_t *b, sp_vector_t *x, double bnorm);
sp_status_t sp__solve_bicgstab(sp_solver_t *s, const sp_vector_t *b, sp_vector_t *x,
                               double bnorm);

/* The fused iterations of CG, PCG-Jacobi, PCG-SGS and BiCGSTAB (solve_cg_fused.c).
 * sp__cg_fused_mode: the loop the options ask of a solver type on a context (0: the step
 * loop; SP_SOLVER_LOOP_FUSED or _DEVICE; LOOP_AUTO as sp__policy_solver_loop says). Setup makes the extra workspace, the block and (CUDA,
 * LOOP_DEVICE) the graph; free releases them. */
int sp__cg_fused_mode(const sp_context_t *ctx, const sp_solver_options_t *o,
                      sp_solver_type_t type);
/* 1 when the options run pipelined CG for this type (CG and PCG-Jacobi only). */
int sp__cg_fused_pipelined(const sp_solver_options_t *o, sp_solver_type_t type);
sp_status_t sp__cg_fused_setup(sp_solver_t *s);
void sp__cg_fused_free(sp_solver_t *s);
sp_status_t sp__solve_cg_fused(sp_solver_t *s, const sp_vector_t *b, sp_vector_t *x,
                               double bnorm);

/* The options with defaults filled in. */
int64_t sp__solver_max_iterations(const sp_solver_t *s);
double sp__solver_rtol(const sp_solver_t *s);

#endif /* SP_SOLVE_INTERNAL_H */
