/* Writer throughput: read FILE.mtx once (sp_mtx_read, doubles), then time sp_mtx_write of
 * it to OUT with T threads (the call as a user pays it: temporary file, fsync, rename).
 * Prints write_seconds, MB/s of the written file, and its bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "sp.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: mtx_write_bench IN.mtx OUT.mtx THREADS [REPEATS]\n");
        return 2;
    }
    int threads = atoi(argv[3]), repeats = argc > 4 ? atoi(argv[4]) : 1;
    sp_coo_t *coo = NULL;
    if (sp_mtx_read(argv[1], SP_R_64F, NULL, &coo) != SP_STATUS_SUCCESS) {
        fprintf(stderr, "mtx_write_bench: %s\n", sp_last_error());
        return 1;
    }
    sp_mtx_write_options_t o = {.field = SP_MTX_FIELD_AUTO, .nthreads = threads};
    for (int r = 0; r < repeats; r++) {
        double t0 = now_seconds();
        if (sp_mtx_write(argv[2], coo, &o) != SP_STATUS_SUCCESS) {
            fprintf(stderr, "mtx_write_bench: %s\n", sp_last_error());
            sp_coo_free(coo);
            return 1;
        }
        double s = now_seconds() - t0;
        struct stat sb;
        stat(argv[2], &sb);
        printf("threads: %d\nwrite_seconds: %.6f\nMB/s: %.1f\nbytes: %lld\n", threads, s,
               (double)sb.st_size / 1e6 / s, (long long)sb.st_size);
    }
    sp_coo_free(coo);
    return 0;
}
