/* The neutral data model every layer shares (core): the internal format structs, the
 * triplet type, the solver coefficient and the value helpers. The CPU reference (src/ref/)
 * and the kernels (kernels/) both take these structs; in the kernels their pointers hold
 * device memory. Nothing here belongs to one backend.
 *
 * Conventions: all arrays owned by the struct; empty arrays are NULL. Values are float or
 * double per value_type, or NULL for SP_VALUE_NONE (patterns). Padding slots hold column
 * -1 and value 0. Indices are 32-bit; offsets (CSR/CSC's row (column) pointers, JDS's
 * diagonal pointers, SELL's slice offsets) are 32-bit or, converted from a CSR with 64-bit
 * pointers, 64-bit: one array of either width, per matrix (issue 20). */
#ifndef SP_FORMATS_H
#define SP_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#include "sp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compressed rows (CSR) or, for CSC, compressed columns: the pointers have n+1 entries
 * where n is nrows (CSR) or ncols (CSC); idx holds the column (CSR) or row (CSC) of each
 * entry, increasing within each row (column). The pointers are 32-bit (ptr) or, for a
 * matrix with 64-bit offsets, 64-bit (ptr64): exactly one of the two is set (both NULL only
 * in a zeroed struct). Code that serves both widths reads them through sp__csr_at. */
typedef struct sp_csr {
    int64_t nrows, ncols, nnz;
    sp_value_type_t value_type;
    int32_t *ptr;
    int32_t *idx;
    void *val;
    int64_t *ptr64;
} sp_csr_t;

/* Pointer i of a (0 <= i <= n), whichever width a holds. */
static inline int64_t sp__csr_at(const sp_csr_t *a, int64_t i)
{
    return a->ptr64 ? a->ptr64[i] : (int64_t)a->ptr[i];
}

/* Pointer i of a = v (v fits a's width: the caller chose it from nnz). */
static inline void sp__csr_set(sp_csr_t *a, int64_t i, int64_t v)
{
    if (a->ptr64)
        a->ptr64[i] = v;
    else
        a->ptr[i] = (int32_t)v;
}

/* 64 when a holds 64-bit pointers, else 32. */
static inline int sp__csr_offset_bits(const sp_csr_t *a) { return a->ptr64 ? 64 : 32; }

/* Host triplets without the loader's bookkeeping (used for HYB's overflow, the
 * long-row tails of ELL, JDS and SELL, and device COO). */
typedef struct sp_triplets {
    int64_t nrows, ncols, nnz;
    sp_value_type_t value_type;
    int32_t *row, *col;
    void *val;
    int64_t row_max; /* the longest row's entries where the build knows it (the long-row
                        tails, HYB's overflow; 0: not known): picks the tail's kernel */
} sp_triplets_t;

/* The long-row tail of ELL, JDS and SELL: rows longer than the build's bound (policy:
 * sp__policy_long_row_bound) are kept whole, row-sorted, in `tail` and are empty rows of the
 * padded part, so no slice or diagonal is padded to them and no thread walks them alone; the
 * SpMV adds tail * x on top, balanced over entries (as HYB's overflow). tail.nnz == 0 (all
 * arrays NULL) when no row is that long. The padded part's nnz excludes the tail's. */

/* ELL, column-major: slot k of row r is at [k * nrows + r], k < width (longest row; in
 * HYB the chosen ELL width). nnz counts the entries stored, padding excluded.
 *
 * Value table (CSR-VI, Kourtis, Goumas & Koziris 2008): when the CSR the ELL was built from
 * has at most SP_ELL_TABLE_MAX distinct values by bit pattern (-0.0 and 0.0, NaN payloads
 * all distinct), `table` holds them (ntable of them, ascending by bit pattern read as an
 * unsigned integer, so host and GPU builds agree) and `code` one byte a slot, laid out as
 * col, with val[s] == table[code[s]] bit for bit at every stored slot (padding: code 0).
 * val stays (readers of the view and HYB's overflow use it); the SpMV reads codes instead
 * when ntable > 0. No table (ntable 0, both NULL) for patterns, matrices without stored
 * slots, more distinct values, or while sp__ell_value_table_set(0). The count covers all
 * the CSR's values (in HYB's ELL part the overflow's as well). */
enum { SP_ELL_TABLE_MAX = 256 };

typedef struct sp_ell {
    int64_t nrows, ncols, nnz, width;
    sp_value_type_t value_type;
    int32_t *col;
    void *val;
    sp_triplets_t tail; /* long rows (always empty in HYB's ELL part) */
    uint8_t *code;      /* value table: a code a slot (NULL without a table) */
    void *table;        /* ntable values of value_type (NULL without a table) */
    int32_t ntable;     /* 1..SP_ELL_TABLE_MAX, 0: no table */
} sp_ell_t;

/* Whether ELL builds (host and GPU, and so HYB's ELL part) make the value table: on by
 * default; a process-wide switch for benchmarks and tests (spbench --no-value-table).
 * Matrices built while it was on keep their table. */
void sp__ell_value_table_set(int on);
int sp__ell_value_table_on(void);

/* HYB: the first `ell.width` entries of each row in ELL, the rest in COO (row-sorted). */
typedef struct sp_hyb {
    sp_ell_t ell;
    sp_triplets_t coo;
} sp_hyb_t;

/* JDS: rows stably sorted by length, descending; perm[i] = original row of sorted row i;
 * jagged diagonal d holds entry d of sorted rows 0..(count-1) at jd_ptr[d] + i.
 * njd = longest row; jd_ptr has njd + 1 entries. The diagonal pointers are 32-bit (jd_ptr)
 * or, converted from a CSR with 64-bit pointers, 64-bit (jd_ptr64): exactly one is set
 * (both NULL only in a zeroed struct); read them through sp__jds_at. */
typedef struct sp_jds {
    int64_t nrows, ncols, nnz, njd;
    sp_value_type_t value_type;
    int32_t *perm;
    int32_t *jd_ptr;
    int32_t *col;
    void *val;
    sp_triplets_t tail; /* long rows */
    int64_t *jd_ptr64;
} sp_jds_t;

/* Diagonal pointer d of a (0 <= d <= njd), whichever width a holds. */
static inline int64_t sp__jds_at(const sp_jds_t *a, int64_t d)
{
    return a->jd_ptr64 ? a->jd_ptr64[d] : (int64_t)a->jd_ptr[d];
}

/* SELL-C-sigma: rows sorted by length (descending, stable) within windows of sigma rows;
 * perm[i] = original row at sorted position i; slice s covers sorted rows
 * [s*C, s*C + C) (past nrows: padding rows), stored column-major from slice_ptr[s]:
 * slot k of the slice's row r is at slice_ptr[s] + k * C + r, k < slice_width[s].
 * nslices = ceil(nrows / C); slice_ptr has nslices + 1 entries; padded = slice_ptr[nslices].
 * The slice offsets are 32-bit (slice_ptr) or, converted from a CSR with 64-bit pointers,
 * 64-bit (slice_ptr64): exactly one is set (both NULL only in a zeroed struct); read them
 * through sp__sell_at. */
typedef struct sp_sell {
    int64_t nrows, ncols, nnz, nslices, padded;
    int c, sigma;
    sp_value_type_t value_type;
    int32_t *perm;
    int32_t *slice_ptr;
    int32_t *slice_width;
    int32_t *col;
    void *val;
    sp_triplets_t tail; /* long rows */
    int64_t *slice_ptr64;
} sp_sell_t;

/* Slice offset s of a (0 <= s <= nslices), whichever width a holds. */
static inline int64_t sp__sell_at(const sp_sell_t *a, int64_t s)
{
    return a->slice_ptr64 ? a->slice_ptr64[s] : (int64_t)a->slice_ptr[s];
}

/* Release of host formats (src/core/formats.c): free every array through sp__free, zero
 * the struct (a zeroed struct or NULL is accepted). Device formats: sp__gpu_*_free. */
void sp__csr_free(sp_csr_t *a);
void sp__ell_free(sp_ell_t *a);
void sp__triplets_free(sp_triplets_t *a);
void sp__hyb_free(sp_hyb_t *a);
void sp__jds_free(sp_jds_t *a);
void sp__sell_free(sp_sell_t *a);

/* The triplets of a host COO, as a view (no copy: the arrays stay the COO's). */
static inline sp_triplets_t sp__coo_triplets(const sp_coo_t *coo)
{
    sp_triplets_t t = {coo->nrows, coo->ncols, coo->nnz, coo->value_type,
                       coo->row, coo->col, coo->val, 0};
    return t;
}

/* A solver coefficient known on the host (value) or produced on the executor by an
 * earlier step (num, den: one double each, in the context's memory, read when the step
 * runs): value * num[0] / den[0], a missing num or den counting as 1, and 0 when
 * den[0] == 0 so that a breakdown leaves the vectors finite for the solver to report it. */
typedef struct sp_vec_coef {
    double value;
    const double *num;
    const double *den;
} sp_vec_coef_t;

/* The coefficient's value (host memory only). */
static inline double sp__vec_coef_value(sp_vec_coef_t c)
{
    double v = c.value;
    if (c.num) v *= c.num[0];
    if (c.den) v = c.den[0] != 0.0 ? v / c.den[0] : 0.0;
    return v;
}

#ifdef __cplusplus
}
#endif

#endif /* SP_FORMATS_H */
