/* Soft-synchronized persistent BFS kernel (placeholder until the kernel lands: refuses
 * with SP_STATUS_NOT_SUPPORTED). */
#include "sp_base.h"
#include "sp_kernels_bfs.h"

extern "C" sp_status_t sp__gpu_bfs_persistent(const sp_gpu_env_t *, const sp_csr_t *, int32_t,
                                              sp_gpu_bfs_sync_t, int32_t *, int32_t *,
                                              int64_t *, int64_t, sp_gpu_bfs_result_t *)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_FAIL(SP_STATUS_NOT_SUPPORTED, "sp__gpu_bfs_persistent: not in this build");
done:
    return st;
}
