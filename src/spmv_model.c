/* The inputs of the SpMV cost model (src/policy.c) that the matrix keeps: how local the
 * gathers of x are, and the statistics as the model takes them. */
#include "policy.h"

double sp__coo_col_near(const sp_coo_t *coo)
{
    int64_t n = coo->nnz, step = n > ((int64_t)1 << 20) ? n >> 20 : 1, taken = 0, near = 0;
    double scale = coo->nrows > 0 ? (double)coo->ncols / (double)coo->nrows : 1.0;
    double window = coo->ncols / 64 > 4096 ? (double)(coo->ncols / 64) : 4096.0;
    if (n == 0) return 1.0;
    for (int64_t k = 0; k < n; k += step, taken++) {
        double d = (double)coo->col[k] - (double)coo->row[k] * scale;
        if (d <= window && d >= -window) near++;
    }
    return (double)near / (double)taken;
}

void sp__spmv_stats_of(const sp_context_t *ctx, const sp_matrix_t *A, sp__spmv_stats_t *s)
{
    *s = (sp__spmv_stats_t){0};
    s->nrows = A->f.coo.nrows;
    s->ncols = A->f.coo.ncols;
    s->nnz = A->f.coo.nnz;
    s->row_max = A->row_max;
    s->row_mean = A->row_mean;
    s->row_stddev = A->row_stddev;
    s->col_near = A->col_near;
    s->hist = A->row_hist;
    s->hist_nnz = A->row_hist_nnz;
    s->value_bytes = (int)sp_value_size(A->f.coo.value_type);
    s->sm_count = ctx != NULL && ctx->kind == SP_DEVICE_CUDA ? ctx->info.sm_count : 0;
    s->long_row_bound = sp__matrix_long_row_bound(A, SP_FORMAT_SELL);
    s->row_max_kept = A->row_max_kept;
    s->ell_long_row_bound = sp__matrix_long_row_bound(A, SP_FORMAT_ELL);
    s->ell_row_max_kept = A->ell_row_max_kept;
    s->offset_bits = A->offset_bits;
    s->wide = A->offset_bits == 64 && !sp__matrix_narrows(A);
    s->ell_wide = s->wide && A->row_max <= s->ell_long_row_bound;
}
