"""Write a small synthetic token dataset (data/train.jsonl) for the tiny causal LM."""
import argparse
import json
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=512)
ap.add_argument("--vocab", type=int, default=256)
ap.add_argument("--extra-row", default="")
ap.add_argument("--at", type=int, default=-1)
a = ap.parse_args()
os.makedirs("data", exist_ok=True)
rng = random.Random(0)
lines = []
for i in range(a.rows):
    n = rng.randint(24, 64)
    start = rng.randrange(a.vocab)
    toks = [(start + 3 * k + rng.randrange(3)) % a.vocab for k in range(n)]
    lines.append(json.dumps({"id": i, "tokens": toks}))
if a.extra_row:
    lines.insert(a.at if a.at >= 0 else len(lines), a.extra_row)
with open("data/train.jsonl", "w") as f:
    f.write("\n".join(lines) + "\n")
