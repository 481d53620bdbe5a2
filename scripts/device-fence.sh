#!/usr/bin/env bash
# The hand-over fences (sp_prim::fence_handover: fence.acq_rel.gpu instead of
# __threadfence's fence.sc.gpu) on a machine with two GPUs, in one call: build everything
# (build-gpu) and, with -DSP_FENCE_SC (the fence before), the benchmarks (build-gpu-sc);
# then side by side the whole ctest of the new build on GPU 0, and on GPU 1 the A/B in two
# alternating rounds of the code paths the fence is on: the persistent BFS loop
# (bfs_loops_bench on CA-HepTh, rajat01, rome99, the 4096 grid), the fused CG's grid
# reductions (cg_bench on Poisson 100^3 and 160^3), CSR adaptive's long-row finish (spbench
# csr rows on two inputs with long rows) and the BFS graph loop (spbench --bfs on Kronecker
# 20). Logs under $OUT/l (else build-gpu/logs-fence). Exit status non-zero when a build, a
# test or a benchmark fails.
#   bash scripts/device-fence.sh [CTEST_LIMIT_S]
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-fence}; mkdir -p "$L/ab"
ctest_limit=${1:-440}
. scripts/device-env.sh
t0=$(date +%s)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${ngpu:-0}" -ge 2 ] || { echo "== FAIL: two GPUs needed, $ngpu found"; exit 1; }
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
cfg=(-DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}")
cmake -S . -B build-gpu "${cfg[@]}" >"$L/configure.log" 2>&1 &&
  cmake -S . -B build-gpu-sc "${cfg[@]}" -DCMAKE_CUDA_FLAGS=-DSP_FENCE_SC >"$L/configure-sc.log" 2>&1 ||
  { echo "== FAIL configure"; exit 1; }
(cmake --build build-gpu -j20 >"$L/build.log" 2>&1; echo $? >"$L/build.rc") &
cmake --build build-gpu-sc -j12 --target bfs_loops_bench cg_bench spbench >"$L/build-sc.log" 2>&1
echo $? >"$L/build-sc.rc"
wait
if [ "$(cat "$L/build.rc")" != 0 ] || [ "$(cat "$L/build-sc.rc")" != 0 ]; then
  grep -E "error" "$L"/build*.log | head -20; echo "== FAIL build"; exit 1
fi
echo "== built ($(( $(date +%s) - t0 )) s)"
(cd build-gpu && CUDA_VISIBLE_DEVICES=0 timeout "$ctest_limit" ctest -j8 --timeout 300 \
   --output-on-failure >"$L/ctest.log" 2>&1; echo $? >"$L/ctest.rc") &
ab_fail=0
ab() { # name build command...: one A/B run on GPU 1, its log in $L/ab/name.log
  local name=$1 b=$2; shift 2
  CUDA_VISIBLE_DEVICES=1 SP_BENCH_STEP_SECONDS=60 timeout 120 "./$b/bench/$@" >"$L/ab/$name.log" 2>&1 ||
    { echo "== FAIL $name"; ab_fail=1; }
}
for round in 1 2; do
  for v in new sc; do
    b=build-gpu; [ "$v" = sc ] && b=build-gpu-sc
    ab "bfsloops-$v-$round" "$b" bfs_loops_bench --reps 20 --input datasets/graphs/CA-HepTh.txt \
      --input datasets/mtx/rajat01.mtx --input datasets/graphs/rome99.gr --input grid4096
    ab "cg100-$v-$round" "$b" cg_bench --n 100 --reps 3
    ab "cg160-$v-$round" "$b" cg_bench --n 160 --reps 3
    ab "pl-$v-$round" "$b" spbench --gen powerlaw:2000000:1.5:8 --formats csr --reps 20
    ab "dl-$v-$round" "$b" spbench --gen denselines:2000000:4:8 --formats csr --reps 20
    ab "kron20-$v-$round" "$b" spbench --gen kron:20 --bfs --sources 16 \
      --bfs-variant direction_opt --bfs-loop graph,persistent,host
    echo "== $v round $round ($(( $(date +%s) - t0 )) s)"
    awk '/^Graph:/{g=$2} /persistent_(soft|coop)_us:/{printf "  %-30s %-20s %s\n", g, $1, $2}' \
      "$L/ab/bfsloops-$v-$round.log" | sed 's|datasets/[a-z]*/||'
    for n in 100 160; do
      grep -E "^(device|fused|devscalar):" "$L/ab/cg$n-$v-$round.log" |
        awk -v n=$n '{for (i = 1; i <= NF; i++) if ($i == "ms_per_iteration") printf "  cg %s %-10s %s ms/it (%s it)\n", n, $1, $(i + 1), $5}'
    done
    for s in pl dl; do
      grep -E "^format: csr/(adaptive|binned) " "$L/ab/$s-$v-$round.log" |
        awk -v s=$s '{for (i = 1; i <= NF; i++) if ($i == "spmv_ms:") printf "  %s %-14s %s ms\n", s, $2, $(i + 1)}'
    done
    grep -E "^kron:20 +direction_opt" "$L/ab/kron20-$v-$round.log" | awk '{printf "  kron20 %s %s ms_mean %s GTEPS %s\n", $2, $3, $5, $7}'
  done
done
wait
ctest_rc=$(cat "$L/ctest.rc" 2>/dev/null || echo 255)
echo "== ctest (new fences) on GPU 0, rc $ctest_rc"
grep -E "tests passed|Total Test time|\*\*\*Failed|\*\*\*Timeout|Not Run|Skipped" "$L/ctest.log" | tail -n 25
echo "== total $(( $(date +%s) - t0 )) s"
[ "$ctest_rc" = 0 ] && [ "$ab_fail" = 0 ]
