/* Progress reports of the loaders: a byte counter the reading threads add to, and the
 * caller's callback called by one of them at a time (sp_progress.h). */
#include "sp_progress.h"

void sp__progress_init(sp__progress_t *p, void (*fn)(void *, int64_t, int64_t), void *user,
                       int64_t total)
{
    p->fn = fn;
    p->user = user;
    p->total = total;
    atomic_init(&p->done, 0);
    atomic_init(&p->busy, 0);
    if (fn) fn(user, 0, total);
}

void sp__progress_add(sp__progress_t *p, int64_t bytes)
{
    if (!p->fn) return;
    int64_t done = (int64_t)atomic_fetch_add(&p->done, bytes) + bytes;
    int last = done >= p->total;
    /* The last report waits for a running one; the others are dropped instead. */
    while (atomic_exchange(&p->busy, 1))
        if (!last) return;
    p->fn(p->user, (int64_t)atomic_load(&p->done), p->total);
    atomic_store(&p->busy, 0);
}
