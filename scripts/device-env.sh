# Sourced by the device scripts (never run alone): unpack the Debian packages carried in
# .deps/ (Check, subunit, zlib: ../shared/tools/device-deps.sh fetches them on a machine
# with a registry) under .deps/root, never into /, and point pkg-config, the compiler and
# the loader at them. Appends to LD_LIBRARY_PATH instead of overwriting it. Sets SP_ZLIB_ARGS
# (CMake arguments) where the machine has no zlib headers of its own.
if ls .deps/*.deb >/dev/null 2>&1; then
  if [ ! -f .deps/root/.unpacked ]; then # once: scripts run side by side source this too
    mkdir -p .deps/root
    for _f in .deps/*.deb; do dpkg -x "$_f" .deps/root; done
    touch .deps/root/.unpacked
  fi
  export PKG_CONFIG_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export PKG_CONFIG_SYSROOT_DIR=$PWD/.deps/root
  export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu:$PWD/.deps/root/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
SP_ZLIB_ARGS=()
if [ ! -f /usr/include/zlib.h ] && [ -f .deps/root/usr/include/zlib.h ]; then
  SP_ZLIB_ARGS=(-DZLIB_INCLUDE_DIR="$PWD/.deps/root/usr/include"
                -DZLIB_LIBRARY="$(ls "$PWD"/.deps/root/lib/x86_64-linux-gnu/libz.so.1.* | head -n 1)")
fi
export NCCL_NVLS_ENABLE=0
