#!/usr/bin/env bash
# On a GPU machine: configure with CUDA, build, run every test suite (GPU suites
# included), run spbench on a generated and a bundled matrix, and print a summary.
#
#   bash scripts/device-test.sh [LOGDIR]        (LOGDIR default: build-device/logs)
#
# Check and subunit are taken from .deps/*.deb when the machine has no package registry:
# fetch them first on a machine that has one with ../shared/tools/device-deps.sh, plus
# `apt-get download zlib1g-dev zlib1g` in .deps where the GPU machine lacks zlib headers
# (.deps is git-ignored; carry it along). They are unpacked under .deps/root, never into /.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-build-device/logs}
mkdir -p "$logs"

if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p .deps/root
  for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
  export PKG_CONFIG_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu/pkgconfig
  export PKG_CONFIG_SYSROOT_DIR=$PWD/.deps/root
  export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu:$PWD/.deps/root/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
zlib_args=()
if [ ! -f /usr/include/zlib.h ] && [ -f .deps/root/usr/include/zlib.h ]; then
  # no zlib headers on the machine: the carried zlib1g-dev and zlib1g
  zlib_args=(-DZLIB_INCLUDE_DIR="$PWD/.deps/root/usr/include"
             -DZLIB_LIBRARY="$(ls "$PWD"/.deps/root/lib/x86_64-linux-gnu/libz.so.1.* | head -n 1)")
fi

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  | tee "$logs/gpu.txt" || echo "nvidia-smi failed" | tee "$logs/gpu.txt"
nvcc --version | tail -1 | tee -a "$logs/gpu.txt"

status=0
step() { # step NAME COMMAND...: run, log, remember failure
  local name=$1; shift
  echo "== $name"
  if "$@" >"$logs/$name.log" 2>&1; then echo "   ok"; else echo "   FAILED (see $logs/$name.log)"; tail -n 30 "$logs/$name.log"; status=1; fi
}

step configure cmake -S . -B build-device -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release "${zlib_args[@]}"
step build cmake --build build-device -j"$(nproc)"
step ctest ctest --test-dir build-device --output-on-failure
step spbench-poisson3d ./build-device/bench/spbench --gen poisson3d:64 --check --reps 20 --json "$logs/spbench-poisson3d.json"
step spbench-bundled ./build-device/bench/spbench --check --bfs --sources 8 --json "$logs/spbench-bundled.json"

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
