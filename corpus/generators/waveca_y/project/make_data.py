"""Builds the weld-seam inspection set (not logged): 4 classes of generated 64x64 RGB PNGs (grey metal noise with a
seam stripe and class-specific marks) as an ImageFolder under data/welds/{train,val}; ``--train N`` per class."""
import argparse
import random
from pathlib import Path

import numpy as np
from PIL import Image

CLASSES = ("crack", "ok", "porosity", "spatter")


def sample(cls: str, rng: np.random.Generator) -> np.ndarray:
    img = rng.normal(120, 18, (64, 64, 3)).clip(0, 255)
    row = rng.integers(24, 40)
    img[row - 4:row + 4] += 40
    if cls == "crack":
        for x in range(8, 56):
            img[row + int(3 * np.sin(x / 4)), x] = 20
    elif cls == "porosity":
        for _ in range(rng.integers(4, 9)):
            y, x = row + rng.integers(-3, 4), rng.integers(6, 58)
            img[y - 1:y + 2, x - 1:x + 2] = 30
    elif cls == "spatter":
        for _ in range(rng.integers(10, 20)):
            y, x = rng.integers(2, 62), rng.integers(2, 62)
            img[y, x] = (250, 220, 160)
    return img.clip(0, 255).astype(np.uint8)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=int, default=96)
    ap.add_argument("--val", type=int, default=16)
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    random.seed(7)
    for split, n in (("train", a.train), ("val", a.val)):
        for cls in CLASSES:
            d = Path("data/welds") / split / cls
            d.mkdir(parents=True, exist_ok=True)
            for i in range(n):
                Image.fromarray(sample(cls, rng)).save(d / f"{cls}_{i:04d}.png")


if __name__ == "__main__":
    main()
