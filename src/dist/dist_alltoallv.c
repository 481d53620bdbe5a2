/* The one personalized all-to-all of the distributed layer (halo plan, in-edge lists, BFS
 * queues): the counts go round by an all-gather, then one grouped exchange moves the
 * messages. sp__dist_alltoallv works on host memory (staged through the device on NCCL);
 * its two halves, the counts and the move, serve the device BFS's queues as well, whose
 * buffers are in the communicator's memory. */
#include "dist_internal.h"

sp_status_t sp__dist_alltoallv_counts(sp_comm_t *c, const int64_t *scount, int64_t *rcount)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int P = c->size, me = c->rank, q;
    int64_t *all = NULL;
    SP_ALLOC(all, (size_t)P * (size_t)P);
    SP_TRY(sp__comm_allgather_host(c, scount, all, (int64_t)P * 8));
    for (q = 0; q < P; q++)
        rcount[q] = all[(size_t)q * (size_t)P + (size_t)me];
done:
    sp__free(all);
    return sp__comm_fail(c, st);
}

sp_status_t sp__dist_alltoallv_move(sp_comm_t *c, const void *send, const int64_t *scount,
                                    void *recv, const int64_t *rcount, size_t esz,
                                    int host_memory)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int P = c->size, q, ns = 0, nr = 0;
    int64_t soff = 0, roff = 0;
    sp_comm_msg_t *sm = NULL, *rm = NULL;
    SP_ALLOC(sm, P);
    SP_ALLOC(rm, P);
    for (q = 0; q < P; q++) {
        if (scount[q] > 0) {
            sm[ns].peer = q;
            sm[ns].bytes = scount[q] * (int64_t)esz;
            sm[ns++].ptr = (unsigned char *)(uintptr_t)send + (size_t)soff * esz;
        }
        if (rcount[q] > 0) {
            rm[nr].peer = q;
            rm[nr].bytes = rcount[q] * (int64_t)esz;
            rm[nr++].ptr = (unsigned char *)recv + (size_t)roff * esz;
        }
        soff += scount[q];
        roff += rcount[q];
    }
    SP_TRY(host_memory ? sp__comm_exchange_host(c, ns, sm, nr, rm)
                       : sp_comm_exchange(c, ns, sm, nr, rm));
done:
    sp__free(rm);
    sp__free(sm);
    return sp__comm_fail(c, st);
}

sp_status_t sp__dist_alltoallv(sp_comm_t *c, const void *send, const int64_t *scount,
                               size_t esz, void **recv, int64_t *rcount)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int P = c->size, q;
    int64_t total = 0;
    unsigned char *out = NULL;
    SP_TRY(sp__dist_alltoallv_counts(c, scount, rcount));
    for (q = 0; q < P; q++)
        total += rcount[q];
    SP_ALLOC(out, (size_t)total * esz);
    SP_TRY(sp__dist_alltoallv_move(c, send, scount, out, rcount, esz, 1));
    *recv = out;
    out = NULL;
done:
    sp__free(out);
    return sp__comm_fail(c, st);
}
