/* sp__coo_grow: room for more entries in a COO the readers fill (the Matrix Market
 * reader's mirrored entries, the edge-list reader's arrays when it does not count first). */
#include "sp_base.h"
#include "sp_text.h"

sp_status_t sp__coo_grow(sp_coo_t *a, int64_t n)
{
    size_t vs = sp_value_size(a->value_type);
    int32_t *row = sp__realloc(a->row, (size_t)n * sizeof(int32_t));
    if (row) a->row = row;
    int32_t *col = row ? sp__realloc(a->col, (size_t)n * sizeof(int32_t)) : NULL;
    if (col) a->col = col;
    void *val = col && vs ? sp__realloc(a->val, (size_t)n * vs) : NULL;
    if (val) a->val = val;
    /* memory is the only bound on n (issue 20): a failure names the bytes it needed */
    if (!row || !col || (vs && !val))
        return SP_ERROR(SP_STATUS_ALLOC_FAILED,
                        "out of host memory growing COO to %lld entries of %zu bytes (%.0f "
                        "bytes)", (long long)n, 2 * sizeof(int32_t) + vs,
                        (double)n * (double)(2 * sizeof(int32_t) + vs));
    a->capacity = n;
    return SP_STATUS_SUCCESS;
}
