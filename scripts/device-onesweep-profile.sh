#!/usr/bin/env bash
# Issue 22: the onesweep sort, Nsight Compute (kernel times; full sections of a onesweep pass,
# libsp's and CUB's) and a policy variant, on a 1-GPU H100 in about 4 minutes. Logs in $OUT.
#   bash scripts/device-onesweep-profile.sh
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-build-gpu/logs-onesweep-profile}; mkdir -p "$OUT"
. scripts/device-env.sh; t0=$SECONDS
cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" >/dev/null 2>&1
cmake --build build-gpu -j16 --target prim_bench check_gpu_prim > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
( cmake -S . -B build-v0 -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSP_ONESWEEP_HIST_BLOCKS_PER_SM=4 "${SP_ZLIB_ARGS[@]}" && cmake --build build-v0 -j8 --target prim_bench ) > $OUT/build-v0.log 2>&1 &
echo "built $((SECONDS-t0)) s"
timeout 120 ./build-gpu/tests/check_gpu_prim 2>&1 | tail -2
wait
for r in 1 2; do for b in build-gpu build-v0; do echo "$b"; SP_BENCH_ONESWEEP=1 timeout 60 ./$b/bench/prim_bench --only sort26 | grep "^| radix" | cut -d'|' -f2-6,11-12; done; done
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv ./build-gpu/bench/prim_bench --only sort26 --reps 1 --warmup 0 > $OUT/ncu-times.csv 2>&1
grep -E "digit_hist|onesweep_kernel|Histogram|Onesweep" $OUT/ncu-times.csv | awk -F'","' '{print $1, substr($5,1,40), $NF}' | head -20
timeout 150 ncu --clock-control none --set full --kernel-name regex:"onesweep_kernel|DeviceRadixSortOnesweep" --launch-skip 1 --launch-count 2 ./build-gpu/bench/prim_bench --only sort26 --reps 1 --warmup 0 > $OUT/ncu-full.txt 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Warp Cycles Per Issued|Executed Ipc A|Executed Instructions  |Issue Slots Busy|L1/TEX Hit|Block Limit" $OUT/ncu-full.txt | head -40
echo "total $((SECONDS-t0)) s"
