"""Contrastive image-text pre-training (a tiny CLIP) fed by a Ray Data pipeline over parquet shards of image/caption
pairs: read_parquet -> actor-pool map_batches (decode, resize, augment, tokenize) -> iter_torch_batches -> training."""
import argparse
import hashlib
import os
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch
import torch.nn as nn
import torch.nn.functional as F

import ray

COLOURS = ["red", "green", "blue", "yellow", "purple", "orange"]
SHAPES = ["circle", "square", "stripe", "cross"]
VOCAB = {w: i + 1 for i, w in enumerate(["a", "an", "the", "of", "small", "large", "photo", "picture", "on", "with",
                                         "background", "dark", "light"] + COLOURS + SHAPES)}
RGB = {"red": (220, 30, 30), "green": (30, 200, 60), "blue": (40, 60, 220), "yellow": (230, 220, 40),
       "purple": (140, 40, 180), "orange": (240, 140, 20)}


def make_data(n, shards, out, odd_every=0):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[:32, :32]
    per = n // shards
    for s in range(shards):
        imgs, caps, ids = [], [], []
        for i in range(per):
            k = s * per + i
            c, sh = COLOURS[rng.integers(6)], SHAPES[rng.integers(4)]
            cx, cy, r = rng.integers(8, 24), rng.integers(8, 24), rng.integers(4, 9)
            mask = {"circle": (xx - cx) ** 2 + (yy - cy) ** 2 < r * r,
                    "square": (abs(xx - cx) < r) & (abs(yy - cy) < r),
                    "stripe": abs(xx - cx) < r // 2,
                    "cross": (abs(xx - cx) < 2) | (abs(yy - cy) < 2)}[sh]
            bg = rng.integers(0, 60) if rng.random() < 0.5 else rng.integers(180, 255)
            img = np.full((32, 32, 3), bg, np.uint8)
            img[mask] = RGB[c]
            if odd_every and k % odd_every == odd_every - 1:
                img = img[..., 0]  # a grayscale scan that slipped into the crawl
            size = "large" if r > 6 else "small"
            tone = "dark" if bg < 100 else "light"
            caps.append(f"a photo of a {size} {c} {sh} on a {tone} background")
            imgs.append(img.tobytes())
            ids.append(f"img-{k:06d}")
        pq.write_table(pa.table({"id": ids, "image": imgs, "caption": caps}), f"{out}/part-{s:04d}.parquet")
    print(f"wrote {shards * per} pairs to {out}")


class Preprocess:
    def __init__(self, res, dedup_cache):
        self.res, self.dedup_cache = res, dedup_cache
        self.seen = {}
        self.rng = np.random.default_rng(os.getpid())

    def __call__(self, batch):
        out_imgs, out_toks = [], []
        for raw, cap in zip(batch["image"], batch["caption"]):
            img = np.frombuffer(raw, np.uint8).reshape(32, 32, 3).astype(np.float32) / 255.0
            idx = np.linspace(0, 31, self.res).astype(int)
            img = img[idx][:, idx]
            if self.rng.random() < 0.5:
                img = img[:, ::-1]
            img = (img - 0.45) / 0.27
            if self.dedup_cache:
                # keep each view to drop near-duplicate crawl entries later in the epoch
                self.seen[hashlib.md5(raw).hexdigest() + str(len(self.seen))] = img.copy()
            out_imgs.append(np.ascontiguousarray(img.transpose(2, 0, 1)))
            toks = [VOCAB[w] for w in cap.split()][:16]
            out_toks.append(np.array(toks + [0] * (16 - len(toks)), np.int64))
        return {"image": np.stack(out_imgs), "tokens": np.stack(out_toks)}


class CLIP(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.img = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, dim))
        self.emb = nn.EmbeddingBag(len(VOCAB) + 1, dim, padding_idx=0)
        self.txt = nn.Linear(dim, dim)
        self.logit_scale = nn.Parameter(torch.tensor(2.0))

    def forward(self, img, tok):
        a = F.normalize(self.img(img), dim=-1)
        b = F.normalize(self.txt(self.emb(tok)), dim=-1)
        return self.logit_scale.exp() * a @ b.T


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--make-data", type=int, default=0)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--odd-every", type=int, default=0)
    ap.add_argument("--data", default="data/pairs")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--res", type=int, default=32)
    ap.add_argument("--dedup-cache", action="store_true")
    ap.add_argument("--batch", type=int, default=256)
    a = ap.parse_args()
    if a.make_data:
        make_data(a.make_data, a.shards, a.data, a.odd_every)
        raise SystemExit(0)
    torch.set_num_threads(1)
    ray.init()
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ds = ray.data.read_parquet(os.path.abspath(a.data))
    print(f"dataset: {ds.count()} image/caption pairs, schema {ds.schema().names}", flush=True)
    ds = ds.map_batches(Preprocess, fn_constructor_args=(a.res, a.dedup_cache), batch_size=128, concurrency=2,
                        num_cpus=0.5)
    model = CLIP()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    step = 0
    for epoch in range(a.epochs):
        t0, tot, n, hits = time.time(), 0.0, 0, 0
        for batch in ds.iter_torch_batches(batch_size=a.batch, drop_last=True):
            logits = model(batch["image"], batch["tokens"])
            target = torch.arange(len(logits))
            loss = (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            tot, n = tot + loss.item(), n + 1
            hits += (logits.argmax(1) == target).float().mean().item()
            if step % 10 == 0:
                print(f"epoch {epoch} step {step} contrastive_loss {loss.item():.4f} "
                      f"logit_scale {model.logit_scale.exp().item():.2f}", flush=True)
        print(f"epoch {epoch} done: mean_loss {tot / max(n, 1):.4f} in-batch i2t@1 {hits / max(n, 1):.3f} "
              f"({time.time() - t0:.1f}s)", flush=True)
    torch.save(model.state_dict(), "clip_tiny.pt")
    print("saved clip_tiny.pt", flush=True)
