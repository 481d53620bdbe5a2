#!/usr/bin/env bash
# On a GPU machine, after scripts/device-test.sh has built build-device: run every GPU
# suite under compute-sanitizer (memcheck with leak check, racecheck, synccheck,
# initcheck) with SP_TEST_SMALL=1, which shrinks the largest inputs (the sanitizer runs
# kernels far slower) but keeps every strategy, tile edge and error path.
#
#   bash scripts/device-sanitize.sh [LOGDIR] [TOOLS...]   (default tools: all four)
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
status=0
for suite in build-device/tests/check_gpu_*; do
  name=$(basename "$suite")
  for tool in $tools; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    log="$logs/sanitize-$name-$tool.log"
    timeout 300 compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 3 "$suite" >"$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$log" | tr '\n' ' ')
    checks=$(grep -E "^[0-9]+%: Checks" "$log" | tail -n 1)
    printf '%-20s %-10s rc=%s  %s %s\n' "$name" "$tool" "$rc" "$checks" "$summary"
    [ $rc = 0 ] || status=1
  done
done
echo "device-sanitize: $([ $status = 0 ] && echo PASSED || echo FAILED)"
exit $status
