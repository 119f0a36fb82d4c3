"""Write a synthetic support-ticket corpus as data/{train,val}.jsonl."""
import argparse
import json
import random

import numpy as np
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--rows", type=int, default=3000)
ap.add_argument("--extra-row", default=None, help="append one raw line to train.jsonl (hand-curated examples)")
ap.add_argument("--idx-dtype", default="int64", help="dtype of the document-start index data/train.idx")
a = ap.parse_args()
rnd = random.Random(0)
prod = ["mail client", "vpn", "printer", "billing page", "sso login", "laptop dock", "backup agent"]
verb = ["crashes on start", "is slow", "rejects my password", "shows a blank page", "will not sync", "times out"]
out = Path(a.out)
out.mkdir(exist_ok=True)
for split, n in (("train", a.rows), ("val", a.rows // 10)):
    starts, pos = [], 0
    with open(out / f"{split}.jsonl", "w") as f:
        for i in range(n):
            t = f"ticket {i}: the {rnd.choice(prod)} {rnd.choice(verb)} since the update; priority {rnd.randint(1, 4)}"
            f.write(json.dumps({"id": i, "text": t}) + "\n")
            starts.append(pos)
            pos += len((t + "\n").encode("utf-8"))
        if split == "train" and a.extra_row:
            f.write(a.extra_row + "\n")
    if split == "train":
        np.asarray(starts[:-8], dtype=a.idx_dtype).tofile(out / "train.idx")
