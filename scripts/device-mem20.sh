#!/usr/bin/env bash
# Issue 20, lean device memory (branch mem20) on a 1-GPU machine, one device call of about
# 10 minutes: build in build-gpu (Release, sm_90), then
#  1. the suites this branch touches, with their output kept (ctest -V):
#     GPU: check_gpu_context (test_memory_accounting: sp_context_memory's current and peak
#     bytes against sp_matrix_info's CSR bytes, the reset; with allocator hooks exactly),
#     check_gpu_bfs (every graph: no CSC on a pattern-symmetric one, a CSC otherwise;
#     symmetric_pulls_through_csr with the memory prepare saves; the cache on both),
#     check_gpu_bfs_loops, check_gpu_alloc_sweep.bfs (the grid with and without the flag);
#     host: check_api, check_coo_cache, check_mtx_read. A skipped GPU suite (77) is a FAIL.
#     Prints the suites' own figures: "memory: csr N bytes, build peak P, rebuild peak R"
#     and "gpu_bfs: direction_opt prepare on kronecker 14 symmetrized: L bytes at the peak
#     through the CSR, F with a CSC of C bytes" (F - L >= C is asserted there).
#  2. spbench --gen kron:20 --bfs --sources 8 --bfs-variant direction_opt --json: PASS when
#     it exits 0, prints "peak_device_bytes: build N run M" with N, M > 0, "bfs_valid: yes",
#     and the JSON holds "peak_device_bytes"; prints the line and the CSC bytes no longer
#     built ((rows + 1) x 4 + nnz x 4, from the run's rows: and nnz: lines).
# Logs under $OUT (else build-gpu/logs). Prints "== PASS <step>" / "== FAIL <step>" lines
# and exits non-zero when any step fails.
#   bash scripts/device-mem20.sh
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
. scripts/device-env.sh
. scripts/device-build.sh # step, t0, fail; build-gpu built

# 1. the suites, output kept; no skip allowed
tests='^(check_gpu_context|check_gpu_bfs|check_gpu_bfs_loops|check_gpu_alloc_sweep\.bfs|check_api|check_coo_cache|check_mtx_read)$'
(cd build-gpu && timeout 420 ctest -V -j4 --timeout 400 -R "$tests" >"$L/ctest-mem20.log" 2>&1)
rc=$?
grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run|\(Skipped\)" "$L/ctest-mem20.log" | head -20
grep -q "(Skipped)" "$L/ctest-mem20.log" && rc=1
n=$(grep -cE "Test +#[0-9]+: .* (Passed|\*\*\*Failed|\*\*\*Timeout)" "$L/ctest-mem20.log")
[ "$n" -ge 7 ] || { echo "only $n of 7 suites reported"; rc=1; }
grep -oE "(memory: csr .*|gpu_bfs: direction_opt prepare .*)" "$L/ctest-mem20.log" | head -4
grep -qE "memory: csr [0-9]+ bytes, build peak [0-9]+" "$L/ctest-mem20.log" || rc=1
grep -qE "gpu_bfs: direction_opt prepare .* through the CSR" "$L/ctest-mem20.log" || rc=1
step mem20-suites $rc

# 2. spbench on Kronecker 20 (symmetrized: the flag is set, direction_opt pulls through the CSR)
timeout 300 ./build-gpu/bench/spbench --gen kron:20 --bfs --sources 8 \
  --bfs-variant direction_opt --json "$L/spbench-kron20.json" >"$L/spbench-kron20.log" 2>&1
rc=$?
grep -E "^(rows|nnz|bfs_ms_mean|bfs_GTEPS_graph500_hmean|bfs_valid|peak_device_bytes):" \
  "$L/spbench-kron20.log"
line=$(grep -E "^peak_device_bytes: build [0-9]+ run [0-9]+$" "$L/spbench-kron20.log" | tail -1)
b=$(echo "$line" | awk '{print $3}'); r=$(echo "$line" | awk '{print $5}')
rows=$(grep -E "^rows: " "$L/spbench-kron20.log" | head -1 | awk '{print $2}')
nnz=$(grep -E "^nnz: " "$L/spbench-kron20.log" | head -1 | awk '{print $2}')
if [ -n "$rows" ] && [ -n "$nnz" ]; then
  echo "csc_bytes_not_built: $(( (rows + 1) * 4 + nnz * 4 )) (the CSC direction_opt built before)"
fi
[ -n "$line" ] && [ "${b:-0}" -gt 0 ] && [ "${r:-0}" -gt 0 ] || { echo "no peak_device_bytes line"; rc=1; }
grep -q "^bfs_valid: yes" "$L/spbench-kron20.log" || rc=1
grep -q '"peak_device_bytes": {"build": [0-9]*, "run": [0-9]*}' "$L/spbench-kron20.json" || {
  echo "the JSON has no peak_device_bytes"; rc=1; }
step spbench-kron20 $rc

echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
