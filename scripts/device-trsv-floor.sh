#!/usr/bin/env bash
# Issue 26: the value-as-flag triangular solve's grid below one block an SM. Builds
# sptrsv_bench, then for each W of FLOORS and NS of SLEEPS runs
#   sptrsv_bench --reps 30 --value-tuning W:NS --input poisson3d100 --input poisson3d128
# (W: the level-order grid's floor of warps an SM, whose default is 8, one 256-thread block
# an SM; the grid is then max(two widest levels' units, the floor); NS: the longest sleep
# between polls, default 512) and prints each input's AUTO solve against cuSPARSE SpSV in
# the same process. INPUTS: other sptrsv_bench --input arguments. Logs under build-gpu/logs-trsv-floor, packed into $OUT when set.
#   bash scripts/device-trsv-floor.sh
cd "$(dirname "$0")/.." || exit 1
logs=build-gpu/logs-trsv-floor
mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
FLOORS=${FLOORS-"8 4 2 1"}
SLEEPS=${SLEEPS-"512 0"}
build_gpu 200 sptrsv_bench || exit 1
for w in $FLOORS; do
  for ns in $SLEEPS; do
    # shellcheck disable=SC2086
    step "t-$w-$ns" 150 ./build-gpu/bench/sptrsv_bench --reps 30 --value-tuning "$w:$ns" \
      ${INPUTS:---input poisson3d100 --input poisson3d128}
    grep -E "^summary:" "$logs/t-$w-$ns.log" | cut -d' ' -f2-5 | sed "s/^/W=$w NS=$ns /"
  done
done
[ -n "${OUT:-}" ] && tar czf "$OUT/trsv-floor-logs.tgz" -C build-gpu logs-trsv-floor
echo "== device-trsv-floor: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
