/* Distributed direction-optimizing BFS (Beamer, Asanovic & Patterson, SC'12; the
 * distributed form after Buluc & Madduri, SC'11, with a 1D vertex split): each rank owns the
 * vertices of its rows. A top-down step scans the frontier's out-edges, visits its own
 * targets and sends the others, as (vertex, parent) pairs, to their owners in one
 * personalized exchange; a bottom-up step all-gathers the frontier bitmap and lets each
 * unvisited vertex look for a parent among its in-edges. The direction is chosen from
 * global counts (one three-value all-reduce per level), so every rank takes the same.
 * The level loop below is the one engine of both memories: a rank on a host context runs
 * its steps here on host arrays, a rank on a CUDA context runs them on its GPU
 * (dist_bfs_cuda.c) and reports the same per-level counts. */
#include <string.h>

#include "bfs/bfs_direction_rule.h"
#include "dist_internal.h"
#include "policy.h"
#include "sp_text.h" /* sp__parallel_for */

typedef struct bfs {
    sp_dist_matrix_t *A;
    int gpu;                 /* the steps run on the rank's GPU (dist_bfs_cuda.c) */
    int32_t *level, *parent; /* host steps: this rank's outputs */
    int32_t *cur,
        *next; /* host steps: local ids of this level's and the next level's vertices */
    int64_t ncur, nnext, depth;
    int64_t cur_edges, next_edges;   /* out-edges of the vertices of cur and of next */
    int64_t unvisited_edges;         /* out-edges of this rank's unvisited vertices */
    int64_t words;                   /* 64-bit words of the largest part's frontier bitmap */
    uint64_t *mine, *all, *frontier; /* own bitmap, every part's, the global one */
} bfs_t;

static int64_t degree(const sp_dist_matrix_t *A, int64_t i)
{
    return A->h_row_ptr[i + 1] - A->h_row_ptr[i];
}

static void visit(bfs_t *b, int64_t v, int64_t parent)
{
    b->level[v] = (int32_t)(b->depth + 1);
    b->parent[v] = (int32_t)parent;
    b->next[b->nnext++] = (int32_t)v;
    b->next_edges += degree(b->A, v);
}

/* The in-edge lists by target: edges (target, source) counted and placed by target on
 * several threads, each owning a contiguous range of this rank's vertices and scanning every
 * edge (random writes only into its own range; each target's sources keep the scan's
 * order). The edges are the rank's own rows (one rank: every edge's target is its own) or
 * the (target, source) pairs the other ranks routed here. */
typedef struct in_edges_job {
    sp_dist_matrix_t *A;
    const int32_t *pairs; /* NULL: the rows of A (h_row_ptr, h_col) */
    int64_t npairs;
    int ntasks;
    int64_t *cursor; /* nloc + 1: counts, then each target's next slot */
    int fill;        /* 0: count, 1: place */
} in_edges_job_t;

static void in_edge(in_edges_job_t *j, int64_t lo, int64_t hi, int64_t target, int64_t source)
{
    int64_t t = target - j->A->rb;
    if (t < lo || t >= hi) return;
    if (j->fill) j->A->h_in[j->cursor[t]++] = (int32_t)source;
    else j->cursor[t + 1]++;
}

static sp_status_t in_edges_task(int task, void *arg)
{
    in_edges_job_t *j = arg;
    const sp_dist_matrix_t *A = j->A;
    int64_t lo = A->nloc * task / j->ntasks, hi = A->nloc * (task + 1) / j->ntasks, i, k;
    if (j->pairs)
        for (k = 0; k < j->npairs; k++)
            in_edge(j, lo, hi, j->pairs[2 * k], j->pairs[2 * k + 1]);
    else
        for (i = 0; i < A->nloc; i++)
            for (k = A->h_row_ptr[i]; k < A->h_row_ptr[i + 1]; k++)
                in_edge(j, lo, hi, A->h_col[k], A->rb + i);
    return SP_STATUS_SUCCESS;
}

/* h_in_ptr / h_in from the edges of job j (count, prefix sums, place). */
static sp_status_t place_in_edges(in_edges_job_t *j, int64_t total)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_matrix_t *A = j->A;
    int64_t i;
    int cores = sp__ncores() / (A->comm->size > 0 ? A->comm->size : 1);
    int64_t per = total / (1 << 22) + 1; /* a thread per 4M edges at least */
    j->ntasks = cores < 1 ? 1 : cores;
    if (per < j->ntasks) j->ntasks = (int)per;
    if (A->nloc < j->ntasks) j->ntasks = A->nloc > 0 ? (int)A->nloc : 1;
    SP_CALLOC(A->h_in_ptr, A->nloc + 1);
    SP_ALLOC(A->h_in, total > 0 ? total : 1);
    SP_CALLOC(j->cursor, A->nloc + 1);
    j->fill = 0;
    SP_TRY(sp__parallel_for(j->ntasks, j->ntasks, in_edges_task, j));
    for (i = 0; i < A->nloc; i++)
        j->cursor[i + 1] += j->cursor[i];
    memcpy(A->h_in_ptr, j->cursor, (size_t)(A->nloc + 1) * sizeof *A->h_in_ptr);
    j->fill = 1;
    SP_TRY(sp__parallel_for(j->ntasks, j->ntasks, in_edges_task, j));
done:
    sp__free(j->cursor);
    j->cursor = NULL;
    if (st != SP_STATUS_SUCCESS) { /* made whole or not at all: the next call tries again */
        sp__free(A->h_in_ptr);
        sp__free(A->h_in);
        A->h_in_ptr = NULL;
        A->h_in = NULL;
    }
    return st;
}

/* The in-edges of the owned vertices (u -> v stored at v's owner), sorted by u: every edge
 * goes to its target's owner (one rank: no exchange), which counting-sorts them by target.
 * Made once. */
static sp_status_t build_in_edges(sp_dist_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int P = A->comm->size, q;
    int64_t *scount = NULL, *rcount = NULL, *off = NULL, i, k, total = 0;
    int32_t *pairs = NULL, *got = NULL;
    in_edges_job_t j;
    memset(&j, 0, sizeof j);
    j.A = A;
    if (P == 1) {
        SP_TRY(place_in_edges(&j, A->h_row_ptr[A->nloc]));
        goto done;
    }
    SP_CALLOC(scount, P);
    SP_CALLOC(rcount, P);
    SP_CALLOC(off, P + 1);
    SP_ALLOC(pairs, 2 * A->h_row_ptr[A->nloc] + 1);
    for (k = 0; k < A->h_row_ptr[A->nloc]; k++)
        scount[sp__dist_owner(A, A->h_col[k])]++;
    for (q = 0; q < P; q++)
        off[q + 1] = off[q] + scount[q];
    for (i = 0; i < A->nloc; i++)
        for (k = A->h_row_ptr[i]; k < A->h_row_ptr[i + 1]; k++) {
            int64_t at = off[sp__dist_owner(A, A->h_col[k])]++;
            pairs[2 * at] = A->h_col[k];
            pairs[2 * at + 1] = (int32_t)(A->rb + i);
        }
    /* each pair is 8 bytes: (target, source) */
    SP_TRY(
        sp__dist_alltoallv(A->comm, pairs, scount, 2 * sizeof(int32_t), (void **)&got, rcount));
    sp__free(pairs);
    pairs = NULL;
    for (q = 0; q < P; q++)
        total += rcount[q];
    j.pairs = got;
    j.npairs = total;
    SP_TRY(place_in_edges(&j, total)); /* sources in rank, then row, order */
done:
    sp__free(got);
    sp__free(pairs);
    sp__free(off);
    sp__free(rcount);
    sp__free(scount);
    return st;
}

/* Top-down: own targets visited here (unless the route_own knob sends them through the
 * exchange too), the others sent to their owners as (v, parent). */
static sp_status_t step_push(bfs_t *b)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_matrix_t *A = b->A;
    int P = A->comm->size, me = sp__dist_bfs_route_own() ? -1 : A->comm->rank, q;
    int64_t *scount = NULL, *rcount = NULL, *off = NULL, f, k, total = 0;
    int32_t *out = NULL, *got = NULL;
    SP_CALLOC(scount, P);
    SP_CALLOC(rcount, P);
    SP_CALLOC(off, P + 1);
    for (f = 0; f < b->ncur; f++)
        for (k = A->h_row_ptr[b->cur[f]]; k < A->h_row_ptr[b->cur[f] + 1]; k++)
            if ((q = sp__dist_owner(A, A->h_col[k])) != me) scount[q]++;
    for (q = 0; q < P; q++)
        off[q + 1] = off[q] + scount[q];
    SP_ALLOC(out, 2 * off[P]);
    for (f = 0; f < b->ncur; f++) {
        int64_t u = b->cur[f];
        for (k = A->h_row_ptr[u]; k < A->h_row_ptr[u + 1]; k++) {
            int64_t v = A->h_col[k], at;
            if ((q = sp__dist_owner(A, v)) == me) {
                if (b->level[v - A->rb] < 0) visit(b, v - A->rb, A->rb + u);
                continue;
            }
            at = off[q]++;
            out[2 * at] = (int32_t)v;
            out[2 * at + 1] = (int32_t)(A->rb + u);
        }
    }
    SP_TRY(
        sp__dist_alltoallv(A->comm, out, scount, 2 * sizeof(int32_t), (void **)&got, rcount));
    for (q = 0; q < P; q++)
        total += rcount[q];
    for (k = 0; k < total; k++)
        if (b->level[got[2 * k] - A->rb] < 0) visit(b, got[2 * k] - A->rb, got[2 * k + 1]);
done:
    sp__free(got);
    sp__free(out);
    sp__free(off);
    sp__free(rcount);
    sp__free(scount);
    return st;
}

static int test_bit(const uint64_t *bits, int64_t i)
{
    return (int)((bits[i >> 6] >> (i & 63)) & 1u);
}
static void set_bit(uint64_t *bits, int64_t i)
{
    bits[i >> 6] |= (uint64_t)1 << (i & 63);
}

/* Bottom-up: the frontier bitmap all-gathered, each unvisited vertex takes its first
 * in-neighbour in it as parent. */
static sp_status_t step_pull(bfs_t *b)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_matrix_t *A = b->A;
    int P = A->comm->size, p;
    int64_t f, i, k;
    memset(b->mine, 0, (size_t)b->words * 8);
    for (f = 0; f < b->ncur; f++)
        set_bit(b->mine, b->cur[f]);
    SP_TRY(sp__comm_allgather_host(A->comm, b->mine, b->all, b->words * 8));
    memset(b->frontier, 0, (size_t)((A->n + 63) / 64) * 8);
    for (p = 0; p < P; p++)
        for (i = 0; i < A->row_begin[p + 1] - A->row_begin[p]; i++)
            if (test_bit(b->all + (size_t)p * (size_t)b->words, i))
                set_bit(b->frontier, A->row_begin[p] + i);
    for (i = 0; i < A->nloc; i++) {
        if (b->level[i] >= 0) continue;
        for (k = A->h_in_ptr[i]; k < A->h_in_ptr[i + 1]; k++)
            if (test_bit(b->frontier, A->h_in[k])) {
                visit(b, i, A->h_in[k]);
                break;
            }
    }
done:
    return st;
}

static sp_status_t check_options(const sp_dist_matrix_t *A, int64_t source,
                                 const sp_bfs_options_t *o, const int32_t *level)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(level != NULL || A->nloc == 0, "sp_dist_bfs: level is NULL");
    SP_CHECK_ARG(source >= 0 && source < A->n,
                 "sp_dist_bfs: source %lld is not a vertex of"
                 " the %lld-vertex graph",
                 (long long)source, (long long)A->n);
    if (o == NULL) goto done;
    SP_CHECK_ARG(o->frontier_capacity >= 0 &&
                     (o->frontier_capacity == 0) ==
                         (o->frontier_sizes == NULL && o->directions == NULL &&
                          o->level_times_ms == NULL),
                 "sp_dist_bfs: frontier_capacity %lld does not match the record arrays given",
                 (long long)o->frontier_capacity);
    SP_CHECK_ARG(o->alpha >= 0 && o->beta >= 0, "sp_dist_bfs: negative alpha or beta");
done:
    return st;
}

/* The records of options for level l (global frontier size nf, direction dir). */
static void record(const sp_bfs_options_t *o, int64_t l, int64_t nf, int dir)
{
    if (o == NULL || l >= o->frontier_capacity) return;
    if (o->frontier_sizes) o->frontier_sizes[l] = nf;
    if (o->directions) o->directions[l] = dir;
}

static void clear_records(const sp_bfs_options_t *o)
{
    int64_t l;
    for (l = 0; o && l < o->frontier_capacity; l++) {
        if (o->frontier_sizes) o->frontier_sizes[l] = 0;
        if (o->directions) o->directions[l] = -1;
        if (o->level_times_ms) o->level_times_ms[l] = -1.0;
    }
}

/* The level just made becomes the frontier (its queue and its counts). */
static void advance(bfs_t *b)
{
    int32_t *t = b->cur;
    if (!b->gpu) { /* the device queues are swapped by the device step */
        b->cur = b->next;
        b->next = t;
    }
    b->ncur = b->nnext;
    b->cur_edges = b->next_edges;
    b->unvisited_edges -= b->next_edges;
    b->nnext = b->next_edges = 0;
}

/* Levels until the frontier is empty everywhere; Beamer's switching on global counts. */
static sp_status_t run_levels(bfs_t *b, const sp_bfs_options_t *o, sp_bfs_stats_t *s)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_matrix_t *A = b->A;
    sp_bfs_variant_t var = o ? o->variant : SP_BFS_AUTO;
    const sp__bfs_policy_t *pol = sp__policy_for(A->ctx)->bfs;
    double alpha = o && o->alpha > 0 ? o->alpha : pol->alpha,
           beta = o && o->beta > 0 ? o->beta : pol->beta,
           w = sp__bfs_beamer_rule() ? 0.0 : pol->pull_vertex_weight;
    int dir = var == SP_BFS_PULL ? SP_BFS_DIR_PULL : SP_BFS_DIR_PUSH, last = dir;
    int optimize = var != SP_BFS_PUSH && var != SP_BFS_PULL && var != SP_BFS_FRONTIER;
    int64_t prev_nf = 0;
    for (;;) {
        int64_t g[3] = {b->ncur, b->cur_edges, b->unvisited_edges};
        SP_TRY(sp__comm_allreduce_host(A->comm, g, 3, SP_COMM_I64, SP_COMM_SUM));
        if (g[0] == 0) break;
        /* the rule of one GPU (bfs_direction_rule.h) on the global counts: n_u leaves out
           the vertices reached so far, the frontier's among them */
        if (optimize)
            dir = sp_bfs_rule_next(dir == SP_BFS_DIR_PULL, g[1], g[2],
                                   A->n - s->vertices_visited - g[0], g[0], prev_nf, A->n,
                                   alpha, beta, w)
                      ? SP_BFS_DIR_PULL
                      : SP_BFS_DIR_PUSH;
        s->direction_switches += dir != last;
        last = dir;
        record(o, b->depth, g[0], dir);
        s->vertices_visited += g[0];
        s->levels++;
        if (b->gpu)
            SP_TRY(sp__dist_bfs_gpu_step(A, dir == SP_BFS_DIR_PULL, b->depth, b->ncur,
                                         b->cur_edges, &b->nnext, &b->next_edges));
        else
            SP_TRY(dir == SP_BFS_DIR_PUSH ? step_push(b) : step_pull(b));
        advance(b);
        prev_nf = g[0];
        b->depth++;
    }
done:
    return st;
}

/* Host steps: the arrays of one search, the source visited where owned (in next). */
static sp_status_t host_begin(bfs_t *b, int64_t source)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_dist_matrix_t *A = b->A;
    int64_t i, p;
    for (p = 0; p < A->comm->size; p++)
        if (A->row_begin[p + 1] - A->row_begin[p] > b->words * 64)
            b->words = (A->row_begin[p + 1] - A->row_begin[p] + 63) / 64;
    SP_ALLOC(b->level, A->nloc);
    SP_ALLOC(b->parent, A->nloc);
    SP_ALLOC(b->cur, A->nloc);
    SP_ALLOC(b->next, A->nloc);
    SP_ALLOC(b->mine, b->words);
    SP_ALLOC(b->all, (size_t)b->words * (size_t)A->comm->size);
    SP_ALLOC(b->frontier, (A->n + 63) / 64);
    for (i = 0; i < A->nloc; i++) {
        b->level[i] = -1;
        b->parent[i] = -1;
    }
    if (source >= A->rb && source < A->rb + A->nloc) {
        b->depth = -1; /* visit() sets level depth + 1 */
        visit(b, source - A->rb, source);
        b->depth = 0;
    }
done:
    return st;
}

static void host_free(bfs_t *b)
{
    sp__free(b->frontier);
    sp__free(b->all);
    sp__free(b->mine);
    sp__free(b->next);
    sp__free(b->cur);
    sp__free(b->parent);
    sp__free(b->level);
}

sp_status_t sp_dist_bfs(sp_dist_matrix_t *A, int64_t source, const sp_bfs_options_t *options,
                        int32_t *level, int32_t *parent, sp_bfs_stats_t *stats)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    bfs_t b;
    sp_bfs_stats_t s;
    int64_t e;
    memset(&b, 0, sizeof b);
    memset(&s, 0, sizeof s);
    if (A == NULL) return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_dist_bfs: A is NULL");
    SP_TRY(check_options(A, source, options, level));
    if (A->h_in_ptr == NULL) SP_TRY(build_in_edges(A));
    b.A = A;
    b.gpu = sp_context_kind(A->ctx) == SP_DEVICE_CUDA;
    b.unvisited_edges = A->h_row_ptr[A->nloc];
    if (b.gpu)
        SP_TRY(sp__dist_bfs_gpu_begin(A, source, &b.nnext, &b.next_edges));
    else
        SP_TRY(host_begin(&b, source));
    advance(&b); /* the source, where owned, is the first frontier */
    clear_records(options);
    SP_TRY(run_levels(&b, options, &s));
    e = A->h_row_ptr[A->nloc] - b.unvisited_edges; /* out-edges of the visited vertices */
    SP_TRY(sp__comm_allreduce_host(A->comm, &e, 1, SP_COMM_I64, SP_COMM_SUM));
    s.edges_traversed = e;
    s.variant_used =
        options && options->variant != SP_BFS_AUTO ? options->variant : SP_BFS_DIRECTION_OPT;
    s.loop_used = SP_BFS_LOOP_HOST;
    if (b.gpu)
        SP_TRY(sp__dist_bfs_gpu_end(A, level, parent));
    else if (A->nloc > 0) {
        memcpy(level, b.level, (size_t)A->nloc * sizeof *level);
        if (parent) memcpy(parent, b.parent, (size_t)A->nloc * sizeof *parent);
    }
    if (stats) *stats = s;
done:
    host_free(&b);
    return sp__comm_fail(A ? A->comm : NULL, st);
}

sp_status_t sp_dist_gather_i32(sp_dist_matrix_t *A, const int32_t *part, int32_t *whole)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int32_t *all = NULL, *padded = NULL;
    int64_t most = 0, i;
    int p;
    if (A == NULL) return SP_ERROR(SP_STATUS_INVALID_ARGUMENT, "sp_dist_gather_i32: A is NULL");
    SP_CHECK_ARG(whole != NULL && (part != NULL || A->nloc == 0),
                 "sp_dist_gather_i32: part or whole is NULL");
    for (p = 0; p < A->comm->size; p++)
        if (A->row_begin[p + 1] - A->row_begin[p] > most)
            most = A->row_begin[p + 1] - A->row_begin[p];
    SP_CALLOC(all, (size_t)most * (size_t)A->comm->size);
    SP_CALLOC(padded, most);
    if (A->nloc > 0) memcpy(padded, part, (size_t)A->nloc * sizeof *part);
    SP_TRY(sp__comm_allgather_host(A->comm, padded, all, most * 4));
    for (p = 0; p < A->comm->size; p++)
        for (i = 0; i < A->row_begin[p + 1] - A->row_begin[p]; i++)
            whole[A->row_begin[p] + i] = all[(size_t)p * (size_t)most + (size_t)i];
done:
    sp__free(padded);
    sp__free(all);
    return sp__comm_fail(A ? A->comm : NULL, st);
}
