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
sp_build_gpu "$L" all || exit 1
(cd build-gpu && timeout "$limit" ctest -j8 --timeout 300 --output-on-failure >"$L/ctest.log" 2>&1)
rc=$?
[ "$rc" = 124 ] && echo "== ctest cut at $limit s"
grep -E "tests passed|Total Test time|\*\*\*Failed|\*\*\*Timeout|Not Run|Skipped|SKIP" "$L/ctest.log" | tail -n 25
echo "== ctest rc $rc ($(( $(date +%s) - t0 )) s)"
exit "$rc"
