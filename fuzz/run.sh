#!/usr/bin/env bash
# `make fuzz`: builds every libFuzzer harness in fuzz/ with clang
# -fsanitize=fuzzer,address,undefined (float-cast-overflow included) against the C core
# sources (libjpeg-turbo and libspng are the system's, uninstrumented), generates the seed
# corpora (fuzz/seeds.c: JPEGs of every kind; PNGs made by the codec itself), and runs each harness for
# FUZZ_SECONDS (default 60) with its corpus in .build-fuzz/corpus/<harness>, one at a time.
# jpeg_lowfreq_fuzz checks the reduced progressive decoder against libjpeg alone.
# The decode and kernel harnesses are built twice: with the serial backend and with the
# OpenMP runtime (IC_OMP_RUNTIME, libomp), the SwiftPM build's backend.
# Prints per harness: executions, edges covered, corpus size, findings; exits non-zero on a
# crash, leak, sanitizer report or timeout (libFuzzer leaves the input as .build-fuzz/crash-*).
#   FUZZ_SECONDS=600 make fuzz     FUZZ_ONLY="jpeg_fuzz kernels_fuzz_omp" make fuzz
#   FUZZ_CC=/path/to/clang make fuzz    FUZZ_JOBS: parallel fuzzing jobs per harness (1)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
out=.build-fuzz
mkdir -p "$out"

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

flags=(-O1 -g -std=gnu99 -ISources/CImageCore/include -D_GNU_SOURCE $(pkg-config --cflags libturbojpeg libjpeg spng lcms2))
libs=($(pkg-config --libs libturbojpeg libjpeg spng lcms2) -lpthread -lm)
san=(-fsanitize=fuzzer,address,undefined,float-cast-overflow -fno-sanitize-recover=all)
"$cc" "${flags[@]}" fuzz/seeds.c -o "$out/seeds-gen" "${libs[@]}"
rm -rf "$out/seeds" "$out/png-seeds"
mkdir -p "$out/seeds" "$out/png-seeds"
"$out/seeds-gen" "$out/seeds" >/dev/null
"$cc" "${flags[@]}" fuzz/png_seeds.c Sources/CImageCore/*.c -o "$out/png-seeds-gen" "${libs[@]}"
"$out/png-seeds-gen" "$out/png-seeds"

build() { # name source [extra flags...]
    local name=$1 src=$2; shift 2
    "$cc" "${flags[@]}" "${ld[@]}" "${san[@]}" "$@" "$src" Sources/CImageCore/*.c -o "$out/$name" "${libs[@]}"
}
all=(jpeg_fuzz jpeg_fuzz_omp jpeg_lowfreq_fuzz probe_fuzz encode_fuzz png_fuzz kernels_fuzz kernels_fuzz_omp)
only=(${FUZZ_ONLY:-${all[@]}})
[[ -n "${FUZZ_NO_BUILD:-}" ]] || for h in "${only[@]}"; do
    case $h in
        *_omp) build "$h" "fuzz/${h%_omp}.c" -DIC_OMP_RUNTIME -lomp5 ;;
        *) build "$h" "fuzz/$h.c" ;;
    esac
done

status=0
summary=()
for h in "${only[@]}"; do
    corpus="$out/corpus/${h%_omp}"
    mkdir -p "$corpus"
    case $h in
        jpeg_*|probe_fuzz) cp -n "$out/seeds/"* "$corpus/" 2>/dev/null || true ;;
        png_fuzz) cp -n "$out/png-seeds/"* "$corpus/" 2>/dev/null || true ;;
    esac
    dict=()
    case $h in jpeg_*|probe_fuzz) dict=(-dict=fuzz/jpeg.dict) ;; esac
    log="$out/$h.log"
    echo "fuzz: $h for $seconds s"
    set +e
    "$out/$h" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/$h-" >"$log" 2>&1
    rc=$?
    set -e
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    units=$(ls "$corpus" | wc -l)
    findings=$(find "$out" -maxdepth 1 \( -name "$h-crash-*" -o -name "$h-leak-*" -o -name "$h-timeout-*" -o -name "$h-oom-*" \) | wc -l)
    summary+=("$(printf '%-18s %12s execs %7s edges %6s corpus %3s findings (exit %d)' "$h" "${execs:-?}" "${edges:-?}" "$units" "$findings" "$rc")")
    if [[ $rc -ne 0 ]]; then status=1; tail -40 "$log"; fi
done
echo "fuzz summary ($seconds s per harness, $cc):"
printf '  %s\n' "${summary[@]}"
exit $status
