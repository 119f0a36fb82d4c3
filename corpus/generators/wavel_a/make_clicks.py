"""Synthetic click logs for the CTR recommender: ``train-XXXXX.npz`` / ``val-XXXXX.npz`` shards with 13 dense count
features (float32, raw counts), 8 categorical id columns (int64, already mapped to table rows) and a 0/1 click label,
plus ``meta.json`` (column names, embedding-table sizes).

    python make_clicks.py --out data --shards 12 --per-shard 4000
"""
from __future__ import annotations

import argparse
import json
import os

import numpy as np

CATS = ["user_bucket", "item", "category", "brand", "city", "device", "hour", "campaign"]
SIZES = [5000, 20000, 300, 2000, 8000, 12, 24, 1500]
DENSE = [f"cnt_{i}" for i in range(13)]


def make(rng, n, sizes, w):
    cols = []
    for s in sizes:
        if s > 100:  # long-tailed popularity; the rare ids past the table fold into the head
            c = rng.zipf(1.3, n) - 1
            c = np.where(c < s, c, rng.integers(0, 50, n))
        else:
            c = rng.integers(0, s, n)
        cols.append(c)
    cats = np.stack(cols, axis=1).astype(np.int64)
    dense = rng.poisson(lam=np.linspace(0.5, 40, 13), size=(n, 13)).astype(np.float32)
    z = (np.log1p(dense) @ w[:13]) + 0.3 * np.sin(cats[:, 1] % 97) + 0.2 * (cats[:, 6] > 17) - 1.0
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(np.float32)
    return dense, cats, y


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=12)
    ap.add_argument("--per-shard", type=int, default=4000)
    ap.add_argument("--val-shards", type=int, default=2)
    ap.add_argument("--new-campaigns-shard", type=int, default=-1,
                    help="this shard comes from after the campaign catalogue grew: raw ids past the table")
    ap.add_argument("--missing-as-minus-one-shard", type=int, default=-1,
                    help="this shard's exporter wrote missing counts as -1 instead of 0")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)
    w = rng.normal(0, 0.15, 16)
    for i in range(a.shards):
        dense, cats, y = make(rng, a.per_shard, SIZES, w)
        if i == a.new_campaigns_shard:
            cats[a.per_shard // 3:, 7] = rng.integers(1500, 2400, a.per_shard - a.per_shard // 3)
        if i == a.missing_as_minus_one_shard:
            miss = rng.random(dense.shape) < 0.02
            dense[miss] = -1.0
        np.savez(os.path.join(a.out, f"train-{i:05d}.npz"), dense=dense, cats=cats, label=y)
    for i in range(a.val_shards):
        dense, cats, y = make(rng, a.per_shard // 2, SIZES, w)
        np.savez(os.path.join(a.out, f"val-{i:05d}.npz"), dense=dense, cats=cats, label=y)
    json.dump({"categorical": CATS, "table_sizes": SIZES, "dense": DENSE}, open(os.path.join(a.out, "meta.json"), "w"))
    print(f"wrote {a.shards} train + {a.val_shards} val shards of {a.per_shard} rows to {a.out}")


if __name__ == "__main__":
    main()
