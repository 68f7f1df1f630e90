#!/usr/bin/env bash
# The hostile-input matrix (issue #12): every CLI command against hostile inputs and outputs,
# each run as a whole process through scripts/proc_run.c with a wall-time bound and a
# peak-RSS bound. A case passes when the command exits 0 (a documented warning at most) or 1
# (one error line), never by a signal, a hang or a usage error; every stderr line is
# imagecore's own; no partial output is left under a final name and no temporary behind; and
# nothing the tool did not create is deleted (the input, a device node given as output).
# (contact-sheet writes its sheet with an empty cell for a file that fails, and exits 1: a
# complete, documented result, not a partial file; a recovered-corrupt photo is drawn with a
# warning line. `info` reads headers only: a truncated file is no error for it. `scan` decodes
# only the page's crop and reports that decode's warnings (ic_scan_options.result): damage in
# rows below the page is never read, so it may exit 0 without one.)
#   scripts/hostile-matrix.sh [IMAGECORE]      (default: .build/debug/imagecore)
set -uo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-.build/debug/imagecore}")
WALL_S=10
RSS_KIB=$((300 * 1024))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/proc_run" scripts/proc_run.c
run() { "$work/proc_run" -t "$WALL_S" -o "$work/stdout" -e "$work/stderr" "$@"; }

# ---- inputs ---------------------------------------------------------------------------
in="$work/in"
mkdir -p "$in"
noise_ppm() { # W H FILE: a noise photo (incompressible, so JPEG data fills the file)
    { printf 'P6\n%d %d\n255\n' "$1" "$2"; head -c $(($1 * $2 * 3)) /dev/urandom; } > "$3"
}
sof_offset() { # FILE: byte offset of the first SOF0 marker
    LC_ALL=C grep -obUaP '\xff\xc0' "$1" | head -1 | cut -d: -f1
}
patch_size() { # FILE W H: rewrite the SOF0 frame size
    local off; off=$(sof_offset "$1")
    printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($3 >> 8)) $(($3 & 255)) $(($2 >> 8)) $(($2 & 255)))" |
        dd of="$1" bs=1 seek=$((off + 5)) conv=notrunc status=none
}
noise_ppm 640 480 "$work/good.ppm"
"$cli" encode "$work/good.ppm" "$in/good.jpg" --quality 90 --quiet >/dev/null || exit 1
size=$(stat -c %s "$in/good.jpg")
: > "$in/empty.jpg"
head -c 65536 /dev/urandom > "$in/random.jpg"
for pct in 1 10 50; do head -c $((size * pct / 100)) "$in/good.jpg" > "$in/truncated-$pct.jpg"; done
cp "$in/good.jpg" "$in/flipped.jpg"
for off in $(seq 1200 997 $((size - 10))); do printf '\xa5' | dd of="$in/flipped.jpg" bs=1 seek="$off" conv=notrunc status=none; done
noise_ppm 16 16 "$work/tiny.ppm"
"$cli" encode "$work/tiny.ppm" "$in/bomb.jpg" --quiet >/dev/null && patch_size "$in/bomb.jpg" 65500 65500
noise_ppm 720 480 "$work/mid.ppm"
"$cli" encode "$work/mid.ppm" "$in/96mp.jpg" --quality 92 --quiet >/dev/null && patch_size "$in/96mp.jpg" 12000 8000
{ printf 'P6\n65535 65535\n255\n'; head -c 4096 /dev/urandom; } > "$in/huge-header.ppm"
mkdir -p "$in/directory.jpg"
mkfifo "$in/fifo.jpg"
inputs=(empty random truncated-1 truncated-10 truncated-50 flipped bomb 96mp huge-header directory fifo dev-zero)
path_of() {
    case $1 in
        huge-header) echo "$in/huge-header.ppm" ;;
        dev-zero) echo /dev/zero ;;
        *) echo "$in/$1.jpg" ;;
    esac
}
echo "hostile inputs in $in: good.jpg $size bytes, 96mp.jpg $(stat -c %s "$in/96mp.jpg") bytes claiming 12000x8000"

# ---- commands: NAME and arguments, IN and OUT (OUT's extension given) ------------------
corners="10,10,600,20,620,460,5,470"
commands=(
    "info|IN"
    "convert|IN OUT.ppm"
    "decode|IN OUT.ppm"
    "encode|IN OUT.jpg"
    "rotate|IN OUT.ppm --orientation 6"
    "laplacian|IN OUT.pgm"
    "resize|IN OUT.ppm --width 64"
    "detect|IN"
    "rectify|IN OUT.ppm --corners $corners"
    "enhance|IN OUT.ppm"
    "scan|IN OUT.jpg --corners $corners --size 200x300"
    "sharpest|IN"
    "thumbnail|IN -o OUT.jpg --size 64"
    "contact-sheet|DIR OUT.jpg --size 32"
)

pass=0
failures=0
fail() { echo "FAIL $1: $2"; failures=$((failures + 1)); }

# One case: command spec, input path, output dir, output name override (device node cases).
check() {
    local label=$1 spec=$2 input=$3 outdir=$4 outname=${5:-}
    local name=${spec%%|*} argline=${spec#*|}
    mkdir -p "$outdir"
    local dirarg="$work/sheet-$RANDOM"
    mkdir -p "$dirarg"
    [[ -e "$input" && ! -d "$input" && "$input" != /dev/zero && ! -p "$input" ]] && cp "$input" "$dirarg/x.jpg"
    local args=() out=""
    for a in $argline; do
        case $a in
            IN) args+=("$input") ;;
            DIR) args+=("$dirarg") ;;
            OUT.*) out="$outdir/${outname:-out.${a#OUT.}}"; args+=("$out") ;;
            *) args+=("$a") ;;
        esac
    done
    local r wall rss status
    r=$(run "$cli" "$name" "${args[@]}")
    read -r wall rss status <<<"$r"
    local err; err=$(cat "$work/stderr")
    local why=""
    if (( status >= 128 )); then why="killed by signal $((status - 128)) (timeout or crash) after ${wall} ms"
    elif (( status != 0 && status != 1 )); then why="exit $status"
    elif (( rss > RSS_KIB )); then why="peak RSS $((rss / 1024)) MiB"
    elif [[ $label == unwritable || $label == device-node ]] && (( status != 1 )); then why="exit $status writing an unwritable output"
    elif [[ $label != unwritable && $label != device-node && $name != info && $name != scan ]] && (( status == 0 )) && ! grep -q '^imagecore: warning: ' <<<"$err"; then
        why="exit 0 on a hostile input without a warning"
    elif [[ -n "$err" ]] && grep -qv '^imagecore' <<<"$err"; then why="stderr not imagecore's: $(grep -v '^imagecore' <<<"$err" | head -2)"
    elif (( status == 1 )) && [[ $(grep -c '^imagecore: ' <<<"$err" | tr -d ' ') -lt 1 ]]; then why="exit 1 without an error line"
    elif (( status == 1 )) && [[ $(grep '^imagecore: ' <<<"$err" | grep -vc '^imagecore: warning: ') -ne 1 ]]; then why="not one error line: $err"
    elif ls -a "$outdir" | grep -q '\.part$'; then why="temporary left behind"
    elif [[ -n "$out" && -z "$outname" && $status -ne 0 && -e "$out" && $name != contact-sheet ]]; then why="output left after a failure"
    elif [[ -n "$out" && -z "$outname" && $status -eq 0 && ! -s "$out" ]]; then why="exit 0 without an output"
    elif [[ -n "$outname" && ! -c "$out" ]]; then why="the device node was deleted"
    elif [[ "$input" != /dev/zero && ! -e "$input" ]]; then why="the input was deleted"
    fi
    rm -rf "$dirarg"
    if [[ -n "$why" ]]; then fail "$label $name" "$why"; else pass=$((pass + 1)); fi
    printf '%-14s %-13s exit %d %8.1f ms %4d MiB  %s\n' "$label" "$name" "$status" "$wall" "$((rss / 1024))" \
        "$(grep '^imagecore: ' <<<"$err" | head -1 | cut -c1-100)" >> "$work/log"
}

for case in "${inputs[@]}"; do
    for spec in "${commands[@]}"; do check "$case" "$spec" "$(path_of "$case")" "$work/out-$case"; done
done
# Outputs: unwritable (a path under a regular file), and a device node (/dev/full's) as output.
touch "$work/not-a-dir"
for spec in "${commands[@]}"; do
    [[ $spec == *OUT* ]] || continue
    check unwritable "${spec//OUT./$work/not-a-dir/OUT.}" "$in/good.jpg" "$work/out-unwritable"
    ext=${spec#*OUT.}; ext=${ext%% *}
    mkdir -p "$work/out-device"
    [[ -c "$work/out-device/full.$ext" ]] || mknod "$work/out-device/full.$ext" c 1 7
    check device-node "$spec" "$in/good.jpg" "$work/out-device" "full.$ext"
done
# For the unwritable case the OUT.ext token was rewritten into the path; check() resolves
# only bare OUT.* tokens, so those specs write exactly where asked.

cat "$work/log"
echo "hostile matrix: $pass passed, $failures failed"
[[ $failures -eq 0 ]]
