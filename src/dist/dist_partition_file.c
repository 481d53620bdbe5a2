/* sp_dist_partition_file: the row split balanced by entries, from a file that no rank
 * holds whole. Each rank counts its share of the file's lines into row buckets (the
 * readers' count mode, loaders/row_count.c), the ranks agree on the bucket width and on
 * any failure (one all-gather of a small report), add the counts (one all-reduce), and
 * every rank walks the same sums to the same split. */
#include <stdio.h>
#include <string.h>

#include "dist_internal.h"
#include "sp_row_count.h"

enum { WHY_BYTES = 224 };

/* What each rank tells the others after counting its share. */
typedef struct share_report {
    int64_t status, shift, max_id, nrows, declared;
    char why[WHY_BYTES];
} share_report_t;

static sp_status_t count_part(const char *path, const sp_dist_file_options_t *o, int rank,
                              int parts, sp__row_count_t *rc)
{
    if (o->edgelist)
        return sp__edgelist_count_rows(path, o->edgelist_options, rank, parts, rc);
    return sp__mtx_count_rows(path, o->mtx, rank, parts, rc);
}

/* This rank's share counted. A share does not know the lines before it: where it fails to
 * parse, the file is read again from its start (counting, never keeping) up to its first
 * error, so the message names the file's line, the same on every rank that failed. */
static sp_status_t count_share(sp_comm_t *comm, const char *path,
                               const sp_dist_file_options_t *o, sp__row_count_t *rc)
{
    sp_status_t st = count_part(path, o, comm->rank, comm->size, rc);
    if (st != SP_STATUS_PARSE_ERROR || comm->size == 1) return st;
    sp_status_t again = count_part(path, o, 0, 1, rc);
    return again != SP_STATUS_SUCCESS ? again : st;
}

/* Every rank's report; the first failing rank's status and message become everyone's. */
static sp_status_t agree(sp_comm_t *comm, share_report_t *all, int64_t *shift,
                         int64_t *max_id, int64_t *nrows, int64_t *declared)
{
    *shift = 0;
    *max_id = *nrows = *declared = -1;
    for (int r = 0; r < comm->size; r++) {
        const share_report_t *p = &all[r];
        if (p->status != SP_STATUS_SUCCESS)
            return SP_ERROR((sp_status_t)p->status, "sp_dist_partition_file: rank %d: %s", r,
                            p->why);
        if (p->shift > *shift) *shift = p->shift;
        if (p->max_id > *max_id) *max_id = p->max_id;
        if (p->nrows > *nrows) *nrows = p->nrows;
        if (p->declared > *declared) *declared = p->declared;
    }
    return SP_STATUS_SUCCESS;
}

/* row_begin[0..P]: as sp_dist_partition, over buckets of 2^shift rows: part r starts at
 * the first bucket whose preceding entries reach r * total / P. */
static void split_buckets(const int64_t *cnt, int64_t B, int shift, int64_t total, int64_t n,
                          int P, int64_t *row_begin)
{
    int64_t b = 0, cum = 0;
    for (int r = 0; r < P; r++) {
        int64_t target = (total / P) * r + (total % P) * r / P;
        while (b < B && (b << shift) < n && cum < target) cum += cnt[b++];
        int64_t first = b << shift;
        row_begin[r] = first < n ? first : n;
    }
    row_begin[P] = n;
}

sp_status_t sp_dist_partition_file(sp_comm_t *comm, const char *path,
                                   const sp_dist_file_options_t *options, int64_t *row_begin)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_file_options_t o = {0};
    share_report_t *all = NULL, mine;
    sp__row_count_t rc;
    int64_t *cnt = NULL, B, shift, max_id, nrows, declared, n;
    int have_rc = 0, agreed = 0;
    memset(&mine, 0, sizeof mine);
    SP_CHECK_ARG(comm != NULL && path != NULL && row_begin != NULL,
                 "sp_dist_partition_file: comm, path or row_begin is NULL");
    if (options) o = *options;
    SP_CHECK_ARG(o.nbuckets >= 0, "sp_dist_partition_file: nbuckets %lld < 0",
                 (long long)o.nbuckets);
    B = o.nbuckets > 0 ? o.nbuckets : 64 * (int64_t)comm->size;
    SP_CALLOC(cnt, B + 1); /* the last: this rank's entries, added with the counts */
    SP_CALLOC(all, comm->size);
    sp__row_count_init(&rc, cnt, B);
    have_rc = 1;

    sp_status_t counted = count_share(comm, path, &o, &rc);
    mine.status = counted;
    if (counted != SP_STATUS_SUCCESS) snprintf(mine.why, sizeof mine.why, "%s", sp_last_error());
    mine.shift = rc.shift;
    mine.max_id = rc.max_id;
    mine.nrows = rc.nrows;
    mine.declared = rc.declared;
    SP_TRY(sp__comm_allgather_host(comm, &mine, all, sizeof mine));
    agreed = 1; /* from here every rank reaches the same verdict */
    SP_TRY(agree(comm, all, &shift, &max_id, &nrows, &declared));
    agreed = 0;

    sp__row_count_widen(&rc, (int)shift); /* every rank's buckets the same width */
    cnt[B] = rc.entries;
    SP_TRY(sp__comm_allreduce_host(comm, cnt, B + 1, SP_COMM_I64, SP_COMM_SUM));
    agreed = 1;
    if (!o.edgelist && cnt[B] != declared)
        SP_FAIL(SP_STATUS_PARSE_ERROR, "sp_dist_partition_file: %s holds %lld entries, %lld "
                "declared", path, (long long)cnt[B], (long long)declared);
    n = nrows >= 0 ? nrows : max_id + 1; /* an edge list: as vertex_count in its reader */
    if (o.edgelist && o.edgelist_options && o.edgelist_options->nvertices > n)
        n = o.edgelist_options->nvertices;
    int64_t total = 0;
    for (int64_t b = 0; b < B; b++) total += cnt[b];
    split_buckets(cnt, B, (int)shift, total, n, comm->size, row_begin);
done:
    if (have_rc) sp__row_count_destroy(&rc);
    sp__free(all);
    sp__free(cnt);
    /* a failure every rank agreed on leaves the communicator usable; any other (an argument,
     * memory, a collective) aborts it, so that no peer waits */
    return agreed ? st : sp__comm_fail(comm, st);
}
