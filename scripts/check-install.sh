#!/usr/bin/env bash
# `make install` into a throw-away prefix, then checks the installed CLI: its ELF and `ldd`
# name none of Foundation's libraries (nor ICU's), the Swift runtime is linked statically,
# the completion scripts parse, the man page has its sections, and every CLI behaviour test
# passes against the installed binary (IMAGECORE_CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
scripts/install.sh "$prefix"
cli="$prefix/bin/imagecore"

fail=0
needed=$(readelf -d "$cli" | grep NEEDED || true)
linked=$(ldd "$cli")
echo "$needed"
if grep -Ei 'foundation|icu|libswift|libdispatch' <<<"$needed$linked"; then
    echo "check-install: the installed CLI links Foundation, ICU or a dynamic Swift runtime" >&2
    fail=1
fi
# A position-independent executable (ASLR kept), and the OpenMP runtime, libjpeg and libstdc++
# linked in (scripts/build-cli.sh) when their archives exist here.
readelf -h "$cli" | grep -q 'DYN (Position-Independent Executable' || { echo "check-install: not a PIE" >&2; fail=1; }
for pair in libomp5:libomp libjpeg:libjpeg libstdc++:libstdc++; do
    if [[ -e .build-static/static-links/${pair%%:*}.a ]] && grep -q "${pair#*:}" <<<"$needed"; then
        echo "check-install: ${pair#*:} is linked dynamically" >&2; fail=1
    fi
done
# The statically linked OpenMP runtime runs a parallel call on 2 threads (one thread started).
ppm=$(mktemp --suffix=.pgm)
python3 -c "import sys; sys.stdout.buffer.write(b'P5\n2048 2048\n255\n' + bytes(range(256)) * 16384)" > "$ppm"
threads=$(IC_NUM_THREADS=2 strace -f -e trace=clone,clone3 "$cli" resize "$ppm" "$ppm.out.pgm" --fit 1500x1500 --quiet 2>&1 | grep -c 'clone' || true)
rm -f "$ppm" "$ppm.out.pgm"
[[ "$threads" -ge 1 ]] || { echo "check-install: IC_NUM_THREADS=2 started no thread" >&2; fail=1; }
for f in lib/libimagecore.a include/imagecore.h lib/pkgconfig/imagecore.pc share/man/man1/imagecore.1 \
         share/bash-completion/completions/imagecore share/zsh/site-functions/_imagecore share/fish/vendor_completions.d/imagecore.fish; do
    [[ -e "$prefix/$f" || -e "$prefix/${f/lib\//lib64\/}" ]] || { echo "check-install: missing $f" >&2; fail=1; }
done
bash -n "$prefix/share/bash-completion/completions/imagecore" || fail=1
# The bash completion offers the subcommands and a command's options.
out=$(bash -c "source '$prefix/share/bash-completion/completions/imagecore'; COMP_WORDS=(imagecore thumbnail --sk); COMP_CWORD=2; _imagecore; echo \"\${COMPREPLY[*]}\"")
[[ "$out" == "--skip-existing" ]] || { echo "check-install: bash completion gave '$out'" >&2; fail=1; }
if command -v zsh >/dev/null; then zsh -n "$prefix/share/zsh/site-functions/_imagecore" || fail=1; fi
if command -v fish >/dev/null; then fish -n "$prefix/share/fish/vendor_completions.d/imagecore.fish" || fail=1; fi
for section in NAME SYNOPSIS SUBCOMMANDS "EXIT STATUS"; do
    grep -q "^.SH $section" "$prefix/share/man/man1/imagecore.1" || { echo "check-install: man page lacks $section" >&2; fail=1; }
done
[[ "$("$cli" --version)" == "$(.build-static/release/imagecore --version)" ]] || fail=1
[[ $fail -eq 0 ]] || exit 1

# The CLI behaviour tests, run against the installed static binary.
IMAGECORE_CLI="$cli" swift test --skip-build --filter CLI
