/* Histogram reference: counts[b] = #{i : keys[i] == b}. */
#include "sp_ref.h"

/* Keys outside [0, nbins) are the caller's bug; they are skipped rather than written
 * out of bounds. */
void sp__ref_histogram(const int32_t *keys, int64_t n, int32_t *counts, int64_t nbins)
{
    for (int64_t b = 0; b < nbins; b++) counts[b] = 0;
    for (int64_t i = 0; i < n; i++)
        if (keys[i] >= 0 && keys[i] < nbins) counts[keys[i]]++;
}
