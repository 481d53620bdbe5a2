#!/usr/bin/env bash
# Issue 22, the loops' short-list gather before it is merged, on a machine with two GPUs in
# one call: build everything (build-gpu), then side by side the whole ctest on GPU 0 and,
# on GPU 1, bfs_loops_bench with the gather on and off (alternating, two rounds) on skewed
# graphs, meshes and the 4096 grid, and spbench --bfs on CA-HepTh and Wiki-Vote (64
# sources, per call, AUTO against the best row). Logs under $OUT/l (else
# build-gpu/logs-gather). Exit status non-zero when the build, a test or a run fails.
#   bash scripts/device-gather22b.sh [CTEST_LIMIT_S] [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-gather}; mkdir -p "$L"
ctest_limit=${1:-450}; reps=${2:-20}
. scripts/device-env.sh
t0=$(date +%s)
sp_two_gpus_ctest "$L" "$ctest_limit" "$L/ctest.log" "$L/ctest.rc" || exit 1
fail=0
inputs=(--input datasets/graphs/CA-HepTh.txt --input datasets/mtx/rajat01.mtx
        --input datasets/graphs/Wiki-Vote.txt --input datasets/graphs/facebook_combined.txt
        --input datasets/graphs/rome99.gr --input datasets/mtx/ani4.mtx
        --input datasets/mtx/BentPipe2D100.mtx --input grid4096)
for round in 1 2; do
  for g in 1 0; do
    CUDA_VISIBLE_DEVICES=1 SP_BENCH_STEP_SECONDS=60 timeout 150 ./build-gpu/bench/bfs_loops_bench \
      --reps "$reps" --gather "$g" "${inputs[@]}" >"$L/gather$g-$round.log" 2>"$L/gather$g-$round.err" || fail=1
    echo "== gather $g round $round ($(( $(date +%s) - t0 )) s)"
    awk '/^Graph:/{g=$2} /_us:/{printf "  %-32s %-22s %s\n", g, $1, $2}' "$L/gather$g-$round.log" |
      sed 's|datasets/[a-z]*/||' | grep -v host_loop
  done
done
for f in CA-HepTh Wiki-Vote facebook_combined; do
  CUDA_VISIBLE_DEVICES=1 timeout 90 ./build-gpu/bench/spbench "datasets/graphs/$f.txt" --undirected \
    --bfs --sources 64 >"$L/spbench-$f.log" 2>&1 || fail=1
  echo "== spbench --bfs $f (variant loop ms_mean)"
  grep -E "^$f" "$L/spbench-$f.log" | awk '{print "  " $2, $3, $5}'
done
wait
ctest_rc=$(cat "$L/ctest.rc" 2>/dev/null || echo 255)
echo "== ctest on GPU 0, rc $ctest_rc"
grep -E "tests passed|Total Test time|\*\*\*Failed|\*\*\*Timeout|Not Run|Skipped" "$L/ctest.log" | tail -n 25
echo "== total $(( $(date +%s) - t0 )) s"
[ "$ctest_rc" = 0 ] && [ "$fail" = 0 ]
