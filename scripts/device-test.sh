#!/usr/bin/env bash
# On a GPU machine: configure with CUDA, build, run every test suite (GPU suites
# included), run spbench on a generated and a bundled matrix, and print a summary.
#
#   bash scripts/device-test.sh [LOGDIR]        (LOGDIR default: build-gpu/logs)
#
# Check and subunit are taken from .deps/*.deb when the machine has no package registry:
# fetch them first on a machine that has one with ../shared/tools/device-deps.sh, plus
# `apt-get download zlib1g-dev zlib1g` in .deps where the GPU machine lacks zlib headers
# (.deps is git-ignored; carry it along). scripts/device-env.sh unpacks them under
# .deps/root, never into /.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-build-gpu/logs}
mkdir -p "$logs"

. scripts/device-env.sh # .deps unpacked, SP_ZLIB_ARGS

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  | tee "$logs/gpu.txt" || echo "nvidia-smi failed" | tee "$logs/gpu.txt"
nvcc --version | tail -1 | tee -a "$logs/gpu.txt"

status=0
step() { # step NAME COMMAND...: run, log, remember failure
  local name=$1; shift
  echo "== $name"
  if "$@" >"$logs/$name.log" 2>&1; then echo "   ok"; else echo "   FAILED (see $logs/$name.log)"; tail -n 30 "$logs/$name.log"; status=1; fi
}

step configure cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release "${SP_ZLIB_ARGS[@]}"
step build cmake --build build-gpu -j"$(nproc)"
step ctest ctest --test-dir build-gpu --output-on-failure
step spbench-poisson3d ./build-gpu/bench/spbench --gen poisson3d:64 --check --reps 20 --json "$logs/spbench-poisson3d.json"
step spbench-bundled ./build-gpu/bench/spbench --check --bfs --sources 8 --json "$logs/spbench-bundled.json"

echo
echo "== summary"
cat "$logs/gpu.txt"
grep -E "tests passed|tests failed|Not Run|\*\*\*Skipped|Failed" "$logs/ctest.log" | tail -n 20
for f in poisson3d bundled; do
  echo "-- spbench $f"
  grep -E "^(input|executor|rows|nnz|read_bandwidth|working_set|baseline|auto_format|format|gpu_upload_sort_ms|bfs_MTEPS_hmean|bfs_valid):" "$logs/spbench-$f.log"
done
echo "device-test: $([ $status = 0 ] && echo PASSED || echo FAILED)"
exit $status
