/* Launch policy of the conversions (kernels/convert/): the one place their tuning
 * constants live. C++ (the values feed launch configurations); included by the .cu files
 * only. The kernels are grid-stride loops over rows, entries or slices. */
#ifndef SP_CONVERT_POLICY_H
#define SP_CONVERT_POLICY_H

struct sp_convert_policy {
    /* threads per block of every conversion kernel */
    static constexpr int block_threads = 256;
    /* grid cap: blocks per SM (the loops stride over the rest); enough resident warps
     * to hide the latency of the gathers and scatters */
    static constexpr int blocks_per_sm = 8;
};

#endif /* SP_CONVERT_POLICY_H */
