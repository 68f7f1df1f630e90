#!/usr/bin/env bash
# Regenerates scripts/cli-symbol-order.txt: the functions the CLI runs for --version, --help
# and a typical thumbnail, scan, info, resize and convert (callgrind's list, symbol names), for
# scripts/build-cli.sh to lay out together (lld --symbol-ordering-file). Only a layout hint:
# a stale list costs resident pages, never correctness. Needs valgrind.
#   scripts/cli-symbol-order.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(scripts/build-cli.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the toolchain's DWARF 5; the symbol table is what it needs.
strip --strip-debug -o "$work/imagecore" "$bin"
python3 - "$work/in.ppm" <<'PY'
import sys
w, h = 1600, 1200
px = bytearray()
for y in range(h):
    for x in range(w):
        px += bytes(((x * 255) // w, (y * 255) // h, ((x ^ y) & 255)))
open(sys.argv[1], "wb").write(b"P6\n%d %d\n255\n" % (w, h) + px)
PY
run() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.%p" "$work/imagecore" "$@" >/dev/null 2>&1 || true; }
"$work/imagecore" encode "$work/in.ppm" "$work/in.jpg" --quiet
run --version
run --help
run thumbnail "$work/in.jpg" --size 256 -o "$work/t.jpg"
run scan "$work/in.jpg" "$work/s.jpg" --corners 100,100,1500,120,1480,1100,120,1080 --paper a4 --dpi 100
run info "$work/in.jpg"
run resize "$work/in.jpg" "$work/r.jpg" --fit 400x300
run convert "$work/in.jpg" "$work/c.png"
grep -h '^c\?fn=' "$work"/cg.* | sed -E 's/^c?fn=\([0-9]+\) ?//' | grep -v '^$' | sort -u > scripts/cli-symbol-order.txt
wc -l scripts/cli-symbol-order.txt
