/* sp_bfs on a CUDA context: the host level loop (one launch per level of the chosen
 * variant, one 24-byte read-back of the counters per level, the direction-optimized
 * switching decided here from those counters), the graph loop (the same level steps and
 * rule inside one CUDA graph launch per search), or a hand-off to the single-block and
 * persistent kernels that keep the loop on the GPU; their scratch, the instantiated graph
 * and the timing events are the CUDA part of the matrix's BFS cache (made once per matrix
 * and options, src/bfs.c), so a search allocates and builds nothing; stats and timing. */
#include "policy.h"

#ifdef SP_HAVE_CUDA
#include "sp_cuda.h"
#include "sp_kernels_bfs.h"

/* What one search found, before it is copied to the caller's stats (the graph loop
 * reports it in this form). */
typedef sp_gpu_bfs_graph_log_t search_log_t;

/* The per-level records of s from level `from` on: size 0, direction -1, time -1. */
static void clear_records(const sp__bfs_record_t *s, int64_t from)
{
    for (int64_t l = from; s && l < s->frontier_capacity; l++) {
        if (s->frontier_sizes) s->frontier_sizes[l] = 0;
        if (s->directions) s->directions[l] = -1;
        if (s->level_times_ms) s->level_times_ms[l] = -1;
    }
}

/* No per-level times in s (NULL: nothing): every entry -1. */
static void clear_times(const sp__bfs_record_t *s)
{
    for (int64_t l = 0; s && s->level_times_ms && l < s->frontier_capacity; l++)
        s->level_times_ms[l] = -1;
}

static sp_status_t read_counters(const sp_gpu_env_t *env, const sp_gpu_bfs_work_t *w,
                                 sp_gpu_bfs_counters_t *h)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    SP_CUDA_TRY(cudaMemcpyAsync(h, w->d_counters, sizeof *h, cudaMemcpyDeviceToHost, s));
    SP_CUDA_TRY(cudaStreamSynchronize(s));
done:
    return st;
}

/* Expand level cur (count vertices) with the variant; dir matters for DIRECTION_OPT only. */
static sp_status_t step(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                        const sp_gpu_bfs_work_t *w, sp_bfs_variant_t variant, int32_t cur,
                        int32_t count, sp_bfs_direction_t prev, sp_bfs_direction_t dir)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    switch (variant) {
    case SP_BFS_PUSH: SP_TRY(sp__gpu_bfs_push_level(env, g, w, cur)); break;
    case SP_BFS_PULL: SP_TRY(sp__gpu_bfs_pull_level(env, g, w, cur)); break;
    case SP_BFS_EDGE: SP_TRY(sp__gpu_bfs_edge_level(env, g, w, cur)); break;
    case SP_BFS_FRONTIER: SP_TRY(sp__gpu_bfs_frontier_level(env, g, w, cur, count)); break;
    case SP_BFS_PRIVATIZED: SP_TRY(sp__gpu_bfs_privatized_level(env, g, w, cur, count)); break;
    default:
        SP_TRY(sp__gpu_bfs_direction_opt_level(env, g, w, cur, count, (sp_gpu_bfs_dir_t)prev,
                                               (sp_gpu_bfs_dir_t)dir));
        break;
    }
done:
    return st;
}

/* The next level's frontier becomes the current one. */
static void swap_frontier(sp_gpu_bfs_work_t *w, sp_bfs_variant_t variant, sp_bfs_direction_t dir)
{
    if (variant == SP_BFS_PULL || (variant == SP_BFS_DIRECTION_OPT && dir == SP_BFS_DIR_PULL)) {
        uint32_t *t = w->d_front;
        w->d_front = w->d_next;
        w->d_next = t;
    } else if (variant != SP_BFS_PUSH && variant != SP_BFS_EDGE) {
        int32_t *t = w->d_queue;
        w->d_queue = w->d_next_queue;
        w->d_next_queue = t;
    }
}

/* The host level loop from source; the records s get sizes and directions, and each
 * level's GPU time from the event pair lev (NULL: not timed) recorded around its step
 * (read after the round trip that follows every step anyway). */
static sp_status_t host_loop(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_t *g,
                             sp_gpu_bfs_work_t w, sp_bfs_variant_t variant,
                             const sp__bfs_key_t *key, int32_t source, const sp__bfs_record_t *s,
                             cudaEvent_t *lev, search_log_t *log)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_bfs_counters_t c;
    int64_t cap = s ? s->frontier_capacity : 0;
    int64_t count, prev_count = 0, m_f, m_u;
    sp_bfs_direction_t dir = variant == SP_BFS_PULL ? SP_BFS_DIR_PULL : SP_BFS_DIR_PUSH;
    sp_bfs_direction_t prev = dir;
    search_log_t lg = {1, 1, 0, 0};
    double *times = s && lev ? s->level_times_ms : NULL;
    clear_records(s, 0);
    if (cap > 0 && s->frontier_sizes) s->frontier_sizes[0] = 1;
    SP_TRY(sp__gpu_bfs_start(env, g, &w, source));
    SP_TRY(read_counters(env, &w, &c));
    count = c.next_vertices;
    m_f = (int64_t)c.next_edges;
    m_u = g->nnz - m_f;
    lg.edges = m_f;
    for (int32_t cur = 0; count > 0; cur++) {
        if (variant == SP_BFS_DIRECTION_OPT) {
            dir = sp__bfs_next_direction(prev, m_f, m_u, g->n - lg.vertices, count, prev_count,
                                         g->n, key->alpha, key->beta, key->pull_vertex_weight);
            if (cur > 0 && dir != prev) lg.switches++;
        }
        if (times && cur < cap) SP_CUDA_TRY(cudaEventRecord(lev[0], (cudaStream_t)env->stream));
        SP_TRY(sp__gpu_bfs_counters_reset(env, &w));
        SP_TRY(step(env, g, &w, variant, cur, (int32_t)count, prev, dir));
        if (times && cur < cap) SP_CUDA_TRY(cudaEventRecord(lev[1], (cudaStream_t)env->stream));
        SP_TRY(read_counters(env, &w, &c));
        if (times && cur < cap) {
            float ms = 0;
            SP_CUDA_TRY(cudaEventElapsedTime(&ms, lev[0], lev[1]));
            times[cur] = ms;
        }
        if (cur < cap && s->directions) s->directions[cur] = dir;
        swap_frontier(&w, variant, dir);
        prev = dir;
        prev_count = count;
        count = c.next_vertices;
        m_f = (int64_t)c.next_edges;
        m_u -= m_f;
        if (count == 0) break;
        if (lg.levels < cap && s->frontier_sizes) s->frontier_sizes[lg.levels] = count;
        lg.levels++;
        lg.vertices += count;
        lg.edges += m_f;
    }
    *log = lg;
done:
    return st;
}

/* The single-block or persistent kernel runs the whole search in the scratch made for all
 * sources. */
static sp_status_t gpu_loop(const sp_gpu_env_t *env, sp_gpu_bfs_loop_scratch_t *scratch,
                            const sp_csr_t *csr, sp_bfs_loop_t loop, int sync, int32_t source,
                            int32_t *level, int32_t *parent, const sp__bfs_record_t *s,
                            search_log_t *log)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_bfs_result_t r = {0, 0, 0};
    int64_t *sizes = s && s->frontier_sizes ? s->frontier_sizes : NULL;
    int64_t cap = sizes ? s->frontier_capacity : 0;
    if (loop == SP_BFS_LOOP_SINGLE_BLOCK)
        SP_TRY(
            sp__gpu_bfs_single_block(env, scratch, csr, source, level, parent, sizes, cap, &r));
    else
        SP_TRY(sp__gpu_bfs_persistent(env, scratch, csr, source,
                                      sync ? SP_GPU_BFS_SYNC_COOP : SP_GPU_BFS_SYNC_SOFT, level,
                                      parent, sizes, cap, &r));
    for (int64_t l = 0; s && s->directions && l < s->frontier_capacity; l++)
        s->directions[l] = l < r.levels ? SP_BFS_DIR_PUSH : -1;
    clear_times(s); /* not timed per level inside these kernels */
    log->levels = r.levels;
    log->vertices = r.vertices;
    log->edges = r.edges;
    log->switches = 0;
done:
    return st;
}

/* One search of the graph loop gl; its records (the loop keeps records_cap of them) go to
 * s, times only when s asks for them; end_event is recorded when the traversal ends. */
static sp_status_t graph_search(const sp_gpu_env_t *env, const sp_gpu_bfs_graph_loop_t *gl,
                                const sp_gpu_bfs_graph_t *g, const sp_gpu_bfs_work_t *w,
                                int32_t source, const sp__bfs_record_t *s, int64_t records_cap,
                                cudaEvent_t end_event, search_log_t *log)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t cap = s ? s->frontier_capacity : 0;
    if (cap > records_cap) cap = records_cap;
    clear_records(s, cap); /* past n + 1 levels, which no search reaches */
    SP_TRY(sp__gpu_bfs_graph_loop_run(env, gl, g, w, source, s ? s->frontier_sizes : NULL,
                                      s ? s->directions : NULL,
                                      s && s->measure_time ? s->level_times_ms : NULL, cap,
                                      end_event, log));
    if (s && !s->measure_time) clear_times(s);
done:
    return st;
}

/* The graph loop's mode for a variant (sp_bfs has refused the others). */
static sp_gpu_bfs_graph_mode_t graph_mode(sp_bfs_variant_t variant)
{
    if (variant == SP_BFS_PULL) return SP_GPU_BFS_GRAPH_PULL;
    if (variant == SP_BFS_DIRECTION_OPT) return SP_GPU_BFS_GRAPH_DIROPT;
    return SP_GPU_BFS_GRAPH_PUSH;
}

/* The CUDA part of a BFS cache: what the searches of one key need beyond their outputs. */
typedef struct cuda_cache {
    sp_gpu_bfs_graph_t g; /* the graph's arrays (G's CSR, CSC where needed, COO) */
    void *d_temp;         /* the level kernels' scratch (loops HOST and GRAPH) */
    sp_gpu_bfs_loop_scratch_t loop_scratch; /* loops SINGLE_BLOCK and PERSISTENT */
    sp_gpu_bfs_graph_loop_t gl;             /* loop GRAPH: the instantiated graph */
    cudaEvent_t ev[2], lev[2]; /* around a search; around a host-loop level */
} cuda_cache_t;

void sp__cuda_bfs_cache_free(sp_matrix_t *G, void *cuda)
{
    cuda_cache_t *c = cuda;
    sp_gpu_env_t env;
    if (!c) return;
    sp__cuda_env(G->ctx, &env);
    for (int i = 0; i < 2; i++) {
        if (c->lev[i]) (void)cudaEventDestroy(c->lev[i]);
        if (c->ev[i]) (void)cudaEventDestroy(c->ev[i]);
    }
    sp__gpu_bfs_graph_loop_destroy(&env, &c->gl);
    sp__gpu_bfs_loop_scratch_free(&env, &c->loop_scratch);
    if (c->d_temp) env.free(env.self, c->d_temp);
    sp__free(c);
}

sp_status_t sp__cuda_bfs_cache_make(sp_matrix_t *G, const sp__bfs_key_t *key, void **cuda)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    cuda_cache_t *c = NULL;
    sp_gpu_bfs_work_t w;
    int64_t n = G->f.csr.nrows;
    *cuda = NULL;
    sp__cuda_env(G->ctx, &env);
    if (n > INT32_MAX || (G->f.csr.nnz > INT32_MAX && !G->f.csr.ptr64))
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sp_bfs: %lld vertices and %lld edges exceed 32-bit indices", (long long)n,
                (long long)G->f.csr.nnz);
    SP_CALLOC(c, 1);
    c->g.n = n;
    c->g.nnz = G->f.csr.nnz;
    /* the kernels take either pointer width (issue 20): 64-bit offsets pass through */
    c->g.d_out_ptr = G->f.csr.ptr;
    c->g.d_out_ptr64 = G->f.csr.ptr64;
    c->g.d_out_idx = G->f.csr.idx;
    c->g.d_in_ptr = c->g.d_in_idx = NULL;
    c->g.d_in_ptr64 = NULL;
    c->g.d_coo_row = G->f.coo.row;
    c->g.d_coo_col = G->f.coo.col;
    if (key->variant == SP_BFS_PULL || key->variant == SP_BFS_DIRECTION_OPT) {
        /* built by the caller; a pattern-symmetric graph's CSR is its CSC (issue 20) */
        const sp_csr_t *in = G->pattern_symmetric ? &G->f.csr : &G->f.csc;
        if ((in->ptr64 != NULL) != (G->f.csr.ptr64 != NULL))
            SP_FAIL(SP_STATUS_INTERNAL_ERROR,
                    "sp_bfs: the CSC's pointers are %d-bit, the CSR's %d-bit (a bug in libsp)",
                    in->ptr64 ? 64 : 32, G->f.csr.ptr64 ? 64 : 32);
        c->g.d_in_ptr = in->ptr;
        c->g.d_in_ptr64 = in->ptr64;
        c->g.d_in_idx = in->idx;
    }
    if (key->loop == SP_BFS_LOOP_HOST || key->loop == SP_BFS_LOOP_GRAPH) {
        SP_TRY(env.alloc(env.self, &c->d_temp, sp__gpu_bfs_work_bytes(n, c->g.nnz)));
        if (key->loop == SP_BFS_LOOP_GRAPH) {
            /* the graph bakes every scratch pointer; the outputs are set per search */
            sp__gpu_bfs_work_carve(c->d_temp, n, c->g.nnz, NULL, NULL, &w);
            SP_TRY(sp__gpu_bfs_graph_loop_create(&env, &c->g, &w, graph_mode(key->variant),
                                                 key->alpha, key->beta, key->pull_vertex_weight,
                                                 key->capacity, &c->gl));
        }
    } else {
        SP_TRY(sp__gpu_bfs_loop_scratch_alloc(&env, n, key->capacity, &c->loop_scratch));
    }
    for (int i = 0; i < 2; i++) {
        SP_CUDA_TRY(cudaEventCreate(&c->ev[i]));
        SP_CUDA_TRY(cudaEventCreate(&c->lev[i]));
    }
    *cuda = c;
    c = NULL;
done:
    if (c) sp__cuda_bfs_cache_free(G, c);
    return st;
}

sp_status_t sp__cuda_bfs(sp_matrix_t *G, const sp__bfs_cache_t *cache, int64_t nsources,
                         const int64_t *sources, int sync, const sp_bfs_options_t *options,
                         int32_t *level, int32_t *parent, sp_bfs_stats_t *stats, double *t_ms)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_env_t env;
    cuda_cache_t *c = cache->cuda;
    const sp_gpu_bfs_graph_t *g = &c->g;
    sp_gpu_bfs_work_t w;
    sp_bfs_variant_t variant = cache->key.variant;
    sp_bfs_loop_t loop = cache->key.loop;
    int64_t n = g->n;
    cudaStream_t strm;
    sp__cuda_env(G->ctx, &env);
    strm = (cudaStream_t)env.stream;
    for (int64_t i = 0; i < nsources; i++) {
        sp__bfs_record_t rec = sp__bfs_record(options, i);
        const sp__bfs_record_t *s = &rec;
        int32_t *lv = level + i * n, *pa = parent ? parent + i * n : NULL;
        search_log_t lg = {0, 0, 0, 0};
        float ms = 0;
        int timed = s->measure_time;
        double end_ms;
        if (timed) SP_CUDA_TRY(cudaEventRecord(c->ev[0], strm));
        if (loop == SP_BFS_LOOP_HOST) {
            sp__gpu_bfs_work_carve(c->d_temp, n, g->nnz, lv, pa, &w);
            SP_TRY(host_loop(&env, g, w, variant, &cache->key, (int32_t)sources[i], s,
                             timed && s->level_times_ms ? c->lev : NULL, &lg));
        } else if (loop == SP_BFS_LOOP_GRAPH) {
            sp__gpu_bfs_work_carve(c->d_temp, n, g->nnz, lv, pa, &w);
            SP_TRY(graph_search(&env, &c->gl, g, &w, (int32_t)sources[i], s, cache->key.capacity,
                                timed ? c->ev[1] : NULL, &lg));
        } else {
            SP_TRY(gpu_loop(&env, &c->loop_scratch, &G->f.csr, loop, sync, (int32_t)sources[i],
                            lv, pa, s, &lg));
        }
        if (timed) {
            /* the graph loop recorded the end before reading its counts back */
            if (loop != SP_BFS_LOOP_GRAPH) SP_CUDA_TRY(cudaEventRecord(c->ev[1], strm));
            SP_CUDA_TRY(cudaEventSynchronize(c->ev[1]));
            SP_CUDA_TRY(cudaEventElapsedTime(&ms, c->ev[0], c->ev[1]));
        }
        end_ms = timed ? sp__now_ms() : 0;
        if (stats) {
            stats[i].levels = lg.levels;
            stats[i].vertices_visited = lg.vertices;
            stats[i].edges_traversed = lg.edges;
            stats[i].direction_switches = lg.switches;
            stats[i].time_ms = timed ? end_ms - *t_ms : 0;
            stats[i].search_ms = ms;
            stats[i].variant_used = variant;
            stats[i].loop_used = loop;
        }
        *t_ms = end_ms;
    }
done:
    return st;
}

#else /* !SP_HAVE_CUDA */

sp_status_t sp__cuda_bfs_cache_make(sp_matrix_t *G, const sp__bfs_key_t *key, void **cuda)
{
    (void)G, (void)key;
    *cuda = NULL;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

void sp__cuda_bfs_cache_free(sp_matrix_t *G, void *cuda) { (void)G, (void)cuda; }

sp_status_t sp__cuda_bfs(sp_matrix_t *G, const sp__bfs_cache_t *c, int64_t nsources,
                         const int64_t *sources, int sync, const sp_bfs_options_t *options,
                         int32_t *level, int32_t *parent, sp_bfs_stats_t *stats, double *t_ms)
{
    (void)G, (void)c, (void)nsources, (void)sources, (void)sync, (void)options;
    (void)level, (void)parent, (void)stats, (void)t_ms;
    return SP_ERROR(SP_STATUS_NOT_COMPILED, "libsp was built without CUDA");
}

#endif
