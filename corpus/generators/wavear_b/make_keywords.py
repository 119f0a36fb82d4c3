"""Write a synthetic keyword-spotting set: log-mel (MFCC-like) feature frames of a dozen spoken keywords.

Each keyword has a spectro-temporal template (formant-like tracks that move over the word); an utterance is the
template shifted in time and pitch for its speaker, scaled by a loudness, plus background noise (cafe babble,
street, white) at a random SNR. Features are log-energies in 40 mel bands, 32 frames (1 s at a 32 ms hop).
Output: data/train-NN.npz (one shard per recording batch), data/val.npz, data/meta.json (the keyword list).
"""
import argparse
import json
import os

import numpy as np

KEYWORDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "_silence_", "_unknown_"]


def templates(rng, words, bins):
    out = {}
    for w in words:
        t = np.zeros((64, bins), np.float32)
        for _ in range(3):  # three formant tracks
            f0, f1 = rng.uniform(4, bins - 4, 2)
            width = rng.uniform(1.5, 3.5)
            on, off = sorted(rng.uniform(0, 64, 2))
            for fr in range(int(on), int(off) + 1):
                c = f0 + (f1 - f0) * (fr - on) / max(off - on, 1)
                t[fr] += np.exp(-0.5 * ((np.arange(bins) - c) / width) ** 2)
        out[w] = t if w != "_silence_" else t * 0.0
    return out


def utterances(rng, tpl, words, n, frames, bins, label_of, log=True, gate=0.0):
    feats = np.empty((n, frames, bins), np.float32)
    labels = np.empty(n, np.int64)
    for i in range(n):
        w = words[rng.integers(len(words))]
        t = tpl[w]
        if frames <= 64:
            shift = rng.integers(0, 64 - frames + 1) if frames < 64 else 0
            x = t[shift:shift + frames]
        else:  # a long recording: the word somewhere inside silence
            x = np.zeros((frames, bins), np.float32)
            at = rng.integers(0, frames - 64)
            x[at:at + 64] = t
        pitch = rng.integers(-2, 3)
        x = np.roll(x, pitch, axis=1)
        power = rng.uniform(0.5, 2.0) * x * 50.0
        snr = rng.uniform(0, 20)
        noise = rng.gamma(2.0, 1.0, size=x.shape) * 10 ** (-snr / 10) * 20.0
        p = power + noise + 1e-3
        if gate and rng.random() < gate:  # a recorder with a noise gate: quiet bands/frames written as digital zero
            p[p < np.quantile(p, 0.3)] = 0.0
        with np.errstate(divide="ignore"):
            feats[i] = np.log(p) if log else p * 1e4
        labels[i] = label_of[w]
    return feats, labels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--per-shard", type=int, default=2400)
    ap.add_argument("--val", type=int, default=960)
    ap.add_argument("--frames", type=int, default=32)
    ap.add_argument("--bins", type=int, default=40)
    ap.add_argument("--only", type=int, default=-1, help="re-export this shard only")
    ap.add_argument("--new-keywords", default="", help="comma list of keywords recorded in the re-exported shard")
    ap.add_argument("--linear", action="store_true", help="export band energies without the log")
    ap.add_argument("--noise-gate", type=float, default=0.0, help="fraction of utterances from a noise-gated recorder")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    extra = [w for w in a.new_keywords.split(",") if w]
    tpl = templates(rng, KEYWORDS + extra, a.bins)
    label_of = {w: i for i, w in enumerate(KEYWORDS + extra)}
    meta_path = os.path.join(a.out, "meta.json")
    if a.only < 0:
        with open(meta_path, "w") as f:
            json.dump({"keywords": KEYWORDS, "bins": a.bins, "frames": a.frames, "hop_ms": 32}, f)
    for s in range(a.shards):
        if a.only >= 0 and s != a.only:
            continue
        srng = np.random.default_rng(a.seed * 100 + s)
        x, y = utterances(srng, tpl, KEYWORDS + extra, a.per_shard, a.frames, a.bins, label_of, log=not a.linear,
                          gate=a.noise_gate)
        np.savez(os.path.join(a.out, f"train-{s:02d}.npz"), feats=x, labels=y)
        print(f"wrote {a.out}/train-{s:02d}.npz {x.shape}")
    if a.only < 0:
        x, y = utterances(np.random.default_rng(a.seed * 1000), tpl, KEYWORDS, a.val, a.frames, a.bins, label_of)
        np.savez(os.path.join(a.out, "val.npz"), feats=x, labels=y)
        print(f"wrote {a.out}/val.npz {x.shape}")


if __name__ == "__main__":
    main()
