"""The integer network the C core runs: the folded float network (model.FoldedNet's weights)
quantized after training, and an exact model of the C arithmetic (detect_map.c) for the
reference outputs the C tests compare against.

Activations: one unsigned byte per channel, 0 .. 255, with a scale per channel (the largest
value the float network gives on calibration photos of the training split, over 255: nothing
saturates there). The working image is its own bytes (Y, Cb, Cr and a fourth channel of weight
0); the network's (v - 128) / 64 goes into the first layer's weights and bias, and the planes'
border is 128 there (the float network's 0), 0 elsewhere.

Weights: integers per output channel, scaled so the largest magnitude is QMAX (127 for the
8-bit layers, which the AVX-512 kernel runs with VNNI's byte dot products; 16-bit for BITS16,
the layers whose weights' rounding moved the map most: the first two, on few input channels,
see README "Page detection"), the input channels' scales folded in first. A layer's 32-bit
sum of products is exact in every kernel (the bound below keeps it under 2^31), so the C
paths agree bit for bit; then, per output channel, fmaf((float)acc, m, c): a layer feeding
another rounds it to the nearest byte (ties to even) clamped to 0 .. 255 (the ReLU), L7 and
L9 give floats in the units of the addition's result, L11 the logits. The additions (model.
up_to + skip, then ReLU): byte = clamp(rint(fmaf((float)skip, a, low))), a = the skip's
scale over the sum's, per channel.

Measured when it was introduced (40 validation photos at 288 px, against the float network's
probabilities): mean |dp| 0.0006, 0.05 % of cells off by more than 0.05; with every layer's
weights 8-bit 0.0012 and 0.36 %; with the weights left in float (bytes between layers alone)
0.0005 and 0.03 %.
"""
import json
import os

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

import workgeom
from model import LAYERS

BITS16 = ("l0", "l1")
# activation tensors: name, the layer (or addition) that writes it
ACTS = ["a0", "s1", "a2", "s2", "a4", "a5", "a6", "u7", "a8", "u9", "a10"]


def qmax(bits, taps):
    """The weights' largest magnitude: 8-bit, or 16-bit with the sum of taps products of
    bytes below 2^31."""
    return 127 if bits == 8 else min(32767, (2 ** 31 - 1) // (taps * 255))


def calibration_inputs(data_dir, count, works):
    """Working images (3 x h x w, Y Cb Cr bytes as float64) of the first `count` photos of a
    split, at each working size of `works`."""
    labels = [json.loads(l) for l in open(os.path.join(data_dir, "labels.jsonl"))][:count]
    out = []
    for l in labels:
        img = np.asarray(Image.open(os.path.join(data_dir, l["file"])).convert("RGB"))
        for work in works:
            out.append(torch.from_numpy(workgeom.reduce_rgb(img, work).astype(np.float64))[None])
    return out


def float_forward(P, x, record=None):
    """The folded float network (float64) on (v - 128) / 64; `record` collects each
    activation tensor's per-channel maxima."""
    def conv(n, a):
        w, b, s, d, k = P[n]
        return F.conv2d(a, w, b, stride=s, padding=d * (k // 2), dilation=d)

    def up(low, like):
        return low.repeat_interleave(2, 2).repeat_interleave(2, 3)[:, :, : like.shape[2], : like.shape[3]]

    def rec(name, v):
        if record is not None:
            record.setdefault(name, []).append(v.amax(dim=(0, 2, 3)))
        return v

    a = rec("a0", F.relu(conv("l0", x)))
    s1 = rec("s1", F.relu(conv("l1", a)))
    a = rec("a2", F.relu(conv("l2", s1)))
    s2 = rec("s2", F.relu(conv("l3", a)))
    a = rec("a4", F.relu(conv("l4", s2)))
    a = rec("a5", F.relu(conv("l5", a)))
    a = rec("a6", F.relu(conv("l6", a)))
    a = rec("u7", F.relu(up(conv("l7", a), s2) + s2))
    a = rec("a8", F.relu(conv("l8", a)))
    a = rec("u9", F.relu(up(conv("l9", a), s1) + s1))
    a = rec("a10", F.relu(conv("l10", a)))
    return conv("l11", a)


def scales(P, inputs):
    """Per activation tensor, per channel: the largest value over the inputs, over 255."""
    record = {}
    with torch.no_grad():
        for x in inputs:
            float_forward(P, (x - 128) / 64, record)
    S = {}
    for name, v in record.items():
        m = torch.stack(v).amax(0)
        m[m <= 0] = 1.0  # a channel never positive: any scale (its bytes are 0)
        S[name] = (m / 255).numpy()
    return S


# each layer: its input tensor's scale (None: the working image's bytes), its output tensor's
# (None: floats; for L7 / L9 the addition's result scale divides them)
IO = {"l0": (None, "a0"), "l1": ("a0", "s1"), "l2": ("s1", "a2"), "l3": ("a2", "s2"), "l4": ("s2", "a4"),
      "l5": ("a4", "a5"), "l6": ("a5", "a6"), "l7": ("a6", None), "l8": ("u7", "a8"), "l9": ("a8", None),
      "l10": ("u9", "a10"), "l11": ("a10", None)}
DIVIDE = {"l7": "u7", "l9": "u9"}  # float outputs in the addition result's units


def quantize(P, S):
    """{layer: dict(bits, w (cout x cin4 x k x k int64), m, c (float32 per output channel))} and
    {"u7": a, "u9": a} (float32 per channel)."""
    Q = {}
    for n, cin, cout, k, s, d in LAYERS:
        W, b = P[n][0].numpy().astype(np.float64), P[n][1].numpy().astype(np.float64)
        src, dst = IO[n]
        s_in = np.full(cin, 1 / 64.0) if src is None else S[src].astype(np.float64)
        cin4 = (cin + 3) // 4 * 4
        Wr = np.zeros((cout, cin4, k, k))
        Wr[:, :cin] = W * s_in[None, :, None, None]
        bits = 16 if n in BITS16 else 8
        top = qmax(bits, cin4 * k * k)
        sw = np.abs(Wr).reshape(cout, -1).max(1) / top
        sw[sw == 0] = 1.0
        Wq = np.round(Wr / sw[:, None, None, None]).astype(np.int64)
        bias = b.copy()
        if src is None:  # bytes v for (v - 128) / 64: the border's 128 adds nothing
            bias -= 128 * sw * Wq.reshape(cout, -1).sum(1)
        out_scale = S[dst] if dst is not None else (S[DIVIDE[n]] if n in DIVIDE else np.ones(cout))
        Q[n] = dict(bits=bits, w=Wq, m=(sw / out_scale).astype(np.float32), c=(bias / out_scale).astype(np.float32),
                    k=k, stride=s, dil=d, cin=cin4, cout=cout, relu_byte=dst is not None)
    up = {u: (S[skip] / S[u]).astype(np.float32) for u, skip in (("u7", "s2"), ("u9", "s1"))}
    return Q, up


def fmaf(a, b, c):
    """fmaf on float32 arrays: a * b exact in float64 (24-bit significands), plus c, rounded
    once — when that sum is exact in float64, which is checked."""
    p = a.astype(np.float64) * b.astype(np.float64)
    s = p + c.astype(np.float64)
    bb = s - p  # TwoSum: s + e == p + c exactly
    e = (p - (s - bb)) + (c.astype(np.float64) - bb)
    assert not np.any(e != 0), "fmaf model: a sum not exact in float64"
    return s.astype(np.float32)


def to_byte(x):
    return np.rint(np.clip(x, 0, 255)).astype(np.float32)


def int_forward(Q, up, raw):
    """The C core's arithmetic on a working image (3 x h x w bytes): the two logit planes
    (float32), exactly as detect_map.c computes them."""
    def conv(n, x, border):
        q = Q[n]
        k, s, d = q["k"], q["stride"], q["dil"]
        p = d * (k // 2)
        c = x.shape[0]
        xin = np.zeros((q["cin"],) + x.shape[1:])
        xin[:c] = x
        t = F.pad(torch.from_numpy(xin)[None], (p, p, p, p), value=border)
        acc = F.conv2d(t, torch.from_numpy(q["w"].astype(np.float64)), stride=s, dilation=d)[0].numpy()
        assert np.abs(acc).max() < 2 ** 31
        acc32 = acc.astype(np.int64).astype(np.float32)
        r = fmaf(acc32, q["m"][:, None, None] + 0 * acc32, q["c"][:, None, None] + 0 * acc32)
        return to_byte(r) if q["relu_byte"] else r

    def add(low, skip, a):
        h, w = skip.shape[1:]
        lo = np.repeat(np.repeat(low, 2, 1), 2, 2)[:, :h, :w]
        return to_byte(fmaf(skip, a[:, None, None] + 0 * skip, lo))

    x = raw.astype(np.float64)
    x = np.concatenate([x, np.full((1,) + x.shape[1:], 128.0)])  # the fourth byte (weight 0)
    a = conv("l0", x, 128.0)
    s1 = conv("l1", a, 0.0)
    a = conv("l2", s1, 0.0)
    s2 = conv("l3", a, 0.0)
    a = conv("l4", s2, 0.0)
    a = conv("l5", a, 0.0)
    a = conv("l6", a, 0.0)
    a = add(conv("l7", a, 0.0), s2, up["u7"])
    a = conv("l8", a, 0.0)
    a = add(conv("l9", a, 0.0), s1, up["u9"])
    a = conv("l10", a, 0.0)
    return conv("l11", a, 0.0)


def sigmoid32(z):
    return (1.0 / (1.0 + np.exp(-z.astype(np.float64)))).astype(np.float32)
