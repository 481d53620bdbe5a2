/* The bundled graphs as the BFS benchmarks read them (spbench --bfs-suite,
 * bfs_loops_bench --input PATH). */
#ifndef SPBENCH_GRAPH_H
#define SPBENCH_GRAPH_H

#include "sp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* path: a Matrix Market file (a name ending in .mtx: its pattern, complex entries by their
 * real part) or an edge list; *coo: the graph undirected, without self-loops or duplicate
 * edges. A matrix that is not square gives SUCCESS and *coo NULL (no graph); a failure
 * gives the loader's status and message (sp_last_error). */
sp_status_t sb_load_bfs_graph(const char *path, sp_coo_t **coo);

#ifdef __cplusplus
}
#endif

#endif /* SPBENCH_GRAPH_H */
