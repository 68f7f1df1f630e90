#!/usr/bin/env bash
# Proves ImageCore is usable as a versioned SwiftPM dependency (no unsafeFlags in the
# library product): snapshots the working tree into a throw-away git repository, tags it,
# and builds and runs a throw-away consumer that depends on it with `from:`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=0.1.0

# The snapshot holds exactly the files git would commit (tracked and untracked, not ignored).
mkdir "$tmp/ImageCore"
(cd "$root" && git ls-files -z --cached --others --exclude-standard \
    | tar --null --ignore-failed-read -T - -cf -) 2>/dev/null | tar -C "$tmp/ImageCore" -xf -
git -C "$tmp/ImageCore" init -q
git -C "$tmp/ImageCore" add -A
git -C "$tmp/ImageCore" -c user.name=ci -c user.email=ci@localhost commit -qm snapshot
git -C "$tmp/ImageCore" tag "$version"

mkdir -p "$tmp/Consumer/Sources/Consumer"
cat > "$tmp/Consumer/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Consumer",
    dependencies: [.package(url: "file://$tmp/ImageCore", from: "$version")],
    targets: [.executableTarget(name: "Consumer", dependencies: [.product(name: "ImageCore", package: "ImageCore")])]
)
SWIFT
cat > "$tmp/Consumer/Sources/Consumer/main.swift" <<'SWIFT'
import ImageCore

var a = try PixelBuffer(width: 333, height: 77, format: .rgba8)
try a.fill([1, 2, 3, 4])
var b = try PixelBuffer(width: 333, height: 77, format: .rgba8)
try b.copy(from: a)
let ok = b.withPlane(0) { s in (0..<b.plane(0).rowBytes).allSatisfy { s[76 * b.plane(0).stride + $0] == UInt8($0 % 4 + 1) } }
print("consumer: ImageCore \(ImageCoreRuntime.version), copy \(ok ? "ok" : "WRONG"), threads backend \(ImageCoreRuntime.parallelBackend)")
if !ok { fatalError("copy mismatch") }
SWIFT
echo "versioned dependency: building a consumer of ImageCore from: \"$version\""
(cd "$tmp/Consumer" && swift build -q)
out=$("$tmp/Consumer/.build/debug/Consumer")
echo "$out"
[[ "$out" == *"copy ok"* ]]
echo "versioned dependency: ok"
