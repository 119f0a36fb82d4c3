"""Write a synthetic protein secondary-structure set: data/train/shard-NN.ss and data/val/shard-NN.ss, three lines per
chain (">id length", the residue sequence, the DSSP 3-state string H/E/C), plus data/meta.json. Chains are built from
helix (8-22), strand (4-10) and coil (2-12) segments; each residue is drawn from that state's amino-acid propensities
(Chou-Fasman-like), so the tagger has real signal. Options add what real exports contain: non-standard residues,
soft-masked (lower-case) low-complexity regions, polyglutamine tracts, short peptides, a giant chain, 8-state DSSP
strings and chains left empty by the structure filter."""
import argparse
import json
import os

import numpy as np

AA = "ACDEFGHIKLMNPQRSTVWY"
# relative propensities (helix, strand, coil) per residue, after Chou & Fasman 1978
PROP = {
    "A": (1.42, 0.83, 0.66), "C": (0.70, 1.19, 1.19), "D": (1.01, 0.54, 1.46), "E": (1.51, 0.37, 0.74),
    "F": (1.13, 1.38, 0.60), "G": (0.57, 0.75, 1.56), "H": (1.00, 0.87, 0.95), "I": (1.08, 1.60, 0.47),
    "K": (1.16, 0.74, 1.01), "L": (1.21, 1.30, 0.59), "M": (1.45, 1.05, 0.60), "N": (0.67, 0.89, 1.56),
    "P": (0.57, 0.55, 1.52), "Q": (1.11, 1.10, 0.98), "R": (0.98, 0.93, 0.95), "S": (0.77, 0.75, 1.43),
    "T": (0.83, 1.19, 0.96), "V": (1.06, 1.70, 0.50), "W": (1.08, 1.37, 0.96), "Y": (0.69, 1.47, 1.14),
}
FREQ = np.array([8.3, 1.4, 5.5, 6.8, 3.9, 7.1, 2.3, 5.9, 5.8, 9.6, 2.4, 4.1, 4.7, 3.9, 5.5, 6.6, 5.3, 6.9, 1.1, 2.9])


def state_probs(k, sharpen=3.0):
    p = FREQ * np.array([PROP[a][k] for a in AA]) ** sharpen
    return p / p.sum()


P = [state_probs(k) for k in range(3)]
LEN = {0: (8, 22), 1: (4, 10), 2: (2, 12)}
DSSP8 = {0: "HHHHGI", 1: "EEEB", 2: "CCTTS"}


def chain(rng, n_min, n_max, q8=False):
    n = int(rng.integers(n_min, n_max + 1))
    seq, ss = [], []
    k = 2
    while len(seq) < n:
        lo, hi = LEN[k]
        m = int(rng.integers(lo, hi + 1))
        seq += list(rng.choice(list(AA), m, p=P[k]))
        if q8:
            ss += list(rng.choice(list(DSSP8[k]), m))
        else:
            ss += ["HEC"[k]] * m
        k = int(rng.choice([t for t in range(3) if t != k], p=[0.5, 0.5])) if k != 2 else int(rng.choice([0, 1], p=[0.6, 0.4]))
        if k != 2 and rng.random() < 0.6:
            lo, hi = LEN[2]
            m = int(rng.integers(lo, hi + 1))
            seq += list(rng.choice(list(AA), m, p=P[2]))
            ss += ["C"] * m
    return "".join(seq[:n]), "".join(ss[:n])


def ints(s):
    return {int(x) for x in s.split(",")} if s else set()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--per-shard", type=int, default=150)
    ap.add_argument("--val-shards", type=int, default=2)
    ap.add_argument("--val-per-shard", type=int, default=60)
    ap.add_argument("--min-len", type=int, default=60)
    ap.add_argument("--max-len", type=int, default=240)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--nonstandard", default="", help="shards with X/U/B/Z residues")
    ap.add_argument("--softmask", default="", help="shards exported with lower-case low-complexity regions")
    ap.add_argument("--polyq", default="", help="shards holding a chain with a long polyglutamine tract")
    ap.add_argument("--peptides", default="", help="shards that also hold short peptides (8-18 residues)")
    ap.add_argument("--giant", default="", help="shards holding one very long chain (titin-like)")
    ap.add_argument("--dssp8", default="", help="shards whose structure strings are 8-state DSSP")
    ap.add_argument("--empty", default="", help="shards holding a chain left empty by the structure filter")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    for sub in ("train", "val"):
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
    total = 0
    for sub, n_sh, per in (("train", a.shards, a.per_shard), ("val", a.val_shards, a.val_per_shard)):
        for s in range(n_sh):
            recs = []
            tr = sub == "train"
            for i in range(per):
                seq, ss = chain(rng, a.min_len, a.max_len, q8=tr and s in ints(a.dssp8))
                if tr and s in ints(a.nonstandard) and i % 7 == 3:
                    pos = rng.choice(len(seq), 2, replace=False)
                    seq = "".join(rng.choice(list("XUBZ")) if j in pos else c for j, c in enumerate(seq))
                if tr and s in ints(a.softmask) and i % 5 == 1:
                    j = int(rng.integers(0, len(seq) - 20))
                    seq = seq[:j] + seq[j:j + 15].lower() + seq[j + 15:]
                recs.append((f"{sub[0]}{s:02d}_{i:04d}", seq, ss))
            if tr and s in ints(a.polyq):
                seq, ss = chain(rng, 150, 170)  # an expression construct ending in a polyglutamine tract
                seq, ss = seq + "Q" * 26, ss + "C" * 26
                recs.insert(per // 3, (f"{sub[0]}{s:02d}_htt_ex1", seq, ss))
            if tr and s in ints(a.peptides):
                for i in range(per // 3):
                    seq, ss = chain(rng, 8, 18)
                    recs.append((f"{sub[0]}{s:02d}_pep{i:03d}", seq, ss))
            if tr and s in ints(a.giant):
                seq, ss = chain(rng, 34350, 34350)
                recs.insert(per // 2, (f"{sub[0]}{s:02d}_ttn", seq, ss))
            if tr and s in ints(a.empty):
                recs.insert(per // 4, (f"{sub[0]}{s:02d}_4hhb_X", "", ""))
            with open(os.path.join(a.out, sub, f"shard-{s:02d}.ss"), "w") as f:
                for rid, seq, ss in recs:
                    f.write(f">{rid} {len(seq)}\n{seq}\n{ss}\n")
            total += len(recs)
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump({"alphabet": AA + "X", "states": "HEC", "chains": total}, f)
    print(f"wrote {total} chains to {a.out}")


if __name__ == "__main__":
    main()
