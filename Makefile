# ImageCore — the two commands: `make bench` and `make test`. Each first installs the
# Debian packages that are missing (scripts/deps.sh), then runs.
SWIFT ?= swift
BENCH_ARGS ?=

.PHONY: all deps build test swift-test cmake-test versioned-dependency install install-check hostile-matrix scale-test bench peers sanitize fuzz clean scan-eval \
	detector-venv detector-data train-detector requantize-detector train-ranker recalibrate-detector detector-scores detector-fixtures

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

## Page detection's learned boundary map (README, "Page detection: data, model, figures").
## make detector-data: the Debian photo and font packages, a venv (.venv-detector) with
## PyTorch's wheel and the image packages from PyPI, the training split (plus its --hard
## scenes), the validation split (training packages, other seeds; plus its --hard scenes),
## the proxy split (a photo package in neither split: generalisation while designing), its
## twin with fonts in neither split (proxyfont: the same scenes) and the held-out split.
## make train-detector: trains in four bounded stages (nice'd, 1 thread; the epoch of lowest
## validation loss is kept; the last stage on working images of 192 and DETECTOR_WORK px),
## writes Sources/CImageCore/detect_model.c and the C tests'
## reference outputs, calibrates the confidence on the validation split and puts the
## held-out figures into the generated file's header.
DETECTOR_DIR ?= .build-detector
DETECTOR_PY = .venv-detector/bin/python
DETECTOR_DEBS = mate-backgrounds ukui-wallpapers plasma-workspace-wallpapers lomiri-wallpapers-16.04 fonts-dejavu-core \
	fonts-liberation2 fonts-freefont-ttf fonts-open-sans fonts-crosextra-carlito fonts-crosextra-caladea fonts-lato \
	fonts-roboto-unhinted fonts-go
DETECTOR_JOBS ?= 2
# the C detector's default working size (IC_DETECT_DEFAULT_WORK_SIZE): the last stage trains at it too
DETECTOR_WORK = $(shell sed -n 's/.*IC_DETECT_DEFAULT_WORK_SIZE = \([0-9]*\).*/\1/p' Sources/CImageCore/include/imagecore/detect.h)
# the second working size (IC_DETECT_SECOND_WORK_SIZE): the calibration reads the two-size scores
DETECTOR_WORK2 = $(shell sed -n 's/.*IC_DETECT_SECOND_WORK_SIZE = \([0-9]*\).*/\1/p' Sources/CImageCore/include/imagecore/detect.h)

detector-venv: .venv-detector/.done
.venv-detector/.done: scripts/detector/requirements.txt
	scripts/deps.sh $(DETECTOR_DEBS)
	python3 -m venv .venv-detector
	.venv-detector/bin/pip install -q -r scripts/detector/requirements.txt
	touch $@

DETECTOR_SPLITS = train hard val valhard val360 valhard360 proxy proxyhard proxyfont proxybig proxywide proxyhardwide heldout
detector-data: $(foreach s,$(DETECTOR_SPLITS),$(DETECTOR_DIR)/data/$(s)/labels.jsonl)
# Each split: the generator's split, then its arguments (README, "Page detection", the table).
# proxy: photographs of a package in neither split (generate.py's docstring), for design
# decisions; proxyfont: the proxy's scenes with fonts in neither split (what unseen fonts cost,
# paired with proxy).
DETECTOR_ARGS_train = train --count 2400 --empty 300 --targets
DETECTOR_ARGS_hard = train --count 1200 --empty 400 --targets --hard
DETECTOR_ARGS_val = train --start 800000 --count 164 --empty 60 --long-side 1600 --targets
DETECTOR_ARGS_valhard = train --start 800000 --count 150 --empty 60 --long-side 1600 --targets --hard
DETECTOR_ARGS_val360 = train --start 820000 --count 164 --empty 60 --long-side 360
DETECTOR_ARGS_valhard360 = train --start 820000 --count 150 --empty 60 --long-side 360 --hard
DETECTOR_ARGS_proxy = proxy --start 800000 --count 164 --empty 60 --long-side 1600
DETECTOR_ARGS_proxyhard = proxy --start 800000 --count 150 --empty 60 --long-side 1600 --hard
DETECTOR_ARGS_proxyfont = proxyfont --start 800000 --count 164 --empty 60 --long-side 1600
DETECTOR_ARGS_proxybig = proxy --start 801000 --count 600 --empty 150 --long-side 1600
# the wide pair: the proxy's photographs, other seeds, pages only (page-less photos are the other
# splits'), enough that a change worth a few pages in a thousand shows above the sampling noise
DETECTOR_ARGS_proxywide = proxy --start 802000 --count 1200 --empty 0 --long-side 1600
DETECTOR_ARGS_proxyhardwide = proxy --start 802000 --count 600 --empty 0 --long-side 1600 --hard
DETECTOR_ARGS_heldout = heldout --count 400 --empty 100 --long-side 1600
# not in detector-data (make .build-detector/data/SPLIT/labels.jsonl): the held-out packages'
# photos at 9-12 MP, other seeds, for time per photo (README, figures); the proxy's at the
# scanner's decode size, for the scanner's option (README, Pipelines)
DETECTOR_ARGS_heldout12mp = heldout --start 600000 --count 100 --empty 25 --long-side 4032
DETECTOR_ARGS_proxy504 = proxy --start 800000 --count 164 --empty 60 --long-side 504
DETECTOR_ARGS_proxyhard504 = proxy --start 800000 --count 150 --empty 60 --long-side 504 --hard
# one generator per split at a time (flock): two makes that both need a split (say
# `make recalibrate-detector` while `make detector-data` runs) wrote the same temporary files
# and one failed; the second now waits, then finds the images done
$(DETECTOR_DIR)/data/%/labels.jsonl: .venv-detector/.done scripts/detector/generate.py scripts/detector/workgeom.py
	mkdir -p $(DETECTOR_DIR)/data
	flock $(DETECTOR_DIR)/data/.$*.lock nice -n 10 $(DETECTOR_PY) scripts/detector/generate.py $(firstword $(DETECTOR_ARGS_$*)) $(DETECTOR_DIR)/data/$* $(wordlist 2,99,$(DETECTOR_ARGS_$*)) --jobs $(DETECTOR_JOBS)

DETECTOR_VAL = --val $(DETECTOR_DIR)/data/val --val $(DETECTOR_DIR)/data/valhard
# one deadline for all four stages (train.py --until): the training ends within this many minutes
# of its start whatever each stage took; export, calibration and the held-out figures follow
DETECTOR_TRAIN_MINUTES ?= 57
# the training's seed (every stage's batches and crops): the current network's, chosen on the design splits (README)
DETECTOR_SEED ?= 15
DETECTOR_UNTIL = --until $$(( $$(cat $(DETECTOR_DIR)/train-start) + 60 * $(DETECTOR_TRAIN_MINUTES) ))
train-detector: detector-data
	date +%s > $(DETECTOR_DIR)/train-start
	nice -n 10 $(DETECTOR_PY) scripts/detector/train.py $(DETECTOR_DIR)/data/train $(DETECTOR_DIR)/model-base.pt --outputs 1 $(DETECTOR_UNTIL) --seed $(DETECTOR_SEED)
	nice -n 10 $(DETECTOR_PY) scripts/detector/train.py $(DETECTOR_DIR)/data/train $(DETECTOR_DIR)/model-long.pt \
		--init $(DETECTOR_DIR)/model-base.pt --val $(DETECTOR_DIR)/data/val --epochs 30 --steps 100 --max-lr 2e-3 $(DETECTOR_UNTIL) --seed $(DETECTOR_SEED) --max-minutes 12 --outputs 1
	nice -n 10 $(DETECTOR_PY) scripts/detector/train.py $(DETECTOR_DIR)/data/train $(DETECTOR_DIR)/model-hard.pt --extra $(DETECTOR_DIR)/data/hard \
		--init $(DETECTOR_DIR)/model-long.pt $(DETECTOR_VAL) --epochs 40 --steps 100 --max-lr 1e-3 $(DETECTOR_UNTIL) --seed $(DETECTOR_SEED) --max-minutes 16 --outputs 1
	nice -n 10 $(DETECTOR_PY) scripts/detector/train.py $(DETECTOR_DIR)/data/train $(DETECTOR_DIR)/model.pt --extra $(DETECTOR_DIR)/data/hard \
		--init $(DETECTOR_DIR)/model-hard.pt $(DETECTOR_VAL) --epochs 120 --steps 100 --max-lr 1e-3 $(DETECTOR_UNTIL) --seed $(DETECTOR_SEED) --max-minutes 40 \
		--work 192 --work $(DETECTOR_WORK)
	$(DETECTOR_PY) scripts/detector/export.py $(DETECTOR_DIR)/model.pt --data $(DETECTOR_DIR)/data/train
	$(MAKE) train-ranker

## make requantize-detector: train-detector's tail without the training: the folded float network
## kept in scripts/detector/folded.npz quantized again (export.py --requantize: after a change to
## scripts/detector/quantize.py), then the ranker, the calibration and the held-out figures.
requantize-detector: detector-data
	$(DETECTOR_PY) scripts/detector/export.py --requantize --data $(DETECTOR_DIR)/data/train
	$(MAKE) train-ranker

## make train-ranker: the quad search's ranker (scripts/detector/ranker.py) trained on the
## candidates the current build finds in the training split (train and hard: never the design
## splits, which judge it) at both working sizes (DETECTOR_WORK and DETECTOR_WORK2: the ranker
## also chooses between the two runs), written into Sources/CImageCore/detect_rank_model.c with
## the tests' reference; then the calibration and the held-out figures (recalibrate-detector).
## The candidates' inputs do not depend on the ranker: any build's serve.
DETECTOR_RANK_SPLITS = train hard
train-ranker: detector-data
	$(SWIFT) build -c release --product bench
	mkdir -p $(DETECTOR_DIR)/ranker
	for s in $(DETECTOR_RANK_SPLITS); do for w in $(DETECTOR_WORK) $(DETECTOR_WORK2); do \
		IC_DETECT_WORK=$$w IC_DETECT_DATA=$(DETECTOR_DIR)/data/$$s IC_DETECT_FEATURES=$(DETECTOR_DIR)/ranker/$$s-$$w.txt \
			nice -n 10 $(SWIFT) run -c release bench detect-eval --threads 1 --repeat 1 --warmup 0 > $(DETECTOR_DIR)/ranker/$$s-$$w.log || exit 1; done; done
	$(DETECTOR_PY) scripts/detector/ranker.py $(foreach s,$(DETECTOR_RANK_SPLITS),$(foreach w,$(DETECTOR_WORK) $(DETECTOR_WORK2),$(DETECTOR_DIR)/data/$(s):$(DETECTOR_DIR)/ranker/$(s)-$(w).txt))
	$(MAKE) recalibrate-detector

# the current build's scores on splits $(1) (no threshold: IC_DETECT_SCORES) into $(2)/SPLIT-scores.txt,
# its report into $(2)/SPLIT.log
detect_scores = for s in $(1); do \
		$(3) IC_DETECT_DATA=$(DETECTOR_DIR)/data/$$s IC_DETECT_SCORES=$(2)/$$s-scores.txt \
			nice -n 10 $(SWIFT) run -c release bench detect-eval --threads 1 --repeat 1 --warmup 0 > $(2)/$$s.log || exit 1; done

## make recalibrate-detector: the calibration half of train-detector, the weights kept (after a
## change to the quad search, whose score the confidence maps): the scores of the validation
## split, the fit and the threshold (calibrate.py), then the held-out figures, both written into
## detect_model.c (export.py --keep-weights).
recalibrate-detector: detector-data
	$(SWIFT) build -c release --product bench
	$(call detect_scores,val valhard val360 valhard360,$(DETECTOR_DIR),IC_DETECT_WORK2=$(DETECTOR_WORK2))
	$(DETECTOR_PY) scripts/detector/calibrate.py --scores-dir $(DETECTOR_DIR) $(DETECTOR_DIR)/calibration.json
	$(DETECTOR_PY) scripts/detector/export.py --keep-weights --calibration $(DETECTOR_DIR)/calibration.json
	$(SWIFT) build -c release --product bench
	IC_DETECT_DATA=$(DETECTOR_DIR)/data/heldout IC_DETECT_JSON=$(DETECTOR_DIR)/heldout.json nice -n 10 $(SWIFT) run -c release bench detect-eval --threads 1 --repeat 1 --warmup 0
	$(DETECTOR_PY) scripts/detector/export.py --keep-weights --calibration $(DETECTOR_DIR)/calibration.json \
		--figures $(DETECTOR_DIR)/heldout.json

## make detector-scores DETECTOR_SCORES=DIR: the current build's scores (no threshold) on the
## ten design splits into DIR; scripts/detector/compare.py DIR [BASE_DIR] gives their figures
## at the threshold fitted as recalibrate-detector fits it, and the pages right in one of two
## detectors only (design decisions; never the held-out split).
DETECTOR_DESIGN_SPLITS = val valhard val360 valhard360 proxy proxyhard proxyfont proxybig proxywide proxyhardwide
detector-scores: $(foreach s,$(DETECTOR_DESIGN_SPLITS),$(DETECTOR_DIR)/data/$(s)/labels.jsonl)
	@test -n "$(DETECTOR_SCORES)" || { echo "detector-scores: set DETECTOR_SCORES=DIR"; exit 2; }
	mkdir -p $(DETECTOR_SCORES)
	$(SWIFT) build -c release --product bench
	$(call detect_scores,$(DETECTOR_DESIGN_SPLITS),$(DETECTOR_SCORES))
	$(DETECTOR_PY) scripts/detector/compare.py $(DETECTOR_SCORES)

## make scan-eval DETECTOR_SPLIT=NAME [SCAN_EVAL_ARGS='--command detect --fast']: the detection as
## the CLI user meets it, `imagecore scan` (or `detect`) over a split (scripts/detector/scan_eval.py;
## design splits while designing, the held-out split once after).
scan-eval: $(DETECTOR_DIR)/data/$(DETECTOR_SPLIT)/labels.jsonl
	@test -n "$(DETECTOR_SPLIT)" || { echo "scan-eval: set DETECTOR_SPLIT=NAME"; exit 2; }
	$(SWIFT) build -c release --product imagecore
	python3 scripts/detector/scan_eval.py .build/release/imagecore $(DETECTOR_DIR)/data/$(DETECTOR_SPLIT) $(SCAN_EVAL_ARGS)

## make detector-fixtures: the tests' small held-out subset (Tests/ImageCoreTests/Fixtures/detect-heldout).
detector-fixtures: .venv-detector/.done
	rm -rf Tests/ImageCoreTests/Fixtures/detect-heldout
	$(DETECTOR_PY) scripts/detector/generate.py heldout Tests/ImageCoreTests/Fixtures/detect-heldout \
		--start 500000 --count 40 --empty 20 --long-side 360 --jobs $(DETECTOR_JOBS)
	rm -rf Tests/ImageCoreTests/Fixtures/detect-heldout/labels

clean:
	rm -rf .build .build-cmake .build-cmake-san .build-fuzz .build-stress .build-static .build-cmake-install
