#!/usr/bin/env bash
# Issue 22: where the persistent SOFT kernel's time goes against the COOP one on a graph
# where COOP is faster (CA-HepTh, 11% a traversal in scripts/device-coop22.sh) and on one
# where they tie (rome99): Nsight Compute's warp-state (stall) breakdown and a few
# throughput metrics of the persistent kernels' launches in bfs_loops_bench (both loops,
# interleaved; the kernel name's template argument says which: false SOFT, true COOP).
# Logs under $OUT/l (else build-gpu/logs-coop-ncu).
#   bash scripts/device-coop22-ncu.sh
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-coop-ncu}; mkdir -p "$L"
. scripts/device-env.sh
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
sp_build_gpu "$L" bfs_loops_bench || exit 1
m=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
m=$m,lts__t_requests.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum
m=$m,smsp__cycles_active.avg,sm__cycles_elapsed.avg
for input in datasets/graphs/CA-HepTh.txt datasets/graphs/rome99.gr; do
  tag=$(basename "$input" | sed 's/\..*//')
  timeout 240 ncu --clock-control none --metrics "$m" --section WarpStateStats \
    --kernel-name regex:persistent_kernel --launch-count 6 --page raw \
    ./build-gpu/bench/bfs_loops_bench --reps 2 --input "$input" >"$L/ncu-$tag.log" 2>&1
  echo "== $input rc $?"
  # the kernels' lines, the metrics above and each stall reason of at least 0.05 cycles
  grep -E "persistent_kernel<|^ +(gpu__time|smsp__inst_executed.sum |sm__warps_active|lts__t_(requests|sectors_op)|smsp__cycles_active.avg |sm__cycles_elapsed.avg )|issue_stalled_.*per_issue_active" \
    "$L/ncu-$tag.log" | sed -E 's/^ +//; s/\(anonymous namespace\):://; s/\(bfsk::state_t.*\) \(/ (/' |
    awk '!/issue_stalled/ || $NF + 0 >= 0.05' | cut -c1-150
done
