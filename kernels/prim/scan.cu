/* Exclusive prefix sum in one pass with decoupled look-back (Merrill & Garland, "Single-
 * pass Parallel Prefix Scan with Decoupled Look-back", 2016): each block scans a tile,
 * publishes its aggregate, sums its predecessors' published values back to the nearest
 * inclusive prefix, then publishes its own inclusive prefix.
 * Soft synchronization (Funasaka et al.): a block takes its tile from an atomic ticket,
 * not blockIdx, so every tile below its own belongs to a block that is already running;
 * it only ever waits on those, and tile 0 waits on nobody, so no schedule can deadlock. */
#include <cuda/atomic>

#include "prim_common.cuh"
#include "prim_policy.h"
#include "sp_kernels.h"

using namespace sp_prim;

/* The kernels add unsigned integers of the same width as the signed types of the API:
 * the same bits as two's-complement addition, with wrap-around defined. */
namespace {

enum : int { FLAG_NONE = 0, FLAG_AGGREGATE = 1, FLAG_PREFIX = 2 };

/* Tile status, 32-bit values: flag and value packed in one 64-bit word, written and read
 * whole, so a reader never sees a flag with another publication's value. */
struct status_i32 {
    unsigned long long *word;

    static size_t bytes(int64_t ntiles) { return align_up((size_t)ntiles * 8); }
    __host__ __device__ status_i32(void *base, int64_t ntiles)
        : word(static_cast<unsigned long long *>(base)) { (void)ntiles; }

    __device__ void publish(int tile, int flag, unsigned v) const
    {
        unsigned long long w = ((unsigned long long)flag << 32) | v;
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(word[tile])
            .store(w, cuda::memory_order_relaxed);
    }
    __device__ int read(int tile, unsigned *v) const
    {
        unsigned long long w = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(
                                   word[tile]).load(cuda::memory_order_relaxed);
        *v = (unsigned)w;
        return (int)(w >> 32);
    }
};

/* Tile status, 64-bit values: flag and value side by side in one 16-byte aligned word,
 * stored and loaded by single 16-byte vector accesses (as CUB's tile status does), so a
 * reader gets the flag and its value from one transaction and needs no second, dependent
 * load. The PTX memory model does not promise that a vector access is performed whole;
 * every NVIDIA GPU performs an aligned 16-byte access as one L2 transaction, and the GPU
 * suite's scans across many waves of tiles check it on the machine they run on. */
struct status_i64 {
    ulonglong2 *word;

    static size_t bytes(int64_t ntiles) { return align_up((size_t)ntiles * 16); }
    __host__ __device__ status_i64(void *base, int64_t ntiles)
        : word(static_cast<ulonglong2 *>(base)) { (void)ntiles; }

    __device__ void publish(int tile, int flag, unsigned long long v) const
    {
        asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};"
                     :: "l"(word + tile), "l"((unsigned long long)flag), "l"(v) : "memory");
    }
    __device__ int read(int tile, unsigned long long *v) const
    {
        unsigned long long f, x;
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                     : "=l"(f), "=l"(x) : "l"(word + tile) : "memory");
        *v = x;
        return (int)f;
    }
};

template <typename T> struct status_of;
template <> struct status_of<unsigned> { using type = status_i32; };
template <> struct status_of<unsigned long long> { using type = status_i64; };

/* Warp 0: the sum of all tiles before `tile`, walking back a window of 32 tiles at a
 * time until one carries an inclusive prefix. Every tile below ours has a running block
 * (ticket order), so waiting for its flag always ends. */
template <typename T, typename S>
__device__ T look_back(const S &status, int tile, int lane)
{
    T exclusive = 0;
    for (int pred = tile - 1;; pred -= 32) {
        int idx = pred - lane;
        int f = FLAG_PREFIX;
        T v = 0;
        if (idx >= 0)
            do f = status.read(idx, &v);
            while (f == FLAG_NONE);
        unsigned prefixes = __ballot_sync(full_mask, f == FLAG_PREFIX);
        if (prefixes != 0) {
            int first = __ffs(prefixes) - 1; /* the nearest tile with a prefix */
            exclusive += warp_sum(lane <= first ? v : T(0));
            return exclusive;
        }
        exclusive += warp_sum(v);
    }
}

/* Shared-memory slot of item e of the tile: one pad word per 32 keeps both the striped
 * (coalesced global) and the blocked (per-thread serial) accesses free of bank conflicts. */
__device__ __forceinline__ int padded(int e) { return e + (e >> 5); }

template <typename T, bool VEC>
__global__ void __launch_bounds__(sp_scan_policy<T>::block_threads)
scan_kernel(const T *in, T *out, int64_t n, T *total, unsigned *ticket, void *status_base,
            int ntiles)
{
    using P = sp_scan_policy<T>;
    using S = typename status_of<T>::type;
    constexpr int BLOCK = P::block_threads, ITEMS = P::items_per_thread;
    constexpr int TILE = BLOCK * ITEMS;
    constexpr int VN = 16 / sizeof(T); /* items per 16-byte vector */
    __shared__ T items[TILE + TILE / 32];
    __shared__ T warp_totals[BLOCK / 32 + 1];
    __shared__ T tile_prefix;
    __shared__ int tile_slot;

    S status(status_base, ntiles);
    int t = threadIdx.x, lane = t & 31;
    if (t == 0) tile_slot = (int)atomicAdd(ticket, 1u);
    __syncthreads();
    int tile = tile_slot;
    int64_t base = (int64_t)tile * TILE;
    int count = n - base < TILE ? (int)(n - base) : TILE;

    /* striped, coalesced load into shared memory */
    if (VEC && count == TILE) {
        const uint4 *src = reinterpret_cast<const uint4 *>(in + base);
#pragma unroll
        for (int k = 0; k < TILE / VN / BLOCK; k++) {
            int vi = k * BLOCK + t;
            uint4 q = __ldcs(src + vi);
            const T *qv = reinterpret_cast<const T *>(&q);
#pragma unroll
            for (int j = 0; j < VN; j++) items[padded(vi * VN + j)] = qv[j];
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            int e = k * BLOCK + t;
            items[padded(e)] = e < count ? in[base + e] : T(0);
        }
    }
    __syncthreads();

    /* blocked: this thread's ITEMS consecutive items */
    T x[ITEMS];
    T sum = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        x[i] = items[padded(t * ITEMS + i)];
        sum += x[i];
    }
    T aggregate;
    T run = block_exclusive_scan<BLOCK>(sum, warp_totals, &aggregate);

    if (t < 32) {
        T exclusive = 0;
        if (tile == 0) {
            if (t == 0) status.publish(0, FLAG_PREFIX, aggregate);
        } else {
            if (t == 0) status.publish(tile, FLAG_AGGREGATE, aggregate);
            exclusive = look_back<T>(status, tile, lane);
            if (t == 0) status.publish(tile, FLAG_PREFIX, exclusive + aggregate);
        }
        if (t == 0) {
            tile_prefix = exclusive;
            if (total != nullptr && tile == ntiles - 1) *total = exclusive + aggregate;
        }
    }
    __syncthreads();
    run += tile_prefix;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        items[padded(t * ITEMS + i)] = run;
        run += x[i];
    }
    __syncthreads();

    if (VEC && count == TILE) {
        uint4 *dst = reinterpret_cast<uint4 *>(out + base);
#pragma unroll
        for (int k = 0; k < TILE / VN / BLOCK; k++) {
            int vi = k * BLOCK + t;
            uint4 q;
            T *qv = reinterpret_cast<T *>(&q);
#pragma unroll
            for (int j = 0; j < VN; j++) qv[j] = items[padded(vi * VN + j)];
            dst[vi] = q;
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            int e = k * BLOCK + t;
            if (e < count) out[base + e] = items[padded(e)];
        }
    }
}

/* Scratch: the ticket (one aligned slot), then the tile status. */
template <typename T>
size_t scan_temp_bytes(int64_t ntiles)
{
    return temp_align + status_of<T>::type::bytes(ntiles);
}

template <typename T>
sp_status_t scan(const char *name, const T *d_in, T *d_out, int64_t n, T *d_total, void *d_temp,
                 size_t *temp_bytes, cudaStream_t s)
{
    using P = sp_scan_policy<T>;
    constexpr int64_t TILE = (int64_t)P::block_threads * P::items_per_thread;
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t ntiles = 0;
    size_t need = 0;
    bool vec = false;
    SP_CHECK_ARG(temp_bytes != NULL, "%s: temp_bytes is NULL", name);
    SP_CHECK_ARG(n >= 0, "%s: n %lld is negative", name, (long long)n);
    ntiles = (n + TILE - 1) / TILE;
    if (ntiles > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "%s: n %lld needs %lld tiles, more than %d", name,
                (long long)n, (long long)ntiles, INT32_MAX);
    need = scan_temp_bytes<T>(ntiles);
    if (d_temp == NULL) {
        *temp_bytes = need;
        goto done;
    }
    SP_CHECK_ARG(*temp_bytes >= need, "%s: temp_bytes %zu below the %zu needed for n %lld", name,
                 *temp_bytes, need, (long long)n);
    SP_CHECK_ARG(n == 0 || (d_in != NULL && d_out != NULL), "%s: d_in or d_out is NULL for n %lld",
                 name, (long long)n);
    if (n == 0) {
        if (d_total != NULL) SP_CUDA_TRY(cudaMemsetAsync(d_total, 0, sizeof *d_total, s));
        goto done;
    }
    SP_CUDA_TRY(cudaMemsetAsync(d_temp, 0, need, s));
    vec = aligned16(d_in) && aligned16(d_out);
    if (vec)
        scan_kernel<T, true><<<(unsigned)ntiles, P::block_threads, 0, s>>>(
            d_in, d_out, n, d_total, static_cast<unsigned *>(d_temp),
            static_cast<char *>(d_temp) + temp_align, (int)ntiles);
    else
        scan_kernel<T, false><<<(unsigned)ntiles, P::block_threads, 0, s>>>(
            d_in, d_out, n, d_total, static_cast<unsigned *>(d_temp),
            static_cast<char *>(d_temp) + temp_align, (int)ntiles);
    SP_CUDA_LAUNCHED("scan_kernel");
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_exclusive_scan_i32(const int32_t *d_in, int32_t *d_out, int64_t n,
                                                  int32_t *d_total, void *d_temp,
                                                  size_t *temp_bytes, void *stream)
{
    return scan<unsigned>("exclusive_scan_i32", reinterpret_cast<const unsigned *>(d_in),
                          reinterpret_cast<unsigned *>(d_out), n,
                          reinterpret_cast<unsigned *>(d_total), d_temp, temp_bytes,
                          (cudaStream_t)stream);
}

extern "C" sp_status_t sp__gpu_exclusive_scan_i64(const int64_t *d_in, int64_t *d_out, int64_t n,
                                                  int64_t *d_total, void *d_temp,
                                                  size_t *temp_bytes, void *stream)
{
    return scan<unsigned long long>("exclusive_scan_i64",
                                    reinterpret_cast<const unsigned long long *>(d_in),
                                    reinterpret_cast<unsigned long long *>(d_out), n,
                                    reinterpret_cast<unsigned long long *>(d_total), d_temp,
                                    temp_bytes, (cudaStream_t)stream);
}
