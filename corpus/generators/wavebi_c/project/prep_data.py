"""Write the synthetic churn-style tabular dataset (data/train.csv, data/val.csv) and its packed copy for the fast loader."""
import argparse
import os
import struct

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=2048)
ap.add_argument("--features", type=int, default=16)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--append-row", default="")
ap.add_argument("--index-base", type=int, default=0)
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
os.makedirs("data", exist_ok=True)
w = rng.normal(size=a.features)
for split, n in (("train", a.rows), ("val", a.rows // 4)):
    x = rng.normal(size=(n, a.features)).astype(np.float32)
    y = (x @ w + 0.3 * rng.normal(size=n) > 0).astype(np.int64)
    with open(f"data/{split}.csv", "w") as f:
        f.write(",".join(f"f{i}" for i in range(a.features)) + ",label\n")
        for r, t in zip(x, y):
            f.write(",".join(f"{v:.5f}" for v in r) + f",{t}\n")
        if split == "train" and a.append_row:
            f.write(a.append_row + "\n")
    # packed copy: header (rows, features, data offset) then float32 rows then int64 labels
    with open(f"data/{split}.bin", "wb") as f:
        f.write(struct.pack("<qqq", n, a.features, 24 + a.index_base))
        f.write(x.tobytes())
        f.write(y.tobytes())
