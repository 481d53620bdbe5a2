#!/usr/bin/env bash
# Issue 22's grid target on a 1-GPU H100 (about 2.5-3 minutes with build-gpu present,
# 1.5-2 with QUICK=1): the persistent BFS loop at most 3 us a level on the 4096 x 4096 grid.
#   1. build (Release, sm_90, build-gpu): sp, spbench, bfs_loops_bench and the GPU BFS tests;
#   2. check_gpu_bfs_loops: every GPU loop against the reference, the persistent kernel's
#      adjacency prefetch in modes 0, 1 and 2, few blocks, the safety net (before the timings);
#   3. bfs_loops_bench on grid4096 with the SOFT kernel's adjacency prefetch in each mode
#      (--prefetch 1: the default, after the chunk is counted; 0: none, the code before this
#      change; 2: also the row pointers at each claim): the A/B of this change, CUDA events,
#      per level; then two settings of
#      the waiters' polling (--poll NEAR PAUSE: only the blocks within NEAR chunks of the
#      level's end spin; the policy's is 64 256), to see whether fewer spinners on the
#      level word (which the queue-tail atomics also hit) shorten a level;
#   4. spbench --gen grid2d:4096 --bfs --sources 8 --bfs-validate 1 on the frontier
#      variant's loops (persistent, persistent_coop, graph, host, single_block): per-call
#      us/level (host wall clock of each sp_bfs call), the first search of each validated;
#   5. check_gpu_bfs (the public sp_bfs over every variant x loop against the reference,
#      about 70 s; QUICK=1 leaves it out), after the timings so they come first.
# Logs under $OUT (else build-gpu/logs-grid22); a summary at the end with a TARGET line.
# Exits 1 when a step fails (a build, a test, an invalid search, a MISMATCH, a time limit),
# 0 otherwise; the TARGET line says met / NOT met (a missed target is not a failure).
#   bash scripts/device-grid22.sh
set -uo pipefail
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs-grid22}
mkdir -p "$L"
. scripts/device-env.sh # .deps unpacked (Check), SP_ZLIB_ARGS
t0=$(date +%s)
status=0
failed=()
step() { # step NAME LIMIT_S COMMAND...: run under a time limit, log, remember failure
  local name=$1 limit=$2 s rc
  shift 2
  s=$(date +%s)
  timeout "$limit" "$@" >"$L/$name.log" 2>&1
  rc=$?
  echo "== $name: rc $rc, $(( $(date +%s) - s )) s (total $(( $(date +%s) - t0 )) s)"
  if [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 124 ] && echo "   cut at its limit of $limit s"
    tail -n 25 "$L/$name.log"
    status=1
    failed+=("$name")
  fi
  return "$rc"
}

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -n 1; git log --oneline -1 2>/dev/null || true; } | tee "$L/gpu.txt"
step configure 120 cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" || exit 1
step build 300 cmake --build build-gpu -j"$(nproc)" --target sp spbench bfs_loops_bench \
  check_gpu_bfs check_gpu_bfs_loops || exit 1
step ctest-loops 90 ctest --test-dir build-gpu -R "^check_gpu_bfs_loops$" --timeout 85 \
  --output-on-failure
for m in 1 0 2; do
  step loops-prefetch$m 60 ./build-gpu/bench/bfs_loops_bench --input grid4096 --reps 5 --prefetch $m
done
step loops-poll16 60 ./build-gpu/bench/bfs_loops_bench --input grid4096 --reps 5 --poll 16 256
step loops-poll4 60 ./build-gpu/bench/bfs_loops_bench --input grid4096 --reps 5 --poll 4 256
step spbench-grid 120 ./build-gpu/bench/spbench --gen grid2d:4096 --bfs --sources 8 \
  --bfs-validate 1 --bfs-variant frontier \
  --bfs-loop persistent,persistent_coop,graph,host,single_block
[ "${QUICK:-0}" = 1 ] || step ctest-bfs 150 ctest --test-dir build-gpu -R "^check_gpu_bfs$" \
  --timeout 140 --output-on-failure

echo
echo "== summary ($(( $(date +%s) - t0 )) s)"
cat "$L/gpu.txt"
grep -hE "tests passed|tests failed|\(Failed\)|\(Timeout\)|Not Run|Passed|\*\*\*Failed" \
  "$L"/ctest-*.log 2>/dev/null | head -n 10
for ab in loops-prefetch1 loops-prefetch0 loops-prefetch2 loops-poll16 loops-poll4; do
  f=$L/$ab.log
  [ -f "$f" ] || continue
  echo "-- bfs_loops_bench grid4096, $ab (CUDA events, median of 5 traversals)"
  grep -E "^(GPU|Persistent SOFT adjacency prefetch|Persistent grid|Levels):|_us_per_level:|_check:|^target_soft" "$f" | sed 's/^/   /'
  if grep -q "MISMATCH" "$f"; then echo "   MISMATCH in $f"; status=1; failed+=("$ab"); fi
done
f=$L/spbench-grid.log
per=""
if [ -f "$f" ]; then
  echo "-- spbench grid2d:4096, frontier variant (per call: host wall clock of each sp_bfs)"
  grep -E "^grid" "$f" | awk '{printf "   %-14s %-16s levels %8s  us/level %9s  valid %s\n", $2, $3, $11, $12, $14}'
  if grep -qE " NO( |$)|bfs_valid: NO" "$f"; then
    echo "   INVALID searches in $f"; status=1; failed+=("spbench-grid")
  fi
  per=$(grep -E "^grid" "$f" | awk '$2 == "frontier" && $3 == "persistent" {print $12; exit}')
  host=$(grep -E "^grid" "$f" | awk '$2 == "frontier" && $3 == "host" {print $12; exit}')
fi
if [ -n "$per" ]; then
  awk -v p="$per" -v h="${host:-0}" 'BEGIN {
    printf "TARGET grid 4096 persistent <= 3 us/level: %s (%.3f us/level; host loop %.3f, %.2fx)\n",
      (p <= 3 ? "met" : "NOT met"), p, h, (p > 0 ? h / p : 0) }'
else
  echo "TARGET grid 4096 persistent <= 3 us/level: no figure (spbench row missing)"
  status=1
fi
if [ "$status" -ne 0 ]; then echo "== FAILED: ${failed[*]:-see above}"; else echo "== all ok"; fi
exit "$status"
