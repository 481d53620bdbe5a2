#!/usr/bin/env bash
# Issue 22 on a 1-GPU H100 in one call (about 6 minutes): the graph level loop's suites and
# timings. Written for a one-level body of the graph loop (buffers picked by the level
# number, the next bitmap cleared a level ahead; ec0cd8e), measured at about 1% on
# Kronecker 22 and reverted because compute-sanitizer's initcheck failed it
# (bench/results/h100-bfs-rule-2026-11-26.md); it runs whatever graph loop the tree has.
#   1. build (Release, sm_90, build-gpu; the targets used);
#   2. check_gpu_bfs and check_gpu_bfs_loops, both offset widths (the graph loop's every
#      mode against the reference, its directions against the host loop's and the rule's);
#   3. spbench --bfs on Kronecker 22 (64 sources; direction-optimized on the host and graph
#      loops, AUTO) twice, its levels on the graph loop, Kronecker 24 (16 sources, AUTO);
#   4. spbench --bfs-suite (every graph, variant and loop; AUTO against the best row).
# Logs in build-gpu/logs-bfs-graph, tarred into $OUT (if set) as bfs-graph-logs.tgz; a
# summary at the end; exit 1 when a step failed or a search was invalid.
#   bash scripts/device-bfs-graph.sh
set -uo pipefail
cd "$(dirname "$0")/.."
logs=build-gpu/logs-bfs-graph
mkdir -p "$logs"
. scripts/device-env.sh   # .deps unpacked (Check), SP_ZLIB_ARGS
. scripts/device-steps.sh # gpu.txt, status, step()

step configure 120 cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" || exit 1
step build 300 cmake --build build-gpu -j"$(nproc)" --target sp spbench check_gpu_bfs \
  check_gpu_bfs_loops || exit 1
step tests 200 ctest --test-dir build-gpu --output-on-failure -j4 --timeout 190 \
  -R '^check_gpu_bfs'
grep -E "tests passed|tests failed|\(Failed\)|Skipped" "$logs/tests.log" | tail -n 6

SB=./build-gpu/bench/spbench
for round in 1 2; do
  step "kron22-$round" 100 $SB --gen kron:22 --bfs --sources 64 --bfs-validate 4 \
    --bfs-variant direction_opt,auto --bfs-loop host,graph,auto
done
step kron22-levels 100 $SB --gen kron:22 --bfs --sources 4 --bfs-validate 1 \
  --bfs-variant direction_opt --bfs-loop graph --bfs-levels
step kron24 120 $SB --gen kron:24 --bfs --sources 16 --bfs-validate 2 --bfs-variant auto
step bfs-suite 200 $SB --bfs-suite

echo
echo "== summary"
cat "$logs/gpu.txt"
for f in "$logs"/kron2*.log; do
  echo "-- $(basename "$f" .log) (variant loop: per call | multi | kernels GTEPS)"
  grep -E "^kron" "$f" | awk '{printf "   %-14s %-12s call %9s  multi %9s  kern %9s  us/level %8s valid %s\n", $2, $3, $7, $8, $9, $12, $14}'
  grep -E "^  level " "$f" | head -n 12
  if grep -qE "^kron.* NO$|bfs_valid: NO" "$f"; then echo "   INVALID searches in $f"; status=1; fi
done
grep -E "^(email|Wiki|facebook|arrow).*(graph|auto) " "$logs/bfs-suite.log" | sed 's/^/   /'
grep -E "auto chose|bfs_suite_(seconds|valid)" "$logs/bfs-suite.log" | sed 's/^/   /'
grep -q "bfs_suite_valid: yes" "$logs/bfs-suite.log" || { echo "   bfs-suite not valid"; status=1; }
[ -n "${OUT:-}" ] && tar -C "$logs" -czf "$OUT/bfs-graph-logs.tgz" .
[ $status = 0 ] && echo "device-bfs-graph: PASSED" || echo "device-bfs-graph: FAILED"
exit $status
