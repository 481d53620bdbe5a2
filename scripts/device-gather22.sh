#!/usr/bin/env bash
# Issue 22: the loops' gather of short adjacency lists (bfs::gather_short) on a 1-GPU
# machine: build (build-gpu), the BFS GPU suites (both offset widths) and the
# distributed ones, then bfs_loops_bench with the gather on and off
# (sp__gpu_bfs_set_loop_gather), alternating, two rounds, on small skewed graphs, meshes
# and the 4096 grid; then spbench --bfs on CA-HepTh and Wiki-Vote (64 sources, every
# variant and loop, per call) for AUTO against the best row. Logs under $OUT/l (else
# build-gpu/logs-gather).
#   bash scripts/device-gather22.sh [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-gather}; mkdir -p "$L"
reps=${1:-20}
. scripts/device-env.sh
fail=0
t0=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
sp_build_gpu "$L" bfs_loops_bench spbench check_gpu_bfs check_gpu_bfs_loops check_bfs_api \
  check_gpu_dist || exit 1
(cd build-gpu && timeout 240 ctest -j6 --timeout 230 --output-on-failure \
   -R '^(check_gpu_bfs|check_gpu_bfs_loops|check_gpu_dist)(\.offsets64)?$|^check_bfs_api$' \
   >"$L/ctest.log" 2>&1) || fail=1
grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run" "$L/ctest.log"
echo "== tests ($(( $(date +%s) - t0 )) s)"
inputs=(--input datasets/graphs/CA-HepTh.txt --input datasets/mtx/rajat01.mtx
        --input datasets/graphs/Wiki-Vote.txt --input datasets/graphs/facebook_combined.txt
        --input datasets/graphs/rome99.gr --input datasets/mtx/ani4.mtx --input grid4096)
for round in 1 2; do
  for g in 1 0; do
    SP_BENCH_STEP_SECONDS=60 timeout 120 ./build-gpu/bench/bfs_loops_bench --reps "$reps" \
      --gather "$g" "${inputs[@]}" >"$L/gather$g-$round.log" 2>"$L/gather$g-$round.err" || fail=1
    echo "== gather $g round $round ($(( $(date +%s) - t0 )) s)"
    awk '/^Graph:/{g=$2} /_us:/{printf "  %-32s %-22s %s\n", g, $1, $2}' "$L/gather$g-$round.log" |
      sed 's|datasets/[a-z]*/||' | grep -v host_loop
  done
done
for f in CA-HepTh Wiki-Vote; do
  timeout 90 ./build-gpu/bench/spbench "datasets/graphs/$f.txt" --undirected --bfs --sources 64 \
    >"$L/spbench-$f.log" 2>&1 || fail=1
  echo "== spbench --bfs $f"
  grep -E "^ *(graph|$f)" "$L/spbench-$f.log" | awk '{print "  " $2, $3, $5}' | head -20
done
echo "== total $(( $(date +%s) - t0 )) s, fail=$fail"
exit "$fail"
