#!/usr/bin/env bash
# Issue 22: where the radix sort's time goes, against CUB's, on the target's input (2^26
# pairs of 32-bit keys, prim_bench --only sort26). Nsight Compute, clocks left alone:
#   1. every kernel of one libsp sort and one CUB sort, time only (the pass structure);
#   2. the full section set of libsp's downsweep (classic passes, passes 0 and 1) and of
#      CUB's onesweep kernel (passes 0 and 1), as text, side by side.
# Builds prim_bench in build-gpu (Release, sm_90). Logs in build-gpu/logs-sort-profile,
# tarred into $OUT (else build-gpu) as sort-profile-logs.tgz; prints the per-kernel times
# and the headline metrics.
#   bash scripts/device-sort-profile.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUTDIR=${OUT:-build-gpu}
L=build-gpu/logs-sort-profile
mkdir -p "$L" "$OUTDIR"
. scripts/device-env.sh
SP_BUILD_TARGETS="prim_bench"
. scripts/device-build.sh
command -v ncu >/dev/null || { echo "sort-profile: ncu not found"; exit 1; }
B=./build-gpu/bench/prim_bench
timeout 60 $B --only sort26 --reps 20 | tee "$L/bench.txt" | grep -E "radix|GPU"
# 1. one sort each (warm-up 1, reps 1: the libsp sort, then CUB's, then again)
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  --csv $B --only sort26 --reps 1 --warmup 1 >"$L/times.csv" 2>"$L/times.err" \
  || { echo "sort-profile: ncu times failed"; tail -5 "$L/times.err"; }
python3 - "$L/times.csv" <<'PY' | tee "$L/times.txt"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("no rows"); sys.exit(0)
h = rows[0]; ix = {n: i for i, n in enumerate(h)}
by = {}
order = []
for r in rows[1:]:
    if not r[ix["ID"]].isdigit(): continue
    k = (int(r[ix["ID"]]), r[ix["Kernel Name"]][:70])
    if k not in by: order.append(k); by[k] = {}
    by[k][r[ix["Metric Name"]]] = (r[ix["Metric Value"]], r[ix["Metric Unit"]])
for k in order:
    m = by[k]
    print("%3d %-70s %s" % (k[0], k[1], "  ".join("%s=%s%s" % (n.split("__")[1].split(".")[0], v, u) for n, (v, u) in m.items())))
PY
# 2. full sections, two launches each
for k in downsweep_kernel upsweep_kernel Onesweep; do
  timeout 150 ncu --clock-control none --set full --kernel-name "regex:$k" --launch-skip 0 --launch-count 2 \
    $B --only sort26 --reps 1 --warmup 1 >"$L/full-$k.txt" 2>"$L/full-$k.err" \
    || { echo "sort-profile: ncu full $k failed"; tail -5 "$L/full-$k.err"; }
  echo "== $k"
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Shared Memory Configuration Size|Block Limit|Warp Cycles Per Issued|Issued Warp|L1/TEX Hit|L2 Hit|Executed Ipc|Static Shared|Dynamic Shared" "$L/full-$k.txt" | head -60
done
tar -C "$L" -czf "$OUTDIR/sort-profile-logs.tgz" .
echo "sort-profile: done ($(( $(date +%s) - t0 )) s)"
