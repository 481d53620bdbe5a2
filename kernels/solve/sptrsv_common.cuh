/* What the triangular-solve files (kernels/solve/sptrsv_*.cu) share: the plan, the launch
 * policies, the row ranges of the used triangle, acquire/release flag access and the two
 * per-row operations (solve a row, level of a row). Header-only, all static or inline. */
#ifndef SP_SPTRSV_COMMON_CUH
#define SP_SPTRSV_COMMON_CUH

#include <stddef.h>
#include <stdint.h>

#include "prim/kernel_util.cuh"
#include "sp_kernels_solve.h"

/* The plan. Rows are ordered by "ticket", a topological order of the dependencies (a row
 * depends only on rows with smaller tickets). The analysis's level pass uses the natural
 * order (ticket i is row i for a lower triangle, row n-1-i for an upper one); the soft
 * solve uses the level order d_order (a row's dependencies have strictly smaller levels,
 * hence smaller tickets), so the 32 rows a warp takes are mostly of one level and
 * independent of each other. */
struct sp_gpu_sptrsv_plan {
    sp_gpu_sptrsv_alg_t alg;
    int upper, unit_diag;
    int64_t n, nnz;             /* of the analysed matrix: solve checks they match */
    sp_value_type_t value_type;
    int64_t nlevels;
    int64_t tri_nnz;            /* entries of the used triangle (diagonal counted once) */
    int warp_per_row;           /* row kernel: a warp per row, else a thread per row */
    int32_t *d_bound;           /* per row: where its strict triangle starts (upper) or ends
                                   (lower), an entry position: 32-bit offsets (a->ptr) */
    int64_t *d_bound64;         /* the same for a CSR with 64-bit offsets (a->ptr64); exactly
                                   one of the two is set when n > 0 */
    /* LEVELS and SOFT */
    int32_t *d_order;           /* rows grouped by level, increasing within a level */
    int64_t *h_level_ptr;       /* host: level l holds d_order[h_level_ptr[l] .. [l+1]) */
    int32_t *d_level_ptr;       /* device: h_level_ptr[0 .. nlevels) */
    /* SOFT */
    int ordered;                /* soft solve in the level order (d_order, d_rank) */
    int32_t *d_rank;            /* per row: its ticket in the level order (inverse of d_order) */
    uint32_t *d_flags;          /* per row: the epoch of the last solve that finished it
                                   (SOFT, SOFT_NATURAL; the value kernels use x itself) */
    unsigned long long *d_ticket; /* tickets claimed by all solves so far */
    unsigned grid;              /* blocks of every soft solve launch */
    unsigned long long window;  /* tickets one solve claims: units + warps of the grid */
    /* WAVE: units of at most 32 rows (1 row with a warp per row) of one level each, in the
     * level order; per level a counter of finished units, never reset (solve s waits for
     * s times the level's units: see sptrsv_wave.cu) */
    int64_t units;
    int32_t *d_unit_begin;      /* unit u holds d_order[d_unit_begin[u] .. [u+1]) */
    int32_t *d_unit_level;      /* the level of unit u */
    int32_t *d_unit_ptr;        /* level l holds units d_unit_ptr[l] .. [l+1) */
    unsigned long long *d_done; /* finished units of each level, over all solves */
    int64_t counter_stride;     /* words from one level's counter to the next's */
    /* Value kernels in the level order: the level-merged triangle (sptrsv_merge.cu), 32-bit
     * positions; merged == 0: none, the solve reads the CSR */
    int merged;
    int64_t merged_terms;                /* substituted dependencies, over all rows */
    int32_t *d_mptr, *d_midx, *d_mbound; /* rows: strict entries and the diagonal */
    void *d_mval;
    int32_t *d_wcount, *d_widx;          /* per row: its right-hand side's terms, at the */
    void *d_wval;                        /* CSR row's own positions (a->ptr[r] on) */
};

#ifndef SP_SPTRSV_ROW_WINDOW
#define SP_SPTRSV_ROW_WINDOW 4
#endif

namespace sptrsv {

/* Launch shapes. Thread per row below warp_min_len entries per row of the triangle on
 * average: a warp's 32 lanes then hold 32 rows, so a short row wastes no lanes and the
 * soft kernel's ticket counter is hit once per 32 rows; above it a warp walks each row. */
struct policy {
    static constexpr int block_threads = 128;
    static constexpr int warps = block_threads / 32;
    static constexpr int warp_min_len = 12;
    /* The soft solve takes rows in the level order when a level holds at least this many
     * rows on average; on narrower levels (chains) consecutive rows of the natural order
     * depend on each other anyway and hand over inside a warp through shared memory,
     * which needs no load of the rank. */
    static constexpr int ordered_min_width = 32;
    /* Level scheduling runs consecutive levels of at most this many rows in one block
     * (a __syncthreads between levels instead of a launch). */
    static constexpr int batch_max_rows_thread = 2 * block_threads;
    static constexpr int batch_max_rows_warp = 4 * warps;
    /* The soft kernel in the natural order publishes a warp's finished rows at the latest
     * once this many wait (or at a pass that finishes none, or when all are done): rows
     * handed from lane to lane (a chain) then cost a fence per publish_batch rows, while
     * a dependent in another warp waits at most publish_batch passes for a finished row. */
    static constexpr int publish_batch = 8;
    /* A waiting warp sleeps between polls, from backoff_min_ns doubling up to
     * backoff_max_ns, so that thousands of waiting warps leave the SMs' issue slots and
     * the memory system to the warps doing work. */
    static constexpr unsigned backoff_min_ns = 32;
    static constexpr unsigned backoff_max_ns = 512;
    /* The soft solve's grid in the level order: twice the warps its widest level needs
     * (so warps claim the next level's rows while one level finishes), at least
     * warps_per_sm_min per SM, at most the resident count. More warps than that only
     * spin. */
    static constexpr int warps_per_sm_min = 8;
    /* Value-as-flag kernels (sptrsv_value.cu). A waiting warp polls spin_polls times
     * without sleeping (a sleep on the critical path adds its whole length to the
     * dependency's latency), then backs off as above. */
    static constexpr unsigned spin_polls = 16;
    /* The wave kernel (sptrsv_wave.cu): a waiting warp polls one counter word (lane 0), so
     * it can poll more often than a row polling each dependency: its sleep is capped lower,
     * since the sleep of the warp that sees a level finish is on the critical path. Each
     * level's counter has a 128-byte line of its own (wave_counter_stride words), so the
     * polls on one level's counter and the additions to the next do not share a line. */
    static constexpr unsigned wave_backoff_max_ns = 256;
    static constexpr int wave_counter_stride = 16;
    /* Thread per row: the entries whose values a lane loads at once (independent loads in
     * flight instead of one round trip per entry). */
    static constexpr int row_window = SP_SPTRSV_ROW_WINDOW;
    /* SOFT_BLOCK: a block takes block_chunk consecutive tickets (its threads, a row each);
     * dependencies inside the chunk hand over through shared memory, across warps too. */
    static constexpr int block_chunk = 256;
    /* Level merging (sptrsv_merge.cu): a merged row has at most merge_max_entries
     * substituted entries (before equal columns are joined), so that it is read in one
     * row_window as the unmerged rows are (a 5-point stencil's lower row: 4, 3 columns;
     * a 7-point one's would be 9: longer rows measured no faster than unmerged ones,
     * bench/results/h100-trsv-merge-2026-11-26.md). Plans of fewer than merge_min_levels
     * levels or merge_min_rows rows, or whose mean row would substitute more than twice
     * merge_max_entries entries, are not merged: little chain to halve; an analysis whose
     * fixed cost (a scan, a read-back and five allocations: 0.03-0.07 ms on an H100)
     * would be a large part of the whole (1138_bus, 1138 rows: 0.21 ms merged against
     * 0.13, cuSPARSE 0.19); few rows that qualify. */
    static constexpr int merge_max_entries = 4;
    static constexpr int64_t merge_min_levels = 8;
    static constexpr int64_t merge_min_rows = 4096;
};
using P = policy;

__host__ __device__ constexpr inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Row of ticket i. */
__device__ __forceinline__ int64_t row_of(int64_t i, int64_t n, bool upper)
{
    return upper ? n - 1 - i : i;
}

/* The strict (off-diagonal) entries of row r inside the used triangle: [*k0, *k1). Off: the
 * type of entry positions (row pointers and bounds), int32_t or int64_t (a CSR's ptr64). */
template <typename Off>
__device__ __forceinline__ void strict_range(const Off *ptr, const Off *bound, int64_t r,
                                             bool upper, int64_t *k0, int64_t *k1)
{
    if (upper) {
        *k0 = bound[r];
        *k1 = ptr[r + 1];
    } else {
        *k0 = ptr[r];
        *k1 = bound[r];
    }
}

/* Position of row r's diagonal (validated by the analysis unless the diagonal is unit). */
template <typename Off>
__device__ __forceinline__ int64_t diag_pos(const Off *bound, int64_t r, bool upper)
{
    return upper ? (int64_t)bound[r] - 1 : (int64_t)bound[r];
}

/* Flag access at GPU scope: the acquire load orders every later load of this thread after
 * it, the release store every earlier store before it (PTX memory model, sm_70+), so a
 * reader that sees a row's flag also sees the value written before the flag. */
__device__ __forceinline__ uint32_t load_acquire(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void store_release(uint32_t *p, uint32_t v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* A relaxed load (no ordering, no L1 invalidation as an acquire may do): for polling a
 * flag; a reader that sees it set loads it again with acquire before using the data. */
__device__ __forceinline__ uint32_t load_relaxed(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Exponential backoff of a waiting thread (sleeps only; no effect on results). */
struct backoff {
    unsigned ns = 0;
    __device__ __forceinline__ void pause()
    {
        ns = ns == 0 ? P::backoff_min_ns : (ns >= P::backoff_max_ns / 2 ? P::backoff_max_ns : 2 * ns);
        __nanosleep(ns);
    }
    __device__ __forceinline__ void reset() { ns = 0; }
};

/* Exponential backoff after spin_polls free polls up to a cap: the value-as-flag kernels'
 * and the level pass's wait (backoff_max_ns), the wave kernel's (wave_backoff_max_ns); a
 * cap read at run time (a benchmark's) may be 0: poll without sleeping. */
struct spin_capped {
    unsigned polls = 0, ns = 0, cap;
    __device__ __forceinline__ explicit spin_capped(unsigned max_ns) : cap(max_ns) {}
    __device__ __forceinline__ void pause()
    {
        if (polls < P::spin_polls) {
            polls++;
            return;
        }
        if (cap == 0) return;
        ns = ns == 0 ? (P::backoff_min_ns < cap ? P::backoff_min_ns : cap)
                     : (ns >= cap / 2 ? cap : 2 * ns);
        __nanosleep(ns);
    }
    __device__ __forceinline__ void reset() { polls = ns = 0; }
};
template <unsigned MAX_NS = P::backoff_max_ns>
struct spin_upto : spin_capped {
    __device__ __forceinline__ spin_upto() : spin_capped(MAX_NS) {}
};
using spin = spin_upto<>;

/* Claims the next ticket for the warp (lane 0's atomic, broadcast). Returns the unit index
 * within this launch; the first claim of a launch fixes *base, the launch's first ticket
 * (every launch of a plan claims window tickets, see sptrsv_soft.cu). */
__device__ __forceinline__ int64_t claim_warp(unsigned long long *ticket, unsigned long long window,
                                              bool *first, unsigned long long *base)
{
    unsigned long long t = 0;
    if ((threadIdx.x & 31) == 0) t = atomicAdd(ticket, 1ull);
    t = __shfl_sync(sp_prim::full_mask, t, 0);
    if (*first) {
        *first = false;
        *base = t - t % window;
    }
    return (int64_t)(t - *base);
}

/* A hint to bring the line of p into L1 (no effect on results). */
__device__ __forceinline__ void prefetch_l1(const void *p)
{
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
}

/* x = alpha * T^-1 b, one row at a time: acc sums a_rc x_c over the strict entries,
 * finish gives x_r = (alpha b_r - acc) / d_r. Values of finished rows are read with
 * __ldcg (L2, never a stale L1 line) after their flag. Off: as strict_range. */
template <typename T, typename Off = int32_t>
struct solve_op {
    using V = T;
    using Offset = Off;
    const Off *bound;
    const T *val, *b;
    T *x;
    T alpha;
    bool upper, unit;
    uint32_t *flags;
    uint32_t epoch;

    __device__ __forceinline__ void set_epoch(uint32_t e) { epoch = e; }
    __device__ __forceinline__ V identity() const { return T(0); }
    __device__ __forceinline__ V combine(V acc, int64_t k, V xc) const { return acc + val[k] * xc; }
    __device__ __forceinline__ static V reduce(V a, V c) { return a + c; }
    /* What finish needs of row r besides the sum, loaded when the row is taken so that
     * the load is not on the dependency path; the row's coefficients are prefetched into
     * L1 for the same reason. */
    struct pre_t {
        T rhs, diag;
    };
    __device__ __forceinline__ pre_t prepare(int64_t r, int64_t k0, int64_t k1) const
    {
        if (k0 < k1) {
            prefetch_l1(val + k0);
            prefetch_l1(val + k1 - 1);
        }
        return {alpha * b[r], unit ? T(1) : val[diag_pos(bound, r, upper)]};
    }
    __device__ __forceinline__ V finish(int64_t, V acc, const pre_t &pre) const
    {
        T s = pre.rhs - acc;
        return unit ? s : s / pre.diag;
    }
    __device__ __forceinline__ V finish(int64_t r, V acc) const
    {
        return finish(r, acc, prepare(r, 0, 0));
    }
    /* The value of finished row c, or false while it is not finished in this solve. */
    __device__ __forceinline__ bool try_get(int64_t c, V *v) const
    {
        if (load_acquire(flags + c) != epoch) return false;
        *v = __ldcg(x + c);
        return true;
    }
    /* Whether row c looks finished (relaxed: for polling only; try_get then reads it). */
    __device__ __forceinline__ bool seen(int64_t c) const { return load_relaxed(flags + c) == epoch; }
    /* A finished row is published in two steps, its value (plain store) and later its flag
     * (release store, ordering every earlier store of the thread before it). */
    __device__ __forceinline__ void store_value(int64_t r, V v) const { x[r] = v; }
    __device__ __forceinline__ void publish(int64_t r, V) const { store_release(flags + r, epoch); }
};

/* Max of levels, for warp_reduce (the level pass's count). */
struct level_max {
    using V = int32_t;
    __device__ __forceinline__ static V reduce(V a, V c) { return a > c ? a : c; }
};

/* Warp reduction with the operation's combine (sum or max), in every lane. */
template <typename Op>
__device__ __forceinline__ typename Op::V warp_reduce(typename Op::V v)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v = Op::reduce(v, __shfl_xor_sync(sp_prim::full_mask, v, d));
    return v;
}

/* *p = host array of count T (sp__malloc, for C++), or SP_STATUS_ALLOC_FAILED. */
template <typename T>
static inline sp_status_t host_array(T **p, int64_t count)
{
    *p = static_cast<T *>(sp__malloc_array((size_t)count, sizeof(T)));
    if (*p == NULL && count != 0)
        return SP_ERROR(SP_STATUS_ALLOC_FAILED, "out of host memory allocating %lld x %zu bytes",
                        (long long)count, sizeof(T));
    return SP_STATUS_SUCCESS;
}

/* *sms = the device's SMs, *resident = blocks of `threads` threads of kernel resident at once
 * on all of them (at least one per SM). */
static inline sp_status_t resident_blocks(const sp_gpu_env_t *env, const void *kernel, int threads,
                                          int64_t *sms, int64_t *resident)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int per_sm = 0, count = env->sm_count;
    if (count <= 0) {
        int dev = 0;
        SP_CUDA_TRY(cudaGetDevice(&dev));
        SP_CUDA_TRY(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
    }
    SP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    *sms = count;
    *resident = (int64_t)count * (per_sm > 0 ? per_sm : 1);
done:
    return st;
}

using sp_prim::by_value; /* kernels/prim/kernel_util.cuh */

/* f(Off(0)) with Off the type of a's entry positions: int64_t when its pointers are 64-bit
 * (ptr64), else int32_t; chosen once a call, never per entry (issue 20). */
template <typename F>
static inline void by_offset(const sp_csr_t *a, F f)
{
    if (a->ptr64 != NULL)
        f(int64_t(0));
    else
        f(int32_t(0));
}

/* a's row pointers and the plan's bounds at the width Off (by_offset's). */
template <typename Off> const Off *row_ptr(const sp_csr_t *a);
template <> inline const int32_t *row_ptr<int32_t>(const sp_csr_t *a) { return a->ptr; }
template <> inline const int64_t *row_ptr<int64_t>(const sp_csr_t *a) { return a->ptr64; }
template <typename Off> const Off *plan_bound(const sp_gpu_sptrsv_plan_t *p);
template <> inline const int32_t *plan_bound<int32_t>(const sp_gpu_sptrsv_plan_t *p)
{
    return p->d_bound;
}
template <> inline const int64_t *plan_bound<int64_t>(const sp_gpu_sptrsv_plan_t *p)
{
    return p->d_bound64;
}

} /* namespace sptrsv */

/* Internal entry points between the solve files (kernels/solve/). */

/* The level pass (sptrsv_level_pass.cu): every row's level into d_level (zeroed by the
 * caller) and the level count into *d_max_level (zeroed), with tickets from *d_ticket
 * (zeroed). */
sp_status_t sp__gpu_sptrsv_level_pass(const sp_gpu_env_t *env, const sp_csr_t *a,
                                      const sp_gpu_sptrsv_plan_t *plan, int32_t *d_level,
                                      unsigned *d_max_level, unsigned long long *d_ticket);
/* The analysis's phase timing (sptrsv_phases.cu; the public side in sp_kernels_solve.h):
 * begin at the analysis's start, a mark at the end of each phase (name: a static string),
 * end once (record false: the analysis failed, its phases are dropped). Each is one branch
 * while timing is off. */
void sp__gpu_sptrsv_phase_begin(const sp_gpu_env_t *env);
void sp__gpu_sptrsv_phase_mark(const char *name);
void sp__gpu_sptrsv_phase_end(bool record);
/* Whether alg is one of the value-as-flag soft solves. */
static inline bool sp__gpu_sptrsv_value_alg(sp_gpu_sptrsv_alg_t alg)
{
    return alg == SP_GPU_SPTRSV_SOFT_VALUE || alg == SP_GPU_SPTRSV_SOFT_BLOCK;
}
/* SOFT_VALUE and SOFT_BLOCK (sptrsv_value.cu): the grid and ticket window of the plan, and
 * the solve (x filled with the sentinel, then one kernel). */
sp_status_t sp__gpu_sptrsv_value_grid(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan);
sp_status_t sp__gpu_sptrsv_value_solve(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                                       const sp_csr_t *a, const void *alpha, const void *d_b,
                                       void *d_x);
/* SOFT_VALUE and SOFT_BLOCK in the level order: the level-merged triangle of the plan
 * (sptrsv_merge.cu), where it gains; d_level: the analysis's levels (1 = no dependency). */
sp_status_t sp__gpu_sptrsv_value_merge(const sp_gpu_env_t *env, const sp_csr_t *a,
                                       sp_gpu_sptrsv_plan_t *plan, const int32_t *d_level);
/* SOFT (all variants): rank, ticket, then flags and grid (flag kernels) or grid only (value
 * kernels) of the plan (allocated through env; freed by plan_free). */
sp_status_t sp__gpu_sptrsv_soft_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan);
sp_status_t sp__gpu_sptrsv_soft_solve(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                                      const sp_csr_t *a, const void *alpha, const void *d_b,
                                      void *d_x);
/* LEVELS and SOFT: rows grouped by level (counting sort of d_level) and the host level
 * offsets. */
sp_status_t sp__gpu_sptrsv_levels_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan,
                                          const int32_t *d_level);
/* WAVE (sptrsv_wave.cu): units, counters, grid and window of the plan; the solve. */
sp_status_t sp__gpu_sptrsv_wave_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan);
sp_status_t sp__gpu_sptrsv_wave_solve(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                                      const sp_csr_t *a, const void *alpha, const void *d_b,
                                      void *d_x);
/* SMALL (sptrsv_small.cu): the shared-memory opt-in of its kernel; the solve. */
sp_status_t sp__gpu_sptrsv_small_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan);
sp_status_t sp__gpu_sptrsv_small_solve(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                                       const sp_csr_t *a, const void *alpha, const void *d_b,
                                       void *d_x);
sp_status_t sp__gpu_sptrsv_levels_solve(const sp_gpu_env_t *env,
                                        const sp_gpu_sptrsv_plan_t *plan, const sp_csr_t *a,
                                        const void *alpha, const void *d_b, void *d_x);

#endif /* SP_SPTRSV_COMMON_CUH */
