#!/usr/bin/env bash
# Writes the committed progressive JPEG fixtures of the reduced progressive decoder's tests
# (Tests/ImageCoreTests/Fixtures/progressive/) with cjpeg from Debian's libjpeg-turbo-progs:
# its default progression and scan scripts of our own (-scans), several subsamplings, gray,
# odd sizes and restart markers, from a small deterministic photo-like PPM. The tests hold
# every file's 1/8 and 1/4 decode to libjpeg's own; regenerating changes no expectation.
#   scripts/make-progressive-fixtures.sh      (needs cjpeg: apt-get install libjpeg-turbo-progs)
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/ImageCoreTests/Fixtures/progressive
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
command -v cjpeg >/dev/null || { echo "needs cjpeg (Debian: libjpeg-turbo-progs)" >&2; exit 1; }

# A w x h PPM: gradients, a soft disc, fine texture and hashed noise (integer arithmetic).
ppm() {
    python3 - "$1" "$2" "$3" <<'PY'
import sys
w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
px = bytearray()
for y in range(h):
    for x in range(w):
        n = ((x * 73856093) ^ (y * 19349663)) & 31
        d = (x - w // 3) ** 2 + (y - h // 2) ** 2
        disc = 90 if d * 9 < w * w else 0
        r = (x * 255 // max(1, w - 1) + n) % 256
        g = (y * 255 // max(1, h - 1) + disc + ((x // 3 + y // 3) % 2) * 24) % 256
        b = (128 + disc + n * 2 - x) % 256
        px += bytes((r, g, b))
with open(path, "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, h) + bytes(px))
PY
}
ppm 67 45 "$tmp/a.ppm"
ppm 33 17 "$tmp/b.ppm"

# Scripts: chroma DC after the luma AC; approximation steps; bands; one leaving the last luma
# AC bit unsent (libjpeg smooths such files: the decoder leaves them to libjpeg).
cat > "$tmp/dclate.txt" <<'S'
0: 0 0 0 0; 0: 1 63 0 0; 1: 0 0 0 0; 2: 0 0 0 0; 1: 1 63 0 0; 2: 1 63 0 0;
S
cat > "$tmp/approx.txt" <<'S'
0,1,2: 0 0 0 2; 0: 1 5 0 2; 0: 6 63 0 1; 1: 1 63 0 1; 2: 1 63 0 1; 0,1,2: 0 0 2 1; 0,1,2: 0 0 1 0;
0: 1 5 2 1; 0: 1 63 1 0; 1: 1 63 1 0; 2: 1 63 1 0;
S
cat > "$tmp/incomplete.txt" <<'S'
0,1,2: 0 0 0 0; 0: 1 63 0 1; 1: 1 63 0 0; 2: 1 63 0 0;
S

cjpeg -quality 85 -progressive -sample 2x2 "$tmp/a.ppm" > "$out/p420-default.jpg"
cjpeg -quality 85 -progressive -sample 2x1 -restart 2B "$tmp/a.ppm" > "$out/p422-restart2.jpg"
cjpeg -quality 85 -sample 1x1 -scans "$tmp/dclate.txt" "$tmp/a.ppm" > "$out/p444-dc-late.jpg"
cjpeg -quality 85 -sample 2x2 -scans "$tmp/approx.txt" -restart 1B "$tmp/a.ppm" > "$out/p420-approx-restart1.jpg"
cjpeg -quality 85 -sample 2x2 -scans "$tmp/incomplete.txt" "$tmp/a.ppm" > "$out/p420-incomplete.jpg"
cjpeg -quality 85 -progressive -grayscale "$tmp/a.ppm" > "$out/gray-default.jpg"
cjpeg -quality 80 -progressive -sample 2x2 -restart 1B "$tmp/b.ppm" > "$out/p420-odd-restart1.jpg"
ls -l "$out"
