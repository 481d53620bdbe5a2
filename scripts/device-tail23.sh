#!/usr/bin/env bash
# Issue 23, the tails' kernel chosen by their longest row (kernels/spmv/spmv_policy_coo.h),
# on a 1-GPU H100 in about 5 minutes: build, check_gpu_spmv's three cases side by side (tails
# of short rows through the warp kernel, of long ones through the segmented one, each against
# the reference), then ELL, HYB, JDS, SELL and CSR on inputs whose tails lie on either side of
# the bound (INPUTS), each against cuSPARSE CSR_ALG1 in the same run. Logs under $OUT/l (else
# build-gpu/logs-tail).
#   bash scripts/device-tail23.sh [TESTS_LIMIT_S]      (default 280)
set -u
cd "$(dirname "$0")/.." || exit 1
logs=${OUT:+$OUT/l}; logs=${logs:-$PWD/build-gpu/logs-tail}; mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
limit=${1:-280}
INPUTS=${INPUTS-"datasets/graphs/email-Eu-core.txt datasets/graphs/p2p-Gnutella08.txt
  datasets/graphs/facebook_combined.txt circuit:100000:4 denselines:50000:2:8
  circuit:2000000:8 denselines:2000000:4:8,f32"}
build_gpu 400 check_gpu_spmv spbench || exit 1
step ctest "$limit" ctest --test-dir build-gpu -R '^check_gpu_spmv\.(shapes|large|wide)$' -j3 \
  --timeout "$limit" --output-on-failure
grep -E "tests passed|Passed|Failed" "$logs/ctest.log" | tail -n 4
i=0
for g in $INPUTS; do
  i=$((i + 1))
  src=(--gen "$g"); [ -f "$g" ] && src=("$g")
  step "spmv$i" 120 build-gpu/bench/spbench "${src[@]}" --formats csr,ell,hyb,jds,sell --reps 20
  echo "-- $g"
  grep -E "^(row_length|format):" "$logs/spmv$i.log" | sed 's/  GFLOP.*//; s/  x_cusparse_sell[^)]*)//; s/  x_cusparse_csc[^)]*)//'
done
echo "== device-tail23: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
