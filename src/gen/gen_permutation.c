/* The Kronecker relabelling: a seeded Fisher-Yates shuffle of 0..n-1, serial or run in
 * parallel with the same result. The parallel form is the deterministic-reservations
 * shuffle of Shun, Gu, Blelloch, Fineman and Gibbons ("Sequential random permutation, list
 * contraction and tree contraction are highly parallel", SODA 2015): the swap targets are
 * drawn first (the stream is counter-based, so draw d is known without its predecessors),
 * then rounds over a window of the earliest pending swaps commit every swap that holds
 * both of its places; the dependence chains are O(log n) long with high probability. */
#include <stdatomic.h>

#include "gen_random.h"

#include "sp_base.h"

/* Draw d (0-based) of the stream g starts: what the (d+1)-th sp__rng_next(&g) returns. */
static inline uint64_t draw_at(sp__rng_t g, uint64_t d)
{
    return sp__rng_mix(g.state + (d + 1) * SP__RNG_GAMMA);
}

/* The serial shuffle, the definition of the permutation. */
static void shuffle_serial(sp__rng_t g, int32_t *perm, int64_t n)
{
    for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)sp__rng_below(&g, (uint64_t)(i + 1));
        int32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* The parallel shuffle makes about three random accesses a swap (reserve, check, swap)
 * where the serial one makes one, and its threads share the reservation array's lines:
 * on 2 threads it took 4x the serial time (scale 22, 2-core machine, 2026-11-25), so
 * it starts at 4 threads. Either path gives the same permutation. */
enum { PERM_PARALLEL_MIN_THREADS = 4 };

/* ---- the swap targets: step t swaps perm[n-1-t] with target[n-1-t] ---- */

typedef struct targets {
    sp__rng_t g;
    int32_t *target, *perm;
    int64_t n, first;  /* steps [first, n-1) are drawn in this pass */
    uint64_t skipped;  /* rejected draws before step `first` */
    int64_t *rejected; /* per slice: its first step whose draw is rejected, else n */
} targets_t;

/* Assuming no rejection since step `first`, step t uses draw t + skipped; a rejected
 * draw (sp__rng_below's test) stops the slice and is redone in order by the caller. */
static void targets_fill(int64_t begin, int64_t end, void *opaque)
{
    targets_t *s = opaque;
    int64_t *rejected = &s->rejected[begin / SP__GEN_SLICE];
    *rejected = s->n;
    for (int64_t k = begin; k < end; k++) {
        int64_t t = s->first + k, i = s->n - 1 - t;
        uint64_t bound = (uint64_t)(i + 1), r = draw_at(s->g, (uint64_t)t + s->skipped);
        if (sp__rng_rejected(r, bound)) {
            *rejected = t;
            return;
        }
        s->target[i] = (int32_t)(r % bound);
        s->perm[i] = (int32_t)i;
    }
}

/* target[i] for i in 1..n-1 as the serial shuffle draws them (perm = identity meanwhile).
 * Rejections happen with probability below 2^-34 a draw for n <= 2^30; each one costs a
 * pass over the steps after it. */
static sp_status_t draw_targets(targets_t *s, int nthreads)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    s->first = 0;
    s->skipped = 0;
    while (s->first < s->n - 1) {
        int64_t steps = s->n - 1 - s->first, t = s->n;
        SP_TRY(sp__gen_slices(nthreads, steps, targets_fill, s));
        for (int64_t k = 0; k < (steps - 1) / SP__GEN_SLICE + 1; k++)
            if (s->rejected[k] < t) t = s->rejected[k];
        if (t == s->n) break;
        int64_t i = s->n - 1 - t; /* redo step t in order: draw until one is accepted */
        uint64_t bound = (uint64_t)(i + 1), r;
        while (sp__rng_rejected(r = draw_at(s->g, (uint64_t)t + s->skipped), bound))
            s->skipped++;
        s->target[i] = (int32_t)(r % bound);
        s->perm[i] = (int32_t)i;
        s->first = t + 1;
    }
    s->perm[0] = 0;
done:
    return st;
}

/* ---- the swaps, by rounds of reservations ---- */

typedef struct swaps {
    int32_t *perm;
    const int32_t *target;
    atomic_int *owner;   /* per place: the earliest pending step (largest i) reserving it */
    int32_t *pending;    /* the window: steps by i, earliest first */
    unsigned char *done; /* per window entry: committed this round */
} swaps_t;

static void reserve_max(atomic_int *place, int32_t i)
{
    int cur = atomic_load_explicit(place, memory_order_relaxed);
    while (cur < i && !atomic_compare_exchange_weak_explicit(place, &cur, i, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

static void swaps_reserve(int64_t begin, int64_t end, void *opaque)
{
    swaps_t *s = opaque;
    for (int64_t k = begin; k < end; k++) {
        int32_t i = s->pending[k];
        reserve_max(&s->owner[i], i);
        reserve_max(&s->owner[s->target[i]], i);
    }
}

/* A step holding both of its places has no earlier pending step touching them (the window
 * holds every earlier pending step), so it swaps now; the steps committing in one round
 * touch disjoint places. A committed step frees its places (a step reading one meanwhile
 * sees -1 or the committer, never itself, and fails either way); a failed one keeps what it
 * holds, which it reserves again next round anyway. */
static void swaps_commit(int64_t begin, int64_t end, void *opaque)
{
    swaps_t *s = opaque;
    for (int64_t k = begin; k < end; k++) {
        int32_t i = s->pending[k], j = s->target[i];
        s->done[k] = atomic_load_explicit(&s->owner[i], memory_order_relaxed) == i &&
                     atomic_load_explicit(&s->owner[j], memory_order_relaxed) == i;
        if (!s->done[k]) continue;
        int32_t t = s->perm[i];
        s->perm[i] = s->perm[j];
        s->perm[j] = t;
        atomic_store_explicit(&s->owner[i], -1, memory_order_relaxed);
        atomic_store_explicit(&s->owner[j], -1, memory_order_relaxed);
    }
}

/* The window: big enough to keep every core busy, small enough that few of its steps
 * wait on one another (Shun et al. use a fraction of n). */
static int64_t window_size(int64_t n)
{
    int64_t w = n / 64;
    return w < 4096 ? 4096 : w;
}

static sp_status_t apply_swaps(swaps_t *s, int64_t n, int nthreads)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t next = n - 1, npending = 0, w = window_size(n);
    while (next > 0 || npending > 0) {
        while (npending < w && next > 0) s->pending[npending++] = (int32_t)next--;
        SP_TRY(sp__gen_slices(nthreads, npending, swaps_reserve, s));
        /* Reads of owner after every reservation: the pool joins between the calls. */
        SP_TRY(sp__gen_slices(nthreads, npending, swaps_commit, s));
        int64_t kept = 0;
        for (int64_t k = 0; k < npending; k++)
            if (!s->done[k]) s->pending[kept++] = s->pending[k];
        npending = kept;
    }
done:
    return st;
}

sp_status_t sp__gen_kron_permutation(uint64_t seed, int32_t *perm, int64_t n, int nthreads)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp__rng_t g = sp__rng_at(sp__rng_key(seed, SP__RNG_KRON_PERM), 0);
    int32_t *target = NULL, *pending = NULL;
    int64_t *rejected = NULL;
    atomic_int *owner = NULL;
    unsigned char *done_flags = NULL;
    if (nthreads <= 0) nthreads = sp__ncores();
    if (nthreads < PERM_PARALLEL_MIN_THREADS || n < 2) {
        shuffle_serial(g, perm, n);
        return SP_STATUS_SUCCESS;
    }
    int64_t w = window_size(n);
    SP_ALLOC(target, n);
    SP_ALLOC(rejected, (n - 1) / SP__GEN_SLICE + 1);
    SP_ALLOC(owner, n);
    SP_ALLOC(pending, w);
    SP_ALLOC(done_flags, w);
    targets_t tg = {g, target, perm, n, 0, 0, rejected};
    SP_TRY(draw_targets(&tg, nthreads));
    for (int64_t i = 0; i < n; i++) atomic_init(&owner[i], -1);
    swaps_t sw = {perm, target, owner, pending, done_flags};
    SP_TRY(apply_swaps(&sw, n, nthreads));
done:
    sp__free(done_flags);
    sp__free(pending);
    sp__free(owner);
    sp__free(rejected);
    sp__free(target);
    return st;
}
