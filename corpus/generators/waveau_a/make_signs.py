"""Export the road-sign crops (synthetic stand-in for the camera-survey export): data/shards/shard-NN.npz + data/classes.json"""
import argparse
import json
import os

import numpy as np

CLASSES = [("speed_30", "speed_limit"), ("speed_50", "speed_limit"), ("speed_80", "speed_limit"),
           ("no_entry", "prohibitory"), ("no_overtaking", "prohibitory"), ("stop", "priority"),
           ("yield", "priority"), ("priority_road", "priority"), ("roadworks", "danger"),
           ("slippery", "danger"), ("pedestrians", "danger"), ("keep_right", "mandatory")]
GROUPS = {"speed_limit": "prohibitory", "prohibitory": "regulatory", "priority": "regulatory",
          "mandatory": "regulatory", "danger": "warning", "warning": None, "regulatory": None}


def render(rng, cls, n):
    yy, xx = np.mgrid[0:32, 0:32] / 31.0
    imgs = np.empty((n, 3, 32, 32), np.float32)
    for i in range(n):
        cx, cy, r = 0.5 + rng.normal(0, 0.05), 0.5 + rng.normal(0, 0.05), 0.3 + rng.normal(0, 0.03)
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
        ring = np.abs(d - r) < 0.06 + 0.01 * (cls % 3)
        inner = d < r - 0.06
        col = np.array([(cls * 37 % 255) / 255, (cls * 91 % 255) / 255, (cls * 53 % 255) / 255], np.float32)
        img = rng.uniform(0.2, 0.6, (3, 1, 1)).astype(np.float32) * np.ones((3, 32, 32), np.float32)
        img[:, ring] = col[:, None]
        stripe = ((xx * (cls + 2) * 3.1).astype(int) % 2 == 0) & inner
        img[:, stripe] = 1.0 - col[:, None]
        img += rng.normal(0, 0.08, img.shape).astype(np.float32)
        imgs[i] = np.clip(img, 0, 1)
    return imgs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=5)
    ap.add_argument("--per-shard", type=int, default=800)
    ap.add_argument("--only", type=int, default=-1, help="re-export one shard")
    ap.add_argument("--new-class", default="", help="add a sign class seen by the survey (name)")
    ap.add_argument("--corrupt-frames", type=int, default=0, help="frames whose decode failed (kept as NaN)")
    ap.add_argument("--group-parent", default="", help="GROUP:PARENT override from the mapping team")
    a = ap.parse_args()
    os.makedirs(f"{a.out}/shards", exist_ok=True)
    classes = list(CLASSES)
    if a.new_class:
        classes.append((a.new_class, "prohibitory"))
    for s in range(a.shards):
        if a.only >= 0 and s != a.only:
            continue
        rng = np.random.default_rng(100 + s)
        n_cls = len(classes) if a.new_class else len(CLASSES)
        y = rng.integers(0, n_cls, a.per_shard)
        x = np.concatenate([render(rng, int(c), 1) for c in y])
        if a.corrupt_frames:
            x[rng.choice(a.per_shard, a.corrupt_frames, replace=False)] = np.nan
        np.savez(f"{a.out}/shards/shard-{s:02d}.npz", x=x, y=y.astype(np.int64))
        print(f"shard {s}: {a.per_shard} crops")
    groups = dict(GROUPS)
    if a.group_parent:
        g, p = a.group_parent.split(":")
        groups[g] = p
    with open(f"{a.out}/classes.json", "w") as f:
        json.dump({"classes": [{"id": i, "name": n, "group": g} for i, (n, g) in enumerate(classes)],
                   "groups": groups}, f, indent=1)
    print(f"{len(classes)} classes written")


if __name__ == "__main__":
    main()
