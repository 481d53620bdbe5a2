/* A reduction of the graph level loop's pattern, to tell a compute-sanitizer limitation
 * from a libsp bug (bench/results/h200-sanitize.md): a CUDA graph whose while node
 * (conditional node, CUDA 12.4+) runs a body of kernel nodes that read a small state block
 * through a pointer parameter; the last block of the last node counts the iterations and
 * ends the loop with cudaGraphSetConditional. Plain CUDA, no libsp code.
 *
 *   nvcc -O2 -arch=sm_90 scripts/sanitizer-while-graph.cu -o swg
 *   ./swg MODE         MODE: malloc (cudaMalloc), pool (cudaMallocFromPoolAsync, then a
 *                      stream synchronization), nocond (pool memory, the same two kernels
 *                      launched on the stream without a graph), reuse (as libsp's context
 *                      does: a pool of its own that keeps freed memory, and the state
 *                      block at an address freed before, by an earlier search's graph)
 *   compute-sanitizer --tool memcheck ./swg MODE
 *
 * Prints "swg MODE: ok (N iterations)" and exits 0 when the loop ran its 5 iterations and
 * the counts are right; anything else is an error. */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

namespace {

struct state {
    int done;
    unsigned blocks_done;
    int iterations;
    int pad[13];
    unsigned long long sum;
};

#define OK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                         cudaGetErrorString(e_));                                          \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

__global__ void work_kernel(const state *st, unsigned long long *data, int n)
{
    if (st->done) return;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] += 1;
}

/* The last block to finish counts an iteration and ends the loop after 5 (in_graph) . */
__global__ void decide_kernel(state *st, const unsigned long long *data, int n,
                              cudaGraphConditionalHandle h, int in_graph)
{
    __shared__ bool last;
    if (st->done) return;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(&st->blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        st->blocks_done = 0;
        st->iterations++;
        st->sum = data[0] + data[n - 1];
        if (st->iterations == 5) {
            st->done = 1;
            if (in_graph) cudaGraphSetConditional(h, 0);
        }
    }
}

} /* namespace */

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "pool";
    bool use_pool = std::strcmp(mode, "malloc") != 0;
    bool reuse = std::strcmp(mode, "reuse") == 0;
    bool use_graph = std::strcmp(mode, "nocond") != 0;
    const int n = 1 << 20, blocks = 1056, threads = 256;
    cudaStream_t s;
    cudaMemPool_t pool;
    state *st = nullptr;
    unsigned long long *data = nullptr;
    OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    OK(cudaDeviceGetDefaultMemPool(&pool, 0));
    if (reuse) { /* libsp's context: its own pool, freed memory kept for reuse */
        cudaMemPoolProps props = {};
        unsigned long long keep = ~0ull;
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        OK(cudaMemPoolCreate(&pool, &props));
        OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        for (int k = 0; k < 3; k++) { /* earlier work: blocks taken and given back */
            void *a = nullptr, *b = nullptr;
            OK(cudaMallocFromPoolAsync(&a, 1280, pool, s));
            OK(cudaMallocFromPoolAsync(&b, n * sizeof *data, pool, s));
            OK(cudaMemsetAsync(a, 0, 1280, s));
            OK(cudaFreeAsync(b, s));
            OK(cudaFreeAsync(a, s));
        }
    }
    if (use_pool) {
        OK(cudaMallocFromPoolAsync((void **)&st, 1280, pool, s));
        OK(cudaMallocFromPoolAsync((void **)&data, n * sizeof *data, pool, s));
    } else {
        OK(cudaMalloc(&st, 1280));
        OK(cudaMalloc(&data, n * sizeof *data));
    }
    OK(cudaMemsetAsync(st, 0, 1280, s));
    OK(cudaMemsetAsync(data, 0, n * sizeof *data, s));
    OK(cudaStreamSynchronize(s));
    if (use_graph) {
        cudaGraph_t g;
        cudaGraphExec_t x;
        cudaGraphConditionalHandle h;
        cudaGraphNodeParams cp = {};
        cudaGraphNode_t wn, k1, k2;
        OK(cudaGraphCreate(&g, 0));
        OK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
        cp.type = cudaGraphNodeTypeConditional;
        cp.conditional.handle = h;
        cp.conditional.type = cudaGraphCondTypeWhile;
        cp.conditional.size = 1;
        OK(cudaGraphAddNode(&wn, g, nullptr, nullptr, 0, &cp));
        cudaGraph_t body = cp.conditional.phGraph_out[0];
        int nn = n, one = 1;
        void *a1[] = {&st, &data, &nn};
        void *a2[] = {&st, &data, &nn, &h, &one};
        cudaKernelNodeParams p = {};
        p.func = (void *)work_kernel;
        p.gridDim = dim3(blocks);
        p.blockDim = dim3(threads);
        p.kernelParams = a1;
        OK(cudaGraphAddKernelNode(&k1, body, nullptr, 0, &p));
        p.func = (void *)decide_kernel;
        p.kernelParams = a2;
        OK(cudaGraphAddKernelNode(&k2, body, &k1, 1, &p));
        OK(cudaGraphInstantiate(&x, g, 0));
        OK(cudaGraphLaunch(x, s));
        OK(cudaStreamSynchronize(s));
        OK(cudaGraphExecDestroy(x));
        OK(cudaGraphDestroy(g));
    } else {
        for (int it = 0; it < 5; it++) {
            work_kernel<<<blocks, threads, 0, s>>>(st, data, n);
            decide_kernel<<<blocks, threads, 0, s>>>(st, data, n, 0, 0);
        }
        OK(cudaGetLastError());
        OK(cudaStreamSynchronize(s));
    }
    state h_st;
    OK(cudaMemcpy(&h_st, st, sizeof h_st, cudaMemcpyDeviceToHost));
    if (use_pool) {
        OK(cudaFreeAsync(st, s));
        OK(cudaFreeAsync(data, s));
        OK(cudaStreamSynchronize(s));
        if (reuse) OK(cudaMemPoolDestroy(pool));
    } else {
        OK(cudaFree(st));
        OK(cudaFree(data));
    }
    OK(cudaStreamDestroy(s));
    bool good = h_st.iterations == 5 && h_st.done == 1 && h_st.sum == 10;
    std::printf("swg %s: %s (%d iterations, sum %llu)\n", mode, good ? "ok" : "WRONG",
                h_st.iterations, h_st.sum);
    return good ? 0 : 1;
}
