/* The names of the BFS variants and level loops (what AUTO runs is decided in
 * src/policy.c). */
#include "sp_api.h"

static const char *const g_variants[] = {"auto",     "push",       "pull",         "edge",
                                         "frontier", "privatized", "direction_opt"};
static const char *const g_loops[] = {"auto", "host", "single_block", "persistent", "graph"};

const char *sp_bfs_variant_name(sp_bfs_variant_t variant)
{
    if ((int)variant < 0 || (int)variant > SP_BFS_DIRECTION_OPT) return NULL;
    return g_variants[variant];
}

const char *sp_bfs_loop_name(sp_bfs_loop_t loop)
{
    if ((int)loop < 0 || (int)loop > SP_BFS_LOOP_GRAPH) return NULL;
    return g_loops[loop];
}
