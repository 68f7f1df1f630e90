#!/usr/bin/env python3
"""Fits the detector's confidence on the validation split (never the held-out one).

    calibrate.py SCORES.txt OUT.json [--split NAME] [--negatives N] [--threshold-scores MORE.txt --threshold-negatives M]
    calibrate.py --scores-dir DIR OUT.json

--scores-dir is the detector's recipe, the one place it is written (`make
recalibrate-detector` and compare.py use it): the validation split's photos of 1600 and 360
px, plain and hard (DIR/val, val360, valhard and valhard360-scores.txt, 240 page-less photos)
as SCORES.txt, so that the confidence and the threshold hold for small photos too (at 360 px
the working image is 180 px whatever the working size, and page-less scenes give page-like
quads more often there) and for hard scenes. (Before the ranker the fit read the plain photos
alone and the hard ones set the threshold only: the ranker scores most plain photos far from
any doubt — 69 of their 362 rows between -6 and 8 — and a fit on them alone was too steep,
its confidence far too low in the middle (0.1-0.3 right two times in three), log loss 0.164 on
the ten design splits against 0.098 with the hard ones.)

The validation split is drawn from the training packages with seeds the network was not
trained on (`make detector-data`), so the fit sees the network as it sees new photos (on the
images it was trained on it is overconfident). SCORES.txt is written by `bench detect-eval`
with IC_DETECT_SCORES on that split: one
line per image that had a candidate, "score correct page file" (correct: every corner within 1.5 %
of the diagonal; page-less photos are never correct). Fits P(correct | score) =
sigmoid(a * score + b) by maximum likelihood (Newton's method), so that the confidence means
what the README says: the probability that every corner is within 1.5 % of the diagonal.

The default confidence threshold (min_confidence) is chosen here too: the lowest of 0.05, 0.10,
... 0.90 at which at most FALSE_SHARE (1 %) of the page-less photos give a page. The page-less
photos are those of SCORES.txt (--negatives: how many the split has, with or without a
candidate) and of MORE.txt (--threshold-scores, e.g. the hard validation split;
--threshold-negatives M). 1 % rather than the target's 2 %: the lowest threshold within 2 %
on the 240 validation photos gave 2.5-3.2 % on the design splits' 570 with two working sizes
(the scores of `make recalibrate-detector`, since the byte network; README, "Page detection").
"""
import json
import sys

import numpy as np


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def load(paths):
    """The rows (score, correct, page) of one or more scores files, concatenated."""
    return np.concatenate([np.loadtxt(p, ndmin=2, usecols=(0, 1, 2)).reshape(-1, 3) for p in paths])


# The recipe (--scores-dir): (fit's splits, their page-less photos), (threshold's extra splits, theirs).
RECIPE = ((["val", "val360", "valhard", "valhard360"], 240), ([], 0))
FALSE_SHARE = 0.01


def main():
    d = arg("--scores-dir")
    if d:
        (fit, nfit), (more, nmore) = RECIPE
        fit_paths, neg = ["%s/%s-scores.txt" % (d, n) for n in fit], nfit
        thr_paths, thr_neg = ["%s/%s-scores.txt" % (d, n) for n in more], nmore
        out_path, split = sys.argv[sys.argv.index("--scores-dir") + 2], "val"
    else:
        fit_paths, neg, out_path, split = [sys.argv[1]], int(arg("--negatives", 0)), sys.argv[2], arg("--split", "val")
        thr_paths = [arg("--threshold-scores")] if arg("--threshold-scores") else []
        thr_neg = int(arg("--threshold-negatives", 0))
    rows = load(fit_paths)
    s, y = rows[:, 0], rows[:, 1]
    # Newton's method on the standardised score from (0, 0), where it converges (from a
    # start far from the optimum its steps can diverge), then back to the raw score
    mu, sd = s.mean(), max(s.std(), 1e-9)
    x = (s - mu) / sd
    a, b = 0.0, 0.0
    for _ in range(100):
        z = np.clip(a * x + b, -30, 30)
        p = 1 / (1 + np.exp(-z))
        g = np.array([np.sum((p - y) * x), np.sum(p - y)])
        w = p * (1 - p) + 1e-9
        H = np.array([[np.sum(w * x * x), np.sum(w * x)], [np.sum(w * x), np.sum(w)]]) + 1e-6 * np.eye(2)
        step = np.linalg.solve(H, g)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-10:
            break
    a, b = a / sd, b - a * mu / sd
    p = 1 / (1 + np.exp(-(a * s + b)))
    # reliability on the fitted split: predicted vs observed in confidence bins
    bins = []
    for lo in np.arange(0, 1, 0.2):
        m = (p >= lo) & (p < lo + 0.2 + (lo >= 0.8))
        if m.any():
            bins.append({"from": round(float(lo), 1), "n": int(m.sum()), "predicted": float(p[m].mean()), "observed": float(y[m].mean())})
    # the threshold: false pages among the page-less photos of every scores file given
    sets = [(fit_paths, neg)] + ([(thr_paths, thr_neg)] if thr_paths else [])
    empty_scores, n_empty = [], 0
    for paths, n in sets:
        r = load(paths)
        empty_scores += list(r[r[:, 2] == 0, 0])
        n_empty += n or int((r[:, 2] == 0).sum())
    empty_p = 1 / (1 + np.exp(-(a * np.array(empty_scores) + b)))
    pages_right = p[(rows[:, 2] == 1) & (y == 1)]
    n_pages = int((rows[:, 2] == 1).sum())
    table, min_conf = [], 0.9
    for t in np.arange(0.05, 0.9001, 0.05):
        false = int((empty_p >= t).sum())
        table.append({"min_confidence": round(float(t), 2), "false_pages": false, "of": n_empty,
                      "right_found": int((pages_right >= t).sum()), "pages_with_candidate": n_pages})
        if false <= FALSE_SHARE * n_empty and t < min_conf:
            min_conf = round(float(t), 2)
    out = {"split": split, "a": float(a), "b": float(b), "n": int(len(s)), "threshold_score": float(-b / a), "bins": bins,
           "min_confidence": min_conf, "thresholds": table}
    json.dump(out, open(out_path, "w"), indent=1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
