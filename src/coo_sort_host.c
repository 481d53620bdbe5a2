/* The host's COO sort-merge on every core: exactly the reference's result
 * (src/ref/coo_sort_merge_ref.c: entries stably sorted by (row, col), duplicates summed in
 * input order in double and rounded once, or the first in input order kept), by a
 * parallel LSD radix sort of one packed key per entry.
 *
 * Each entry becomes key = row << cbits | col (cbits = the bits of ncols - 1) and its
 * input position. A pass splits the entries into as many contiguous chunks as tasks; each
 * task counts its chunk's digits, the offsets run digit-major then chunk-minor, and each
 * task scatters its chunk in order, so every pass is stable and equal keys end in input
 * order. A pass whose digit is the same for every entry is skipped. The merge counts the
 * run heads of each chunk, and each task writes the runs that start in its chunk (a run
 * may reach into the next chunk). Rows and columns are decoded from the keys into the key
 * buffer the last pass left free, values into one buffer; a last parallel copy puts them
 * in the caller's arrays (the pool fails only before any task runs, so the COO changes
 * only on success).
 *
 * Positions are 32-bit while n fits them (n <= UINT32_MAX, or the test limit
 * sp__position32_limit), 64-bit above: the width is chosen once per call, and the tasks
 * that touch positions (pack, scatter, merge) exist once per width (POSITION_TASKS).
 *
 * Memory: 12 bytes an entry twice (key and 32-bit position, double-buffered; 16 twice
 * past 2^32 entries) plus one value buffer, against the reference's 12 + a value plus its
 * two sorts' scratch. */
#include <string.h>

#include "sp_base.h"
#include "sp_formats.h"
#include "sp_host_sort.h"
#include "sp_ref.h"
#include "sp_text.h" /* sp__parallel_for, the loaders' thread pool */

enum {
    DIGIT_BITS = 11,
    BUCKETS = 1 << DIGIT_BITS,
    MIN_CHUNK = 1 << 15, /* entries a task takes at least: below, one thread sorts */
};

typedef sp_status_t (*task_fn)(int i, void *arg);

typedef struct sort_job {
    sp_triplets_t *t;
    sp_dup_policy_t policy;
    int64_t n, chunk;
    int ntasks, cbits, shift;
    uint64_t *key[2];
    void *pos[2]; /* uint32_t or uint64_t positions (wide) */
    int wide;
    int src; /* which of the two buffers holds the current order */
    int64_t *hist; /* ntasks x BUCKETS: counts, then each task's offsets */
    int64_t *heads; /* ntasks + 1: run heads per chunk, then where each chunk's runs go */
    int32_t *row_out, *col_out; /* in the free key buffer */
    void *val_out;
} sort_job_t;

static int64_t chunk_begin(const sort_job_t *j, int i)
{
    int64_t b = (int64_t)i * j->chunk;
    return b < j->n ? b : j->n;
}

static int bits_for(int64_t count)
{
    int b = 0;
    while (b < 62 && ((int64_t)1 << b) < count) b++;
    return b;
}

/* The tasks that read or write positions, for positions of type T (uint32_t or
 * uint64_t): pack_task##W checks a chunk's entries (the reference's message for the first
 * one outside), packs their keys and counts the first digit; scatter_task##W moves a
 * chunk by the current digit; merge_task##W writes the runs that start in chunk i (rows,
 * columns and values) into the out buffers. */
#define POSITION_TASKS(W, T)                                                                \
    static sp_status_t pack_task##W(int i, void *arg)                                       \
    {                                                                                       \
        sort_job_t *j = arg;                                                                \
        const sp_triplets_t *t = j->t;                                                      \
        T *pos = j->pos[0];                                                                 \
        int64_t *h = j->hist + (size_t)i * BUCKETS;                                         \
        memset(h, 0, BUCKETS * sizeof *h);                                                  \
        for (int64_t k = chunk_begin(j, i), e = chunk_begin(j, i + 1); k < e; k++) {        \
            int32_t r = t->row[k], c = t->col[k];                                           \
            if (r < 0 || r >= t->nrows || c < 0 || c >= t->ncols)                           \
                return SP_ERROR(SP_STATUS_INVALID_ARGUMENT,                                 \
                                "coo sort: entry %lld at (%d, %d) outside %lld x %lld",     \
                                (long long)k, r, c, (long long)t->nrows,                    \
                                (long long)t->ncols);                                       \
            uint64_t key = (uint64_t)r << j->cbits | (uint64_t)c;                           \
            j->key[0][k] = key;                                                             \
            pos[k] = (T)k;                                                                  \
            h[key & (BUCKETS - 1)]++;                                                       \
        }                                                                                   \
        return SP_STATUS_SUCCESS;                                                           \
    }                                                                                       \
                                                                                            \
    static sp_status_t scatter_task##W(int i, void *arg)                                    \
    {                                                                                       \
        sort_job_t *j = arg;                                                                \
        const uint64_t *key = j->key[j->src];                                               \
        const T *pos = j->pos[j->src];                                                      \
        uint64_t *key_out = j->key[!j->src];                                                \
        T *pos_out = j->pos[!j->src];                                                       \
        int64_t *off = j->hist + (size_t)i * BUCKETS;                                       \
        for (int64_t k = chunk_begin(j, i), e = chunk_begin(j, i + 1); k < e; k++) {        \
            int64_t d = off[(key[k] >> j->shift) & (BUCKETS - 1)]++;                        \
            key_out[d] = key[k];                                                            \
            pos_out[d] = pos[k];                                                            \
        }                                                                                   \
        return SP_STATUS_SUCCESS;                                                           \
    }                                                                                       \
                                                                                            \
    static sp_status_t merge_task##W(int i, void *arg)                                      \
    {                                                                                       \
        sort_job_t *j = arg;                                                                \
        sp_triplets_t *t = j->t;                                                            \
        const uint64_t *key = j->key[j->src];                                               \
        const T *pos = j->pos[j->src];                                                      \
        const uint64_t cmask = ((uint64_t)1 << j->cbits) - 1;                               \
        sp_value_type_t vt = t->value_type;                                                 \
        size_t vs = sp_value_size(vt);                                                      \
        int64_t out = j->heads[i], e = chunk_begin(j, i + 1);                               \
        for (int64_t k = chunk_begin(j, i); k < e; k++) {                                   \
            if (k > 0 && key[k] == key[k - 1]) continue;                                    \
            int64_t last = k + 1;                                                           \
            while (last < j->n && key[last] == key[k]) last++;                              \
            j->row_out[out] = (int32_t)(key[k] >> j->cbits);                                \
            j->col_out[out] = (int32_t)(key[k] & cmask);                                    \
            if (vs && j->policy == SP_DUP_KEEP) {                                           \
                memcpy((char *)j->val_out + (size_t)out * vs,                               \
                       (const char *)t->val + (size_t)pos[k] * vs, vs);                     \
            } else if (vs) {                                                                \
                double sum = 0.0;                                                           \
                for (int64_t m = k; m < last; m++)                                          \
                    sum += vt == SP_R_32F ? (double)((const float *)t->val)[pos[m]]         \
                                          : ((const double *)t->val)[pos[m]];               \
                if (vt == SP_R_32F) ((float *)j->val_out)[out] = (float)sum;                \
                else ((double *)j->val_out)[out] = sum;                                     \
            }                                                                               \
            out++;                                                                          \
        }                                                                                   \
        return SP_STATUS_SUCCESS;                                                           \
    }

static sp_status_t count_task(int i, void *arg)
{
    sort_job_t *j = arg;
    const uint64_t *key = j->key[j->src];
    int64_t *h = j->hist + (size_t)i * BUCKETS;
    memset(h, 0, BUCKETS * sizeof *h);
    for (int64_t k = chunk_begin(j, i), e = chunk_begin(j, i + 1); k < e; k++)
        h[(key[k] >> j->shift) & (BUCKETS - 1)]++;
    return SP_STATUS_SUCCESS;
}

static sp_status_t head_task(int i, void *arg)
{
    sort_job_t *j = arg;
    const uint64_t *key = j->key[j->src];
    int64_t count = 0;
    for (int64_t k = chunk_begin(j, i), e = chunk_begin(j, i + 1); k < e; k++)
        count += k == 0 || key[k] != key[k - 1];
    j->heads[i] = count;
    return SP_STATUS_SUCCESS;
}

POSITION_TASKS(32, uint32_t)
POSITION_TASKS(64, uint64_t)

/* The merged entries [b, e) of chunk i's share into the caller's arrays. */
static sp_status_t commit_task(int i, void *arg)
{
    sort_job_t *j = arg;
    sp_triplets_t *t = j->t;
    size_t vs = sp_value_size(t->value_type);
    int64_t total = j->heads[j->ntasks], b = chunk_begin(j, i), e = chunk_begin(j, i + 1);
    if (e > total) e = total;
    if (b >= e) return SP_STATUS_SUCCESS;
    memcpy(t->row + b, j->row_out + b, (size_t)(e - b) * sizeof *t->row);
    memcpy(t->col + b, j->col_out + b, (size_t)(e - b) * sizeof *t->col);
    if (vs)
        memcpy((char *)t->val + (size_t)b * vs, (const char *)j->val_out + (size_t)b * vs,
               (size_t)(e - b) * vs);
    return SP_STATUS_SUCCESS;
}

/* Offsets of a pass from the per-chunk counts, digit-major then chunk-minor; 1 when one
 * digit holds every entry (the pass would move nothing). */
static int pass_offsets(sort_job_t *j)
{
    int64_t run = 0;
    for (int d = 0; d < BUCKETS; d++) {
        int64_t in_digit = 0;
        for (int i = 0; i < j->ntasks; i++) {
            int64_t *h = j->hist + (size_t)i * BUCKETS + d, c = *h;
            *h = run;
            run += c;
            in_digit += c;
        }
        if (in_digit == j->n) return 1;
    }
    return 0;
}

/* Whether the entries already stand in strictly increasing (row, col) order, so the stable
 * sort and the merge would change nothing (no two entries share a place): checked in
 * chunks on every task, each chunk with the entry before it; a chunk that finds a step
 * back tells the others to stop. For an unsorted input the first chunk usually stops at
 * once; a sorted one costs one read of rows and columns instead of the sort's passes. */
typedef struct sorted_check {
    const int32_t *row, *col;
    int64_t n, ncols, chunk;
    volatile int unsorted;
} sorted_check_t;

/* Entry k (k >= 1) steps back from entry k - 1, or its column is out of range (left to the
 * sort, which names it). */
static int steps_back(const int32_t *row, const int32_t *col, int64_t k, int64_t ncols)
{
    return row[k] < row[k - 1] || (row[k] == row[k - 1] && col[k] <= col[k - 1]) || col[k] < 0 ||
           col[k] >= ncols;
}

static sp_status_t sorted_task(int i, void *arg)
{
    sorted_check_t *c = arg;
    int64_t b = (int64_t)i * c->chunk, e = b + c->chunk < c->n ? b + c->chunk : c->n;
    if (b == 0) b = 1;
    for (int64_t k = b; k < e; k++) {
        if (steps_back(c->row, c->col, k, c->ncols)) {
            c->unsorted = 1;
            break;
        }
        if ((k & 65535) == 0 && c->unsorted) break;
    }
    return SP_STATUS_SUCCESS;
}

int sp__coo_in_order(const sp_triplets_t *t, int nthreads)
{
    sorted_check_t c = {t->row, t->col, t->nnz, t->ncols, 0, 0};
    int tasks;
    if (nthreads <= 0) nthreads = sp__ncores();
    if (t->nnz < 2) return 0; /* nothing to gain: the sort checks the entries */
    /* rows rise, so the first and the last bound them all; columns are checked one by one */
    if (t->row[0] < 0 || t->row[t->nnz - 1] >= t->nrows || t->col[0] < 0 || t->col[0] >= t->ncols)
        return 0;
    /* a quick look first: most unsorted inputs step back within their first entries */
    for (int64_t k = 1; k < t->nnz && k < 4096; k++)
        if (steps_back(t->row, t->col, k, t->ncols)) return 0;
    tasks = nthreads;
    if ((int64_t)tasks * MIN_CHUNK > t->nnz) tasks = (int)((t->nnz + MIN_CHUNK - 1) / MIN_CHUNK);
    if (tasks < 1) tasks = 1;
    c.chunk = (t->nnz + tasks - 1) / tasks;
    if (sp__parallel_for(nthreads, tasks, sorted_task, &c) != SP_STATUS_SUCCESS) {
        sp_clear_error();
        return 0; /* no verdict: sort */
    }
    return !c.unsorted;
}

sp_status_t sp__coo_sort_merge_threads(sp_triplets_t *t, sp_dup_policy_t policy,
                                       int64_t *nmerged, int nthreads)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sort_job_t j;
    memset(&j, 0, sizeof j);
    SP_CHECK_ARG(t != NULL, "coo sort: coo is NULL");
    SP_CHECK_ARG(policy == SP_DUP_SUM || policy == SP_DUP_KEEP,
                 "coo sort: unknown duplicate policy %d", (int)policy);
    SP_CHECK_ARG(t->nnz >= 0, "coo sort: nnz %lld is negative", (long long)t->nnz);
    if (nthreads <= 0) nthreads = sp__ncores();
    if (t->row && t->col && sp__coo_in_order(t, nthreads)) { /* the sort would be the identity */
        if (nmerged) *nmerged = 0;
        return SP_STATUS_SUCCESS;
    }
    j.n = t->nnz;
    int64_t chunks = (j.n + MIN_CHUNK - 1) / MIN_CHUNK;
    j.ntasks = chunks < nthreads ? (int)chunks : nthreads;
    if (j.ntasks <= 1 || t->nrows <= 0 || t->ncols <= 0)
        return sp__ref_coo_sort_merge(t, policy, nmerged);
    j.t = t;
    j.policy = policy;
    j.chunk = (j.n + j.ntasks - 1) / j.ntasks;
    j.cbits = bits_for(t->ncols);
    int total_bits = j.cbits + bits_for(t->nrows);
    size_t vs = sp_value_size(t->value_type);
    /* the one choice of position width; a task table follows it */
    j.wide = j.n > (int64_t)UINT32_MAX || j.n > sp__position32_limit();
    task_fn pack = j.wide ? pack_task64 : pack_task32;
    task_fn scatter = j.wide ? scatter_task64 : scatter_task32;
    task_fn merge = j.wide ? merge_task64 : merge_task32;
    size_t pos_bytes = j.wide ? sizeof(uint64_t) : sizeof(uint32_t);
    for (int b = 0; b < 2; b++) {
        SP_ALLOC(j.key[b], j.n);
        if (!(j.pos[b] = sp__malloc_array((size_t)j.n, pos_bytes)))
            SP_FAIL(SP_STATUS_ALLOC_FAILED,
                    "coo sort: out of host memory allocating %lld x %zu bytes of positions",
                    (long long)j.n, pos_bytes);
    }
    SP_ALLOC(j.hist, (int64_t)j.ntasks * BUCKETS);
    SP_ALLOC(j.heads, j.ntasks + 1);
    if (vs && !(j.val_out = sp__malloc_array((size_t)j.n, vs)))
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "coo sort: out of host memory for %lld values",
                (long long)j.n);
    /* the first digit's counts come with the keys (and the check of every entry) */
    SP_TRY(sp__parallel_for(nthreads, j.ntasks, pack, &j));
    for (j.shift = 0; j.shift < total_bits; j.shift += DIGIT_BITS) {
        if (j.shift > 0) SP_TRY(sp__parallel_for(nthreads, j.ntasks, count_task, &j));
        if (pass_offsets(&j)) continue;
        SP_TRY(sp__parallel_for(nthreads, j.ntasks, scatter, &j));
        j.src = !j.src;
    }
    SP_TRY(sp__parallel_for(nthreads, j.ntasks, head_task, &j));
    {
        int64_t run = 0;
        for (int i = 0; i < j.ntasks; i++) {
            int64_t c = j.heads[i];
            j.heads[i] = run;
            run += c;
        }
        j.heads[j.ntasks] = run;
    }
    /* the free key buffer (8 bytes an entry) holds the merged rows and columns */
    j.row_out = (int32_t *)(void *)j.key[!j.src];
    j.col_out = j.row_out + j.n;
    SP_TRY(sp__parallel_for(nthreads, j.ntasks, merge, &j));
    /* the pool fails before any task runs, or runs them all: the COO changes only here */
    SP_TRY(sp__parallel_for(nthreads, j.ntasks, commit_task, &j));
    t->nnz = j.heads[j.ntasks];
    if (nmerged) *nmerged = j.n - t->nnz;
done:
    sp__free(j.val_out);
    sp__free(j.heads);
    sp__free(j.hist);
    for (int b = 0; b < 2; b++) {
        sp__free(j.pos[b]);
        sp__free(j.key[b]);
    }
    return st;
}
