#!/usr/bin/env bash
# On a GPU machine, after a build (SP_BUILD_DIR, default build-gpu, as scripts/device-test.sh
# and scripts/device-integrate.sh make it): run every ctest test labelled `sanitize` (the GPU
# suites; a suite split into Check cases in tests/CMakeLists.txt runs a job per case,
# SUITE.CASE with CK_RUN_CASE=CASE), those whose name matches the SUITES regex when set,
# under compute-sanitizer memcheck (with leak check), racecheck, synccheck and initcheck,
# with SP_TEST_SMALL=1, which shrinks the largest inputs (the sanitizer runs kernels far
# slower) but keeps every strategy, tile edge and error path. One summary line per tool
# and suite; the exit status is 0 only when every run is clean.
#
#   bash scripts/device-sanitize.sh [LOGDIR] [TOOLS...]   (default tools: all four)
#
# Time limit per run (seconds): SP_SANITIZE_TIMEOUT_<TOOL> overrides the defaults below
# (racecheck is the slowest: it timed out at 80 s on check_gpu_convert).
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-build-gpu/logs}
shift || true
tools=${*:-memcheck racecheck synccheck initcheck}
mkdir -p "$logs"
. scripts/device-env.sh # .deps unpacked, the loader pointed at them
export SP_TEST_SMALL=1
# cuSPARSE's own SpMV kernels (the cross-check baseline) report racecheck hazards of their
# own: the sanitizer runs check libsp's kernels only.
export SP_TEST_NO_CUSPARSE=1
# Suites leave out what a sanitizer run cannot judge: CUDA API errors they provoke on
# purpose (the sanitizer counts them as errors) and wall-clock assertions (it serializes
# launches).
export SP_TEST_UNDER_SANITIZER=1
# Each run also gets SP_TEST_SANITIZER_TOOL=<tool>: under racecheck the suites leave out
# the graph level loop, because racecheck (2025.3) crashes on any CUDA graph with a while
# node, libsp's or not (scripts/sanitizer-while-graph.cu; bench/results/h200-sanitize.md).

limit_for() {
  local var="SP_SANITIZE_TIMEOUT_${1^^}"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  case "$1" in
    racecheck) echo 300 ;;
    memcheck) echo 240 ;;
    *) echo 180 ;;
  esac
}

# The runs: the ctest tests labelled sanitize, SUITE or SUITE.CASE (tests/CMakeLists.txt
# is the one list of suites, their split into cases and their labels).
build=${SP_BUILD_DIR:-build-gpu}
runs=() # "SUITE CASE" (CASE empty: the whole suite)
suites=()
for t in $(ctest --test-dir "$build" -N -L '^sanitize$' 2>/dev/null |
           sed -n 's/^ *Test *#[0-9]*: *//p'); do
  [ -n "${SUITES:-}" ] && ! [[ $t =~ $SUITES ]] && continue
  suite=$build/tests/${t%%.*}
  [ -x "$suite" ] || continue
  case=""; [[ $t == *.* ]] && case=${t#*.}
  runs+=("$suite${case:+ $case}")
  [[ " ${suites[*]} " == *" $suite "* ]] || suites+=("$suite")
done
if [ ${#runs[@]} = 0 ]; then
  echo "device-sanitize: no test labelled sanitize in $build (configure and build first)"
  exit 1
fi

# One job per suite and tool, SP_SANITIZE_JOBS at a time (default 6) on the one GPU: the
# sanitizers are bound by the host CPU, so running them side by side saves most of the
# wall time. Each job writes its summary line to a file; they are printed in order.
one() { # one SUITE TOOL [CASE]
  local suite=$1 tool=$2 case=${3:-} name extra=() log limit start rc took summary checks verdict
  name=$(basename "$suite")${3:+.$3}
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  # racecheck tracks every shared-memory access of every resident block: the persistent
  # BFS kernels of check_gpu_bfs_loops then run on a few blocks (SP_BFS_PERSISTENT_BLOCKS)
  local blocks=${SP_BFS_PERSISTENT_BLOCKS:-}
  [ "$tool" = racecheck ] && [ -z "$blocks" ] && blocks=4
  log="$logs/sanitize-$name-$tool.log"
  limit=$(limit_for "$tool")
  start=$(date +%s)
  CK_RUN_CASE=$case SP_BFS_PERSISTENT_BLOCKS=$blocks SP_TEST_SANITIZER_TOOL=$tool \
    timeout "$limit" compute-sanitizer --tool "$tool" \
    "${extra[@]}" --error-exitcode 3 "$suite" >"$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$log" | tr '\n' ' ')
  checks=$(grep -E "^[0-9]+%: Checks" "$log" | tail -n 1)
  case $rc in
    0) verdict=clean ;;
    3) verdict=ERRORS ;;
    124) verdict="TIMEOUT after ${limit}s" ;;
    77) verdict="skipped (no GPU)" ;;
    *) verdict="FAILED rc=$rc" ;;
  esac
  printf '%-32s %-10s %-18s %4ss  %s %s\n' "$name" "$tool" "$verdict" "$took" "$checks" \
    "$summary" >"$logs/sanitize-$name-$tool.result"
  cat "$logs/sanitize-$name-$tool.result" # as it ends, so a run cut short still reports
  return $([ $rc = 0 ] && echo 0 || echo 1)
}

jobs_max=${SP_SANITIZE_JOBS:-6}
# Runs that use the graph level loop (a CUDA graph with a while node) get the GPU to
# themselves, one tool at a time, after the others: beside other sanitizer processes,
# memcheck, synccheck and initcheck (2025.3) fail such a graph's first kernel (an invalid
# read inside a live allocation, then an illegal address), while the same runs alone are
# clean (bench/results/h200-sanitize.md). SP_SANITIZE_ALONE: regex on SUITE or SUITE.CASE.
alone_re=${SP_SANITIZE_ALONE:-'^(check_gpu_bfs|check_gpu_alloc_sweep\.bfs)$'}
alone=()
for run in "${runs[@]}"; do
  read -r suite case <<<"$run"
  if [[ $(basename "$suite")${case:+.$case} =~ $alone_re ]]; then alone+=("$run"); continue; fi
  for tool in $tools; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    one "$suite" "$tool" "$case" &
  done
done
wait
for run in "${alone[@]}"; do
  read -r suite case <<<"$run"
  for tool in $tools; do one "$suite" "$tool" "$case"; done
done
echo "== all runs, in order"
status=0
for run in "${runs[@]}"; do
  read -r suite case <<<"$run"
  for tool in $tools; do
    r="$logs/sanitize-$(basename "$suite")${case:+.$case}-$tool.result"
    cat "$r" 2>/dev/null || echo "$(basename "$suite") ${case} $tool: no result (killed?)"
    grep -qs " clean " "$r" || status=1
  done
done
echo "device-sanitize: $([ $status = 0 ] && echo PASSED || echo FAILED) (${#suites[@]} suites, ${#runs[@]} runs x $(echo $tools | wc -w) tools)"
exit $status
