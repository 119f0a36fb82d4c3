"""Write a synthetic click log (Criteo-like: label, 13 integer counts, 8 hashed categoricals) as day shards.

A hidden logistic model over per-category weights and log-counts decides the clicks, so a recommender can learn it.
"""
import argparse
import json
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--shards", type=int, default=6)
ap.add_argument("--rows", type=int, default=12000, help="rows per shard")
ap.add_argument("--cardinality", type=int, default=20000, help="distinct values per categorical field")
ap.add_argument("--format", choices=("tsv", "bin"), default="tsv")
ap.add_argument("--header-in-shard", type=int, default=-1, help="shard written by a CSV export that kept its header")
ap.add_argument("--epoch-ms-dense", action="store_true", help="I13 is the event time in epoch milliseconds")
a = ap.parse_args()

T, ND = 8, 13
rng = np.random.default_rng(2026)
w_cat = rng.normal(0, 0.8, (T, a.cardinality))
w_den = rng.normal(0, 0.4, ND)
os.makedirs(a.out, exist_ok=True)
for s in range(a.shards + 1):  # the last one is the eval day
    n = a.rows if s < a.shards else a.rows // 2
    cats = np.stack([rng.zipf(1.3, n) % a.cardinality for _ in range(T)], 1).astype(np.int64)
    dense = rng.poisson(rng.gamma(1.0, 6.0, (n, ND))).astype(np.int64)
    logit = w_cat[np.arange(T), cats].sum(1) * 0.5 + np.log1p(dense) @ w_den - 1.2
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    if a.epoch_ms_dense:
        dense[:, 12] = 1764000000000 + np.sort(rng.integers(0, 86400000, n))
    name = f"day-{s:02d}" if s < a.shards else "eval"
    if a.format == "bin":
        np.concatenate([y[:, None], dense, cats], 1).astype(np.int64).tofile(f"{a.out}/{name}.bin")
    else:
        with open(f"{a.out}/{name}.tsv", "w") as f:
            if s == a.header_in_shard:
                f.write("label\t" + "\t".join(f"I{i+1}" for i in range(ND)) + "\t"
                        + "\t".join(f"C{i+1}" for i in range(T)) + "\n")
            for i in range(n):
                f.write("%d\t%s\t%s\n" % (y[i], "\t".join(map(str, dense[i])),
                                           "\t".join("%08x" % (c * 2654435761 % 2**32) for c in cats[i])))
json.dump({"tables": T, "dense": ND, "format": a.format, "shards": a.shards, "rows_per_shard": a.rows,
           "fields": [f"C{i+1}" for i in range(T)]}, open(f"{a.out}/meta.json", "w"), indent=1)
print(f"wrote {a.shards} day shards + eval ({a.format}) to {a.out}/")
