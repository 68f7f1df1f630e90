#!/usr/bin/env bash
# The README's "At scale" figures (make scale-test): `imagecore thumbnail --files-from` over
# 1 000 12 MP JPEGs beside the in-process bench's thumbnail rate x workers, measured in the
# same run, and the time of a --skip-existing re-run of the finished job. The 1 000 files are
# hard links to 8 generated 12 MP JPEGs (4 images x 2 qualities), so the run reads from the
# page cache as the in-process bench reads from memory.
#   scripts/scale-throughput.sh [WORKERS]      (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${1:-2}
scripts/build-cli.sh > /dev/null
swift build -c release --product bench
ic=$(realpath .build-static/release/imagecore)
bench=$(swift build -c release --show-bin-path)/bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bench" --write-input "$work/base.ppm" > /dev/null
for q in 80 92; do "$ic" encode "$work/base.ppm" "$work/src_q$q.jpg" --quality "$q" --quiet; done
for r in 90 180 270; do
    "$ic" rotate "$work/base.ppm" "$work/r$r.ppm" --orientation $([[ $r == 90 ]] && echo 6 || ([[ $r == 180 ]] && echo 3 || echo 8)) --quiet
    for q in 80 92; do "$ic" encode "$work/r$r.ppm" "$work/src_r${r}_q$q.jpg" --quality "$q" --quiet; done
done
mkdir -p "$work/photos"
srcs=("$work"/src_*.jpg)
for i in $(seq 0 999); do ln "${srcs[$((i % ${#srcs[@]}))]}" "$work/photos/$(printf 'img%04d.jpg' "$i")"; done
find "$work/photos" -name '*.jpg' | sort > "$work/list.txt"
# In-process: the bench's thumbnail workload on the same files, one thread.
inproc=0
for s in "${srcs[@]}"; do
    ms=$("$bench" thumbnail --image "$s" --threads 1 --repeat 15 --json "$work/b.json" > /dev/null && python3 -c "import json;print(json.load(open('$work/b.json'))['rows'][0]['medianMs'])")
    inproc=$(python3 -c "print($inproc + $ms / ${#srcs[@]})")
done
start=$(date +%s.%N)
"$ic" thumbnail --files-from "$work/list.txt" --workers "$workers" --threads 1 --size 256 -o "$work/thumbs" --quiet
end=$(date +%s.%N)
rerun_start=$(date +%s.%N)
"$ic" thumbnail --files-from "$work/list.txt" --workers "$workers" --size 256 -o "$work/thumbs" --skip-existing --quiet
rerun_end=$(date +%s.%N)
python3 - "$inproc" "$start" "$end" "$rerun_start" "$rerun_end" "$workers" <<'PY'
import sys
inproc, s, e, rs, re_, w = map(float, sys.argv[1:])
cli_rate = 1000 / (e - s)
bench_rate = 1000 / inproc * w
print(f"in-process bench thumbnail: {inproc:.2f} ms per file -> {bench_rate:.1f} files/s for {int(w)} workers")
print(f"imagecore thumbnail --files-from, 1000 files, {int(w)} workers: {e - s:.2f} s = {cli_rate:.1f} files/s "
      f"({cli_rate / bench_rate:.3f} of the in-process rate x workers)")
print(f"--skip-existing re-run of the finished job: {re_ - rs:.3f} s for 1000 files")
PY
uptime
