"""The Spark recipe of the README's "At scale" (run by scripts/scale-spark.sh):

    paths = sc.parallelize(files, partitions)
    lines = paths.pipe("imagecore thumbnail --files-from - --json --quiet -o OUT/{stem}.jpg")
    table = spark.read.json(lines)

Each partition's paths go to one imagecore process on its standard input; its JSON lines
(one per file) come back and become a DataFrame. The script checks the table: one row per
file, the broken file's error, every other file's thumbnail on disk.
    python scale_spark.py IMAGECORE PHOTOS_DIR OUT_DIR
"""
import os
import sys

from pyspark.sql import SparkSession

ic, photos, out = sys.argv[1:4]
files = sorted(os.path.join(photos, f) for f in os.listdir(photos) if f.endswith(".jpg"))
spark = SparkSession.builder.master("local[2]").appName("imagecore-thumbnails").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
paths = spark.sparkContext.parallelize(files, 4)
lines = paths.pipe(f"{ic} thumbnail --files-from - --json --quiet --workers 1 --threads 1 --size 256 -o {out}/{{stem}}.jpg")
table = spark.read.json(lines)
table.select("input", "output", "width", "height", "scale", "ms", "error").orderBy("input").show(len(files), truncate=60)
rows = table.collect()
by_input = {r["input"]: r for r in rows}
assert len(rows) == len(files) and set(by_input) == set(files), f"{len(rows)} rows for {len(files)} files"
for f, r in by_input.items():
    if f.endswith("broken.jpg"):
        assert r["error"] and "broken.jpg" in r["error"] and r["output"] is None, r
    else:
        assert r["error"] is None and max(r["width"], r["height"]) == 256 and os.path.getsize(r["output"]) > 0, r
print(f"scale-spark: ok ({len(rows)} rows, {sum(r['error'] is None for r in rows)} thumbnails, 1 error reported)")
spark.stop()
