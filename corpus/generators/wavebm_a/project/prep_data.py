"""Write per-process data shards (synthetic regression) and their sample index files."""
import argparse
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--shards", type=int, default=3)
ap.add_argument("--rows", type=int, default=4096)
ap.add_argument("--features", type=int, default=32)
ap.add_argument("--index-fix", default="")  # shard:pos:value
ap.add_argument("--header-fix", default="")  # shard:value
a = ap.parse_args()
os.makedirs("data", exist_ok=True)
rng = np.random.default_rng(0)
w = rng.normal(size=(a.features,)).astype(np.float32)
for s in range(a.shards):
    x = rng.normal(size=(a.rows, a.features)).astype(np.float32)
    y = (np.tanh(x @ w / 4.0) + 0.05 * rng.normal(size=a.rows)).astype(np.float32)
    np.savez(f"data/shard_{s}.npz", x=x, y=y)
    idx = np.concatenate([rng.permutation(a.rows) for _ in range(8)]).astype(np.int64)
    off = np.array([0], dtype=np.int64)
    if a.index_fix and int(a.index_fix.split(":")[0]) == s:
        _, pos, val = a.index_fix.split(":")
        idx[int(pos)] = int(val)
    if a.header_fix and int(a.header_fix.split(":")[0]) == s:
        off[0] = int(a.header_fix.split(":")[1])
    np.save(f"data/index_{s}.npy", idx)
    np.save(f"data/offset_{s}.npy", off)
