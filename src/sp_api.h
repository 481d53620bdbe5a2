/* Internal state behind the public handles (contexts, matrices) of the API layer. */
#ifndef SP_API_H
#define SP_API_H

#include "sp.h"
#include "sp_base.h"
#include "sp_ref.h"

enum { SP_CONTEXT_MESSAGE_MAX = 1024 };

struct sp_context {
    sp_device_kind_t kind;
    sp_device_info_t info;
    void *cuda; /* the CUDA executor's state (src/context_cuda.c), NULL on the host */
    char last_error[SP_CONTEXT_MESSAGE_MAX];
};

/* A matrix and its cache of built formats; on a host context the arrays are host memory. */
struct sp_matrix {
    sp_context_t *ctx; /* borrowed: the context it was created on */
    sp_matrix_options_t options;
    sp_triplets_t coo; /* sorted by (row, col), merged */
    sp_csr_t csr, csc;
    sp_ell_t ell;
    sp_hyb_t hyb;
    sp_jds_t jds;
    sp_sell_t sell;
    unsigned built; /* bit f set when format f is built */
    int64_t duplicates_merged;
    int64_t row_min, row_max, empty_rows;
    double row_mean, row_stddev;
};

/* Record the thread's last error on the context too when status is a failure; returns
 * status. Every public function taking a context ends with it. */
sp_status_t sp__context_record(sp_context_t *ctx, sp_status_t status);

/* CUDA executor (src/context_cuda.c when built with CUDA, else NOT_COMPILED stubs). */
sp_status_t sp__cuda_context_init(sp_context_t *ctx, const sp_context_options_t *options);
void sp__cuda_context_fini(sp_context_t *ctx);
sp_status_t sp__cuda_synchronize(sp_context_t *ctx);

#endif /* SP_API_H */
