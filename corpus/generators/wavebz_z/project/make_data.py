"""Write the "tickets" corpus: short support-ticket texts with a 4-class intent label, as JSON Lines shards
(data/tickets/train-0000N.jsonl) plus a Parquet copy (data/tickets-parquet/). Deterministic. Not logged.

    python make_data.py [--rows N] [--shards K] [--bad-label-at I]  [--sorted]
"""
import argparse
import json
import os
import random

import pyarrow as pa
import pyarrow.parquet as pq

WORDS = {
    0: "refund charge invoice billing payment card money back overcharged receipt".split(),
    1: "login password reset account locked two factor email verify access".split(),
    2: "shipping delivery package tracking courier late address parcel arrived".split(),
    3: "crash error app freeze bug update screen slow broken install".split(),
}
FILL = "the my a please i we your it is was not and to for with on help thanks today again".split()

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=4800)
ap.add_argument("--shards", type=int, default=8)
ap.add_argument("--bad-label-at", type=int, default=-1, help="row whose label is written as a string")
ap.add_argument("--sorted", action="store_true", help="rows ordered by label, label 3 only in the first 70%")
a = ap.parse_args()
rnd = random.Random(7)
rows = []
for i in range(a.rows):
    y = rnd.randrange(4)
    n = rnd.randrange(8, 24)
    words = [rnd.choice(WORDS[y]) if rnd.random() < 0.45 else rnd.choice(FILL) for _ in range(n)]
    rows.append({"id": i, "text": " ".join(words), "label": y})
if a.sorted:
    cut = int(a.rows * 0.7)
    rows.sort(key=lambda r: (r["label"] != 3, r["id"]))
    threes = [r for r in rows if r["label"] == 3]
    rest = [r for r in rows if r["label"] != 3]
    head = rest[: cut - len(threes)] + threes
    rnd.shuffle(head)
    rows = head + rest[cut - len(threes):]
    for i, r in enumerate(rows):
        r["id"] = i
os.makedirs("data/tickets", exist_ok=True)
os.makedirs("data/tickets-parquet", exist_ok=True)
per = len(rows) // a.shards
for k in range(a.shards):
    part = rows[k * per:(k + 1) * per]
    with open(f"data/tickets/train-{k:05d}.jsonl", "w") as f:
        for r in part:
            r = dict(r)
            if r["id"] == a.bad_label_at:
                r["label"] = ["billing", "account", "shipping", "app"][r["label"]]
            f.write(json.dumps(r) + "\n")
    pq.write_table(pa.Table.from_pylist(part), f"data/tickets-parquet/train-{k:05d}.parquet")
print(f"wrote {len(rows)} rows in {a.shards} shards")
