#!/usr/bin/env bash
# One device call for the work of several issues on a machine with two GPUs (one GPU: the
# lanes run one after the other): build everything once in build-gpu, then two lanes side
# by side, each on its own GPU, each a list of the issue scripts (scripts/device-*.sh) with
# their own time boxes; then the GPU suites no lane ran. Every script's logs go under
# /tmp/sp_session/NAME; at the end one archive, $OUT/logs.tgz, and the summary lines. A lane
# item "ctest" runs the GPU suites no issue script runs (ctest -R "$CTEST_REST"). An item
# NAME:S cuts its script at S seconds (default 900). CTEST_EXCLUDE: the suites it leaves out.
#   LANE0="bfs22:300 solve26" LANE1="spmv23 ctest" CTEST_REST='^check_gpu_state' \
#     bash scripts/device-session.sh
# Budgets per script through the environment they read (BUDGET, SOLVE26_BUDGET, ...).
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/sp_session_out}
L=/tmp/sp_session
mkdir -p "$out" "$L"
. scripts/device-env.sh
t0=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
git log --oneline -1 2>/dev/null | tee -a "$L/gpu.txt"
cmake -S . -B build-gpu -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${SP_ZLIB_ARGS[@]}" >"$L/configure.log" 2>&1 || { tail -20 "$L/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >"$L/build.log" 2>&1 ||
  { grep -E "error" "$L/build.log" | head -30; tar czf "$out/logs.tgz" -C "$L" .; exit 1; }
echo "== build ok ($(( $(date +%s) - t0 )) s)"
ngpu=$(nvidia-smi -L | wc -l)
# Everything is built: the issue scripts' own `cmake -S . -B build-gpu ...` would only
# regenerate the same build files, two lanes at once in one folder. A cmake first on PATH
# makes their configure step a no-op (their `cmake --build` still runs, and finds nothing
# to do).
shim=$L/shim
mkdir -p "$shim"
printf '#!/bin/sh\n[ "$1" = -S ] && exit 0\nexec %s "$@"\n' "$(command -v cmake)" >"$shim/cmake"
chmod +x "$shim/cmake"
export PATH="$shim:$PATH"

lane() { # lane GPU NAMES...: NAME or NAME:LIMIT_S (the script cut at LIMIT_S seconds)
  local gpu=$1 n s lim; shift
  for n in "$@"; do
    lim=${n#*:}; [ "$lim" = "$n" ] && lim=900
    n=${n%%:*}
    s=$(date +%s)
    mkdir -p "$L/$n"
    if [ "$n" = ctest ]; then # the GPU suites no issue script runs: CTEST_REST, CTEST_LIMIT
      (cd build-gpu && CUDA_VISIBLE_DEVICES=$gpu timeout "${CTEST_LIMIT:-150}" ctest -j6 \
         --timeout "${CTEST_LIMIT:-150}" -R "${CTEST_REST:-.}" -E "${CTEST_EXCLUDE:-^$}" \
         --output-on-failure) >"$L/$n.out" 2>&1
    else
      CUDA_VISIBLE_DEVICES=$gpu OUT=$L/$n timeout "$lim" bash "scripts/device-$n.sh" >"$L/$n.out" 2>&1
    fi
    echo "== $n on GPU $gpu: rc $? in $(( $(date +%s) - s )) s (at $(( $(date +%s) - t0 )) s)" | tee -a "$L/$n.out"
  done
}
if [ "$ngpu" -ge 2 ]; then
  lane 0 ${LANE0:-} &
  { sleep 20; lane 1 ${LANE1:-}; } &
  wait
else
  lane 0 ${LANE0:-} ${LANE1:-}
fi
tar czf "$out/logs.tgz" -C "$L" . 2>/dev/null
for n in ${LANE0:-} ${LANE1:-}; do n=${n%%:*}; echo "######## $n"; tail -n "${TAIL_LINES:-40}" "$L/$n.out"; done
echo "== total $(( $(date +%s) - t0 )) s"
