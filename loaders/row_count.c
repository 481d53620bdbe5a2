/* sp__row_count: entries per row bucket, added piece by piece by the readers' count mode
 * (sp_row_count.h). A piece is counted under the counter's lock: one shift and add per
 * entry, little next to the parse that produced it. */
#include <string.h>

#include "sp_row_count.h"

void sp__row_count_init(sp__row_count_t *rc, int64_t *counts, int64_t nbuckets)
{
    memset(rc, 0, sizeof *rc);
    rc->counts = counts;
    rc->nbuckets = nbuckets;
    rc->max_id = -1;
    rc->nrows = rc->ncols = rc->declared = -1;
    memset(counts, 0, (size_t)nbuckets * sizeof *counts);
    pthread_mutex_init(&rc->lock, NULL);
}

void sp__row_count_destroy(sp__row_count_t *rc) { pthread_mutex_destroy(&rc->lock); }

/* Buckets of rows 2^shift wide: pairs merged once per step. Caller holds the lock or is
 * the only user. */
void sp__row_count_widen(sp__row_count_t *rc, int shift)
{
    for (; rc->shift < shift; rc->shift++) {
        for (int64_t b = 0; b < rc->nbuckets; b++) {
            int64_t v = rc->counts[b];
            rc->counts[b] = 0;
            rc->counts[b / 2] += v;
        }
    }
}

static int shift_for(const sp__row_count_t *rc, int64_t max_row)
{
    int s = rc->shift;
    while (s < 62 && (max_row >> s) >= rc->nbuckets) s++;
    return s;
}

void sp__row_count_fit(sp__row_count_t *rc, int64_t max_row)
{
    sp__row_count_widen(rc, shift_for(rc, max_row));
}

void sp__row_count_add(sp__row_count_t *rc, const int32_t *row, const int32_t *col, int64_t n)
{
    int64_t hi = -1, hi_col = -1; /* the largest row counted, column seen */
    for (int64_t k = 0; k < n; k++) {
        if (row[k] > hi) hi = row[k];
        if (col[k] > hi_col) hi_col = col[k];
    }
    pthread_mutex_lock(&rc->lock);
    if (hi > rc->max_id) rc->max_id = hi;
    if (hi_col > rc->max_id) rc->max_id = hi_col;
    if (rc->either && hi_col > hi) hi = hi_col;
    sp__row_count_widen(rc, shift_for(rc, hi));
    int s = rc->shift;
    for (int64_t k = 0; k < n; k++) {
        int loop = row[k] == col[k];
        if (loop && rc->no_loops) continue;
        rc->counts[row[k] >> s]++;
        if (rc->either && !loop) rc->counts[col[k] >> s]++;
    }
    pthread_mutex_unlock(&rc->lock);
}
