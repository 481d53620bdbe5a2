#!/usr/bin/env bash
# Issue 22, deliverable 4: the onesweep radix sort (kernels/prim/radix_sort.cu) on a 1-GPU
# H100 in about 8 minutes. Builds check_gpu_prim, check_gpu_convert, prim_bench and
# convert_bench in build-gpu; runs the onesweep test case (with its look-back watchdog) and
# the whole check_gpu_prim with it; prim_bench --only sort with the onesweep rows (against
# CUB); the CSR -> CSC tests and convert_bench on Kronecker 22 and Poisson 160^3 with the
# classic and the onesweep passes; then prim_bench --only sort26 for each policy variant
# of VARIANTS (CUDA -D flags, one build folder each, built side by side while the tests
# run), and Nsight Compute's kernel times of one sort of 2^26 pairs each way. Logs under
# build-gpu/logs-onesweep, packed into $OUT/onesweep-logs.tgz when $OUT is set.
#   bash scripts/device-onesweep.sh
cd "$(dirname "$0")/.." || exit 1
logs=build-gpu/logs-onesweep
mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
VARIANTS=${VARIANTS-"-DSP_ONESWEEP_BATCH=2|-DSP_ONESWEEP_BLOCK=256 -DSP_ONESWEEP_ITEMS_U32=24 -DSP_ONESWEEP_MIN_BLOCKS=3|-DSP_ONESWEEP_ITEMS_U32=18"}

build_gpu 200 check_gpu_prim check_gpu_convert prim_bench convert_bench || exit 1
# the variants' builds, in the background while the tests run (their timings are not taken)
IFS='|' read -r -a vs <<<"$VARIANTS"
build_variants prim_bench
step prim-all 240 ./build-gpu/tests/check_gpu_prim
wait
step convert-tests 200 ctest --test-dir build-gpu -R check_gpu_convert --timeout 190 --output-on-failure
step sort 120 env SP_BENCH_ONESWEEP=1 ./build-gpu/bench/prim_bench --only sort
grep -E "^\| radix" "$logs/sort.log" | cut -d'|' -f2-4,10-12
for o in 0 -1; do # the classic passes forced, the default
  step "transpose-os$o" 150 ./build-gpu/bench/convert_bench --transpose-only --onesweep $o \
    --input kron22 --input poisson160
  grep -E "^CHECK .*(CSR->CSC|COO->CSR)" "$logs/transpose-os$o.log" | sed "s/^/os$o /"
done
for i in "${!vs[@]}"; do
  echo "variant $i: ${vs[$i]}"
  if [ -x "build-v$i/bench/prim_bench" ]; then
    step "sort26-v$i" 90 env SP_BENCH_ONESWEEP=1 "build-v$i/bench/prim_bench" --only sort26
    grep -E "^\| radix" "$logs/sort26-v$i.log" | cut -d'|' -f2-4,10-12
  else
    echo "   build failed"; tail -n 20 "$logs/build-v$i.log"
  fi
done
step sort26-default 90 env SP_BENCH_ONESWEEP=1 ./build-gpu/bench/prim_bench --only sort26
grep -E "^\| radix" "$logs/sort26-default.log" | cut -d'|' -f2-4,10-12
if command -v ncu >/dev/null; then
  step ncu-times 150 env SP_BENCH_ONESWEEP=1 ncu --clock-control none --csv \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    ./build-gpu/bench/prim_bench --only sort26 --reps 1 --warmup 0
  grep -E '"(gpu__time_duration.sum|dram__bytes_(read|write).sum)"' "$logs/ncu-times.log" |
    awk -F'","' '{ split($5, a, "("); printf "%s %-40.40s %s %s\n", $1, a[1], $(NF-2), $NF }' |
    tr -d '"' | head -n 150 >"$logs/ncu-short.txt"
  grep -E "onesweep|digit|DeviceRadix|Onesweep|Histogram" "$logs/ncu-short.txt" | head -n 80
fi
[ -n "${OUT:-}" ] && tar czf "$OUT/onesweep-logs.tgz" -C build-gpu logs-onesweep
echo "== device-onesweep: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
