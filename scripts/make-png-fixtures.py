#!/usr/bin/env python3
"""Writes the PNG test fixtures in Tests/ImageCoreTests/Fixtures/png/ (committed; re-run only to
change them). Pillow writes every file it can (gray 1/2/4/8/16-bit, gray + alpha, RGB, RGBA,
palette with tRNS, tRNS colours, eXIf, iCCP); what Pillow cannot write (16-bit RGB / RGBA /
gray + alpha, Adam7 interlacing) is written by the small chunk writer below and read back with
Pillow as a check. Beside each NAME.png goes NAME.rgba: the expected RGBA8 decode (palette and
tRNS expanded, low bit depths scaled by 255 / (2^bits - 1), 16-bit samples rounded by
round(v * 255 / 65535)), computed here from the source samples, never from a decoder.

    python3 -m venv .venv-fixtures && .venv-fixtures/bin/pip install pillow numpy
    .venv-fixtures/bin/python scripts/make-png-fixtures.py
"""
import io
import os
import struct
import zlib

import numpy as np
from PIL import Image

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "ImageCoreTests", "Fixtures", "png")
W, H = 13, 11  # odd sizes: every Adam7 pass has a partial block
rng = np.random.default_rng(15)


def r16(v):
    """16-bit to 8-bit, rounded: round(v * 255 / 65535) (257 is odd, so there are no ties)."""
    return ((np.asarray(v, dtype=np.int64) * 255 * 2 + 65535) // (2 * 65535)).astype(np.uint8)


def save(name, data, rgba):
    with open(os.path.join(OUT, name + ".png"), "wb") as f:
        f.write(data)
    assert rgba.shape == (H, W, 4) and rgba.dtype == np.uint8
    with open(os.path.join(OUT, name + ".rgba"), "wb") as f:
        f.write(rgba.tobytes())


def pillow(im, **kw):
    b = io.BytesIO()
    im.save(b, "PNG", **kw)
    return b.getvalue()


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def raw_png(samples, color_type, bits, interlace=False, extra=b""):
    """samples: H x W x channels integer array at `bits` per sample (palette: indices)."""
    h, w, c = samples.shape

    def pack_rows(img):
        rows = []
        for row in img:
            flat = row.reshape(-1)
            if bits == 16:
                data = flat.astype(">u2").tobytes()
            elif bits == 8:
                data = flat.astype(np.uint8).tobytes()
            else:
                per = 8 // bits
                padded = np.zeros(((len(flat) + per - 1) // per) * per, dtype=np.uint8)
                padded[: len(flat)] = flat
                data = bytes(
                    sum(int(v) << (8 - bits * (k + 1)) for k, v in enumerate(padded[i : i + per]))
                    for i in range(0, len(padded), per)
                )
            rows.append(b"\x00" + data)  # filter type None
        return b"".join(rows)

    if interlace:
        raw = b"".join(
            pack_rows(samples[y0::dy, x0::dx]) for x0, y0, dx, dy in ADAM7 if samples[y0::dy, x0::dx].size
        )
    else:
        raw = pack_rows(samples)
    ihdr = struct.pack(">IIBBBBB", w, h, bits, color_type, 0, 0, 1 if interlace else 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def with_alpha(rgb, alpha=None):
    a = np.full(rgb.shape[:2] + (1,), 255, np.uint8) if alpha is None else alpha.reshape(rgb.shape[:2] + (1,))
    return np.concatenate([rgb, a.astype(np.uint8)], axis=2)


def gray_rgba(g, alpha=None):
    return with_alpha(np.repeat(g[:, :, None], 3, axis=2), alpha)


def main():
    os.makedirs(OUT, exist_ok=True)

    # Gray at 1, 2, 4, 8 bits (Pillow), values exactly representable at that depth.
    for bits in (1, 2, 4, 8):
        top = (1 << bits) - 1
        v = rng.integers(0, top + 1, (H, W))
        g = (v * 255 // top).astype(np.uint8)
        data = pillow(Image.frombytes("L", (W, H), g.tobytes()), bits=bits) if bits < 8 else pillow(Image.frombytes("L", (W, H), g.tobytes()))
        assert data[24] == bits and data[25] == 0, (bits, data[24:26])
        assert (np.asarray(Image.open(io.BytesIO(data)).convert("L")) == g).all()
        save(f"gray{bits}", data, gray_rgba(g))

    # Gray 8 with a tRNS colour.
    g = rng.integers(0, 256, (H, W)).astype(np.uint8)
    g[::3, ::2] = 77
    save("gray8-trns", pillow(Image.frombytes("L", (W, H), g.tobytes()), transparency=77), gray_rgba(g, np.where(g == 77, 0, 255)))

    # Gray 16 (Pillow's I;16).
    g16 = rng.integers(0, 65536, (H, W)).astype(np.uint16)
    g16[0, :4] = [0, 128, 129, 65535]  # the rounding edges: 128 -> 0, 129 -> 1
    data = pillow(Image.frombytes("I;16", (W, H), g16.astype("<u2").tobytes()))
    assert data[24] == 16 and data[25] == 0
    save("gray16", data, gray_rgba(r16(g16)))

    # Gray + alpha 8 (Pillow's LA).
    ga = rng.integers(0, 256, (H, W, 2)).astype(np.uint8)
    save("graya8", pillow(Image.frombytes("LA", (W, H), ga.tobytes())), gray_rgba(ga[:, :, 0], ga[:, :, 1]))

    # RGB 8, RGB 8 with a tRNS colour, RGBA 8.
    rgb = rng.integers(0, 256, (H, W, 3)).astype(np.uint8)
    save("rgb8", pillow(Image.frombytes("RGB", (W, H), rgb.tobytes())), with_alpha(rgb))
    rgb_t = rgb.copy()
    rgb_t[1::4, 1::3] = (10, 200, 30)
    key = (rgb_t == (10, 200, 30)).all(axis=2)
    save("rgb8-trns", pillow(Image.frombytes("RGB", (W, H), rgb_t.tobytes()), transparency=(10, 200, 30)),
         with_alpha(rgb_t, np.where(key, 0, 255)))
    rgba = rng.integers(0, 256, (H, W, 4)).astype(np.uint8)
    save("rgba8", pillow(Image.frombytes("RGBA", (W, H), rgba.tobytes())), rgba)

    # Palette 8 and 4 bits with partial tRNS (entries beyond it are opaque).
    for bits, n in ((8, 200), (4, 16)):
        plte = rng.integers(0, 256, (n, 3)).astype(np.uint8)
        trns = rng.integers(0, 256, n // 2).astype(np.uint8)
        idx = rng.integers(0, n, (H, W)).astype(np.uint8)
        im = Image.frombytes("P", (W, H), idx.tobytes())
        im.putpalette(plte.reshape(-1).tolist())
        data = pillow(im, transparency=trns.tobytes(), bits=bits)
        assert data[24] == bits and data[25] == 3, (bits, data[24:26])
        alpha = np.concatenate([trns, np.full(n - len(trns), 255, np.uint8)])
        save(f"palette{bits}-trns", data, with_alpha(plte[idx], alpha[idx]))

    # What Pillow cannot write: 16-bit RGB / RGBA / gray + alpha, and Adam7.
    s = rng.integers(0, 65536, (H, W, 3)).astype(np.uint16)
    s[0, 0] = (128, 129, 65535)
    save("rgb16", raw_png(s, 2, 16), with_alpha(r16(s)))
    s_t = s.copy()
    s_t[2::3, ::4] = (1000, 2000, 3000)
    key = (s_t == (1000, 2000, 3000)).all(axis=2)
    save("rgb16-trns", raw_png(s_t, 2, 16, extra=chunk(b"tRNS", struct.pack(">HHH", 1000, 2000, 3000))),
         with_alpha(r16(s_t), np.where(key, 0, 255)))
    s4 = rng.integers(0, 65536, (H, W, 4)).astype(np.uint16)
    save("rgba16", raw_png(s4, 6, 16), r16(s4))
    sga = rng.integers(0, 65536, (H, W, 2)).astype(np.uint16)
    save("graya16", raw_png(sga, 4, 16), gray_rgba(r16(sga[:, :, 0]), r16(sga[:, :, 1])))
    save("rgb8-adam7", raw_png(rgb, 2, 8, interlace=True), with_alpha(rgb))
    save("rgba16-adam7", raw_png(s4, 6, 16, interlace=True), r16(s4))
    v2 = rng.integers(0, 4, (H, W, 1))
    save("gray2-adam7", raw_png(v2, 0, 2, interlace=True), gray_rgba((v2[:, :, 0] * 85).astype(np.uint8)))
    plte = rng.integers(0, 256, (16, 3)).astype(np.uint8)
    trns = rng.integers(0, 256, 16).astype(np.uint8)
    idx = rng.integers(0, 16, (H, W, 1))
    extra = chunk(b"PLTE", plte.tobytes()) + chunk(b"tRNS", trns.tobytes())
    save("palette4-adam7-trns", raw_png(idx, 3, 4, interlace=True, extra=extra),
         with_alpha(plte[idx[:, :, 0]], trns[idx[:, :, 0]]))
    for name in ("rgb16", "rgba16", "graya16", "rgb8-adam7", "rgba16-adam7", "gray2-adam7", "palette4-adam7-trns"):
        Image.open(os.path.join(OUT, name + ".png")).load()  # Pillow reads what we wrote

    # Metadata: eXIf orientation 6 and an sRGB ICC profile from Pillow's Little CMS.
    from PIL import ImageCms
    exif = Image.Exif()
    exif[0x0112] = 6
    save("rgb8-exif6", pillow(Image.frombytes("RGB", (W, H), rgb.tobytes()), exif=exif.tobytes()), with_alpha(rgb))
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    save("rgb8-icc", pillow(Image.frombytes("RGB", (W, H), rgb.tobytes()), icc_profile=icc), with_alpha(rgb))
    with open(os.path.join(OUT, "rgb8-icc.icc"), "wb") as f:
        f.write(icc)


if __name__ == "__main__":
    main()
