/* SELL-C-sigma (Kreutzer et al.): rows stably sorted by length, descending, within windows
 * of sigma rows; slices of C sorted rows, each stored column-major and padded (column -1,
 * value 0) to its longest row, so padding stays local to a slice. The slice offsets take
 * the CSR's width (slice_ptr64 from a CSR with 64-bit pointers, issue 20). */
#include "ref_internal.h"

/* perm = rows ordered by (window, descending length, row): two stable passes. */
static sp_status_t sort_rows(const sp_csr_t *csr, int sigma, int32_t *perm)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *key = NULL;
    int64_t longest = ref_longest_row(csr);
    SP_ALLOC(key, csr->nrows);
    for (int64_t r = 0; r < csr->nrows; r++) {
        perm[r] = (int32_t)r;
        key[r] = (int32_t)(longest - ref_row_length(csr, r));
    }
    SP_TRY(sp__ref_sort_perm(key, csr->nrows, perm));
    for (int64_t r = 0; r < csr->nrows; r++) key[r] = (int32_t)(r / sigma);
    SP_TRY(sp__ref_sort_perm(key, csr->nrows, perm));
done:
    sp__free(key);
    return st;
}

/* slice_width and the slice offsets from the sorted rows; with 32-bit offsets fails if the
 * padded size needs more. */
static sp_status_t lay_out_slices(const sp_csr_t *csr, sp_sell_t *s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t offset = 0;
    for (int64_t sl = 0; sl < s->nslices; sl++) {
        int64_t width = 0;
        for (int64_t p = sl * s->c; p < (sl + 1) * s->c && p < s->nrows; p++)
            if (ref_row_length(csr, s->perm[p]) > width) width = ref_row_length(csr, s->perm[p]);
        s->slice_width[sl] = (int32_t)width;
        if (s->slice_ptr64)
            s->slice_ptr64[sl] = offset;
        else
            s->slice_ptr[sl] = (int32_t)offset;
        offset += width * s->c;
        if (offset > INT32_MAX && !s->slice_ptr64)
            SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                    "csr to sell: %lld padded slots exceed 32-bit offsets (C %d)",
                    (long long)offset, s->c);
    }
    if (s->slice_ptr64)
        s->slice_ptr64[s->nslices] = offset;
    else
        s->slice_ptr[s->nslices] = (int32_t)offset;
    s->padded = offset;
done:
    return st;
}

sp_status_t sp__ref_csr_to_sell(const sp_csr_t *csr, int c, int sigma, sp_sell_t *sell)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_sell_t s = {0};
    SP_CHECK_ARG(csr != NULL && sell != NULL, "csr to sell: NULL argument");
    SP_CHECK_ARG(c > 0 && sigma > 0 && sigma % c == 0,
                 "csr to sell: sigma %d is not a positive multiple of C %d", sigma, c);
    size_t vs = sp_value_size(csr->value_type);
    s.nrows = csr->nrows;
    s.ncols = csr->ncols;
    s.nnz = csr->nnz;
    s.nslices = (csr->nrows + c - 1) / c;
    s.c = c;
    s.sigma = sigma;
    s.value_type = csr->value_type;
    SP_ALLOC(s.perm, s.nrows);
    if (csr->ptr64)
        SP_ALLOC(s.slice_ptr64, s.nslices + 1);
    else
        SP_ALLOC(s.slice_ptr, s.nslices + 1);
    SP_ALLOC(s.slice_width, s.nslices);
    SP_TRY(sort_rows(csr, sigma, s.perm));
    SP_TRY(lay_out_slices(csr, &s));
    SP_ALLOC(s.col, s.padded);
    SP_TRY(ref_values_calloc(&s.val, s.value_type, s.padded));
    for (int64_t q = 0; q < s.padded; q++) s.col[q] = -1;
    for (int64_t p = 0; p < s.nrows; p++) {
        int64_t r = s.perm[p], base = sp__sell_at(&s, p / c) + p % c;
        for (int64_t k = 0; k < ref_row_length(csr, r); k++) {
            s.col[base + k * c] = csr->idx[sp__csr_at(csr, r) + k];
            ref_value_copy(s.val, base + k * c, csr->val, sp__csr_at(csr, r) + k, vs);
        }
    }
    *sell = s;
    s = (sp_sell_t){0};
done:
    sp__sell_free(&s);
    return st;
}
