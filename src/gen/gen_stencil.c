/* Stencil matrices on regular grids: exact count of the entries from the offsets, then
 * one pass over the grid points writing each row's entries in column order. */
#include "gen_stencil.h"

#include <stdlib.h>

#include "sp_base.h"

typedef struct offset {
    int d[3]; /* dx, dy, dz */
} offset_t;

/* The stencil's offsets in (dz, dy, dx) order, which is column order within a row since
 * the vertex number is x + n*y + n*n*z. Returns their count (at most 27). */
static int stencil_offsets(const sp__stencil_t *s, offset_t *out)
{
    int count = 0, zr = s->ndims == 3 ? 1 : 0;
    for (int dz = -zr; dz <= zr; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int dist = abs(dx) + abs(dy) + abs(dz);
                if (dist == 0 ? !s->with_diag : (!s->box && dist > 1)) continue;
                out[count++] = (offset_t){{dx, dy, dz}};
            }
    return count;
}

/* Entries the stencil has on the grid: each offset couples the points whose shifted
 * position stays inside, (n - |dx|)(n - |dy|)(n - |dz|) of them (dims beyond ndims: 1). */
static int64_t stencil_nnz(const offset_t *offs, int noffs, int ndims, int64_t n)
{
    int64_t nnz = 0;
    for (int k = 0; k < noffs; k++) {
        int64_t points = 1;
        for (int i = 0; i < ndims; i++) points *= n - abs(offs[k].d[i]);
        nnz += points;
    }
    return nnz;
}

static void store_value(sp_value_type_t type, void *val, int64_t k, double v)
{
    if (type == SP_R_64F) ((double *)val)[k] = v;
    if (type == SP_R_32F) ((float *)val)[k] = (float)v;
}

sp_status_t sp__gen_stencil(const char *fn, int64_t n, const sp__stencil_t *stencil,
                            sp_value_type_t value_type, sp_coo_t **coo)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_coo_t *a = NULL;
    offset_t offs[27];
    SP_CHECK_ARG(coo != NULL, "%s: coo is NULL", fn);
    SP_CHECK_ARG(n >= 1, "%s: grid size n = %lld is below 1", fn, (long long)n);
    SP_CHECK_ARG(value_type == SP_VALUE_NONE || value_type == SP_R_32F ||
                     value_type == SP_R_64F,
                 "%s: unknown value type %d", fn, (int)value_type);
    int ndims = stencil->ndims;
    int64_t nrows = 1;
    for (int i = 0; i < ndims; i++) {
        if (n > INT32_MAX / nrows)
            SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                    "%s: n = %lld gives more than %d rows (n^%d), beyond 32-bit indices", fn,
                    (long long)n, INT32_MAX, ndims);
        nrows *= n;
    }
    int noffs = stencil_offsets(stencil, offs);
    int64_t nnz = stencil_nnz(offs, noffs, ndims, n);
    /* the entries (at most 27 x 2^31) as memory allows: sp_coo_create names the bytes */
    SP_TRY(sp_coo_create(nrows, nrows, nnz, value_type, &a));
    int64_t nz = ndims == 3 ? n : 1, k = 0;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < n; y++)
            for (int64_t x = 0; x < n; x++) {
                int64_t row = x + n * (y + n * z);
                for (int j = 0; j < noffs; j++) {
                    const int *d = offs[j].d;
                    int64_t xx = x + d[0], yy = y + d[1], zz = z + d[2];
                    if (xx < 0 || xx >= n || yy < 0 || yy >= n || zz < 0 || zz >= nz)
                        continue;
                    a->row[k] = (int32_t)row;
                    a->col[k] = (int32_t)(xx + n * (yy + n * zz));
                    store_value(value_type, a->val, k,
                                d[0] == 0 && d[1] == 0 && d[2] == 0 ? stencil->diag
                                                                    : stencil->off);
                    k++;
                }
            }
    if (k != nnz)
        SP_FAIL(SP_STATUS_INTERNAL_ERROR, "%s: wrote %lld entries, counted %lld", fn,
                (long long)k, (long long)nnz);
    a->nnz = nnz;
    a->symmetry = SP_SYMMETRY_GENERAL;
    a->flags = SP_COO_SORTED | SP_COO_MERGED | SP_COO_SYMMETRIC_PATTERN; /* offsets +- alike */
    *coo = a;
    a = NULL;
done:
    sp_coo_free(a);
    return st;
}
