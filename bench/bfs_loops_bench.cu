/* bfs_loops_bench: the GPU BFS level loops on deep and shallow graphs, timed with CUDA
 * events: the single block with hand-over, the persistent kernel with soft level counters
 * (SOFT) and with a cooperative grid barrier (COOP), against the plain host loop (one
 * launch of the same frontier kernel per level, then a 4-byte read-back that decides the
 * next launch). Prints `Label: value` lines: time per traversal, per level, and speedups
 * over the host loop; checks every loop's levels against sp__ref_bfs (outside the timing).
 *
 *   bfs_loops_bench [--reps N] [--input grid4096|path128k|kron20|PATH]...   (default: the
 *                   first three)
 *                   [--blocks K] [--poll NEAR PAUSE_NS] [--prefetch MODE] [--gather 0|1]
 *                   [--trace]
 *
 * --blocks and --poll set the persistent kernel's grid size and its waiters' polling
 * (sp__gpu_bfs_set_persistent_blocks / _poll) for tuning sweeps; --prefetch sets the SOFT
 * kernel's adjacency prefetch (sp__gpu_bfs_set_persistent_prefetch: 0 none, 1 the
 * default, 2 also at each claim), for A/B; --gather 0 has each lane walk its own short
 * list (sp__gpu_bfs_set_loop_gather), 1 (the default) the warp gather them. --trace (a
 * build with -DSP_BFS_TRACE) prints per level the chunk times of one traversal of each
 * persistent kernel.
 *
 * grid4096: 4096 x 4096 grid graph from a corner (8191 levels); path128k: undirected path
 * of 2^17 vertices from its middle (65537 levels: the host loop pays about 15 us a level,
 * so a longer path only makes the run long); kron20: Graph500 Kronecker scale 20,
 * edge factor 16, symmetrized, from the first vertex of non-zero degree after a fixed
 * seed; PATH (a name with a '/'): a Matrix Market file (.mtx, square) or an edge list,
 * made undirected without self-loops or duplicates as spbench's BFS suite makes them
 * (sb_load_bfs_graph), from a vertex of the highest degree. Each call times everything
 * the loop does per traversal (scratch from the pool, initialisation, the levels, the
 * final read-back); parents are written. Device memory comes from the default pool
 * (cudaMallocAsync), its release threshold raised so freed memory stays there. Progress
 * goes to stderr before each step (build, check, timing of one loop), and each step has
 * an alarm (SP_BENCH_STEP_SECONDS, default 60) that names the step and exits 3 if it
 * hangs. */
#include <cuda_runtime.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bfs/bfs_loop_common.cuh"
#include "gpu_timing.cuh"
#include "sp_kernels_bfs.h"
#include "sp_ref.h"
#include "spbench_graph.h"

namespace {

cudaStream_t stream;
sp_gpu_env_t env;
int reps = 5;
const int warmup = 2;
int blocks = 0;             /* --blocks: persistent grid size (0: the policy's) */
long long poll_near = 0;    /* --poll: the persistent waiters' polling (0: the policy's) */
uint32_t poll_pause = 0;
int prefetch = 1;           /* --prefetch: the SOFT kernel's adjacency prefetch mode */
bool trace = false;         /* --trace: per-level chunk times of both persistent kernels */
int gather = 1;             /* --gather: the loops' gather of short lists (0: each lane its own) */
unsigned step_seconds = 60;

/* ---- hang diagnosis: the running step, announced on stderr and watched by an alarm ---- */
char step_line[256];
size_t step_len;

void on_alarm(int)
{
    static const char head[] = "\nbfs_loops_bench: TIMEOUT (hang?) in step: ";
    (void)!write(2, head, sizeof head - 1);
    (void)!write(2, step_line, step_len);
    _exit(3);
}

void begin_step(const char *what, const std::string &input)
{
    int k = std::snprintf(step_line, sizeof step_line, "step: %s, %s\n", what, input.c_str());
    step_len = k < 0 ? 0 : (size_t)k < sizeof step_line ? (size_t)k : sizeof step_line - 1;
    std::fputs(step_line, stderr);
    std::fflush(stderr);
    alarm(step_seconds);
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

sp_status_t pool_alloc(void *, void **d_ptr, size_t bytes)
{
    if (cudaMallocAsync(d_ptr, bytes, stream) != cudaSuccess) {
        (void)cudaGetLastError();
        return SP_STATUS_ALLOC_FAILED;
    }
    return SP_STATUS_SUCCESS;
}

void pool_free(void *, void *d_ptr)
{
    if (d_ptr) CUDA_OK(cudaFreeAsync(d_ptr, stream));
}

void setup_env()
{
    int dev = 0, sms = 0, l2 = 0;
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, dev));
    CUDA_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_OK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    env.stream = stream;
    env.alloc = pool_alloc;
    env.free = pool_free;
    env.self = nullptr;
    env.sm_count = sms;
    env.l2_bytes = l2;
}

/* The baseline: one launch of the grid-wide frontier kernel per level and a read-back of
 * the next frontier's size before the next launch (the graph's pointer width: Off). */
template <typename Off>
sp_status_t host_loop_of(const sp_csr_t *g, int32_t source, int32_t *d_level,
                         int32_t *d_parent, sp_gpu_bfs_result_t *r)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_gpu_bfs_loop_scratch_t sc{};
    bfsk::state_t<Off> s;
    int32_t lvl = 0, size = 1;
    SP_TRY(bfsk::loop_scratch_alloc(&env, g->nrows, 0, &sc));
    s = bfsk::carve<Off>(&sc, g, d_level, d_parent);
    SP_TRY(bfsk::start(&env, s, source));
    while (size > 0) {
        SP_TRY(bfsk::launch_level(&env, s, lvl, size));
        lvl++;
        SP_TRY(bfsk::read_size(&env, s.sizes + lvl, &size));
    }
    SP_TRY(bfsk::finish(&env, s, &sc, lvl, nullptr, 0, r));
done:
    bfsk::loop_scratch_free(&env, &sc);
    return st;
}

sp_status_t host_loop(const sp_csr_t *g, int32_t source, int32_t *d_level, int32_t *d_parent,
                      sp_gpu_bfs_result_t *r)
{
    return g->ptr64 ? host_loop_of<int64_t>(g, source, d_level, d_parent, r)
                    : host_loop_of<int32_t>(g, source, d_level, d_parent, r);
}

enum { SINGLE, SOFT, COOP, HOST, NVARIANTS };
const char *const variant_label[NVARIANTS] = {"single_block", "persistent_soft",
                                              "persistent_coop", "host_loop"};

sp_status_t run(int v, const sp_csr_t *g, int32_t source, int32_t *d_level, int32_t *d_parent,
                sp_gpu_bfs_result_t *r)
{
    switch (v) {
    case SINGLE:
        return sp__gpu_bfs_single_block(&env, nullptr, g, source, d_level, d_parent, nullptr, 0,
                                        r);
    case SOFT:
        return sp__gpu_bfs_persistent(&env, nullptr, g, source, SP_GPU_BFS_SYNC_SOFT, d_level,
                                      d_parent, nullptr, 0, r);
    case COOP:
        return sp__gpu_bfs_persistent(&env, nullptr, g, source, SP_GPU_BFS_SYNC_COOP, d_level,
                                      d_parent, nullptr, 0, r);
    default:
        return host_loop(g, source, d_level, d_parent, r);
    }
}

/* A host CSR from a COO (sorted and merged here). */
sp_csr_t csr_of(sp_coo_t *coo)
{
    sp_csr_t h;
    std::memset(&h, 0, sizeof h);
    SP_OK(sp_coo_sort_merge(coo, SP_DUP_KEEP, nullptr));
    sp_triplets_t t = sp__coo_triplets(coo);
    SP_OK(sp__ref_coo_to_csr(&t, &h));
    sp_coo_free(coo);
    return h;
}

bool build(const std::string &name, sp_csr_t *h, int32_t *source, std::string *what)
{
    sp_coo_t *coo = nullptr;
    if (name == "grid4096") {
        SP_OK(sp_gen_grid2d(4096, SP_VALUE_NONE, &coo));
        *source = 0;
        *what = "2D grid 4096 x 4096, source: a corner";
    } else if (name == "path128k") {
        int64_t n = (int64_t)1 << 17;
        SP_OK(sp_coo_create(n, n, 2 * n, SP_VALUE_NONE, &coo));
        for (int64_t v = 0; v + 1 < n; v++) {
            coo->row[coo->nnz] = (int32_t)v;
            coo->col[coo->nnz++] = (int32_t)(v + 1);
            coo->row[coo->nnz] = (int32_t)(v + 1);
            coo->col[coo->nnz++] = (int32_t)v;
        }
        *source = (int32_t)(n / 2);
        *what = "undirected path of 2^17 vertices, source: the middle";
    } else if (name == "kron20") {
        SP_OK(sp_gen_kronecker(20, 16, 1, SP_VALUE_NONE, &coo));
        SP_OK(sp_coo_symmetrize(coo, 1));
        *what = "Kronecker scale 20, edge factor 16, symmetrized, no self-loops";
    } else if (name.find('/') != std::string::npos) { /* a file: .mtx, else an edge list */
        if (sb_load_bfs_graph(name.c_str(), &coo) != SP_STATUS_SUCCESS) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), sp_last_error());
            std::exit(2);
        }
        if (!coo) {
            std::fprintf(stderr, "%s: not a square matrix\n", name.c_str());
            std::exit(2);
        }
        *what = name + ", undirected, no self-loops or duplicates, source: a vertex of the "
                       "highest degree";
    } else {
        return false;
    }
    *h = csr_of(coo);
    if (name.find('/') != std::string::npos) { /* in the largest component in practice */
        int64_t best = -1;
        for (int64_t v = 0; v < h->nrows; v++) {
            int64_t d = (int64_t)h->ptr[v + 1] - h->ptr[v];
            if (d > best) best = d, *source = (int32_t)v;
        }
    }
    if (name == "kron20") {
        uint64_t seed = 12345;
        do {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            *source = (int32_t)((seed >> 33) % (uint64_t)h->nrows);
        } while (h->ptr[*source + 1] == h->ptr[*source]);
        *what += ", source: first vertex of non-zero degree from a fixed seed";
    }
    return true;
}

/* --trace (a build with -DSP_BFS_TRACE): one traversal of each persistent kernel, and per
 * level its chunks, when its first chunk began and its last one ended (us from the
 * traversal's first chunk), the wait before it (from the previous level's last end to its
 * first start: the hand-over), its span and its longest chunk; then the sums. */
void print_traces(const sp_csr_t *d, int32_t source, int32_t *d_level, int32_t *d_parent,
                  const bool *ok)
{
    std::vector<sp_gpu_bfs_trace_rec_t> recs(1 << 16);
    for (int v : {SOFT, COOP}) {
        if (!ok[v]) continue;
        sp_gpu_bfs_result_t r;
        if (sp__gpu_bfs_trace_take(recs.data(), (int)recs.size()) < 0) {
            std::printf("trace: not in this build (-DSP_BFS_TRACE)\n");
            return;
        }
        SP_OK(run(v, d, source, d_level, d_parent, &r));
        int n = sp__gpu_bfs_trace_take(recs.data(), (int)recs.size());
        if (n <= 0) continue;
        int levels = 0;
        uint64_t origin = UINT64_MAX;
        for (int i = 0; i < n; i++) {
            levels = std::max(levels, recs[i].level + 1);
            origin = std::min<uint64_t>(origin, recs[i].t0_ns);
        }
        std::vector<uint64_t> first(levels, UINT64_MAX), last(levels, 0), longest(levels, 0);
        std::vector<int> chunks(levels, 0);
        for (int i = 0; i < n; i++) {
            const sp_gpu_bfs_trace_rec_t &t = recs[i];
            first[t.level] = std::min<uint64_t>(first[t.level], t.t0_ns);
            last[t.level] = std::max<uint64_t>(last[t.level], t.t1_ns);
            longest[t.level] = std::max<uint64_t>(longest[t.level], t.t1_ns - t.t0_ns);
            chunks[t.level]++;
        }
        double waits = 0, spans = 0;
        std::printf("trace %s: level chunks start_us end_us wait_us span_us longest_chunk_us\n",
                    variant_label[v]);
        for (int L = 0; L < levels; L++) {
            if (chunks[L] == 0) continue;
            double wait = L > 0 && chunks[L - 1] > 0 ? (first[L] - (double)last[L - 1]) / 1e3 : 0;
            double span = (last[L] - (double)first[L]) / 1e3;
            waits += wait, spans += span;
            std::printf("trace %s %3d %5d %9.2f %9.2f %7.2f %7.2f %7.2f\n", variant_label[v], L,
                        chunks[L], (first[L] - (double)origin) / 1e3,
                        (last[L] - (double)origin) / 1e3, wait, span, longest[L] / 1e3);
        }
        std::printf("trace %s total: %d levels, %d chunks, waits %.2f us, spans %.2f us\n",
                    variant_label[v], levels, n, waits, spans);
    }
}

void bench_graph(const std::string &name)
{
    sp_csr_t h;
    int32_t source = 0;
    std::string what;
    auto t0 = std::chrono::steady_clock::now();
    begin_step("building the graph on the host", name);
    if (!build(name, &h, &source, &what)) {
        std::fprintf(stderr, "unknown input %s (grid4096, path128k, kron20, or a path)\n",
                     name.c_str());
        std::exit(2);
    }
    std::fprintf(stderr, "  built in %.1f s\n", seconds_since(t0));
    int64_t n = h.nrows;
    sp_csr_t d = h;
    int32_t *d_level = nullptr, *d_parent = nullptr;
    CUDA_OK(cudaMalloc(&d.ptr, (size_t)(n + 1) * 4));
    CUDA_OK(cudaMalloc(&d.idx, (size_t)(h.nnz > 0 ? h.nnz : 1) * 4));
    CUDA_OK(cudaMalloc(&d_level, (size_t)n * 4));
    CUDA_OK(cudaMalloc(&d_parent, (size_t)n * 4));
    CUDA_OK(cudaMemcpy(d.ptr, h.ptr, (size_t)(n + 1) * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.idx, h.idx, (size_t)h.nnz * 4, cudaMemcpyHostToDevice));

    std::vector<int32_t> want(n), got(n);
    int64_t levels = 0, vertices = 0, edges = 0;
    begin_step("reference BFS on the host", name);
    SP_OK(sp__ref_bfs(&h, source, want.data(), nullptr, &levels, &vertices, &edges, nullptr, 0));
    std::printf("\nGraph: %s\nVertices: %lld\nAdjacency entries: %lld\nLevels: %lld\n"
                "Vertices reached: %lld\nEdges scanned: %lld\n",
                what.c_str(), (long long)n, (long long)h.nnz, (long long)levels,
                (long long)vertices, (long long)edges);

    bool ok[NVARIANTS];
    for (int v = 0; v < NVARIANTS; v++) { /* correctness first, outside the timing */
        sp_gpu_bfs_result_t r;
        std::string step = std::string("correctness run of ") + variant_label[v];
        auto tv = std::chrono::steady_clock::now();
        begin_step(step.c_str(), name);
        sp_status_t st = run(v, &d, source, d_level, d_parent, &r);
        std::fprintf(stderr, "  %s in %.2f s\n", sp_status_string(st), seconds_since(tv));
        ok[v] = st == SP_STATUS_SUCCESS;
        if (!ok[v]) {
            std::printf("%s: n/a (%s)\n", variant_label[v], sp_last_error());
            continue;
        }
        CUDA_OK(cudaMemcpy(got.data(), d_level, (size_t)n * 4, cudaMemcpyDeviceToHost));
        bool same = got == want && r.levels == levels && r.vertices == vertices &&
                    r.edges == edges;
        std::printf("%s_check: %s\n", variant_label[v], same ? "ok" : "MISMATCH");
        if (!same) std::exit(1);
    }

    if (trace) print_traces(&d, source, d_level, d_parent, ok);

    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<double> times[NVARIANTS];
    for (int rep = 0; rep < warmup + reps; rep++)
        for (int v = 0; v < NVARIANTS; v++) { /* interleaved: drift hits every variant alike */
            if (!ok[v]) continue;
            sp_gpu_bfs_result_t r;
            std::string step = std::string("timed run ") + std::to_string(rep) + " of " +
                               variant_label[v];
            begin_step(step.c_str(), name);
            CUDA_OK(cudaEventRecord(e0, stream));
            SP_OK(run(v, &d, source, d_level, d_parent, &r));
            CUDA_OK(cudaEventRecord(e1, stream));
            CUDA_OK(cudaEventSynchronize(e1));
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (rep >= warmup) times[v].push_back(ms * 1e3);
        }
    alarm(0);
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));

    stats s[NVARIANTS];
    for (int v = 0; v < NVARIANTS; v++) {
        if (!ok[v]) continue;
        s[v] = summarize(times[v]);
        std::printf("%s_us: %.1f (min %.1f, max %.1f)\n", variant_label[v], s[v].median,
                    s[v].min, s[v].max);
        std::printf("%s_us_per_level: %.3f\n", variant_label[v], s[v].median / (double)levels);
    }
    if (ok[HOST])
        for (int v = 0; v < HOST; v++)
            if (ok[v])
                std::printf("%s_speedup_over_host_loop: %.2f\n", variant_label[v],
                            s[HOST].median / s[v].median);
    if (name == "grid4096" && ok[SOFT] && ok[HOST]) {
        double speedup = s[HOST].median / s[SOFT].median, per = s[SOFT].median / (double)levels;
        std::printf("target_soft_4x_host_loop: %s (%.2fx)\n", speedup >= 4 ? "met" : "NOT met",
                    speedup);
        std::printf("target_soft_3us_per_level: %s (%.3f us)\n", per <= 3 ? "met" : "NOT met",
                    per);
    }
    CUDA_OK(cudaFree(d.ptr));
    CUDA_OK(cudaFree(d.idx));
    CUDA_OK(cudaFree(d_level));
    CUDA_OK(cudaFree(d_parent));
    sp__csr_free(&h);
}

} /* namespace */

int main(int argc, char **argv)
{
    std::vector<std::string> names;
    std::setvbuf(stdout, nullptr, _IOLBF, 0); /* lines appear as they are printed, even in a pipe */
    if (const char *e = std::getenv("SP_BENCH_STEP_SECONDS"))
        if (std::atoi(e) > 0) step_seconds = (unsigned)std::atoi(e);
    {
        struct sigaction sa;
        std::memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, nullptr);
    }
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = std::atoi(argv[++i]);
            if (reps < 1) reps = 1;
        } else if (!std::strcmp(argv[i], "--input") && i + 1 < argc) {
            names.push_back(argv[++i]);
        } else if (!std::strcmp(argv[i], "--blocks") && i + 1 < argc) {
            blocks = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--gather") && i + 1 < argc) {
            gather = std::atoi(argv[++i]) != 0;
        } else if (!std::strcmp(argv[i], "--trace")) {
            trace = true;
        } else if (!std::strcmp(argv[i], "--prefetch") && i + 1 < argc) {
            prefetch = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--poll") && i + 2 < argc) {
            poll_near = std::atoll(argv[++i]);
            poll_pause = (uint32_t)std::atol(argv[++i]);
        } else {
            std::fprintf(stderr,
                         "usage: %s [--reps N] [--input grid4096|path128k|kron20|PATH]... "
                         "[--blocks K] [--poll NEAR PAUSE_NS] [--prefetch 0|1|2] [--gather 0|1] "
                         "[--trace]\n",
                         argv[0]);
            return 2;
        }
    }
    if (names.empty()) names = {"grid4096", "path128k", "kron20"};
    sp__gpu_bfs_set_persistent_blocks(blocks);
    sp__gpu_bfs_set_persistent_poll(poll_near, poll_pause);
    sp__gpu_bfs_set_persistent_prefetch(prefetch);
    sp__gpu_bfs_set_loop_gather(gather);
    cudaDeviceProp prop;
    int dev = 0, driver = 0, runtime = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    CUDA_OK(cudaDriverGetVersion(&driver));
    CUDA_OK(cudaRuntimeGetVersion(&runtime));
    CUDA_OK(cudaStreamCreate(&stream));
    setup_env();
    std::printf("GPU: %s (%d SMs, cc %d.%d)\nCUDA driver: %d\nCUDA runtime: %d\n", prop.name,
                prop.multiProcessorCount, prop.major, prop.minor, driver, runtime);
    std::printf("Persistent grid: %s blocks; polling: near %lld chunks, pause %u ns (0: the "
                "policy's)\n",
                blocks > 0 ? std::to_string(blocks).c_str() : "the policy's", poll_near,
                poll_pause);
    std::printf("Short lists: %s\n", gather ? "gathered by the warp (default)" : "each lane its own");
    std::printf("Persistent SOFT adjacency prefetch: mode %d (0 none, 1 after the chunk, 2 "
                "also at each claim)\n",
                prefetch >= 0 && prefetch <= 2 ? prefetch : 1);
    std::printf("Timed calls: %d after %d warm-up, the four loops interleaved; a call is a whole "
                "traversal with parents (scratch from the pool, init, levels, read-back)\n",
                reps, warmup);
    for (const std::string &name : names) bench_graph(name);
    CUDA_OK(cudaStreamDestroy(stream));
    return 0;
}
