#!/usr/bin/env bash
# Issue 23's closing check in one device call on a machine with two GPUs: build everything
# once in build-gpu (Release, sm_90), then side by side the whole ctest (-j8, GPU suites
# included) on GPU 0 and the SpMV tables (scripts/device-spmv23.sh without its tests, which
# the ctest runs) on GPU 1. Logs under $OUT/l/{ctest,spmv} (else build-gpu/logs-close).
# Exit status non-zero when the build, a test or a benchmark run fails.
#   bash scripts/device-close23.sh [CTEST_LIMIT_S] [SUITE_LIMIT_S] [WIDE_LIMIT_S]
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-close}; mkdir -p "$L/ctest" "$L/spmv"
ctest_limit=${1:-480}; suite_limit=${2:-200}; wide_limit=${3:-260}
. scripts/device-env.sh
t0=$(date +%s)
sp_two_gpus_ctest "$L" "$ctest_limit" "$L/ctest/ctest.log" "$L/ctest/rc" || exit 1
CUDA_VISIBLE_DEVICES=1 SP_BUILD_SKIP=1 OUT="$L/spmv" bash scripts/device-spmv23.sh 0 \
  "$suite_limit" "$wide_limit" >"$L/spmv/spmv23.out" 2>&1
spmv_rc=$?
wait
ctest_rc=$(cat "$L/ctest/rc" 2>/dev/null || echo 255)
echo "== ctest on GPU 0, rc $ctest_rc"
grep -E "tests passed|Total Test time|\*\*\*Failed|\*\*\*Timeout|Not Run|Skipped|SKIP" \
  "$L/ctest/ctest.log" | tail -n 25
echo "== SpMV tables on GPU 1, rc $spmv_rc"
grep -E "^== (suite|wide) rc|MET|SHORT|geomean|PASSED|FAIL" "$L/spmv/spmv23.out" | head -40
echo "== total $(( $(date +%s) - t0 )) s"
[ "$ctest_rc" = 0 ] && [ "$spmv_rc" = 0 ]
