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
