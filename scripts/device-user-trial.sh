#!/usr/bin/env bash
# On a GPU machine, after a build (SP_BUILD_DIR, default build-gpu): what a new user does
# from the README: install, build examples/cg_poisson.c in a project of their own against
# the installed package (find_package(libsp)), and solve the same 3D Poisson system on the
# GPU and on the host. Passes when both converge and print the same ||x||_2 to 9 digits.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/device-env.sh # .deps unpacked, SP_ZLIB_ARGS
build=${SP_BUILD_DIR:-build-gpu}
work=$(mktemp -d)
cmake --install "$build" --prefix "$work/prefix" >/dev/null
mkdir -p "$work/user"
cp examples/cg_poisson.c "$work/user/"
cat >"$work/user/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.24)
project(user_cg C)
find_package(libsp REQUIRED)
add_executable(cg_poisson cg_poisson.c)
target_link_libraries(cg_poisson PRIVATE libsp::sp)
CMAKE
cmake -S "$work/user" -B "$work/user/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  "${SP_ZLIB_ARGS[@]}" >/dev/null
cmake --build "$work/user/build" >/dev/null
n=${SP_TRIAL_N:-64}
"$work/user/build/cg_poisson" --gpu --n "$n" | tee "$work/gpu.txt"
"$work/user/build/cg_poisson" --host --n "$n" | tee "$work/host.txt"
g=$(awk '/^x_norm2:/ {printf "%.9e", $2}' "$work/gpu.txt")
h=$(awk '/^x_norm2:/ {printf "%.9e", $2}' "$work/host.txt")
if [ -n "$g" ] && [ "$g" = "$h" ]; then
  echo "user-trial: PASSED (installed package, ||x||_2 = $g on both executors)"
else
  echo "user-trial: FAILED (gpu $g, host $h)"
  exit 1
fi
