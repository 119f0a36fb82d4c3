"""Write a synthetic keyword-spotting corpus: log-mel feature shards [N, 40, 64] float16 + keyword labels.

    python make_kws_data.py --out data --shards 12 --per-shard 600 [--uneven] [--zbin] ...
"""
import argparse
import json
import os
import zlib

import numpy as np

KEYWORDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "_silence_", "_unknown_"]


def clips(rng, n, words):
    y = rng.choice(words, size=n)
    x = rng.normal(0.0, 1.0, size=(n, 40, 64)).astype(np.float32)
    for k, w in enumerate(KEYWORDS):
        m = y == w
        x[m, (3 * k) % 40:(3 * k) % 40 + 4, 8 + k * 4:24 + k * 4] += 2.5
    return x, list(y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=12)
    ap.add_argument("--per-shard", type=int, default=600)
    ap.add_argument("--val-shards", type=int, default=3)
    ap.add_argument("--uneven", action="store_true", help="shard sizes from the recording sessions (not equal)")
    ap.add_argument("--dead-channel", type=int, default=-1, help="a mel channel that is silent in the first shard")
    ap.add_argument("--val-new-word", default="", help="a keyword recorded for val only")
    ap.add_argument("--val-short-last", action="store_true")
    ap.add_argument("--zbin", action="store_true")
    ap.add_argument("--stale-header-shard", type=int, default=-1, help="a .zbin shard appended to after its header")
    ap.add_argument("--fifo", action="store_true")
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    os.makedirs(a.out, exist_ok=True)
    stats_x = None
    for s in range(a.shards):
        n = a.per_shard if not a.uneven else int(a.per_shard * (0.6 + 0.8 * rng.random()))
        x, y = clips(rng, n, KEYWORDS)
        if a.dead_channel >= 0 and s == 0:
            x[:, a.dead_channel, :] = 0.0
        if s == 0:
            stats_x = x
        x = x.astype(np.float16)
        np.savez(os.path.join(a.out, f"train-{s:05d}.npz"), x=x, y=np.array(y))
        if a.zbin:
            head = {"shape": list(x.shape), "nbytes": x.nbytes, "labels": y, "codec": "zlib"}
            if s == a.stale_header_shard:
                head["nbytes"] = (x.shape[0] // 8) * 40 * 64 * 2
            hb = json.dumps(head).encode()
            with open(os.path.join(a.out, f"train-{s:05d}.zbin"), "wb") as f:
                f.write(len(hb).to_bytes(4, "little") + hb + zlib.compress(x.tobytes(), 1))
    for s in range(a.val_shards):
        n = a.per_shard // 3
        if a.val_short_last and s == a.val_shards - 1:
            n -= 37
        words = KEYWORDS + ([a.val_new_word] if a.val_new_word and s == a.val_shards - 1 else [])
        x, y = clips(rng, n, words)
        np.savez(os.path.join(a.out, f"val-{s:05d}.npz"), x=x.astype(np.float16), y=np.array(y))
    np.savez(os.path.join(a.out, "stats.npz"), mean=stats_x.mean(axis=(0, 2)), std=stats_x.std(axis=(0, 2)))
    json.dump({"keywords": KEYWORDS, "frames": 64, "mels": 40, "sample_rate": 16000},
              open(os.path.join(a.out, "meta.json"), "w"))
    if a.fifo:
        os.mkfifo(os.path.join(a.out, "aug.fifo"))
    print(f"wrote {a.shards} train shards, {a.val_shards} val shards to {a.out}")


if __name__ == "__main__":
    main()
