/* gen_bench: wall time of the random graph generators per thread count, rounds
 * interleaved (the machine may be shared), with a fingerprint of each output; exits 1 if
 * two thread counts give different graphs. One thread is the serial path of before the
 * parallel generators (the same code in order on the calling thread).
 *   gen_bench kron|uniform SCALE [EF] [THREADS,...] [ROUNDS] [sym]   e.g. gen_bench kron 24 16 1,16 3
 * With `sym` the time is that of sp_coo_symmetrize on the generated graph (its sort on the
 * same thread count; the generator's time is left out) and the fingerprint that of the
 * symmetrized graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen/gen_random.h"
#include "sp_base.h"      /* sp__ncores */
#include "sp_host_sort.h" /* sp__coo_symmetrize_threads */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* FNV-1a over the row and column arrays. */
static uint64_t fingerprint(const sp_coo_t *a)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t k = 0; k < a->nnz; k++) {
        uint64_t x = (uint64_t)(uint32_t)a->row[k] << 32 | (uint32_t)a->col[k];
        h = (h ^ x) * 0x100000001b3ull;
    }
    return h;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    enum { MAX_COUNTS = 16, MAX_ROUNDS = 15 };
    int counts[MAX_COUNTS], ncounts = 0, rounds = argc > 5 ? atoi(argv[5]) : 3;
    double sec[MAX_COUNTS][MAX_ROUNDS];
    uint64_t first = 0;
    int rc = 0;
    if (argc < 3 || (strcmp(argv[1], "kron") && strcmp(argv[1], "uniform"))) {
        fprintf(stderr, "usage: gen_bench kron|uniform SCALE [EF] [THREADS,...] [ROUNDS]\n");
        return 2;
    }
    int kron = !strcmp(argv[1], "kron"), scale = atoi(argv[2]);
    int ef = argc > 3 ? atoi(argv[3]) : 16, sym = argc > 6 && !strcmp(argv[6], "sym");
    for (char *p = argc > 4 ? argv[4] : "1,0"; *p && ncounts < MAX_COUNTS; p++) {
        counts[ncounts++] = (int)strtol(p, &p, 10);
        if (!*p) break;
    }
    if (rounds < 1 || rounds > MAX_ROUNDS) rounds = 3;
    for (int r = 0; r < rounds; r++) {
        for (int c = 0; c < ncounts; c++) {
            sp_coo_t *a = NULL;
            double t0 = now();
            sp_status_t st = kron ? sp__gen_kronecker_threads(scale, ef, 1, SP_VALUE_NONE,
                                                              counts[c], &a)
                                  : sp__gen_uniform_threads(scale, ef, 1, SP_VALUE_NONE,
                                                            counts[c], &a);
            sec[c][r] = now() - t0;
            if (st == SP_STATUS_SUCCESS && sym) {
                t0 = now();
                st = sp__coo_symmetrize_threads(a, 1, counts[c]);
                sec[c][r] = now() - t0;
            }
            if (st != SP_STATUS_SUCCESS) {
                fprintf(stderr, "gen_bench: %s\n", sp_last_error());
                return 1;
            }
            uint64_t h = fingerprint(a);
            if (r == 0 && c == 0) first = h;
            printf("gen_bench: %s%s:%d ef %d threads %d round %d seconds %.3f fingerprint "
                   "%016llx%s\n", sym ? "symmetrize " : "", argv[1], scale, ef, counts[c], r + 1, sec[c][r],
                   (unsigned long long)h, h == first ? "" : " DIFFERS");
            if (h != first) rc = 1;
            sp_coo_free(a);
        }
    }
    for (int c = 0; c < ncounts; c++) qsort(sec[c], (size_t)rounds, sizeof sec[c][0], cmp_double);
    for (int c = 0; c < ncounts; c++) {
        printf("gen_bench: summary %s%s:%d ef %d threads %d (0 = all %d cores) median %.3f s "
               "min %.3f max %.3f speedup vs first %.2fx\n", sym ? "symmetrize " : "", argv[1], scale, ef, counts[c],
               sp__ncores(), sec[c][rounds / 2], sec[c][0], sec[c][rounds - 1],
               sec[0][rounds / 2] / sec[c][rounds / 2]);
    }
    printf("gen_bench: %s\n", rc ? "FAIL outputs differ across thread counts"
                                  : "PASS same output for every thread count");
    return rc;
}
