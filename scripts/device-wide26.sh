#!/usr/bin/env bash
# Issue 20, SpTRSV and the solvers past the narrow limit on a CUDA context: a matrix with
# 64-bit offsets and more entries than the narrow limit (2^31; lowered to 1000 by the test
# hook) runs sp_sptrsv / sp_sptrsv_analyse (every algorithm and kernel) and every solver and
# loop on its CSR's own 64-bit pointers (the kernels' int64_t instances), with the 32-bit
# matrix's results bit for bit. On a 1-GPU machine (one device call each, see below):
# build build-gpu (Release, sm_90; only the suites below), then
#  1. check_gpu_offsets64's TCase past_narrow_limit alone (refusals_past_narrow_limit,
#     sptrsv_past_narrow_limit x 8 matrices, solvers_past_narrow_limit: 10 checks, none
#     skipped);
#  2. the suites whose paths changed, at the default width and forced to 64 bits (ctest:
#     check_gpu_offsets64, check_gpu_sptrsv, check_gpu_solver and their .offsets64
#     registrations, check_offsets64 on the host): the 32-bit and narrowed paths unchanged;
#  3. compute-sanitizer memcheck (leak check full) on step 1's case.
# Logs under $OUT (else build-gpu/logs-wide26). Prints "== PASS <step>" / "== FAIL <step>"
# and exits non-zero when any step fails. WIDE26_SUITES=0 leaves step 2 out, WIDE26_MEMCHECK=0
# step 3: where one call would run past 10 minutes (a cold build takes about 3), run
#   WIDE26_MEMCHECK=0 bash scripts/device-wide26.sh   then, on the warm machine,
#   WIDE26_SUITES=0 bash scripts/device-wide26.sh
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-wide26}; mkdir -p "$L"
. scripts/device-env.sh
export SP_BUILD_TARGETS="check_gpu_offsets64 check_gpu_sptrsv check_gpu_solver check_offsets64"
. scripts/device-build.sh # step, t0, fail; build-gpu built

# 1. the new case: every check run and passed (77, no GPU, is a failure here)
(cd build-gpu && CK_RUN_CASE=past_narrow_limit SP_SOURCE_DIR="$PWD/.." timeout 300 \
   ./tests/check_gpu_offsets64 >"$L/past-narrow-limit.log" 2>&1)
rc=$?; grep -E "Checks:|:[EF]:" "$L/past-narrow-limit.log" | head -20
grep -qE "100%: Checks: 10, Failures: 0, Errors: 0" "$L/past-narrow-limit.log" || rc=1
step past-narrow-limit $rc

# 2. the changed suites at both widths (none may be skipped)
if [ "${WIDE26_SUITES:-1}" = 1 ]; then
(cd build-gpu && timeout 360 ctest -j6 --timeout 340 --output-on-failure \
   -R '^(check_gpu_(offsets64|sptrsv|solver)(\..*)?|check_offsets64)$' \
   >"$L/ctest.log" 2>&1)
rc=$?; grep -E "tests passed|\((Failed|Timeout|Not Run|Skipped)\)" "$L/ctest.log" | head -25
grep -qE "Skipped|No tests were found" "$L/ctest.log" && rc=1
grep -qE "check_gpu_offsets64\.offsets64 \.+ +Passed" "$L/ctest.log" || rc=1
step suites-both-widths $rc
fi

# 3. memcheck on the past-the-limit case
if [ "${WIDE26_MEMCHECK:-1}" = 1 ]; then
(cd build-gpu && env CK_RUN_CASE=past_narrow_limit CK_FORK=no SP_SOURCE_DIR="$PWD/.." \
   SP_TEST_UNDER_SANITIZER=1 SP_TEST_SANITIZER_TOOL=memcheck timeout 300 \
   compute-sanitizer --tool memcheck --leak-check full --report-api-errors no \
   --error-exitcode 3 ./tests/check_gpu_offsets64 >"$L/memcheck.log" 2>&1)
rc=$?; grep -E "Checks:|LEAK SUMMARY|ERROR SUMMARY" "$L/memcheck.log" | tail -3
grep -q "ERROR SUMMARY: 0 errors" "$L/memcheck.log" || rc=1
step memcheck-past-narrow-limit $rc
fi

echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
