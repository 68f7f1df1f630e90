#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer harnesses (fuzz/jpeg_fuzz.c, fuzz/jpeg_lowfreq_fuzz.c) with clang
# -fsanitize=fuzzer,address,undefined against the C core sources, generates the seed corpus
# (fuzz/seeds.c), and fuzzes for FUZZ_SECONDS (default 60). A crash, leak, sanitizer report or
# timeout fails the run; libFuzzer leaves the input as .build-fuzz/crash-*.
#   FUZZ_SECONDS=600 make fuzz     FUZZ_CC=/path/to/clang make fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
out=.build-fuzz

# A clang with libFuzzer: the Swift toolchain's, else the system's; install Debian's if none.
cc=${FUZZ_CC:-}
if [[ -z "$cc" ]]; then
    for c in "$(dirname "$(command -v swift 2>/dev/null || echo /nonexistent)")/clang" /opt/swift/usr/bin/clang clang; do
        if command -v "$c" >/dev/null 2>&1 && echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
            "$c" -x c - -fsanitize=fuzzer -o /dev/null >/dev/null 2>&1; then cc=$c; break; fi
    done
fi
if [[ -z "$cc" ]]; then
    echo "fuzz: no clang with libFuzzer found; installing Debian's clang"
    scripts/deps.sh clang libclang-rt-dev
    cc=clang
fi
ld=()
# Prefer lld when the compiler has one beside it (gold prints thousands of ASan warnings).
if [[ -x "$(dirname "$(command -v "$cc")")/ld.lld" ]]; then ld=(-fuse-ld=lld); fi

mkdir -p "$out/seeds"
flags=(-O1 -g -std=gnu99 -ISources/CImageCore/include -D_GNU_SOURCE $(pkg-config --cflags libturbojpeg libjpeg))
libs=($(pkg-config --libs libturbojpeg libjpeg) -lpthread)
"$cc" "${flags[@]}" fuzz/seeds.c -o "$out/seeds-gen" "${libs[@]}"
"$out/seeds-gen" "$out/seeds"
# The C core compiled without IC_OMP_RUNTIME: the serial parallel-for (the codec is serial).
# Harnesses: jpeg_fuzz (every decode entry point) and jpeg_lowfreq_fuzz (the reduced
# progressive decoder against libjpeg alone), FUZZ_SECONDS each, one corpus directory each.
for h in ${FUZZ_HARNESSES:-jpeg_fuzz jpeg_lowfreq_fuzz}; do
    "$cc" "${flags[@]}" "${ld[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        "fuzz/$h.c" Sources/CImageCore/*.c -o "$out/$h" "${libs[@]}"
    mkdir -p "$out/corpus-$h"
    cp -n "$out/seeds/"* "$out/corpus-$h/" 2>/dev/null || true
    echo "fuzz: $h, $seconds s with $cc"
    "$out/$h" "$out/corpus-$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/$h-" 2>&1 | tail -60
    status=${PIPESTATUS[0]}
    [[ $status -eq 0 ]] || exit "$status"
done
