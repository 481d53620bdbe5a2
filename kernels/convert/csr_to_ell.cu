/* ELL on the GPU (PMPP, sparse-format chapter; Bell & Garland): the width is the longest
 * row (a max-reduction), padding (column -1, value 0) is set by two memsets, then one
 * thread per entry places it at [k * nrows + r], its row found by binary search, so a row
 * of any length spreads over many threads. As sp__ref_csr_to_ell(_width). The CSR's
 * pointers may be 64-bit (issue 20): ELL itself has none, its slots are 64-bit.
 *
 * Value table (CSR-VI: Kourtis, Goumas & Koziris, "Optimizing sparse matrix-vector
 * multiplication using index and value compression", 2008; sp_formats.h): before the
 * scatter one pass over the values gathers their distinct bit patterns (a hash set a block
 * in shared memory, merged into one in global memory; every block gives up once more than
 * SP_ELL_TABLE_MAX are seen), one block sorts the few found into the table (rank by
 * counting), and the scatter also writes each slot's code (a binary search of the table
 * held in shared memory). */
#include "convert_common.cuh"

using namespace sp_convert;

namespace {

/* The empty slot of the hash sets; a value with this bit pattern (a 64-bit NaN) is noted
 * by a flag instead and reserves a table entry of its own. */
constexpr unsigned long long empty_key = ~0ull;

/* What the value pass finds, in device memory (set: empty_key when the build starts,
 * the rest 0). */
struct table_state {
    unsigned long long set[P::table_global_slots];
    unsigned count;     /* distinct patterns in set */
    unsigned overflow;  /* more than SP_ELL_TABLE_MAX: no table */
    unsigned has_empty; /* a value's pattern is empty_key */
    int ntable;         /* the table kernel's result: 0 (none) or 1..SP_ELL_TABLE_MAX */
    unsigned long long stored;
};

/* Insert key into the open-addressing set of `slots` (a power of two) entries; 1 when this
 * call added it, 0 when it was there, -1 when every slot holds another key. Every access
 * is an atomic (a slot is claimed from empty_key by CAS, and the CAS's answer says what
 * the slot holds), so concurrent inserts never race. */
template <int slots>
__device__ __forceinline__ int set_insert(unsigned long long *set, unsigned long long key)
{
    static_assert((slots & (slots - 1)) == 0, "a power of two");
    constexpr int shift = 64 - __builtin_ctz(slots);
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> shift);
    for (int probe = 0; probe < slots; probe++, h = (h + 1) & (slots - 1)) {
        unsigned long long seen = atomicCAS(&set[h], empty_key, key);
        if (seen == empty_key) return 1;
        if (seen == key) return 0;
    }
    return -1;
}

/* The distinct bit patterns of val[0..nnz) into g (W: the values' unsigned word). The
 * lanes of a warp holding the same pattern agree first (__match_any_sync), so a stencil's
 * few patterns cost a warp one insert each, not 32. */
template <typename W>
__global__ void __launch_bounds__(P::block_threads)
distinct_kernel(const W *val, int64_t nnz, table_state *g)
{
    __shared__ unsigned long long s_set[P::table_block_slots];
    __shared__ unsigned s_count, s_full, s_empty, s_stop;
    const unsigned lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < P::table_block_slots; i += P::block_threads)
        s_set[i] = empty_key;
    if (threadIdx.x == 0) s_count = s_full = s_empty = 0;
    __syncthreads();
    const int64_t tile = (int64_t)P::block_threads * P::table_per_thread;
    bool gave_up = false; /* this thread saw too many: it inserts no more */
    for (int64_t base = (int64_t)blockIdx.x * tile; base < nnz; base += (int64_t)gridDim.x * tile) {
        /* s_stop is written only here, between the barriers that close one tile and open
           the next, so every thread reads the same value */
        if (threadIdx.x == 0) s_stop = s_full || *(volatile unsigned *)&g->overflow;
        __syncthreads();
        if (s_stop) return; /* this block or another saw too many: no table */
        for (int j = 0; j < P::table_per_thread; j++) {
            int64_t e = base + (int64_t)j * P::block_threads + threadIdx.x;
            bool valid = e < nnz && !gave_up;
            unsigned long long key = valid ? (unsigned long long)val[e] : empty_key;
            /* lanes without a value are left out of every group (their key is a stand-in) */
            unsigned peers = __match_any_sync(sp_prim::full_mask, key) &
                             __ballot_sync(sp_prim::full_mask, valid);
            if (!valid || lane != (unsigned)(__ffs(peers) - 1)) continue;
            if (key == empty_key) {
                atomicExch(&s_empty, 1u);
                continue;
            }
            int added = set_insert<P::table_block_slots>(s_set, key);
            if (added < 0 || (added > 0 && atomicAdd(&s_count, 1u) + 1 > SP_ELL_TABLE_MAX)) {
                gave_up = true;
                atomicExch(&s_full, 1u);
                atomicExch(&g->overflow, 1u);
            }
        }
        __syncthreads();
    }
    __syncthreads();
    if (s_full) return;
    if (threadIdx.x == 0 && s_empty) g->has_empty = 1;
    for (int i = threadIdx.x; i < P::table_block_slots; i += P::block_threads) {
        unsigned long long key = s_set[i];
        if (key == empty_key) continue;
        int added = set_insert<P::table_global_slots>(g->set, key);
        if (added < 0 || (added > 0 && atomicAdd(&g->count, 1u) + 1 > SP_ELL_TABLE_MAX))
            atomicExch(&g->overflow, 1u);
    }
}

/* One block: the set's patterns (and empty_key if seen) ascending into table, their count
 * into g->ntable (0 when more than SP_ELL_TABLE_MAX). */
template <typename W>
__global__ void __launch_bounds__(P::block_threads) table_kernel(table_state *g, W *table)
{
    __shared__ unsigned long long s_keys[SP_ELL_TABLE_MAX + 1];
    __shared__ int s_n;
    if (threadIdx.x == 0) s_n = 0;
    __syncthreads();
    if (g->overflow) {
        if (threadIdx.x == 0) g->ntable = 0;
        return;
    }
    for (int i = threadIdx.x; i < P::table_global_slots; i += P::block_threads) {
        unsigned long long key = g->set[i];
        if (key != empty_key) s_keys[atomicAdd(&s_n, 1)] = key; /* count <= MAX: fits */
    }
    __syncthreads();
    if (threadIdx.x == 0 && g->has_empty) s_keys[s_n++] = empty_key;
    __syncthreads();
    const int n = s_n;
    if (n > SP_ELL_TABLE_MAX) {
        if (threadIdx.x == 0) g->ntable = 0;
        return;
    }
    for (int i = threadIdx.x; i < n; i += P::block_threads) {
        int rank = 0;
        for (int j = 0; j < n; j++) rank += s_keys[j] < s_keys[i];
        table[rank] = (W)s_keys[i];
    }
    if (threadIdx.x == 0) g->ntable = n;
}

/* Slot k < width of row r gets entry ptr[r] + k; *stored += entries placed. With codes
 * (ntable > 0), also the slot's position in the sorted table. Off: the pointers' type
 * (32- or 64-bit offsets; the slots are 64-bit either way). */
template <typename W, typename Off>
__global__ void __launch_bounds__(P::block_threads)
scatter_kernel(const Off *ptr, const int32_t *idx, const W *val, int64_t nrows, int64_t nnz,
               int64_t width, int32_t *col_out, W *val_out, const W *table, int ntable,
               uint8_t *code_out, unsigned long long *stored)
{
    __shared__ W s_table[SP_ELL_TABLE_MAX];
    for (int i = threadIdx.x; i < ntable; i += P::block_threads) s_table[i] = table[i];
    __syncthreads();
    unsigned long long count = 0;
    for (int64_t e = (int64_t)blockIdx.x * P::block_threads + threadIdx.x; e < nnz;
         e += (int64_t)gridDim.x * P::block_threads) {
        int64_t r = row_of(ptr, nrows, e), k = e - ptr[r];
        if (k >= width) continue;
        col_out[k * nrows + r] = idx[e];
        if (val) val_out[k * nrows + r] = val[e];
        if (ntable > 0) {
            W key = val[e];
            int lo = 0, hi = ntable - 1; /* the key is in the table */
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (s_table[mid] < key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            code_out[k * nrows + r] = (uint8_t)lo;
        }
        count++;
    }
    count = sp_prim::warp_sum(count);
    if ((threadIdx.x & 31) == 0 && count) atomicAdd(stored, count);
}

/* The value table of csr into e->table (SP_ELL_TABLE_MAX values' room) when there is
 * one: *ntable its size, or 0. g: the build's state, zeroed but for the set. */
template <typename W>
sp_status_t find_table(const sp_gpu_env_t *env, const sp_csr_t *csr, table_state *g,
                       W *table, int *ntable)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    cudaStream_t s = (cudaStream_t)env->stream;
    distinct_kernel<W><<<grid_for(env, csr->nnz), P::block_threads, 0, s>>>(
        static_cast<const W *>(csr->val), csr->nnz, g);
    SP_CUDA_LAUNCHED("distinct_kernel");
    table_kernel<W><<<1, P::block_threads, 0, s>>>(g, table);
    SP_CUDA_LAUNCHED("table_kernel");
    SP_TRY(to_host(env, ntable, &g->ntable, sizeof *ntable));
done:
    return st;
}

} /* namespace */

extern "C" sp_status_t sp__gpu_csr_to_ell_width(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                                int64_t width, sp_ell_t *ell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_ell_t e;
    table_state *d_state = NULL;
    unsigned long long h_stored = 0;
    int h_ntable = 0;
    cudaStream_t s = NULL;
    size_t vs = 0;
    int64_t slots = 0;
    memset(&e, 0, sizeof e);
    SP_TRY(check_csr("csr to ell", env, csr, ell, true));
    SP_CHECK_ARG(width >= 0 && width <= INT32_MAX, "csr to ell: width %lld outside 0..%d",
                 (long long)width, INT32_MAX);
    s = (cudaStream_t)env->stream;
    vs = sp_value_size(csr->value_type);
    slots = csr->nrows * width;
    if (slots > ((int64_t)1 << 56))
        SP_FAIL(SP_STATUS_ALLOC_FAILED, "csr to ell: %lld rows x width %lld slots is too large",
                (long long)csr->nrows, (long long)width);
    e.nrows = csr->nrows;
    e.ncols = csr->ncols;
    e.width = width;
    e.value_type = csr->value_type;
    SP_TRY(env_alloc_n(env, &d_state, 1));
    SP_TRY(env_alloc_n(env, &e.col, slots));
    SP_TRY(env_alloc(env, &e.val, (size_t)slots * vs));
    SP_CUDA_TRY(cudaMemsetAsync(d_state, 0xff, sizeof d_state->set, s));
    SP_CUDA_TRY(cudaMemsetAsync(&d_state->count, 0, sizeof *d_state - sizeof d_state->set, s));
    if (slots > 0) {
        SP_CUDA_TRY(cudaMemsetAsync(e.col, 0xff, (size_t)slots * sizeof *e.col, s));
        if (vs) SP_CUDA_TRY(cudaMemsetAsync(e.val, 0, (size_t)slots * vs, s));
    }
    if (vs && slots > 0 && csr->nnz > 0 && sp__ell_value_table_on()) {
        SP_TRY(env_alloc(env, &e.table, (size_t)SP_ELL_TABLE_MAX * vs));
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            st = find_table<W>(env, csr, d_state, static_cast<W *>(e.table), &h_ntable);
        });
        SP_TRY(st);
        if (h_ntable > 0) {
            SP_TRY(env_alloc_n(env, &e.code, slots));
            SP_CUDA_TRY(cudaMemsetAsync(e.code, 0, (size_t)slots, s));
            e.ntable = h_ntable;
        } else {
            env_free(env, e.table);
            e.table = NULL;
        }
    }
    if (slots > 0 && csr->nnz > 0) {
        by_word(vs, [&](auto tag) {
            using W = decltype(tag);
            const W *val = static_cast<const W *>(csr->val), *table = static_cast<W *>(e.table);
            if (csr->ptr64)
                scatter_kernel<W><<<grid_for(env, csr->nnz), P::block_threads, 0, s>>>(
                    csr->ptr64, csr->idx, val, csr->nrows, csr->nnz, width, e.col,
                    static_cast<W *>(e.val), table, e.ntable, e.code, &d_state->stored);
            else
                scatter_kernel<W><<<grid_for(env, csr->nnz), P::block_threads, 0, s>>>(
                    csr->ptr, csr->idx, val, csr->nrows, csr->nnz, width, e.col,
                    static_cast<W *>(e.val), table, e.ntable, e.code, &d_state->stored);
        });
        SP_CUDA_LAUNCHED("scatter_kernel");
        SP_TRY(to_host(env, &h_stored, &d_state->stored, sizeof h_stored));
    }
    e.nnz = (int64_t)h_stored;
    *ell = e;
    memset(&e, 0, sizeof e);
done:
    env_free(env, d_state);
    if (env) sp__gpu_ell_free(env, &e);
    return st;
}

extern "C" sp_status_t sp__gpu_csr_to_ell(const sp_gpu_env_t *env, const sp_csr_t *csr,
                                          sp_ell_t *ell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *d_slot = NULL;
    int64_t longest = 0;
    SP_TRY(check_csr("csr to ell", env, csr, ell, true));
    SP_TRY(env_alloc_n(env, &d_slot, 1));
    SP_TRY(longest_row(env, csr, d_slot, &longest));
    SP_TRY(sp__gpu_csr_to_ell_width(env, csr, longest, ell));
done:
    env_free(env, d_slot);
    return st;
}
