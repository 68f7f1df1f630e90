#!/usr/bin/env bash
# `make install PREFIX=…`: the `imagecore` CLI built lean by scripts/build-cli.sh (static Swift
# standard library, libjpeg and OpenMP runtime; build flags only, so the package manifest stays
# a clean versioned dependency), its shell
# completions and man page (generated from its argument declarations), and the C library,
# header, CMake config and pkg-config file from the CMake build.
#   scripts/install.sh PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:?usage: scripts/install.sh PREFIX}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)

bin=$(scripts/build-cli.sh)

cmake -S . -B .build-cmake-install -DCMAKE_BUILD_TYPE=Release -DIMAGECORE_SANITIZE=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build .build-cmake-install -j2 >/dev/null
cmake --install .build-cmake-install >/dev/null

install -D -m 755 "$bin" "$prefix/bin/imagecore"
"$bin" --generate-completion-script bash > "$bin.bash"
"$bin" --generate-completion-script zsh > "$bin.zsh"
"$bin" --generate-completion-script fish > "$bin.fish"
"$bin" --generate-manual > "$bin.1"
install -D -m 644 "$bin.bash" "$prefix/share/bash-completion/completions/imagecore"
install -D -m 644 "$bin.zsh" "$prefix/share/zsh/site-functions/_imagecore"
install -D -m 644 "$bin.fish" "$prefix/share/fish/vendor_completions.d/imagecore.fish"
install -D -m 644 "$bin.1" "$prefix/share/man/man1/imagecore.1"
echo "installed imagecore $("$prefix/bin/imagecore" --version) to $prefix"
