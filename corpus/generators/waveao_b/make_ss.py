"""Write synthetic protein sequences with 3-state secondary-structure labels (H helix, E strand, C coil).

Each chain is built from segments: helices prefer A/L/E/K/M/Q/R, strands V/I/Y/F/W/T, coils G/P/N/D/S; segment lengths
follow rough PDB statistics. One shard per line: `id<TAB>sequence<TAB>labels`.
"""
import argparse
import os
import random

PREF = {"H": "AALLEEKKMQRA", "E": "VVIIYFWTTV", "C": "GGPPNNDDSSK"}
OTHER = "ACDEFGHIKLMNPQRSTVWY"
LEN = {"H": (6, 18), "E": (4, 9), "C": (3, 10)}


def chain(rng, n, alphabet):
    seq, lab = [], []
    state = "C"
    while len(seq) < n:
        lo, hi = LEN[state]
        k = rng.randint(lo, hi)
        for _ in range(k):
            seq.append(rng.choice(PREF[state]) if rng.random() < 0.7 else rng.choice(alphabet))
            lab.append(state)
        state = rng.choice([s for s in "HEC" if s != state])
    return "".join(seq[:n]), "".join(lab[:n])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--chains", type=int, default=1600)
    ap.add_argument("--min-len", type=int, default=40)
    ap.add_argument("--max-len", type=int, default=160)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", default="", help="rewrite only these shard numbers (comma separated)")
    ap.add_argument("--alphabet", default=OTHER, help="residue letters drawn outside the preferred ones")
    ap.add_argument("--label-set", default="HEC", help="letters written for helix/strand/coil")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    only = {int(x) for x in a.only.split(",") if x}
    rng = random.Random(a.seed)
    per = a.chains // (a.shards + 1)
    for sh in range(a.shards + 1):
        name = "valid.tsv" if sh == a.shards else f"train-{sh:02d}.tsv"
        rows = []
        for i in range(per):
            s, l = chain(rng, rng.randint(a.min_len, a.max_len), a.alphabet)
            l = l.translate(str.maketrans("HEC", a.label_set))
            rows.append(f"{name[:-4]}-{i:05d}\t{s}\t{l}\n")
        if not only or sh in only:
            with open(os.path.join(a.out, name), "w") as f:
                f.writelines(rows)
    print(f"wrote {a.shards} train shards + valid, {per} chains each, to {a.out}")


if __name__ == "__main__":
    main()
