"""Synthetic keyword-spotting data for the wave BX (t) SpeechBrain recipe (not logged): 40-dim log-mel-like feature
matrices (numpy .npy, 40-120 frames) for four commands, a class-dependent spectral bump on noise, written as a
SpeechBrain-style JSON manifest per split (``data/{train,valid}.json``: id -> {"feats": path, "length": frames,
"command": label}). ``--bad-label ID:LABEL`` rewrites one train item's label (an annotation typo)."""
import argparse
import json
import os

import numpy as np

COMMANDS = ["yes", "no", "up", "down"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--train", type=int, default=960)
    ap.add_argument("--valid", type=int, default=160)
    ap.add_argument("--bad-label", default="")
    a = ap.parse_args()
    rng = np.random.default_rng(1234)
    os.makedirs(f"{a.out}/feats", exist_ok=True)
    for split, n in (("train", a.train), ("valid", a.valid)):
        items = {}
        for i in range(n):
            k = i % len(COMMANDS)
            frames = int(rng.integers(40, 121))
            x = rng.normal(0.0, 1.0, (frames, 40)).astype(np.float32)
            x[:, 8 * k:8 * k + 10] += 0.12
            uid = f"{split}-{COMMANDS[k]}-{i:05d}"
            path = f"{a.out}/feats/{uid}.npy"
            np.save(path, x)
            items[uid] = {"feats": path, "length": frames, "command": COMMANDS[k]}
        if split == "train" and a.bad_label:
            uid, label = a.bad_label.split(":")
            items[uid]["command"] = label
        with open(f"{a.out}/{split}.json", "w") as f:
            json.dump(items, f, indent=1)


if __name__ == "__main__":
    main()
