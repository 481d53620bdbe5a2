/* A host model of the SpTRSV analysis's level pass (kernels/solve/sptrsv_level_pass.cu) on
 * 7-point stencil triangles (lower, natural order): the number of 32-row unit hand-overs on
 * its critical path, (a) when a unit publishes its rows only once every row's outside
 * dependencies are finished (the pass before 2026-11-26) and (b) when each row publishes
 * as soon as it and the earlier rows of its in-unit chain segment are final (the pass
 * since). One hand-over costs an L2 round trip plus polling; the levels themselves are the
 * same in both. Prints a line per grid.
 *
 *   cc -O2 -o /tmp/lpmodel scripts/sptrsv-level-pass-model.c && /tmp/lpmodel */
#include <stdio.h>
#include <stdlib.h>

static void model(const char *name, long nx, long ny, long nz)
{
    long n = nx * ny * nz, units = (n + 31) / 32;
    int *ta = calloc((size_t)n, sizeof(int)), *tb = calloc((size_t)n, sizeof(int));
    int maxa = 0, maxb = 0;
    if (!ta || !tb) {
        fprintf(stderr, "out of memory for %s\n", name);
        exit(1);
    }
    for (long u = 0; u < units; u++) {
        long first = u * 32, end = first + 32 < n ? first + 32 : n;
        int unit_wait = 0, segment = 0;
        for (long r = first; r < end; r++) {
            long x = r % nx, y = (r / nx) % ny, z = r / (nx * ny), dep[3];
            int nd = 0, chained = 0, outside = 0;
            if (x > 0) dep[nd++] = r - 1;
            if (y > 0) dep[nd++] = r - nx;
            if (z > 0) dep[nd++] = r - nx * ny;
            for (int d = 0; d < nd; d++) {
                if (dep[d] >= first) {
                    chained = 1;
                    continue;
                }
                if (ta[dep[d]] > unit_wait) unit_wait = ta[dep[d]];
                if (tb[dep[d]] > outside) outside = tb[dep[d]];
            }
            if (!chained) segment = 0;
            if (outside > segment) segment = outside;
            tb[r] = segment + 1;
            if (tb[r] > maxb) maxb = tb[r];
        }
        for (long r = first; r < end; r++) ta[r] = unit_wait + 1;
        if (unit_wait + 1 > maxa) maxa = unit_wait + 1;
    }
    printf("%-14s rows %8ld units %7ld levels %5ld  hand-overs: whole unit %6d, per row %6d\n",
           name, n, units, nx + ny + nz - 2, maxa, maxb);
    free(ta);
    free(tb);
}

int main(void)
{
    model("poisson3d100", 100, 100, 100);
    model("poisson3d128", 128, 128, 128);
    model("poisson3d160", 160, 160, 160);
    model("poisson2d1000", 1000, 1000, 1);
    model("poisson2d1024", 1024, 1024, 1);
    model("poisson3d40", 40, 40, 40);
    return 0;
}
