"""Synthetic semantic-segmentation set: RGB scenes (textured background) with circles, squares and triangles.

Writes data/train.npz and data/val.npz (images uint8 N x 3 x H x W, masks uint8 N x H x W, class ids 0..3) and
data/classes.json. --void-boundary W marks a W-pixel band around every object as 255 ("void"), as VOC-style
annotation exports do.
"""
import argparse
import json
import os

import numpy as np

CLASSES = ["background", "circle", "square", "triangle"]


def scene(rng, size, void):
    yy, xx = np.mgrid[0:size, 0:size]
    img = (rng.normal(0.45, 0.08, (3, size, size)) + 0.1 * np.sin(xx / rng.uniform(2, 6))[None]).clip(0, 1)
    mask = np.zeros((size, size), np.uint8)
    for _ in range(rng.integers(1, 4)):
        c = rng.integers(1, 4)
        cy, cx, r = rng.integers(6, size - 6), rng.integers(6, size - 6), rng.integers(3, size // 4)
        if c == 1:
            m = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
        elif c == 2:
            m = (abs(yy - cy) <= r) & (abs(xx - cx) <= r)
        else:
            m = (yy >= cy - r) & (yy <= cy + r) & (abs(xx - cx) <= (yy - (cy - r)) / 2)
        color = rng.uniform(0, 1, 3) * 0.6 + (np.eye(3)[c - 1] * 0.4)
        img[:, m] = color[:, None] + rng.normal(0, 0.04, (3, int(m.sum())))
        mask[m] = c
    if void:
        edge = np.zeros_like(mask, bool)
        for dy in range(-void, void + 1):
            for dx in range(-void, void + 1):
                edge |= np.roll(np.roll(mask, dy, 0), dx, 1) != mask
        mask[edge] = 255
    return (img.clip(0, 1) * 255).astype(np.uint8), mask


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--train", type=int, default=1536)
    ap.add_argument("--val", type=int, default=256)
    ap.add_argument("--void-boundary", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    for split, n in (("train", a.train), ("val", a.val)):
        imgs, masks = zip(*(scene(rng, a.size, a.void_boundary) for _ in range(n)))
        np.savez(os.path.join(a.out, f"{split}.npz"), images=np.stack(imgs), masks=np.stack(masks))
    with open(os.path.join(a.out, "classes.json"), "w") as f:
        json.dump(CLASSES, f)


if __name__ == "__main__":
    main()
