#!/usr/bin/env bash
# Issue 20, every format past the narrow limit (2^31 entries) with 64-bit offsets: on a CUDA
# context CSC (the 64-bit transpose and CSC SpMV), ELL with a tail, HYB, JDS and SELL (64-bit
# offsets of their own) are converted from the 64-bit CSR itself, and sp_spmv_tune times what
# serves there. The test hook lowers the limit, so all of it runs at small sizes. On a 1-GPU
# machine: build build-gpu (Release, sm_90; only the suites below), then
#  1. check_gpu_offsets64's TCase past_narrow_limit alone (wide_catalogue: 11 matrices x
#     CSC, ELL, HYB, JDS, SELL arrays against the 32-bit matrix, SpMV within rounding of the
#     host, csr/merge and split, tune; refusals_past_narrow_limit: what still refuses;
#     and, from issue 20's SpTRSV slice, sptrsv_ and solvers_past_narrow_limit);
#  2. check_gpu_offsets64 whole at the default width and forced to 64 bits, and
#     check_offsets64 (host): none may be skipped;
#  3. the 32-bit paths the change touched, at both widths: check_gpu_convert (every
#     conversion against the host twins, the transpose's scatter path), check_gpu_spmv's
#     shapes case (every format's SpMV), check_gpu_context (the views) and check_gpu_bfs's
#     offsets64 case (pull steps on the CSC);
#  4. compute-sanitizer memcheck (leak check full) on step 1's TCase.
# WIDE23_STEPS picks the steps: "tests" (1-3), "memcheck" (4), default both. To stay under
# 10 minutes a device call, run them in two calls on the same warm machine (the second
# finds build-gpu built):
#   WIDE23_STEPS=tests bash scripts/device-wide23.sh
#   WIDE23_STEPS=memcheck bash scripts/device-wide23.sh
# Logs under $OUT (else build-gpu/logs-wide23). Prints "== PASS <step>" / "== FAIL <step>"
# lines and exits non-zero when any step fails.
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-wide23}; mkdir -p "$L"
. scripts/device-env.sh
export SP_BUILD_TARGETS="check_gpu_offsets64 check_offsets64 check_gpu_convert check_gpu_spmv
  check_gpu_context check_gpu_bfs"
SP_BUILD_TARGETS=$(echo $SP_BUILD_TARGETS)
. scripts/device-build.sh # step, t0, fail; build-gpu built

STEPS=${WIDE23_STEPS:-tests memcheck}
summary() { grep -E "tests passed|\((Failed|Timeout|Not Run|Skipped)\)|Skipped|No tests" "$1" | head -25; }
no_skips() { ! grep -qE "Skipped|No tests were found" "$1"; }

if [[ " $STEPS " == *" tests "* ]]; then
# 1. the past-the-limit case alone (Check's own summary: 100% and no skip, exit 0)
( CK_RUN_CASE=past_narrow_limit SP_SOURCE_DIR="$PWD" timeout 300 \
    ./build-gpu/tests/check_gpu_offsets64 >"$L/past-limit.log" 2>&1 )
rc=$?; grep -E "Checks:|:F:|:E:" "$L/past-limit.log" | head -20
grep -qE "^100%: Checks: [1-9]" "$L/past-limit.log" || rc=1
step past-narrow-limit $rc

# 2. the whole suite at both widths, and the host suite
(cd build-gpu && timeout 420 ctest --output-on-failure -j3 \
   -R '^(check_gpu_offsets64|check_gpu_offsets64\.offsets64|check_offsets64)$' \
   >"$L/ctest-offsets64.log" 2>&1)
rc=$?; summary "$L/ctest-offsets64.log"
no_skips "$L/ctest-offsets64.log" || rc=1
[ "$(grep -cE "(check_gpu_offsets64|check_gpu_offsets64\.offsets64|check_offsets64) \.+ +Passed" \
     "$L/ctest-offsets64.log")" -eq 3 ] || rc=1
step offsets64-suites $rc

# 3. the touched 32-bit paths, at both widths
(cd build-gpu && timeout 480 ctest --output-on-failure -j4 --timeout 400 \
   -R '^(check_gpu_convert\.(convert|transpose_scatter)|check_gpu_spmv\.shapes|check_gpu_context)(\.offsets64)?$' \
   >"$L/ctest-touched.log" 2>&1)
rc=$?; summary "$L/ctest-touched.log"
no_skips "$L/ctest-touched.log" || rc=1
[ "$(grep -cE " \.+ +Passed" "$L/ctest-touched.log")" -eq 8 ] || rc=1
step touched-suites $rc
( CK_RUN_CASE=offsets64 SP_SOURCE_DIR="$PWD" timeout 300 ./build-gpu/tests/check_gpu_bfs \
    >"$L/bfs-offsets64.log" 2>&1 )
rc=$?; grep -E "Checks:" "$L/bfs-offsets64.log" | tail -1
grep -qE "^100%: Checks: [1-9]" "$L/bfs-offsets64.log" || rc=1
step bfs-offsets64 $rc
fi

# 4. memcheck of the past-the-limit case
if [[ " $STEPS " == *" memcheck "* ]]; then
( env SP_TEST_SMALL=1 SP_TEST_UNDER_SANITIZER=1 SP_TEST_SANITIZER_TOOL=memcheck CK_FORK=no \
    CK_RUN_CASE=past_narrow_limit SP_SOURCE_DIR="$PWD" \
    timeout 540 compute-sanitizer --tool memcheck --leak-check full --report-api-errors no \
    --error-exitcode 3 ./build-gpu/tests/check_gpu_offsets64 >"$L/memcheck-past-limit.log" 2>&1 )
rc=$?; grep -E "Checks:|LEAK SUMMARY|ERROR SUMMARY" "$L/memcheck-past-limit.log" | tail -3
grep -q "ERROR SUMMARY: 0 errors" "$L/memcheck-past-limit.log" || rc=1
step memcheck-past-limit $rc
fi

echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
