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

/* The same for a 64-bit permutation (n past INT32_MAX): LSD passes of 8-bit digits over
 * the gathered keys, each a count, an exclusive scan and a stable scatter. */
sp_status_t sp__ref_sort_perm64(const int32_t *keys, int64_t n, int64_t *perm)
{
    enum { BITS = 8, BINS = 1 << BITS };
    sp_status_t st = SP_STATUS_SUCCESS;
    uint32_t *k_in = NULL, *k_out = NULL;
    int64_t *p_out = NULL, *p_in = perm;
    uint32_t max = 0;
    SP_ALLOC(k_in, n);
    SP_ALLOC(k_out, n);
    SP_ALLOC(p_out, n);
    for (int64_t i = 0; i < n; i++) {
        k_in[i] = (uint32_t)keys[perm[i]];
        if (k_in[i] > max) max = k_in[i];
    }
    for (int shift = 0; shift < 32 && (shift == 0 || (max >> shift) != 0); shift += BITS) {
        int64_t offset[BINS] = {0}, run = 0;
        for (int64_t i = 0; i < n; i++) offset[(k_in[i] >> shift) & (BINS - 1)]++;
        for (int d = 0; d < BINS; d++) {
            int64_t c = offset[d];
            offset[d] = run;
            run += c;
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t at = offset[(k_in[i] >> shift) & (BINS - 1)]++;
            k_out[at] = k_in[i];
            p_out[at] = p_in[i];
        }
        uint32_t *ks = k_in;
        k_in = k_out;
        k_out = ks;
        int64_t *ps = p_in;
        p_in = p_out;
        p_out = ps;
    }
    /* After an odd number of passes the order sits in the scratch array. */
    if (p_in != perm) {
        memcpy(perm, p_in, (size_t)n * sizeof *perm);
        p_out = p_in;
    }
done:
    sp__free(p_out);
    sp__free(k_out);
    sp__free(k_in);
    return st;
}
