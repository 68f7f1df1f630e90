"""Float64 references the peers and ImageCore are all measured against.

Conventions (the same ImageCore documents): pixel centres at +0.5; 4:2:0 chroma is the
2x2 average of full-resolution chroma (edge rows/columns replicated for odd sizes); YUV -> RGB
upsamples chroma by nearest neighbour (what libyuv and OpenCV do), so errors measure the
matrix arithmetic, not the upsampling choice.
"""
import numpy as np
import scipy.sparse as sp

MATRICES = {"bt601": (0.299, 0.114), "bt709": (0.2126, 0.0722)}


def _coeffs(matrix):
    kr, kb = MATRICES[matrix]
    return kr, 1.0 - kr - kb, kb


def rgb_to_yuv420(rgb, matrix="bt601", rng="full"):
    """rgb: (h, w, 3) uint8 -> float64 Y (h, w), U and V (ceil(h/2), ceil(w/2))."""
    kr, kg, kb = _coeffs(matrix)
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    y = kr * r + kg * g + kb * b
    u = (b - y) / (2 * (1 - kb))
    v = (r - y) / (2 * (1 - kr))
    if rng == "video":
        y, u, v = 16 + y * 219 / 255, u * 224 / 255, v * 224 / 255
    u, v = u + 128, v + 128
    return y, _avg2x2(u), _avg2x2(v)


def _avg2x2(c):
    h, w = c.shape
    if h % 2:
        c = np.vstack([c, c[-1:]])
    if w % 2:
        c = np.hstack([c, c[:, -1:]])
    return (c[0::2, 0::2] + c[1::2, 0::2] + c[0::2, 1::2] + c[1::2, 1::2]) / 4


def yuv420_to_rgb(y, u, v, matrix="bt601", rng="full"):
    """uint8 planes -> float64 (h, w, 3), chroma upsampled by nearest neighbour."""
    kr, kg, kb = _coeffs(matrix)
    h, w = y.shape
    y = y.astype(np.float64)
    u = np.repeat(np.repeat(u.astype(np.float64), 2, 0), 2, 1)[:h, :w] - 128
    v = np.repeat(np.repeat(v.astype(np.float64), 2, 0), 2, 1)[:h, :w] - 128
    if rng == "video":
        y, u, v = (y - 16) * 255 / 219, u * 255 / 224, v * 255 / 224
    r = y + 2 * (1 - kr) * v
    b = y + 2 * (1 - kb) * u
    g = (y - kr * r - kb * b) / kg
    return np.stack([r, g, b], axis=-1)


def split_yuv(buf, w, h, layout):
    """Raw I420 / NV12 bytes -> (Y, U, V) uint8 planes."""
    cw, ch = (w + 1) // 2, (h + 1) // 2
    a = np.frombuffer(buf, np.uint8)
    y = a[: w * h].reshape(h, w)
    rest = a[w * h: w * h + 2 * cw * ch]
    if layout == "i420":
        return y, rest[: cw * ch].reshape(ch, cw), rest[cw * ch:].reshape(ch, cw)
    uv = rest.reshape(ch, cw, 2)
    return y, uv[..., 0], uv[..., 1]


def pack_yuv(y, u, v, layout):
    if layout == "i420":
        return y.tobytes() + u.tobytes() + v.tobytes()
    return y.tobytes() + np.stack([u, v], axis=-1).tobytes()


def to_u8(x):
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)


# ---- resampling ------------------------------------------------------------------

def _lanczos(a):
    def f(x):
        x = np.abs(x)
        return np.where(x < a, np.sinc(x) * np.sinc(x / a), 0.0)
    return f, float(a)


FILTERS = {
    "box": (lambda x: np.where((x >= -0.5) & (x < 0.5), 1.0, 0.0), 0.5),
    "triangle": (lambda x: np.maximum(0.0, 1 - np.abs(x)), 1.0),
    "lanczos3": _lanczos(3),
    "lanczos4": _lanczos(4),
}


def area_weights(n_in, n_out):
    """Exact area coverage (what OpenCV's INTER_AREA computes on downscale)."""
    scale = n_in / n_out
    rows, cols, vals = [], [], []
    for i in range(n_out):
        a, b = i * scale, (i + 1) * scale
        for j in range(int(np.floor(a)), min(int(np.ceil(b)), n_in)):
            ov = min(b, j + 1) - max(a, j)
            if ov > 0:
                rows.append(i), cols.append(j), vals.append(ov / scale)
    return sp.csr_matrix((vals, (rows, cols)), shape=(n_out, n_in))


def weights(n_in, n_out, name):
    """Sparse (n_out x n_in) antialiased resampling matrix; rows sum to 1, edges clamped."""
    if name == "area":
        return area_weights(n_in, n_out)
    f, support = FILTERS[name]
    scale = n_in / n_out
    fscale = max(scale, 1.0)
    rows, cols, vals = [], [], []
    for i in range(n_out):
        c = (i + 0.5) * scale
        lo, hi = int(np.floor(c - support * fscale)), int(np.ceil(c + support * fscale))
        j = np.arange(lo, hi + 1)
        wts = f((j + 0.5 - c) / fscale)
        s = wts.sum()
        if s == 0:
            continue
        wts = wts / s
        jc = np.clip(j, 0, n_in - 1)
        rows.extend([i] * len(j))
        cols.extend(jc.tolist())
        vals.extend(wts.tolist())
    return sp.csr_matrix((vals, (rows, cols)), shape=(n_out, n_in))


def resize(img, out_w, out_h, name):
    """img (h, w, c) uint8 -> float64 (out_h, out_w, c) with a separable antialiased filter."""
    h, w, c = img.shape
    wx, wy = weights(w, out_w, name), weights(h, out_h, name)
    out = np.empty((out_h, out_w, c))
    for k in range(c):
        ch = img[..., k].astype(np.float64)
        out[..., k] = wy @ (wx @ ch.T).T
    return out


def psnr(out, ref):
    mse = np.mean((out.astype(np.float64) - ref) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)
