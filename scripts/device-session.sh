#!/usr/bin/env bash
# One device call for the work of several issues on a machine with several GPUs: build
# everything once in build-gpu, then the lanes LANE0 .. LANE7 side by side, lane i on GPU
# i mod (the GPU count) (lanes that share a GPU run one after the other), each a list of
# the issue scripts (scripts/device-*.sh) with their own time boxes. Every script's logs
# go under /tmp/sp_session/NAME; at the end one archive, $OUT/logs.tgz, and the summary
# lines. A lane item "ctest" runs the GPU suites no issue script runs (ctest -R
# "$CTEST_REST", -j CTEST_JOBS, default 6). An item NAME:S cuts its script at S seconds
# (default 900). CTEST_EXCLUDE: the suites it leaves out.
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
      (cd build-gpu && CUDA_VISIBLE_DEVICES=$gpu timeout "${CTEST_LIMIT:-150}" ctest -j"${CTEST_JOBS:-6}" \
         --timeout "${CTEST_LIMIT:-150}" -R "${CTEST_REST:-.}" -E "${CTEST_EXCLUDE:-^$}" \
         --output-on-failure) >"$L/$n.out" 2>&1
    else
      CUDA_VISIBLE_DEVICES=$gpu OUT=$L/$n timeout "$lim" bash "scripts/device-$n.sh" >"$L/$n.out" 2>&1
    fi
    echo "== $n on GPU $gpu: rc $? in $(( $(date +%s) - s )) s (at $(( $(date +%s) - t0 )) s)" | tee -a "$L/$n.out"
  done
}
[ "$ngpu" -ge 1 ] || ngpu=1
all=()
for g in $(seq 0 $((ngpu - 1))); do
  items=()
  for i in 0 1 2 3 4 5 6 7; do
    v=LANE$i
    [ $((i % ngpu)) = "$g" ] && [ -n "${!v:-}" ] && items+=(${!v})
  done
  all+=("${items[@]}")
  [ ${#items[@]} -gt 0 ] && { sleep $((g > 0 ? 10 : 0)); lane "$g" "${items[@]}"; } &
done
wait
tar czf "$out/logs.tgz" -C "$L" . 2>/dev/null
for n in "${all[@]}"; do n=${n%%:*}; echo "######## $n"; tail -n "${TAIL_LINES:-40}" "$L/$n.out"; done
echo "== total $(( $(date +%s) - t0 )) s"
