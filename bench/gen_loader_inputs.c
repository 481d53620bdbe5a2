/* Inputs for the loader benchmark (bench/loader_bench.sh --shapes), one number shape each,
 * deterministic for a seed: coordinate general files with 8-digit ids (10^7 .. 10^8 - 1) and
 *   real     values with 17 significant digits (%.17g), magnitudes 1e-5 .. 1e4, signed
 *   integer  values in -10^6 .. 10^6
 *   pattern  no values
 *   snap     the pattern shape's edges as a SNAP edge list ("u<TAB>v", 0-based ids)
 * of about SIZE_MB megabytes (10^6 bytes). The snap file and the pattern file of the same
 * size and seed hold the same edges, so .mtx readers can be compared on them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

enum { ID_MIN = 10000000, ID_SPAN = 90000000 };

/* Entry k's line for the shape (the same ids for every shape and seed). */
static int line(char *buf, size_t cap, const char *shape, uint64_t seed, int64_t k)
{
    uint64_t s = seed * 0x100000001b3ull + (uint64_t)k;
    long long r = ID_MIN + (long long)(splitmix(&s) % ID_SPAN);
    long long c = ID_MIN + (long long)(splitmix(&s) % ID_SPAN);
    uint64_t x = splitmix(&s);
    if (!strcmp(shape, "snap")) return snprintf(buf, cap, "%lld\t%lld\n", r - 1, c - 1);
    if (!strcmp(shape, "pattern")) return snprintf(buf, cap, "%lld %lld\n", r, c);
    if (!strcmp(shape, "integer"))
        return snprintf(buf, cap, "%lld %lld %lld\n", r, c, (long long)(x % 2000001) - 1000000);
    double m = 1.0 + (double)(x >> 11) * 0x1p-53 * 9.0; /* [1, 10) */
    double v = m * pow(10.0, (double)((int)(splitmix(&s) % 10) - 5)) * (x & 1 ? -1 : 1);
    return snprintf(buf, cap, "%lld %lld %.17g\n", r, c, v);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: gen_loader_inputs real|integer|pattern|snap OUT SIZE_MB [SEED]\n");
        return 2;
    }
    const char *shape = argv[1], *out = argv[2];
    double mb = atof(argv[3]);
    uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
    if (strcmp(shape, "real") && strcmp(shape, "integer") && strcmp(shape, "pattern") &&
        strcmp(shape, "snap")) {
        fprintf(stderr, "gen_loader_inputs: unknown shape %s\n", shape);
        return 2;
    }
    /* Entries: the size over the mean line of the first 10,000 (the pattern shape's count
     * for snap, so both hold the same edges). */
    char buf[128];
    const char *sized = strcmp(shape, "snap") ? shape : "pattern";
    double bytes = 0;
    for (int64_t k = 0; k < 10000; k++) bytes += line(buf, sizeof buf, sized, seed, k);
    int64_t nnz = (int64_t)(mb * 1e6 / (bytes / 10000));
    FILE *f = fopen(out, "w");
    if (!f) {
        perror(out);
        return 1;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    if (strcmp(shape, "snap"))
        fprintf(f, "%%%%MatrixMarket matrix coordinate %s general\n%%gen_loader_inputs %s seed "
                "%llu\n%d %d %lld\n", shape, shape, (unsigned long long)seed,
                ID_MIN + ID_SPAN - 1, ID_MIN + ID_SPAN - 1, (long long)nnz);
    else
        fprintf(f, "# gen_loader_inputs snap seed %llu: %lld edges\n",
                (unsigned long long)seed, (long long)nnz);
    for (int64_t k = 0; k < nnz; k++) {
        int n = line(buf, sizeof buf, shape, seed, k);
        fwrite(buf, 1, (size_t)n, f);
    }
    if (fclose(f) != 0) {
        perror(out);
        return 1;
    }
    printf("%s: %s, %lld entries\n", out, shape, (long long)nnz);
    return 0;
}
