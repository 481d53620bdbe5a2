/* Test helper over the CPU reference: the reference takes the core's triplets
 * (sp_triplets_t), the tests build host COOs (sp_coo_t); this gives the reference a view. */
#ifndef SP_TESTUTIL_REF_H
#define SP_TESTUTIL_REF_H

#include "sp.h"
#include "sp_formats.h"
#include "sp_ref.h"

/* CSR of a sorted, merged host COO through the reference (sp__ref_coo_to_csr). */
static inline sp_status_t sp_test_coo_to_csr(const sp_coo_t *coo, sp_csr_t *csr)
{
    sp_triplets_t t = sp__coo_triplets(coo);
    return sp__ref_coo_to_csr(&t, csr);
}

#endif /* SP_TESTUTIL_REF_H */
