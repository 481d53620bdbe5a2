/* The fatal-error check of the benchmarks that call cuSPARSE (convert_bench, sptrsv_bench,
 * cg_bench): a failed call prints where and why, and the benchmark exits 1. */
#ifndef SP_CUSPARSE_OK_CUH
#define SP_CUSPARSE_OK_CUH

#include <cusparse.h>

#include <cstdio>
#include <cstdlib>

#define CUSPARSE_OK(call)                                                                 \
    do {                                                                                  \
        cusparseStatus_t e_ = (call);                                                     \
        if (e_ != CUSPARSE_STATUS_SUCCESS) {                                              \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
                         cusparseGetErrorString(e_));                                     \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

#endif /* SP_CUSPARSE_OK_CUH */
