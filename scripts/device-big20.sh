#!/usr/bin/env bash
# Issue 20's largest inputs on one GPU, in one device call: BFS on Kronecker 24, 26 and 27
# (edge factor 16, generated as patterns on every host core (spbench --bfs alone carries no
# values) and symmetrized on the host by counting (src/coo_symmetrize_pattern.c):
# Kronecker 26 is 2.10G directed entries, just under 2^31, Kronecker 27 about 4.2G (64-bit
# offsets); uploaded in order so the device keeps it without its sort's scratch),
# direction-optimized, 8 sources, every search validated by the Graph500 rules (on every
# core); then SpMV on 3D Poisson N^3 past 2^31 entries
# (spmv64_bench, BIG20_N, default 700: 2.4G entries, 64-bit offsets; the COO uploaded in
# order) against cuSPARSE with 64-bit indices and the read bandwidth; BIG20_POINTS=27 takes
# the 27-point stencil instead (BIG20_N 450: 2.4G entries on 91M rows, a quarter of 700^3's).
# BIG20_STEPS (default "kron24 kron26 spmv700"; also kron27) picks steps; BIG20_BFS_ARGS
# replaces the BFS selection (default: the variants and loops below). Each BFS step prints
# the host memory model's bytes first, spbench's progress lines (stage, seconds, resident
# and peak bytes) go to kronS.err, and the peak RSS comes from time -v (else spbench's
# getrusage line). Logs under $OUT.
#   bash scripts/device-big20.sh
#   BIG20_STEPS="kron24 kron27" bash scripts/device-big20.sh
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L"
. scripts/device-env.sh
SP_BUILD_TARGETS="spbench spmv64_bench"
. scripts/device-build.sh # step, t0, fail; build-gpu built
B=./build-gpu/bench
free -g | head -2 | tee "$L/host-memory.txt"
T=(); [ -x /usr/bin/time ] && T=(/usr/bin/time -v) # the host's peak memory of each step
# The host memory model of spbench --gen kron:S --bfs (a pattern; docs/ARCHITECTURE.md,
# issue 20), for V = 2^S vertices, m = 16 V generated edges and nnz ~ 0.98 x 2m directed
# entries after symmetrizing: generation 8m + 4V; symmetrize 16m + 8V (the peak); the
# sorted COO 8 nnz (uploaded in order, then freed); the host CSR for validation 4 nnz + 8V
# (64-bit pointers); BFS outputs 12V. The device: the COO 8 nnz + its CSR 4 nnz + 8V.
model() { # scale
  awk -v s="$1" 'BEGIN { V = 2^s; m = 16 * V; nnz = 0.98 * 2 * m; G = 1e9;
    printf "model kron%d: V %.0f, m %.0f, nnz ~%.0f; host GB: generate %.1f, symmetrize %.1f (peak), COO %.1f, validation CSR %.1f + BFS %.1f; device GB: COO + CSR %.1f\n",
      s, V, m, nnz, (8*m + 4*V)/G, (16*m + 8*V)/G, 8*nnz/G, (4*nnz + 8*V)/G, 12*V/G, (12*nnz + 8*V)/G }'
}
bfs() { # scale timeout
  local s=$1 lim=$2 rc
  model "$s"
  # shellcheck disable=SC2086 # BIG20_BFS_ARGS is a list of arguments
  "${T[@]}" timeout "$lim" "$B/spbench" --gen "kron:$s" --bfs --sources 8 \
    ${BIG20_BFS_ARGS:---bfs-variant direction_opt,auto --bfs-loop host,graph,auto} \
    --json "$L/kron$s.json" >"$L/kron$s.log" 2>"$L/kron$s.err"
  rc=$?
  grep -E "^(input|nrows|nnz|gpu|bfs|gen_values|value_type|offset_bits)|direction_opt|validated|peak_device|peak_rss" \
    "$L/kron$s.log" | head -24
  grep -E "^progress" "$L/kron$s.err"
  grep -E "Maximum resident|Elapsed \(wall" "$L/kron$s.err"
  grep -v "^progress" "$L/kron$s.err" | grep -iE "error|refused|spbench:" | head -5
  [ "$rc" -eq 124 ] && echo "kron$s: timed out after $lim s"
  step "bfs-kron$s" $rc
}
for s in ${BIG20_STEPS:-kron24 kron26 spmv700}; do
  left=$(( 570 - ($(date +%s) - t0) ))
  case $s in
    kron24) bfs 24 $(( left < 150 ? left : 150 )) ;;
    kron26) bfs 26 $(( left < 400 ? left : 400 )) ;;
    kron27) bfs 27 $(( left < 540 ? left : 540 )) ;;
    spmv*)
      n=${BIG20_N:-700}
      "${T[@]}" timeout "$left" "$B/spmv64_bench" --n "$n" --points "${BIG20_POINTS:-7}" --offsets 64 \
        >"$L/spmv64-$n.log" 2>"$L/spmv64-$n.err"
      rc=$?
      grep -E "^(GPU|spmv64)" "$L/spmv64-$n.log"
      grep -E "Maximum resident|Elapsed \(wall" "$L/spmv64-$n.err"
      [ "$rc" -ne 0 ] && tail -5 "$L/spmv64-$n.log" "$L/spmv64-$n.err"
      step "spmv64-$n" $rc ;;
    *) echo "unknown step $s (kron24 kron26 kron27 spmv700)" ;;
  esac
done
echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
