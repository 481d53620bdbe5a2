/* Distributed SpMV, y = alpha A x + beta y: pack the x entries the other ranks need
 * (packed = pack * x), start the local block's product, exchange the halo (on NCCL on
 * another stream, overlapping the product), then add the ghost block's product over the
 * received entries. */
#include "dist_internal.h"
#include "sp_vector.h" /* the view of y a ghost run writes */

sp_status_t sp__dist_check_parts(const sp_dist_matrix_t *A, const char *what,
                                 const sp_vector_t *x, const sp_vector_t *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(x != NULL && y != NULL && x != y, "%s: x or y is NULL, or x is y", what);
    SP_CHECK_ARG(A->value_type == SP_R_32F || A->value_type == SP_R_64F,
                 "%s: A is a pattern matrix (no values)", what);
    SP_CHECK_ARG(sp_vector_length(x) == A->nloc && sp_vector_length(y) == A->nloc,
                 "%s: rank %d owns %lld rows; x has %lld values and y %lld", what,
                 A->comm->rank, (long long)A->nloc, (long long)sp_vector_length(x),
                 (long long)sp_vector_length(y));
    SP_CHECK_ARG(sp_vector_value_type(x) == A->value_type &&
                     sp_vector_value_type(y) == A->value_type,
                 "%s: x and y must hold A's value type %d", what, (int)A->value_type);
done:
    return st;
}

/* The halo's messages, made once: the packed x entries to the ranks that need them,
 * ghostbuf[recv_off[i]..] from recv_peer[i]. */
static sp_status_t halo_messages(sp_dist_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const sp_dist_halo_t *h = &A->halo;
    sp_comm_msg_t *sm = NULL, *rm = NULL;
    size_t vs = sp_value_size(A->value_type);
    char *sbuf = sp_vector_data(A->sendbuf), *gbuf = sp_vector_data(A->ghostbuf);
    int i;
    if (A->halo_sends) return SP_STATUS_SUCCESS;
    SP_ALLOC(sm, h->nsend_peers + 1);
    SP_ALLOC(rm, h->nrecv_peers + 1);
    for (i = 0; i < h->nsend_peers; i++) {
        sm[i].peer = h->send_peer[i];
        sm[i].bytes = (h->send_off[i + 1] - h->send_off[i]) * (int64_t)vs;
        sm[i].ptr = sbuf + (size_t)h->send_off[i] * vs;
    }
    for (i = 0; i < h->nrecv_peers; i++) {
        rm[i].peer = h->recv_peer[i];
        rm[i].bytes = (h->recv_off[i + 1] - h->recv_off[i]) * (int64_t)vs;
        rm[i].ptr = gbuf + (size_t)h->recv_off[i] * vs;
    }
    A->halo_sends = sm;
    A->halo_recvs = rm;
    sm = rm = NULL;
done:
    sp__free(rm);
    sp__free(sm);
    return st;
}

static sp_status_t exchange_halo(sp_dist_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(halo_messages(A));
    SP_TRY(sp_comm_exchange(A->comm, A->halo.nsend_peers, A->halo_sends, A->halo.nrecv_peers,
                            A->halo_recvs));
done:
    return st;
}

sp_status_t sp_dist_spmv(sp_dist_matrix_t *A, double alpha, const sp_vector_t *x, double beta,
                         sp_vector_t *y)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int multi, k;
    if (A == NULL) return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_dist_spmv: A is NULL");
    multi = A->comm->size > 1;
    SP_TRY(sp__dist_check_parts(A, "sp_dist_spmv", x, y));
    if (A->pack)
        SP_TRY(sp_spmv_vec(A->ctx, A->pack_format, SP_SPMV_ALG_DEFAULT, 1.0, A->pack, x, 0.0,
                           A->sendbuf));
    /* on NCCL the halo moves on the communicator's stream while the context's stream runs
     * the local product: the exchange waits for the packing only (one rank: no halo) */
    if (multi) SP_TRY(sp__comm_order_after(A->comm, A->ctx));
    if (A->local)
        SP_TRY(sp_spmv_vec(A->ctx, A->local_format, SP_SPMV_ALG_DEFAULT, alpha, A->local, x,
                           beta, y));
    if (multi) SP_TRY(exchange_halo(A));
    for (k = 0; k < A->nghost_runs; k++) {
        const sp_dist_ghost_run_t *g = &A->ghost_runs[k];
        sp_vector_t part = *y; /* the run's rows of y: a view, no scratch of its own */
        part.n = g->nrows;
        part.data = (char *)y->data + (size_t)g->row0 * sp_value_size(A->value_type);
        part.scratch = NULL;
        SP_TRY(sp_spmv_vec(A->ctx, g->format, SP_SPMV_ALG_DEFAULT, alpha, g->m, A->ghostbuf,
                           1.0, &part));
    }
done:
    return sp__comm_fail(A ? A->comm : NULL, st);
}
