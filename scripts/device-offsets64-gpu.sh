#!/usr/bin/env bash
# Issue 20, second slice (64-bit offsets on a CUDA context: the device CSR build, CSR
# scalar/vector and COO SpMV, the view and info; everything else refused) on a 1-GPU
# machine, in one device call of about 10 minutes: build in build-gpu (Release, sm_90), then
#  1. check_gpu_offsets64 (GPU vs host, 32 vs 64 bit for bit, the refusals and their text)
#     and check_offsets64 (host; its cuda_accepts case runs for real with a GPU);
#  2. the quick GPU suites (ctest -L gpu -LE slow): the 32-bit paths must be unaffected;
#  3. compute-sanitizer memcheck on check_gpu_offsets64 (--report-api-errors no);
#  4. spbench --gen poisson3d:100 (7M entries) with --offsets 32 and 64 on the same card,
#     CSR and COO rows checked against the reference: the csr (DEFAULT), csr/scalar and
#     csr/vector times, and the ratio 64/32 printed; PASS when the DEFAULT row's ratio is at
#     most 1.10 and both runs checked clean; the refused rows of the 64-bit run must name
#     "64-bit offsets".
# Logs under $OUT (else build-gpu/logs). Prints "== PASS <step>" / "== FAIL <step>" lines
# and exits non-zero when any step fails.
#   bash scripts/device-offsets64-gpu.sh
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
. scripts/device-env.sh
. scripts/device-build.sh # step, t0, fail; build-gpu built

# 1. the new GPU suite and the host suite (a skip, 77, would hide the GPU: a failure here)
(cd build-gpu && timeout 300 ctest --output-on-failure -R '^(check_gpu_offsets64|check_offsets64)$' \
   >"$L/ctest-offsets64.log" 2>&1)
rc=$?; grep -E "tests passed|Failed|Timeout|Not Run|Skipped" "$L/ctest-offsets64.log" | head
grep -q "Skipped" "$L/ctest-offsets64.log" && rc=1
step offsets64-tests $rc

# 2. the quick GPU suites: 32-bit matrices unchanged
(cd build-gpu && timeout 480 ctest -j4 --timeout 450 --output-on-failure -L gpu -LE slow \
   >"$L/ctest-gpu.log" 2>&1)
rc=$?; grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run" "$L/ctest-gpu.log" | head -20
step gpu-suites $rc

# 3. memcheck on the new suite (in-process: CK_FORK=no, as the GPU suites run anyway)
SP_TEST_SMALL=1 SP_TEST_UNDER_SANITIZER=1 SP_TEST_SANITIZER_TOOL=memcheck CK_FORK=no \
  timeout 400 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 \
  ./build-gpu/tests/check_gpu_offsets64 >"$L/memcheck-offsets64.log" 2>&1
rc=$?; grep -E "ERROR SUMMARY|Checks" "$L/memcheck-offsets64.log" | tail -3
step memcheck-offsets64 $rc

# 4. SpMV with 32- and 64-bit offsets on the same card, back to back
for bits in 32 64; do
  timeout 300 ./build-gpu/bench/spbench --gen poisson3d:100 --offsets "$bits" \
    --formats csr,coo,csc,ell --reps 30 --check >"$L/spbench-offsets$bits.log" 2>&1
  echo "spbench --offsets $bits: rc=$?" | tee -a "$L/spbench-rc.txt"
done
grep -E "^(offset_bits|format: (csr|coo|csc|ell))" "$L/spbench-offsets64.log" | cut -c1-160
ms() { # log label: the median SpMV ms of the row `format: <label> `
  grep -E "^format: $2 " "$1" | grep -oE "spmv_ms: [0-9.]+" | head -1 | awk '{print $2}'
}
ok=1
grep -q "spbench --offsets 32: rc=0" "$L/spbench-rc.txt" || ok=0
grep -q "spbench --offsets 64: rc=0" "$L/spbench-rc.txt" || ok=0
grep -q "^offset_bits: 64" "$L/spbench-offsets64.log" || ok=0
# below the narrow limit CSC and csr/merge are served at 64 bits (the device narrowing,
# scripts/device-narrow20.sh): their rows must run, not be refused
grep -qE "^format: csc " "$L/spbench-offsets64.log" || ok=0
grep -qE "^format: (csc|csr/merge) .*refused" "$L/spbench-offsets64.log" && ok=0
for label in csr csr/scalar csr/vector coo; do
  a=$(ms "$L/spbench-offsets32.log" "$label"); b=$(ms "$L/spbench-offsets64.log" "$label")
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo "offsets64_ratio: $label n/a (32: '${a}' 64: '${b}')"; ok=0; continue
  fi
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b / a}')
  echo "offsets64_ratio: $label 64-bit ${b} ms / 32-bit ${a} ms = ${ratio} (target <= 1.10 for csr)"
  if [ "$label" = csr ] && ! awk -v r="$ratio" 'BEGIN{exit !(r <= 1.10)}'; then ok=0; fi
done
# every row that ran was checked: max_rel_err printed and below 1e-10 (double)
if grep -E "^format: (csr|coo)" "$L/spbench-offsets64.log" | grep -v refused \
     | grep -oE "max_rel_err: [0-9.e+-]+" | awk '{ if ($2 > 1e-10) bad=1 } END { exit bad }'; then :
else echo "a 64-bit row's max_rel_err is above 1e-10"; ok=0; fi
[ "$ok" -eq 1 ] && step spbench-offsets64 0 || step spbench-offsets64 1

echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
