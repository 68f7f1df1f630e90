# ImageCore — the two commands: `make bench` and `make test`. Each first installs the
# Debian packages that are missing (scripts/deps.sh), then runs.
SWIFT ?= swift
BENCH_ARGS ?=

.PHONY: all deps build test swift-test cmake-test versioned-dependency bench sanitize fuzz clean

all: build

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build

## make test: Swift tests, the CMake build installed to a temp prefix with its C and C++
## hosts under ctest, and the versioned-dependency check.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	scripts/cmake-check.sh
	scripts/check-versioned-dependency.sh

swift-test: deps
	$(SWIFT) test

cmake-test: deps
	scripts/cmake-check.sh

versioned-dependency: deps
	scripts/check-versioned-dependency.sh

## make bench: the benchmarks on the built-in 12 MP image (pass BENCH_ARGS="copy --threads 1").
bench: deps
	$(SWIFT) run -c release bench $(BENCH_ARGS)

## make sanitize: the C core's tests under AddressSanitizer + UndefinedBehaviorSanitizer.
sanitize: deps
	scripts/cmake-check.sh --sanitize

## make fuzz: libFuzzer + ASan/UBSan over the JPEG decode entry points for FUZZ_SECONDS (60).
fuzz: deps
	fuzz/run.sh

clean:
	rm -rf .build .build-cmake .build-cmake-san .build-fuzz
