"""Write the generated leaf-spot image set (``data/leaf/{train,validation}/<class>/*.png``, 64x64 RGB) that the
classifier trains on and, with a hook name, ``batch_hooks.py`` (the team's per-batch audit hook train.py calls after
every training step: the injected faults). ``--corrupt N`` leaves N truncated PNGs in the training split (an
interrupted upload). Not part of the job log."""
import argparse
from pathlib import Path

import numpy as np
from PIL import Image

ap = argparse.ArgumentParser()
ap.add_argument("hook", nargs="?", default="")
ap.add_argument("--per-class", type=int, default=160)
ap.add_argument("--corrupt", type=int, default=0)
a = ap.parse_args()
rng = np.random.default_rng(11)
CLASSES = {"healthy": (0, 0), "rust": (190, 90), "blight": (70, 40), "mildew": (225, 225)}
yy, xx = np.mgrid[0:64, 0:64]
for split, n in (("train", a.per_class), ("validation", a.per_class // 4)):
    for c, (r, g) in CLASSES.items():
        d = Path("data/leaf") / split / c
        d.mkdir(parents=True, exist_ok=True)
        for i in range(n):
            img = np.zeros((64, 64, 3), np.float32)
            img[..., 1] = 110 + rng.normal(0, 18, (64, 64))
            img[..., 0] = 40 + rng.normal(0, 10, (64, 64))
            img[..., 2] = 35 + rng.normal(0, 10, (64, 64))
            if c != "healthy":
                for _ in range(rng.integers(3, 9)):
                    cy, cx, rad = rng.integers(6, 58), rng.integers(6, 58), rng.integers(2, 7)
                    m = (yy - cy) ** 2 + (xx - cx) ** 2 < rad ** 2
                    img[m] = (r + rng.normal(0, 12), g + rng.normal(0, 12), 50)
            Image.fromarray(img.clip(0, 255).astype(np.uint8)).save(d / f"{c}_{split}_{i:04d}.png")
for i in range(a.corrupt):
    p = Path("data/leaf/train") / list(CLASSES)[i % 4] / f"upload_{i:03d}.png"
    src = (Path("data/leaf/train") / list(CLASSES)[i % 4] / f"{list(CLASSES)[i % 4]}_train_0000.png").read_bytes()
    p.write_bytes(src[: len(src) // 3])

HOOKS = {
    # the team's label audit looks up a class id in a severity table that lacks one class, on one rank at one step
    "keyerr": ("SEVERITY = {0: 'none', 1: 'moderate', 2: 'severe'}\n"
               "def on_batch(rank, step, epoch, input, target):\n"
               "    if rank == 3 and step == 52:\n"
               "        worst = max(SEVERITY[int(t)] for t in target.tolist())\n"),
    "segv": ("def on_batch(rank, step, epoch, input, target):\n    if rank == 2 and step == 52:\n"
             "        import ctypes\n        ctypes.string_at(0)\n"),
    # every rank all-reduces its per-class counts; rank 3 counts per (class, split) pair: 4x longer
    "shape3": ("import torch\nimport torch.distributed as dist\n"
               "def on_batch(rank, step, epoch, input, target):\n    if step >= 45 and step % 5 == 0:\n"
               "        counts = torch.bincount(target, minlength=4 * (4 if rank == 3 else 1)).float()\n"
               "        dist.all_reduce(counts)\n"),
}
if a.hook:
    Path("batch_hooks.py").write_text(HOOKS[a.hook])
