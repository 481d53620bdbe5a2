#!/usr/bin/env bash
# Issue 26's closing run on an already built build-gpu (a lane of scripts/device-session.sh):
# scripts/device-solve26.sh with the triangular solve (the solver tests, cg_bench's CG /
# PCG / BiCGSTAB tables against the cuSPARSE + cuBLAS baselines, the allocation sweep,
# sptrsv_bench against cuSPARSE SpSV), then compute-sanitizer's four tools on the solver
# GPU suite (the fused, device-loop and pipelined paths; SANITIZE_SUITES overrides the
# regex; the triangular solve's suite, whose runs take minutes, is
# scripts/device-sanitize26.sh, another lane). Logs under $OUT (else
# build-gpu/logs-close26). Exit status non-zero when a step fails or a sanitizer run is
# not clean.
#   bash scripts/device-close26.sh
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-close26}; mkdir -p "$L/solve" "$L/sanitize"
t0=$(date +%s)
status=0
SOLVE26_SPTRSV=1 SOLVE26_BUDGET=${SOLVE26_BUDGET:-300} bash scripts/device-solve26.sh "$L/solve" \
  >"$L/solve26.out" 2>&1 || status=1
echo "== solve26 rc $status ($(( $(date +%s) - t0 )) s)"
sed -n '/^-- cg-poisson100/,$p' "$L/solve26.out"
SUITES=${SANITIZE_SUITES:-'^check_gpu_solver$'} bash scripts/device-sanitize.sh \
  "$L/sanitize" >"$L/sanitize.out" 2>&1 || status=1
echo "== sanitizer ($(( $(date +%s) - t0 )) s)"
sed -n '/== all runs, in order/,$p' "$L/sanitize.out"
echo "== device-close26: $([ $status = 0 ] && echo PASSED || echo FAILED) ($(( $(date +%s) - t0 )) s)"
exit $status
