/* Host twins of the fused Krylov steps (kernels/solve/cg_fused.cu): the same arithmetic on
 * the block of src/core/sp_cg_fused.h, sequentially in index order. */
#ifndef SP_CG_FUSED_REF_H
#define SP_CG_FUSED_REF_H

#include "sp_cg_fused.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Step `step` (0 .. sp__cg_steps - 1, the last the update step with the verdict) of the
 * block's method; nothing when the state's verdict is already set. */
void sp__ref_cg_step(sp_cg_block_t *b, int step);

#ifdef __cplusplus
}
#endif

#endif /* SP_CG_FUSED_REF_H */
