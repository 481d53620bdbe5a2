#!/usr/bin/env bash
# Issue 23, the CSC kernel after the twentieth session's changes (the heavy rows' warp-summed
# add removed; the window gated by size, sp__policy_spmv_csc_window): one device call on a
# 1-GPU H100. Steps (W23_STEPS, default "build cscbench rows tests sanitize"):
#   build:    the targets below in build-gpu (Release, sm_90);
#   cscbench: bench/csc_bench on W23_INPUTS (default: 3D Poisson at 20..160, bands of two
#             widths at three sizes, the square datasets of general pattern): the kernel with
#             and without the window, the [policy] mark on the variant the library picks;
#   rows:     spbench's CSC and best rows (with prepare_ms) on W23_ROWS;
#   tests:    check_gpu_spmv.shapes, check_gpu_spmv_prepare, check_gpu_alloc_sweep.formats,
#             check_policy;
#   sanitize: compute-sanitizer memcheck and racecheck on check_gpu_spmv.shapes
#             (scripts/device-sanitize.sh), run beside the tests.
# Logs under $OUT/l (else build-gpu/logs-w23). Exit status non-zero when a step fails.
set -u
cd "$(dirname "$0")/.." || exit 1
logs=${OUT:+$OUT/l}; logs=${logs:-$PWD/build-gpu/logs-w23}; mkdir -p "$logs"
steps=${W23_STEPS:-build cscbench rows tests sanitize}
D=datasets/mtx
inputs=${W23_INPUTS:-poisson3d:20 poisson3d:30 poisson3d:40 poisson3d:60 poisson3d:80
  poisson3d:100 poisson3d:160 banded:50000:8 banded:200000:8 banded:1000000:8 banded:50000:64
  banded:200000:64 banded:2000000:64 $D/ani4.mtx $D/BentPipe2D100.mtx $D/rajat01.mtx
  $D/arrow.mtx $D/west0067_jumbled.mtx}
rows=${W23_ROWS:-$D/ani4.mtx $D/BentPipe2D100.mtx $D/rajat01.mtx $D/arrow.mtx banded:200000:8
  circuit:4000000:16}
. scripts/device-env.sh
. scripts/device-steps.sh
has() { [[ " $steps " == *" $1 "* ]]; }
if has build; then
  build_gpu 300 csc_bench spbench check_gpu_spmv check_gpu_spmv_prepare check_gpu_alloc_sweep \
    check_policy || { echo "== FAIL build"; exit 1; }
fi
if has cscbench; then
  args=(); for i in $inputs; do args+=(--input "$i"); done
  step cscbench 200 ./build-gpu/bench/csc_bench --reps 30 "${args[@]}"
  grep -E "flags|transpose" "$logs/cscbench.log" | sed 's/ max_rel_diff [^ ]*//'
fi
if has rows; then
  for r in $rows; do
    n=$(basename "$r" .mtx | tr ':' '_')
    if [[ $r == *.mtx ]]; then src=("$r"); else src=(--gen "$r"); fi
    step "rows-$n" 90 ./build-gpu/bench/spbench "${src[@]}" --formats csr,csc,ell,hyb,sell,auto \
      --reps 30 --json "$logs/rows-$n.json"
    awk -v inp="$r" '/^format: / && !/refused/ { l = $2; ms = pm = xc = "-"
        for (i = 3; i <= NF; i++) { if ($i == "spmv_ms:") ms = $(i + 1)
          if ($i == "prepare_ms:") pm = $(i + 1); if ($i == "x_cusparse_csc:") xc = $(i + 1) }
        printf "ROW %-28s %-16s spmv_ms %9s prepare_ms %9s x_cusparse_csc %s\n", inp, l, ms, pm, xc }' \
      "$logs/rows-$n.log"
  done
fi
pids=()
if has sanitize; then
  ( SUITES='^check_gpu_spmv\.shapes$' bash scripts/device-sanitize.sh "$logs" memcheck racecheck \
      >"$logs/sanitize.log" 2>&1; echo "rc=$?" >>"$logs/sanitize.log" ) &
  pids+=($!)
fi
if has tests; then
  step tests 300 ctest --test-dir build-gpu --output-on-failure --timeout 280 -j3 \
    -R '^(check_gpu_spmv\.shapes|check_gpu_spmv_prepare|check_gpu_alloc_sweep\.formats|check_policy)$'
  grep -E "tests passed|Test +#|Failed" "$logs/tests.log" | tail -n 8
fi
for p in "${pids[@]}"; do wait "$p"; done
if has sanitize; then
  tail -n 8 "$logs/sanitize.log"
  grep -q "^rc=0" "$logs/sanitize.log" || status=1
fi
echo "== device-window23: $([ "$status" = 0 ] && echo PASSED || echo FAILED)"
exit "$status"
