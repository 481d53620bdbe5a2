/* 2D n x n grid graph: each vertex linked to its 4 axis neighbours, both directions
 * stored, no self loops; every edge weighs 1. */
#include "gen_stencil.h"

sp_status_t sp_gen_grid2d(int64_t n, sp_value_type_t value_type, sp_coo_t **coo)
{
    const sp__stencil_t four_neighbours = {2, 0, 0, 0.0, 1.0};
    return sp__gen_stencil("sp_gen_grid2d", n, &four_neighbours, value_type, coo);
}
