#!/usr/bin/env bash
# The installed `imagecore` CLI, built lean with build flags only (the manifest stays a clean
# versioned dependency). Used by `make install`, `make test`, `make peers` and the scale
# scripts, so they all measure and test the same binary:
#   - the Swift standard library linked statically (--static-swift-stdlib);
#   - libjpeg, TurboJPEG (the lossless rotate's tjTransform), libstdc++ and the OpenMP runtime
#     linked statically too: gcc's libgomp.a stands
#     in for libomp (the C core calls only the GOMP entry points both export), found first
#     through a folder of links named as the manifest's libraries; pkg-config files that put
#     that folder first (--pkg-config-path). libc, libm, zlib, libspng and Little CMS stay
#     shared (Debian ships no static libspng or lcms2);
#   - lld with packed relative relocations (-z pack-relative-relocs: the PIE's 600 KiB of
#     relocations become 5 KiB) and the functions a run uses laid out together
#     (scripts/cli-symbol-order.txt, made by scripts/cli-symbol-order.sh), so start-up touches
#     fewer pages. Still a PIE (ASLR kept).
# Each step is skipped when its tool or archive is missing (the binary is then only larger).
# README "Start-up and memory" has what each step saved.
#   scripts/build-cli.sh            -> prints the binary's path (.build-static/release/imagecore)
set -euo pipefail
cd "$(dirname "$0")/.."
build=.build-static
links=$build/static-links
pcdir=$build/static-pc
rm -rf "$links" "$pcdir"
mkdir -p "$links" "$pcdir"

flags=(-c release --product imagecore --static-swift-stdlib --build-path "$build")
if [[ "$(uname -s)" == Linux ]]; then
    link() { # link NAME ARCHIVE: NAME found as ARCHIVE when it exists
        [[ -f "$2" ]] && ln -sf "$(realpath "$2")" "$links/$1" || true
    }
    link libomp5.a "$(gcc -print-file-name=libgomp.a 2>/dev/null || true)"
    link libstdc++.a "$(gcc -print-file-name=libstdc++.a 2>/dev/null || true)"
    link libjpeg.a "$(pkg-config --variable=libdir libjpeg)/libjpeg.a"
    link libturbojpeg.a "$(pkg-config --variable=libdir libturbojpeg)/libturbojpeg.a"
    for pc in libjpeg libturbojpeg spng lcms2; do
        src="$(pkg-config --variable=pcfiledir "$pc")/$pc.pc"
        sed "s|^Libs:|Libs: -L$(realpath "$links")|" "$src" > "$pcdir/$pc.pc"
    done
    flags+=(--pkg-config-path "$(realpath "$pcdir")")
    lld="$(dirname "$(realpath "$(command -v swift)")")/ld.lld"
    if [[ -x "$lld" ]]; then
        flags+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
                -Xlinker "--symbol-ordering-file=$(realpath scripts/cli-symbol-order.txt)" -Xlinker --no-warn-symbol-ordering)
    fi
fi
swift build "${flags[@]}" >&2
echo "$build/release/imagecore"
