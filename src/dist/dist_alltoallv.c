/* The one personalized all-to-all of the distributed layer (halo plan, in-edge lists, BFS
 * queues): the counts go round by an all-gather, then one grouped exchange moves the
 * messages. Host memory (staged through the device on NCCL). */
#include "dist_internal.h"

sp_status_t sp__dist_alltoallv(sp_comm_t *c, const void *send, const int64_t *scount,
                               size_t esz, void **recv, int64_t *rcount)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int P = c->size, me = c->rank, q, ns = 0, nr = 0;
    int64_t *all = NULL, soff = 0, roff = 0, total = 0;
    sp_comm_msg_t *sm = NULL, *rm = NULL;
    unsigned char *out = NULL;
    SP_ALLOC(all, (size_t)P * (size_t)P);
    SP_ALLOC(sm, P);
    SP_ALLOC(rm, P);
    SP_TRY(sp__comm_allgather_host(c, scount, all, (int64_t)P * 8));
    for (q = 0; q < P; q++)
        total += rcount[q] = all[(size_t)q * (size_t)P + (size_t)me];
    SP_ALLOC(out, (size_t)total * esz);
    for (q = 0; q < P; q++) {
        if (scount[q] > 0) {
            sm[ns].peer = q;
            sm[ns].bytes = scount[q] * (int64_t)esz;
            sm[ns++].ptr = (unsigned char *)(uintptr_t)send + (size_t)soff * esz;
        }
        if (rcount[q] > 0) {
            rm[nr].peer = q;
            rm[nr].bytes = rcount[q] * (int64_t)esz;
            rm[nr++].ptr = out + (size_t)roff * esz;
        }
        soff += scount[q];
        roff += rcount[q];
    }
    SP_TRY(sp__comm_exchange_host(c, ns, sm, nr, rm));
    *recv = out;
    out = NULL;
done:
    sp__free(out);
    sp__free(rm);
    sp__free(sm);
    sp__free(all);
    return sp__comm_fail(c, st);
}
