#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sp_test_path(const char *relative)
{
    static char buffers[8][4096];
    static int next;
    const char *root = getenv("SP_SOURCE_DIR");
    char *b = buffers[next++ % 8];
    snprintf(b, sizeof buffers[0], "%s/%s", root ? root : SP_SOURCE_DIR, relative);
    return b;
}

int sp_test_run(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int sp_test_run_gpu(Suite *suite)
{
    sp_context_t *ctx = NULL;
    sp_status_t st = sp_context_create(SP_DEVICE_CUDA, NULL, &ctx);
    if (st != SP_STATUS_SUCCESS) {
        printf("no usable GPU (%s: %s): skipping\n", sp_status_string(st), sp_last_error());
        srunner_free(srunner_create(suite)); /* frees the suite */
        return 77;
    }
    sp_context_destroy(ctx);
    SRunner *runner = srunner_create(suite);
    srunner_set_fork_status(runner, CK_NOFORK);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

uint64_t sp_test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double sp_test_uniform(uint64_t *state) { return (sp_test_rand(state) >> 11) * 0x1.0p-53; }

sp_coo_t *sp_test_random_coo(uint64_t seed, int64_t nrows, int64_t ncols, int64_t nnz,
                             sp_value_type_t type, unsigned features)
{
    sp_coo_t *a = NULL;
    uint64_t s = seed;
    if (nrows == 0 || ncols == 0) nnz = 0;
    if (sp_coo_create(nrows, ncols, nnz, type, &a) != SP_STATUS_SUCCESS) return NULL;
    int64_t long_row = nrows > 0 ? (int64_t)(sp_test_rand(&s) % (uint64_t)nrows) : 0;
    for (int64_t k = 0; k < nnz; k++) {
        int64_t r, c;
        if ((features & SP_TEST_DUPLICATES) && k > 0 && sp_test_rand(&s) % 8 == 0) {
            int64_t j = (int64_t)(sp_test_rand(&s) % (uint64_t)k);
            r = a->row[j];
            c = a->col[j];
        } else {
            if ((features & SP_TEST_LONG_ROW) && sp_test_rand(&s) % 3 == 0)
                r = long_row;
            else
                r = (int64_t)(sp_test_rand(&s) % (uint64_t)nrows);
            if ((features & SP_TEST_EMPTY_ROWS) && r % 3 == 1 && r != long_row)
                r = (r + 1) % nrows;
            c = (int64_t)(sp_test_rand(&s) % (uint64_t)ncols);
            if ((features & SP_TEST_EMPTY_COLS) && ncols > 1) c &= ~(int64_t)1;
        }
        a->row[k] = (int32_t)r;
        a->col[k] = (int32_t)c;
        double v = 2.0 * sp_test_uniform(&s) - 1.0;
        if (type == SP_R_32F) ((float *)a->val)[k] = (float)v;
        if (type == SP_R_64F) ((double *)a->val)[k] = v;
    }
    a->nnz = nnz;
    return a;
}

void sp_test_dense_spmv(const sp_coo_t *a, double alpha, const double *x, double beta,
                        double *y)
{
    for (int64_t i = 0; i < a->nrows; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    for (int64_t k = 0; k < a->nnz; k++) {
        double v = 1.0;
        if (a->value_type == SP_R_32F) v = ((const float *)a->val)[k];
        if (a->value_type == SP_R_64F) v = ((const double *)a->val)[k];
        y[a->row[k]] += alpha * v * x[a->col[k]];
    }
}
