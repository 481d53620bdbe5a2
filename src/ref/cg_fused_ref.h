/* Host twins of the fused CG steps (kernels/solve/cg_fused.cu): the same arithmetic on the
 * block of src/core/sp_cg_fused.h, sequentially in index order. */
#ifndef SP_CG_FUSED_REF_H
#define SP_CG_FUSED_REF_H

#include "sp_cg_fused.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The spmv step of the block's method (classic or pipelined); nothing when the state's
 * verdict is already set. */
void sp__ref_cg_spmv_step(sp_cg_block_t *b);
/* The update step, its reductions and the verdict (sp__cg_close). */
void sp__ref_cg_update_step(sp_cg_block_t *b);

#ifdef __cplusplus
}
#endif

#endif /* SP_CG_FUSED_REF_H */
