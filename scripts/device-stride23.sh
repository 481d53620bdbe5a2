#!/usr/bin/env bash
# Issue 23, why ELL and JDS trail SELL on rect:250000:8000000:64 (every row 63-64 entries, x
# 64 MB past the L2; the same bytes and loads, only the stride between a row's slots differs:
# nrows entries for ELL and JDS, 32 for SELL), on a 1-GPU H100: Nsight Compute on each
# kernel of `spbench --formats ell|jds|sell` (time, DRAM bytes and throughput, L2 and L1 hit
# rates and sectors, the warps' stall reasons), on INPUT and on CONTRAST (the same rows over
# 2M columns: x 16 MB, in the L2); the one-wave bound of JDS and SELL on three shapes
# outside both sets (UNSEEN). Then compute-sanitizer (SANITIZERS, default racecheck, empty:
# none; memcheck ran clean in this session's call 2) on check_gpu_spmv's shapes case (the
# tails' kernel in its ADD mode) through scripts/device-sanitize.sh. Logs under $OUT/l (else
# build-gpu/logs-stride).
#   bash scripts/device-stride23.sh
set -u
cd "$(dirname "$0")/.." || exit 1
logs=${OUT:+$OUT/l}; logs=${logs:-$PWD/build-gpu/logs-stride}; mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
INPUT=${INPUT:-rect:250000:8000000:64}
CONTRAST=${CONTRAST:-rect:250000:2000000:64}
build_gpu 400 spbench check_gpu_spmv || exit 1
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
m=$m,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
m=$m,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
m=$m,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
m=$m,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
m=$m,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
m=$m,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for input in "$INPUT" "$CONTRAST"; do
  tag=${input//:/_}
  # each format alone (AUTO's row runs one of them too); its third launch: after the two
  # calls that size a sample, the first warm-up call
  for f in ell jds sell; do
    step "ncu-$tag-$f" 240 ncu --clock-control none --metrics "$m" --section WarpStateStats \
      --kernel-name-base function --kernel-name "regex:^${f}_kernel" --launch-skip 2 \
      --launch-count 1 build-gpu/bench/spbench --gen "$input" --formats "$f" --reps 1
    echo "-- $input $f"
    grep -E "^ +(gpu__|dram__|lts__|l1tex__|sm__|smsp__|Stall|Warp Cycles)" \
      "$logs/ncu-$tag-$f.log" | sed 's/^ */   /'
  done
done
# the one-wave bound of JDS and SELL on shapes outside both sets: each with the policy's
# bound (2 x mean where it applies) and with 4 x mean + 32 (the bound before it), AUTO and
# the other rows beside (UNSEEN: "SPEC:OLD_BOUND ..."; empty: none)
UNSEEN=${UNSEEN-"powerlaw:20000:2.5:12:78 powerlaw:100000:2.2:6:55 circuit:60000:40:62"}
for u in $UNSEEN; do
  spec=${u%:*} old=${u##*:}
  for b in 0 "$old"; do
    step "unseen-${spec//:/_}-b$b" 120 build-gpu/bench/spbench --gen "$spec" \
      --formats csr,ell,jds,sell --long-row-bound "$b" --reps 50
    label=$b; [ "$b" = 0 ] && label="the policy's"
    echo "-- $spec, long-row bound $label"
    grep -E "^(format|auto_format|row_length):" "$logs/unseen-${spec//:/_}-b$b.log" |
      sed 's/  GFLOP.*//'
  done
done
# the tails' kernel in its ADD mode and the rest of the SpMV kernels, as
# scripts/device-sanitize.sh runs them (small inputs, no cuSPARSE)
export SUITES='^check_gpu_spmv\.shapes$'
if [ -n "${SANITIZERS-racecheck}" ]; then
  step sanitize 330 bash scripts/device-sanitize.sh "$logs" ${SANITIZERS-racecheck}
  cat "$logs"/sanitize-*.result
fi
echo "== device-stride23: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
