#!/usr/bin/env bash
# Build the libFuzzer targets of the loaders (clang, ASan + UBSan) and run each for a
# bounded time on a seed corpus from tests/fixtures and datasets.
#   usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET...]
#   env:   SP_FUZZ_BUILD (build folder, default build-fuzz), SP_FUZZ_JOBS (build jobs)
# Prints one summary line per target; exits non-zero if any target found a crash, leak,
# timeout or out-of-memory (the input is kept under $SP_FUZZ_BUILD/artifacts/<target>/).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_mtx_read fuzz_edgelist_read fuzz_coo_load)
build=${SP_FUZZ_BUILD:-build-fuzz}
jobs=${SP_FUZZ_JOBS:-$(nproc)}
command -v clang >/dev/null || { echo "fuzz.sh: clang not found" >&2; exit 2; }

cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSP_WITH_CUDA=OFF -DSP_SANITIZE=address,undefined -DSP_BUILD_FUZZERS=ON \
      -DSP_BUILD_TESTS=OFF -DSP_BUILD_BENCH=OFF -DSP_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target "${targets[@]}" >/dev/null

# Seeds: small files only (libFuzzer inputs here are at most 64 KiB).
small() { find "$@" -type f -size -64k 2>/dev/null | sort; }
seed_fuzz_mtx_read() {
  for f in $(small tests/fixtures/mtx datasets/mtx tests/fixtures/fuzz/mtx); do
    cp "$f" "$1/$(echo "$f" | tr / _)"
  done
}
# Edge lists get the target's two leading bytes: format (0 SNAP, 1 DIMACS, 2 METIS)
# by extension, then an options byte (plain, and undirected + merged + compact + f64).
seed_fuzz_edgelist_read() {
  for f in $(small tests/fixtures/edgelist datasets/graphs tests/fixtures/fuzz/edgelist); do
    case "$f" in
      *.gr) fmt='\001' ;;
      *.graph) fmt='\002' ;;
      *.el|*.wel|*.txt|*.tsv|*.snap) fmt='\000' ;;
      *) continue ;;
    esac
    for o in '\000' '\115'; do
      { printf "$fmt$o"; cat "$f"; } > "$1/$(echo "$f" | tr / _)_$(printf "$o" | od -An -tx1 | tr -d ' ')"
    done
  done
}
seed_fuzz_coo_load() {
  for f in $(small tests/fixtures/cache tests/fixtures/fuzz/cache); do
    cp "$f" "$1/$(echo "$f" | tr / _)"
  done
}

status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t" art="$build/artifacts/$t" log="$build/$t.log"
  mkdir -p "$corpus" "$art"
  "seed_$t" "$corpus"
  rc=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/$t" "$corpus" -max_total_time="$secs" -max_len=65536 -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  final=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(echo "$final" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$final" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$final" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
  found=$(find "$art" -type f | wc -l)
  printf '%-20s %4ss runs=%s cov=%s ft=%s corpus=%s crashes=%s rc=%s\n' "$t" "$secs" \
    "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$found" "$rc"
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    status=1
    echo "---- $t: last lines of $log ----"
    tail -40 "$log"
  fi
done
exit $status
