/* The bundled graphs as the BFS benchmarks read them (spbench_graph.h). */
#include <string.h>

#include "spbench_graph.h"

sp_status_t sb_load_bfs_graph(const char *path, sp_coo_t **coo)
{
    size_t len = strlen(path);
    sp_status_t st;
    *coo = NULL;
    if (len > 4 && strcmp(path + len - 4, ".mtx") == 0) {
        sp_mtx_options_t mo = {0};
        mo.complex_mode = SP_COMPLEX_REAL_PART; /* the pattern is what BFS reads */
        st = sp_mtx_read(path, SP_VALUE_NONE, &mo, coo);
        if (st == SP_STATUS_SUCCESS && (*coo)->nrows != (*coo)->ncols) {
            sp_coo_free(*coo);
            *coo = NULL;
            return SP_STATUS_SUCCESS;
        }
        return st == SP_STATUS_SUCCESS ? sp_coo_symmetrize(*coo, 1) : st;
    }
    sp_edgelist_options_t o = {0};
    o.undirected = 1, o.drop_self_loops = 1, o.merge_duplicates = 1;
    return sp_edgelist_read(path, SP_VALUE_NONE, &o, coo, NULL);
}
