"""Synthetic radar archive for nowcast.py: sequences of 32x32 rain-rate frames (mm/h, 5-minute steps) with rain cells
that move, grow and decay. Writes data/radar-NN.npy (float32, T x 32 x 32) with data/radar-NN.json (timestamps,
units) per training shard, and data/val.npy / data/val.json."""
import argparse
import datetime
import json
import os

import numpy as np


def simulate(rng, n, size, hail=0.0, dry=0.0):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    frames = np.zeros((n, size, size), np.float32)
    cells = []
    dry_until = -1
    for t in range(n):
        if dry and dry_until < t and rng.random() < dry / 12:
            dry_until = t + 72  # a two-hour dry spell: every cell gone
            cells = []
        if t <= dry_until:
            continue
        while len(cells) < 2 or (len(cells) < 5 and rng.random() < 0.15):
            cells.append({"x": rng.uniform(-4, size + 4), "y": rng.uniform(-4, size + 4), "vx": rng.normal(0.8, 0.4),
                          "vy": rng.normal(0.3, 0.4), "r": rng.uniform(2, 5), "a": rng.uniform(2, 25),
                          "g": rng.normal(0, 0.04), "life": int(rng.integers(15, 60))})
        f = np.zeros((size, size), np.float32)
        for c in cells:
            f += c["a"] * np.exp(-((xx - c["x"]) ** 2 + (yy - c["y"]) ** 2) / (2 * c["r"] ** 2))
            c["x"] += c["vx"]
            c["y"] += c["vy"]
            c["a"] = min(40.0, max(0.0, c["a"] * (1 + c["g"])))
            c["r"] = min(8.0, max(1.5, c["r"] * (1 + c["g"] / 3)))
            c["life"] -= 1
        if hail and rng.random() < 0.08:  # a convective core with hail contamination (Z-R gives absurd rates)
            i, j = rng.integers(4, size - 4, 2)
            f[i - 1:i + 2, j - 1:j + 2] = rng.uniform(0.6, 1.0) * hail
        frames[t] = f
        cells = [c for c in cells if c["life"] > 0 and c["a"] > 0.3 and -10 < c["x"] < size + 10 and -10 < c["y"] < size + 10]
    return frames


def write(out, name, frames, start, gaps=()):
    times = [start + datetime.timedelta(minutes=5 * i) for i in range(len(frames))]
    keep = [i for i in range(len(frames)) if i not in set(gaps)]
    np.save(os.path.join(out, name + ".npy"), frames[keep])
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump({"units": "mm/h", "step_min": 5, "times": [times[i].strftime("%Y-%m-%dT%H:%M") for i in keep]}, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--frames", type=int, default=360)
    ap.add_argument("--val-frames", type=int, default=160)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--gap", default="", help="SHARD:I,J frames missing from a shard (radar outage)")
    ap.add_argument("--hail", default="", help="SHARD:MAX hail-contaminated cores up to MAX mm/h in a shard")
    ap.add_argument("--outage", default="", help="I,J validation frames missing (NaN)")
    ap.add_argument("--dry", default="", help="SHARD:P dry spells in a shard")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    gap = {int(a.gap.split(":")[0]): [int(v) for v in a.gap.split(":")[1].split(",")]} if a.gap else {}
    hail = {int(a.hail.split(":")[0]): float(a.hail.split(":")[1])} if a.hail else {}
    dry = {int(a.dry.split(":")[0]): float(a.dry.split(":")[1])} if a.dry else {}
    day = datetime.datetime(2024, 6, 1)
    for k in range(a.shards):
        rng = np.random.default_rng(100 + k)
        fr = simulate(rng, a.frames, a.size, hail.get(k, 0.0), dry.get(k, 0.0))
        write(a.out, f"radar-{k:02d}", fr, day + datetime.timedelta(days=k), gap.get(k, ()))
    fr = simulate(np.random.default_rng(7), a.val_frames, a.size)
    for i in ([int(v) for v in a.outage.split(",")] if a.outage else []):
        fr[i] = np.nan
    write(a.out, "val", fr, day + datetime.timedelta(days=a.shards))
    print(f"wrote {a.shards} shards x {a.frames} frames + {a.val_frames} validation frames to {a.out}/")


if __name__ == "__main__":
    main()
