"""`make peers`: ImageCore beside OpenCV, Pillow, libvips, libyuv and bare libjpeg-turbo on
the same inputs, in the same run, one thread each. Writes results.json, results.svg and
results.md in bench/peers/out/, and with --update-readme replaces the README's table.

    python run.py [--reps N] [--rounds N] [--update-readme] [IMAGE.jpg ...]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(HERE, "out")
sys.path.insert(0, HERE)
import peers  # noqa: E402
import process  # noqa: E402
import reference as ref  # noqa: E402

# ImageCore's bench workload for each comparison; a name the bench does not list yet is
# reported as "not implemented", never faked.
IC_WORKLOADS = {
    "W1": "thumbnail", "W2": "scan-color", "W3-rgba-i420": "rgba-i420", "W3-rgba-nv12": "rgba-nv12",
    "W3-i420-rgba": "i420-rgba", "W3-nv12-rgba": "nv12-rgba", "W4-lanczos3": "lanczos",
    "W4-area": "triangle", "W5": "warp-rgba-bilinear", "W6": "laplacian",
    # The burst rows run on the eight frames OpenCV ranks (bench --frames, read from disk as
    # imread does): at OpenCV's ¼ scale with one thread, the same with two (frames on two
    # workers), and at ImageCore's default long side (1280: 3/8 of a 12 MP frame).
    "W7": "burst-1/4@1", "W7-2": "burst-1/4@2", "W7-default": "burst@1",
    "R-rgba": "rotate90-rgba", "R-nv12": "rotate90-nv12", "J-decode": "jpeg-decode-rgba",
    "J-encode": "jpeg-encode-rgba-q85",
}

DESCRIPTIONS = {
    "W1": "JPEG → 256 px thumbnail", "W2": "scanner: warp to A4 @150 dpi + encode",
    "W3-rgba-i420": "RGBA → I420", "W3-rgba-nv12": "RGBA → NV12", "W3-i420-rgba": "I420 → RGBA",
    "W3-nv12-rgba": "NV12 → RGBA", "W4-lanczos3": "resize RGBA → 1024 wide, Lanczos-3",
    "W4-area": "resize RGBA → 1024 wide, area (peers) / triangle (ImageCore)", "W5": "perspective warp → A4 @300 dpi, bilinear",
    "W6": "Laplacian score, gray", "W7": "burst of 8 → sharpest, ¼ scale",
    "W7-2": "burst of 8 → sharpest, ¼ scale, ImageCore on 2 threads",
    "W7-default": "burst of 8 → sharpest, ImageCore at its default 1280 px (3/8) vs peers at ¼",
    "R-rgba": "rotate 90° RGBA",
    "R-nv12": "rotate 90° NV12", "J-decode": "JPEG decode → RGBA", "J-encode": "JPEG encode RGBA q85",
}


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def timed(fn, reps):
    fn()
    t = []
    for _ in range(reps):
        s = time.perf_counter()
        fn()
        t.append(time.perf_counter() - s)
    return statistics.median(t) * 1e3


def peak_rss(cmd):
    """(peak RSS, peak above the process's baseline before the work) in MiB, as the child
    reports them from /proc/self/status (VmHWM after the work, VmRSS before it). wait4's
    ru_maxrss is not used: a forked child inherits this big parent's high-water mark."""
    d = json.loads(sh(cmd))
    return d["hwm_kb"] / 1024, (d["hwm_kb"] - d["baseline_kb"]) / 1024


class Run:
    def __init__(self, reps, measure_rss=True):
        self.reps = reps
        self.measure_rss = measure_rss  # peak RSS is not timing: measured in the first round only
        self.rows = []

    def add(self, key, peer, ms=None, quality=None, rss=None, note=""):
        self.rows.append({"workload": key, "description": DESCRIPTIONS[key], "peer": peer, "ms": ms,
                          "quality": quality, "rss_mib": rss, "note": note})

    def try_peer(self, key, peer, make, quality_fn=None, rss_cmd=None):
        try:
            run, output = make()
            ms = timed(run, self.reps)
            q = quality_fn(output()) if quality_fn else None
            rss = peak_rss(rss_cmd) if rss_cmd and self.measure_rss else None
            self.add(key, peer, ms, q, rss)
        except Exception as e:  # a peer that fails is reported, not hidden
            self.add(key, peer, note=f"failed: {type(e).__name__}: {e}")


def build():
    sh(["swift", "build", "-c", "release", "--product", "bench"], cwd=ROOT)
    sh(["swift", "build", "-c", "release", "--product", "imagecore"], cwd=ROOT)
    bindir = sh(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT).strip()
    os.makedirs(os.path.join(OUT, "bin"), exist_ok=True)
    for prog, libs in (("tj_bare", ["-lturbojpeg"]), ("yuv_libyuv", ["-lyuv"]), ("burst_floor", ["-lturbojpeg"])):
        sh(["cc", "-O2", "-o", os.path.join(OUT, "bin", prog), os.path.join(HERE, prog + ".c")] + libs)
    return bindir


def prepare_inputs(bindir, images):
    """The built-in 12 MP image as a baseline 4:2:0 q90 JPEG, plus any files given."""
    ppm = os.path.join(OUT, "builtin.ppm")
    sh([os.path.join(bindir, "bench"), "--write-input", ppm])
    jpg = os.path.join(OUT, "builtin.jpg")
    Image.open(ppm).convert("RGB").save(jpg, quality=90, subsampling=2)
    return [jpg] + list(images)


def imagecore_bench(bindir, jpg, reps):
    """ImageCore's rows by IC_WORKLOADS name; "name@N" is workload `name` at N threads, run on
    the burst frames."""
    listed = {line.split("\t")[0] for line in sh([os.path.join(bindir, "bench"), "--list"]).splitlines() if line}
    wanted = sorted({w for w in IC_WORKLOADS.values() if "@" not in w and w in listed})
    out = {}
    js = os.path.join(OUT, "imagecore.json")
    if wanted:
        sh([os.path.join(bindir, "bench"), *wanted, "--image", jpg, "--threads", "1", "--repeat", str(reps), "--json", js])
        with open(js) as f:
            out.update({r["workload"]: r for r in json.load(f)["rows"]})
    burst = sorted({w.split("@")[0] for w in IC_WORKLOADS.values() if "@" in w and w.split("@")[0] in listed})
    frames = burst_frames(jpg)
    if burst:
        sh([os.path.join(bindir, "bench"), *burst, "--frames", *frames, "--threads", "1,2", "--repeat", str(reps), "--json", js])
        with open(js) as f:
            out.update({f"{r['workload']}@{r['threads']}": r for r in json.load(f)["rows"]})
    listed |= {w for w in IC_WORKLOADS.values() if w in out}
    return out, listed


def burst_frames(jpg):
    """Eight frames of the image with increasing blur (the sharpest is frame 0), written once."""
    frames = []
    for i in range(8):
        p = os.path.join(OUT, f"burst_{i}.jpg")
        if not os.path.exists(p):
            Image.open(jpg).filter(ImageFilter.GaussianBlur(0.5 * i)).save(p, quality=90)
        frames.append(p)
    return frames


def run_image(jpg, bindir, reps, measure_rss=True):
    r = Run(reps, measure_rss)
    rgba = np.asarray(Image.open(jpg).convert("RGBA"))
    h, w = rgba.shape[:2]
    gray = np.asarray(Image.open(jpg).convert("L"))
    py = sys.executable

    # W1 thumbnail, W2 scanner: speed and peak RSS of a separate process each.
    for peer, make in (("libvips", peers.vips_thumbnail), ("Pillow", peers.pillow_thumbnail), ("OpenCV", peers.opencv_thumbnail)):
        r.try_peer("W1", peer, lambda m=make: m(jpg), rss_cmd=[py, os.path.join(HERE, "peers.py"), "rss", "W1", peer, jpg])
    for peer, make in (("OpenCV", peers.opencv_scan), ("Pillow", peers.pillow_scan)):
        r.try_peer("W2", peer, lambda m=make: m(jpg), rss_cmd=[py, os.path.join(HERE, "peers.py"), "rss", "W2", peer, jpg])

    # Bare libjpeg-turbo: the floor for W1 and the reference for decode/encode.
    tj = {}
    for line in sh([os.path.join(OUT, "bin", "tj_bare"), jpg, str(reps)]).splitlines():
        d = json.loads(line)
        tj[d["name"]] = d
    m = tj["info"]["thumb_scale_num"]
    r.add("W1", f"libjpeg-turbo {m}/8 decode (floor)", tj[f"decode_rgba_scale_{m}_8"]["median_ms"])
    r.add("J-decode", "libjpeg-turbo tjDecompress2", tj["decode_rgba"]["median_ms"])
    r.add("J-encode", "libjpeg-turbo tjCompress2", tj["encode_rgba_q85_420"]["median_ms"])

    # W3 YUV: libyuv (C) and OpenCV; max abs error against the float64 reference.
    ydir = os.path.join(OUT, "yuv")
    os.makedirs(ydir, exist_ok=True)
    rgba.tofile(os.path.join(ydir, "input.rgba"))
    refs = {}
    for rng in ("full", "video"):
        y, u, v = ref.rgb_to_yuv420(rgba[..., :3], "bt601", rng)
        refs[rng] = (y, u, v)
        for layout in ("i420", "nv12"):
            with open(os.path.join(ydir, f"input_{layout}_{rng}.yuv"), "wb") as f:
                f.write(ref.pack_yuv(ref.to_u8(y), ref.to_u8(u), ref.to_u8(v), layout))

    def yuv_err(buf, layout, rng):
        y, u, v = ref.split_yuv(buf, w, h, layout)
        ry, ru, rv = refs[rng]
        return max(np.abs(y - ry).max(), np.abs(u - ru).max(), np.abs(v - rv).max())

    def rgb_err(out_rgba, layout, rng):
        with open(os.path.join(ydir, f"input_{layout}_{rng}.yuv"), "rb") as f:
            y, u, v = ref.split_yuv(f.read(), w, h, layout)
        exact = np.clip(ref.yuv420_to_rgb(y, u, v, "bt601", rng), 0, 255)  # outputs saturate
        return float(np.abs(out_rgba[..., :3].astype(np.float64) - exact).max())

    lib = {}
    for line in sh([os.path.join(OUT, "bin", "yuv_libyuv"), str(w), str(h), str(reps), ydir]).splitlines():
        d = json.loads(line)
        lib[d["name"]] = d["median_ms"]

    def readf(name):
        with open(os.path.join(ydir, name), "rb") as f:
            return f.read()
    rgba_from = lambda name: np.frombuffer(readf(name), np.uint8).reshape(h, w, 4)  # noqa: E731
    r.add("W3-rgba-i420", "libyuv ABGRToJ420 (full range)", lib["rgba_to_i420_full"],
          f"max err {yuv_err(readf('libyuv_rgba_to_i420_full.yuv'), 'i420', 'full'):.2f}")
    r.add("W3-rgba-nv12", "libyuv ABGRToNV12 (video range)", lib["rgba_to_nv12_video"],
          f"max err {yuv_err(readf('libyuv_rgba_to_nv12_video.yuv'), 'nv12', 'video'):.2f}")
    r.add("W3-i420-rgba", "libyuv J420ToABGR (full range)", lib["i420_full_to_rgba"],
          f"max err {rgb_err(rgba_from('libyuv_i420_full_to_rgba.rgba'), 'i420', 'full'):.2f}")
    r.add("W3-nv12-rgba", "libyuv NV12→ABGR (full range)", lib["nv12_full_to_rgba"],
          f"max err {rgb_err(rgba_from('libyuv_nv12_full_to_rgba.rgba'), 'nv12', 'full'):.2f}")
    r.add("R-rgba", "libyuv ARGBRotate", lib["rotate90_rgba"])
    r.add("R-nv12", "libyuv NV12ToI420Rotate", lib["rotate90_nv12_to_i420"])
    if h % 2 == 0 and w % 2 == 0:  # OpenCV's YUV 4:2:0 needs even sizes
        i420v, nv12v = readf("input_i420_video.yuv"), readf("input_nv12_video.yuv")
        r.try_peer("W3-rgba-i420", "OpenCV RGBA2YUV_I420 (video range)", lambda: peers.opencv_yuv(rgba, "rgba_to_i420", None),
                   lambda o: f"max err {yuv_err(o.tobytes(), 'i420', 'video'):.2f}")
        r.try_peer("W3-i420-rgba", "OpenCV YUV2RGBA_I420 (video range)", lambda: peers.opencv_yuv(rgba, "i420_to_rgba", i420v),
                   lambda o: f"max err {rgb_err(o, 'i420', 'video'):.2f}")
        r.try_peer("W3-nv12-rgba", "OpenCV YUV2RGBA_NV12 (video range)", lambda: peers.opencv_yuv(rgba, "nv12_to_rgba", nv12v),
                   lambda o: f"max err {rgb_err(o, 'nv12', 'video'):.2f}")
    r.try_peer("R-rgba", "OpenCV rotate", lambda: peers.opencv_rotate(rgba))

    # W4 resize: PSNR against the float64 reference of the filter each one implements.
    oh = round(h * 1024 / w)
    lz3 = ref.resize(rgba[..., :3], 1024, oh, "lanczos3")
    area = ref.resize(rgba[..., :3], 1024, oh, "area")
    lz4 = ref.resize(rgba[..., :3], 1024, oh, "lanczos4")
    q = lambda reference: (lambda o: f"PSNR {ref.psnr(np.asarray(o)[..., :3], reference):.1f} dB")  # noqa: E731
    r.try_peer("W4-area", "OpenCV INTER_AREA", lambda: peers.opencv_resize(rgba, "area"), q(area))
    r.try_peer("W4-lanczos3", "OpenCV INTER_LANCZOS4", lambda: peers.opencv_resize(rgba, "lanczos4"), q(lz4))
    r.try_peer("W4-lanczos3", "Pillow LANCZOS", lambda: peers.pillow_resize(rgba), q(lz3))
    r.try_peer("W4-lanczos3", "libvips resize lanczos3", lambda: peers.vips_resize(rgba), q(lz3))

    r.try_peer("W5", "OpenCV warpPerspective", lambda: peers.opencv_warp(rgba))
    r.try_peer("W6", "OpenCV filter2D + meanStdDev", lambda: peers.opencv_laplacian_score(gray))

    # W7: eight frames of the image with increasing blur; the sharpest is frame 0. The floor:
    # bare tjDecompress2(TJPF_GRAY) of the same files at ¼, each read from disk, one thread.
    burst = burst_frames(jpg)
    r.try_peer("W7", "OpenCV ¼ gray decode + filter2D (1 thread)", lambda: peers.opencv_burst(burst),
               lambda best: "picked frame 0" if best == 0 else f"WRONG: picked frame {best}")
    opencv_row = r.rows[-1]
    for key in ("W7-2", "W7-default"):  # the same OpenCV run, beside ImageCore's other two burst rows
        r.rows.append(dict(opencv_row, workload=key, description=DESCRIPTIONS[key]))
    floor = json.loads(sh([os.path.join(OUT, "bin", "burst_floor"), "-reps", str(reps), "2", *burst]).splitlines()[-1])
    for key in ("W7", "W7-2"):
        r.add(key, "libjpeg-turbo ¼ TJPF_GRAY decode of the 8 files (floor)", floor["median_ms"])
    r.ic_quality = imagecore_quality(bindir, rgba, refs, yuv_err, rgb_err, ydir, {"W4-lanczos3": lz3, "W4-area": ref.resize(rgba[..., :3], 1024, oh, "triangle")})
    return r.rows, (w, h), r.ic_quality


def read_pnm(path):
    """Binary P5/P6/P7 (maxval 255) -> array (h, w, c)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"P7":
        end = data.index(b"ENDHDR\n") + 7
        fields = dict(line.split(" ", 1) for line in data[3:end - 7].decode().splitlines() if " " in line)
        w, h, c = int(fields["WIDTH"]), int(fields["HEIGHT"]), int(fields["DEPTH"])
    else:
        parts, pos = [], 2
        while len(parts) < 3:
            while data[pos:pos + 1].isspace():
                pos += 1
            start = pos
            while not data[pos:pos + 1].isspace():
                pos += 1
            parts.append(int(data[start:pos]))
        end, (w, h, c) = pos + 1, (parts[0], parts[1], 1 if data[:2] == b"P5" else 3)
    return np.frombuffer(data[end:end + w * h * c], np.uint8).reshape(h, w, c)


def imagecore_quality(bindir, rgba, refs, yuv_err, rgb_err, ydir, resize_refs):
    """ImageCore's outputs through its CLI, checked exactly as the peers' are."""
    cli = os.path.join(bindir, "imagecore")
    h, w = rgba.shape[:2]
    pam = os.path.join(ydir, "input.pam")
    with open(pam, "wb") as f:
        f.write(f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".encode() + rgba.tobytes())
    q = {}
    try:
        for key, flt in (("W4-lanczos3", "lanczos3"), ("W4-area", "triangle")):
            out = os.path.join(ydir, f"ic_{flt}.pam")
            sh([cli, "resize", pam, out, "--width", "1024", "--filter", flt])
            q[key] = f"PSNR {ref.psnr(read_pnm(out)[..., :3], resize_refs[key]):.1f} dB ({flt})"
        for key, layout in (("W3-rgba-i420", "i420"), ("W3-rgba-nv12", "nv12")):
            out = os.path.join(ydir, f"ic_{layout}.yuv")
            sh([cli, "convert", pam, out, "--layout", layout, "--matrix", "bt601", "--range", "full"])
            with open(out, "rb") as f:
                q[key] = f"max err {yuv_err(f.read(), layout, 'full'):.2f} (full range)"
        for key, layout in (("W3-i420-rgba", "i420"), ("W3-nv12-rgba", "nv12")):
            out = os.path.join(ydir, f"ic_from_{layout}.pam")
            sh([cli, "convert", os.path.join(ydir, f"input_{layout}_full.yuv"), out, "--size", f"{w}x{h}",
                "--layout", layout, "--matrix", "bt601", "--range", "full"])
            q[key] = f"max err {rgb_err(read_pnm(out), layout, 'full'):.2f} (full range)"
    except Exception as e:  # reported, not hidden
        q.setdefault("error", f"{type(e).__name__}: {e}")
    return q


def imagecore_rss(bindir, jpg):
    """Peak RSS (MiB) of the `imagecore` CLI doing W1 and W2 as a process of its own, from GNU
    time (its child is forked from a small process, so the figure is the CLI's own)."""
    from PIL import Image as _I
    w, h = _I.open(jpg).size
    corners = ",".join(f"{v:.0f}" for v in peers.scan_corners(w, h).flatten())
    cli = os.path.join(bindir, "imagecore")
    tmp = os.path.join(OUT, "rss")
    os.makedirs(tmp, exist_ok=True)
    cmds = {"W1": [cli, "thumbnail", jpg, "--size", "256", "--workers", "1", "--output", tmp],
            "W2": [cli, "scan", jpg, os.path.join(tmp, "scan.jpg"), "--corners", corners,
                   "--paper", "a4", "--dpi", "150", "--mode", "color"]}
    out = {}
    for key, cmd in cmds.items():
        try:
            r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True, check=True,
                               env=dict(os.environ, IC_NUM_THREADS="1"))
            out[key] = int(r.stderr.strip().splitlines()[-1]) / 1024
        except Exception as e:  # reported, not hidden
            out[key] = f"failed: {e}"
    return out


def combine_rounds(rounds):
    """Peer rows and ImageCore rows of several rounds as one: each time the median of the
    rounds' medians (the first round's quality, RSS and notes)."""
    first_rows, first_ic = rounds[0]
    rows = []
    for i, row in enumerate(first_rows):
        times = [rr[i]["ms"] for rr, _ in rounds if rr[i]["ms"] is not None]
        rows.append(dict(row, ms=statistics.median(times) if times else None))
    ic = {}
    for name, r in first_ic.items():
        times = [icr[name]["medianMs"] for _, icr in rounds if name in icr]
        ic[name] = dict(r, medianMs=statistics.median(times))
    return rows, ic


def attach_imagecore(rows, ic, listed, ic_quality, ic_rss=None):
    keys = sorted({row["workload"] for row in rows})
    out = []
    for key in keys:
        name = IC_WORKLOADS.get(key)
        icr = ic.get(name)
        group = [row for row in rows if row["workload"] == key]
        peers_only = [g for g in group if g["ms"] and "floor" not in g["peer"]]
        best = min((g["ms"] for g in peers_only), default=None)
        for g in group:
            g["imagecore_ms"] = icr["medianMs"] if icr else None
            g["imagecore_workload"] = name if icr else f"{name} (not implemented yet)"
            g["ratio"] = (icr["medianMs"] / g["ms"]) if (icr and g["ms"]) else None
            g["ratio_to_best_peer"] = (icr["medianMs"] / best) if (icr and best) else None
            g["imagecore_quality"] = ic_quality.get(key)
            g["imagecore_rss_mib"] = (ic_rss or {}).get(key)
            out.append(g)
    return out


def fmt(v, digits=2):
    return "—" if v is None else f"{v:.{digits}f}"


def rss(v):
    return "—" if v is None else f"{v[0]:.1f} ({v[1]:.1f})"


def icrss(v):
    return "—" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


def markdown(results, meta):
    lines = [f"Measured {meta['date']} on {meta['machine']}, one thread each; each figure the median of "
             f"{meta['rounds']} rounds (peers and ImageCore alternating which runs first) of the median of {meta['reps']} runs; "
             f"input {meta['input']} ({meta['size']}). Reproduce: `{meta['command']}`.", "",
             "| workload | peer | peer ms | ImageCore ms | ImageCore / peer | quality (peer) | quality (ImageCore) | peer peak RSS MiB (above its baseline) | ImageCore CLI peak RSS MiB |",
             "|---|---|---:|---:|---:|---|---|---:|---:|"]
    for g in results:
        ic = fmt(g["imagecore_ms"]) if g["imagecore_ms"] is not None else "not implemented yet"
        lines.append(f"| {g['description']} | {g['peer']} | {fmt(g['ms'])} | {ic} | {fmt(g['ratio'])} | "
                     f"{g['quality'] or g['note'] or ''} | {g['imagecore_quality'] or ''} | {rss(g['rss_mib'])} | "
                     f"{icrss(g['imagecore_rss_mib'])} |")
    return "\n".join(lines) + "\n"


def chart(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    have = [g for g in results if g["ratio"]]
    fig, ax = plt.subplots(figsize=(10, 0.35 * max(4, len(have)) + 1))
    if have:
        labels = [f"{g['description']} vs {g['peer']}" for g in have]
        ax.barh(range(len(have)), [g["ratio"] for g in have], color=["#2a7" if g["ratio"] < 1 else "#c44" for g in have])
        ax.set_yticks(range(len(have)), labels, fontsize=8)
        ax.set_xscale("log")
        ax.axvline(1, color="k", lw=0.8)
        ax.set_xlabel("ImageCore time / peer time (log; < 1 = ImageCore faster)")
    else:
        ax.text(0.5, 0.5, "no ImageCore workload implemented yet", ha="center", va="center")
        ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(path)


def update_readme(md, chart_rel):
    readme = os.path.join(ROOT, "README.md")
    with open(readme) as f:
        text = f.read()
    begin, end = "<!-- peers:begin -->", "<!-- peers:end -->"
    block = f"{begin}\n{md}\n![ImageCore vs peers]({chart_rel})\n{end}"
    if begin in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text += f"\n## Compared with OpenCV, Pillow, libvips and libyuv\n\n{block}\n"
    with open(readme, "w") as f:
        f.write(text)


def update_readme_process(md):
    """Replaces the README's whole-process table (between its markers)."""
    readme = os.path.join(ROOT, "README.md")
    with open(readme) as f:
        text = f.read()
    begin, end = "<!-- process:begin -->", "<!-- process:end -->"
    if begin in text:
        text = text[:text.index(begin)] + f"{begin}\n{md}{end}" + text[text.index(end) + len(end):]
        with open(readme, "w") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("images", nargs="*")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3, help="peers and ImageCore measured this many times, alternating")
    ap.add_argument("--update-readme", action="store_true")
    ap.add_argument("--process-rounds", type=int, default=15, help="alternating rounds of the whole-process rows")
    ap.add_argument("--only-process", action="store_true", help="only the whole-process rows (W1, W2, start-up)")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    bindir = build()
    jpgs = prepare_inputs(bindir, a.images)
    # Whole processes (W1, W2, start-up) on the built-in image.
    from PIL import Image as _I
    w0, h0 = _I.open(jpgs[0]).size
    corners = ",".join(f"{v:.0f}" for v in peers.scan_corners(w0, h0).flatten())
    proc_md = process.markdown(process.run(jpgs[0], corners, sys.executable, burst_frames(jpgs[0]), a.process_rounds,
                                           images=jpgs[1:]), a.process_rounds)
    proc_md += process.batch_markdown(process.batch(jpgs[0], process.build_static_cli(), os.path.join(bindir, "bench")))
    print(proc_md, flush=True)
    with open(os.path.join(OUT, "process.md"), "w") as f:
        f.write(proc_md)
    if a.only_process:
        if a.update_readme:
            update_readme_process(proc_md)
        return
    all_results = []
    for jpg in jpgs:
        print(f"== {jpg}", flush=True)
        # Rounds, alternating which side runs first: on a shared machine memory bandwidth and
        # clocks drift over a minute, and one side measured entirely before the other took
        # the drift into the ratio (memory-bound rows moved by 20 % between runs).
        rounds = []
        for k in range(a.rounds):
            if k % 2 == 0:
                rows, (w, h), ic_quality = run_image(jpg, bindir, a.reps, measure_rss=(k == 0))
                ic, listed = imagecore_bench(bindir, jpg, a.reps)
            else:
                ic, listed = imagecore_bench(bindir, jpg, a.reps)
                rows, (w, h), _ = run_image(jpg, bindir, a.reps, measure_rss=False)
            rounds.append((rows, ic))
        rows, ic = combine_rounds(rounds)
        results = attach_imagecore(rows, ic, listed, ic_quality, imagecore_rss(bindir, jpg))
        meta = {"date": datetime.date.today().isoformat(),
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
                "reps": a.reps, "rounds": a.rounds, "input": os.path.relpath(jpg, ROOT) if jpg.startswith(ROOT) else jpg,
                "size": f"{w}×{h}", "command": "make peers"}
        all_results.append({"meta": meta, "results": results})
        md = markdown(results, meta)
        print(md, flush=True)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(all_results, f, indent=1)
    first = all_results[0]
    md = markdown(first["results"], first["meta"])
    with open(os.path.join(OUT, "results.md"), "w") as f:
        f.write(md)
    chart(first["results"], os.path.join(HERE, "results.svg"))
    if a.update_readme:
        update_readme(md, "bench/peers/results.svg")
        update_readme_process(proc_md)
    print(f"wrote {OUT}/results.json, results.md and bench/peers/results.svg")


if __name__ == "__main__":
    main()
