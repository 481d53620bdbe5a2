/* GPU primitives (kernels/prim/) against their host references in src/ref/: histogram,
 * exclusive scan (32- and 64-bit) and radix sort, element by element, across the sizes
 * where tiles, warps and grid waves change, plus every refused argument; the 64-bit-key
 * sort against a stable host sort written here; the sorts again with the onesweep passes
 * forced and with the classic passes forced (the default chooses by size:
 * sp__gpu_radix_sort_set_onesweep), and a scratch asked for in one way used by the other.
 * Exits 77
 * (ctest: skipped) where no GPU is usable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#ifdef SP_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "sp_kernels.h"
#include "sp_ref.h"
#include "testutil_gpu.h"

/* Tiles of the scan policies (kernels/prim/prim_policy.h), for the sizes around them. */
#define SCAN_TILE_I32 4096
#define SCAN_TILE_I64 4096
/* A wave: about every block resident at once on a 132-SM H100 (8 scan blocks per SM). */
#define WAVE_TILES (132 * 8)

static cudaStream_t stream;

/* SP_TEST_SMALL=1 (for compute-sanitizer, which runs kernels far slower) skips the inputs
 * above SMALL_LIMIT elements; every strategy, tile edge and error path is still run. */
enum { SMALL_LIMIT = 1 << 22 };
static int too_big(int64_t n)
{
    return sp_test_small() && n > SMALL_LIMIT;
}

static void setup(void) { ck_cuda(cudaStreamCreate(&stream)); }
static void teardown(void) { ck_cuda(cudaStreamDestroy(stream)); }

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    ck_cuda(cudaMalloc(&p, bytes > 0 ? bytes : 1));
    return p;
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

static void assert_same_i32(const int32_t *got, const int32_t *want, int64_t n, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            ck_abort_msg("%s: element %lld of %lld is %d, expected %d", what, (long long)i,
                         (long long)n, got[i], want[i]);
}

static void assert_same_i64(const int64_t *got, const int64_t *want, int64_t n, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            ck_abort_msg("%s: element %lld of %lld is %lld, expected %lld", what, (long long)i,
                         (long long)n, (long long)got[i], (long long)want[i]);
}

/* ---- histogram ---------------------------------------------------------------------- */

/* GPU histogram of h_keys (offset elements into the device copy, to test unaligned
 * input) against the reference. */
static void check_histogram(const int32_t *h_keys, int64_t n, int64_t nbins, int offset)
{
    if (too_big(n)) return;
    int32_t *d_keys = dev_alloc((size_t)(n + offset) * 4);
    int32_t *d_counts = dev_alloc((size_t)nbins * 4);
    int32_t *got = host_alloc((size_t)nbins * 4), *want = host_alloc((size_t)nbins * 4);
    size_t temp_bytes = 0;
    sp_test_to_device(d_keys + offset, h_keys, (size_t)n * 4, stream);
    ck_cuda(cudaMemset(d_counts, 0x5a, (size_t)nbins * 4)); /* poison: must be overwritten */
    ck_assert_ok(sp__gpu_histogram(d_keys + offset, n, d_counts, nbins, NULL, &temp_bytes, stream));
    ck_assert_uint_ge(temp_bytes, 1);
    void *d_temp = dev_alloc(temp_bytes);
    ck_assert_ok(sp__gpu_histogram(d_keys + offset, n, d_counts, nbins, d_temp, &temp_bytes, stream));
    sp_test_to_host(got, d_counts, (size_t)nbins * 4, stream);
    sp__ref_histogram(h_keys, n, want, nbins);
    assert_same_i32(got, want, nbins, "histogram");
    cudaFree(d_temp);
    free(want);
    free(got);
    cudaFree(d_counts);
    cudaFree(d_keys);
}

/* Keys uniform in [0, nbins), about 1 in 16 replaced by an out-of-range key. */
static int32_t *random_keys(uint64_t seed, int64_t n, int64_t nbins)
{
    int32_t *k = host_alloc((size_t)n * 4);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = sp_test_rand(&s);
        if (r % 16 == 0)
            k[i] = (r >> 8) % 2 ? -1 - (int32_t)((r >> 9) % 100) : (int32_t)(nbins + (r >> 9) % 100);
        else
            k[i] = (int32_t)((r >> 8) % (uint64_t)nbins);
    }
    return k;
}

START_TEST(test_histogram_tiny)
{
    const int32_t keys[] = {0, 1, 1, 3, 3, 3, -1, 4};
    int32_t *d_keys = dev_alloc(sizeof keys), *d_counts = dev_alloc(4 * 4);
    int32_t counts[4];
    char *d_temp = dev_alloc(256);
    size_t temp_bytes = 256;
    sp_test_to_device(d_keys, keys, sizeof keys, stream);
    ck_assert_ok(sp__gpu_histogram(d_keys, 8, d_counts, 4, d_temp, &temp_bytes, stream));
    sp_test_to_host(counts, d_counts, sizeof counts, stream);
    ck_assert_int_eq(counts[0], 1);
    ck_assert_int_eq(counts[1], 2);
    ck_assert_int_eq(counts[2], 0);
    ck_assert_int_eq(counts[3], 3); /* -1 and 4 are outside [0, 4): ignored */
    /* n = 0 still clears the counts */
    ck_assert_ok(sp__gpu_histogram(d_keys, 0, d_counts, 4, d_temp, &temp_bytes, stream));
    sp_test_to_host(counts, d_counts, sizeof counts, stream);
    for (int b = 0; b < 4; b++) ck_assert_int_eq(counts[b], 0);
    cudaFree(d_temp);
    cudaFree(d_counts);
    cudaFree(d_keys);
}
END_TEST

/* Every strategy: thread-local (1, 2, 7, 16), warp-private (17, 64), block-private (256,
 * 4096), global (100k on GPUs under 400 KB of shared memory per block, 1M, 10M). */
START_TEST(test_histogram_bins)
{
    const int64_t nbins[] = {1, 2, 7, 16, 17, 64, 256, 4096, 100000, 1000000, 10000000};
    for (size_t b = 0; b < sizeof nbins / sizeof nbins[0]; b++) {
        int64_t n = 3000017;
        int32_t *k = random_keys(100 + b, n, nbins[b]);
        check_histogram(k, n, nbins[b], 0);
        check_histogram(k, n - 1, nbins[b], 1); /* unaligned, scalar loads */
        free(k);
    }
}
END_TEST

START_TEST(test_histogram_sizes)
{
    const int64_t sizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, 4095, 4096, 4097, 1 << 20};
    const int64_t nbins[] = {7, 40, 4096, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t b = 0; b < sizeof nbins / sizeof nbins[0]; b++) {
            int32_t *k = random_keys(7 * i + b, sizes[i], nbins[b]);
            check_histogram(k, sizes[i], nbins[b], 0);
            check_histogram(k, sizes[i], nbins[b], 3);
            free(k);
        }
}
END_TEST

/* All keys equal: every strategy's worst contention. */
START_TEST(test_histogram_skewed)
{
    const int64_t nbins[] = {2, 16, 64, 65, 256, 50000, 1000000};
    int64_t n = 4 << 20;
    int32_t *k = host_alloc((size_t)n * 4);
    for (size_t b = 0; b < sizeof nbins / sizeof nbins[0]; b++) {
        for (int64_t i = 0; i < n; i++) k[i] = (int32_t)(nbins[b] - 1);
        check_histogram(k, n, nbins[b], 0);
    }
    free(k);
}
END_TEST

START_TEST(test_histogram_errors)
{
    int32_t *d_keys = dev_alloc(64), *d_counts = dev_alloc(64);
    void *d_temp = dev_alloc(256);
    size_t small = 1, bytes = 256;
    ck_assert_status(sp__gpu_histogram(d_keys, 4, d_counts, 4, d_temp, NULL, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("histogram: temp_bytes is NULL");
    ck_assert_status(sp__gpu_histogram(d_keys, -1, d_counts, 4, d_temp, &bytes, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("n -1 is negative");
    ck_assert_status(sp__gpu_histogram(d_keys, 4, d_counts, -2, d_temp, &bytes, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("nbins -2 is negative");
    ck_assert_status(sp__gpu_histogram(NULL, 4, d_counts, 4, d_temp, &bytes, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("d_keys is NULL for n 4");
    ck_assert_status(sp__gpu_histogram(d_keys, 4, NULL, 4, d_temp, &bytes, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("d_counts is NULL for nbins 4");
    ck_assert_status(sp__gpu_histogram(d_keys, 4, d_counts, 4, d_temp, &small, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("temp_bytes 1 below the 256 needed");
    ck_assert_status(sp__gpu_histogram(d_keys, (int64_t)1 << 31, d_counts, 4, d_temp, &bytes,
                                       stream),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("n 2147483648 or nbins 4 exceeds the 32-bit counts");
    cudaFree(d_temp);
    cudaFree(d_counts);
    cudaFree(d_keys);
}
END_TEST

/* ---- scan --------------------------------------------------------------------------- */

/* The 32-bit (w = 4) or 64-bit (w = 8) scan, GPU and reference. */
static sp_status_t gpu_scan(size_t w, const void *d_in, void *d_out, int64_t n, void *d_total,
                            void *d_temp, size_t *temp_bytes)
{
    if (w == 4) return sp__gpu_exclusive_scan_i32(d_in, d_out, n, d_total, d_temp, temp_bytes, stream);
    return sp__gpu_exclusive_scan_i64(d_in, d_out, n, d_total, d_temp, temp_bytes, stream);
}

static int64_t ref_scan(size_t w, const void *in, void *out, int64_t n)
{
    if (w == 4) return sp__ref_exclusive_scan_i32(in, out, n);
    return sp__ref_exclusive_scan_i64(in, out, n);
}

/* GPU exclusive scan of h_in (n values of w bytes, device copies offset elements in)
 * against the reference, out of place and in place, with the total. */
static void check_scan(size_t w, const void *h_in, int64_t n, int offset)
{
    if (too_big(n)) return;
    size_t bytes = (size_t)n * w, pad = w * (size_t)offset, temp_bytes = 0;
    char *d_in = dev_alloc(bytes + pad), *d_out = dev_alloc(bytes + pad);
    void *d_total = dev_alloc(w);
    void *got = host_alloc(bytes), *want = host_alloc(bytes);
    int64_t total = 0, want_total = ref_scan(w, h_in, want, n);
    ck_assert_ok(gpu_scan(w, NULL, NULL, n, NULL, NULL, &temp_bytes));
    void *d_temp = dev_alloc(temp_bytes);
    for (int in_place = 0; in_place < 2; in_place++) {
        char *dst = (in_place ? d_in : d_out) + pad;
        sp_test_to_device(d_in + pad, h_in, bytes, stream);
        if (!in_place) ck_cuda(cudaMemset(d_out, 0xa5, bytes + pad));
        ck_cuda(cudaMemset(d_total, 0xa5, w));
        ck_assert_ok(gpu_scan(w, d_in + pad, dst, n, d_total, d_temp, &temp_bytes));
        sp_test_to_host(got, dst, bytes, stream);
        /* little-endian: a 32-bit total lands in the low half */
        sp_test_to_host(&total, d_total, w, stream);
        const char *what = in_place ? "scan in place" : "scan";
        if (w == 4) {
            assert_same_i32(got, want, n, what);
            ck_assert_int_eq((int32_t)(uint32_t)total, (int32_t)(uint32_t)want_total);
        } else {
            assert_same_i64(got, want, n, what);
            ck_assert(total == want_total);
        }
    }
    cudaFree(d_temp);
    free(want);
    free(got);
    cudaFree(d_total);
    cudaFree(d_out);
    cudaFree(d_in);
}

static int32_t *random_i32(uint64_t seed, int64_t n, int32_t lo, int32_t hi)
{
    int32_t *v = host_alloc((size_t)n * 4);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++)
        v[i] = lo + (int32_t)(sp_test_rand(&s) % (uint64_t)((int64_t)hi - lo + 1));
    return v;
}

START_TEST(test_scan_tiny)
{
    const int32_t in[] = {3, 1, 4, 1, 5};
    const int64_t in64[] = {(int64_t)1 << 40, -7, 3000000000LL};
    int32_t out[5];
    int64_t out64[3], total64 = 0;
    int32_t *d_in = dev_alloc(sizeof in), *d_total = dev_alloc(4), total = 0;
    int64_t *d_in64 = dev_alloc(sizeof in64), *d_total64 = dev_alloc(8);
    size_t temp_bytes = 0;
    ck_assert_ok(sp__gpu_exclusive_scan_i64(NULL, NULL, 5, NULL, NULL, &temp_bytes, stream));
    void *d_temp = dev_alloc(temp_bytes);
    sp_test_to_device(d_in, in, sizeof in, stream);
    sp_test_to_device(d_in64, in64, sizeof in64, stream);
    ck_assert_ok(sp__gpu_exclusive_scan_i32(d_in, d_in, 5, d_total, d_temp, &temp_bytes, stream));
    sp_test_to_host(out, d_in, sizeof out, stream);
    sp_test_to_host(&total, d_total, 4, stream);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 3);
    ck_assert_int_eq(out[2], 4);
    ck_assert_int_eq(out[3], 8);
    ck_assert_int_eq(out[4], 9);
    ck_assert_int_eq(total, 14);
    ck_assert_ok(sp__gpu_exclusive_scan_i64(d_in64, d_in64, 3, d_total64, d_temp, &temp_bytes,
                                            stream));
    sp_test_to_host(out64, d_in64, sizeof out64, stream);
    sp_test_to_host(&total64, d_total64, 8, stream);
    ck_assert(out64[0] == 0 && out64[1] == (int64_t)1 << 40 && out64[2] == ((int64_t)1 << 40) - 7);
    ck_assert(total64 == ((int64_t)1 << 40) - 7 + 3000000000LL);
    /* n = 0: the total is 0, nothing else is touched */
    ck_assert_ok(sp__gpu_exclusive_scan_i32(d_in, d_in, 0, d_total, d_temp, &temp_bytes, stream));
    sp_test_to_host(&total, d_total, 4, stream);
    ck_assert_int_eq(total, 0);
    cudaFree(d_temp);
    cudaFree(d_total64);
    cudaFree(d_in64);
    cudaFree(d_total);
    cudaFree(d_in);
}
END_TEST

static const int64_t scan_sizes_i32[] = {
    0, 1, 31, 32, 33, 1023, 1024, 1025, SCAN_TILE_I32 - 1, SCAN_TILE_I32, SCAN_TILE_I32 + 1,
    (int64_t)WAVE_TILES * SCAN_TILE_I32 - 1, (int64_t)WAVE_TILES * SCAN_TILE_I32 + 1,
    (int64_t)3 * WAVE_TILES * SCAN_TILE_I32 + 17};

START_TEST(test_scan_i32_sizes)
{
    for (size_t i = 0; i < sizeof scan_sizes_i32 / sizeof scan_sizes_i32[0]; i++) {
        int64_t n = scan_sizes_i32[i];
        int32_t *v = random_i32(i, n, -1000, 1000);
        check_scan(4, v, n, 0);
        check_scan(4, v, n, 1); /* unaligned: scalar loads and stores */
        free(v);
    }
}
END_TEST

/* Sums past 2^31 wrap like 32-bit addition, as in the reference. */
START_TEST(test_scan_i32_large)
{
    const int64_t sizes[] = {10000000, 100000000};
    for (size_t i = 0; i < 2; i++) {
        int32_t *v = random_i32(50 + i, sizes[i], -100, 1000);
        check_scan(4, v, sizes[i], 0);
        free(v);
    }
}
END_TEST

START_TEST(test_scan_i64)
{
    const int64_t sizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, SCAN_TILE_I64 - 1, SCAN_TILE_I64,
                             SCAN_TILE_I64 + 1, (int64_t)WAVE_TILES * SCAN_TILE_I64 - 1,
                             (int64_t)WAVE_TILES * SCAN_TILE_I64 + 1, 10000000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int64_t n = sizes[i];
        int64_t *v = host_alloc((size_t)n * 8);
        uint64_t s = 900 + i;
        /* values up to 2^33: partial sums leave 32 bits within a few elements */
        for (int64_t j = 0; j < n; j++)
            v[j] = (int64_t)(sp_test_rand(&s) % ((uint64_t)1 << 34)) - ((int64_t)1 << 32);
        check_scan(8, v, n, 0);
        check_scan(8, v, n, 1);
        free(v);
    }
}
END_TEST

START_TEST(test_scan_errors)
{
    int32_t *d = dev_alloc(64);
    size_t bytes = 0, small = 8;
    ck_assert_ok(sp__gpu_exclusive_scan_i32(NULL, NULL, 16, NULL, NULL, &bytes, stream));
    void *d_temp = dev_alloc(bytes);
    ck_assert_status(sp__gpu_exclusive_scan_i32(d, d, 16, NULL, d_temp, NULL, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("exclusive_scan_i32: temp_bytes is NULL");
    ck_assert_status(sp__gpu_exclusive_scan_i64(NULL, NULL, -5, NULL, NULL, &bytes, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("exclusive_scan_i64: n -5 is negative");
    ck_assert_status(sp__gpu_exclusive_scan_i32(NULL, d, 16, NULL, d_temp, &bytes, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("d_in or d_out is NULL for n 16");
    ck_assert_status(sp__gpu_exclusive_scan_i32(d, d, 16, NULL, d_temp, &small, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("temp_bytes 8 below the");
    cudaFree(d_temp);
    cudaFree(d);
}
END_TEST

/* ---- radix sort ------------------------------------------------------------------------ */

/* GPU sort of (keys, vals or none) against the reference. */
static void check_sort(const uint32_t *h_keys, const int32_t *h_vals, int64_t n, int key_bits)
{
    if (too_big(n)) return;
    size_t bytes = (size_t)n * 4, temp_bytes = 0;
    uint32_t *d_keys = dev_alloc(bytes), *got_k = host_alloc(bytes), *want_k = host_alloc(bytes);
    int32_t *d_vals = h_vals ? dev_alloc(bytes) : NULL;
    int32_t *got_v = host_alloc(bytes), *want_v = host_alloc(bytes);
    memcpy(want_k, h_keys, bytes);
    if (h_vals) memcpy(want_v, h_vals, bytes);
    ck_assert_ok(sp__ref_radix_sort_u32(want_k, h_vals ? want_v : NULL, n, key_bits));
    sp_test_to_device(d_keys, h_keys, bytes, stream);
    if (h_vals) sp_test_to_device(d_vals, h_vals, bytes, stream);
    ck_assert_ok(sp__gpu_radix_sort_pairs_u32(d_keys, d_vals, n, key_bits, NULL, &temp_bytes, stream));
    void *d_temp = dev_alloc(temp_bytes);
    ck_cuda(cudaMemset(d_temp, 0xa5, temp_bytes));
    ck_assert_ok(sp__gpu_radix_sort_pairs_u32(d_keys, d_vals, n, key_bits, d_temp, &temp_bytes,
                                              stream));
    sp_test_to_host(got_k, d_keys, bytes, stream);
    assert_same_i32((const int32_t *)got_k, (const int32_t *)want_k, n, "sorted keys");
    if (h_vals) {
        sp_test_to_host(got_v, d_vals, bytes, stream);
        assert_same_i32(got_v, want_v, n, "values (stability)");
    }
    cudaFree(d_temp);
    free(want_v);
    free(got_v);
    cudaFree(d_vals);
    free(want_k);
    free(got_k);
    cudaFree(d_keys);
}

static uint32_t *random_u32(uint64_t seed, int64_t n, uint32_t range)
{
    uint32_t *k = host_alloc((size_t)n * 4);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = sp_test_rand(&s);
        k[i] = range ? (uint32_t)(r % range) : (uint32_t)r;
    }
    return k;
}

static int32_t *iota(int64_t n)
{
    int32_t *v = host_alloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) v[i] = (int32_t)i;
    return v;
}

/* The 32- or 64-bit-key sort, by key width. */
static sp_status_t gpu_sort(int width, void *d_keys, int32_t *d_vals, int64_t n, int key_bits,
                            void *d_temp, size_t *temp_bytes)
{
    return width == 32 ? sp__gpu_radix_sort_pairs_u32(d_keys, d_vals, n, key_bits, d_temp,
                                                      temp_bytes, stream)
                       : sp__gpu_radix_sort_pairs_u64(d_keys, d_vals, n, key_bits, d_temp,
                                                      temp_bytes, stream);
}

/* Sorts a hand-checked case of `width`-bit keys (sorted in place) with values 0..n-1 and
 * compares both with the expected ones. */
static void check_sort_tiny(int width, void *keys, int n, int key_bits, const void *want_k,
                            const int32_t *want_v)
{
    size_t kbytes = (size_t)n * (size_t)width / 8, temp_bytes = 0;
    int32_t vals[16];
    for (int i = 0; i < n; i++) vals[i] = i;
    void *d_keys = dev_alloc(kbytes);
    int32_t *d_vals = dev_alloc(sizeof vals);
    sp_test_to_device(d_keys, keys, kbytes, stream);
    sp_test_to_device(d_vals, vals, sizeof vals, stream);
    ck_assert_ok(gpu_sort(width, d_keys, d_vals, n, key_bits, NULL, &temp_bytes));
    void *d_temp = dev_alloc(temp_bytes);
    ck_assert_ok(gpu_sort(width, d_keys, d_vals, n, key_bits, d_temp, &temp_bytes));
    sp_test_to_host(keys, d_keys, kbytes, stream);
    sp_test_to_host(vals, d_vals, sizeof vals, stream);
    ck_assert_mem_eq(keys, want_k, kbytes);
    ck_assert_mem_eq(vals, want_v, (size_t)n * 4);
    cudaFree(d_temp);
    cudaFree(d_vals);
    cudaFree(d_keys);
}

START_TEST(test_sort_tiny)
{
    uint32_t keys[] = {3, 1, 2, 1, 0, 7}; /* 7 = 111b: only its low 2 bits (3) compare */
    const uint32_t want_k[] = {0, 1, 1, 2, 3, 7};
    const int32_t want_v[] = {4, 1, 3, 2, 0, 5};
    check_sort_tiny(32, keys, 6, 2, want_k, want_v);
}
END_TEST

START_TEST(test_sort_bits_and_sizes)
{
    const int bits[] = {1, 4, 8, 13, 31, 32};
    const int64_t sizes[] = {0, 1, 31, 33, 1025, 4095, 4096, 4097, 1000003};
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int64_t n = sizes[i];
            uint32_t *k = random_u32(31 * b + i, n, 0);
            int32_t *v = iota(n);
            check_sort(k, v, n, bits[b]);
            check_sort(k, NULL, n, bits[b]);
            free(v);
            free(k);
        }
}
END_TEST

/* Few distinct keys: long runs of equal keys must keep their input order. */
START_TEST(test_sort_stability)
{
    int64_t n = 3000000;
    uint32_t *k = random_u32(77, n, 4);
    int32_t *v = iota(n);
    check_sort(k, v, n, 8);
    check_sort(k, v, n, 32);
    for (int64_t i = 0; i < n; i++) k[i] = 5; /* all equal */
    check_sort(k, v, n, 16);
    free(v);
    free(k);
}
END_TEST

START_TEST(test_sort_ordered_inputs)
{
    int64_t n = 2000000;
    uint32_t *k = host_alloc((size_t)n * 4);
    int32_t *v = iota(n);
    for (int64_t i = 0; i < n; i++) k[i] = (uint32_t)i * 2000u;
    check_sort(k, v, n, 32); /* already sorted */
    for (int64_t i = 0; i < n; i++) k[i] = (uint32_t)(n - i) * 2000u;
    check_sort(k, v, n, 32); /* reversed */
    free(v);
    free(k);
}
END_TEST

START_TEST(test_sort_large)
{
    int64_t n = 20000000;
    uint32_t *k = random_u32(4242, n, 0);
    int32_t *v = iota(n);
    check_sort(k, v, n, 32);
    check_sort(k, NULL, n, 24);
    free(v);
    free(k);
}
END_TEST

/* The sort from separate inputs (sp__gpu_radix_sort_pairs_u32_into): an odd and an even
 * number of passes, the values given or made (the entry numbers), keys only, sizes across
 * the tiles of both kinds of pass; the input keys `offset` elements into their buffer (1:
 * not 16-byte aligned, the digit counts' scalar loads); the inputs must come back
 * unchanged. */
static void check_sort_into(int64_t n, int key_bits, int vals_mode /* 0 none, 1 given, 2 made */,
                            int offset)
{
    if (too_big(n)) return;
    size_t bytes = (size_t)(n > 0 ? n : 1) * 4, temp_bytes = 0;
    uint32_t *k = random_u32(1000 + (uint64_t)n * 7 + (uint64_t)key_bits, n, 0);
    int32_t *v = iota(n);
    for (int64_t i = 0; i < n; i++) v[i] = (int32_t)(n - i) * 3; /* not the entry numbers */
    uint32_t *want_k = host_alloc(bytes), *got_k = host_alloc(bytes);
    int32_t *want_v = host_alloc(bytes), *got_v = host_alloc(bytes);
    memcpy(want_k, k, (size_t)n * 4);
    if (vals_mode == 1) memcpy(want_v, v, (size_t)n * 4);
    for (int64_t i = 0; vals_mode == 2 && i < n; i++) want_v[i] = (int32_t)i;
    ck_assert_ok(sp__ref_radix_sort_u32(want_k, vals_mode ? want_v : NULL, n, key_bits));
    uint32_t *d_kbuf = dev_alloc(bytes + 4 * (size_t)offset), *d_kout = dev_alloc(bytes);
    uint32_t *d_kin = d_kbuf + offset;
    int32_t *d_vin = dev_alloc(bytes), *d_vout = dev_alloc(bytes);
    sp_test_to_device(d_kin, k, (size_t)n * 4, stream);
    sp_test_to_device(d_vin, v, (size_t)n * 4, stream);
    const int32_t *vin = vals_mode == 1 ? d_vin : NULL;
    int32_t *vout = vals_mode ? d_vout : NULL;
    ck_assert_ok(sp__gpu_radix_sort_pairs_u32_into(d_kin, vin, d_kout, vout, n, key_bits, NULL,
                                                   &temp_bytes, stream));
    void *d_temp = dev_alloc(temp_bytes);
    ck_cuda(cudaMemset(d_temp, 0xa5, temp_bytes));
    ck_assert_ok(sp__gpu_radix_sort_pairs_u32_into(d_kin, vin, d_kout, vout, n, key_bits, d_temp,
                                                   &temp_bytes, stream));
    sp_test_to_host(got_k, d_kout, (size_t)n * 4, stream);
    assert_same_i32((const int32_t *)got_k, (const int32_t *)want_k, n, "sorted keys (into)");
    if (vals_mode) {
        sp_test_to_host(got_v, d_vout, (size_t)n * 4, stream);
        assert_same_i32(got_v, want_v, n, "values (into)");
    }
    sp_test_to_host(got_k, d_kin, (size_t)n * 4, stream);
    assert_same_i32((const int32_t *)got_k, (const int32_t *)k, n, "input keys unchanged");
    sp_test_to_host(got_v, d_vin, (size_t)n * 4, stream);
    assert_same_i32(got_v, v, n, "input values unchanged");
    cudaFree(d_temp);
    cudaFree(d_vout);
    cudaFree(d_vin);
    cudaFree(d_kout);
    cudaFree(d_kbuf);
    free(got_v);
    free(want_v);
    free(got_k);
    free(want_k);
    free(v);
    free(k);
}

START_TEST(test_sort_into)
{
    const int64_t sizes[] = {1, 31, 4096, 6145, 100003, 5000011};
    const int bits[] = {5, 8, 16, 22, 32}; /* 1, 1, 2, 3, 4 passes */
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t b = 0; b < sizeof bits / sizeof *bits; b++)
            for (int mode = 0; mode <= 2; mode++) check_sort_into(sizes[i], bits[b], mode, 0);
    for (size_t i = 3; i < sizeof sizes / sizeof *sizes; i++) /* unaligned input keys */
        for (size_t b = 3; b < sizeof bits / sizeof *bits; b++) check_sort_into(sizes[i], bits[b], 1, 1);
    /* the refused overlap: the input keys as the output */
    size_t temp_bytes = 0;
    uint32_t *d = dev_alloc(64);
    ck_assert_ok(sp__gpu_radix_sort_pairs_u32_into(d, NULL, d, NULL, 16, 8, NULL, &temp_bytes, stream));
    void *d_temp = dev_alloc(temp_bytes);
    ck_assert_status(
        sp__gpu_radix_sort_pairs_u32_into(d, NULL, d, NULL, 16, 8, d_temp, &temp_bytes, stream),
        SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("the input keys are the output");
    cudaFree(d_temp);
    int32_t *dv = dev_alloc(64);
    ck_assert_ok(sp__gpu_radix_sort_pairs_u32_into(d, dv, (uint32_t *)dv, dv, 16, 8, NULL,
                                                   &temp_bytes, stream));
    d_temp = dev_alloc(temp_bytes);
    ck_assert_status(sp__gpu_radix_sort_pairs_u32_into(d, dv, (uint32_t *)dv, dv, 16, 8, d_temp,
                                                       &temp_bytes, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("values in place only with the keys in place");
    ck_assert_status(sp__gpu_radix_sort_pairs_u32_into(NULL, NULL, d, NULL, 16, 8, d_temp,
                                                       &temp_bytes, stream),
                     SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("d_keys_in is NULL for n 16");
    cudaFree(dv);
    cudaFree(d_temp);
    cudaFree(d);
}
END_TEST

/* Every refused argument of the sort of `width`-bit keys, with the message's numbers. */
static void check_sort_errors(int width)
{
    void *d = dev_alloc(128);
    size_t bytes = 0, small = 16;
    char msg[64];
    ck_assert_ok(gpu_sort(width, NULL, NULL, 16, width, NULL, &bytes));
    void *d_temp = dev_alloc(bytes);
    ck_assert_status(gpu_sort(width, d, NULL, 16, 0, d_temp, &bytes), SP_STATUS_INVALID_ARGUMENT);
    snprintf(msg, sizeof msg, "radix sort: key_bits 0 outside 1..%d", width);
    ck_assert_error_has(msg);
    ck_assert_status(gpu_sort(width, d, NULL, 16, width + 1, d_temp, &bytes), SP_STATUS_INVALID_ARGUMENT);
    snprintf(msg, sizeof msg, "key_bits %d outside 1..%d", width + 1, width);
    ck_assert_error_has(msg);
    ck_assert_status(gpu_sort(width, d, NULL, -3, 8, d_temp, &bytes), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("n -3 is negative");
    ck_assert_status(gpu_sort(width, NULL, NULL, 16, 8, d_temp, &bytes), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("d_keys is NULL for n 16");
    ck_assert_status(gpu_sort(width, d, NULL, 16, 8, d_temp, &small), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("temp_bytes 16 below the");
    ck_assert_status(gpu_sort(width, d, NULL, (int64_t)1 << 31, 8, d_temp, &bytes),
                     SP_STATUS_NOT_SUPPORTED);
    ck_assert_error_has("n 2147483648 exceeds");
    ck_assert_status(gpu_sort(width, d, NULL, 16, 8, NULL, NULL), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("temp_bytes is NULL");
    cudaFree(d_temp);
    cudaFree(d);
}

START_TEST(test_sort_errors) { check_sort_errors(32); }
END_TEST

/* ---- radix sort, 64-bit keys ----------------------------------------------------------- */

/* Tile of the 64-bit downsweep (kernels/prim/prim_policy.h), and about one wave of it. */
#define SORT64_TILE 3072
#define SORT64_WAVE ((int64_t)132 * 4 * SORT64_TILE)

static const uint64_t *ref64_keys;
static uint64_t ref64_mask;

/* Orders positions by masked key, then by position: a stable sort by construction. */
static int ref64_cmp(const void *a, const void *b)
{
    int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
    uint64_t ki = ref64_keys[i] & ref64_mask, kj = ref64_keys[j] & ref64_mask;
    if (ki != kj) return ki < kj ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* GPU sort of (keys, vals or none) against qsort of the positions. */
static void check_sort64(const uint64_t *h_keys, const int32_t *h_vals, int64_t n, int key_bits)
{
    if (too_big(n)) return;
    size_t kbytes = (size_t)n * 8, vbytes = (size_t)n * 4, temp_bytes = 0;
    int64_t *perm = host_alloc((size_t)n * 8);
    uint64_t *d_keys = dev_alloc(kbytes), *got_k = host_alloc(kbytes);
    int32_t *d_vals = h_vals ? dev_alloc(vbytes) : NULL, *got_v = host_alloc(vbytes);
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    ref64_keys = h_keys;
    ref64_mask = key_bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << key_bits) - 1;
    qsort(perm, (size_t)n, sizeof *perm, ref64_cmp);
    sp_test_to_device(d_keys, h_keys, kbytes, stream);
    if (h_vals) sp_test_to_device(d_vals, h_vals, vbytes, stream);
    ck_assert_ok(sp__gpu_radix_sort_pairs_u64(d_keys, d_vals, n, key_bits, NULL, &temp_bytes, stream));
    void *d_temp = dev_alloc(temp_bytes);
    ck_cuda(cudaMemset(d_temp, 0xa5, temp_bytes));
    ck_assert_ok(sp__gpu_radix_sort_pairs_u64(d_keys, d_vals, n, key_bits, d_temp, &temp_bytes,
                                              stream));
    sp_test_to_host(got_k, d_keys, kbytes, stream);
    if (h_vals) sp_test_to_host(got_v, d_vals, vbytes, stream);
    /* one assertion per array, not per element: each Check assertion is a write to the
     * runner (about 2 us), and per element this case took minutes (issue 22: its 60 s cut
     * was read as the onesweep sort hanging) */
    for (int64_t i = 0; i < n; i++) {
        if (got_k[i] != h_keys[perm[i]])
            ck_abort_msg("n %lld bits %d: key %lld is %llx, expected %llx", (long long)n,
                         key_bits, (long long)i, (unsigned long long)got_k[i],
                         (unsigned long long)h_keys[perm[i]]);
        if (h_vals && got_v[i] != h_vals[perm[i]])
            ck_abort_msg("n %lld bits %d: value %lld is %d, expected %d", (long long)n,
                         key_bits, (long long)i, got_v[i], h_vals[perm[i]]);
    }
    cudaFree(d_temp);
    free(got_v);
    cudaFree(d_vals);
    free(got_k);
    cudaFree(d_keys);
    free(perm);
}

/* Full 64-bit random keys, or (range > 0) keys below range with random bits above
 * `high` set too, so that bits beyond key_bits must ride along uncompared. */
static uint64_t *random_u64(uint64_t seed, int64_t n, uint64_t range, int high)
{
    uint64_t *k = host_alloc((size_t)n * 8);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = sp_test_rand(&s);
        k[i] = range ? r % range | (high < 64 ? (sp_test_rand(&s) >> high) << high : 0) : r;
    }
    return k;
}

START_TEST(test_sort64_tiny)
{
    /* only the low 33 bits compare: 1 << 40 rides along on key 3, 1 << 33 counts as 0 */
    uint64_t keys[] = {((uint64_t)1 << 40) | 3, (uint64_t)1 << 32, 5, (uint64_t)1 << 33, 3, 0};
    const uint64_t want_k[] = {(uint64_t)1 << 33, 0, ((uint64_t)1 << 40) | 3, 3, 5,
                               (uint64_t)1 << 32};
    const int32_t want_v[] = {3, 5, 0, 4, 2, 1};
    check_sort_tiny(64, keys, 6, 33, want_k, want_v);
}
END_TEST

START_TEST(test_sort64_bits_and_sizes)
{
    const int bits[] = {1, 33, 40, 64};
    const int64_t sizes[] = {0, 1, 31, 33, SORT64_TILE - 1, SORT64_TILE, SORT64_TILE + 1, 100003,
                             3 * SORT64_WAVE + 7};
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int64_t n = sizes[i];
            uint64_t range = bits[b] == 64 ? 0 : (uint64_t)1 << bits[b];
            uint64_t *k = random_u64(53 * b + i, n, range, bits[b]);
            int32_t *v = iota(n);
            check_sort64(k, v, n, bits[b]);
            if (n < SORT64_WAVE) check_sort64(k, NULL, n, bits[b]);
            free(v);
            free(k);
        }
}
END_TEST

/* Few distinct compared keys with random uncompared high bits: equal keys keep input order. */
START_TEST(test_sort64_stability)
{
    int64_t n = 2 * SORT64_WAVE;
    uint64_t *k = random_u64(99, n, 3, 40);
    int32_t *v = iota(n);
    check_sort64(k, v, n, 40);
    check_sort64(k, v, n, 2);
    for (int64_t i = 0; i < n; i++) k[i] = (uint64_t)(n - i) << 24; /* reversed, distinct */
    check_sort64(k, v, n, 64);
    free(v);
    free(k);
}
END_TEST

START_TEST(test_sort64_errors) { check_sort_errors(64); }
END_TEST
#endif /* SP_HAVE_CUDA */

#ifdef SP_HAVE_CUDA
/* The sorts again with the onesweep passes (kernels/prim/radix_sort.cu's header). */
static void onesweep_setup(void)
{
    setup();
    sp__gpu_radix_sort_set_onesweep(1);
}

static void onesweep_teardown(void)
{
    sp__gpu_radix_sort_onesweep_fault(-1, 0);
    sp__gpu_radix_sort_set_onesweep(-1);
    teardown();
}

static void classic_setup(void)
{
    setup();
    sp__gpu_radix_sort_set_onesweep(0);
}

/* The scratch asked for n keys serves a sort of fewer keys (the hub columns of a transpose
 * sort each in the scratch of the longest), whichever passes each size takes and whatever
 * the knob said when the size was asked for. */
START_TEST(test_sort_scratch_either)
{
    /* past the default's choice of onesweep (4M keys), or within SMALL_LIMIT */
    const int64_t n = sp_test_small() ? SMALL_LIMIT : 5000000;
    const int64_t fewer[] = {n - 1, n / 5 * 3, n / 50, 4097, 1};
    uint32_t *k = random_u32(77, n, 0);
    int32_t *v = iota(n);
    size_t bytes = (size_t)n * 4, temp_bytes = 0;
    uint32_t *d_keys = dev_alloc(bytes), *got_k = host_alloc(bytes);
    int32_t *d_vals = dev_alloc(bytes), *got_v = host_alloc(bytes);
    for (int ask = -1; ask <= 1; ask++) {
        sp__gpu_radix_sort_set_onesweep(ask);
        ck_assert_ok(sp__gpu_radix_sort_pairs_u32(d_keys, d_vals, n, 32, NULL, &temp_bytes, stream));
        void *d_temp = dev_alloc(temp_bytes);
        for (int sort = -1; sort <= 1; sort++) {
            sp__gpu_radix_sort_set_onesweep(sort);
            for (size_t f = 0; f < sizeof fewer / sizeof *fewer; f++) {
                int64_t m = fewer[f];
                size_t have = temp_bytes;
                uint32_t *want_k = host_alloc((size_t)m * 4);
                int32_t *want_v = host_alloc((size_t)m * 4);
                memcpy(want_k, k, (size_t)m * 4);
                memcpy(want_v, v, (size_t)m * 4);
                sp_test_to_device(d_keys, k, (size_t)m * 4, stream);
                sp_test_to_device(d_vals, v, (size_t)m * 4, stream);
                ck_assert_ok(
                    sp__gpu_radix_sort_pairs_u32(d_keys, d_vals, m, 32, d_temp, &have, stream));
                ck_assert_ok(sp__ref_radix_sort_u32(want_k, want_v, m, 32));
                sp_test_to_host(got_k, d_keys, (size_t)m * 4, stream);
                sp_test_to_host(got_v, d_vals, (size_t)m * 4, stream);
                assert_same_i32((const int32_t *)got_k, (const int32_t *)want_k, m, "keys");
                assert_same_i32(got_v, want_v, m, "values");
                free(want_v);
                free(want_k);
            }
        }
        cudaFree(d_temp);
    }
    sp__gpu_radix_sort_set_onesweep(-1);
    free(got_v);
    free(got_k);
    cudaFree(d_vals);
    cudaFree(d_keys);
    free(v);
    free(k);
}
END_TEST

/* The look-back's watchdog: a tile that never publishes its counts makes the sort return
 * SP_STATUS_DEVICE_ERROR after the (shortened) timeout instead of hanging, and the next
 * sort on the same stream and scratch runs clean and right. */
START_TEST(test_sort_watchdog)
{
    const int64_t n = 1000003; /* 245 tiles of 4096 */
    uint32_t *k = random_u32(2026, n, 0);
    int32_t *v = iota(n);
    size_t bytes = (size_t)n * 4, temp_bytes = 0;
    uint32_t *d_keys = dev_alloc(bytes);
    int32_t *d_vals = dev_alloc(bytes);
    sp_test_to_device(d_keys, k, bytes, stream);
    sp_test_to_device(d_vals, v, bytes, stream);
    ck_assert_ok(
        sp__gpu_radix_sort_pairs_u32(d_keys, d_vals, n, 32, NULL, &temp_bytes, stream));
    void *d_temp = dev_alloc(temp_bytes);
    sp__gpu_radix_sort_onesweep_fault(1, 200);
    ck_assert_status(sp__gpu_radix_sort_pairs_u32(d_keys, d_vals, n, 32, d_temp, &temp_bytes,
                                                  stream),
                     SP_STATUS_DEVICE_ERROR);
    ck_assert_error_has("the look-back of pass 1 of 4 waited over 200 ms");
    ck_cuda(cudaGetLastError()); /* the context is still usable */
    /* the same scratch again, without the fault: tickets and flags start clean */
    sp__gpu_radix_sort_onesweep_fault(-1, 0);
    sp_test_to_device(d_keys, k, bytes, stream);
    sp_test_to_device(d_vals, v, bytes, stream);
    ck_assert_ok(
        sp__gpu_radix_sort_pairs_u32(d_keys, d_vals, n, 32, d_temp, &temp_bytes, stream));
    ck_assert_ok(sp__ref_radix_sort_u32(k, v, n, 32));
    uint32_t *got_k = host_alloc(bytes);
    int32_t *got_v = host_alloc(bytes);
    sp_test_to_host(got_k, d_keys, bytes, stream);
    sp_test_to_host(got_v, d_vals, bytes, stream);
    assert_same_i32((const int32_t *)got_k, (const int32_t *)k, n, "keys after the watchdog");
    assert_same_i32(got_v, v, n, "values after the watchdog");
    free(got_v);
    free(got_k);
    cudaFree(d_temp);
    cudaFree(d_vals);
    cudaFree(d_keys);
    free(v);
    free(k);
}
END_TEST
#endif

#ifdef SP_HAVE_CUDA
/* The sort tests of the default case and of the onesweep passes forced. */
static void add_sort_tests(TCase *t)
{
    tcase_add_test(t, test_sort_tiny);
    tcase_add_test(t, test_sort_bits_and_sizes);
    tcase_add_test(t, test_sort_stability);
    tcase_add_test(t, test_sort_ordered_inputs);
    tcase_add_test(t, test_sort_large);
    tcase_add_test(t, test_sort_errors);
    tcase_add_test(t, test_sort64_tiny);
    tcase_add_test(t, test_sort64_bits_and_sizes);
    tcase_add_test(t, test_sort64_stability);
    tcase_add_test(t, test_sort_into);
}
#endif

static Suite *gpu_prim_suite(void)
{
    Suite *s = suite_create("gpu_prim");
#ifdef SP_HAVE_CUDA
    TCase *h = tcase_create("histogram");
    tcase_add_checked_fixture(h, setup, teardown);
    tcase_set_timeout(h, 120);
    tcase_add_test(h, test_histogram_tiny);
    tcase_add_test(h, test_histogram_bins);
    tcase_add_test(h, test_histogram_sizes);
    tcase_add_test(h, test_histogram_skewed);
    tcase_add_test(h, test_histogram_errors);
    suite_add_tcase(s, h);
    TCase *c = tcase_create("scan");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_scan_tiny);
    tcase_add_test(c, test_scan_i32_sizes);
    tcase_add_test(c, test_scan_i32_large);
    tcase_add_test(c, test_scan_i64);
    tcase_add_test(c, test_scan_errors);
    suite_add_tcase(s, c);
    TCase *r = tcase_create("radix_sort");
    tcase_add_checked_fixture(r, setup, teardown);
    tcase_set_timeout(r, 120);
    add_sort_tests(r);
    tcase_add_test(r, test_sort64_errors);
    tcase_add_test(r, test_sort_scratch_either);
    suite_add_tcase(s, r);
    /* the onesweep passes forced (the default takes them from
     * sp_radix_onesweep_policy::min_keys keys), with the look-back's watchdog */
    TCase *o = tcase_create("radix_sort_onesweep");
    tcase_add_checked_fixture(o, onesweep_setup, onesweep_teardown);
    tcase_set_timeout(o, 120);
    add_sort_tests(o);
    tcase_add_test(o, test_sort_watchdog);
    suite_add_tcase(s, o);
    /* the classic passes forced, at the sizes the default gives to onesweep */
    TCase *cl = tcase_create("radix_sort_classic");
    tcase_add_checked_fixture(cl, classic_setup, onesweep_teardown);
    tcase_set_timeout(cl, 120);
    tcase_add_test(cl, test_sort_large);
    tcase_add_test(cl, test_sort64_bits_and_sizes);
    tcase_add_test(cl, test_sort_into);
    suite_add_tcase(s, cl);
#endif
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_prim_suite()); }
