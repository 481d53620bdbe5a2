/* A small fork-join loop over tasks on pthreads. Errors are recorded per thread, so the
 * message of the lowest-numbered failing task is carried back to the calling thread:
 * that is the earliest failure in input order, whatever the scheduling. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_base.h"
#include "sp_text.h"

typedef struct pool {
    sp_status_t (*task)(int i, void *arg);
    void *arg;
    int ntasks;
    atomic_int next;
    atomic_int first_failed; /* lowest failing task so far, ntasks if none */
    pthread_mutex_t lock;
    sp_error_copy_t error;   /* of first_failed */
} pool_t;

void sp__error_save(sp_error_copy_t *e, sp_status_t status)
{
    e->status = status;
    snprintf(e->message, sizeof e->message, "%s", sp_last_error());
    snprintf(e->origin, sizeof e->origin, "%s", sp__error_origin());
}

sp_status_t sp__error_restore(const sp_error_copy_t *e)
{
    /* Re-record the message here, keeping its library source location. */
    char origin[sizeof e->origin];
    snprintf(origin, sizeof origin, "%s", e->origin);
    char *colon = strrchr(origin, ':');
    int line = colon ? atoi(colon + 1) : 0;
    if (colon) *colon = '\0';
    return sp__error(e->status, origin, line, "%s", e->message);
}

static void *worker(void *opaque)
{
    pool_t *pl = opaque;
    for (;;) {
        int i = atomic_fetch_add(&pl->next, 1);
        if (i >= pl->ntasks) break;
        /* Tasks after a known failure cannot change the result. */
        if (i > atomic_load(&pl->first_failed)) continue;
        sp_status_t st = pl->task(i, pl->arg);
        if (st == SP_STATUS_SUCCESS) continue;
        pthread_mutex_lock(&pl->lock);
        if (i < atomic_load(&pl->first_failed)) {
            atomic_store(&pl->first_failed, i);
            sp__error_save(&pl->error, st);
        }
        pthread_mutex_unlock(&pl->lock);
    }
    return NULL;
}

sp_status_t sp__parallel_for(int nthreads, int ntasks, sp_status_t (*task)(int i, void *arg),
                             void *arg)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    pthread_t *threads = NULL;
    int started = 0, lock_ok = 0;
    pool_t pl;
    SP_CHECK_ARG(task != NULL && ntasks >= 0, "sp__parallel_for: bad argument");
    if (nthreads <= 0) nthreads = sp__ncores();
    if (nthreads > ntasks) nthreads = ntasks;
    if (nthreads <= 1) { /* in order on this thread: the first failure is the lowest */
        for (int i = 0; i < ntasks; i++)
            if ((st = task(i, arg)) != SP_STATUS_SUCCESS) break;
        return st;
    }
    memset(&pl, 0, sizeof pl);
    pl.task = task;
    pl.arg = arg;
    pl.ntasks = ntasks;
    atomic_init(&pl.next, 0);
    atomic_init(&pl.first_failed, ntasks);
    if (pthread_mutex_init(&pl.lock, NULL) != 0)
        SP_FAIL(SP_STATUS_INTERNAL_ERROR, "sp__parallel_for: cannot create a mutex");
    lock_ok = 1;
    SP_ALLOC(threads, nthreads - 1);
    /* Threads that cannot be started leave their share to the others. */
    for (; started < nthreads - 1; started++)
        if (pthread_create(&threads[started], NULL, worker, &pl) != 0) break;
    worker(&pl);
    for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
    if (atomic_load(&pl.first_failed) < ntasks) st = sp__error_restore(&pl.error);
done:
    sp__free(threads);
    if (lock_ok) pthread_mutex_destroy(&pl.lock);
    return st;
}
