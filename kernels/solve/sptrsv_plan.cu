/* Sparse triangular solve analysis and dispatch: per row where the used triangle's strict
 * part begins or ends and whether a non-zero diagonal is stored (first offending row found
 * on the GPU), the dependency levels by the level pass (sptrsv_level_pass.cu), the rows
 * grouped by level (level scheduling, the wave and single-block solves, and the soft solve
 * on wide levels), then the chosen solve's own part. Device passes only; the host reads
 * back a few scalars twice and the level offsets once. */
#include <string.h>

#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace {

/* What the analysis reads back from the device. */
struct analysis_scratch {
    unsigned long long ticket;  /* of the level pass */
    unsigned long long tri_nnz; /* entries of the used triangle, diagonal counted once */
    unsigned bad_row;           /* first row without a non-zero diagonal (UINT_MAX: none) */
    unsigned max_level;
};

/* bound[r] = first position of row r with column >= r (lower) or > r (upper), by binary
 * search in the sorted row; the diagonal is then just before (upper) or at (lower) it.
 * Off: the type of entry positions (strict_range). */
template <typename T, bool UPPER, typename Off>
__global__ void __launch_bounds__(P::block_threads)
bound_kernel(const Off *__restrict__ ptr, const int32_t *__restrict__ idx,
             const T *__restrict__ val, int64_t n, bool unit, Off *__restrict__ bound,
             analysis_scratch *scr)
{
    int64_t r = (int64_t)blockIdx.x * P::block_threads + threadIdx.x;
    unsigned long long count = 0;
    if (r < n) {
        int64_t lo = ptr[r], hi = ptr[r + 1], l = lo, h = hi;
        while (l < h) {
            int64_t m = l + (h - l) / 2;
            if (UPPER ? idx[m] <= r : idx[m] < r)
                l = m + 1;
            else
                h = m;
        }
        bound[r] = (Off)l;
        int64_t d = UPPER ? l - 1 : l;
        bool has_diag = d >= lo && d < hi && idx[d] == r && val[d] != T(0);
        if (!unit && !has_diag) atomicMin(&scr->bad_row, (unsigned)r);
        count = (unsigned long long)(UPPER ? hi - l : l - lo) + 1;
    }
    count = sp_prim::warp_sum(count);
    if ((threadIdx.x & 31) == 0 && count) atomicAdd(&scr->tri_nnz, count);
}

/* The scratch back on the host (synchronizes the stream). */
sp_status_t read_scratch(const sp_gpu_env_t *env, const analysis_scratch *d_s, analysis_scratch *h)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CUDA_TRY(cudaMemcpyAsync(h, d_s, sizeof *h, cudaMemcpyDeviceToHost,
                                (cudaStream_t)env->stream));
    SP_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)env->stream));
done:
    return st;
}

sp_status_t check_matrix(const char *what, const sp_csr_t *a)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(a->nrows == a->ncols, "%s: matrix is %lld x %lld, not square", what,
                 (long long)a->nrows, (long long)a->ncols);
    SP_CHECK_ARG(a->value_type == SP_R_32F || a->value_type == SP_R_64F,
                 "%s: the matrix has no values (pattern)", what);
    SP_CHECK_ARG(a->nrows >= 0 && a->nnz >= 0, "%s: negative size %lld rows nnz %lld", what,
                 (long long)a->nrows, (long long)a->nnz);
    /* rows stay 32-bit; entries past INT32_MAX need 64-bit offsets (ptr64, issue 20) */
    if (a->nrows > INT32_MAX || (a->nnz > INT32_MAX && a->ptr64 == NULL))
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: %lld rows nnz %lld exceeds 32-bit indices", what,
                (long long)a->nrows, (long long)a->nnz);
    SP_CHECK_ARG(a->ptr == NULL || a->ptr64 == NULL,
                 "%s: both ptr and ptr64 are set (exactly one must be)", what);
    SP_CHECK_ARG(a->nrows == 0 || a->ptr != NULL || a->ptr64 != NULL,
                 "%s: NULL row pointers for %lld rows", what, (long long)a->nrows);
    SP_CHECK_ARG(a->nnz == 0 || (a->idx != NULL && a->val != NULL),
                 "%s: NULL idx or val for nnz %lld", what, (long long)a->nnz);
done:
    return st;
}

} /* namespace */

extern "C" void sp__gpu_sptrsv_plan_free(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan)
{
    if (plan == NULL) return;
    if (env != NULL) {
        env->free(env->self, plan->d_wval);
        env->free(env->self, plan->d_widx);
        env->free(env->self, plan->d_wcount);
        env->free(env->self, plan->d_mval);
        env->free(env->self, plan->d_mbound);
        env->free(env->self, plan->d_midx);
        env->free(env->self, plan->d_mptr);
        env->free(env->self, plan->d_done);
        env->free(env->self, plan->d_unit_ptr);
        env->free(env->self, plan->d_unit_level);
        env->free(env->self, plan->d_unit_begin);
        env->free(env->self, plan->d_ticket);
        env->free(env->self, plan->d_flags);
        env->free(env->self, plan->d_rank);
        env->free(env->self, plan->d_level_ptr);
        env->free(env->self, plan->d_order);
        env->free(env->self, plan->d_bound64);
        env->free(env->self, plan->d_bound);
    }
    sp__free(plan->h_level_ptr);
    sp__free(plan);
}

extern "C" int64_t sp__gpu_sptrsv_plan_levels(const sp_gpu_sptrsv_plan_t *plan)
{
    return plan ? plan->nlevels : 0;
}

extern "C" int64_t sp__gpu_sptrsv_plan_merged(const sp_gpu_sptrsv_plan_t *plan)
{
    return plan && plan->merged ? plan->merged_terms : 0;
}

namespace {

/* *out = the level-scheduling plan of p's triangle from p's analysis, p's rows already
 * grouped by level: the bound array copied, the grouping moved where p's solve does not use
 * it (the natural order) and copied where it does. */
sp_status_t levels_plan_from(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *p,
                             sp_gpu_sptrsv_plan_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_sptrsv_plan_t *q = NULL;
    cudaStream_t s = (cudaStream_t)env->stream;
    const size_t nb = (size_t)p->n * sizeof(int32_t), lb = (size_t)p->nlevels * sizeof(int32_t);
    const size_t bb = (size_t)p->n * (p->d_bound64 ? sizeof(int64_t) : sizeof(int32_t));
    SP_TRY(host_array(&q, 1));
    memset(q, 0, sizeof *q);
    q->alg = SP_GPU_SPTRSV_LEVELS;
    q->upper = p->upper;
    q->unit_diag = p->unit_diag;
    q->n = p->n;
    q->nnz = p->nnz;
    q->value_type = p->value_type;
    q->nlevels = p->nlevels;
    q->tri_nnz = p->tri_nnz;
    q->warp_per_row = p->warp_per_row;
    if (p->n > 0) {
        if (p->d_bound64) {
            SP_TRY(env->alloc(env->self, (void **)&q->d_bound64, bb));
            SP_CUDA_TRY(
                cudaMemcpyAsync(q->d_bound64, p->d_bound64, bb, cudaMemcpyDeviceToDevice, s));
        } else {
            SP_TRY(env->alloc(env->self, (void **)&q->d_bound, bb));
            SP_CUDA_TRY(
                cudaMemcpyAsync(q->d_bound, p->d_bound, bb, cudaMemcpyDeviceToDevice, s));
        }
        if (p->ordered) {
            SP_TRY(env->alloc(env->self, (void **)&q->d_order, nb));
            SP_TRY(env->alloc(env->self, (void **)&q->d_level_ptr, lb));
            SP_TRY(host_array(&q->h_level_ptr, p->nlevels + 1));
            SP_CUDA_TRY(cudaMemcpyAsync(q->d_order, p->d_order, nb, cudaMemcpyDeviceToDevice, s));
            SP_CUDA_TRY(
                cudaMemcpyAsync(q->d_level_ptr, p->d_level_ptr, lb, cudaMemcpyDeviceToDevice, s));
            memcpy(q->h_level_ptr, p->h_level_ptr, (size_t)(p->nlevels + 1) * sizeof(int64_t));
        } else {
            q->d_order = p->d_order;
            q->d_level_ptr = p->d_level_ptr;
            q->h_level_ptr = p->h_level_ptr;
            p->d_order = p->d_level_ptr = NULL;
            p->h_level_ptr = NULL;
        }
    }
    *out = q;
    q = NULL;
done:
    sp__gpu_sptrsv_plan_free(env, q);
    return st;
}

/* sp__gpu_sptrsv_analyse, and the level-scheduling plan beside where levels_plan != NULL and
 * wanted(arg, n, nlevels). */
sp_status_t analyse(const sp_gpu_env_t *env, const sp_csr_t *a, int upper, int unit_diag,
                    sp_gpu_sptrsv_alg_t alg, sp_gpu_sptrsv_levels_wanted_t wanted,
                    const void *arg, sp_gpu_sptrsv_plan_t **plan,
                    sp_gpu_sptrsv_plan_t **levels_plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_sptrsv_plan_t *p = NULL, *lp = NULL;
    analysis_scratch *d_s = NULL, h_s;
    int32_t *d_level = NULL;
    cudaStream_t s = NULL;
    bool both = false, may_both = levels_plan != NULL && wanted != NULL &&
                                  alg != SP_GPU_SPTRSV_LEVELS;
    SP_CHECK_ARG(env != NULL && a != NULL && plan != NULL, "sptrsv analyse: NULL argument");
    SP_CHECK_ARG(alg == SP_GPU_SPTRSV_LEVELS || alg == SP_GPU_SPTRSV_SOFT ||
                     alg == SP_GPU_SPTRSV_SOFT_NATURAL || sp__gpu_sptrsv_value_alg(alg) ||
                     alg == SP_GPU_SPTRSV_WAVE || alg == SP_GPU_SPTRSV_SMALL,
                 "sptrsv analyse: unknown algorithm %d", (int)alg);
    SP_TRY(check_matrix("sptrsv analyse", a));
    if (alg == SP_GPU_SPTRSV_SMALL &&
        (size_t)a->nrows * sp_value_size(a->value_type) > SP_GPU_SPTRSV_SMALL_MAX_BYTES)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sptrsv analyse: %lld rows exceed the single-block solve's %d bytes of x",
                (long long)a->nrows, SP_GPU_SPTRSV_SMALL_MAX_BYTES);
    s = (cudaStream_t)env->stream;
    sp__gpu_sptrsv_phase_begin(env);
    SP_TRY(host_array(&p, 1));
    memset(p, 0, sizeof *p);
    p->alg = alg;
    p->upper = upper != 0;
    p->unit_diag = unit_diag != 0;
    p->n = a->nrows;
    p->nnz = a->nnz;
    p->value_type = a->value_type;
    if (p->n > 0) {
        if (a->ptr64)
            SP_TRY(
                env->alloc(env->self, (void **)&p->d_bound64, (size_t)p->n * sizeof(int64_t)));
        else
            SP_TRY(env->alloc(env->self, (void **)&p->d_bound, (size_t)p->n * sizeof(int32_t)));
        SP_TRY(env->alloc(env->self, (void **)&d_s, sizeof *d_s));
        SP_TRY(env->alloc(env->self, (void **)&d_level, (size_t)p->n * sizeof(int32_t)));
        SP_CUDA_TRY(cudaMemsetAsync(d_s, 0, sizeof *d_s, s));
        SP_CUDA_TRY(cudaMemsetAsync(&d_s->bad_row, 0xff, sizeof d_s->bad_row, s));
        SP_CUDA_TRY(cudaMemsetAsync(d_level, 0, (size_t)p->n * sizeof(int32_t), s));
        sp__gpu_sptrsv_phase_mark("setup");
        by_value(a->value_type, [&](auto tag) {
            using T = decltype(tag);
            by_offset(a, [&](auto otag) {
                using Off = decltype(otag);
                unsigned blocks = (unsigned)ceil_div(p->n, P::block_threads);
                const T *val = static_cast<const T *>(a->val);
                Off *bound = const_cast<Off *>(plan_bound<Off>(p));
                if (p->upper)
                    bound_kernel<T, true, Off><<<blocks, P::block_threads, 0, s>>>(
                        row_ptr<Off>(a), a->idx, val, p->n, p->unit_diag != 0, bound, d_s);
                else
                    bound_kernel<T, false, Off><<<blocks, P::block_threads, 0, s>>>(
                        row_ptr<Off>(a), a->idx, val, p->n, p->unit_diag != 0, bound, d_s);
            });
        });
        SP_CUDA_LAUNCHED("sptrsv bound kernel");
        sp__gpu_sptrsv_phase_mark("bound");
        /* the level pass needs no diagonal, so one read-back serves both passes */
        SP_TRY(sp__gpu_sptrsv_level_pass(env, a, p, d_level, &d_s->max_level, &d_s->ticket));
        sp__gpu_sptrsv_phase_mark("level_pass");
        SP_TRY(read_scratch(env, d_s, &h_s));
        sp__gpu_sptrsv_phase_mark("readback");
        if (h_s.bad_row != 0xffffffffu)
            SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
                    "sptrsv analyse: row %u has no non-zero diagonal entry (singular triangle)",
                    h_s.bad_row);
        p->tri_nnz = (int64_t)h_s.tri_nnz;
        p->warp_per_row = p->tri_nnz >= (int64_t)P::warp_min_len * p->n;
        p->nlevels = h_s.max_level;
        p->ordered = alg == SP_GPU_SPTRSV_WAVE || alg == SP_GPU_SPTRSV_SMALL ||
                     (alg != SP_GPU_SPTRSV_LEVELS && alg != SP_GPU_SPTRSV_SOFT_NATURAL &&
                      p->n >= (int64_t)P::ordered_min_width * p->nlevels);
        both = may_both && wanted(arg, p->n, p->nlevels);
        if (alg == SP_GPU_SPTRSV_LEVELS || p->ordered || both) {
            SP_TRY(sp__gpu_sptrsv_levels_prepare(env, p, d_level));
            sp__gpu_sptrsv_phase_mark("group_by_level");
        }
        if (alg == SP_GPU_SPTRSV_WAVE)
            SP_TRY(sp__gpu_sptrsv_wave_prepare(env, p));
        else if (alg == SP_GPU_SPTRSV_SMALL)
            SP_TRY(sp__gpu_sptrsv_small_prepare(env, p));
        else if (alg != SP_GPU_SPTRSV_LEVELS)
            SP_TRY(sp__gpu_sptrsv_soft_prepare(env, p));
        if (alg != SP_GPU_SPTRSV_LEVELS) sp__gpu_sptrsv_phase_mark("prepare");
        if (sp__gpu_sptrsv_value_alg(alg)) {
            SP_TRY(sp__gpu_sptrsv_value_merge(env, a, p, d_level));
            sp__gpu_sptrsv_phase_mark("merge");
        }
    } else {
        both = may_both && wanted(arg, 0, 0);
    }
    if (both) {
        SP_TRY(levels_plan_from(env, p, &lp));
        sp__gpu_sptrsv_phase_mark("levels_plan");
    }
    *plan = p;
    p = NULL;
    if (levels_plan) *levels_plan = lp;
    lp = NULL;
done:
    if (env != NULL) {
        env->free(env->self, d_level);
        env->free(env->self, d_s);
    }
    sp__gpu_sptrsv_plan_free(env, lp);
    sp__gpu_sptrsv_plan_free(env, p);
    sp__gpu_sptrsv_phase_mark("release");
    sp__gpu_sptrsv_phase_end(st == SP_STATUS_SUCCESS);
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_sptrsv_analyse(const sp_gpu_env_t *env, const sp_csr_t *a,
                                              int upper, int unit_diag, sp_gpu_sptrsv_alg_t alg,
                                              sp_gpu_sptrsv_plan_t **plan)
{
    return analyse(env, a, upper, unit_diag, alg, NULL, NULL, plan, NULL);
}

extern "C" sp_status_t sp__gpu_sptrsv_analyse_both(const sp_gpu_env_t *env, const sp_csr_t *a,
                                                   int upper, int unit_diag,
                                                   sp_gpu_sptrsv_alg_t alg,
                                                   sp_gpu_sptrsv_levels_wanted_t wanted,
                                                   const void *arg, sp_gpu_sptrsv_plan_t **plan,
                                                   sp_gpu_sptrsv_plan_t **levels_plan)
{
    if (levels_plan == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sptrsv analyse: levels_plan is NULL");
    return analyse(env, a, upper, unit_diag, alg, wanted, arg, plan, levels_plan);
}

extern "C" sp_status_t sp__gpu_sptrsv_solve(const sp_gpu_env_t *env,
                                            const sp_gpu_sptrsv_plan_t *plan, const sp_csr_t *a,
                                            const void *alpha, const void *d_b, void *d_x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    size_t bytes;
    SP_CHECK_ARG(env != NULL && plan != NULL && a != NULL && alpha != NULL,
                 "sptrsv solve: NULL argument");
    SP_TRY(check_matrix("sptrsv solve", a));
    SP_CHECK_ARG(a->nrows == plan->n && a->nnz == plan->nnz && a->value_type == plan->value_type,
                 "sptrsv solve: matrix (%lld rows, nnz %lld) is not the analysed one (%lld rows, "
                 "nnz %lld)",
                 (long long)a->nrows, (long long)a->nnz, (long long)plan->n, (long long)plan->nnz);
    if (plan->n == 0) goto done;
    SP_CHECK_ARG((a->ptr64 != NULL) == (plan->d_bound64 != NULL),
                 "sptrsv solve: the matrix has %d-bit offsets, the analysed one %d-bit",
                 a->ptr64 ? 64 : 32, plan->d_bound64 ? 64 : 32);
    SP_CHECK_ARG(d_b != NULL && d_x != NULL, "sptrsv solve: b or x is NULL for %lld rows",
                 (long long)plan->n);
    bytes = (size_t)plan->n * sp_value_size(plan->value_type);
    SP_CHECK_ARG((const char *)d_b + bytes <= (const char *)d_x ||
                     (const char *)d_x + bytes <= (const char *)d_b,
                 "sptrsv solve: b and x overlap");
    if (plan->alg == SP_GPU_SPTRSV_LEVELS)
        SP_TRY(sp__gpu_sptrsv_levels_solve(env, plan, a, alpha, d_b, d_x));
    else if (plan->alg == SP_GPU_SPTRSV_WAVE)
        SP_TRY(sp__gpu_sptrsv_wave_solve(env, plan, a, alpha, d_b, d_x));
    else if (plan->alg == SP_GPU_SPTRSV_SMALL)
        SP_TRY(sp__gpu_sptrsv_small_solve(env, plan, a, alpha, d_b, d_x));
    else
        SP_TRY(sp__gpu_sptrsv_soft_solve(env, plan, a, alpha, d_b, d_x));
done:
    return st;
}
