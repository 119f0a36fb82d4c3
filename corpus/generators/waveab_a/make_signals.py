"""Render a set of synthetic 2D RGB signals (one .npy per signal, HxWx3 float32 in [0, 1]) for inr.py: Gabor
patches, radial chirps, Voronoi cells, smooth noise and text-like bars. ``--gray K`` writes signal K as a single channel
(as an exporter that drops the colour axis of a grey image does). The writer holds an exclusive flock on
``<out>/.lock`` while it writes, readers take a shared one."""
import argparse
import fcntl
import os
import time

import numpy as np


def render(kind, res, rng):
    y, x = np.mgrid[0:res, 0:res].astype(np.float32) / res * 2 - 1
    img = np.zeros((res, res, 3), np.float32)
    for c in range(3):
        if kind == 0:  # gabor
            th, f = rng.uniform(0, np.pi), rng.uniform(3, 9)
            u = x * np.cos(th) + y * np.sin(th)
            img[..., c] = 0.5 + 0.5 * np.exp(-(x**2 + y**2) / 0.4) * np.cos(2 * np.pi * f * u + c)
        elif kind == 1:  # radial chirp
            r = np.sqrt(x**2 + y**2)
            img[..., c] = 0.5 + 0.5 * np.sin(rng.uniform(8, 20) * r**2 + c)
        elif kind == 2:  # voronoi cells
            pts = rng.uniform(-1, 1, (12, 2))
            d = ((x[..., None] - pts[:, 0]) ** 2 + (y[..., None] - pts[:, 1]) ** 2).argmin(-1)
            img[..., c] = rng.uniform(0, 1, 12)[d]
        else:  # smooth noise
            g = rng.uniform(0, 1, (8, 8))
            img[..., c] = np.kron(g, np.ones((res // 8, res // 8)))[:res, :res]
    return img


ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--n", type=int, default=4)
ap.add_argument("--res", type=int, default=64)
ap.add_argument("--gray", type=int, default=-1)
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
rng = np.random.default_rng(a.seed)
with open(os.path.join(a.out, ".lock"), "w") as lk:
    fcntl.flock(lk, fcntl.LOCK_EX)
    t0 = time.time()
    for i in range(a.n):
        img = render(i % 4, a.res, rng)
        if i == a.gray:
            img = img.mean(-1)
        np.save(os.path.join(a.out, f"signal_{i:03d}.npy"), img)
        if i % 50 == 0:
            print(f"signal {i}/{a.n} ({time.time() - t0:.0f} s)", flush=True)
    print(f"wrote {a.n} signals {a.res}x{a.res} to {a.out}", flush=True)
