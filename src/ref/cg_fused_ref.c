/* The fused CG steps on the host (twins of kernels/solve/cg_fused.cu): classic CG with the
 * direction update gathered inside the product, and Ghysels-Vanroose pipelined CG, plain
 * or Jacobi. Values are computed in double with the same fma forms as the kernels and
 * rounded once to the vectors' type; sums in double, in index order. */
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

/* The operand the spmv step multiplies, at column j: classic p' = z + beta p_old (z when
 * beta is 0, so a stale p never leaks), pipelined m = dinv .* w (w when plain). */
static double operand(const sp_cg_args_t *a, const void *p_old, double beta, int64_t j)
{
    int32_t t = a->value_type;
    if (a->pipelined)
        return a->precond ? rounded(t, ld(t, a->dinv, j) * ld(t, a->w, j)) : ld(t, a->w, j);
    if (beta == 0.0) return ld(t, a->z, j);
    return rounded(t, fma(beta, ld(t, p_old, j), ld(t, a->z, j)));
}

static double row_product(const sp_cg_args_t *a, const void *p_old, double beta, int64_t i)
{
    int32_t t = a->value_type;
    double sum = 0.0;
    if (a->mat_kind == SP_CG_MAT_ELL) {
        for (int64_t k = 0; k < a->width; k++) {
            int32_t c = a->idx[k * a->n + i];
            if (c >= 0) sum += ld(t, a->val, k * a->n + i) * operand(a, p_old, beta, c);
        }
    } else {
        for (int64_t e = a->ptr[i]; e < a->ptr[i + 1]; e++)
            sum += ld(t, a->val, e) * operand(a, p_old, beta, a->idx[e]);
    }
    return sum;
}

void sp__ref_cg_spmv_step(sp_cg_block_t *b)
{
    const sp_cg_args_t *a = &b->args;
    sp_cg_state_t *s = &b->state;
    int32_t t = a->value_type;
    double beta = a->pipelined ? 0.0 : sp__cg_beta(s), pq = 0.0;
    const void *p_old = a->p[s->k & 1];
    void *p_new = a->p[(s->k + 1) & 1];
    if (s->verdict >= 0) return;
    for (int64_t i = 0; i < a->n; i++) {
        double y = row_product(a, p_old, beta, i);
        if (a->pipelined) {
            st(t, a->an, i, y);
            if (a->precond) st(t, a->m, i, operand(a, p_old, beta, i));
        } else {
            double q = st(t, a->q, i, y);
            pq += st(t, p_new, i, operand(a, p_old, beta, i)) * q;
        }
    }
    if (!a->pipelined) s->pq = pq;
}

/* x += alpha p'; r -= alpha q; z = dinv .* r; r.r and r.z. */
static void classic_update(sp_cg_block_t *b)
{
    const sp_cg_args_t *a = &b->args;
    sp_cg_state_t *s = &b->state;
    int32_t t = a->value_type;
    const void *p = a->p[(s->k + 1) & 1];
    double alpha = s->pq != 0.0 ? s->rho / s->pq : 0.0, rr = 0.0, rz = 0.0;
    for (int64_t i = 0; i < a->n; i++) {
        double pi = ld(t, p, i), qi = ld(t, a->q, i);
        double r = st(t, a->r, i, fma(-alpha, qi, ld(t, a->r, i)));
        double z = a->precond ? st(t, a->z, i, ld(t, a->dinv, i) * r) : r;
        st(t, a->x, i, fma(alpha, pi, ld(t, a->x, i)));
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

void sp__ref_cg_update_step(sp_cg_block_t *b)
{
    if (b->state.verdict >= 0) return;
    if (b->args.pipelined)
        pipelined_update(b);
    else
        classic_update(b);
}
