/* The NCCL communicator. This build has no NCCL backend yet: every NCCL creator returns
 * SP_STATUS_NOT_COMPILED naming what is missing. */
#include "dist_internal.h"

static sp_status_t not_built(const char *what)
{
    return SP_ERROR(SP_STATUS_NOT_COMPILED,
                    "%s: libsp was built without its NCCL backend (SP_HAVE_NCCL)", what);
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
