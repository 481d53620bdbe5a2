#!/usr/bin/env bash
# Issue 23: the CSC kernel's occupancy against its chunk length (kernels/spmv/
# spmv_policy_coo.h, SP_CSC_BLOCKS_PER_SM and SP_CSC_CHUNK_STEPS), on a 1-GPU H100. Nsight
# Compute (call 6 of bench/results/h100-session20-2026-11-27.md) found the default (4
# blocks of 256 threads an SM, 8 steps a chunk, 56-64 registers) at 42% achieved
# occupancy and 1.59 TB/s on banded:2000000:64 in float, where cuSPARSE's CSC kernel takes
# 0.80x its time. Builds csc_bench in build-gpu (the default) and for each variant of
# VARIANTS (-D flags, one build folder each, side by side), then, ROUNDS times in turn,
# csc_bench on INPUTS with every build. Logs under $OUT/l (else build-gpu/logs-cscocc).
set -u
cd "$(dirname "$0")/.." || exit 1
logs=${OUT:+$OUT/l}; logs=${logs:-$PWD/build-gpu/logs-cscocc}; mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
VARIANTS=${VARIANTS-"-DSP_CSC_BLOCKS_PER_SM=6 -DSP_CSC_CHUNK_STEPS=4|-DSP_CSC_BLOCKS_PER_SM=5 -DSP_CSC_CHUNK_STEPS=6"}
ROUNDS=${ROUNDS-1}
INPUTS=${INPUTS-"banded:2000000:64,f32 banded:2000000:64 blocks:600000:6:9,f32 blocks:1500000:3:6,f32 kron22 circuit:4000000:16 rect:8000000:500000:4 powerlaw:2000000:2.1:16,f32"}
IFS='|' read -r -a vs <<<"$VARIANTS"
build_variants csc_bench
build_gpu 300 csc_bench || exit 1
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
args=(); for i in $INPUTS; do args+=(--input "$i"); done
for r in $(seq 1 "$ROUNDS"); do
  for j in "${!builds[@]}"; do
    step "csc-r$r-$j" 200 "${builds[$j]}/bench/csc_bench" --reps 20 "${args[@]}"
    grep -E "flags" "$logs/csc-r$r-$j.log" | sed "s/ max_rel_diff [^ ]*//; s/^CSC /r$r ${names[$j]} /"
  done
done
echo "== device-csc-occupancy: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
