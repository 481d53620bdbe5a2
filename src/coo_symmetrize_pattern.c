/* The undirected pattern of a host COO without values (sp_coo_symmetrize's path for
 * SP_VALUE_NONE): every entry (r, c) and its mirror (c, r), self-loops dropped or kept once,
 * sorted by (row, column) and merged, exactly what mirroring and then sort-merging gives
 * (src/coo.c), made by counting instead of sorting the whole list, the way CSparse's
 * cs_compress builds a compressed form: count each row's entries (both ends of every edge),
 * scan, scatter the columns by row, then sort and deduplicate each row on its own.
 *
 * Memory, m entries in and V rows: the caller's 8 bytes an entry, 4 bytes for each of the
 * (up to) 2m mirrored columns and 8 bytes a row of counters: 16m + 8V bytes at the peak,
 * against the sort path's 8m + 8 * 2m (the mirrored copy) + 24 * 2m (packed keys and
 * 32-bit positions, double-buffered) = 72m on a pattern (measured 4.72 GB at Kronecker 22,
 * against 1.10 GB). At Kronecker 27 (m = 2^31) that is 35.4 GB against 155 GB.
 * The output's rows go into the caller's row array, grown in place (realloc); its column
 * array is replaced by the scattered columns.
 *
 * Threads: the count and the scatter take chunks of entries with relaxed atomic counters per
 * row, so a row's columns land in any order; each row is then sorted, so the output depends
 * on the input alone, never on the thread count. A failure (an entry outside the matrix, out
 * of memory) leaves the caller's COO exactly as it was: nothing of it changes before the last
 * allocation has succeeded. */
#include <stdatomic.h>
#include <string.h>

#include "sp_base.h"
#include "sp_host_sort.h"
#include "sp_text.h" /* sp__parallel_for, sp__ncores */

enum {
    CHUNK_MIN = 1 << 16, /* entries (or row entries) a task takes at least */
    TASKS_PER_THREAD = 4, /* row tasks per thread: a hub row's task is longer than the rest */
    SHORT_ROW = 32,       /* rows up to this length: insertion sort */
    RADIX_ROW = 4096,     /* rows from this length: radix sort (its 2048 counters a pass
                             cost more than a quicksort below) */
    DIGIT_BITS = 11,
    BUCKETS = 1 << DIGIT_BITS,
};

typedef struct sym_job {
    const sp_coo_t *coo;
    int drop;                     /* drop self-loops */
    int64_t n, chunk;             /* input entries; entries per count/scatter task */
    int ntasks;                   /* count/scatter tasks */
    int64_t *bad;                 /* per task: its first entry outside the matrix, or -1 */
    atomic_int_least64_t *cursor; /* per row: its count; its next free place, then its end
                                     (scatter); the entries it keeps (sort) */
    int32_t *col;                 /* the mirrored columns, grouped by row */
    int cbits;                    /* bits of a column id */
    int nrow_tasks;
    int64_t *split;  /* nrow_tasks + 1: the first row of each row task, then nrows */
    int64_t *begin;  /* nrow_tasks + 1: where each row task's entries start in col */
    int64_t *kept;   /* nrow_tasks: entries each row task keeps (then its output start) */
    int32_t *rows;   /* the output's rows (the fill) */
} sym_job_t;

static int64_t chunk_end(const sym_job_t *j, int i)
{
    int64_t e = (int64_t)(i + 1) * j->chunk;
    return e < j->n ? e : j->n;
}

static int64_t load(const atomic_int_least64_t *a)
{
    return atomic_load_explicit(a, memory_order_relaxed);
}

/* Both ends of chunk i's edges counted; the first entry outside the matrix stops it. */
static sp_status_t count_task(int i, void *arg)
{
    sym_job_t *j = arg;
    const sp_coo_t *a = j->coo;
    j->bad[i] = -1;
    for (int64_t k = (int64_t)i * j->chunk, e = chunk_end(j, i); k < e; k++) {
        int32_t r = a->row[k], c = a->col[k];
        if (r < 0 || r >= a->nrows || c < 0 || c >= a->ncols) {
            j->bad[i] = k;
            break;
        }
        if (j->drop && r == c) continue;
        atomic_fetch_add_explicit(&j->cursor[r], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&j->cursor[c], 1, memory_order_relaxed);
    }
    return SP_STATUS_SUCCESS;
}

/* Chunk i's edges, each end's column put in its row's next free place. */
static sp_status_t scatter_task(int i, void *arg)
{
    sym_job_t *j = arg;
    const sp_coo_t *a = j->coo;
    for (int64_t k = (int64_t)i * j->chunk, e = chunk_end(j, i); k < e; k++) {
        int32_t r = a->row[k], c = a->col[k];
        if (j->drop && r == c) continue;
        j->col[atomic_fetch_add_explicit(&j->cursor[r], 1, memory_order_relaxed)] = c;
        j->col[atomic_fetch_add_explicit(&j->cursor[c], 1, memory_order_relaxed)] = r;
    }
    return SP_STATUS_SUCCESS;
}

static void insertion_sort(int32_t *x, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int32_t v = x[i];
        int64_t k = i;
        for (; k > 0 && x[k - 1] > v; k--) x[k] = x[k - 1];
        x[k] = v;
    }
}

/* x[0..n) sorted by quicksort (median of three; the shorter side recursed, the longer
 * looped, so the depth stays below log2 n), short parts by insertion sort. */
static void quick_sort(int32_t *x, int64_t n)
{
    while (n > SHORT_ROW) {
        int32_t a = x[0], b = x[n / 2], c = x[n - 1];
        int32_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        int64_t i = 0, j = n - 1;
        for (;;) { /* Hoare's partition: x[0..j] <= pivot <= x[j+1..n) */
            while (x[i] < pivot) i++;
            while (x[j] > pivot) j--;
            if (i >= j) break;
            int32_t t = x[i];
            x[i++] = x[j];
            x[j--] = t;
        }
        int64_t left = j + 1;
        if (left < n - left) {
            quick_sort(x, left);
            x += left;
            n -= left;
        } else {
            quick_sort(x + left, n - left);
            n = left;
        }
    }
    insertion_sort(x, n);
}

/* x[0..n) (ids in [0, 2^bits)) sorted by an LSD radix sort through tmp (n entries). */
static void radix_sort(int32_t *x, int32_t *tmp, int64_t n, int bits)
{
    int64_t count[BUCKETS];
    int32_t *src = x, *dst = tmp;
    for (int shift = 0; shift < bits; shift += DIGIT_BITS) {
        int64_t run = 0;
        int one_digit = 0;
        memset(count, 0, sizeof count);
        for (int64_t k = 0; k < n; k++) count[((uint32_t)src[k] >> shift) & (BUCKETS - 1)]++;
        for (int d = 0; d < BUCKETS; d++) {
            int64_t c = count[d];
            one_digit |= c == n;
            count[d] = run;
            run += c;
        }
        if (one_digit) continue; /* the pass would move nothing */
        for (int64_t k = 0; k < n; k++) dst[count[((uint32_t)src[k] >> shift) & (BUCKETS - 1)]++] = src[k];
        int32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != x) memcpy(x, src, (size_t)n * sizeof *x);
}

/* Entries of x[0..n) (sorted) left once each at its front; returns how many. */
static int64_t unique(int32_t *x, int64_t n)
{
    int64_t out = n > 0;
    for (int64_t k = 1; k < n; k++)
        if (x[k] != x[out - 1]) x[out++] = x[k];
    return out;
}

/* Row task t: each of its rows sorted and deduplicated, its kept entries packed at the front
 * of the task's own range of col (so tasks never touch each other's entries), the count each
 * row keeps in its cursor and the task's total in kept[t]. */
static sp_status_t sort_task(int t, void *arg)
{
    sym_job_t *j = arg;
    int64_t r0 = j->split[t], r1 = j->split[t + 1], start = j->begin[t], out = start, longest = 0;
    int32_t *tmp = NULL;
    for (int64_t r = r0, b = start; r < r1; r++) {
        int64_t e = load(&j->cursor[r]);
        if (e - b > longest) longest = e - b;
        b = e;
    }
    if (longest >= RADIX_ROW && !(tmp = sp__malloc_array((size_t)longest, sizeof *tmp)))
        return SP_ERROR(SP_STATUS_ALLOC_FAILED,
                        "sp_coo_symmetrize: out of host memory for a row of %lld entries",
                        (long long)longest);
    for (int64_t r = r0, b = start; r < r1; r++) {
        int64_t e = load(&j->cursor[r]), len = e - b;
        int32_t *x = j->col + b;
        if (len <= SHORT_ROW) insertion_sort(x, len);
        else if (len < RADIX_ROW) quick_sort(x, len);
        else radix_sort(x, tmp, len, j->cbits);
        len = unique(x, len);
        if (out != b) memmove(j->col + out, x, (size_t)len * sizeof *x);
        atomic_store_explicit(&j->cursor[r], len, memory_order_relaxed);
        out += len;
        b = e;
    }
    j->kept[t] = out - start;
    sp__free(tmp);
    return SP_STATUS_SUCCESS;
}

/* Row task t's rows written into the output's row array from their kept counts. */
static sp_status_t fill_task(int t, void *arg)
{
    sym_job_t *j = arg;
    int64_t out = j->kept[t];
    for (int64_t r = j->split[t]; r < j->split[t + 1]; r++)
        for (int64_t e = out + load(&j->cursor[r]); out < e; out++) j->rows[out] = (int32_t)r;
    return SP_STATUS_SUCCESS;
}

/* Where row r's entries start in col once scattered (the cursors hold each row's end). */
static int64_t row_start(const sym_job_t *j, int64_t r)
{
    return r == 0 ? 0 : load(&j->cursor[r - 1]);
}

/* The row tasks: about equal shares of the total entries, each a range of whole rows. */
static sp_status_t split_rows(sym_job_t *j, int64_t nrows, int64_t total, int nthreads)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t tasks = (int64_t)nthreads * TASKS_PER_THREAD;
    if (tasks > total / CHUNK_MIN) tasks = total / CHUNK_MIN;
    if (tasks < 1) tasks = 1;
    j->nrow_tasks = (int)tasks;
    SP_ALLOC(j->split, tasks + 1);
    SP_ALLOC(j->begin, tasks + 1);
    SP_ALLOC(j->kept, tasks);
    for (int64_t t = 0; t <= tasks; t++) {
        int64_t target = total / tasks * t + total % tasks * t / tasks, lo = 0, hi = nrows;
        while (lo < hi) { /* the first row starting at or after target */
            int64_t mid = lo + (hi - lo) / 2;
            if (row_start(j, mid) < target) lo = mid + 1;
            else hi = mid;
        }
        j->split[t] = t == tasks ? nrows : lo;
        j->begin[t] = t == tasks ? total : row_start(j, j->split[t]);
    }
done:
    return st;
}

static int bits_of(int64_t count)
{
    int b = 0;
    while (b < 62 && ((int64_t)1 << b) < count) b++;
    return b;
}

/* Run task on every index, on one thread when the pool cannot start its threads (the tasks
 * themselves do not fail). */
static void run_all(int nthreads, int ntasks, sp_status_t (*task)(int, void *), void *arg)
{
    if (sp__parallel_for(nthreads, ntasks, task, arg) == SP_STATUS_SUCCESS) return;
    sp_clear_error();
    for (int i = 0; i < ntasks; i++) (void)task(i, arg);
}

sp_status_t sp__coo_symmetrize_pattern(sp_coo_t *coo, int drop_self_loops, int nthreads)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sym_job_t j;
    int64_t nrows = coo->nrows, total = 0;
    void *cursor_mem = NULL; /* j.cursor, freed as plain memory */
    memset(&j, 0, sizeof j);
    if (nthreads <= 0) nthreads = sp__ncores();
    j.coo = coo;
    j.drop = drop_self_loops;
    j.n = coo->nnz;
    j.cbits = bits_of(coo->ncols);
    int64_t chunks = (j.n + CHUNK_MIN - 1) / CHUNK_MIN;
    j.ntasks = chunks < (int64_t)nthreads * TASKS_PER_THREAD ? (int)chunks
                                                              : nthreads * TASKS_PER_THREAD;
    if (j.ntasks < 1) j.ntasks = 1;
    j.chunk = (j.n + j.ntasks - 1) / j.ntasks;
    if (j.chunk < 1) j.chunk = 1;
    cursor_mem = sp__calloc_array((size_t)(nrows > 0 ? nrows : 1), sizeof *j.cursor);
    if (!(j.cursor = cursor_mem))
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "sp_coo_symmetrize: out of host memory for %lld row "
                "counters", (long long)nrows);
    SP_ALLOC(j.bad, j.ntasks);
    run_all(nthreads, j.ntasks, count_task, &j);
    for (int i = 0; i < j.ntasks; i++)
        if (j.bad[i] >= 0) {
            int64_t k = j.bad[i];
            SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
                    "sp_coo_symmetrize: entry %lld at (%d, %d) outside %lld x %lld",
                    (long long)k, coo->row[k], coo->col[k], (long long)coo->nrows,
                    (long long)coo->ncols);
        }
    for (int64_t r = 0; r < nrows; r++) { /* counts to starts (exclusive scan) */
        int64_t c = load(&j.cursor[r]);
        atomic_store_explicit(&j.cursor[r], total, memory_order_relaxed);
        total += c;
    }
    if (!(j.col = sp__malloc_array((size_t)(total > 0 ? total : 1), sizeof *j.col)))
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "sp_coo_symmetrize: out of host memory for %lld "
                "mirrored entries of 4 bytes (%.0f bytes)", (long long)total, 4.0 * (double)total);
    run_all(nthreads, j.ntasks, scatter_task, &j); /* cursors: each row's end */
    SP_TRY(split_rows(&j, nrows, total, nthreads));
    SP_TRY(sp__parallel_for(nthreads, j.nrow_tasks, sort_task, &j));
    /* the tasks' kept entries moved together, in order (each moves left, onto space that
     * the tasks before it have left) */
    total = 0;
    for (int t = 0; t < j.nrow_tasks; t++) {
        int64_t k = j.kept[t];
        if (total != j.begin[t]) memmove(j.col + total, j.col + j.begin[t], (size_t)k * 4);
        j.kept[t] = total;
        total += k;
    }
    /* the merged entries' room given back (a shrink; its failure fails the call, with the
     * COO as it was, so every failed request reads the same to the caller) */
    int32_t *shrunk = sp__realloc(j.col, (size_t)(total > 0 ? total : 1) * sizeof *j.col);
    if (!shrunk)
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "sp_coo_symmetrize: cannot shrink %lld columns",
                (long long)total);
    j.col = shrunk;
    j.rows = coo->row;
    if (total > coo->capacity) { /* grown in place where the allocator can (mremap) */
        if (!(j.rows = sp__realloc(coo->row, (size_t)total * sizeof *j.rows)))
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "sp_coo_symmetrize: out of host memory for %lld "
                    "rows of 4 bytes", (long long)total);
        coo->row = j.rows;
    }
    /* nothing fails from here: the COO becomes the result */
    sp__free(coo->col);
    coo->col = j.col;
    j.col = NULL;
    run_all(nthreads, j.nrow_tasks, fill_task, &j);
    coo->nnz = total;
    coo->capacity = total;
    coo->flags |= SP_COO_SORTED | SP_COO_MERGED | SP_COO_SYMMETRIC_PATTERN;
done:
    sp__free(j.kept);
    sp__free(j.begin);
    sp__free(j.split);
    sp__free(j.col);
    sp__free(j.bad);
    sp__free(cursor_mem);
    return st;
}
