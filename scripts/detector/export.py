#!/usr/bin/env python3
"""Writes the trained network as Sources/CImageCore/detect_model.c (weights with batch norms
folded in, float32) and the reference outputs the C tests compare against.

    export.py CHECKPOINT.pt [--calibration calib.json] [--figures figures.json]
              [--out Sources/CImageCore/detect_model.c]
              [--reference Tests/ImageCoreTests/Fixtures/detect-map-reference.bin]
    export.py --keep-weights [--calibration calib.json] [--figures figures.json] [--out ...]

--keep-weights rewrites only the calibration, the default threshold and the held-out figures
of the generated file (header and constants), its weights unchanged: after a change to the quad
search, whose score the calibration maps (`make recalibrate-detector`).

calib.json {"a": .., "b": .., "min_confidence": ..}: confidence = sigmoid(a * score + b) and the
default threshold, fitted on the validation split by calibrate.py (before it exists: a = 12,
b = -6, i.e. 0.5 at score 0.5; threshold 0.7).
figures.json: held-out figures measured by `bench detect-eval` (written into the header).

Reference file (little-endian): for each of the fixed inputs below, int32 width, height of
the RGB8 input (<= 192, so the working image is the input itself), the RGB bytes, int32 map
width, height, and the float32 probabilities of the boundary map, then of the inside map, from
the folded float32 network (model.FoldedNet).
"""
import argparse
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workgeom  # noqa: E402
from model import LAYERS, BoundaryNet, FoldedNet  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def fmt(a):
    vals = ["%.9g" % v for v in a.reshape(-1)]
    lines = []
    for i in range(0, len(vals), 8):
        lines.append("    " + ", ".join(v + "f" if ("." in v or "e" in v) else v + ".0f" for v in vals[i:i + 8]) + ",")
    return "\n".join(lines)


def reference_inputs():
    """Fixed RGB inputs: a synthetic page-like scene and two odd sizes (deterministic)."""
    rng = np.random.default_rng(1414)
    out = []
    for (w, h) in [(160, 120), (97, 131), (37, 23)]:
        Y, X = np.mgrid[0:h, 0:w]
        img = np.zeros((h, w, 3), np.float64)
        img[...] = 60 + 40 * np.sin(X / 7.0)[..., None] + rng.normal(0, 8, (h, w, 3))
        # a bright rotated rectangle with dark "text" rows
        cx, cy, a = w / 2, h / 2, 0.3
        u = (X - cx) * np.cos(a) + (Y - cy) * np.sin(a)
        v = -(X - cx) * np.sin(a) + (Y - cy) * np.cos(a)
        inside = (np.abs(u) < w * 0.3) & (np.abs(v) < h * 0.35)
        img[inside] = 225
        img[inside & ((v.astype(int) % 6) == 0) & (np.abs(u) < w * 0.25)] = 40
        out.append(np.clip(img, 0, 255).astype(np.uint8))
    return out


def calibration_lines(cal):
    """The header lines and the constants that carry the calibration and the threshold."""
    header = [" * Confidence calibration (%s split, plain and hard, 1600 and 360 px photos, at the default working"
              % cal.get("split", "train"),
              " * size, IC_DM_WORK) of the ranker's score (detect_rank_model.c): sigmoid(%.6g * score + %.6g)." % (cal["a"], cal["b"]),
              " * Default min_confidence %.2f: the lowest of 0.05, 0.10, ... 0.90 with at most 2 %% false pages on the"
              % cal.get("min_confidence", 0.7)]
    consts = ["const double ic__dm_calibration[2] = {%.17g, %.17g};" % (cal["a"], cal["b"]),
              "const double ic__dm_min_confidence = %.2f;" % cal.get("min_confidence", 0.7)]
    return header, consts


def figure_lines(figures):
    return [" * Held-out split figures (bench detect-eval):"] + [" *   " + line for line in str(figures).split("\n")]


def keep_weights(path, cal, figures):
    """Rewrites the calibration, threshold and figures of an existing generated file in place."""
    src = open(path).read().split("\n")
    header, consts = calibration_lines(cal)
    at = {key: next(i for i, l in enumerate(src) if l.startswith(key)) for key in
          (" * Confidence calibration (", " * size, IC_DM_WORK)", " * Default min_confidence", " * Held-out split figures",
           "const double ic__dm_calibration", "const double ic__dm_min_confidence")}
    src[at[" * Confidence calibration ("]], src[at[" * size, IC_DM_WORK)"]], src[at[" * Default min_confidence"]] = header
    src[at["const double ic__dm_calibration"]], src[at["const double ic__dm_min_confidence"]] = consts
    start = at[" * Held-out split figures"]
    end = next(i for i in range(start, len(src)) if src[i] == " */")
    src[start:end] = figure_lines(figures)
    with open(path, "w") as f:
        f.write("\n".join(src))
    print("rewrote the calibration and figures of %s (weights kept)" % path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkpoint", nargs="?")
    ap.add_argument("--keep-weights", action="store_true")
    ap.add_argument("--calibration")
    ap.add_argument("--figures")
    ap.add_argument("--out", default=os.path.join(ROOT, "Sources", "CImageCore", "detect_model.c"))
    ap.add_argument("--reference", default=os.path.join(ROOT, "Tests", "ImageCoreTests", "Fixtures", "detect-map-reference.bin"))
    a = ap.parse_args()
    cal = json.load(open(a.calibration)) if a.calibration else {"a": 12.0, "b": -6.0}
    figures = json.load(open(a.figures))["summary"] if a.figures else "not measured yet (run `make train-detector`)"
    if a.keep_weights:
        keep_weights(a.out, cal, figures)
        return
    if not a.checkpoint:
        ap.error("a checkpoint, or --keep-weights")
    ck = torch.load(a.checkpoint, map_location="cpu")
    net = BoundaryNet()
    net.load_state_dict(ck["state"])
    net.eval()
    folded = FoldedNet(net)
    nparams = sum(folded.params[n][0].numel() + folded.params[n][1].numel() for n, *_ in LAYERS)
    src = []
    src.append("/* GENERATED by scripts/detector/export.py from a checkpoint of scripts/detector/train.py:")
    src.append(" * do not edit; regenerate with `make train-detector` (README, \"Page detection\").")
    src.append(" *")
    src.append(" * The detection network of scripts/detector/model.py (boundary and inside outputs), batch norms folded into the")
    src.append(" * convolutions, float32: %d parameters, %d bytes of weights." % (nparams, 4 * nparams))
    src.append(" * Training data (train split) sha256: %s" % ck["data_hash"])
    work = ck.get("work", [workgeom.WORK])  # train.py's list of working sizes (older checkpoints: none)
    src.append(" * Training: %d epochs, seed %d; the last stage on working images of %s px (the earlier ones %d)."
               % (ck["epochs"], ck["seed"], " and ".join(map(str, work)), workgeom.WORK))
    header, consts = calibration_lines(cal)
    src += header
    src.append(" * page-less photos of the plain and hard validation splits at 1600 and 360 px (calibrate.py).")
    if "val_loss" in ck:
        src.append(" * Checkpoint chosen by validation loss (%.4f; validation split: training packages, other seeds)." % ck["val_loss"])
    src += figure_lines(figures)
    src.append(" */")
    src.append('#include "detect_map_internal.h"')
    src.append("")
    for n, cin, cout, k, s, d in LAYERS:
        w, b, *_ = folded.params[n]
        src.append("static const float %s_w[%d] = {\n%s\n};" % (n, w.numel(), fmt(w.numpy())))
        src.append("static const float %s_b[%d] = {\n%s\n};" % (n, b.numel(), fmt(b.numpy())))
    src.append("")
    src.append("const ic_dm_conv ic__dm_layers[IC_DM_LAYERS] = {")
    for n, cin, cout, k, s, d in LAYERS:
        src.append("    {%d, %d, %d, %d, %d, %s_w, %s_b}," % (cin, cout, k, s, d, n, n))
    src.append("};")
    src.append("")
    src += consts
    with open(a.out, "w") as f:
        f.write("\n".join(src) + "\n")
    print("wrote %s (%d parameters)" % (a.out, nparams))

    with open(a.reference, "wb") as f:
        for img in reference_inputs():
            h, w = img.shape[:2]
            x = torch.from_numpy(workgeom.reduce_rgb(img).astype(np.float32))[None]
            with torch.no_grad():
                p = torch.sigmoid(folded((x - 128) / 64))[0].numpy().astype("<f4")
            f.write(struct.pack("<ii", w, h))
            f.write(img.tobytes())
            f.write(struct.pack("<ii", p.shape[2], p.shape[1]))
            f.write(p[0].tobytes())
            f.write(p[1].tobytes())
    print("wrote %s" % a.reference)


if __name__ == "__main__":
    main()
