/* Matrices on a CUDA context: the host COO is uploaded, sorted and merged on the GPU,
 * every format is converted there (kernels/convert/), and sp_matrix_view copies a format
 * back into a host mirror. Built without CUDA these return SP_STATUS_NOT_COMPILED. */
#include <stdio.h>
#include <string.h>

#include "sp_api.h"

#ifdef SP_HAVE_CUDA
#include "sp_cuda.h"

static sp_status_t upload(const sp_gpu_env_t *env, void **d, const void *h, size_t bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(env->alloc(env->self, d, bytes));
    if (bytes) SP_CUDA_TRY(cudaMemcpyAsync(*d, h, bytes, cudaMemcpyHostToDevice, env->stream));
done:
    return st;
}

/* a * b + c bytes, saturating at INT64_MAX (ELL of a long row in many rows). */
static int64_t bytes_of(int64_t a, int64_t b, int64_t c)
{
    if (a > 0 && b > (INT64_MAX - c) / a) return INT64_MAX;
    return a * b + c;
}

/* Device bytes a step certainly needs, from sizes known on the host: its outputs and the
 * temporaries it cannot do without (a lower bound, so nothing that fits is refused). */
static int64_t upload_bytes(const sp_coo_t *coo)
{
    int64_t entry = 8 + (int64_t)sp_value_size(coo->value_type);
    /* the copy, the merged output, sort keys and permutation; row counts */
    return bytes_of(coo->nnz, 2 * entry + 8, 4 * coo->nrows);
}

static int64_t build_bytes(const sp_matrix_t *A, sp_format_t f)
{
    int64_t m = A->f.coo.nrows, n = A->f.coo.ncols, nnz = A->f.coo.nnz;
    int64_t entry = 4 + (int64_t)sp_value_size(A->f.coo.value_type);
    switch (f) {
    case SP_FORMAT_CSR: return bytes_of(nnz, entry, (A->offset_bits / 8) * (m + 1));
    case SP_FORMAT_CSC: return bytes_of(nnz, entry, 4 * (n + 1));
    case SP_FORMAT_ELL:
        return bytes_of(m, bytes_of(A->ell_row_max_kept, entry, 0), 0);
    case SP_FORMAT_HYB: return bytes_of(nnz, entry, 0);
    case SP_FORMAT_JDS:
    case SP_FORMAT_SELL: return bytes_of(nnz, entry, 4 * m);
    default: return 0;
    }
}

sp_status_t sp__cuda_matrix_upload(sp_matrix_t *A, const sp_coo_t *coo, int32_t **h_row_counts)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    sp_triplets_t t = {coo->nrows, coo->ncols, coo->nnz, coo->value_type, NULL, NULL, NULL};
    size_t n = (size_t)coo->nnz, vs = sp_value_size(coo->value_type), temp_bytes = 0;
    int32_t *d_counts = NULL, *counts = NULL;
    void *d_temp = NULL;
    sp__cuda_env(A->ctx, &env);
    SP_TRY(sp__cuda_check_room(A->ctx, upload_bytes(coo), "uploading and sorting the COO"));
    SP_TRY(upload(&env, (void **)&t.row, coo->row, n * sizeof(int32_t)));
    SP_TRY(upload(&env, (void **)&t.col, coo->col, n * sizeof(int32_t)));
    if (vs) SP_TRY(upload(&env, &t.val, coo->val, n * vs));
    SP_TRY(sp__gpu_coo_sort_merge(&env, &t, A->options.duplicates, &A->duplicates_merged));
    /* row lengths for the statistics: a histogram of the merged rows */
    SP_TRY(env.alloc(env.self, (void **)&d_counts, (size_t)t.nrows * sizeof(int32_t)));
    SP_TRY(sp__gpu_histogram(t.row, t.nnz, d_counts, t.nrows, NULL, &temp_bytes, env.stream));
    SP_TRY(env.alloc(env.self, &d_temp, temp_bytes));
    SP_TRY(sp__gpu_histogram(t.row, t.nnz, d_counts, t.nrows, d_temp, &temp_bytes, env.stream));
    SP_ALLOC(counts, t.nrows);
    SP_CUDA_TRY(cudaMemcpyAsync(counts, d_counts, (size_t)t.nrows * sizeof(int32_t),
                                cudaMemcpyDeviceToHost, env.stream));
    SP_CUDA_TRY(cudaStreamSynchronize(env.stream));
    A->f.coo = t;
    memset(&t, 0, sizeof t);
    *h_row_counts = counts;
    counts = NULL;
done:
    env.free(env.self, d_temp);
    env.free(env.self, d_counts);
    sp__gpu_triplets_free(&env, &t);
    sp__free(counts);
    return st;
}

/* ELL, JDS or SELL of csr into set (device). */
static sp_status_t convert_padded(const sp_gpu_env_t *env, const sp_csr_t *csr, sp_format_t f,
                                  int sell_c, int sell_sigma, sp_format_set_t *set)
{
    if (f == SP_FORMAT_ELL) return sp__gpu_csr_to_ell(env, csr, &set->ell);
    if (f == SP_FORMAT_JDS) return sp__gpu_csr_to_jds(env, csr, &set->jds);
    return sp__gpu_csr_to_sell(env, csr, sell_c, sell_sigma, &set->sell);
}

/* ELL, JDS or SELL on the GPU, the rows longer than bound kept in the format's tail. */
static sp_status_t build_padded(const sp_gpu_env_t *env, sp_matrix_t *A, sp_format_t f,
                                int sell_c, int sell_sigma, int64_t bound)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t kept;
    sp_triplets_t tail;
    memset(&kept, 0, sizeof kept);
    memset(&tail, 0, sizeof tail);
    if (A->row_max <= bound) return convert_padded(env, &A->f.csr, f, sell_c, sell_sigma, &A->f);
    SP_TRY(sp__gpu_csr_split_long(env, &A->f.csr, bound, &kept, &tail));
    SP_TRY(convert_padded(env, &kept, f, sell_c, sell_sigma, &A->f));
    *sp__format_tail(&A->f, f) = tail;
    memset(&tail, 0, sizeof tail);
done:
    sp__gpu_csr_free(env, &kept);
    sp__gpu_triplets_free(env, &tail);
    return st;
}

sp_status_t sp__cuda_matrix_build(sp_matrix_t *A, sp_format_t f, int sell_c, int sell_sigma,
                                  int64_t long_bound)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    int64_t hyb_width = A->options.hyb_ell_width > 0 ? A->options.hyb_ell_width : -1;
    char what[32];
    sp__cuda_env(A->ctx, &env);
    snprintf(what, sizeof what, "building %s", sp_format_name(f) ? sp_format_name(f) : "?");
    SP_TRY(sp__cuda_check_room(A->ctx, build_bytes(A, f), what));
    switch (f) {
    case SP_FORMAT_CSR:
        SP_TRY(sp__gpu_coo_to_csr_offsets(&env, &A->f.coo, A->offset_bits, &A->f.csr));
        break;
    case SP_FORMAT_CSC: SP_TRY(sp__gpu_csr_to_csc(&env, &A->f.csr, &A->f.csc)); break;
    case SP_FORMAT_HYB: SP_TRY(sp__gpu_csr_to_hyb(&env, &A->f.csr, hyb_width, &A->f.hyb)); break;
    case SP_FORMAT_ELL:
    case SP_FORMAT_JDS:
    case SP_FORMAT_SELL: SP_TRY(build_padded(&env, A, f, sell_c, sell_sigma, long_bound)); break;
    default: break;
    }
done:
    return st;
}

void sp__cuda_matrix_free_format(sp_matrix_t *A, sp_format_t f)
{
    sp_gpu_env_t env;
    sp__cuda_env(A->ctx, &env);
    switch (f) {
    case SP_FORMAT_COO: sp__gpu_triplets_free(&env, &A->f.coo); break;
    case SP_FORMAT_CSR: sp__gpu_csr_free(&env, &A->f.csr); break;
    case SP_FORMAT_CSC: sp__gpu_csr_free(&env, &A->f.csc); break;
    case SP_FORMAT_ELL: sp__gpu_ell_free(&env, &A->f.ell); break;
    case SP_FORMAT_HYB: sp__gpu_hyb_free(&env, &A->f.hyb); break;
    case SP_FORMAT_JDS: sp__gpu_jds_free(&env, &A->f.jds); break;
    case SP_FORMAT_SELL: sp__gpu_sell_free(&env, &A->f.sell); break;
    default: break;
    }
}

/* *h = host copy of count elements of size `size` at d (queued; the caller syncs). */
static sp_status_t download(const sp_gpu_env_t *env, const void *d, int64_t count, size_t size,
                            void **h)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    void *p = NULL;
    *h = NULL;
    if (!d || size == 0) goto done;
    p = sp__malloc_array((size_t)count, size);
    if (!p) SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory copying %lld x %zu bytes",
                    (long long)count, size);
    if (count)
        SP_CUDA_TRY(cudaMemcpyAsync(p, d, (size_t)count * size, cudaMemcpyDeviceToHost,
                                    env->stream));
    *h = p;
    p = NULL;
done:
    sp__free(p);
    return st;
}

#define DOWN(dst, src, count, type) \
    SP_TRY(download(&env, (src), (count), sp_value_size(type), (void **)&(dst)))
#define DOWN_I32(dst, src, count) \
    SP_TRY(download(&env, (src), (count), sizeof(int32_t), (void **)&(dst)))

static sp_status_t mirror_triplets(const sp_gpu_env_t *penv, const sp_triplets_t *d, sp_triplets_t *h)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env = *penv;
    *h = *d;
    h->row = h->col = NULL;
    h->val = NULL;
    DOWN_I32(h->row, d->row, d->nnz);
    DOWN_I32(h->col, d->col, d->nnz);
    DOWN(h->val, d->val, d->nnz, d->value_type);
done:
    return st;
}

static sp_status_t mirror_ell(const sp_gpu_env_t *penv, const sp_ell_t *d, sp_ell_t *h)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env = *penv;
    *h = *d;
    h->col = NULL;
    h->val = NULL;
    memset(&h->tail, 0, sizeof h->tail);
    DOWN_I32(h->col, d->col, d->nrows * d->width);
    DOWN(h->val, d->val, d->nrows * d->width, d->value_type);
    SP_TRY(mirror_triplets(&env, &d->tail, &h->tail));
done:
    return st;
}

/* Copy format f to the host mirror (allocated on first use). */
sp_status_t sp__cuda_matrix_mirror(sp_matrix_t *A, sp_format_t f)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    sp_format_set_t *m;
    if (A->mirrored & (1u << f)) goto done;
    if (!A->mirror) SP_CALLOC(A->mirror, 1);
    sp__cuda_env(A->ctx, &env);
    m = A->mirror;
    sp__format_set_free(m, f);
    switch (f) {
    case SP_FORMAT_COO: SP_TRY(mirror_triplets(&env, &A->f.coo, &m->coo)); break;
    case SP_FORMAT_CSR:
    case SP_FORMAT_CSC: {
        const sp_csr_t *d = f == SP_FORMAT_CSR ? &A->f.csr : &A->f.csc;
        sp_csr_t *h = f == SP_FORMAT_CSR ? &m->csr : &m->csc;
        int64_t npointers = (f == SP_FORMAT_CSR ? d->nrows : d->ncols) + 1;
        *h = *d;
        h->ptr = h->idx = NULL;
        h->ptr64 = NULL;
        h->val = NULL;
        DOWN_I32(h->ptr, d->ptr, npointers);
        SP_TRY(download(&env, d->ptr64, npointers, sizeof(int64_t), (void **)&h->ptr64));
        DOWN_I32(h->idx, d->idx, d->nnz);
        DOWN(h->val, d->val, d->nnz, d->value_type);
        break;
    }
    case SP_FORMAT_ELL: SP_TRY(mirror_ell(&env, &A->f.ell, &m->ell)); break;
    case SP_FORMAT_HYB:
        SP_TRY(mirror_ell(&env, &A->f.hyb.ell, &m->hyb.ell));
        SP_TRY(mirror_triplets(&env, &A->f.hyb.coo, &m->hyb.coo));
        break;
    case SP_FORMAT_JDS: {
        const sp_jds_t *d = &A->f.jds;
        sp_jds_t *h = &m->jds;
        *h = *d;
        h->perm = h->jd_ptr = h->col = NULL;
        h->val = NULL;
        memset(&h->tail, 0, sizeof h->tail);
        SP_TRY(mirror_triplets(&env, &d->tail, &h->tail));
        DOWN_I32(h->perm, d->perm, d->nrows);
        DOWN_I32(h->jd_ptr, d->jd_ptr, d->njd + 1);
        DOWN_I32(h->col, d->col, d->nnz);
        DOWN(h->val, d->val, d->nnz, d->value_type);
        break;
    }
    case SP_FORMAT_SELL: {
        const sp_sell_t *d = &A->f.sell;
        sp_sell_t *h = &m->sell;
        *h = *d;
        h->perm = h->slice_ptr = h->slice_width = h->col = NULL;
        h->val = NULL;
        memset(&h->tail, 0, sizeof h->tail);
        SP_TRY(mirror_triplets(&env, &d->tail, &h->tail));
        DOWN_I32(h->perm, d->perm, d->nrows);
        DOWN_I32(h->slice_ptr, d->slice_ptr, d->nslices + 1);
        DOWN_I32(h->slice_width, d->slice_width, d->nslices);
        DOWN_I32(h->col, d->col, d->padded);
        DOWN(h->val, d->val, d->padded, d->value_type);
        break;
    }
    default: break;
    }
    SP_CUDA_TRY(cudaStreamSynchronize(env.stream));
    A->mirrored |= 1u << f;
done:
    if (st != SP_STATUS_SUCCESS && A->mirror) sp__format_set_free(A->mirror, f);
    return st;
}

#else /* !SP_HAVE_CUDA: a CUDA context cannot exist, but the layer stays linkable */

static sp_status_t not_compiled(void)
{
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}
sp_status_t sp__cuda_matrix_upload(sp_matrix_t *A, const sp_coo_t *coo, int32_t **h_row_counts)
{
    (void)A, (void)coo, (void)h_row_counts;
    return not_compiled();
}
sp_status_t sp__cuda_matrix_build(sp_matrix_t *A, sp_format_t f, int sell_c, int sell_sigma,
                                  int64_t long_bound)
{
    (void)A, (void)f, (void)sell_c, (void)sell_sigma, (void)long_bound;
    return not_compiled();
}
void sp__cuda_matrix_free_format(sp_matrix_t *A, sp_format_t f) { (void)A, (void)f; }
sp_status_t sp__cuda_matrix_mirror(sp_matrix_t *A, sp_format_t f)
{
    (void)A, (void)f;
    return not_compiled();
}

#endif
