/* The kernel layer's C-callable entry points (kernels/): device-wide primitives now,
 * conversions and SpMV later. Internal: used by src/ and the GPU test suites.
 *
 * Conventions (CUB style): d_ pointers hold device memory; all work is queued on the
 * given cudaStream_t, passed as `void *stream` (NULL: the legacy default stream), and
 * nothing synchronizes the device, allocates device memory or prints. A call that needs
 * scratch memory has two forms: with d_temp == NULL it only stores the bytes it needs in
 * *temp_bytes (always >= 256, so a non-NULL d_temp marks the compute call); with d_temp
 * pointing to at least *temp_bytes device bytes (256-byte aligned, as cudaMalloc gives)
 * it computes. A failed launch returns SP_STATUS_DEVICE_ERROR with CUDA's text in
 * sp_last_error(). n = 0 is valid everywhere. */
#ifndef SP_KERNELS_H
#define SP_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "sp.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "sp_ref.h" /* the format structs; on the device their pointers hold device memory */

/* What a kernel-layer call that allocates needs from its context: the stream, and device
 * memory through the context's allocator (its hooks, or stream-ordered cudaMallocAsync
 * from a pool that keeps its memory, so repeated builds pay no cudaMalloc). alloc returns
 * SP_STATUS_ALLOC_FAILED with the bytes in the message when it cannot; free accepts NULL.
 * Conversions allocate their outputs and temporaries through it, free the temporaries
 * before returning, and on failure free everything they allocated. They may copy a few
 * scalars to the host, synchronizing the stream (never the device). */
typedef struct sp_gpu_env {
    void *stream;
    sp_status_t (*alloc)(void *self, void **d_ptr, size_t bytes);
    void (*free)(void *self, void *d_ptr);
    void *self;
    int sm_count;
    int64_t l2_bytes;
} sp_gpu_env_t;

/* ---- primitives (kernels/prim/) ---- */

/* counts[b] = #{i : keys[i] == b} for b < nbins; keys outside [0, nbins) are ignored
 * (counted nowhere). counts is overwritten (not accumulated). The strategy follows
 * nbins: thread-local bins for the fewest, warp-private bins for a few more,
 * block-private bins in shared memory while they fit, global atomics beyond. n <= INT32_MAX (counts are 32-bit). */
sp_status_t sp__gpu_histogram(const int32_t *d_keys, int64_t n, int32_t *d_counts,
                              int64_t nbins, void *d_temp, size_t *temp_bytes, void *stream);

/* out[i] = in[0] + ... + in[i-1] (out[0] = 0), one pass with decoupled look-back.
 * d_out may equal d_in (in place). d_total (may be NULL) gets the sum of all n inputs
 * (0 for n = 0). The 32-bit variant wraps modulo 2^32 like 32-bit integer addition. */
sp_status_t sp__gpu_exclusive_scan_i32(const int32_t *d_in, int32_t *d_out, int64_t n,
                                       int32_t *d_total, void *d_temp, size_t *temp_bytes,
                                       void *stream);
sp_status_t sp__gpu_exclusive_scan_i64(const int64_t *d_in, int64_t *d_out, int64_t n,
                                       int64_t *d_total, void *d_temp, size_t *temp_bytes,
                                       void *stream);

/* Stable LSD radix sort, ascending, of (keys, vals) by the low key_bits bits of keys
 * (1..32; higher bits are carried along but not compared); result in place. d_vals may
 * be NULL (keys only). n <= INT32_MAX. */
sp_status_t sp__gpu_radix_sort_pairs_u32(uint32_t *d_keys, int32_t *d_vals, int64_t n,
                                         int key_bits, void *d_temp, size_t *temp_bytes,
                                         void *stream);
/* The same for 64-bit keys: key_bits 1..64, one pass per 8 bits (8 for full keys). */
sp_status_t sp__gpu_radix_sort_pairs_u64(uint64_t *d_keys, int32_t *d_vals, int64_t n,
                                         int key_bits, void *d_temp, size_t *temp_bytes,
                                         void *stream);

#ifdef __cplusplus
}
#endif

#endif /* SP_KERNELS_H */
