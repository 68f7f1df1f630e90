#!/usr/bin/env python3
"""The page detection as the CLI user meets it: `imagecore scan` (or `detect`) over a split.

    scan_eval.py IMAGECORE SPLIT_DIR [--command scan|detect] [ARGS...]

Runs `IMAGECORE scan FILES... -o TMP/ --json --threads 1 --workers 1` (or `detect FILES...
--json --workers 1`) over every photo of SPLIT_DIR (generate.py's output) in one process, with
ARGS after (say `--fast`), and prints the share of its pages whose detected corners are all
within 1.5 % of the diagonal (as `bench detect-eval` counts a page right), the page-less photos
given a page, and the mean milliseconds a file the CLI reports (decode, detection and, for
scan, the rest of the scan). The scanner detects on its own small decode and `detect` on its
own, so this measures those paths, which `bench detect-eval` (the detector on the whole
decoded photo) does not. The pages written by scan go to a temporary directory, removed after.
The held-out split is measured with it once, after a change is fixed on the design splits
(README, "Page detection").
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

from corners import worst_corner_error


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cli, split = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    command = "scan"
    if rest[:1] == ["--command"]:
        command, rest = rest[1], rest[2:]
    labels = [json.loads(l) for l in open(os.path.join(split, "labels.jsonl"))]
    files = [os.path.join(split, l["file"]) for l in labels]
    by_path = {os.path.normpath(f): l for f, l in zip(files, labels)}
    out = tempfile.mkdtemp(prefix="scan-eval-")
    try:
        if command == "scan":
            args = [cli, "scan"] + files + ["-o", out + "/", "--json", "--threads", "1", "--workers", "1"] + rest
        else:
            args = [cli, "detect"] + files + ["--json", "--workers", "1"] + rest
        run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    right = pages = false = empty = 0
    ms = []
    for line in run.stdout.splitlines():
        o = json.loads(line)
        l = by_path[os.path.normpath(o["input"])]
        ms.append(o.get("ms") or 0)
        found = o.get("error") is None and (o.get("detected") if command == "scan" else o.get("found"))
        if not l["page"]:
            empty += 1
            false += bool(found)
            continue
        pages += 1
        if found and worst_corner_error(o["corners"], l["corners"]) <= 0.015 * math.hypot(l["width"], l["height"]):
            right += 1
    if pages + empty != len(labels):
        sys.exit("scan_eval: %d results for %d photos" % (pages + empty, len(labels)))
    print("%s %s: %d of %d pages within 1.5 %% of the diagonal (%.1f %%), %d of %d page-less photos "
          "given a page, %.1f ms a file" % (command, os.path.basename(os.path.normpath(split)), right, pages,
                                            100.0 * right / max(1, pages), false, empty, sum(ms) / max(1, len(ms))))


main()
