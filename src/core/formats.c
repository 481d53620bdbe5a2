/* The core's value helper and the release of host format structs (sp_formats.h). */
#include <stdatomic.h>
#include <string.h>

#include "sp_base.h"
#include "sp_formats.h"

static atomic_int ell_value_table = 1;

void sp__ell_value_table_set(int on) { atomic_store(&ell_value_table, on ? 1 : 0); }

int sp__ell_value_table_on(void) { return atomic_load(&ell_value_table); }

size_t sp_value_size(sp_value_type_t type)
{
    return type == SP_R_32F ? sizeof(float) : type == SP_R_64F ? sizeof(double) : 0;
}

void sp__csr_free(sp_csr_t *a)
{
    if (!a) return;
    sp__free(a->val);
    sp__free(a->idx);
    sp__free(a->ptr);
    sp__free(a->ptr64);
    memset(a, 0, sizeof *a);
}

void sp__ell_free(sp_ell_t *a)
{
    if (!a) return;
    sp__triplets_free(&a->tail);
    sp__free(a->table);
    sp__free(a->code);
    sp__free(a->val);
    sp__free(a->col);
    memset(a, 0, sizeof *a);
}

void sp__triplets_free(sp_triplets_t *a)
{
    if (!a) return;
    sp__free(a->val);
    sp__free(a->col);
    sp__free(a->row);
    memset(a, 0, sizeof *a);
}

void sp__hyb_free(sp_hyb_t *a)
{
    if (!a) return;
    sp__ell_free(&a->ell);
    sp__triplets_free(&a->coo);
}

void sp__jds_free(sp_jds_t *a)
{
    if (!a) return;
    sp__triplets_free(&a->tail);
    sp__free(a->val);
    sp__free(a->col);
    sp__free(a->jd_ptr);
    sp__free(a->jd_ptr64);
    sp__free(a->perm);
    memset(a, 0, sizeof *a);
}

void sp__sell_free(sp_sell_t *a)
{
    if (!a) return;
    sp__triplets_free(&a->tail);
    sp__free(a->val);
    sp__free(a->col);
    sp__free(a->slice_width);
    sp__free(a->slice_ptr);
    sp__free(a->slice_ptr64);
    sp__free(a->perm);
    memset(a, 0, sizeof *a);
}
