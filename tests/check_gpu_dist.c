/* The distributed suite of check_dist.c on NCCL: one rank per visible GPU (1, then all of
 * them), CUDA contexts, the single CUDA context's SpMV and CG as reference (BFS levels
 * against the host reference, which they equal exactly), and the NCCL communicator's
 * collectives and abort on device buffers. Skipped (77) without a GPU or without NCCL. */
#ifdef SP_HAVE_CUDA
#define SP_DIST_TEST_GPU 1
#include "check_dist.c"
#else
int main(void);
int main(void)
{
    return 77; /* built without CUDA */
}
#endif
