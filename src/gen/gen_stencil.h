/* Internal to the generators: matrices of a 3x3(x3) stencil on an n x n (x n) grid. */
#ifndef GEN_STENCIL_H
#define GEN_STENCIL_H

#include <stdint.h>

#include "sp.h"

/* Which neighbours a grid point couples to, and the coefficients. */
typedef struct sp__stencil {
    int ndims;     /* 2 or 3 */
    int box;       /* 1: all 3^ndims - 1 neighbours; 0: the 2 * ndims axis neighbours */
    int with_diag; /* store the diagonal entry */
    double diag;   /* value of the diagonal entry */
    double off;    /* value of every off-diagonal entry */
} sp__stencil_t;

/* The nrows x nrows matrix (nrows = n^ndims) of the stencil on the grid with Dirichlet
 * boundary (neighbours outside the grid dropped), vertex x + n*y + n*n*z, sorted by
 * (row, col) and merged; symmetry GENERAL (both triangles stored). Refuses n < 1
 * (INVALID_ARGUMENT) and rows beyond 32-bit indices (NOT_SUPPORTED); entries past 2^31
 * as memory allows (ALLOC_FAILED with the bytes); messages start with fn. */
sp_status_t sp__gen_stencil(const char *fn, int64_t n, const sp__stencil_t *stencil,
                            sp_value_type_t value_type, sp_coo_t **coo);

#endif /* GEN_STENCIL_H */
