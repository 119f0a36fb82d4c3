"""Write a synthetic click log (data/events.bin: packed categorical strings, data/events.idx: int64 offsets + int32
lengths, data/dense.npy, data/labels.txt) and build the fhash helper library."""
import argparse
import os
import subprocess

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=3072)
ap.add_argument("--slots", type=int, default=6)
ap.add_argument("--dense", type=int, default=8)
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--writer-bug-at", type=int, default=-1)  # one offset written wrong by an old writer
ap.add_argument("--label-fix", default="")  # ROW:VALUE written into labels.txt as is
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
vocab = [[f"s{s}_v{v:04d}" for v in range(200)] for s in range(a.slots)]
cats = rng.integers(0, 200, size=(a.rows, a.slots))
dense = rng.normal(size=(a.rows, a.dense)).astype(np.float32)
wv = rng.normal(size=(a.slots, 200))
score = dense @ rng.normal(size=a.dense) * 0.5 + wv[np.arange(a.slots), cats].sum(1)
y = np.digitize(score, np.quantile(score, [0.55, 0.85]))  # 0 no click, 1 click, 2 conversion
os.makedirs("data", exist_ok=True)
buf, offs, lens = bytearray(), [], []
for i in range(a.rows):
    for s in range(a.slots):
        b = vocab[s][cats[i, s]].encode()
        offs.append(len(buf))
        lens.append(len(b))
        buf += b
offs = np.array(offs, dtype=np.int64)
if a.writer_bug_at >= 0:
    offs[a.writer_bug_at * a.slots] = np.int64(1) << 43
with open("data/events.bin", "wb") as f:
    f.write(bytes(buf))
with open("data/events.idx", "wb") as f:
    f.write(np.array([a.rows, a.slots], dtype=np.int64).tobytes())
    f.write(offs.tobytes())
    f.write(np.array(lens, dtype=np.int32).tobytes())
np.save("data/dense.npy", dense)
labels = [str(int(v)) for v in y]
if a.label_fix:
    row, val = a.label_fix.split(":", 1)
    labels[int(row)] = val
with open("data/labels.txt", "w") as f:
    f.write("\n".join(labels) + "\n")
subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", "libfhash.so", "fhash.c"], check=True)
print("wrote", a.rows, "rows")
