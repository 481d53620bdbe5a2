/* Poisson matrices (discrete negative Laplacian, Dirichlet boundary) on n x n (x n)
 * grids: 2D 5-point, 3D 7-point and 3D 27-point stencils. */
#include "gen_stencil.h"

sp_status_t sp_gen_poisson2d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo)
{
    const sp__stencil_t five_point = {2, 0, 1, 4.0, -1.0};
    return sp__gen_stencil("sp_gen_poisson2d", n, &five_point, value_type, coo);
}

sp_status_t sp_gen_poisson3d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo)
{
    const sp__stencil_t seven_point = {3, 0, 1, 6.0, -1.0};
    return sp__gen_stencil("sp_gen_poisson3d", n, &seven_point, value_type, coo);
}

sp_status_t sp_gen_poisson3d27(int64_t n, sp_value_type_t value_type, sp_coo_t **coo)
{
    const sp__stencil_t box = {3, 1, 1, 26.0, -1.0};
    return sp__gen_stencil("sp_gen_poisson3d27", n, &box, value_type, coo);
}
