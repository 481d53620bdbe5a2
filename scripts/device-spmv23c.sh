#!/usr/bin/env bash
# Issue 23, deliverables 1 (CSR scalar and vector on long rows) and 4 (CSC SpMV against
# cuSPARSE's own CSC SpMV), in one device call of under 5 minutes on a 1-GPU H100: build the
# targets in build-gpu (Release, sm_90), run check_gpu_spmv (cases shapes, large, wide),
# check_gpu_spmv_prepare (CSC and the long-row plans captured in a graph, no allocation),
# check_gpu_alloc_sweep.formats, check_policy and the host long-row test, then spbench on
# poisson3d:160, kron:22 and the wide set's power-law input (powerlaw:2000000:1.5:8) with
# the CSR rows, CSC and AUTO,
# cuSPARSE CSR_ALG1 and cuSPARSE SpMV on a CSC descriptor timed in the same run. Prints a
# line per row (time, ratio to cuSPARSE CSR and to cuSPARSE CSC) and a line per target:
#   TARGET <input> csr/scalar|csr/vector within 3x of the best libsp row: MET|SHORT (ratio)
#   TARGET <input> csc >= 1.0x cuSPARSE CSC: MET|SHORT (ratio)
# Logs under $OUT (else build-gpu/logs). Exit status: non-zero when the build, a test or a
# benchmark run fails; a target SHORT is reported, not failed.
# Then bench/csc_bench times the CSC kernel's four variants (plan flags) against cuSPARSE
# CSC on CSC_INPUTS (poisson160 powerlaw; kron22 costs its generation again):
#   CSC <input> flags agg|win|agg+win|- libsp_ms .. cusparse_csc_ms .. x_cusparse_csc ..
#   TARGET <input> csc policy variant (..) within 5% of the fastest (..): MET|SHORT
#   bash scripts/device-spmv23c.sh [TESTS_LIMIT_S] [BENCH_LIMIT_S] [CSC_INPUTS]
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
# (the same three through SPMV23C_TESTS_LIMIT, SPMV23C_BENCH_LIMIT, SPMV23C_CSC_INPUTS)
tests_limit=${1:-${SPMV23C_TESTS_LIMIT:-180}}; bench_limit=${2:-${SPMV23C_BENCH_LIMIT:-120}}
csc_inputs=${3:-${SPMV23C_CSC_INPUTS:-poisson160 powerlaw}}
. scripts/device-env.sh
fail=0
t0=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
sp_build_gpu "$L" check_gpu_spmv check_gpu_spmv_prepare check_gpu_alloc_sweep check_policy check_spmv_long_rows spbench csc_bench || exit 1

(cd build-gpu && timeout "$tests_limit" ctest -j7 --timeout "$tests_limit" --output-on-failure \
   -R '^(check_gpu_spmv\.(shapes|large|wide)|check_gpu_spmv_prepare|check_gpu_alloc_sweep\.formats|check_policy|check_spmv_long_rows)$' \
   >"$L/ctest.log" 2>&1)
rc=$?
grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run|\(Subprocess|Test +#" "$L/ctest.log" | head -20
if [ "$rc" -ne 0 ]; then echo "== FAIL tests (ctest rc=$rc; $L/ctest.log)"; fail=1
else echo "== tests ok ($(( $(date +%s) - t0 )) s)"; fi

# one input: the CSR rows (every algorithm), CSC and AUTO, then a line per row and the targets
bench() { # name spec
  local name=$1 spec=$2
  timeout "$bench_limit" ./build-gpu/bench/spbench --gen "$spec" --formats csr,csc,auto --reps 10 \
    --json "$L/$name.json" >"$L/$name.log" 2>&1
  local rc=$?
  echo "== $spec rc=$rc ($(( $(date +%s) - t0 )) s)"
  if [ "$rc" -ne 0 ] || ! grep -q '^format: csc ' "$L/$name.log"; then
    echo "== FAIL $spec (rc=$rc; $L/$name.log)"; tail -5 "$L/$name.log"; fail=1; return
  fi
  awk -v inp="$spec" '
    /^format: / && !/refused/ {
      label = $2; ms = ""; xcsr = "n/a"; xcsc = "n/a"
      for (i = 3; i <= NF; i++) {
        if ($i == "spmv_ms:") ms = $(i + 1)
        if ($i == "x_cusparse_csr:") xcsr = $(i + 1)
        if ($i == "x_cusparse_csc:") xcsc = $(i + 1)
      }
      if ($(3) == "x_cusparse_csr:" && $(5) ~ /^\(/) csr_ms = substr($(5), 2)
      for (i = 3; i <= NF; i++) if ($i == "x_cusparse_csc:" && $(i + 2) ~ /^\(/) csc_ms = substr($(i + 2), 2)
      printf "ROW %-24s %-16s %9s ms  x_cusparse_csr %6s  x_cusparse_csc %6s\n", inp, label, ms, xcsr, xcsc
      t[label] = ms + 0; x[label] = xcsc
      if (label !~ /^auto/ && (best == "" || ms + 0 < best)) { best = ms + 0; bl = label }
    }
    /^format: .*refused/ {
      m = $0; sub(/^format: +[^ ]+ +refused: /, "", m)
      printf "ROW %-24s %-16s refused: %s\n", inp, $2, m
    }
    END {
      printf "BASE %-24s cusparse_csr %s ms, cusparse_csc %s ms, best libsp %s %.4f ms\n", inp, csr_ms, csc_ms, bl, best
      split("csr/scalar csr/vector", ks, " ")
      for (k = 1; k <= 2; k++) {
        l = ks[k]
        if (!(l in t)) { printf "TARGET %s %s within 3x of the best libsp row: n/a (no row)\n", inp, l; continue }
        r = t[l] / best
        printf "TARGET %s %s within 3x of the best libsp row (%s): %s (%.2fx)\n", inp, l, bl, (r <= 3 ? "MET" : "SHORT"), r
      }
      if ("csc" in x) printf "TARGET %s csc >= 1.0x cuSPARSE CSC: %s (%s)\n", inp,
                             (x["csc"] == "n/a" ? "n/a" : x["csc"] + 0 >= 1.0 ? "MET" : "SHORT"), x["csc"]
    }' "$L/$name.log" | tee -a "$L/rows.txt"
}
bench poisson poisson3d:160
bench kron kron:22
bench powerlaw powerlaw:2000000:1.5:8

# the CSC kernel's four variants (equal-row aggregation, the window of rows near the
# diagonal) against cuSPARSE CSC, the policy's marked: whether its choice is the fastest
for input in $csc_inputs; do
  log="$L/csc-$input.log"
  timeout "$bench_limit" ./build-gpu/bench/csc_bench --reps 20 --input "$input" >"$log" 2>&1
  rc=$?
  grep '^CSC' "$log" | tee -a "$L/rows.txt"
  # every variant's y within 1e-9 of cuSPARSE's (relative to max |y|: atomics reorder sums)
  bad=$(awk '/^CSC .* max_rel_diff / { for (i = 1; i < NF; i++) if ($i == "max_rel_diff" && $(i + 1) + 0 > 1e-9) n++ }
             END { print n + 0 }' "$log")
  if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ] || ! grep -q '^CSC .* flags ' "$log"; then
    echo "== FAIL csc_bench $input (rc=$rc, $bad variants off cuSPARSE's y; $log)"
    tail -3 "$log"; fail=1
  fi
  awk -v inp="$input" '
    /^CSC .* flags / {
      for (i = 1; i < NF; i++) if ($i == "libsp_ms") ms = $(i + 1) + 0
      v = $4 " heavy " $6
      if (best == "" || ms < best) { best = ms; bf = v }
      if (/\[policy\]/) { pm = ms; pf = v }
    }
    END {
      if (pm != "")
        printf "TARGET %s csc policy variant (%s) within 5%% of the fastest (%s): %s (%.3fx)\n",
               inp, pf, bf, (pm <= 1.05 * best ? "MET" : "SHORT"), pm / best
    }' "$log" | tee -a "$L/rows.txt"
done
echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== device-spmv23c: PASSED (tests and the three inputs ran; targets above)" \
                  || echo "== device-spmv23c: FAILED"
exit "$fail"
