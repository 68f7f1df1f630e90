"""The peers' side of each workload: OpenCV, Pillow and libvips doing the same work as
ImageCore, one thread each. Every function takes the prepared inputs and returns
(callable, output_fn): the callable is timed; output_fn() returns what it produced (for
quality checks). Run as a script, one workload in a fresh process, to measure its peak RSS:
    python peers.py rss WORKLOAD PEER INPUT.jpg
"""
import io
import glob
import json
import os
import sys

os.environ.setdefault("VIPS_CONCURRENCY", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

THUMB = 256
A4_150 = (1240, 1754)
A4_300 = (2480, 3508)


def scan_corners(w, h):
    """The page corners every scanner and warp run uses (TL, TR, BR, BL): the same portrait
    page in perspective as ImageCore's bench (`DocumentWorkloads.pageQuad`), so that both
    sides of W2 and W5 warp the same source region; keep the two in step."""
    return np.array([[0.273 * w, 0.050 * h], [0.732 * w, 0.086 * h], [0.756 * w, 0.959 * h], [0.243 * w, 0.932 * h]])


def dst_corners(size):
    w, h = size
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)


def homography(src, dst):
    """3x3 H with dst ~ H src (pixel-corner coordinates), in float64."""
    a = []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.array(a))
    return (vt[-1] / vt[-1, -1]).reshape(3, 3)


# ---- OpenCV ---------------------------------------------------------------------

def cv():
    import cv2
    cv2.setNumThreads(1)
    return cv2


def opencv_thumbnail(path):
    cv2 = cv()
    from PIL import Image
    w, h = Image.open(path).size  # header only
    flag, f = cv2.IMREAD_COLOR, 1
    for flg, fac in ((cv2.IMREAD_REDUCED_COLOR_8, 8), (cv2.IMREAD_REDUCED_COLOR_4, 4), (cv2.IMREAD_REDUCED_COLOR_2, 2)):
        if max(w, h) // fac >= THUMB:
            flag, f = flg, fac
            break
    s = THUMB / max(w, h)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    out = {}

    def run():
        img = cv2.imread(path, flag)
        out["img"] = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    return run, lambda: out["img"][..., ::-1]


def opencv_scan(path):
    cv2 = cv()
    out = {}

    def run():
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        h, w = img.shape[:2]
        m = cv2.getPerspectiveTransform(scan_corners(w, h).astype(np.float32), dst_corners(A4_150).astype(np.float32))
        page = cv2.warpPerspective(img, m, A4_150, flags=cv2.INTER_LINEAR)
        out["jpg"] = cv2.imencode(".jpg", page, [cv2.IMWRITE_JPEG_QUALITY, 85])[1]
    return run, lambda: out["jpg"]


def opencv_resize(rgba, interp):
    cv2 = cv()
    h, w = rgba.shape[:2]
    size = (1024, round(h * 1024 / w))
    out = {}
    flag = {"area": cv2.INTER_AREA, "lanczos4": cv2.INTER_LANCZOS4, "linear": cv2.INTER_LINEAR}[interp]

    def run():
        out["img"] = cv2.resize(rgba, size, interpolation=flag)
    return run, lambda: out["img"]


def opencv_warp(rgba):
    cv2 = cv()
    h, w = rgba.shape[:2]
    m = cv2.getPerspectiveTransform(scan_corners(w, h).astype(np.float32), dst_corners(A4_300).astype(np.float32))
    out = {}

    def run():
        out["img"] = cv2.warpPerspective(rgba, m, A4_300, flags=cv2.INTER_LINEAR)
    return run, lambda: out["img"]


LAPLACIAN = np.array([[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], dtype=np.float32)


def opencv_laplacian_score(gray):
    cv2 = cv()
    out = {}

    def run():
        resp = cv2.filter2D(gray, cv2.CV_16S, LAPLACIAN)  # border: reflect-101 (default)
        mean, std = cv2.meanStdDev(resp)
        out["score"] = float(std[0, 0])
    return run, lambda: out["score"]


def opencv_burst(paths):
    cv2 = cv()
    out = {}

    def run():
        scores = []
        for p in paths:
            g = cv2.imread(p, cv2.IMREAD_REDUCED_GRAYSCALE_4)  # nearest OpenCV scale to ~1280 px
            resp = cv2.filter2D(g, cv2.CV_16S, LAPLACIAN)
            scores.append(float(cv2.meanStdDev(resp)[1][0, 0]))
        out["best"] = int(np.argmax(scores))
    return run, lambda: out["best"]


def opencv_yuv(rgba, op, yuv_input):
    """op: rgba_to_i420 | i420_to_rgba | nv12_to_rgba (OpenCV's YUV is BT.601 video range)."""
    cv2 = cv()
    h, w = rgba.shape[:2]
    out = {}
    if op == "rgba_to_i420":
        def run():
            out["v"] = cv2.cvtColor(rgba, cv2.COLOR_RGBA2YUV_I420)
    else:
        arr = np.frombuffer(yuv_input, np.uint8).reshape(h * 3 // 2, w)
        code = cv2.COLOR_YUV2RGBA_I420 if op == "i420_to_rgba" else cv2.COLOR_YUV2RGBA_NV12

        def run():
            out["v"] = cv2.cvtColor(arr, code)
    return run, lambda: out["v"]


def opencv_rotate(rgba):
    cv2 = cv()
    out = {}

    def run():
        out["v"] = cv2.rotate(rgba, cv2.ROTATE_90_CLOCKWISE)
    return run, lambda: out["v"]


# ---- Pillow ---------------------------------------------------------------------

def pillow_thumbnail(path):
    from PIL import Image
    out = {}

    def run():
        im = Image.open(path)
        im.draft("RGB", (THUMB, THUMB))
        im.thumbnail((THUMB, THUMB))
        out["img"] = im
    return run, lambda: np.asarray(out["img"].convert("RGB"))


def pillow_scan(path):
    from PIL import Image
    out = {}

    def run():
        im = Image.open(path)
        w, h = im.size
        hm = homography(dst_corners(A4_150), scan_corners(w, h))  # output -> input, as PIL wants
        page = im.transform(A4_150, Image.PERSPECTIVE, tuple(hm.flatten()[:8]), Image.BILINEAR)
        buf = io.BytesIO()
        page.save(buf, "JPEG", quality=85)
        out["jpg"] = buf.getvalue()
    return run, lambda: out["jpg"]


def pillow_resize(rgba):
    from PIL import Image
    im = Image.fromarray(rgba, "RGBA")
    h, w = rgba.shape[:2]
    size = (1024, round(h * 1024 / w))
    out = {}

    def run():
        out["img"] = im.resize(size, Image.LANCZOS)
    return run, lambda: np.asarray(out["img"])


# ---- libvips --------------------------------------------------------------------

def vips_thumbnail(path):
    import pyvips
    out = {}

    def run():
        out["img"] = pyvips.Image.thumbnail(path, THUMB).write_to_memory()
    return run, lambda: out["img"]


def vips_resize(rgba):
    import pyvips
    h, w = rgba.shape[:2]
    im = pyvips.Image.new_from_memory(rgba.tobytes(), w, h, 4, "uchar")
    out = {}

    def run():
        r = im.resize(1024 / w, kernel="lanczos3")
        out["img"] = np.frombuffer(r.write_to_memory(), np.uint8).reshape(r.height, r.width, 4)
    return run, lambda: out["img"]


# ---- RSS mode --------------------------------------------------------------------

def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


RSS_WORKLOADS = {
    ("W1", "libvips"): vips_thumbnail, ("W1", "Pillow"): pillow_thumbnail, ("W1", "OpenCV"): opencv_thumbnail,
    ("W2", "OpenCV"): opencv_scan, ("W2", "Pillow"): pillow_scan,
    # W7's input is the folder holding the eight burst frames (burst_*.jpg).
    ("W7", "OpenCV"): lambda folder: opencv_burst(sorted(glob.glob(os.path.join(folder, "burst_*.jpg")))),
}

if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "rss":
        _, _, workload, peer, path = sys.argv
        run, _ = RSS_WORKLOADS[(workload, peer)](path)
        base = status_kb("VmRSS:")
        run()
        print(json.dumps({"baseline_kb": base, "hwm_kb": status_kb("VmHWM:")}))
    elif len(sys.argv) == 5 and sys.argv[1] == "once":
        # One workload once, as a whole process (process.py times and measures it from outside).
        _, _, workload, peer, path = sys.argv
        run, _ = RSS_WORKLOADS[(workload, peer)](path)
        run()
    elif len(sys.argv) == 4 and sys.argv[1] == "import":
        # The same process with its imports and setup but no work: the peer's baseline.
        _, _, workload, peer = sys.argv
        # NumPy is imported at the top of this file, as for the work; then what make() imports.
        if peer == "OpenCV":
            cv()
        if peer in ("OpenCV", "Pillow"):
            from PIL import Image  # noqa: F401
        if peer == "libvips":
            import pyvips  # noqa: F401
    else:
        sys.exit("usage: peers.py rss|once WORKLOAD PEER INPUT.jpg | peers.py import WORKLOAD PEER")
