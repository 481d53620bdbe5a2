#!/usr/bin/env bash
# Issue 26: the level-merged value-as-flag triangular solve (kernels/solve/sptrsv_merge.cu)
# on a 1-GPU H100 in about 5 minutes. Builds check_gpu_sptrsv and sptrsv_bench in build-gpu
# and sptrsv_bench for each variant of VARIANTS (CUDA -D flags) beside it; runs
# check_gpu_sptrsv (SP_TEST_SMALL=1, its four cases side by side); then ROUNDS times in
# turn sptrsv_bench --reps 30 on the inputs (3D Poisson 100^3 and 128^3, 2D Poisson
# 1000^2, the square datasets with a full diagonal) by the default rule, never merged
# (--merge 0), merged wherever a plan qualifies (--merge 1) and with each variant, AUTO's solve and analysis against cuSPARSE SpSV in
# the same process. Logs under build-gpu/logs-trsv-merge, packed into $OUT when set.
#   bash scripts/device-trsv-merge.sh
cd "$(dirname "$0")/.." || exit 1
logs=build-gpu/logs-trsv-merge
mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
VARIANTS=${VARIANTS-"-DSP_SPTRSV_ROW_WINDOW=8"}
ROUNDS=${ROUNDS-2}
INPUTS=(--input poisson3d100 --input poisson3d128 --input poisson2d1000
  --input datasets/mtx/1138_bus.mtx --input datasets/mtx/BentPipe2D100.mtx
  --input datasets/mtx/ani4.mtx --input datasets/mtx/arrow.mtx --input datasets/mtx/young1c.mtx)
build_gpu 200 check_gpu_sptrsv sptrsv_bench || exit 1
IFS='|' read -r -a vs <<<"$VARIANTS"
build_variants sptrsv_bench
step tests 240 env SP_TEST_SMALL=1 ctest --test-dir build-gpu --output-on-failure -j4 \
  -R '^check_gpu_sptrsv'
grep -E "tests passed|tests failed|Failed" "$logs/tests.log" | tail -n 6
wait
runs=("default|build-gpu|" "unmerged|build-gpu|--merge 0" "merged|build-gpu|--merge 1")
for i in "${!vs[@]}"; do
  if [ -x "build-v$i/bench/sptrsv_bench" ]; then runs+=("v$i ${vs[$i]}|build-v$i|")
  else echo "variant $i (${vs[$i]}): build failed"; tail -n 20 "$logs/build-v$i.log"; fi
done
for r in $(seq 1 "$ROUNDS"); do
  for j in "${!runs[@]}"; do
    IFS='|' read -r name dir flag <<<"${runs[$j]}"
    # shellcheck disable=SC2086
    step "bench-r$r-$j" 200 "$dir/bench/sptrsv_bench" --reps 30 $flag "${INPUTS[@]}"
    grep -E "^summary:" "$logs/bench-r$r-$j.log" | cut -d' ' -f2-8 | sed "s/^/r$r $name: /"
  done
done
[ -n "${OUT:-}" ] && tar czf "$OUT/trsv-merge-logs.tgz" -C build-gpu logs-trsv-merge
echo "== device-trsv-merge: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
