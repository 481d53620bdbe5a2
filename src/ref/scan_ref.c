/* Exclusive prefix sum reference: out[i] = in[0] + ... + in[i-1], total returned. */
#include "sp_ref.h"

/* Reads in[i] before writing out[i], so out may alias in. */
int64_t sp__ref_exclusive_scan_i32(const int32_t *in, int32_t *out, int64_t n)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t v = in[i];
        out[i] = (int32_t)sum;
        sum += v;
    }
    return sum;
}

int64_t sp__ref_exclusive_scan_i64(const int64_t *in, int64_t *out, int64_t n)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = in[i];
        out[i] = sum;
        sum += v;
    }
    return sum;
}
