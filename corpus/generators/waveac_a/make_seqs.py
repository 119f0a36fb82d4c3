"""Write synthetic promoter-like DNA sequences as FASTA shards: positives carry a planted TATA-box-like motif and a
GATA site at a random offset, negatives are background with matched GC content. Headers: >id label=0|1."""
import argparse
import gzip
import os

import numpy as np

MOTIFS = ("TATAAA", "GATAAG")


def seq(rng, n, gc, pos):
    p = [(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2]
    s = list(rng.choice(list("ACGT"), size=n, p=p))
    if pos:
        for m in MOTIFS:
            if rng.random() < 0.85:
                o = rng.integers(0, n - len(m))
                s[o:o + len(m)] = m
    return "".join(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--per-shard", type=int, default=600)
    ap.add_argument("--val", type=int, default=400)
    ap.add_argument("--length", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--control-shard", type=int, default=-1, help="this shard is a negative-control library")
    ap.add_argument("--iupac-shard", type=int, default=-1, help="this shard comes from the newer basecaller export")
    ap.add_argument("--gzip-shard", type=int, default=-1, help="this shard is stored gzip-compressed")
    ap.add_argument("--val-pos-frac", type=float, default=0.5)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    for k in range(a.shards):
        lines = []
        for i in range(a.per_shard):
            pos = (k != a.control_shard) and rng.random() < 0.5
            s = seq(rng, a.length, rng.uniform(0.35, 0.6), pos)
            if k == a.iupac_shard and rng.random() < 0.02:
                j = rng.integers(0, a.length - 3)
                s = s[:j] + "N" * int(rng.integers(1, 4)) + s[j + 3:]
                s = s[:a.length]
            lines.append(f">s{k}_{i:05d} label={int(pos)}\n{s}\n")
        path = os.path.join(a.out, f"train-{k:02d}.fa")
        if k == a.gzip_shard:
            with gzip.open(path + ".gz", "wt") as f:
                f.writelines(lines)
        else:
            with open(path, "w") as f:
                f.writelines(lines)
        print(f"wrote {path}{'.gz' if k == a.gzip_shard else ''}: {a.per_shard} sequences")
    with open(os.path.join(a.out, "val.fa"), "w") as f:
        for i in range(a.val):
            pos = rng.random() < a.val_pos_frac
            f.write(f">v{i:05d} label={int(pos)}\n{seq(rng, a.length, rng.uniform(0.35, 0.6), pos)}\n")
    print(f"wrote {a.out}/val.fa: {a.val} sequences")


if __name__ == "__main__":
    main()
