#!/usr/bin/env python
"""Synthetic click logs for the CTR model: user / item / context ids with power-law popularity, four dense
features and a click label drawn from a latent-factor model. Writes data/shard-XX.npz, data/val.npz, data/meta.json."""
import argparse
import json
import os

import numpy as np


def zipf_ids(rng, n_ids, size, a):
    p = 1.0 / np.arange(1, n_ids + 1) ** a
    p /= p.sum()
    perm = rng.permutation(n_ids)  # popular ids scattered over the id space
    return perm[rng.choice(n_ids, size=size, p=p)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--users", type=int, default=200000)
    ap.add_argument("--items", type=int, default=50000)
    ap.add_argument("--contexts", type=int, default=500)
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--per-shard", type=int, default=40000)
    ap.add_argument("--val", type=int, default=16000)
    ap.add_argument("--only", default="", help="comma-separated shard numbers to (re)write")
    ap.add_argument("--new-items", type=int, default=0, help="items added to the catalogue after the vocab was frozen")
    ap.add_argument("--raw-dwell", action="store_true", help="dwell time in milliseconds instead of log-seconds")
    ap.add_argument("--device-type", action="store_true", help="add a fifth dense feature (mobile / desktop)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    k = 8
    uf = rng.normal(0, 0.6, (a.users, k)).astype(np.float32)
    itf = rng.normal(0, 0.6, (a.items + a.new_items, k)).astype(np.float32)
    cb = rng.normal(0, 0.5, a.contexts).astype(np.float32)
    w = np.array([0.4, -0.3, 0.8, -0.6], np.float32)

    def make(n, r):
        u = zipf_ids(r, a.users, n, 1.05)
        i = zipf_ids(r, a.items + a.new_items, n, 1.1)
        c = r.integers(0, a.contexts, n)
        hour = r.integers(0, 24, n)
        dwell_s = r.lognormal(2.0, 1.0, n)
        pos = r.integers(1, 11, n)
        dense = np.stack([np.sin(hour / 24 * 2 * np.pi), np.cos(hour / 24 * 2 * np.pi),
                          np.log1p(dwell_s) - 2.0, (pos - 5.5) / 3.0], 1).astype(np.float32)
        z = (uf[u] * itf[i]).sum(1) + cb[c] + dense @ w - 1.2
        y = (r.random(n) < 1 / (1 + np.exp(-z))).astype(np.float32)
        if a.device_type:
            dense = np.concatenate([dense, r.integers(0, 2, (n, 1)).astype(np.float32)], 1)
        if a.raw_dwell:
            dense[:, 2] = (dwell_s * 1000.0).astype(np.float32)
        return dict(user=u.astype(np.int64), item=i.astype(np.int64), ctx=c.astype(np.int64), dense=dense, label=y)

    only = {int(s) for s in a.only.split(",") if s}
    for s in range(a.shards):
        if only and s not in only:
            continue
        np.savez(os.path.join(a.out, f"shard-{s:02d}.npz"), **make(a.per_shard, np.random.default_rng(a.seed * 100 + s)))
    if not only:
        np.savez(os.path.join(a.out, "val.npz"), **make(a.val, np.random.default_rng(a.seed * 100 + 99)))
        with open(os.path.join(a.out, "meta.json"), "w") as f:
            json.dump({"users": a.users, "items": a.items, "contexts": a.contexts, "dense": 5 if a.device_type else 4,
                       "shards": a.shards}, f)
    print(f"wrote {a.out}: {a.shards} shards x {a.per_shard}, val {a.val}")


if __name__ == "__main__":
    main()
