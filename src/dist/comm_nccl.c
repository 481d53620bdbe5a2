/* The NCCL communicator: one rank per GPU. Each operation is queued on the rank's own
 * stream (after the work the bound context had queued when sp__comm_order_after was last
 * called) and waited for by polling: the stream, NCCL's asynchronous error
 * (ncclCommGetAsyncError), the group's abort flag and a timeout; any of them failing
 * aborts the NCCL communicator (ncclCommAbort), so no call waits forever for a lost peer.
 * Communicators are created non-blocking where NCCL allows it (ncclCommInitRankConfig), so
 * a joining process that never comes times out as well. Host buffers of the setup steps
 * are staged through device memory. Without NCCL (SP_HAVE_NCCL unset) every creator
 * returns SP_STATUS_NOT_COMPILED. */
#include <stdio.h>
#include <string.h>

#include "dist_internal.h"

#ifdef SP_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#include <sched.h>

#define NCCL_TIMEOUT_S 300.0

/* What the ranks made together by one ncclCommInitAll share: the abort flag. */
typedef struct nccl_group {
    int aborted, abort_rank, refs;
    char why[256];
} nccl_group_t;

typedef struct nccl_rank {
    ncclComm_t comm;
    int owns_comm, dead, device;
    int abort_requested; /* sp_comm_abort from any thread; the owner aborts NCCL */
    cudaStream_t stream;
    cudaEvent_t after; /* recorded on the bound stream, waited for by the next operation */
    int has_after;
    void *d_scratch;
    size_t scratch_bytes;
    nccl_group_t *group;
} nccl_rank_t;

static sp_status_t cuda_fail(const char *what, cudaError_t e)
{
    return SP_ERROR(SP_STATUS_DEVICE_ERROR, "sp_comm (NCCL): %s: %s", what,
                    cudaGetErrorString(e));
}

/* Wait (bounded: a kernel the abort did not reach must not hang the caller) until the
 * rank's stream has drained. */
static void drain(nccl_rank_t *n)
{
    double t0 = sp__now_ms();
    while (n->stream && cudaStreamQuery(n->stream) == cudaErrorNotReady &&
           sp__now_ms() - t0 < 30e3)
        sched_yield();
}

/* Abort the NCCL communicator, then drain: the aborted kernels leave the stream, so nothing
 * of this operation still runs on the device when the caller goes on to free the buffers it
 * named (the context's stream-ordered frees are not ordered after this stream). */
static void abort_and_drain(nccl_rank_t *n)
{
    if (n->dead) return;
    (void)ncclCommAbort(n->comm);
    n->dead = 1;
    drain(n);
}

/* The communicator is lost: abort it in NCCL, once, and say why. */
static sp_status_t lose(nccl_rank_t *n, int rank, const char *fmt_why)
{
    abort_and_drain(n);
    if (n->group && !__atomic_load_n(&n->group->aborted, __ATOMIC_ACQUIRE)) {
        snprintf(n->group->why, sizeof n->group->why, "%s", fmt_why);
        n->group->abort_rank = rank;
        __atomic_store_n(&n->group->aborted, 1, __ATOMIC_RELEASE);
    }
    return SP_ERROR(SP_STATUS_DEVICE_ERROR, "sp_comm: rank %d aborted: %s", rank, fmt_why);
}

static sp_status_t nccl_fail(sp_comm_t *c, const char *what, ncclResult_t r)
{
    nccl_rank_t *n = c->impl;
    char why[256];
    snprintf(why, sizeof why, "%s: %s (%s)", what, ncclGetErrorString(r),
             n->dead ? "" : ncclGetLastError(n->comm));
    return lose(n, c->rank, why);
}

/* This rank or a peer of the same process aborted (sp_comm_abort, a failed call). */
static int group_aborted(const nccl_rank_t *n)
{
    return __atomic_load_n(&n->abort_requested, __ATOMIC_ACQUIRE) ||
           (n->group && __atomic_load_n(&n->group->aborted, __ATOMIC_ACQUIRE));
}

/* The abort's rank and reason, for the message. */
static void abort_reason(const sp_comm_t *c, int *rank, const char **why)
{
    const nccl_rank_t *n = c->impl;
    *rank = n->group ? n->group->abort_rank : c->rank;
    *why = n->group ? n->group->why : "the communicator was aborted";
}

/* Until the queued operation is done: first enqueued (non-blocking communicators report
 * ncclInProgress until then), then finished on the stream. */
static sp_status_t wait_done(sp_comm_t *c, const char *what)
{
    nccl_rank_t *n = c->impl;
    double t0 = sp__now_ms();
    ncclResult_t r = ncclInProgress;
    cudaError_t e;
    for (;;) {
        if (ncclCommGetAsyncError(n->comm, &r) != ncclSuccess ||
            (r != ncclSuccess && r != ncclInProgress))
            return nccl_fail(c, what, r);
        if (r == ncclSuccess) {
            e = cudaStreamQuery(n->stream);
            if (e == cudaSuccess) return SP_STATUS_SUCCESS;
            if (e != cudaErrorNotReady) {
                char why[256];
                snprintf(why, sizeof why, "%s: %s", what, cudaGetErrorString(e));
                return lose(n, c->rank, why); /* the peers must not wait for this rank */
            }
        }
        if (group_aborted(n)) {
            /* A peer may abort right after this very operation completed on its side (a
             * refusal every rank reaches from the data this collective brings): give this
             * rank's share a short grace to land before aborting it. A peer that never
             * joined costs the grace only. */
            int rank;
            const char *why;
            double tg = sp__now_ms();
            while ((e = cudaStreamQuery(n->stream)) == cudaErrorNotReady &&
                   sp__now_ms() - tg < 1e3)
                sched_yield();
            if (e == cudaSuccess && ncclCommGetAsyncError(n->comm, &r) == ncclSuccess &&
                r == ncclSuccess)
                return SP_STATUS_SUCCESS;
            abort_reason(c, &rank, &why);
            abort_and_drain(n);
            return SP_ERROR(SP_STATUS_DEVICE_ERROR, "sp_comm: rank %d aborted: %s", rank, why);
        }
        if (sp__now_ms() - t0 > 1e3 * NCCL_TIMEOUT_S) {
            char why[128];
            snprintf(why, sizeof why, "%s timed out after %g s waiting for the other ranks",
                     what, NCCL_TIMEOUT_S);
            return lose(n, c->rank, why);
        }
        sched_yield();
    }
}

/* The rank's device current, the communicator alive, the bound stream's work ordered first. */
static sp_status_t begin(sp_comm_t *c)
{
    nccl_rank_t *n = c->impl;
    cudaError_t e;
    if (n->dead || group_aborted(n)) {
        int rank;
        const char *why;
        abort_reason(c, &rank, &why);
        abort_and_drain(n);
        return SP_ERROR(SP_STATUS_DEVICE_ERROR, "sp_comm: rank %d aborted: %s", rank, why);
    }
    if ((e = cudaSetDevice(n->device)) != cudaSuccess) return cuda_fail("cudaSetDevice", e);
    if (n->has_after) {
        if ((e = cudaStreamWaitEvent(n->stream, n->after, 0)) != cudaSuccess)
            return cuda_fail("cudaStreamWaitEvent", e);
        n->has_after = 0;
    }
    return SP_STATUS_SUCCESS;
}

static sp_status_t nccl_allreduce(sp_comm_t *c, void *buf, int64_t count, sp_comm_type_t type,
                                  sp_comm_op_t op)
{
    nccl_rank_t *n = c->impl;
    sp_status_t st = begin(c);
    ncclResult_t r;
    if (st) return st;
    r = ncclAllReduce(buf, buf, (size_t)count, type == SP_COMM_F64 ? ncclFloat64 : ncclInt64,
                      op == SP_COMM_SUM ? ncclSum : ncclMax, n->comm, n->stream);
    if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(c, "ncclAllReduce", r);
    return wait_done(c, "ncclAllReduce");
}

static sp_status_t nccl_allgather(sp_comm_t *c, const void *send, void *recv, int64_t bytes)
{
    nccl_rank_t *n = c->impl;
    sp_status_t st = begin(c);
    ncclResult_t r;
    if (st) return st;
    r = ncclAllGather(send, recv, (size_t)bytes, ncclUint8, n->comm, n->stream);
    if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(c, "ncclAllGather", r);
    return wait_done(c, "ncclAllGather");
}

/* One group of sends and receives; messages to oneself are copies on the stream (the k-th
 * to oneself into the k-th from oneself). */
static sp_status_t nccl_exchange(sp_comm_t *c, int nsend, const sp_comm_msg_t *sends, int nrecv,
                                 const sp_comm_msg_t *recvs)
{
    nccl_rank_t *n = c->impl;
    sp_status_t st = begin(c);
    ncclResult_t r = ncclSuccess;
    int k, j = 0;
    if (st) return st;
    for (k = 0; k < nsend; k++) {
        if (sends[k].peer != c->rank) continue;
        while (j < nrecv && recvs[j].peer != c->rank)
            j++;
        if (j == nrecv || recvs[j].bytes != sends[k].bytes)
            return lose(n, c->rank, "exchange: a message to itself without a matching receive");
        if (sends[k].bytes > 0) {
            cudaError_t e = cudaMemcpyAsync(recvs[j].ptr, sends[k].ptr, (size_t)sends[k].bytes,
                                            cudaMemcpyDeviceToDevice, n->stream);
            if (e != cudaSuccess) return cuda_fail("cudaMemcpyAsync", e);
        }
        j++;
    }
    if ((r = ncclGroupStart()) != ncclSuccess) return nccl_fail(c, "ncclGroupStart", r);
    for (k = 0; k < nsend && r == ncclSuccess; k++)
        if (sends[k].peer != c->rank && sends[k].bytes > 0)
            r = ncclSend(sends[k].ptr, (size_t)sends[k].bytes, ncclUint8, sends[k].peer,
                         n->comm, n->stream);
    for (k = 0; k < nrecv && r == ncclSuccess; k++)
        if (recvs[k].peer != c->rank && recvs[k].bytes > 0)
            r = ncclRecv(recvs[k].ptr, (size_t)recvs[k].bytes, ncclUint8, recvs[k].peer,
                         n->comm, n->stream);
    {
        ncclResult_t r2 = ncclGroupEnd();
        if (r == ncclSuccess) r = r2;
    }
    if (r != ncclSuccess && r != ncclInProgress)
        return nccl_fail(c, "grouped ncclSend/ncclRecv", r);
    return wait_done(c, "grouped ncclSend/ncclRecv");
}

/* scratch of at least bytes on the rank's device. */
static sp_status_t scratch(nccl_rank_t *n, size_t bytes)
{
    cudaError_t e;
    /* the rank's device, whatever the calling thread had current (sp_dist_partition_file
     * may come before any context of the rank's) */
    if ((e = cudaSetDevice(n->device)) != cudaSuccess) return cuda_fail("cudaSetDevice", e);
    if (n->scratch_bytes >= bytes) return SP_STATUS_SUCCESS;
    if (n->d_scratch) (void)cudaFree(n->d_scratch);
    n->d_scratch = NULL;
    n->scratch_bytes = 0;
    if ((e = cudaMalloc(&n->d_scratch, bytes < 256 ? 256 : bytes)) != cudaSuccess)
        return SP_ERROR(SP_STATUS_ALLOC_FAILED,
                        "sp_comm (NCCL): staging buffer of %zu bytes: %s", bytes,
                        cudaGetErrorString(e));
    n->scratch_bytes = bytes < 256 ? 256 : bytes;
    return SP_STATUS_SUCCESS;
}

static sp_status_t copy(nccl_rank_t *n, void *dst, const void *src, size_t bytes,
                        enum cudaMemcpyKind kind)
{
    cudaError_t e;
    if (bytes == 0) return SP_STATUS_SUCCESS;
    e = cudaMemcpyAsync(dst, src, bytes, kind, n->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(n->stream);
    return e == cudaSuccess ? SP_STATUS_SUCCESS : cuda_fail("staging copy", e);
}

static sp_status_t nccl_barrier(sp_comm_t *c)
{
    nccl_rank_t *n = c->impl;
    sp_status_t st = scratch(n, 8);
    if (st) return st;
    return nccl_allreduce(c, n->d_scratch, 1, SP_COMM_I64, SP_COMM_SUM);
}

sp_status_t sp__comm_nccl_allreduce_host(sp_comm_t *c, void *h_buf, int64_t count,
                                         sp_comm_type_t type, sp_comm_op_t op)
{
    nccl_rank_t *n = c->impl;
    size_t bytes = (size_t)count * 8;
    sp_status_t st;
    (void)type;
    if ((st = scratch(n, bytes)) ||
        (st = copy(n, n->d_scratch, h_buf, bytes, cudaMemcpyHostToDevice)))
        return sp__comm_fail(c, st);
    if ((st = sp_comm_allreduce(c, n->d_scratch, count, type, op))) return st;
    return sp__comm_fail(c, copy(n, h_buf, n->d_scratch, bytes, cudaMemcpyDeviceToHost));
}

sp_status_t sp__comm_nccl_allgather_host(sp_comm_t *c, const void *h_send, void *h_recv,
                                         int64_t bytes)
{
    nccl_rank_t *n = c->impl;
    size_t b = (size_t)bytes, all = b * (size_t)(c->size + 1);
    sp_status_t st;
    if ((st = scratch(n, all)) ||
        (st = copy(n, n->d_scratch, h_send, b, cudaMemcpyHostToDevice)))
        return sp__comm_fail(c, st);
    if ((st = sp_comm_allgather(c, n->d_scratch, (char *)n->d_scratch + b, bytes))) return st;
    return sp__comm_fail(c, copy(n, h_recv, (char *)n->d_scratch + b, b * (size_t)c->size,
                                 cudaMemcpyDeviceToHost));
}

/* The messages' host buffers staged in one device buffer: sends first, then receives. */
sp_status_t sp__comm_nccl_exchange_host(sp_comm_t *c, int nsend, const sp_comm_msg_t *sends,
                                        int nrecv, const sp_comm_msg_t *recvs)
{
    nccl_rank_t *n = c->impl;
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_comm_msg_t *ds = NULL, *dr = NULL;
    size_t total = 0, off = 0;
    int k;
    for (k = 0; k < nsend; k++)
        total += (size_t)sends[k].bytes;
    for (k = 0; k < nrecv; k++)
        total += (size_t)recvs[k].bytes;
    SP_ALLOC(ds, nsend);
    SP_ALLOC(dr, nrecv);
    SP_TRY(scratch(n, total));
    for (k = 0; k < nsend; k++) {
        ds[k] = sends[k];
        ds[k].ptr = (char *)n->d_scratch + off;
        SP_TRY(
            copy(n, ds[k].ptr, sends[k].ptr, (size_t)sends[k].bytes, cudaMemcpyHostToDevice));
        off += (size_t)sends[k].bytes;
    }
    for (k = 0; k < nrecv; k++) {
        dr[k] = recvs[k];
        dr[k].ptr = (char *)n->d_scratch + off;
        off += (size_t)recvs[k].bytes;
    }
    SP_TRY(sp_comm_exchange(c, nsend, ds, nrecv, dr));
    for (k = 0; k < nrecv; k++)
        SP_TRY(
            copy(n, recvs[k].ptr, dr[k].ptr, (size_t)recvs[k].bytes, cudaMemcpyDeviceToHost));
done:
    sp__free(dr);
    sp__free(ds);
    return sp__comm_fail(c, st);
}

sp_status_t sp__comm_nccl_order_after(sp_comm_t *c, void *stream)
{
    nccl_rank_t *n = c->impl;
    cudaError_t e = cudaEventRecord(n->after, (cudaStream_t)stream);
    if (e != cudaSuccess) return sp__comm_fail(c, cuda_fail("cudaEventRecord", e));
    n->has_after = 1;
    return SP_STATUS_SUCCESS;
}

/* Only flags (it may come from another thread while the owner is inside NCCL): the
 * owner's next or current call aborts the NCCL communicator, or its destroy does. */
static void nccl_abort(sp_comm_t *c, const char *why)
{
    nccl_rank_t *n = c->impl;
    if (n->group && !__atomic_load_n(&n->group->aborted, __ATOMIC_ACQUIRE)) {
        snprintf(n->group->why, sizeof n->group->why, "%s", why ? why : "(no reason given)");
        n->group->abort_rank = c->rank;
        __atomic_store_n(&n->group->aborted, 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&n->abort_requested, 1, __ATOMIC_RELEASE);
}

static void nccl_destroy(sp_comm_t *c)
{
    nccl_rank_t *n = c->impl;
    (void)cudaSetDevice(n->device);
    if (!n->dead && __atomic_load_n(&n->abort_requested, __ATOMIC_ACQUIRE))
        abort_and_drain(n);
    else if (!n->dead && n->owns_comm)
        (void)ncclCommDestroy(n->comm);
    drain(n); /* nothing of it left on the device before its buffers go */
    if (n->d_scratch) (void)cudaFree(n->d_scratch);
    if (n->after) (void)cudaEventDestroy(n->after);
    if (n->stream) (void)cudaStreamDestroy(n->stream);
    if (n->group && __atomic_sub_fetch(&n->group->refs, 1, __ATOMIC_ACQ_REL) == 0)
        sp__free(n->group);
    sp__free(n);
    sp__free(c);
}

static const sp_comm_ops_t nccl_ops = {nccl_allreduce, nccl_allgather, nccl_exchange,
                                       nccl_barrier,   nccl_abort,     nccl_destroy};

/* A communicator around an initialized ncclComm_t on device: own stream and event. */
static sp_status_t make_rank(ncclComm_t comm, int owns, int device, nccl_group_t *group,
                             sp_comm_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_comm_t *c = NULL;
    nccl_rank_t *n = NULL;
    cudaError_t e;
    int rank = 0, size = 0;
    ncclResult_t r;
    SP_CALLOC(c, 1);
    SP_CALLOC(n, 1);
    n->comm = comm;
    n->device = device;
    if ((e = cudaSetDevice(device)) != cudaSuccess) SP_TRY(cuda_fail("cudaSetDevice", e));
    if ((e = cudaStreamCreateWithFlags(&n->stream, cudaStreamNonBlocking)) != cudaSuccess)
        SP_TRY(cuda_fail("cudaStreamCreateWithFlags", e));
    if ((e = cudaEventCreateWithFlags(&n->after, cudaEventDisableTiming)) != cudaSuccess)
        SP_TRY(cuda_fail("cudaEventCreateWithFlags", e));
    if ((r = ncclCommUserRank(comm, &rank)) != ncclSuccess ||
        (r = ncclCommCount(comm, &size)) != ncclSuccess)
        SP_FAIL(SP_STATUS_DEVICE_ERROR, "sp_comm (NCCL): rank and size: %s",
                ncclGetErrorString(r));
    n->owns_comm = owns;
    n->group = group;
    if (group) __atomic_add_fetch(&group->refs, 1, __ATOMIC_ACQ_REL);
    c->ops = &nccl_ops;
    c->backend = SP_COMM_NCCL;
    c->rank = rank;
    c->size = size;
    c->impl = n;
    *out = c;
    return SP_STATUS_SUCCESS;
done:
    if (n && n->after) (void)cudaEventDestroy(n->after);
    if (n && n->stream) (void)cudaStreamDestroy(n->stream);
    sp__free(n);
    sp__free(c);
    return st;
}

sp_status_t sp_comm_create_nccl_all(int ndevices, const int *devices, sp_comm_t **comms)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    ncclComm_t *nc = NULL;
    nccl_group_t *g = NULL;
    int *dev = NULL, i, made = 0, count = 0;
    ncclResult_t r;
    SP_CHECK_ARG(comms != NULL, "sp_comm_create_nccl_all: comms is NULL");
    SP_CHECK_ARG(ndevices >= 1 && ndevices <= 4096,
                 "sp_comm_create_nccl_all: ndevices %d is not in 1..4096", ndevices);
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        SP_FAIL(SP_STATUS_NO_DEVICE, "sp_comm_create_nccl_all: no CUDA device");
    SP_ALLOC(dev, ndevices);
    for (i = 0; i < ndevices; i++) {
        dev[i] = devices ? devices[i] : i;
        SP_CHECK_ARG(dev[i] >= 0 && dev[i] < count,
                     "sp_comm_create_nccl_all: device %d of %d"
                     " present",
                     dev[i], count);
    }
    SP_CALLOC(nc, ndevices);
    SP_CALLOC(g, 1);
    if ((r = ncclCommInitAll(nc, ndevices, dev)) != ncclSuccess)
        SP_FAIL(SP_STATUS_DEVICE_ERROR,
                "sp_comm_create_nccl_all: ncclCommInitAll over %d devices:"
                " %s",
                ndevices, ncclGetErrorString(r));
    for (made = 0; made < ndevices; made++)
        SP_TRY(make_rank(nc[made], 1, dev[made], g, &comms[made]));
    g = NULL; /* owned by the ranks now */
done:
    if (st != SP_STATUS_SUCCESS && nc) {
        for (i = 0; i < made; i++)
            sp_comm_destroy(comms[i]);
        for (i = made; i < ndevices; i++)
            if (nc[i]) (void)ncclCommDestroy(nc[i]);
    }
    if (g && g->refs == 0) sp__free(g);
    sp__free(nc);
    sp__free(dev);
    return st;
}

sp_status_t sp_comm_nccl_unique_id(sp_comm_nccl_id_t *id)
{
    ncclUniqueId u;
    ncclResult_t r;
    _Static_assert(sizeof u <= sizeof id->bytes, "ncclUniqueId fits sp_comm_nccl_id_t");
    if (id == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_comm_nccl_unique_id: id is NULL");
    if ((r = ncclGetUniqueId(&u)) != ncclSuccess)
        return SP_ERROR(SP_STATUS_DEVICE_ERROR, "sp_comm_nccl_unique_id: ncclGetUniqueId: %s",
                        ncclGetErrorString(r));
    memset(id, 0, sizeof *id);
    memcpy(id->bytes, &u, sizeof u);
    return SP_STATUS_SUCCESS;
}

sp_status_t sp_comm_create_nccl_rank(const sp_comm_nccl_id_t *id, int nranks, int rank,
                                     int device, sp_comm_t **comm)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    ncclComm_t nc = NULL;
    ncclUniqueId u;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclResult_t r, state = ncclInProgress;
    cudaError_t e;
    double t0 = sp__now_ms();
    SP_CHECK_ARG(id != NULL && comm != NULL, "sp_comm_create_nccl_rank: id or comm is NULL");
    SP_CHECK_ARG(nranks >= 1 && rank >= 0 && rank < nranks,
                 "sp_comm_create_nccl_rank: rank %d of %d ranks", rank, nranks);
    if ((e = cudaSetDevice(device)) != cudaSuccess)
        SP_FAIL(SP_STATUS_NO_DEVICE, "sp_comm_create_nccl_rank: device %d: %s", device,
                cudaGetErrorString(e));
    memcpy(&u, id->bytes, sizeof u);
    config.blocking = 0; /* polled below, so a process that never joins times out */
    r = ncclCommInitRankConfig(&nc, nranks, u, rank, &config);
    if (r != ncclSuccess && r != ncclInProgress)
        SP_FAIL(SP_STATUS_DEVICE_ERROR,
                "sp_comm_create_nccl_rank: ncclCommInitRankConfig (rank %d"
                " of %d): %s",
                rank, nranks, ncclGetErrorString(r));
    while (state == ncclInProgress) {
        if ((r = ncclCommGetAsyncError(nc, &state)) != ncclSuccess) state = r;
        if (state == ncclInProgress && sp__now_ms() - t0 > 1e3 * NCCL_TIMEOUT_S) {
            (void)ncclCommAbort(nc);
            SP_FAIL(SP_STATUS_DEVICE_ERROR,
                    "sp_comm_create_nccl_rank: rank %d of %d: the other"
                    " ranks did not join within %g s",
                    rank, nranks, NCCL_TIMEOUT_S);
        }
        if (state == ncclInProgress) sched_yield();
    }
    if (state != ncclSuccess) {
        (void)ncclCommAbort(nc);
        SP_FAIL(SP_STATUS_DEVICE_ERROR, "sp_comm_create_nccl_rank: rank %d of %d: %s", rank,
                nranks, ncclGetErrorString(state));
    }
    st = make_rank(nc, 1, device, NULL, comm);
    if (st) (void)ncclCommDestroy(nc);
done:
    return st;
}

sp_status_t sp_comm_wrap_nccl(void *nccl_comm, int device, sp_comm_t **comm)
{
    if (nccl_comm == NULL || comm == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT,
                        "sp_comm_wrap_nccl: nccl_comm or comm is NULL");
    return make_rank((ncclComm_t)nccl_comm, 0, device, NULL, comm);
}

#else /* no NCCL */

static sp_status_t not_built(const char *what)
{
    return SP_ERROR(
        SP_STATUS_NOT_COMPILED,
        "%s: libsp was built without NCCL (SP_HAVE_NCCL: CUDA and nccl.h are needed)", what);
}

sp_status_t sp_comm_create_nccl_all(int ndevices, const int *devices, sp_comm_t **comms)
{
    (void)ndevices;
    (void)devices;
    (void)comms;
    return not_built("sp_comm_create_nccl_all");
}

sp_status_t sp_comm_nccl_unique_id(sp_comm_nccl_id_t *id)
{
    (void)id;
    return not_built("sp_comm_nccl_unique_id");
}

sp_status_t sp_comm_create_nccl_rank(const sp_comm_nccl_id_t *id, int nranks, int rank,
                                     int device, sp_comm_t **comm)
{
    (void)id;
    (void)nranks;
    (void)rank;
    (void)device;
    (void)comm;
    return not_built("sp_comm_create_nccl_rank");
}

sp_status_t sp_comm_wrap_nccl(void *nccl_comm, int device, sp_comm_t **comm)
{
    (void)nccl_comm;
    (void)device;
    (void)comm;
    return not_built("sp_comm_wrap_nccl");
}

/* Never reached: no communicator has the NCCL backend in this build. */
sp_status_t sp__comm_nccl_allreduce_host(sp_comm_t *c, void *h_buf, int64_t count,
                                         sp_comm_type_t type, sp_comm_op_t op)
{
    (void)c;
    (void)h_buf;
    (void)count;
    (void)type;
    (void)op;
    return not_built("sp_comm (NCCL)");
}

sp_status_t sp__comm_nccl_allgather_host(sp_comm_t *c, const void *h_send, void *h_recv,
                                         int64_t bytes)
{
    (void)c;
    (void)h_send;
    (void)h_recv;
    (void)bytes;
    return not_built("sp_comm (NCCL)");
}

sp_status_t sp__comm_nccl_exchange_host(sp_comm_t *c, int nsend, const sp_comm_msg_t *sends,
                                        int nrecv, const sp_comm_msg_t *recvs)
{
    (void)c;
    (void)nsend;
    (void)sends;
    (void)nrecv;
    (void)recvs;
    return not_built("sp_comm (NCCL)");
}

sp_status_t sp__comm_nccl_order_after(sp_comm_t *c, void *stream)
{
    (void)c;
    (void)stream;
    return not_built("sp_comm (NCCL)");
}
#endif
