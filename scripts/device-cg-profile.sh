#!/usr/bin/env bash
# Issue 26: why a fused CG iteration costs what it does. Nsight Compute (hardware counters,
# clocks left alone) on cg_bench's 3D Poisson 160^3 (double, b = ones): the fused spmv step
# and update step of the classic CG against libsp's plain ELL SpMV kernel of the step form,
# two launches each after a warm-up: time, DRAM bytes, L2 sectors read by the SMs,
# achieved occupancy and registers a thread. Needs build-gpu with cg_bench. Logs under
# $OUT (else build-gpu/logs-cg-profile); prints one line per kernel.
#   bash scripts/device-cg-profile.sh
set -uo pipefail
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs-cg-profile}
mkdir -p "$L"
command -v ncu >/dev/null || { echo "cg-profile: ncu not found"; exit 1; }
[ -x build-gpu/bench/cg_bench ] || cmake --build build-gpu -j"$(nproc)" --target cg_bench >"$L/build.log" 2>&1
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size
rc=0
for k in ell_kernel spmv_step_kernel update_step_kernel; do
  timeout 150 ncu --clock-control none --kernel-name "regex:$k" --launch-skip 40 --launch-count 2 \
    --metrics "$metrics" --csv ./build-gpu/bench/cg_bench --n 160 --rtol 1e-8 --rhs ones --reps 1 \
    >"$L/$k.csv" 2>"$L/$k.err" || { echo "cg-profile: ncu on $k failed (see $L/$k.err)"; tail -3 "$L/$k.err"; rc=1; continue; }
  # one line per kernel launch: name, then each metric's value with its unit
  python3 - "$L/$k.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("cg-profile: no rows in", sys.argv[1]); sys.exit(0)
h = rows[0]; ix = {n: i for i, n in enumerate(h)}
by = {}
for r in rows[1:]:
    if not r[ix["ID"]].isdigit(): continue
    by.setdefault((r[ix["ID"]], r[ix["Kernel Name"]][:60]), []).append((r[ix["Metric Name"]], r[ix["Metric Unit"]], r[ix["Metric Value"]]))
for (i, name), ms in by.items():
    print("cg-profile:", name, " ".join(f"{m.split('__')[1].split('.')[0]}={v}{u}" for m, u, v in ms))
PY
done
echo "cg-profile: $([ $rc = 0 ] && echo done || echo FAILED)"
exit $rc
