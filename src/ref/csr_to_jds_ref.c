/* JDS = rows stably sorted by length, descending, then stored by jagged diagonal: entry d
 * of sorted rows 0..count_d-1 at jd_ptr[d] + i, where count_d = rows longer than d
 * (PMPP, sparse-matrix chapter). No padding. The diagonal pointers take the CSR's width
 * (jd_ptr64 from a CSR with 64-bit pointers, issue 20); counted in 64 bits either way. */
#include "ref_internal.h"

sp_status_t sp__ref_csr_to_jds(const sp_csr_t *csr, sp_jds_t *jds)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_jds_t j = {0};
    int32_t *shortfall = NULL;
    int64_t *start = NULL;
    SP_CHECK_ARG(csr != NULL && jds != NULL, "csr to jds: NULL argument");
    size_t vs = sp_value_size(csr->value_type);
    j.nrows = csr->nrows;
    j.ncols = csr->ncols;
    j.nnz = csr->nnz;
    j.njd = ref_longest_row(csr);
    j.value_type = csr->value_type;
    SP_ALLOC(j.perm, j.nrows);
    if (csr->ptr64)
        SP_ALLOC(j.jd_ptr64, j.njd + 1);
    else
        SP_ALLOC(j.jd_ptr, j.njd + 1);
    SP_CALLOC(start, j.njd + 1);
    SP_ALLOC(j.col, j.nnz);
    SP_TRY(ref_values_calloc(&j.val, j.value_type, j.nnz));
    /* Ascending (longest - length) is descending length; the sort keeps ties in row order. */
    SP_ALLOC(shortfall, j.nrows);
    for (int64_t r = 0; r < j.nrows; r++) {
        j.perm[r] = (int32_t)r;
        shortfall[r] = (int32_t)(j.njd - ref_row_length(csr, r));
        for (int64_t d = 0; d < ref_row_length(csr, r); d++) start[d]++;
    }
    SP_TRY(sp__ref_sort_perm(shortfall, j.nrows, j.perm));
    start[j.njd] = sp__ref_exclusive_scan_i64(start, start, j.njd);
    for (int64_t d = 0; d <= j.njd; d++) {
        if (j.jd_ptr64)
            j.jd_ptr64[d] = start[d];
        else
            j.jd_ptr[d] = (int32_t)start[d];
    }
    for (int64_t i = 0; i < j.nrows; i++) {
        int64_t r = j.perm[i];
        for (int64_t d = 0; d < ref_row_length(csr, r); d++) {
            j.col[start[d] + i] = csr->idx[sp__csr_at(csr, r) + d];
            ref_value_copy(j.val, start[d] + i, csr->val, sp__csr_at(csr, r) + d, vs);
        }
    }
    *jds = j;
    j = (sp_jds_t){0};
done:
    sp__free(start);
    sp__free(shortfall);
    sp__jds_free(&j);
    return st;
}
