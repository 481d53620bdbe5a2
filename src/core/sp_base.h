/* Internal base shared by every layer: error recording and host allocation.
 * The one-cleanup-path style: every resource starts NULL, failures jump to `done:`. */
#ifndef SP_BASE_H
#define SP_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "sp.h"

#ifdef __cplusplus
extern "C" { /* C linkage also for .cu files that include this header directly */
#endif

#if defined(__GNUC__)
#define SP__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SP__PRINTF(a, b)
#endif

/* Record status and a formatted message (for the user: "file.mtx:17: ...") on this
 * thread, with the library source location kept beside it; returns status. */
sp_status_t sp__error(sp_status_t status, const char *src_file, int src_line,
                      const char *fmt, ...) SP__PRINTF(4, 5);
/* Source location of the last recorded error ("src/x.c:12"), for debugging. */
const char *sp__error_origin(void);

#define SP_ERROR(status, ...) sp__error((status), __FILE__, __LINE__, __VA_ARGS__)

/* In a function with `sp_status_t st` and a `done:` label. */
#define SP_FAIL(status, ...)                  \
    do {                                      \
        st = SP_ERROR((status), __VA_ARGS__); \
        goto done;                            \
    } while (0)
#define SP_CHECK_ARG(cond, ...)                                      \
    do {                                                             \
        if (!(cond)) SP_FAIL(SP_STATUS_INVALID_ARGUMENT, __VA_ARGS__); \
    } while (0)
#define SP_TRY(call)                          \
    do {                                      \
        st = (call);                          \
        if (st != SP_STATUS_SUCCESS) goto done; \
    } while (0)
/* ptr = array of count elements of *ptr, or SP_STATUS_ALLOC_FAILED naming the bytes. */
#define SP_ALLOC(ptr, count)                                                        \
    do {                                                                            \
        (ptr) = sp__malloc_array((size_t)(count), sizeof *(ptr));                   \
        if ((ptr) == NULL && (size_t)(count) != 0)                                  \
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory allocating %zu x %zu bytes", \
                    (size_t)(count), sizeof *(ptr));                                 \
    } while (0)
#define SP_CALLOC(ptr, count)                                                       \
    do {                                                                            \
        (ptr) = sp__calloc_array((size_t)(count), sizeof *(ptr));                   \
        if ((ptr) == NULL && (size_t)(count) != 0)                                  \
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory allocating %zu x %zu bytes", \
                    (size_t)(count), sizeof *(ptr));                                 \
    } while (0)

/* Host allocation through the hooks of sp_set_host_allocator. The array forms check
 * count * size for overflow and return NULL for it. A zero-byte request returns a
 * valid pointer that sp__free accepts. */
void *sp__malloc(size_t bytes);
void *sp__malloc_array(size_t count, size_t size);
void *sp__calloc_array(size_t count, size_t size);
void *sp__realloc(void *ptr, size_t bytes);
void sp__free(void *ptr);

/* Fault in [ptr, ptr + bytes), a large array from sp__malloc that one thread is about to
 * write in full, with one call instead of a fault per page (Linux 5.14+
 * MADV_POPULATE_WRITE). A hint: does nothing for small arrays, a caller's allocator, older
 * kernels or other systems. Not for arrays that several threads fill: their faults would
 * run in parallel. */
void sp__prefault(void *ptr, size_t bytes);
/* Ask for transparent huge pages on a large array that will be filled (madvise
 * MADV_HUGEPAGE on its 2 MiB-aligned inside): one fault where there would be 512, which
 * matters where several threads fault the pages of one output in parallel. A hint, with
 * the same limits as sp__prefault; the kernel's setting may ignore it. */
void sp__advise_huge(void *ptr, size_t bytes);

/* Number of online cores (>= 1). */
int sp__ncores(void);

/* Host wall clock in milliseconds (CLOCK_MONOTONIC): the library's one timer. */
double sp__now_ms(void);

#ifdef __cplusplus
}
#endif

#endif /* SP_BASE_H */
