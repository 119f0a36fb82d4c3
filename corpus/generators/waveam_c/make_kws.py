"""Write a synthetic keyword-spotting dataset as WAV files: data/<split>/<word>/<speaker>_<n>.wav.

Each keyword is a short sequence of "phones": voiced segments (a glottal pulse train at the speaker's pitch, with a
pitch chirp, filtered through two or three formant resonators) and unvoiced segments (band-passed noise bursts), placed
at a random offset inside a 1-second clip with background noise. Speakers differ in pitch, formant scale and tempo.
Default export: 8 kHz, 16-bit PCM mono, 1 s.
"""
from __future__ import annotations

import argparse
import json
import struct
import wave
from pathlib import Path

import numpy as np

# (kind, duration_s, F1, F2, F3, pitch_start_ratio, pitch_end_ratio) ; kind 'v' voiced, 'n' noise (F1 = centre)
WORDS = {
    "yes":   [("n", 0.05, 2500, 0, 0, 1, 1), ("v", 0.12, 300, 2200, 2900, 1.1, 1.0), ("v", 0.12, 550, 1800, 2500, 1.0, 0.9), ("n", 0.12, 4500, 0, 0, 1, 1)],
    "no":    [("v", 0.08, 300, 1500, 2400, 1.0, 1.0), ("v", 0.25, 500, 900, 2400, 1.15, 0.8)],
    "up":    [("v", 0.14, 650, 1200, 2500, 1.0, 1.0), ("n", 0.04, 900, 0, 0, 1, 1)],
    "down":  [("n", 0.03, 3000, 0, 0, 1, 1), ("v", 0.2, 700, 1100, 2400, 1.2, 0.8), ("v", 0.1, 300, 1600, 2400, 0.8, 0.75)],
    "left":  [("v", 0.07, 380, 1000, 2500, 1.0, 1.0), ("v", 0.12, 550, 1800, 2500, 1.05, 1.0), ("n", 0.06, 3500, 0, 0, 1, 1), ("n", 0.03, 3000, 0, 0, 1, 1)],
    "right": [("v", 0.08, 350, 1200, 1500, 1.0, 1.0), ("v", 0.22, 750, 1300, 2500, 1.1, 0.85), ("n", 0.03, 3000, 0, 0, 1, 1)],
    "stop":  [("n", 0.1, 5000, 0, 0, 1, 1), ("n", 0.03, 3000, 0, 0, 1, 1), ("v", 0.15, 600, 1000, 2500, 1.1, 0.95), ("n", 0.03, 800, 0, 0, 1, 1)],
    "go":    [("n", 0.03, 1500, 0, 0, 1, 1), ("v", 0.25, 450, 800, 2400, 1.2, 0.9)],
    "marvin": [("v", 0.06, 300, 1100, 2400, 1.0, 1.0), ("v", 0.15, 700, 1200, 2500, 1.1, 1.0), ("v", 0.08, 400, 1500, 1700, 1.0, 1.0),
               ("n", 0.05, 2000, 0, 0, 1, 1), ("v", 0.15, 350, 2100, 2800, 1.0, 0.8)],
}
BASE = ["yes", "no", "up", "down", "left", "right", "stop", "go"]


def resonator(x: np.ndarray, f: float, bw: float, sr: int) -> np.ndarray:
    r = np.exp(-np.pi * bw / sr)
    a1, a2 = -2 * r * np.cos(2 * np.pi * f / sr), r * r
    y = np.zeros_like(x)
    y1 = y2 = 0.0
    g = 1 - r
    for i in range(len(x)):  # second-order IIR
        y0 = g * x[i] - a1 * y1 - a2 * y2
        y[i] = y0
        y2, y1 = y1, y0
    return y


def utter(word: str, rng: np.random.Generator, sr: int, dur: float) -> np.ndarray:
    f0 = rng.uniform(95, 240)
    fscale = rng.uniform(0.88, 1.15)
    tempo = rng.uniform(0.8, 1.25)
    segs = []
    for kind, d, f1, f2, f3, p0, p1 in WORDS[word]:
        n = max(8, int(d * tempo * sr))
        if kind == "v":
            pitch = f0 * np.linspace(p0, p1, n)
            phase = np.cumsum(pitch / sr)
            src = (np.diff(np.floor(phase), prepend=0) > 0).astype(np.float64) * 4.0 + rng.normal(0, 0.02, n)
            y = sum(resonator(src, min(f * fscale, sr / 2 - 200), 80 + 0.05 * f, sr) * w
                    for f, w in ((f1, 1.0), (f2, 0.6), (f3, 0.3)))
        else:
            y = resonator(rng.normal(0, 1, n), min(f1 * fscale, sr / 2 - 300), 600, sr) * 0.6
        env = np.minimum(1, np.minimum(np.arange(n), np.arange(n)[::-1]) / (0.01 * sr))
        segs.append(y * env)
    sp = np.concatenate(segs)
    sp /= np.abs(sp).max() + 1e-9
    total = int(dur * sr)
    sp = sp[: total - 1]
    out = rng.normal(0, 1, total) * 10 ** (-rng.uniform(25, 45) / 20)
    off = rng.integers(0, total - len(sp))
    out[off:off + len(sp)] += sp * rng.uniform(0.3, 0.9)
    return np.clip(out, -1, 1)


def write_pcm16(path: Path, x: np.ndarray, sr: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes((x * 32767).astype("<i2").tobytes())


def write_float32(path: Path, x: np.ndarray, sr: int) -> None:
    """IEEE float WAV (format tag 3), what many recording apps export."""
    data = x.astype("<f4").tobytes()
    fmt = struct.pack("<HHIIHH", 3, 1, sr, sr * 4, 4, 32)
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<I", len(fmt)) + fmt)
        f.write(b"data" + struct.pack("<I", len(data)) + data)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--words", default=",".join(BASE))
    ap.add_argument("--train-per-word", type=int, default=150)
    ap.add_argument("--val-per-word", type=int, default=30)
    ap.add_argument("--speakers", type=int, default=24)
    ap.add_argument("--rate", type=int, default=8000)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--float32", action="store_true", help="IEEE float WAV instead of 16-bit PCM")
    ap.add_argument("--muted", type=int, default=0, help="clips per word recorded with the microphone muted (zeros)")
    ap.add_argument("--batch", default="", help="name prefix of this export batch")
    ap.add_argument("--splits", default="train,val")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    out = Path(a.out)
    words = a.words.split(",")
    n = 0
    for split in a.splits.split(","):
        per = a.train_per_word if split == "train" else a.val_per_word
        for w in words:
            d = out / split / w
            d.mkdir(parents=True, exist_ok=True)
            for i in range(per):
                spk = rng.integers(0, a.speakers) if split == "train" else a.speakers + rng.integers(0, 6)
                x = utter(w, rng, a.rate, a.seconds)
                if i < a.muted:
                    x = np.zeros_like(x)
                p = d / f"{a.batch}spk{spk:03d}_{i:04d}.wav"
                (write_float32 if a.float32 else write_pcm16)(p, x, a.rate)
                n += 1
    meta = out / "labels.json"
    if not meta.exists():
        meta.write_text(json.dumps({"words": words, "rate": a.rate}, indent=1))
    print(f"wrote {n} clips to {out} ({a.rate} Hz)")


if __name__ == "__main__":
    main()
