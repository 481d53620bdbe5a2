/* SpMV on a CUDA context: dispatch to the per-format kernels (kernels/spmv/), with the
 * analysis of CSR, COO and CSC algorithms done once and cached per (format, algorithm), so
 * repeated calls (an iterative solver's) pay no allocation and no analysis. Once the
 * format and plan exist, a call makes these CUDA runtime calls and no others: one
 * cudaGetDevice (cudaSetDevice too when another device is current), then one
 * cudaLaunchKernelEx per kernel, each checked by its return value: one kernel for ELL,
 * SELL, JDS (a second for the long-row tail when they have one) and CSR scalar and vector
 * (a second for the long rows' pieces when they have any), binned and adaptive; two for
 * CSR merge and split (tile pass, carry fix-up) and HYB (ELL, overflow); CSC and COO
 * atomic a y = beta * y pass and one kernel (the beta pass is left out when beta is 1),
 * COO segmented its tiles (which apply beta) and, past one tile, the carry fix-up (with a
 * beta pass first only for matrices of far more rows than entries).
 * No allocation, memset, event, synchronization or attribute query. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "policy.h"

#ifdef SP_HAVE_CUDA
#include "sp_cuda.h"

enum { NALGS = SP_SPMV_ALG_CSR_ADAPTIVE + 1 };

/* plan[f][alg] for the formats with plans (COO, CSR, CSC); made[f] bit alg when set.
 * csc_ptr32: a CSC with 64-bit offsets below the narrow limit has its column pointers
 * narrowed here for the 32-bit CSC kernels (the 32-bit matrix's, so its bits); made with
 * its first plan, freed with the CSC's plans. Past the limit the kernels read ptr64. */
typedef struct spmv_plans {
    sp_gpu_spmv_plan_t plan[SP_FORMAT_COUNT][NALGS];
    unsigned made[SP_FORMAT_COUNT];
    int32_t *csc_ptr32;
} spmv_plans_t;

/* "csr/merge", for the messages. */
static const char *csr_alg_name(sp_spmv_alg_t alg)
{
    switch (alg) {
    case SP_SPMV_ALG_CSR_SCALAR: return "csr/scalar";
    case SP_SPMV_ALG_CSR_VECTOR: return "csr/vector";
    case SP_SPMV_ALG_CSR_MERGE: return "csr/merge";
    case SP_SPMV_ALG_CSR_SPLIT: return "csr/split";
    case SP_SPMV_ALG_CSR_BINNED: return "csr/binned";
    case SP_SPMV_ALG_CSR_ADAPTIVE: return "csr/adaptive";
    default: return "csr/?";
    }
}

/* Whether a CSR plan of algorithm alg reads A's own pointers, at plan time (long_bound: the
 * long-row bound it is made with) and at call time (pieces: the plan's long_pieces).
 * Scalar and vector (templates on the offset type) read either width, but their long-row
 * pieces 32-bit pointers only; merge and split (templates too) read either width; binned
 * and adaptive read 32-bit pointers only. So with 64-bit offsets those take the CSR's
 * pointers narrowed (sp__matrix_csr32), plan and call alike: binned and adaptive always
 * (below the narrow limit: csr_alg_offsets64 refuses them past it), merge and split below
 * the narrow limit (the 32-bit matrix's kernels; their plans, tile and chunk rows, are the
 * same numbers at either width), scalar and vector where rows are longer than the bound
 * below the narrow limit (the 32-bit matrix's pieces, so its bits; past it the plan has no
 * pieces). */
static int by_width(sp_spmv_alg_t alg)
{
    return alg == SP_SPMV_ALG_CSR_MERGE || alg == SP_SPMV_ALG_CSR_SPLIT;
}

static int plan_reads_own(const sp_matrix_t *A, sp_spmv_alg_t alg, int64_t long_bound)
{
    if (!A->f.csr.ptr64) return 1;
    if (by_width(alg)) return !sp__matrix_narrows(A);
    if (alg != SP_SPMV_ALG_CSR_SCALAR && alg != SP_SPMV_ALG_CSR_VECTOR) return 0;
    return !sp__matrix_narrows(A) || long_bound < 0 || long_bound >= A->row_max;
}

static int call_reads_own(const sp_matrix_t *A, const sp_gpu_spmv_plan_t *plan)
{
    if (!A->f.csr.ptr64) return 1;
    if (by_width(plan->alg)) return !sp__matrix_narrows(A);
    if (plan->alg != SP_SPMV_ALG_CSR_SCALAR && plan->alg != SP_SPMV_ALG_CSR_VECTOR) return 0;
    return plan->long_pieces == 0;
}

/* A's CSR has 64-bit offsets (issue 20): scalar and vector serve it at any size, merge and
 * split asked for by name too; DEFAULT (asked = SP_SPMV_ALG_DEFAULT) keeps the policy's
 * pick when it is scalar or vector, else takes vector at the policy's width for A's mean
 * (AUTO's choice past the limit, unchanged). An algorithm asked for by name that reads
 * 32-bit pointers (binned, adaptive) runs on the narrowed pointers below the narrow limit
 * (the 32-bit matrix's plan and kernels, so its bits) and is refused before any work past
 * it. */
static sp_status_t csr_alg_offsets64(const sp_matrix_t *A, sp_spmv_alg_t asked,
                                     sp_spmv_alg_t *r, int *width)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    char what[64];
    if (*r == SP_SPMV_ALG_CSR_SCALAR || *r == SP_SPMV_ALG_CSR_VECTOR) goto done;
    if (asked == SP_SPMV_ALG_DEFAULT) {
        *r = sp__policy_spmv_csr_alg(sp__policy_for(A->ctx), SP_SPMV_ALG_CSR_VECTOR,
                                     A->f.csr.nrows, A->f.csr.nnz, A->row_max, width);
        goto done;
    }
    if (by_width(*r)) goto done; /* templates on the offset type */
    snprintf(what, sizeof what, "SpMV in %s on a CUDA context", csr_alg_name(*r));
    SP_TRY(sp__matrix_narrowable(A, what));
done:
    return st;
}

/* The CSR a plan or call reads (own: as the rules above say): A's own, or with the
 * pointers narrowed. */
static sp_status_t csr_for(sp_matrix_t *A, int own, sp_csr_t *csr)
{
    *csr = A->f.csr;
    return own ? SP_STATUS_SUCCESS : sp__matrix_csr32(A, csr);
}

/* The CSC the CSC kernels read: A's own, or with 64-bit offsets below the narrow limit its
 * pointers narrowed into the plan table (made once); past it A's own (the kernels are
 * templates on the offset type). */
static sp_status_t csc_for(sp_matrix_t *A, const sp_gpu_env_t *env, spmv_plans_t *p,
                           sp_csr_t *csc)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t n = A->f.csc.ncols + 1;
    *csc = A->f.csc;
    if (!A->f.csc.ptr64 || !sp__matrix_narrows(A)) goto done;
    if (!p->csc_ptr32) {
        int32_t *d_ptr = NULL;
        SP_TRY(env->alloc(env->self, (void **)&d_ptr, (size_t)n * sizeof(int32_t)));
        st = sp__gpu_offsets_narrow(env, A->f.csc.ptr64, n, d_ptr);
        if (st != SP_STATUS_SUCCESS) {
            env->free(env->self, d_ptr);
            goto done;
        }
        p->csc_ptr32 = d_ptr;
    }
    csc->ptr = p->csc_ptr32;
    csc->ptr64 = NULL;
done:
    return st;
}

/* CSR algorithm alg resolved for A (DEFAULT: the policy's rule from the host's row
 * statistics, no read-back), its *width and its long-row bound *bound (nrows, nnz: the
 * CSR's). */
static sp_spmv_alg_t csr_plan_alg(const sp_matrix_t *A, sp_spmv_alg_t alg, int64_t nrows,
                                  int64_t nnz, int *width, int64_t *bound)
{
    const sp__policy_t *pol = sp__policy_for(A->ctx);
    *bound = sp__policy_spmv_csr_long_bound(pol, nrows, nnz, A->row_max,
                                            A->options.long_row_bound);
    return sp__policy_spmv_csr_alg(pol, alg, nrows, nnz, A->row_max, width);
}

/* sp__cuda_test_csc_variant's bits over the policy's (tests only). */
static atomic_int csc_variant_set, csc_variant_clear;

/* The CSC's plan: the CSC kernel's (chunk columns, flags, heavy rows), or, when the plan
 * finds the matrix equal to its transpose, a CSR plan over the CSC's arrays (they are A's
 * CSR then) with the cost model's CSR algorithm for A (AUTO's when it runs a CSR): the call
 * runs it as a CSR (format SP_FORMAT_CSR in the plan), one write a row, no atomics, the
 * same bits every call. Heavy rows' lengths come from A's CSR pointers when the device
 * holds them at 32 bits, else the plan counts the CSC's rows. */
static sp_status_t csc_plan(sp_matrix_t *A, const sp_gpu_env_t *env, spmv_plans_t *p,
                            sp_gpu_spmv_plan_t *plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const sp__policy_t *pol = sp__policy_for(A->ctx);
    int64_t m = A->f.csc.nrows, n = A->f.csc.ncols, nnz = A->f.csc.nnz;
    int64_t heavy = sp__policy_spmv_csc_heavy_bound(pol, m, nnz, A->row_max, A->row_hist);
    int flags =
        (sp__policy_spmv_csc_aggregate(pol, A->row_max, heavy) ? SP_GPU_CSC_AGGREGATE : 0) |
        (sp__policy_spmv_csc_window(pol, m, n, nnz, heavy) ? SP_GPU_CSC_WINDOW : 0) |
        (sp__policy_spmv_csc_try_symmetric(pol, m, n) ? SP_GPU_CSC_TRY_SYMMETRIC : 0);
    flags = (flags | atomic_load(&csc_variant_set)) & ~atomic_load(&csc_variant_clear);
    const int32_t *row_ptr = (A->built & (1u << SP_FORMAT_CSR)) && A->f.csr.ptr64 == NULL
                                 ? A->f.csr.ptr
                                 : NULL;
    sp_csr_t csc;
    sp_gpu_spmv_plan_t made = {0};
    SP_TRY(csc_for(A, env, p, &csc));
    SP_TRY(sp__gpu_spmv_csc_plan(env, &csc, flags, heavy, row_ptr, &made));
    if (made.param & SP_GPU_CSC_SYMMETRIC) {
        int width = 0;
        int64_t bound = -1;
        sp__spmv_stats_t stats;
        sp_spmv_alg_t r;
        sp__spmv_stats_of(A->ctx, A, &stats);
        r = csr_plan_alg(A, sp__policy_spmv_choose(pol, &stats).csr_alg, m, nnz, &width, &bound);
        sp__gpu_spmv_plan_free(env, &made);
        SP_TRY(sp__gpu_spmv_csr_plan(env, &csc, r, width, bound, &made));
    }
    *plan = made;
done:
    return st;
}

static sp_status_t get_plan(sp_matrix_t *A, sp_format_t f, sp_spmv_alg_t alg,
                            const sp_gpu_env_t *env, const sp_gpu_spmv_plan_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    spmv_plans_t *p = A->gpu_plans, *fresh = NULL;
    int had_csc32 = p && p->csc_ptr32;
    if (!p) {
        SP_CALLOC(fresh, 1);
        p = fresh;
    }
    if (!(p->made[f] & (1u << alg))) {
        sp_gpu_spmv_plan_t plan = {0};
        (void)cudaGetLastError(); /* plans check their <<<>>> launches (SP_CUDA_LAUNCHED) */
        if (f == SP_FORMAT_CSR) {
            /* the policy resolves DEFAULT from the host's row statistics (no read-back) */
            int width = 0;
            int64_t bound = -1;
            sp_spmv_alg_t r =
                csr_plan_alg(A, alg, A->f.csr.nrows, A->f.csr.nnz, &width, &bound);
            sp_csr_t csr;
            if (A->offset_bits == 64) SP_TRY(csr_alg_offsets64(A, alg, &r, &width));
            SP_TRY(csr_for(A, plan_reads_own(A, r, bound), &csr));
            SP_TRY(sp__gpu_spmv_csr_plan(env, &csr, r, width, bound, &plan));
        } else if (f == SP_FORMAT_CSC) {
            SP_TRY(csc_plan(A, env, p, &plan));
        } else {
            SP_TRY(sp__gpu_spmv_coo_plan(env, &A->f.coo, sp__policy_spmv_coo_alg(alg), &plan));
        }
        p->plan[f][alg] = plan;
        p->made[f] |= 1u << alg;
    }
    A->gpu_plans = p;
    fresh = NULL;
    *out = &p->plan[f][alg];
done:
    if (st != SP_STATUS_SUCCESS && p && !had_csc32 && p->csc_ptr32) {
        env->free(env->self, p->csc_ptr32); /* a failed CSC plan keeps no narrowed copy */
        p->csc_ptr32 = NULL;
    }
    sp__free(fresh); /* a failed first plan leaves the matrix without a plan table */
    return st;
}

sp_status_t sp__cuda_spmv_prepare(sp_matrix_t *A, sp_format_t f, sp_spmv_alg_t alg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    const sp_gpu_spmv_plan_t *plan = NULL;
    sp__cuda_env_keep_error(A->ctx, &env);
    if (f == SP_FORMAT_COO || f == SP_FORMAT_CSR || f == SP_FORMAT_CSC)
        SP_TRY(get_plan(A, f, alg, &env, &plan));
done:
    return st;
}

sp_status_t sp__cuda_spmv(sp_matrix_t *A, sp_format_t f, sp_spmv_alg_t alg, const void *alpha,
                          const void *x, const void *beta, void *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    const sp_gpu_spmv_plan_t *plan = NULL;
    sp_csr_t csr;
    sp__cuda_env_keep_error(A->ctx, &env);
    switch (f) {
    case SP_FORMAT_COO:
        SP_TRY(get_plan(A, f, alg, &env, &plan));
        SP_TRY(sp__gpu_spmv_coo(&env, plan, &A->f.coo, alpha, x, beta, y));
        break;
    case SP_FORMAT_CSR:
        SP_TRY(get_plan(A, f, alg, &env, &plan));
        SP_TRY(csr_for(A, call_reads_own(A, plan), &csr)); /* narrowed: made with the plan */
        SP_TRY(sp__gpu_spmv_csr(&env, plan, &csr, alpha, x, beta, y));
        break;
    case SP_FORMAT_CSC:
        SP_TRY(get_plan(A, f, alg, &env, &plan));
        SP_TRY(csc_for(A, &env, A->gpu_plans, &csr)); /* made with the plan */
        if (plan->format == SP_FORMAT_CSR) /* A equals its transpose: its CSC is its CSR */
            SP_TRY(sp__gpu_spmv_csr(&env, plan, &csr, alpha, x, beta, y));
        else
            SP_TRY(sp__gpu_spmv_csc(&env, plan, &csr, alpha, x, beta, y));
        break;
    case SP_FORMAT_ELL: SP_TRY(sp__gpu_spmv_ell(&env, &A->f.ell, alpha, x, beta, y)); break;
    case SP_FORMAT_HYB: SP_TRY(sp__gpu_spmv_hyb(&env, &A->f.hyb, alpha, x, beta, y)); break;
    case SP_FORMAT_JDS: SP_TRY(sp__gpu_spmv_jds(&env, &A->f.jds, alpha, x, beta, y)); break;
    case SP_FORMAT_SELL: SP_TRY(sp__gpu_spmv_sell(&env, &A->f.sell, alpha, x, beta, y)); break;
    default: break;
    }
done:
    return st;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

sp_status_t sp__cuda_spmv_time(sp_matrix_t *A, sp_format_t f, sp_spmv_alg_t alg, int warm,
                               int timed, double *ms)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    size_t vs = sp_value_size(A->f.coo.value_type);
    void *d_x = NULL, *d_y = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    float times[64];
    const double one = 1.0, zero = 0.0;
    const float one_f = 1.0f, zero_f = 0.0f;
    const void *alpha = vs == 4 ? (const void *)&one_f : (const void *)&one;
    const void *beta = vs == 4 ? (const void *)&zero_f : (const void *)&zero;
    timed = timed < 1 ? 1 : timed > 64 ? 64 : timed;
    sp__cuda_env(A->ctx, &env);
    SP_TRY(env.alloc(env.self, &d_x, (size_t)(A->f.coo.ncols + 1) * vs));
    SP_TRY(env.alloc(env.self, &d_y, (size_t)(A->f.coo.nrows + 1) * vs));
    SP_CUDA_TRY(cudaMemsetAsync(d_x, 0, (size_t)(A->f.coo.ncols + 1) * vs, env.stream));
    SP_CUDA_TRY(cudaEventCreate(&ev[0]));
    SP_CUDA_TRY(cudaEventCreate(&ev[1]));
    for (int i = 0; i < warm; i++) SP_TRY(sp__cuda_spmv(A, f, alg, alpha, d_x, beta, d_y));
    for (int i = 0; i < timed; i++) {
        SP_CUDA_TRY(cudaEventRecord(ev[0], env.stream));
        SP_TRY(sp__cuda_spmv(A, f, alg, alpha, d_x, beta, d_y));
        SP_CUDA_TRY(cudaEventRecord(ev[1], env.stream));
        SP_CUDA_TRY(cudaEventSynchronize(ev[1]));
        SP_CUDA_TRY(cudaEventElapsedTime(&times[i], ev[0], ev[1]));
    }
    qsort(times, (size_t)timed, sizeof times[0], cmp_float);
    *ms = times[timed / 2];
done:
    if (ev[1]) cudaEventDestroy(ev[1]);
    if (ev[0]) cudaEventDestroy(ev[0]);
    if (d_y) env.free(env.self, d_y);
    if (d_x) env.free(env.self, d_x);
    return st;
}

/* The plans of format f (every format: SP_FORMAT_COUNT). A table left with no plan goes
 * too, so a call that made the table and then failed past it (a solver setup whose
 * workspace allocation fails after sp_spmv_prepare: its rollback drops the CSR it built)
 * leaves A as it was, without the table. */
void sp__cuda_spmv_free_plans(sp_matrix_t *A, sp_format_t f)
{
    spmv_plans_t *p = A->gpu_plans;
    sp_gpu_env_t env;
    unsigned left = 0;
    if (!p) return;
    sp__cuda_env(A->ctx, &env);
    for (int g = 0; g < SP_FORMAT_COUNT; g++) {
        if (f != SP_FORMAT_COUNT && g != (int)f) {
            left |= p->made[g];
            continue;
        }
        for (int alg = 0; alg < NALGS; alg++)
            if (p->made[g] & (1u << alg)) sp__gpu_spmv_plan_free(&env, &p->plan[g][alg]);
        p->made[g] = 0;
        if (g == SP_FORMAT_CSC && p->csc_ptr32) {
            env.free(env.self, p->csc_ptr32);
            p->csc_ptr32 = NULL;
        }
    }
    if (left == 0) {
        if (p->csc_ptr32) env.free(env.self, p->csc_ptr32); /* made by a CSC plan that failed */
        sp__free(p);
        A->gpu_plans = NULL;
    }
}

sp_status_t sp__cuda_test_csc_route(const sp_matrix_t *A, int *as_csr, int *heavy_rows,
                                    int *variant)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const spmv_plans_t *p = A ? A->gpu_plans : NULL;
    const sp_gpu_spmv_plan_t *plan = NULL;
    SP_CHECK_ARG(p != NULL && (p->made[SP_FORMAT_CSC] & 1u), "no CSC plan made for A");
    plan = &p->plan[SP_FORMAT_CSC][SP_SPMV_ALG_DEFAULT];
    *as_csr = plan->format == SP_FORMAT_CSR;
    *heavy_rows = plan->heavy_rows;
    if (variant) {
        *variant = 0;
        if (!*as_csr && (plan->param & SP_GPU_CSC_AGGREGATE)) *variant |= SP_TEST_CSC_AGGREGATE;
        if (!*as_csr && (plan->param & SP_GPU_CSC_WINDOW)) *variant |= SP_TEST_CSC_WINDOW;
    }
done:
    return st;
}

/* The kernel's flag bits of sp__cuda_test_csc_variant's. */
static int csc_variant_bits(int test_bits)
{
    return ((test_bits & SP_TEST_CSC_AGGREGATE) ? SP_GPU_CSC_AGGREGATE : 0) |
           ((test_bits & SP_TEST_CSC_WINDOW) ? SP_GPU_CSC_WINDOW : 0);
}

void sp__cuda_test_csc_variant(int set, int clear)
{
    atomic_store(&csc_variant_set, csc_variant_bits(set));
    atomic_store(&csc_variant_clear, csc_variant_bits(clear));
}

#else /* !SP_HAVE_CUDA */

sp_status_t sp__cuda_test_csc_route(const sp_matrix_t *A, int *as_csr, int *heavy_rows,
                                    int *variant)
{
    (void)A, (void)as_csr, (void)heavy_rows, (void)variant;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

void sp__cuda_test_csc_variant(int set, int clear) { (void)set, (void)clear; }

sp_status_t sp__cuda_spmv(sp_matrix_t *A, sp_format_t f, sp_spmv_alg_t alg, const void *alpha,
                          const void *x, const void *beta, void *y)
{
    (void)A, (void)f, (void)alg, (void)alpha, (void)x, (void)beta, (void)y;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

sp_status_t sp__cuda_spmv_prepare(sp_matrix_t *A, sp_format_t f, sp_spmv_alg_t alg)
{
    (void)A, (void)f, (void)alg;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

void sp__cuda_spmv_free_plans(sp_matrix_t *A, sp_format_t f) { (void)A, (void)f; }

sp_status_t sp__cuda_spmv_time(sp_matrix_t *A, sp_format_t f, sp_spmv_alg_t alg, int warm,
                               int timed, double *ms)
{
    (void)A, (void)f, (void)alg, (void)warm, (void)timed, (void)ms;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

#endif
