"""Synthetic action-recognition clips: 16-frame RGB clips of a textured blob moving with one of 12 motion patterns.
Writes data/clips-{train,val}.u8 (raw uint8, N x 16 x S x S x 3), data/{train,val}.csv (clip,video,label) and
data/classes.txt; --pretrained writes a Kinetics-style init checkpoint (state dict + normalisation stats)."""
import argparse
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--train-videos", type=int, default=96)
ap.add_argument("--val-videos", type=int, default=24)
ap.add_argument("--size", type=int, default=32)
ap.add_argument("--extra-class", action="store_true", help="annotation export with the newer 'other' class")
ap.add_argument("--pretrained", default="")
a = ap.parse_args()
CLASSES = ["walk_left", "walk_right", "jump", "crouch", "wave", "spin_cw", "spin_ccw", "approach", "retreat",
           "zigzag", "stand_still", "fall"]
rng = np.random.default_rng(7)
os.makedirs(a.out, exist_ok=True)
with open(os.path.join(a.out, "classes.txt"), "w") as f:
    f.write("\n".join(CLASSES) + "\n")
S = a.size
yy, xx = np.mgrid[0:S, 0:S]


def clip(label):
    x0, y0 = rng.uniform(S * 0.3, S * 0.7, 2)
    r = rng.uniform(S * 0.08, S * 0.16)
    col = rng.uniform(80, 255, 3)
    frames = np.zeros((16, S, S, 3), np.float32) + rng.uniform(0, 60, 3)
    for t in range(16):
        dx, dy, rr = {0: (-1, 0, 0), 1: (1, 0, 0), 2: (0, -abs(np.sin(t / 3)) * 2, 0), 3: (0, 0.5, -0.03),
                      4: (np.sin(t) * 1.5, 0, 0), 5: (np.cos(t / 2), np.sin(t / 2), 0), 6: (np.cos(t / 2), -np.sin(t / 2), 0),
                      7: (0, 0, 0.06), 8: (0, 0, -0.04), 9: ((-1) ** (t // 3), 0.6, 0), 10: (0, 0, 0),
                      11: (0, 0.2 * t, 0)}[label]
        x0, y0, r = x0 + dx * S / 32, y0 + dy * S / 32, max(1.5, r * (1 + rr))
        m = ((xx - x0) ** 2 + (yy - y0) ** 2) < r * r
        frames[t][m] = col
    frames += rng.normal(0, 12, frames.shape)
    return np.clip(frames, 0, 255).astype(np.uint8)


for split, nv in (("train", a.train_videos), ("val", a.val_videos)):
    rows, n = [], 0
    with open(os.path.join(a.out, f"clips-{split}.u8"), "wb") as f:
        for v in range(nv):
            label = int(rng.integers(0, len(CLASSES)))
            if a.extra_class and split == "train" and v % 29 == 17:
                label = len(CLASSES)  # 'other', added to the annotation tool after classes.txt was frozen
            for _ in range(int(rng.integers(3, 9))):
                f.write(clip(min(label, 10)).tobytes())
                rows.append(f"{n},vid{split[0]}{v:04d},{label}")
                n += 1
    with open(os.path.join(a.out, f"{split}.csv"), "w") as f:
        f.write("clip,video,label\n" + "\n".join(rows) + "\n")
    print(f"{split}: {n} clips from {nv} videos, {S}x{S}, {n * 16 * S * S * 3 / 2**20:.1f} MiB")
if a.pretrained:
    import torch
    import torch.nn as nn
    sys_path = os.path.dirname(os.path.abspath(__file__))
    net = nn.Sequential(nn.Conv3d(3, 16, (3, 3, 3), padding=1), nn.BatchNorm3d(16))
    torch.save({"state_dict": {"stem." + k: v for k, v in net.state_dict().items()},
                "mean": np.array([0.43, 0.39, 0.38]), "std": np.array([0.23, 0.22, 0.22]),
                "arch": "r2plus1d_tiny", "epoch": 120}, a.pretrained)
    print(f"wrote {a.pretrained}")
