"""Synthetic noise bank and run metadata for the speech-enhancement trainer (enhance.py).

Writes data/noise-bank.npz (one 1-D float32 recording per noise type, 8 kHz) and data/meta.json.
--stereo-recording NAME adds one more recording exported as 2-channel (N x 2) by the field recorder.
"""
import argparse
import json
import os

import numpy as np

SR = 8000


def pink(n, rng):
    w = rng.standard_normal(n)
    f = np.fft.rfft(w)
    f /= np.sqrt(np.arange(1, len(f) + 1))
    x = np.fft.irfft(f, n)
    return x / np.abs(x).max()


def babble(n, rng):
    t = np.arange(n) / SR
    x = np.zeros(n)
    for _ in range(6):
        f0 = rng.uniform(90, 260)
        env = 0.5 + 0.5 * np.sin(2 * np.pi * rng.uniform(2, 5) * t + rng.uniform(0, 6.28))
        for h in range(1, 12):
            x += env * np.sin(2 * np.pi * f0 * h * t + rng.uniform(0, 6.28)) / h
    return x / np.abs(x).max()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--stereo-recording", default="")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    n = int(a.seconds * SR)
    t = np.arange(n) / SR
    bank = {
        "white": rng.standard_normal(n) * 0.3,
        "pink": pink(n, rng),
        "hum": 0.6 * np.sin(2 * np.pi * 50 * t) + 0.3 * np.sin(2 * np.pi * 150 * t) + 0.05 * rng.standard_normal(n),
        "babble": babble(n, rng),
        "fan": np.convolve(rng.standard_normal(n), np.ones(24) / 24, mode="same") * 2.0,
    }
    if a.stereo_recording:
        left = pink(n, rng) * 0.7 + 0.2 * np.sin(2 * np.pi * 120 * t)
        right = np.roll(left, 40) + 0.05 * rng.standard_normal(n)
        bank[a.stereo_recording] = np.stack([left, right], axis=1)
    os.makedirs(a.out, exist_ok=True)
    np.savez(os.path.join(a.out, "noise-bank.npz"), **{k: v.astype(np.float32) for k, v in bank.items()})
    meta = {"sample_rate": SR, "noises": sorted(bank), "seconds": a.seconds}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"wrote {len(bank)} noise recordings to {a.out}/noise-bank.npz")


if __name__ == "__main__":
    main()
