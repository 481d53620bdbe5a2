#!/usr/bin/env bash
# Issue 23, the CSC kernel's instruction count: this tree's CSC kernel against an earlier
# one on a 1-GPU H100. The earlier one is this tree with the files of OLD (a folder that
# .git/info/exclude ignores, carried to the device; default .cmp, holding e.g.
# kernels/spmv/spmv_csc.cu as committed before) put in place of this tree's, built in
# /tmp/old-tree. Builds both (csc_bench; here also the SpMV tests), runs the SpMV tests
# (TESTS, a ctest regex; empty: none), ROUNDS rounds of csc_bench on INPUTS with each build
# in turn, then Nsight Compute on each build's csc_kernel, without and with the window, on
# PROF_INPUT (banded in float): instructions executed, reductions, DRAM bytes, the stall
# reasons, and the kernel's SASS with executed counts. Logs under $OUT/l (else
# build-gpu/logs-csccmp).
set -u
cd "$(dirname "$0")/.." || exit 1
logs=${OUT:+$OUT/l}; logs=${logs:-$PWD/build-gpu/logs-csccmp}; mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
OLD=${OLD:-.cmp}
ROUNDS=${ROUNDS-2}
INPUTS=${INPUTS-"banded:2000000:64,f32 blocks:600000:6:9,f32 blocks:1500000:3:6,f32
  poisson3d:160,f32 banded:2000000:64 poisson3d:160 kron22 circuit:4000000:16,f32
  rect:8000000:500000:4"}
TESTS=${TESTS-"check_gpu_spmv|check_policy"}
PROF_INPUT=${PROF_INPUT:-banded:2000000:64,f32}
rm -rf /tmp/old-tree && mkdir -p /tmp/old-tree &&
  tar --exclude='./build*' --exclude=./.git -cf - . | tar -xf - -C /tmp/old-tree &&
  (cd "$OLD" && find . -type f -print0 | xargs -0 cp --parents -t /tmp/old-tree) ||
  { echo "could not make the old tree"; exit 1; }
(cd /tmp/old-tree && cmake -S . -B build-old -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
   -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" &&
   cmake --build build-old -j6 --target csc_bench) >"$logs/build-old.log" 2>&1 &
if [ -n "$TESTS" ]; then
  build_gpu 400 csc_bench check_gpu_spmv check_gpu_spmv_prepare check_policy || exit 1
else
  build_gpu 400 csc_bench || exit 1
fi
wait
old=/tmp/old-tree/build-old/bench/csc_bench
[ -x "$old" ] || { echo "old build failed"; tail -n 20 "$logs/build-old.log"; status=1; }
if [ -n "$TESTS" ]; then
  step ctest 330 ctest --test-dir build-gpu -R "$TESTS" -E offsets64 -j6 --output-on-failure
  tail -n 3 "$logs/ctest.log"
fi
args=(); for i in $INPUTS; do args+=(--input "$i"); done
benches=(build-gpu/bench/csc_bench); names=(new)
[ -x "$old" ] && { benches+=("$old"); names+=(old); }
for r in $(seq 1 "$ROUNDS"); do
  for j in "${!benches[@]}"; do
    step "csc-r$r-${names[$j]}" 200 "${benches[$j]}" --reps 20 "${args[@]}"
    grep -E "flags" "$logs/csc-r$r-${names[$j]}.log" | grep -E "policy|flags - " |
      sed "s/ max_rel_diff [^ ]*//; s/^CSC /r$r ${names[$j]} /"
  done
done
m=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_inst_executed_op_global_red.sum
m=$m,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
m=$m,smsp__issue_active.avg.pct_of_peak_sustained_active
# the kernel without the window (v0) and with it (v1), by their demangled names
kern=("csc_kernel<.bool.0, .bool.0, .bool.0, " "csc_kernel<.bool.0, .bool.1, .bool.0, ")
for j in "${!benches[@]}"; do
  b=("${benches[$j]}" --reps 3 --input "$PROF_INPUT")
  for v in 0 1; do
    sel=(--kernel-name-base demangled --kernel-name "regex:${kern[$v]}" --launch-skip 2
         --launch-count 1)
    tag=${names[$j]}-v$v
    timeout 120 ncu --clock-control none --metrics "$m" "${sel[@]}" "${b[@]}" \
      >"$logs/ncu-$tag.txt" 2>&1
    echo "== $tag: $PROF_INPUT, ${kern[$v]}"
    grep -E "$(echo "$m" | tr ',' '|')" "$logs/ncu-$tag.txt"
    timeout 150 ncu --clock-control none --section SourceCounters --section WarpStateStats \
      "${sel[@]}" -o "$logs/src-$tag" -f "${b[@]}" >/dev/null 2>&1
    ncu -i "$logs/src-$tag.ncu-rep" --page source --print-source sass --csv \
      >"$logs/sass-$tag.csv" 2>&1
    ncu -i "$logs/src-$tag.ncu-rep" --page details >"$logs/stall-$tag.txt" 2>&1
    rm -f "$logs/src-$tag.ncu-rep"
    echo "   SASS lines: $(wc -l <"$logs/sass-$tag.csv")"
  done
done
echo "== device-csc-compare: $([ $status = 0 ] && echo "all steps passed" || echo FAILED)"
exit $status
