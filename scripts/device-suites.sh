#!/usr/bin/env bash
# On the GPU machine: build (Release, sm_90, build folder `build-gpu`, the one every device script uses), then the two benchmark
# sets side by side when two GPUs are visible (spbench --suite on GPU 0; spbench --bfs-suite
# then the whole ctest on GPU 1), or one after the other on one GPU.
# Logs and JSON under LOGDIR ($OUT on the device tool, else build-gpu/logs). The before/after
# runs of a change use this one command so their figures compare.
#   bash scripts/device-suites.sh [SUITE_LIMIT_S] [CTEST_LIMIT_S]
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
suite_limit=${1:-420}; ctest_limit=${2:-150}
. scripts/device-env.sh
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
t0=$(date +%s)
cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${SP_ZLIB_ARGS[@]}" >"$L/configure.log" 2>&1 || { tail -20 "$L/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >"$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -30; exit 1; }
echo "== build ok ($(( $(date +%s) - t0 )) s)"
ngpu=$(nvidia-smi -L | wc -l)
suite() { CUDA_VISIBLE_DEVICES=$1 timeout "$suite_limit" ./build-gpu/bench/spbench --suite \
            --json "$L/suite.json" >"$L/suite.log" 2>&1; echo "suite rc=$?" >>"$L/suite.log"; }
bfs() { CUDA_VISIBLE_DEVICES=$1 timeout "$suite_limit" ./build-gpu/bench/spbench --bfs-suite \
          >"$L/bfs-suite.log" 2>&1; echo "bfs rc=$?" >>"$L/bfs-suite.log"; }
tests() { (cd build-gpu && CUDA_VISIBLE_DEVICES=$1 timeout "$ctest_limit" ctest -j8 --timeout 200 \
            --output-on-failure >"$L/ctest.log" 2>&1); rc=$?
          [ "$rc" -eq 124 ] && echo "== ctest cut at $ctest_limit s" >>"$L/ctest.log"; }
if [ "$ngpu" -ge 2 ]; then suite 0 & { bfs 1; tests 1; } & wait
else suite 0; bfs 0; tests 0; fi
echo "== suites and tests done ($(( $(date +%s) - t0 )) s)"
tail -n 22 "$L/suite.log"; tail -n 30 "$L/bfs-suite.log"
grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run|\(Subprocess|ctest cut" "$L/ctest.log" | head -30
echo "== total $(( $(date +%s) - t0 )) s"
