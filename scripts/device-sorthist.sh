#!/usr/bin/env bash
# Issue 22: the onesweep sort's digit counts kernel (kernels/prim/radix_sort.cu,
# digit_hist_kernel) on a 1-GPU H100 in about 6 minutes. Builds check_gpu_prim and
# prim_bench in build-gpu (the default policy) and prim_bench for each variant of VARIANTS
# (CUDA -D flags, one build folder each, built while the tests run); runs check_gpu_prim;
# then, ROUNDS times in turn, prim_bench --only sort26 of the default and every variant
# (each against CUB in its own process); with TRANSPOSE=1 then convert_bench's transposes
# of Kronecker 22 and Poisson 160^3 with every build (against cuSPARSE); then Nsight
# Compute's kernel times of one sort of 2^26 pairs with each build. Logs under
# build-gpu/logs-sorthist, packed into $OUT/sorthist-logs.tgz when $OUT is set.
#   bash scripts/device-sorthist.sh
cd "$(dirname "$0")/.." || exit 1
logs=build-gpu/logs-sorthist
mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
VARIANTS=${VARIANTS-"-DSP_ONESWEEP_HIST_BYTES=64|-DSP_ONESWEEP_HIST_RUNS=0|-DSP_ONESWEEP_HIST_PREFETCH=0"}
ROUNDS=${ROUNDS-2}

build_gpu 200 check_gpu_prim check_gpu_convert prim_bench convert_bench || exit 1
IFS='|' read -r -a vs <<<"$VARIANTS"
build_variants prim_bench convert_bench
step prim-tests 240 ./build-gpu/tests/check_gpu_prim
step convert-tests 200 ctest --test-dir build-gpu -R check_gpu_convert --timeout 190 --output-on-failure
wait
builds=("build-gpu")
names=("default")
for i in "${!vs[@]}"; do
  if [ -x "build-v$i/bench/prim_bench" ]; then
    builds+=("build-v$i"); names+=("v$i ${vs[$i]}")
  else
    echo "variant $i (${vs[$i]}): build failed"; tail -n 20 "$logs/build-v$i.log"
  fi
done
for r in $(seq 1 "$ROUNDS"); do
  for j in "${!builds[@]}"; do
    step "sort26-r$r-$j" 90 "${builds[$j]}/bench/prim_bench" --only sort26
    grep -E "^\| radix" "$logs/sort26-r$r-$j.log" | cut -d'|' -f2-4,10-12 | sed "s/^/r$r ${names[$j]}: /"
  done
done
for j in "${!builds[@]}"; do
  [ "${TRANSPOSE:-0}" = 1 ] || break
  step "transpose-$j" 150 "${builds[$j]}/bench/convert_bench" --transpose-only \
    --input kron22 --input poisson160
  grep -E "^CHECK .*CSR->CSC" "$logs/transpose-$j.log" | sed "s/^/${names[$j]}: /"
done
if command -v ncu >/dev/null; then
  for j in "${!builds[@]}"; do
    step "ncu-$j" 150 ncu --clock-control none --csv --metrics gpu__time_duration.sum \
      "${builds[$j]}/bench/prim_bench" --only sort26 --reps 1 --warmup 0
    echo "${names[$j]}:"
    grep -E '"gpu__time_duration.sum"' "$logs/ncu-$j.log" |
      awk -F'","' '{ split($5, a, "("); printf "   %s %-40.40s %s\n", $1, a[1], $NF }' |
      tr -d '"' | grep -E "digit_hist|Histogram|onesweep_kernel|Onesweep" | head -n 40
  done
fi
[ -n "${OUT:-}" ] && tar czf "$OUT/sorthist-logs.tgz" -C build-gpu logs-sorthist
echo "== device-sorthist: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
