#!/usr/bin/env python3
"""Writes the trained network as Sources/CImageCore/detect_model.c (batch norms folded in,
then quantized to the integer network of quantize.py) and the reference outputs the C tests
compare against.

    export.py CHECKPOINT.pt [--calibration calib.json] [--figures figures.json]
              [--out Sources/CImageCore/detect_model.c]
              [--reference Tests/ImageCoreTests/Fixtures/detect-map-reference.bin]
              [--folded scripts/detector/folded.npz] [--data .build-detector/data/train]
    export.py --requantize [the same options]
    export.py --keep-weights [--calibration calib.json] [--figures figures.json] [--out ...]

From a checkpoint it writes the folded float network to --folded (float32 weights and the
checkpoint's facts, kept in the repository), then quantizes it with activation scales
measured on the first CALIBRATION_PHOTOS photos of the training split (--data) at the working
sizes CALIBRATION_WORK. --requantize does the second part from --folded alone (a change to
quantize.py without retraining: `make requantize-detector`, which then retrains the ranker and
recalibrates, as train-detector does after this script; the header's calibration and figures
are placeholders until then).

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
quantize.int_forward (the C core's integer arithmetic, computed exactly). The float reference
(--float-reference, the same layout): the folded float network's probabilities (float64), which
the C tests hold the integer network to within the quantization's stated error.
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
import quantize  # noqa: E402
from model import LAYERS, BoundaryNet, FoldedNet  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CALIBRATION_PHOTOS = 64
CALIBRATION_WORK = (288, 384)  # the C core's default working size and the two-size mode's second


def fmt(a):
    vals = ["%.9g" % v for v in a.reshape(-1)]
    lines = []
    for i in range(0, len(vals), 8):
        lines.append("    " + ", ".join(v + "f" if ("." in v or "e" in v) else v + ".0f" for v in vals[i:i + 8]) + ",")
    return "\n".join(lines)


def hexwords(a):
    vals = ["0x%08x" % (int(v) & 0xFFFFFFFF) for v in a.reshape(-1)]
    return "\n".join("    " + ", ".join(vals[i:i + 8]) + "," for i in range(0, len(vals), 8))


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
    header = [" * Confidence calibration (%s split, plain and hard, 1600 and 360 px photos, two working sizes:"
              % cal.get("split", "train"),
              " * IC_DM_WORK, then IC_DETECT_SECOND_WORK_SIZE) of the ranker's score (detect_rank_model.c): sigmoid(%.6g * score + %.6g)." % (cal["a"], cal["b"]),
              " * Default min_confidence %.2f: the lowest of 0.05, 0.10, ... 0.90 with at most 1 %% false pages on the"
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
          (" * Confidence calibration (", " * IC_DM_WORK, then", " * Default min_confidence", " * Held-out split figures",
           "const double ic__dm_calibration", "const double ic__dm_min_confidence")}
    src[at[" * Confidence calibration ("]], src[at[" * IC_DM_WORK, then"]], src[at[" * Default min_confidence"]] = header
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
    ap.add_argument("--requantize", action="store_true")
    ap.add_argument("--folded", default=os.path.join(HERE, "folded.npz"))
    ap.add_argument("--data", default=os.path.join(ROOT, ".build-detector", "data", "train"))
    ap.add_argument("--calibration")
    ap.add_argument("--figures")
    ap.add_argument("--out", default=os.path.join(ROOT, "Sources", "CImageCore", "detect_model.c"))
    ap.add_argument("--reference", default=os.path.join(ROOT, "Tests", "ImageCoreTests", "Fixtures", "detect-map-reference.bin"))
    ap.add_argument("--float-reference", default=os.path.join(ROOT, "Tests", "ImageCoreTests", "Fixtures", "detect-map-float-reference.bin"))
    a = ap.parse_args()
    cal = json.load(open(a.calibration)) if a.calibration else {"a": 12.0, "b": -6.0}
    figures = json.load(open(a.figures))["summary"] if a.figures else "not measured yet (run `make train-detector`)"
    if a.keep_weights:
        keep_weights(a.out, cal, figures)
        return
    if not a.checkpoint and not a.requantize:
        ap.error("a checkpoint, --requantize or --keep-weights")
    if a.requantize:
        z = np.load(a.folded)
        facts = json.loads(str(z["facts"]))
        P = {n: (torch.from_numpy(z[n + "_w"]).double(), torch.from_numpy(z[n + "_b"]).double(), s, d, k)
             for n, cin, cout, k, s, d in LAYERS}
    else:
        ck = torch.load(a.checkpoint, map_location="cpu")
        net = BoundaryNet()
        net.load_state_dict(ck["state"])
        net.eval()
        folded = FoldedNet(net)
        facts = {"data_hash": ck["data_hash"], "epochs": ck["epochs"], "seed": ck["seed"],
                 "work": ck.get("work", [workgeom.WORK]), "val_loss": ck.get("val_loss")}
        arrays = {}
        for n, *_ in LAYERS:
            arrays[n + "_w"], arrays[n + "_b"] = folded.params[n][0].numpy(), folded.params[n][1].numpy()
        np.savez_compressed(a.folded, facts=json.dumps(facts), **arrays)
        print("wrote %s" % a.folded)
        P = {n: (folded.params[n][0].double(), folded.params[n][1].double(), s, d, k) for n, cin, cout, k, s, d in LAYERS}
    S = quantize.scales(P, quantize.calibration_inputs(a.data, CALIBRATION_PHOTOS, CALIBRATION_WORK))
    Q, up = quantize.quantize(P, S)
    nparams = sum(P[n][0].numel() + P[n][1].numel() for n, *_ in LAYERS)
    wbytes = sum(Q[n]["w"].size * (3 if Q[n]["bits"] == 8 else 2) + 8 * Q[n]["cout"] for n, *_ in LAYERS)
    src = []
    src.append("/* GENERATED by scripts/detector/export.py from a checkpoint of scripts/detector/train.py:")
    src.append(" * do not edit; regenerate with `make train-detector` (README, \"Page detection\").")
    src.append(" *")
    src.append(" * The detection network of scripts/detector/model.py (boundary and inside outputs), batch norms folded into the")
    src.append(" * convolutions (%d parameters; scripts/detector/folded.npz), quantized by scripts/detector/quantize.py: byte" % nparams)
    src.append(" * activations scaled on %d training photos at %s px; 16-bit weights in %s, 8-bit in the rest; %d bytes of tables."
               % (CALIBRATION_PHOTOS, " and ".join(map(str, CALIBRATION_WORK)), ", ".join(quantize.BITS16), wbytes))
    src.append(" * Training data (train split) sha256: %s" % facts["data_hash"])
    work = facts["work"]
    src.append(" * Training: %d epochs, seed %d; the last stage on working images of %s px (the earlier ones %d)."
               % (facts["epochs"], facts["seed"], " and ".join(map(str, work)), workgeom.WORK))
    header, consts = calibration_lines(cal)
    src += header
    src.append(" * page-less photos of the plain and hard validation splits at 1600 and 360 px (calibrate.py).")
    if facts.get("val_loss") is not None:
        src.append(" * Checkpoint chosen by validation loss (%.4f; validation split: training packages, other seeds)." % facts["val_loss"])
    src += figure_lines(figures)
    src.append(" */")
    src.append('#include "detect_map_internal.h"')
    src.append("")
    for n, cin, cout, k, s, d in LAYERS:
        q = Q[n]
        w = q["w"].reshape(cout, q["cin"] // 4, 4, k * k).transpose(0, 1, 3, 2)  # [cout][group][tap][channel]
        w16 = w.astype(np.int64) & 0xFFFF
        pairs = np.stack([w16[..., 0] | w16[..., 2] << 16, w16[..., 1] | w16[..., 3] << 16], -1)
        src.append("static const uint32_t %s_wp[%d] = {\n%s\n};" % (n, pairs.size, hexwords(pairs)))
        if q["bits"] == 8:
            w8 = w.astype(np.int64) & 0xFF
            quads = w8[..., 0] | w8[..., 1] << 8 | w8[..., 2] << 16 | w8[..., 3] << 24
            src.append("static const uint32_t %s_w8[%d] = {\n%s\n};" % (n, quads.size, hexwords(quads)))
        src.append("static const float %s_m[%d] = {\n%s\n};" % (n, cout, fmt(q["m"])))
        src.append("static const float %s_c[%d] = {\n%s\n};" % (n, cout, fmt(q["c"])))
    src.append("")
    src.append("const ic_dm_conv ic__dm_layers[IC_DM_LAYERS] = {")
    for n, cin, cout, k, s, d in LAYERS:
        q = Q[n]
        src.append("    {%d, %d, %d, %d, %d, %d, %s_wp, %s, %s_m, %s_c},"
                   % (q["cin"], cout, k, s, d, q["bits"], n, n + "_w8" if q["bits"] == 8 else "NULL", n, n))
    src.append("};")
    src.append("const float ic__dm_add7[IC_DM_C1] = {\n%s\n};" % fmt(up["u7"]))
    src.append("const float ic__dm_add9[IC_DM_C0] = {\n%s\n};" % fmt(up["u9"]))
    src.append("")
    src += consts
    with open(a.out, "w") as f:
        f.write("\n".join(src) + "\n")
    print("wrote %s (%d parameters)" % (a.out, nparams))

    for path, integer in ((a.reference, True), (a.float_reference, False)):
        with open(path, "wb") as f:
            for img in reference_inputs():
                h, w = img.shape[:2]
                raw = workgeom.reduce_rgb(img)
                if integer:
                    p = quantize.sigmoid32(quantize.int_forward(Q, up, raw)).astype("<f4")
                else:
                    with torch.no_grad():
                        x = torch.from_numpy(raw.astype(np.float64))[None]
                        p = torch.sigmoid(quantize.float_forward(P, (x - 128) / 64))[0].numpy().astype("<f4")
                f.write(struct.pack("<ii", w, h))
                f.write(img.tobytes())
                f.write(struct.pack("<ii", p.shape[2], p.shape[1]))
                f.write(p[0].tobytes())
                f.write(p[1].tobytes())
    print("wrote %s and %s" % (a.reference, a.float_reference))


if __name__ == "__main__":
    main()
