#!/usr/bin/env bash
# The eighth session's last device call, with what the budget left (under 4 minutes): the
# SNAP shape against fast_matrix_market at 1 and 16 threads after the parallel ones fill
# (issue 21), then, in the time left, the fixes of the first GPU run (the solver allocation
# sweep, check_gpu_solver, cg_bench) and the first NCCL run of the distributed tests on one
# GPU. Logs under $OUT.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/sp_closing}
mkdir -p "$out"
t0=$(date +%s)
cmake -S . -B build-host -DCMAKE_BUILD_TYPE=Release -DSP_WITH_CUDA=OFF -DSP_BUILD_TESTS=OFF \
  -DSP_BUILD_EXAMPLES=OFF > "$out/host-build.log" 2>&1 &&
  cmake --build build-host -j"$(nproc)" --target spbench gen_loader_inputs >> "$out/host-build.log" 2>&1 ||
  { tail "$out/host-build.log"; exit 1; }
SP_SHAPES="pattern snap" SP_FMM_WHEELS=$PWD/.whl bash bench/loader_bench.sh --shapes \
  --threads "1 16" --size-mb 1000 --no-fscanf --build build-host --dir /tmp/sp_shapes \
  --repeats 3 2>&1 | tee "$out/shapes-snap.md"
echo "== loaders done ($(( $(date +%s) - t0 )) s)"
. scripts/device-env.sh
cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${SP_ZLIB_ARGS[@]}" > "$out/gpu-cfg.log" 2>&1
timeout 110 cmake --build build-gpu -j"$(nproc)" --target check_gpu_alloc_sweep check_gpu_solver \
  check_gpu_dist cg_bench > "$out/gpu-build.log" 2>&1
echo "== gpu build rc $? ($(( $(date +%s) - t0 )) s)"
cd build-gpu || exit 1
CK_RUN_CASE=solvers timeout 30 ./tests/check_gpu_alloc_sweep 2>&1 | tail -n 3
echo "== alloc sweep solvers ($(( $(date +%s) - t0 )) s)"
timeout 40 ./tests/check_gpu_dist > "$out/dist.log" 2>&1; echo "== check_gpu_dist rc $?"
tail -n 4 "$out/dist.log"
CK_RUN_CASE=fused timeout 40 ./tests/check_gpu_solver > "$out/solver.log" 2>&1
echo "== check_gpu_solver fused rc $?"; tail -n 3 "$out/solver.log"
cd ..
timeout 30 ./build-gpu/bench/cg_bench --n 100 --rtol 1e-8 --rhs ones --reps 2 > "$out/cg100.log" 2>&1
echo "== cg_bench rc $? ($(( $(date +%s) - t0 )) s)"
grep -E "^(steps|fused|device|pipelined|pipelined-device|sample|devscalar|libsp_spmv_ms):" "$out/cg100.log"
