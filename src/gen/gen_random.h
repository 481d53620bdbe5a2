/* Internal to the generators: deterministic random numbers (splitmix64 of Steele, Lea and
 * Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) used counter-based,
 * so item i of a stream depends only on (seed, purpose, i) and can be produced by any
 * thread, or a GPU, in any order; and the setup shared by the random graphs. */
#ifndef GEN_RANDOM_H
#define GEN_RANDOM_H

#include <stdint.h>

#include "sp.h"

/* Stream families: one per use of the seed, so the uses are independent. */
enum { SP__RNG_KRON_EDGE = 1, SP__RNG_KRON_PERM = 2, SP__RNG_UNIFORM_EDGE = 3 };

typedef struct sp__rng {
    uint64_t state;
} sp__rng_t;

#define SP__RNG_GAMMA 0x9e3779b97f4a7c15ull

/* splitmix64's output function: a bijection of 64-bit words with strong avalanche. */
static inline uint64_t sp__rng_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The next 64 random bits of g. */
static inline uint64_t sp__rng_next(sp__rng_t *g)
{
    g->state += SP__RNG_GAMMA;
    return sp__rng_mix(g->state);
}

/* Whether sp__rng_below rejects the draw r for bound: r below 2^64 mod bound, which is
 * below bound, so the division is needed only when r < bound (almost never). */
static inline int sp__rng_rejected(uint64_t r, uint64_t bound)
{
    return r < bound && r < (0 - bound) % bound;
}

/* Key of the stream family `purpose` of seed. */
uint64_t sp__rng_key(uint64_t seed, uint64_t purpose);
/* The stream of item `index` of a family (e.g. one per edge). */
sp__rng_t sp__rng_at(uint64_t key, uint64_t index);
/* Uniform integer in [0, bound), bound > 0, without modulo bias (rejection). */
uint64_t sp__rng_below(sp__rng_t *g, uint64_t bound);
/* val[k] = a uniform value in [0, 1) made from the high bits of r (exact in the type,
 * so identical on every machine); nothing for SP_VALUE_NONE. */
void sp__rng_store_unit(uint64_t r, sp_value_type_t type, void *val, int64_t k);

/* Check the arguments of the random graph generator `fn` and create its COO: 2^scale
 * vertices, room for edgefactor * 2^scale entries, nnz already set to that count. */
sp_status_t sp__gen_graph_create(const char *fn, int scale, int edgefactor,
                                 sp_value_type_t value_type, sp_coo_t **coo);

/* Run fill(begin, end, arg) over [0, n) in slices [k SP__GEN_SLICE, (k + 1) SP__GEN_SLICE)
 * on up to nthreads threads (<= 0: every core, sp__ncores()), through the loaders' pool
 * (sp__parallel_for). The slices depend on n only, so a fill that writes item k from
 * (seed, k) alone gives the same output for any thread count. n up to 2^47. */
enum { SP__GEN_SLICE = 1 << 16 }; /* items per slice: a task's overhead vanishes, and 16
                                     threads balance on a scale-16 graph */
sp_status_t sp__gen_slices(int nthreads, int64_t n,
                           void (*fill)(int64_t begin, int64_t end, void *arg), void *arg);

/* Edge e of a random graph family: its ends, and the bits its value is made from. */
typedef void (*sp__gen_edge_fn)(const void *family, int64_t e, int32_t *row, int32_t *col,
                                uint64_t *value_bits);
/* a's entries 0..nnz-1, entry e = edge(family, e) with its value from sp__rng_store_unit,
 * written in place by slices on up to nthreads threads (<= 0: every core). */
sp_status_t sp__gen_edges(int nthreads, sp_coo_t *a, sp__gen_edge_fn edge, const void *family);

/* sp_gen_kronecker and sp_gen_uniform on up to nthreads threads (<= 0: every core); the
 * output does not depend on nthreads (the public functions pass 0). */
sp_status_t sp__gen_kronecker_threads(int scale, int edgefactor, uint64_t seed,
                                      sp_value_type_t value_type, int nthreads,
                                      sp_coo_t **coo);
sp_status_t sp__gen_uniform_threads(int scale, int edgefactor, uint64_t seed,
                                    sp_value_type_t value_type, int nthreads, sp_coo_t **coo);

/* The Kronecker generator's pieces (src/gen/gen_kronecker.c), shared with the distributed
 * generator (src/dist/dist_gen_kronecker.c), which draws a slice of the same edges: edge e
 * of the family key = sp__rng_key(seed, SP__RNG_KRON_EDGE) before relabelling (and the
 * bits of its value), and the relabelling permutation of n = 2^scale vertices
 * (src/gen/gen_permutation.c), on up to nthreads threads (<= 0: every core; the same
 * permutation for any count). */
void sp__gen_kron_edge(uint64_t key, int64_t e, int scale, uint32_t *u, uint32_t *v,
                       uint64_t *value_bits);
sp_status_t sp__gen_kron_permutation(uint64_t seed, int32_t *perm, int64_t n, int nthreads);

#endif /* GEN_RANDOM_H */
