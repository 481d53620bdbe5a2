#!/usr/bin/env bash
# Issue 20's two measured targets on a 1-GPU H100 or H200, in one device call (600 s limit;
# about 4-6 minutes): build upload_bench and spmv64_bench in build-gpu (Release, sm_90),
# then
#  0. their three small ctest entries (upload_bench_small{,_offsets64}, spmv64_bench_small);
#  1. upload_bench on poisson3d:160, kron:22 and kron:23: host COO (shuffled, pageable
#     arrays) -> device CSR, upload included; libsp against the plain cuSPARSE path and the
#     pinned host link, interleaved, medians of 5; the CSRs compared array for array. FAIL on
#     a mismatch or a refusal; the targets (cuSPARSE/libsp >= 1.5, libsp/link <= 1.3) are
#     printed met or missed, not verdicts;
#  2. spmv64_bench --n 160 --offsets 64 (28.5M entries, 64-bit offsets): libsp SpMV (AUTO,
#     CSR) against cuSPARSE CSR with 64-bit row offsets and the streaming read bandwidth;
#     FAIL when y differs from cuSPARSE's or anything is refused;
#  3. spmv64_bench --n 700 --offsets 64 (2.4 billion entries): the same past 2^31 entries.
#     Until the library takes CUDA matrices past 2^31 entries it refuses; that prints
#     "== REFUSED spmv64-700: <the library's message>" and is not counted as a failure.
# Targets of 2 and 3: speedup >= 1.3 over cuSPARSE and bw_fraction >= 0.85 (met / missed).
# Logs under $OUT (else build-gpu/logs). Prints "== PASS <step>" / "== FAIL <step>" lines,
# the benches' summary lines (upload:, spmv64:), and exits non-zero when a step fails.
#   bash scripts/device-bench20.sh
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
. scripts/device-env.sh
SP_BUILD_TARGETS="upload_bench spmv64_bench"
. scripts/device-build.sh # step, t0, fail; build-gpu built
B=./build-gpu/bench
budget=560 # seconds for the whole script; step 3 gets what is left
free -g | head -2 | tee "$L/host-memory.txt"

# 0. the benches' small ctest entries (label gpu): CSRs from shuffled entries at 32 and 64
#    bits, SpMV with 64-bit offsets, all checked against cuSPARSE (seconds)
(cd build-gpu && timeout 120 ctest --output-on-failure -R '^(upload_bench_small|upload_bench_small_offsets64|spmv64_bench_small)$' \
   >"$L/ctest-small.log" 2>&1)
rc=$?; grep -E "tests passed|Failed|Timeout|Not Run|Skipped" "$L/ctest-small.log" | head
grep -q "Skipped" "$L/ctest-small.log" && rc=1 # a skip (77) means no GPU: a failure here
step bench-small $rc

# 1. host COO -> device CSR
timeout 240 "$B/upload_bench" --inputs poisson3d:160,kron:22,kron:23 --reps 5 \
  >"$L/upload.log" 2>&1
rc=$?
grep -E "^(GPU|input|upload)" "$L/upload.log"
grep -E "^\|" "$L/upload.log"
[ "$rc" -ne 0 ] && tail -5 "$L/upload.log"
step upload-bench $rc

# 2, 3. SpMV with 64-bit offsets, below and past 2^31 entries
spmv64() { # n timeout
  timeout "$2" "$B/spmv64_bench" --n "$1" --offsets 64 >"$L/spmv64-$1.log" 2>&1
  local rc=$?
  grep -E "^(GPU|spmv64)" "$L/spmv64-$1.log"
  if [ "$rc" -eq 3 ]; then
    echo "== REFUSED spmv64-$1: $(grep -m1 'refused' "$L/spmv64-$1.log")"
    return 3
  fi
  [ "$rc" -ne 0 ] && tail -5 "$L/spmv64-$1.log"
  step "spmv64-$1" $rc
  return $rc
}
spmv64 160 120
[ $? -eq 3 ] && step spmv64-160-refused 1 # below 2^31 entries a refusal is a failure
left=$(( budget - ($(date +%s) - t0) ))
if [ "$left" -lt 60 ]; then
  echo "== SKIPPED spmv64-700: only $left s left of the script's $budget s"
else
  spmv64 700 "$left"
fi

echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
