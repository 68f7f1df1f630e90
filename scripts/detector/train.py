#!/usr/bin/env python3
"""Trains the boundary-map network on the training split (never the held-out one).

    train.py DATA_DIR OUT.pt [--epochs N] [--threads T] [--seed S]

DATA_DIR is generate.py's output for the train split, made with --targets. The working images
are reduced from the JPEGs exactly as the C core reduces them (workgeom.reduce_rgb), once, and
cached in DATA_DIR/work.npz. Training: random 64 x 64-cell crops of the map (128 x 128 working
pixels, at even offsets), flips and transposes, a quarter of the samples without chroma (as a
gray source gives), weighted binary cross-entropy (boundary cells weigh 10 times more), Adam
with a cosine learning rate. Seeded: the same data and seed give the same weights on one
machine (thread count fixed).
"""
import argparse
import hashlib
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workgeom  # noqa: E402
from model import BoundaryNet  # noqa: E402

CROP = 128  # working pixels (even); the map crop is CROP / 2


def data_hash(data_dir):
    """sha256 over labels.jsonl and every image's bytes, in label order."""
    h = hashlib.sha256()
    with open(os.path.join(data_dir, "labels.jsonl"), "rb") as f:
        labels = f.read()
    h.update(labels)
    for line in labels.decode().splitlines():
        with open(os.path.join(data_dir, json.loads(line)["file"]), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def load(data_dir):
    cache = os.path.join(data_dir, "work.npz")
    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=True)
        return list(z["x"]), list(z["t"]), str(z["hash"])
    xs, ts = [], []
    for line in open(os.path.join(data_dir, "labels.jsonl")):
        l = json.loads(line)
        rgb = np.asarray(Image.open(os.path.join(data_dir, l["file"])).convert("RGB"))
        xs.append(workgeom.reduce_rgb(rgb))
        ts.append(np.load(os.path.join(data_dir, "targets", "%06d.npy" % l["index"])))
    hx = data_hash(data_dir)
    ox, ot = np.empty(len(xs), dtype=object), np.empty(len(ts), dtype=object)
    for i in range(len(xs)):  # element by element: equal shapes must not broadcast
        ox[i], ot[i] = xs[i], ts[i]
    np.savez(cache, x=ox, t=ot, hash=hx)
    return xs, ts, hx


def batch(rng, xs, ts, n):
    X = np.full((n, 3, CROP, CROP), 128, np.uint8)
    T = np.zeros((n, 1, CROP // 2, CROP // 2), np.float32)
    M = np.zeros((n, 1, CROP // 2, CROP // 2), np.float32)  # 1 where the crop has image
    for b in range(n):
        i = int(rng.integers(len(xs)))
        x, t = xs[i], ts[i].astype(np.float32)
        if rng.random() < 0.5:
            x, t = x[:, :, ::-1], t[:, ::-1]
            if x.shape[2] % 2 == 0:  # keep cell alignment: a flip of an even width shifts cells
                x, t = x[:, :, 1:], t
        if rng.random() < 0.5:
            x, t = x.transpose(0, 2, 1), t.T
        _, h, w = x.shape
        oy = 2 * int(rng.integers(0, max(0, (h - CROP) // 2) + 1))
        ox = 2 * int(rng.integers(0, max(0, (w - CROP) // 2) + 1))
        xc = x[:, oy:oy + CROP, ox:ox + CROP]
        tc = t[oy // 2:oy // 2 + CROP // 2, ox // 2:ox // 2 + CROP // 2]
        X[b, :, : xc.shape[1], : xc.shape[2]] = xc
        T[b, 0, : tc.shape[0], : tc.shape[1]] = tc
        M[b, 0, : (xc.shape[1] + 1) // 2, : (xc.shape[2] + 1) // 2] = 1
        if rng.random() < 0.25:
            X[b, 1:] = 128
    return X, T, M


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--steps", type=int, default=25, help="batches per epoch")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=14)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    torch.set_flush_denormal(True)
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    xs, ts, hx = load(a.data)
    print("data: %d images, sha256 %s, %.0f s" % (len(xs), hx, time.time() - t0), flush=True)
    net = BoundaryNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-5)
    total = a.epochs * a.steps
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=total, pct_start=0.1)
    step = 0
    for ep in range(a.epochs):
        net.train()
        run = 0.0
        for _ in range(a.steps):
            X, T, M = batch(rng, xs, ts, a.batch)
            x = (torch.from_numpy(X).float() - 128) / 64
            t, m = torch.from_numpy(T), torch.from_numpy(M)
            logit = net(x)
            wgt = m * (1 + 9 * t)
            loss = (F.binary_cross_entropy_with_logits(logit, t, reduction="none") * wgt).sum() / wgt.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            run += loss.item()
        print("epoch %d/%d loss %.4f (%.0f s)" % (ep + 1, a.epochs, run / a.steps, time.time() - t0), flush=True)
        torch.save({"state": net.state_dict(), "data_hash": hx, "epochs": ep + 1, "seed": a.seed}, a.out)
    print("done in %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
