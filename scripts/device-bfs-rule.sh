#!/usr/bin/env bash
# Issue 22 on a 1-GPU H100 in one call (about 8 minutes): the direction rule that prices a
# pull's scan of the unvisited vertices (kernels/bfs/bfs_direction_rule.h) against Beamer's
# rule as published (spbench --bfs-beamer-rule), in the same run, and the one-launch start
# of every search (kernels/bfs/bfs_start.cu).
#   1. build (Release, sm_90, build-gpu; the targets used);
#   2. the BFS suites (check_gpu_bfs: every level's direction equal to the rule replayed on
#      the host from the reference's levels; check_gpu_bfs_loops, check_bfs_api, the
#      distributed BFS on one GPU, the allocation sweep's BFS part);
#   3. spbench --bfs, direction-optimized (host and graph loops) and AUTO, per call |
#      amortized | kernels: Kronecker 22 (64 sources) and 24 (16 sources), each with the new
#      rule and with Beamer's, alternating; then Kronecker 24's levels with each rule
#      (host loop) and Kronecker 22's (graph loop);
#   4. spbench --bfs-suite (every graph, variant and loop, AUTO against the best row).
# Logs in build-gpu/logs-bfs-rule, tarred into $OUT (if set) as bfs-rule-logs.tgz; a summary
# at the end; exit 1 when a step failed or a search was invalid.
#   bash scripts/device-bfs-rule.sh
set -uo pipefail
cd "$(dirname "$0")/.."
logs=build-gpu/logs-bfs-rule
mkdir -p "$logs"
. scripts/device-env.sh   # .deps unpacked (Check), SP_ZLIB_ARGS
. scripts/device-steps.sh # gpu.txt, status, step()

build_gpu 300 sp spbench check_gpu_bfs check_gpu_bfs_loops check_bfs_api check_gpu_dist \
  check_dist check_gpu_alloc_sweep || exit 1
step tests 200 ctest --test-dir build-gpu --output-on-failure -j4 --timeout 190 \
  -R '^check_gpu_bfs|^check_bfs_api$|^check_gpu_dist|^check_gpu_alloc_sweep\.bfs'
grep -E "tests passed|tests failed|\(Failed\)|Skipped" "$logs/tests.log" | tail -n 12

SB=./build-gpu/bench/spbench
for round in 1 2; do
  for rule in new beamer; do
    flag=()
    [ $rule = beamer ] && flag=(--bfs-beamer-rule)
    step "kron22-$rule-$round" 100 $SB --gen kron:22 --bfs --sources 64 --bfs-validate 4 \
      --bfs-variant direction_opt,auto "${flag[@]}"
    step "kron24-$rule-$round" 120 $SB --gen kron:24 --bfs --sources 16 --bfs-validate 2 \
      --bfs-variant direction_opt,auto --bfs-loop host,graph,auto "${flag[@]}"
  done
done
for rule in new beamer; do
  flag=()
  [ $rule = beamer ] && flag=(--bfs-beamer-rule)
  step "kron24-levels-$rule" 100 $SB --gen kron:24 --bfs --sources 4 --bfs-validate 1 \
    --bfs-variant direction_opt --bfs-loop host --bfs-levels "${flag[@]}"
done
step kron22-levels 100 $SB --gen kron:22 --bfs --sources 4 --bfs-validate 1 \
  --bfs-variant direction_opt --bfs-loop graph --bfs-levels
step bfs-suite 200 $SB --bfs-suite

echo
echo "== summary"
cat "$logs/gpu.txt"
for f in "$logs"/kron2*-*.log; do
  echo "-- $(basename "$f" .log) (variant loop: per call | multi | kernels GTEPS)"
  grep -E "^kron" "$f" | awk '{printf "   %-14s %-12s call %9s  multi %9s  kern %9s  switches %s valid %s\n", $2, $3, $7, $8, $9, $13, $14}'
  grep -E "^  level " "$f" | head -n 12
  if grep -qE "^kron.* NO$|bfs_valid: NO" "$f"; then echo "   INVALID searches in $f"; status=1; fi
done
grep -E "auto chose|bfs_suite_(seconds|valid)" "$logs/bfs-suite.log" | sed 's/^/   /'
grep -q "bfs_suite_valid: yes" "$logs/bfs-suite.log" || { echo "   bfs-suite not valid"; status=1; }
[ -n "${OUT:-}" ] && tar -C "$logs" -czf "$OUT/bfs-rule-logs.tgz" .
[ $status = 0 ] && echo "device-bfs-rule: PASSED" || echo "device-bfs-rule: FAILED"
exit $status
