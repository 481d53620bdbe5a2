/* libFuzzer target for sp_coo_load, the binary cache loader: any bytes are either a
 * self-consistent COO or a clean error. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    if (fd < 0) return 0;
    sp_coo_t *a = NULL;
    sp_clear_error();
    sp_status_t st = sp_coo_load(path, &a);
    if (st == SP_STATUS_SUCCESS) {
        fuzz_check_coo(a);
        sp_coo_free(a);
    } else {
        FUZZ_REQUIRE(a == NULL, "output written on failure");
        FUZZ_REQUIRE(st != SP_STATUS_INVALID_ARGUMENT, "%s", sp_last_error());
        /* A binary file has no lines: the message names the file only. */
        fuzz_check_failure(st, path, 0);
    }
    close(fd);
    return 0;
}
