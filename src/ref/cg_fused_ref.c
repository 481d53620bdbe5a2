/* The fused Krylov steps on the host (twins of kernels/solve/cg_fused.cu): classic CG with
 * the direction update gathered inside the product, Ghysels-Vanroose pipelined CG (plain or
 * Jacobi) and BiCGSTAB. Values are computed in double with the same fma forms as the
 * kernels and rounded once to the vectors' type; sums in double, in index order. */
#include <math.h>

#include "cg_fused_ref.h"

/* v[i] as a double, and v[i] = value rounded to the type (the stored value returned). */
static double ld(int32_t t, const void *v, int64_t i)
{
    return t == SP_R_32F ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static double st(int32_t t, void *v, int64_t i, double value)
{
    if (t == SP_R_32F) return (double)(((float *)v)[i] = (float)value);
    return ((double *)v)[i] = value;
}

static double rounded(int32_t t, double value)
{
    return t == SP_R_32F ? (double)(float)value : value;
}

/* The operand a spmv step multiplies, at column j: classic p' = z + beta p_old (z when
 * beta is 0, so a stale p never leaks), pipelined m = dinv .* w (w when plain), BiCGSTAB
 * step 0 p' = r + beta (p - omega v) (r at the first iteration), step 1 s = r - alpha v'. */
static double operand(const sp_cg_args_t *a, const sp_cg_state_t *s, int step, double beta,
                      int64_t j)
{
    int32_t t = a->value_type;
    const void *p_old = a->p[s->k & 1];
    if (a->method == SP_CG_PIPELINED)
        return a->precond ? rounded(t, ld(t, a->dinv, j) * ld(t, a->w, j)) : ld(t, a->w, j);
    if (a->method == SP_CG_BICGSTAB) {
        double r = ld(t, a->r, j);
        if (step == 1) return rounded(t, fma(-s->alpha, ld(t, a->v[(s->k + 1) & 1], j), r));
        if (beta == 0.0) return r;
        return rounded(
            t, fma(beta, ld(t, p_old, j), fma(-beta * s->omega, ld(t, a->v[s->k & 1], j), r)));
    }
    if (beta == 0.0) return ld(t, a->z, j);
    return rounded(t, fma(beta, ld(t, p_old, j), ld(t, a->z, j)));
}

static double row_product(const sp_cg_args_t *a, const sp_cg_state_t *s, int step, double beta,
                          int64_t i)
{
    int32_t t = a->value_type;
    double sum = 0.0;
    if (a->mat_kind == SP_CG_MAT_ELL) {
        for (int64_t k = 0; k < a->width; k++) {
            int32_t c = a->idx[k * a->n + i];
            if (c >= 0) sum += ld(t, a->val, k * a->n + i) * operand(a, s, step, beta, c);
        }
    } else {
        int64_t e0 = a->mat_kind == SP_CG_MAT_CSR64 ? a->ptr64[i] : a->ptr[i];
        int64_t e1 = a->mat_kind == SP_CG_MAT_CSR64 ? a->ptr64[i + 1] : a->ptr[i + 1];
        for (int64_t e = e0; e < e1; e++)
            sum += ld(t, a->val, e) * operand(a, s, step, beta, a->idx[e]);
    }
    return sum;
}

/* A spmv step: the product, what its rows write beside it and its sums. */
static void spmv_step(sp_cg_block_t *b, int step)
{
    const sp_cg_args_t *a = &b->args;
    sp_cg_state_t *s = &b->state;
    int32_t t = a->value_type;
    int bicg = a->method == SP_CG_BICGSTAB;
    double beta = bicg ? sp__bicg_beta(s) : a->method == SP_CG_PIPELINED ? 0.0 : sp__cg_beta(s);
    double acc[3] = {0, 0, 0};
    void *p_new = a->p[(s->k + 1) & 1], *v_new = a->v[(s->k + 1) & 1];
    for (int64_t i = 0; i < a->n; i++) {
        double y = row_product(a, s, step, beta, i), o = operand(a, s, step, beta, i);
        if (a->method == SP_CG_PIPELINED) {
            st(t, a->an, i, y);
            if (a->precond) st(t, a->m, i, o);
        } else if (!bicg) {
            double q = st(t, a->q, i, y);
            acc[0] += st(t, p_new, i, o) * q;
            /* the last iteration's x += alpha p, one step late (sp_cg_fused.h) */
            if (s->k > 0)
                st(t, a->x, i, fma(s->alpha, ld(t, a->p[s->k & 1], i), ld(t, a->x, i)));
        } else if (step == 0) {
            st(t, p_new, i, o);
            acc[0] += ld(t, a->rh, i) * st(t, v_new, i, y);
        } else {
            double sv = st(t, a->s, i, o), tv = st(t, a->t, i, y);
            acc[0] += sv * sv;
            acc[1] += tv * sv;
            acc[2] += tv * tv;
        }
    }
    if (a->method == SP_CG_CLASSIC)
        s->pq = acc[0];
    else if (bicg && step == 0)
        sp__bicg_close_v(s, acc[0]);
    else if (bicg)
        sp__bicg_close_s(a, s, acc[0], acc[1], acc[2]);
}

/* r -= alpha q; z = dinv .* r; r.r and r.z (x: in the next spmv step). */
static void classic_update(sp_cg_block_t *b)
{
    const sp_cg_args_t *a = &b->args;
    sp_cg_state_t *s = &b->state;
    int32_t t = a->value_type;
    double alpha = s->pq != 0.0 ? s->rho / s->pq : 0.0, rr = 0.0, rz = 0.0;
    for (int64_t i = 0; i < a->n; i++) {
        double r = st(t, a->r, i, fma(-alpha, ld(t, a->q, i), ld(t, a->r, i)));
        double z = a->precond ? st(t, a->z, i, ld(t, a->dinv, i) * r) : r;
        rr += r * r;
        rz += r * z;
    }
    sp__cg_close(a, s, s->pq, alpha, rr, rz, 0.0);
}

/* new = old_base + beta * old (old_base when beta is 0), stored. */
static double recur(int32_t t, void *v, int64_t i, double base, double beta)
{
    return st(t, v, i, beta == 0.0 ? base : fma(beta, ld(t, v, i), base));
}

/* The eight recurrences of Ghysels-Vanroose and gamma, delta, r.r in the same pass. */
static void pipelined_update(sp_cg_block_t *b)
{
    const sp_cg_args_t *a = &b->args;
    sp_cg_state_t *s = &b->state;
    int32_t t = a->value_type;
    double beta = sp__cg_beta(s), den = sp__cg_pipe_den(s, beta);
    double alpha = den != 0.0 ? s->rho / den : 0.0, rr = 0.0, gamma = 0.0, delta = 0.0;
    void *u = a->precond ? a->z : a->r;
    for (int64_t i = 0; i < a->n; i++) {
        double w = ld(t, a->w, i), u_old = ld(t, u, i);
        double nz = recur(t, a->az, i, ld(t, a->an, i), beta);
        double ns = recur(t, a->q, i, w, beta);
        double np = recur(t, a->p[0], i, u_old, beta);
        double r = st(t, a->r, i, fma(-alpha, ns, ld(t, a->r, i)));
        double un = r;
        st(t, a->x, i, fma(alpha, np, ld(t, a->x, i)));
        if (a->precond) {
            double nq = recur(t, a->ms, i, ld(t, a->m, i), beta);
            un = st(t, a->z, i, fma(-alpha, nq, u_old));
        }
        w = st(t, a->w, i, fma(-alpha, nz, w));
        rr += r * r;
        gamma += r * un;
        delta += w * un;
    }
    sp__cg_close(a, s, den, alpha, rr, gamma, delta);
}

/* BiCGSTAB update: x += alpha p' + omega s (only alpha p' once ||s|| met the tolerance);
 * r = s - omega t; r.r and r^.r. */
static void bicgstab_update(sp_cg_block_t *b)
{
    const sp_cg_args_t *a = &b->args;
    sp_cg_state_t *s = &b->state;
    int32_t t = a->value_type;
    const void *p = a->p[(s->k + 1) & 1];
    double rr = 0.0, rho = 0.0;
    for (int64_t i = 0; i < a->n; i++) {
        double x = fma(s->alpha, ld(t, p, i), ld(t, a->x, i));
        if (s->s_conv) {
            st(t, a->x, i, x);
            continue;
        }
        double sv = ld(t, a->s, i);
        st(t, a->x, i, fma(s->omega, sv, x));
        double r = st(t, a->r, i, fma(-s->omega, ld(t, a->t, i), sv));
        rr += r * r;
        rho += ld(t, a->rh, i) * r;
    }
    sp__bicg_close_r(a, s, rr, rho);
}

void sp__ref_cg_step(sp_cg_block_t *b, int step)
{
    if (b->state.verdict >= 0) return;
    if (step < sp__cg_steps(&b->args) - 1)
        spmv_step(b, step);
    else if (b->args.method == SP_CG_PIPELINED)
        pipelined_update(b);
    else if (b->args.method == SP_CG_BICGSTAB)
        bicgstab_update(b);
    else
        classic_update(b);
}
