#!/usr/bin/env bash
# `make fuzz`: builds every libFuzzer harness in fuzz/ with clang
# -fsanitize=fuzzer,address,undefined (float-cast-overflow included) against the C core
# (compiled once into .build-fuzz/obj; libspng and Little CMS are the system's, uninstrumented;
# libjpeg-turbo too unless FUZZ_LIBJPEG=source), generates the seed corpora (fuzz/seeds.c: JPEGs of every kind;
# fuzz/png_seeds.c: PNGs made by the codec itself; fuzz/icc_seeds.c: ICC profiles made by
# Little CMS; a few PNM / raw YUV files), and runs each harness for FUZZ_SECONDS (default 60)
# with its corpus in .build-fuzz/corpus/<harness>, one at a time.
# jpeg_lowfreq_fuzz checks the reduced progressive decoder against libjpeg alone.
# The decode and kernel harnesses are built twice: with the serial backend and with the
# OpenMP runtime (IC_OMP_RUNTIME, libomp), the SwiftPM build's backend. readers_fuzz is the
# Swift harness of the PNM / raw YUV readers and FileBytes (swiftc -sanitize=fuzzer,address).
# Prints per harness: executions, edges covered, corpus size, findings of this run; exits
# non-zero on a crash, leak, sanitizer report or timeout (libFuzzer leaves the input as
# .build-fuzz/<harness>-crash-*).
#   FUZZ_SECONDS=600 make fuzz     FUZZ_ONLY="jpeg_fuzz kernels_fuzz_omp" make fuzz
#   FUZZ_CC=/path/to/clang make fuzz    FUZZ_BUILD_JOBS: parallel compiles (2)
#   FUZZ_NO_BUILD=1: run the harnesses already built; FUZZ_BUILD_ONLY=1: build, do not run
#   FUZZ_LIBJPEG=source: link libjpeg-turbo built instrumented from its Debian source (below)
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
sanitizers=address,undefined,float-cast-overflow
san=(-fsanitize=fuzzer,$sanitizers -fno-sanitize-recover=all)
jobs=${FUZZ_BUILD_JOBS:-2}

# libjpeg-turbo built instrumented, so that coverage counts the codec too (FUZZ_LIBJPEG=source;
# `make fuzz` sets it, the CI smoke links the system's library): the source package of the
# installed libjpeg62-turbo-dev, fetched by apt-get source through a private sources list
# (deb-src of the release's main; the system's apt configuration is not touched), unpacked by
# dpkg-source (Debian's patches applied) and built once into .build-fuzz/libjpeg-turbo with the
# harnesses' flags, C only (WITH_SIMD=0: assembly would not be instrumented). If any step
# fails, the system library is used and the reason printed.
build_libjpeg() { # $1: the directory; each step's failure is printed and ends the build
    local ljt=$1 codename version
    rm -rf "$ljt" && mkdir -p "$ljt/apt/lists/partial" "$ljt/src" || return 1
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    echo "deb-src http://deb.debian.org/debian $codename main" > "$ljt/apt/sources.list"
    local apt=(-o Dir::Etc::SourceList="$ljt/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
               -o Dir::State::Lists="$ljt/apt/lists")
    apt-get "${apt[@]}" update -qq || return 1
    version=$(dpkg-query -W -f '${source:Version}' libjpeg62-turbo-dev) || return 1
    (cd "$ljt/src" && apt-get "${apt[@]}" source --download-only -qq "libjpeg-turbo=$version" &&
        dpkg-source -x ./*.dsc tree >/dev/null) || return 1
    cmake -S "$ljt/src/tree" -B "$ljt/build" -DENABLE_SHARED=0 -DWITH_SIMD=0 -DCMAKE_BUILD_TYPE=None \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="-O1 -g -fsanitize=fuzzer-no-link,$sanitizers -fno-sanitize-recover=all" \
        >"$ljt/cmake.log" 2>&1 || { tail -20 "$ljt/cmake.log"; return 1; }
    make -C "$ljt/build" -j"$jobs" jpeg-static turbojpeg-static >"$ljt/make.log" 2>&1 || { tail -20 "$ljt/make.log"; return 1; }
}
harness_libs=("${libs[@]}")
if [[ ${FUZZ_LIBJPEG:-system} == source ]]; then
    ljt="$PWD/$out/libjpeg-turbo"
    if [[ ! -f $ljt/build/libturbojpeg.a ]] && ! build_libjpeg "$ljt"; then
        echo "fuzz: could not build libjpeg-turbo from its Debian source package (above); using the system's"
    fi
    if [[ -f $ljt/build/libturbojpeg.a ]]; then # the core uses jpeglib.h and, in jpeg_transform.c, tjTransform
        # libturbojpeg.a holds the whole codec too (the same instrumented objects), so it comes first.
        harness_libs=("$ljt/build/libturbojpeg.a" "$ljt/build/libjpeg.a" $(pkg-config --libs spng lcms2) -lpthread -lm)
        echo "fuzz: harnesses link libjpeg-turbo $(dpkg-query -W -f '${source:Version}' libjpeg62-turbo-dev) built instrumented ($ljt/build)"
    fi
fi

# The C core is compiled once (instrumented, -fsanitize=fuzzer-no-link) into $out/obj and
# every harness links those objects; parallel.c twice, the second with the OpenMP runtime
# (the only file IC_OMP_RUNTIME changes). An object is rebuilt when its source, any core
# header or this script is newer.
obj="$out/obj"
mkdir -p "$obj"
compile_core() {
    local newest pids=() failed=0
    newest=$(ls -t Sources/CImageCore/*.h Sources/CImageCore/include/*.h Sources/CImageCore/include/imagecore/*.h fuzz/run.sh | head -1)
    local units=() c o
    for c in Sources/CImageCore/*.c; do units+=("$c:$(basename "${c%.c}")"); done
    units+=("Sources/CImageCore/parallel.c:parallel_omp")
    for u in "${units[@]}"; do
        c=${u%%:*} o="$obj/${u##*:}.o"
        [[ -f $o && $o -nt $c && $o -nt $newest ]] && continue
        local extra=()
        [[ $o == */parallel_omp.o ]] && extra=(-DIC_OMP_RUNTIME)
        "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link,$sanitizers -fno-sanitize-recover=all "${extra[@]}" -c "$c" -o "$o.tmp" &&
            mv "$o.tmp" "$o" &
        pids+=($!)
        if ((${#pids[@]} >= jobs)); then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
    done
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
    return $failed
}
[[ -n "${FUZZ_NO_BUILD:-}" ]] || compile_core
core_serial=($(ls "$obj"/*.o | grep -v '/parallel_omp\.o$'))
core_omp=($(ls "$obj"/*.o | grep -v '/parallel\.o$'))

seeds() { # the seed corpora (generated, nothing checked in)
    "$cc" "${flags[@]}" fuzz/seeds.c -o "$out/seeds-gen" "${libs[@]}"
    rm -rf "$out/seeds" "$out/png-seeds"
    mkdir -p "$out/seeds" "$out/png-seeds"
    "$out/seeds-gen" "$out/seeds" >/dev/null
    "$cc" "${flags[@]}" "${ld[@]}" -fsanitize=fuzzer-no-link,$sanitizers fuzz/png_seeds.c "${core_serial[@]}" -o "$out/png-seeds-gen" "${libs[@]}"
    ASAN_OPTIONS=detect_leaks=0 "$out/png-seeds-gen" "$out/png-seeds"
    "$cc" "${flags[@]}" "${ld[@]}" -fsanitize=fuzzer-no-link,$sanitizers fuzz/icc_seeds.c "${core_serial[@]}" -o "$out/icc-seeds-gen" "${libs[@]}"
    rm -rf "$out/icc-seeds"
    mkdir -p "$out/icc-seeds"
    ASAN_OPTIONS=detect_leaks=0 "$out/icc-seeds-gen" "$out/icc-seeds"
    # The Swift readers' seeds: each PNM kind, a comment, an unsupported MAXVAL, raw YUV sizes.
    rm -rf "$out/reader-seeds"
    mkdir -p "$out/reader-seeds"
    (
        cd "$out/reader-seeds"
        printf 'P5\n3 2\n255\n\x00\x10\x20\x30\x40\x50' > p5.pgm
        printf 'P6\n# comment\n2 2\n255\n\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c' > p6.ppm
        printf 'P7\nWIDTH 2\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n\x01\x02\x03\x04\x05\x06\x07\x08' > p7-rgba.pam
        printf 'P7\nWIDTH 1\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n\x10\x20' > p7-gray.pam
        printf 'P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n\x10\x20\x30' > p7-rgb.pam
        printf 'P6\n1 1\n65535\n\x00\x01\x00\x02\x00\x03' > p6-16bit.ppm
        head -c 24 /dev/zero | tr '\0' '\200' > yuv-4x4.yuv   # I420 4x4: 16 + 4 + 4 bytes
        head -c 17 /dev/zero | tr '\0' '\100' > yuv-3x3.yuv   # odd sizes: 9 + 2 x 2 x 2
    )
}
[[ -n "${FUZZ_NO_BUILD:-}" ]] || seeds

build() { # name source [extra flags...]
    local name=$1 src=$2; shift 2
    local core=("${core_serial[@]}")
    [[ $name == *_omp ]] && core=("${core_omp[@]}")
    "$cc" "${flags[@]}" "${ld[@]}" "${san[@]}" "$src" "${core[@]}" -o "$out/$name" "${harness_libs[@]}" "$@"
}
# The Swift readers (fuzz/readers_fuzz.swift): compiled with the ImageCore sources into one
# module by swiftc -sanitize=fuzzer,address (its ASan runtime carries UBSan's handlers), against the instrumented core.
build_swift() {
    local maps="$out/swift-modules"
    mkdir -p "$maps/CImageCore"
    printf 'module CImageCore {\n    header "%s"\n    export *\n}\n' "$PWD/Sources/CImageCore/include/imagecore.h" \
        > "$maps/CImageCore/module.modulemap"
    local swiftc
    swiftc=$(dirname "$(command -v "$cc")")/swiftc
    [[ -x $swiftc ]] || swiftc=swiftc
    local swift_ld=()
    [[ ${#ld[@]} -gt 0 ]] && swift_ld=(-use-ld=lld)
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g "${swift_ld[@]}" \
        -module-name ImageCoreReadersFuzz -I "$maps" -Xcc -I"$PWD/Sources/CImageCore/include" \
        $(find Sources/ImageCore -name '*.swift' | sort) fuzz/readers_fuzz.swift "${core_serial[@]}" \
        -o "$out/readers_fuzz" $(printf -- '-Xlinker %s ' "${harness_libs[@]}")
}
all=(jpeg_fuzz jpeg_fuzz_omp jpeg_lowfreq_fuzz probe_fuzz pipeline_fuzz encode_fuzz png_fuzz icc_fuzz kernels_fuzz kernels_fuzz_omp readers_fuzz)
only=(${FUZZ_ONLY:-${all[@]}})
[[ -n "${FUZZ_NO_BUILD:-}" ]] || for h in "${only[@]}"; do
    case $h in
        readers_fuzz) build_swift ;;
        *_omp) build "$h" "fuzz/${h%_omp}.c" -lomp5 ;;
        *) build "$h" "fuzz/$h.c" ;;
    esac
done

[[ -z "${FUZZ_BUILD_ONLY:-}" ]] || exit 0

status=0
summary=()
for h in "${only[@]}"; do
    corpus="$out/corpus/${h%_omp}"
    mkdir -p "$corpus"
    case $h in
        jpeg_*|probe_fuzz|pipeline_fuzz) cp -n "$out/seeds/"* "$corpus/" 2>/dev/null || true ;;
        png_fuzz) cp -n "$out/png-seeds/"* "$corpus/" 2>/dev/null || true ;;
        readers_fuzz) cp -n "$out/reader-seeds/"* "$corpus/" 2>/dev/null || true ;;
        icc_fuzz) cp -n "$out/icc-seeds/"* "$corpus/" 2>/dev/null || true ;;
    esac
    dict=()
    case $h in
        jpeg_*|probe_fuzz|pipeline_fuzz) dict=(-dict=fuzz/jpeg.dict) ;;
        readers_fuzz) dict=(-dict=fuzz/pnm.dict) ;;
        icc_fuzz) dict=(-dict=fuzz/icc.dict) ;;
    esac
    log="$out/$h.log"
    touch "$out/.$h.start" # findings of this run: artifacts newer than this
    echo "fuzz: $h for $seconds s"
    set +e
    "$out/$h" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/$h-" >"$log" 2>&1
    rc=$?
    set -e
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    units=$(ls "$corpus" | wc -l)
    findings=$(find "$out" -maxdepth 1 -newer "$out/.$h.start" \( -name "$h-crash-*" -o -name "$h-leak-*" -o -name "$h-timeout-*" -o -name "$h-oom-*" \) | wc -l)
    summary+=("$(printf '%-18s %12s execs %7s edges %6s corpus %3s findings (exit %d)' "$h" "${execs:-?}" "${edges:-?}" "$units" "$findings" "$rc")")
    if [[ $rc -ne 0 ]]; then status=1; tail -40 "$log"; fi
done
echo "fuzz summary ($seconds s per harness, $cc):"
printf '  %s\n' "${summary[@]}"
exit $status
