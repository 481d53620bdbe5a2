/* The Graph500 validation of a BFS result (sp__ref_bfs_validate) with its two row-wise
 * rules split among threads: on a graph of billions of edges the edge rule is a pass over
 * every edge with a random read of a level each, seconds on one core. Each task takes a
 * range of vertices and keeps its first failure; the lowest failing task's message is the
 * result, so the verdict and the message are the serial ones whatever the thread count. */
#include <stdio.h>

#include "sp_api.h"
#include "sp_text.h" /* sp__parallel_for */

enum { VALIDATE_TASKS = 256, VALIDATE_SERIAL_BELOW = 1 << 16, WHY_BYTES = 256 };

typedef struct validate_job {
    const sp_csr_t *g;
    int32_t source;
    const int32_t *level, *parent;
    int rule, ntasks;
    int failed[VALIDATE_TASKS];
    char why[VALIDATE_TASKS][WHY_BYTES];
} validate_job_t;

static sp_status_t rows_task(int i, void *arg)
{
    validate_job_t *j = arg;
    int64_t n = j->g->nrows, lo = n * i / j->ntasks, hi = n * (i + 1) / j->ntasks;
    j->failed[i] = !sp__ref_bfs_validate_rows(j->g, j->source, j->level, j->parent, j->rule, lo,
                                              hi, j->why[i], WHY_BYTES);
    return SP_STATUS_SUCCESS;
}

int sp__bfs_validate_threads(const sp_csr_t *g, int32_t source, const int32_t *level,
                             const int32_t *parent, const int32_t *ref_level, char *why,
                             size_t why_len, int nthreads)
{
    validate_job_t *j = NULL;
    int ok = 1;
    if (!g || g->nrows < VALIDATE_SERIAL_BELOW || nthreads == 1)
        return sp__ref_bfs_validate(g, source, level, parent, ref_level, why, why_len);
    if (!sp__ref_bfs_validate_start(g, source, level, parent, why, why_len)) return 0;
    j = sp__calloc_array(1, sizeof *j);
    if (!j) /* no room for the tasks' messages: one thread */
        return sp__ref_bfs_validate(g, source, level, parent, ref_level, why, why_len);
    j->g = g;
    j->source = source;
    j->level = level;
    j->parent = parent;
    j->ntasks = VALIDATE_TASKS;
    for (int rule = 0; rule < 2 && ok; rule++) {
        j->rule = rule;
        if (sp__parallel_for(nthreads, j->ntasks, rows_task, j) != SP_STATUS_SUCCESS) {
            sp_clear_error(); /* the tasks never fail: threads could not start; one thread */
            for (int i = 0; i < j->ntasks; i++) rows_task(i, j);
        }
        for (int i = 0; i < j->ntasks && ok; i++)
            if (j->failed[i]) {
                ok = 0;
                if (why && why_len) snprintf(why, why_len, "%s", j->why[i]);
            }
    }
    sp__free(j);
    return ok && sp__ref_bfs_validate_reference(g, level, ref_level, why, why_len);
}
