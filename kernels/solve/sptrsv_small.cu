/* x = alpha * T^-1 b for a triangle whose x fits in shared memory: level scheduling
 * (Anderson & Saad 1989) inside one block, levels separated by __syncthreads instead of
 * launches or global ready flags, x kept in shared memory and written out once at the end.
 * A level step then costs a barrier and shared-memory reads; what a row needs from global
 * memory (its position in the level order, its entries, b and the diagonal) is loaded for
 * the next level before the current one is computed, so those loads overlap the barrier,
 * and where the whole matrix fits in L1 it is hinted there first.
 * One block: no inter-block waiting, so nothing to deadlock. Rows are summed in entry order
 * (the same bits on every run). */
#include "solve/sptrsv_common.cuh"

using namespace sptrsv;

namespace
{

constexpr int small_threads = 512;
/* The kernel first hints the whole matrix into L1 when it takes at most this many bytes
 * (L1 and shared memory share 256 KiB per SM on sm_90; x takes up to 96 KiB of it), so
 * that the loads of a level (position -> row -> entries: dependent) hit L1, not L2. */
constexpr int64_t small_prefetch_max_bytes = 96 * 1024;

/* Bytes of what a solve reads besides x: level order, level offsets, row pointers and
 * bounds (os bytes each: the offsets' width), b, and every entry (the other triangle's too:
 * it shares the lines). */
int64_t prefetch_bytes(const sp_gpu_sptrsv_plan_t *plan, int64_t nnz, int64_t os)
{
    int64_t vs = (int64_t)sp_value_size(plan->value_type);
    return plan->n * (4 + 2 * os + vs) + plan->nlevels * 4 + nnz * (4 + vs);
}

/* Off: the type of entry positions (strict_range). */
template <typename T, typename Off> struct small_args {
    const Off *ptr;
    const int32_t *idx;
    const Off *bound;
    const int32_t *order, *level_ptr;
    const T *val, *b;
    T *x;
    T alpha;
    int64_t n, nlevels, nnz;
    bool unit, prefetch;
};

/* Hints bringing count elements of size bytes each at p into L1, a line per thread. */
__device__ __forceinline__ void prefetch_all(const void *p, int64_t count, size_t size)
{
    const char *c = static_cast<const char *>(p);
    for (int64_t off = (int64_t)threadIdx.x * 128; off < count * (int64_t)size;
         off += (int64_t)small_threads * 128)
        prefetch_l1(c + off);
}

/* One row's data besides the values it depends on: its first E entries in registers. */
template <typename T, bool UPPER, typename Off> struct small_row {
    static constexpr int E = P::row_window;
    int64_t r, k, k1;
    T rhs, diag;
    int32_t c[E];
    T w[E];

    __device__ __forceinline__ void load_window(const small_args<T, Off> &a)
    {
#pragma unroll
        for (int e = 0; e < E; e++) {
            c[e] = -1;
            w[e] = T(0);
            if (k + e < k1) {
                int32_t col = __ldg(a.idx + k + e);
                if (UPPER ? col > r : col < r) {
                    c[e] = col;
                    w[e] = __ldg(a.val + k + e);
                }
            }
        }
    }
    /* row at position i of the level order, or none (r = -1) past the level's end */
    __device__ __forceinline__ void load(const small_args<T, Off> &a, int64_t i, int64_t end)
    {
        r = -1;
        k = k1 = 0;
        if (i >= end) return;
        r = __ldg(a.order + i);
        strict_range(a.ptr, a.bound, r, UPPER, &k, &k1);
        rhs = a.alpha * __ldg(a.b + r);
        diag = a.unit ? T(1) : __ldg(a.val + diag_pos(a.bound, r, UPPER));
        load_window(a);
    }
    /* x_r into s_x from the earlier levels' values in s_x */
    __device__ __forceinline__ void solve(const small_args<T, Off> &a, T *s_x)
    {
        T acc = T(0);
        for (;;) {
#pragma unroll
            for (int e = 0; e < E; e++)
                if (c[e] >= 0) acc = acc + w[e] * s_x[c[e]];
            k += E;
            if (k >= k1) break;
            load_window(a);
        }
        T s = rhs - acc;
        s_x[r] = a.unit ? s : s / diag;
    }
};

__device__ __forceinline__ int64_t level_end(const int32_t *level_ptr, int64_t l, int64_t nl,
                                             int64_t n)
{
    return l + 1 < nl ? (int64_t)__ldg(level_ptr + l + 1) : n;
}

template <typename T, bool UPPER, typename Off>
__global__ void __launch_bounds__(small_threads) small_kernel(small_args<T, Off> a)
{
    extern __shared__ unsigned char s_raw[];
    T *s_x = reinterpret_cast<T *>(s_raw);
    const int tid = threadIdx.x;
    small_row<T, UPPER, Off> cur, nxt;
    if (a.prefetch) { /* the whole matrix fits in L1: every level's loads then hit there */
        prefetch_all(a.order, a.n, sizeof(int32_t));
        prefetch_all(a.level_ptr, a.nlevels, sizeof(int32_t));
        prefetch_all(a.ptr, a.n, sizeof(Off));
        prefetch_all(a.bound, a.n, sizeof(Off));
        prefetch_all(a.b, a.n, sizeof(T));
        prefetch_all(a.idx, a.nnz, sizeof(int32_t));
        prefetch_all(a.val, a.nnz, sizeof(T));
    }
    /* level l holds positions [begin, end); the ends of levels l + 1 and l + 2 are loaded a
     * level ahead, so the offsets are not on the chain of dependent loads */
    const int64_t nl = a.nlevels;
    int64_t begin = 0, end = level_end(a.level_ptr, 0, nl, a.n);
    int64_t next_end = nl > 1 ? level_end(a.level_ptr, 1, nl, a.n) : end;
    cur.load(a, begin + tid, end);
    for (int64_t l = 0; l < nl; l++) {
        const int64_t after_end =
            l + 2 < nl ? level_end(a.level_ptr, l + 2, nl, a.n) : next_end;
        nxt.load(a, end + tid, next_end); /* the next level's first rows, in flight meanwhile */
        if (cur.r >= 0) cur.solve(a, s_x);
        for (int64_t i = begin + tid + small_threads; i < end; i += small_threads) {
            small_row<T, UPPER, Off> more;
            more.load(a, i, end);
            more.solve(a, s_x);
        }
        __syncthreads();
        cur = nxt;
        begin = end;
        end = next_end;
        next_end = after_end;
    }
    for (int64_t i = tid; i < a.n; i += small_threads)
        a.x[i] = s_x[i];
}

template <typename T, bool UPPER, typename Off>
void launch(const sp_gpu_sptrsv_plan_t *plan, const small_args<T, Off> &a, cudaStream_t s)
{
    small_kernel<T, UPPER, Off><<<1, small_threads, (size_t)plan->n * sizeof(T), s>>>(a);
}


} /* namespace */

sp_status_t sp__gpu_sptrsv_small_prepare(const sp_gpu_env_t *env, sp_gpu_sptrsv_plan_t *plan)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const void *kernel = NULL;
    (void)env;
    if ((size_t)plan->n * sp_value_size(plan->value_type) > SP_GPU_SPTRSV_SMALL_MAX_BYTES)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "sptrsv analyse: %lld rows exceed the single-block solve's %d bytes of x",
                (long long)plan->n, SP_GPU_SPTRSV_SMALL_MAX_BYTES);
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        if (plan->d_bound64)
            kernel = plan->upper ? (const void *)small_kernel<T, true, int64_t>
                                 : (const void *)small_kernel<T, false, int64_t>;
        else
            kernel = plan->upper ? (const void *)small_kernel<T, true, int32_t>
                                 : (const void *)small_kernel<T, false, int32_t>;
    });
    SP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     SP_GPU_SPTRSV_SMALL_MAX_BYTES));
done:
    return st;
}

sp_status_t sp__gpu_sptrsv_small_solve(const sp_gpu_env_t *env,
                                       const sp_gpu_sptrsv_plan_t *plan, const sp_csr_t *a,
                                       const void *alpha, const void *d_b, void *d_x)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    by_value(plan->value_type, [&](auto tag) {
        using T = decltype(tag);
        by_offset(a, [&](auto otag) {
            using Off = decltype(otag);
            small_args<T, Off> v = {
                row_ptr<Off>(a),
                a->idx,
                plan_bound<Off>(plan),
                plan->d_order,
                plan->d_level_ptr,
                static_cast<const T *>(a->val),
                static_cast<const T *>(d_b),
                static_cast<T *>(d_x),
                *static_cast<const T *>(alpha),
                plan->n,
                plan->nlevels,
                a->nnz,
                plan->unit_diag != 0,
                prefetch_bytes(plan, a->nnz, (int64_t)sizeof(Off)) <= small_prefetch_max_bytes};
            if (plan->upper)
                launch<T, true, Off>(plan, v, s);
            else
                launch<T, false, Off>(plan, v, s);
        });
    });
    SP_CUDA_LAUNCHED("sptrsv small kernel");
done:
    return st;
}
