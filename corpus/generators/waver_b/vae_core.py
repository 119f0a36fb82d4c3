"""A small convolutional VAE on synthetic 28x28 'glyph' images (rings, bars, crosses, blobs drawn with random
position, size and stroke), shared by every launcher script in this folder."""
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

KINDS = ("ring", "bar", "cross", "blob", "corner")


def draw(kind, rng, size=28):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    cy, cx = rng.uniform(8, size - 8, 2)
    r = rng.uniform(4, 9)
    w = rng.uniform(1.2, 2.5)
    if kind == "ring":
        d = np.abs(np.hypot(yy - cy, xx - cx) - r)
        img = np.clip(1.2 - d / w, 0, 1)
    elif kind == "bar":
        a = rng.uniform(0, math.pi)
        d = np.abs((yy - cy) * math.cos(a) - (xx - cx) * math.sin(a))
        along = np.abs((yy - cy) * math.sin(a) + (xx - cx) * math.cos(a))
        img = np.clip(1.2 - d / w, 0, 1) * (along < r + 2)
    elif kind == "cross":
        img = np.maximum(np.clip(1.2 - np.abs(yy - cy) / w, 0, 1) * (np.abs(xx - cx) < r),
                         np.clip(1.2 - np.abs(xx - cx) / w, 0, 1) * (np.abs(yy - cy) < r))
    elif kind == "blob":
        img = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * (r / 2) ** 2))
    else:
        img = (np.clip(1.2 - np.abs(yy - cy) / w, 0, 1) * (xx > cx) * (xx < cx + r)
               + np.clip(1.2 - np.abs(xx - cx) / w, 0, 1) * (yy > cy) * (yy < cy + r))
    img = np.clip(img + rng.normal(0, 0.03, img.shape), 0, 1)
    return img.astype(np.float32)


def make_glyphs(n, seed=0, size=28, blank_frac=0.0):
    rng = np.random.default_rng(seed)
    imgs = np.zeros((n, 1, size, size), np.float32)
    labels = np.zeros(n, np.int64)
    for i in range(n):
        k = rng.integers(len(KINDS))
        labels[i] = k
        if blank_frac and rng.random() < blank_frac:
            continue  # an empty canvas (a scan with nothing on it)
        imgs[i, 0] = draw(KINDS[k], rng, size)
    return torch.from_numpy(imgs), torch.from_numpy(labels)


class ConvVAE(nn.Module):
    def __init__(self, z=8, ch=16):
        super().__init__()
        self.z = z
        self.enc = nn.Sequential(nn.Conv2d(1, ch, 4, 2, 1), nn.ReLU(), nn.Conv2d(ch, 2 * ch, 4, 2, 1), nn.ReLU(),
                                 nn.Flatten())
        self.mu = nn.Linear(2 * ch * 49, z)
        self.logvar = nn.Linear(2 * ch * 49, z)
        self.fc = nn.Linear(z, 2 * ch * 49)
        self.dec = nn.Sequential(nn.ConvTranspose2d(2 * ch, ch, 4, 2, 1), nn.ReLU(),
                                 nn.ConvTranspose2d(ch, 1, 4, 2, 1))
        self.ch = ch

    def encode(self, x):
        h = self.enc(x)
        return self.mu(h), self.logvar(h)

    def decode(self, z):
        return self.dec(self.fc(z).view(-1, 2 * self.ch, 7, 7))

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decode(z), mu, logvar


def nparams(m):
    return sum(p.numel() for p in m.parameters())


def vae_loss(logits, x, mu, logvar, beta=1.0):
    """Per-image BCE reconstruction (summed over pixels) + beta * KL, averaged over the batch."""
    rec = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.shape[0]
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
    return rec + beta * kl, rec, kl


def kl_beta(step, warmup):
    return min(1.0, step / max(1, warmup))


@torch.no_grad()
def evaluate(model, x, bs=128):
    model.eval()
    tot = rec_t = kl_t = 0.0
    for i in range(0, len(x), bs):
        xb = x[i:i + bs]
        logits, mu, logvar = model(xb)
        loss, rec, kl = vae_loss(logits, xb, mu, logvar)
        tot += loss.item() * len(xb)
        rec_t += rec.item() * len(xb)
        kl_t += kl.item() * len(xb)
    model.train()
    n = len(x)
    return {"elbo": -tot / n, "rec": rec_t / n, "kl": kl_t / n}


@torch.no_grad()
def active_units(model, x, thresh=0.01):
    mu, _ = model.encode(x[:256])
    return int((mu.var(0) > thresh).sum())


def stamp():
    return time.strftime("%H:%M:%S")
