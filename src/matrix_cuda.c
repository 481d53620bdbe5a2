/* Matrices on a CUDA context: the host COO is uploaded, sorted and merged on the GPU,
 * every format is converted there (kernels/convert/), and sp_matrix_view copies a format
 * back into a host mirror. Built without CUDA these return SP_STATUS_NOT_COMPILED. */
#include <stdio.h>
#include <string.h>

#include "sp_api.h"

#ifdef SP_HAVE_CUDA
#include "sp_cuda.h"
#include "sp_host_sort.h" /* sp__coo_in_order, sp__coo_sort_merge_threads */
#include "sp_text.h"      /* sp__parallel_for, sp__ncores */

/* ---- Host COO to the device ----
 * The upload is the largest part of a host COO's way to a device CSR (16 bytes an entry of
 * a double matrix over the host link), so big arrays go through pinned staging kept by the
 * context (sp__cuda_staging): lanes of host threads each copy a chunk of the caller's
 * pageable arrays into their own half of the staging and start its transfer on their own
 * stream, then fill the other half while it runs; the link stays busy and the caller's
 * arrays are read once. Small arrays (or a host that will not pin) take one plain
 * cudaMemcpyAsync from pageable memory. */
enum {
    UPLOAD_LANES_MAX = 32,        /* host threads (and streams) at most */
    UPLOAD_STAGED_FROM = 16 << 20 /* total bytes from which the staging pays */
};

/* The staging's shape: lanes (at most the cores; 0: plain pageable copies) and the bytes
 * a lane copies and sends at a time. The test hook sp__test_set_upload_shape sets them. */
static int g_upload_lanes = 8;
static size_t g_upload_chunk = (size_t)4 << 20;
#define UPLOAD_CHUNK g_upload_chunk

void sp__test_set_upload_shape(int lanes, size_t chunk_bytes)
{
    g_upload_lanes = lanes < 0 ? 8 : lanes > UPLOAD_LANES_MAX ? UPLOAD_LANES_MAX : lanes;
    g_upload_chunk = chunk_bytes >= ((size_t)64 << 10) ? chunk_bytes : (size_t)4 << 20;
}

/* Wall-clock milliseconds of A's upload's phases (sp_matrix_t.upload_ms): ordering on the
 * host, the transfer, the device's check/sort/merge, the row counts read back, the
 * diagonal-nearness sample (sp__gpu_coo_col_near). */
void sp__test_upload_phases(const sp_matrix_t *A, double ms[5])
{
    memcpy(ms, A->upload_ms, sizeof A->upload_ms);
}

typedef struct upload_array {
    char *d;
    const char *h;
    size_t bytes;
} upload_array_t;

typedef struct upload_job {
    upload_array_t arr[3];
    int narr, lanes, device;
    int64_t nchunks;
    char *staging; /* lanes x 2 chunks */
    cudaStream_t stream[UPLOAD_LANES_MAX];
    cudaEvent_t sent[UPLOAD_LANES_MAX][2]; /* the transfer out of each half */
} upload_job_t;

static int64_t chunks_of(size_t bytes) { return (int64_t)((bytes + UPLOAD_CHUNK - 1) / UPLOAD_CHUNK); }

/* Chunk c of the arrays taken one after the other, each cut at UPLOAD_CHUNK. */
static upload_array_t chunk_at(const upload_job_t *j, int64_t c)
{
    upload_array_t a = {NULL, NULL, 0};
    for (int i = 0; i < j->narr; i++) {
        int64_t n = chunks_of(j->arr[i].bytes);
        if (c < n) {
            size_t off = (size_t)c * UPLOAD_CHUNK, left = j->arr[i].bytes - off;
            a.d = j->arr[i].d + off;
            a.h = j->arr[i].h + off;
            a.bytes = left < UPLOAD_CHUNK ? left : UPLOAD_CHUNK;
            return a;
        }
        c -= n;
    }
    return a;
}

/* Lane i: chunks i, i + lanes, ... through its two halves of the staging. */
static sp_status_t upload_lane(int i, void *arg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    upload_job_t *j = arg;
    int64_t k = 0;
    SP_CUDA_TRY(cudaSetDevice(j->device));
    for (int64_t c = i; c < j->nchunks; c += j->lanes, k++) {
        int half = (int)(k & 1);
        char *buf = j->staging + ((size_t)2 * i + half) * UPLOAD_CHUNK;
        upload_array_t a = chunk_at(j, c);
        if (k >= 2) SP_CUDA_TRY(cudaEventSynchronize(j->sent[i][half])); /* the half is free */
        memcpy(buf, a.h, a.bytes);
        SP_CUDA_TRY(cudaMemcpyAsync(a.d, buf, a.bytes, cudaMemcpyHostToDevice, j->stream[i]));
        SP_CUDA_TRY(cudaEventRecord(j->sent[i][half], j->stream[i]));
    }
done:
    /* nothing of this lane in flight once it returns, failed or not */
    if (cudaStreamSynchronize(j->stream[i]) != cudaSuccess && st == SP_STATUS_SUCCESS)
        st = SP_ERROR(SP_STATUS_DEVICE_ERROR, "upload: a transfer failed (%s)",
                      cudaGetErrorString(cudaGetLastError()));
    return st;
}

/* The arrays copied to the device (allocated through env on its stream beforehand). */
static sp_status_t upload_arrays(sp_context_t *ctx, const sp_gpu_env_t *env, upload_job_t *j)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    size_t total = 0;
    int made = 0;
    for (int i = 0; i < j->narr; i++) total += j->arr[i].bytes;
    for (int i = 0; i < j->narr; i++) j->nchunks += chunks_of(j->arr[i].bytes);
    j->lanes = sp__ncores();
    if (j->lanes > g_upload_lanes) j->lanes = g_upload_lanes;
    if (j->lanes > j->nchunks) j->lanes = (int)j->nchunks;
    if (total >= UPLOAD_STAGED_FROM && j->lanes >= 1)
        j->staging = sp__cuda_staging(ctx, (size_t)2 * j->lanes * UPLOAD_CHUNK);
    if (!j->staging) { /* small, or nothing pinned: plain copies on the context's stream */
        for (int i = 0; i < j->narr; i++)
            if (j->arr[i].bytes)
                SP_CUDA_TRY(cudaMemcpyAsync(j->arr[i].d, j->arr[i].h, j->arr[i].bytes,
                                            cudaMemcpyHostToDevice, env->stream));
        goto done;
    }
    SP_CUDA_TRY(cudaGetDevice(&j->device));
    /* the arrays were allocated in the stream's order: ready before other streams use them */
    SP_CUDA_TRY(cudaStreamSynchronize(env->stream));
    for (; made < j->lanes; made++) {
        SP_CUDA_TRY(cudaStreamCreateWithFlags(&j->stream[made], cudaStreamNonBlocking));
        if (cudaEventCreateWithFlags(&j->sent[made][0], cudaEventDisableTiming) != cudaSuccess ||
            cudaEventCreateWithFlags(&j->sent[made][1], cudaEventDisableTiming) != cudaSuccess) {
            (void)cudaEventDestroy(j->sent[made][0]); /* destroying a null event is harmless */
            (void)cudaStreamDestroy(j->stream[made]);
            SP_FAIL(SP_STATUS_DEVICE_ERROR, "upload: cannot create events (%s)",
                    cudaGetErrorString(cudaGetLastError()));
        }
    }
    SP_TRY(sp__parallel_for(j->lanes, j->lanes, upload_lane, j));
done:
    for (int i = 0; i < made; i++) {
        (void)cudaEventDestroy(j->sent[i][0]);
        (void)cudaEventDestroy(j->sent[i][1]);
        (void)cudaStreamDestroy(j->stream[i]);
    }
    return st;
}

/* The most entries the device sort and merge take (their counts are 32-bit); the test hook
 * lowers it so the sorted upload past it runs at small sizes. */
static int64_t g_device_sort_limit = INT32_MAX;

void sp__test_set_device_sort_limit(int64_t limit)
{
    g_device_sort_limit = limit > 0 && limit < INT32_MAX ? limit : INT32_MAX;
}

/* a * b + c bytes, saturating at INT64_MAX (ELL of a long row in many rows). */
static int64_t bytes_of(int64_t a, int64_t b, int64_t c)
{
    if (a > 0 && b > (INT64_MAX - c) / a) return INT64_MAX;
    return a * b + c;
}

/* Device bytes a step certainly needs, from sizes known on the host: its outputs and the
 * temporaries it cannot do without (a lower bound, so nothing that fits is refused). */
static int64_t upload_bytes(const sp_coo_t *coo, int in_order)
{
    int64_t entry = 8 + (int64_t)sp_value_size(coo->value_type);
    /* in order: the copy and the row counts; else also the merged output, sort keys and
     * permutation */
    return in_order ? bytes_of(coo->nnz, entry, 4 * coo->nrows)
                    : bytes_of(coo->nnz, 2 * entry + 8, 4 * coo->nrows);
}

static int64_t build_bytes(const sp_matrix_t *A, sp_format_t f)
{
    int64_t m = A->f.coo.nrows, n = A->f.coo.ncols, nnz = A->f.coo.nnz;
    int64_t entry = 4 + (int64_t)sp_value_size(A->f.coo.value_type);
    switch (f) {
    case SP_FORMAT_COO: return bytes_of(nnz, entry + 4, 0); /* made again from the CSR */
    case SP_FORMAT_CSR: return bytes_of(nnz, entry, (A->offset_bits / 8) * (m + 1));
    case SP_FORMAT_CSC: return bytes_of(nnz, entry, (A->offset_bits / 8) * (n + 1));
    case SP_FORMAT_ELL:
        return bytes_of(m, bytes_of(A->ell_row_max_kept, entry, 0), 0);
    case SP_FORMAT_HYB: return bytes_of(nnz, entry, 0);
    case SP_FORMAT_JDS:
    case SP_FORMAT_SELL: return bytes_of(nnz, entry, 4 * m);
    default: return 0;
    }
}

/* A COO too long for the device sort is put in order on the host, unless it already is:
 * *ordered = 1 then, and *copy (NULL when the caller's COO is in order) holds the sorted,
 * merged copy to upload. */
static sp_status_t order_on_host(sp_matrix_t *A, const sp_coo_t *coo, sp_coo_t **copy,
                                 int *ordered)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_triplets_t t = {coo->nrows, coo->ncols, coo->nnz, coo->value_type, coo->row, coo->col,
                       coo->val, 0};
    *ordered = 0;
    if (coo->nnz <= g_device_sort_limit) goto done;
    *ordered = 1;
    if (sp__coo_in_order(&t, 0)) goto done;
    SP_TRY(sp_coo_copy(coo, coo->value_type, copy));
    t = (sp_triplets_t){coo->nrows, coo->ncols, coo->nnz, coo->value_type, (*copy)->row,
                        (*copy)->col, (*copy)->val, 0};
    SP_TRY(sp__coo_sort_merge_threads(&t, A->options.duplicates, &A->duplicates_merged, 0));
    (*copy)->nnz = t.nnz;
done:
    return st;
}

sp_status_t sp__cuda_matrix_upload(sp_matrix_t *A, const sp_coo_t *coo, int32_t **h_row_counts)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    sp_coo_t *copy = NULL;
    const sp_coo_t *src = coo;
    sp_triplets_t t = {coo->nrows, coo->ncols, 0, coo->value_type, NULL, NULL, NULL, 0};
    size_t n, vs = sp_value_size(coo->value_type), temp_bytes = 0;
    int32_t *d_counts = NULL, *counts = NULL;
    void *d_temp = NULL;
    int ordered = 0, sent_copy = 0;
    double t_ms = 0.0;
    upload_job_t job;
    memset(&job, 0, sizeof job);
    sp__cuda_env(A->ctx, &env); /* first: the cleanup below frees through it */
    t_ms = sp__now_ms();
    SP_TRY(order_on_host(A, coo, &copy, &ordered));
    A->upload_ms[0] = sp__now_ms() - t_ms;
    if (copy) src = copy;
    n = (size_t)src->nnz;
    t.nnz = src->nnz;
    SP_TRY(sp__cuda_check_room(A->ctx, upload_bytes(src, ordered), "uploading and sorting the COO"));
    SP_TRY(env.alloc(env.self, (void **)&t.row, n * sizeof(int32_t)));
    SP_TRY(env.alloc(env.self, (void **)&t.col, n * sizeof(int32_t)));
    if (vs) SP_TRY(env.alloc(env.self, &t.val, n * vs));
    job.arr[0] = (upload_array_t){(char *)t.row, (const char *)src->row, n * sizeof(int32_t)};
    job.arr[1] = (upload_array_t){(char *)t.col, (const char *)src->col, n * sizeof(int32_t)};
    job.arr[2] = (upload_array_t){(char *)t.val, (const char *)src->val, n * vs};
    job.narr = vs ? 3 : 2;
    t_ms = sp__now_ms();
    SP_TRY(upload_arrays(A->ctx, &env, &job));
    SP_CUDA_TRY(cudaStreamSynchronize(env.stream)); /* the phases apart (plain copies) */
    A->upload_ms[1] = sp__now_ms() - t_ms;
    t_ms = sp__now_ms();
    sent_copy = copy != NULL;
    sp_coo_free(copy); /* uploaded (a staged upload has finished; a plain one copies from
                          pageable memory before it returns) */
    copy = NULL;
    /* the caller's order is on the device unless a sorted copy went up instead */
    if (!sent_copy) SP_TRY(sp__gpu_coo_col_near(&env, &t, &A->col_near));
    else A->col_near = sp__coo_col_near(coo);
    A->upload_ms[4] = sp__now_ms() - t_ms;
    t_ms = sp__now_ms();
    /* in order already (checked on the host), or sorted and merged here (kept as it is
       when the device finds it in order) */
    if (!ordered)
        SP_TRY(sp__gpu_coo_sort_merge(&env, &t, A->options.duplicates, &A->duplicates_merged));
    SP_CUDA_TRY(cudaStreamSynchronize(env.stream));
    A->upload_ms[2] = sp__now_ms() - t_ms;
    t_ms = sp__now_ms();
    /* row lengths for the statistics */
    SP_TRY(env.alloc(env.self, (void **)&d_counts, (size_t)t.nrows * sizeof(int32_t)));
    if (ordered) {
        SP_TRY(sp__gpu_sorted_row_counts(&env, &t, d_counts));
    } else {
        SP_TRY(sp__gpu_histogram(t.row, t.nnz, d_counts, t.nrows, NULL, &temp_bytes, env.stream));
        SP_TRY(env.alloc(env.self, &d_temp, temp_bytes));
        SP_TRY(sp__gpu_histogram(t.row, t.nnz, d_counts, t.nrows, d_temp, &temp_bytes,
                                 env.stream));
    }
    SP_ALLOC(counts, t.nrows);
    SP_CUDA_TRY(cudaMemcpyAsync(counts, d_counts, (size_t)t.nrows * sizeof(int32_t),
                                cudaMemcpyDeviceToHost, env.stream));
    SP_CUDA_TRY(cudaStreamSynchronize(env.stream));
    A->upload_ms[3] = sp__now_ms() - t_ms;
    A->f.coo = t;
    memset(&t, 0, sizeof t);
    *h_row_counts = counts;
    counts = NULL;
done:
    env.free(env.self, d_temp);
    env.free(env.self, d_counts);
    sp__gpu_triplets_free(&env, &t);
    sp__free(counts);
    sp_coo_free(copy);
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

/* ELL, JDS or SELL on the GPU from csr, the rows longer than bound kept in the format's
 * tail. */
static sp_status_t build_padded(const sp_gpu_env_t *env, sp_matrix_t *A, const sp_csr_t *csr,
                                sp_format_t f, int sell_c, int sell_sigma, int64_t bound)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t kept;
    sp_triplets_t tail;
    memset(&kept, 0, sizeof kept);
    memset(&tail, 0, sizeof tail);
    if (A->row_max <= bound) return convert_padded(env, csr, f, sell_c, sell_sigma, &A->f);
    SP_TRY(sp__gpu_csr_split_long(env, csr, bound, &kept, &tail));
    SP_TRY(convert_padded(env, &kept, f, sell_c, sell_sigma, &A->f));
    tail.row_max = A->row_max; /* every row past the bound is in it whole */
    *sp__format_tail(&A->f, f) = tail;
    memset(&tail, 0, sizeof tail);
done:
    sp__gpu_csr_free(env, &kept);
    sp__gpu_triplets_free(env, &tail);
    return st;
}

/* CSC from csr into A; with 64-bit offsets the CSC takes the CSR's width as on the host
 * (sp__ref_csr_to_csc), so sp_matrix_view shows col_ptr64 on both contexts: past the narrow
 * limit the transpose of the 64-bit CSR writes them, below it those of the narrowed CSR
 * are widened on the device. */
static sp_status_t build_csc(const sp_gpu_env_t *env, sp_matrix_t *A, const sp_csr_t *csr)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_csr_t c;
    memset(&c, 0, sizeof c);
    SP_TRY(sp__gpu_csr_to_csc(env, csr, &c));
    if (A->offset_bits == 64 && !c.ptr64) {
        SP_TRY(env->alloc(env->self, (void **)&c.ptr64, (size_t)(c.ncols + 1) * sizeof(int64_t)));
        SP_TRY(sp__gpu_offsets_widen(env, c.ptr, c.ncols + 1, c.ptr64));
        env->free(env->self, c.ptr);
        c.ptr = NULL;
    }
    A->f.csc = c;
    memset(&c, 0, sizeof c);
done:
    sp__gpu_csr_free(env, &c);
    return st;
}

/* The CSR format f is converted from: A's own, except with 64-bit offsets below the narrow
 * limit for what reads 32-bit pointers there (all but ELL without a tail): the pointers
 * narrowed (sp__matrix_csr32; the caller drops what was made for this build), so the
 * 32-bit matrix's kernels and bits. Past the limit every format reads the 64-bit pointers
 * (the transpose's, split's and conversions' 64-bit paths; JDS and SELL then hold 64-bit
 * offsets of their own). */
static sp_status_t source_csr(sp_matrix_t *A, sp_format_t f, int64_t long_bound, sp_csr_t *csr)
{
    *csr = A->f.csr;
    if (!A->f.csr.ptr64 || (f == SP_FORMAT_ELL && A->row_max <= long_bound) ||
        !sp__matrix_narrows(A))
        return SP_STATUS_SUCCESS;
    return sp__matrix_csr32(A, csr);
}

sp_status_t sp__cuda_matrix_build(sp_matrix_t *A, sp_format_t f, int sell_c, int sell_sigma,
                                  int64_t long_bound)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    int64_t hyb_width = A->options.hyb_ell_width > 0 ? A->options.hyb_ell_width : -1;
    sp_csr_t csr;
    char what[32];
    sp__cuda_env(A->ctx, &env);
    snprintf(what, sizeof what, "building %s", sp_format_name(f) ? sp_format_name(f) : "?");
    SP_TRY(sp__cuda_check_room(A->ctx, build_bytes(A, f), what));
    if (f == SP_FORMAT_CSR) {
        SP_TRY(sp__gpu_coo_to_csr_offsets(&env, &A->f.coo, A->offset_bits, &A->f.csr));
        goto done;
    }
    if (f == SP_FORMAT_COO) { /* after sp_matrix_release(COO): from the CSR, either width */
        SP_TRY(sp__gpu_csr_to_coo(&env, &A->f.csr, &A->f.coo));
        goto done;
    }
    SP_TRY(source_csr(A, f, long_bound, &csr));
    switch (f) {
    case SP_FORMAT_CSC: SP_TRY(build_csc(&env, A, &csr)); break;
    case SP_FORMAT_HYB:
        SP_TRY(sp__gpu_csr_to_hyb(&env, &csr, hyb_width, &A->f.hyb));
        /* the longest row's part past the ELL width (picks the overflow's kernel) */
        A->f.hyb.coo.row_max =
            A->row_max > A->f.hyb.ell.width ? A->row_max - A->f.hyb.ell.width : 0;
        break;
    case SP_FORMAT_ELL:
    case SP_FORMAT_JDS:
    case SP_FORMAT_SELL:
        SP_TRY(build_padded(&env, A, &csr, f, sell_c, sell_sigma, long_bound));
        break;
    default: break;
    }
done:
    return st;
}

int sp__cuda_matrix_fits(const sp_matrix_t *A, sp_format_t f)
{
    return (A->built & (1u << f)) != 0 || sp__cuda_has_room(A->ctx, build_bytes(A, f));
}

sp_status_t sp__cuda_matrix_csr32(sp_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    int32_t *d_ptr = NULL;
    int64_t n = A->f.csr.nrows + 1;
    sp__cuda_env(A->ctx, &env);
    SP_TRY(sp__cuda_check_room(A->ctx, 4 * n, "narrowing the CSR's pointers"));
    SP_TRY(env.alloc(env.self, (void **)&d_ptr, (size_t)n * sizeof(int32_t)));
    SP_TRY(sp__gpu_offsets_narrow(&env, A->f.csr.ptr64, n, d_ptr));
    A->csr_ptr32 = d_ptr;
    d_ptr = NULL;
done:
    if (d_ptr) env.free(env.self, d_ptr);
    return st;
}

void sp__cuda_matrix_free_csr32(sp_matrix_t *A)
{
    sp_gpu_env_t env;
    if (!A->csr_ptr32) return;
    sp__cuda_env(A->ctx, &env);
    env.free(env.self, A->csr_ptr32);
    A->csr_ptr32 = NULL;
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
    h->code = NULL;
    h->table = NULL;
    memset(&h->tail, 0, sizeof h->tail);
    DOWN_I32(h->col, d->col, d->nrows * d->width);
    DOWN(h->val, d->val, d->nrows * d->width, d->value_type);
    SP_TRY(download(&env, d->code, d->nrows * d->width, 1, (void **)&h->code));
    DOWN(h->table, d->table, d->ntable, d->value_type);
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
        h->jd_ptr64 = NULL;
        h->val = NULL;
        memset(&h->tail, 0, sizeof h->tail);
        SP_TRY(mirror_triplets(&env, &d->tail, &h->tail));
        DOWN_I32(h->perm, d->perm, d->nrows);
        DOWN_I32(h->jd_ptr, d->jd_ptr, d->njd + 1);
        SP_TRY(download(&env, d->jd_ptr64, d->njd + 1, sizeof(int64_t), (void **)&h->jd_ptr64));
        DOWN_I32(h->col, d->col, d->nnz);
        DOWN(h->val, d->val, d->nnz, d->value_type);
        break;
    }
    case SP_FORMAT_SELL: {
        const sp_sell_t *d = &A->f.sell;
        sp_sell_t *h = &m->sell;
        *h = *d;
        h->perm = h->slice_ptr = h->slice_width = h->col = NULL;
        h->slice_ptr64 = NULL;
        h->val = NULL;
        memset(&h->tail, 0, sizeof h->tail);
        SP_TRY(mirror_triplets(&env, &d->tail, &h->tail));
        DOWN_I32(h->perm, d->perm, d->nrows);
        DOWN_I32(h->slice_ptr, d->slice_ptr, d->nslices + 1);
        SP_TRY(download(&env, d->slice_ptr64, d->nslices + 1, sizeof(int64_t),
                        (void **)&h->slice_ptr64));
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

void sp__test_set_device_sort_limit(int64_t limit) { (void)limit; }
void sp__test_set_upload_shape(int lanes, size_t chunk_bytes) { (void)lanes, (void)chunk_bytes; }
void sp__test_upload_phases(const sp_matrix_t *A, double ms[5])
{
    (void)A;
    memset(ms, 0, 5 * sizeof *ms);
}

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
int sp__cuda_matrix_fits(const sp_matrix_t *A, sp_format_t f)
{
    (void)A, (void)f;
    return 1;
}
sp_status_t sp__cuda_matrix_csr32(sp_matrix_t *A)
{
    (void)A;
    return not_compiled();
}
void sp__cuda_matrix_free_csr32(sp_matrix_t *A) { (void)A; }
sp_status_t sp__cuda_matrix_mirror(sp_matrix_t *A, sp_format_t f)
{
    (void)A, (void)f;
    return not_compiled();
}

#endif
