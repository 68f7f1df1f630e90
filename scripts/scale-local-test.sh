#!/usr/bin/env bash
# The README's "At scale" recipes on one host, tested (make test): a few dozen generated
# JPEGs thumbnailed by (1) one process with --files-from and --workers, (2) xargs -P and
# GNU parallel over a file list, each killed mid-run (SIGTERM, then SIGKILL) and re-run with
# --skip-existing; at the end every output must be a complete JPEG, none missing, no
# temporary left by a run that was told to stop.
#   scripts/scale-local-test.sh [IMAGECORE]      (default: .build/debug/imagecore)
set -euo pipefail
cd "$(dirname "$0")/.."
ic=$(realpath "${1:-.build/debug/imagecore}")
export PATH="$(dirname "$ic"):$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# ---- a few dozen JPEGs in a small tree --------------------------------------------------
mkdir -p photos/a photos/b
for i in $(seq 1 4); do
    { printf 'P6\n1600 1200\n255\n'; head -c $((1600 * 1200 * 3)) /dev/urandom; } > "noise$i.ppm"
done
n=0
for q in 70 75 80 85 90 92 94 96 98; do
    for i in 1 2 3 4; do
        n=$((n + 1))
        dir=photos/$([[ $((n % 2)) -eq 0 ]] && echo a || echo b)
        "$ic" encode "noise$i.ppm" "$dir/img$n.jpg" --quality "$q" --quiet
    done
done
find photos -name '*.jpg' | sort > list.txt
total=$(wc -l < list.txt)
echo "scale-local: $total JPEGs of 1600x1200"

complete() { # DIR: every input has a complete thumbnail under DIR, nothing else there
    local dir=$1 missing=0 bad=0
    while read -r f; do
        local name; name=$(basename "$f" .jpg)
        local out="$dir/$name.thumb.jpg"
        if [[ ! -s "$out" ]]; then missing=$((missing + 1)); continue; fi
        "$ic" decode "$out" - --format gray --strict --quiet > /dev/null 2>&1 || bad=$((bad + 1))
    done < list.txt
    local parts; parts=$(find "$dir" -name '.*.part' | wc -l)
    echo "  $dir: $missing missing, $bad incomplete, $parts temporaries"
    [[ $missing -eq 0 && $bad -eq 0 ]]
}

no_partial() { # DIR: outputs that exist are complete (killed runs never leave a partial final name)
    local dir=$1 bad=0
    for out in $(find "$dir" -name '*.thumb.jpg' 2>/dev/null); do
        "$ic" decode "$out" - --format gray --strict --quiet > /dev/null 2>&1 || bad=$((bad + 1))
    done
    echo "  $dir: $(find "$dir" -name '*.thumb.jpg' 2>/dev/null | wc -l) outputs after the kill, $bad incomplete"
    [[ $bad -eq 0 ]]
}

kill_midway() { # SIGNAL DIR COMMAND...: start COMMAND in its own process group, kill it once some outputs exist
    local sig=$1 dir=$2; shift 2
    setsid "$@" > /dev/null 2>&1 &
    local pid=$! waited=0 before
    before=$(find "$dir" -name '*.thumb.jpg' 2>/dev/null | wc -l || true)
    while (( $(find "$dir" -name '*.thumb.jpg' 2>/dev/null | wc -l) < before + 3 && waited < 600 )); do sleep 0.05; waited=$((waited + 1)); done
    kill "-$sig" -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    sleep 0.2
}

# ---- (1) one process for many files -----------------------------------------------------
"$ic" thumbnail --files-from list.txt --workers 2 --size 256 -o one --quiet
complete one

# ---- (2) xargs -P over a file list, killed twice, then resumed -------------------------
recipe_xargs() {
    xargs -0 -n 4 -P 2 "$ic" thumbnail --size 256 -o xargs --skip-existing --quiet < list0
}
tr '\n' '\0' < list.txt > list0
export -f recipe_xargs; export ic
kill_midway TERM xargs bash -c recipe_xargs
no_partial xargs
[[ $(find xargs -name '.*.part' | wc -l) -eq 0 ]] || { echo "scale-local: SIGTERM left temporaries"; exit 1; }
kill_midway KILL xargs bash -c recipe_xargs
no_partial xargs
recipe_xargs
complete xargs

# ---- GNU parallel over the same list ------------------------------------------------------
if command -v parallel > /dev/null; then
    recipe_parallel() {
        parallel --will-cite -0 -n 4 -j 2 "$ic" thumbnail --size 256 -o parallel --skip-existing --quiet < list0
    }
    export -f recipe_parallel
    kill_midway TERM parallel bash -c recipe_parallel
    no_partial parallel
    recipe_parallel
    complete parallel
else
    echo "scale-local: GNU parallel is not installed (scripts/deps.sh installs it)"; exit 1
fi

# ---- a re-run of a finished job does nothing ----------------------------------------------
out=$("$ic" thumbnail --files-from list.txt --size 256 -o xargs --skip-existing --json)
skipped=$(grep -c '"skipped": true' <<<"$out")
[[ $skipped -eq $total ]] || { echo "scale-local: re-run skipped $skipped of $total"; exit 1; }
echo "scale-local: ok ($total files; killed runs left no partial output; re-runs completed them)"
