#!/usr/bin/env bash
# On a 1-GPU machine (H100), ELL's value table (issues 23 and 26) in one call (about 4
# minutes once build-gpu holds the library): build in build-gpu, run the tests that touch
# it (check_gpu_ell_table: device tables and codes against the host's, products with and
# without the table bit for bit, the fused CG family's iterations, residual and x bits with
# and without it; check_gpu_convert's convert case: the conversion against the reference;
# their .offsets64 twins; the host suites check_ell_table and check_api), then spbench on
# poisson3d:160, poisson3d:224 and poisson3d27:160 (ELL, HYB, AUTO, CSR, against cuSPARSE
# in the same run) with and without the table (--no-value-table), and cg_bench (CG and
# PCG-Jacobi, Poisson 160^3 and 100^3) with and without it. Prints one summary line per
# comparison (ms with / without / ratio without:with, > 1 means the table wins) and exits
# non-zero on any failure: a test, a bench that fails, a row refused, a product with the
# table not bit-equal in iterations, or a table missing where Poisson must have one.
#
#   bash scripts/device-valtab.sh [LOGDIR]     (LOGDIR default: $OUT, else build-gpu/logs)
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-${OUT:-build-gpu/logs}}
mkdir -p "$logs"

. scripts/device-env.sh # .deps unpacked, SP_ZLIB_ARGS

. scripts/device-steps.sh # gpu.txt, status, step()
summary=()

build_gpu 400 check_gpu_ell_table check_gpu_convert check_ell_table check_api spbench \
  cg_bench || exit 1
step tests 300 ctest --test-dir build-gpu --output-on-failure -j4 \
  -R '^check_gpu_ell_table|^check_gpu_convert\.convert|^check_ell_table$|^check_api$'
grep -E "tests passed|tests failed|Skipped|\(Failed\)" "$logs/tests.log" | tail -n 8
if grep -q "Skipped" "$logs/tests.log"; then
  echo "CHECK tests: a GPU test was skipped (no device?)"
  status=1
fi

# spbench NAME GEN: ELL, HYB, AUTO and CSR rows with and without the table, cuSPARSE beside
spmv_pair() {
  local name=$1 gen=$2
  for mode in with without; do
    local flag=()
    [ $mode = without ] && flag=(--no-value-table)
    step "spbench-$name-$mode" 150 ./build-gpu/bench/spbench --gen "$gen" \
      --formats ell,hyb,auto,csr --reps 10 "${flag[@]}" || return
  done
  for label in ell hyb auto-\>ell csr; do
    local w o tw
    w=$(awk -v l="$label" '$1 == "format:" && $2 == l {for (i = 3; i < NF; i++) if ($i == "spmv_ms:") print $(i + 1)}' \
      "$logs/spbench-$name-with.log")
    o=$(awk -v l="$label" '$1 == "format:" && $2 == l {for (i = 3; i < NF; i++) if ($i == "spmv_ms:") print $(i + 1)}' \
      "$logs/spbench-$name-without.log")
    tw=$(awk -v l="$label" '$1 == "format:" && $2 == l {for (i = 3; i <= NF; i++) if ($i == "value_table:") print $(i + 1)}' \
      "$logs/spbench-$name-with.log")
    local bw bo
    bw=$(awk -v l="$label" '$1 == "format:" && $2 == l {for (i = 3; i < NF; i++) if ($i == "build_ms:") print $(i + 1)}' \
      "$logs/spbench-$name-with.log")
    bo=$(awk -v l="$label" '$1 == "format:" && $2 == l {for (i = 3; i < NF; i++) if ($i == "build_ms:") print $(i + 1)}' \
      "$logs/spbench-$name-without.log")
    local cu
    cu=$(awk -v l="$label" '$1 == "format:" && $2 == l {for (i = 3; i < NF; i++) if ($i ~ /^x_cusparse_csr:/) {ms = $(i + 2); gsub(/\(/, "", ms); print $(i + 1) "x (cuSPARSE " ms " ms)"}}' \
      "$logs/spbench-$name-with.log")
    if [ -z "$w" ] || [ -z "$o" ]; then
      summary+=("spmv $name $label: no result (refused or failed; see the logs)")
      status=1
      continue
    fi
    if [ "$label" != csr ] && [ -z "$tw" ]; then
      summary+=("CHECK spmv $name $label: no value table in the run with it")
      status=1
    fi
    summary+=("$(awk -v n="$name" -v l="$label" -v w="$w" -v o="$o" -v t="${tw:-0}" -v c="$cu" \
      -v bw="$bw" -v bo="$bo" \
      'BEGIN {printf "spmv %-14s %-9s ms with %.4f without %.4f ratio %.3f value_table %s build_ms %s/%s vs cuSPARSE CSR (with the table) %s", n, l, w, o, o / w, t, bw, bo, c}')")
  done
}
spmv_pair poisson160 poisson3d:160
spmv_pair poisson224 poisson3d:224
spmv_pair poisson27-160 poisson3d27:160

# cg_bench NAME ARGS: the libsp forms with and without the table; same iterations required
cg_pair() {
  local name=$1; shift
  for mode in with without; do
    local flag=()
    [ $mode = without ] && flag=(--no-value-table)
    step "cg-$name-$mode" 150 ./build-gpu/bench/cg_bench "$@" "${flag[@]}" || return
  done
  local tw to
  tw=$(awk '$1 == "value_table:" {print $2}' "$logs/cg-$name-with.log")
  to=$(awk '$1 == "value_table:" {print $2}' "$logs/cg-$name-without.log")
  if [ "${tw:-0}" = 0 ] || [ "${to:-1}" != 0 ]; then
    summary+=("CHECK cg $name: value_table $tw with, $to without (expected >0 and 0)")
    status=1
  fi
  for form in steps fused device pipelined; do
    local line
    line=$(awk -v f="$form:" '
      FNR == 1 {file++}
      $1 == f && $2 == "status" {
        for (i = 3; i < NF; i++) {
          if ($i == "iterations") it[file] = $(i + 1)
          if ($i == "ms_per_iteration") ms[file] = $(i + 1)
          if ($i == "recurrence") rec[file] = $(i + 1)
        }
      }
      END {
        if (!(1 in ms) || !(2 in ms)) { print "missing"; exit }
        same = it[1] == it[2] && rec[1] == rec[2] ? "same" : "DIFFERENT"
        printf "ms/iteration with %.4f without %.4f ratio %.3f iterations %s/%s recurrence %s/%s (%s)",
          ms[1], ms[2], ms[2] / ms[1], it[1], it[2], rec[1], rec[2], same
      }' "$logs/cg-$name-with.log" "$logs/cg-$name-without.log")
    if [ "$line" = missing ]; then
      summary+=("cg $name $form: no result")
      status=1
      continue
    fi
    case $line in *DIFFERENT*) status=1 ;; esac
    summary+=("$(printf 'cg %-14s %-10s %s' "$name" "$form" "$line")")
  done
  local base
  base=$(awk '$1 ~ /^(sample|devscalar):$/ {for (i = 3; i < NF; i++) if ($i == "ms_per_iteration") printf "%s %s  ", $1, $(i + 1)}' \
    "$logs/cg-$name-with.log")
  local sw so
  sw=$(awk '$1 == "libsp_spmv_ms:" {print $2}' "$logs/cg-$name-with.log")
  so=$(awk '$1 == "libsp_spmv_ms:" {print $2}' "$logs/cg-$name-without.log")
  summary+=("cg $name libsp SpMV alone: ms with $sw without $so; baselines (ms/iteration): $base")
}
cg_pair cg160 --n 160 --rtol 1e-8 --rhs ones --reps 2
cg_pair pcg160 --n 160 --rtol 1e-8 --rhs ones --reps 2 --pcg
cg_pair cg100 --n 100 --rtol 1e-8 --rhs ones --reps 3
cg_pair pcg100 --n 100 --rtol 1e-8 --rhs ones --reps 3 --pcg

echo
echo "== summary ($SECONDS s)"
cat "$logs/gpu.txt"
printf '%s\n' "${summary[@]}" | tee "$logs/summary.txt"
echo "device-valtab: $([ $status = 0 ] && echo PASSED || echo FAILED)"
exit $status
