"""Render a synthetic image set for MAE pretraining: 10 shape classes (disc, square, triangle, cross, ring, bar, ...)
in random colours over noisy textured backgrounds, saved as uint8 arrays (N x S x S x 3) with int64 labels."""
import argparse
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--size", type=int, default=32)
ap.add_argument("--n-train", type=int, default=1536)
ap.add_argument("--n-val", type=int, default=256)
ap.add_argument("--unlabeled-frac", type=float, default=0.0, help="images without a label (exported as -1)")
ap.add_argument("--placeholders", type=int, default=0, help="uniform grey placeholder images (failed downloads)")
ap.add_argument("--seed", type=int, default=0)
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
S = a.size
yy, xx = np.mgrid[0:S, 0:S] / S
CLASSES = ["disc", "square", "triangle", "cross", "ring", "hbar", "vbar", "diamond", "dots", "corner"]


def shape(c, cx, cy, r):
    dx, dy = xx - cx, yy - cy
    return [np.hypot(dx, dy) < r, (abs(dx) < r) & (abs(dy) < r), (dy > -r) & (abs(dx) < (dy + r) / 2) & (dy < r),
            ((abs(dx) < r / 3) & (abs(dy) < r)) | ((abs(dy) < r / 3) & (abs(dx) < r)),
            (np.hypot(dx, dy) < r) & (np.hypot(dx, dy) > r / 2), (abs(dx) < r) & (abs(dy) < r / 4),
            (abs(dy) < r) & (abs(dx) < r / 4), abs(dx) + abs(dy) < r,
            (np.hypot(dx % (r / 1.5) - r / 3, dy % (r / 1.5) - r / 3) < r / 6) & (np.hypot(dx, dy) < r),
            (dx > -r) & (dy > -r) & ((dx < -r / 2) | (dy < -r / 2)) & (dx < r) & (dy < r)][c]


def render(n, unlabeled, placeholders):
    imgs = np.empty((n, S, S, 3), np.uint8)
    labels = rng.integers(0, len(CLASSES), n)
    for i in range(n):
        bg = rng.uniform(0.2, 0.8, 3) + 0.08 * rng.standard_normal((S, S, 3))
        m = shape(labels[i], rng.uniform(0.35, 0.65), rng.uniform(0.35, 0.65), rng.uniform(0.18, 0.3))
        bg[m] = rng.uniform(0, 1, 3) + 0.03 * rng.standard_normal((int(m.sum()), 3))
        imgs[i] = np.clip(bg * 255, 0, 255).astype(np.uint8)
    if unlabeled:
        labels[rng.choice(n, int(n * unlabeled), replace=False)] = -1
    for i in rng.choice(n, placeholders, replace=False) if placeholders else []:
        imgs[i] = 128
    return imgs, labels


os.makedirs(a.out, exist_ok=True)
for split, n in (("train", a.n_train), ("val", a.n_val)):
    imgs, labels = render(n, a.unlabeled_frac if split == "train" else 0, a.placeholders if split == "train" else 0)
    np.save(os.path.join(a.out, f"{split}-images.npy"), imgs)
    np.save(os.path.join(a.out, f"{split}-labels.npy"), labels)
    print(f"{split}: {n} images {S}x{S}, {(labels < 0).sum()} unlabeled -> {a.out}/{split}-images.npy")
open(os.path.join(a.out, "classes.txt"), "w").write("\n".join(CLASSES) + "\n")
