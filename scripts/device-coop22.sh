#!/usr/bin/env bash
# Issue 22: why the cooperative-groups loop beats the persistent SOFT loop on small skewed
# graphs (rajat01, CA-HepTh: 9.9 against 12.0 us a level) and not on meshes (the grid,
# rome99). bfs_loops_bench (CUDA events around whole traversals, the four loops
# interleaved, levels checked against the host reference) on those graphs under each of
# the SOFT kernel's knobs: the waiters' polling, the grid's size, the adjacency prefetch.
# Logs under $OUT/l (else build-gpu/logs-coop).
#   bash scripts/device-coop22.sh [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-coop}; mkdir -p "$L"
reps=${1:-20}
. scripts/device-env.sh
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
sp_build_gpu "$L" bfs_loops_bench || exit 1
inputs=(--input datasets/mtx/rajat01.mtx --input datasets/graphs/CA-HepTh.txt
        --input datasets/graphs/Wiki-Vote.txt --input datasets/graphs/rome99.gr
        --input datasets/mtx/ani4.mtx --input grid4096)
i=0
for knobs in "" "--prefetch 0" "--poll 0 256" "--poll 1 2000" "--poll 1000000 0" \
             "--blocks 66" "--blocks 16"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  SP_BENCH_STEP_SECONDS=60 timeout 120 ./build-gpu/bench/bfs_loops_bench --reps "$reps" \
    $knobs "${inputs[@]}" >"$L/knobs$i.log" 2>"$L/knobs$i.err"
  echo "== knobs$i [${knobs:-default}] rc $?"
  awk '/^Graph:/{g=$2} /_us_per_level:/{printf "  %-40s %-34s %s\n", g, $1, $2}' "$L/knobs$i.log" |
    sed 's|datasets/[a-z]*/||'
done
