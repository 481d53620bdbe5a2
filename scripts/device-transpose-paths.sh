#!/usr/bin/env bash
# Issue 22: CSR -> CSC by the default rule (scatter path for short, even columns) and with
# every matrix sent down the sort path (-DSP_TRANSPOSE_SCATTER_MAX_ROW=0, its own build
# folder), against cuSPARSE, on Poisson 160^3, Kronecker 22 and every file of datasets/mtx;
# check_gpu_convert on the default build. About 4 minutes on a 1-GPU H100. Logs in $OUT.
#   bash scripts/device-transpose-paths.sh
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-build-gpu/logs-transpose-paths}; mkdir -p "$OUT"
. scripts/device-env.sh; t0=$SECONDS
cfg() { cmake -S . -B "$1" -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${SP_ZLIB_ARGS[@]}" "${@:2}"; }
cfg build-gpu >/dev/null 2>&1 && cmake --build build-gpu -j12 --target convert_bench check_gpu_convert \
  >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
( cfg build-sortpath -DCMAKE_CUDA_FLAGS=-DSP_TRANSPOSE_SCATTER_MAX_ROW=0 &&
  cmake --build build-sortpath -j8 --target convert_bench ) >"$OUT/build-sortpath.log" 2>&1 &
echo "built $((SECONDS - t0)) s"
timeout 200 ctest --test-dir build-gpu -R check_gpu_convert -j2 --timeout 190 >"$OUT/ctest.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest.log"
wait
args=(--transpose-only --input poisson160 --input kron22)
for f in datasets/mtx/*.mtx; do args+=(--input "$f"); done
for b in build-gpu build-sortpath; do
  [ -x "$b/bench/convert_bench" ] || { echo "$b: no convert_bench"; tail -5 "$OUT/build-$b.log"; continue; }
  timeout 150 "$b/bench/convert_bench" "${args[@]}" >"$OUT/$b.log" 2>&1
  grep "^CHECK.*CSR->CSC" "$OUT/$b.log" | grep -v scatter | sed "s/^CHECK/$b/" | sed 's/, bit-exact/ /'
done
echo "total $((SECONDS - t0)) s"
