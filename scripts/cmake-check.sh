#!/usr/bin/env bash
# CMake + ctest of the C core: configure, build, install into a throwaway prefix, then
# ctest (the `hosts` test builds C/C++ hosts against that installed prefix).
#   scripts/cmake-check.sh             -> .build-cmake      (Release)
#   scripts/cmake-check.sh --sanitize  -> .build-cmake-san  (Debug, ASan + UBSan)
set -euo pipefail
cd "$(dirname "$0")/.."

build=.build-cmake
config=(-DCMAKE_BUILD_TYPE=Release -DIMAGECORE_SANITIZE=OFF)
case "${1:-}" in
  "") ;;
  --sanitize)
    build=.build-cmake-san
    config=(-DCMAKE_BUILD_TYPE=Debug -DIMAGECORE_SANITIZE=ON) ;;
  *) echo "usage: $0 [--sanitize]" >&2; exit 2 ;;
esac

prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT

cmake -S . -B "$build" -DCMAKE_INSTALL_PREFIX="$prefix" "${config[@]}"
cmake --build "$build" -j2
cmake --install "$build"
ctest --test-dir "$build" --output-on-failure
