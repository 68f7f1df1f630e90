#!/usr/bin/env bash
# The README cannot rot (make test): every command line in its ```sh blocks runs (except the
# build's own make/cmake/cc/bench lines, which make test runs anyway)
# (on fixtures made here, in a temporary folder) and must succeed, and every ```swift block
# compiles against ImageCore in a throw-away package. Conventions: usage synopses with
# placeholders are ```text blocks (not run); a Swift block that starts with `// Package.swift`
# is a manifest excerpt (not compiled); an HTML comment `<!-- prelude: ... -->` right before a
# Swift block holds the declarations it assumes (compiled with it, invisible in the README).
#   scripts/check-readme.sh [IMAGECORE]      (default: .build/debug/imagecore)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
ic=$(realpath "${1:-.build/debug/imagecore}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- extract: sh command lines and swift blocks with their preludes ---------------------
awk -v out="$work" '
    /^<!-- prelude:/ { pre = 1; prelude = ""; line = $0; sub(/^<!-- prelude: ?/, "", line); sub(/ ?-->$/, "", line);
                       if (line != "") prelude = line "\n"; if ($0 ~ /-->$/) pre = 0; next }
    pre { if ($0 ~ /^-->/) { pre = 0; next } prelude = prelude $0 "\n"; next }
    /^```sh$/ { sh = 1; next }
    /^```swift$/ { sw = 1; n++; file = sprintf("%s/snippet%02d.swift.txt", out, n); printf "%s", prelude > file; prelude = ""; next }
    /^```/ { sh = 0; sw = 0; prelude = ""; next }
    sh { print > (out "/lines.sh"); next }
    sw { print >> file; next }
    { if ($0 != "") prelude = "" }
' README.md

# ---- fixtures ------------------------------------------------------------------------------
fx="$work/run"
mkdir -p "$fx/photos/2024" "$fx/bin"
ln -s "$ic" "$fx/bin/imagecore"
noise() { { printf 'P6\n%d %d\n255\n' "$1" "$2"; head -c $(($1 * $2 * 3)) /dev/urandom; } > "$3"; }
noise 1800 2400 "$fx/photo.ppm"
noise 620 877 "$fx/page.ppm"
"$ic" encode "$fx/photo.ppm" "$fx/photo.jpg" --quiet
head -c $((4032 * 3024 * 3 / 2)) /dev/urandom > "$fx/photo.yuv"
for i in 1 2 3; do
    noise 800 600 "$fx/n$i.ppm"
    "$ic" encode "$fx/n$i.ppm" "$fx/photos/p$i.jpg" --quiet
    "$ic" encode "$fx/n$i.ppm" "$fx/photos/2024/q$i.jpg" --quality 70 --quiet
done

# ---- run the command lines ----------------------------------------------------------------
ran=0 failed=0
while IFS= read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    # The build's own lines (make, cmake, cc, the bench) are what make test itself runs; every
    # other line is an example and runs here, in order, in one folder.
    [[ "$line" =~ ^(make|cmake|cc|swift\ build|swift\ run\ -c\ release\ bench)\  ]] && continue
    cmd=${line//swift run imagecore/imagecore}
    if (cd "$fx" && PATH="$fx/bin:$PATH" bash -o pipefail -c "$cmd" > "$work/out.txt" 2> "$work/err.txt"); then
        ran=$((ran + 1))
    else
        failed=$((failed + 1))
        echo "check-readme: FAILED: $line"
        head -3 "$work/err.txt"
    fi
done < "$work/lines.sh"

# ---- compile the Swift blocks ----------------------------------------------------------------
pkg="$root/.build-readme"
mkdir -p "$pkg/Sources/Snippets"
rm -f "$pkg/Sources/Snippets/"*.swift
cat > "$pkg/Package.swift" <<PKG
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "ReadmeSnippets",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$root")],
    targets: [.target(name: "Snippets", dependencies: [.product(name: "ImageCore", package: "$(basename "$root")")])]
)
PKG
compiled=0
for f in "$work"/snippet*.swift.txt; do
    name=$(basename "$f" .swift.txt)
    grep -q '^// Package.swift' "$f" && continue
    {
        echo "import ImageCore"
        echo "@available(macOS 15, *)"
        echo "func ${name}() async throws {"
        grep -v '^import ImageCore$' "$f" | sed 's/^/    /'
        echo "}"
    } > "$pkg/Sources/Snippets/$name.swift"
    compiled=$((compiled + 1))
done
if ! (cd "$pkg" && swift build 2>&1 | grep -E "error:|warning: (var|initialization)" -A3 > "$work/build.txt"; [[ ${PIPESTATUS[0]} -eq 0 ]]); then
    failed=$((failed + 1))
    echo "check-readme: the README's Swift blocks do not compile:"
    cat "$work/build.txt"
fi
echo "check-readme: $ran command lines ran, $compiled Swift blocks compiled, $failed failed"
[[ $failed -eq 0 ]]
