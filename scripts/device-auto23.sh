#!/usr/bin/env bash
# Issue 23 (and the solver setup's SpMV choice) on a 1-GPU H100 in one call (about 9
# minutes): build in build-gpu, run the SpMV and solver GPU suites (check_gpu_spmv's three
# cases, check_gpu_spmv_prepare, check_gpu_solver, both offset widths, check_policy), then
# scripts/device-spmv23.sh's benchmark part (spbench --suite and --suite-wide against
# cuSPARSE, the model replay joined with the run, the targets). Logs in
# build-gpu/logs-auto23, tarred into $OUT as auto23-logs.tgz.
#   bash scripts/device-auto23.sh
set -uo pipefail
cd "$(dirname "$0")/.."
logs=build-gpu/logs-auto23
mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
build_gpu 300 check_gpu_spmv check_gpu_spmv_prepare check_gpu_solver check_policy \
  check_spmv_long_rows spbench spmv_model_replay || exit 1
step tests 220 ctest --test-dir build-gpu --output-on-failure -j6 --timeout 210 \
  -R '^(check_gpu_spmv|check_gpu_spmv_prepare|check_gpu_solver|check_policy)'
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Skipped" "$logs/tests.log" | tail -n 14
mkdir -p "$logs/spmv23"
OUT="$logs/spmv23" bash scripts/device-spmv23.sh 0 170 220 2>&1 | tee "$logs/spmv23.log" \
  | grep -E "^(== |TARGET|auto_|worst_|csc_)|over 1.10|max ratio" || status=1
[ -n "${OUT:-}" ] && tar -C "$logs" -czf "$OUT/auto23-logs.tgz" .
[ $status = 0 ] && echo "device-auto23: PASSED" || echo "device-auto23: FAILED"
exit $status
