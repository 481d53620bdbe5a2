#!/usr/bin/env bash
# Issue 20, the device narrowing: below the narrow limit (2^31 entries) a matrix with 64-bit
# offsets refuses nothing on a CUDA context (ELL with a tail, HYB, JDS, SELL, CSC, CSR
# merge/split/binned/adaptive, SpTRSV, the solvers, tune, the diagonal: through the CSR's
# pointers narrowed on the device), and the GPU suites run with 64-bit offsets forced
# (ctest label offsets64gpu: each GPU test registered again as <test>.offsets64 with
# SP_TEST_OFFSET_BITS=64; BFS through its 64-bit kernels; any left out are listed in
# tests/CMakeLists.txt SP_TEST_OFFSETS64GPU_EXCLUDED). On a 1-GPU machine in one device call of under 10 minutes:
# build build-gpu (Release, sm_90), then
#  1. check_gpu_offsets64 at the default width and forced to 64, and check_offsets64 (host;
#     its default_width and cuda_accepts cases touch the GPU): none may be skipped, and the
#     forced run's default_width case is what proves the mode took effect;
#  2. every GPU test (ctest -L gpu, slow ones included, -j8) at the default width: 32-bit
#     matrices unchanged;
#  3. in the same ctest run, the same suites forced to 64 bits (label offsets64gpu, tests
#     named <test>.offsets64), judged apart; none may be skipped;
#  4. compute-sanitizer memcheck (--leak-check full) side by side: check_gpu_offsets64 (the
#     narrowed paths and the refusals), and at small size with 64 bits forced
#     check_gpu_alloc_sweep's formats and solvers cases (the narrowed pointers' rollback
#     under failing allocations) and check_gpu_solver's fused case (the fused steps, the
#     diagonal and the triangular solves on narrowed pointers), and check_gpu_bfs's
#     offsets64 case (every BFS kernel's int64_t instance).
# Logs under $OUT (else build-gpu/logs-narrow20). Prints "== PASS <step>" / "== FAIL <step>"
# lines and exits non-zero when any step fails. NARROW20_CTEST_LIMIT (default 480 s) bounds
# the ctest run of steps 2+3 (check_gpu_bfs and its .offsets64 run alone, RUN_SERIAL: about
# 110 s of it); NARROW20_MEMCHECK=0 leaves step 4 out (then the whole GPU ctest at both
# widths fits one device call with room to spare; the memchecks another).
# About 6 minutes on a warm H100/H200 (build-gpu already built): the ctest run about 3, the
# memchecks up to 5 (their limit).
#   bash scripts/device-narrow20.sh
#   NARROW20_WHOLE=1 NARROW20_MEMCHECK=0 bash scripts/device-narrow20.sh   (the whole ctest)
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-narrow20}; mkdir -p "$L"
. scripts/device-env.sh
unset SP_BUILD_TARGETS # everything: ctest -L gpu also runs the benchmarks' small cases
. scripts/device-build.sh # step, t0, fail; build-gpu built

# ctest's summary lines; a "Skipped" (77: no usable GPU) would make a step pass vacuously
summary() { grep -E "tests passed|\((Failed|Timeout|Not Run|Skipped)\)|Skipped|No tests" "$1" | head -25; }
no_skips() { ! grep -qE "Skipped|No tests were found" "$1"; }

# NARROW20_SUITES=0 leaves steps 1-3 out (the memchecks alone, on a warm machine)
if [ "${NARROW20_SUITES:-1}" = 1 ]; then
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

# 2+3. every GPU test (label gpu) in one ctest run on the card, side by side: the suites at
#    the default width (32 bits; 32-bit matrices unchanged) and their <test>.offsets64
#    registrations (64-bit offsets forced); judged apart, none may be skipped
#    (NARROW20_WHOLE=1: every test of every label, host included, in that one run, then the
#    host suites again with 64-bit offsets forced, as CI's step runs them: the whole ctest)
label=(-L gpu)
[ "${NARROW20_WHOLE:-0}" = 1 ] && label=()
(cd build-gpu && timeout "${NARROW20_CTEST_LIMIT:-480}" ctest -j8 --timeout 400 \
   --output-on-failure "${label[@]}" >"$L/ctest-gpu.log" 2>&1)
rc_all=$?; summary "$L/ctest-gpu.log"
grep -E "Test +#[0-9]+: " "$L/ctest-gpu.log" >"$L/ctest-gpu-results.txt"
judge() { # label name-filter (grep -E, -v when $3 = v): every line Passed, at least one
  local lines
  if [ "${3:-}" = v ]; then lines=$(grep -vE "$2" "$L/ctest-gpu-results.txt")
  else lines=$(grep -E "$2" "$L/ctest-gpu-results.txt"); fi
  local n_all n_pass
  n_all=$(printf '%s\n' "$lines" | grep -c "Test")
  n_pass=$(printf '%s\n' "$lines" | grep -cE " +Passed ")
  echo "$1: $n_pass of $n_all passed"
  printf '%s\n' "$lines" | grep -vE " +Passed " | grep "Test" | head -20
  [ "$n_all" -gt 0 ] && [ "$n_pass" -eq "$n_all" ]
}
judge "gpu tests at 32 bits" '\.offsets64 ' v; rc=$?
[ "$rc_all" -eq 124 ] && rc=1
step gpu-suites-32 $rc
judge "gpu tests forced to 64 bits" '\.offsets64 '; rc=$?
grep -qE "check_gpu_offsets64\.offsets64 \.+ +Passed" "$L/ctest-gpu-results.txt" || rc=1
[ "$rc_all" -eq 124 ] && rc=1
echo "left out of the forced run: $(tr '\n' ' ' <tests/CMakeLists.txt |
  sed -n 's/.*set(SP_TEST_OFFSETS64GPU_EXCLUDED\([^)]*\)).*/\1/p' | tr -s ' ')"
step gpu-suites-64 $rc
if [ "${NARROW20_WHOLE:-0}" = 1 ]; then
  (cd build-gpu && SP_TEST_OFFSET_BITS=64 timeout 240 ctest -j8 --output-on-failure \
     -L '^offsets64$' >"$L/ctest-host-64.log" 2>&1)
  rc=$?; summary "$L/ctest-host-64.log"; no_skips "$L/ctest-host-64.log" || rc=1
  step host-suites-64 $rc
fi
fi # NARROW20_SUITES

# 4. memcheck (leak check full), side by side on the card: the narrowing suite, and forced
#    to 64 bits at small size the allocation-failure sweeps of every format's build and
#    SpMV and of the solvers and SpTRSV (the narrowed pointers' rollback), and the solvers'
#    fused case (the fused steps, the diagonal and the triangular solves on narrowed
#    pointers)
if [ "${NARROW20_MEMCHECK:-1}" = 1 ]; then
mc() { # name env... -- command: memcheck into $L/memcheck-NAME.log, rc into $L/memcheck-NAME.rc
  local name=$1; shift
  ( env SP_TEST_SMALL=1 SP_TEST_UNDER_SANITIZER=1 SP_TEST_SANITIZER_TOOL=memcheck CK_FORK=no \
      SP_SOURCE_DIR="$PWD" "$@" >"$L/memcheck-$name.log" 2>&1; echo $? >"$L/memcheck-$name.rc" )
}
MC=(timeout 240 compute-sanitizer --tool memcheck --leak-check full --report-api-errors no
    --error-exitcode 3)
mc offsets64 "${MC[@]}" ./build-gpu/tests/check_gpu_offsets64 &
mc alloc-formats-64 SP_TEST_OFFSET_BITS=64 CK_RUN_CASE=formats "${MC[@]}" \
  ./build-gpu/tests/check_gpu_alloc_sweep &
mc alloc-solvers-64 SP_TEST_OFFSET_BITS=64 CK_RUN_CASE=solvers "${MC[@]}" \
  ./build-gpu/tests/check_gpu_alloc_sweep &
mc solver-fused-64 SP_TEST_OFFSET_BITS=64 CK_RUN_CASE=fused "${MC[@]}" \
  ./build-gpu/tests/check_gpu_solver &
wait
# alone on the GPU: beside other sanitizer processes the tools report false errors at the
# graph loop's first search (bench/results/h200-sanitize.md)
mc bfs-offsets64 CK_RUN_CASE=offsets64 "${MC[@]}" ./build-gpu/tests/check_gpu_bfs
for name in offsets64 alloc-formats-64 alloc-solvers-64 solver-fused-64 bfs-offsets64; do
  rc=$(cat "$L/memcheck-$name.rc" 2>/dev/null || echo 1)
  grep -E "Checks:|LEAK SUMMARY|ERROR SUMMARY" "$L/memcheck-$name.log" | tail -3
  grep -q "ERROR SUMMARY: 0 errors" "$L/memcheck-$name.log" || rc=1
  case $name in *-64)
    grep -q "SP_TEST_OFFSET_BITS=64: matrices default to 64-bit offsets" \
      "$L/memcheck-$name.log" || rc=1 ;;
  esac
  step "memcheck-$name" "$rc"
done
fi

echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
