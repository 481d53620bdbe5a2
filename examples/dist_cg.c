/* Solve the 3D Poisson system A x = 1 (n x n x n grid, 7-point stencil) with CG spread over
 * several ranks of libsp's distributed layer, and print each rank's share and the result.
 *
 *   dist_cg --host P [--n N] [--jacobi]        P simulated ranks (threads, no GPU needed)
 *   dist_cg --gpus [--n N] [--jacobi]          every visible GPU, one process (NCCL)
 *   dist_cg --id-file PATH --nranks P --rank R [--device D] [--n N] [--jacobi]
 *                                              one process per GPU: rank 0 writes NCCL's
 *                                              unique id to PATH, the others wait for it
 *                                              (how processes on several hosts would join:
 *                                              share the id any way you like)
 *
 * Every rank runs the same code: create the distributed matrix (each takes its rows of the
 * whole system), make its parts of b and x, and call sp_dist_solve; the result is the
 * same on every rank. Run with NCCL_NVLS_ENABLE=0 on shared machines. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sp.h>

typedef struct rank_job {
    sp_comm_t *comm;
    sp_device_kind_t kind;
    int device, jacobi;
    const sp_coo_t *coo;
    sp_status_t status;
} rank_job_t;

/* One rank's whole program. */
static void *solve_rank(void *p)
{
    rank_job_t *j = p;
    sp_context_options_t co = {.device = j->device};
    sp_context_t *ctx = NULL;
    sp_dist_matrix_t *A = NULL;
    sp_vector_t *b = NULL, *x = NULL;
    sp_dist_info_t info;
    sp_solver_options_t opt = {.rtol = 1e-8};
    sp_solver_result_t res;
    int64_t rows;
    sp_status_t st = sp_context_create(j->kind, &co, &ctx);
    if (st) sp_comm_abort(j->comm, "no context"); /* so the other ranks do not wait for us */
    if (!st) st = sp_dist_matrix_create(j->comm, ctx, j->coo, NULL, &A);
    if (!st) st = sp_dist_matrix_info(A, &info);
    rows = st ? 0 : info.row_end - info.row_begin;
    if (!st) st = sp_vector_create(ctx, SP_R_64F, rows, NULL, &b);
    if (!st) st = sp_vector_create(ctx, SP_R_64F, rows, NULL, &x);
    if (!st) st = sp_vector_fill(ctx, b, 1.0);
    if (!st)
        st =
            sp_dist_solve(A, j->jacobi ? SP_SOLVER_PCG_JACOBI : SP_SOLVER_CG, &opt, b, x, &res);
    if (!st) {
        printf("rank %d: rows %lld..%lld, %lld entries, halo %lld in / %lld out\n", info.rank,
               (long long)info.row_begin, (long long)info.row_end,
               (long long)(info.local_nnz + info.ghost_nnz), (long long)info.halo_recv,
               (long long)info.halo_send);
        if (info.rank == 0)
            printf("status: %s\niterations: %lld\nrelative_residual: %.3e\nseconds: %.3f\n",
                   sp_solver_status_string(res.status), (long long)res.iterations,
                   res.relative_residual, res.seconds);
    } else {
        fprintf(stderr, "rank %d: %s\n", sp_comm_rank(j->comm), sp_last_error());
    }
    j->status = st;
    sp_vector_destroy(b);
    sp_vector_destroy(x);
    sp_dist_matrix_destroy(A);
    sp_context_destroy(ctx);
    return NULL;
}

/* Several ranks in this process, a thread each. */
static int run_threads(sp_comm_t **comms, int P, sp_device_kind_t kind, int jacobi,
                       const sp_coo_t *coo)
{
    pthread_t t[64];
    rank_job_t jobs[64];
    int r, bad = 0;
    int started = 0;
    for (r = 0; r < P; r++, started++) {
        jobs[r] = (rank_job_t){comms[r], kind, r, jacobi, coo, SP_STATUS_SUCCESS};
        if (pthread_create(&t[r], NULL, solve_rank, &jobs[r]) != 0) {
            sp_comm_abort(comms[r], "its thread did not start"); /* the others stop too */
            bad = 1;
            break;
        }
    }
    for (r = 0; r < started; r++) {
        pthread_join(t[r], NULL);
        bad |= jobs[r].status != SP_STATUS_SUCCESS;
    }
    for (r = 0; r < P; r++) /* after every rank is done: a destroyed rank counts as lost */
        sp_comm_destroy(comms[r]);
    return bad;
}

/* Rank 0 writes the id (to a temporary file renamed into place, so a reader never sees
 * half of it); the others wait up to a minute for it. */
static int share_id(const char *path, int rank, sp_comm_nccl_id_t *id)
{
    char tmp[4096];
    FILE *f;
    if (rank == 0) {
        if (sp_comm_nccl_unique_id(id)) return 1;
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        if (!(f = fopen(tmp, "wb")) || fwrite(id, sizeof *id, 1, f) != 1 || fclose(f) != 0)
            return 1;
        return rename(tmp, path) != 0;
    }
    for (int waited = 0; waited < 600; waited++) {
        if ((f = fopen(path, "rb"))) {
            size_t got = fread(id, sizeof *id, 1, f);
            fclose(f);
            if (got == 1) return 0;
        }
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    fprintf(stderr, "dist_cg: no NCCL id appeared in %s within a minute\n", path);
    return 1;
}

int main(int argc, char **argv)
{
    int host = 0, gpus = 0, jacobi = 0, nranks = 0, rank = -1, device = -1, rc = 1;
    const char *id_file = NULL;
    int64_t n = 32;
    sp_coo_t *coo = NULL;
    sp_comm_t *comms[64];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--host"))
            host = atoi(v), i++;
        else if (!strcmp(a, "--gpus"))
            gpus = 1;
        else if (!strcmp(a, "--n"))
            n = atoll(v), i++;
        else if (!strcmp(a, "--jacobi"))
            jacobi = 1;
        else if (!strcmp(a, "--id-file"))
            id_file = v, i++;
        else if (!strcmp(a, "--nranks"))
            nranks = atoi(v), i++;
        else if (!strcmp(a, "--rank"))
            rank = atoi(v), i++;
        else if (!strcmp(a, "--device"))
            device = atoi(v), i++;
        else {
            fprintf(stderr, "usage: dist_cg --host P | --gpus | --id-file PATH --nranks P "
                            "--rank R [--device D]; [--n N] [--jacobi]\n");
            return 2;
        }
    }
    if (host < 0 || host > 64 || n < 2 || (!host && !gpus && !id_file)) {
        fprintf(stderr, "dist_cg: give --host P (1..64), --gpus or --id-file (see the top of "
                        "examples/dist_cg.c)\n");
        return 2;
    }
    if (sp_gen_poisson3d(n, SP_R_64F, &coo)) goto fail;
    printf("grid: %lld^3, rows: %lld, entries: %lld\n", (long long)n, (long long)coo->nrows,
           (long long)coo->nnz);
    if (host) {
        if (sp_comm_create_host(host, NULL, comms)) goto fail;
        rc = run_threads(comms, host, SP_DEVICE_HOST, jacobi, coo);
    } else if (gpus) {
        int count = 0;
        for (sp_context_t *probe = NULL; count < 64; count++) { /* the visible GPUs */
            sp_context_options_t co = {.device = count};
            if (sp_context_create(SP_DEVICE_CUDA, &co, &probe) != SP_STATUS_SUCCESS) break;
            sp_context_destroy(probe);
        }
        if (count == 0 || sp_comm_create_nccl_all(count, NULL, comms)) goto fail;
        printf("gpus: %d\n", count);
        rc = run_threads(comms, count, SP_DEVICE_CUDA, jacobi, coo);
    } else {
        sp_comm_nccl_id_t id;
        rank_job_t job;
        if (nranks < 1 || rank < 0 || rank >= nranks) {
            fprintf(stderr, "dist_cg: --id-file needs --nranks P and --rank R in 0..P-1\n");
            goto done;
        }
        if (share_id(id_file, rank, &id)) goto fail;
        if (sp_comm_create_nccl_rank(&id, nranks, rank, device >= 0 ? device : rank, comms))
            goto fail;
        job = (rank_job_t){comms[0], SP_DEVICE_CUDA,   device >= 0 ? device : rank, jacobi,
                           coo,      SP_STATUS_SUCCESS};
        solve_rank(&job);
        sp_comm_destroy(comms[0]);
        rc = job.status != SP_STATUS_SUCCESS;
    }
    goto done;
fail:
    fprintf(stderr, "dist_cg: %s\n", sp_last_error());
done:
    sp_coo_free(coo);
    return rc;
}
