#!/usr/bin/env bash
# Nsight Compute on the CSC SpMV kernel against cuSPARSE's SpMV on a CSC descriptor
# (bench/csc_bench, one input, default CSC_PROF_INPUT banded:2000000:64,f32): first every
# kernel's duration (to name cuSPARSE's), then the full section set of libsp's csc_kernel
# (its first variant: no aggregation, no window) and of cuSPARSE's kernel, one launch each
# after warm-up. Logs under $OUT/l (else build-gpu/logs-cscprof); prints the headline
# metrics of both.
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-cscprof}; mkdir -p "$L"
input=${CSC_PROF_INPUT:-banded:2000000:64,f32}
. scripts/device-env.sh
sp_build_gpu "$L" csc_bench || exit 1
bench=(./build-gpu/bench/csc_bench --reps 3 --input "$input")
timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --csv "${bench[@]}" \
  >"$L/times.csv" 2>&1
# the kernels launched at least 6 times (the timed pairs), by name and mean duration
awk -F'","' 'NR > 1 && $5 != "" { n[$5]++; t[$5] += $NF } END {
  for (k in n) if (n[k] >= 6) printf "%6d %12.1f %s\n", n[k], t[k] / n[k], substr(k, 1, 150) }' \
  "$L/times.csv" | sort -k2 -n -r | tee "$L/kernels.txt"
cus=$(awk '{ $1 = $2 = ""; sub(/^ +/, ""); print }' "$L/kernels.txt" |
      grep -v -E "csc_kernel|scale|fill|partition" | head -n 1 |
      sed -E 's/[(<].*//; s/^void //; s/.*:://')
# (ncu matches --kernel-name against the function's base name, without its namespace: the
# twentieth session's call 6 passed "cusparse::csrmv_v3_transpose_kernel" and matched
# nothing)
echo "cuSPARSE kernel: $cus"
keys="Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Warp Cycles Per Issued|Executed Ipc A|Issue Slots Busy|Block Limit|Grid Size|Block Size|Stall|One or More|No Eligible"
timeout 150 ncu --clock-control none --set full --kernel-name regex:csc_kernel --launch-skip 4 \
  --launch-count 1 "${bench[@]}" >"$L/ncu-libsp.txt" 2>&1
grep -E "$keys" "$L/ncu-libsp.txt" | head -40
if [ -n "$cus" ]; then
  timeout 150 ncu --clock-control none --set full --kernel-name "regex:$cus" --launch-skip 4 \
    --launch-count 1 "${bench[@]}" >"$L/ncu-cusparse.txt" 2>&1
  echo "== cuSPARSE"; grep -E "$keys" "$L/ncu-cusparse.txt" | head -40
fi
