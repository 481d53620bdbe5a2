/* Internal contracts of the distributed layer (src/dist): the communicator's backend table
 * and the distributed matrix's fields. */
#ifndef SP_DIST_INTERNAL_H
#define SP_DIST_INTERNAL_H

#include "sp_base.h"

/* One backend of sp_comm_t. Each operation is collective and returns a status recorded
 * with sp__error; buffers are in the backend's memory (host or the rank's device). */
typedef struct sp_comm_ops {
    sp_status_t (*allreduce)(sp_comm_t *c, void *buf, int64_t count, sp_comm_type_t type,
                             sp_comm_op_t op);
    sp_status_t (*allgather)(sp_comm_t *c, const void *send, void *recv, int64_t bytes);
    sp_status_t (*exchange)(sp_comm_t *c, int nsend, const sp_comm_msg_t *sends, int nrecv,
                            const sp_comm_msg_t *recvs);
    sp_status_t (*barrier)(sp_comm_t *c);
    void (*abort)(sp_comm_t *c, const char *why);
    void (*destroy)(sp_comm_t *c);
} sp_comm_ops_t;

struct sp_comm {
    const sp_comm_ops_t *ops;
    sp_comm_backend_t backend;
    int rank, size;
    void *impl; /* the backend's state */
};

/* The host backend (src/dist/comm_host.c) and NCCL's (src/dist/comm_nccl.c). */
extern const sp_comm_ops_t sp__comm_host_ops;

/* NCCL's collectives on host buffers (staged through a device buffer) and its ordering
 * after a stream (src/dist/comm_nccl.c). */
sp_status_t sp__comm_nccl_allreduce_host(sp_comm_t *c, void *h_buf, int64_t count,
                                         sp_comm_type_t type, sp_comm_op_t op);
sp_status_t sp__comm_nccl_allgather_host(sp_comm_t *c, const void *h_send, void *h_recv,
                                         int64_t bytes);
sp_status_t sp__comm_nccl_exchange_host(sp_comm_t *c, int nsend, const sp_comm_msg_t *sends,
                                        int nrecv, const sp_comm_msg_t *recvs);
sp_status_t sp__comm_nccl_order_after(sp_comm_t *c, void *stream);

/* The collectives on host buffers whatever the backend (the setup steps and BFS): straight
 * on a host communicator, staged through the device on NCCL. Collective. */
sp_status_t sp__comm_allreduce_host(sp_comm_t *c, void *h_buf, int64_t count,
                                    sp_comm_type_t type, sp_comm_op_t op);
sp_status_t sp__comm_allgather_host(sp_comm_t *c, const void *h_send, void *h_recv,
                                    int64_t bytes);
sp_status_t sp__comm_exchange_host(sp_comm_t *c, int nsend, const sp_comm_msg_t *sends,
                                   int nrecv, const sp_comm_msg_t *recvs);
/* The next operation on c starts after the work queued on ctx's stream until now (NCCL);
 * nothing to do on a host communicator (host calls are already ordered). Not collective. */
sp_status_t sp__comm_order_after(sp_comm_t *c, sp_context_t *ctx);

/* Abort the communicator after this rank failed with status st (its message is kept, so
 * the caller still returns it): how a collective call never leaves its peers waiting. */
sp_status_t sp__comm_fail(sp_comm_t *c, sp_status_t st);

/* The halo plan of one rank: x entries it sends (local indices, grouped by destination)
 * and receives (into the ghost vector, grouped by source). */
typedef struct sp_dist_halo {
    int nsend_peers, nrecv_peers;
    int *send_peer, *recv_peer;   /* peers, increasing */
    int64_t *send_off, *recv_off; /* nsend_peers + 1, nrecv_peers + 1 */
    int32_t *send_idx;            /* send_off[nsend_peers] local indices */
    int64_t *ghost_col;           /* recv_off[nrecv_peers] global columns */
} sp_dist_halo_t;

/* One run of the ghost block: rows row0 .. row0 + nrows - 1 of this rank (those holding
 * entries in columns of other ranks, with the short gaps between them) times the ghost
 * columns, applied to that slice of y. A rank whose ghost rows are few and clustered (a
 * banded or mesh matrix: the rows next to its neighbours' parts) reads and writes only
 * those rows of y, not all of them; scattered ghost rows make one run of every row. */
enum { SP_DIST_GHOST_RUNS = 8 };
typedef struct sp_dist_ghost_run {
    int64_t row0, nrows;
    sp_matrix_t *m;
    sp_format_t format;
} sp_dist_ghost_run_t;

struct sp_dist_matrix {
    sp_comm_t *comm;
    sp_context_t *ctx;
    int64_t n, nnz;     /* whole matrix */
    int64_t *row_begin; /* nranks + 1 */
    int64_t rb, nloc;   /* this rank's first row and row count */
    int64_t local_nnz, ghost_nnz;
    sp_value_type_t value_type;
    sp_format_t format; /* of both blocks (AUTO resolved per block) */
    sp_format_t local_format, pack_format;
    sp_matrix_t *local;              /* NULL when empty */
    /* the ghost block in row runs: the ghost product touches only these rows of y */
    int nghost_runs;
    sp_dist_ghost_run_t ghost_runs[SP_DIST_GHOST_RUNS];
    sp_matrix_t *pack;               /* halo_send x nloc selection: packed = pack * x */
    sp_vector_t *jacobi;             /* nloc inverted diagonal values (first PCG-Jacobi) */
    sp_vector_t *sendbuf, *ghostbuf; /* packed x entries out, received ghosts in */
    /* sp_dist_solve's work vectors (nloc values): made by the first solve that needs them,
     * reused by later ones, freed with the matrix; cg_z only for PCG-Jacobi */
    sp_vector_t *cg_r, *cg_z, *cg_p, *cg_q;
    sp_vector_t *cg_slots; /* the solve's scalars (doubles) in the context's memory */
    /* the halo exchange's messages (pointing into sendbuf and ghostbuf), made by the first
     * SpMV on several ranks */
    sp_comm_msg_t *halo_sends, *halo_recvs;
    sp_dist_halo_t halo;
    /* host copy of the rows for BFS: row_ptr (nloc + 1), col (global) */
    int64_t *h_row_ptr;
    int32_t *h_col;
    double *h_diag; /* nloc diagonal values (0 where none), for Jacobi */
    /* in-edges of the owned vertices for bottom-up BFS (built on the first sp_dist_bfs) */
    int64_t *h_in_ptr;
    int32_t *h_in;
    /* the device BFS's state on a CUDA context (dist_bfs_cuda.c), made by the first
     * sp_dist_bfs there */
    struct sp__dist_bfs_gpu *bfs_gpu;
};

/* Personalized all-to-all of host memory: this rank sends scount[q] elements of esz bytes
 * to each rank q (send: contiguous by q) and gets *recv (allocated; sp__free it) holding
 * rcount[q] elements from each q, in rank order. Collective. */
sp_status_t sp__dist_alltoallv(sp_comm_t *c, const void *send, const int64_t *scount,
                               size_t esz, void **recv, int64_t *rcount);

/* Its two halves. Counts: rcount[q] = what rank q sends this rank (scount: what this rank
 * sends each rank), by one all-gather. Move: the messages, send contiguous by destination
 * (scount elements of esz bytes for each), recv by source (rcount each); host_memory: the
 * buffers are host memory (staged through the device on NCCL), else the communicator's
 * (the rank's device on NCCL, after sp__comm_order_after). Collective. */
sp_status_t sp__dist_alltoallv_counts(sp_comm_t *c, const int64_t *scount, int64_t *rcount);
sp_status_t sp__dist_alltoallv_move(sp_comm_t *c, const void *send, const int64_t *scount,
                                    void *recv, const int64_t *rcount, size_t esz,
                                    int host_memory);

/* The BFS of a rank whose context is a CUDA one (dist_bfs_cuda.c): its owned vertices'
 * frontier, visited bits, levels and parents on the device, the graph (rows and in-edges,
 * global ids) moved there by the first call, the queues exchanged on device buffers. The
 * level loop and its decisions stay in dist_bfs.c. Begin resets the outputs and claims the
 * source where owned; step runs one level (pull: bottom-up, else top-down) from the
 * frontier of ncur vertices with cur_edges out-edges, claiming level depth + 1; both
 * return the size of the frontier they made and its out-edges. End copies the levels and
 * parents (may be NULL) to the host. Collective where the level is; without CUDA they
 * return SP_STATUS_NOT_COMPILED (never reached: such builds have no CUDA contexts). */
sp_status_t sp__dist_bfs_gpu_begin(sp_dist_matrix_t *A, int64_t source, int64_t *nnext,
                                   int64_t *next_edges);
sp_status_t sp__dist_bfs_gpu_step(sp_dist_matrix_t *A, int pull, int64_t depth, int64_t ncur,
                                  int64_t cur_edges, int64_t *nnext, int64_t *next_edges);
sp_status_t sp__dist_bfs_gpu_end(sp_dist_matrix_t *A, int32_t *level, int32_t *parent);
/* Frees A's device BFS state (accepts none). Not collective. */
void sp__dist_bfs_gpu_free(sp_dist_matrix_t *A);

/* Test knob of sp_dist_bfs (process-wide, not for library callers; set it between
 * searches): 1 sends the targets a top-down level finds among the rank's own vertices
 * through the exchange too (as messages to itself), so that one rank runs the queue path
 * of several; 0 (default) visits them in place. */
void sp__dist_bfs_set_route_own(int on);

/* Test hook: ghost-free gaps of this many rows or more split the ghost block into runs
 * (0: the default, 65536), so small matrices take the several-run path. */
void sp__dist_set_ghost_gap(int64_t rows);
int sp__dist_bfs_route_own(void);

/* x and y are this rank's parts (vectors of nloc values of A's type), distinct; what names
 * the caller in the message. */
sp_status_t sp__dist_check_parts(const sp_dist_matrix_t *A, const char *what,
                                 const sp_vector_t *x, const sp_vector_t *y);

/* Owner of global row/column j: the r with row_begin[r] <= j < row_begin[r + 1] (the last
 * such r when parts are empty). */
int sp__dist_owner(const sp_dist_matrix_t *A, int64_t j);
/* The same over a split row_begin[0..nranks]. */
int sp__dist_owner_in(const int64_t *row_begin, int nranks, int64_t j);

#endif /* SP_DIST_INTERNAL_H */
