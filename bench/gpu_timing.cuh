/* What the GPU benchmarks (prim_bench, convert_bench, spmv64_bench, ...) share: fatal-error
 * checks for CUDA and libsp calls, and interleaved timing of two callables (or a group of
 * them) with CUDA events, reduced to median / min / max. Header-only; each benchmark is
 * one translation unit. */
#ifndef SP_GPU_TIMING_CUH
#define SP_GPU_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "sp.h"

#define CUDA_OK(call)                                                                     \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
                         cudaGetErrorString(e_));                                         \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)
#define SP_OK(call)                                                                       \
    do {                                                                                  \
        sp_status_t s_ = (call);                                                          \
        if (s_ != SP_STATUS_SUCCESS) {                                                    \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
                         sp_last_error());                                                \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

struct stats {
    double median, min, max;
};

static inline stats summarize(std::vector<double> t)
{
    std::sort(t.begin(), t.end());
    return {t[t.size() / 2], t.front(), t.back()};
}

/* Times a and b interleaved on `stream` (warmup untimed rounds, then reps timed); prep
 * (untimed, may be empty) runs before every call of a, prep_b before every call of b,
 * after (untimed, may be empty) after every call of either; b may be empty (a alone), and
 * then sb may be NULL. */
static inline void time_pair(cudaStream_t stream, int warmup, int reps,
                             const std::function<void()> &prep, const std::function<void()> &a,
                             const std::function<void()> &b, stats *sa, stats *sb,
                             const std::function<void()> &prep_b = nullptr,
                             const std::function<void()> &after = nullptr)
{
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<double> ta, tb;
    for (int r = 0; r < warmup + reps; r++) {
        for (int which = 0; which < (b ? 2 : 1); which++) {
            const std::function<void()> &p = which == 0 ? prep : prep_b;
            if (p) p();
            CUDA_OK(cudaEventRecord(e0, stream));
            (which == 0 ? a : b)();
            CUDA_OK(cudaEventRecord(e1, stream));
            if (cudaEventSynchronize(e1) != cudaSuccess) {
                std::fprintf(stderr, "%s failed: %s\n", which == 0 ? "libsp" : "baseline",
                             cudaGetErrorString(cudaGetLastError()));
                std::exit(1);
            }
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= warmup) (which == 0 ? ta : tb).push_back(ms);
            if (after) after();
        }
    }
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    *sa = summarize(ta);
    if (sb) *sb = b ? summarize(tb) : stats{0, 0, 0};
}

/* Times the callables of `fns` interleaved on `stream`, one after the other in each round
 * (warmup untimed rounds, then reps timed ones), each between its own pair of CUDA events;
 * (*out)[i] gets the summary of fns[i]. A callable may run several calls: divide by them. */
static inline void time_group(cudaStream_t stream, int warmup, int reps,
                              const std::vector<std::function<void()>> &fns,
                              std::vector<stats> *out)
{
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<std::vector<double>> t(fns.size());
    for (int r = 0; r < warmup + reps; r++)
        for (size_t i = 0; i < fns.size(); i++) {
            CUDA_OK(cudaEventRecord(e0, stream));
            fns[i]();
            CUDA_OK(cudaEventRecord(e1, stream));
            CUDA_OK(cudaEventSynchronize(e1));
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= warmup) t[i].push_back(ms);
        }
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    out->clear();
    for (auto &ti : t) out->push_back(summarize(ti));
}

#endif /* SP_GPU_TIMING_CUH */
