#!/usr/bin/env bash
# On a 1-GPU machine (H100), issue 26 in one call (under 6 minutes): build the solver
# targets in build-gpu, run the solver tests (host and GPU: the fused, device-loop and
# pipelined forms against their host twins and the step loop), then cg_bench on 3D Poisson 100^3 and 160^3
# (b = ones, rtol 1e-8; CG, and PCG-Jacobi) comparing libsp's steps / fused / device /
# pipelined / pipelined-device forms with the cuSPARSE + cuBLAS baselines (the CUDA
# sample's form and the device-scalar form). Prints ms per iteration, iterations and
# residuals; checks every form converged with a true residual under 10 rtol and (classic
# forms) iterations within one of the sample baseline's; then BiCGSTAB's forms on Poisson
# 100^3 and CG / PCG on datasets/mtx/1138_bus.mtx, printed only. Then, as the time budget allows (SOLVE26_BUDGET seconds,
# default 350): the allocation sweep's solver case (every device allocation of the fused
# setups failing in turn) and memcheck; with SOLVE26_SPTRSV=1 also sptrsv_bench (the
# public sp_sptrsv against cuSPARSE SpSV).
#
#   bash scripts/device-solve26.sh [LOGDIR]     (LOGDIR default: $OUT, else build-gpu/logs)
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-${OUT:-build-gpu/logs}}
mkdir -p "$logs"

. scripts/device-env.sh # .deps unpacked, SP_ZLIB_ARGS

. scripts/device-steps.sh # gpu.txt, status, step()

build_gpu 240 check_solver check_alloc_sweep check_gpu_solver check_gpu_alloc_sweep cg_bench \
  sptrsv_bench
step tests 200 ctest --test-dir build-gpu --output-on-failure -R '^check_(gpu_)?solver|^check_alloc_sweep$'
grep -E "iterations \(step loop" "$logs/tests.log" | head -n 40 || true

bench_info() { # bench_info NAME ARGS...: run and print, no checks
  step "$1" 120 ./build-gpu/bench/cg_bench "${@:2}" || true
  echo "-- $1"
  grep -E "^(device|matrix|solver|rhs|libsp_spmv_format|libsp_spmv_ms|cusparse_spmv_(alg[12]|sell)_ms|devscalar_spmv_alg):" \
    "$logs/$1.log"
  grep -E "^(steps|fused|device|pipelined|pipelined-device|sample|devscalar): status" "$logs/$1.log"
}
bench() { # bench NAME ARGS...: run, print, check
  if ! step "$1" 120 ./build-gpu/bench/cg_bench "${@:2}"; then
    echo "CHECK $1: cg_bench failed (no results checked); going on"
    return
  fi
  echo "-- $1"
  grep -E "^(device|matrix|solver|rhs|libsp_spmv_format|libsp_spmv_ms|cusparse_spmv_(alg[12]|sell)_ms|devscalar_spmv_alg):" \
    "$logs/$1.log"
  grep -E "^(steps|fused|device|pipelined|pipelined-device|sample|devscalar): status" "$logs/$1.log"
  # every form converged with a true residual <= 10 rtol; classic forms within one
  # iteration of the sample baseline (CG) or of the steps form (PCG)
  awk -v name="$1" '
    /^(steps|fused|device|pipelined|pipelined-device|sample|devscalar):/ && $2 == "status" {
      f = $1; sub(":", "", f); st[f] = $3; it[f] = $5; res[f] = $7 }
    END {
      if (length(it) == 0) { print "CHECK " name ": no results"; exit 1 }
      ref = ("sample" in it) ? it["sample"] : ("steps" in it) ? it["steps"] : -1; bad = 0
      for (f in it) {
        if (st[f] != "converged") { print "CHECK " name ": " f " status " st[f]; bad = 1 }
        if (res[f] + 0 > 1e-7) { print "CHECK " name ": " f " true residual " res[f]; bad = 1 }
        if (ref >= 0 && f !~ /pipelined/ && (it[f] - ref > 1 || ref - it[f] > 1)) {
          print "CHECK " name ": " f " " it[f] " iterations against " ref; bad = 1 }
      }
      exit bad }' "$logs/$1.log" || status=1
}
bench cg-poisson100 --n 100 --rtol 1e-8 --rhs ones --reps 5
bench cg-poisson160 --n 160 --rtol 1e-8 --rhs ones --reps 3
bench pcg-poisson100 --n 100 --rtol 1e-8 --rhs ones --reps 5 --pcg
bench pcg-poisson160 --n 160 --rtol 1e-8 --rhs ones --reps 3 --pcg
# BiCGSTAB's forms (no baseline), and a small SPD matrix of datasets/ (launch-bound:
# where the device loop matters most), printed only
bench_info bicgstab-poisson100 --n 100 --rtol 1e-8 --rhs ones --reps 3 --bicgstab
bench_info cg-1138_bus --mtx datasets/mtx/1138_bus.mtx --rtol 1e-8 --max-iterations 20000 --reps 5
bench_info pcg-1138_bus --mtx datasets/mtx/1138_bus.mtx --rtol 1e-8 --max-iterations 20000 --reps 5 --pcg

# what the time left allows (the whole script within SOLVE26_BUDGET seconds, default 350):
# the allocation sweep's solver case, memcheck on the fused case, then sptrsv_bench when
# SOLVE26_SPTRSV=1. A part that does not fit is reported as skipped, not as a failure.
budget=${SOLVE26_BUDGET:-350}
left() { echo $((budget - SECONDS)); }
optional() { # optional NAME MIN_SECONDS COMMAND...: run in the time left; a timeout is not
  local name=$1 need=$2 rc; shift 2   # counted as a failure
  echo "== $name"
  if [ "$(left)" -le "$need" ]; then echo "   skipped (time budget)"; return; fi
  timeout "$(left)" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  if [ $rc = 0 ]; then echo "   ok"
  elif [ $rc = 124 ]; then echo "   TIMEOUT (not counted; see $logs/$name.log)"
  else echo "   FAILED rc=$rc"; tail -n 30 "$logs/$name.log"; status=1; fi
}
optional alloc-sweep 40 ctest --test-dir build-gpu --output-on-failure \
  -R '^check_gpu_alloc_sweep\.solvers$'
if command -v compute-sanitizer >/dev/null; then
  optional memcheck 30 env SP_TEST_SMALL=1 CK_RUN_CASE=fused CK_FORK=no compute-sanitizer \
    --tool memcheck --error-exitcode 9 ./build-gpu/tests/check_gpu_solver
  grep -E "ERROR SUMMARY" "$logs/memcheck.log" 2>/dev/null | tail -n 1
else
  echo "== memcheck: compute-sanitizer not found (skipped)"
fi
# the triangular solve through the public API against cuSPARSE (about two minutes)
if [ "${SOLVE26_SPTRSV:-0}" = 1 ]; then
  step sptrsv 200 ./build-gpu/bench/sptrsv_bench
  sed -n '/^| matrix/,$p' "$logs/sptrsv.log"
fi
echo
echo "== summary"
cat "$logs/gpu.txt"
grep -E "tests passed|tests failed|Failed|Skipped" "$logs/tests.log" | tail -n 10
echo "device-solve26: $([ $status = 0 ] && echo PASSED || echo FAILED)"
exit $status
