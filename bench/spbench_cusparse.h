/* spbench's GPU side: the stream, CUDA-event timers, device vectors, the streaming-read
 * bandwidth kernel and the cuSPARSE SpMV baseline (CSR_ALG1 and sliced ELL). spbench.c
 * stays over the public API; this is the only part that calls CUDA or cuSPARSE. Without
 * CUDA the functions below are stubs that report "built without CUDA". */
#ifndef SPBENCH_CUSPARSE_H
#define SPBENCH_CUSPARSE_H

#include <stddef.h>

#include "sp.h"

typedef struct sb_gpu sb_gpu_t;           /* stream, cuSPARSE handle, a pair of events */
typedef struct sb_cusparse sb_cusparse_t; /* one matrix as cuSPARSE CSR and SELL */

typedef enum sb_baseline {
    SB_CUSPARSE_CSR = 0,  /* cusparseSpMV, CUSPARSE_SPMV_CSR_ALG1 */
    SB_CUSPARSE_SELL = 1, /* cusparseSpMV on cusparseCreateSlicedEll, slice 32 */
    SB_CUSPARSE_CSC = 2,  /* cusparseSpMV (CUSPARSE_SPMV_ALG_DEFAULT) on cusparseCreateCsc:
                             the bar for libsp's CSC row */
    SB_BASELINE_COUNT = 3
} sb_baseline_t;

#ifdef SP_HAVE_CUDA
/* Open the first GPU with its own stream (to hand to sp_context_create). On failure the
 * reason is written to msg and -1 returned. */
int sb_gpu_open(sb_gpu_t **gpu, char *msg, size_t msg_len);
void sb_gpu_close(sb_gpu_t *gpu);
void *sb_gpu_stream(sb_gpu_t *gpu);
/* CUDA events on the stream: begin records the start, end records the stop, waits for
 * it and gives the elapsed milliseconds (< 0 on a CUDA error). */
void sb_gpu_timer_begin(sb_gpu_t *gpu);
double sb_gpu_timer_end(sb_gpu_t *gpu);
/* Device buffers (NULL on failure), copies (0 on success), and a NaN fill (all bits set)
 * so that a result never written cannot pass a check. */
void *sb_gpu_upload(sb_gpu_t *gpu, const void *h_src, size_t bytes);
int sb_gpu_download(sb_gpu_t *gpu, void *h_dst, const void *d_src, size_t bytes);
int sb_gpu_fill_nan(sb_gpu_t *gpu, void *d_dst, size_t bytes);
void sb_gpu_free(sb_gpu_t *gpu, void *d_ptr);
/* Streaming read of a 1 GiB device buffer (grid-stride sum; bytes read / time, best of
 * several runs): the read bandwidth ceiling of this GPU in this run, GB/s; 0 on failure. */
double sb_gpu_read_bandwidth(sb_gpu_t *gpu);

/* The baseline for one matrix: CSR arrays copied from the host view, SELL (slice 32,
 * rows in order, padding column -1) built host-side from them. y = A x with the device
 * vectors given. SELL is left out (why in sell_note) when padding would exceed 4 nnz.
 * Returns -1 with msg set when even CSR cannot be set up. */
int sb_cusparse_create(sb_gpu_t *gpu, const sp_format_view_t *csr, const void *d_x, void *d_y,
                       sb_cusparse_t **cus, char *msg, size_t msg_len);
void sb_cusparse_destroy(sb_cusparse_t *cus);
/* 1 if baseline b is set up for this matrix; otherwise its note says why not. */
int sb_cusparse_has(const sb_cusparse_t *cus, sb_baseline_t b);
const char *sb_cusparse_note(const sb_cusparse_t *cus, sb_baseline_t b);
/* calls back-to-back y = A x by baseline b between the two events; milliseconds per
 * call, < 0 on failure. */
double sb_cusparse_spmv(sb_gpu_t *gpu, sb_cusparse_t *cus, sb_baseline_t b, int calls);
#else
static inline int sb_gpu_open(sb_gpu_t **gpu, char *msg, size_t msg_len)
{
    *gpu = NULL;
    if (msg_len) msg[0] = '\0';
    return -1;
}
static inline void sb_gpu_close(sb_gpu_t *gpu) { (void)gpu; }
static inline void *sb_gpu_stream(sb_gpu_t *gpu) { (void)gpu; return NULL; }
static inline void sb_gpu_timer_begin(sb_gpu_t *gpu) { (void)gpu; }
static inline double sb_gpu_timer_end(sb_gpu_t *gpu) { (void)gpu; return -1.0; }
static inline void *sb_gpu_upload(sb_gpu_t *gpu, const void *h_src, size_t bytes)
{
    (void)gpu, (void)h_src, (void)bytes;
    return NULL;
}
static inline int sb_gpu_download(sb_gpu_t *gpu, void *h_dst, const void *d_src, size_t bytes)
{
    (void)gpu, (void)h_dst, (void)d_src, (void)bytes;
    return -1;
}
static inline int sb_gpu_fill_nan(sb_gpu_t *gpu, void *d_dst, size_t bytes)
{
    (void)gpu, (void)d_dst, (void)bytes;
    return -1;
}
static inline void sb_gpu_free(sb_gpu_t *gpu, void *d_ptr) { (void)gpu, (void)d_ptr; }
static inline double sb_gpu_read_bandwidth(sb_gpu_t *gpu) { (void)gpu; return 0.0; }
static inline int sb_cusparse_create(sb_gpu_t *gpu, const sp_format_view_t *csr,
                                     const void *d_x, void *d_y, sb_cusparse_t **cus,
                                     char *msg, size_t msg_len)
{
    (void)gpu, (void)csr, (void)d_x, (void)d_y, (void)msg, (void)msg_len;
    *cus = NULL;
    return -1;
}
static inline void sb_cusparse_destroy(sb_cusparse_t *cus) { (void)cus; }
static inline int sb_cusparse_has(const sb_cusparse_t *cus, sb_baseline_t b)
{
    (void)cus, (void)b;
    return 0;
}
static inline const char *sb_cusparse_note(const sb_cusparse_t *cus, sb_baseline_t b)
{
    (void)cus, (void)b;
    return "built without CUDA";
}
static inline double sb_cusparse_spmv(sb_gpu_t *gpu, sb_cusparse_t *cus, sb_baseline_t b,
                                      int calls)
{
    (void)gpu, (void)cus, (void)b, (void)calls;
    return -1.0;
}
#endif

#endif /* SPBENCH_CUSPARSE_H */
