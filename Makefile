# ImageCore — the two commands: `make bench` and `make test`. Each first installs the
# Debian packages that are missing (scripts/deps.sh), then runs.
SWIFT ?= swift
BENCH_ARGS ?=

.PHONY: all deps build test swift-test cmake-test versioned-dependency install install-check hostile-matrix scale-test bench peers sanitize fuzz clean

all: build

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build

## make test: Swift tests, the CMake build installed to a temp prefix with its C and C++
## hosts under ctest, the versioned-dependency check, and `make install` to a temp prefix with
## the CLI tests run against the installed (statically linked) binary.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	scripts/cmake-check.sh
	scripts/check-versioned-dependency.sh
	scripts/check-install.sh
	scripts/hostile-matrix.sh .build-static/release/imagecore
	scripts/scale-local-test.sh .build-static/release/imagecore
	scripts/check-readme.sh .build-static/release/imagecore

## make install PREFIX=…: the imagecore CLI (static Swift stdlib), completions, man page,
## and the C library, header, CMake config and pkg-config file.
PREFIX ?= /usr/local
install: deps
	scripts/install.sh $(PREFIX)

install-check: deps
	scripts/check-install.sh

## make hostile-matrix: every command against hostile inputs and outputs (bounds per case).
hostile-matrix: build
	scripts/hostile-matrix.sh

## make scale-test: the Spark recipe (pyspark + Java 17 in their own venv) and the 1 000-file
## throughput run of the README's "At scale"; not part of make test.
scale-test: deps
	scripts/scale-spark.sh
	scripts/scale-throughput.sh

swift-test: deps
	$(SWIFT) test

cmake-test: deps
	scripts/cmake-check.sh

versioned-dependency: deps
	scripts/check-versioned-dependency.sh

## make bench: the benchmarks on the built-in 12 MP image (pass BENCH_ARGS="copy --threads 1").
bench: deps
	$(SWIFT) run -c release bench $(BENCH_ARGS)

## make peers: ImageCore beside OpenCV, Pillow, libvips, libyuv and bare libjpeg-turbo on the
## built-in image written as a JPEG (plus IMAGES="a.jpg b.jpg"); updates the README's table.
IMAGES ?=
PEERS_ARGS ?= --update-readme
peers: deps
	bench/peers/setup.sh
	bench/peers/.venv/bin/python bench/peers/run.py $(PEERS_ARGS) $(IMAGES)

## make sanitize: the C core's tests under AddressSanitizer + UndefinedBehaviorSanitizer (with
## OpenMP pragmas); the concurrency stress test with the OpenMP runtime under ASan and the
## serial backend under TSan (scripts/stress.sh); the thumbnail renderer's tests under TSan.
sanitize: deps
	scripts/cmake-check.sh --sanitize
	scripts/stress.sh
	$(SWIFT) test --sanitize=thread --filter Renderer

## make fuzz: every libFuzzer harness in fuzz/ (ASan + UBSan; decode and kernels on both parallel
## backends; the Swift readers' harness built by swiftc -sanitize=fuzzer) for FUZZ_SECONDS (60)
## each; prints execs, edges and findings per harness. libjpeg-turbo is built instrumented from
## its Debian source package (FUZZ_LIBJPEG=source, cached in .build-fuzz; the CI smoke links
## the system's library instead).
fuzz: deps
	FUZZ_LIBJPEG=$${FUZZ_LIBJPEG:-source} fuzz/run.sh

clean:
	rm -rf .build .build-cmake .build-cmake-san .build-fuzz .build-stress .build-static .build-cmake-install
