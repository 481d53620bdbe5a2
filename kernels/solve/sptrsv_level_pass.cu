/* The analysis's dependency levels, level[r] = 1 + max level of the rows r depends on, in one
 * soft-synchronized pass in the natural order (ticket i = row i for a lower triangle, row
 * n-1-i for an upper one), the level array its own ready flag (0 until set). A warp takes
 * 32 consecutive tickets and loops in passes until every lane's row is published. In a
 * pass each lane polls its row's dependencies outside the unit (relaxed GPU-scope loads,
 * from the first one not yet seen finished: a level is the only datum read, so no fence),
 * then the unit's own dependencies are resolved by shuffles: a chain (each row depending at
 * most on the one before it in the unit, as a stencil line) by a segmented max-scan in 5
 * steps, any other pattern in ticket order (lane j is final once its outside dependencies
 * and the lanes it depends on are: one broadcast per lane that others depend on). A lane
 * publishes as soon as it is final, not when the whole unit is: where a unit holds the end
 * of one grid line and the start of the next (any line length not a multiple of 32), the
 * next line's rows do not wait for the previous unit, whose rows only the first segment
 * depends on. Waiting for the whole unit chained nearly every unit to the one before it:
 * unit hand-overs on the critical path, whole-unit wait against per-lane publish
 * (scripts/sptrsv-level-pass-model.c, 7-point stencils): 3D Poisson 100^3 14787 against 223, 2D 1000^2
 * 23780 against 1124, 128^3 (lines of 4 whole units) 258 either way.
 *
 * Why it cannot deadlock: a lane waits only on rows of smaller units, whose tickets were
 * claimed by running warps that finish them without waiting on anything later (the
 * argument of sptrsv_soft.cu), and on earlier lanes of its unit, resolved in the same pass
 * as the last of their outside dependencies. The grid is every resident warp: in the
 * natural order the rows in flight must span the wavefront, which on a 3D stencil crosses
 * every plane (a smaller window serializes the planes). */
#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace
{

__device__ __forceinline__ void store_relaxed(int32_t *p, int32_t v)
{
    asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Whether column col of row r is a dependency outside the unit starting at ticket first;
 * *inside: a dependency inside it, at lane *d. Entries outside the strict triangle
 * (possible only in unsorted input) are neither. */
template <bool UPPER>
__device__ __forceinline__ bool outside(int64_t col, int64_t r, int64_t n, int64_t first,
                                        bool *inside, int64_t *d)
{
    *inside = false;
    if (UPPER ? col <= r : col >= r) return false;
    *d = (UPPER ? n - 1 - col : col) - first;
    *inside = *d >= 0; /* d < lane: an earlier lane */
    return !*inside;
}

/* The lanes of the unit that row r (strict entries [k0, k1)) depends on. */
template <bool UPPER>
__device__ __forceinline__ unsigned unit_mask(const int32_t *__restrict__ idx, int64_t k0,
                                              int64_t k1, int64_t r, int64_t n, int64_t first)
{
    unsigned mask = 0;
    bool inside;
    int64_t d = 0;
#pragma unroll 4
    for (int64_t k = k0; k < k1; k++)
        if (!outside<UPPER>(__ldg(idx + k), r, n, first, &inside, &d) && inside)
            mask |= 1u << (unsigned)d;
    return mask;
}

/* Advances *k over row r's strict entries [*k, k1) while their dependencies outside the
 * unit are finished (level != 0), folding those levels into *ext (row_window loads in
 * flight); entries inside the unit are passed over. Returns whether all are finished. */
template <bool UPPER>
__device__ __forceinline__ bool poll_outside(const int32_t *__restrict__ idx, const int32_t *level,
                                             int64_t r, int64_t n, int64_t first, int64_t *k,
                                             int64_t k1, int32_t *ext)
{
    constexpr int E = P::row_window;
    constexpr uint32_t none = 0xffffffffu; /* an entry that is no outside dependency */
    while (*k < k1) {
        uint32_t v[E];
        int stop = E;
#pragma unroll
        for (int e = 0; e < E; e++) {
            bool inside;
            int64_t d = 0, col = 0;
            v[e] = none;
            if (*k + e < k1) {
                col = __ldg(idx + *k + e);
                if (outside<UPPER>(col, r, n, first, &inside, &d))
                    v[e] = load_relaxed(reinterpret_cast<const uint32_t *>(level + col));
            }
        }
#pragma unroll
        for (int e = E - 1; e >= 0; e--)
            if (v[e] == 0) stop = e;
#pragma unroll
        for (int e = 0; e < E; e++)
            if (e < stop && v[e] != none && (int32_t)v[e] > *ext) *ext = (int32_t)v[e];
        if (stop < E) {
            *k += stop;
            return false;
        }
        *k += E;
    }
    return true;
}

/* One pass's in-unit step for a chain unit (each lane depends at most on the one before it):
 * level = 1 + max(ext, level of lane - 1) unrolls to lane + 1 + max(ext_j - j) over j from
 * the lane's segment head (a lane with no in-unit dependency) to the lane: a segmented
 * max-scan, 5 shuffle steps. *ok: every lane from the head to this one is ready. */
__device__ __forceinline__ int32_t chain_level(int lane, int32_t ext, unsigned mask,
                                               unsigned heads, unsigned ready, bool *ok)
{
    const unsigned upto = (2u << lane) - 1u; /* lanes 0 .. lane (lane 31: all) */
    const unsigned from = 31u - (unsigned)__clz(heads & upto); /* lane 0 is always a head */
    const unsigned span = upto & ~((1u << from) - 1u);
    int32_t v = ext - lane;
    unsigned head = mask == 0;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int32_t ov = __shfl_up_sync(sp_prim::full_mask, v, d);
        unsigned oh = __shfl_up_sync(sp_prim::full_mask, head, d);
        if (lane >= d && !head) {
            v = v > ov ? v : ov;
            head = oh;
        }
    }
    *ok = (ready & span) == span;
    return lane + 1 + v;
}

/* One pass's in-unit step for any other unit: lanes in ticket order; lane j is final when it
 * is ready and every lane it depends on (all earlier) is final; a final lane's level is
 * folded into the lanes depending on it. *ok: this lane is final. */
__device__ __forceinline__ int32_t general_level(int32_t ext, unsigned mask, bool ready, bool *ok)
{
    unsigned feeders = __reduce_or_sync(sp_prim::full_mask, mask), fin = 0;
    while (feeders) {
        int j = __ffs(feeders) - 1;
        feeders &= feeders - 1;
        int jok = __shfl_sync(sp_prim::full_mask, (int)(ready && (mask & ~fin) == 0), j);
        int32_t lj = __shfl_sync(sp_prim::full_mask, ext + 1, j);
        if (jok) {
            fin |= 1u << (unsigned)j;
            if ((mask >> (unsigned)j) & 1u) ext = ext > lj ? ext : lj;
        }
    }
    *ok = ready && (mask & ~fin) == 0;
    return ext + 1;
}

/* One unit's state between passes, per lane, in 32-bit words where the matrix's offsets are
 * (Off int32_t; entry positions in Off, a row index and level in 32 bits either way): the
 * next entry to poll and the end of the strict entries, the max level of the outside
 * dependencies seen so far, the lanes of the unit the row depends on. The row (from the
 * unit's first ticket and the lane) and the unit's heads (a ballot of the masks) are
 * recomputed each pass: registers bound how many warps are resident, and the units a warp
 * holds multiply its state. */
template <typename Off>
struct unit_state {
    Off k, k1;
    int32_t ext;
    unsigned mask;
};

/* Starts a unit: its state, and whether it is a chain (every lane depending at most on the
 * lane before it; warp-uniform). */
template <bool UPPER, typename Off>
__device__ __forceinline__ bool unit_start(const Off *__restrict__ ptr,
                                           const int32_t *__restrict__ idx,
                                           const Off *__restrict__ bound, int64_t n,
                                           int64_t first, int lane, unit_state<Off> *u)
{
    const int64_t i = first + lane;
    int64_t k = 0, k1 = 0;
    u->mask = 0;
    u->ext = 0;
    if (i < n) {
        int64_t r = row_of(i, n, UPPER);
        strict_range(ptr, bound, r, UPPER, &k, &k1);
        u->mask = unit_mask<UPPER>(idx, k, k1, r, n, first);
    }
    u->k = (Off)k;
    u->k1 = (Off)k1;
    return __all_sync(sp_prim::full_mask,
                      u->mask == 0 || u->mask == 1u << (unsigned)(lane - 1));
}

/* One pass over one unit not yet published: poll, resolve inside the unit, publish the lanes
 * that became final. Returns whether this lane is published after the pass; *fresh: it
 * published in this pass. */
template <bool UPPER, typename Off>
__device__ __forceinline__ bool unit_pass(const int32_t *__restrict__ idx, int32_t *level,
                                          int64_t n, int64_t first, int lane, bool chain,
                                          bool published, unit_state<Off> *u, bool *fresh,
                                          int32_t *published_max)
{
    const int64_t i = first + lane;
    const int64_t r = i < n ? row_of(i, n, UPPER) : 0;
    int64_t k = u->k;
    bool ready = poll_outside<UPPER>(idx, level, r, n, first, &k, u->k1, &u->ext), ok;
    u->k = (Off)k;
    unsigned ready_lanes = __ballot_sync(sp_prim::full_mask, ready);
    unsigned heads = __ballot_sync(sp_prim::full_mask, u->mask == 0);
    int32_t lev = chain ? chain_level(lane, u->ext, u->mask, heads, ready_lanes, &ok)
                        : general_level(u->ext, u->mask, ready, &ok);
    *fresh = ok && !published;
    if (*fresh) {
        store_relaxed(level + r, lev);
        *published_max = *published_max > lev ? *published_max : lev;
    }
    return published || *fresh;
}

/* A warp takes R consecutive units a ticket (32 R rows) and passes over all of them until
 * every row is published: R times the rows in flight for the same resident warps. In the
 * natural order the rows in flight must span the wavefront for the pass to run at its
 * dependency chain's pace: on a 3D stencil that is every plane (a line's rows wait on the
 * line before, a plane's on the plane before, so the planes in flight advance together),
 * and with fewer rows in flight the planes go through the window in turns. Unit j + 1's
 * first row reads unit j's last through the level array, published earlier in the same
 * pass by this warp (a __syncwarp orders the lanes' store and load). */
template <bool UPPER, int R, typename Off>
__global__ void __launch_bounds__(P::block_threads)
    level_pass_kernel(const Off *__restrict__ ptr, const int32_t *__restrict__ idx,
                      const Off *__restrict__ bound, int64_t n, int32_t *level,
                      unsigned *max_level, unsigned long long *ticket)
{
    const int lane = threadIdx.x & 31;
    const int64_t tickets = ceil_div(ceil_div(n, 32), R);
    int32_t published_max = 0;
    for (;;) {
        unsigned long long t = 0;
        if (lane == 0) t = atomicAdd(ticket, 1ull);
        t = __shfl_sync(sp_prim::full_mask, t, 0);
        if ((int64_t)t >= tickets) break;
        const int64_t first = (int64_t)t * R * 32;
        unit_state<Off> u[R];
        unsigned chains = 0, done = 0; /* bit j: unit j is a chain / this lane's row of unit
                                          j is published (or past the last row) */
#pragma unroll
        for (int j = 0; j < R; j++) {
            if (unit_start<UPPER, Off>(ptr, idx, bound, n, first + 32 * j, lane, &u[j]))
                chains |= 1u << j;
            if (first + 32 * j + lane >= n) done |= 1u << j;
        }
        spin sp;
        for (;;) {
            bool fresh_any = false;
#pragma unroll
            for (int j = 0; j < R; j++) {
                if (__all_sync(sp_prim::full_mask, (done >> j) & 1u)) continue;
                bool fresh;
                if (unit_pass<UPPER, Off>(idx, level, n, first + 32 * j, lane,
                                          (chains >> j) & 1u, (done >> j) & 1u, &u[j], &fresh,
                                          &published_max))
                    done |= 1u << j;
                fresh_any |= fresh;
                __syncwarp(); /* unit j's stores before unit j + 1's loads of them */
            }
            if (__all_sync(sp_prim::full_mask, done == (1u << R) - 1u)) break;
            if (__any_sync(sp_prim::full_mask, fresh_any))
                sp.reset();
            else
                sp.pause();
        }
    }
    published_max = warp_reduce<level_max>(published_max);
    if (lane == 0 && published_max > 0) atomicMax(max_level, (unsigned)published_max);
}

/* Units a ticket: forced by the test hook (sp__gpu_sptrsv_set_level_units), else chosen at
 * launch (sp__gpu_sptrsv_level_pass). */
static int level_rows_forced = 0;

template <bool UPPER, typename Off>
const void *level_kernel(int R)
{
    switch (R) {
    case 1: return (const void *)level_pass_kernel<UPPER, 1, Off>;
    case 2: return (const void *)level_pass_kernel<UPPER, 2, Off>;
    case 4: return (const void *)level_pass_kernel<UPPER, 4, Off>;
    default: return (const void *)level_pass_kernel<UPPER, 8, Off>;
    }
}

/* The level pass at the offset width Off (sp__gpu_sptrsv_level_pass). */
template <typename Off>
sp_status_t level_pass(const sp_gpu_env_t *env, const sp_csr_t *a,
                       const sp_gpu_sptrsv_plan_t *plan, int32_t *d_level,
                       unsigned *d_max_level, unsigned long long *d_ticket)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    const int64_t units = ceil_div(plan->n, 32);
    int64_t sms = 0, resident = 0, need;
    int R = level_rows_forced;
    const void *kernel;
    unsigned grid;
    if (R == 0) {
        /* the fewest units a ticket that put every unit in flight, else the most in flight
         * (more units a warp cost registers, so fewer warps are resident), at most 4: 8
         * holds the most in flight but each pass walks 8 units, and it was slower than 4
         * on every stencil measured (H200: Poisson 100^3 level pass 1.01 against 0.86 ms,
         * 128^3 1.31 against 1.18, 2D 1000^2 3.87 against 2.87) */
        int64_t best = -1;
        for (int c = 1; c <= 4; c *= 2) {
            const void *k =
                plan->upper ? level_kernel<true, Off>(c) : level_kernel<false, Off>(c);
            SP_TRY(resident_blocks(env, k, P::block_threads, &sms, &resident));
            int64_t window = (int64_t)c * resident * P::warps; /* units in flight */
            if (window > best) best = window, R = c;
            if (window >= units) break;
        }
    }
    kernel = plan->upper ? level_kernel<true, Off>(R) : level_kernel<false, Off>(R);
    SP_TRY(resident_blocks(env, kernel, P::block_threads, &sms, &resident));
    need = ceil_div(ceil_div(units, R), P::warps);
    grid = (unsigned)(need < resident ? need : resident);
    {
        const Off *ptr = row_ptr<Off>(a), *bound = plan_bound<Off>(plan);
        const int32_t *idx = a->idx;
        int64_t n = plan->n;
        void *args[] = {(void *)&ptr, (void *)&idx, (void *)&bound, (void *)&n,
                        (void *)&d_level, (void *)&d_max_level, (void *)&d_ticket};
        SP_CUDA_TRY(cudaLaunchKernel(kernel, dim3(grid), dim3(P::block_threads), args, 0, s));
    }
    SP_CUDA_LAUNCHED("sptrsv level pass");
done:
    return st;
}

} /* namespace */

void sp__gpu_sptrsv_set_level_units(int units)
{
    level_rows_forced = units == 1 || units == 2 || units == 4 || units == 8 ? units : 0;
}

sp_status_t sp__gpu_sptrsv_level_pass(const sp_gpu_env_t *env, const sp_csr_t *a,
                                      const sp_gpu_sptrsv_plan_t *plan, int32_t *d_level,
                                      unsigned *d_max_level, unsigned long long *d_ticket)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    by_offset(a, [&](auto otag) {
        st = level_pass<decltype(otag)>(env, a, plan, d_level, d_max_level, d_ticket);
    });
    return st;
}
