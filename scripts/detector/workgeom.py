"""The working image and boundary-map geometry shared by the generator, the trainer and the
C core (detect_map.c implements the same arithmetic; keep them in step).

A source of W x H pixels is reduced by an integer box of k x k pixels, k = ceil(max(W, H) /
WORK) for the training data (the stored targets were drawn so), to w = W // k by h = H // k
working pixels. The C core chooses k = max(W, H) / work rounded to the nearest integer (the
working size nearest to its work size, chosen on validation: a 360 px photo is then reduced to
360 px, not 180); the reduction and the cells are the same for any k. Training the last
stage with the C core's rounded k instead lost pages at every photo size (README, "Page
detection"). The last W % k columns
and H % k rows are not read. Each working pixel is the rounded mean of its box in R, G and B, then converted to
Y, Cb, Cr with the integer JPEG (full-range BT.601) weights below; a gray source gives Y and
neutral chroma (128). The network reads (v - 128) / 64 per channel.

The boundary map has ceil(w / 2) x ceil(h / 2) cells (the first convolution has stride 2);
cell (i, j) is centred on working pixel (2i, 2j), that is at source point
((2i + 0.5) k, (2j + 0.5) k) in continuous coordinates (pixel edges at integers).
"""
import numpy as np

WORK = 192  # the stored targets' working size (generate.py); the C detector's default is IC_DETECT_DEFAULT_WORK_SIZE


def work_size(width: int, height: int, work: int = WORK):
    """(k, w, h) for a width x height source at working size `work`."""
    k = max(1, -(-max(width, height) // work))
    return k, max(1, width // k), max(1, height // k)


def map_size(w: int, h: int):
    return (w + 1) // 2, (h + 1) // 2


def reduce_rgb(rgb: np.ndarray, work: int = WORK) -> np.ndarray:
    """H x W x 3 uint8 (or H x W gray) -> 3 x h x w uint8 Y, Cb, Cr, as detect_map.c."""
    H, W = rgb.shape[:2]
    k, w, h = work_size(W, H, work)
    a = rgb[: h * k, : w * k].astype(np.int64)
    n = k * k
    if a.ndim == 2:
        y = (a.reshape(h, k, w, k).sum(axis=(1, 3)) + n // 2) // n
        out = np.empty((3, h, w), np.uint8)
        out[0] = y
        out[1:] = 128
        return out
    s = (a.reshape(h, k, w, k, 3).sum(axis=(1, 3)) + n // 2) // n
    r, g, b = s[..., 0], s[..., 1], s[..., 2]
    y = (77 * r + 150 * g + 29 * b + 128) >> 8
    cb = ((-43 * r - 85 * g + 128 * b + 128) >> 8) + 128
    cr = ((128 * r - 107 * g - 21 * b + 128) >> 8) + 128
    return np.clip(np.stack([y, cb, cr]), 0, 255).astype(np.uint8)


def boundary_target(width, height, segments, visible=None, work=WORK):
    """The training target at map resolution: for each map cell, exp(-d^2 / 2 sigma^2) of its
    distance d (in map cells) to the nearest page-side segment ((x0, y0, x1, y1) in source
    coordinates), sigma = 0.6 cells; `visible` (H x W bool, source res) zeroes occluded cells."""
    k, w, h = work_size(width, height, work)
    mw, mh = map_size(w, h)
    xs = (2 * np.arange(mw) + 0.5) * k
    ys = (2 * np.arange(mh) + 0.5) * k
    X, Y = np.meshgrid(xs, ys)
    best = np.full(X.shape, np.inf)
    for x0, y0, x1, y1 in segments:
        dx, dy = x1 - x0, y1 - y0
        L2 = dx * dx + dy * dy
        if L2 <= 0:
            continue
        t = np.clip(((X - x0) * dx + (Y - y0) * dy) / L2, 0, 1)
        d = np.hypot(X - (x0 + t * dx), Y - (y0 + t * dy))
        best = np.minimum(best, d)
    d = best / (2 * k)
    tgt = np.exp(-(d * d) / (2 * 0.6 * 0.6))
    tgt[d > 2.5] = 0
    if visible is not None:
        vi = np.clip(ys.astype(int), 0, height - 1)
        vj = np.clip(xs.astype(int), 0, width - 1)
        tgt *= visible[np.ix_(vi, vj)]
    return tgt.astype(np.float32)


def inside_target(width, height, corners, work=WORK):
    """The second training target at map resolution: 1 for map cells whose centre lies inside
    the page quad `corners` (4 (x, y) in source coordinates, in order around it), else 0;
    all 0 for a photo without a page (corners None)."""
    k, w, h = work_size(width, height, work)
    mw, mh = map_size(w, h)
    out = np.zeros((mh, mw), np.float32)
    if not corners:
        return out
    X, Y = np.meshgrid((2 * np.arange(mw) + 0.5) * k, (2 * np.arange(mh) + 0.5) * k)
    c = np.asarray(corners, np.float64)
    sides = []
    for i in range(4):
        (x0, y0), (x1, y1) = c[i], c[(i + 1) % 4]
        sides.append((x1 - x0) * (Y - y0) - (y1 - y0) * (X - x0))
    s = np.stack(sides)
    inside = np.all(s >= 0, axis=0) | np.all(s <= 0, axis=0)
    out[inside] = 1
    return out


def page_segments(corners, width, height):
    """The visible quad's sides (corners as in a label, in order around it) that are not on
    the frame edge: the page boundary the targets draw (a side on the frame edge is the
    frame's, not the page's)."""
    segs = []
    W, H = width, height
    for i in range(4):
        (x0, y0), (x1, y1) = corners[i], corners[(i + 1) % 4]
        on_edge = (abs(y0) < 1e-3 and abs(y1) < 1e-3) or (abs(y0 - H) < 1e-3 and abs(y1 - H) < 1e-3) \
            or (abs(x0) < 1e-3 and abs(x1) < 1e-3) or (abs(x0 - W) < 1e-3 and abs(x1 - W) < 1e-3)
        if not on_edge:
            segs.append((x0, y0, x1, y1))
    return segs


def retarget(label, stored, work):
    """The boundary target at working size `work` from a label and its stored target (made at
    WORK by generate.py). The sides are redrawn from the label's corners; the stored target
    alone records where a hand hides a side, so for an occluded page a cell is dropped where
    the nearest stored cell was dropped (its stored value under half the unoccluded one)."""
    W, H = label["width"], label["height"]
    if not label["page"]:
        k, w, h = work_size(W, H, work)
        mw, mh = map_size(w, h)
        return np.zeros((mh, mw), np.float32)
    segs = page_segments(label["corners"], W, H)
    t = boundary_target(W, H, segs, None, work)
    if not label.get("occluded"):
        return t
    full = boundary_target(W, H, segs, None, WORK)
    stored = stored.astype(np.float32)
    k0 = work_size(W, H, WORK)[0]
    k1 = work_size(W, H, work)[0]
    mh, mw = t.shape
    # nearest stored cell of each cell centre ((2i + 0.5) k in source coordinates)
    ci = np.clip(np.rint(((2 * np.arange(mw) + 0.5) * k1 / k0 - 0.5) / 2).astype(int), 0, full.shape[1] - 1)
    cj = np.clip(np.rint(((2 * np.arange(mh) + 0.5) * k1 / k0 - 0.5) / 2).astype(int), 0, full.shape[0] - 1)
    f, s = full[np.ix_(cj, ci)], stored[np.ix_(cj, ci)]
    hidden = (f > 1e-3) & (s < 0.5 * f)
    t[hidden] = 0
    return t
