"""Write synthetic speech-enhancement shards: data/train-NN.npy (N x 2 x L float32: clean, noisy) and data/val.npy.
Clean "speech" is a sum of gliding harmonics under a syllable-rate envelope; noise is babble/white/hum at a random SNR."""
import argparse
import os

import numpy as np


def clean_clip(rng, L, sr):
    t = np.arange(L) / sr
    f0 = rng.uniform(90, 260) * (1 + 0.15 * np.sin(2 * np.pi * rng.uniform(0.5, 3) * t))
    ph = 2 * np.pi * np.cumsum(f0) / sr
    x = sum(rng.uniform(0.2, 1) / k * np.sin(k * ph) for k in range(1, 7))
    env = np.clip(np.sin(2 * np.pi * rng.uniform(2, 6) * t + rng.uniform(0, 6.28)), 0, None) ** 1.5
    x = x * env
    return (x / (np.abs(x).max() + 1e-6) * 0.5).astype(np.float32)


def noise_clip(rng, L, sr):
    kind = rng.integers(3)
    if kind == 0:
        n = rng.standard_normal(L)
    elif kind == 1:
        n = np.sin(2 * np.pi * 50 * np.arange(L) / sr) + 0.3 * rng.standard_normal(L)
    else:
        n = sum(clean_clip(rng, L, sr) for _ in range(4)) + 0.05 * rng.standard_normal(L)
    return n.astype(np.float32)


def make(rng, n, L, sr, silence=0.0):
    out = np.zeros((n, 2, L), np.float32)
    for i in range(n):
        c = clean_clip(rng, L, sr)
        if rng.random() < silence:  # a pause-only segment cut from a long recording: no speech at all
            c[:] = 0
        nz = noise_clip(rng, L, sr)
        snr = rng.uniform(-5, 15)
        pc, pn = (c ** 2).mean() + 1e-8, (nz ** 2).mean()
        if (c ** 2).mean() == 0:
            pc = 0.01
        nz *= np.sqrt(pc / pn / 10 ** (snr / 10))
        out[i, 0], out[i, 1] = c, c + nz
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--per-shard", type=int, default=384)
    ap.add_argument("--val", type=int, default=128)
    ap.add_argument("--len", type=int, default=2000)
    ap.add_argument("--sr", type=int, default=16000)
    ap.add_argument("--sr-shard", default="", help="k:sr: shard k exported at another sample rate (same duration)")
    ap.add_argument("--silence", type=float, default=0.0, help="fraction of pause-only training segments")
    ap.add_argument("--val-silence", type=float, default=0.0)
    ap.add_argument("--extra-shard", default="", help="k:n: shard k has n clips")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    srk = dict([tuple(map(int, a.sr_shard.split(":")))]) if a.sr_shard else {}
    extra = dict([tuple(map(int, a.extra_shard.split(":")))]) if a.extra_shard else {}
    for k in range(a.shards):
        sr = srk.get(k, a.sr)
        L = a.len * sr // a.sr
        np.save(os.path.join(a.out, f"train-{k:02d}.npy"), make(rng, extra.get(k, a.per_shard), L, sr, a.silence))
    np.save(os.path.join(a.out, "val.npy"), make(rng, a.val, a.len, a.sr, a.val_silence))
    print(f"wrote {a.shards} shards to {a.out}")


if __name__ == "__main__":
    main()
