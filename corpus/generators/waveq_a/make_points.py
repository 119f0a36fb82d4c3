"""Synthetic 2-D point-cloud data for the DDPM trainer: a mixture of a swiss roll, eight Gaussians and two moons,
written as per-rank shards ``shard-NN.npy`` (float32, N x 2), a held-out reference set ``ref.npy`` and, with
``--raw``, one packed float32 file ``points.f32`` (+ ``points.json``) that the trainer can memory-map."""
import argparse
import json
import os
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--shards", type=int, default=4)
ap.add_argument("--per-shard", type=int, default=60000)
ap.add_argument("--uneven", action="store_true", help="shard sizes follow the export's day-by-day volume")
ap.add_argument("--shard-3d", type=int, default=-1, help="this shard comes from the 3-D (x, y, z) export")
ap.add_argument("--raw", action="store_true", help="also write the packed float32 file for memory-mapping")
ap.add_argument("--refresh-raw", action="store_true", help="re-export points.f32 in place (nightly refresh)")
ap.add_argument("--seed", type=int, default=0)
a = ap.parse_args()
rng = np.random.default_rng(a.seed)


def sample(n, dim=2):
    k = rng.integers(0, 3, n)
    out = np.zeros((n, 3), np.float32)
    m = k == 0  # swiss roll
    t = 1.5 * np.pi * (1 + 2 * rng.random(m.sum()))
    out[m, 0], out[m, 1] = t * np.cos(t) / 6, t * np.sin(t) / 6
    out[m, 2] = rng.random(m.sum()) * 2 - 1
    m = k == 1  # eight Gaussians
    ang = rng.integers(0, 8, m.sum()) * np.pi / 4
    out[m, 0], out[m, 1] = 2.5 * np.cos(ang), 2.5 * np.sin(ang)
    out[m, :2] += 0.15 * rng.standard_normal((m.sum(), 2))
    m = k == 2  # two moons
    th = np.pi * rng.random(m.sum())
    up = rng.random(m.sum()) < 0.5
    out[m, 0] = np.where(up, np.cos(th), 1 - np.cos(th)) - 0.5
    out[m, 1] = np.where(up, np.sin(th), 0.5 - np.sin(th)) - 0.25
    out[m, :2] += 0.05 * rng.standard_normal((m.sum(), 2))
    return out[:, :dim]


os.makedirs(a.out, exist_ok=True)
if a.refresh_raw:
    n = json.load(open(os.path.join(a.out, "points.json")))["n"]
    print(f"refreshing {a.out}/points.f32 in place ({n} points)", flush=True)
    with open(os.path.join(a.out, "points.f32"), "wb") as f:  # truncates, then streams the new export
        for i in range(0, n, 20000):
            f.write(sample(min(20000, n - i)).tobytes())
            f.flush()
            time.sleep(0.5)
    raise SystemExit(0)
sizes = [a.per_shard] * a.shards
if a.uneven:
    sizes = [int(a.per_shard * f) for f in (1.0, 0.55, 0.8, 0.7)[: a.shards]]
for s, n in enumerate(sizes):
    np.save(os.path.join(a.out, f"shard-{s:02d}.npy"), sample(n, 3 if s == a.shard_3d else 2))
np.save(os.path.join(a.out, "ref.npy"), sample(20000))
meta = {"shards": a.shards, "sizes": sizes, "dim": 2, "mixture": ["swiss_roll", "8_gaussians", "two_moons"]}
if a.raw:
    allp = sample(a.per_shard * a.shards)
    allp.tofile(os.path.join(a.out, "points.f32"))
    json.dump({"n": len(allp), "dim": 2, "dtype": "float32"}, open(os.path.join(a.out, "points.json"), "w"))
json.dump(meta, open(os.path.join(a.out, "meta.json"), "w"))
print(f"wrote {a.shards} shards {sizes} + ref (20000) to {a.out}", flush=True)
