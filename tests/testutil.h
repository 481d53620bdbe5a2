/* Shared helpers for the Check suites. */
#ifndef SP_TESTUTIL_H
#define SP_TESTUTIL_H

#include <check.h>
#include <stdint.h>

#include "sp.h"

/* Absolute path of a file in the source tree ("tests/fixtures/x.mtx"); the returned
 * buffer is one of 8 rotating static buffers. */
const char *sp_test_path(const char *relative);

/* Run every test of the suite (or of the case CK_RUN_CASE names); returns the process
 * exit status: 0 when all passed, a failure too when CK_RUN_CASE names no case of the
 * suite (ctest runs the longest suites a case at a time: tests/CMakeLists.txt). */
int sp_test_run(Suite *suite);
/* The width offset_bits 0 gives a matrix (host or CUDA context) below 2^31 entries in this
 * run: 64 when SP_TEST_OFFSET_BITS=64 (sp_test_run and sp_test_run_gpu then set
 * sp__test_set_default_offset_bits, so the suites labelled offsets64 and offsets64gpu in
 * tests/CMakeLists.txt run with every such matrix at 64 bits), 32 when it is unset, empty
 * or 32, -1 for any other value (the run fails then). */
int sp_test_default_offset_bits(void);

/* For GPU suites: 77 (ctest's skip code) when no CUDA device is usable (built without
 * CUDA, or none present); else run every test in this process (CUDA does not survive
 * Check's fork) and return the exit status as sp_test_run does. */
int sp_test_run_gpu(Suite *suite);
/* A test case of s named `name`, with the checked fixture setup/teardown and a 600 s
 * timeout. Suites split into several cases so that ctest and a sanitizer run can take each
 * as a job of its own (CK_RUN_CASE; the split is listed once, in tests/CMakeLists.txt). */
TCase *sp_test_add_case(Suite *s, const char *name, void (*setup)(void), void (*teardown)(void));

/* 1 when SP_TEST_SMALL is set to a non-zero number (sanitizer runs), else 0. */
int sp_test_small(void);
/* 1 under scripts/device-sanitize.sh (SP_TEST_UNDER_SANITIZER): leave out CUDA API errors
 * provoked on purpose (compute-sanitizer reports them) and timing assertions. */
int sp_test_under_sanitizer(void);
/* 1 when the graph level loop (a CUDA graph with a while node) must be left out: under
 * racecheck (scripts/device-sanitize.sh sets SP_TEST_SANITIZER_TOOL), which crashes on
 * any graph with a while node, libsp or not (scripts/sanitizer-while-graph.cu reproduces
 * it; bench/results/h200-sanitize.md). Says so on stdout the first time it returns 1. */
int sp_test_skip_graph_loop(void);

/* The fixture of the public-API GPU suites: a CUDA context in *gpu and a host context in
 * *host (asserted), and their destruction (host first; both set to NULL). */
void sp_test_gpu_host_contexts(sp_context_t **gpu, sp_context_t **host);
void sp_test_gpu_host_contexts_destroy(sp_context_t **gpu, sp_context_t **host);

/* Each Matrix Market file of datasets/mtx, in directory order, read as double (complex
 * files: their real part) and handed to use(name, a, arg), which returns 1 when it used
 * the matrix (the loop frees a after). Stops once `most` were used (most < 0: never);
 * returns how many were used. */
int sp_test_each_dataset(int most, int (*use)(const char *name, sp_coo_t *a, void *arg),
                         void *arg);

/* 1 when the CSR graph g (rows sorted, sp_ref.h) has the edge u -> v: a binary search. */
struct sp_csr;
int sp_test_has_edge(const struct sp_csr *g, int32_t u, int32_t v);

/* Deterministic 64-bit generator (splitmix64) and a double in [0, 1). */
uint64_t sp_test_rand(uint64_t *state);
double sp_test_uniform(uint64_t *state);

/* Every (format, SpMV algorithm) pair the API accepts, AUTO last: the table the SpMV
 * suites (host API and GPU) walk. */
typedef struct sp_test_spmv_combo {
    sp_format_t format;
    sp_spmv_alg_t alg;
} sp_test_spmv_combo_t;
extern const sp_test_spmv_combo_t sp_test_spmv_combos[];
extern const int sp_test_spmv_ncombos;

/* Random COO features for sp_test_random_coo. */
#define SP_TEST_DUPLICATES 0x1u /* some (row, col) repeated */
#define SP_TEST_EMPTY_ROWS 0x2u /* about a third of the rows empty */
#define SP_TEST_LONG_ROW 0x4u   /* one row holding about a third of all entries */
#define SP_TEST_EMPTY_COLS 0x8u /* only even columns used */

/* A random COO in random (unsorted) order, values uniform in [-1, 1). */
sp_coo_t *sp_test_random_coo(uint64_t seed, int64_t nrows, int64_t ncols, int64_t nnz,
                             sp_value_type_t type, unsigned features);

/* Matrix i (0, 1, ...) of the 64-bit-offset suites' catalogue (check_offsets64 on the host,
 * check_gpu_offsets64 on a GPU): Poisson 3D and 2D, random with duplicates, empty rows and
 * a long row (double and float), empty rows and columns, more rows than entries,
 * rectangular both ways, 0 entries; NULL past the last. */
#define SP_TEST_OFFSETS64_MATRICES 9
sp_coo_t *sp_test_offsets64_matrix(int i);
/* A on context `on` from coo with offset_bits bits and long-row bound `bound` (0: the
 * policy's; -1: none, no tails or pieces), asserted. */
sp_matrix_t *sp_test_matrix_bound(sp_context_t *on, const sp_coo_t *coo, int bits,
                                  int64_t bound);
/* n elements of size bytes at a and b (both non-NULL when n > 0) are the same bytes, else
 * the failure "<what>: the 32- and 64-bit matrices differ". */
void sp_test_same_array(const void *a, const void *b, int64_t n, size_t size, const char *what);

/* ---- ELL value tables (check_ell_table, check_gpu_ell_table) ------------------------ */

/* An nrows x nrows matrix with row r of len(r) entries (columns r, r + 1, ... mod nrows:
 * no duplicates while len(r) <= nrows), len(r) = per_row, or long_len for every 97th row
 * when long_len > 0. Entry e of row r gets the bit pattern bits[pick(r, e)] (the low 32 bits
 * in float): pick = (r * per_row + e) % nbits when spread, else r * nbits / nrows (so a
 * block of rows sees one or two patterns and only the union of blocks sees them all). */
sp_coo_t *sp_test_patterned_coo(int64_t nrows, int64_t per_row, int64_t long_len,
                                const uint64_t *bits, int64_t nbits, int spread,
                                sp_value_type_t type);
/* The value table of an ELL view (hyb: HYB's ELL part): ntable == expect (-1: any), the
 * table strictly ascending by bit pattern, and every stored slot's value the same bits as
 * table[code]. Returns ntable. */
int sp_test_check_value_table(const sp_format_view_t *v, int hyb, int expect);
/* A of coo on ctx with format f built while the value table switch is `table` (set back
 * on after); asserted. */
sp_matrix_t *sp_test_table_matrix(sp_context_t *ctx, const sp_coo_t *coo, sp_format_t f,
                                  int table);
/* y = A x in format f (x_i = 1 + (i % 7) / 8) into host y (nrows values of coo's type). */
void sp_test_table_product(sp_context_t *ctx, sp_matrix_t *A, sp_format_t f,
                           const sp_coo_t *coo, void *y);

/* Pointer i of format f (CSR or CSC) in view v, whichever width the matrix holds
 * (row_ptr / col_ptr, or row_ptr64 / col_ptr64 at 64-bit offsets). */
int64_t sp_test_view_pointer(const sp_format_view_t *v, sp_format_t f, int64_t i);

/* Dense reference y = alpha*A*x + beta*y from a COO (duplicates add), in double. beta == 0
 * ignores y's input. */
void sp_test_dense_spmv(const sp_coo_t *a, double alpha, const double *x, double beta,
                        double *y);

/* ---- allocation-failure testing -------------------------------------------------- */

/* Install (through sp_set_host_allocator) a malloc-backed allocator that counts requests
 * and fails the k-th one onward (0-based: k = 0 fails every request; k < 0 never fails).
 * Thread-safe; the counts restart at every install. */
void sp_test_fail_allocations_after(int64_t k);
/* The same allocator failing every request of more than max_bytes (and no other): the
 * machine's memory as far as libsp can tell, for sizes past 2^31 entries in CI. */
void sp_test_fail_allocations_above(size_t max_bytes);
/* Allocation requests (alloc and realloc, failed ones included) since the install. */
int64_t sp_test_allocations(void);
/* Blocks allocated and not yet freed since the install: 0 after a call leaked nothing. */
int64_t sp_test_live_allocations(void);
/* Back to libsp's default allocator; the counts keep their values until the next install. */
void sp_test_restore_allocator(void);

/* Run op(arg) under sp_test_fail_allocations_after(k) for k = 0, 1, 2, ... until a run
 * makes no more than k requests (none failed). Each run in which a request failed must
 * return SP_STATUS_ALLOC_FAILED and leave no block live (`what` names op in the
 * messages); check(arg), if not NULL, then inspects its outputs, the default allocator
 * back. Returns the status of the last run (its counts still readable); *failing_runs
 * (if not NULL) gets the number of runs in which a request failed. */
sp_status_t sp_test_fail_each_allocation(const char *what, sp_status_t (*op)(void *arg),
                                         void (*check)(void *arg), void *arg,
                                         int64_t *failing_runs);

/* ---- temporary folders ------------------------------------------------------------ */

/* Create a fresh folder under /tmp; the returned path stays valid until the next call. */
const char *sp_test_make_temp_dir(void);
/* Delete the plain files in the folder, then the folder (asserts each step succeeds). */
void sp_test_remove_temp_dir(const char *dir);
/* One fresh folder per test, as a Check checked fixture
 * (tcase_add_checked_fixture(tc, sp_test_temp_setup, sp_test_temp_teardown)): the
 * teardown deletes its files and the folder. */
void sp_test_temp_setup(void);
void sp_test_temp_teardown(void);
/* The current test's folder, and NAME inside it (a writable buffer; the last 8 paths stay
 * valid). */
const char *sp_test_temp_dir(void);
char *sp_test_temp_path(const char *name);

/* ---- small systems for the solver suites ------------------------------------------ */

/* The non-zeros of the row-major n x n dense matrix a as a COO of type t. */
sp_coo_t *sp_test_dense_coo(int64_t n, const double *a, sp_value_type_t t);
/* 2D convection-diffusion on an n x n grid, central differences: 4 on the diagonal, -1
 * north and south, -1 - c west and -1 + c east (non-symmetric for c != 0). */
sp_coo_t *sp_test_convection_diffusion(int64_t n, double c, sp_value_type_t t);

/* S L S with L = tridiag(-1, 2, -1) of order n and S = diag(10^(decades * i / (n - 1))),
 * double: symmetric positive definite, condition number about cond(L) * 10^(2 decades)
 * (the solvers' ill-conditioned case). */
sp_coo_t *sp_test_scaled_laplacian(int64_t n, double decades);

/* Assert that call returns the expected status; on mismatch the message shows both and
 * sp_last_error(). */
#define ck_assert_status(call, expected)                                                  \
    do {                                                                                  \
        sp_status_t st_ = (call);                                                         \
        ck_assert_msg(st_ == (expected), "%s returned %s (expected %s): %s", #call,       \
                      sp_status_string(st_), sp_status_string(expected), sp_last_error()); \
    } while (0)
#define ck_assert_ok(call) ck_assert_status(call, SP_STATUS_SUCCESS)

/* Assert the last error message contains the text. */
#define ck_assert_error_has(text)                                                      \
    ck_assert_msg(strstr(sp_last_error(), (text)) != NULL,                              \
                  "message \"%s\" does not contain \"%s\"", sp_last_error(), (text))

#endif /* SP_TESTUTIL_H */
