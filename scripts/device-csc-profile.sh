#!/usr/bin/env bash
# Nsight Compute on the CSC SpMV kernel against cuSPARSE's SpMV on a CSC descriptor
# (bench/csc_bench, one input, default CSC_PROF_INPUT banded:2000000:64,f32): first every
# kernel's duration (to name cuSPARSE's), then the full section set of libsp's csc_kernel
# (its first variant: no aggregation, no window) and of cuSPARSE's kernel, one launch each
# after warm-up. Logs under $OUT/l (else build-gpu/logs-cscprof); prints the headline
# metrics of both, and each kernel's reductions (instructions, L2 requests and sectors)
# beside its DRAM bytes, and the reduction and atomic instructions of cuSPARSE's SASS.
# CSC_PROF_LOGS: the log folder (default as above).
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${CSC_PROF_LOGS:-${L:-$PWD/build-gpu/logs-cscprof}}; mkdir -p "$L"
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
# reductions: SASS RED instructions executed, the L2's reduction requests and sectors, DRAM
# bytes
redm=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_global_red.sum
redm=$redm,lts__t_requests_op_red.sum,lts__t_sectors_op_red.sum,dram__bytes_read.sum
redm=$redm,dram__bytes_write.sum
for k in csc_kernel $cus; do
  timeout 120 ncu --clock-control none --metrics "$redm" --kernel-name "regex:$k" \
    --launch-skip 4 --launch-count 1 "${bench[@]}" >"$L/red-$k.txt" 2>&1
  echo "== reductions: $k"; grep -E "$(echo "$redm" | tr ',' '|')" "$L/red-$k.txt" | head -12
done
if [ -n "$cus" ]; then # the reduction and atomic opcodes in cuSPARSE's kernel
  timeout 150 ncu --clock-control none --section SourceCounters --kernel-name "regex:$cus" \
    --launch-skip 4 --launch-count 1 -o "$L/cusparse-src" -f "${bench[@]}" >/dev/null 2>&1
  ncu -i "$L/cusparse-src.ncu-rep" --page source --print-source sass --csv \
    >"$L/cusparse-sass.csv" 2>&1
  echo "== cuSPARSE SASS: reductions and atomics (opcode, lines)"
  grep -o -E "\b(RED|ATOM|REDG|ATOMG)[A-Z0-9_.]*" "$L/cusparse-sass.csv" | sort | uniq -c | head -20
  rm -f "$L/cusparse-src.ncu-rep"
fi
