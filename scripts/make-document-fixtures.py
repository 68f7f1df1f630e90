#!/usr/bin/env python3
"""Makes the small document-detection fixtures under Tests/ImageCoreTests/Fixtures from the
shared corpus (run once; the tests read only the committed fixtures).

    python3 -m venv /tmp/venv-docs && /tmp/venv-docs/bin/pip install pillow
    /tmp/venv-docs/bin/python scripts/make-document-fixtures.py /work/shared/corpus

Backgrounds: four real photographs, converted to 8-bit gray (detection works on luma) and
reduced with a box filter to 640 px on the long side, as binary PGM. Pages: scikit-image's
page.png and text.png as binary PGM at their own size.
"""
import os
import sys

from PIL import Image

BACKGROUNDS = ["mate-Wood.jpg", "mate-Blinds.jpg", "mate-Storm.jpg", "mate-LadyBird.jpg"]
PAGES = ["skimage-page.png", "skimage-text.png"]


def main(corpus: str) -> None:
    out = os.path.join(os.path.dirname(__file__), "..", "Tests", "ImageCoreTests", "Fixtures")
    os.makedirs(out, exist_ok=True)
    for name in BACKGROUNDS:
        im = Image.open(os.path.join(corpus, name)).convert("L")
        scale = 640 / max(im.size)
        im = im.resize((round(im.width * scale), round(im.height * scale)), Image.BOX)
        im.save(os.path.join(out, "background-" + name.split("-", 1)[1].rsplit(".", 1)[0].lower() + ".pgm"))
    for name in PAGES:
        im = Image.open(os.path.join(corpus, name)).convert("L")
        im.save(os.path.join(out, name.rsplit(".", 1)[0] + ".pgm"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpus")
