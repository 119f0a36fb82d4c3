"""Build the churn-risk tabular set the trainer reads (data/train.pt, data/val.pt): 48 numeric features per account,
6 risk classes, generated from a fixed seed (a stand-in for the nightly export)."""
import argparse
import os

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--train", type=int, default=6144)
ap.add_argument("--val", type=int, default=1536)
ap.add_argument("--features", type=int, default=48)
ap.add_argument("--classes", type=int, default=6)
ap.add_argument("--seed", type=int, default=1234)
a = ap.parse_args()

g = torch.Generator().manual_seed(a.seed)
centers = torch.randn(a.classes, a.features, generator=g) * 0.45
mix = torch.randn(a.features, a.features, generator=g) / a.features ** 0.5


def make(n):
    y = torch.randint(0, a.classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, a.features, generator=g) * 1.9
    x = x @ mix + 0.1 * torch.randn(n, a.features, generator=g)
    return x.float(), y


os.makedirs("data", exist_ok=True)
xt, yt = make(a.train)
xv, yv = make(a.val)
torch.save({"x": xt, "y": yt}, "data/train.pt")
torch.save({"x": xv, "y": yv}, "data/val.pt")
print(f"wrote {a.train} train / {a.val} val rows, {a.features} features, {a.classes} classes")
