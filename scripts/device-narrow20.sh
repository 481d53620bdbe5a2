#!/usr/bin/env bash
# Issue 20, the device narrowing: below the narrow limit (2^31 entries) a matrix with 64-bit
# offsets refuses nothing on a CUDA context (ELL with a tail, HYB, JDS, SELL, CSC, CSR
# merge/split/binned/adaptive, SpTRSV, the solvers, tune, the diagonal: through the CSR's
# pointers narrowed on the device), and the GPU suites run with 64-bit offsets forced
# (ctest label offsets64gpu: each GPU test registered again as <test>.offsets64 with
# SP_TEST_OFFSET_BITS=64; the BFS ones left out, tests/CMakeLists.txt
# SP_TEST_OFFSETS64GPU_EXCLUDED). On a 1-GPU machine in one device call of under 10 minutes:
# build build-gpu (Release, sm_90), then
#  1. check_gpu_offsets64 at the default width and forced to 64, and check_offsets64 (host;
#     its default_width and cuda_accepts cases touch the GPU): none may be skipped, and the
#     forced run's default_width case is what proves the mode took effect;
#  2. the quick GPU suites (ctest -L gpu -LE 'slow|offsets64gpu'): 32-bit matrices unchanged;
#  3. the same suites forced to 64 bits (ctest -L offsets64gpu -LE slow); none skipped;
#  4. compute-sanitizer memcheck on check_gpu_offsets64 (the narrowed paths and the
#     refusals) and on check_gpu_solver forced to 64 bits (SP_TEST_SMALL=1; the fused steps,
#     the diagonal and the triangular solves on narrowed pointers);
#  5. with FULL=1 also the slow GPU suites at both widths (minutes more: may not fit one
#     10-minute call together with the rest; run it as a second call).
# Logs under $OUT (else build-gpu/logs-narrow20). Prints "== PASS <step>" / "== FAIL <step>"
# lines and exits non-zero when any step fails.
#   bash scripts/device-narrow20.sh          (FULL=1 bash scripts/device-narrow20.sh)
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-narrow20}; mkdir -p "$L"
. scripts/device-env.sh
unset SP_BUILD_TARGETS # everything: ctest -L gpu also runs the benchmarks' small cases
. scripts/device-build.sh # step, t0, fail; build-gpu built

# ctest's summary lines; a "Skipped" (77: no usable GPU) would make a step pass vacuously
summary() { grep -E "tests passed|\((Failed|Timeout|Not Run|Skipped)\)|Skipped|No tests" "$1" | head -25; }
no_skips() { ! grep -qE "Skipped|No tests were found" "$1"; }

# 1. the suite of the narrowing at both widths, and the host suite
(cd build-gpu && timeout 360 ctest --output-on-failure \
   -R '^(check_gpu_offsets64|check_gpu_offsets64\.offsets64|check_offsets64)$' \
   >"$L/ctest-offsets64.log" 2>&1)
rc=$?; summary "$L/ctest-offsets64.log"
no_skips "$L/ctest-offsets64.log" || rc=1
grep -qE "check_gpu_offsets64\.offsets64 \.+ +Passed" "$L/ctest-offsets64.log" || rc=1
[ "$(grep -cE "(check_gpu_offsets64|check_gpu_offsets64\.offsets64|check_offsets64) \.+ +Passed" \
     "$L/ctest-offsets64.log")" -eq 3 ] || rc=1
step offsets64-suites $rc

# 2. the quick GPU suites at the default width
(cd build-gpu && timeout 420 ctest -j4 --timeout 400 --output-on-failure \
   -L gpu -LE 'slow|offsets64gpu' >"$L/ctest-gpu32.log" 2>&1)
rc=$?; summary "$L/ctest-gpu32.log"
no_skips "$L/ctest-gpu32.log" || rc=1
step gpu-suites-32 $rc

# 3. the same suites with 64-bit offsets forced (registered as <test>.offsets64)
(cd build-gpu && timeout 420 ctest -j4 --timeout 400 --output-on-failure \
   -L offsets64gpu -LE slow >"$L/ctest-gpu64.log" 2>&1)
rc=$?; summary "$L/ctest-gpu64.log"
no_skips "$L/ctest-gpu64.log" || rc=1
grep -qE "check_gpu_offsets64\.offsets64 \.+ +Passed" "$L/ctest-gpu64.log" || rc=1
echo "left out of the forced run (BFS): $(grep -oE 'set\(SP_TEST_OFFSETS64GPU_EXCLUDED[^)]*' \
  tests/CMakeLists.txt | tr -s ' \n' ' ' | cut -d' ' -f2-)"
step gpu-suites-64 $rc

# 4. memcheck: the narrowing suite, and one forced suite at small size (in-process, as the
#    GPU suites run anyway)
SP_TEST_SMALL=1 SP_TEST_UNDER_SANITIZER=1 SP_TEST_SANITIZER_TOOL=memcheck CK_FORK=no \
  timeout 420 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 \
  ./build-gpu/tests/check_gpu_offsets64 >"$L/memcheck-offsets64.log" 2>&1
rc=$?; grep -E "ERROR SUMMARY|Checks|Failures|Errors" "$L/memcheck-offsets64.log" | tail -3
step memcheck-offsets64 $rc
SP_TEST_OFFSET_BITS=64 SP_TEST_SMALL=1 SP_TEST_UNDER_SANITIZER=1 SP_TEST_SANITIZER_TOOL=memcheck \
  CK_FORK=no SP_SOURCE_DIR="$PWD" timeout 300 compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 3 ./build-gpu/tests/check_gpu_solver \
  >"$L/memcheck-solver64.log" 2>&1
rc=$?; grep -E "SP_TEST_OFFSET_BITS=64|ERROR SUMMARY|Checks|Failures|Errors" \
  "$L/memcheck-solver64.log" | tail -4
grep -q "SP_TEST_OFFSET_BITS=64: matrices default to 64-bit offsets" "$L/memcheck-solver64.log" || rc=1
step memcheck-solver-64 $rc

# 5. optional: the slow GPU suites at both widths
if [ "${FULL:-0}" = 1 ]; then
  (cd build-gpu && timeout 580 ctest -j2 --timeout 560 --output-on-failure -L slow -L gpu \
     >"$L/ctest-gpu-slow.log" 2>&1)
  rc=$?; summary "$L/ctest-gpu-slow.log"
  no_skips "$L/ctest-gpu-slow.log" || rc=1
  step gpu-suites-slow-both-widths $rc
fi

echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
