/* The triangular-solve analysis's phases, timed on request (sp__gpu_sptrsv_phase_timing):
 * a CUDA event on the analysis's stream and the host clock at the end of each phase, the
 * stream synchronized once when the analysis ends, the differences appended to a
 * process-wide record that bench/sptrsv_bench prints. Off, a mark is one branch. */
#include <chrono>

#include "solve/sptrsv_common.cuh"

namespace {

struct phase_record {
    bool on = false, timing = false; /* timing: an analysis is being timed now */
    int analyses = 0;                /* analyses recorded since the reset */
    int count = 0;                   /* phases recorded */
    sp_gpu_sptrsv_phase_t phase[SP_GPU_SPTRSV_PHASES_MAX];
    /* the analysis being timed: marks[0] its start, marks[i] the end of names[i - 1] */
    cudaStream_t stream = NULL;
    int marks = 0;
    bool event_ok[SP_GPU_SPTRSV_PHASES_MAX + 1];
    cudaEvent_t event[SP_GPU_SPTRSV_PHASES_MAX + 1];
    std::chrono::steady_clock::time_point host[SP_GPU_SPTRSV_PHASES_MAX + 1];
    const char *names[SP_GPU_SPTRSV_PHASES_MAX];
};
phase_record rec;

void mark_now()
{
    int m = rec.marks++;
    rec.event_ok[m] = cudaEventCreate(&rec.event[m]) == cudaSuccess &&
                      cudaEventRecord(rec.event[m], rec.stream) == cudaSuccess;
    if (!rec.event_ok[m]) (void)cudaGetLastError(); /* a measurement never fails the call */
    rec.host[m] = std::chrono::steady_clock::now();
}

} /* namespace */

extern "C" void sp__gpu_sptrsv_phase_timing(int on)
{
    rec.on = on != 0;
    rec.count = rec.analyses = 0;
}

extern "C" int sp__gpu_sptrsv_phases(sp_gpu_sptrsv_phase_t *out, int max)
{
    for (int i = 0; i < rec.count && i < max; i++) out[i] = rec.phase[i];
    return rec.count;
}

void sp__gpu_sptrsv_phase_begin(const sp_gpu_env_t *env)
{
    if (!rec.on || rec.timing) return;
    rec.timing = true;
    rec.stream = (cudaStream_t)env->stream;
    rec.marks = 0;
    mark_now();
}

void sp__gpu_sptrsv_phase_mark(const char *name)
{
    if (!rec.timing || rec.marks > SP_GPU_SPTRSV_PHASES_MAX) return;
    rec.names[rec.marks - 1] = name;
    mark_now();
}

void sp__gpu_sptrsv_phase_end(bool record)
{
    if (!rec.timing) return;
    rec.timing = false;
    if (record && rec.marks > 0 && rec.event_ok[rec.marks - 1] &&
        cudaEventSynchronize(rec.event[rec.marks - 1]) != cudaSuccess)
        record = false;
    for (int m = 1; record && m < rec.marks && rec.count < SP_GPU_SPTRSV_PHASES_MAX; m++) {
        float ms = -1;
        sp_gpu_sptrsv_phase_t *p = &rec.phase[rec.count++];
        if (!rec.event_ok[m - 1] || !rec.event_ok[m] ||
            cudaEventElapsedTime(&ms, rec.event[m - 1], rec.event[m]) != cudaSuccess)
            ms = -1;
        p->name = rec.names[m - 1];
        p->analysis = rec.analyses;
        p->gpu_ms = ms;
        p->host_ms =
            std::chrono::duration<double, std::milli>(rec.host[m] - rec.host[m - 1]).count();
    }
    if (record) rec.analyses++;
    for (int m = 0; m < rec.marks; m++)
        if (rec.event_ok[m]) (void)cudaEventDestroy(rec.event[m]);
    (void)cudaGetLastError();
    rec.marks = 0;
}
