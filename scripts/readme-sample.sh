#!/usr/bin/env bash
# Regenerate the sample output of `spbench --check` in README.md: run the command and
# rewrite what stands between the readme-sample markers, so the sample is never typed.
#   bash scripts/readme-sample.sh [BUILD_DIR]   (default build; spbench is built there,
#                                                host executor, when it is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
if [ ! -x "$build/bench/spbench" ]; then
  cmake -S . -B "$build" -DSP_WITH_CUDA=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target spbench >/dev/null
fi
begin='<!-- readme-sample: begin (scripts/readme-sample.sh writes this block) -->'
end='<!-- readme-sample: end -->'
grep -qxF "$begin" README.md && grep -qxF "$end" README.md ||
  { echo "readme-sample.sh: the markers are missing from README.md" >&2; exit 1; }
out=$(mktemp)
executor=$("$build/bench/spbench" --check | tee "$out.run" | sed -n 's/^executor: //p')
{
  echo "$begin"
  echo "Sample output, executor: $executor (made by \`bash scripts/readme-sample.sh\`):"
  echo
  echo '```'
  echo "\$ ./build/bench/spbench --check"
  cat "$out.run"
  echo '```'
  echo "$end"
} >"$out.block"
awk -v b="$begin" -v e="$end" -v f="$out.block" '
  $0 == b { while ((getline line < f) > 0) print line; skip = 1; next }
  $0 == e { skip = 0; next }
  !skip' README.md >"$out"
cat "$out" >README.md # keeps README.md's mode
rm -f "$out"
rm -f "$out.run" "$out.block"
echo "readme-sample.sh: README.md sample regenerated ($executor)"
