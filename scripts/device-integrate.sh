#!/usr/bin/env bash
# On the GPU machine: build (Release, sm_90), run the test suites matching $TESTS (all
# when unset) and the benchmark commands given as arguments, each under a time limit,
# logs under LOGDIR ($OUT/logs on the device tool, else build-gpu/logs).
#   TESTS='gpu_bfs|gpu_spmv' bash scripts/device-integrate.sh 'NAME:SECONDS:COMMAND' ...
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu}/logs
mkdir -p "$L"
. scripts/device-env.sh # .deps unpacked, SP_ZLIB_ARGS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" >"$L/configure.log" 2>&1 || { tail "$L/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -30; exit 1; }
echo "== build ok"
(cd build-gpu && timeout "${CTEST_LIMIT:-300}" ctest ${TESTS:+-R "$TESTS"} --timeout 200 \
   --output-on-failure >"$L/ctest.log" 2>&1)
rc=$?; [ "$rc" -eq 124 ] && echo "== ctest cut at CTEST_LIMIT=${CTEST_LIMIT:-300} s (log: ctest.log)"
grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run|\(Subprocess" "$L/ctest.log" | head -30
for spec in "$@"; do
  name=${spec%%:*}; rest=${spec#*:}; secs=${rest%%:*}; cmd=${rest#*:}
  echo "== $name"
  timeout "$secs" bash -c "$cmd" >"$L/$name.log" 2>&1; rc=$?
  echo "   rc=$rc"; tail -n "${TAIL:-25}" "$L/$name.log"
done
