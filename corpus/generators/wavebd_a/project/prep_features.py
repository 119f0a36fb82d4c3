"""Write the keyword-spotting feature export: 40-bin log-mel/MFCC-like frames (40 x 98) per 1 s clip.

The real pipeline extracts these from the wake-word recordings; this is the synthetic stand-in the team uses
for smoke tests. Writes data/{train,valid}_feats.npy, data/{train,valid}_labels.txt and data/keywords.txt."""
import argparse
import os
import time

import numpy as np

KEYWORDS = ["yes", "no", "up", "down", "left", "right", "stop", "go", "_silence_", "_unknown_"]


def synth(rng, n, n_mels=40, frames=98):
    labels = rng.integers(0, len(KEYWORDS), size=n)
    t = np.arange(frames)[None, :]
    m = np.arange(n_mels)[:, None]
    feats = np.empty((n, n_mels, frames), dtype=np.float32)
    for i, k in enumerate(labels):
        centre = 4 + 3.2 * k
        energy = np.exp(-((m - centre) ** 2) / 18.0) * (0.6 + 0.4 * np.sin(t / (3.0 + k)))
        power = energy + 1e-3 + 0.02 * rng.random((n_mels, frames))
        feats[i] = np.log(power)
    return feats, labels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--n-train", type=int, default=768)
    ap.add_argument("--n-valid", type=int, default=256)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--silent-clips", type=int, default=0, help="clips whose recording is all-zero (dead mic)")
    ap.add_argument("--extra-keyword", default="", help="a keyword the labelling vendor added in this export")
    ap.add_argument("--delay", type=float, default=0.0, help="simulate a slow copy from the feature store")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    if a.delay:
        time.sleep(a.delay)
    for split, n in (("train", a.n_train), ("valid", a.n_valid)):
        feats, labels = synth(rng, n)
        names = [KEYWORDS[k] for k in labels]
        if split == "train" and a.silent_clips:
            for i in rng.choice(n, a.silent_clips, replace=False):
                with np.errstate(divide="ignore"):
                    feats[i] = np.log(np.zeros_like(feats[i]))  # log of a dead mic's zero power: -inf
        if a.extra_keyword:
            for i in rng.choice(n, max(1, n // 50), replace=False):
                names[i] = a.extra_keyword
        tmp = os.path.join(a.out, f".{split}_feats.part.npy")
        np.save(tmp, feats)
        os.replace(tmp, os.path.join(a.out, f"{split}_feats.npy"))
        with open(os.path.join(a.out, f"{split}_labels.txt"), "w") as f:
            f.write("\n".join(names) + "\n")
    with open(os.path.join(a.out, "keywords.txt"), "w") as f:
        f.write("\n".join(KEYWORDS) + "\n")


if __name__ == "__main__":
    main()
