#!/usr/bin/env python3
"""Sorts a design split's misses into those the map limits and those the quad search does.

    misses.py SPLIT_DIR DUMP_DIR [--bar SCORE]

DUMP_DIR is written by `IC_DETECT_DUMP=DUMP_DIR IC_DETECT_DATA=SPLIT_DIR bench detect-eval`:
each missed page's boundary and inside maps (p x 255). For each miss this scores the *true*
quad on those maps as detect_quad.c scores a candidate (each side's mean and second-weakest
quarter, the weakest side, the corners' ends, the run-on past them, a frame edge unscored,
plus IC_DQ_INSIDE_W x the inside map's contrast), each side moved by up to a cell across
itself to the map's ridge (the search's lines are refitted to it), and compares that
hand-weighted score with HAND_SCORE_BAR (the score's weights and lengths are read from
detect_quad.c and detect_region.c, so that the two cannot drift apart). A true quad below it
means the map does not carry the page; above it, the search (or the ranker) missed a quad it
could have kept. An estimate: the maps are quantized to 1/255, the snap is a grid of quarter
cells, and the ranker that now chooses reads more than this score. Use it on the training, validation
and proxy splits only, never on the held-out split (README, "Page detection").
"""
import glob
import json
import math
import os
import re
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workgeom  # noqa: E402


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def sample(M, u, v):
    """Bilinear, 0 outside (ic__dq_sample): cell (i, j) is centred at (i + 0.5, j + 0.5)."""
    fx, fy = u - 0.5, v - 0.5
    if not (fx > -1 and fy > -1 and fx < M.shape[1] and fy < M.shape[0]):
        return 0.0
    x0, y0 = math.floor(fx), math.floor(fy)
    ax, ay = fx - x0, fy - y0
    x1, y1 = min(x0 + 1, M.shape[1] - 1), min(y0 + 1, M.shape[0] - 1)
    x0, y0 = max(x0, 0), max(y0, 0)
    return (1 - ay) * ((1 - ax) * M[y0, x0] + ax * M[y0, x1]) + ay * ((1 - ax) * M[y1, x0] + ax * M[y1, x1])


SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Sources", "CImageCore")


def c_constants(*files):
    """The numeric constants `NAME = value` (static const or enum) of the C core's files."""
    out = {}
    for f in files:
        text = open(os.path.join(SRC, f)).read()
        for name, value in re.findall(r"\b(IC_[A-Z_0-9]+) = ([0-9.]+)", text):
            out[name] = float(value)
    return out


C = c_constants("detect_quad.c", "detect_region.c")
# the C detector's default working size (the Makefile reads it from detect.h too)
WORK = int(c_constants(os.path.join("include", "imagecore", "detect.h"))["IC_DETECT_DEFAULT_WORK_SIZE"])


def integral(M, p, d, ta, tb):
    if tb <= ta:
        return 0.0
    n = max(1, round((tb - ta) / 0.5))
    h = (tb - ta) / n
    return sum(sample(M, p[0] + d[0] * (ta + (i + .5) * h), p[1] + d[1] * (ta + (i + .5) * h)) for i in range(n)) * h


def side_terms(M, a, b):
    """(side, ends, runon) of the side from a to b (detect_quad.c's side_terms)."""
    L = math.hypot(b[0] - a[0], b[1] - a[1])
    d = ((b[0] - a[0]) / L, (b[1] - a[1]) / L)
    q = sorted(integral(M, a, d, j * L / 4, (j + 1) * L / 4) / (L / 4) for j in range(4))
    side = 0.5 * integral(M, a, d, 0, L) / L + 0.5 * q[1]
    e = min(C["IC_DQ_END_LEN"], C["IC_DQ_END_FRAC"] * L)
    ends = min(integral(M, a, d, 0, e) / e, integral(M, a, d, L - e, L) / e)
    r, k = min(C["IC_DQ_RUN_LEN"], C["IC_DQ_RUN_FRAC"] * L), C["IC_DQ_RUN_SKIP"]
    runon = max(integral(M, a, d, -k - r, -k) / r, integral(M, a, d, L + k, L + k + r) / r)
    return side, ends, runon


def combine(ts):
    ts = [t for t in ts if t is not None]
    if len(ts) < 3:
        return -math.inf
    return (C["IC_DQ_W_MEAN"] * sum(t[0] for t in ts) / len(ts) + C["IC_DQ_W_WEAKEST"] * min(t[0] for t in ts)
            + C["IC_DQ_W_ENDS"] * min(t[1] for t in ts) - C["IC_DQ_W_RUNON"] * max(t[2] for t in ts)
            - (C["IC_DQ_FRAME_COST"] if len(ts) == 3 else 0))


def inside_contrast(Mi, c, frame_sides, fw, fh):
    """detect_region.c: the interior's mean less that of a band IC_DR_OUT cells outside the sides."""
    G, band = int(C["IC_DR_GRID"]), C["IC_DR_OUT"]
    inn = 0.0
    for j in range(G):
        for i in range(G):
            u, v = (i + .5) / G, (j + .5) / G
            w = ((1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v)
            inn += sample(Mi, sum(w[k] * c[k][0] for k in range(4)), sum(w[k] * c[k][1] for k in range(4)))
    inn /= G * G
    gx, gy = sum(p[0] for p in c) / 4, sum(p[1] for p in c) / 4
    out = []
    for s in range(4):
        if frame_sides & (1 << s):
            continue
        a, b = c[(s + 3) % 4], c[s]
        dx, dy = b[0] - a[0], b[1] - a[1]
        L = math.hypot(dx, dy)
        nx, ny = dy / L, -dx / L
        if nx * ((a[0] + b[0]) / 2 - gx) + ny * ((a[1] + b[1]) / 2 - gy) < 0:
            nx, ny = -nx, -ny
        for i in range(G):
            t = (i + .5) / G
            x, y = a[0] + t * dx + band * nx, a[1] + t * dy + band * ny
            if 0.25 <= x <= fw and 0.25 <= y <= fh:
                out.append(sample(Mi, x, y))
    return inn - (sum(out) / len(out) if out else 0.0)

# The hand-weighted score (steps 3-6 of detect_quad.c, plus the inside map's term) at which the
# detector before the ranker reached its threshold (sigmoid(9.979 s - 6.794) >= 0.40). The
# ranker (step 7) reads more than this score, so the sorting is an estimate of where a miss
# is lost; --bar sets another.
HAND_SCORE_BAR = 0.640


def main():
    split, dump = sys.argv[1], sys.argv[2]
    thr = float(arg("--bar", HAND_SCORE_BAR))
    labels = {os.path.basename(l["file"]): l for l in map(json.loads, open(os.path.join(split, "labels.jsonl")))}
    rows, counts = [], {"map": 0, "search": 0}
    for path in sorted(glob.glob(os.path.join(dump, "*-map.pgm"))):
        name = os.path.basename(path)[: -len("-map.pgm")]
        l = labels.get(name)
        if l is None or not l["page"]:
            continue  # false pages ("false-" prefixed) have no true quad
        M = np.asarray(Image.open(path), np.float64) / 255
        Mi = np.asarray(Image.open(os.path.join(dump, name + "-inside.pgm")), np.float64) / 255
        # the box size k the C core chose (the working size nearest its work size): the one
        # whose map has the dumped map's size, nearest to the long side / WORK
        ks = [k for k in range(1, 257) if workgeom.map_size(l["width"] // k, l["height"] // k) == (M.shape[1], M.shape[0])]
        k = min(ks, key=lambda k: abs(k - max(l["width"], l["height"]) / WORK))
        fw, fh = (l["width"] / k + .5) / 2, (l["height"] / k + .5) / 2  # detect.c's frame in map cells
        c = [(min(max((x / k + .5) / 2, .25), fw), min(max((y / k + .5) / 2, .25), fh)) for x, y in l["corners"]]
        ts, frame_sides = [], 0
        for s in range(4):
            p, q = c[s], c[(s + 1) % 4]
            on_frame = any(abs(p[i] - q[i]) < .3 and min(abs(p[i] - .25), abs(p[i] - (fw, fh)[i])) < .3 for i in (0, 1))
            if on_frame:
                ts.append(None)
                frame_sides |= 1 << ((s + 1) % 4)  # detect_region's side s ends at corner s
                continue
            L = math.hypot(q[0] - p[0], q[1] - p[1])
            nx, ny = -(q[1] - p[1]) / L, (q[0] - p[0]) / L
            ts.append(max((side_terms(M, (p[0] + nx * o, p[1] + ny * o), (q[0] + nx * o, q[1] + ny * o))
                           for o in np.arange(-1, 1.01, .25)), key=lambda t: t[0]))
        score = combine(ts) + C["IC_DQ_INSIDE_W"] * inside_contrast(Mi, c, frame_sides, fw, fh)
        conf = score
        kind = "search" if score >= thr else "map"
        counts[kind] += 1
        rows.append((name, l.get("kind"), kind, conf, [round(float(t[0]), 2) if t else None for t in ts]))
    for name, kind, limit, conf, sides in rows:
        print("%s %-8s %-6s true quad's hand-weighted score %.3f, its sides' support %s" % (name, kind, limit, conf, sides))
    print("%d misses: %d limited by the map (the true quad's hand-weighted score below %.3f), %d by the search"
          % (len(rows), counts["map"], thr, counts["search"]))


if __name__ == "__main__":
    main()
