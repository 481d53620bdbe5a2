/* The bytes behind each live pointer of an allocator whose free is not told the size (a
 * CUDA context's allocator hooks), so the context can say what it holds now and at its
 * peak: open addressing with linear probing on the pointer's address, deletion by
 * backward shift (no tombstones, so a long-lived table never clogs), grown by doubling at
 * three quarters full. Host memory through sp__malloc; a growth that fails leaves the
 * table as it was. */
#include "sp_api.h"

enum { SIZE_TABLE_MIN = 64 };

/* Slot of ptr's home in a table of cap slots (a power of two): Fibonacci hashing of the
 * address without its low bits (device blocks are at least 256-byte aligned). */
static int64_t home(const void *ptr, int64_t cap)
{
    uint64_t h = ((uint64_t)(uintptr_t)ptr >> 8) * 0x9E3779B97F4A7C15ull;
    return (int64_t)(h >> 32) & (cap - 1);
}

/* The slot holding ptr, or the empty slot where it would go. */
static int64_t find(const sp__size_table_t *t, const void *ptr)
{
    int64_t i = home(ptr, t->cap);
    while (t->key[i] && t->key[i] != ptr) i = (i + 1) & (t->cap - 1);
    return i;
}

/* Move every entry into a table of cap slots. */
static sp_status_t rehash(sp__size_table_t *t, int64_t cap)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp__size_table_t n = *t;
    n.key = NULL;
    n.bytes = NULL;
    n.cap = cap;
    SP_CALLOC(n.key, cap);
    SP_ALLOC(n.bytes, cap);
    for (int64_t i = 0; i < t->cap; i++) {
        if (!t->key[i]) continue;
        int64_t j = find(&n, t->key[i]);
        n.key[j] = t->key[i];
        n.bytes[j] = t->bytes[i];
    }
    sp__free(t->key);
    sp__free(t->bytes);
    *t = n;
    n.key = NULL;
    n.bytes = NULL;
done:
    sp__free(n.bytes);
    sp__free(n.key);
    return st;
}

sp_status_t sp__size_table_reserve(sp__size_table_t *t, int64_t blocks)
{
    int64_t cap = SIZE_TABLE_MIN;
    while (cap * 3 < blocks * 4) cap *= 2;
    return cap > t->cap ? rehash(t, cap) : SP_STATUS_SUCCESS;
}

sp_status_t sp__size_table_add(sp__size_table_t *t, void *ptr, size_t bytes)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if ((t->count + 1) * 4 > t->cap * 3)
        SP_TRY(rehash(t, t->cap ? 2 * t->cap : SIZE_TABLE_MIN));
    int64_t i = find(t, ptr);
    if (!t->key[i]) t->count++;
    else t->current -= (int64_t)t->bytes[i]; /* the same block again: its new size */
    t->key[i] = ptr;
    t->bytes[i] = bytes;
    t->current += (int64_t)bytes;
    if (t->current > t->peak) t->peak = t->current;
done:
    return st;
}

void sp__size_table_remove(sp__size_table_t *t, const void *ptr)
{
    if (!ptr || t->count == 0) return;
    int64_t i = find(t, ptr), mask = t->cap - 1;
    if (!t->key[i]) return; /* not ours */
    t->current -= (int64_t)t->bytes[i];
    t->count--;
    /* backward shift: pull later entries of the run into the hole when their home allows */
    for (int64_t j = (i + 1) & mask; t->key[j]; j = (j + 1) & mask) {
        int64_t h = home(t->key[j], t->cap);
        if (((j - h) & mask) >= ((j - i) & mask)) {
            t->key[i] = t->key[j];
            t->bytes[i] = t->bytes[j];
            i = j;
        }
    }
    t->key[i] = NULL;
}

void sp__size_table_free(sp__size_table_t *t)
{
    sp__free(t->key);
    sp__free(t->bytes);
    *t = (sp__size_table_t){0};
}
