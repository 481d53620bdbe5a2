/* The distributed BFS on a rank's GPU (the device half of dist_bfs.c, whose level loop
 * calls it): the graph's rows and in-edges (global ids, 64-bit offsets) are moved to the
 * device by the first search and kept with the matrix, with the per-search arrays, the
 * frontier bitmaps and the queues. A top-down level: the frontier's degrees scanned, the
 * targets counted per owner (the own ones claimed), the counts exchanged, the pairs
 * scattered into per-destination queues and exchanged with one grouped NCCL send/recv
 * (sp__dist_alltoallv_move on device buffers), the received ones claimed. A bottom-up
 * level: the frontier bitmap all-gathered (ncclAllGather) and searched by every unvisited
 * owned vertex's in-edges. One read-back of two counters per level. */
#include <string.h>

#include "dist_internal.h"

static int route_own_knob;
void sp__dist_bfs_set_route_own(int on)
{
    route_own_knob = on != 0;
}
int sp__dist_bfs_route_own(void)
{
    return route_own_knob;
}

#ifdef SP_HAVE_CUDA
#include "dist/dist_bfs_kernels.h"
#include "sp_api.h"
#include "sp_cuda.h"

struct sp__dist_bfs_gpu {
    sp_gpu_dist_bfs_t b;
    int64_t words; /* 64-bit words of the largest part's frontier bitmap */
    unsigned long long *d_mine, *d_all, *d_scount, *d_cursor;
    int64_t *d_off; /* nloc + 1: the frontier's scanned degrees */
    void *d_scan;
    size_t scan_bytes;
    int32_t *d_send, *d_recv; /* (target, parent) pairs */
    int64_t send_cap, recv_cap;
    int64_t *h_scount, *h_rcount;
    unsigned long long *h_u64; /* nranks */
};

/* *p = bytes of the context's device memory (NULL for none). */
static sp_status_t dev_alloc(const sp_gpu_env_t *env, void *p, size_t bytes)
{
    *(void **)p = NULL;
    return bytes ? env->alloc(env->self, (void **)p, bytes) : SP_STATUS_SUCCESS;
}

static void dev_free(const sp_gpu_env_t *env, const void *p)
{
    if (p) env->free(env->self, (void *)(uintptr_t)p);
}

void sp__dist_bfs_gpu_free(sp_dist_matrix_t *A)
{
    struct sp__dist_bfs_gpu *g = A->bfs_gpu;
    sp_gpu_env_t env;
    if (g == NULL) return;
    sp__cuda_env(A->ctx, &env);
    (void)cudaStreamSynchronize((cudaStream_t)env.stream);
    dev_free(&env, g->b.d_row_begin);
    dev_free(&env, g->b.d_out_ptr);
    dev_free(&env, g->b.d_out_idx);
    dev_free(&env, g->b.d_in_ptr);
    dev_free(&env, g->b.d_in_idx);
    dev_free(&env, g->b.d_level);
    dev_free(&env, g->b.d_parent);
    dev_free(&env, g->b.d_visited);
    dev_free(&env, g->b.d_cur);
    dev_free(&env, g->b.d_next);
    dev_free(&env, g->b.d_counters);
    dev_free(&env, g->d_mine);
    dev_free(&env, g->d_all);
    dev_free(&env, g->d_scount);
    dev_free(&env, g->d_cursor);
    dev_free(&env, g->d_off);
    dev_free(&env, g->d_scan);
    dev_free(&env, g->d_send);
    dev_free(&env, g->d_recv);
    sp__free(g->h_scount);
    sp__free(g->h_rcount);
    sp__free(g->h_u64);
    sp__free(g);
    A->bfs_gpu = NULL;
}

/* n elements of esz bytes from host h to a new device array *d. */
static sp_status_t upload(const sp_gpu_env_t *env, void *d, const void *h, int64_t n,
                          size_t esz)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_TRY(dev_alloc(env, d, (size_t)n * esz));
    if (n > 0)
        SP_CUDA_TRY(cudaMemcpyAsync(*(void **)d, h, (size_t)n * esz, cudaMemcpyHostToDevice,
                                    (cudaStream_t)env->stream));
done:
    return st;
}

/* The graph moved to the device and every array a search needs (the first search). */
static sp_status_t make_state(sp_dist_matrix_t *A, const sp_gpu_env_t *env)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    struct sp__dist_bfs_gpu *g = NULL;
    sp_gpu_dist_bfs_t *b;
    int P = A->comm->size, p;
    int64_t n = A->nloc;
    SP_CALLOC(g, 1);
    A->bfs_gpu = g; /* freed by sp__dist_bfs_gpu_free from here on */
    b = &g->b;
    b->nranks = P;
    b->rank = A->comm->rank;
    b->nloc = n;
    b->rb = A->rb;
    for (p = 0; p < P; p++)
        if (A->row_begin[p + 1] - A->row_begin[p] > g->words * 64)
            g->words = (A->row_begin[p + 1] - A->row_begin[p] + 63) / 64;
    SP_TRY(upload(env, &b->d_row_begin, A->row_begin, P + 1, sizeof(int64_t)));
    SP_TRY(upload(env, &b->d_out_ptr, A->h_row_ptr, n + 1, sizeof(int64_t)));
    SP_TRY(upload(env, &b->d_out_idx, A->h_col, A->h_row_ptr[n], sizeof(int32_t)));
    SP_TRY(upload(env, &b->d_in_ptr, A->h_in_ptr, n + 1, sizeof(int64_t)));
    SP_TRY(upload(env, &b->d_in_idx, A->h_in, A->h_in_ptr[n], sizeof(int32_t)));
    SP_TRY(dev_alloc(env, &b->d_level, (size_t)n * sizeof(int32_t)));
    SP_TRY(dev_alloc(env, &b->d_parent, (size_t)n * sizeof(int32_t)));
    SP_TRY(dev_alloc(env, &b->d_visited, (size_t)(n + 63) / 64 * 8));
    SP_TRY(dev_alloc(env, &b->d_cur, (size_t)n * sizeof(int32_t)));
    SP_TRY(dev_alloc(env, &b->d_next, (size_t)n * sizeof(int32_t)));
    SP_TRY(dev_alloc(env, &b->d_counters, 2 * sizeof(unsigned long long)));
    SP_TRY(dev_alloc(env, &g->d_mine, (size_t)g->words * 8));
    SP_TRY(dev_alloc(env, &g->d_all, (size_t)g->words * 8 * (size_t)P));
    SP_TRY(dev_alloc(env, &g->d_scount, (size_t)P * 8));
    SP_TRY(dev_alloc(env, &g->d_cursor, (size_t)P * 8));
    SP_TRY(dev_alloc(env, &g->d_off, (size_t)(n + 1) * sizeof(int64_t)));
    SP_TRY(
        sp__gpu_exclusive_scan_i64(NULL, NULL, n + 1, NULL, NULL, &g->scan_bytes, env->stream));
    SP_TRY(dev_alloc(env, &g->d_scan, g->scan_bytes));
    SP_CALLOC(g->h_scount, P);
    SP_CALLOC(g->h_rcount, P);
    SP_CALLOC(g->h_u64, P);
    SP_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)env->stream)); /* the uploads' sources */
done:
    if (st != SP_STATUS_SUCCESS) sp__dist_bfs_gpu_free(A);
    return st;
}

/* *d (a pairs buffer of *cap pairs) holds at least need pairs. */
static sp_status_t reserve_pairs(const sp_gpu_env_t *env, int32_t **d, int64_t *cap,
                                 int64_t need)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (need <= *cap) return SP_STATUS_SUCCESS;
    dev_free(env, *d);
    *d = NULL;
    *cap = 0;
    need += need / 4; /* room for the next levels */
    SP_TRY(dev_alloc(env, d, (size_t)need * 2 * sizeof(int32_t)));
    *cap = need;
done:
    return st;
}

/* The counters of the level just made, its queue becoming the frontier. */
static sp_status_t finish_level(struct sp__dist_bfs_gpu *g, const sp_gpu_env_t *env,
                                int64_t *nnext, int64_t *next_edges)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    unsigned long long h[2];
    int32_t *t;
    SP_CUDA_TRY(cudaMemcpyAsync(h, g->b.d_counters, sizeof h, cudaMemcpyDeviceToHost,
                                (cudaStream_t)env->stream));
    SP_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)env->stream));
    *nnext = (int64_t)h[0];
    *next_edges = (int64_t)h[1];
    t = g->b.d_cur;
    g->b.d_cur = g->b.d_next;
    g->b.d_next = t;
done:
    return st;
}

sp_status_t sp__dist_bfs_gpu_begin(sp_dist_matrix_t *A, int64_t source, int64_t *nnext,
                                   int64_t *next_edges)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    int64_t s = source >= A->rb && source < A->rb + A->nloc ? source - A->rb : -1;
    sp__cuda_env(A->ctx, &env);
    if (A->bfs_gpu == NULL) SP_TRY(make_state(A, &env));
    A->bfs_gpu->b.route_own = sp__dist_bfs_route_own();
    SP_TRY(sp__gpu_dist_bfs_start(&env, &A->bfs_gpu->b, s));
    SP_TRY(finish_level(A->bfs_gpu, &env, nnext, next_edges));
done:
    return st;
}

/* Top-down: count, exchange the counts, scatter, exchange the pairs, claim them. After
 * each communication the environment is taken again (sp__cuda_env clears CUDA's last
 * error, which the launch checks read and NCCL's own calls may have left set). */
static sp_status_t step_push(sp_dist_matrix_t *A, sp_gpu_env_t *env, int64_t depth,
                             int64_t ncur, int64_t m)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    struct sp__dist_bfs_gpu *g = A->bfs_gpu;
    int P = A->comm->size, q;
    int64_t nsend = 0, nrecv = 0;
    size_t scan_bytes = g->scan_bytes;
    SP_TRY(sp__gpu_dist_bfs_degrees(env, &g->b, ncur, g->d_off));
    SP_TRY(sp__gpu_exclusive_scan_i64(g->d_off, g->d_off, ncur + 1, NULL, g->d_scan,
                                      &scan_bytes, env->stream));
    SP_TRY(sp__gpu_dist_bfs_push_count(env, &g->b, ncur, g->d_off, m, depth, g->d_scount));
    SP_CUDA_TRY(cudaMemcpyAsync(g->h_u64, g->d_scount, (size_t)P * 8, cudaMemcpyDeviceToHost,
                                (cudaStream_t)env->stream));
    SP_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)env->stream));
    for (q = 0; q < P; q++) {
        g->h_scount[q] = (int64_t)g->h_u64[q];
        g->h_u64[q] = (unsigned long long)nsend; /* the queues' first slots */
        nsend += g->h_scount[q];
    }
    SP_TRY(sp__dist_alltoallv_counts(A->comm, g->h_scount, g->h_rcount));
    sp__cuda_env(A->ctx, env);
    for (q = 0; q < P; q++)
        nrecv += g->h_rcount[q];
    SP_TRY(reserve_pairs(env, &g->d_send, &g->send_cap, nsend));
    SP_TRY(reserve_pairs(env, &g->d_recv, &g->recv_cap, nrecv));
    SP_CUDA_TRY(cudaMemcpyAsync(g->d_cursor, g->h_u64, (size_t)P * 8, cudaMemcpyHostToDevice,
                                (cudaStream_t)env->stream));
    SP_TRY(
        sp__gpu_dist_bfs_push_scatter(env, &g->b, ncur, g->d_off, m, g->d_cursor, g->d_send));
    SP_TRY(sp__comm_order_after(A->comm, A->ctx));
    SP_TRY(sp__dist_alltoallv_move(A->comm, g->d_send, g->h_scount, g->d_recv, g->h_rcount,
                                   2 * sizeof(int32_t), 0));
    sp__cuda_env(A->ctx, env);
    SP_TRY(sp__gpu_dist_bfs_push_receive(env, &g->b, g->d_recv, nrecv, depth));
done:
    return st;
}

/* Bottom-up: the frontier bitmaps all-gathered, the unvisited vertices search them. */
static sp_status_t step_pull(sp_dist_matrix_t *A, sp_gpu_env_t *env, int64_t depth,
                             int64_t ncur)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    struct sp__dist_bfs_gpu *g = A->bfs_gpu;
    SP_TRY(sp__gpu_dist_bfs_frontier_bitmap(env, &g->b, ncur, g->d_mine, g->words));
    SP_TRY(sp__comm_order_after(A->comm, A->ctx));
    SP_TRY(sp_comm_allgather(A->comm, g->d_mine, g->d_all, g->words * 8));
    sp__cuda_env(A->ctx, env);
    SP_TRY(sp__gpu_dist_bfs_pull(env, &g->b, g->d_all, g->words, depth));
done:
    return st;
}

sp_status_t sp__dist_bfs_gpu_step(sp_dist_matrix_t *A, int pull, int64_t depth, int64_t ncur,
                                  int64_t cur_edges, int64_t *nnext, int64_t *next_edges)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    sp__cuda_env(A->ctx, &env);
    SP_CUDA_TRY(cudaMemsetAsync(A->bfs_gpu->b.d_counters, 0, 2 * sizeof(unsigned long long),
                                (cudaStream_t)env.stream));
    SP_TRY(pull ? step_pull(A, &env, depth, ncur) : step_push(A, &env, depth, ncur, cur_edges));
    SP_TRY(finish_level(A->bfs_gpu, &env, nnext, next_edges));
done:
    return st;
}

sp_status_t sp__dist_bfs_gpu_end(sp_dist_matrix_t *A, int32_t *level, int32_t *parent)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    cudaStream_t s;
    size_t bytes = (size_t)A->nloc * sizeof(int32_t);
    sp__cuda_env(A->ctx, &env);
    s = (cudaStream_t)env.stream;
    if (bytes == 0) return SP_STATUS_SUCCESS;
    SP_CUDA_TRY(
        cudaMemcpyAsync(level, A->bfs_gpu->b.d_level, bytes, cudaMemcpyDeviceToHost, s));
    if (parent)
        SP_CUDA_TRY(
            cudaMemcpyAsync(parent, A->bfs_gpu->b.d_parent, bytes, cudaMemcpyDeviceToHost, s));
    SP_CUDA_TRY(cudaStreamSynchronize(s));
done:
    return st;
}

#else /* no CUDA: no CUDA context reaches these */

static sp_status_t not_built(void)
{
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "sp_dist_bfs: libsp was built without CUDA");
}

sp_status_t sp__dist_bfs_gpu_begin(sp_dist_matrix_t *A, int64_t source, int64_t *nnext,
                                   int64_t *next_edges)
{
    (void)A;
    (void)source;
    (void)nnext;
    (void)next_edges;
    return not_built();
}

sp_status_t sp__dist_bfs_gpu_step(sp_dist_matrix_t *A, int pull, int64_t depth, int64_t ncur,
                                  int64_t cur_edges, int64_t *nnext, int64_t *next_edges)
{
    (void)A;
    (void)pull;
    (void)depth;
    (void)ncur;
    (void)cur_edges;
    (void)nnext;
    (void)next_edges;
    return not_built();
}

sp_status_t sp__dist_bfs_gpu_end(sp_dist_matrix_t *A, int32_t *level, int32_t *parent)
{
    (void)A;
    (void)level;
    (void)parent;
    return not_built();
}

void sp__dist_bfs_gpu_free(sp_dist_matrix_t *A)
{
    (void)A;
}
#endif
