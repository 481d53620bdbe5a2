/* sp__coo_keep_rows: the row filter of the per-part readers (sp_mtx_read_rows,
 * sp_edgelist_read_rows): each parsed piece keeps only the entries its part needs, so a
 * rank's memory stays at the size of its rows while every line is still parsed and checked. */
#include <string.h>

#include "sp_base.h"
#include "sp_text.h"

int64_t sp__coo_keep_rows(int32_t *row, int32_t *col, void *val, size_t vs, int64_t n,
                          int64_t rb, int64_t re, int either, int64_t *both)
{
    int64_t kept = 0, inner = 0;
    uint64_t width = (uint64_t)(re - rb);
    for (int64_t k = 0; k < n; k++) {
        int r_in = (uint64_t)(row[k] - rb) < width, c_in = (uint64_t)(col[k] - rb) < width;
        if (!r_in && !(either && c_in)) continue;
        inner += r_in && c_in && row[k] != col[k];
        if (kept != k) {
            row[kept] = row[k];
            col[kept] = col[k];
            if (vs) memcpy((char *)val + (size_t)kept * vs, (char *)val + (size_t)k * vs, vs);
        }
        kept++;
    }
    if (both) *both = inner;
    return kept;
}
