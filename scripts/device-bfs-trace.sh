#!/usr/bin/env bash
# Issue 22: per-level chunk times of the persistent SOFT and COOP BFS kernels (a build with
# -DSP_BFS_TRACE in build-gpu-trace; bfs_loops_bench --trace: one traversal of each, per
# level the wait before it, its span and its longest chunk) on CA-HepTh, rajat01 and
# rome99. Logs under $OUT/l (else build-gpu-trace/logs).
#   bash scripts/device-bfs-trace.sh
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
SP_BENCH_STEP_SECONDS=60 timeout 120 ./build-gpu-trace/bench/bfs_loops_bench --reps 5 --trace \
  --input datasets/graphs/CA-HepTh.txt --input datasets/mtx/rajat01.mtx \
  --input datasets/graphs/rome99.gr >"$L/trace.log" 2>"$L/trace.err"
rc=$?
echo "== bfs_loops_bench --trace rc $rc"
grep -E "^Graph:|^trace .*total|^persistent_(soft|coop)_us:" "$L/trace.log"
grep -A40 "CA-HepTh" "$L/trace.log" | grep -E "^trace " | head -40
exit "$rc"
