#!/usr/bin/env bash
# On a 1-GPU machine (H100), issue 26's triangular solve in one call (under 4 minutes):
# build check_gpu_sptrsv and sptrsv_bench in build-gpu, run the GPU triangular-solve tests
# (every kernel, the wave and single-block ones included, against the host reference at
# small sizes: long chains, wide levels, both triangles, unit diagonals; and the public
# sp_sptrsv_analyse / sp_sptrsv against a host context), then sptrsv_bench (public API,
# analysis and solve timed apart, cuSPARSE SpSV in the same process) on 3D Poisson 100^3
# and 128^3, 2D Poisson 1000^2 and the square matrices of datasets/mtx with a full
# diagonal. Prints per input libsp's (AUTO) and cuSPARSE's solve and analysis and their
# ratios, a PHASES line per input for AUTO and LEVELS (the analysis's phases, gpu/host ms:
# setup, bound, level_pass, readback, group_by_level, prepare, release), then a line per target: MET or SHORT (solve >= 1.2x cuSPARSE, analysis no slower
# than cuSPARSE's) on poisson3d100, poisson3d128 and the SPD dataset with a full diagonal
# (1138_bus; hangGlider_2, the other symmetric one, lacks diagonal entries and is skipped);
# the other inputs are printed as info. Exit status: non-zero when the build, a test, the benchmark or an accuracy
# check (every method's max relative error <= 1e-9) fails; a SHORT target alone is not a
# failure (it is a measurement). TRSV26_UNITS="1 2 4 8" adds the level pass's units sweep
# on the three stencils (see the end).
#
#   bash scripts/device-trsv26.sh [LOGDIR]     (LOGDIR default: $OUT, else build-gpu/logs)
#   TRSV26_MEMCHECK=1 bash scripts/device-trsv26.sh   (adds memcheck of two test cases)
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-${OUT:-build-gpu/logs}}
mkdir -p "$logs"

. scripts/device-env.sh # .deps unpacked, SP_ZLIB_ARGS

. scripts/device-steps.sh # gpu.txt, status, step()

build_gpu 200 check_gpu_sptrsv sptrsv_bench || exit 1
# the four cases side by side, small sizes (chains of 10000 rows, 3D Poisson 12^3 and 24^3,
# levels 33 and 200 rows wide, the datasets)
step tests 120 env SP_TEST_SMALL=1 ctest --test-dir build-gpu --output-on-failure -j4 \
  -R '^check_gpu_sptrsv'
grep -E "tests passed|tests failed|Failed" "$logs/tests.log" | tail -n 6

# TRSV26_MEMCHECK=1: also compute-sanitizer memcheck on the chains case (the level pass
# and every solve on chains and interleaved levels) and the contracts case (analyse_both,
# the allocation sweep, the phase hook)
if [ "${TRSV26_MEMCHECK:-0}" = 1 ]; then
  for c in chains contracts; do
    step "memcheck-$c" 240 env CK_RUN_CASE=$c SP_TEST_SMALL=1 SP_TEST_UNDER_SANITIZER=1 \
      SP_TEST_SANITIZER_TOOL=memcheck compute-sanitizer --tool memcheck --error-exitcode 3 \
      ./build-gpu/tests/check_gpu_sptrsv
    grep -E "ERROR SUMMARY" "$logs/memcheck-$c.log" | tail -n 1
  done
fi

inputs=(--input poisson3d100 --input poisson3d128 --input poisson2d1000)
for f in datasets/mtx/*.mtx; do inputs+=(--input "$f"); done
if step bench 150 ./build-gpu/bench/sptrsv_bench --internal "${inputs[@]}"; then
  echo "-- per input (AUTO through the public API against cuSPARSE SpSV; ratio > 1: libsp faster)"
  grep -E "^summary:" "$logs/bench.log"
  echo "-- every kernel's solve against cuSPARSE (speedup) and analysis (ms)"
  awk '/^matrix:/ { m = $2 }
       /_speedup_vs_cusparse:/ { k = $1; sub("_speedup_vs_cusparse:", "", k); sp[m] = sp[m] " " k "=" $2 }
       /_analysis_ms:/ && !/cusparse/ { k = $1; sub("_analysis_ms:", "", k); an[m] = an[m] " " k "=" $2 }
       /^cusparse_analysis_ms:/ { an[m] = an[m] " cusparse=" $2 }
       END { for (m in sp) { print m ": solve x" sp[m]; print m ": analysis ms" an[m] } }' \
    "$logs/bench.log" | sort
  echo "-- where the analysis goes: one more analysis of AUTO and LEVELS through the public API,"
  echo "   its phases timed (gpu ms: the stream's time from the previous phase's end; host ms beside)"
  awk '/^matrix:/ { m = $2 }
       /^api_(auto|levels)_analysis_ms:/ { k = $1; sub("_analysis_ms:", "", k); tot[m, k] = $2 }
       /^api_(auto|levels)_phase:/ {
         k = $1; sub("_phase:", "", k); split($4, g, "="); split($5, h, "=")
         line[m, k] = line[m, k] sprintf(" %s%s=%s/%s", $2 > 0 ? "#" $2 ":" : "", $3, g[2], h[2])
         if (!((m, k) in seen)) { seen[m, k] = 1; order[++n] = m SUBSEP k }
       }
       /^api_(auto|levels)_phases_total:/ { k = $1; sub("_phases_total:", "", k); split($2, g, "="); sum[m, k] = g[2] }
       END { for (i = 1; i <= n; i++) { split(order[i], mk, SUBSEP)
               printf "PHASES %-18s %-10s analysis %s ms, phases %s ms:%s\n", mk[1], mk[2],
                      tot[order[i]], sum[order[i]], line[order[i]] } }' "$logs/bench.log"
  if ! grep -q "^api_auto_phase: 0 level_pass " "$logs/bench.log"; then
    echo "PHASES missing: sptrsv_bench printed no api_auto level_pass phase"
    status=1
  fi
  sed -n '/^| matrix/,$p' "$logs/bench.log"
  # accuracy: every method within 1e-9 of the host reference
  awk '/^matrix:/ { m = $2 }
       /_max_rel_err:/ { if ($2 + 0 > 1e-9 || $2 ~ /nan|inf/) { print "ACCURACY FAIL " m " " $1 " " $2; bad = 1 } }
       END { exit bad }' "$logs/bench.log" || status=1
  echo "-- targets (solve >= 1.2x cuSPARSE SpSV, analysis no slower than cuSPARSE's)"
  awk '/^summary:/ {
         name = $2; sr = ar = ""
         for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
         sr = v["solve_ratio"]; ar = v["analysis_ratio"]
         target = name ~ /^(poisson3d100|poisson3d128|1138_bus\.mtx)$/
         tag = target ? "TARGET" : "info  "
         s = (sr + 0 >= 1.2) ? "MET" : "SHORT"; a = (ar + 0 >= 1.0) ? "MET" : "SHORT"
         printf "%s %-20s solve %s (%.2fx: %s us vs cuSPARSE %s us)  analysis %s (%.2fx: %s ms vs %s ms)\n",
                tag, name, s, sr, v["auto_solve_us"], v["cusparse_solve_us"], a, ar,
                v["auto_analysis_ms"], v["cusparse_analysis_ms"]
         if (target) { n++; met += (s == "MET") + (a == "MET") }
       }
       END { printf "targets: %d of %d met (solve and analysis on %d inputs)\n", met, 2 * n, n }' \
    "$logs/bench.log"
fi
# TRSV26_UNITS="1 2 4 8": the stencils again with the level pass forced to each count of
# 32-row units a ticket (--level-units), AUTO's analysis and its level pass per count, so
# the launch's choice (the row "chosen", from the run above) can be judged against each
if [ -n "${TRSV26_UNITS:-}" ]; then
  echo "-- the level pass by units a ticket (AUTO through the public API; ms: analysis, level pass gpu)"
  for u in $TRSV26_UNITS; do
    if step "units-$u" 90 ./build-gpu/bench/sptrsv_bench --reps 20 --level-units "$u" \
         --input poisson3d100 --input poisson3d128 --input poisson2d1000; then
      awk -v u="$u" '/^matrix:/ { m = $2 }
           /^api_auto_analysis_ms:/ { an[m] = $2 }
           /^api_auto_phase: 0 level_pass / { split($4, g, "="); lp[m] = g[2] }
           /^api_auto_max_rel_err:/ { err[m] = $2 }
           END { for (m in an) printf "UNITS %s %-14s analysis %s ms  level_pass %s ms  err %s\n", u, m, an[m], lp[m], err[m] }' \
        "$logs/units-$u.log" | sort
    fi
  done
  awk '/^matrix:/ { m = $2 }
       /^api_auto_analysis_ms:/ { an[m] = $2 }
       /^api_auto_phase: 0 level_pass / { split($4, g, "="); lp[m] = g[2] }
       END { for (m in an) if (m ~ /^poisson/) printf "UNITS chosen %-14s analysis %s ms  level_pass %s ms\n", m, an[m], lp[m] }' \
    "$logs/bench.log" | sort
fi
echo
echo "== summary"
cat "$logs/gpu.txt"
echo "device-trsv26: $([ $status = 0 ] && echo PASSED || echo FAILED)"
exit $status
