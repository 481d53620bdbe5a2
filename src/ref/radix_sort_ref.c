/* LSD radix sort reference: stable ascending sort of (keys, vals) by the low key_bits
 * bits, one 8-bit digit per pass, each pass histogram -> exclusive scan -> scatter. */
#include "sp_base.h"
#include "sp_ref.h"

#define DIGIT_BITS 8
#define DIGIT_BINS (1 << DIGIT_BITS)

/* One stable pass: (kin, vin) -> (kout, vout) by the digit at `shift` of `bits` bits. */
static void scatter_pass(const uint32_t *kin, const int32_t *vin, uint32_t *kout,
                         int32_t *vout, int32_t *digit, int64_t n, int shift, int bits)
{
    int32_t offset[DIGIT_BINS];
    uint32_t mask = (1u << bits) - 1u;
    for (int64_t i = 0; i < n; i++) digit[i] = (int32_t)((kin[i] >> shift) & mask);
    sp__ref_histogram(digit, n, offset, DIGIT_BINS);
    sp__ref_exclusive_scan_i32(offset, offset, DIGIT_BINS);
    for (int64_t i = 0; i < n; i++) {
        int32_t p = offset[digit[i]]++;
        kout[p] = kin[i];
        if (vin) vout[p] = vin[i];
    }
}

sp_status_t sp__ref_radix_sort_u32(uint32_t *keys, int32_t *vals, int64_t n, int key_bits)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    uint32_t *ktmp = NULL;
    int32_t *vtmp = NULL, *digit = NULL;
    SP_CHECK_ARG(key_bits >= 1 && key_bits <= 32,
                 "radix sort: key_bits %d outside 1..32", key_bits);
    SP_CHECK_ARG(n >= 0 && n <= INT32_MAX, "radix sort: n %lld outside 0..%d",
                 (long long)n, INT32_MAX);
    SP_CHECK_ARG(keys != NULL || n == 0, "radix sort: keys is NULL");
    SP_ALLOC(ktmp, n);
    SP_ALLOC(digit, n);
    if (vals) SP_ALLOC(vtmp, n);
    uint32_t *kin = keys, *kout = ktmp;
    int32_t *vin = vals, *vout = vtmp;
    for (int shift = 0; shift < key_bits; shift += DIGIT_BITS) {
        int bits = key_bits - shift < DIGIT_BITS ? key_bits - shift : DIGIT_BITS;
        scatter_pass(kin, vin, kout, vout, digit, n, shift, bits);
        uint32_t *kswap = kin;
        kin = kout;
        kout = kswap;
        int32_t *vswap = vin;
        vin = vout;
        vout = vswap;
    }
    /* After an odd number of passes the result sits in the scratch arrays. */
    if (kin != keys) {
        for (int64_t i = 0; i < n; i++) keys[i] = kin[i];
        for (int64_t i = 0; i < n && vals; i++) vals[i] = vin[i];
    }
done:
    sp__free(vtmp);
    sp__free(digit);
    sp__free(ktmp);
    return st;
}
