"""Synthetic CT-like 32x32x32 volumes (Hounsfield units) with spherical (class 1) and ellipsoidal (class 2) lesions of
varying contrast, for seg3d.py. Writes data/vol-NN.npy (float32, N x D x H x W) and data/seg-NN.npy (uint8), one pair
per shard, and data/val-vol.npy / data/val-seg.npy."""
import argparse
import os

import numpy as np


def volume(rng, d=32, big=False, lesions=True):
    z, y, x = np.meshgrid(np.arange(d), np.arange(32), np.arange(32), indexing="ij")
    zc, yc, xc = (d - 1) / 2, 15.5, 15.5
    body = ((x - xc) / 14.5) ** 2 + ((y - yc) / 12.5) ** 2 <= 1.0
    v = np.where(body, rng.normal(40, 18, body.shape), rng.normal(-1000, 25, body.shape)).astype(np.float32)
    seg = np.zeros(v.shape, np.uint8)
    if not lesions:
        return v, seg
    for _ in range(rng.integers(1, 3)):  # spheres
        r = rng.uniform(9, 12) if big else rng.uniform(2.5, 5.5)
        c = rng.uniform([r, 8 + min(r, 6), 8 + min(r, 6)], [d - r, 24 - min(r, 6), 24 - min(r, 6)])
        m = ((z - c[0]) ** 2 + (y - c[1]) ** 2 + (x - c[2]) ** 2 <= r * r) & body
        v[m] += rng.uniform(25, 90)
        seg[m] = 1
    if rng.random() < 0.55:  # ellipsoids, hypodense
        a = rng.uniform([2, 3, 4], [4, 6, 8])
        c = rng.uniform([a[0] + 1, 9, 9], [d - a[0] - 1, 23, 23])
        m = (((z - c[0]) / a[0]) ** 2 + ((y - c[1]) / a[1]) ** 2 + ((x - c[2]) / a[2]) ** 2 <= 1) & body
        v[m] -= rng.uniform(20, 60)
        seg[m] = 2
    return v, seg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--volumes", type=int, default=24)
    ap.add_argument("--val", type=int, default=12)
    ap.add_argument("--slices", default="", help="shard:depth, a shard exported with another slice count")
    ap.add_argument("--big", default="", help="shard:count, volumes with large lesions in that shard")
    ap.add_argument("--partial", type=int, default=-1, help="leave this shard as .partial (sync in progress)")
    ap.add_argument("--extra", default="", help="shard:count, extra volumes in that shard")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sl = dict(map(int, s.split(":")) for s in a.slices.split(",") if s)
    big = dict(map(int, s.split(":")) for s in a.big.split(",") if s)
    extra = dict(map(int, s.split(":")) for s in a.extra.split(",") if s)
    for k in range(a.shards):
        rng = np.random.default_rng(100 + k)
        n = a.volumes + extra.get(k, 0)
        vs, ss = zip(*[volume(rng, sl.get(k, 32), big=i < big.get(k, 0)) for i in range(n)])
        suffix = ".partial" if k == a.partial else ""
        np.save(os.path.join(a.out, f"seg-{k:02d}.npy"), np.stack(ss))
        with open(os.path.join(a.out, f"vol-{k:02d}.npy{suffix}"), "wb") as f:
            np.save(f, np.stack(vs))
    rng = np.random.default_rng(7)
    vs, ss = zip(*[volume(rng, lesions=i % 6 != 5) for i in range(a.val)])
    np.save(os.path.join(a.out, "val-vol.npy"), np.stack(vs))
    np.save(os.path.join(a.out, "val-seg.npy"), np.stack(ss))
    print(f"wrote {a.shards} shards x {a.volumes} volumes + {a.val} validation volumes to {a.out}/")


if __name__ == "__main__":
    main()
