"""Whole-process figures for `make peers`: how a user, a shell loop or a batch engine meets
each program. W1 (12 MP JPEG -> 256 px thumbnail) and W2 (scan with given corners -> A4 at
150 dpi) run as separate processes: the C floor program (bench/peers/tj_floor.c, read + 1/8
tjDecompress2), the installed-style `imagecore` (static Swift stdlib), vipsthumbnail, and
Pillow / OpenCV scripts (python peers.py once ...); plus `imagecore --version` start-up.

Every run goes through proc_run (a small C launcher: fork, exec, wait4), so the peak RSS is
the program's own and not a big parent's inherited high-water mark. Runs alternate program by
program (A B C A B C ...), rotating the order each round; figures are medians. For the Python
peers, the same script with its imports and no work gives the baseline, and "above baseline"
is the peak minus that baseline's median peak. Then batch throughput: the CLI over 1 000 files
in one process beside the in-process bench's rate (batch()).
"""
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(HERE, "out")


def build_static_cli():
    """The CLI as `make install` builds it (scripts/build-cli.sh)."""
    r = subprocess.run([os.path.join(ROOT, "scripts", "build-cli.sh")], cwd=ROOT, check=True, capture_output=True, text=True)
    return os.path.join(ROOT, r.stdout.strip())


def build_tools():
    bindir = os.path.join(OUT, "bin")
    os.makedirs(bindir, exist_ok=True)
    for src, libs in ((os.path.join(ROOT, "scripts", "proc_run.c"), []), (os.path.join(HERE, "tj_floor.c"), ["-lturbojpeg"]),
                      (os.path.join(HERE, "burst_floor.c"), ["-lturbojpeg"])):
        prog = os.path.splitext(os.path.basename(src))[0]
        subprocess.run(["cc", "-O2", "-o", os.path.join(bindir, prog), src] + libs, check=True, capture_output=True)
    return bindir


def once(launcher, cmd, env):
    r = subprocess.run([launcher] + cmd, capture_output=True, text=True, check=True, env=env)
    ms, kib, status = r.stdout.split()
    if status != "0":
        raise RuntimeError(f"{' '.join(cmd)} exited {status}")
    return float(ms), int(kib) / 1024


def measure(programs, rounds, launcher, env):
    """{name: (median ms, median peak MiB)} over `rounds` alternating rounds (plus one
    unmeasured warm-up each)."""
    names = list(programs)
    for n in names:
        once(launcher, programs[n], env)
    samples = {n: [] for n in names}
    for k in range(rounds):
        order = names[k % len(names):] + names[:k % len(names)]
        for n in order:
            samples[n].append(once(launcher, programs[n], env))
    return {n: (statistics.median(s[0] for s in v), statistics.median(s[1] for s in v)) for n, v in samples.items()}


def progressive_input(builtin, images):
    """The first progressive JPEG among `images` (e.g. the corpus's mate-Elephants), else the
    built-in image saved by Pillow as a progressive 4:2:2 q90 JPEG."""
    from PIL import Image
    for path in images:
        with Image.open(path) as im:
            if im.format == "JPEG" and (im.info.get("progressive") or im.info.get("progression")):
                return path
    out = os.path.join(OUT, "builtin-progressive.jpg")
    Image.open(builtin).convert("RGB").save(out, quality=90, subsampling=1, progressive=True)
    return out


def camera_input(builtin):
    """The built-in JPEG with a 160x120 EXIF thumbnail of itself (IFD1, as cameras write it)."""
    import io
    import struct
    from PIL import Image
    buf = io.BytesIO()
    Image.open(builtin).convert("RGB").resize((160, 120), Image.LANCZOS).save(buf, "JPEG", quality=85)
    thumb = buf.getvalue()
    # Little-endian TIFF: header, IFD0 (no entries) -> IFD1 (Compression 6, JPEGInterchangeFormat,
    # JPEGInterchangeFormatLength), then the thumbnail.
    ifd1, at = 8 + 6, 8 + 6 + 2 + 3 * 12 + 4
    tiff = b"II*\0" + struct.pack("<I", 8) + struct.pack("<HI", 0, ifd1)
    tiff += struct.pack("<H", 3) + struct.pack("<HHIHH", 0x0103, 3, 1, 6, 0)
    tiff += struct.pack("<HHII", 0x0201, 4, 1, at) + struct.pack("<HHII", 0x0202, 4, 1, len(thumb)) + struct.pack("<I", 0)
    payload = b"Exif\0\0" + tiff + thumb
    with open(builtin, "rb") as f:
        main = f.read()
    out = os.path.join(OUT, "builtin-camera.jpg")
    with open(out, "wb") as f:
        f.write(main[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + main[2:])
    return out


def run(jpg, corners, py, frames, rounds=15, images=()):
    """The whole-process rows for one input: a list of dicts. W1p: a progressive JPEG -> 256 px
    (the reduced progressive decoder, the file streamed from its descriptor; beside it the same binary
    through libjpeg); W1e: a camera JPEG with an EXIF thumbnail -> 75 px; W7:
    the eight burst frames `frames` (written by run.burst_frames)."""
    bindir = build_tools()
    cli = build_static_cli()
    launcher = os.path.join(bindir, "proc_run")
    tmp = os.path.join(OUT, "process")
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, IC_NUM_THREADS="1", OMP_NUM_THREADS="1", VIPS_CONCURRENCY="1")
    peers_py = os.path.join(HERE, "peers.py")
    w1 = {
        "C floor: tjDecompress2 at 1/8": [os.path.join(bindir, "tj_floor"), jpg],
        "imagecore thumbnail": [cli, "thumbnail", jpg, "--size", "256", "-o", os.path.join(tmp, "ic.jpg")],
        "vipsthumbnail": ["vipsthumbnail", jpg, "-s", "256", "-o", os.path.join(tmp, "vips.jpg")],
        "Pillow": [py, peers_py, "once", "W1", "Pillow", jpg],
        "OpenCV": [py, peers_py, "once", "W1", "OpenCV", jpg],
        "imagecore --version": [cli, "--version"],
    }
    w2 = {
        "imagecore scan": [cli, "scan", jpg, os.path.join(tmp, "scan.jpg"), "--corners", corners,
                           "--paper", "a4", "--dpi", "150", "--mode", "color"],
        "OpenCV": [py, peers_py, "once", "W2", "OpenCV", jpg],
        "Pillow": [py, peers_py, "once", "W2", "Pillow", jpg],
    }
    prog = progressive_input(jpg, images)
    w1p = {
        "C floor: tjDecompress2 at 1/8": [os.path.join(bindir, "tj_floor"), prog],
        "imagecore thumbnail": [cli, "thumbnail", prog, "--size", "256", "-o", os.path.join(tmp, "icp.jpg")],
        # The same binary through libjpeg (its whole-image coefficient buffer): the path before #18.
        "imagecore thumbnail, libjpeg path (IC_JPEG_LIBJPEG_ONLY=1)":
            ["env", "IC_JPEG_LIBJPEG_ONLY=1", cli, "thumbnail", prog, "--size", "256", "-o", os.path.join(tmp, "icpl.jpg")],
        "vipsthumbnail": ["vipsthumbnail", prog, "-s", "256", "-o", os.path.join(tmp, "vipsp.jpg")],
        "Pillow": [py, peers_py, "once", "W1", "Pillow", prog],
        "OpenCV": [py, peers_py, "once", "W1", "OpenCV", prog],
    }
    cam = camera_input(jpg)
    w1e = {
        "C floor: tjDecompress2 at 1/8": [os.path.join(bindir, "tj_floor"), cam],
        "imagecore thumbnail": [cli, "thumbnail", cam, "--size", "75", "-o", os.path.join(tmp, "ice.jpg")],
        "vipsthumbnail": ["vipsthumbnail", cam, "-s", "75", "-o", os.path.join(tmp, "vipse.jpg")],
    }
    # W7: the eight burst frames, ranked at OpenCV's ¼ scale (the long side / 4,
    # which ImageCore's nearest-n/8 rule turns into 2/8) on one and two workers, and at
    # ImageCore's default long side; the floor is bare 2/8 TJPF_GRAY decodes of the same files.
    from PIL import Image
    quarter = str((max(Image.open(frames[0]).size) + 3) // 4)
    w7 = {
        "C floor: tjDecompress2 TJPF_GRAY at 1/4, 8 files": [os.path.join(bindir, "burst_floor"), "2", *frames],
        "imagecore sharpest at 1/4, 1 worker": [cli, "sharpest", *frames, "--long-side", quarter, "--workers", "1"],
        "imagecore sharpest at 1/4, 2 workers": [cli, "sharpest", *frames, "--long-side", quarter, "--workers", "2", "--threads", "2"],
        "imagecore sharpest at 1280 px (3/8), 1 worker": [cli, "sharpest", *frames, "--workers", "1"],
        "OpenCV": [py, peers_py, "once", "W7", "OpenCV", os.path.dirname(frames[0])],
    }
    base = {"Pillow": [py, peers_py, "import", "W1", "Pillow"], "OpenCV": [py, peers_py, "import", "W1", "OpenCV"]}
    rows = []
    m1 = measure({**w1, **{f"{k} (imports only)": v for k, v in base.items()}}, rounds, launcher, env)
    m2 = measure(w2, rounds, launcher, env)
    m1p = measure(w1p, rounds, launcher, env)
    m1e = measure(w1e, rounds, launcher, env)
    m7 = measure(w7, rounds, launcher, env)
    ics = {"W2": "imagecore scan", "W7": "imagecore sharpest at 1/4, 1 worker"}
    floors = {"W7": "C floor: tjDecompress2 TJPF_GRAY at 1/4, 8 files"}
    for workload, m, names in (("W1", m1, w1), ("W2", m2, w2), ("W1p", m1p, w1p), ("W1e", m1e, w1e), ("W7", m7, w7)):
        ic = m[ics.get(workload, "imagecore thumbnail")]
        floor = m.get(floors.get(workload, "C floor: tjDecompress2 at 1/8")) or m1["C floor: tjDecompress2 at 1/8"]
        for name in names:
            ms, mib = m[name]
            b = m1.get(f"{name} (imports only)")
            rows.append({"workload": workload, "program": name, "ms": ms, "peak_mib": mib,
                         "above_baseline_mib": (mib - b[1]) if b else None,
                         "baseline_ms": b[0] if b else None, "ratio_ic": ic[0] / ms if ms else None,
                         "ratio_floor": ms / floor[0] if workload != "W2" else None})
    return rows


def batch(jpg, cli, bench, files=1000):
    """Batch throughput: `imagecore thumbnail --files-from` over `files` hard links to `jpg`
    (read from the page cache, as the in-process bench reads from memory), one worker and one
    thread, beside the in-process bench's thumbnail rate measured in the same run; and the
    `--skip-existing` re-run of the finished job. Returns a dict."""
    import json
    import shutil
    import time
    work = os.path.join(OUT, "batch")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "photos"))
    names = []
    for i in range(files):
        name = os.path.join(work, "photos", f"img{i:04d}.jpg")
        os.link(jpg, name)
        names.append(name)
    with open(os.path.join(work, "list.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    js = os.path.join(work, "bench.json")
    subprocess.run([bench, "thumbnail", "--image", jpg, "--threads", "1", "--repeat", "15", "--json", js],
                   check=True, capture_output=True)
    with open(js) as f:
        inproc_ms = json.load(f)["rows"][0]["medianMs"]
    cmd = [cli, "thumbnail", "--files-from", os.path.join(work, "list.txt"), "--workers", "1", "--threads", "1",
           "--size", "256", "-o", os.path.join(work, "thumbs"), "--quiet"]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True)
    t1 = time.monotonic()
    subprocess.run(cmd + ["--skip-existing"], check=True)
    t2 = time.monotonic()
    shutil.rmtree(work, ignore_errors=True)
    return {"files": files, "cli_ms_per_file": (t1 - t0) * 1e3 / files, "inproc_ms_per_file": inproc_ms,
            "rerun_s": t2 - t1}


def batch_markdown(b):
    return (f"\nBatch, one process: `imagecore thumbnail --files-from` over {b['files']} 12 MP files (hard links to "
            f"the same JPEG, page cache), 1 worker, 1 thread: {b['cli_ms_per_file']:.2f} ms per file = "
            f"{1e3 / b['cli_ms_per_file']:.1f} files/s, {b['inproc_ms_per_file'] / b['cli_ms_per_file']:.3f}× the "
            f"in-process bench's thumbnail rate measured in the same run ({b['inproc_ms_per_file']:.2f} ms per file); "
            f"a `--skip-existing` re-run of the finished job: {b['rerun_s']:.3f} s.\n")


def markdown(rows, rounds):
    lines = [f"Whole processes, one thread each, median of {rounds} alternating runs (launcher: `scripts/proc_run.c`, "
             "fork + exec + wait4). The Python peers' baseline is the same script with its imports and no work. "
             "W1: the built-in 12 MP JPEG → 256 px; W1p: a progressive JPEG → 256 px (the first progressive file in IMAGES, "
             "else the built-in image as progressive 4:2:2), also through libjpeg in the same binary (the path before #18); W1e: the built-in JPEG with a 160 × 120 EXIF thumbnail → 75 px.", "",
             "| workload | program | wall ms | × C floor | ImageCore / it | peak RSS MiB | above import baseline MiB |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        f = lambda v, d=2: "—" if v is None else f"{v:.{d}f}"  # noqa: E731
        lines.append(f"| {r['workload']} | {r['program']} | {f(r['ms'], 1)} | {f(r['ratio_floor'])} | {f(r['ratio_ic'])} | "
                     f"{f(r['peak_mib'], 1)} | {f(r['above_baseline_mib'], 1)} |")
    return "\n".join(lines) + "\n"
