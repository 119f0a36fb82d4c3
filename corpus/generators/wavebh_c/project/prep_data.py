"""Export the inspection-camera crops into an image-folder tree (data/train/<class>/*.png, data/val/<class>/*.png)."""
import argparse
import os
import random

import numpy as np
from PIL import Image

CLASSES = ["crack", "dent", "ok", "scratch"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="data")
    ap.add_argument("--train-per-class", type=int, default=240)
    ap.add_argument("--val-per-class", type=int, default=40)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--cache", action="store_true", help="also write the decoded uint8 cache data/train_u8.npy")
    ap.add_argument("--truncated", type=int, default=0, help="uploads cut short by the camera gateway")
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    written = []
    for split, n in (("train", a.train_per_class), ("val", a.val_per_class)):
        for ci, c in enumerate(CLASSES):
            d = os.path.join(a.root, split, c)
            os.makedirs(d, exist_ok=True)
            for i in range(n):
                img = rng.normal(90 + 30 * ci, 25, (a.size, a.size, 3))
                y = rng.integers(4, a.size - 4)
                img[y - 1:y + 1, :, ci % 3] += 80
                p = os.path.join(d, f"cam{i % 6}_{i:05d}.png")
                Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(p)
                if split == "train":
                    written.append(p)
    if a.cache:
        arr = np.stack([np.asarray(Image.open(p).convert("RGB")) for p in sorted(written)])
        np.save(os.path.join(a.root, "train_u8.npy"), arr)
        np.save(os.path.join(a.root, "train_labels.npy"),
                np.array([CLASSES.index(p.split(os.sep)[-2]) for p in sorted(written)], dtype=np.int64))
    random.seed(3)
    for p in random.sample(written, a.truncated):
        with open(p, "r+b") as f:
            f.truncate(0)
            f.write(b"\x89PNG\r\n\x1a\n\x00\x00")
    print("wrote", len(written), "train images")


if __name__ == "__main__":
    main()
