/*
 * libsp distributed layer: one matrix or graph spread over P ranks (threads of one process
 * on a host-simulated communicator, or GPUs through NCCL), with SpMV, CG and BFS on it.
 * Included by sp.h; the conventions at the top of sp.h hold here too.
 *
 * Model: every rank owns one sp_comm_t and one sp_context_t and is driven by its own thread
 * (or process). The calls marked "collective" must be made by every rank of the
 * communicator, in the same order, with the same shared arguments; a rank that fails in a
 * collective call aborts the communicator first, so the other ranks get an error status
 * instead of waiting for it. A communication failure (a peer that aborted, a timeout, an
 * NCCL error) is SP_STATUS_DEVICE_ERROR with the reason in the message ("sp_comm: rank 2
 * aborted: ..."); after it the communicator only accepts sp_comm_destroy.
 * NCCL runs on shared machines should set NCCL_NVLS_ENABLE=0 (NVLink multicast can take
 * the machine's GPUs out of service); scripts/device-multi.sh does.
 */
#ifndef SP_DIST_H
#define SP_DIST_H

#include "sp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Communicators.
 * ---------------------------------------------------------------------------------- */
typedef struct sp_comm sp_comm_t;

typedef enum sp_comm_backend {
    SP_COMM_HOST = 0, /* P ranks as threads of one process, exchanging through memory */
    SP_COMM_NCCL = 1  /* NCCL: one rank per GPU; SP_STATUS_NOT_COMPILED without NCCL */
} sp_comm_backend_t;

typedef enum sp_comm_type {
    SP_COMM_F64 = 0, /* double */
    SP_COMM_I64 = 1  /* int64_t */
} sp_comm_type_t;

typedef enum sp_comm_op { SP_COMM_SUM = 0, SP_COMM_MAX = 1 } sp_comm_op_t;

/* Zero-initialised (or NULL) means the defaults. */
typedef struct sp_comm_host_options {
    double timeout_s; /* a blocking wait longer than this fails (and aborts the group);
                         0: 300 s */
} sp_comm_host_options_t;

/* nranks host-simulated communicators sharing one group: comms[r] is rank r's, to be used
 * by one thread at a time (normally rank r's own thread). Each is destroyed with
 * sp_comm_destroy; the group's memory goes with the last one. nranks in 1..4096. */
SP_API sp_status_t sp_comm_create_host(int nranks, const sp_comm_host_options_t *options,
                                       sp_comm_t **comms);

/* NCCL, one process driving ndevices GPUs (ncclCommInitAll): comms[i] is the rank i of
 * devices[i] (NULL: devices 0..ndevices-1). Without NCCL: SP_STATUS_NOT_COMPILED. */
SP_API sp_status_t sp_comm_create_nccl_all(int ndevices, const int *devices, sp_comm_t **comms);

/* The 128 bytes of an ncclUniqueId, made by one process and handed to the others by any
 * means (MPI, a file, a socket). */
typedef struct sp_comm_nccl_id {
    unsigned char bytes[128];
} sp_comm_nccl_id_t;

/* A new unique id (ncclGetUniqueId). Without NCCL: SP_STATUS_NOT_COMPILED. */
SP_API sp_status_t sp_comm_nccl_unique_id(sp_comm_nccl_id_t *id);
/* This process's rank of nranks on GPU device, joining the others that use id
 * (ncclCommInitRank). Collective over the processes. Without NCCL: SP_STATUS_NOT_COMPILED. */
SP_API sp_status_t sp_comm_create_nccl_rank(const sp_comm_nccl_id_t *id, int nranks, int rank,
                                            int device, sp_comm_t **comm);
/* Wrap an ncclComm_t the caller made (nccl_comm) on GPU device; sp_comm_destroy leaves it
 * to the caller, unless the communicator failed or was aborted: then libsp has called
 * ncclCommAbort on it and the caller must not destroy it. Without NCCL:
 * SP_STATUS_NOT_COMPILED. */
SP_API sp_status_t sp_comm_wrap_nccl(void *nccl_comm, int device, sp_comm_t **comm);

/* Accepts NULL. Not collective; a destroyed rank counts as aborted for its peers. */
SP_API void sp_comm_destroy(sp_comm_t *comm);
/* Rank, size and backend (-1, 0 and SP_COMM_HOST for NULL). */
SP_API int sp_comm_rank(const sp_comm_t *comm);
SP_API int sp_comm_size(const sp_comm_t *comm);
SP_API sp_comm_backend_t sp_comm_backend(const sp_comm_t *comm);

/* Mark the communicator failed (why: a short reason, may be NULL): every rank's current or
 * next blocking call returns SP_STATUS_DEVICE_ERROR naming this rank and why. Never
 * blocks; safe from any thread. */
SP_API void sp_comm_abort(sp_comm_t *comm, const char *why);

/* The operations below take buffers in the communicator's memory: host memory on a host
 * communicator, device memory of the rank's GPU on NCCL (queued on the communicator's own
 * stream, after the work the rank's context had queued when the distributed layer last
 * ordered them; the call returns once the operation is done, polling NCCL's asynchronous
 * errors, aborts and a 300 s timeout). All are collective. */

/* buf[0..count) = op over the ranks of buf[0..count), in place. Sums are added in rank
 * order 0, 1, ..., P-1 on the host backend, so every rank gets the same bits and a rerun
 * the same result. */
SP_API sp_status_t sp_comm_allreduce(sp_comm_t *comm, void *buf, int64_t count,
                                     sp_comm_type_t type, sp_comm_op_t op);
/* recv[r * bytes .. (r + 1) * bytes) = rank r's send[0..bytes), for every r. */
SP_API sp_status_t sp_comm_allgather(sp_comm_t *comm, const void *send, void *recv,
                                     int64_t bytes);

/* One message of a grouped exchange: bytes at ptr to or from rank peer. */
typedef struct sp_comm_msg {
    int peer;
    int64_t bytes;
    void *ptr; /* send: read only */
} sp_comm_msg_t;

/* All the sends and receives of one step, as one group (ncclGroupStart/End): the k-th
 * message this rank sends to q is the k-th q receives from this rank, of the same size
 * (a size mismatch fails on both sides, naming the ranks and sizes). A message to
 * oneself is a copy. */
SP_API sp_status_t sp_comm_exchange(sp_comm_t *comm, int nsend, const sp_comm_msg_t *sends,
                                    int nrecv, const sp_comm_msg_t *recvs);
SP_API sp_status_t sp_comm_barrier(sp_comm_t *comm);

/* ------------------------------------------------------------------------------------
 * Distributed matrices: square, rows split into P contiguous parts, x and y split like
 * the rows. Each rank keeps its rows as a local block (its own columns, renumbered from
 * 0) and a ghost block (the columns other ranks own, compressed to the halo: the list of
 * x entries it receives, ordered by owner then column), both ordinary matrices on the
 * rank's context; the halo plan (which x entries go from which rank to which) is built
 * once, at creation.
 * ---------------------------------------------------------------------------------- */
typedef struct sp_dist_matrix sp_dist_matrix_t;

/* The row split balanced by entries: part r gets rows [row_begin[r], row_begin[r + 1])
 * (row_begin: nranks + 1 entries), the first row of each part where the running entry
 * count reaches r * nnz / nranks, so parts hold about nnz / P entries each (a part may be
 * empty). Not collective. */
SP_API sp_status_t sp_dist_partition(const sp_coo_t *coo, int nranks, int64_t *row_begin);

/* What sp_dist_partition_file reads: a Matrix Market file (mtx) or an edge list
 * (edgelist_options, when edgelist is 1), with the options its per-part reader will get
 * (NULL: defaults); nbuckets (0: 64 P) row buckets of 2^k rows each. */
typedef struct sp_dist_file_options {
    int edgelist;
    const sp_mtx_options_t *mtx;
    const sp_edgelist_options_t *edgelist_options;
    int64_t nbuckets;
} sp_dist_file_options_t;

/* Collective. The row split balanced by entries of the matrix in a file, without the file's
 * entries in one place: each rank parses 1/P of the file (its share of the reader's chunks,
 * cut at line breaks) and counts the entries per bucket of 2^k rows (k the least with
 * every row in nbuckets buckets; of symmetric files and undirected graphs the mirrors too,
 * in the rows sp_mtx_read_rows / sp_edgelist_read_rows keep them), one all-reduce adds the
 * counts, and every rank computes the same row_begin[0..P] as sp_dist_partition does from
 * the whole matrix, with bucket boundaries for rows: a part is off its share nnz / P by
 * at most the entries of one bucket, and with one row per bucket (nrows <= nbuckets) the
 * split is sp_dist_partition's. row_begin[P] is the matrix's rows (an edge list's vertex
 * count, as its reader gives it). Duplicates are counted as lines (merge_duplicates merges
 * after). Memory per rank: the buckets plus the reader's chunks. Gzip streams, pipes,
 * array files and METIS graphs are counted by rank 0 alone. A failure on any rank (a bad
 * line: its message names path:line, the file read again from its start up to the error on
 * the failing rank) is returned by every rank with that rank's message; the communicator
 * stays usable. */
SP_API sp_status_t sp_dist_partition_file(sp_comm_t *comm, const char *path,
                                          const sp_dist_file_options_t *options,
                                          int64_t *row_begin);

typedef struct sp_dist_options {
    sp_format_t format;         /* SpMV format of both blocks; 0 (COO) or AUTO: AUTO */
    sp_matrix_options_t matrix; /* for the blocks (duplicates: how the whole merges) */
} sp_dist_options_t;

/* Collective. Every rank passes the same whole host COO (square; read-only, may be freed
 * afterwards) and takes its part of sp_dist_partition's split. options may be NULL. */
SP_API sp_status_t sp_dist_matrix_create(sp_comm_t *comm, sp_context_t *ctx,
                                         const sp_coo_t *coo, const sp_dist_options_t *options,
                                         sp_dist_matrix_t **A);
/* Collective. Each rank passes only its rows: rows (a host COO of nrows = its row count,
 * row indices 0-based within the part, ncols = the global size, column indices global),
 * which start at global row row_begin; the parts must follow each other in rank order and
 * cover 0..ncols-1 (checked on every rank). */
SP_API sp_status_t sp_dist_matrix_create_local(sp_comm_t *comm, sp_context_t *ctx,
                                               const sp_coo_t *rows, int64_t row_begin,
                                               const sp_dist_options_t *options,
                                               sp_dist_matrix_t **A);
/* Collective. The graph of sp_gen_kronecker(scale, edgefactor, seed, value_type) (undirected:
 * then sp_coo_symmetrize(coo, 1)) made without ever holding it in one place: each rank
 * draws an equal slice of the edges and routes them to the owners of their rows; the rows
 * are split balanced by entries to within 1/64 of a part. The same matrix as the
 * single-process generator (entries and values, duplicates merged the same way); every
 * rank computes the 2^scale relabelling permutation. */
SP_API sp_status_t sp_dist_gen_kronecker(sp_comm_t *comm, sp_context_t *ctx, int scale,
                                         int edgefactor, uint64_t seed,
                                         sp_value_type_t value_type, int undirected,
                                         const sp_dist_options_t *options,
                                         sp_dist_matrix_t **G);
/* Accepts NULL. Not collective. */
SP_API void sp_dist_matrix_destroy(sp_dist_matrix_t *A);

typedef struct sp_dist_info {
    int rank, nranks;
    int64_t nrows, nnz;         /* the whole matrix (after merging) */
    int64_t row_begin, row_end; /* this rank's rows */
    int64_t local_nnz, ghost_nnz;
    int64_t halo_recv, halo_send; /* x entries received from / sent to other ranks per SpMV */
    int recv_peers, send_peers;   /* ranks it receives from / sends to */
    sp_value_type_t value_type;
} sp_dist_info_t;
SP_API sp_status_t sp_dist_matrix_info(const sp_dist_matrix_t *A, sp_dist_info_t *info);

/* Collective. y = alpha * A * x + beta * y on distributed vectors: x and y are this rank's
 * parts (vectors on the rank's context of row_end - row_begin values of A's type,
 * distinct). The halo is packed and exchanged, the local block multiplied, then the ghost
 * block added. */
SP_API sp_status_t sp_dist_spmv(sp_dist_matrix_t *A, double alpha, const sp_vector_t *x,
                                double beta, sp_vector_t *y);

/* Collective. Solve A x = b with SP_SOLVER_CG or SP_SOLVER_PCG_JACOBI (others:
 * SP_STATUS_NOT_SUPPORTED) on distributed vectors (as sp_dist_spmv's), with the
 * single-context solver's options, stopping rule and result (identical on every rank).
 * Per iteration one all-reduce for p.Ap and one fused all-reduce for r.z and r.r. The work
 * vectors (three of the rank's rows, four for PCG-Jacobi, and its inverted diagonal) are
 * made by the first solve that needs them and kept with A until sp_dist_matrix_destroy:
 * on a host communicator a repeated solve allocates no host memory. */
SP_API sp_status_t sp_dist_solve(sp_dist_matrix_t *A, sp_solver_type_t type,
                                 const sp_solver_options_t *options, const sp_vector_t *b,
                                 sp_vector_t *x, sp_solver_result_t *result);

/* Collective. Breadth-first search from global vertex source on the graph A (entry (u, v)
 * is the edge u -> v), direction-optimizing on global counts, on the ranks' contexts: host
 * arrays on host contexts, the rank's GPU on CUDA ones (frontier, visited bits, levels and
 * parents on the device, the queues and bitmaps exchanged on device buffers through NCCL;
 * the graph's rows and in-edges are moved there by the first call): top-down levels send
 * discovered vertices to their owners (a grouped exchange of per-destination queues),
 * bottom-up levels all-gather the frontier bitmap, and the
 * direction (Beamer's rule, options->alpha and beta, 0: 15 and 18; options->variant PUSH
 * or PULL forces one) is decided from one small all-reduce per level. level and parent
 * (may be NULL) get this rank's row_end - row_begin vertices (host memory, as in sp_bfs:
 * -1 unreachable, parent[source] = source). stats (may be NULL) gets the global counts.
 * The in-edge lists are built on the first call and kept for later sources. */
SP_API sp_status_t sp_dist_bfs(sp_dist_matrix_t *A, int64_t source,
                               const sp_bfs_options_t *options, int32_t *level, int32_t *parent,
                               sp_bfs_stats_t *stats);

/* Collective. whole[0..nrows) = every rank's part (part: row_end - row_begin int32 values
 * of this rank, host memory), on every rank: to gather sp_dist_bfs's levels and parents. */
SP_API sp_status_t sp_dist_gather_i32(sp_dist_matrix_t *A, const int32_t *part, int32_t *whole);

#ifdef __cplusplus
}
#endif

#endif /* SP_DIST_H */
