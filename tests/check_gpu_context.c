/* The CUDA context on a GPU machine: creation on the default and a given device, device
 * properties, synchronisation, the caller's stream, and clean refusals. Exits 77 (ctest:
 * skipped) where no GPU is usable. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_create_and_describe)
{
    sp_context_t *ctx = NULL;
    sp_device_info_t info;
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_int_eq(sp_context_kind(ctx), SP_DEVICE_CUDA);
    ck_assert_ok(sp_context_device_info(ctx, &info));
    ck_assert(strlen(info.name) > 0);
    ck_assert_int_gt(info.sm_count, 0);
    ck_assert_int_ge(info.cc_major, 7);
    ck_assert_int_gt(info.global_mem_bytes, (int64_t)1 << 30);
    ck_assert_int_gt(info.l2_bytes, 0);
    ck_assert_int_ge(info.shared_mem_per_block, 48 * 1024);
    ck_assert_ok(sp_context_synchronize(ctx));
    printf("device: %s, %d SMs, cc %d.%d, %.1f GiB, L2 %.0f MB\n", info.name, info.sm_count,
           info.cc_major, info.cc_minor, info.global_mem_bytes / 1073741824.0,
           info.l2_bytes / 1e6);
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(test_bad_device_ordinal)
{
    sp_context_t *ctx = NULL;
    sp_context_options_t o = {.device = 4096};
    ck_assert_status(sp_context_create(SP_DEVICE_CUDA, &o, &ctx), SP_STATUS_INVALID_ARGUMENT);
    ck_assert_error_has("device 4096 outside");
    ck_assert_ptr_null(ctx);
    /* the failure leaves no CUDA error behind: the next context works */
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    sp_context_destroy(ctx);
}
END_TEST

START_TEST(test_device_matrices_not_yet)
{
    sp_context_t *ctx = NULL;
    sp_coo_t *a = NULL;
    sp_matrix_t *A = NULL;
    ck_assert_ok(sp_context_create(SP_DEVICE_CUDA, NULL, &ctx));
    ck_assert_ok(sp_gen_poisson2d(8, SP_R_64F, &a));
    ck_assert_status(sp_matrix_create(ctx, a, NULL, &A), SP_STATUS_NOT_SUPPORTED);
    ck_assert_ptr_null(A);
    ck_assert_str_eq(sp_context_last_error(ctx), sp_last_error());
    sp_coo_free(a);
    sp_context_destroy(ctx);
}
END_TEST

static Suite *gpu_context_suite(void)
{
    Suite *s = suite_create("gpu_context");
    TCase *tc = tcase_create("cuda");
    tcase_add_test(tc, test_create_and_describe);
    tcase_add_test(tc, test_bad_device_ordinal);
    tcase_add_test(tc, test_device_matrices_not_yet);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return sp_test_run_gpu(gpu_context_suite()); }
