#!/usr/bin/env bash
# Issue 22: where the time of the targets still short goes, measured, on a 1-GPU H100 in
# about 3 minutes:
#   1. BFS per level (`spbench --bfs-levels`: direction, frontier size and GPU time of each
#      level from the first source) on Kronecker 22 (direction_opt, graph loop) and 24
#      (direction_opt, host loop), and the 4096 x 4096 grid (persistent loop), 16 sources;
#   2. Nsight Compute kernel times (clocks left alone) of one CSR -> CSC of Kronecker 22 by
#      each path (the sort and the scatter transpose), against cuSPARSE's kernels.
# Builds spbench and convert_bench in build-gpu (Release, sm_90). Logs in
# build-gpu/logs-profile22, tarred into $OUT (else build-gpu) as profile22-logs.tgz.
#   bash scripts/device-profile22.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUTDIR=${OUT:-build-gpu}
L=build-gpu/logs-profile22
mkdir -p "$L" "$OUTDIR"
. scripts/device-env.sh
SP_BUILD_TARGETS="spbench convert_bench"
. scripts/device-build.sh
S=./build-gpu/bench/spbench
bfs() { # name gen variant loop
  timeout 150 $S --gen "$2" --bfs --bfs-variant "$3" --bfs-loop "$4" --sources 16 --bfs-levels \
    >"$L/bfs-$1.log" 2>&1 || echo "profile22: bfs $1 failed (rc $?)"
  grep -E "^(kron|grid|uniform)|level " "$L/bfs-$1.log" | head -40
}
bfs kron22 kron:22 direction_opt graph
bfs kron24 kron:24 direction_opt host
bfs grid grid2d:4096 frontier persistent
if command -v ncu >/dev/null; then
  # one warm-up and one timed call per path: the kernels of the second call of each
  timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
    ./build-gpu/bench/convert_bench --transpose-only --input kron22 --reps 1 \
    >"$L/transpose-ncu.csv" 2>"$L/transpose-ncu.err" || echo "profile22: ncu transpose failed"
  python3 - "$L/transpose-ncu.csv" <<'PY' | tee "$L/transpose-kernels.txt"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10 and r[0].isdigit()]
for r in rows:
    print("%4s %-90s %s" % (r[0], r[4][:90], r[-1]))
PY
fi
tar -C "$L" -czf "$OUTDIR/profile22-logs.tgz" .
echo "profile22: done ($(( $(date +%s) - t0 )) s)"
