#!/usr/bin/env bash
# Issue 22, deliverable 4, on a 1-GPU H100 in about 3 minutes: the onesweep radix sort's
# test case (with its look-back watchdog test), the sort against CUB (prim_bench --only
# sort: the default passes, then with SP_BENCH_ONESWEEP=1 the onesweep ones beside them),
# the CSR -> CSC cases of check_gpu_convert (default and scatter transpose), and CSR -> CSC
# against cuSPARSE on Kronecker 22 and Poisson 160^3 (convert_bench --transpose-only: the
# default sort path and the scatter transpose, each of the values and of the pattern).
# Builds in build-gpu (Release, sm_90, only the targets used). Every step runs under
# `timeout`; the benchmarks' CHECK lines (libsp ms, CUB or cuSPARSE ms, ratio, bit-exact)
# are shown as they come, a line "sort22: PASS|FAIL|CUT <step> (<s> s)" as each step ends,
# and TARGET lines at the end. Logs under $OUT (default build-gpu/logs-sort22).
# Exit: 0 all passed and bit-exact; 1 a test failed, was cut or a row MISMATCHed (the
# TARGET lines are information: the ratios decide the defaults, not this script).
#   bash scripts/device-sort22.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-sort22}
mkdir -p "$L"
. scripts/device-env.sh # .deps unpacked (Check), SP_ZLIB_ARGS
t0=$(date +%s)
rc=0
step() { # step NAME LIMIT_S COMMAND...: run under timeout into $L/NAME.log (its CHECK lines
  #        shown as they come), say how it ended
  local name=$1 limit=$2 s r
  shift 2
  s=$(date +%s)
  timeout "$limit" "$@" 2>&1 | tee "$L/$name.log" | grep --line-buffered -E "^CHECK" | sed -u 's/^/   /'
  r=${PIPESTATUS[0]}
  if [ "$r" -eq 0 ]; then
    echo "sort22: PASS $name ($(( $(date +%s) - s )) s, total $(( $(date +%s) - t0 )) s)"
  elif [ "$r" -eq 124 ]; then
    echo "sort22: CUT $name at its limit of $limit s (total $(( $(date +%s) - t0 )) s)"
    tail -n 15 "$L/$name.log"; rc=1
  else
    echo "sort22: FAIL $name rc $r ($(( $(date +%s) - s )) s)"
    tail -n 25 "$L/$name.log"; rc=1
  fi
  return "$r"
}
checks() { # a MISMATCH among a benchmark's CHECK lines fails the run
  if grep -E "^CHECK" "$L/$1.log" | grep -q MISMATCH; then
    echo "sort22: FAIL $1 has a MISMATCH row"; rc=1
  fi
}

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -n 1; git log --oneline -1 2>/dev/null || true; } | tee "$L/gpu.txt"
step configure 60 cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" || exit 1
step build 150 cmake --build build-gpu -j"$(nproc)" --target check_gpu_prim \
  check_gpu_convert prim_bench convert_bench || exit 1

# 1. the onesweep sort: its case (the sorts of the default case again, and the watchdog:
#    a tile that never publishes must give SP_STATUS_DEVICE_ERROR after 200 ms, not hang);
#    CK_FORK=no so a hang shows as the step's cut, not as a forked child waited on
step onesweep-test 90 env CK_FORK=no SP_TEST_ONESWEEP=1 CK_RUN_CASE=radix_sort_onesweep \
  ./build-gpu/tests/check_gpu_prim
# 2. the sort against CUB, the default passes and the onesweep ones, 2^20..2^27
step sort-vs-cub 60 env SP_BENCH_ONESWEEP=1 ./build-gpu/bench/prim_bench --only sort
checks sort-vs-cub
# 3. the transposes' tests (values and patterns, empty rows and columns, hubs, datasets)
step convert-tests 90 ctest --test-dir build-gpu -R "check_gpu_convert" -j2 --timeout 85 \
  --output-on-failure
# 4. CSR -> CSC against cuSPARSE, both paths, values and pattern
step transpose-vs-cusparse 120 ./build-gpu/bench/convert_bench --transpose-only \
  --input kron22 --input poisson160
checks transpose-vs-cusparse

# the targets (information): onesweep u32 / u64 pairs at 2^26 >= 0.9x CUB; CSR -> CSC >= 1.0x
awk '/^CHECK radix sort onesweep, n 67108864, u(32|64) keys, (32|64) bits, pairs/ ||
     /^CHECK radix sort, n 67108864, u(32|64) keys, (32|64) bits, pairs/ {
       for (i = 1; i <= NF; i++) if ($i == "throughput") x = $(i + 1); sub(/x,?$/, "", x)
       split($0, a, ":"); printf "TARGET %s: %sx CUB (>= 0.9: %s)\n", substr(a[1], 7), x, (x + 0 >= 0.9 ? "met" : "missed") }' \
  "$L/sort-vs-cub.log"
awk '/^CHECK .*CSR->CSC/ {
       for (i = 1; i <= NF; i++) if ($i == "throughput") x = $(i + 1); sub(/x,?$/, "", x)
       split($0, a, ":"); printf "TARGET %s: %sx cuSPARSE (>= 1.0: %s)\n", substr(a[1], 7), x, (x + 0 >= 1.0 ? "met" : "missed") }' \
  "$L/transpose-vs-cusparse.log"

echo "== sort22: $([ "$rc" -eq 0 ] && echo "all passed, every row bit-exact" || echo FAILED) in $(( $(date +%s) - t0 )) s; logs in $L"
exit "$rc"
