# Sourced by the PASS/FAIL device scripts (device-offsets64.sh, device-offsets64-gpu.sh)
# after device-env.sh, with L (the log folder) set: defines step NAME RC (a "== PASS" or
# "== FAIL" line; a failure sets fail=1), starts the clock t0, prints the GPUs, and builds
# build-gpu (Release, sm_90) with its logs under $L, leaving the script on a failed
# configure or build. SP_BUILD_TARGETS (optional, space-separated) builds only those targets.
fail=0
t0=$(date +%s)
step() { # name rc: the verdict line
  if [ "$2" -eq 0 ]; then echo "== PASS $1 ($(( $(date +%s) - t0 )) s)"
  else echo "== FAIL $1 (rc=$2; logs in $L)"; fail=1; fi
}
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$L/gpu.txt"
cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${SP_ZLIB_ARGS[@]}" >"$L/configure.log" 2>&1 || { tail -20 "$L/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" ${SP_BUILD_TARGETS:+--target $SP_BUILD_TARGETS} \
  >"$L/build.log" 2>&1 \
  || { grep -E "error" "$L/build.log" | head -30; echo "== FAIL build"; exit 1; }
echo "== PASS build ($(( $(date +%s) - t0 )) s)"
