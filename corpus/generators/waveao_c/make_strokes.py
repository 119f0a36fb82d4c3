"""Synthetic handwritten-digit pen strokes: per digit a template polyline (pen-down segments), drawn by writers with
their own scale, slant, rotation, speed jitter and tremor, resampled to a fixed number of points (x, y, pen_down).
Writes data/train-NN.npz and data/val-NN.npz shards (strokes float32 [n, points, 3], labels int64 [n])."""
import argparse
import os

import numpy as np

# digit templates in a unit box (x right, y up); each digit a list of strokes, each stroke a list of points
T = {
    0: [[(0.5, 1), (0.15, 0.8), (0.1, 0.5), (0.15, 0.2), (0.5, 0), (0.85, 0.2), (0.9, 0.5), (0.85, 0.8), (0.5, 1)]],
    1: [[(0.3, 0.8), (0.55, 1), (0.55, 0)]],
    2: [[(0.15, 0.8), (0.4, 1), (0.75, 0.9), (0.8, 0.65), (0.15, 0), (0.9, 0)]],
    3: [[(0.15, 0.9), (0.7, 1), (0.8, 0.75), (0.45, 0.55), (0.85, 0.35), (0.75, 0.05), (0.15, 0.05)]],
    4: [[(0.7, 0), (0.7, 1), (0.1, 0.35), (0.9, 0.35)]],
    5: [[(0.85, 1), (0.2, 1), (0.15, 0.55), (0.65, 0.6), (0.85, 0.3), (0.6, 0), (0.15, 0.1)]],
    6: [[(0.75, 1), (0.3, 0.7), (0.15, 0.3), (0.4, 0), (0.8, 0.2), (0.7, 0.5), (0.2, 0.4)]],
    7: [[(0.1, 1), (0.9, 1), (0.4, 0)]],
    8: [[(0.5, 0.55), (0.2, 0.8), (0.5, 1), (0.8, 0.8), (0.5, 0.55), (0.15, 0.25), (0.5, 0), (0.85, 0.25), (0.5, 0.55)]],
    9: [[(0.8, 0.6), (0.5, 0.45), (0.2, 0.7), (0.5, 1), (0.8, 0.75), (0.75, 0)]],
}


def draw(digit, rng, points):
    strokes = T[digit]
    segs = []
    for s in strokes:
        p = np.array(s, dtype=np.float64)
        p = p + rng.normal(0, 0.035, p.shape)
        segs.append(p)
    pts = np.concatenate(segs)
    # arc-length resampling with a writer's speed jitter
    d = np.r_[0, np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))]
    t = np.sort(rng.uniform(0, 1, points - 2)) * 0.3 + np.linspace(0, 1, points)[1:-1] * 0.7
    t = np.r_[0, t, 1] * d[-1]
    xy = np.stack([np.interp(t, d, pts[:, 0]), np.interp(t, d, pts[:, 1])], 1)
    ang, slant, sc = rng.normal(0, 0.12), rng.normal(0.15, 0.1), rng.uniform(0.7, 1.3)
    m = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]]) @ np.array([[1, slant], [0, 1]]) * sc
    xy = xy @ m.T + rng.normal(0, 0.01, xy.shape)
    pen = np.ones((points, 1))
    pen[-1] = 0
    return np.concatenate([xy, pen], 1).astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--per-shard", type=int, default=640)
    ap.add_argument("--val-per-shard", type=int, default=160)
    ap.add_argument("--points", type=int, default=32)
    ap.add_argument("--only", default="", help="comma-separated shard names to (re)write, e.g. train-01")
    ap.add_argument("--ragged", action="store_true", help="keep each sample's own point count (object array)")
    ap.add_argument("--float64", action="store_true", help="store coordinates as float64")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    for split, n in (("train", a.per_shard), ("val", a.val_per_shard)):
        for k in range(a.shards):
            name = f"{split}-{k:02d}"
            if only and name not in only:
                continue
            rng = np.random.default_rng(a.seed * 1000 + k + (500 if split == "val" else 0))
            labels = rng.integers(0, 10, n)
            if a.ragged:
                strokes = np.empty(n, dtype=object)
                for i, y in enumerate(labels):
                    strokes[i] = draw(int(y), rng, int(rng.integers(20, 60)))
            else:
                strokes = np.stack([draw(int(y), rng, a.points) for y in labels])
            if a.float64 and not a.ragged:
                strokes = strokes.astype(np.float64)
            np.savez(os.path.join(a.out, name + ".npz"), strokes=strokes, labels=labels)
            print(f"wrote {a.out}/{name}.npz ({n} samples)")


if __name__ == "__main__":
    main()
