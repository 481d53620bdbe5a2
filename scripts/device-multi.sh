#!/usr/bin/env bash
# On a GPU machine (one GPU or several): build with CUDA and NCCL, run the distributed
# layer's tests on every visible GPU (NCCL, one process), then the benchmarks: one-rank
# NCCL SpMV and CG on Poisson 160^3 against plain sp_spmv / the single-context solver
# (overhead %; target: SpMV within 5%), the scaling to every GPU where there are several,
# a distributed BFS on a Kronecker graph, and dist_cg's one-process-per-GPU mode (NCCL
# unique id shared through a file). Self-checking: exits non-zero when a test or a
# result check fails; the last lines are the summary.
#
#   bash scripts/device-multi.sh [LOGDIR]     (LOGDIR default: $OUT/multi, else build-gpu/logs/multi)
#
# NCCL_NVLS_ENABLE=0 always: NVLink multicast can put a shared machine's GPUs out of service.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-${OUT:-build-gpu/logs}/multi}
mkdir -p "$logs"
export NCCL_NVLS_ENABLE=0
. scripts/device-env.sh # .deps unpacked, SP_ZLIB_ARGS
export NCCL_NVLS_ENABLE=0
start=$(date +%s)

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${ngpu:-0}" -ge 1 ] || { echo "device-multi: no GPU visible"; exit 1; }
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader \
  | tee "$logs/gpu.txt"
echo "gpus: $ngpu  NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE" | tee -a "$logs/gpu.txt"

status=0
step() { # step NAME TIMEOUT_S COMMAND...: run, log, remember failure
  local name=$1 limit=$2; shift 2
  echo "== $name"
  if timeout "$limit" "$@" >"$logs/$name.log" 2>&1; then echo "   ok"
  else echo "   FAILED (see $logs/$name.log)"; tail -n 30 "$logs/$name.log"; status=1; fi
}

step configure 120 cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DSP_WITH_NCCL=ON \
  -DCMAKE_BUILD_TYPE=Release "${SP_ZLIB_ARGS[@]}"
step build 600 cmake --build build-gpu -j"$(nproc)" --target check_dist check_gpu_dist spbench dist_cg
# the distributed tests: host-simulated ranks, then NCCL on 1 GPU and on every GPU
step ctest 300 ctest --test-dir build-gpu -R "dist" --output-on-failure
if grep -qE "check_gpu_dist .*(Not Run|Skipped)" "$logs/ctest.log"; then
  echo "   FAILED: check_gpu_dist was skipped (no NCCL in this build?)"; status=1
fi
# one NCCL rank against plain sp_spmv and the single-context CG (and every GPU if several)
step spmv-poisson160 300 ./build-gpu/bench/spbench --gpus "$ngpu" --gen poisson3d:160 --reps 200 --cg
grep -q "dist_check: passed" "$logs/spmv-poisson160.log" || status=1
step bfs-kron 300 ./build-gpu/bench/spbench --gpus "$ngpu" --gen kron:18 --bfs --sources 4
grep -q "dist_check: passed" "$logs/bfs-kron.log" || status=1
# the same graph generated in slices on the ranks (sp_dist_gen_kronecker), checked the same way
step bfs-kron-distgen 300 ./build-gpu/bench/spbench --gpus "$ngpu" --gen kron:18 --bfs --sources 4 --dist-gen
grep -q "dist_check: passed" "$logs/bfs-kron-distgen.log" || status=1
# each rank reads only its rows of the file (sp_mtx_read_rows), checked against the whole
step read-rows 120 ./build-gpu/bench/spbench --gpus "$ngpu" --read-rows --cg datasets/mtx/1138_bus.mtx
grep -q "dist_check: passed" "$logs/read-rows.log" || status=1
step dist-cg-gpus 120 ./build-gpu/examples/dist_cg --gpus --n 64 --jacobi
grep -q "status: converged" "$logs/dist-cg-gpus.log" || status=1
# one process per GPU, the NCCL id through a file (as several hosts would join)
rm -f "$logs/nccl.id"
echo "== dist-cg-processes ($ngpu)"
pids=()
for ((r = 0; r < ngpu; r++)); do
  timeout 120 ./build-gpu/examples/dist_cg --id-file "$logs/nccl.id" --nranks "$ngpu" --rank "$r" \
    --n 64 >"$logs/dist-cg-process$r.log" 2>&1 & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
grep -q "status: converged" "$logs/dist-cg-process0.log" && echo "   ok" \
  || { echo "   FAILED (see $logs/dist-cg-process*.log)"; tail -n 20 "$logs"/dist-cg-process*.log; status=1; }

echo
echo "== summary"
cat "$logs/gpu.txt"
grep -E "tests passed|tests failed|Failed|Not Run|Skipped" "$logs/ctest.log" | tail -n 10
for f in spmv-poisson160 bfs-kron bfs-kron-distgen; do
  echo "-- $f"
  grep -E "^(input|nrows|nnz|backend|ranks|rank [0-9]+|spmv_ms|max_rel_err_vs_single|cg_|bfs_|dist_check):" \
    "$logs/$f.log"
done
over=$(awk '/^ranks: 1$/{one=1} one && /^spmv_ms:/{for(i=1;i<=NF;i++) if($i=="overhead_vs_single:") print $(i+1); exit}' \
  "$logs/spmv-poisson160.log")
over=${over%\%}
if [ -n "$over" ] && awk -v o="$over" 'BEGIN{exit !(o <= 5.0)}'; then
  echo "one_rank_spmv_overhead: ${over}% (target <= 5%: met)"
else
  echo "one_rank_spmv_overhead: ${over:-?}% (target <= 5%: MISSED)"
fi
grep -E "^(status|iterations|relative_residual|gpus):" "$logs/dist-cg-gpus.log"
echo "elapsed_s: $(( $(date +%s) - start ))"
echo "device-multi: $([ $status = 0 ] && echo PASSED || echo FAILED)"
exit $status
