/* A load's progress for the caller's callback (sp_mtx_options_t.progress): bytes of the
 * text parsed, added by the reading threads as they finish pieces of it, passed on one
 * call at a time (a call that finds another in progress is dropped: the next one carries
 * its bytes). load_progress.c. */
#ifndef SP_PROGRESS_H
#define SP_PROGRESS_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct sp__progress {
    void (*fn)(void *user, int64_t bytes_done, int64_t bytes_total); /* NULL: none */
    void *user;
    int64_t total;
    atomic_llong done;
    atomic_int busy;
} sp__progress_t;

void sp__progress_init(sp__progress_t *p, void (*fn)(void *, int64_t, int64_t), void *user,
                       int64_t total);
/* bytes more are parsed; the last piece's call (done reaching total) is never dropped. */
void sp__progress_add(sp__progress_t *p, int64_t bytes);

#endif /* SP_PROGRESS_H */
