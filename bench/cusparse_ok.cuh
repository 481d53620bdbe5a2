/* The fatal-error check of the benchmarks that call cuSPARSE (convert_bench, sptrsv_bench,
 * cg_bench, ...): a failed call prints where and why, and the benchmark exits 1; and
 * cusparse_open, the stream and handle of upload_bench and spmv64_bench. */
#ifndef SP_CUSPARSE_OK_CUH
#define SP_CUSPARSE_OK_CUH

#include <cuda_runtime.h>
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

/* A non-blocking stream and a cuSPARSE handle on it (upload_bench, spmv64_bench); prints
 * cuSPARSE's version. Exits 1 when either cannot be made. */
static inline void cusparse_open(cudaStream_t *stream, cusparseHandle_t *handle)
{
    cudaError_t e = cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        std::fprintf(stderr, "cudaStreamCreateWithFlags: %s\n", cudaGetErrorString(e));
        std::exit(1);
    }
    int version = 0;
    CUSPARSE_OK(cusparseCreate(handle));
    CUSPARSE_OK(cusparseSetStream(*handle, *stream));
    CUSPARSE_OK(cusparseGetVersion(*handle, &version));
    std::printf("cuSPARSE: %d\n", version);
}

#endif /* SP_CUSPARSE_OK_CUH */
