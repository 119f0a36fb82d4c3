"""Synthetic protein secondary-structure data: amino-acid sequences whose residues are drawn from helix (H), strand (E)
or coil (C) propensities along a segment-level label path, written as `id<TAB>sequence<TAB>ss3` lines in
data/train-NN.ss3 and data/val.ss3."""
import argparse
import os
import random

AA = "ACDEFGHIKLMNPQRSTVWY"
PROP = {  # residue preferences per state (Chou-Fasman flavoured)
    "H": "AAALLLEEEMMQQKKRRHWIDS",
    "E": "VVVIIIYYFFWTTTCLMGSAR",
    "C": "GGGPPPNNDDSSSTTKEQRA",
}


def protein(rng, n):
    ss = []
    while len(ss) < n:
        st = rng.choice("HHEECCC")
        ln = {"H": rng.randint(6, 18), "E": rng.randint(3, 9), "C": rng.randint(2, 8)}[st]
        ss.extend(st * ln)
    ss = ss[:n]
    seq = [rng.choice(PROP[s]) if rng.random() < 0.8 else rng.choice(AA) for s in ss]
    return "".join(seq), "".join(ss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--per-shard", type=int, default=384)
    ap.add_argument("--val", type=int, default=160)
    ap.add_argument("--min-len", type=int, default=40)
    ap.add_argument("--max-len", type=int, default=220)
    ap.add_argument("--long-shard", default="", help="k:maxlen, shard k holds longer proteins")
    ap.add_argument("--odd", default="", help="k:res:n, n sequences of shard k get residue res somewhere")
    ap.add_argument("--peptides", default="", help="k:n, n records of shard k are single-residue fragments")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    longk, longmax = (int(x) for x in a.long_shard.split(":")) if a.long_shard else (-1, 0)
    for k in range(a.shards):
        hi = longmax if k == longk else a.max_len
        recs = [protein(rng, rng.randint(a.min_len, hi)) for _ in range(a.per_shard)]
        if a.odd and int(a.odd.split(":")[0]) == k:
            _, res, n = a.odd.split(":")
            for j in rng.sample(range(len(recs)), int(n)):
                s, t = recs[j]
                p = rng.randrange(len(s))
                recs[j] = (s[:p] + res + s[p + 1:], t)
        if a.peptides and int(a.peptides.split(":")[0]) == k:
            for j in rng.sample(range(len(recs)), int(a.peptides.split(":")[1])):
                recs[j] = protein(rng, 1)
        with open(os.path.join(a.out, f"train-{k:02d}.ss3"), "w") as f:
            for j, (s, t) in enumerate(recs):
                f.write(f"P{k:02d}{j:05d}\t{s}\t{t}\n")
    with open(os.path.join(a.out, "val.ss3"), "w") as f:
        for j in range(a.val):
            s, t = protein(rng, rng.randint(a.min_len, a.max_len))
            if j % 37 == 5:
                s = s[:10] + "X" + s[11:]
            f.write(f"V{j:05d}\t{s}\t{t}\n")
    print(f"wrote {a.shards} shards x {a.per_shard} proteins and {a.val} validation proteins to {a.out}/")


if __name__ == "__main__":
    main()
