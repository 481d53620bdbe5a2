/* Entries per row bucket of a file, counted without keeping them (issue 24: the row split
 * of a distributed matrix from its file alone). The readers' count mode parses every line
 * of its share of the file as usual and adds each piece's entries here instead of keeping
 * them; memory is the buckets plus the reader's chunks. */
#ifndef SP_ROW_COUNT_H
#define SP_ROW_COUNT_H

#include <pthread.h>
#include <stdint.h>

#include "sp.h"

/* Bucket b holds rows [b << shift, (b + 1) << shift); shift grows (pairs of buckets merged)
 * when a row beyond the last bucket is counted, so an edge list's vertex count need not be
 * known first. either: an entry (r, c) with r != c also counts in row c (symmetric files,
 * undirected graphs: the mirror sp_mtx_read_rows keeps); no_loops: (v, v) not counted. */
typedef struct sp__row_count {
    int64_t nbuckets, *counts; /* the caller's array of nbuckets, zeroed */
    int shift;
    int either, no_loops;
    int64_t entries;     /* out: entries (edge lines) of the file in the share */
    int64_t max_id;      /* out: the largest row or column id seen (-1: none) */
    int64_t nrows, ncols;   /* out: the header's sizes (-1: none declared) */
    int64_t declared;       /* out: the header's entry (edge) count (-1: none) */
    pthread_mutex_t lock;
} sp__row_count_t;

void sp__row_count_init(sp__row_count_t *rc, int64_t *counts, int64_t nbuckets);
void sp__row_count_destroy(sp__row_count_t *rc);
/* Widen the buckets until row max_row fits (max_row < nbuckets << shift). */
void sp__row_count_fit(sp__row_count_t *rc, int64_t max_row);
void sp__row_count_widen(sp__row_count_t *rc, int shift);
/* Count n parsed entries (any thread). */
void sp__row_count_add(sp__row_count_t *rc, const int32_t *row, const int32_t *col, int64_t n);

/* Count mode of the readers: share rank of parts of the file (sp__source_share: of a file
 * that cannot be entered in the middle, rank 0 counts it all and the others nothing). The
 * options as for sp_mtx_read_rows / sp_edgelist_read_rows; errors as theirs (a share's
 * line numbers count from its start: a caller reads the file from its start again for the
 * exact line). */
sp_status_t sp__mtx_count_rows(const char *path, const sp_mtx_options_t *options, int rank,
                               int parts, sp__row_count_t *rc);
sp_status_t sp__edgelist_count_rows(const char *path, const sp_edgelist_options_t *options,
                                    int rank, int parts, sp__row_count_t *rc);

#endif
