# Sourced by the step-style device scripts (device-solve26.sh, device-trsv26.sh,
# device-valtab.sh, device-bfs-rule.sh, device-auto23.sh, device-unseen23.sh) after
# device-env.sh, with `logs` (the log folder) set: writes the GPU,
# the compiler and the commit to $logs/gpu.txt, sets status=0 and defines
#   step NAME SECONDS COMMAND...: run COMMAND under a time limit into $logs/NAME.log, print
#   "ok" or why it failed (time limit, signal, exit status; the log's last lines), set
#   status=1 on failure, and return the command's exit status;
#   build_gpu SECONDS TARGET... (below): the configure and build steps;
#   build_variants TARGET... (below): the targets built once for each -D flag set of `vs`.
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  | tee "$logs/gpu.txt" || echo "nvidia-smi failed" | tee "$logs/gpu.txt"
nvcc --version | tail -1 | tee -a "$logs/gpu.txt"
git log --oneline -1 | tee -a "$logs/gpu.txt"

status=0
step() {
  local name=$1 secs=$2; shift 2
  echo "== $name"
  local t0=$SECONDS
  local rc=0
  timeout "$secs" "$@" >"$logs/$name.log" 2>&1 || rc=$?
  if [ $rc = 0 ]; then
    echo "   ok ($((SECONDS - t0)) s)"
  else
    if [ $rc = 124 ]; then
      echo "   TIMEOUT after $secs s ($name)"
    elif [ $rc -gt 128 ]; then
      echo "   CRASHED: $name killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null))" \
        "after $((SECONDS - t0)) s; its last lines follow (stage: lines say how far it got)"
    fi
    echo "   FAILED rc=$rc ($((SECONDS - t0)) s, see $logs/$name.log)"
    tail -n 30 "$logs/$name.log"
    status=1
  fi
  return $rc
}

# build_gpu SECONDS TARGET...: configure build-gpu (Release, sm_90, the zlib of .deps) and
# build the targets, each a step (configure gets 120 s, the build SECONDS); returns non-zero
# when either fails.
build_gpu() {
  local secs=$1; shift
  step configure 120 cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" || return
  step build "$secs" cmake --build build-gpu -j"$(nproc)" --target "$@"
}

# build_variants TARGET...: for each entry i of the array `vs` (CUDA -D flags), configure
# build-v$i with those flags and build the targets there, all in the background (logs in
# $logs/build-v$i.log); the caller waits before using them.
build_variants() {
  local i
  for i in "${!vs[@]}"; do
    ( cmake -S . -B "build-v$i" -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${vs[$i]}" "${SP_ZLIB_ARGS[@]}" &&
      cmake --build "build-v$i" -j4 --target "$@" ) >"$logs/build-v$i.log" 2>&1 &
  done
}
