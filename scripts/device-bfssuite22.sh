#!/usr/bin/env bash
# Issue 22's BFS suite and the loops' sanitizer runs, on an already built build-gpu (a lane
# of scripts/device-session.sh, or after any script that built everything): spbench
# --bfs-suite (every graph x variant x loop per call, with the amortized and kernel-only
# figures beside; AUTO against the best row, the two interleaved), then compute-sanitizer's
# four tools on the suites of the BFS level loops (check_gpu_bfs_loops, both offset widths;
# SANITIZE_SUITES overrides the regex). Logs under $OUT (else build-gpu/logs-bfssuite).
# Exit status non-zero when the suite is not valid or a sanitizer run is not clean.
#   bash scripts/device-bfssuite22.sh [SUITE_LIMIT_S]
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-bfssuite}; mkdir -p "$L"
suite_limit=${1:-240}
. scripts/device-env.sh
t0=$(date +%s)
status=0
timeout "$suite_limit" ./build-gpu/bench/spbench --bfs-suite >"$L/bfs-suite.log" 2>&1 || status=1
echo "== bfs-suite rc $status ($(( $(date +%s) - t0 )) s)"
grep -E "auto chose|bfs_suite_(seconds|valid)" "$L/bfs-suite.log"
within=$(grep -c "auto chose.*; within 10%)" "$L/bfs-suite.log")
graphs=$(grep -c "auto chose" "$L/bfs-suite.log")
echo "TARGET AUTO within 10% of the best row (interleaved) on every graph: $within of $graphs"
grep -q "bfs_suite_valid: yes" "$L/bfs-suite.log" || { echo "== bfs-suite NOT valid"; status=1; }
SUITES=${SANITIZE_SUITES:-'^check_gpu_bfs_loops'} bash scripts/device-sanitize.sh "$L" \
  >"$L/sanitize.out" 2>&1 || status=1
echo "== sanitizer ($(( $(date +%s) - t0 )) s)"
sed -n '/== all runs, in order/,$p' "$L/sanitize.out"
echo "== device-bfssuite22: $([ $status = 0 ] && echo PASSED || echo FAILED) ($(( $(date +%s) - t0 )) s)"
exit $status
