#!/usr/bin/env bash
# Installs what `make peers` needs: Debian's libvips, libyuv and TurboJPEG (through
# scripts/deps.sh, which installs only what is missing), and a Python virtual environment
# with OpenCV, Pillow, pyvips, NumPy, SciPy and matplotlib from PyPI.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/../../scripts/deps.sh" libvips42 libvips-tools libyuv-dev libturbojpeg0-dev python3-venv time
if [[ ! -x "$here/.venv/bin/python" ]]; then
    python3 -m venv "$here/.venv"
fi
"$here/.venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
