/* spbench --ranks N (host-simulated ranks, threads of this process) or --gpus N|LIST (NCCL,
 * one process driving the GPUs): the input split over 1 and then N ranks, each rank's
 * rows, entries and halo, the time per distributed SpMV, CG iteration and BFS beside the
 * single-context call in the same run (overhead of one rank, scaling of N against one),
 * and the largest error against the single-context SpMV. Self-checking: the exit status
 * is 1 when a result is wrong (a row's SpMV error above its bound 2 gamma_len (|A||x|)_i,
 * CG iterations more than one apart, a BFS failing the Graph500 validator or its levels
 * differing). --dist-gen with --gen kron:S[:EF] makes the ranks' graph with
 * sp_dist_gen_kronecker (never whole in one place) and checks it against the single
 * generator's. --read-rows with FILE.mtx: each rank
 * reads only its rows of the file (sp_mtx_read_rows; the split sp_dist_partition gives the
 * whole, which the single-context reference reads anyway) and builds its part with
 * sp_dist_matrix_create_local; the time of each rank's read is printed beside its rows.
 * --read-rows-balanced: the same, with the split from the file alone too
 * (sp_dist_partition_file: each rank counts its share of the file into row buckets; its
 * time is printed per rank as split_from_file_ms).
 * BFS: a first, untimed search (it builds the in-edges, and on GPUs moves the graph to the
 * device) is reported apart; then GTEPS, the harmonic mean over the sources, TEPS counting
 * the input's undirected edges in the traversed component (directed entries / 2, the
 * graph being symmetrized), and the directed entries traversed. The single-context
 * SpMV reference is freed before the distributed runs, and skipped (with a line saying so)
 * when --no-single asks or one copy of the matrix would not fit its GPU; --skip-one runs
 * only the N-rank configuration (an input too large for one GPU). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp.h"
#include "sp_api.h" /* sp__bfs_validate_threads */
#include "sp_ref.h"
#include "spbench_dist.h"
#include "spbench_util.h"

#define SB_MAX_RANKS 64

typedef struct dopts {
    int nranks, gpus, reps, cg, bfs, nsources;
    int dist_gen, kron_scale, kron_ef; /* --dist-gen: kron:S[:EF] made on the ranks */
    int read_rows;                     /* --read-rows: each rank reads its rows of path */
    int read_balanced;                 /* --read-rows-balanced: the split from the file too */
    int no_single, skip_one;           /* --no-single, --skip-one */
    int devices[SB_MAX_RANKS];
    const char *gen, *path;
    uint64_t seed;
} dopts_t;

/* What the ranks share: the input, the vectors, and where each rank puts its results. */
typedef struct drun {
    const dopts_t *o;
    const sp_coo_t *coo;
    int P;
    sp_comm_t *comms[SB_MAX_RANKS];
    const double *x;
    const int64_t *sources;
    double *y;                /* whole SpMV result */
    int32_t *level, *parent;  /* whole BFS result of the current source (rank 0) */
    const sp_csr_t *csr;      /* for validation */
    const int32_t *ref_level; /* single-context levels, nsources x n */
    sp_dist_info_t info[SB_MAX_RANKS];
    int64_t part[SB_MAX_RANKS + 1]; /* --read-rows: the split of the P ranks */
    double read_ms[SB_MAX_RANKS];
    double split_ms[SB_MAX_RANKS];  /* --read-rows-balanced: sp_dist_partition_file */
    sp_status_t st[SB_MAX_RANKS];
    char msg[SB_MAX_RANKS][512];
    double spmv_ms, cg_ms_per_it, bfs_ms, bfs_first_ms;
    double bfs_gteps, bfs_directed_gteps; /* harmonic means over the sources */
    sp_solver_result_t cg;
    int bfs_bad;
} drun_t;

typedef struct rank_arg {
    drun_t *d;
    int rank;
} rank_arg_t;

static double elapsed_ms(double t0)
{
    return 1e3 * (sb_now() - t0);
}

/* A progress line on stderr (unbuffered) at the end of each phase, seconds since the
 * start: a run cut off by a time limit still says how far it came and what took long. */
static double g_start;
static void progress(const char *what, long long arg)
{
    fprintf(stderr, "progress: %8.1f s  %s %lld\n", sb_now() - g_start, what, arg);
}

static sp_status_t rank_context(const drun_t *d, int r, sp_context_t **ctx)
{
    sp_context_options_t co = {0};
    if (!d->o->gpus) return sp_context_create(SP_DEVICE_HOST, NULL, ctx);
    co.device = d->o->devices[r];
    return sp_context_create(SP_DEVICE_CUDA, &co, ctx);
}

/* reps distributed SpMVs between barriers, timed on each rank (rank 0's figure kept). */
static sp_status_t rank_spmv(drun_t *d, int r, sp_dist_matrix_t *A, sp_context_t *ctx)
{
    sp_status_t st;
    sp_vector_t *x = NULL, *y = NULL;
    sp_dist_info_t *in = &d->info[r];
    int64_t nl = in->row_end - in->row_begin;
    double t0;
    int i;
    if ((st = sp_vector_create(ctx, SP_R_64F, nl, d->x + in->row_begin, &x))) goto done;
    if ((st = sp_vector_create(ctx, SP_R_64F, nl, NULL, &y))) goto done;
    for (i = 0; i < SB_WARMUP_CALLS; i++)
        if ((st = sp_dist_spmv(A, 1.0, x, 0.0, y))) goto done;
    if ((st = sp_context_synchronize(ctx)) || (st = sp_comm_barrier(d->comms[r]))) goto done;
    t0 = sb_now();
    for (i = 0; i < d->o->reps; i++)
        if ((st = sp_dist_spmv(A, 1.0, x, 0.0, y))) goto done;
    if ((st = sp_context_synchronize(ctx)) || (st = sp_comm_barrier(d->comms[r]))) goto done;
    if (r == 0) d->spmv_ms = elapsed_ms(t0) / d->o->reps;
    st = sp_vector_copy_to_host(ctx, y, d->y + in->row_begin);
done:
    sp_vector_destroy(x);
    sp_vector_destroy(y);
    return st;
}

static sp_status_t rank_cg(drun_t *d, int r, sp_dist_matrix_t *A, sp_context_t *ctx)
{
    sp_status_t st;
    sp_vector_t *b = NULL, *x = NULL;
    int64_t nl = d->info[r].row_end - d->info[r].row_begin;
    sp_solver_options_t so = {.max_iterations = 1000, .rtol = 1e-8};
    sp_solver_result_t res;
    if ((st = sp_vector_create(ctx, SP_R_64F, nl, NULL, &b))) goto done;
    if ((st = sp_vector_create(ctx, SP_R_64F, nl, NULL, &x))) goto done;
    if ((st = sp_vector_fill(ctx, b, 1.0))) goto done;
    if ((st = sp_dist_solve(A, SP_SOLVER_CG, &so, b, x, &res))) goto done;
    if (r == 0) {
        d->cg = res;
        d->cg_ms_per_it = res.iterations ? 1e3 * res.seconds / (double)res.iterations : 0;
    }
done:
    sp_vector_destroy(b);
    sp_vector_destroy(x);
    return st;
}

/* Every source in turn, timed, gathered and validated on rank 0. */
static sp_status_t rank_bfs(drun_t *d, int r, sp_dist_matrix_t *A)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    int64_t nl = d->info[r].row_end - d->info[r].row_begin, n = d->coo->nrows;
    int32_t *lv = malloc((size_t)(nl + 1) * sizeof *lv),
            *pa = malloc((size_t)(nl + 1) * sizeof *pa);
    double total = 0, t0, ms, inv_teps = 0, inv_dteps = 0;
    int counted = 0;
    sp_bfs_stats_t bs;
    char why[256];
    int s;
    if (!lv || !pa) st = SP_STATUS_ALLOC_FAILED;
    /* the first search builds what the later ones reuse: timed apart */
    if (!st && !(st = sp_comm_barrier(d->comms[r]))) {
        t0 = sb_now();
        if (!(st = sp_dist_bfs(A, d->sources[0], NULL, lv, pa, NULL)) &&
            !(st = sp_comm_barrier(d->comms[r])) && r == 0) {
            d->bfs_first_ms = elapsed_ms(t0);
            progress("first distributed search (in-edges built), ranks", d->P);
        }
    }
    for (s = 0; s < d->o->nsources && !st; s++) {
        if ((st = sp_comm_barrier(d->comms[r]))) break;
        t0 = sb_now();
        if ((st = sp_dist_bfs(A, d->sources[s], NULL, lv, pa, &bs))) break;
        if ((st = sp_comm_barrier(d->comms[r]))) break;
        ms = elapsed_ms(t0);
        total += ms;
        /* harmonic means: sums of seconds per edge (an empty search counts no edges) */
        if (bs.edges_traversed > 0) {
            inv_teps += 1e-3 * ms / (0.5 * (double)bs.edges_traversed);
            inv_dteps += 1e-3 * ms / (double)bs.edges_traversed;
            counted++;
        }
        if ((st = sp_dist_gather_i32(A, lv, d->level))) break;
        if ((st = sp_dist_gather_i32(A, pa, d->parent))) break;
        if (r == 0) progress("distributed search timed and gathered, source", d->sources[s]);
        if (r == 0 && (memcmp(d->level, d->ref_level + (size_t)s * (size_t)n,
                              (size_t)n * sizeof *lv) != 0 ||
                       !sp__bfs_validate_threads(d->csr, (int32_t)d->sources[s], d->level,
                                                 d->parent, NULL, why, sizeof why, 0))) {
            fprintf(stderr, "spbench: distributed BFS from %lld wrong: %s\n",
                    (long long)d->sources[s], why);
            d->bfs_bad = 1;
        }
        if (r == 0) progress("validated, source", d->sources[s]);
        if ((st = sp_comm_barrier(d->comms[r]))) break; /* rank 0 read the whole arrays */
    }
    if (r == 0) {
        d->bfs_ms = total / d->o->nsources;
        d->bfs_gteps = counted ? 1e-9 * counted / inv_teps : 0;
        d->bfs_directed_gteps = counted ? 1e-9 * counted / inv_dteps : 0;
    }
    free(lv);
    free(pa);
    return st;
}

/* --read-rows: rank r's rows of the file, read alone (one thread: the ranks are threads),
 * and its part built from them; with --read-rows-balanced the split comes from the file
 * too (sp_dist_partition_file: every rank counts its share), else from the whole. */
static sp_status_t rank_read_rows(drun_t *d, int r, sp_context_t *ctx, sp_dist_matrix_t **A)
{
    sp_mtx_options_t mo = {.nthreads = 1};
    sp_dist_file_options_t fo = {.mtx = &mo};
    int64_t rb[SB_MAX_RANKS + 1];
    sp_coo_t *rows = NULL;
    double t0 = sb_now();
    sp_status_t st = SP_STATUS_SUCCESS;
    memcpy(rb, d->part, sizeof rb);
    if (d->o->read_balanced) {
        st = sp_dist_partition_file(d->comms[r], d->o->path, &fo, rb);
        d->split_ms[r] = elapsed_ms(t0);
        if (st) return st; /* every rank failed alike */
        t0 = sb_now();
    }
    st = sp_mtx_read_rows(d->o->path, SP_R_64F, &mo, rb[r], rb[r + 1], &rows);
    d->read_ms[r] = elapsed_ms(t0);
    if (st) {
        sp_comm_abort(d->comms[r], "its read failed");
        return st;
    }
    st = sp_dist_matrix_create_local(d->comms[r], ctx, rows, rb[r], NULL, A);
    sp_coo_free(rows);
    return st;
}

static void *rank_main(void *p)
{
    rank_arg_t *a = p;
    drun_t *d = a->d;
    int r = a->rank;
    sp_context_t *ctx = NULL;
    sp_dist_matrix_t *A = NULL;
    sp_status_t st = rank_context(d, r, &ctx);
    if (st) sp_comm_abort(d->comms[r], "no context");
    if (!st && d->o->dist_gen) /* the same graph, generated in slices on the ranks */
        st =
            sp_dist_gen_kronecker(d->comms[r], ctx, d->o->kron_scale, d->o->kron_ef, d->o->seed,
                                  d->o->bfs ? SP_VALUE_NONE : SP_R_64F, 1, NULL, &A);
    else if (!st && d->o->read_rows)
        st = rank_read_rows(d, r, ctx, &A);
    else if (!st)
        st = sp_dist_matrix_create(d->comms[r], ctx, d->coo, NULL, &A);
    if (!st && r == 0) progress("rank's part built, ranks", d->P);
    if (!st) st = sp_dist_matrix_info(A, &d->info[r]);
    if (!st && !d->o->bfs) st = rank_spmv(d, r, A, ctx);
    if (!st && d->o->cg) st = rank_cg(d, r, A, ctx);
    if (!st && d->o->bfs) st = rank_bfs(d, r, A);
    d->st[r] = st;
    snprintf(d->msg[r], sizeof d->msg[r], "%s", sp_last_error());
    sp_dist_matrix_destroy(A);
    sp_context_destroy(ctx);
    return NULL;
}

/* One run on P ranks; 0 when every rank succeeded. */
static int run_ranks(drun_t *d, int P)
{
    pthread_t t[SB_MAX_RANKS];
    rank_arg_t a[SB_MAX_RANKS];
    int started[SB_MAX_RANKS] = {0};
    sp_status_t st;
    int r, bad = 0;
    d->P = P;
    if (d->o->read_rows && !d->o->read_balanced && sp_dist_partition(d->coo, P, d->part)) {
        fprintf(stderr, "spbench: partition: %s\n", sp_last_error());
        return 1;
    }
    st = d->o->gpus ? sp_comm_create_nccl_all(P, d->o->devices, d->comms)
                    : sp_comm_create_host(P, NULL, d->comms);
    if (st) {
        fprintf(stderr, "spbench: communicator of %d ranks: %s\n", P, sp_last_error());
        return 1;
    }
    for (r = 0; r < P; r++) {
        a[r].d = d;
        a[r].rank = r;
        d->st[r] = SP_STATUS_INTERNAL_ERROR;
        snprintf(d->msg[r], sizeof d->msg[r], "its thread did not start");
        started[r] = pthread_create(&t[r], NULL, rank_main, &a[r]) == 0;
        if (!started[r]) sp_comm_abort(d->comms[r], "its thread did not start");
    }
    for (r = 0; r < P; r++)
        if (started[r]) pthread_join(t[r], NULL);
    for (r = 0; r < P; r++) {
        sp_comm_destroy(d->comms[r]);
        if (d->st[r]) {
            fprintf(stderr, "spbench: rank %d of %d: %s\n", r, P, d->msg[r]);
            bad = 1;
        }
    }
    return bad;
}

/* The single-context figures of the same run: SpMV time and result, CG, BFS levels. */
typedef struct single {
    int skipped; /* no single-context SpMV reference (--no-single, or it would not fit) */
    int64_t need_bytes, have_bytes; /* its estimated device memory, the GPU's */
    double spmv_ms, cg_ms_per_it;
    sp_solver_result_t cg;
    int32_t *level; /* nsources x n */
} single_t;

/* One copy of coo fits the context's GPU with room to spare: its COO upload, two formats
 * (the CSR and the one AUTO may pick) and two vectors, at most 85% of the memory. */
static int single_fits(sp_context_t *ctx, const sp_coo_t *coo, int64_t *need, int64_t *have)
{
    sp_device_info_t info;
    int64_t vs = (int64_t)sp_value_size(coo->value_type), n = coo->nrows;
    *need = coo->nnz * (8 + vs) + 2 * (coo->nnz * (4 + vs) + (n + 1) * 4) + 2 * n * vs;
    *have = 0;
    if (sp_context_device_info(ctx, &info) || info.global_mem_bytes <= 0) return 1;
    *have = info.global_mem_bytes;
    return (double)*need <= 0.85 * (double)*have;
}

static sp_status_t run_single(const dopts_t *o, const sp_coo_t *coo, const double *x,
                              const int64_t *sources, double *y, single_t *s, sp_csr_t *csr,
                              sp_context_t **pctx, sp_matrix_t **pA)
{
    sp_status_t st;
    sp_context_options_t co = {0};
    sp_context_t *ctx = NULL;
    sp_matrix_t *A = NULL;
    sp_vector_t *vx = NULL, *vy = NULL;
    sp_solver_t *solver = NULL;
    sp_solver_options_t so = {.max_iterations = 1000, .rtol = 1e-8};
    int64_t n = coo->nrows;
    double t0;
    int i;
    co.device = o->devices[0];
    /* BFS: the reference levels on the host (sp_bfs writes them in the context's memory) */
    if ((st = sp_context_create(o->gpus && !o->bfs ? SP_DEVICE_CUDA : SP_DEVICE_HOST, &co,
                                &ctx)))
        goto done;
    if (!o->bfs && (o->no_single || !single_fits(ctx, coo, &s->need_bytes, &s->have_bytes))) {
        s->skipped = 1;
        goto done;
    }
    if ((st = sp_matrix_create(ctx, coo, NULL, &A))) goto done;
    progress("single-context matrix created, entries", (long long)coo->nnz);
    if (o->bfs) {
        sp_format_view_t v;
        for (i = 0; i < o->nsources; i++) {
            if ((st = sp_bfs(ctx, A, sources[i], NULL, s->level + (size_t)i * (size_t)n, NULL,
                             NULL)))
                goto done;
            progress("reference search (host context), source", (long long)sources[i]);
        }
        if ((st = sp_matrix_view(A, SP_FORMAT_CSR, &v))) goto done;
        csr->nrows = csr->ncols = n;
        csr->nnz = v.nnz;
        csr->value_type = SP_VALUE_NONE;
        memcpy(&csr->ptr, &v.csr.row_ptr, sizeof csr->ptr); /* read only by the validator */
        memcpy(&csr->ptr64, &v.row_ptr64, sizeof csr->ptr64); /* 2^31 entries or more */
        memcpy(&csr->idx, &v.csr.col, sizeof csr->idx);
        goto done;
    }
    if ((st = sp_spmv_prepare(ctx, A, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT))) goto done;
    if ((st = sp_vector_create(ctx, SP_R_64F, n, x, &vx))) goto done;
    if ((st = sp_vector_create(ctx, SP_R_64F, n, NULL, &vy))) goto done;
    for (i = 0; i < SB_WARMUP_CALLS; i++)
        if ((st = sp_spmv_vec(ctx, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT, 1.0, A, vx, 0.0, vy)))
            goto done;
    if ((st = sp_context_synchronize(ctx))) goto done;
    t0 = sb_now();
    for (i = 0; i < o->reps; i++)
        if ((st = sp_spmv_vec(ctx, SP_FORMAT_AUTO, SP_SPMV_ALG_DEFAULT, 1.0, A, vx, 0.0, vy)))
            goto done;
    if ((st = sp_context_synchronize(ctx))) goto done;
    s->spmv_ms = elapsed_ms(t0) / o->reps;
    if ((st = sp_vector_copy_to_host(ctx, vy, y))) goto done;
    if (o->cg) {
        if ((st = sp_solver_create(ctx, SP_SOLVER_CG, &solver))) goto done;
        if ((st = sp_solver_set_options(solver, &so))) goto done;
        if ((st = sp_solver_setup(solver, A))) goto done;
        if ((st = sp_vector_fill(ctx, vx, 1.0))) goto done;
        if ((st = sp_solver_solve(solver, vx, vy))) goto done;
        if ((st = sp_solver_result(solver, &s->cg))) goto done;
        s->cg_ms_per_it = s->cg.iterations ? 1e3 * s->cg.seconds / (double)s->cg.iterations : 0;
    }
done:
    sp_solver_destroy(solver);
    sp_vector_destroy(vx);
    sp_vector_destroy(vy);
    *pctx = ctx; /* kept while csr points into A */
    *pA = A;
    return st;
}

/* The SpMV error bound of each row: two sums of the same len_i products in any order
 * differ by at most 2 gamma_len (|A| |x|)_i, gamma_len = len u / (1 - len u), u = 2^-53. */
static double *spmv_bounds(const sp_coo_t *coo, const double *x)
{
    int64_t n = coo->nrows, k;
    double *bound = calloc((size_t)(n + 1), sizeof *bound);
    int64_t *len = calloc((size_t)(n + 1), sizeof *len);
    if (!bound || !len) {
        free(bound);
        free(len);
        return NULL;
    }
    for (k = 0; k < coo->nnz; k++) {
        double v = coo->val ? ((const double *)coo->val)[k] : 1.0;
        bound[coo->row[k]] += fabs(v) * fabs(x[coo->col[k]]);
        len[coo->row[k]]++;
    }
    for (k = 0; k < n; k++) {
        double g = (double)(len[k] + 1) * 0x1p-53;
        bound[k] *= 2.0 * g / (1.0 - g);
    }
    free(len);
    return bound;
}

/* max_i |y_i - ref_i| / bound_i over the rows (1: at the bound; a row whose bound is 0
 * must match exactly). */
static double max_err_over_bound(const double *y, const double *ref, const double *bound,
                                 int64_t n)
{
    double worst = 0;
    int64_t i;
    for (i = 0; i < n; i++) {
        double d = fabs(y[i] - ref[i]), e = bound[i] > 0 ? d / bound[i] : (d > 0 ? INFINITY : 0);
        if (!(e <= worst)) worst = e; /* NaN wins */
    }
    return worst;
}

/* max_i |y_i - ref_i| / (|ref_i| + tiny) over the rows. */
static double max_rel_err(const double *y, const double *ref, int64_t n)
{
    double worst = 0;
    int64_t i;
    for (i = 0; i < n; i++) {
        double e = fabs(y[i] - ref[i]) / (fabs(ref[i]) > 1e-300 ? fabs(ref[i]) : 1.0);
        if (!(e <= worst)) worst = e; /* NaN wins */
    }
    return worst;
}

static void print_ranks(const drun_t *d)
{
    int r;
    for (r = 0; r < d->P; r++) {
        const sp_dist_info_t *in = &d->info[r];
        printf("rank %d: rows %lld entries %lld (local %lld ghost %lld) halo_recv %lld "
               "halo_send %lld peers %d/%d\n",
               r, (long long)(in->row_end - in->row_begin),
               (long long)(in->local_nnz + in->ghost_nnz), (long long)in->local_nnz,
               (long long)in->ghost_nnz, (long long)in->halo_recv, (long long)in->halo_send,
               in->recv_peers, in->send_peers);
        if (d->o->read_rows) printf("rank %d: read_rows_ms %.2f\n", r, d->read_ms[r]);
        if (d->o->read_balanced) printf("rank %d: split_from_file_ms %.2f\n", r, d->split_ms[r]);
    }
}

static int parse_devices(const char *s, dopts_t *o)
{
    char buf[512];
    int n = 0, v;
    if (!strchr(s, ',') && !sb_parse_int(s, 1, SB_MAX_RANKS, &v)) {
        for (n = 0; n < v; n++)
            o->devices[n] = n;
        o->nranks = v;
        return 0;
    }
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == SB_MAX_RANKS || sb_parse_int(t, 0, 1023, &o->devices[n++])) return 1;
    }
    o->nranks = n;
    return n == 0;
}

static int parse_dist_args(int argc, char **argv, dopts_t *o)
{
    memset(o, 0, sizeof *o);
    o->reps = 20;
    o->nsources = 4;
    o->seed = 1;
    o->nranks = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int needs = strcmp(a, "--cg") && strcmp(a, "--bfs") && strcmp(a, "--dist-gen") &&
                    strcmp(a, "--read-rows") && strcmp(a, "--no-single") &&
                    strcmp(a, "--skip-one") && a[0] == '-';
        if (needs && v == NULL) return sb_bad_value(a, "(missing)");
        if (!strcmp(a, "--ranks")) {
            if (sb_parse_int(v, 1, SB_MAX_RANKS, &o->nranks)) return sb_bad_value(a, v);
        } else if (!strcmp(a, "--gpus")) {
            if (parse_devices(v, o)) return sb_bad_value(a, v);
            o->gpus = 1;
        } else if (!strcmp(a, "--gen")) {
            o->gen = v;
        } else if (!strcmp(a, "--reps")) {
            if (sb_parse_int(v, 1, 100000, &o->reps)) return sb_bad_value(a, v);
        } else if (!strcmp(a, "--sources")) {
            if (sb_parse_int(v, 1, 1024, &o->nsources)) return sb_bad_value(a, v);
            o->bfs = 1;
        } else if (!strcmp(a, "--seed")) {
            if (sb_parse_u64(v, &o->seed)) return sb_bad_value(a, v);
        } else if (!strcmp(a, "--cg")) {
            o->cg = 1;
        } else if (!strcmp(a, "--bfs")) {
            o->bfs = 1;
        } else if (!strcmp(a, "--dist-gen")) {
            o->dist_gen = 1;
        } else if (!strcmp(a, "--read-rows")) {
            o->read_rows = 1;
        } else if (!strcmp(a, "--read-rows-balanced")) {
            o->read_rows = o->read_balanced = 1;
        } else if (!strcmp(a, "--no-single")) {
            o->no_single = 1;
        } else if (!strcmp(a, "--skip-one")) {
            o->skip_one = 1;
        } else if (a[0] == '-') {
            fprintf(stderr,
                    "spbench --ranks/--gpus: unknown option %s (takes --gen SPEC or "
                    "FILE.mtx, --reps R, --cg, --bfs, --sources K, --seed S, --dist-gen, "
                    "--read-rows, --read-rows-balanced, --no-single, --skip-one)\n",
                    a);
            return 1;
        } else {
            o->path = a;
            continue;
        }
        i += needs;
    }
    if (o->read_rows && (!o->path || o->bfs || o->dist_gen)) {
        fprintf(stderr, "spbench: --read-rows needs FILE.mtx, without --bfs or --dist-gen\n");
        return 1;
    }
    if (!o->gen && !o->path) o->gen = "poisson3d:40";
    if (o->dist_gen) {
        long long sc = 0, ef = 16;
        if (!o->gen || sscanf(o->gen, "kron:%lld:%lld", &sc, &ef) < 1) {
            fprintf(stderr, "spbench: --dist-gen needs --gen kron:SCALE[:EF]\n");
            return 1;
        }
        o->kron_scale = (int)sc;
        o->kron_ef = (int)ef;
    }
    return 0;
}

/* The input: a generator spec (poisson2d:N, poisson3d:N, grid2d:N, kron:S[:EF]
 * symmetrized without self loops) or a Matrix Market file; graphs for BFS as patterns. */
static sp_status_t load(const dopts_t *o, sp_coo_t **coo)
{
    char kind[32] = "";
    long long a = 0, b = 16;
    sp_value_type_t t = o->bfs ? SP_VALUE_NONE : SP_R_64F;
    sp_status_t st;
    if (o->path) {
        if ((st = sp_mtx_read(o->path, t, NULL, coo))) return st;
        return o->bfs ? sp_coo_symmetrize(*coo, 1) : SP_STATUS_SUCCESS;
    }
    if (sscanf(o->gen, "%31[a-z0-9]:%lld:%lld", kind, &a, &b) < 2) {
        fprintf(stderr, "spbench: --gen %s: expected KIND:SIZE[:EF]\n", o->gen);
        return SP_STATUS_INVALID_ARGUMENT;
    }
    if (!strcmp(kind, "poisson2d")) return sp_gen_poisson2d(a, t, coo);
    if (!strcmp(kind, "poisson3d")) return sp_gen_poisson3d(a, t, coo);
    if (!strcmp(kind, "grid2d")) return sp_gen_grid2d(a, t, coo);
    if (!strcmp(kind, "kron")) {
        if ((st = sp_gen_kronecker((int)a, (int)b, o->seed, t, coo))) return st;
        progress("kronecker generated, entries", (long long)(*coo)->nnz);
        return sp_coo_symmetrize(*coo, 1);
    }
    fprintf(stderr, "spbench: --gen %s: poisson2d, poisson3d, grid2d or kron\n", o->gen);
    return SP_STATUS_INVALID_ARGUMENT;
}

int sb_dist_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--ranks") || !strcmp(argv[i], "--gpus")) return 1;
    return 0;
}

/* "%.2f" of one / x, or "n/a" (no one-rank run, or nothing measured). */
static const char *ratio(char *buf, size_t size, int have_one, double one, double x)
{
    if (!have_one || !(one > 0) || !(x > 0))
        snprintf(buf, size, "n/a");
    else
        snprintf(buf, size, "%.2f", one / x);
    return buf;
}

/* Runs on 1 and on N ranks (N only with --skip-one) and prints the figures; 0 when all
 * checks pass. scaling_vs_1 is the one-rank time over this run's (for GTEPS this run's over
 * the one-rank figure), both measured in this process. */
static int bench(const dopts_t *o, const sp_coo_t *coo, drun_t *d, const single_t *s,
                 const double *ysingle, const double *bound)
{
    int64_t n = coo->nrows;
    int counts[2] = {1, o->nranks}, k, bad = 0, have_one = 0;
    double one_spmv = 0, one_cg = 0, one_bfs = 0, one_gteps = 0;
    char b1[32], b2[32];
    for (k = o->skip_one && o->nranks > 1 ? 1 : 0; k < (o->nranks > 1 ? 2 : 1); k++) {
        int P = counts[k];
        double err;
        if (run_ranks(d, P)) return 1;
        printf("ranks: %d\n", P);
        print_ranks(d);
        if (!o->bfs) {
            if (k == 0) one_spmv = d->spmv_ms;
            if (s->skipped)
                printf("spmv_ms: %.4f  single: n/a  scaling_vs_1: %s\n", d->spmv_ms,
                       ratio(b1, sizeof b1, have_one || k == 0, one_spmv, d->spmv_ms));
            else
                printf("spmv_ms: %.4f  single: %.4f  overhead_vs_single: %+.1f%%  "
                       "scaling_vs_1: %s\n",
                       d->spmv_ms, s->spmv_ms, 100.0 * (d->spmv_ms / s->spmv_ms - 1.0),
                       ratio(b1, sizeof b1, have_one || k == 0, one_spmv, d->spmv_ms));
            if (s->skipped) {
                printf("max_rel_err_vs_single: skipped (no single-context reference)\n");
            } else {
                /* the check: the SpMV error bound of each row (x has both signs, so a
                 * row's sum can cancel and its relative error says little) */
                err = max_err_over_bound(d->y, ysingle, bound, n);
                printf("max_rel_err_vs_single: %.3g\n", max_rel_err(d->y, ysingle, n));
                printf("spmv_error_over_bound: %.3g (|y - y_single| over 2 gamma_len "
                       "(|A||x|) per row; at most 1)\n", err);
                if (!(err <= 1.0)) bad = 1;
            }
        }
        if (o->cg) {
            if (k == 0) one_cg = d->cg_ms_per_it;
            if (s->skipped)
                printf("cg_iterations: %lld  single: n/a  status: %s  relative_residual: %.3g\n",
                       (long long)d->cg.iterations, sp_solver_status_string(d->cg.status),
                       d->cg.relative_residual);
            else
                printf("cg_iterations: %lld  single: %lld  status: %s  relative_residual: "
                       "%.3g\n",
                       (long long)d->cg.iterations, (long long)s->cg.iterations,
                       sp_solver_status_string(d->cg.status), d->cg.relative_residual);
            printf("cg_ms_per_iteration: %.4f  single: %.4f  scaling_vs_1: %s\n",
                   d->cg_ms_per_it, s->cg_ms_per_it,
                   ratio(b1, sizeof b1, have_one || k == 0, one_cg, d->cg_ms_per_it));
            if (!s->skipped && llabs(d->cg.iterations - s->cg.iterations) > 1) bad = 1;
        }
        if (o->bfs) {
            if (k == 0) {
                one_bfs = d->bfs_ms;
                one_gteps = d->bfs_gteps;
            }
            printf("bfs_first_call_ms: %.2f  (in-edges built%s)\n", d->bfs_first_ms,
                   o->gpus ? ", graph moved to the GPUs" : "");
            printf("bfs_ms_per_search: %.4f  scaling_vs_1: %s  validated: %s\n", d->bfs_ms,
                   ratio(b1, sizeof b1, have_one || k == 0, one_bfs, d->bfs_ms),
                   d->bfs_bad ? "FAILED" : "yes");
            printf("bfs_gteps: %.3f  directed_gteps: %.3f  scaling_vs_1: %s  (harmonic mean "
                   "over %d sources; undirected input edges of the component)\n",
                   d->bfs_gteps, d->bfs_directed_gteps,
                   ratio(b2, sizeof b2, have_one || k == 0, d->bfs_gteps, one_gteps),
                   o->nsources);
            if (d->bfs_bad) bad = 1;
        }
        have_one = have_one || k == 0;
    }
    return bad;
}

/* Whether row v of coo (sorted by row) holds an entry off the diagonal. */
static int row_has_edge(const sp_coo_t *coo, int64_t v)
{
    int64_t lo = 0, hi = coo->nnz;
    while (lo < hi) { /* the first entry of a row >= v */
        int64_t mid = lo + (hi - lo) / 2;
        if (coo->row[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < coo->nnz && coo->row[lo] == v; lo++)
        if (coo->col[lo] != v) return 1;
    return 0;
}

int sb_dist_main(int argc, char **argv)
{
    dopts_t o;
    sp_coo_t *coo = NULL;
    drun_t *d = calloc(1, sizeof *d);
    single_t s;
    sp_csr_t csr;
    sp_context_t *sctx = NULL;
    sp_matrix_t *sA = NULL;
    double *x = NULL, *ysingle = NULL, *bound = NULL;
    int64_t *sources = NULL, n, i;
    uint64_t state;
    int rc = 1;
    memset(&s, 0, sizeof s);
    memset(&csr, 0, sizeof csr);
    g_start = sb_now();
    if (!d || parse_dist_args(argc, argv, &o)) goto done;
    if (load(&o, &coo)) {
        fprintf(stderr, "spbench: %s\n", sp_last_error());
        goto done;
    }
    progress("input loaded, entries", (long long)coo->nnz);
    n = coo->nrows;
    state = o.seed;
    x = malloc((size_t)(n + 1) * sizeof *x);
    ysingle = malloc((size_t)(n + 1) * sizeof *ysingle);
    d->y = malloc((size_t)(n + 1) * sizeof *d->y);
    d->level = malloc((size_t)(n + 1) * sizeof *d->level);
    d->parent = malloc((size_t)(n + 1) * sizeof *d->parent);
    sources = malloc((size_t)o.nsources * sizeof *sources);
    s.level = malloc((size_t)(n + 1) * (size_t)o.nsources * sizeof *s.level);
    if (!x || !ysingle || !d->y || !d->level || !d->parent || !sources || !s.level) goto done;
    for (i = 0; i < n; i++)
        x[i] = 2.0 * (double)(sb_splitmix(&state) >> 11) * 0x1p-53 - 1.0;
    { /* Graph500's rule: sources with at least one edge (a draw that keeps finding none
       * takes the vertex drawn last; an edgeless graph has only those) */
        unsigned char *has = NULL;
        int64_t k;
        /* a BFS graph is symmetrized: sorted by row, a vertex's edges are its row's entries,
         * found by a binary search per draw instead of a pass over every entry (2.1G at
         * Kronecker 26: 18 s of the run) */
        int by_rows = o.bfs && (coo->flags & SP_COO_SORTED);
        if (!by_rows) {
            if (!(has = calloc((size_t)n + 1, 1))) goto done;
            for (k = 0; k < coo->nnz; k++)
                if (coo->row[k] != coo->col[k]) has[coo->row[k]] = has[coo->col[k]] = 1;
        }
        for (i = 0; i < o.nsources; i++) {
            int tries = 0;
            do
                sources[i] = (int64_t)(sb_splitmix(&state) % (uint64_t)n);
            while (!(by_rows ? row_has_edge(coo, sources[i]) : has[sources[i]]) &&
                   ++tries < 1000);
        }
        free(has);
    }
    progress("sources drawn", o.nsources);
    printf("input: %s\nnrows: %lld\nnnz: %lld\nbackend: %s\n", o.path ? o.path : o.gen,
           (long long)n, (long long)coo->nnz,
           o.gpus ? "nccl (one process, a thread per GPU)"
                  : "host (simulated ranks, a thread each)");
    if (run_single(&o, coo, x, sources, ysingle, &s, &csr, &sctx, &sA)) {
        fprintf(stderr, "spbench: single context: %s\n", sp_last_error());
        goto done;
    }
    if (s.skipped)
        printf("single_reference: skipped (%s; one copy needs about %.1f GB of the GPU's "
               "%.1f GB): no max_rel_err_vs_single, no CG iteration check\n",
               o.no_single ? "--no-single" : "it would not fit", 1e-9 * (double)s.need_bytes,
               1e-9 * (double)s.have_bytes);
    if (!o.bfs) { /* the SpMV and CG references are on the host now: free the GPU's copy */
        sp_matrix_destroy(sA);
        sp_context_destroy(sctx);
        sA = NULL;
        sctx = NULL;
    }
    d->o = &o;
    d->coo = coo;
    d->x = x;
    d->sources = sources;
    d->csr = &csr;
    d->ref_level = s.level;
    if (!o.bfs && !(bound = spmv_bounds(coo, x))) goto done;
    rc = bench(&o, coo, d, &s, ysingle, bound);
    printf("dist_check: %s\n", rc ? "FAILED" : "passed");
done:
    sp_matrix_destroy(sA);
    sp_context_destroy(sctx);
    sp_coo_free(coo);
    free(x);
    free(ysingle);
    free(bound);
    free(sources);
    free(s.level);
    if (d) {
        free(d->y);
        free(d->level);
        free(d->parent);
    }
    free(d);
    return rc;
}
