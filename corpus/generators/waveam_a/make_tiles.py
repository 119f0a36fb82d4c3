"""Synthetic multispectral satellite tiles for land-cover classification.

Eight bands (coastal, blue, green, red, red-edge, NIR, SWIR1, SWIR2) at 32x32 pixels, surface reflectance in 0..1.
Each class has its own spectral signature and spatial texture (smooth water, blobby forest canopy, striped cropland,
gridded urban blocks, speckled bare soil, ...). Shards are written as data/<split>-NN.npz with x [N, bands, H, W]
float32 and y [N] int64.
"""
import argparse
import os

import numpy as np

CLASSES = ["water", "forest", "grassland", "cropland", "urban", "bare_soil", "wetland", "snow_ice"]
BANDS = ["coastal", "blue", "green", "red", "red_edge", "nir", "swir1", "swir2"]
# mean reflectance per class and band
SIGNATURE = np.array([
    [0.08, 0.07, 0.06, 0.04, 0.03, 0.02, 0.01, 0.01],  # water
    [0.03, 0.03, 0.06, 0.03, 0.15, 0.35, 0.16, 0.07],  # forest
    [0.05, 0.05, 0.09, 0.07, 0.20, 0.32, 0.25, 0.14],  # grassland
    [0.06, 0.06, 0.10, 0.09, 0.22, 0.30, 0.28, 0.18],  # cropland
    [0.12, 0.12, 0.13, 0.14, 0.16, 0.20, 0.24, 0.22],  # urban
    [0.10, 0.11, 0.15, 0.20, 0.24, 0.27, 0.34, 0.30],  # bare soil
    [0.05, 0.05, 0.07, 0.05, 0.12, 0.20, 0.10, 0.05],  # wetland
    [0.85, 0.84, 0.82, 0.80, 0.75, 0.65, 0.10, 0.08],  # snow/ice
], dtype=np.float32)
EXTRA_SIGNATURE = np.array([[0.02, 0.01], [0.10, 0.05], [0.12, 0.07], [0.15, 0.10], [0.18, 0.16],
                            [0.25, 0.22], [0.06, 0.03], [0.05, 0.04]], dtype=np.float32)  # B8A, B9


def texture(rng, cls, size):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    if cls == 0:  # water: smooth ripples
        f = rng.uniform(1, 3)
        t = 0.1 * np.sin(2 * np.pi * f * (xx * np.cos(rng.uniform(0, 6)) + yy))
    elif cls in (1, 6):  # canopy / marsh: smoothed blobs
        n = rng.normal(size=(size // 4, size // 4)).astype(np.float32)
        t = 0.35 * np.kron(n, np.ones((4, 4), np.float32))[:size, :size]
    elif cls == 3:  # cropland: field stripes
        ang, f = rng.uniform(0, np.pi), rng.uniform(3, 7)
        t = 0.3 * np.sign(np.sin(2 * np.pi * f * (xx * np.cos(ang) + yy * np.sin(ang))))
    elif cls == 4:  # urban: block grid
        s = rng.integers(3, 7)
        t = 0.4 * (((np.arange(size)[:, None] // s) + (np.arange(size)[None, :] // s)) % 2 - 0.5)
    elif cls == 5:  # bare soil: speckle
        t = 0.25 * rng.normal(size=(size, size)).astype(np.float32)
    elif cls == 7:  # snow: faint drifts
        t = 0.05 * np.sin(2 * np.pi * rng.uniform(1, 2) * xx)
    else:  # grassland: fine noise
        t = 0.12 * rng.normal(size=(size, size)).astype(np.float32)
    return t.astype(np.float32)


def make_tiles(rng, n, size, bands, classes):
    y = rng.choice(classes, size=n).astype(np.int64)
    sig = SIGNATURE if bands == 8 else np.concatenate([SIGNATURE[:, :5], EXTRA_SIGNATURE, SIGNATURE[:, 5:]], 1)
    x = np.empty((n, bands, size, size), np.float32)
    for i, c in enumerate(y):
        base = sig[min(c, len(sig) - 1)] * rng.uniform(0.85, 1.15)
        t = texture(rng, int(c), size)
        x[i] = base[:, None, None] * (1.0 + t[None]) + rng.normal(0, 0.01, (bands, size, size))
    return np.clip(x, 0.0005, 1.0), y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--train-shards", type=int, default=8)
    ap.add_argument("--val-shards", type=int, default=2)
    ap.add_argument("--per-shard", type=int, default=300)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--bands", type=int, default=8, choices=(8, 10))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="write only this shard, e.g. train-03")
    ap.add_argument("--classes", default="", help="comma-separated class ids to draw from (default: all)")
    ap.add_argument("--cloud-share", type=float, default=0.0, help="share of tiles labelled 'cloud' (new class id 8)")
    ap.add_argument("--swath-edge", type=float, default=0.0,
                    help="share of tiles cut by the swath edge (pixels outside the swath are 0 in every band)")
    ap.add_argument("--scale", type=float, default=1.0, help="1 = reflectance; 10000 = digital numbers")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    classes = [int(c) for c in a.classes.split(",")] if a.classes else list(range(len(CLASSES)))
    shards = [f"train-{i:02d}" for i in range(a.train_shards)] + [f"val-{i:02d}" for i in range(a.val_shards)]
    for k, name in enumerate(shards):
        if a.only and name != a.only:
            continue
        rng = np.random.default_rng(a.seed * 1000 + k)
        x, y = make_tiles(rng, a.per_shard, a.size, a.bands, classes)
        if a.cloud_share:
            m = rng.random(len(y)) < a.cloud_share
            x[m] = np.clip(0.7 + 0.1 * rng.normal(size=x[m].shape), 0, 1).astype(np.float32)
            y[m] = 8
        if a.swath_edge:
            for i in np.flatnonzero(rng.random(len(y)) < a.swath_edge):
                x[i, :, :, : rng.integers(2, a.size // 2)] = 0.0
        if a.scale != 1.0:
            x = x * a.scale
        np.savez(os.path.join(a.out, name + ".npz"), x=x, y=y)
        print(f"wrote {a.out}/{name}.npz: {len(y)} tiles, {a.bands} bands, {a.size}x{a.size}")


if __name__ == "__main__":
    main()
