#!/usr/bin/env bash
# Issue 22, the SOFT/COOP gap on CA-HepTh: the SASS of both persistent kernels (cuobjdump,
# instruction mixes), then bfs_loops_bench on CA-HepTh, rajat01, rome99 and the grid with
# the default build and with VARIANT_FLAGS (default -DSP_BFS_SOFT_PLAIN_SINK: the SOFT
# kernel with COOP's sink and no prefetch), each build in its own directory, alternating.
# Logs under $OUT/l (else build-gpu/logs-coop-ab).
#   bash scripts/device-coop22-ab.sh [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:+$OUT/l}; L=${L:-$PWD/build-gpu/logs-coop-ab}; mkdir -p "$L"
reps=${1:-20}
flags=${VARIANT_FLAGS:--DSP_BFS_SOFT_PLAIN_SINK}
. scripts/device-env.sh
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
inc=(-I src/core -I src -I kernels -I include)
for v in default variant; do
  f=(); [ "$v" = variant ] && read -r -a f <<<"$flags"
  nvcc -arch=sm_90 -O3 -std=c++17 --expt-relaxed-constexpr "${f[@]}" "${inc[@]}" -cubin \
    -o "$L/persistent-$v.cubin" kernels/bfs/bfs_persistent.cu &&
    cuobjdump -sass "$L/persistent-$v.cubin" >"$L/persistent-$v.sass"
  echo "== SASS ($v): instructions, LDG, ATOM/RED, BAR, NANOSLEEP per kernel"
  awk '/Function : /{name=$3} /^ +\/\*[0-9a-f]+\*\/ /{n[name]++; if (/LDG/) l[name]++;
       if (/ATOM|RED\./) a[name]++; if (/BAR\./) b[name]++; if (/NANOSLEEP/) s[name]++}
       END{for (k in n) if (k ~ /ILi256.*EiE/) printf "  %s %d ldg %d atom %d bar %d sleep %d\n",
       k, n[k], l[k], a[k], b[k], s[k]}' "$L/persistent-$v.sass" | sed -E 's/_ZN.*persistent_kernel/persistent_kernel/'
done
cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${SP_ZLIB_ARGS[@]}" >"$L/configure.log" 2>&1 &&
cmake -S . -B build-gpu-v -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_FLAGS="$flags" "${SP_ZLIB_ARGS[@]}" >"$L/configure-v.log" 2>&1 || { echo "== FAIL configure"; exit 1; }
(cmake --build build-gpu -j8 --target bfs_loops_bench >"$L/build.log" 2>&1; echo $? >"$L/build.rc") &
cmake --build build-gpu-v -j8 --target bfs_loops_bench >"$L/build-v.log" 2>&1; rcv=$?
wait
[ "$(cat "$L/build.rc")" = 0 ] && [ "$rcv" = 0 ] || { echo "== FAIL build"; tail -5 "$L"/build*.log; exit 1; }
echo "== built"
inputs=(--input datasets/graphs/CA-HepTh.txt --input datasets/mtx/rajat01.mtx
        --input datasets/graphs/rome99.gr --input grid4096)
for round in 1 2; do
  for v in default variant; do
    b=build-gpu; [ "$v" = variant ] && b=build-gpu-v
    SP_BENCH_STEP_SECONDS=60 timeout 120 ./$b/bench/bfs_loops_bench --reps "$reps" "${inputs[@]}" \
      >"$L/$v-$round.log" 2>"$L/$v-$round.err"
    echo "== $v round $round rc $?"
    awk '/^Graph:/{g=$2} /persistent_(soft|coop)_us:/{printf "  %-34s %-22s %s\n", g, $1, $2}' \
      "$L/$v-$round.log" | sed 's|datasets/[a-z]*/||'
  done
done
