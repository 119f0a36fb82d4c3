"""Build the synthetic image folder the SSL runs train on: data/shapes/<kind>/<kind>_NNNN.png, 32x32 RGB (numpy
arrays saved as PNG): coloured discs, squares, stripes and rings on noisy backgrounds. Deterministic (seed 0)."""
import os

import numpy as np
from PIL import Image

rng = np.random.default_rng(0)
N = int(os.environ.get("N_IMAGES", 256))
yy, xx = np.mgrid[0:32, 0:32]
for i in range(N):
    kind = ("disc", "square", "stripes", "ring")[i % 4]
    img = rng.integers(0, 60, size=(32, 32, 3)).astype(np.float32)
    col = rng.integers(80, 256, size=3)
    cx, cy, r = rng.integers(10, 22), rng.integers(10, 22), rng.integers(5, 10)
    d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
    mask = {"disc": d < r, "square": (abs(xx - cx) < r) & (abs(yy - cy) < r),
            "stripes": ((xx + yy) // 4) % 2 == 0, "ring": (d < r) & (d > r - 3)}[kind]
    img[mask] = col
    os.makedirs(f"data/shapes/{kind}", exist_ok=True)
    Image.fromarray(img.clip(0, 255).astype(np.uint8)).save(f"data/shapes/{kind}/{kind}_{i:04d}.png")
print(f"wrote {N} images to data/shapes")
