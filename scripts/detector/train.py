#!/usr/bin/env python3
"""Trains the boundary-map network on the training split (never the held-out one).

    train.py DATA_DIR OUT.pt [--extra DIR]... [--epochs N] [--steps N] [--threads T] [--seed S] [--init CKPT] [--val VAL_DIR]
                             [--max-lr LR] [--max-minutes M] [--until T] [--outputs 1|2] [--work N]... [--procs P]

DATA_DIR is generate.py's output for the train split, made with --targets. The working images
are reduced from the JPEGs exactly as the C core reduces them (workgeom.reduce_rgb), once, and
cached in DATA_DIR/work.npz (work-N.npz at another working size: --work N; the boundary targets,
stored at workgeom.WORK, are then redrawn from the labels, workgeom.retarget; several --work
pool the data at each size). Training: random 64 x 64-cell crops of the map (128 x 128 working
pixels, at even offsets), flips and transposes, a quarter of the samples without chroma (as a
gray source gives), weighted binary cross-entropy (boundary cells weigh 10 times more) plus
half the inside channel's cross-entropy (--outputs 2; its target is 1 for cells inside the
labelled page quad, workgeom.inside_target), Adam with a one-cycle learning rate. Seeded: the same data and seed give the same weights on one
machine (thread count fixed). One thread by default: on this shared 2-core machine a second
OpenMP thread made a step 7 times slower, not faster (see the OMP_WAIT_POLICY note below).

--init continues from a checkpoint (fine-tuning; a boundary-only checkpoint gains the inside
channel, widen_head). --val is a validation split made from the
training packages with other seeds (generate.py train ... --start 800000 --targets): its loss on
whole working images is measured after every epoch and OUT.pt keeps the epoch with the lowest
(model selection on validation, never on the held-out split). --max-minutes stops early (the
machine is shared) keeping the best epoch so far; --until does the same at a given time (Unix
seconds), the deadline `make train-detector` sets once for all its stages so that the whole
training ends within DETECTOR_TRAIN_MINUTES whatever each stage took (a stage that starts past
it keeps its --init checkpoint when it has --val).

--procs P splits every batch over P processes of one thread each (PyTorch's DistributedDataParallel
over gloo: the gradients averaged, the same batch size and steps), each drawing its own crops, and
the validation images shared out among them. Measured here with both cores free: 50 steps of the
first stage's data in 3.2 s per epoch against 5.5 s with one process (1.7 times the steps per
second, where a second OpenMP thread gave 1.27). `make train-detector` keeps one process (README,
"Page detection": the recipe's stages run on two processes to 170 epochs gave no better network).
"""
import argparse
import hashlib
import json
import os
import sys
import time

# Before torch loads OpenMP: with the default active wait, two OpenMP threads on a shared 2-core
# machine spin against each other and every other process; a step measured 1.29 s with 2 threads
# against 0.18 s with 1 (16 crops of 128^2, load ~1), and ~7 s under the load of a full session.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workgeom  # noqa: E402
from model import NOUT, BoundaryNet  # noqa: E402

CROP = 128  # working pixels (even); the map crop is CROP / 2
INSIDE_WEIGHT = 0.5  # the inside channel's share of the loss (it helps the quad scorer; the boundary leads)


def widen_head(state, net):
    """A checkpoint of the one-output network (boundary only) continues with the inside channel
    added: the boundary channel's head is kept, the inside channel's starts from the fresh
    network's initialisation."""
    w = state.get("layers.l11.conv.weight")
    if w is None or w.shape[0] == NOUT:
        return state
    fresh = net.state_dict()
    state = dict(state)
    for key in ("layers.l11.conv.weight", "layers.l11.conv.bias"):
        t = fresh[key].clone()
        t[: state[key].shape[0]] = state[key]
        state[key] = t
    return state


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


def inside_targets(data_dir, work):
    """The inside-page target of every image, in label order (workgeom.inside_target)."""
    out = []
    for line in open(os.path.join(data_dir, "labels.jsonl")):
        l = json.loads(line)
        out.append(workgeom.inside_target(l["width"], l["height"], l.get("corners") if l["page"] else None, work))
    return out


def load(data_dir, work=workgeom.WORK):
    """(working images, targets, data hash) at working size `work`: each target is
    2 x mh x mw (boundary, inside)."""
    xs, ts, hx = load_boundary(data_dir, work)
    ins = inside_targets(data_dir, work)
    return xs, [np.stack([t.astype(np.float32), m]) for t, m in zip(ts, ins)], hx


def load_boundary(data_dir, work):
    """Working images and boundary targets, cached per working size. The stored targets are
    at workgeom.WORK; at another size they are redrawn from the labels (workgeom.retarget)."""
    cache = os.path.join(data_dir, "work.npz" if work == workgeom.WORK else "work-%d.npz" % work)
    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=True)
        return list(z["x"]), list(z["t"]), str(z["hash"])
    xs, ts = [], []
    for line in open(os.path.join(data_dir, "labels.jsonl")):
        l = json.loads(line)
        rgb = np.asarray(Image.open(os.path.join(data_dir, l["file"])).convert("RGB"))
        xs.append(workgeom.reduce_rgb(rgb, work))
        t = np.load(os.path.join(data_dir, "targets", "%06d.npy" % l["index"]))
        ts.append(t if work == workgeom.WORK else workgeom.retarget(l, t, work).astype(np.float16))
    hx = data_hash(data_dir)
    ox, ot = np.empty(len(xs), dtype=object), np.empty(len(ts), dtype=object)
    for i in range(len(xs)):  # element by element: equal shapes must not broadcast
        ox[i], ot[i] = xs[i], ts[i]
    np.savez(cache, x=ox, t=ot, hash=hx)
    return xs, ts, hx


def batch(rng, xs, ts, n):
    X = np.full((n, 3, CROP, CROP), 128, np.uint8)
    T = np.zeros((n, NOUT, CROP // 2, CROP // 2), np.float32)
    M = np.zeros((n, 1, CROP // 2, CROP // 2), np.float32)  # 1 where the crop has image
    for b in range(n):
        i = int(rng.integers(len(xs)))
        x, t = xs[i], ts[i]
        if rng.random() < 0.5:
            x, t = x[:, :, ::-1], t[:, :, ::-1]
            if x.shape[2] % 2 == 0:  # keep cell alignment: a flip of an even width shifts cells
                x, t = x[:, :, 1:], t
        if rng.random() < 0.5:
            x, t = x.transpose(0, 2, 1), t.transpose(0, 2, 1)
        _, h, w = x.shape
        oy = 2 * int(rng.integers(0, max(0, (h - CROP) // 2) + 1))
        ox = 2 * int(rng.integers(0, max(0, (w - CROP) // 2) + 1))
        xc = x[:, oy:oy + CROP, ox:ox + CROP]
        tc = t[:, oy // 2:oy // 2 + CROP // 2, ox // 2:ox // 2 + CROP // 2]
        X[b, :, : xc.shape[1], : xc.shape[2]] = xc
        T[b, :, : tc.shape[1], : tc.shape[2]] = tc
        M[b, 0, : (xc.shape[1] + 1) // 2, : (xc.shape[2] + 1) // 2] = 1
        if rng.random() < 0.25:
            X[b, 1:] = 128
    return X, T, M


def loss_terms(logit, t, m):
    """Sums of the two losses and of their weights over the cells with image (m): the boundary
    channel's cross-entropy, boundary cells weighing 10 times more; the inside channel's
    cross-entropy (none for a boundary-only network)."""
    tb = t[:, :1]
    wgt = m * (1 + 9 * tb)
    nb = (F.binary_cross_entropy_with_logits(logit[:, :1], tb, reduction="none") * wgt).sum()
    if logit.shape[1] == 1:
        return nb, wgt.sum(), 0.0, 1.0
    ni = (F.binary_cross_entropy_with_logits(logit[:, 1:], t[:, 1:], reduction="none") * m).sum()
    return nb, wgt.sum(), ni, m.sum()


def loss_of(logit, t, m):
    """The boundary loss plus INSIDE_WEIGHT times the inside loss, each a weighted mean."""
    nb, db, ni, di = loss_terms(logit, t, m)
    return nb / db + INSIDE_WEIGHT * ni / di


def val_loss(net, xs, ts):
    """The same loss over whole working images (sums pooled over the images)."""
    net.eval()
    nb = db = ni = di = 0.0
    with torch.no_grad():
        for x, t in zip(xs, ts):
            xx = (torch.from_numpy(np.ascontiguousarray(x)).float()[None] - 128) / 64
            tt = torch.from_numpy(np.ascontiguousarray(t))[None]
            logit = net(xx)[:, :, : tt.shape[2], : tt.shape[3]]
            terms = loss_terms(logit, tt, torch.ones_like(tt[:, :1]))
            nb, db, ni, di = nb + float(terms[0]), db + float(terms[1]), ni + float(terms[2]), di + float(terms[3])
    net.train()
    if dist.is_initialized():  # each process scored its share of the images: pool the sums
        sums = torch.tensor([nb, db, ni, di], dtype=torch.float64)
        dist.all_reduce(sums)
        nb, db, ni, di = (float(v) for v in sums)
    return nb / max(db, 1e-9) + INSIDE_WEIGHT * ni / max(di, 1e-9)


def agreed(flag):
    """A stop decision all processes share (any process's clock past a bound stops them all)."""
    if not dist.is_initialized():
        return flag
    t = torch.tensor([1.0 if flag else 0.0])
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item() > 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--steps", type=int, default=25, help="batches per epoch")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1, help="1: a small net gains nothing from a second (shared) core")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--init", help="checkpoint to continue from")
    ap.add_argument("--extra", action="append", default=[],
                    help="another training-package data dir (e.g. generate.py --hard output), sampled as often as its share of the images")
    ap.add_argument("--val", action="append", default=[],
                    help="validation split (training packages, other seeds, --targets); several are pooled")
    ap.add_argument("--max-lr", type=float, default=3e-3)
    ap.add_argument("--max-minutes", type=float, default=0, help="stop after this many minutes (0: no bound)")
    ap.add_argument("--until", type=float, default=0, help="stop after the epoch that ends past this time (Unix seconds; 0: no bound)")
    ap.add_argument("--outputs", type=int, default=NOUT, choices=(1, NOUT),
                    help="1: the boundary output alone (the first stages); %d: boundary and inside" % NOUT)
    ap.add_argument("--work", type=int, action="append", default=[],
                    help="working size the images are reduced to (default %d; several: the data at each, pooled)" % workgeom.WORK)
    ap.add_argument("--procs", type=int, default=1,
                    help="processes (one thread each) sharing every batch: their gradients are averaged (gloo)")
    a = ap.parse_args()
    if a.procs < 1 or a.batch % a.procs:
        ap.error("--procs must divide --batch")
    if a.procs > 1:
        import tempfile
        import torch.multiprocessing as mp
        with tempfile.TemporaryDirectory(prefix="ic-train-") as tmp:  # file:// rendezvous: no port to collide
            a.rendezvous = os.path.join(tmp, "rendezvous")
            mp.spawn(run, args=(a,), nprocs=a.procs, join=True)
    else:
        run(0, a)


def run(rank, a):
    """Trains as process `rank` of a.procs (0 alone writes the checkpoints and the log)."""
    if a.procs > 1:
        dist.init_process_group("gloo", init_method="file://" + a.rendezvous, rank=rank, world_size=a.procs)
    lead = rank == 0
    say = print if lead else (lambda *args, **kw: None)  # one log, process 0's
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    torch.set_flush_denormal(True)
    rng = np.random.default_rng(a.seed if rank == 0 else [a.seed, rank])  # each process its own crops
    t0 = time.time()
    works = a.work or [workgeom.WORK]
    xs, ts, hx = [], [], None
    for w in works:  # each working size is a copy of the data at its scale
        for d in [a.data] + a.extra:  # the checkpoint's data hash covers every directory, in order
            ex, et, eh = load(d, w)
            xs, ts = xs + ex, ts + et
            if w == works[0]:
                hx = eh if hx is None else hashlib.sha256((hx + eh).encode()).hexdigest()
    say("data: %d images, sha256 %s, %.0f s" % (len(xs), hx, time.time() - t0), flush=True)
    net = BoundaryNet(a.outputs)
    init_epochs = 0
    if a.init:
        ck = torch.load(a.init)
        net.load_state_dict(widen_head(ck["state"], net), strict=True)
        init_epochs = ck.get("epochs", 0)
        say("from %s (%d epochs)" % (a.init, init_epochs), flush=True)
    vx = vt = None
    best = float("inf")
    if a.val:
        vx, vt = [], []
        for w in works:
            for d in a.val:
                x, t, _ = load(d, w)
                vx, vt = vx + x, vt + t
        vx, vt = vx[rank::a.procs], vt[rank::a.procs]  # each process scores its share
        best = val_loss(net, vx, vt)
        say("validation: %d images a process, loss %.4f before" % (len(vx), best), flush=True)
    model = net
    if a.procs > 1:
        model = torch.nn.parallel.DistributedDataParallel(net)
    opt = torch.optim.Adam(net.parameters(), lr=a.max_lr, weight_decay=1e-5)
    total = a.epochs * a.steps
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.max_lr, total_steps=total, pct_start=0.1)
    step = 0
    if a.init and a.val and lead:  # the starting point is a candidate too
        torch.save({"state": net.state_dict(), "data_hash": hx, "epochs": init_epochs, "seed": a.seed, "val_loss": best,
                    "work": works}, a.out)
    epochs = a.epochs
    if agreed(a.until and time.time() > a.until) and a.init and a.val:  # past the deadline: the --init checkpoint (saved above) stands
        say("skipped: past --until", flush=True)
        epochs = 0
    for ep in range(epochs):
        net.train()
        running = 0.0
        for _ in range(a.steps):
            X, T, M = batch(rng, xs, ts, a.batch // a.procs)
            x = (torch.from_numpy(X).float() - 128) / 64
            t, m = torch.from_numpy(T), torch.from_numpy(M)
            loss = loss_of(model(x), t, m)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            running += loss.item()
        line = "epoch %d/%d loss %.4f" % (ep + 1, a.epochs, running / a.steps)
        ck = {"state": net.state_dict(), "data_hash": hx, "epochs": init_epochs + ep + 1, "seed": a.seed, "outputs": a.outputs,
              "work": works}
        if vx is not None:
            v = val_loss(net, vx, vt)
            line += " validation %.4f" % v
            if v < best:
                best = v
                ck["val_loss"] = v
                if lead:
                    torch.save(ck, a.out)
                line += " (kept)"
        elif lead:
            torch.save(ck, a.out)
        if lead:
            torch.save(ck, a.out + ".last")  # the latest epoch too, for a choice by detect-eval on validation
        say(line + " (%.0f s)" % (time.time() - t0), flush=True)
        if agreed(a.max_minutes and time.time() - t0 > 60 * a.max_minutes):
            say("stopped: --max-minutes %.0f" % a.max_minutes, flush=True)
            break
        if agreed(a.until and time.time() > a.until):
            say("stopped: past --until", flush=True)
            break
    say("done in %.0f s" % (time.time() - t0))
    if dist.is_initialized():
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
