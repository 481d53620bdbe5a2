#!/usr/bin/env bash
# On a GPU machine, after scripts/device-test.sh has built build-device: run every GPU
# suite (every build-device/tests/check_gpu_* executable, so new suites join by themselves)
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
logs=${1:-build-device/logs}
shift || true
tools=${*:-memcheck racecheck synccheck initcheck}
mkdir -p "$logs"
if ls .deps/*.deb >/dev/null 2>&1; then
  mkdir -p .deps/root
  for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
fi
[ -d .deps/root ] && export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu:$PWD/.deps/root/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SP_TEST_SMALL=1
# cuSPARSE's own SpMV kernels (the cross-check baseline) report racecheck hazards of their
# own: the sanitizer runs check libsp's kernels only.
export SP_TEST_NO_CUSPARSE=1
# Suites leave out what a sanitizer run cannot judge: CUDA API errors they provoke on
# purpose (the sanitizer counts them as errors) and wall-clock assertions (it serializes
# launches).
export SP_TEST_UNDER_SANITIZER=1

limit_for() {
  local var="SP_SANITIZE_TIMEOUT_${1^^}"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  case "$1" in
    racecheck) echo 300 ;;
    memcheck) echo 240 ;;
    *) echo 180 ;;
  esac
}

suites=()
for suite in build-device/tests/check_gpu_*; do
  [ -f "$suite" ] && [ -x "$suite" ] && suites+=("$suite")
done
if [ ${#suites[@]} = 0 ]; then
  echo "device-sanitize: no check_gpu_* suite in build-device/tests (run device-test.sh first)"
  exit 1
fi

status=0
for suite in "${suites[@]}"; do
  name=$(basename "$suite")
  for tool in $tools; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    log="$logs/sanitize-$name-$tool.log"
    limit=$(limit_for "$tool")
    start=$(date +%s)
    timeout "$limit" compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 3 \
      "$suite" >"$log" 2>&1
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
    printf '%-24s %-10s %-18s %4ss  %s %s\n' "$name" "$tool" "$verdict" "$took" "$checks" \
      "$summary"
    [ $rc = 0 ] || status=1
  done
done
echo "device-sanitize: $([ $status = 0 ] && echo PASSED || echo FAILED) (${#suites[@]} suites x $(echo $tools | wc -w) tools)"
exit $status
