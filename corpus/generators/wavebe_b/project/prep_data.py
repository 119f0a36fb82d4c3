"""Export the synthetic promoter set: int-coded sequences (A=0 C=1 G=2 T=3) as .npy, labels and QC weights as TSV."""
import argparse
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--n-train", type=int, default=1024)
ap.add_argument("--n-val", type=int, default=256)
ap.add_argument("--seq-len", type=int, default=200)
ap.add_argument("--nan-qc", type=int, default=0, help="rows whose QC weight is missing (written as nan)")
ap.add_argument("--label-column", default="label")
a = ap.parse_args()
rng = np.random.default_rng(7)
os.makedirs(a.out, exist_ok=True)
MOTIFS = [np.array([3, 0, 3, 0, 0, 3]), np.array([3, 3, 2, 0, 1, 0])]  # TATAAT, TTGACA
for split, n in (("train", a.n_train), ("val", a.n_val)):
    x = rng.integers(0, 4, size=(n, a.seq_len), dtype=np.uint8)
    y = rng.integers(0, 2, size=n)
    for i in np.nonzero(y)[0]:
        p = rng.integers(20, a.seq_len - 60)
        x[i, p:p + 6] = MOTIFS[1]
        x[i, p + 23:p + 29] = MOTIFS[0]
    np.save(os.path.join(a.out, f"{split}_seqs.npy"), x)
    w = rng.uniform(0.5, 1.0, size=n)
    if split == "train" and a.nan_qc:
        w[rng.choice(n, a.nan_qc, replace=False)] = np.nan
    with open(os.path.join(a.out, f"{split}_meta.tsv"), "w") as f:
        f.write(f"seq_id\t{a.label_column}\tqc_weight\n")
        for i in range(n):
            f.write(f"{split}_{i:05d}\t{y[i]}\t{w[i]:.4f}\n")
