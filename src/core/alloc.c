/* Host allocation through replaceable hooks (sp_set_host_allocator). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise's MADV_POPULATE_WRITE, beyond POSIX */
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "sp_base.h"

static void *default_alloc(size_t bytes, void *user)
{
    (void)user;
    return malloc(bytes);
}
static void *default_realloc(void *ptr, size_t bytes, void *user)
{
    (void)user;
    return realloc(ptr, bytes);
}
static void default_free(void *ptr, void *user)
{
    (void)user;
    free(ptr);
}

static sp_allocator_t g_alloc = {default_alloc, default_realloc, default_free, NULL};

void sp_set_host_allocator(const sp_allocator_t *allocator)
{
    if (allocator && allocator->alloc && allocator->realloc && allocator->free)
        g_alloc = *allocator;
    else
        g_alloc = (sp_allocator_t){default_alloc, default_realloc, default_free, NULL};
}

void *sp__malloc(size_t bytes) { return g_alloc.alloc(bytes ? bytes : 1, g_alloc.user); }

void *sp__malloc_array(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    return sp__malloc(count * size);
}

void *sp__calloc_array(size_t count, size_t size)
{
    void *p = sp__malloc_array(count, size);
    if (p) memset(p, 0, count * size);
    return p;
}

void *sp__realloc(void *ptr, size_t bytes)
{
    return g_alloc.realloc(ptr, bytes ? bytes : 1, g_alloc.user);
}

void sp__free(void *ptr)
{
    if (ptr) g_alloc.free(ptr, g_alloc.user);
}

void sp_free(void *ptr) { sp__free(ptr); }

void sp__prefault(void *ptr, size_t bytes)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    enum { MIN_BYTES = 8 << 20 }; /* below this the faults cost little */
    long page = sysconf(_SC_PAGESIZE);
    if (!ptr || bytes < MIN_BYTES || page <= 0 || g_alloc.alloc != default_alloc) return;
    uintptr_t b = ((uintptr_t)ptr + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t e = ((uintptr_t)ptr + bytes) & ~((uintptr_t)page - 1);
    if (e > b) (void)madvise((void *)b, e - b, MADV_POPULATE_WRITE);
#else
    (void)ptr, (void)bytes;
#endif
}

double sp__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

int sp__ncores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void sp__advise_huge(void *ptr, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    enum { MIN_BYTES = 8 << 20, HUGE = 2 << 20 }; /* x86-64's transparent huge page */
    if (!ptr || bytes < MIN_BYTES || g_alloc.alloc != default_alloc) return;
    uintptr_t b = ((uintptr_t)ptr + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
    uintptr_t e = ((uintptr_t)ptr + bytes) & ~(uintptr_t)(HUGE - 1);
    if (e > b) (void)madvise((void *)b, e - b, MADV_HUGEPAGE);
#else
    (void)ptr, (void)bytes;
#endif
}
