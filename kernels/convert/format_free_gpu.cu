/* Release of device formats: every array back to the environment that allocated it,
 * then the struct zeroed (the device twins of src/ref/format_free_ref.c). */
#include <string.h>

#include "convert_common.cuh"

using sp_convert::env_free;

extern "C" void sp__gpu_csr_free(const sp_gpu_env_t *env, sp_csr_t *a)
{
    if (!a) return;
    if (env) {
        env_free(env, a->val);
        env_free(env, a->idx);
        env_free(env, a->ptr);
        env_free(env, a->ptr64);
    }
    memset(a, 0, sizeof *a);
}

extern "C" void sp__gpu_ell_free(const sp_gpu_env_t *env, sp_ell_t *a)
{
    if (!a) return;
    if (env) {
        sp__gpu_triplets_free(env, &a->tail);
        env_free(env, a->table);
        env_free(env, a->code);
        env_free(env, a->val);
        env_free(env, a->col);
    }
    memset(a, 0, sizeof *a);
}

extern "C" void sp__gpu_triplets_free(const sp_gpu_env_t *env, sp_triplets_t *a)
{
    if (!a) return;
    if (env) {
        env_free(env, a->val);
        env_free(env, a->col);
        env_free(env, a->row);
    }
    memset(a, 0, sizeof *a);
}

extern "C" void sp__gpu_hyb_free(const sp_gpu_env_t *env, sp_hyb_t *a)
{
    if (!a) return;
    sp__gpu_ell_free(env, &a->ell);
    sp__gpu_triplets_free(env, &a->coo);
}

extern "C" void sp__gpu_jds_free(const sp_gpu_env_t *env, sp_jds_t *a)
{
    if (!a) return;
    if (env) {
        sp__gpu_triplets_free(env, &a->tail);
        env_free(env, a->val);
        env_free(env, a->col);
        env_free(env, a->jd_ptr);
        env_free(env, a->jd_ptr64);
        env_free(env, a->perm);
    }
    memset(a, 0, sizeof *a);
}

extern "C" void sp__gpu_sell_free(const sp_gpu_env_t *env, sp_sell_t *a)
{
    if (!a) return;
    if (env) {
        sp__gpu_triplets_free(env, &a->tail);
        env_free(env, a->val);
        env_free(env, a->col);
        env_free(env, a->slice_width);
        env_free(env, a->slice_ptr);
        env_free(env, a->slice_ptr64);
        env_free(env, a->perm);
    }
    memset(a, 0, sizeof *a);
}
