/* sp_comm_t: the checks every backend shares, then the backend's operation. A rank whose
 * arguments are refused aborts the communicator (its peers would otherwise wait for it). */
#include <string.h>

#include "dist_internal.h"
#ifdef SP_HAVE_CUDA
#include "sp_api.h"
#endif

sp_status_t sp__comm_fail(sp_comm_t *c, sp_status_t st)
{
    char why[256];
    if (c == NULL || st == SP_STATUS_SUCCESS) return st;
    strncpy(why, sp_last_error(), sizeof why - 1);
    why[sizeof why - 1] = '\0';
    c->ops->abort(c, why);
    return st;
}

void sp_comm_destroy(sp_comm_t *comm)
{
    if (comm) comm->ops->destroy(comm);
}

int sp_comm_rank(const sp_comm_t *comm)
{
    return comm ? comm->rank : -1;
}
int sp_comm_size(const sp_comm_t *comm)
{
    return comm ? comm->size : 0;
}
sp_comm_backend_t sp_comm_backend(const sp_comm_t *comm)
{
    return comm ? comm->backend : SP_COMM_HOST;
}

void sp_comm_abort(sp_comm_t *comm, const char *why)
{
    if (comm) comm->ops->abort(comm, why);
}

sp_status_t sp_comm_allreduce(sp_comm_t *comm, void *buf, int64_t count, sp_comm_type_t type,
                              sp_comm_op_t op)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (comm == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_comm_allreduce: comm is NULL");
    SP_CHECK_ARG(count >= 0 && (buf != NULL || count == 0),
                 "sp_comm_allreduce: count %lld with buf %s", (long long)count,
                 buf ? "set" : "NULL");
    SP_CHECK_ARG(type == SP_COMM_F64 || type == SP_COMM_I64,
                 "sp_comm_allreduce: unknown type %d", (int)type);
    SP_CHECK_ARG(op == SP_COMM_SUM || op == SP_COMM_MAX, "sp_comm_allreduce: unknown op %d",
                 (int)op);
    st = comm->ops->allreduce(comm, buf, count, type, op);
done:
    return sp__comm_fail(comm, st);
}

sp_status_t sp_comm_allgather(sp_comm_t *comm, const void *send, void *recv, int64_t bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (comm == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_comm_allgather: comm is NULL");
    SP_CHECK_ARG(bytes >= 0 && ((send != NULL && recv != NULL) || bytes == 0),
                 "sp_comm_allgather: %lld bytes with send or recv NULL", (long long)bytes);
    st = comm->ops->allgather(comm, send, recv, bytes);
done:
    return sp__comm_fail(comm, st);
}

/* Each message names a rank of the communicator, a size >= 0 and a buffer when not empty. */
static sp_status_t check_msgs(const sp_comm_t *c, const char *what, int n,
                              const sp_comm_msg_t *m)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int k;
    SP_CHECK_ARG(n >= 0 && (m != NULL || n == 0), "sp_comm_exchange: %d %s with %s NULL", n,
                 what, what);
    for (k = 0; k < n; k++)
        SP_CHECK_ARG(m[k].peer >= 0 && m[k].peer < c->size && m[k].bytes >= 0 &&
                         (m[k].ptr != NULL || m[k].bytes == 0),
                     "sp_comm_exchange: %s[%d]: peer %d of %d ranks, %lld bytes, ptr %s", what,
                     k, m[k].peer, c->size, (long long)m[k].bytes, m[k].ptr ? "set" : "NULL");
done:
    return st;
}

sp_status_t sp_comm_exchange(sp_comm_t *comm, int nsend, const sp_comm_msg_t *sends, int nrecv,
                             const sp_comm_msg_t *recvs)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (comm == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_comm_exchange: comm is NULL");
    SP_TRY(check_msgs(comm, "sends", nsend, sends));
    SP_TRY(check_msgs(comm, "recvs", nrecv, recvs));
    st = comm->ops->exchange(comm, nsend, sends, nrecv, recvs);
done:
    return sp__comm_fail(comm, st);
}

sp_status_t sp_comm_barrier(sp_comm_t *comm)
{
    if (comm == NULL)
        return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_comm_barrier: comm is NULL");
    return sp__comm_fail(comm, comm->ops->barrier(comm));
}

sp_status_t sp__comm_allreduce_host(sp_comm_t *c, void *h_buf, int64_t count,
                                    sp_comm_type_t type, sp_comm_op_t op)
{
    if (c->backend == SP_COMM_HOST) return sp_comm_allreduce(c, h_buf, count, type, op);
    return sp__comm_nccl_allreduce_host(c, h_buf, count, type, op);
}

sp_status_t sp__comm_allgather_host(sp_comm_t *c, const void *h_send, void *h_recv,
                                    int64_t bytes)
{
    if (c->backend == SP_COMM_HOST) return sp_comm_allgather(c, h_send, h_recv, bytes);
    return sp__comm_nccl_allgather_host(c, h_send, h_recv, bytes);
}

sp_status_t sp__comm_exchange_host(sp_comm_t *c, int nsend, const sp_comm_msg_t *sends,
                                   int nrecv, const sp_comm_msg_t *recvs)
{
    if (c->backend == SP_COMM_HOST) return sp_comm_exchange(c, nsend, sends, nrecv, recvs);
    return sp__comm_nccl_exchange_host(c, nsend, sends, nrecv, recvs);
}

sp_status_t sp__comm_order_after(sp_comm_t *c, sp_context_t *ctx)
{
#ifdef SP_HAVE_CUDA
    if (c->backend == SP_COMM_NCCL && sp_context_kind(ctx) == SP_DEVICE_CUDA) {
        sp_gpu_env_t env;
        sp__cuda_env_keep_error(ctx, &env);
        return sp__comm_nccl_order_after(c, env.stream);
    }
#endif
    (void)c;
    (void)ctx;
    return SP_STATUS_SUCCESS;
}
