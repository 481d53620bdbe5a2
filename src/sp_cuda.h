/* The CUDA runtime for the API layer's C files (built with CUDA only): one check macro
 * that records SP_STATUS_DEVICE_ERROR with CUDA's text and clears CUDA's last error, so
 * the next call starts clean. In a function with `sp_status_t st` and a `done:` label. */
#ifndef SP_CUDA_H
#define SP_CUDA_H

#include <cuda_runtime_api.h>

#include "sp_base.h"

#define SP_CUDA_TRY(call)                                                               \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            (void)cudaGetLastError();                                                   \
            SP_FAIL(SP_STATUS_DEVICE_ERROR, "%s failed: %s (%s)", #call,                \
                    cudaGetErrorString(e_), cudaGetErrorName(e_));                      \
        }                                                                               \
    } while (0)

#endif /* SP_CUDA_H */
