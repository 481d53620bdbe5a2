/* Remove a graph's self-loops (v, v) from a host COO in place, keeping the other entries
 * in their order (so sorted and merged inputs stay so). */
#include <string.h>

#include "sp_base.h"

sp_status_t sp_coo_drop_self_loops(sp_coo_t *coo, int64_t *ndropped)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t keep = 0;
    size_t vs;
    SP_CHECK_ARG(coo != NULL, "sp_coo_drop_self_loops: coo is NULL");
    SP_CHECK_ARG(coo->nnz == 0 || (coo->row != NULL && coo->col != NULL),
                 "sp_coo_drop_self_loops: NULL row or col for %lld entries", (long long)coo->nnz);
    vs = sp_value_size(coo->value_type);
    for (int64_t k = 0; k < coo->nnz; k++) {
        if (coo->row[k] == coo->col[k]) continue;
        coo->row[keep] = coo->row[k];
        coo->col[keep] = coo->col[k];
        if (vs) memmove((char *)coo->val + keep * vs, (char *)coo->val + k * vs, vs);
        keep++;
    }
    if (ndropped) *ndropped = coo->nnz - keep;
    coo->nnz = keep;
done:
    return st;
}
