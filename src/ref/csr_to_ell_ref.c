/* ELL = the CSR's rows padded to a common width, stored column-major (slot k of row r at
 * k * nrows + r) so consecutive rows' k-th entries are adjacent; padding column -1, value 0.
 * With at most SP_ELL_TABLE_MAX distinct values (by bit pattern), also the value table and
 * a code a slot (CSR-VI, Kourtis, Goumas & Koziris 2008; sp_formats.h). */
#include <string.h>

#include "ref_internal.h"

/* The bit pattern of value k (vs 4 or 8 bytes), as an unsigned integer. */
static uint64_t value_bits(const void *val, int64_t k, size_t vs)
{
    uint32_t w;
    uint64_t d;
    if (vs == 8) {
        memcpy(&d, (const char *)val + k * 8, 8);
        return d;
    }
    memcpy(&w, (const char *)val + k * 4, 4);
    return w;
}

/* First position in keys[0..n) (ascending) whose key is not below key. */
static int lower_bound(const uint64_t *keys, int n, uint64_t key)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The distinct bit patterns of the CSR's values, ascending, in keys; their count, or -1
 * when there are more than SP_ELL_TABLE_MAX. */
static int distinct_values(const sp_csr_t *csr, size_t vs, uint64_t *keys)
{
    int n = 0;
    for (int64_t e = 0; e < csr->nnz; e++) {
        uint64_t key = value_bits(csr->val, e, vs);
        int at = lower_bound(keys, n, key);
        if (at < n && keys[at] == key) continue;
        if (n == SP_ELL_TABLE_MAX) return -1;
        memmove(keys + at + 1, keys + at, (size_t)(n - at) * sizeof *keys);
        keys[at] = key;
        n++;
    }
    return n;
}

/* e's table and codes when the CSR's values allow one (else e unchanged): the code of a
 * stored slot is its value's position in the table, padding gets code 0. */
static sp_status_t value_table(const sp_csr_t *csr, size_t vs, sp_ell_t *e)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    uint64_t keys[SP_ELL_TABLE_MAX];
    int64_t slots = e->nrows * e->width;
    int n = 0;
    if (vs == 0 || slots == 0 || csr->nnz == 0 || !sp__ell_value_table_on()) goto done;
    n = distinct_values(csr, vs, keys);
    if (n <= 0) goto done;
    SP_TRY(ref_values_calloc(&e->table, e->value_type, n));
    SP_CALLOC(e->code, slots);
    for (int i = 0; i < n; i++) {
        uint32_t w = (uint32_t)keys[i];
        if (vs == 8)
            memcpy((char *)e->table + (size_t)i * 8, &keys[i], 8);
        else
            memcpy((char *)e->table + (size_t)i * 4, &w, 4);
    }
    for (int64_t r = 0; r < e->nrows; r++) {
        int64_t len = ref_row_length(csr, r), stored = len < e->width ? len : e->width;
        for (int64_t k = 0; k < stored; k++)
            e->code[k * e->nrows + r] =
                (uint8_t)lower_bound(keys, n, value_bits(csr->val, sp__csr_at(csr, r) + k, vs));
    }
    e->ntable = n;
done:
    return st;
}

sp_status_t sp__ref_csr_to_ell_width(const sp_csr_t *csr, int64_t width, sp_ell_t *ell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_ell_t e = {0};
    SP_CHECK_ARG(csr != NULL && ell != NULL, "csr to ell: NULL argument");
    SP_CHECK_ARG(width >= 0 && width <= INT32_MAX, "csr to ell: width %lld outside 0..%d",
                 (long long)width, INT32_MAX);
    size_t vs = sp_value_size(csr->value_type);
    int64_t slots = csr->nrows * width;
    e.nrows = csr->nrows;
    e.ncols = csr->ncols;
    e.width = width;
    e.value_type = csr->value_type;
    SP_ALLOC(e.col, slots);
    SP_TRY(ref_values_calloc(&e.val, e.value_type, slots));
    for (int64_t s = 0; s < slots; s++) e.col[s] = -1;
    for (int64_t r = 0; r < e.nrows; r++) {
        int64_t len = ref_row_length(csr, r), stored = len < width ? len : width;
        for (int64_t k = 0; k < stored; k++) {
            e.col[k * e.nrows + r] = csr->idx[sp__csr_at(csr, r) + k];
            ref_value_copy(e.val, k * e.nrows + r, csr->val, sp__csr_at(csr, r) + k, vs);
        }
        e.nnz += stored;
    }
    SP_TRY(value_table(csr, vs, &e));
    *ell = e;
    e = (sp_ell_t){0};
done:
    sp__ell_free(&e);
    return st;
}

sp_status_t sp__ref_csr_to_ell(const sp_csr_t *csr, sp_ell_t *ell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(csr != NULL && ell != NULL, "csr to ell: NULL argument");
    st = sp__ref_csr_to_ell_width(csr, ref_longest_row(csr), ell);
done:
    return st;
}
