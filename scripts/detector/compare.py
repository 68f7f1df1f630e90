#!/usr/bin/env python3
"""Figures of the design splits, and a page-by-page comparison of two detectors on them.

    compare.py DIR [BASE_DIR]

DIR holds `SPLIT-scores.txt` for the design splits (`make detector-scores
DETECTOR_SCORES=DIR`: `bench detect-eval` with IC_DETECT_SCORES, no threshold, on the
Makefile's DETECTOR_DESIGN_SPLITS); the splits compared are the scores files DIR holds (and
BASE_DIR too, given one), so the list lives in the Makefile alone. The confidence is
fitted and the threshold chosen on them exactly as `make recalibrate-detector` does
(`calibrate.py --scores-dir`: val, val360, valhard and valhard360),
then for each split: the share of pages right at that threshold (every corner within 1.5 %
of the diagonal), of pages whose best candidate is right whatever its confidence, and the
false pages. With BASE_DIR (another detector's scores, calibrated the same way on its own):
per split, the pages right in one only; that count, not the shares, says whether a change
helped (most pages are right in both). Design splits only: the held-out split is measured
once, by `make recalibrate-detector`, never compared here (README, "Page detection").
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.environ.get("DETECTOR_DIR", os.path.join(ROOT, ".build-detector")) + "/data"


def splits(dirs):
    """The splits (data directories) with a scores file in every one of dirs, sorted."""
    have = [{f[:-len("-scores.txt")] for f in os.listdir(d) if f.endswith("-scores.txt")
             and os.path.exists(os.path.join(DATA, f[:-len("-scores.txt")], "labels.jsonl"))} for d in dirs]
    return sorted(set.intersection(*have))


def calibration(d):
    """(a, b, threshold) fitted on d's validation scores as recalibrate-detector fits them."""
    with tempfile.TemporaryDirectory() as t:
        subprocess.run([sys.executable, os.path.join(HERE, "calibrate.py"), "--scores-dir", d, os.path.join(t, "cal.json")],
                       check=True, stdout=subprocess.DEVNULL)
        c = json.load(open(os.path.join(t, "cal.json")))
    return c["a"], c["b"], c["min_confidence"]


def pages(d, split, cal):
    """{file: (has a page, right at the threshold, best candidate right, false page)}."""
    a, b, thr = cal
    out = {}
    for line in open(os.path.join(d, split + "-scores.txt")):
        f = line.split()
        score, ok, page, name = float(f[0]), int(f[1]), int(f[2]), f[3]
        conf = 1 / (1 + np.exp(-(a * score + b)))
        out[name] = (page, bool(ok) and conf >= thr, bool(ok), not page and conf >= thr)
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    dirs = sys.argv[1:]
    cals = [calibration(d) for d in dirs]
    for d, c in zip(dirs, cals):
        print("%s: confidence sigmoid(%.3f score %+.3f), threshold %.2f" % (d, c[0], c[1], c[2]))
    total = [[0, 0, 0, 0] for _ in dirs]  # pages, right, best right, right in this one only
    for split in splits(dirs):
        labels = [json.loads(l) for l in open(os.path.join(DATA, split, "labels.jsonl"))]
        npage = sum(bool(l["page"]) for l in labels)
        nneg = len(labels) - npage
        got = [pages(d, split, c) for d, c in zip(dirs, cals)]
        line = []
        for g, t in zip(got, total):
            right = sum(v[1] for v in g.values())
            best = sum(v[2] for v in g.values() if v[0])
            false = sum(v[3] for v in g.values())
            t[0] += npage; t[1] += right; t[2] += best
            line.append("%5.1f %% (best %5.1f %%), false %d of %d" % (100 * right / npage, 100 * best / npage, false, nneg))
        text = "%-10s %d pages: %s" % (split, npage, " | ".join(line))
        if len(got) == 2:
            names = set(got[0]) | set(got[1])
            none = (0, False, False, False)
            only = [sum(1 for n in names if got[i].get(n, none)[1] and not got[1 - i].get(n, none)[1]) for i in (0, 1)]
            text += "; right in %s only %d, in %s only %d" % (dirs[0], only[0], dirs[1], only[1])
            total[0][3] += only[0]; total[1][3] += only[1]
        print(text)
    print("all: " + " | ".join("%d of %d pages right (best candidate %d)" % (t[1], t[0], t[2]) for t in total)
          + ("; right in %s only %d, in %s only %d" % (dirs[0], total[0][3], dirs[1], total[1][3]) if len(dirs) == 2 else ""))


if __name__ == "__main__":
    main()
