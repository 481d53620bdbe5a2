#!/usr/bin/env bash
# Issue 20, first slice (64-bit offsets per matrix, host context only) on a 1-GPU machine,
# in one device call of a few minutes: build in build-gpu (Release, sm_90), then
#  1. check_offsets64 and check_hostile_sizes: with a GPU present check_offsets64's
#     cuda_accepts case runs for real (since the second slice a CUDA context takes
#     offset_bits 64 below 2^31 entries: scripts/device-offsets64-gpu.sh tests it);
#  2. the quick GPU suites (ctest -L gpu -LE slow): sp_csr_t grew a field (ptr64, NULL on
#     the device) and every kernel was rebuilt, so 32-bit matrices must run as before;
#  3. spbench --offsets 64 on the GPU: runs CSR (offset_bits: 64) and refuses CSC there;
#  4. spbench --offsets 64 on the host context (CUDA_VISIBLE_DEVICES= hides the GPU): SpMV
#     in CSR/COO/CSC/AUTO with max_rel_err printed, the padded formats run (below 2^31
#     entries a host matrix narrows its pointers for them), and BFS validated (bfs_valid: yes).
# Logs under $OUT (else build-gpu/logs). Prints "== PASS <step>" / "== FAIL <step>" lines
# and exits non-zero when any step fails.
#   bash scripts/device-offsets64.sh
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
. scripts/device-env.sh
. scripts/device-build.sh # step, t0, fail; build-gpu built

# 1. the new suite (its CUDA case included) and the size refusals
(cd build-gpu && timeout 300 ctest --output-on-failure -R '^(check_offsets64|check_hostile_sizes)$' \
   >"$L/ctest-offsets64.log" 2>&1)
rc=$?; grep -E "tests passed|Failed|Timeout" "$L/ctest-offsets64.log" | head; step offsets64-tests $rc

# 2. the quick GPU suites: 32-bit matrices unchanged
(cd build-gpu && timeout 420 ctest -j4 --timeout 400 --output-on-failure -L gpu -LE slow \
   >"$L/ctest-gpu.log" 2>&1)
rc=$?; grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run" "$L/ctest-gpu.log" | head -20
step gpu-suites $rc

# 3. spbench on the GPU with 64-bit offsets: CSR runs, CSC is refused
timeout 120 ./build-gpu/bench/spbench --gen poisson3d:40 --offsets 64 --formats csr,csc \
  --reps 3 --check >"$L/spbench-gpu64.log" 2>&1
rc=$?
grep -E "executor|spbench:|^offset_bits|^format: csc" "$L/spbench-gpu64.log" | head -4 | cut -c1-150
if [ "$rc" -eq 0 ] && grep -q "^offset_bits: 64" "$L/spbench-gpu64.log" \
   && grep -q "^format: csc .*64-bit offsets" "$L/spbench-gpu64.log"; then
  step spbench-gpu64 0; else step spbench-gpu64 1; fi

# 4. spbench on the host context with 64-bit offsets: SpMV and BFS run and check
CUDA_VISIBLE_DEVICES= timeout 300 ./build-gpu/bench/spbench --gen poisson3d:40 --offsets 64 \
  --reps 3 --check >"$L/spbench-host64-spmv.log" 2>&1
rc=$?
grep -E "^offset_bits|^format: (csr|coo|csc|auto)" "$L/spbench-host64-spmv.log" | cut -c1-150
if [ "$rc" -eq 0 ] && grep -q "^offset_bits: 64" "$L/spbench-host64-spmv.log" \
   && grep -q "^format: ell .*spmv_ms" "$L/spbench-host64-spmv.log" \
   && grep -q "^format: auto->csr" "$L/spbench-host64-spmv.log"; then
  step spbench-host64-spmv 0; else step spbench-host64-spmv 1; fi
CUDA_VISIBLE_DEVICES= timeout 300 ./build-gpu/bench/spbench --gen kron:16 --bfs --sources 8 \
  --offsets 64 --check >"$L/spbench-host64-bfs.log" 2>&1
rc=$?
grep -E "^offset_bits|^bfs_valid|^bfs_GTEPS_graph500_hmean" "$L/spbench-host64-bfs.log"
if [ "$rc" -eq 0 ] && grep -q "^bfs_valid: yes" "$L/spbench-host64-bfs.log"; then
  step spbench-host64-bfs 0; else step spbench-host64-bfs 1; fi

echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
