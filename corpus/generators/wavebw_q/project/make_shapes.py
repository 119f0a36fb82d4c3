"""Write a small synthetic image set (coloured discs and squares on noise) as PNG files: data/shapes/*.png."""
import os
import sys

import numpy as np
from PIL import Image

n = int(sys.argv[1]) if len(sys.argv) > 1 else 96
size = 32
os.makedirs("data/shapes", exist_ok=True)
rng = np.random.default_rng(0)
yy, xx = np.mgrid[0:size, 0:size]
for i in range(n):
    img = rng.integers(0, 40, (size, size, 3)).astype(np.uint8)
    cx, cy, r = rng.integers(8, 24), rng.integers(8, 24), rng.integers(4, 8)
    colour = rng.integers(80, 256, 3)
    mask = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r if i % 2 else (abs(xx - cx) < r) & (abs(yy - cy) < r)
    img[mask] = colour
    Image.fromarray(img).save(f"data/shapes/img_{i:04d}.png")
print(f"wrote {n} images to data/shapes")
