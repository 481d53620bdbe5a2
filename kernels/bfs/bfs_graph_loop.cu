/* The graph level loop: a whole BFS as one CUDA graph launch, with no host round trip
 * between levels. The graph is a device-side while node (CUDA 12.4+ conditional nodes)
 * whose body runs two levels, one per parity of the level number, so that every pointer a
 * level needs (queue and next queue, frontier and next bitmap) is fixed in the node's
 * parameters. A level is three nodes (two without bitmaps):
 *   memset                clears the next-frontier bitmap (modes that keep bitmaps);
 *   expand  (grid)        the push step over the queue or the pull step over the bitmap
 *                         (the same device code as the host loop's frontier and pull
 *                         kernels, bfs_level_common.cuh and bfs_pull.cuh);
 *   hubs    (grid)        the deferred pieces of high-degree vertices, push or pull; then
 *                         the block that finishes last (a ticket taken after its tallies)
 *                         decides the next level: it ends the loop when the level found
 *                         nothing (cudaGraphSetConditional), else picks the direction with
 *                         Beamer's rule (bfs_direction_rule.h, the host loop's rule),
 *                         records the level's size, direction and start time, and zeroes
 *                         the counters. Level 0 is decided by the kernel that starts a
 *                         search. (A decide node of its own cost ~3 us a level on the H200.)
 * In the direction-optimized mode a push also sets the next bitmap, which a pull reads,
 * and a push after a pull walks the frontier bitmap instead of a queue, so a change of
 * direction needs no conversion pass. Once a decision has ended the loop, the nodes left
 * in the body return at once. Nothing waits on another block, so the loop cannot
 * deadlock; it ends because every level claims at least one new vertex or is the last.
 * The host loop's level kernels, counters and scratch (sp_gpu_bfs_work_t) are shared with
 * it; its own state (below) and the per-level records sit in one small device block. */
#include "bfs/bfs_direction_rule.h"
#include "bfs_pull.cuh"

using namespace bfs;

namespace {

/* The search's state between the nodes, in device memory. */
struct graph_state {
    int32_t *level, *parent; /* this search's outputs (set per search: not in the nodes) */
    int64_t m_u;             /* out-edges of the vertices not reached yet */
    int64_t prev_count;      /* size of the level expanded before */
    int64_t levels, vertices, edges, switches;
    int32_t cur;   /* the level being expanded (-1 before the first decide) */
    int32_t count; /* its size */
    int32_t dir;   /* its direction (SP_GPU_BFS_DIR_*) */
    int32_t from_bitmap; /* a push whose frontier is only in the bitmap (after a pull) */
    int32_t hub_min;
    int32_t done;
    uint32_t blocks_done; /* hubs blocks finished this level: the last one decides */
};

/* What decide needs besides the state: constants of the graph and the records. */
struct decide_args {
    int64_t n, nnz, max_pieces, warps, capacity;
    double alpha, beta, pull_vertex_weight;
    int32_t mode;
    int64_t *sizes;              /* capacity entries */
    int32_t *dirs;               /* capacity entries */
    unsigned long long *stamps;  /* capacity + 1 entries (ns) */
    cudaGraphConditionalHandle handle;
};

__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Decide level cur + 1 from the counters of level cur (one thread): end the loop when it
 * is empty (in_graph: through the while node's handle), else record it, pick its
 * direction and hub threshold and zero the counters. */
__device__ void decide(graph_state *st, sp_gpu_bfs_counters_t *ctr, const decide_args &d,
                       bool in_graph)
{
    int32_t L = st->cur + 1;
    int64_t count = __ldcg(&ctr->next_vertices);
    int64_t m_f = (int64_t)__ldcg(&ctr->next_edges);
    if (d.stamps && L <= d.capacity) d.stamps[L] = global_ns();
    if (L == 0) { /* the source, counted by sp__gpu_bfs_start */
        st->m_u = d.nnz - m_f;
        st->levels = st->vertices = 1;
        st->edges = m_f;
        if (d.sizes && d.capacity > 0) d.sizes[0] = 1;
    } else {
        st->m_u -= m_f;
        if (count == 0) {
            st->done = 1;
            if (in_graph) cudaGraphSetConditional(d.handle, 0);
            return;
        }
        if (d.sizes && st->levels < d.capacity) d.sizes[st->levels] = count;
        st->levels++;
        st->vertices += count;
        st->edges += m_f;
    }
    int32_t dir = d.mode == SP_GPU_BFS_GRAPH_DIROPT
                      ? sp_bfs_rule_next(st->dir == SP_GPU_BFS_DIR_PULL, m_f, st->m_u,
                                         d.n - st->vertices, count, st->prev_count, d.n,
                                         d.alpha, d.beta, d.pull_vertex_weight)
                      : (d.mode == SP_GPU_BFS_GRAPH_PULL ? SP_GPU_BFS_DIR_PULL
                                                         : SP_GPU_BFS_DIR_PUSH);
    if (L > 0 && dir != st->dir) st->switches++;
    if (d.dirs && L < d.capacity) d.dirs[L] = dir;
    st->hub_min = hub_min_for(count, d.nnz, d.max_pieces, d.warps);
    st->from_bitmap = st->dir == SP_GPU_BFS_DIR_PULL && L > 0;
    st->dir = dir;
    st->prev_count = count;
    st->count = (int32_t)count;
    st->cur = L;
    ctr->next_edges = 0;
    ctr->next_vertices = 0;
    ctr->queue_tail = 0;
    ctr->hub_pieces = 0;
    ctr->convert_tail = 0;
}

/* A search's state, and the decision of level 0 (after sp__gpu_bfs_start). */
__global__ void init_kernel(graph_state *st, int32_t *level, int32_t *parent, int32_t dir0,
                            sp_gpu_bfs_counters_t *ctr, const decide_args *d)
{
    st->level = level;
    st->parent = parent;
    st->m_u = st->prev_count = 0;
    st->levels = st->vertices = st->edges = st->switches = 0;
    st->cur = -1;
    st->count = 0;
    st->dir = dir0;
    st->from_bitmap = 0;
    st->hub_min = P::hub_degree;
    st->done = 0;
    st->blocks_done = 0;
    decide(st, ctr, *d, false);
}

/* a with this level's number and the search's outputs. */
template <typename Off>
__device__ __forceinline__ level_args<Off> for_level(level_args<Off> a, const graph_state *st)
{
    a.cur = st->cur;
    a.level = st->level;
    a.parent = st->parent;
    a.hub_min = st->hub_min;
    return a;
}

/* Bounded to blocks_per_sm blocks an SM (32 registers, a few spilled): the
 * direction-optimized kernel holds the push and the pull bodies and needs 40 unbounded,
 * which leaves 6 blocks an SM; bounded, Kronecker 22 ran 154.7 against 151.9 GTEPS (H200,
 * 32 sources, same run). */
template <int MODE, typename Off>
__global__ void __launch_bounds__(P::block_threads, P::blocks_per_sm)
expand_kernel(level_args<Off> a0, const graph_state *st)
{
    if (st->done) return;
    level_args<Off> a = for_level(a0, st);
    if (MODE == SP_GPU_BFS_GRAPH_PUSH)
        frontier_body<EMIT_QUEUE>(a, st->count);
    else if (MODE == SP_GPU_BFS_GRAPH_PULL || st->dir == SP_GPU_BFS_DIR_PULL)
        pull_body(a);
    else if (st->from_bitmap)
        bitmap_push_body<EMIT_QUEUE_BITMAP>(a);
    else
        frontier_body<EMIT_QUEUE_BITMAP>(a, st->count);
}

/* The level's hub pieces, then the decision of the next level by the block that finishes
 * last (its ticket sees every other block's tallies: each block adds them, fences, then
 * takes its ticket; no block waits for another). */
template <int MODE, typename Off>
__global__ void __launch_bounds__(P::block_threads) hubs_kernel(level_args<Off> a0,
                                                                graph_state *st, decide_args d)
{
    __shared__ bool last;
    if (st->done) return;
    level_args<Off> a = for_level(a0, st);
    if (MODE == SP_GPU_BFS_GRAPH_PUSH)
        hub_push_body<EMIT_QUEUE>(a);
    else if (MODE == SP_GPU_BFS_GRAPH_PULL || st->dir == SP_GPU_BFS_DIR_PULL)
        hub_pull_body(a);
    else
        hub_push_body<EMIT_QUEUE_BITMAP>(a);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(&st->blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        st->blocks_done = 0;
        decide(st, a.ctr, d, true);
    }
}

/* Byte offsets of the loop's device block. */
struct block_layout {
    size_t state, args, sizes, dirs, stamps, total;
};

block_layout layout_for(int64_t capacity)
{
    using sp_prim::align_up;
    block_layout l;
    l.state = 0;
    l.args = align_up(sizeof(graph_state));
    l.sizes = l.args + align_up(sizeof(decide_args));
    l.dirs = l.sizes + align_up((size_t)capacity * sizeof(int64_t));
    l.stamps = l.dirs + align_up((size_t)capacity * sizeof(int32_t));
    l.total = l.stamps + align_up((size_t)(capacity + 1) * sizeof(unsigned long long));
    return l;
}

struct kernels_of_mode {
    void *expand, *hubs;
};

template <typename Off>
kernels_of_mode kernels_for(int mode)
{
    switch (mode) {
    case SP_GPU_BFS_GRAPH_PUSH:
        return {(void *)expand_kernel<SP_GPU_BFS_GRAPH_PUSH, Off>,
                (void *)hubs_kernel<SP_GPU_BFS_GRAPH_PUSH, Off>};
    case SP_GPU_BFS_GRAPH_PULL:
        return {(void *)expand_kernel<SP_GPU_BFS_GRAPH_PULL, Off>,
                (void *)hubs_kernel<SP_GPU_BFS_GRAPH_PULL, Off>};
    default:
        return {(void *)expand_kernel<SP_GPU_BFS_GRAPH_DIROPT, Off>,
                (void *)hubs_kernel<SP_GPU_BFS_GRAPH_DIROPT, Off>};
    }
}

/* Append a kernel node after *last (none when *last is NULL) and make it the last. */
sp_status_t add_kernel(cudaGraph_t body, cudaGraphNode_t *last, void *func, unsigned blocks,
                       unsigned threads, void **args)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaKernelNodeParams p = {};
    cudaGraphNode_t node;
    p.func = func;
    p.gridDim = dim3(blocks);
    p.blockDim = dim3(threads);
    p.kernelParams = args;
    SP_CUDA_TRY(cudaGraphAddKernelNode(&node, body, *last ? last : NULL, *last ? 1 : 0, &p));
    *last = node;
done:
    return st;
}

/* One level of the body, for the parity whose pointers a carries. */
template <typename Off>
sp_status_t add_level(cudaGraph_t body, cudaGraphNode_t *last, const sp_gpu_env_t *env,
                      int mode, level_args<Off> a, graph_state *gs, decide_args d,
                      int64_t words)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    kernels_of_mode k = kernels_for<Off>(mode);
    void *level_params[] = {&a, &gs};
    void *hubs_params[] = {&a, &gs, &d};
    unsigned grid = hub_grid(env); /* grid_for's cap: every level's work strides over it */
    if (mode != SP_GPU_BFS_GRAPH_PUSH) {
        cudaMemsetParams m = {};
        cudaGraphNode_t node;
        m.dst = a.next;
        m.value = 0;
        m.elementSize = sizeof(uint32_t);
        m.width = (size_t)words;
        m.height = 1;
        SP_CUDA_TRY(
            cudaGraphAddMemsetNode(&node, body, *last ? last : NULL, *last ? 1 : 0, &m));
        *last = node;
    }
    SP_TRY(add_kernel(body, last, k.expand, grid, P::block_threads, level_params));
    SP_TRY(add_kernel(body, last, k.hubs, hub_grid(env), P::block_threads, hubs_params));
done:
    return st;
}

template <typename Off>
sp_status_t loop_create(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                        const sp_gpu_bfs_work_t *w, sp_gpu_bfs_graph_mode_t mode, double alpha,
                        double beta, double pull_vertex_weight, int64_t capacity,
                        sp_gpu_bfs_graph_loop_t *loop)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaGraphConditionalHandle handle;
    cudaGraph_t body = NULL;
    cudaGraphNode_t last = NULL;
    void *d_base = NULL;
    unsigned long long *h_stamps = NULL;
    block_layout l;
    decide_args d;
    level_args<Off> a;
    int64_t words;
    SP_CHECK_ARG(loop != NULL, "bfs graph loop: NULL loop");
    *loop = sp_gpu_bfs_graph_loop_t{NULL, NULL, NULL, NULL, 0, 0};
    SP_TRY(check_level("bfs graph loop", env, g, w, false)); /* outputs come per run */
    SP_CHECK_ARG(mode == SP_GPU_BFS_GRAPH_PUSH || mode == SP_GPU_BFS_GRAPH_PULL ||
                     mode == SP_GPU_BFS_GRAPH_DIROPT,
                 "bfs graph loop: unknown mode %d", (int)mode);
    SP_CHECK_ARG(mode == SP_GPU_BFS_GRAPH_PUSH ||
                     ((g->d_in_ptr != NULL || g->d_in_ptr64 != NULL) &&
                      (g->nnz == 0 || g->d_in_idx != NULL)),
                 "bfs graph loop: the pull and direction-optimized modes need the CSC");
    SP_CHECK_ARG(alpha > 0 && beta > 0 && pull_vertex_weight >= 0,
                 "bfs graph loop: alpha %g and beta %g must be > 0, pull_vertex_weight %g >= 0",
                 alpha, beta, pull_vertex_weight);
    SP_CHECK_ARG(capacity >= 0 && capacity <= g->n + 1,
                 "bfs graph loop: %lld level records for %lld vertices", (long long)capacity,
                 (long long)g->n);
    l = layout_for(capacity);
    SP_TRY(env->alloc(env->self, &d_base, l.total));
    /* every byte of the block defined, the state's padding included: each search copies
     * the state back whole (compute-sanitizer's initcheck flagged the padding) */
    SP_CUDA_TRY(cudaMemsetAsync(d_base, 0, l.total, (cudaStream_t)env->stream));
    h_stamps = static_cast<unsigned long long *>(
        sp__malloc_array((size_t)(capacity + 1), sizeof *h_stamps));
    if (!h_stamps)
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "bfs graph loop: out of host memory for %lld stamps",
                (long long)capacity + 1);
    SP_CUDA_TRY(cudaGraphCreate(&graph, 0));
    SP_TRY(sp_prim::graph_add_while(graph, "bfs graph loop", ": use loop host or persistent",
                                    &handle, &body));
    words = bitmap_words(g->n);
    d.n = g->n;
    d.nnz = g->nnz;
    d.max_pieces = w->max_pieces;
    d.warps = level_warps(env);
    d.capacity = capacity;
    d.alpha = alpha;
    d.beta = beta;
    d.pull_vertex_weight = pull_vertex_weight;
    d.mode = (int32_t)mode;
    d.sizes = capacity ? (int64_t *)((char *)d_base + l.sizes) : NULL;
    d.dirs = capacity ? (int32_t *)((char *)d_base + l.dirs) : NULL;
    d.stamps = capacity ? (unsigned long long *)((char *)d_base + l.stamps) : NULL;
    d.handle = handle;
    a = make_args<Off>(g, w, 0);
    for (int parity = 0; parity < 2; parity++) {
        SP_TRY(add_level(body, &last, env, (int)mode, a,
                         (graph_state *)d_base, d, words));
        /* the next level swaps the two queues and the two bitmaps */
        std::swap(a.front, a.next);
        const int32_t *q = a.queue;
        a.queue = a.next_queue;
        a.next_queue = const_cast<int32_t *>(q);
    }
    SP_CUDA_TRY(cudaMemcpyAsync((char *)d_base + l.args, &d, sizeof d, cudaMemcpyHostToDevice,
                                (cudaStream_t)env->stream));
    /* the block's zeroing and its arguments are on the device before the graph exists */
    SP_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)env->stream));
    SP_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    loop->graph = graph;
    loop->exec = exec;
    loop->d_base = d_base;
    loop->h_stamps = h_stamps;
    loop->capacity = capacity;
    loop->mode = (int)mode;
    graph = NULL, exec = NULL, d_base = NULL, h_stamps = NULL;
done:
    if (exec) (void)cudaGraphExecDestroy(exec);
    if (graph) (void)cudaGraphDestroy(graph);
    if (d_base) env->free(env->self, d_base);
    sp__free(h_stamps);
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_bfs_graph_loop_create(const sp_gpu_env_t *env,
                                                     const sp_gpu_bfs_graph_t *g,
                                                     const sp_gpu_bfs_work_t *w,
                                                     sp_gpu_bfs_graph_mode_t mode, double alpha,
                                                     double beta, double pull_vertex_weight,
                                                     int64_t capacity,
                                                     sp_gpu_bfs_graph_loop_t *loop)
{
    return wide_offsets(g) ? loop_create<int64_t>(env, g, w, mode, alpha, beta,
                                                  pull_vertex_weight, capacity, loop)
                           : loop_create<int32_t>(env, g, w, mode, alpha, beta,
                                                  pull_vertex_weight, capacity, loop);
}

extern "C" sp_status_t sp__gpu_bfs_graph_loop_run(const sp_gpu_env_t *env,
                                                  const sp_gpu_bfs_graph_loop_t *loop,
                                                  const sp_gpu_bfs_graph_t *g,
                                                  const sp_gpu_bfs_work_t *w, int32_t source,
                                                  int64_t *sizes, int32_t *dirs,
                                                  double *times_ms, int64_t capacity,
                                                  void *end_event, sp_gpu_bfs_graph_log_t *log)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s;
    graph_state h;
    block_layout l;
    int64_t cap, levels;
    SP_CHECK_ARG(loop != NULL && loop->exec != NULL && log != NULL,
                 "bfs graph loop: not created, or NULL log");
    SP_CHECK_ARG(capacity >= 0 && capacity <= loop->capacity,
                 "bfs graph loop: %lld level records asked, the loop keeps %lld",
                 (long long)capacity, (long long)loop->capacity);
    s = (cudaStream_t)env->stream;
    cap = capacity;
    l = layout_for(loop->capacity);
    if (cap > 0) {
        char *base = (char *)loop->d_base;
        SP_CUDA_TRY(cudaMemsetAsync(base + l.sizes, 0, (size_t)cap * sizeof(int64_t), s));
        SP_CUDA_TRY(cudaMemsetAsync(base + l.dirs, 0xff, (size_t)cap * sizeof(int32_t), s));
        SP_CUDA_TRY(cudaMemsetAsync(base + l.stamps, 0,
                                    (size_t)(cap + 1) * sizeof(unsigned long long), s));
    }
    SP_TRY(check_level("bfs graph loop", env, g, w));
    SP_CHECK_ARG(source >= 0 && source < g->n, "bfs graph loop: source %d outside 0..%lld",
                 source, (long long)g->n - 1);
    SP_TRY(sp__gpu_bfs_start(env, g, w, source));
    init_kernel<<<1, 1, 0, s>>>(
        (graph_state *)loop->d_base, w->d_level, w->d_parent,
        loop->mode == SP_GPU_BFS_GRAPH_PULL ? SP_GPU_BFS_DIR_PULL : SP_GPU_BFS_DIR_PUSH,
        w->d_counters, (const decide_args *)((const char *)loop->d_base + l.args));
    SP_CUDA_LAUNCHED("init_kernel");
    SP_CUDA_TRY(cudaGraphLaunch((cudaGraphExec_t)loop->exec, s));
    if (end_event) SP_CUDA_TRY(cudaEventRecord((cudaEvent_t)end_event, s));
    SP_CUDA_TRY(cudaMemcpyAsync(&h, loop->d_base, sizeof h, cudaMemcpyDeviceToHost, s));
    if (cap > 0) {
        const char *base = (const char *)loop->d_base;
        if (sizes)
            SP_CUDA_TRY(cudaMemcpyAsync(sizes, base + l.sizes, (size_t)cap * sizeof(int64_t),
                                        cudaMemcpyDeviceToHost, s));
        if (dirs)
            SP_CUDA_TRY(cudaMemcpyAsync(dirs, base + l.dirs, (size_t)cap * sizeof(int32_t),
                                        cudaMemcpyDeviceToHost, s));
        if (times_ms)
            SP_CUDA_TRY(cudaMemcpyAsync(loop->h_stamps, base + l.stamps,
                                        (size_t)(cap + 1) * sizeof(unsigned long long),
                                        cudaMemcpyDeviceToHost, s));
    }
    SP_CUDA_TRY(cudaStreamSynchronize(s));
    levels = h.levels;
    for (int64_t i = 0; times_ms && i < cap; i++) {
        unsigned long long t0 = loop->h_stamps[i], t1 = loop->h_stamps[i + 1];
        times_ms[i] = i < levels && t0 && t1 >= t0 ? 1e-6 * (double)(t1 - t0) : -1.0;
    }
    log->levels = levels;
    log->vertices = h.vertices;
    log->edges = h.edges;
    log->switches = h.switches;
done:
    return st;
}

extern "C" void sp__gpu_bfs_graph_loop_destroy(const sp_gpu_env_t *env,
                                               sp_gpu_bfs_graph_loop_t *loop)
{
    if (!loop) return;
    if (loop->exec) (void)cudaGraphExecDestroy((cudaGraphExec_t)loop->exec);
    if (loop->graph) (void)cudaGraphDestroy((cudaGraph_t)loop->graph);
    if (loop->d_base) env->free(env->self, loop->d_base);
    sp__free(loop->h_stamps);
    *loop = sp_gpu_bfs_graph_loop_t{NULL, NULL, NULL, NULL, 0, 0};
}
