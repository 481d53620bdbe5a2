/* Read an edge list, run BFS from a source on the host or the GPU, print the number of
 * vertices on each level and the path from the source to a chosen vertex (via parents).
 * Without --source, the source is the vertex of highest out-degree: vertex 0 of a SNAP
 * file often has no edges at all, and a BFS from it reaches only itself.
 *
 *   bfs_edgelist graph.txt [--source S] [--target T] [--undirected] [--gpu] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sp.h>

int main(int argc, char **argv)
{
    const char *path = NULL;
    int64_t source = -1, target = -1;
    sp_edgelist_options_t eopt = {0};
    sp_device_kind_t kind = SP_DEVICE_HOST;
    sp_coo_t *coo = NULL;
    sp_context_t *ctx = NULL;
    sp_matrix_t *G = NULL;
    sp_bfs_options_t opts = {0};
    sp_bfs_stats_t stats = {0};
    int32_t *level = NULL, *parent = NULL, *path_v = NULL;
    void *d_level = NULL, *d_parent = NULL;
    sp_vector_t *lv = NULL, *pv = NULL;
    int rc = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gpu") == 0) kind = SP_DEVICE_CUDA;
        else if (strcmp(argv[i], "--undirected") == 0) eopt.undirected = 1;
        else if (strcmp(argv[i], "--source") == 0 && i + 1 < argc) source = atoll(argv[++i]);
        else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc) target = atoll(argv[++i]);
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else path = NULL, i = argc;
    }
    if (!path) {
        fprintf(stderr, "usage: %s graph.txt [--source S] [--target T] [--undirected] [--gpu]\n",
                argv[0]);
        return 2;
    }
    eopt.merge_duplicates = 1;
    if (sp_edgelist_read(path, SP_VALUE_NONE, &eopt, &coo, NULL) ||
        sp_context_create(kind, NULL, &ctx) || sp_matrix_create(ctx, coo, NULL, &G)) {
        fprintf(stderr, "bfs_edgelist: %s\n", sp_last_error());
        goto done;
    }
    int64_t n = coo->nrows;
    /* out-degree of every vertex (duplicates are merged: one entry per edge) */
    int64_t *degree = calloc((size_t)n + 1, sizeof *degree);
    if (!degree) goto done;
    for (int64_t k = 0; k < coo->nnz; k++) degree[coo->row[k]]++;
    int given = source >= 0;
    if (!given) {
        source = 0;
        for (int64_t v = 1; v < n; v++)
            if (degree[v] > degree[source]) source = v;
    }
    int64_t source_degree = source < n ? degree[source] : 0;
    free(degree);
    level = malloc((size_t)(n + 1) * sizeof *level);
    parent = malloc((size_t)(n + 1) * sizeof *parent);
    path_v = malloc((size_t)(n + 1) * sizeof *path_v);
    opts.frontier_capacity = n + 1;
    opts.frontier_sizes = malloc((size_t)(n + 1) * sizeof *opts.frontier_sizes);
    if (!level || !parent || !path_v || !opts.frontier_sizes) goto done;
    /* level and parent live in the context's memory: on the GPU, in vectors' storage
     * (32-bit integers fit in SP_R_32F slots, which are only used as raw memory here) */
    if (kind == SP_DEVICE_CUDA) {
        if (sp_vector_create(ctx, SP_R_32F, n, NULL, &lv) ||
            sp_vector_create(ctx, SP_R_32F, n, NULL, &pv)) {
            fprintf(stderr, "bfs_edgelist: %s\n", sp_last_error());
            goto done;
        }
        d_level = sp_vector_data(lv);
        d_parent = sp_vector_data(pv);
    }
    if (sp_bfs(ctx, G, source, &opts, d_level ? d_level : level, d_parent ? d_parent : parent,
               &stats) ||
        (lv && (sp_vector_copy_to_host(ctx, lv, level) || sp_vector_copy_to_host(ctx, pv, parent)))) {
        fprintf(stderr, "bfs_edgelist: %s\n", sp_last_error());
        goto done;
    }
    printf("graph: %s (%lld vertices, %lld edges)\n", path, (long long)n, (long long)coo->nnz);
    if (given)
        printf("source: %lld (out-degree %lld)\n", (long long)source, (long long)source_degree);
    else
        printf("source: %lld (the vertex of highest out-degree, %lld; --source S to choose)\n",
               (long long)source, (long long)source_degree);
    printf("levels: %lld\nreached: %lld of %lld\n", (long long)stats.levels,
           (long long)stats.vertices_visited, (long long)n);
    for (int64_t l = 0; l < stats.levels; l++)
        printf("level %lld: %lld\n", (long long)l, (long long)opts.frontier_sizes[l]);
    if (stats.vertices_visited * 100 < n)
        printf("hint: fewer than 1%% of the vertices were reached from %lld (out-degree %lld):"
               " %s\n", (long long)source, (long long)source_degree,
               eopt.undirected ? "the graph is not connected there: try another --source"
                               : "edges are followed one way: try --undirected, or another "
                                 "--source");
    if (target >= n) printf("path: --target %lld is not a vertex (0..%lld)\n",
                            (long long)target, (long long)n - 1);
    if (target >= 0 && target < n) {
        if (level[target] < 0) {
            printf("path: %lld is not reachable\n", (long long)target);
        } else {
            int64_t len = 0;
            for (int32_t v = (int32_t)target; v != source; v = parent[v]) path_v[len++] = v;
            path_v[len++] = (int32_t)source;
            printf("path:");
            for (int64_t k = len - 1; k >= 0; k--) printf(" %d", path_v[k]);
            printf(" (%lld hops)\n", (long long)(len - 1));
        }
    }
    rc = 0;
done:
    sp_vector_destroy(pv);
    sp_vector_destroy(lv);
    free(opts.frontier_sizes);
    free(path_v);
    free(parent);
    free(level);
    sp_matrix_destroy(G);
    sp_context_destroy(ctx);
    sp_coo_free(coo);
    return rc;
}
