/*
 * The classic NIST Matrix Market I/O interface (mmio.h), implemented on libsp's parsers,
 * so that a program written for the NIST reader builds against libsp unchanged and gets
 * libsp's checking. Same names, signatures, macros and return codes as NIST's mmio.h.
 *
 * Where this implementation differs from NIST's mmio.c (all deliberate):
 *  - Lines of any length are read; MM_LINE_TOO_LONG is defined but never returned.
 *  - Nothing loops on bad input: a malformed size line is MM_NOT_MTX (NIST's reader
 *    spins forever on it); malformed entries (text that is not a number, extra fields,
 *    indices outside 1..M / 1..N, numbers that do not fit an int) are MM_NOT_MTX; a file
 *    that ends before an entry or an entry missing fields is MM_PREMATURE_EOF.
 *  - Blank lines and '%' comment lines are skipped between entries too.
 *  - The "integer" field is read like "real" (values into val[]); NIST leaves it unread.
 *  - mm_read_mtx_crd closes the file it opened, sets *val = NULL for pattern matrices,
 *    and leaves its outputs (but *matcode) untouched when it fails.
 *  - On any failure the detail ("file.mtx:17: column index 9 outside 1..8") is in
 *    sp_last_error() from sp.h.
 *
 * As in NIST: indices returned by mm_read_mtx_crd and mm_read_mtx_crd_data are as in the
 * file, 1-based; symmetric files are returned as stored (one triangle, not expanded);
 * complex values are interleaved (val[2k] real, val[2k+1] imaginary). The arrays that
 * mm_read_mtx_crd and mm_read_unsymmetric_sparse return, and the strings of
 * mm_typecode_to_str and mm_strdup, come from plain malloc: release them with free()
 * (not sp_free), as NIST programs do. mm_read_unsymmetric_sparse returns 0-based
 * indices and -1 on any failure, as NIST's does.
 */
#ifndef SP_MMIO_H
#define SP_MMIO_H

#include <stdio.h>

/* SP_API marks the public functions: the shared library exports them and nothing else
 * (the library is compiled with hidden visibility; internal sp__ functions stay inside). */
#ifndef SP_API
#if defined(__GNUC__) || defined(__clang__)
#define SP_API __attribute__((visibility("default")))
#else
#define SP_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MM_MAX_LINE_LENGTH 1025
#define MatrixMarketBanner "%%MatrixMarket"
#define MM_MAX_TOKEN_LENGTH 64

/* [0] 'M' matrix; [1] 'C' coordinate or 'A' array; [2] 'R' real, 'C' complex,
 * 'P' pattern or 'I' integer; [3] 'G' general, 'S' symmetric, 'H' hermitian, 'K' skew. */
typedef char MM_typecode[4];

SP_API char *mm_typecode_to_str(MM_typecode matcode);

SP_API int mm_read_banner(FILE *f, MM_typecode *matcode);
SP_API int mm_read_mtx_crd_size(FILE *f, int *M, int *N, int *nz);
SP_API int mm_read_mtx_array_size(FILE *f, int *M, int *N);

SP_API int mm_write_banner(FILE *f, MM_typecode matcode);
SP_API int mm_write_mtx_crd_size(FILE *f, int M, int N, int nz);
SP_API int mm_write_mtx_array_size(FILE *f, int M, int N);

/* ---- typecode queries ---- */
#define mm_is_matrix(typecode) ((typecode)[0] == 'M')

#define mm_is_sparse(typecode) ((typecode)[1] == 'C')
#define mm_is_coordinate(typecode) ((typecode)[1] == 'C')
#define mm_is_dense(typecode) ((typecode)[1] == 'A')
#define mm_is_array(typecode) ((typecode)[1] == 'A')

#define mm_is_complex(typecode) ((typecode)[2] == 'C')
#define mm_is_real(typecode) ((typecode)[2] == 'R')
#define mm_is_pattern(typecode) ((typecode)[2] == 'P')
#define mm_is_integer(typecode) ((typecode)[2] == 'I')

#define mm_is_symmetric(typecode) ((typecode)[3] == 'S')
#define mm_is_general(typecode) ((typecode)[3] == 'G')
#define mm_is_skew(typecode) ((typecode)[3] == 'K')
#define mm_is_hermitian(typecode) ((typecode)[3] == 'H')

/* 1 if the combination is meaningful (no dense pattern, real hermitian, ...). */
SP_API int mm_is_valid(MM_typecode matcode);

/* ---- typecode modifiers (take a pointer to the typecode) ---- */
#define mm_set_matrix(typecode) ((*typecode)[0] = 'M')
#define mm_set_coordinate(typecode) ((*typecode)[1] = 'C')
#define mm_set_array(typecode) ((*typecode)[1] = 'A')
#define mm_set_dense(typecode) mm_set_array(typecode)
#define mm_set_sparse(typecode) mm_set_coordinate(typecode)

#define mm_set_complex(typecode) ((*typecode)[2] = 'C')
#define mm_set_real(typecode) ((*typecode)[2] = 'R')
#define mm_set_pattern(typecode) ((*typecode)[2] = 'P')
#define mm_set_integer(typecode) ((*typecode)[2] = 'I')

#define mm_set_symmetric(typecode) ((*typecode)[3] = 'S')
#define mm_set_general(typecode) ((*typecode)[3] = 'G')
#define mm_set_skew(typecode) ((*typecode)[3] = 'K')
#define mm_set_hermitian(typecode) ((*typecode)[3] = 'H')

#define mm_clear_typecode(typecode) \
    ((*typecode)[0] = (*typecode)[1] = (*typecode)[2] = ' ', (*typecode)[3] = 'G')
#define mm_initialize_typecode(typecode) mm_clear_typecode(typecode)

/* ---- return codes ---- */
#define MM_COULD_NOT_READ_FILE 11
#define MM_PREMATURE_EOF 12
#define MM_NOT_MTX 13
#define MM_NO_HEADER 14
#define MM_UNSUPPORTED_TYPE 15
#define MM_LINE_TOO_LONG 16
#define MM_COULD_NOT_WRITE_FILE 17

/* ---- banner words ---- */
#define MM_MTX_STR "matrix"
#define MM_ARRAY_STR "array"
#define MM_DENSE_STR "array"
#define MM_COORDINATE_STR "coordinate"
#define MM_SPARSE_STR "coordinate"
#define MM_COMPLEX_STR "complex"
#define MM_REAL_STR "real"
#define MM_INT_STR "integer"
#define MM_GENERAL_STR "general"
#define MM_SYMM_STR "symmetric"
#define MM_HERM_STR "hermitian"
#define MM_SKEW_STR "skew-symmetric"
#define MM_PATTERN_STR "pattern"

/* ---- high-level routines ---- */
SP_API int mm_write_mtx_crd(char fname[], int M, int N, int nz, int I[], int J[], double val[],
                            MM_typecode matcode);
SP_API int mm_read_mtx_crd_data(FILE *f, int M, int N, int nz, int I[], int J[], double val[],
                                MM_typecode matcode);
SP_API int mm_read_mtx_crd_entry(FILE *f, int *I, int *J, double *real, double *img,
                                 MM_typecode matcode);
SP_API int mm_read_unsymmetric_sparse(const char *fname, int *M_, int *N_, int *nz_, double **val_,
                                      int **I_, int **J_);
/* fname "stdin" reads standard input (then without libsp's parallel reader). */
SP_API int mm_read_mtx_crd(char *fname, int *M, int *N, int *nz, int **I, int **J, double **val,
                           MM_typecode *matcode);
SP_API char *mm_strdup(const char *s);

#ifdef __cplusplus
}
#endif

#endif /* SP_MMIO_H */
