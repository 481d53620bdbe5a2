#!/usr/bin/env bash
# Issue 22 on a 1-GPU H100, in one device call of at most 8 minutes: build (Release, sm_90,
# build-gpu; the targets used), the BFS and conversion test suites, then spbench --bfs on
# Kronecker 22 (64 sources, every variant x loop), Kronecker 24 (16 sources, the
# direction-optimized rows and AUTO), the 4096 x 4096 grid (8 sources, the frontier and
# direction-optimized rows and AUTO) and Kronecker 14 (per-call overheads), each row with
# per-call GTEPS (wall clock of each sp_bfs call), the amortized sp_bfs_multi figure and
# the kernel-only one; then CSR -> CSC against cuSPARSE (convert_bench: the default sort
# path and the count-scan-scatter transpose, each compared with cuSPARSE's arrays) and the
# sort against CUB (prim_bench: the default passes and the onesweep ones).
# Logs under $OUT (else build-gpu/logs-bfs22); a summary at the end; exits 1 when a step
# of the default paths fails (a test, an invalid search, a benchmark's check) or was cut by
# its time limit, 4 when only the off-by-default paths (scatter transpose, onesweep sort)
# failed, 3 when nothing failed but a step was skipped because the time box (BUDGET, 470 s)
# was spent, 0 when all is well.
#   bash scripts/device-bfs22.sh
set -uo pipefail
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs-bfs22}
mkdir -p "$L"
. scripts/device-env.sh # .deps unpacked (Check), SP_ZLIB_ARGS
t0=$(date +%s)
status=0
failed=()
BUDGET=${BUDGET:-470} # seconds for the whole run; a step gets at most what is left
skipped=()
off_failed=() # failures of the off-by-default paths (scatter transpose, onesweep sort)
step() { # step [--off] NAME LIMIT_S COMMAND...: run under a time limit, log, remember failure
  local off=0 name limit s rc left
  [ "$1" = --off ] && { off=1; shift; }
  name=$1 limit=$2
  shift 2
  s=$(date +%s)
  left=$(( BUDGET - (s - t0) ))
  if [ "$left" -lt 15 ]; then
    echo "== $name: SKIPPED, the time box of $BUDGET s is spent"
    skipped+=("$name")
    return 3
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  timeout "$limit" "$@" >"$L/$name.log" 2>&1
  rc=$?
  echo "== $name: rc $rc, $(( $(date +%s) - s )) s (total $(( $(date +%s) - t0 )) s)"
  if [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 124 ] && echo "   cut at its limit of $limit s"
    tail -n 25 "$L/$name.log"
    if [ "$off" -eq 1 ]; then off_failed+=("$name"); else status=1; failed+=("$name"); fi
  fi
  return "$rc"
}

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -n 1; git log --oneline -1 2>/dev/null || true; } | tee "$L/gpu.txt"
step configure 120 cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" || exit 1
# only what this run uses (the whole tree takes longer than the time box allows)
step build 240 cmake --build build-gpu -j"$(nproc)" --target sp spbench prim_bench \
  convert_bench bfs_edgelist check_gpu_prim check_bfs_api check_bfs_validate check_ref_bfs check_ref_convert \
  check_gpu_bfs check_gpu_bfs_loops check_gpu_convert check_gpu_alloc_sweep || exit 1
# the BFS and conversion suites (host and GPU; the BFS part of the allocation sweep) and
# spbench's BFS smoke tests
step ctest 150 ctest --test-dir build-gpu -R "check_.*(bfs|convert)|spbench_bfs|example_bfs" \
  -E transpose_scatter -j4 --timeout 140 --output-on-failure
# the off-by-default paths: the scatter transpose and the sort's onesweep passes
step --off ctest-scatter 60 ctest --test-dir build-gpu -R transpose_scatter --timeout 55 \
  --output-on-failure
step --off ctest-onesweep 90 env CK_FORK=no SP_TEST_ONESWEEP=1 CK_RUN_CASE=radix_sort_onesweep ./build-gpu/tests/check_gpu_prim
SB=./build-gpu/bench/spbench
step bfs-kron22 120 $SB --gen kron:22 --bfs --sources 64 --bfs-validate 2
step bfs-grid4096 90 $SB --gen grid2d:4096 --bfs --sources 8 --bfs-validate 1 \
  --bfs-variant frontier,direction_opt,auto
step bfs-kron24 150 $SB --gen kron:24 --bfs --sources 16 --bfs-validate 1 \
  --bfs-variant direction_opt,auto
# a small graph, where what a call costs beyond its kernels decides between the loops
step bfs-kron14 40 $SB --gen kron:14 --bfs --sources 64 --bfs-validate 2
step convert-vs-cusparse 120 ./build-gpu/bench/convert_bench --transpose-only --input kron22 --input poisson160
step sort-vs-cub 90 env SP_BENCH_ONESWEEP=1 ./build-gpu/bench/prim_bench --only sort

echo
echo "== summary ($(( $(date +%s) - t0 )) s)"
cat "$L/gpu.txt"
grep -hE "tests passed|tests failed|\(Failed\)|\(Timeout\)|Not Run" "$L/ctest.log" 2>/dev/null | head -n 20
for g in kron22 kron24 grid4096 kron14; do
  f=$L/bfs-$g.log
  [ -f "$f" ] || continue
  echo "-- $g (per call | amortized sp_bfs_multi | kernels alone; GTEPS, Graph500 edges)"
  grep -E "^(kron|grid)" "$f" | awk '{printf "   %-14s %-16s call %9s  multi %9s  kern %9s  us/level %9s  %s\n", $2, $3, $7, $8, $9, $12, $14}'
  grep -E "^bfs_(GTEPS_graph500|valid)" "$f" | sed 's/^/   /'
  if grep -qE " NO( |$)|bfs_valid: NO" "$f"; then echo "   INVALID searches in $f"; status=1; fi
done
echo "-- sort against CUB, CSR -> CSC against cuSPARSE (the scatter transpose beside the default)"
grep -E "^\| (primitive|sort|radix)" "$L/sort-vs-cub.log" 2>/dev/null | head -n 12 | sed 's/^/   /'
grep -E "^\| matrix|^\|.*CSR->CSC" "$L/convert-vs-cusparse.log" 2>/dev/null | head -n 12 | sed 's/^/   /'
for f in sort-vs-cub convert-vs-cusparse; do # rows of the default paths, then the others
  if grep MISMATCH "$L/$f.log" 2>/dev/null | grep -qvE "onesweep|by scatter"; then
    echo "   MISMATCH of a default path in $L/$f.log"; status=1
  fi
  if grep MISMATCH "$L/$f.log" 2>/dev/null | grep -qE "onesweep|by scatter"; then
    echo "   MISMATCH of an off-by-default path in $L/$f.log"; off_failed+=("$f")
  fi
done
if [ "${#off_failed[@]}" -gt 0 ]; then
  echo "== the OFF-BY-DEFAULT paths failed (${off_failed[*]}): the scatter transpose"
  echo "   (sp__gpu_csr_to_csc_scatter) or the onesweep sort; the defaults do not use them"
fi
if [ "$status" -ne 0 ]; then
  echo "== FAILED: ${failed[*]:-invalid BFS rows or a MISMATCH}"
elif [ "${#off_failed[@]}" -gt 0 ]; then
  echo "== default paths ok; off-by-default paths FAILED"; status=4
elif [ "${#skipped[@]}" -gt 0 ]; then
  echo "== INCOMPLETE (nothing failed; not run for time: ${skipped[*]})"; status=3
else
  echo "== all ok"
fi
exit "$status"
