#!/usr/bin/env python3
"""Seeded, reproducible document photos for training and evaluating page detection.

    generate.py SPLIT OUT_DIR --count N [--empty M] [--long-side L] [--start S] [--jobs J]

Each image is drawn from its own generator seeded by (split, index): the same arguments give
the same bytes on any machine with the same package versions, whatever --jobs is.

Splits are made by package, so that nothing of the held-out split is seen while designing or
tuning (see SPLITS and the README section "Page detection: data, model, figures"):
  train    backgrounds: mate-backgrounds (JPEG photographs), scikit-image's sample photos,
           desk textures rendered with seeds of the train split; fonts: fonts-dejavu-core,
           fonts-liberation2, fonts-freefont-ttf, fonts-open-sans.
  heldout  backgrounds: ukui-wallpapers (JPEG), the JPEG photographs of
           plasma-workspace-wallpapers, matplotlib's sample photos, desk textures rendered with
           held-out seeds; fonts: fonts-crosextra-carlito, fonts-crosextra-caladea, fonts-lato.
  proxy    backgrounds: lomiri-wallpapers-16.04 (JPEG photographs), a package in neither split
           above; the training fonts. Never trained on: while designing, it stands in for the
           held-out split's situation (photographs of a package never seen), which the
           validation split (training packages, other seeds) cannot.
  proxyfont  the proxy's photographs and seeds (the same scenes) with fonts in neither split:
           fonts-roboto-unhinted, fonts-go. Paired with proxy, it measures what fonts never
           seen cost (the held-out split's fonts are never seen either).

Every image: one page (text, form, receipt, card or photo page; white, cream or tinted paper,
sometimes creased) under a random homography (page height 15-95 % of the frame, rotation up to
+-45 degrees, strong perspective), sometimes cut by one frame edge, on a background, with a
contact shadow, a lighting gradient, a soft shadow, sometimes a hand over one side, defocus,
noise and JPEG quality 80-95; 4:3 and 16:9 frames, landscape and portrait. Images with index
>= N (the --empty ones) have no page.

Writes OUT_DIR/images/NNNNNN.jpg, OUT_DIR/labels.jsonl (one JSON object a line, in index
order) and, with --targets, OUT_DIR/targets/NNNNNN.npy (the boundary-map target of
workgeom.boundary_target, float16).
"""
import argparse
import glob
import io
import json
import math
import os
import re
import subprocess
import sys
from multiprocessing import Pool

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workgeom  # noqa: E402

KINDS = ["text", "form", "receipt", "card", "photo"]

TRAIN_FONTS = ["fonts-dejavu-core", "fonts-liberation2", "fonts-freefont-ttf", "fonts-open-sans"]
PROXY_PHOTOS = ["deb:lomiri-wallpapers-16.04"]
SPLITS = {
    "train": {
        "id": 1,
        "photos": ["deb:mate-backgrounds", "skimage"],
        "fonts": TRAIN_FONTS,
    },
    "heldout": {
        "id": 2,
        "photos": ["deb:ukui-wallpapers", "plasma", "matplotlib"],
        "fonts": ["fonts-crosextra-carlito", "fonts-crosextra-caladea", "fonts-lato"],
    },
    # neither trained on nor held out (README, "proxy")
    "proxy": {
        "id": 3,
        "photos": PROXY_PHOTOS,
        "fonts": TRAIN_FONTS,
    },
    # the proxy's scenes (same id, so the same seeds) with fonts in neither split
    "proxyfont": {
        "id": 3,
        "photos": PROXY_PHOTOS,
        "fonts": ["fonts-roboto-unhinted", "fonts-go"],
    },
}

# scikit-image sample photos shipped in its wheel (no download); page and text hold pages.
SKIMAGE = ["astronaut", "camera", "chelsea", "coffee", "rocket", "coins", "moon", "brick",
           "grass", "gravel", "hubble_deep_field", "immunohistochemistry"]
# matplotlib's sample photographs (mpl-data/sample_data).
MATPLOTLIB = ["grace_hopper.jpg", "Minduka_Present_Blue_Pack.png"]


_DEB = {}


def deb_files(package, exts):
    if package not in _DEB:
        _DEB[package] = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=True).stdout
    out = _DEB[package]
    return sorted(p for p in out.split("\n") if p.lower().endswith(exts) and os.path.isfile(p))


def photo_sources(split):
    """(name, loader) pairs of the split's background photographs, in a fixed order."""
    srcs = []
    for s in SPLITS[split]["photos"]:
        if s.startswith("deb:"):
            seen = set()
            for p in deb_files(s[4:], (".jpg", ".jpeg")):
                stem = re.sub(r"_\d+x\d+$", "", os.path.splitext(os.path.basename(p))[0])
                if stem not in seen:  # one of each picture (mate ships Elephants at 3 sizes)
                    seen.add(stem)
                    srcs.append((s[4:] + ":" + os.path.basename(p), p))
        elif s == "plasma":
            # the JPEGs are the photographs (the PNGs are rendered art); the largest of each
            for d in sorted(glob.glob("/usr/share/wallpapers/*/contents/images/")):
                jp = [p for p in deb_files("plasma-workspace-wallpapers", (".jpg",)) if p.startswith(d)]
                if jp:
                    big = max(jp, key=lambda p: int(os.path.basename(p).split("x")[0]))
                    srcs.append(("plasma-workspace-wallpapers:" + d.split("/")[4], big))
        elif s == "skimage":
            for n in SKIMAGE:
                srcs.append(("scikit-image:" + n, "skimage:" + n))
        elif s == "matplotlib":
            import matplotlib
            base = os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "sample_data")
            for n in MATPLOTLIB:
                srcs.append(("matplotlib:" + n, os.path.join(base, n)))
    return srcs


def font_files(split):
    out = []
    for pkg in SPLITS[split]["fonts"]:
        out += [(pkg, p) for p in deb_files(pkg, (".ttf",))]
    return out


_PHOTO_CACHE = {}


def load_photo(path):
    if path in _PHOTO_CACHE:
        return _PHOTO_CACHE[path]
    if path.startswith("skimage:"):
        import skimage.data
        a = getattr(skimage.data, path[8:])()
        if a.ndim == 2:
            a = np.stack([a] * 3, -1)
        a = a[..., :3]
        if a.dtype != np.uint8:
            a = (255 * (a.astype(np.float64) / max(1e-9, a.max()))).astype(np.uint8)
        im = Image.fromarray(a)
    else:
        im = Image.open(path).convert("RGB")
    # keep memory modest: at most 2000 px on the long side
    s = 2000 / max(im.size)
    if s < 1:
        im = im.resize((round(im.width * s), round(im.height * s)), Image.BOX)
    _PHOTO_CACHE[path] = im
    return im


# ---- small helpers ---------------------------------------------------------------------------

def smooth_noise(rng, h, w, scale):
    """Smooth random field in about [-1, 1] with features of `scale` px."""
    gh, gw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    im = Image.fromarray(g, mode="F").resize((w, h), Image.BICUBIC)
    return np.asarray(im, dtype=np.float32)


def homography(src, dst):
    A = []
    for (x, y), (u, v) in zip(src, dst):
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.array(A, dtype=np.float64))
    H = vt[-1].reshape(3, 3)
    return H / H[2, 2]


def pil_perspective(Hinv):
    Hn = Hinv / Hinv[2, 2]
    return tuple(Hn.reshape(-1)[:8])


WORDS_ALPHA = "etaoinshrdlcumwfgypbvkjxqz"
WORD_P = np.array([12.7, 9.1, 8.2, 7.5, 7.0, 6.7, 6.3, 6.1, 6.0, 4.3, 4.0, 2.8, 2.8, 2.4, 2.4, 2.2,
                   2.0, 2.0, 1.9, 1.5, 1.0, 0.8, 0.2, 0.2, 0.1, 0.1])
WORD_P = WORD_P / WORD_P.sum()


def words(rng, n):
    out = []
    for _ in range(n):
        L = int(rng.integers(1, 10))
        w = "".join(rng.choice(list(WORDS_ALPHA), L, p=WORD_P))
        if rng.random() < 0.1:
            w = w.capitalize()
        if rng.random() < 0.05:
            w = str(int(rng.integers(0, 10000)))
        out.append(w)
    return out


def font(rng, fonts, size):
    pkg, path = fonts[int(rng.integers(len(fonts)))]
    return ImageFont.truetype(path, max(4, int(size)))


def paper_color(rng, kind):
    r = rng.random()
    if kind == "card" and rng.random() < 0.25:  # coloured or dark cards
        return tuple(int(v) for v in rng.integers(20, 230, 3))
    if r < 0.55:
        base = rng.uniform(235, 255)
        return tuple(int(base - rng.uniform(0, 4)) for _ in range(3))
    if r < 0.8:  # cream
        base = rng.uniform(225, 250)
        return (int(base), int(base - rng.uniform(4, 12)), int(base - rng.uniform(15, 35)))
    c = np.array([rng.uniform(200, 250) for _ in range(3)])  # tinted
    c[int(rng.integers(3))] -= rng.uniform(10, 40)
    return tuple(int(v) for v in np.clip(c, 0, 255))


def ink(rng, paper):
    dark = sum(paper) / 3 < 110
    if dark:
        return tuple(int(v) for v in rng.integers(200, 256, 3))
    if rng.random() < 0.8:
        v = int(rng.integers(0, 70))
        return (v, v, v)
    return tuple(int(v) for v in rng.integers(0, 120, 3))


def text_block(draw, rng, fonts, x0, y0, x1, y1, size, color, line_gap=1.35, ragged=True):
    f = font(rng, fonts, size)
    y = y0
    while y + size <= y1:
        x = x0
        line = []
        for w in words(rng, 30):
            tw = draw.textlength(" ".join(line + [w]), font=f)
            if x0 + tw > x1:
                break
            line.append(w)
        if ragged and rng.random() < 0.15:
            line = line[: max(1, len(line) // 2)]
        draw.text((x, y), " ".join(line), fill=color, font=f)
        y += size * line_gap
        if rng.random() < 0.08:
            y += size * 1.2  # paragraph
    return y


# ---- pages -----------------------------------------------------------------------------------

def page_size(kind, rng):
    if kind in ("text", "form", "photo"):
        aspect = rng.choice([297 / 210, 11 / 8.5, 14 / 8.5, 210 / 148 * 1.0])
        return 1.0, float(aspect)  # width 1, height aspect (portrait)
    if kind == "receipt":
        return 1.0, float(rng.uniform(2.2, 4.5))
    return float(rng.uniform(1.55, 1.85)), 1.0  # card: landscape


def render_page(kind, rng, fonts, photos, pw, ph):
    paper = paper_color(rng, kind)
    im = Image.new("RGB", (pw, ph), paper)
    d = ImageDraw.Draw(im)
    col = ink(rng, paper)
    u = pw / 100.0
    if kind == "text":
        m = rng.uniform(4, 14) * u
        size = ph * rng.uniform(0.012, 0.03)
        y = m
        if rng.random() < 0.7:  # heading
            hs = size * rng.uniform(1.6, 2.6)
            f = font(rng, fonts, hs)
            d.text((m, y), " ".join(words(rng, int(rng.integers(1, 5)))), fill=col, font=f)
            y += hs * 2
        ncols = 2 if rng.random() < 0.25 else 1
        cw = (pw - 2 * m - (ncols - 1) * 3 * u) / ncols
        for c in range(ncols):
            x0 = m + c * (cw + 3 * u)
            text_block(d, rng, fonts, x0, y, x0 + cw, ph - m, size, col)
    elif kind == "form":
        m = rng.uniform(5, 10) * u
        size = ph * rng.uniform(0.012, 0.022)
        f = font(rng, fonts, size * 1.8)
        d.text((m, m), " ".join(words(rng, 3)), fill=col, font=f)
        y = m + size * 4
        lw = max(1, int(rng.uniform(0.15, 0.5) * u))
        while y < ph - m - 4 * size:
            rows = int(rng.integers(3, 12))
            cols = int(rng.integers(2, 6))
            rh = size * rng.uniform(1.6, 2.6)
            th = rows * rh
            if y + th > ph - m:
                break
            xs = np.sort(rng.uniform(m, pw - m, cols - 1))
            xs = [m] + list(xs) + [pw - m]
            for r in range(rows + 1):
                d.line([(m, y + r * rh), (pw - m, y + r * rh)], fill=col, width=lw)
            for x in xs:
                d.line([(x, y), (x, y + th)], fill=col, width=lw)
            fs = font(rng, fonts, size)
            for r in range(rows):
                for c in range(cols):
                    if rng.random() < 0.7:
                        d.text((xs[c] + size * 0.4, y + r * rh + (rh - size) / 2),
                               " ".join(words(rng, int(rng.integers(1, 3)))), fill=col, font=fs)
            y += th + size * rng.uniform(1.5, 4)
            if rng.random() < 0.5:
                y = text_block(d, rng, fonts, m, y, pw - m, min(ph - m, y + size * 6), size, col) + size
    elif kind == "receipt":
        m = rng.uniform(4, 10) * u
        size = pw * rng.uniform(0.035, 0.06)
        y = m
        f = font(rng, fonts, size)
        while y < ph - m - size:
            r = rng.random()
            if r < 0.12:
                d.line([(m, y + size / 2), (pw - m, y + size / 2)], fill=col, width=max(1, int(size / 10)))
            else:
                left = " ".join(words(rng, int(rng.integers(1, 4))))
                d.text((m, y), left, fill=col, font=f)
                if rng.random() < 0.7:
                    price = "%d.%02d" % (rng.integers(0, 200), rng.integers(0, 100))
                    tw = d.textlength(price, font=f)
                    d.text((pw - m - tw, y), price, fill=col, font=f)
            y += size * 1.3
    elif kind == "card":
        m = rng.uniform(6, 12) * u
        if rng.random() < 0.5:  # a logo block
            c2 = tuple(int(v) for v in rng.integers(0, 255, 3))
            s = ph * rng.uniform(0.15, 0.35)
            d.rectangle([m, m, m + s, m + s], fill=c2)
        size = ph * rng.uniform(0.06, 0.1)
        f = font(rng, fonts, size * 1.4)
        y = ph * rng.uniform(0.35, 0.5)
        d.text((m, y), " ".join(words(rng, 2)), fill=col, font=f)
        y += size * 2
        fs = font(rng, fonts, size * 0.8)
        for _ in range(int(rng.integers(2, 4))):
            d.text((m, y), " ".join(words(rng, int(rng.integers(2, 5)))), fill=col, font=fs)
            y += size * 1.2
    else:  # photo page: one or two pictures and text
        m = rng.uniform(5, 12) * u
        size = ph * rng.uniform(0.012, 0.025)
        y = m
        for _ in range(int(rng.integers(1, 3))):
            src = load_photo(photos[int(rng.integers(len(photos)))][1])
            bw = int(pw - 2 * m) if rng.random() < 0.6 else int((pw - 2 * m) * rng.uniform(0.4, 0.7))
            bh = int(bw * rng.uniform(0.5, 0.9))
            if y + bh > ph - m:
                break
            x0 = int(m if rng.random() < 0.6 else pw - m - bw)
            im.paste(src.resize((max(1, bw), max(1, bh)), Image.BILINEAR), (x0, int(y)))
            y += bh + size
            y = text_block(d, rng, fonts, m, y, pw - m, min(ph - m, y + size * rng.uniform(3, 12)), size, col) + size
        if y < ph - m:
            text_block(d, rng, fonts, m, y, pw - m, ph - m, size, col)
    a = np.asarray(im, dtype=np.float32)
    # paper texture and, sometimes, creases (a fold: a thin line with shading on one side)
    a *= 1 + 0.015 * smooth_noise(rng, ph, pw, max(4, pw / 20))[..., None]
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.35 else 0):
        vertical = rng.random() < 0.5
        pos = rng.uniform(0.25, 0.75) * (pw if vertical else ph)
        ang = rng.uniform(-0.05, 0.05)
        Y, X = np.mgrid[0:ph, 0:pw].astype(np.float32)
        dist = (X - pos - ang * Y) if vertical else (Y - pos - ang * X)
        width = max(1.0, 0.004 * max(pw, ph))
        line = np.exp(-(dist / width) ** 2)
        shade = 1 - rng.uniform(0.02, 0.08) * (dist > 0) * np.exp(-np.abs(dist) / (0.05 * max(pw, ph)))
        a *= (shade * (1 - rng.uniform(0.05, 0.2) * line))[..., None]
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


# ---- surfaces --------------------------------------------------------------------------------

def desk_texture(rng, W, H, kinds=("wood", "fabric", "keyboard", "plain")):
    kind = rng.choice(list(kinds))
    Y, X = np.mgrid[0:H, 0:W].astype(np.float32)
    if kind in ("checker", "grid"):
        # Hard negatives: many straight edges meeting at right angles, none of them a page's.
        # A checkerboard (or tiles) and graph/ruled paper filling the frame, turned, in mild
        # perspective (a scale that changes across the frame).
        ang = rng.uniform(0, math.pi)
        cell = rng.uniform(12, 110) * max(W, H) / 1600
        persp = 1 + rng.uniform(-0.5, 0.5) * (Y / H - 0.5)
        u = (X * math.cos(ang) + Y * math.sin(ang)) * persp + rng.uniform(0, cell)
        v = (-X * math.sin(ang) + Y * math.cos(ang)) * persp + rng.uniform(0, cell)
        c1 = rng.uniform(0, 255, 3).astype(np.float32)
        c2 = rng.uniform(0, 255, 3).astype(np.float32)
        if kind == "checker":
            m = (((u // cell) + (v // cell)) % 2).astype(np.float32)
        else:
            lw = max(1.0, cell * rng.uniform(0.03, 0.12))
            ruled = rng.random() < 0.4  # ruled paper: one direction only
            m = ((u % cell) < lw).astype(np.float32)
            if not ruled:
                m = np.maximum(m, ((v % cell) < lw).astype(np.float32))
            c1 = rng.uniform(200, 255, 3).astype(np.float32)
            c2 = rng.uniform(0, 160, 3).astype(np.float32)
        a = c1 * (1 - m[..., None]) + c2 * m[..., None]
        a *= 1 + 0.04 * smooth_noise(rng, H, W, 2)[..., None]
        return np.clip(a, 0, 255)
    if kind == "contours":
        # Strong object contours that are not pages: discs, ellipses, polygons of 3, 5-8
        # sides and long straight edges (a table or shelf edge) on a plain or textured ground.
        a = desk_texture(rng, W, H, ("wood", "fabric", "plain"))
        im = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        d = ImageDraw.Draw(im)
        for _ in range(int(rng.integers(2, 9))):
            col = tuple(int(v) for v in rng.integers(0, 256, 3))
            cx, cy = rng.uniform(0, W), rng.uniform(0, H)
            r = rng.uniform(0.05, 0.35) * min(W, H)
            t = rng.random()
            if t < 0.35:
                d.ellipse([cx - r, cy - r * rng.uniform(0.4, 1), cx + r, cy + r * rng.uniform(0.4, 1)], fill=col)
            elif t < 0.8:
                n = int(rng.choice([3, 5, 6, 7, 8]))
                a0 = rng.uniform(0, 2 * math.pi)
                pts = [(cx + r * rng.uniform(0.7, 1) * math.cos(a0 + 2 * math.pi * i / n),
                        cy + r * rng.uniform(0.7, 1) * math.sin(a0 + 2 * math.pi * i / n)) for i in range(n)]
                d.polygon(pts, fill=col)
            else:  # a straight edge across the frame: everything beyond it in another tone
                ang = rng.uniform(0, math.pi)
                dx, dy = math.cos(ang) * 4 * max(W, H), math.sin(ang) * 4 * max(W, H)
                nx, ny = -math.sin(ang), math.cos(ang)
                d.polygon([(cx - dx, cy - dy), (cx + dx, cy + dy), (cx + dx + nx * 3 * max(W, H), cy + dy + ny * 3 * max(W, H)),
                           (cx - dx + nx * 3 * max(W, H), cy - dy + ny * 3 * max(W, H))], fill=col)
        return np.asarray(im, dtype=np.float32).copy()
    if kind == "wood":
        ang = rng.uniform(0, math.pi)
        u = X * math.cos(ang) + Y * math.sin(ang)
        warp = smooth_noise(rng, H, W, W / 6) * rng.uniform(5, 30)
        f = rng.uniform(0.02, 0.12) * 1600 / max(W, H)
        rings = 0.5 + 0.5 * np.sin((u + warp) * f)
        base = np.array([rng.uniform(90, 200), rng.uniform(50, 140), rng.uniform(20, 90)], np.float32)
        a = base * (0.75 + 0.35 * rings[..., None]) * (1 + 0.06 * smooth_noise(rng, H, W, 3)[..., None])
    elif kind == "fabric":
        p = rng.uniform(3, 9) * max(W, H) / 1600
        weave = np.sin(X / p * math.pi) * np.sin(Y / p * math.pi)
        base = rng.uniform(30, 220, 3).astype(np.float32)
        a = base * (0.85 + 0.15 * weave[..., None])
        if rng.random() < 0.5:  # plaid
            s = rng.uniform(30, 120) * max(W, H) / 1600
            band = ((X // s) % 2 + (Y // s) % 2) / 2
            a *= (0.8 + 0.3 * band)[..., None]
        a *= 1 + 0.05 * smooth_noise(rng, H, W, 2)[..., None]
    elif kind == "keyboard":
        key = rng.uniform(40, 90) * max(W, H) / 1600
        gap = key * rng.uniform(0.1, 0.25)
        ang = rng.uniform(-0.4, 0.4)
        u = X * math.cos(ang) + Y * math.sin(ang)
        v = -X * math.sin(ang) + Y * math.cos(ang)
        inkey = ((u % key) > gap) & ((v % key) > gap)
        dark = rng.random() < 0.6
        kc, bc = (rng.uniform(20, 60), rng.uniform(5, 30)) if dark else (rng.uniform(180, 235), rng.uniform(120, 180))
        a = np.where(inkey, kc, bc).astype(np.float32)[..., None] * np.ones(3, np.float32)
        a *= 1 + 0.04 * smooth_noise(rng, H, W, 2)[..., None]
    else:
        base = rng.uniform(40, 235, 3).astype(np.float32)
        a = base * (1 + 0.08 * smooth_noise(rng, H, W, max(W, H) / 4)[..., None])
        a *= 1 + 0.03 * smooth_noise(rng, H, W, 2)[..., None]
    return np.clip(a, 0, 255)


def background(rng, photos, W, H, texture_p=0.3, kinds=("wood", "fabric", "keyboard", "plain")):
    if rng.random() < texture_p:
        return desk_texture(rng, W, H, kinds), "texture"
    name, path = photos[int(rng.integers(len(photos)))]
    src = load_photo(path)
    if rng.random() < 0.5:
        src = src.transpose(Image.FLIP_LEFT_RIGHT)
    s = max(W / src.width, H / src.height) * rng.uniform(1.0, 2.0)
    cw, ch = W / s, H / s
    x0 = rng.uniform(0, src.width - cw)
    y0 = rng.uniform(0, src.height - ch)
    im = src.resize((W, H), Image.BILINEAR, box=(x0, y0, x0 + cw, y0 + ch))
    return np.asarray(im, dtype=np.float32).copy(), name


# ---- placement -------------------------------------------------------------------------------

def place(rng, W, H, aspect_wh, cut, frac_range=(0.15, 0.95)):
    """Four frame corners (clockwise from the page's own top-left) of a page of width/height
    ratio aspect_wh; page height 15-95 % of the frame height; rotation +-45 degrees; strong
    perspective. cut: None, or 0..3 = the frame edge (top, right, bottom, left) that cuts off
    two adjacent corners. Returns None when the draw fails the limits (the caller redraws)."""
    frac = rng.uniform(*frac_range)
    rot = math.radians(rng.uniform(-45, 45))
    ph = frac * H
    pw = ph * aspect_wh
    c = np.array([[-pw / 2, -ph / 2], [pw / 2, -ph / 2], [pw / 2, ph / 2], [-pw / 2, ph / 2]])
    R = np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
    c = c @ R.T
    # perspective: a tilt towards a random direction, plus corner jitter
    tilt = rng.uniform(0, 0.35)
    tdir = rng.uniform(0, 2 * math.pi)
    tv = np.array([math.cos(tdir), math.sin(tdir)])
    size = max(pw, ph)
    for i in range(4):
        along = c[i] @ tv / size
        c[i] *= 1 + tilt * along
        c[i] += rng.normal(0, 0.03, 2) * size
    # rescale so the bounding-box height is frac of the frame height
    bh = c[:, 1].max() - c[:, 1].min()
    c *= frac * H / bh
    bw = c[:, 0].max() - c[:, 0].min()
    if bw > W * (1.15 if cut is not None else 0.98):
        return None
    lo = -c.min(axis=0)
    hi = np.array([W, H]) - c.max(axis=0)
    if cut is None:
        if np.any(hi < lo):
            return None
        centre = rng.uniform(lo, hi)
    else:
        centre = rng.uniform(np.minimum(lo, hi), np.maximum(lo, hi))
        # push across the cutting edge so that exactly two adjacent corners fall outside
        ext = [c[:, 1].min(), c[:, 0].max(), c[:, 1].max(), c[:, 0].min()][cut]
        depth = rng.uniform(0.1, 0.4) * (bh if cut in (0, 2) else bw)
        if cut == 0: centre[1] = -ext - depth
        if cut == 1: centre[0] = W - ext + depth
        if cut == 2: centre[1] = H - ext + depth
        if cut == 3: centre[0] = -ext - depth
    q = c + centre
    # convex, not too thin
    def cross(u, v):
        return u[0] * v[1] - u[1] * v[0]
    cr = [cross(q[(i + 1) % 4] - q[i], q[(i + 2) % 4] - q[(i + 1) % 4]) for i in range(4)]
    if not (all(v > 0 for v in cr) or all(v < 0 for v in cr)):
        return None
    return q


def clip_to_frame(q, W, H, cut):
    """The visible quad of a page cut by frame edge `cut`, or None when the cut is not of two
    adjacent corners beyond that one edge (with the other two inside)."""
    out = [q[:, 1] < 0, q[:, 0] > W, q[:, 1] > H, q[:, 0] < 0]
    o = out[cut]
    inside = (q[:, 0] >= 0) & (q[:, 0] <= W) & (q[:, 1] >= 0) & (q[:, 1] <= H)
    if o.sum() != 2 or inside.sum() != 2:
        return None
    idx = [i for i in range(4) if o[i]]
    if not ((idx[1] - idx[0]) in (1, 3)):
        return None
    # walk the polygon replacing each outside corner by its side's crossing with the edge
    res = []
    for i in range(4):
        if not o[i]:
            res.append(q[i])
            continue
        prev_in = not o[(i - 1) % 4]
        nb = q[(i - 1) % 4] if prev_in else q[(i + 1) % 4]
        a, b = nb, q[i]
        if cut in (0, 2):
            yy = 0.0 if cut == 0 else float(H)
            t = (yy - a[1]) / (b[1] - a[1])
        else:
            xx = float(W) if cut == 1 else 0.0
            t = (xx - a[0]) / (b[0] - a[0])
        p = a + t * (b - a)
        if not (-1e-6 <= p[0] <= W + 1e-6 and -1e-6 <= p[1] <= H + 1e-6):
            return None
        res.append(p)
    return np.array(res)


def order_corners(q):
    """Clockwise from the corner with the smallest x + y (ImageCore's ic_quad_order)."""
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(q[:, 0] + q[:, 1]))
    return np.roll(q, -start, axis=0)


# ---- the scene -------------------------------------------------------------------------------

def blur(a, sigma):
    if sigma <= 0.3:
        return a
    im = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    return np.asarray(im.filter(ImageFilter.GaussianBlur(sigma)), dtype=np.float32)


def blurred_mask(mask_img, radius):
    return np.asarray(mask_img.filter(ImageFilter.GaussianBlur(max(0.5, radius))), dtype=np.float32) / 255


def hand(rng, W, H, q):
    """A hand-like blob over the middle of one side: a palm outside, fingers across the edge."""
    i = int(rng.integers(4))
    a, b = q[i], q[(i + 1) % 4]
    t = rng.uniform(0.3, 0.7)
    p = a + t * (b - a)
    side = b - a
    L = np.linalg.norm(side)
    n = np.array([side[1], -side[0]]) / max(L, 1e-9)
    cen = q.mean(axis=0)
    if (cen - p) @ n > 0:
        n = -n  # n points away from the page
    s = L * rng.uniform(0.12, 0.25)
    m = Image.new("L", (W, H), 0)
    d = ImageDraw.Draw(m)
    palm = p + n * s * 0.9
    d.ellipse([palm[0] - s, palm[1] - s, palm[0] + s, palm[1] + s], fill=255)
    tang = side / max(L, 1e-9)
    for f in range(4):
        base = palm + tang * s * (f - 1.5) * 0.45
        tip = base - n * s * rng.uniform(1.4, 2.0)
        w = s * 0.2
        for k in range(8):
            c = base + (tip - base) * k / 7
            d.ellipse([c[0] - w, c[1] - w, c[0] + w, c[1] + w], fill=255)
    tone = np.array([rng.uniform(150, 235), rng.uniform(100, 180), rng.uniform(70, 150)], np.float32)
    return m, tone


# --hard: the failure kinds seen on the training and validation splits, drawn more often.
SCENARIOS = ["big", "lowcontrast", "smallcard", "fullbleed"]


def full_bleed_page(rng, fonts, photos, pw, ph):
    """A page printed to its edges (a magazine page, a photo print): a crop of one of the
    split's photographs, sometimes with a band of text, no paper margin to separate it."""
    src = load_photo(photos[int(rng.integers(len(photos)))][1])
    asp = pw / ph
    cw = min(src.width, src.height * asp) * rng.uniform(0.5, 1.0)
    ch = cw / asp
    x0, y0 = rng.uniform(0, src.width - cw), rng.uniform(0, src.height - ch)
    im = src.resize((pw, ph), Image.BILINEAR, box=(x0, y0, x0 + cw, y0 + ch))
    if rng.random() < 0.5:
        d = ImageDraw.Draw(im)
        size = ph * rng.uniform(0.015, 0.03)
        y0 = ph * rng.uniform(0.5, 0.8)
        band = paper_color(rng, "text")
        d.rectangle([0, y0, pw, min(ph, y0 + size * 8)], fill=band)
        text_block(d, rng, fonts, size, y0 + size, pw - size, min(ph, y0 + size * 7), size, ink(rng, band))
    return im


def make_image(split, index, n_pages, long_side, want_target, hard=False):
    sp = SPLITS[split]
    # hard images are drawn from their own seeds (an extra seed word): never the same scenes
    rng = np.random.default_rng([sp["id"], index, 20261123] + ([14] if hard else []))
    photos = photo_sources(split)
    fonts = font_files(split)
    aspect = rng.choice([4 / 3, 16 / 9])
    L = int(long_side if long_side else rng.integers(640, 1025))
    if rng.random() < 0.35:  # portrait frame
        W, H = int(round(L / aspect)), L
    else:
        W, H = L, int(round(L / aspect))
    has_page = index < n_pages
    scen = (SCENARIOS[int(rng.integers(len(SCENARIOS)))] if has_page else "negative") if hard else None
    if scen == "smallcard":  # small cards on grid, keyboard and other busy surfaces
        a, bgname = background(rng, photos, W, H, 0.75, ("keyboard", "checker", "grid", "fabric", "contours"))
    elif scen == "negative":  # page-less: textures of straight edges and strong contours
        a, bgname = background(rng, photos, W, H, 0.75, ("checker", "grid", "keyboard", "contours"))
    else:
        a, bgname = background(rng, photos, W, H)
    label = {"index": index, "file": "images/%06d.jpg" % index, "width": W, "height": H,
             "background": bgname, "page": bool(has_page)}
    visible = np.ones((H, W), bool)
    segments = []
    if scen is not None:
        label["scenario"] = scen
    frac_range = {"big": (0.55, 0.95), "smallcard": (0.12, 0.3)}.get(scen, (0.15, 0.95))
    if has_page:
        kind = KINDS[int(rng.integers(len(KINDS)))]
        if scen == "smallcard":
            kind = "card"
        elif scen == "fullbleed":
            kind = "photo"
        cut = int(rng.integers(4)) if rng.random() < (0.45 if scen == "big" else 0.12) else None
        pw_, ph_ = page_size(kind, rng)
        q, vis_q = None, None
        for _ in range(200):
            q = place(rng, W, H, pw_ / ph_, cut, frac_range)
            if q is None:
                continue
            if cut is None:
                vis_q = q
                break
            vis_q = clip_to_frame(q, W, H, cut)
            if vis_q is not None:
                break
        if vis_q is None:  # give up on the cut, place it inside
            cut = None
            while True:
                q = place(rng, W, H, pw_ / ph_, None)
                if q is not None:
                    vis_q = q
                    break
        proj_h = max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1]))
        proj_w = max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[3]))
        s = min(1.0, 1400 / max(proj_h, proj_w)) * rng.uniform(0.9, 1.3)
        pw, ph = max(8, int(proj_w * s)), max(8, int(proj_h * s))
        if scen == "fullbleed":
            page = full_bleed_page(rng, fonts, photos, pw, ph)
        else:
            page = render_page(kind, rng, fonts, photos, pw, ph)
        Hm = homography([(0, 0), (pw, 0), (pw, ph), (0, ph)], q)
        coeffs = pil_perspective(np.linalg.inv(Hm))
        warped = page.transform((W, H), Image.PERSPECTIVE, coeffs, Image.BICUBIC)
        mask = Image.new("L", (pw, ph), 255).transform((W, H), Image.PERSPECTIVE, coeffs, Image.BILINEAR)
        # contact shadow
        sh = blurred_mask(mask, rng.uniform(1, 8) * W / 1600)
        off = rng.normal(0, 3, 2) * W / 1600
        sh = np.roll(sh, (int(off[1]), int(off[0])), (0, 1))
        a *= (1 - rng.uniform(0.1, 0.45) * sh)[..., None]
        m = np.asarray(mask, dtype=np.float32)[..., None] / 255
        wp = np.asarray(warped, dtype=np.float32)
        if scen == "lowcontrast":  # the page only a little lighter or darker than what is under it
            inside = m[..., 0] > 0.5
            gain = a[inside].mean() / max(1.0, wp[inside].mean())
            wp = wp * gain * (rng.uniform(1.06, 1.3) if rng.random() < 0.7 else rng.uniform(0.75, 0.94))
        a = a * (1 - m) + wp * m
        vq = order_corners(vis_q)
        label.update({"kind": kind, "corners": [[float(x), float(y)] for x, y in vq],
                      "cut": ["top", "right", "bottom", "left"][cut] if cut is not None else None,
                      "height_frac": float((vq[:, 1].max() - vq[:, 1].min()) / H)})
        # boundary segments: the visible quad's sides, less the one on the frame edge
        segments = workgeom.page_segments(vq, W, H)
        if rng.random() < 0.15:
            hm, tone = hand(rng, W, H, q)
            hmf = blurred_mask(hm, 1.5 * W / 1600)
            shade = 1 + 0.15 * smooth_noise(rng, H, W, W / 10)
            a = a * (1 - hmf[..., None]) + (tone * shade[..., None]) * hmf[..., None]
            visible = hmf < 0.5
            label["occluded"] = True
    elif rng.random() < 0.15:  # a hand in a page-less scene too
        q = np.array([[W * 0.3, H * 0.3], [W * 0.7, H * 0.3], [W * 0.7, H * 0.7], [W * 0.3, H * 0.7]])
        hm, tone = hand(rng, W, H, q)
        hmf = blurred_mask(hm, 1.5 * W / 1600)
        a = a * (1 - hmf[..., None]) + tone * hmf[..., None]
    # light: a gradient and a soft shadow edge
    Y, X = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    g = (X * math.cos(ang) + Y * math.sin(ang)) / max(W, H)
    g = (g - g.min()) / max(1e-6, g.max() - g.min())
    lo = rng.uniform(0.35, 0.7) if scen in ("lowcontrast", "fullbleed") else rng.uniform(0.5, 0.95)
    a *= (lo + (1.15 - lo) * g)[..., None]
    if rng.random() < (0.8 if scen in ("lowcontrast", "fullbleed") else 0.5):
        ang = rng.uniform(0, 2 * math.pi)
        d = (X - W * rng.uniform(0.2, 0.8)) * math.cos(ang) + (Y - H * rng.uniform(0.2, 0.8)) * math.sin(ang)
        soft = rng.uniform(10, 120) * W / 1600
        with np.errstate(over="ignore"):  # exp overflows to inf far on the lit side: 1 / inf = 0
            a *= (1 - rng.uniform(0.2, 0.5) / (1 + np.exp(-d / soft)))[..., None]
    a = blur(a, rng.uniform(0, 2.5) ** 1.5 * W / 1600 if rng.random() < 0.6 else 0)
    a += rng.normal(0, rng.uniform(1, 6), a.shape).astype(np.float32)
    img = Image.fromarray(np.clip(a + 0.5, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=int(rng.integers(80, 96)))
    target = None
    if want_target:
        target = workgeom.boundary_target(W, H, segments, visible if label.get("occluded") else None)
    return buf.getvalue(), label, target


def work(args):
    """One image; its label is also kept in labels/NNNNNN.json so that an interrupted run
    resumes where it stopped (the images are the same whenever they are made)."""
    split, index, n_pages, long_side, out, want_target, hard = args
    done = os.path.join(out, "labels", "%07d.json" % index)
    if os.path.exists(done):
        with open(done) as f:
            return json.load(f)
    data, label, target = make_image(split, index, n_pages, long_side, want_target, hard)
    with open(os.path.join(out, label["file"]), "wb") as f:
        f.write(data)
    if target is not None:
        np.save(os.path.join(out, "targets", "%06d.npy" % index), target.astype(np.float16))
    label.pop("quality", None)
    with open(done + ".tmp", "w") as f:
        json.dump(label, f, sort_keys=True)
    os.replace(done + ".tmp", done)
    return label


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("split", choices=sorted(SPLITS))
    ap.add_argument("out")
    ap.add_argument("--count", type=int, required=True, help="images with a page")
    ap.add_argument("--empty", type=int, default=0, help="images without a page (indices after the pages)")
    ap.add_argument("--long-side", type=int, default=0, help="frame long side (0: 640..1024 at random)")
    ap.add_argument("--start", type=int, default=0, help="first index of the pages and of the empty images")
    ap.add_argument("--targets", action="store_true", help="also write the boundary-map targets")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--hard", action="store_true",
                    help="the hard scenarios (SCENARIOS; page-less: checkerboards, grids, contours), own seeds")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "images"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "labels"), exist_ok=True)
    if a.targets:
        os.makedirs(os.path.join(a.out, "targets"), exist_ok=True)
    # Index space: pages are indices [0, 10^6), empty scenes [10^6, ...) so that --count and
    # --empty can grow without changing the images already drawn.
    idx = list(range(a.start, a.start + a.count)) + list(range(10**6 + a.start, 10**6 + a.start + a.empty))
    jobs = [(a.split, i, 10**6, a.long_side, a.out, a.targets, a.hard) for i in idx]
    if a.jobs > 1:
        with Pool(a.jobs) as p:
            labels = p.map(work, jobs, chunksize=4)
    else:
        labels = [work(j) for j in jobs]
    with open(os.path.join(a.out, "labels.jsonl"), "w") as f:
        for l in labels:
            f.write(json.dumps(l, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
