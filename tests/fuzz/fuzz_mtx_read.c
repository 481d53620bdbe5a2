/* libFuzzer target for sp_mtx_read: the input is a Matrix Market file (plain or gzip),
 * read twice with different options; each read must keep the library's contract. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_once(const char *path, sp_value_type_t vt, const sp_mtx_options_t *opt,
                      int gz)
{
    sp_coo_t *a = NULL;
    sp_clear_error();
    sp_status_t st = sp_mtx_read(path, vt, opt, &a);
    if (st == SP_STATUS_SUCCESS) {
        fuzz_check_coo(a);
        /* Symmetric files must be square; pattern-none files carry no values. */
        FUZZ_REQUIRE(a->symmetry == SP_SYMMETRY_GENERAL || a->nrows == a->ncols,
                     "symmetric %lld x %lld", (long long)a->nrows, (long long)a->ncols);
        sp_coo_free(a);
    } else {
        FUZZ_REQUIRE(a == NULL, "output written on failure");
        /* The arguments are valid: only the file can be wrong. */
        FUZZ_REQUIRE(st != SP_STATUS_INVALID_ARGUMENT, "%s", sp_last_error());
        fuzz_check_failure(st, path, !gz);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    if (fd < 0) return 0;
    int gz = fuzz_is_gzip(data, size);
    sp_mtx_options_t plain = {1, SP_PATTERN_ONES, SP_COMPLEX_REFUSE, 0, NULL, NULL};
    sp_mtx_options_t other = {1, SP_PATTERN_NONE, SP_COMPLEX_REAL_PART, 1, NULL, NULL};
    read_once(path, SP_R_64F, &plain, gz);
    read_once(path, SP_R_32F, &other, gz);
    close(fd);
    return 0;
}
