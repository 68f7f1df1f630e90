#!/usr/bin/env bash
# The README's Spark recipe, run in Spark's local[2] mode (make scale-test): a file-path RDD
# whose partitions are each piped through `imagecore thumbnail --files-from - --json`; the
# JSON lines come back as a DataFrame (the result table). Installs Java 17 (Debian) and
# pyspark (PyPI) into its own virtual environment, .build-scale/venv.
#   scripts/scale-spark.sh [IMAGECORE]      (default: the static build, .build-static/release/imagecore)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh openjdk-17-jre-headless python3-venv
if [[ -z "${1:-}" ]]; then
    scripts/build-cli.sh > /dev/null
fi
ic=$(realpath "${1:-.build-static/release/imagecore}")
venv=.build-scale/venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check pyspark==4.3.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/photos"
for i in 1 2 3; do
    { printf 'P6\n1600 1200\n255\n'; head -c $((1600 * 1200 * 3)) /dev/urandom; } > "$work/noise$i.ppm"
    for q in 70 80 90 95; do "$ic" encode "$work/noise$i.ppm" "$work/photos/p${i}_q$q.jpg" --quality "$q" --quiet; done
done
printf 'not a jpeg' > "$work/photos/broken.jpg"
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")} \
    "$venv/bin/python" scripts/scale_spark.py "$ic" "$work/photos" "$work/thumbs"
