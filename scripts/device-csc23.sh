#!/usr/bin/env bash
# Issue 23, CSC SpMV within 3x of the fastest libsp format and at least cuSPARSE's own CSC
# SpMV: heavy rows summed in shared memory, symmetric matrices run as their CSR. Steps
# (CSC23_STEPS, default "tests cscbench rows"), one device call on a 1-GPU H100:
#   tests:    build, then check_gpu_spmv.shapes (test_csc_routes and every shape with CSC),
#             check_gpu_spmv_prepare, check_gpu_alloc_sweep.formats, check_policy;
#   cscbench: bench/csc_bench on CSC23_CSC_INPUTS (default: denselines circuit powerlaw
#             poisson160; .mtx paths too): the kernel's variants (aggregation, window,
#             heavy rows by shared atomics or summed in the warp first) against
#             cuSPARSE CSC, and whether the plan found the matrix equal to its transpose;
#   rows:     spbench on CSC23_ROWS (default below; generator specs or .mtx paths) with the
#             formats csr (every algorithm),
#             csc, ell, hyb, sell (and AUTO), cuSPARSE CSR_ALG1 and cuSPARSE's CSC SpMV in
#             the same run; a line per input:
#   TARGET <input> csc within 3x of the best libsp row (<row> <ms>): MET|SHORT (<ratio>)
#   TARGET <input> csc >= 1.0x cuSPARSE CSC: MET|SHORT (<ratio>)
# Logs under $OUT (else build-gpu/logs). Exit status non-zero when the build, a test or a
# benchmark run fails; a target SHORT is reported, not failed.
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
steps=${CSC23_STEPS:-tests cscbench rows}
csc_inputs=${CSC23_CSC_INPUTS:-denselines circuit powerlaw poisson160}
rows=${CSC23_ROWS:-poisson3d:160 poisson3d27:160 kron:22 denselines:2000000:4:8 circuit:4000000:16 powerlaw:2000000:1.5:8 rect:8000000:500000:4 banded:2000000:64}
limit=${CSC23_LIMIT:-150}
. scripts/device-env.sh
fail=0
t0=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
sp_build_gpu "$L" check_gpu_spmv check_gpu_spmv_prepare check_gpu_alloc_sweep check_policy spbench csc_bench || exit 1

for step in $steps; do
case $step in
tests)
  (cd build-gpu && timeout "$limit" ctest -j7 --timeout "$limit" --output-on-failure \
     -R '^(check_gpu_spmv\.shapes|check_gpu_spmv_prepare|check_gpu_alloc_sweep\.formats|check_policy)$' \
     >"$L/ctest.log" 2>&1)
  rc=$?
  grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run|\(Subprocess|Test +#|Checks:" "$L/ctest.log" | head -20
  if [ "$rc" -ne 0 ]; then echo "== FAIL tests (ctest rc=$rc; $L/ctest.log)"; fail=1
  else echo "== tests ok ($(( $(date +%s) - t0 )) s)"; fi
  ;;
cscbench)
  for input in $csc_inputs; do
    log="$L/csc-$(basename "$input").log"
    timeout "$limit" ./build-gpu/bench/csc_bench --reps 20 --input "$input" >"$log" 2>&1
    rc=$?
    grep '^CSC' "$log"
    # every variant's y within 1e-9 of cuSPARSE's (relative to max |y|: atomics reorder sums)
    bad=$(awk '/^CSC .* max_rel_diff / { for (i = 1; i < NF; i++) if ($i == "max_rel_diff" && $(i + 1) + 0 > 1e-9) n++ }
               END { print n + 0 }' "$log")
    if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ] || ! grep -q '^CSC .* flags ' "$log"; then
      echo "== FAIL csc_bench $input (rc=$rc, $bad variants off cuSPARSE's y; $log)"
      tail -3 "$log"; fail=1
    fi
  done
  ;;
rows)
  for spec in $rows; do
    name=$(basename "$spec" | tr ':' '_')
    src=(--gen "$spec"); case $spec in *.mtx) src=("$spec") ;; esac # a file, else a generator
    timeout "$limit" ./build-gpu/bench/spbench "${src[@]}" --formats csr,csc,ell,hyb,sell,auto \
      --reps 10 --json "$L/rows-$name.json" >"$L/rows-$name.log" 2>&1
    rc=$?
    echo "== $spec rc=$rc ($(( $(date +%s) - t0 )) s)"
    if [ "$rc" -ne 0 ] || ! grep -q '^format: csc ' "$L/rows-$name.log"; then
      echo "== FAIL $spec (rc=$rc; $L/rows-$name.log)"; tail -5 "$L/rows-$name.log"; fail=1; continue
    fi
    awk -v inp="$spec" '
      /^format: / && !/refused/ {
        label = $2; ms = ""; xcsc = "n/a"
        for (i = 3; i <= NF; i++) {
          if ($i == "spmv_ms:") ms = $(i + 1)
          if ($i == "x_cusparse_csc:") xcsc = $(i + 1)
        }
        printf "ROW %-24s %-16s %9s ms  x_cusparse_csc %s\n", inp, label, ms, xcsc
        t[label] = ms + 0; x[label] = xcsc
        if (label !~ /^auto/ && (best == "" || ms + 0 < best)) { best = ms + 0; bl = label }
      }
      END {
        if (!("csc" in t)) exit
        r = t["csc"] / best
        printf "TARGET %s csc within 3x of the best libsp row (%s %.4f ms): %s (%.2fx)\n", inp, bl, best, (r <= 3 ? "MET" : "SHORT"), r
        printf "TARGET %s csc >= 1.0x cuSPARSE CSC: %s (%s)\n", inp, (x["csc"] + 0 >= 1.0 ? "MET" : "SHORT"), x["csc"]
      }' "$L/rows-$name.log" | tee -a "$L/rows.txt"
  done
  ;;
*) echo "== unknown step $step"; fail=1 ;;
esac
done
echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== device-csc23: PASSED" || echo "== device-csc23: FAILED"
exit "$fail"
