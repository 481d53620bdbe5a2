#!/usr/bin/env bash
# On a 1-GPU machine: configure and build everything in build-gpu (Release, sm_90), then the
# whole ctest (-j8, GPU suites included; none may be skipped). Logs under $OUT/l (else
# build-gpu/logs-ctest); prints the ctest summary and any test that failed or was skipped.
#   bash scripts/device-ctest-all.sh [CTEST_LIMIT_S]      (default 420)
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-ctest}; mkdir -p "$L"
limit=${1:-420}
. scripts/device-env.sh
t0=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${SP_ZLIB_ARGS[@]}" >"$L/configure.log" 2>&1 || { tail -20 "$L/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >"$L/build.log" 2>&1 ||
  { grep -E "error" "$L/build.log" | head -30; echo "== FAIL build"; exit 1; }
echo "== build ok ($(( $(date +%s) - t0 )) s)"
(cd build-gpu && timeout "$limit" ctest -j8 --timeout 300 --output-on-failure >"$L/ctest.log" 2>&1)
rc=$?
[ "$rc" = 124 ] && echo "== ctest cut at $limit s"
grep -E "tests passed|Total Test time|\*\*\*Failed|\*\*\*Timeout|Not Run|Skipped|SKIP" "$L/ctest.log" | tail -n 25
echo "== ctest rc $rc ($(( $(date +%s) - t0 )) s)"
exit "$rc"
