#!/usr/bin/env bash
# Issue 23 on a 1-GPU H100, in one device call of at most 8 minutes: build the targets it
# needs in build-gpu (Release, sm_90), run check_gpu_spmv (its cases shapes, large, wide side
# by side), the policy test and the host long-row test, then `spbench --suite` and
# `spbench --suite-wide` (every format and CSR algorithm timed against cuSPARSE CSR_ALG1 in
# the same run). Prints per input the best row, AUTO's ratio to it and to cuSPARSE, the
# worst format's ratio to the best, the geomeans over inputs of >= 1M entries and below,
# and a line per issue-23 target (MET or SHORT). Logs and JSON under $OUT (else
# build-gpu/logs). Exit status: non-zero when the build, a test or a benchmark run fails;
# a target SHORT is reported, not failed.
#   bash scripts/device-spmv23.sh [TESTS_LIMIT_S] [SUITE_LIMIT_S] [WIDE_LIMIT_S]
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
tests_limit=${1:-150}; suite_limit=${2:-120}; wide_limit=${3:-140}
. scripts/device-env.sh
fail=0
t0=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
sp_build_gpu "$L" check_gpu_spmv check_policy check_spmv_long_rows spbench spmv_model_replay || exit 1

# tests: the three GPU cases side by side, the host suites beside them
if [ "$tests_limit" -gt 0 ]; then
(cd build-gpu && timeout "$tests_limit" ctest -j5 --timeout "$tests_limit" --output-on-failure \
   -R '^(check_gpu_spmv\.(shapes|large|wide)|check_policy|check_spmv_long_rows)$' >"$L/ctest.log" 2>&1)
rc=$?
grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run|\(Subprocess" "$L/ctest.log" | head -20
if [ "$rc" -ne 0 ]; then echo "== FAIL tests (ctest rc=$rc; $L/ctest.log)"; fail=1
else echo "== tests ok ($(( $(date +%s) - t0 )) s)"; fi
else echo "== tests skipped (TESTS_LIMIT_S = 0)"; fi

# the two benchmark sets, one after the other on the one GPU
run_set() { # name limit args...: the run alone, its exit status in $L/name.rc
  local name=$1 limit=$2; shift 2
  timeout "$limit" ./build-gpu/bench/spbench "$@" --reps 10 --json "$L/$name.json" >"$L/$name.log" 2>&1
  echo $? >"$L/$name.rc"
}
report_set() { # name: the summary and the check of a finished run
  local name=$1 rc
  rc=$(cat "$L/$name.rc" 2>/dev/null || echo 255)
  echo "== $name rc=$rc ($(( $(date +%s) - t0 )) s)"
  sed -n '/^== summary/,$p' "$L/$name.log"
  if [ "$rc" -ne 0 ] || ! grep -q '^auto_speedup_geomean_large' "$L/$name.log"; then
    echo "== FAIL $name (rc=$rc; $L/$name.log)"; fail=1
  fi
}
# SPMV23_PAIR=1 on a machine with two GPUs: the two sets side by side, one on each GPU
# (each compared with cuSPARSE in its own process; the two cards are the same model)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${SPMV23_PAIR:-0}" = 1 ] && [ "${ngpu:-0}" -ge 2 ] && [ -z "${CUDA_VISIBLE_DEVICES:-}" ]; then
  echo "== the suite on GPU 0 and the wide set on GPU 1, side by side"
  CUDA_VISIBLE_DEVICES=0 run_set suite "$suite_limit" --suite &
  CUDA_VISIBLE_DEVICES=1 run_set wide "$wide_limit" --suite-wide &
  wait
  report_set suite
  report_set wide
else
  run_set suite "$suite_limit" --suite; report_set suite
  run_set wide "$wide_limit" --suite-wide; report_set wide
fi

# the model's constants from this run (src/policy.c says where they go): eff from the two
# sets, step_us from SELL/JDS without tails on a circuit matrix (one long walk per row);
# launch_us, fence_us and l2_gbs each derived on one set and checked on the other below
timeout 30 ./build-gpu/bench/spbench --gen circuit:1000000:4 --formats sell,jds --long-row-bound -1 \
  --reps 5 --json "$L/walk.json" >"$L/walk.log" 2>&1 || echo "== walk run failed ($L/walk.log)"
if command -v python3 >/dev/null; then
  python3 scripts/spmv-model-constants.py "$L/suite.json" "$L/wide.json" --walk "$L/walk.json" \
    2>&1 | tee "$L/constants.txt"
  [ -x build-gpu/bench/spmv_model_replay ] && [ -f "$L/suite.json" ] && [ -f "$L/wide.json" ] &&
    python3 scripts/spmv-model-replay.py holdout build-gpu/bench/spmv_model_replay \
      bench/results/h100-spmv-2026-11-26/model-stats-suite.txt "$L/suite.json" \
      bench/results/h100-spmv-2026-11-26/model-stats-wide.txt "$L/wide.json" \
      2>&1 | grep -E '^==|over 1.10|max ratio' | tee -a "$L/constants.txt"
fi

# AUTO's cost model against this run (issue 23): the model's choice and time of every
# candidate from the statistics of both sets (bench/spmv_model_replay --stats-in: the same
# generators and files, taken on a host), joined with the measured rows: per input the
# model's choice, the best row, their ratio, the AUTO row measured, and the rank
# correlation of the model's times with the measured ones
if command -v python3 >/dev/null && [ -x build-gpu/bench/spmv_model_replay ]; then
  for s in suite wide; do
    [ -f "$L/$s.json" ] || continue
    ./build-gpu/bench/spmv_model_replay --stats-in "bench/results/h100-spmv-2026-11-26/model-stats-$s.txt" \
      >"$L/model-$s.tsv" 2>"$L/model-$s.err" &&
      python3 scripts/spmv-model-replay.py join "$L/model-$s.tsv" "$L/$s.json" | tee "$L/model-$s.txt"
  done
fi

# the targets of issue 23, from the two summaries (same run, same GPU)
targets() { # name
  local f="$L/$1.log"
  [ -f "$f" ] || return
  awk -v set="$1" '
    /^== summary/ { on = 1; next }
    on && /^auto_speedup_geomean_large:/ { gl = $2 }
    on && /^auto_over_best_max:/ { ab = $2 }
    on && /^worst_format_over_best_max:/ { wf = $2 }
    on && NF >= 10 && $2 ~ /^[0-9]+$/ {
      if ($2 >= 1000000 && $4 + 0 > 0 && $4 + 0 < 0.95) low = low " " $1 "(" $4 ")"
      if ($1 == "kron:22" || $1 == "kron:23") kron = kron " " $1 "=" $4 (($4 + 0 >= 1.05) ? "" : "(<1.05)")
      if ($1 == "uniform:22") uni = $4
    }
    END {
      if (gl == "" || ab == "" || wf == "") {
        printf "TARGET %s n/a: no summary in %s (the run failed or was cut)\n", set, FILENAME
        exit
      }
      printf "TARGET %s AUTO geomean over >= 1M entries >= 1.35: %s (%s)\n", set, (gl + 0 >= 1.35 ? "MET" : "SHORT"), gl
      printf "TARGET %s no input >= 1M below 0.95x cuSPARSE: %s%s\n", set, (low == "" ? "MET" : "SHORT:"), low
      printf "TARGET %s AUTO within 10%% of the best row everywhere: %s (max AUTO/best %s)\n", set, (ab + 0 <= 1.10 ? "MET" : "SHORT"), ab
      printf "TARGET %s every format within 3x of the best: %s (max worst/best %s)\n", set, (wf + 0 <= 3 ? "MET" : "SHORT"), wf
      if (kron != "") printf "TARGET %s kron:22/23 >= 1.05x:%s\n", set, kron
      if (uni != "") printf "TARGET %s uniform:22 >= 1.1x: %s (%s)\n", set, (uni + 0 >= 1.1 ? "MET" : "SHORT"), uni
    }' "$f" | tee -a "$L/targets.txt"
}
targets suite
targets wide
echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== device-spmv23: PASSED (tests and both sets ran; targets above)" \
                  || echo "== device-spmv23: FAILED"
exit "$fail"
