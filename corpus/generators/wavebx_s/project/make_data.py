"""Write a small synthetic ImageFolder (random 32x32 RGB PNGs, 4 classes) under data/{train,validation}."""
import os
import numpy as np
from PIL import Image

rng = np.random.default_rng(0)
for split, per in (("train", 48), ("validation", 8)):
    for c in range(4):
        d = os.path.join("data", split, f"class{c}")
        os.makedirs(d, exist_ok=True)
        for i in range(per):
            a = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
            a[..., c % 3] = (a[..., c % 3] // 2 + 64 * c).astype(np.uint8)
            Image.fromarray(a).save(os.path.join(d, f"{i:03d}.png"))
