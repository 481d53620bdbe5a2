#!/usr/bin/env bash
# On the GPU machine: issue 20's "below 2^31 entries nothing gets slower" in one call.
# Builds spbench twice, from BEFORE_DIR (an exported tree of the commit before the issue's
# matrix-layer work, `git archive`d by the lead into an untracked folder of the working
# tree) and from this tree, then runs `spbench --suite` and `spbench --bfs-suite` of each,
# interleaved (before, after, before, after) so drift of the machine falls on both.
#   BEFORE_DIR=before20 SUITES20_STEPS="build suite bfs" bash scripts/device-suites20.sh
# SUITES20_SUITE_ARGS adds to --suite (e.g. "--reps 20": fewer samples a row, so both runs fit
# one call), SUITES20_LIMIT is each run's time limit in seconds.
# Logs under $OUT/{before,after}/ (suite.log, suite.json, bfs-suite.log), then
# scripts/compare-suites.py's tables in $OUT/compare.md. The machine keeps the two build
# folders between calls, so the steps can go in separate calls.
set -u
cd "$(dirname "$0")/.."
L=${OUT:-build-gpu/logs}; mkdir -p "$L/before" "$L/after"
B=${BEFORE_DIR:-before20}
steps=${SUITES20_STEPS:-build suite bfs}
limit=${SUITES20_LIMIT:-280}
. scripts/device-env.sh
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$L/gpu.txt"
t0=$(date +%s)
fail=0
cfg() { # source-dir build-dir log
  cmake -S "$1" -B "$2" -DSP_WITH_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    "${SP_ZLIB_ARGS[@]}" >"$3" 2>&1 && cmake --build "$2" --target spbench -j8 >>"$3" 2>&1
}
case " $steps " in *" build "*)
  [ -d "$B" ] || { echo "== FAIL no $B"; exit 1; }
  cfg "$B" build-before "$L/before/build.log" & pb=$!
  cfg . build-gpu "$L/after/build.log" & pa=$!
  wait $pb || { echo "== FAIL build before"; tail -20 "$L/before/build.log"; exit 1; }
  wait $pa || { echo "== FAIL build after"; tail -20 "$L/after/build.log"; exit 1; }
  echo "== build ok ($(( $(date +%s) - t0 )) s)" ;;
esac
run() { # which(before|after) what(suite|bfs)
  local bin=build-gpu/bench/spbench; [ "$1" = before ] && bin=build-before/bench/spbench
  local t=$(date +%s) rc
  if [ "$2" = suite ]; then
    timeout "$limit" "$bin" --suite ${SUITES20_SUITE_ARGS:-} --json "$L/$1/suite.json" >"$L/$1/suite.log" 2>&1; rc=$?
  else
    timeout "$limit" "$bin" --bfs-suite >"$L/$1/bfs-suite.log" 2>&1; rc=$?
  fi
  echo "== $1 $2 rc=$rc ($(( $(date +%s) - t )) s)"
  [ "$rc" -eq 0 ] || fail=1
}
case " $steps " in *" suite "*) run before suite; run after suite ;; esac
case " $steps " in *" bfs "*) run before bfs; run after bfs ;; esac
if [ -f "$L/before/suite.log" ] && [ -f "$L/before/bfs-suite.log" ] &&
   [ -f "$L/after/suite.log" ] && [ -f "$L/after/bfs-suite.log" ]; then
  python3 scripts/compare-suites.py "$L/before" "$L/after" >"$L/compare.md" 2>&1 || fail=1
  head -c 6000 "$L/compare.md"
fi
echo "== total $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "== ALL PASS" || { echo "== FAIL"; exit 1; }
