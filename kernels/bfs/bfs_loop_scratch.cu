/* The scratch of the GPU BFS level loops (single block, persistent), made once and reused
 * by any number of traversals: one device block for the traversal's queues, visited bits,
 * level sizes and counters (layout in bfs_loop_common.cuh) and a host buffer for the sizes a
 * caller asks for. */
#include "bfs/bfs_loop_common.cuh"

extern "C" sp_status_t sp__gpu_bfs_loop_scratch_alloc(const sp_gpu_env_t *env, int64_t n,
                                                      int64_t frontier_capacity,
                                                      sp_gpu_bfs_loop_scratch_t *scratch)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(env != NULL && scratch != NULL,
                 "sp__gpu_bfs_loop_scratch_alloc: NULL argument");
    SP_CHECK_ARG(n >= 1 && frontier_capacity >= 0,
                 "sp__gpu_bfs_loop_scratch_alloc: %lld vertices, frontier_capacity %lld",
                 (long long)n, (long long)frontier_capacity);
    SP_TRY(bfsk::loop_scratch_alloc(env, n, frontier_capacity, scratch));
done:
    return st;
}

extern "C" void sp__gpu_bfs_loop_scratch_free(const sp_gpu_env_t *env,
                                              sp_gpu_bfs_loop_scratch_t *scratch)
{
    if (env != NULL && scratch != NULL) bfsk::loop_scratch_free(env, scratch);
}
