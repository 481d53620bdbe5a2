/* The host-simulated communicator: P ranks as threads of one process. Every collective is
 * post (each rank publishes its buffers in the shared group), a barrier, each rank reads
 * what it needs from its peers' buffers, and a second barrier before anyone may reuse a
 * buffer. Every wait checks the group's abort flag and a timeout, so a rank that fails,
 * aborts or never comes makes the others return SP_STATUS_DEVICE_ERROR instead of
 * hanging. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dist_internal.h"

typedef struct host_group {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int size, refs;
    double timeout_s;
    int arrived;
    uint64_t generation;
    int aborted, abort_rank;
    char why[256];
    const void **post;           /* per rank: its buffer of the current collective */
    const sp_comm_msg_t **sends; /* per rank: its sends of the current exchange */
    int *nsend;
} host_group_t;

static sp_status_t aborted_status(host_group_t *g)
{
    return SP_ERROR(SP_STATUS_DEVICE_ERROR, "sp_comm: rank %d aborted: %s", g->abort_rank,
                    g->why);
}

/* Mark the group aborted by rank (the first reason wins); called with g->mu held. */
static void mark_aborted(host_group_t *g, int rank, const char *why)
{
    if (!g->aborted) {
        g->aborted = 1;
        g->abort_rank = rank;
        snprintf(g->why, sizeof g->why, "%s", why ? why : "(no reason given)");
    }
    pthread_cond_broadcast(&g->cv);
}

static sp_status_t host_barrier(sp_comm_t *c)
{
    host_group_t *g = c->impl;
    struct timespec until;
    uint64_t gen;
    int passed = 0;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)g->timeout_s;
    until.tv_nsec += (long)((g->timeout_s - (double)(time_t)g->timeout_s) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&g->mu);
    gen = g->generation;
    if (!g->aborted && ++g->arrived == g->size) {
        g->arrived = 0;
        g->generation++;
        pthread_cond_broadcast(&g->cv);
    }
    while (!g->aborted && g->generation == gen) {
        if (pthread_cond_timedwait(&g->cv, &g->mu, &until) == ETIMEDOUT &&
            g->generation == gen) {
            char why[128];
            snprintf(why, sizeof why, "timed out after %g s waiting for the other ranks",
                     g->timeout_s);
            mark_aborted(g, c->rank, why);
        }
    }
    passed = g->generation != gen;
    pthread_mutex_unlock(&g->mu);
    if (passed) return SP_STATUS_SUCCESS;
    return aborted_status(g);
}

static void host_abort(sp_comm_t *c, const char *why)
{
    host_group_t *g = c->impl;
    pthread_mutex_lock(&g->mu);
    mark_aborted(g, c->rank, why);
    pthread_mutex_unlock(&g->mu);
}

/* out[i] = op over the ranks of their posted arrays, in rank order. */
static void reduce_posted(host_group_t *g, void *out, int64_t count, sp_comm_type_t type,
                          sp_comm_op_t op)
{
    int64_t i;
    int r;
    if (count == 0) return;
    if (type == SP_COMM_F64) {
        double *o = out;
        memcpy(o, g->post[0], (size_t)count * sizeof *o);
        for (r = 1; r < g->size; r++) {
            const double *in = g->post[r];
            for (i = 0; i < count; i++)
                o[i] = op == SP_COMM_SUM ? o[i] + in[i] : (in[i] > o[i] ? in[i] : o[i]);
        }
    } else {
        int64_t *o = out;
        memcpy(o, g->post[0], (size_t)count * sizeof *o);
        for (r = 1; r < g->size; r++) {
            const int64_t *in = g->post[r];
            for (i = 0; i < count; i++)
                o[i] = op == SP_COMM_SUM ? o[i] + in[i] : (in[i] > o[i] ? in[i] : o[i]);
        }
    }
}

static sp_status_t host_allreduce(sp_comm_t *c, void *buf, int64_t count, sp_comm_type_t type,
                                  sp_comm_op_t op)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    host_group_t *g = c->impl;
    /* the solvers' dot products (a few values a call) reduce on the stack: an iteration
     * allocates nothing */
    uint64_t small[16];
    unsigned char *tmp = (unsigned char *)small;
    if (count > (int64_t)(sizeof small / 8)) SP_ALLOC(tmp, count * 8);
    g->post[c->rank] = buf;
    SP_TRY(host_barrier(c));
    reduce_posted(g, tmp, count, type, op);
    SP_TRY(host_barrier(c));
    if (count > 0) memcpy(buf, tmp, (size_t)count * 8);
done:
    if (st != SP_STATUS_SUCCESS && tmp == NULL) host_abort(c, sp_last_error());
    if (tmp != (unsigned char *)small) sp__free(tmp);
    return st;
}

static sp_status_t host_allgather(sp_comm_t *c, const void *send, void *recv, int64_t bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    host_group_t *g = c->impl;
    int r;
    g->post[c->rank] = send;
    SP_TRY(host_barrier(c));
    for (r = 0; r < g->size && bytes > 0; r++)
        memcpy((unsigned char *)recv + (size_t)r * (size_t)bytes, g->post[r], (size_t)bytes);
    SP_TRY(host_barrier(c));
done:
    return st;
}

/* The j-th message that rank `from` posted for rank `to`, or NULL. */
static const sp_comm_msg_t *nth_send(const host_group_t *g, int from, int to, int j)
{
    int k;
    for (k = 0; k < g->nsend[from]; k++)
        if (g->sends[from][k].peer == to && j-- == 0) return &g->sends[from][k];
    return NULL;
}

static sp_status_t host_exchange(sp_comm_t *c, int nsend, const sp_comm_msg_t *sends, int nrecv,
                                 const sp_comm_msg_t *recvs)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    host_group_t *g = c->impl;
    int k, j, nth;
    g->sends[c->rank] = sends;
    g->nsend[c->rank] = nsend;
    SP_TRY(host_barrier(c));
    for (k = 0; k < nrecv; k++) {
        const sp_comm_msg_t *m;
        for (nth = 0, j = 0; j < k; j++)
            nth += recvs[j].peer == recvs[k].peer;
        m = nth_send(g, recvs[k].peer, c->rank, nth);
        if (m == NULL || m->bytes != recvs[k].bytes) {
            char why[200];
            snprintf(why, sizeof why,
                     "exchange: rank %d expects %lld bytes from rank %d, which sends %lld",
                     c->rank, (long long)recvs[k].bytes, recvs[k].peer,
                     m ? (long long)m->bytes : -1LL);
            host_abort(c, why);
            SP_FAIL(SP_STATUS_DEVICE_ERROR, "sp_comm: %s", why);
        }
        if (m->bytes > 0) memcpy(recvs[k].ptr, m->ptr, (size_t)m->bytes);
    }
    SP_TRY(host_barrier(c));
done:
    return st;
}

static void host_destroy(sp_comm_t *c)
{
    host_group_t *g = c->impl;
    int last;
    pthread_mutex_lock(&g->mu);
    mark_aborted(g, c->rank, "the rank's communicator was destroyed");
    last = --g->refs == 0;
    pthread_mutex_unlock(&g->mu);
    if (last) {
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->mu);
        sp__free(g->post);
        sp__free(g->sends);
        sp__free(g->nsend);
        sp__free(g);
    }
    sp__free(c);
}

const sp_comm_ops_t sp__comm_host_ops = {host_allreduce, host_allgather, host_exchange,
                                         host_barrier,   host_abort,     host_destroy};

sp_status_t sp_comm_create_host(int nranks, const sp_comm_host_options_t *options,
                                sp_comm_t **comms)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    host_group_t *g = NULL;
    sp_comm_t **made = NULL;
    int r, locks = 0;
    double timeout = options && options->timeout_s > 0 ? options->timeout_s : 300.0;
    SP_CHECK_ARG(comms != NULL, "sp_comm_create_host: comms is NULL");
    SP_CHECK_ARG(nranks >= 1 && nranks <= 4096,
                 "sp_comm_create_host: nranks %d is not in 1..4096", nranks);
    SP_CHECK_ARG(options == NULL || options->timeout_s >= 0,
                 "sp_comm_create_host: negative timeout_s %g",
                 options ? options->timeout_s : 0);
    SP_CALLOC(g, 1);
    SP_CALLOC(g->post, nranks);
    SP_CALLOC(g->sends, nranks);
    SP_CALLOC(g->nsend, nranks);
    SP_CALLOC(made, nranks);
    if (pthread_mutex_init(&g->mu, NULL) != 0)
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "sp_comm_create_host: pthread_mutex_init failed");
    locks = 1;
    if (pthread_cond_init(&g->cv, NULL) != 0)
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "sp_comm_create_host: pthread_cond_init failed");
    locks = 2;
    g->size = nranks;
    g->timeout_s = timeout;
    for (r = 0; r < nranks; r++) {
        SP_CALLOC(made[r], 1);
        made[r]->ops = &sp__comm_host_ops;
        made[r]->backend = SP_COMM_HOST;
        made[r]->rank = r;
        made[r]->size = nranks;
        made[r]->impl = g;
    }
    g->refs = nranks;
    for (r = 0; r < nranks; r++)
        comms[r] = made[r];
    sp__free(made);
    return SP_STATUS_SUCCESS;
done:
    for (r = 0; made && r < nranks; r++)
        sp__free(made[r]);
    sp__free(made);
    if (g) {
        if (locks > 1) pthread_cond_destroy(&g->cv);
        if (locks > 0) pthread_mutex_destroy(&g->mu);
        sp__free(g->post);
        sp__free(g->sends);
        sp__free(g->nsend);
        sp__free(g);
    }
    return st;
}
