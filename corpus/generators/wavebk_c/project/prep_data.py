"""Write a synthetic packed shard (data/train.fp: header, offset table, float32 records; data/labels.txt) and build
the fastpack helper library."""
import argparse
import struct
import subprocess

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=2048)
ap.add_argument("--dim", type=int, default=32)
ap.add_argument("--classes", type=int, default=10)
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--writer-bug-at", type=int, default=-1)  # offset table entry written wrong by an old writer
ap.add_argument("--label-fix", default="")  # ROW:VALUE written into labels.txt as is
ap.add_argument("--drop-class-from", default="")  # RANKS:WORLD  -> that shard has no example of the top class
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
w = rng.normal(size=(a.dim, a.classes))
x = rng.normal(size=(a.rows, a.dim)).astype(np.float32)
y = (x @ w + 0.5 * rng.normal(size=(a.rows, a.classes))).argmax(1)
if a.drop_class_from:
    r, world = (int(v) for v in a.drop_class_from.split(":"))
    top = a.classes - 1
    for i in range(r, a.rows, world):
        if y[i] == top:
            y[i] = 0
header = struct.pack("<4sIII", b"FPK1", a.rows, a.dim, 0)
table = 16 + 8 * a.rows
offsets = np.arange(a.rows, dtype=np.int64) * (4 * a.dim) + table
if a.writer_bug_at >= 0:
    offsets[a.writer_bug_at] = np.int64(1) << 44
import os
os.makedirs("data", exist_ok=True)
with open("data/train.fp", "wb") as f:
    f.write(header)
    f.write(offsets.tobytes())
    f.write(x.tobytes())
labels = [str(int(v)) for v in y]
if a.label_fix:
    row, val = a.label_fix.split(":", 1)
    labels[int(row)] = val
with open("data/labels.txt", "w") as f:
    f.write("\n".join(labels) + "\n")
subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", "libfastpack.so", "fastpack.c"], check=True)
print("wrote", a.rows, "rows")
