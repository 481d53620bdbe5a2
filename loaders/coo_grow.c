/* sp__coo_grow: room for more entries in a COO the readers fill (the Matrix Market
 * reader's mirrored entries, the edge-list reader's arrays when it does not count first). */
#include "sp_base.h"
#include "sp_text.h"

sp_status_t sp__coo_grow(sp_coo_t *a, int64_t n)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    size_t vs = sp_value_size(a->value_type);
    int32_t *row = sp__realloc(a->row, (size_t)n * sizeof(int32_t));
    if (!row) SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory growing COO to %lld",
                      (long long)n);
    a->row = row;
    int32_t *col = sp__realloc(a->col, (size_t)n * sizeof(int32_t));
    if (!col) SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory growing COO to %lld",
                      (long long)n);
    a->col = col;
    if (vs) {
        void *val = sp__realloc(a->val, (size_t)n * vs);
        if (!val) SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory growing COO to %lld",
                          (long long)n);
        a->val = val;
    }
    a->capacity = n;
done:
    return st;
}
