#!/usr/bin/env bash
# The README's test command: make sure what the test suites need is here, then configure,
# build and run every test. Check, subunit and pkg-config (and zlib, for the gzip tests)
# are installed with apt-get when missing and this runs as root; otherwise it names the
# packages to install and stops (without zlib the tests still run: they check that gzip
# input is refused). Arguments go to cmake's configure step.
#   bash scripts/test.sh [-DSP_WITH_CUDA=OFF ...]      env: SP_BUILD_DIR (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SP_BUILD_DIR:-build}

missing() { # the Debian packages the tests want that this machine lacks
  local need=""
  command -v pkg-config >/dev/null || need="$need pkg-config"
  { command -v pkg-config >/dev/null && pkg-config --exists check; } ||
    [ -f /usr/include/check.h ] || need="$need check libsubunit-dev"
  [ -f /usr/include/zlib.h ] || need="$need zlib1g-dev"
  echo "$need"
}
need=$(missing)
if [ -n "$need" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "test.sh: installing$need"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq $need >/dev/null
  need=$(missing)
fi
if [ -n "${need// zlib1g-dev/}" ]; then
  echo "test.sh: the test suites need Check through pkg-config; install them, then run again:"
  echo "    sudo apt-get install$need"
  exit 2
fi
[ -z "$need" ] || echo "test.sh: no zlib headers: gzip input will be refused (and tested so)"

cmake -S . -B "$build" "$@"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure
