/* Stable reorder of a permutation by gathered keys: keys[perm[i]] ascending afterwards,
 * ties keeping their order in perm (the building block of the two-key sorts). */
#include "ref_internal.h"

sp_status_t sp__ref_sort_perm(const int32_t *keys, int64_t n, int32_t *perm)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    uint32_t *gathered = NULL;
    uint32_t max = 0;
    int bits = 1;
    SP_ALLOC(gathered, n);
    for (int64_t i = 0; i < n; i++) {
        gathered[i] = (uint32_t)keys[perm[i]];
        if (gathered[i] > max) max = gathered[i];
    }
    while (bits < 32 && (max >> bits) != 0) bits++;
    SP_TRY(sp__ref_radix_sort_u32(gathered, perm, n, bits));
done:
    sp__free(gathered);
    return st;
}
