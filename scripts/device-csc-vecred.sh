#!/usr/bin/env bash
# Issue 23, float CSC against cuSPARSE's CSC: vector reductions into y (sm_90's
# red.global.add.v2/.v4.f32, SP_CSC_FLOAT_RED_WIDTH in kernels/spmv/spmv_policy_coo.h). On a
# 1-GPU H100: builds the default (build-gpu: csc_bench and the SpMV test suites) and each
# width of VARIANTS (build-v$i: csc_bench, check_gpu_spmv), side by side; runs the SpMV
# tests on the default and check_gpu_spmv.shapes (every CSC kernel variant in float and
# double against the host) on each variant; then ROUNDS rounds of csc_bench on INPUTS with
# every build in turn; then Nsight Compute's reduction counts of libsp's and cuSPARSE's CSC
# kernels (PROFILE=1, off by default: scripts/device-csc-profile.sh, which reuses build-gpu). Logs under
# $OUT/l (else build-gpu/logs-vecred).
set -u
cd "$(dirname "$0")/.." || exit 1
logs=${OUT:+$OUT/l}; logs=${logs:-$PWD/build-gpu/logs-vecred}; mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
VARIANTS=${VARIANTS-"-DSP_CSC_FLOAT_RED_WIDTH=2|-DSP_CSC_FLOAT_RED_WIDTH=4"}
ROUNDS=${ROUNDS-1}
INPUTS=${INPUTS-"banded:2000000:64,f32 blocks:600000:6:9,f32 blocks:1500000:3:6,f32 poisson3d:160,f32 circuit:4000000:16,f32 banded:200000:8,f32 rect:8000000:500000:4,f32 banded:2000000:64"}
TESTS=${TESTS-"check_gpu_spmv|check_gpu_alloc_sweep.formats|check_policy"}
IFS='|' read -r -a vs <<<"$VARIANTS"
build_variants csc_bench check_gpu_spmv
build_gpu 400 csc_bench check_gpu_spmv check_gpu_spmv_prepare check_gpu_alloc_sweep \
  check_policy || exit 1
wait
builds=("build-gpu"); names=("default")
for i in "${!vs[@]}"; do
  if [ -x "build-v$i/bench/csc_bench" ]; then
    builds+=("build-v$i"); names+=("v$i")
    echo "v$i: ${vs[$i]}"
  else
    echo "variant $i (${vs[$i]}): build failed"; tail -n 20 "$logs/build-v$i.log"
  fi
done
if [ -n "$TESTS" ]; then # the variants' shapes case beside the default's tests
  for j in "${!builds[@]}"; do
    [ "$j" = 0 ] && continue
    ( CK_RUN_CASE=shapes timeout 250 "${builds[$j]}/tests/check_gpu_spmv" \
        >"$logs/shapes-${names[$j]}.log" 2>&1; echo "rc $?" >>"$logs/shapes-${names[$j]}.log" ) &
  done
  step ctest 330 ctest --test-dir build-gpu -R "$TESTS" -E offsets64 -j6 --output-on-failure
  tail -n 4 "$logs/ctest.log"
  wait
  for j in "${!builds[@]}"; do
    [ "$j" = 0 ] && continue
    echo "== shapes on ${names[$j]}"; tail -n 2 "$logs/shapes-${names[$j]}.log"
    grep -q "^rc 0" "$logs/shapes-${names[$j]}.log" || status=1
  done
fi
args=(); for i in $INPUTS; do args+=(--input "$i"); done
for r in $(seq 1 "$ROUNDS"); do
  for j in "${!builds[@]}"; do
    step "csc-r$r-$j" 200 "${builds[$j]}/bench/csc_bench" --reps 20 "${args[@]}"
    grep -E "flags" "$logs/csc-r$r-$j.log" | sed "s/ max_rel_diff [^ ]*//; s/^CSC /r$r ${names[$j]} /"
  done
done
if [ "${PROFILE:-0}" = 1 ]; then
  CSC_PROF_LOGS="$logs/prof" bash scripts/device-csc-profile.sh || status=1
fi
echo "== device-csc-vecred: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
