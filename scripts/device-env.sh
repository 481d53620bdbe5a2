# Sourced by the device scripts (never run alone): unpack the Debian packages carried in
# .deps/ (Check, subunit, zlib: ../shared/tools/device-deps.sh fetches them on a machine
# with a registry) under .deps/root, never into /, and point pkg-config, the compiler and
# the loader at them. Appends to LD_LIBRARY_PATH instead of overwriting it. Sets SP_ZLIB_ARGS
# (CMake arguments) where the machine has no zlib headers of its own.
if ls .deps/*.deb >/dev/null 2>&1; then
  if [ ! -f .deps/root/.unpacked ]; then # once: scripts run side by side source this too
    mkdir -p .deps/root
    for _f in .deps/*.deb; do dpkg -x "$_f" .deps/root; done
    touch .deps/root/.unpacked
  fi
  export PKG_CONFIG_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export PKG_CONFIG_SYSROOT_DIR=$PWD/.deps/root
  export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu:$PWD/.deps/root/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
SP_ZLIB_ARGS=()
if [ ! -f /usr/include/zlib.h ] && [ -f .deps/root/usr/include/zlib.h ]; then
  SP_ZLIB_ARGS=(-DZLIB_INCLUDE_DIR="$PWD/.deps/root/usr/include"
                -DZLIB_LIBRARY="$(ls "$PWD"/.deps/root/lib/x86_64-linux-gnu/libz.so.1.* | head -n 1)")
fi
export NCCL_NVLS_ENABLE=0

# sp_build_gpu LOGDIR TARGET...: configure build-gpu (Release, sm_90, the zlib above) and
# build the targets, logs in LOGDIR/configure.log and LOGDIR/build.log; prints
# "== build ok (N s)", or the errors and "== FAIL build" and returns 1. The scripts that
# keep their own step() (device-steps.sh) use its build_gpu instead.
# SP_BUILD_SKIP=1: build-gpu is already built by the caller (a script that runs two others
# side by side), so neither reconfigures it under the other.
sp_build_gpu() {
  local logs=$1 t0=$SECONDS
  shift
  if [ "${SP_BUILD_SKIP:-0}" = 1 ]; then echo "== build skipped (SP_BUILD_SKIP=1)"; return 0; fi
  cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 "${SP_ZLIB_ARGS[@]}" >"$logs/configure.log" 2>&1 ||
    { tail -20 "$logs/configure.log"; echo "== FAIL configure"; return 1; }
  cmake --build build-gpu -j"$(nproc)" --target "$@" >"$logs/build.log" 2>&1 ||
    { grep -E "error" "$logs/build.log" | head -30; echo "== FAIL build"; return 1; }
  echo "== build ok ($((SECONDS - t0)) s)"
}

# sp_two_gpus_ctest LOGDIR CTEST_LIMIT_S CTEST_LOG RC_FILE (absolute paths): the start of
# the scripts that run the whole ctest on GPU 0 beside their own work on GPU 1: two GPUs
# or fail (returns 1),
# LOGDIR/gpu.txt, everything built (sp_build_gpu), then ctest -j8 on GPU 0 in the
# background (its output in CTEST_LOG, its exit status in RC_FILE; the caller waits).
sp_two_gpus_ctest() {
  local logs=$1 limit=$2 log=$3 rcf=$4 ngpu
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  [ "${ngpu:-0}" -ge 2 ] || { echo "== FAIL: two GPUs needed, $ngpu found"; return 1; }
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader |
    tee "$logs/gpu.txt"
  sp_build_gpu "$logs" all || return 1
  (cd build-gpu && CUDA_VISIBLE_DEVICES=0 timeout "$limit" ctest -j8 --timeout 300 \
     --output-on-failure >"$log" 2>&1; echo $? >"$rcf") &
}
