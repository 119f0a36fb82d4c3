"""Render synthetic texture images for super-resolution training (HR patches, RGB, float in [0, 1] saved as uint8)."""
import argparse
import os
import time

import numpy as np


def texture(rng, size):
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    img = np.zeros((3, size, size), np.float32)
    for _ in range(rng.integers(2, 5)):
        kind = rng.integers(0, 4)
        f = rng.uniform(2, 14)
        th = rng.uniform(0, np.pi)
        u = x * np.cos(th) + y * np.sin(th)
        if kind == 0:
            layer = 0.5 + 0.5 * np.sin(2 * np.pi * f * u)
        elif kind == 1:
            layer = (np.floor(f * x) + np.floor(f * y)) % 2
        elif kind == 2:
            cx, cy = rng.uniform(0, 1, 2)
            layer = 0.5 + 0.5 * np.cos(2 * np.pi * f * np.hypot(x - cx, y - cy))
        else:
            layer = (u * f % 1.0 < 0.5).astype(np.float32)
        col = rng.uniform(0, 1, (3, 1, 1)).astype(np.float32)
        img += col * layer[None] * rng.uniform(0.3, 1.0)
    img /= max(img.max(), 1e-6)
    img += rng.normal(0, 0.02, img.shape).astype(np.float32)
    return np.clip(img, 0, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--n-train", type=int, default=1600)
    ap.add_argument("--n-val", type=int, default=200)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    for split, n in (("train", a.n_train), ("val", a.n_val)):
        arr = np.stack([(texture(rng, a.size) * 255).round().astype(np.uint8) for _ in range(n)])
        np.save(os.path.join(a.out, f"{split}_hr.npy"), arr)
        print(f"wrote {a.out}/{split}_hr.npy: {arr.shape} uint8", flush=True)
    print(f"rendered {a.n_train + a.n_val} textures in {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
