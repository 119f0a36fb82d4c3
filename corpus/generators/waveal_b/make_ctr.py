"""Write a synthetic click-log export in the Criteo layout: one TSV line per impression,
label, 13 integer count features (I1..I13, may be empty), 26 categorical features (C1..C26, 8-hex-digit
hashed ids, may be empty). Clicks come from a hidden logistic model over some of the features.

    python make_ctr.py --out data [--shards 4 --rows 3000] [--neg-counts 1] [--free-text 1] [--big 1,50000]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

N_DENSE, N_CAT = 13, 26


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--rows", type=int, default=3000, help="rows per training shard")
    ap.add_argument("--val-shards", type=int, default=2)
    ap.add_argument("--val-rows", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--missing", type=float, default=0.04, help="fraction of empty fields")
    ap.add_argument("--neg-counts", default="", help="training shards (comma list) from the export that keeps "
                                                     "-1/-2 sentinels in I2/I3 (unknown counts)")
    ap.add_argument("--neg-rate", type=float, default=0.12, help="fraction of rows with a sentinel, per column")
    ap.add_argument("--free-text", default="", help="training shards whose C26 is the raw ad title (may hold tabs)")
    ap.add_argument("--big", default="", help="shard,rows: one training shard with more rows")
    ap.add_argument("--vocab-shift", default="", help="training shards from a newer export with new ids (new campaigns)")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    vocab = [int(v) for v in rng.integers(20, 3000, N_CAT)]
    ids = [rng.integers(0, 2**32, v, dtype=np.uint64) for v in vocab]
    weights = [rng.normal(0, 0.8, v) if k % 3 == 0 else np.zeros(v) for k, v in enumerate(vocab)]
    dense_w = rng.normal(0, 0.3, N_DENSE)
    neg = {int(s) for s in a.neg_counts.split(",") if s}
    text = {int(s) for s in a.free_text.split(",") if s}
    shift = {int(s) for s in a.vocab_shift.split(",") if s}
    big = dict([tuple(int(x) for x in a.big.split(","))]) if a.big else {}
    words = ["free", "shipping", "summer", "sale", "new", "running", "shoes", "phone", "case", "hotel", "deals"]

    def shard(path: Path, rows: int, r: np.random.Generator, negs: bool, title: bool, shifted: bool) -> dict:
        counts = np.floor(r.lognormal(1.0, 1.3, (rows, N_DENSE))).astype(np.int64)
        if negs:  # unknown counts exported as sentinels
            for col in (1, 2):
                m = r.random(rows) < a.neg_rate
                counts[m, col] = r.choice([-1, -2], m.sum())
        z = (np.log1p(np.maximum(counts, 0)) - 1.2) @ dense_w - 1.3
        cats = np.empty((rows, N_CAT), dtype=np.int64)
        for k in range(N_CAT):
            hi = vocab[k] * (2 if shifted else 1)
            idx = np.minimum(r.zipf(1.3, rows) - 1, hi - 1)
            idx = np.where(idx >= vocab[k], idx % vocab[k], idx)
            cats[:, k] = idx
            z += weights[k][idx]
        y = (r.random(rows) < 1 / (1 + np.exp(-z))).astype(int)
        with path.open("w") as f:
            for i in range(rows):
                dense = ["" if r.random() < a.missing else str(v) for v in counts[i]]
                cat = ["" if r.random() < a.missing else f"{int(ids[k][cats[i, k]]):08x}"[:8] for k in range(N_CAT)]
                if title and r.random() < 0.02:
                    cat[-1] = " ".join(r.choice(words, 3)) + "\t" + "".join(r.choice(list("0123456789"), 4))
                elif title:
                    cat[-1] = " ".join(r.choice(words, 3))
                f.write("\t".join([str(y[i]), *dense, *cat]) + "\n")
        return {"file": path.name, "rows": rows, "ctr": round(float(y.mean()), 4)}

    out = Path(a.out)
    meta = {"dense": N_DENSE, "categorical": N_CAT, "train": [], "val": []}
    for split, n, rows in (("train", a.shards, a.rows), ("val", a.val_shards, a.val_rows)):
        (out / split).mkdir(parents=True, exist_ok=True)
        for s in range(n):
            tr = split == "train"
            info = shard(out / split / f"part-{s:05d}.tsv", big.get(s, rows) if tr else rows,
                         np.random.default_rng(a.seed * 1000 + s + (0 if tr else 500)), tr and s in neg,
                         tr and s in text, tr and s in shift)
            meta[split].append(info)
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {a.shards} train shards ({sum(m['rows'] for m in meta['train'])} rows), {a.val_shards} val shards "
          f"to {out}/")


if __name__ == "__main__":
    main()
