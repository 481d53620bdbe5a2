#!/usr/bin/env bash
# Issue 20, BFS at 64-bit offsets on a GPU, in one device call of about 4 minutes: the BFS
# and context suites at both widths (ctest check_gpu_bfs, check_gpu_context and their
# .offsets64 registrations: SP_TEST_OFFSET_BITS=64), then compute-sanitizer memcheck of
# check_gpu_bfs's offsets64 case (every BFS kernel's int64_t instance, the graph loop
# included) ALONE on the GPU: beside other sanitizer processes the tools report false
# errors at the graph loop's first search (bench/results/h200-sanitize.md). Logs under
# $OUT. Prints "== PASS|FAIL <step>" and exits non-zero when a step fails.
#   bash scripts/device-bfs64.sh
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-bfs64}; mkdir -p "$L"
. scripts/device-env.sh
SP_BUILD_TARGETS="check_gpu_bfs check_gpu_context"
. scripts/device-build.sh # step, t0, fail; build-gpu built
(cd build-gpu && timeout 300 ctest -j4 --timeout 290 --output-on-failure \
   -R '^check_gpu_(bfs|context)(\.offsets64)?$' >"$L/ctest-bfs64.log" 2>&1)
rc=$?
grep -E "Test +#|tests passed" "$L/ctest-bfs64.log"
[ "$(grep -cE " +Passed " "$L/ctest-bfs64.log")" -eq 4 ] || rc=1
step ctest-bfs-both-widths $rc
(cd build-gpu/tests && env SP_TEST_SMALL=1 SP_TEST_UNDER_SANITIZER=1 SP_TEST_SANITIZER_TOOL=memcheck \
   CK_FORK=no CK_RUN_CASE=offsets64 timeout 200 compute-sanitizer --tool memcheck \
   --leak-check full --error-exitcode 3 ./check_gpu_bfs >"$L/memcheck-bfs64.log" 2>&1)
rc=$?
grep -E "Checks:|LEAK SUMMARY|ERROR SUMMARY" "$L/memcheck-bfs64.log" | tail -3
grep -q "ERROR SUMMARY: 0 errors" "$L/memcheck-bfs64.log" || rc=1
step memcheck-bfs64-alone $rc
echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || echo "== SOME FAILED"
exit "$fail"
