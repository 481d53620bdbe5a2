/* x = alpha * T^-1 b in one soft-synchronized kernel where x is its own ready flag (the
 * value-as-flag variant of sptrsv_soft.cu, after the sync-free SpTRSV of Liu et al. 2016
 * and the soft synchronization of Funasaka et al.): before the launch every x slot holds a
 * sentinel (all bits set, a NaN); a row's result is published by one relaxed store of its
 * value (a result with the sentinel's bits is stored as an ordinary quiet NaN), and a
 * consumer polls x[c] with relaxed GPU-scope loads until it is not the sentinel. One L2
 * round trip per dependency, no fence, no separate flag. Rows are handed out by an atomic
 * ticket in the plan's order (level order on wide levels, else natural); a unit is 32
 * consecutive tickets per warp (SOFT_VALUE), 256 per block (SOFT_BLOCK), a lane per row,
 * or one row per warp on long rows. Inside a unit a row reads an earlier row's result from
 * shared memory (also sentinel-initialised), so a chain costs a shared-memory hand-over
 * per row, not an L2 round trip.
 *
 * Why it cannot deadlock, whatever the scheduler does: the argument of sptrsv_soft.cu. A
 * unit's ticket is claimed by a running warp (block) that does not exit before its rows are
 * finished, and every row waits only on rows of smaller tickets: rows of earlier units,
 * already claimed by running warps, or earlier rows of its own unit, held by its own warp
 * or by an earlier warp of its own (resident) block. The wait loop of a warp is convergent:
 * every pass lets each lane consume every entry whose value is there, so the earliest
 * unfinished row of the unit advances once its dependencies are published, and published
 * rows stay published (a slot is written once per solve). By induction on the ticket the
 * row with the smallest unfinished ticket always completes. A block's units are claimed
 * between two __syncthreads that every warp of the block reaches after finishing its rows,
 * which needs nothing but those rows. The warp-per-row kernel's lanes spin alone, but only
 * on rows of other units (earlier tickets, other warps or this warp's finished rows).
 *
 * No reuse problem: the sentinel fill before each solve (one memset) resets every flag;
 * tickets use the window scheme of sptrsv_soft.cu. Memory model: the value is the only
 * datum a consumer reads from the producer, so a morally strong (relaxed, GPU scope) store
 * and load of an aligned 32- or 64-bit word suffice, no acquire or release. */
#include <type_traits>

#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace {

/* The bit pattern of a value, the sentinel and its stand-in. */
template <typename T>
struct slot;
template <>
struct slot<float> {
    using U = uint32_t;
    static constexpr U sentinel = 0xffffffffu, quiet_nan = 0x7fc00000u;
    __device__ static U bits(float v) { return __float_as_uint(v); }
    __device__ static float value(U u) { return __uint_as_float(u); }
    __device__ static U load(const float *p)
    {
        U v;
        asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p));
        return v;
    }
    __device__ static void store(float *p, U v)
    {
        asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
    }
};
template <>
struct slot<double> {
    using U = unsigned long long;
    static constexpr U sentinel = ~0ull, quiet_nan = 0x7ff8000000000000ull;
    __device__ static U bits(double v) { return (U)__double_as_longlong(v); }
    __device__ static double value(U u) { return __longlong_as_double((long long)u); }
    __device__ static U load(const double *p)
    {
        U v;
        asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p));
        return v;
    }
    __device__ static void store(double *p, U v)
    {
        asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
    }
};

/* The unit's shared slots. A lane reads another lane's slot in the same pass in which
 * that lane may publish it (a warp's unit), or another warp's slot with no barrier between
 * them (a block's unit), so every access to the slots is a shared-memory atomic (a
 * compare-and-swap that stores what it finds, and an exchange): race-free in the memory
 * model, and not hazards to compute-sanitizer's racecheck (which reported the plain
 * volatile hand-over of both units). */
template <typename U>
__device__ __forceinline__ U unit_get(volatile U *p)
{
    return atomicCAS(const_cast<U *>(p), (U)0, (U)0);
}
template <typename U>
__device__ __forceinline__ void unit_put(volatile U *p, U v)
{
    (void)atomicExch(const_cast<U *>(p), v);
}

/* Off: the type of entry positions (strict_range). */
template <typename T, typename Off>
struct value_args {
    const Off *ptr;
    const int32_t *idx;
    const Off *bound;
    const int32_t *order, *rank;
    const T *val, *b;
    T *x;
    T alpha;
    int64_t n;
    bool unit;
    unsigned long long *ticket, window;
    /* a level-merged plan's right-hand-side terms (sptrsv_merge.cu: wcount[r] of them from
     * the CSR's row pointer wptr[r]), else NULL */
    const int32_t *wptr, *wcount, *widx;
    const T *wval;
};

/* What a row needs besides its sum, loaded when the row is taken (off the wait). */
template <typename T, bool UPPER, typename Off>
__device__ __forceinline__ void row_start(const value_args<T, Off> &a, int64_t r, int64_t *k,
                                          int64_t *k1, T *rhs, T *diag)
{
    strict_range(a.ptr, a.bound, r, UPPER, k, k1);
    T br = a.b[r];
    if (a.wcount) /* a merged row: b_r - sum_j f_j b_j */
        for (int32_t e = a.wptr[r], end = e + a.wcount[r]; e < end; e++)
            br -= a.wval[e] * a.b[a.widx[e]];
    *rhs = a.alpha * br;
    *diag = a.unit ? T(1) : a.val[diag_pos(a.bound, r, UPPER)];
}

/* x_r as published: (rhs - acc) / diag, never the sentinel's bits. */
template <typename T>
__device__ __forceinline__ typename slot<T>::U finish_bits(T rhs, T acc, T diag, bool unit)
{
    T s = rhs - acc;
    typename slot<T>::U u = slot<T>::bits(unit ? s : s / diag);
    return u == slot<T>::sentinel ? slot<T>::quiet_nan : u;
}

/* The published bits of dependency c of row r (unit starting at ticket first, the unit's
 * shared slots s_unit), or the sentinel while c is not finished. Natural order: the ticket
 * of c says whether it is in the unit. Level order: x first (a dependency in the unit is
 * rare there), then the rank says whether c is in the unit. */
template <typename T, bool UPPER, bool ORDERED, int UNIT, typename Off>
__device__ __forceinline__ typename slot<T>::U fetch(const value_args<T, Off> &a, int64_t c,
                                                     int64_t first,
                                                     volatile typename slot<T>::U *s_unit)
{
    int64_t d;
    if (!ORDERED) {
        d = (UPPER ? a.n - 1 - c : c) - first;
        return d >= 0 && d < UNIT ? unit_get(s_unit + d) : slot<T>::load(a.x + c);
    }
    typename slot<T>::U v = slot<T>::load(a.x + c);
    if (v != slot<T>::sentinel) return v;
    d = (int64_t)__ldg(a.rank + c) - first;
    return d >= 0 && d < UNIT ? unit_get(s_unit + d) : v;
}

/* A lane's row: its entries from k on, the next row_window of them in registers (loaded
 * before they are waited on, so a wait costs only the load of the value): c[e] the column
 * (-1 for an entry outside the strict triangle, possible only in unsorted input, which adds
 * nothing and waits on nothing), w[e] the coefficient, p the next one to add, m how many
 * are loaded. */
template <typename T, int E>
struct row_entries {
    int64_t k, k1;
    int p, m;
    int32_t c[E];
    T w[E];

    template <bool UPPER, typename Off>
    __device__ __forceinline__ void load(const value_args<T, Off> &a, int64_t r)
    {
        m = k1 - k < E ? (int)(k1 - k) : E;
        p = 0;
#pragma unroll
        for (int e = 0; e < E; e++) {
            c[e] = -1;
            w[e] = T(0);
            if (e < m) {
                int32_t col = __ldg(a.idx + k + e);
                if (UPPER ? col > r : col < r) {
                    c[e] = col;
                    w[e] = __ldg(a.val + k + e);
                }
            }
        }
    }
};

/* Adds to *acc, in entry order, row r's entries while their values are there (the
 * window's loads in flight together). Returns whether any was added; all are once
 * e->k == e->k1. */
template <typename T, bool UPPER, bool ORDERED, int UNIT, int E, typename Off>
__device__ __forceinline__ bool consume(const value_args<T, Off> &a, int64_t r, int64_t first,
                                        volatile typename slot<T>::U *s_unit,
                                        row_entries<T, E> *e, T *acc)
{
    using U = typename slot<T>::U;
    bool any = false;
    while (e->k < e->k1) {
        U v[E];
#pragma unroll
        for (int j = 0; j < E; j++) {
            v[j] = slot<T>::bits(T(0));
            if (j >= e->p && j < e->m && e->c[j] >= 0)
                v[j] = fetch<T, UPPER, ORDERED, UNIT, Off>(a, e->c[j], first, s_unit);
        }
        int took = e->p;
#pragma unroll
        for (int j = 0; j < E; j++)
            if (took == j && j < e->m && v[j] != slot<T>::sentinel) {
                *acc = *acc + e->w[j] * slot<T>::value(v[j]);
                took++;
            }
        any |= took > e->p;
        e->p = took;
        if (took < e->m) break;
        e->k += e->m;
        if (e->k < e->k1) e->template load<UPPER>(a, r);
    }
    return any;
}

/* Benchmark hook (sp__gpu_sptrsv_set_value_tuning): the lane-per-row kernels' longest
 * sleep between polls (P::backoff_max_ns unless set; 0: poll without sleeping) and the
 * level-order grid's floor of warps an SM (P::warps_per_sm_min unless set). */
__constant__ unsigned c_backoff_max_ns = P::backoff_max_ns;
static int tuning_warps_per_sm = 0;

/* A lane per row, UNIT consecutive tickets per claim: 32 by a warp, or THREADS by the
 * block. Each pass, every unfinished lane consumes what it can (consume); a finished row is
 * stored to x and to the unit's shared slot. A warp sleeps (spin) only after passes in
 * which none of its lanes progressed. */
template <typename T, bool UPPER, bool ORDERED, int THREADS, int UNIT, int E, typename Off>
__global__ void __launch_bounds__(THREADS) value_unit_kernel(value_args<T, Off> a)
{
    using U = typename slot<T>::U;
    __shared__ U s_x[THREADS];
    __shared__ long long s_unit_index;
    const int pos = UNIT == 32 ? (int)(threadIdx.x & 31) : (int)threadIdx.x;
    volatile U *s_unit = s_x + (threadIdx.x - pos);
    const int64_t units = ceil_div(a.n, UNIT);
    bool first_claim = true;
    unsigned long long base = 0;
    for (;;) {
        int64_t u;
        if (UNIT == 32) {
            unit_put(s_unit + pos, slot<T>::sentinel);
            u = claim_warp(a.ticket, a.window, &first_claim, &base);
            __syncwarp();
        } else {
            __syncthreads(); /* every warp is done with the last unit's slots */
            if (threadIdx.x < 32) {
                int64_t w = claim_warp(a.ticket, a.window, &first_claim, &base);
                if (threadIdx.x == 0) s_unit_index = w;
            }
            unit_put(s_unit + pos, slot<T>::sentinel);
            __syncthreads();
            u = s_unit_index;
        }
        if (u >= units) break;
        const int64_t first = u * UNIT, i = first + pos;
        bool done = i >= a.n;
        int64_t r = 0;
        row_entries<T, E> ent;
        T acc = T(0), rhs = T(0), diag = T(1);
        ent.k = ent.k1 = 0;
        if (!done) {
            r = ORDERED ? (int64_t)a.order[i] : row_of(i, a.n, UPPER);
            row_start<T, UPPER, Off>(a, r, &ent.k, &ent.k1, &rhs, &diag);
            ent.template load<UPPER>(a, r);
        }
        spin_capped sp(c_backoff_max_ns);
        for (;;) {
            bool progressed = false;
            if (!done) {
                progressed =
                    consume<T, UPPER, ORDERED, UNIT, E, Off>(a, r, first, s_unit, &ent, &acc);
                if (ent.k >= ent.k1) {
                    U xr = finish_bits(rhs, acc, diag, a.unit);
                    unit_put(s_unit + pos, xr);
                    slot<T>::store(a.x + r, xr);
                    done = progressed = true;
                }
            }
            __syncwarp(); /* this pass's slots visible to the warp's next pass */
            if (__ballot_sync(sp_prim::full_mask, !done) == 0) break;
            if (__ballot_sync(sp_prim::full_mask, progressed))
                sp.reset();
            else
                sp.pause();
        }
    }
}

/* A warp per row: the lanes stride over the row's entries, each loading its entries and
 * then waiting on their values (rows of earlier tickets, never of this row), a warp
 * reduction, and lane 0 publishes. */
template <typename T, bool UPPER, bool ORDERED, typename Off>
__global__ void __launch_bounds__(P::block_threads) value_warp_kernel(value_args<T, Off> a)
{
    using U = typename slot<T>::U;
    const int lane = threadIdx.x & 31;
    bool first_claim = true;
    unsigned long long base = 0;
    for (;;) {
        int64_t u = claim_warp(a.ticket, a.window, &first_claim, &base);
        if (u >= a.n) break;
        int64_t r = ORDERED ? (int64_t)a.order[u] : row_of(u, a.n, UPPER), k0, k1;
        T rhs, diag, acc = T(0);
        row_start<T, UPPER, Off>(a, r, &k0, &k1, &rhs, &diag);
        for (int64_t k = k0 + lane; k < k1; k += 32) {
            int64_t c = __ldg(a.idx + k);
            if (UPPER ? c <= r : c >= r) continue;
            T w = __ldg(a.val + k);
            U v = slot<T>::load(a.x + c);
            if (v == slot<T>::sentinel) {
                spin sp;
                do {
                    sp.pause();
                    v = slot<T>::load(a.x + c);
                } while (v == slot<T>::sentinel);
            }
            acc = acc + w * slot<T>::value(v);
        }
        acc = warp_reduce<solve_op<T>>(acc);
        if (lane == 0) slot<T>::store(a.x + r, finish_bits(rhs, acc, diag, a.unit));
        __syncwarp();
    }
}

/* One launch shape: its kernel, block size, rows per claim and claims per block. */
struct shape {
    const void *kernel;
    int threads, unit, claims_per_block;
};

template <typename T, bool UPPER, bool ORDERED, typename Off>
shape shape_of(const sp_gpu_sptrsv_plan_t *plan)
{
    constexpr int B = P::block_chunk, E = P::row_window; /* merged rows fit E too */
    if (plan->warp_per_row)
        return {(const void *)value_warp_kernel<T, UPPER, ORDERED, Off>, P::block_threads, 1,
                P::warps};
    if (plan->alg == SP_GPU_SPTRSV_SOFT_BLOCK)
        return {(const void *)value_unit_kernel<T, UPPER, ORDERED, B, B, E, Off>, B, B, 1};
    return {(const void *)value_unit_kernel<T, UPPER, ORDERED, P::block_threads, 32, E, Off>,
            P::block_threads, 32, P::warps};
}

template <typename T, typename Off>
shape shape_by_order(const sp_gpu_sptrsv_plan_t *plan)
{
    if (plan->upper)
        return plan->ordered ? shape_of<T, true, true, Off>(plan)
                             : shape_of<T, true, false, Off>(plan);
    return plan->ordered ? shape_of<T, false, true, Off>(plan)
                         : shape_of<T, false, false, Off>(plan);
}

/* Blocks of a launch: at most the resident count (every claimer runs), at most one claim
 * per unit; in the level order at most max(two widest levels of units, warps_per_sm_min
 * warps per SM), as the flag kernels (sptrsv_soft.cu, solve_warps). */
sp_status_t grid_of(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan, const shape &sh,
                    unsigned *grid)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t sms = 0, resident = 0;
    SP_TRY(resident_blocks(env, sh.kernel, sh.threads, &sms, &resident));
    {
        int64_t need = ceil_div(ceil_div(plan->n, sh.unit), sh.claims_per_block);
        if (plan->ordered) {
            int64_t widest = 0;
            for (int64_t l = 0; l < plan->nlevels; l++) {
                int64_t w = plan->h_level_ptr[l + 1] - plan->h_level_ptr[l];
                if (w > widest) widest = w;
            }
            int64_t want = ceil_div(2 * ceil_div(widest, sh.unit), sh.claims_per_block);
            int64_t floor_warps = tuning_warps_per_sm > 0 ? tuning_warps_per_sm : P::warps_per_sm_min;
            int64_t floor_blocks = ceil_div(sms * floor_warps, sh.threads / 32);
            if (want < floor_blocks) want = floor_blocks;
            if (want < need) need = want;
        }
        *grid = (unsigned)(need < resident ? need : resident);
    }
done:
    return st;
}

template <typename T, bool UPPER, bool ORDERED, typename Off>
void launch(const sp_gpu_sptrsv_plan_t *plan, const value_args<T, Off> &a, cudaStream_t s)
{
    constexpr int B = P::block_chunk, E = P::row_window;
    if (plan->warp_per_row)
        value_warp_kernel<T, UPPER, ORDERED, Off><<<plan->grid, P::block_threads, 0, s>>>(a);
    else if (plan->alg == SP_GPU_SPTRSV_SOFT_BLOCK)
        value_unit_kernel<T, UPPER, ORDERED, B, B, E, Off><<<plan->grid, B, 0, s>>>(a);
    else
        value_unit_kernel<T, UPPER, ORDERED, P::block_threads, 32, E, Off>
            <<<plan->grid, P::block_threads, 0, s>>>(a);
}

} /* namespace */

void sp__gpu_sptrsv_set_value_tuning(int warps_per_sm, int backoff_max_ns)
{
    unsigned cap = backoff_max_ns >= 0 ? (unsigned)backoff_max_ns : P::backoff_max_ns;
    tuning_warps_per_sm = warps_per_sm > 0 ? warps_per_sm : 0;
    (void)cudaMemcpyToSymbol(c_backoff_max_ns, &cap, sizeof cap);
}

sp_status_t sp__gpu_sptrsv_value_grid(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    shape sh = {};
    by_value(plan->value_type, [&](auto tag) {
        if (plan->d_bound64)
            sh = shape_by_order<decltype(tag), int64_t>(plan);
        else
            sh = shape_by_order<decltype(tag), int32_t>(plan);
    });
    SP_TRY(grid_of(env, plan, sh, &plan->grid));
    plan->window = (unsigned long long)ceil_div(plan->n, sh.unit) +
                   (unsigned long long)plan->grid * (unsigned long long)sh.claims_per_block;
done:
    return st;
}

sp_status_t sp__gpu_sptrsv_value_solve(const sp_gpu_env_t *env, const sp_gpu_sptrsv_plan_t *plan,
                                       const sp_csr_t *a, const void *alpha, const void *d_b,
                                       void *d_x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    /* the sentinel: all bits set, in both types */
    SP_CUDA_TRY(cudaMemsetAsync(d_x, 0xff, (size_t)plan->n * sp_value_size(plan->value_type), s));
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        by_offset(a, [&](auto otag) {
            using Off = decltype(otag);
            value_args<T, Off> v = {row_ptr<Off>(a),
                                    a->idx,
                                    plan_bound<Off>(plan),
                                    plan->ordered ? plan->d_order : nullptr,
                                    plan->d_rank,
                                    static_cast<const T *>(a->val),
                                    static_cast<const T *>(d_b),
                                    static_cast<T *>(d_x),
                                    *static_cast<const T *>(alpha),
                                    plan->n,
                                    plan->unit_diag != 0,
                                    plan->d_ticket,
                                    plan->window,
                                    nullptr,
                                    nullptr,
                                    nullptr,
                                    nullptr};
            if constexpr (std::is_same_v<Off, int32_t>) {
                if (plan->merged) { /* the level-merged triangle (32-bit offsets only) */
                    v.ptr = plan->d_mptr;
                    v.idx = plan->d_midx;
                    v.bound = plan->d_mbound;
                    v.val = static_cast<const T *>(plan->d_mval);
                    v.unit = false; /* the merged rows hold their diagonal (1 if unit) */
                    v.wptr = a->ptr; /* the CSR's own row pointers */
                    v.wcount = plan->d_wcount;
                    v.widx = plan->d_widx;
                    v.wval = static_cast<const T *>(plan->d_wval);
                }
            }
            if (plan->upper && plan->ordered)
                launch<T, true, true, Off>(plan, v, s);
            else if (plan->upper)
                launch<T, true, false, Off>(plan, v, s);
            else if (plan->ordered)
                launch<T, false, true, Off>(plan, v, s);
            else
                launch<T, false, false, Off>(plan, v, s);
        });
    });
    SP_CUDA_LAUNCHED("sptrsv value kernel");
done:
    return st;
}
