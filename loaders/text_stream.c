/* The streaming engine of the text readers: the body of a source read in chunks, each
 * parsed once into arrays of its own by whichever thread took it, and copied to its place
 * in the final arrays as soon as the entries before it are known (an exclusive scan over
 * the pieces in input order, advanced by the thread that completes the lowest unplaced
 * piece). A piece parsed alone knows neither its first line nor its first entry: where
 * that could change its verdict (it failed, or it does not fit at its place) it is parsed
 * again once its place is known, so messages carry exact lines. With one thread every
 * piece's place is known before it is parsed, and it goes straight into the final arrays.
 * Placed pieces wait in a queue for their copy, which any thread takes before a new chunk:
 * the copies run in parallel, not all on the thread that happened to place them.
 * Memory: the final arrays, plus 2 nthreads + 2 chunk buffers and their pieces' arrays. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sp_base.h"
#include "sp_text.h"

/* 256 KiB: a chunk's hand-over (a lock, a pread) still costs nothing next to its parse,
 * its text is still in the cache when it is parsed, and 2 nthreads + 2 of them are little
 * next to the output. Measured on a 16-core Xeon (bench/results/h100host-loader-shapes.md):
 * 16 threads read 1 GB 5-12% faster than with 1 and 4 MiB chunks; one thread alike.
 * Two slots a thread, so that a piece slow to finish does not hold every thread up
 * waiting for a free slot while the pieces after it wait for their place. */
enum { CHUNK_BYTES = 256 << 10, SLOTS_PER_THREAD = 2, EXTRA_SLOTS = 2 };

size_t sp__stream_chunk_bytes(void)
{
    const char *e = getenv("SP_TEST_CHUNK_BYTES");
    long long v = e ? atoll(e) : 0;
    return v > 0 ? (size_t)v : CHUNK_BYTES;
}

sp_status_t sp__piece_arrays_create(const size_t size[SP_PIECE_ARRAYS], int64_t cap,
                                    sp_piece_arrays_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_piece_arrays_t *o = NULL;
    SP_CALLOC(o, 1);
    o->cap = cap;
    for (int i = 0; i < SP_PIECE_ARRAYS; i++) {
        if (!size[i]) continue;
        o->a[i] = sp__malloc_array((size_t)cap, size[i]);
        if (!o->a[i] && cap > 0)
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory allocating %lld x %zu bytes",
                    (long long)cap, size[i]);
    }
    *out = o;
    o = NULL;
done:
    sp__piece_arrays_free(o);
    return st;
}

void sp__piece_arrays_free(sp_piece_arrays_t *o)
{
    if (!o) return;
    for (int i = 0; i < SP_PIECE_ARRAYS; i++) sp__free(o->a[i]);
    sp__free(o);
}

typedef enum { SLOT_FREE, SLOT_BUSY, SLOT_PARSED } slot_state_t;

/* A chunk buffer and the arrays of the piece it holds. */
typedef struct slot {
    char *buf;
    size_t cap;
    void *out;
    int64_t out_cap;
    sp_piece_t piece;
    slot_state_t state;
    sp_status_t st;       /* of the read or the parse */
    int read_failed;      /* st is the read's, final */
    sp_error_copy_t error; /* a read failure's message */
    struct slot *next_copy; /* placed, waiting in the copy queue */
} slot_t;

typedef struct engine {
    sp_source_t *src;
    const sp_stream_reader_t *rd;
    int direct;                /* one thread: pieces parsed into the final arrays */
    slot_t *slots;
    int nslots;
    slot_t **ring;             /* parsed pieces by seq % nslots, until placed */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_rwlock_t grow;     /* copies share it; growing the final arrays excludes them */
    slot_t *copy_head, **copy_tail; /* placed pieces waiting for their copy, in order */
    int64_t next;              /* seq of the next piece to place */
    int64_t entries, parts, line, cap;
    uint64_t body_bytes, placed_bytes; /* the body's size (0: not known), placed so far */
    sp_piece_info_t *info;
    int64_t ninfo, info_cap;
    int failed;
    sp_error_copy_t error;
} engine_t;

/* Stop at the first failure in input order (the caller holds mu). */
static void fail(engine_t *en, sp_status_t st, const sp_error_copy_t *copy)
{
    en->failed = 1;
    if (copy) en->error = *copy;
    else sp__error_save(&en->error, st);
    sp__source_stop(en->src, en->next);
    pthread_cond_broadcast(&en->cv);
}

/* Copy a placed piece to its place and free its slot (the caller holds mu; released
 * meanwhile). */
static void copy_piece(engine_t *en, slot_t *c)
{
    pthread_mutex_unlock(&en->mu);
    pthread_rwlock_rdlock(&en->grow);
    en->rd->place(en->rd->ctx, &c->piece);
    pthread_rwlock_unlock(&en->grow);
    pthread_mutex_lock(&en->mu);
    c->state = SLOT_FREE;
    pthread_cond_broadcast(&en->cv);
}

/* A free slot for the next chunk, after the waiting copies (they free slots and need no
 * reading): NULL once the input failed. */
static slot_t *take_slot(engine_t *en)
{
    slot_t *sl = NULL;
    pthread_mutex_lock(&en->mu);
    while (!en->failed && !sl) {
        slot_t *c = en->copy_head;
        if (c) {
            en->copy_head = c->next_copy;
            if (!en->copy_head) en->copy_tail = &en->copy_head;
            copy_piece(en, c);
            continue;
        }
        for (int i = 0; i < en->nslots && !sl; i++)
            if (en->slots[i].state == SLOT_FREE) sl = &en->slots[i];
        if (!sl && !en->failed) pthread_cond_wait(&en->cv, &en->mu);
    }
    if (sl) sl->state = SLOT_BUSY;
    pthread_mutex_unlock(&en->mu);
    return sl;
}

/* The final arrays for n entries (the caller holds mu, or is the only thread). */
static sp_status_t reserve(engine_t *en, int64_t n)
{
    if (n <= en->cap) return SP_STATUS_SUCCESS;
    pthread_rwlock_wrlock(&en->grow);
    sp_status_t st = en->rd->reserve(en->rd->ctx, n, &en->cap);
    pthread_rwlock_unlock(&en->grow);
    return st;
}

/* Parse a piece alone into its slot's arrays, or (exact) at its place. */
static sp_status_t parse_piece(engine_t *en, slot_t *sl, int exact)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const sp_stream_reader_t *rd = en->rd;
    sp_piece_t *p = &sl->piece;
    int64_t need = rd->bound(rd->ctx, (size_t)(p->end - p->begin));
    p->exact = exact;
    if (!exact) {
        p->first_line = 1;
        p->offset = p->part_offset = 0;
    }
    p->count = p->lines = p->part = p->aux = p->max = 0;
    if (en->direct) {
        SP_TRY(reserve(en, p->offset + need));
        p->out = NULL;
    } else {
        if (need > sl->out_cap) {
            rd->out_free(rd->ctx, sl->out);
            sl->out = NULL;
            sl->out_cap = 0;
            SP_TRY(rd->out_create(rd->ctx, need, &sl->out));
            sl->out_cap = need;
        }
        p->out = sl->out;
    }
    SP_TRY(rd->parse(rd->ctx, p));
done:
    return st;
}

static sp_status_t keep_info(engine_t *en, const sp_piece_t *p)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    if (en->ninfo == en->info_cap) {
        int64_t cap = en->info_cap ? 2 * en->info_cap : 64;
        sp_piece_info_t *grown = sp__realloc(en->info, (size_t)cap * sizeof *grown);
        if (!grown) SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory growing piece list");
        en->info = grown;
        en->info_cap = cap;
    }
    en->info[en->ninfo++] = (sp_piece_info_t){p->offset, p->count, p->first_line, p->lines,
                                              p->part_offset, p->part, p->aux, p->max};
done:
    return st;
}

/* Entries to make room for when piece p is placed: its end, or where the final arrays
 * must grow, the entries the whole body would hold at the density of the pieces placed
 * so far (plus 1/16), when the body's size is known. Readers with no declared count
 * (edge lists) then grow once or twice instead of doubling a dozen times while the
 * copies wait; the reader caps what it reserves. */
static int64_t room_for(const engine_t *en, const sp_piece_t *p)
{
    int64_t need = p->offset + p->count;
    uint64_t through = en->placed_bytes + (uint64_t)(p->end - p->begin);
    if (need <= en->cap || en->direct || en->body_bytes <= through || need < 4096) return need;
    double est = (double)need * ((double)en->body_bytes / (double)through) * 1.0625;
    /* a hint, kept below 2^31 entries: past it the arrays grow by need (doubling) */
    if (est > (double)INT32_MAX) est = (double)INT32_MAX;
    return est > (double)need ? (int64_t)est : need;
}

/* Place every parsed piece from en->next on, in order (the caller holds mu): its place
 * fixed, parsed again exactly where its verdict may depend on it, room made in the final
 * arrays, queued for its copy. */
static void place_ready(engine_t *en)
{
    const sp_stream_reader_t *rd = en->rd;
    while (!en->failed) {
        slot_t *sl = en->ring[en->next % en->nslots];
        if (!sl || sl->piece.seq != en->next) break;
        sp_piece_t *p = &sl->piece;
        sp_status_t st = sl->st;
        en->ring[en->next % en->nslots] = NULL;
        if (sl->read_failed) {
            fail(en, st, &sl->error);
        } else if (!p->exact) {
            p->first_line = en->line;
            p->offset = en->entries;
            p->part_offset = en->parts;
            p->exact = 1;
            if (st != SP_STATUS_SUCCESS || (rd->fits && !rd->fits(rd->ctx, p)))
                st = parse_piece(en, sl, 1);
        }
        if (st == SP_STATUS_SUCCESS) st = keep_info(en, p);
        if (st == SP_STATUS_SUCCESS) st = reserve(en, room_for(en, p));
        if (st != SP_STATUS_SUCCESS) {
            if (!en->failed) fail(en, st, NULL);
            sl->state = SLOT_FREE;
            break;
        }
        en->entries += p->count;
        en->line += p->lines;
        en->parts += p->part;
        en->next++;
        en->placed_bytes += (uint64_t)(p->end - p->begin);
        if (rd->progress) sp__progress_add(rd->progress, (int64_t)(p->end - p->begin));
        sl->next_copy = NULL;
        if (p->out) {
            *en->copy_tail = sl;
            en->copy_tail = &sl->next_copy;
        } else {
            sl->state = SLOT_FREE;
        }
    }
    pthread_cond_broadcast(&en->cv);
}

/* Take a chunk (after the waiting copies), parse it, place what can be placed. */
static void *worker(void *arg)
{
    engine_t *en = arg;
    for (slot_t *sl; (sl = take_slot(en)) != NULL;) {
        int got = 0;
        sl->read_failed = 0;
        sl->st = sp__source_chunk(en->src, &sl->buf, &sl->cap, &sl->piece, &got);
        if (sl->st != SP_STATUS_SUCCESS) {
            sl->read_failed = 1;
            sp__error_save(&sl->error, sl->st);
        } else if (got) {
            if (en->direct) {
                sl->piece.first_line = en->line;
                sl->piece.offset = en->entries;
                sl->piece.part_offset = en->parts;
            }
            sl->st = parse_piece(en, sl, en->direct);
        }
        pthread_mutex_lock(&en->mu);
        if (!got && sl->st == SP_STATUS_SUCCESS) {
            sl->state = SLOT_FREE;
            pthread_cond_broadcast(&en->cv);
            pthread_mutex_unlock(&en->mu);
            break;
        }
        sl->state = SLOT_PARSED;
        en->ring[sl->piece.seq % en->nslots] = sl;
        place_ready(en);
        pthread_mutex_unlock(&en->mu);
    }
    /* The input is done (or failed): help with the copies still waiting. */
    pthread_mutex_lock(&en->mu);
    while (!en->failed && en->copy_head) {
        slot_t *c = en->copy_head;
        en->copy_head = c->next_copy;
        if (!en->copy_head) en->copy_tail = &en->copy_head;
        copy_piece(en, c);
    }
    pthread_mutex_unlock(&en->mu);
    return NULL;
}

/* Run the workers: nthreads - 1 threads and the caller (threads that cannot be started
 * leave their share to the others). */
static void run_workers(engine_t *en, int nthreads)
{
    pthread_t *threads = NULL;
    int started = 0;
    if (nthreads > 1) threads = sp__malloc_array((size_t)nthreads - 1, sizeof *threads);
    for (; threads && started < nthreads - 1; started++)
        if (pthread_create(&threads[started], NULL, worker, en) != 0) break;
    worker(en);
    for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
    sp__free(threads);
}

sp_status_t sp__stream_run(sp_source_t *src, size_t body, int64_t body_line, int nthreads,
                           const sp_stream_reader_t *rd, sp_stream_result_t *res)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    engine_t en;
    int mu_ok = 0, cv_ok = 0, rw_ok = 0;
    memset(&en, 0, sizeof en);
    SP_CHECK_ARG(src != NULL && rd != NULL && res != NULL && nthreads >= 1,
                 "sp__stream_run: bad argument");
    memset(res, 0, sizeof *res);
    en.src = src;
    en.rd = rd;
    en.direct = nthreads == 1;
    en.nslots = en.direct ? 1 : SLOTS_PER_THREAD * nthreads + EXTRA_SLOTS;
    en.copy_tail = &en.copy_head;
    uint64_t bytes = 0;
    if (sp__source_sized(src, &bytes) && bytes > body) en.body_bytes = bytes - body;
    en.line = body_line;
    SP_TRY(sp__source_start_body(src, body, sp__stream_chunk_bytes()));
    SP_CALLOC(en.slots, en.nslots);
    SP_CALLOC(en.ring, en.nslots);
    if (pthread_mutex_init(&en.mu, NULL) != 0 || !(mu_ok = 1) ||
        pthread_cond_init(&en.cv, NULL) != 0 || !(cv_ok = 1) ||
        pthread_rwlock_init(&en.grow, NULL) != 0 || !(rw_ok = 1))
        SP_FAIL(SP_STATUS_INTERNAL_ERROR, "sp__stream_run: cannot create a lock");
    run_workers(&en, nthreads);
    if (en.failed) {
        st = sp__error_restore(&en.error);
        goto done;
    }
    SP_TRY(sp__source_finish(src));
    res->pieces = en.info;
    res->npieces = en.ninfo;
    res->entries = en.entries;
    res->parts = en.parts;
    res->last_line = en.line - 1;
    en.info = NULL;
done:
    for (int i = 0; en.slots && i < en.nslots; i++) {
        sp__source_buffer_free(en.slots[i].buf, en.slots[i].cap);
        rd->out_free(rd->ctx, en.slots[i].out);
    }
    sp__free(en.slots);
    sp__free(en.ring);
    sp__free(en.info);
    if (rw_ok) pthread_rwlock_destroy(&en.grow);
    if (cv_ok) pthread_cond_destroy(&en.cv);
    if (mu_ok) pthread_mutex_destroy(&en.mu);
    return st;
}

void sp__stream_progress_init(sp__progress_t *p, const sp_source_t *src, size_t body,
                              void (*fn)(void *, int64_t, int64_t), void *user)
{
    uint64_t bytes = 0;
    int64_t total = sp__source_sized(src, &bytes) && bytes >= body ? (int64_t)(bytes - body) : 0;
    sp__progress_init(p, fn, user, total);
}
