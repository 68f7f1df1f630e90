#!/usr/bin/env bash
# The concurrency stress test (Tests/c/test_concurrency.c) in the two builds `make sanitize`
# adds to the CMake one (gcc, OpenMP pragmas, ASan + UBSan):
#   - the OpenMP runtime backend (IC_OMP_RUNTIME, libomp: the SwiftPM build's) under ASan + UBSan;
#   - the serial backend under ThreadSanitizer (the callers' own threads are the concurrency).
# Each: every entry point reads the settings once, plan creation while the thread count flips,
# and callers decoding, resizing, warping and ranking while the thread count and CPU mask
# change, against single-threaded results.
#   STRESS_SECONDS=2 (per phase)   STRESS_CALLERS=6
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${STRESS_SECONDS:-2}
callers=${STRESS_CALLERS:-6}
out=.build-stress
mkdir -p "$out"
cc=${STRESS_CC:-$(dirname "$(command -v swift 2>/dev/null || echo /usr/bin/x)")/clang}
command -v "$cc" >/dev/null 2>&1 || cc=clang
flags=(-O1 -g -std=gnu99 -ISources/CImageCore/include -D_GNU_SOURCE $(pkg-config --cflags libturbojpeg libjpeg spng lcms2))
libs=($(pkg-config --libs libturbojpeg libjpeg spng lcms2) -lpthread -lm)
src=(Tests/c/test_concurrency.c Sources/CImageCore/*.c)

"$cc" "${flags[@]}" -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
    -DIC_OMP_RUNTIME "${src[@]}" -o "$out/stress-omp-asan" "${libs[@]}" -lomp5
# gcc's TSan runtime: the Swift toolchain's needs libdispatch and the blocks runtime at link time.
"${STRESS_TSAN_CC:-gcc}" "${flags[@]}" -fsanitize=thread "${src[@]}" -o "$out/stress-serial-tsan" "${libs[@]}"

echo "stress: OpenMP runtime backend, ASan + UBSan"
LSAN_OPTIONS="suppressions=scripts/lsan-libomp.supp:print_suppressions=0" "$out/stress-omp-asan" "$seconds" "$callers"
echo "stress: serial backend, TSan"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$out/stress-serial-tsan" "$seconds" "$callers"
