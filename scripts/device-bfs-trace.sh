#!/usr/bin/env bash
# Issue 22: per-level chunk times of the persistent SOFT and COOP BFS kernels (a build with
# -DSP_BFS_TRACE in build-gpu-trace; bfs_loops_bench --trace: one traversal of each, per
# level the wait before it, its span and its longest chunk) on CA-HepTh, rajat01 and
# rome99, or on the bfs_loops_bench inputs of TRACE_INPUTS (e.g. "grid4096
# datasets/mtx/rajat01.mtx"). A SOFT chunk's span ends after its fence and its counter
# add; a COOP chunk's before grid.sync(), which its level's wait holds. Logs under $OUT/l
# (else build-gpu-trace/logs).
#   [TRACE_INPUTS="..."] bash scripts/device-bfs-trace.sh
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu-trace/logs}; mkdir -p "$L"
. scripts/device-env.sh
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
t0=$(date +%s)
cmake -S . -B build-gpu-trace -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSP_BFS_TRACE "${SP_ZLIB_ARGS[@]}" \
  >"$L/configure.log" 2>&1 || { tail -20 "$L/configure.log"; echo "== FAIL configure"; exit 1; }
cmake --build build-gpu-trace -j"$(nproc)" --target bfs_loops_bench >"$L/build.log" 2>&1 ||
  { grep -E "error" "$L/build.log" | head -20; echo "== FAIL build"; exit 1; }
echo "== built ($(( $(date +%s) - t0 )) s)"
inputs=()
for i in ${TRACE_INPUTS:-datasets/graphs/CA-HepTh.txt datasets/mtx/rajat01.mtx \
                        datasets/graphs/rome99.gr}; do inputs+=(--input "$i"); done
SP_BENCH_STEP_SECONDS=60 timeout 120 ./build-gpu-trace/bench/bfs_loops_bench --reps 5 --trace \
  "${inputs[@]}" >"$L/trace.log" 2>"$L/trace.err"
rc=$?
echo "== bfs_loops_bench --trace rc $rc"
grep -E "^Graph:|^trace .*total|^persistent_(soft|coop)_us:" "$L/trace.log"
# per level: the mean wait (hand-over), span and longest chunk of each kernel and graph
awk '/^Graph:/ {g = $2} /^trace persistent_[a-z]+ +[0-9]+ / {
       k = g " " $2; n[k]++; w[k] += $7; sp[k] += $8; lo[k] += $9 }
     END { for (k in n) printf "per level %s: %d levels, wait %.2f us, span %.2f us, longest chunk %.2f us\n",
                               k, n[k], w[k] / n[k], sp[k] / n[k], lo[k] / n[k] }' "$L/trace.log" | sort
grep -A40 "CA-HepTh" "$L/trace.log" | grep -E "^trace " | head -40
exit "$rc"
