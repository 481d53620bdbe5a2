#!/usr/bin/env bash
# Issue 20's largest inputs on one GPU, in one device call: BFS on Kronecker 24 and 26
# (edge factor 16, symmetrized on the host: Kronecker 26 is 2.10G directed entries, just
# under 2^31, generated on every host core, uploaded in order so the device keeps it
# without its sort's scratch), direction-optimized, 8 sources, every search validated by
# the Graph500 rules (on every core); then SpMV on 3D Poisson N^3 past 2^31 entries
# (spmv64_bench, BIG20_N, default 700: 2.4G entries, 64-bit offsets; the COO uploaded in
# order) against cuSPARSE with 64-bit indices and the read bandwidth.
# BIG20_STEPS (default "kron24 kron26 spmv700") picks steps. Logs under $OUT.
#   bash scripts/device-big20.sh
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
. scripts/device-env.sh
SP_BUILD_TARGETS="spbench spmv64_bench"
. scripts/device-build.sh # step, t0, fail; build-gpu built
B=./build-gpu/bench
free -g | head -2 | tee "$L/host-memory.txt"
T=(); [ -x /usr/bin/time ] && T=(/usr/bin/time -v) # the host's peak memory of each step
bfs() { # scale timeout
  local s=$1 lim=$2 rc
  "${T[@]}" timeout "$lim" "$B/spbench" --gen "kron:$s" --bfs --sources 8 \
    --bfs-variant direction_opt,auto --bfs-loop host,graph,auto --json "$L/kron$s.json" \
    >"$L/kron$s.log" 2>"$L/kron$s.err"
  rc=$?
  grep -E "^(input|nrows|nnz|gpu|bfs)|direction_opt|validated|peak_device" "$L/kron$s.log" | head -20
  grep -E "Maximum resident|Elapsed \(wall" "$L/kron$s.err"
  grep -v "^progress" "$L/kron$s.err" | grep -iE "error|refused|spbench:" | head -5
  step "bfs-kron$s" $rc
}
for s in ${BIG20_STEPS:-kron24 kron26 spmv700}; do
  left=$(( 570 - ($(date +%s) - t0) ))
  case $s in
    kron24) bfs 24 $(( left < 150 ? left : 150 )) ;;
    kron26) bfs 26 $(( left < 400 ? left : 400 )) ;;
    spmv*)
      n=${BIG20_N:-700}
      "${T[@]}" timeout "$left" "$B/spmv64_bench" --n "$n" --offsets 64 \
        >"$L/spmv64-$n.log" 2>"$L/spmv64-$n.err"
      rc=$?
      grep -E "^(GPU|spmv64)" "$L/spmv64-$n.log"
      grep -E "Maximum resident|Elapsed \(wall" "$L/spmv64-$n.err"
      [ "$rc" -ne 0 ] && tail -5 "$L/spmv64-$n.log" "$L/spmv64-$n.err"
      step "spmv64-$n" $rc ;;
    *) echo "unknown step $s (kron24 kron26 spmv700)" ;;
  esac
done
echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
