#!/usr/bin/env python3
"""Fits the detector's confidence on the validation split (never the held-out one).

    calibrate.py SCORES.txt OUT.json [--split NAME]

The validation split is drawn from the training packages with seeds the network was not
trained on (`make detector-data`), so the fit sees the network as it sees new photos (on the
images it was trained on it is overconfident). SCORES.txt is written by `bench detect-eval`
with IC_DETECT_SCORES on that split: one
line per image that had a candidate, "score correct page file" (correct: every corner within 1.5 %
of the diagonal; page-less photos are never correct). Fits P(correct | score) =
sigmoid(a * score + b) by maximum likelihood (Newton's method), so that the confidence means
what the README says: the probability that every corner is within 1.5 % of the diagonal.
"""
import json
import sys

import numpy as np


def main():
    split = sys.argv[sys.argv.index("--split") + 1] if "--split" in sys.argv else "val"
    rows = np.loadtxt(sys.argv[1], ndmin=2, usecols=(0, 1, 2))
    s, y = rows[:, 0], rows[:, 1]
    a, b = 10.0, -5.0
    for _ in range(100):
        z = np.clip(a * s + b, -30, 30)
        p = 1 / (1 + np.exp(-z))
        g = np.array([np.sum((p - y) * s), np.sum(p - y)])
        w = p * (1 - p) + 1e-9
        H = np.array([[np.sum(w * s * s), np.sum(w * s)], [np.sum(w * s), np.sum(w)]]) + 1e-6 * np.eye(2)
        step = np.linalg.solve(H, g)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-10:
            break
    p = 1 / (1 + np.exp(-(a * s + b)))
    # reliability on the fitted split: predicted vs observed in confidence bins
    bins = []
    for lo in np.arange(0, 1, 0.2):
        m = (p >= lo) & (p < lo + 0.2 + (lo >= 0.8))
        if m.any():
            bins.append({"from": round(float(lo), 1), "n": int(m.sum()), "predicted": float(p[m].mean()), "observed": float(y[m].mean())})
    out = {"split": split, "a": float(a), "b": float(b), "n": int(len(s)), "threshold_score": float(-b / a), "bins": bins}
    json.dump(out, open(sys.argv[2], "w"), indent=1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
